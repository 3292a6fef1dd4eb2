/*-------------------------------------------------------------------------
 *
 * scan_exec.c
 *	  The Wide Scan's executor: begin, read cell by cell through the engine's
 *	  reader (forward or reverse.c), rescan, end, parallel stretches
 *	  (scan_parallel.c), the whole of a DELETE as one range tombstone, and
 *	  the cells without tuples for the Wide Aggregate (scan_agg.c).
 *
 *	  WideScanCreateState -- the CreateCustomScanState method
 *	  WideScanIsWideScan, WideScanFold, WideScanSchema -- for scan_agg.c
 *
 * IDENTIFICATION
 *	  src/am/scan_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "access/sysattr.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "am/am.h"
#include "am/plan_clause.h"
#include "am/plan_cost.h"
#include "am/scan.h"
#include "am/scan_tswindow.h"
#include "am/scan_parallel.h"
#include "am/scan_agg.h"
#include "am/scan_node.h"

static void begin_wide_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_wide_scan(CustomScanState *node);
static void end_wide_scan(CustomScanState *node);
static void rescan_wide_scan(CustomScanState *node);
static Size estimate_wide_scan_dsm(CustomScanState *node, ParallelContext *pcxt);
static void initialize_wide_scan_dsm(CustomScanState *node,
									 ParallelContext *pcxt, void *coordinate);
static void reinitialize_wide_scan_dsm(CustomScanState *node,
									   ParallelContext *pcxt, void *coordinate);
static void initialize_wide_scan_worker(CustomScanState *node, shm_toc *toc,
										void *coordinate);
static void shutdown_wide_scan(CustomScanState *node);

static const CustomExecMethods wide_exec_methods = {
	.CustomName = "WideScan",
	.BeginCustomScan = begin_wide_scan,
	.ExecCustomScan = exec_wide_scan,
	.EndCustomScan = end_wide_scan,
	.ReScanCustomScan = rescan_wide_scan,
	.ExplainCustomScan = WideScanExplain,
	.EstimateDSMCustomScan = estimate_wide_scan_dsm,
	.InitializeDSMCustomScan = initialize_wide_scan_dsm,
	.ReInitializeDSMCustomScan = reinitialize_wide_scan_dsm,
	.InitializeWorkerCustomScan = initialize_wide_scan_worker,
	.ShutdownCustomScan = shutdown_wide_scan,
};

Node *
WideScanCreateState(CustomScan *cscan)
{
	WideScanState *s = (WideScanState *) newNode(sizeof(WideScanState),
												 T_CustomScanState);

	s->css.methods = &wide_exec_methods;
	s->bound_kinds = linitial(cscan->custom_private);
	s->ts_kinds = lsecond(cscan->custom_private);
	s->backward = intVal(lthird(cscan->custom_private)) != 0;
	s->range_delete = list_length(cscan->custom_private) > 3 &&
		intVal(lfourth(cscan->custom_private)) != 0;
	return (Node *) s;
}

static void
begin_wide_scan(CustomScanState *node, EState *estate, int eflags)
{
	WideScanState *s = (WideScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	Bitmapset  *attrs = NULL;
	ListCell   *lc,
			   *lk;
	int			i;

	s->bound_exprs = ExecInitExprList(list_truncate(list_copy(cscan->custom_exprs),
													list_length(s->bound_kinds)),
									  &node->ss.ps);
	s->ts_exprs = ExecInitExprList(list_copy_tail(cscan->custom_exprs,
												  list_length(s->bound_kinds)),
								   &node->ss.ps);
	s->bound_types = NIL;
	forboth(lc, cscan->custom_exprs, lk, s->bound_kinds)
	{
		Oid			type = exprType(lfirst(lc));

		if (lfirst_int(lk) == BOUND_IN || lfirst_int(lk) == FILTER_FAMILY_IN ||
			lfirst_int(lk) == FILTER_QUAL_IN || lfirst_int(lk) == BOUND_SPLIT_IN)
			type = get_element_type(type);
		s->bound_types = lappend_oid(s->bound_types, type);
	}
	pull_varattnos((Node *) cscan->scan.plan.targetlist, cscan->scan.scanrelid, &attrs);
	pull_varattnos((Node *) cscan->scan.plan.qual, cscan->scan.scanrelid, &attrs);
	for (i = 0; i < 5; i++)
		s->needed[i] = bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber, attrs) ||
			bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	s->schema = WideSchemaCopy(node->ss.ss_currentRelation);
	s->for_delete = WideDeleteTracking(node->ss.ss_currentRelation);
	s->tupcxt = AllocSetContextCreate(estate->es_query_cxt, "wide scan tuple",
									  ALLOCSET_DEFAULT_SIZES);
	s->keycxt = AllocSetContextCreate(estate->es_query_cxt, "wide scan keys",
									  ALLOCSET_SMALL_SIZES);
	s->readcxt = AllocSetContextCreate(estate->es_query_cxt, "wide scan reader",
									   ALLOCSET_DEFAULT_SIZES);
	initStringInfo(&s->lo);
	initStringInfo(&s->hi);
	initStringInfo(&s->plo);
	initStringInfo(&s->phi);
	initStringInfo(&s->prefix_end);
}

/* a parallel scan's reader goes on with the next stretch it claims */
static bool
next_stretch(WideScanState *s)
{
	WideKeyRange stretch;
	MemoryContext old;

	if (!WideParallelClaim(s->pscan, &s->range, &stretch, &s->plo, &s->phi))
		return false;
	old = MemoryContextSwitchTo(s->readcxt);
	WideReaderNextRange(s->reader, &stretch);
	MemoryContextSwitchTo(old);
	return true;
}

/* open the reader for the next range: the whole range, or the next key */
static bool
open_reader(WideScanState *s)
{
	Relation	rel = s->css.ss.ss_currentRelation;
	EState	   *estate = s->css.ss.ps.state;
	WideKeyRange r = s->range;
	MemoryContext old;

	if (s->keys != NULL)
	{
		const char *k;
		uint32		len;

		/* the next key of the IN list that lies in the range */
		for (;;)
		{
			if (s->nextkey >= s->nkeys)
				return false;
			/* (backward: from the last key) */
			k = s->keys[s->backward ? s->nkeys - 1 - s->nextkey : s->nextkey].data;
			len = s->keys[s->backward ? s->nkeys - 1 - s->nextkey : s->nextkey].len;
			s->nextkey++;
			if (!WideRowBeforeRange(&s->range, k, len) &&
				!WideRowAfterRange(&s->range, k, len))
				break;
		}
		r.has_start = r.has_end = r.start_incl = r.end_incl = r.is_point = true;
		r.start = r.end = k;
		r.startlen = r.endlen = len;
	}
	else if (s->has_ranges)
	{
		/* the next range of the list (backward: from the last) */
		if (s->nextrange >= s->nranges)
			return false;
		r = s->ranges[s->backward ? s->nranges - 1 - s->nextrange : s->nextrange];
		s->nextrange++;
	}
	else if (s->prefixes != NULL && !WideScanNextPrefixRange(s, &r))
		return false;
	/*
	 * The reader lives in readcxt, reset when it is closed: a scan opens one
	 * per key of an IN list and one per rescan, and what a reader leaves
	 * behind must not pile up in the query's memory.
	 */
	old = MemoryContextSwitchTo(s->readcxt);
	if (s->pscan != NULL)
	{
		/* a parallel scan: the range, read by the stretches it claims */
		if (s->keys != NULL || s->prefixes != NULL || s->has_ranges)
			elog(ERROR, "a parallel Wide Scan cannot read a list of keys or prefixes");
		s->reader = WideReaderBeginRanges(rel, estate->es_snapshot,
										  WideParallelNow(s->pscan), &r,
										  s->ts_kinds ? &s->window : NULL);
		if (s->columns.fam_active || s->columns.qual_active)
			WideReaderSetFilter(s->reader, WideColumnFilterKeep, &s->columns);
		MemoryContextSwitchTo(old);
		next_stretch(s);
		return true;
	}
	if (s->backward)
	{
		/* (the column filter is applied to its cells in wide_scan_next) */
		s->rreader = WideReverseBegin(rel, estate->es_snapshot, WideReaderNow(),
									  &r, false, s->ts_kinds ? &s->window : NULL);
	}
	else
	{
		s->reader = WideReaderBeginTs(rel, estate->es_snapshot, WideReaderNow(), &r,
									  s->ts_kinds ? &s->window : NULL);
		if (s->columns.fam_active || s->columns.qual_active)
			WideReaderSetFilter(s->reader, WideColumnFilterKeep, &s->columns);
	}
	MemoryContextSwitchTo(old);
	return true;
}

static void
close_reader(WideScanState *s)
{
	WideReaderStats st;
	MemoryContext old;

	if (s->reader == NULL && s->rreader == NULL)
		return;
	st = s->reader ? WideReaderGetStats(s->reader) : WideReverseGetStats(s->rreader);
	s->stats.wa_records += st.wa_records;
	s->stats.runs_read += st.runs_read;
	s->stats.blocks_read += st.blocks_read;
	s->stats.blocks_kept += st.blocks_kept;
	s->stats.blocks_skipped += st.blocks_skipped;
	s->stats.index_skipped += st.index_skipped;
	s->stats.records += st.records;
	s->stats.cells += st.cells;
	old = MemoryContextSwitchTo(s->readcxt);
	if (s->reader)
		WideReaderEnd(s->reader);
	else
		WideReverseEnd(s->rreader);
	MemoryContextSwitchTo(old);
	s->reader = NULL;
	s->rreader = NULL;
	MemoryContextReset(s->readcxt);
}

/* the next cell of the scan, or NULL at its end */
static const WideCell *
scan_next_cell(WideScanState *s)
{
	const WideCell *cell;
	MemoryContext old;

	if (s->empty)
		return NULL;
	for (;;)
	{
		if (s->reader == NULL && s->rreader == NULL && !open_reader(s))
		{
			s->empty = true;
			return NULL;
		}
		old = MemoryContextSwitchTo(s->readcxt);
		cell = s->reader ? WideReaderNext(s->reader) : WideReverseNext(s->rreader);
		MemoryContextSwitchTo(old);
		if (cell != NULL)
		{
			/*
			 * cells of other families or qualifiers form no tuple (a forward
			 * reader returns none: its filter is the same sets, open_reader)
			 */
			if ((!s->columns.fam_active && !s->columns.qual_active) ||
				s->reader != NULL || WideColumnFilterMatch(&s->columns, cell))
				break;
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		if (s->pscan != NULL && next_stretch(s))
			continue;
		close_reader(s);
		if (s->keys == NULL && s->prefixes == NULL && !s->has_ranges)
		{
			s->empty = true;
			return NULL;
		}
	}
	return cell;
}

static TupleTableSlot *
wide_scan_next(ScanState *ss)
{
	WideScanState *s = (WideScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	const WideCell *cell = scan_next_cell(s);
	MemoryContext old;

	ExecClearTuple(slot);
	if (cell == NULL)
		return slot;
	if (s->tupcxt_used)
		MemoryContextReset(s->tupcxt);
	old = MemoryContextSwitchTo(s->tupcxt);
	s->tupcxt_used = WideCellToValuesMemo(s->schema, cell, slot->tts_values,
										  slot->tts_isnull, s->needed, &s->aggmemo);
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
	slot->tts_tableOid = RelationGetRelid(s->css.ss.ss_currentRelation);
	if (s->for_delete)
		WideDeleteRemember(s->css.ss.ss_currentRelation, cell, &slot->tts_tid,
						   s->for_delete);
	return slot;
}

static bool
wide_scan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/* evaluate the key range and the window of timestamps, once per (re)scan */
static void
start_scan(WideScanState *s)
{
	WideScanComputeRange(s);
	if (!s->empty && s->ts_kinds)
		s->empty = !WideTsWindowEval(s->ts_kinds, s->ts_exprs,
									 s->css.ss.ps.ps_ExprContext, &s->window);
	s->started = true;
}

/*
 * The scan is the whole of a DELETE (range_delete_plannable): delete its
 * range with one range tombstone and count the cells, if that can be done
 * (am/rangedel.c); false to scan and delete cell by cell.
 */
static bool
try_range_delete(WideScanState *s)
{
	Relation	rel = s->css.ss.ss_currentRelation;
	EState	   *estate = s->css.ss.ps.state;
	uint64		n = 0;

	if (s->prefixes != NULL ||
		s->pscan != NULL || s->columns.fam_active || s->columns.qual_active ||
		s->ts_kinds != NIL || estate->es_plannedstmt->commandType != CMD_DELETE ||
		!WideRangeDeleteAllowed(rel))
		return false;
	if (s->empty)
		;
	else if (s->keys != NULL || s->has_ranges)
	{
		/* an IN list or an OR: a row or range tombstone each */
		WideKeyRange *rs;
		int			nr = 0;
		int			i;

		if (s->keys != NULL && s->has_ranges)
			return false;
		rs = palloc(sizeof(WideKeyRange) * Max(s->keys ? s->nkeys : s->nranges, 1));
		for (i = 0; s->keys != NULL && i < s->nkeys; i++)
		{
			WideKeyRange *r = &rs[nr];

			if (WideRowBeforeRange(&s->range, s->keys[i].data, s->keys[i].len) ||
				WideRowAfterRange(&s->range, s->keys[i].data, s->keys[i].len))
				continue;
			memset(r, 0, sizeof(WideKeyRange));
			r->has_start = r->has_end = r->start_incl = r->end_incl = r->is_point = true;
			r->start = r->end = s->keys[i].data;
			r->startlen = r->endlen = s->keys[i].len;
			nr++;
		}
		for (i = 0; s->has_ranges && i < s->nranges; i++)
		{
			WideKeyRange *r = &rs[nr++];

			*r = s->ranges[i];
			/* an arm "row_key = k" */
			r->is_point = r->has_start && r->has_end && r->start_incl &&
				r->end_incl && WideKeyCompare(r->start, r->startlen,
											  r->end, r->endlen) == 0;
		}
		if (!WideKeysDelete(rel, estate->es_snapshot, estate->es_output_cid,
							rs, nr, &n, NULL, NULL, NULL))
			return false;
		s->rd_tombstones = nr;
	}
	else if (s->range.is_point)
	{
		/* one row: a row tombstone in the write area */
		if (!WideKeysDelete(rel, estate->es_snapshot, estate->es_output_cid,
							&s->range, 1, &n, NULL, NULL, NULL))
			return false;
		s->rd_tombstones = 1;
	}
	else if (!WideRangeDelete(rel, estate->es_snapshot, estate->es_output_cid,
							  &s->range, &n, NULL, NULL, NULL))
		return false;
	s->rd_done = true;
	s->rd_cells = n;
	estate->es_processed += n;
	return true;
}

static TupleTableSlot *
exec_wide_scan(CustomScanState *node)
{
	WideScanState *s = (WideScanState *) node;

	if (s->rd_done)
		return NULL;
	if (!s->started)
		start_scan(s);
	if (s->range_delete && !s->rd_tried)
	{
		s->rd_tried = true;
		if (try_range_delete(s))
			return NULL;
	}
	return ExecScan(&node->ss, (ExecScanAccessMtd) wide_scan_next,
					(ExecScanRecheckMtd) wide_scan_recheck);
}

static void
end_wide_scan(CustomScanState *node)
{
	close_reader((WideScanState *) node);
}

static void
rescan_wide_scan(CustomScanState *node)
{
	WideScanState *s = (WideScanState *) node;

	close_reader(s);
	s->started = false;
}

/* ----------------------------------------------------------------
 *	Parallel scans (the stretches: scan_parallel.c)
 * ----------------------------------------------------------------
 */

/* the leader, as the parallel query starts: the split keys and their size */
static Size
estimate_wide_scan_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	WideScanState *s = (WideScanState *) node;
	MemoryContext old;

	/* the range this scan reads (every participant computes the same) */
	if (!s->started)
		start_scan(s);
	s->nsplits = 0;
	if (s->splitcxt == NULL)
		s->splitcxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
											"wide scan splits",
											ALLOCSET_SMALL_SIZES);
	MemoryContextReset(s->splitcxt);
	if (!s->empty && s->keys == NULL)
	{
		old = MemoryContextSwitchTo(s->splitcxt);
		s->nsplits = WideParallelSplits(node->ss.ss_currentRelation, &s->range,
										pcxt->nworkers, &s->splits);
		MemoryContextSwitchTo(old);
	}
	return WideParallelSize(s->nsplits, s->splits);
}

static void
initialize_wide_scan_dsm(CustomScanState *node, ParallelContext *pcxt,
						 void *coordinate)
{
	WideScanState *s = (WideScanState *) node;

	WideParallelInit(coordinate, s->nsplits, s->splits, WideReaderNow());
	s->pscan = coordinate;
}

static void
reinitialize_wide_scan_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate)
{
	WideScanState *s = (WideScanState *) node;

	WideParallelReinit(coordinate);
	s->pscan = coordinate;
	memset(&s->wstats, 0, sizeof(WideReaderStats));
}

static void
initialize_wide_scan_worker(CustomScanState *node, shm_toc *toc,
							void *coordinate)
{
	((WideScanState *) node)->pscan = coordinate;
}

/* a worker adds its statistics to the shared ones; the leader takes them */
static void
shutdown_wide_scan(CustomScanState *node)
{
	WideScanState *s = (WideScanState *) node;

	if (s->pscan == NULL)
		return;
	if (IsParallelWorker())
	{
		WideReaderStats st = s->stats;

		if (s->reader)
		{
			WideReaderStats cur = WideReaderGetStats(s->reader);

			st.runs_read += cur.runs_read;
			st.blocks_read += cur.blocks_read;
			st.records += cur.records;
		}
		WideParallelAddStats(s->pscan, &st);
	}
	else
		WideParallelGetStats(s->pscan, &s->wstats);
	/* the shared memory goes away with the Gather */
	s->pscan = NULL;
}

/* ----------------------------------------------------------------
 *	For the Wide Aggregate (scan_agg.c): the cells of a Wide Scan
 * ----------------------------------------------------------------
 */

/* WideScanIsWideScan -- is the plan state a Wide Scan's? */
bool
WideScanIsWideScan(PlanState *ps)
{
	return IsA(ps, CustomScanState) &&
		((CustomScanState *) ps)->methods == &wide_exec_methods;
}

/*
 * WideScanFold -- pass the cells of a Wide Scan, as its tuples would show
 * them but without forming the tuples and with an empty qualifier (fold
 * must not look at it), to fold (each valid during the call), until the
 * end or until fold returns false; returns how many it passed.  Cells go from the reader to fold without a call per cell
 * through the scan (WideReaderFold).  (The plan has no quals:
 * WideScanPathExact.)
 */
uint64
WideScanFold(CustomScanState *node, WideCellFold fold, void *arg)
{
	WideScanState *s = (WideScanState *) node;
	const WideCell *cell;
	MemoryContext old;
	uint64		n = 0;
	bool		stopped = false;

	if (!s->started)
		start_scan(s);
	if (s->empty)
		return 0;
	for (;;)
	{
		if (s->reader == NULL && s->rreader == NULL && !open_reader(s))
		{
			s->empty = true;
			return n;
		}
		old = MemoryContextSwitchTo(s->readcxt);
		if (s->reader != NULL && !s->columns.fam_active && !s->columns.qual_active)
		{
			/* (folds look at no qualifier: count(qualifier) counts cells) */
			WideReaderSkipQualifiers(s->reader);
			n += WideReaderFold(s->reader, fold, arg, &stopped);
		}
		else
		{
			while ((cell = s->reader ? WideReaderNext(s->reader) :
					WideReverseNext(s->rreader)) != NULL)
			{
				if (s->reader == NULL && !WideColumnFilterMatch(&s->columns, cell))
					continue;	/* (a forward reader's filter is the same) */
				n++;
				if (!fold(cell, arg))
				{
					stopped = true;
					break;
				}
			}
		}
		MemoryContextSwitchTo(old);
		if (stopped)
			return n;
		if (s->pscan != NULL && next_stretch(s))
			continue;
		close_reader(s);
		if (s->keys == NULL && s->prefixes == NULL && !s->has_ranges)
		{
			s->empty = true;
			return n;
		}
	}
}

/* WideScanSchema -- the schema of the table a Wide Scan reads */
const WideSchema *
WideScanSchema(CustomScanState *node)
{
	return ((WideScanState *) node)->schema;
}
