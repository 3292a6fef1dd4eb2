/*-------------------------------------------------------------------------
 *
 * am.h
 *	  PostgreSQL glue of the wide table access method: the TableAmRoutine
 *	  (tableam.c), SQL values <-> cells (cellslot.c), DELETE (delete.c),
 *	  DDL checks (ddl.c), the planner (customscan.c), VACUUM (vacuum.c),
 *	  every write of cells (write.c).
 *
 *	  Executor and tableam types are only forward-declared here.
 *
 * IDENTIFICATION
 *	  src/am/am.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_AM_H
#define WIDE_AM_H

#include "access/tableam.h"
#include "storage/buf.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/cell.h"
#include "engine/schema.h"

struct TupleTableSlot;

/* delete.c */
extern void WideInstallDeleteHooks(void);
#define WIDE_DELETE_KEYS		1
#define WIDE_DELETE_WITH_VALUES	2
#define WIDE_DELETE_LATEST_VALUE	3	/* the value until the next such cell */
extern int	WideDeleteTracking(Relation rel);
extern void WideDeleteRemember(Relation rel, const WideCell *cell, ItemPointer tid,
							   int track);
struct TM_FailureData;
extern TM_Result WideDeleteCell(Relation rel, ItemPointer tid, CommandId cid,
								struct TM_FailureData *tmfd);
extern bool WideDeleteLock(Relation rel, ItemPointer tid, CommandId cid,
						   struct TupleTableSlot *slot, struct TM_FailureData *tmfd,
						   TM_Result *result);
extern bool WideDeleteFetch(Relation rel, ItemPointer tid, struct TupleTableSlot *slot);

/*
 * write.c: the one entry point of every write of cells, and when a
 * statement's writes end.  The mode says what the writer is; write.c decides
 * the stamp, rollups, buffering and flushes from it.  A STATEMENT writer's
 * cells are written when its statement ends (the executor hooks); a BULK
 * writer must call WideWriteEnd(rel, WIDE_WRITE_BULK) when its load ends
 * (finish_bulk_insert), or its last run is lost with the transaction.
 */
typedef enum WideWriteMode
{
	WIDE_WRITE_STATEMENT,		/* INSERT, wide.* mutations: held until the
								 * statement ends (at once outside a query) */
	WIDE_WRITE_BULK,			/* COPY: sorted into runs of the write area */
	WIDE_WRITE_APPEND,			/* appended at once (replication's deletes) */
	WIDE_WRITE_DELETE			/* a DELETE statement's tombstones */
} WideWriteMode;
extern void WideWrite(Relation rel, const WideSchema *schema, WideCell *cells,
					  int n, WideWriteMode mode, CommandId cid,
					  Snapshot snapshot);
extern void WideWriteEnd(Relation rel, WideWriteMode mode);
extern void WideWriteFlushIfFull(Relation rel, uint32 wa_pages);
extern int	WideStatementLevel(void);
extern void WideInstallStatementHooks(void);

/* ddl.c */
extern bool WideRelationIsWide(Oid relid);
extern void WideInstallHooks(void);

/* tracking.c: row keys written to a tablet during a split or move */
extern void WideInstallTracking(void);
extern bool WideTabletTracked(Relation rel);

/* rangedel.c: DELETE of a key range as one range tombstone */
extern bool wide_enable_range_delete;
extern void WideRangeDeleteDefineSettings(void);
extern bool WideRangeDeleteAllowed(Relation rel);
/* sees each cell a tombstone deletes; false: it must not be written */
typedef bool (*WideDeleteCheck) (const WideCell *cell, void *arg);
/*
 * Optionally, where the reader can (WideReaderRowBatch), the cells a block
 * at a time as rows of spec's family and columns: check_rows sees the n
 * rows of batch, decoded from "records" records; false as for a cell.
 */
typedef struct WideDeleteBatch
{
	const WideRowBatchSpec *spec;
	WideRowBatch *batch;
	bool		(*check_rows) (WideRowBatch *b, int n, uint64 records, void *arg);
} WideDeleteBatch;
extern bool WideRangeDelete(Relation rel, Snapshot snapshot, CommandId cid,
							const WideKeyRange *range, uint64 *ncells,
							WideDeleteCheck check, const WideDeleteBatch *batch,
							void *arg);
extern bool WideKeysDelete(Relation rel, Snapshot snapshot, CommandId cid,
						   const WideKeyRange *ranges, int nranges, uint64 *ncells,
						   WideDeleteCheck check, const WideDeleteBatch *batch,
						   void *arg);
extern const WideFamily *WideMoveInFamily(Relation rel, const WideSchema *schema,
										  const char *name, uint32 len);

/* cellslot.c: SQL values <-> cells */
extern int64 WideNowUnix(void);
extern void WideCheckTimestamp(int64 ts);
extern const WideFamily *WideFamilyForWrite(Relation rel, const WideSchema *schema,
											const char *name, uint32 len);
extern const char *WideValueToBytes(const WideSchema *schema, Datum value,
									uint32 *len);
extern Datum WideBytesToValue(const WideSchema *schema, const char *bytes,
							  uint32 len);
extern int64 WideAggInt(Relation rel, const WideFamily *fam, Oid type,
					   Datum value);
extern double WideAggFloat(Relation rel, const WideFamily *fam, Oid type,
						   Datum value);
extern const char *WideAggInput(Relation rel, const WideFamily *fam,
								WideAggregate agg, WideKind kind, Oid type,
								Datum value, uint32 *len);
extern uint64 WideHllInputHash(Oid type, Datum value);
extern Datum WideAggToValue(const WideSchema *schema, const WideCell *cell);
extern const WideFamily *WideCellCoordinates(Relation rel, const WideSchema *schema,
											 Datum *values, bool *isnull,
											 WideCell *cell);
extern void WideCellFromValues(Relation rel, const WideSchema *schema,
							   Datum *values, bool *isnull, WideCell *cell);
extern bool WideCellSibling(Relation rel, const WideSchema *schema,
							const WideCell *first, Datum qual, Datum value,
							char *valbuf, WideCell *cell);
extern bool WideCellToValues(const WideSchema *schema, const WideCell *cell,
							 Datum *values, bool *isnull, const bool *needed);
/* the aggregate of the column of the last accumulator a scan formed */
#define WIDE_AGG_MEMO_BYTES	64
typedef struct WideAggMemo
{
	const WideSchema *schema;	/* NULL: nothing remembered */
	uint32		famlen;
	uint32		quallen;
	char		fam[WIDE_AGG_MEMO_BYTES];
	char		qual[WIDE_AGG_MEMO_BYTES];
	WideAggregate agg;
} WideAggMemo;
extern bool WideCellToValuesMemo(const WideSchema *schema, const WideCell *cell,
								 Datum *values, bool *isnull, const bool *needed,
								 WideAggMemo *memo);

/* customscan.c */
extern void WideInstallPlanner(void);

/* vacuum.c */
struct VacuumParams;
extern double WideEstimateCells(Relation rel);
extern void WideVacuum(Relation rel, struct VacuumParams *params,
					   BufferAccessStrategy bstrategy);

/* progress.c: long work in PostgreSQL's progress views (wide.progress()) */
typedef enum WideProgressPhase
{
	WIDE_PROGRESS_NONE = 0,
	WIDE_PROGRESS_FLUSH = 1,	/* VACUUM: the write area becomes a run */
	WIDE_PROGRESS_COMPACT = 2,	/* VACUUM: size-tiered compactions */
	WIDE_PROGRESS_DELETES = 3,	/* VACUUM: merging runs to drop deletes */
	WIDE_PROGRESS_FREEZE = 4,	/* VACUUM: rewriting runs of old xids */
	WIDE_PROGRESS_SWEEP = 5,	/* VACUUM: queueing orphaned pages */
	WIDE_PROGRESS_TRUNCATE = 6, /* VACUUM: giving the free tail back */
	WIDE_PROGRESS_STATS = 7,	/* VACUUM: statistics, relfrozenxid */
	WIDE_PROGRESS_COPY_WRITE = 8,	/* COPY: sorting and writing the last run */
	WIDE_PROGRESS_COPY_FLUSH = 9	/* COPY: flushing the write area */
} WideProgressPhase;

/* progress parameters (indexes) the heap's views leave free */
#define WIDE_PROGRESS_PARAM_PHASE		10
#define WIDE_PROGRESS_PARAM_COMPACTIONS 11
#define WIDE_PROGRESS_PARAM_TRUNCATED	12

extern void WideProgressVacuumStart(Relation rel);
extern void WideProgressVacuumPhase(WideProgressPhase phase);
extern void WideProgressVacuumCount(int param, int64 value);
extern void WideProgressVacuumEnd(Relation rel);
extern void WideProgressCopyPhase(WideProgressPhase phase);

/* keyindex.c: the wide_key index access method */
extern bool WideKeyIndexIs(Relation index);
struct PlannedStmt;
extern void WideKeyCheckOnConflict(struct PlannedStmt *stmt);
extern Oid	WideKeyIndexAmOid(void);
extern void WideKeyCheckNewTable(Oid relid);

/* tableam.c */
struct TableAmRoutine;
extern const struct TableAmRoutine *WideTableAmRoutine(void);

/* policynote.c */
extern void WidePolicyNoteWrites(Relation rel, const WideSchema *schema,
								 const WideCell *cells, int n);
extern void WidePolicyNoteReport(void);
extern void WidePolicyNoteInstall(void);

/* copyrow.c */
struct TupleTableSlotOps;
extern const struct TupleTableSlotOps *WideSlotOps(void);

#endif							/* WIDE_AM_H */
