/*-------------------------------------------------------------------------
 *
 * rows.h
 *	  The row form: a foreign table whose tuples are readings assembled
 *	  from the cells of one family of a wide table (rows_shape.c: the
 *	  declaration and the row key's codec; rows_plan.c: paths and key
 *	  ranges; rows_scan.c: the scan, ANALYZE, EXPLAIN; rows_write.c:
 *	  INSERT, COPY, UPDATE, DELETE; rows_agg.c: GROUP BY inside the scan;
 *	  rows_fdw.c: the handler, which sends each callback to its module).
 *
 *	  CREATE FOREIGN TABLE cpu (time timestamptz, tags_id int, usage_user
 *	  float8, ...) SERVER wide_rows OPTIONS (cells 'cpu_cells', family
 *	  'cpu', key 'tags_id,time');
 *
 *	  The key columns, in order, make the row key (parts joined by the
 *	  separator, as wide.key() joins them); every other column is a
 *	  qualifier of the family, NULL when the row has no cell of it.
 *
 * IDENTIFICATION
 *	  src/am/rows.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_ROWS_H
#define WIDE_ROWS_H

#include "access/attnum.h"
#include "lib/stringinfo.h"
#include "foreign/fdwapi.h"
#include "nodes/pathnodes.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/cell.h"
#include "engine/schema.h"

#define WIDE_ROWS_MAX_PARTS	8

/* how a key part is written in the row key */
typedef enum WideRowPartKind
{
	WIDE_PART_TEXT = 1,			/* as it is, # and \ escaped by \ */
	WIDE_PART_INT,				/* decimal digits, fixed width */
	WIDE_PART_TIME,				/* seconds (or ms, us) since 1970, fixed width */
	WIDE_PART_SALT				/* the salt option: the first part, no column;
								 * md5 of the rest of the key mod buckets, as
								 * wide.salted_key() writes it */
} WideRowPartKind;

typedef struct WideRowPart
{
	AttrNumber	attnum;			/* the column */
	Oid			type;
	WideRowPartKind kind;
	int			width;			/* digits; INT 0: any bigint as 20 digits */
	int64		unit;			/* TIME: microseconds per unit */
	bool		reversed;		/* TIME: newest first (10^width - 1 - t) */
	int			buckets;		/* SALT: how many */
} WideRowPart;

/* what a column of the row form is */
typedef enum WideRowColKind
{
	WIDE_COL_KEY = 1,			/* a part of the row key */
	WIDE_COL_VALUE,				/* a qualifier of the family */
	WIDE_COL_TS,				/* the cells' timestamp (not in the key) */
	WIDE_COL_DROPPED
} WideRowColKind;

typedef struct WideRowCol
{
	WideRowColKind kind;
	int			part;			/* KEY: index into parts */
	Oid			type;
	int16		typlen;
	bool		typbyval;
	bool		binary;			/* VALUE: stored as the type's binary form
								 * in a bytea value column */
	Oid			sendfn;			/* binary: typsend, typreceive, typioparam */
	Oid			recvfn;
	Oid			ioparam;
	char	   *qual;			/* VALUE: the qualifier */
	uint32		quallen;
} WideRowCol;

typedef struct WideRowShape
{
	Oid			relid;			/* the foreign table */
	Oid			cells;			/* the wide table */
	char	   *family;
	int			famlen;
	char		sep;
	int			nparts;			/* with the salt, if any: parts[0] */
	WideRowPart parts[WIDE_ROWS_MAX_PARTS];
	int			salt;			/* buckets of the salt option, or 0 */
	AttrNumber	ts_attnum;		/* the column written as the cells' time */
	bool		ts_in_key;		/* ... a key part: a row per row key */
	int			ts_part;		/* ... which */
	int			natts;
	WideRowCol *cols;			/* by attnum - 1 */
	int			nvalues;		/* value columns, by qualifier (bytewise) */
	AttrNumber *by_qual;
} WideRowShape;

/* rows_shape.c */
extern WideRowShape *WideRowShapeGet(Oid relid);
extern Relation WideRowCellsOpen(const WideRowShape *shape, LOCKMODE mode,
								 AclMode perm);
extern void WideRowKeyPart(const WideRowShape *shape, int part, Datum d,
						   StringInfo buf);
extern bool WideRowKeyPartTry(const WideRowShape *shape, int part, Datum d,
							  Oid type, StringInfo buf);
extern int64 WideRowInt(Datum d, Oid type);
extern int	WideRowSaltOf(const char *key, int len, int buckets);
extern void WideRowSaltKey(const WideRowShape *shape, StringInfo key);
extern void WideRowDigits(StringInfo buf, uint64 v, int width);
extern uint64 WideRowPow10(int n);
extern void WideRowKeyDecodeSince(const WideRowShape *shape, const char *key,
								  uint32 len, uint32 same, Datum *values,
								  bool *isnull);
extern void WideRowKeyDecode(const WideRowShape *shape, const char *key,
							 uint32 len, Datum *values, bool *isnull);
extern int	WideRowColumnOf(const WideRowShape *shape, const char *qual,
							uint32 len);
extern Datum WideRowValueIn(const WideRowShape *shape, const WideSchema *schema,
							const WideRowCol *col, Datum value);
extern Datum WideRowValueOut(const WideRowShape *shape, const WideSchema *schema,
							 const WideRowCol *col, Datum value);

/* rows_plan.c; what the planner keeps in a row form's baserel->fdw_private */
struct PlannerInfo;
struct RelOptInfo;
struct RestrictInfo;

/* a key condition among a scan's clauses (WideRowsKeyCondition) */
typedef struct WideRowsKey
{
	struct RestrictInfo *ri;
	int			part;			/* the key part it bounds */
	int			strategy;		/* btree strategy */
	bool		is_array;		/* part = ANY (value) */
	Expr	   *value;
} WideRowsKey;

typedef struct RowsPlanInfo
{
	WideRowShape *shape;
	double		cells_per_row;	/* columns read per row */
	List	   *needed;			/* attnums of the value columns read */
	bool		exist_by_needed;	/* a strict condition makes them enough */
	List	   *keys;			/* WideRowsKey of the key conditions of
								 * baserestrictinfo, found once */
	List	   *classified;		/* the RestrictInfos keys was found among */
} RowsPlanInfo;

struct ForeignPath;
struct ForeignScan;
struct Plan;
extern bool WideRowsKeyCondition(struct PlannerInfo *root, const WideRowShape *s,
								 struct RelOptInfo *rel, Expr *clause, int *part,
								 int *strategy, bool *is_array, Expr **value);
extern List *WideRowsFindKeys(struct PlannerInfo *root, struct RelOptInfo *rel,
							  List *rinfos);
extern void WideRowsGetRelSize(struct PlannerInfo *root, struct RelOptInfo *baserel,
							   Oid foreigntableid);
extern void WideRowsGetPaths(struct PlannerInfo *root, struct RelOptInfo *baserel,
							 Oid foreigntableid);
extern struct ForeignScan *WideRowsGetPlan(struct PlannerInfo *root,
										   struct RelOptInfo *baserel,
										   Oid foreigntableid,
										   struct ForeignPath *best_path,
										   List *tlist, List *scan_clauses,
										   struct Plan *outer_plan);

/* rows_scan.c: the scan of rows, for the executor nodes */
typedef struct RowsScan RowsScan;
struct ExprContext;
extern RowsScan *WideRowsScanOpen(WideRowShape *shape, Snapshot snapshot,
								  List *fdw_private, List *valuestates);
extern bool WideRowsScanNext(RowsScan *st, struct ExprContext *econtext,
							 Datum *values, bool *isnull);
extern void WideRowsScanSetFilter(RowsScan *st, List *quals);
extern bool WideRowsScanRanges(RowsScan *st, struct ExprContext *econtext,
							   const WideKeyRange **ranges, int *nranges);
extern void WideRowsScanRestart(RowsScan *st);
extern void WideRowsScanSetFloor(RowsScan *st, int part, bool has_floor,
								 Datum t, Oid type);
extern Size WideRowsScanEstimateDSM(RowsScan *st, struct ExprContext *econtext,
									int nworkers);
extern void WideRowsScanInitDSM(RowsScan *st, void *coordinate);
extern void WideRowsScanReinitDSM(RowsScan *st, void *coordinate);
extern void WideRowsScanInitWorker(RowsScan *st, void *coordinate);
extern void WideRowsScanClose(RowsScan *st);
struct ExplainState;
extern void WideRowsScanExplain(Oid relid, List *fdw_private, RowsScan *st,
								struct ExplainState *es);
extern bool WideRowsAnalyze(Relation rel, AcquireSampleRowsFunc *func,
							BlockNumber *totalpages);

/* rows_agg.c: GROUP BY inside the scan */
struct ForeignScanState;
struct ExplainState;
struct TupleTableSlot;
extern void WideRowsGetUpperPaths(struct PlannerInfo *root, UpperRelationKind stage,
								  struct RelOptInfo *input_rel,
								  struct RelOptInfo *output_rel, void *extra);
extern Oid	WideRowsAggRelid(struct ForeignScan *plan);
extern struct ForeignScan *WideRowsAggPlan(struct PlannerInfo *root,
										   struct RelOptInfo *rel,
										   struct ForeignPath *best_path,
										   List *tlist, struct Plan *outer_plan);
extern void WideRowsAggBegin(struct ForeignScanState *node, int eflags);
extern struct TupleTableSlot *WideRowsAggNext(struct ForeignScanState *node);
extern void WideRowsAggRescan(struct ForeignScanState *node);
extern void WideRowsAggEnd(struct ForeignScanState *node);
extern RowsScan *WideRowsAggScan(struct ForeignScanState *node);
extern void WideRowsAggExplain(struct ForeignScanState *node, struct ExplainState *es);
extern List *WideRowsPlanPrivate(struct RelOptInfo *baserel, bool backward,
								 List **meta_exprs, List *clauses,
								 struct PlannerInfo *root);

/* rows_write.c */
struct FdwRoutine;
struct ResultRelInfo;
extern void WideRowsModifyRoutine(struct FdwRoutine *r);
extern Relation WideRowsDeleteBegin(struct ResultRelInfo *rinfo);
extern void WideRowsDeleteRow(struct ResultRelInfo *rinfo, Datum *values,
							  bool *isnull, CommandId cid);
extern void WideRowsDeleteEnd(struct ResultRelInfo *rinfo);

/* rows_delete.c: DELETE as tombstones of key ranges (direct modify) */
extern void WideRowsDirectRoutine(struct FdwRoutine *r);

#endif							/* WIDE_ROWS_H */
