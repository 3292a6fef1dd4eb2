/*-------------------------------------------------------------------------
 *
 * rows_fdw.c
 *	  The wide_rows foreign data wrapper's handler: which module does
 *	  what for a row form -- planning (rows_plan.c), scans (rows_scan.c),
 *	  GROUP BY inside the scan (rows_agg.c: a Foreign Scan of no relation,
 *	  scanrelid 0), writes (rows_write.c), DELETE by tombstones
 *	  (rows_delete.c: direct modify), ANALYZE (rows_scan.c).
 *
 * IDENTIFICATION
 *	  src/am/rows_fdw.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "optimizer/pathnode.h"
#include "utils/rel.h"

#include "am/rows.h"

PG_FUNCTION_INFO_V1(wide_rows_handler);

static bool
is_grouping(ForeignScanState *node)
{
	return ((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0;
}

static ForeignScan *
rows_get_plan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
			  ForeignPath *best_path, List *tlist, List *scan_clauses,
			  Plan *outer_plan)
{
	if (IS_UPPER_REL(baserel))
		return WideRowsAggPlan(root, baserel, best_path, tlist, outer_plan);
	return WideRowsGetPlan(root, baserel, foreigntableid, best_path, tlist,
						   scan_clauses, outer_plan);
}

static void
rows_begin_scan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	if (is_grouping(node))
	{
		WideRowsAggBegin(node, eflags);
		return;
	}
	node->fdw_state =
		WideRowsScanOpen(WideRowShapeGet(RelationGetRelid(node->ss.ss_currentRelation)),
						 node->ss.ps.state->es_snapshot, plan->fdw_private,
						 ExecInitExprList(plan->fdw_exprs, (PlanState *) node));
	WideRowsScanSetFilter(node->fdw_state, plan->scan.plan.qual);
}

static TupleTableSlot *
rows_iterate(ForeignScanState *node)
{
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	if (is_grouping(node))
		return WideRowsAggNext(node);
	ExecClearTuple(slot);
	if (!WideRowsScanNext(node->fdw_state, node->ss.ps.ps_ExprContext,
						  slot->tts_values, slot->tts_isnull))
		return slot;
	ExecStoreVirtualTuple(slot);
	return slot;
}

static void
rows_rescan(ForeignScanState *node)
{
	if (is_grouping(node))
		WideRowsAggRescan(node);
	else
		WideRowsScanRestart(node->fdw_state);
}

static void
rows_end_scan(ForeignScanState *node)
{
	if (node->fdw_state == NULL)
		return;
	if (is_grouping(node))
		WideRowsAggEnd(node);
	else
		WideRowsScanClose(node->fdw_state);
}

/*
 * Parallel scans of rows (partial paths, rows_plan.c): the leader cuts the
 * scan's key ranges into stretches, every participant reads its share of
 * the stretches it claims; a grouping scan returns each participant's
 * groups with partial aggregates (rows_agg.c).
 */
static bool
rows_parallel_safe(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	return true;
}

/* the scan of rows of a node: its own, or that of a grouping scan */
static RowsScan *
scan_of(ForeignScanState *node)
{
	return is_grouping(node) ? WideRowsAggScan(node) : node->fdw_state;
}

static Size
rows_estimate_dsm(ForeignScanState *node, ParallelContext *pcxt)
{
	return WideRowsScanEstimateDSM(scan_of(node), node->ss.ps.ps_ExprContext,
								   pcxt->nworkers);
}

static void
rows_initialize_dsm(ForeignScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WideRowsScanInitDSM(scan_of(node), coordinate);
}

static void
rows_reinitialize_dsm(ForeignScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WideRowsScanReinitDSM(scan_of(node), coordinate);
}

static void
rows_initialize_worker(ForeignScanState *node, shm_toc *toc, void *coordinate)
{
	WideRowsScanInitWorker(scan_of(node), coordinate);
}

static void
rows_explain(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;

	if (is_grouping(node))
	{
		WideRowsScanExplain(WideRowsAggRelid(plan), plan->fdw_private,
							plan->scan.plan.parallel_aware ? NULL : WideRowsAggScan(node), es);
		WideRowsAggExplain(node, es);
	}
	else
		WideRowsScanExplain(RelationGetRelid(node->ss.ss_currentRelation),
							plan->fdw_private,
							plan->scan.plan.parallel_aware ? NULL : node->fdw_state, es);
}

Datum
wide_rows_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *r = makeNode(FdwRoutine);

	r->GetForeignRelSize = WideRowsGetRelSize;
	r->GetForeignPaths = WideRowsGetPaths;
	r->GetForeignPlan = rows_get_plan;
	r->GetForeignUpperPaths = WideRowsGetUpperPaths;
	r->BeginForeignScan = rows_begin_scan;
	r->IterateForeignScan = rows_iterate;
	r->ReScanForeignScan = rows_rescan;
	r->EndForeignScan = rows_end_scan;
	r->ExplainForeignScan = rows_explain;
	r->IsForeignScanParallelSafe = rows_parallel_safe;
	r->EstimateDSMForeignScan = rows_estimate_dsm;
	r->InitializeDSMForeignScan = rows_initialize_dsm;
	r->ReInitializeDSMForeignScan = rows_reinitialize_dsm;
	r->InitializeWorkerForeignScan = rows_initialize_worker;
	r->AnalyzeForeignTable = WideRowsAnalyze;
	WideRowsModifyRoutine(r);
	WideRowsDirectRoutine(r);
	PG_RETURN_POINTER(r);
}
