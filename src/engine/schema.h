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

/*
 * A GC policy as a postfix program (rules.c evaluates it): leaves push
 * whether they collect a version, UNION/INTERSECTION pop "nargs" results
 * and push their "or"/"and".  Flat policies (max_versions, max_age, gc)
 * and Bigtable's nested GcRules compile to the same form (schema.c).
 */
#define WIDE_GC_MAX_OPS		32
#define WIDE_GC_MAX_DEPTH	8

typedef enum WideGcOpKind
{
	WIDE_GC_VERSIONS = 1,		/* arg: max versions */
	WIDE_GC_AGE = 2,			/* arg: max age, microseconds */
	WIDE_GC_UNION = 3,			/* nargs: results to "or" */
	WIDE_GC_INTERSECTION = 4	/* nargs: results to "and" */
} WideGcOpKind;

typedef struct WideGcOp
{
	uint8		kind;			/* WideGcOpKind */
	uint8		nargs;
	int64		arg;
} WideGcOp;

/* a family: the policies of a group of columns (see api/families.c) */
typedef struct WideFamily
{
	char		name[WIDE_MAX_FAMILY_NAME + 1];
	int			namelen;
	uint32		id;				/* incarnation: new on every create */
	int32		max_versions;	/* largest version limit of the policy; 0: none */
	int64		max_age;		/* largest age limit (microseconds); 0: none */
	bool		gc_intersection;	/* flat policy: both rules must agree */
	int			ngc;			/* the policy as a program; 0: keep all */
	WideGcOp	gc[WIDE_GC_MAX_OPS];
	WideAggregate aggregate;
	bool		float_values;	/* the value column is float8: sum, min and
								 * max fold doubles (WideCellAggregate) */
	/* a rollup family (aggregate WIDE_AGG_ROLLUP; engine/rollup.c) */
	char		rollup_source[WIDE_MAX_FAMILY_NAME + 1];
	int			rollup_sourcelen;
	int64		rollup_bucket;	/* bucket width, microseconds */
	uint8		rollup_functions;	/* 1 << WideRollupFunction */
	int			rollup_key_parts;	/* row key: parts before the n-th
									 * delimiter; 0: the whole key */
	char		rollup_delimiter;
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
	bool		has_rollups;	/* a family is a rollup of another */
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

/* rollups merged on write (rollup.c) */
typedef enum WideRollupFunction
{
	WIDE_ROLLUP_SUM = 0,
	WIDE_ROLLUP_COUNT,
	WIDE_ROLLUP_MIN,
	WIDE_ROLLUP_MAX,
	WIDE_ROLLUP_HLL,
	WIDE_ROLLUP_DDSKETCH,
	WIDE_ROLLUP_NFUNCTIONS
} WideRollupFunction;

struct WideCell;
extern int	WideRollupFunctionByName(const char *name, int len);
extern int	WideRollupFunctionOf(const char *qual, uint32 quallen);
extern WideAggregate WideCellAggregate(const WideFamily *f, const char *qual,
									   uint32 quallen);
extern WideAggregate WideRollupCellCheck(Relation rel, const WideFamily *f,
										 const char *qual, uint32 quallen);
extern bool (*wide_rollup_replaying) (void);
extern struct WideCell *WideRollupExpand(Relation rel, const WideSchema *schema,
										 struct WideCell *cells, int *n);

#endif							/* WIDE_SCHEMA_H */
