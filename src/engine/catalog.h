/*-------------------------------------------------------------------------
 *
 * catalog.h
 *	  The family catalog as a jsonb document (schema.c).  Separate from
 *	  schema.h so that only the files that handle the document see jsonb.
 *
 * IDENTIFICATION
 *	  src/engine/catalog.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_CATALOG_H
#define WIDE_CATALOG_H

#include "utils/jsonb.h"
#include "utils/relcache.h"

extern Jsonb *WideCatalogDocument(Relation rel);
extern Jsonb *WideCatalogDocumentOf(Oid relid);

#endif							/* WIDE_CATALOG_H */
