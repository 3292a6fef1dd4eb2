/*-------------------------------------------------------------------------
 *
 * rows_delete.c
 *	  DELETE of a row form without a row per deleted reading: the FDW's
 *	  direct modify (a Foreign Delete in EXPLAIN), which writes a range
 *	  tombstone per key range or a row tombstone per row key when the WHERE
 *	  clause is exactly key ranges, and otherwise deletes row by row as
 *	  ExecForeignDelete does (rows_write.c), inside the same node.
 *
 *	  DELETE FROM cpu WHERE tags_id = 7 AND time >= '...' AND time < '...'
 *	  DELETE FROM cpu WHERE tags_id IN (3, 7)
 *	  DELETE FROM cpu WHERE tags_id = 7 AND time = '...'
 *
 * Planning (PlanDirectModify).  Every DELETE whose plan is a scan of the
 * form becomes a direct modify; the plan notes whether its conditions are
 * exactly key ranges: every condition a key condition (rows_plan.c), an
 * equality on each of the first parts (one each, = or IN), then at most
 * comparisons (<, <=, >, >=) of the next part, nothing on the parts after
 * it -- so a row key lies in the ranges if and only if its row matches;
 * and not all parts equal (readings go by row, see by_tombstones).  A row
 * form whose rows are a row key and a time (a timestamp column
 * outside the key) is never exact: a row is not a key range.
 *
 * Execution.  With exact conditions, no RETURNING, and a wide table a
 * range DELETE may use (wide.enable_range_delete, no row-level DELETE
 * triggers: am/rangedel.c), the key ranges of the evaluated conditions
 * are deleted as the cell form's range DELETE deletes them: one range
 * tombstone per range (a host's hour or day, each host of an IN list), written
 * and then checked by a read of the ranges with the statement's snapshot
 * (WideRangeDelete, WideKeysDelete).  That read counts the rows deleted
 * (the row count is exact) and refuses the tombstones -- which are then
 * taken back, and the DELETE goes row by row -- if they would delete a
 * cell the row-by-row DELETE would not: one the snapshot does not see, a
 * cell of another family, or of a qualifier that is not a column of the
 * form (a row of only such cells is no row of the form).  A row key in the
 * ranges that is not of the form's shape is an error, as it is for the
 * row-by-row DELETE.  Where the read takes a plain run's block as it is
 * stored, the rows are counted a block at a time (WideReaderRowBatch,
 * check_rows), without a call per cell; a block whose records are not
 * each a distinct column of the form's family sends the count back to the
 * cells (check_cell).  Otherwise (RETURNING, other conditions, too many
 * rows or ranges for tombstones, no room for a range tombstone in the
 * metapage) the node scans the rows with the conditions and deletes each
 * (a family tombstone per row).  So do DELETEs of readings (every key
 * part equal), which row tombstones would make slower (by_tombstones).
 *
 * Privileges are those of the row-by-row DELETE: DELETE on the foreign
 * table (the executor) and on the wide table (WideRowsDeleteBegin); a wide
 * table with row-level security is refused by either path (rows_shape.c).
 *
 * IDENTIFICATION
 *	  src/am/rows_delete.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "port/pg_bitutils.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "foreign/fdwapi.h"
#include "nodes/makefuncs.h"
#include "optimizer/pathnode.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "am/am.h"
#include "am/rows.h"
#include "engine/segment.h"

typedef struct RowsDelete
{
	WideRowShape *shape;
	Relation	cells;
	RowsScan   *scan;
	ExprState  *qual;			/* the conditions, tested here only */
	bool		exact;			/* the plan's conditions are key ranges */
	bool		keys_only;		/* ... or readings (exact_conditions) */
	bool		started;
	bool		done;
	bool		by_tombstones;	/* the path taken */
	int			ntombstones;
	uint64		rows;			/* rows deleted */

	/* the rows the tombstones delete (check_cell) */
	StringInfoData last;		/* the row key of the last cell */
	bool		has_last;
	int			lastqual;		/* by_qual index of the last cell's column */
	MemoryContext keycxt;		/* decoding row keys */
	Datum	   *kvalues;
	bool	   *knull;

	/* ... or a block at a time (check_rows), where the reader can */
	WideRowBatchSpec bspec;
	WideRowBatch batch;
	WideDeleteBatch dbatch;
	bool		unsure;			/* check_rows could not tell */
} RowsDelete;

/*
 * are the conditions on rel exactly ranges of row keys?  *points: they are
 * readings (every key part equal), which go by row (by_tombstones) but need
 * no test of the conditions on the rows read
 */
static bool
exact_conditions(RelOptInfo *rel, const RowsPlanInfo *info, bool *points)
{
	const WideRowShape *s = info->shape;
	int			neq[WIDE_ROWS_MAX_PARTS] = {0};
	int			ncmp[WIDE_ROWS_MAX_PARTS] = {0};
	ListCell   *lc;
	int			i;

	*points = false;
	if (s->ts_attnum > 0 && !s->ts_in_key)
		return false;			/* a row is a key and a time */
	/* every condition a key condition (GetRelSize found them) */
	if (list_length(info->keys) != list_length(rel->baserestrictinfo) ||
		list_length(info->classified) != list_length(rel->baserestrictinfo))
		return false;
	foreach(lc, info->keys)
	{
		WideRowsKey *k = lfirst(lc);

		if (k->strategy == BTEqualStrategyNumber)
			neq[k->part]++;
		else
			ncmp[k->part]++;
	}
	/* one equality on each part from the first, then comparisons of one */
	for (i = s->salt ? 1 : 0; i < s->nparts && neq[i] == 1 && ncmp[i] == 0; i++)
		;
	if (i == s->nparts)
	{
		*points = true;			/* readings: by row (by_tombstones) */
		return true;
	}
	if (neq[i] > 0)
		return false;
	for (i++; i < s->nparts; i++)
		if (neq[i] > 0 || ncmp[i] > 0)
			return false;
	return true;
}

/*
 * rows_plan_direct -- PlanDirectModify: a DELETE that scans only the form
 * is done by the scan's node.
 */
static bool
rows_plan_direct(PlannerInfo *root, ModifyTable *plan, Index rti,
				 int subplan_index)
{
	Plan	   *sub = outerPlan(plan);
	ForeignScan *fs;
	RelOptInfo *rel;
	RowsPlanInfo *info;
	bool		exact;
	bool		points;

	if (plan->operation != CMD_DELETE || sub == NULL || !IsA(sub, ForeignScan))
		return false;
	fs = (ForeignScan *) sub;
	if (fs->scan.scanrelid != rti || fs->scan.plan.parallel_aware)
		return false;
	rel = find_base_rel(root, rti);
	info = rel->fdw_private;
	if (info == NULL)
		return false;
	fs->operation = CMD_DELETE;
	fs->resultRelation = rti;
	exact = exact_conditions(rel, info, &points);
	fs->fdw_private = list_make3(fs->fdw_private, makeBoolean(exact && !points),
								 makeBoolean(exact));
	return true;
}

/*
 * check_rows -- rows of a block the tombstones delete (WideDeleteBatch):
 * each record one of the form's columns, of the live family, a column at
 * most once a row -- then the rows are as check_cell would count them --
 * or false, with d->unsure: a record of another family or incarnation, of
 * a qualifier that is no column, or a second version of a column, which
 * only check_cell tells apart (by_tombstones then counts again by cell).
 */
static bool
check_rows(WideRowBatch *b, int n, uint64 records, void *arg)
{
	RowsDelete *d = arg;
	const WideRowShape *s = d->shape;
	uint64		kept = 0;
	int			j;

	for (j = 0; j < n; j++)
	{
		if ((uint64) pg_popcount64(b->present[j]) != b->ncells[j])
			break;
		kept += b->ncells[j];
	}
	if (j < n || kept != records)
	{
		d->unsure = true;
		return false;
	}
	for (j = 0; j < n; j++)
	{
		uint32		keylen;
		const char *key = WideRowBatchKey(b, j, &keylen);
		MemoryContext old;

		/* (the first row may continue the last cell's) */
		if (j == 0 && d->has_last &&
			WideBytesEqual(key, keylen, d->last.data, d->last.len))
			continue;
		/* a row: its key is of the form's shape, or an error as for a scan */
		old = MemoryContextSwitchTo(d->keycxt);
		WideRowKeyDecode(s, key, keylen, d->kvalues, d->knull);
		MemoryContextSwitchTo(old);
		MemoryContextReset(d->keycxt);
		d->rows++;
		if (j == n - 1)
		{
			resetStringInfo(&d->last);
			appendBinaryStringInfo(&d->last, key, keylen);
			d->has_last = true;
			d->lastqual = -1;
		}
	}
	return true;
}

/* the spec of the form's rows for check_rows (none: cell by cell) */
static void
batch_init(RowsDelete *d)
{
	const WideRowShape *s = d->shape;
	const char **quals;
	uint32	   *lens;

	if (s->nvalues <= 0 || s->nvalues > WIDE_BATCH_MAX_COLS)
		return;
	quals = palloc(sizeof(char *) * s->nvalues);
	lens = palloc(sizeof(uint32) * s->nvalues);
	/* (sorted bytewise: by_qual's order) */
	for (int i = 0; i < s->nvalues; i++)
	{
		const WideRowCol *col = &s->cols[s->by_qual[i] - 1];

		quals[i] = col->qual;
		lens[i] = col->quallen;
	}
	d->bspec.family = s->family;
	d->bspec.famlen = s->famlen;
	d->bspec.ncols = s->nvalues;
	d->bspec.quals = quals;
	d->bspec.quallens = lens;
	d->bspec.mode = WIDE_BATCH_FAMILY;
	d->batch.cxt = CurrentMemoryContext;
	d->dbatch.spec = &d->bspec;
	d->dbatch.batch = &d->batch;
	d->dbatch.check_rows = check_rows;
}

static void
rows_begin_direct(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	RowsDelete *d;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	d = palloc0(sizeof(RowsDelete));
	d->shape = WideRowShapeGet(RelationGetRelid(node->ss.ss_currentRelation));
	d->cells = WideRowsDeleteBegin(node->resultRelInfo);
	d->exact = boolVal(lsecond(plan->fdw_private));
	d->keys_only = boolVal(lthird(plan->fdw_private));
	d->scan = WideRowsScanOpen(d->shape, node->ss.ps.state->es_snapshot,
							   linitial(plan->fdw_private),
							   ExecInitExprList(plan->fdw_exprs, (PlanState *) node));
	WideRowsScanSetFilter(d->scan, plan->scan.plan.qual);
	/*
	 * tested once per row, before it is deleted: not again by ExecScan; and
	 * not at all when the conditions are exactly the key ranges the scan
	 * reads (exact_conditions: the row of a key in them matches, as the
	 * tombstones assume) -- an IN list of 100 readings was evaluated whole
	 * for every row, its array built again each time
	 */
	d->qual = d->keys_only ? NULL : node->ss.ps.qual;
	node->ss.ps.qual = NULL;
	initStringInfo(&d->last);
	d->keycxt = AllocSetContextCreate(CurrentMemoryContext, "wide rows delete keys",
									  ALLOCSET_SMALL_SIZES);
	d->kvalues = palloc(sizeof(Datum) * d->shape->natts);
	d->knull = palloc(sizeof(bool) * d->shape->natts);
	batch_init(d);
	node->fdw_state = d;
}

/* is the cell's qualifier a column?  (cells of a row come in by_qual order) */
static inline bool
known_qualifier(RowsDelete *d, const WideCell *c)
{
	const WideRowShape *s = d->shape;
	int			next = d->lastqual + 1;
	AttrNumber	a;

	if (next < s->nvalues)
	{
		const WideRowCol *col = &s->cols[s->by_qual[next] - 1];

		if (WideBytesEqual(col->qual, col->quallen, c->qual, c->quallen))
		{
			d->lastqual = next;
			return true;
		}
	}
	a = WideRowColumnOf(s, c->qual, c->quallen);
	if (a == 0)
		return false;
	for (int i = 0; i < s->nvalues; i++)
		if (s->by_qual[i] == a)
			d->lastqual = i;
	return true;
}

/* is the cell of the last cell's row?  (keys differ most at their end) */
static inline bool
same_row(const RowsDelete *d, const WideCell *c)
{
	return d->has_last && c->keylen == (uint32) d->last.len && c->keylen > 0 &&
		c->key[c->keylen - 1] == d->last.data[c->keylen - 1] &&
		WideBytesEqual(c->key, c->keylen, d->last.data, d->last.len);
}

/*
 * check_cell -- a cell the tombstones delete (WideDeleteCheck): one of the
 * form's, counted as a row when its row key is new; false for any other.
 */
static bool
check_cell(const WideCell *c, void *arg)
{
	RowsDelete *d = arg;
	const WideRowShape *s = d->shape;
	MemoryContext old;

	if (!same_row(d, c))
	{
		/* a row: its key is of the form's shape, or an error as for a scan */
		old = MemoryContextSwitchTo(d->keycxt);
		WideRowKeyDecode(s, c->key, c->keylen, d->kvalues, d->knull);
		MemoryContextSwitchTo(old);
		MemoryContextReset(d->keycxt);
		resetStringInfo(&d->last);
		appendBinaryStringInfo(&d->last, c->key, c->keylen);
		d->has_last = true;
		d->lastqual = -1;
		d->rows++;
	}
	return WideBytesEqual(c->family, c->famlen, s->family, s->famlen) &&
		known_qualifier(d, c);
}

/* delete by tombstones, if the statement can; false: row by row */
static bool
by_tombstones(ForeignScanState *node, RowsDelete *d)
{
	EState	   *estate = node->ss.ps.state;
	const WideKeyRange *ranges;
	int			n;
	uint64		ncells;
	bool		ok = false;

	if (!d->exact || node->resultRelInfo->ri_projectReturning != NULL ||
		!WideRangeDeleteAllowed(d->cells))
		return false;
	if (!WideRowsScanRanges(d->scan, node->ss.ps.ps_ExprContext, &ranges, &n))
		return false;
	/*
	 * Readings (every key part equal: points) go by row.  A row tombstone
	 * per reading costs more than the row-by-row DELETE, which reads all
	 * the points with one read state and writes a record per row into the
	 * statement's buffer: each tombstone is counted by a reader of its own
	 * that scans the whole write area, which the tombstones grow (100
	 * readings: 27 ms against 16 by row here); and WideKeysDelete takes a
	 * subtransaction, which a loop of single-reading DELETEs would take by
	 * the hundred (past 64 in a transaction the subtransaction cache
	 * overflows, and every session's snapshot then looks xids up in
	 * pg_subtrans).
	 */
	if (ranges[0].is_point)
		return false;
	for (int pass = 0; pass < 2; pass++)
	{
		/* rows a block at a time; if that cannot tell, cell by cell */
		const WideDeleteBatch *batch = (pass == 0 && d->dbatch.spec) ?
			&d->dbatch : NULL;

		if (pass == 1 && !d->unsure)
			break;
		d->rows = 0;
		d->has_last = false;
		d->unsure = false;
		if (n == 0)
			ok = true;			/* no row can match */
		else if (n == 1 && !ranges[0].is_point)
			ok = WideRangeDelete(d->cells, estate->es_snapshot, estate->es_output_cid,
								 &ranges[0], &ncells, check_cell, batch, d);
		else
			ok = WideKeysDelete(d->cells, estate->es_snapshot, estate->es_output_cid,
								ranges, n, &ncells, check_cell, batch, d);
		if (ok)
			break;
	}
	if (!ok)
	{
		d->rows = 0;
		return false;
	}
	d->ntombstones = n;
	return true;
}

/* the next row deleted row by row: for RETURNING, or NULL at the end */
static TupleTableSlot *
next_row(ForeignScanState *node, RowsDelete *d)
{
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	EState	   *estate = node->ss.ps.state;
	ProjectionInfo *ret = node->resultRelInfo->ri_projectReturning;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		ExecClearTuple(slot);
		if (!WideRowsScanNext(d->scan, econtext, slot->tts_values, slot->tts_isnull))
			return NULL;
		ExecStoreVirtualTuple(slot);
		econtext->ecxt_scantuple = slot;
		if (d->qual != NULL && !ExecQual(d->qual, econtext))
			continue;
		WideRowsDeleteRow(node->resultRelInfo, slot->tts_values, slot->tts_isnull,
						  estate->es_output_cid);
		d->rows++;
		if (ret != NULL)
		{
			/* the deleted row, for RETURNING */
			ret->pi_exprContext->ecxt_scantuple = slot;
			estate->es_processed++;
			return slot;
		}
	}
}

static TupleTableSlot *
rows_iterate_direct(ForeignScanState *node)
{
	RowsDelete *d = node->fdw_state;
	TupleTableSlot *slot;
	EState	   *estate = node->ss.ps.state;

	if (d->done)
		return ExecClearTuple(node->ss.ss_ScanTupleSlot);
	if (!d->started)
	{
		d->started = true;
		d->by_tombstones = by_tombstones(node, d);
		if (d->by_tombstones)
		{
			estate->es_processed += d->rows;
			d->done = true;
			return ExecClearTuple(node->ss.ss_ScanTupleSlot);
		}
	}
	slot = next_row(node, d);
	if (slot != NULL)
		return slot;
	if (node->resultRelInfo->ri_projectReturning == NULL)
		estate->es_processed += d->rows;
	d->done = true;
	return ExecClearTuple(node->ss.ss_ScanTupleSlot);
}

static void
rows_end_direct(ForeignScanState *node)
{
	RowsDelete *d = node->fdw_state;

	if (d == NULL)
		return;
	WideRowsScanClose(d->scan);
	WideRowsDeleteEnd(node->resultRelInfo);
	node->fdw_state = NULL;
}

static void
rows_explain_direct(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	RowsDelete *d = node->fdw_state;

	WideRowsScanExplain(RelationGetRelid(node->ss.ss_currentRelation),
						linitial(plan->fdw_private), NULL, es);
	ExplainPropertyText("Delete By",
						boolVal(lsecond(plan->fdw_private)) ?
						"tombstones of key ranges" : "rows", es);
	if (es->analyze && d != NULL)
	{
		ExplainPropertyText("Deleted By", d->by_tombstones ? "tombstones" : "rows", es);
		if (d->by_tombstones)
			ExplainPropertyInteger("Tombstones", NULL, d->ntombstones, es);
	}
}

/* WideRowsDirectRoutine -- the direct modify callbacks of the wrapper */
void
WideRowsDirectRoutine(FdwRoutine *r)
{
	r->PlanDirectModify = rows_plan_direct;
	r->BeginDirectModify = rows_begin_direct;
	r->IterateDirectModify = rows_iterate_direct;
	r->EndDirectModify = rows_end_direct;
	r->ExplainDirectModify = rows_explain_direct;
}
