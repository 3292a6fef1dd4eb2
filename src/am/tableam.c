/*-------------------------------------------------------------------------
 *
 * tableam.c
 *	  The "wide" table access method: thin callbacks over the engine.
 *
 * Tuples of a wide table are cells (row_key, family, qualifier, ts, value).
 * INSERT and COPY hand their cells to write.c (WideWrite); a sequential scan
 * returns the cells one MVCC snapshot sees, in (row_key, family, qualifier,
 * ts desc) order.  What a wide table does not do -- indexes (the row key is
 * the index), UPDATE/DELETE through the executor, row locks, TABLESAMPLE,
 * parallel scans -- fails with a clear error rather than a wrong answer.
 *
 * Item pointers of returned cells are synthetic: they number the cells of a
 * scan and cannot be used to fetch a cell again, except those a DELETE's
 * scan or a wide_key index scan returns (delete.c remembers them): a
 * DELETE deletes by them, and a logical replication worker that found a
 * cell by its replica identity index (keyindex.c) fetches, "locks" and
 * deletes it by them.
 *
 * IDENTIFICATION
 *	  src/am/tableam.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/heapam.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "commands/vacuum.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "replication/logicalworker.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sampling.h"
#include "utils/snapmgr.h"

#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "engine/lsm.h"
#include "engine/split.h"
#include "am/am.h"

PG_FUNCTION_INFO_V1(wide_tableam_handler);

typedef struct WideScanDescData
{
	TableScanDescData base;
	WideReader *reader;
	MemoryContext scancxt;		/* the reader and its state */
	MemoryContext tupcxt;		/* datums of the current tuple */
	uint64		ntuples;		/* cells returned, for synthetic TIDs */
	int			for_delete;		/* WideDeleteTracking: a running DELETE's target */

	/* ANALYZE: cells [analyze_from, analyze_to) belong to the current block */
	double		analyze_total;
	BlockNumber analyze_nblocks;
	uint64		analyze_from;
	uint64		analyze_to;
	/* ANALYZE of a large table: a sample of each sampled block's stretch */
	bool		analyze_sampled;
	int			analyze_nkeys;	/* split keys: stretches nkeys + 1 */
	WideSplitKey *analyze_keys;
	int64	   *analyze_chosen; /* the stretches read, in key order */
	int			analyze_nchosen;
	int64		analyze_stretch;	/* the stretch being read, or -1 */
	int			analyze_per_block;	/* cells returned per sampled block */
	int			analyze_left;	/* ... still to return for this block */
	bool		analyze_counted;	/* this block's cells added to liverows */
	StringInfoData analyze_lo;
	StringInfoData analyze_hi;
} WideScanDescData;

typedef WideScanDescData *WideScanDesc;

static void not_supported(Relation rel, const char *what, const char *hint)
			pg_attribute_noreturn();

static void
not_supported(Relation rel, const char *what, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s is not supported on wide table \"%s\"", what,
					rel ? RelationGetRelationName(rel) : "?"),
			 hint ? errhint("%s", hint) : 0));
}

/* ----------------------------------------------------------------
 *	Slots and scans
 * ----------------------------------------------------------------
 */

static const TupleTableSlotOps *
wide_slot_callbacks(Relation rel)
{
	/* virtual slots that check the rows of a COPY FROM (copyrow.c) */
	return WideSlotOps();
}

static TableScanDesc
wide_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
				struct ScanKeyData *key, ParallelTableScanDesc pscan,
				uint32 flags)
{
	WideScanDesc scan;

	if (pscan != NULL)
		not_supported(rel, "a parallel scan", NULL);
	if (flags & (SO_TYPE_SAMPLESCAN | SO_TYPE_BITMAPSCAN | SO_TYPE_TIDSCAN |
				 SO_TYPE_TIDRANGESCAN))
		not_supported(rel, "this kind of scan",
					  "Read wide tables with a sequential scan or the wide.read_rows() function.");

	/* ANALYZE passes no snapshot: read what the transaction would see */
	if (snapshot == NULL)
	{
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
		flags |= SO_TEMP_SNAPSHOT;
	}

	/*
	 * A dirty snapshot is a logical replication worker looking for the row
	 * an UPDATE or DELETE names by comparing every column
	 * (RelationFindReplTupleSeq): the value a wide publisher's DELETE
	 * carries is NULL and would match no cell, and the delete would be
	 * skipped without a word.  Refuse: the worker stops on the error and
	 * retries, and applies the delete once the table has a replica
	 * identity index (keyindex.c), which it then uses instead.
	 */
	else if (snapshot->snapshot_type == SNAPSHOT_DIRTY && IsLogicalWorker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("wide table \"%s\" needs a replica identity index to apply a replicated UPDATE or DELETE",
						RelationGetRelationName(rel)),
				 errdetail("Without one, the cell would be looked up by comparing every column, and a wide table's replicated DELETE carries no value."),
				 errhint("On the subscriber: ALTER TABLE %s ALTER row_key SET NOT NULL, ALTER family SET NOT NULL, ALTER qualifier SET NOT NULL, ALTER ts SET NOT NULL; CREATE UNIQUE INDEX %s ON %s USING wide_key (row_key, family, qualifier, ts); ALTER TABLE %s REPLICA IDENTITY USING INDEX %s;",
						 quote_identifier(RelationGetRelationName(rel)),
						 quote_identifier(psprintf("%s_cell", RelationGetRelationName(rel))),
						 quote_identifier(RelationGetRelationName(rel)),
						 quote_identifier(RelationGetRelationName(rel)),
						 quote_identifier(psprintf("%s_cell", RelationGetRelationName(rel))))));

	/*
	 * Any other kind of snapshot the records' visibility does not know (a
	 * dirty one outside a replication worker): read what the latest
	 * snapshot sees.  A dirty snapshot's xmin and xmax, which the caller
	 * reads after the scan as "written by a running transaction", are left
	 * invalid.
	 */
	else if (snapshot->snapshot_type != SNAPSHOT_MVCC &&
			 snapshot->snapshot_type != SNAPSHOT_ANY)
	{
		if (snapshot->snapshot_type == SNAPSHOT_DIRTY)
		{
			snapshot->xmin = InvalidTransactionId;
			snapshot->xmax = InvalidTransactionId;
		}
		snapshot = RegisterSnapshot(GetLatestSnapshot());
		flags |= SO_TEMP_SNAPSHOT;
	}

	scan = palloc0(sizeof(WideScanDescData));
	scan->for_delete = WideDeleteTracking(rel);
	scan->base.rs_rd = rel;
	scan->base.rs_snapshot = snapshot;
	scan->base.rs_nkeys = nkeys;
	scan->base.rs_key = key;
	scan->base.rs_flags = flags;
	scan->base.rs_parallel = NULL;
	/*
	 * The reader is created at the first fetch and lives as long as the
	 * scan, whatever context the caller fetches in: ALTER TABLE's rewrite
	 * fetches in a per-tuple context that it resets after every tuple.
	 */
	scan->scancxt = AllocSetContextCreate(CurrentMemoryContext, "wide scan",
										  ALLOCSET_DEFAULT_SIZES);
	scan->tupcxt = AllocSetContextCreate(CurrentMemoryContext, "wide tuple",
										 ALLOCSET_DEFAULT_SIZES);
	return (TableScanDesc) scan;
}

static void
wide_scan_end(TableScanDesc sscan)
{
	WideScanDesc scan = (WideScanDesc) sscan;

	if (scan->reader)
		WideReaderEnd(scan->reader);
	MemoryContextDelete(scan->scancxt);
	MemoryContextDelete(scan->tupcxt);
	if (scan->base.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs_snapshot);
	pfree(scan);
}

static void
wide_scan_rescan(TableScanDesc sscan, struct ScanKeyData *key,
				 bool set_params, bool allow_strat, bool allow_sync,
				 bool allow_pagemode)
{
	WideScanDesc scan = (WideScanDesc) sscan;

	if (scan->reader)
		WideReaderEnd(scan->reader);
	scan->reader = NULL;
	MemoryContextReset(scan->scancxt);
	scan->ntuples = 0;
}

/* store a cell in a virtual slot */
static void
store_cell(WideScanDesc scan, const WideSchema *schema, const WideCell *cell,
		   TupleTableSlot *slot)
{
	MemoryContext old;

	ExecClearTuple(slot);
	MemoryContextReset(scan->tupcxt);
	old = MemoryContextSwitchTo(scan->tupcxt);
	WideCellToValues(schema, cell, slot->tts_values, slot->tts_isnull, NULL);
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);

	scan->ntuples++;
	if (scan->for_delete)
		WideDeleteRemember(scan->base.rs_rd, cell, &slot->tts_tid, scan->for_delete);
	else
		ItemPointerSet(&slot->tts_tid,
					   (BlockNumber) (scan->ntuples / MaxHeapTuplesPerPage),
					   (OffsetNumber) (scan->ntuples % MaxHeapTuplesPerPage) + 1);
	slot->tts_tableOid = RelationGetRelid(scan->base.rs_rd);
}

static bool
wide_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					  TupleTableSlot *slot)
{
	WideScanDesc scan = (WideScanDesc) sscan;
	const WideCell *cell;
	MemoryContext old;

	if (direction == BackwardScanDirection)
		not_supported(scan->base.rs_rd, "a backward scan",
					  "Declare the cursor without SCROLL.");
	old = MemoryContextSwitchTo(scan->scancxt);
	if (scan->reader == NULL)
		scan->reader = WideReaderBegin(scan->base.rs_rd,
									   scan->base.rs_snapshot,
									   WideReaderNow(), NULL);
	cell = WideReaderNext(scan->reader);
	MemoryContextSwitchTo(old);
	if (cell == NULL)
	{
		ExecClearTuple(slot);
		return false;
	}
	store_cell(scan, WideGetSchema(scan->base.rs_rd), cell, slot);
	pgstat_count_heap_getnext(scan->base.rs_rd);
	return true;
}

static Size
wide_parallelscan_estimate(Relation rel)
{
	not_supported(rel, "a parallel scan", NULL);
}

static Size
wide_parallelscan_initialize(Relation rel, ParallelTableScanDesc pscan)
{
	not_supported(rel, "a parallel scan", NULL);
}

static void
wide_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan)
{
	not_supported(rel, "a parallel scan", NULL);
}

/* ----------------------------------------------------------------
 *	Index fetches: the cells a wide_key index scan returned (keyindex.c)
 * ----------------------------------------------------------------
 */

static struct IndexFetchTableData *
wide_index_fetch_begin(Relation rel)
{
	IndexFetchTableData *data = palloc0(sizeof(IndexFetchTableData));

	data->rel = rel;
	return data;
}

static void
wide_index_fetch_reset(struct IndexFetchTableData *data)
{
}

static void
wide_index_fetch_end(struct IndexFetchTableData *data)
{
	pfree(data);
}

/*
 * The cell the index scan just found (it remembered the cell under the
 * TID it returned).  Visibility was the scan's; a dirty snapshot's xmin and
 * xmax stay invalid: no transaction to wait for.
 */
static bool
wide_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					   Snapshot snapshot, TupleTableSlot *slot,
					   bool *call_again, bool *all_dead)
{
	*call_again = false;
	if (all_dead)
		*all_dead = false;
	if (snapshot != NULL && snapshot->snapshot_type == SNAPSHOT_DIRTY)
	{
		snapshot->xmin = InvalidTransactionId;
		snapshot->xmax = InvalidTransactionId;
	}
	if (!WideDeleteFetch(scan->rel, tid, slot))
		elog(ERROR, "wide table \"%s\" has no cell under item pointer (%u,%u)",
			 RelationGetRelationName(scan->rel),
			 ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid));
	return true;
}

static bool
wide_tuple_fetch_row_version(Relation rel, ItemPointer tid,
							 Snapshot snapshot, TupleTableSlot *slot)
{
	if (WideDeleteFetch(rel, tid, slot))
		return true;			/* DELETE ... RETURNING */
	not_supported(rel, "UPDATE, and fetching a cell again by its item pointer,",
				  "Row-level triggers, foreign keys and WHERE CURRENT OF fetch cells again; wide tables do not have them.  A write to an existing cell replaces it: INSERT the new value.");
}

static bool
wide_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	not_supported(scan->rs_rd, "a TID scan", NULL);
}

static void
wide_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
	not_supported(scan->rs_rd, "currtid", NULL);
}

static bool
wide_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							  Snapshot snapshot)
{
	not_supported(rel, "checking a cell against a snapshot", NULL);
}

static TransactionId
wide_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	not_supported(rel, "an index", NULL);
}

/* ----------------------------------------------------------------
 *	Writes
 * ----------------------------------------------------------------
 */

/* turn a slot into a cell (write.c stamps it) */
static void
slot_to_cell(Relation rel, const WideSchema *schema, TupleTableSlot *slot,
			 WideCell *cell)
{
	slot_getallattrs(slot);
	WideCellFromValues(rel, schema, slot->tts_values, slot->tts_isnull, cell);
}

static void
wide_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				  int options, struct BulkInsertStateData *bistate)
{
	static MemoryContext cxt = NULL;
	MemoryContext old;
	WideCell	cell;
	const WideSchema *schema;

	/*
	 * The executor calls this in its per-query context: what converting the
	 * row allocates is freed here, so a statement of any size runs in
	 * bounded memory.
	 */
	if (cxt == NULL)
		cxt = AllocSetContextCreate(TopMemoryContext, "wide tuple insert",
									ALLOCSET_DEFAULT_SIZES);
	MemoryContextReset(cxt);
	old = MemoryContextSwitchTo(cxt);
	schema = WideGetSchema(rel);
	slot_to_cell(rel, schema, slot, &cell);
	/* held until the statement ends (write.c) */
	WideWrite(rel, schema, &cell, 1, WIDE_WRITE_STATEMENT, cid, NULL);
	MemoryContextSwitchTo(old);
	MemoryContextReset(cxt);
	slot->tts_tableOid = RelationGetRelid(rel);
	ItemPointerSet(&slot->tts_tid, 0, 1);
	pgstat_count_heap_insert(rel, 1);
}

static void
wide_multi_insert(Relation rel, TupleTableSlot **slots, int nslots,
				  CommandId cid, int options,
				  struct BulkInsertStateData *bistate)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "wide multi insert",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WideSchema *schema = WideSchemaCopy(rel);
	WideCell   *cells = palloc(sizeof(WideCell) * nslots);
	int			i;

	for (i = 0; i < nslots; i++)
	{
		slot_to_cell(rel, schema, slots[i], &cells[i]);
		slots[i]->tts_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&slots[i]->tts_tid, 0, 1);
	}
	/* COPY: sorted in memory, written as runs of the write area (write.c) */
	WideWrite(rel, schema, cells, nslots, WIDE_WRITE_BULK, cid, NULL);
	pgstat_count_heap_insert(rel, nslots);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * INSERT ... ON CONFLICT DO NOTHING without a conflict target inserts
 * speculatively when the table has an index.  A wide table's only index is
 * a wide_key one (am/keyindex.c), which is never unique, so no insertion
 * can conflict: a plain insert, as without the index.  (A conflict target
 * needs a unique index, which PostgreSQL itself finds missing.)
 */
static void
wide_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							  CommandId cid, int options,
							  struct BulkInsertStateData *bistate,
							  uint32 specToken)
{
	wide_tuple_insert(rel, slot, cid, options, bistate);
}

static void
wide_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
								uint32 specToken, bool succeeded)
{
	if (!succeeded)
		not_supported(rel, "INSERT ... ON CONFLICT",
					  "A write to an existing cell replaces it: use a plain INSERT.");
}

static TM_Result
wide_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				  Snapshot snapshot, Snapshot crosscheck, bool wait,
				  TM_FailureData *tmfd, bool changingPart)
{
	return WideDeleteCell(rel, tid, cid, tmfd);
}

static TM_Result
wide_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				  CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				  bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				  bool *update_indexes)
{
	not_supported(rel, "UPDATE",
				  "A write to an existing cell replaces it: INSERT the new value.");
}

/*
 * Cells have no row locks: a delete is a tombstone written blindly, which
 * wins over the writes before it.  A logical replication worker "locks"
 * the cell it found by its replica identity index before deleting it
 * (RelationFindReplTupleByIndex): that cell is there, as it found it.  So
 * does a DELETE or MERGE with a BEFORE ROW DELETE trigger
 * (GetTupleForTrigger) "lock" the cell its scan returned.
 */
static TM_Result
wide_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				LockWaitPolicy wait_policy, uint8 flags,
				TM_FailureData *tmfd)
{
	TM_Result	result;

	if (IsLogicalWorker() && WideDeleteFetch(rel, tid, slot))
	{
		tmfd->traversed = false;
		return TM_Ok;
	}
	if (WideDeleteTracking(rel) && WideDeleteLock(rel, tid, cid, slot, tmfd, &result))
		return result;
	not_supported(rel, "locking cells (SELECT ... FOR UPDATE/SHARE)", NULL);
}

static void
wide_finish_bulk_insert(Relation rel, int options)
{
	WideWriteEnd(rel, WIDE_WRITE_BULK);
}

/* ----------------------------------------------------------------
 *	DDL
 * ----------------------------------------------------------------
 */

static void
wide_relation_set_new_filenode(Relation rel, const RelFileNode *newrnode,
							   char persistence, TransactionId *freezeXid,
							   MultiXactId *minmulti)
{
	SMgrRelation srel;
	Oid			orig;

	/*
	 * The new table of ALTER TABLE ... SET ACCESS METHOD wide: the table
	 * keeps its own column definitions, so its keys must already sort
	 * bytewise.
	 */
	if (OidIsValid(orig = WideRewriteSource(rel)))
	{
		for (AttrNumber attno = 1; attno <= 3; attno++)
		{
			Oid			typid;
			int32		typmod;
			Oid			collid;

			if (get_attname(orig, attno, true) == NULL)
				break;			/* not a wide table's shape: checked below */
			get_atttypetypmodcoll(orig, attno, &typid, &typmod, &collid);
			if (typid == TEXTOID && collid != C_COLLATION_OID)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
						 errmsg("column \"%s\" of table \"%s\" must use the \"C\" collation to move into wide",
								get_attname(orig, attno, false), get_rel_name(orig)),
						 errdetail("Row keys, families and qualifiers of a wide table sort bytewise."),
						 errhint("Change the collation in the same statement: ALTER TABLE %s ALTER COLUMN row_key TYPE text COLLATE \"C\", ALTER COLUMN family TYPE text COLLATE \"C\", ALTER COLUMN qualifier TYPE text COLLATE \"C\", SET ACCESS METHOD wide;",
								 get_rel_name(orig))));
		}
	}

	WideCheckTableShape(rel);

	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();

	srel = RelationCreateStorage(*newrnode, persistence, true);

	/*
	 * An unlogged table gets an empty init fork, as the heap does: after a
	 * crash the table is reset to no blocks, which is an empty wide table.
	 */
	if (persistence == RELPERSISTENCE_UNLOGGED)
	{
		smgrcreate(srel, INIT_FORKNUM, false);
		log_smgrcreate(newrnode, INIT_FORKNUM);
		smgrimmedsync(srel, INIT_FORKNUM);
	}
	smgrclose(srel);

	/* the metapage of the new storage is created by the first writer */
	if (rel->rd_amcache)
		((WideSchema *) rel->rd_amcache)->meta_exists = false;
}

static void
wide_relation_nontransactional_truncate(Relation rel)
{
	RelationTruncate(rel, 0);
	if (rel->rd_amcache)
		((WideSchema *) rel->rd_amcache)->meta_exists = false;
}

static void
wide_relation_copy_data(Relation rel, const RelFileNode *newrnode)
{
	SMgrRelation dstrel;

	dstrel = smgropen(*newrnode, rel->rd_backend);
	FlushRelationBuffers(rel);
	RelationCreateStorage(*newrnode, rel->rd_rel->relpersistence, true);
	RelationCopyStorage(RelationGetSmgr(rel), dstrel, MAIN_FORKNUM,
						rel->rd_rel->relpersistence);
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
	{
		smgrcreate(dstrel, INIT_FORKNUM, false);
		log_smgrcreate(newrnode, INIT_FORKNUM);
		smgrimmedsync(dstrel, INIT_FORKNUM);
	}
	RelationDropStorage(rel);
	smgrclose(dstrel);
}

/*
 * VACUUM FULL and CLUSTER: the table rewritten into the new storage as one
 * major compaction (engine/rewrite.c).  CLUSTER names a wide_key index
 * (keyindex.c), the order the cells are stored in anyway, so the index
 * only selects this path.  Records not visible to every snapshot keep
 * their xmin; every other one is frozen, so the new relfrozenxid
 * PostgreSQL passes in *xid_cutoff (at most OldestXmin) holds as it is.
 */
static void
wide_relation_copy_for_cluster(Relation OldTable, Relation NewTable,
							   Relation OldIndex, bool use_sort,
							   TransactionId OldestXmin,
							   TransactionId *xid_cutoff,
							   MultiXactId *multi_cutoff,
							   double *num_tuples,
							   double *tups_vacuumed,
							   double *tups_recently_dead)
{
	WideResolveStats stats;

	if (OldIndex != NULL && !WideKeyIndexIs(OldIndex))
		not_supported(OldTable, "CLUSTER on an index other than wide_key",
					  "Cells are always stored in row key order; use VACUUM FULL.");
	stats = WideRewrite(OldTable, NewTable);
	*num_tuples = (double) stats.kept;
	*tups_vacuumed = (double) (stats.seen - stats.kept);
	*tups_recently_dead = 0;
}

static void
wide_relation_vacuum(Relation rel, struct VacuumParams *params,
					 BufferAccessStrategy bstrategy)
{
	WideVacuum(rel, params, bstrategy);
}

static uint64
wide_relation_size(Relation rel, ForkNumber forkNumber)
{
	return table_block_relation_size(rel, forkNumber);
}

static bool
wide_relation_needs_toast_table(Relation rel)
{
	/* large values live in the table's own blob pages */
	return false;
}

static void
wide_relation_estimate_size(Relation rel, int32 *attr_widths,
							BlockNumber *pages, double *tuples,
							double *allvisfrac)
{
	/* the metapage knows the records; cells are fewer when some are dead */
	*pages = RelationGetNumberOfBlocks(rel);
	*tuples = WideEstimateCells(rel);
	*allvisfrac = 0;
}

/* ----------------------------------------------------------------
 *	ANALYZE
 *
 * acquire_sample_rows() asks for random block numbers in increasing order
 * and extrapolates the row count from the rows they hold.  Wide blocks are
 * not rows, so block b of n stands for the b-th n-th of the cells in key
 * order: the sample is spread over the key space and the extrapolated count
 * is right.
 *
 * A wide table is dense (a block stands for thousands of cells), so
 * ANALYZE samples nearly every block of it, and reading every cell of
 * those would read the whole table.  When a block stands for many more
 * cells than the sample needs from it (targrows / sampled blocks, twice
 * over), the table is cut into stretches at block boundaries of its runs
 * (engine/split.c, as parallel scans do), block b stands for the b-th n-th
 * of the stretches read, and the scan seeks to its stretch and returns its
 * first few cells (the next few when several blocks share a stretch),
 * counting the block's share of all cells as live rows.  The sample is a
 * cluster sample of whole stretches' starts, as the heap's is of whole
 * pages; the extrapolated count is the metapage's count of records.
 *
 * The stretches read are about targrows / ANALYZE_CELLS_PER_STRETCH,
 * drawn at random among about targrows / ANALYZE_STRETCH_CHOICE (as the
 * row form's sample is, am/rows_scan.c): a stretch is a data block or more,
 * decoded whole to return its first cells, so reading one per sampled page
 * decoded the whole table (TSBS's, full-precision floats: 4,700 blocks, a
 * third of VACUUM ANALYZE's time).  Drawn at random, not evenly spaced:
 * where every series has the same layout, evenly spaced stretches start
 * at the same few times of every series.
 * ----------------------------------------------------------------
 */
#define ANALYZE_CELLS_PER_STRETCH	30
#define ANALYZE_STRETCH_CHOICE		3

/* the rows ANALYZE samples: 300 x the largest statistics target */
static int
analyze_target_rows(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			target = default_statistics_target;
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && att->attstattarget > target)
			target = att->attstattarget;
	}
	return 300 * Max(target, 1);
}

static void
analyze_begin(WideScanDesc scan)
{
	Relation	rel = scan->base.rs_rd;
	MemoryContext old = MemoryContextSwitchTo(scan->scancxt);
	double		targrows = analyze_target_rows(rel);
	double		sampled;
	double		per_block;

	/* the cells the runs and the write area hold, without reading them */
	scan->analyze_total = WideEstimateCells(rel);
	scan->analyze_nblocks = Max(RelationGetNumberOfBlocks(rel), 1);

	/* BlockSampler samples min(targrows, blocks) blocks */
	sampled = Min(targrows, (double) scan->analyze_nblocks);
	per_block = ceil(2 * targrows / sampled);
	if (scan->analyze_total / scan->analyze_nblocks > 2 * per_block)
	{
		uint64		nblocks;

		BlockSamplerData bs;
		int			want = (int) Min((double) scan->analyze_nblocks,
									 Max(targrows / ANALYZE_STRETCH_CHOICE, 2));
		int			nread = (int) Max(ceil(targrows / ANALYZE_CELLS_PER_STRETCH), 2);
		int			n = 0;

		scan->analyze_nkeys = WideSplitKeys(rel, NULL, want,
											&nblocks, &scan->analyze_keys);
		/* the stretches read: a random choice, in key order */
		nread = (int) BlockSampler_Init(&bs, scan->analyze_nkeys + 1, nread,
										pg_prng_uint32(&pg_global_prng_state));
		scan->analyze_chosen = palloc(sizeof(int64) * Max(nread, 1));
		while (BlockSampler_HasMore(&bs) && n < nread)
			scan->analyze_chosen[n++] = BlockSampler_Next(&bs);
		scan->analyze_nchosen = Max(n, 1);
		if (n == 0)
			scan->analyze_chosen[0] = 0;
		scan->analyze_sampled = true;
		scan->analyze_per_block = (int) per_block;
		scan->analyze_stretch = -1;
		initStringInfo(&scan->analyze_lo);
		initStringInfo(&scan->analyze_hi);
		scan->reader = WideReaderBeginRanges(rel, scan->base.rs_snapshot,
											 WideReaderNow(), NULL, NULL);
	}
	else
		scan->reader = WideReaderBegin(rel, scan->base.rs_snapshot,
									   WideReaderNow(), NULL);
	MemoryContextSwitchTo(old);
}

/* read stretch j next: the rows after split key j - 1 up to key j */
static void
analyze_seek(WideScanDesc scan, int64 j)
{
	WideKeyRange range;
	MemoryContext old;

	memset(&range, 0, sizeof(range));
	resetStringInfo(&scan->analyze_lo);
	resetStringInfo(&scan->analyze_hi);
	if (j > 0)
	{
		const WideSplitKey *k = &scan->analyze_keys[j - 1];

		appendBinaryStringInfo(&scan->analyze_lo, k->key, k->len);
		appendStringInfoChar(&scan->analyze_lo, '\0');
		range.has_start = range.start_incl = true;
	}
	if (j < scan->analyze_nkeys)
	{
		const WideSplitKey *k = &scan->analyze_keys[j];

		appendBinaryStringInfo(&scan->analyze_hi, k->key, k->len);
		range.has_end = range.end_incl = true;
	}
	range.start = scan->analyze_lo.data;
	range.startlen = scan->analyze_lo.len;
	range.end = scan->analyze_hi.data;
	range.endlen = scan->analyze_hi.len;
	old = MemoryContextSwitchTo(scan->scancxt);
	WideReaderNextRange(scan->reader, &range);
	MemoryContextSwitchTo(old);
	scan->analyze_stretch = j;
}

static bool
wide_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
							 BufferAccessStrategy bstrategy)
{
	WideScanDesc scan = (WideScanDesc) sscan;

	if (scan->reader == NULL)
		analyze_begin(scan);
	if (scan->analyze_sampled)
	{
		int64		j = scan->analyze_chosen[(uint64) blockno * scan->analyze_nchosen /
										 scan->analyze_nblocks];

		/* blocks of one stretch read on where the one before stopped */
		if (j != scan->analyze_stretch)
			analyze_seek(scan, j);
		scan->analyze_left = scan->analyze_per_block;
		scan->analyze_counted = false;
		return true;
	}
	scan->analyze_from = (uint64) (scan->analyze_total * blockno /
								   scan->analyze_nblocks);
	scan->analyze_to = (uint64) (scan->analyze_total * (blockno + 1) /
								 scan->analyze_nblocks);
	return true;
}

static bool
wide_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
							 double *liverows, double *deadrows,
							 TupleTableSlot *slot)
{
	WideScanDesc scan = (WideScanDesc) sscan;
	const WideCell *cell;

	if (scan->analyze_sampled)
	{
		MemoryContext old;

		/* the block stands for its share of the cells, read or not */
		if (!scan->analyze_counted)
		{
			*liverows += scan->analyze_total / scan->analyze_nblocks;
			scan->analyze_counted = true;
		}
		if (scan->analyze_left <= 0)
			return false;
		old = MemoryContextSwitchTo(scan->scancxt);
		cell = WideReaderNext(scan->reader);
		MemoryContextSwitchTo(old);
		if (cell == NULL)
			return false;
		scan->analyze_left--;
		store_cell(scan, WideGetSchema(sscan->rs_rd), cell, slot);
		return true;
	}

	while (scan->ntuples < scan->analyze_to)
	{
		MemoryContext old = MemoryContextSwitchTo(scan->scancxt);

		cell = WideReaderNext(scan->reader);
		MemoryContextSwitchTo(old);
		if (cell == NULL)
			return false;
		if (scan->ntuples < scan->analyze_from)
		{
			scan->ntuples++;
			continue;
		}
		store_cell(scan, WideGetSchema(sscan->rs_rd), cell, slot);
		*liverows += 1;
		return true;
	}
	return false;
}

static double
wide_index_build_range_scan(Relation table_rel, Relation index_rel,
							struct IndexInfo *index_info, bool allow_sync,
							bool anyvisible, bool progress,
							BlockNumber start_blockno, BlockNumber numblocks,
							IndexBuildCallback callback, void *callback_state,
							TableScanDesc scan)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot create index on wide table \"%s\"",
					RelationGetRelationName(table_rel)),
			 errdetail("Cells are stored sorted by (row_key, family, qualifier, ts); the row key is the only index."),
			 errhint("Design the row key for the queries, or keep a second wide table keyed for them.  For CLUSTER, name the row key order: CREATE INDEX ON %s USING wide_key (row_key).",
					 quote_identifier(RelationGetRelationName(table_rel)))));
}

/*
 * CREATE INDEX CONCURRENTLY's second pass: a wide_key index has no entries
 * to add (keyindex.c); any other index cannot exist.
 */
static void
wide_index_validate_scan(Relation table_rel, Relation index_rel,
						 struct IndexInfo *index_info, Snapshot snapshot,
						 struct ValidateIndexState *state)
{
	if (!WideKeyIndexIs(index_rel))
		not_supported(table_rel, "an index", NULL);
}

static bool
wide_scan_bitmap_next_block(TableScanDesc scan, struct TBMIterateResult *tbmres)
{
	not_supported(scan->rs_rd, "a bitmap scan", NULL);
}

static bool
wide_scan_bitmap_next_tuple(TableScanDesc scan, struct TBMIterateResult *tbmres,
							TupleTableSlot *slot)
{
	not_supported(scan->rs_rd, "a bitmap scan", NULL);
}

static bool
wide_scan_sample_next_block(TableScanDesc scan, struct SampleScanState *scanstate)
{
	not_supported(scan->rs_rd, "TABLESAMPLE",
				  "Use wide.sample_row_keys(), or a WHERE clause on the row key.");
}

static bool
wide_scan_sample_next_tuple(TableScanDesc scan, struct SampleScanState *scanstate,
							TupleTableSlot *slot)
{
	not_supported(scan->rs_rd, "TABLESAMPLE", NULL);
}

static const TableAmRoutine wide_methods = {
	.type = T_TableAmRoutine,

	.slot_callbacks = wide_slot_callbacks,

	.scan_begin = wide_scan_begin,
	.scan_end = wide_scan_end,
	.scan_rescan = wide_scan_rescan,
	.scan_getnextslot = wide_scan_getnextslot,

	.parallelscan_estimate = wide_parallelscan_estimate,
	.parallelscan_initialize = wide_parallelscan_initialize,
	.parallelscan_reinitialize = wide_parallelscan_reinitialize,

	.index_fetch_begin = wide_index_fetch_begin,
	.index_fetch_reset = wide_index_fetch_reset,
	.index_fetch_end = wide_index_fetch_end,
	.index_fetch_tuple = wide_index_fetch_tuple,

	.tuple_fetch_row_version = wide_tuple_fetch_row_version,
	.tuple_tid_valid = wide_tuple_tid_valid,
	.tuple_get_latest_tid = wide_tuple_get_latest_tid,
	.tuple_satisfies_snapshot = wide_tuple_satisfies_snapshot,
	.index_delete_tuples = wide_index_delete_tuples,

	.tuple_insert = wide_tuple_insert,
	.tuple_insert_speculative = wide_tuple_insert_speculative,
	.tuple_complete_speculative = wide_tuple_complete_speculative,
	.multi_insert = wide_multi_insert,
	.tuple_delete = wide_tuple_delete,
	.tuple_update = wide_tuple_update,
	.tuple_lock = wide_tuple_lock,
	.finish_bulk_insert = wide_finish_bulk_insert,

	.relation_set_new_filenode = wide_relation_set_new_filenode,
	.relation_nontransactional_truncate = wide_relation_nontransactional_truncate,
	.relation_copy_data = wide_relation_copy_data,
	.relation_copy_for_cluster = wide_relation_copy_for_cluster,
	.relation_vacuum = wide_relation_vacuum,
	.scan_analyze_next_block = wide_scan_analyze_next_block,
	.scan_analyze_next_tuple = wide_scan_analyze_next_tuple,
	.index_build_range_scan = wide_index_build_range_scan,
	.index_validate_scan = wide_index_validate_scan,

	.relation_size = wide_relation_size,
	.relation_needs_toast_table = wide_relation_needs_toast_table,

	.relation_estimate_size = wide_relation_estimate_size,

	.scan_bitmap_next_block = wide_scan_bitmap_next_block,
	.scan_bitmap_next_tuple = wide_scan_bitmap_next_tuple,
	.scan_sample_next_block = wide_scan_sample_next_block,
	.scan_sample_next_tuple = wide_scan_sample_next_tuple
};

/*
 * WideTableAmRoutine -- the routine, for code that checks a relation's AM.
 */
const TableAmRoutine *
WideTableAmRoutine(void)
{
	return &wide_methods;
}

Datum
wide_tableam_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&wide_methods);
}
