/*-------------------------------------------------------------------------
 *
 * publication.h
 *	  Keeping wide tables out of publications (am/publication.c).
 *
 * IDENTIFICATION
 *	  src/am/publication.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_PUBLICATION_H
#define WIDE_PUBLICATION_H

#include "access/attnum.h"
#include "access/htup.h"
#include "catalog/objectaccess.h"
#include "utils/relcache.h"

/* ddl.c */
extern HeapTuple WideFetchNewCatalogRow(Oid catalog, Oid index,
										AttrNumber oidattr, Oid objectId);

/* publication.c */
extern void WideCheckNotPublished(Relation rel);
extern void WideRefusePublishedRemote(Oid parent);
extern void WidePublicationObjectAccess(ObjectAccessType access, Oid classId,
										Oid objectId, int subId);
extern void WideInstallPublicationHooks(void);

#endif							/* WIDE_PUBLICATION_H */
