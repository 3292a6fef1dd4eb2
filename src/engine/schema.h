/*-------------------------------------------------------------------------
 *
 * schema.h
 *	  The table's definition as the engine sees it: column types and
 *	  families (schema.c).
 *
 * IDENTIFICATION
 *	  src/engine/schema.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SCHEMA_H
#define WIDE_SCHEMA_H

#include "utils/relcache.h"
#include "engine/aggregate.h"
#include "engine/format.h"

/* a family: the policies of a group of columns (see api/families.c) */
typedef struct WideFamily
{
	char		name[WIDE_MAX_FAMILY_NAME + 1];
	int			namelen;
	uint32		id;				/* incarnation: new on every create */
	int32		max_versions;	/* 0: no version rule */
	int64		max_age;		/* microseconds; 0: no age rule */
	bool		gc_intersection;	/* both rules must agree to collect */
	WideAggregate aggregate;
} WideFamily;

/*
 * What the engine needs to know about a wide table: its column types and
 * its families.  Built from the relcache entry and cached in rd_amcache, so
 * that any change to the table's definition (ALTER, create_family) resets it.
 */
typedef struct WideSchema
{
	Oid			keytype;		/* TEXTOID or BYTEAOID */
	Oid			qualtype;		/* TEXTOID or BYTEAOID */
	Oid			tstype;			/* TIMESTAMPTZOID or INT8OID */
	Oid			valtype;
	int16		vallen;			/* typlen of the value type */
	bool		valbyval;
	bool		has_catalog;	/* the family catalog is present */
	bool		meta_exists;	/* block 0 is known to exist */
	uint32		next_id;		/* next family incarnation */
	int			nfamilies;
	WideFamily *families;		/* sorted by name (bytewise) */
} WideSchema;

extern void WideCheckTableShape(Relation rel);
extern bool WideHasTableShape(Relation rel);
extern Oid	WideRewriteSource(Relation rel);
extern const WideSchema *WideGetSchema(Relation rel);
extern WideSchema *WideSchemaCopy(Relation rel);
extern WideSchema *WideSchemaCommitted(Relation rel);
extern const WideFamily *WideSchemaFindFamily(const WideSchema *schema,
											  const char *name, int len);

#endif							/* WIDE_SCHEMA_H */
