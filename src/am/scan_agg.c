/*-------------------------------------------------------------------------
 *
 * scan_agg.c
 *	  "Wide Aggregate": count, sum, avg, min and max of a wide table's
 *	  cells, computed in the scan.
 *
 * An aggregate query over one wide table without GROUP BY spends most of
 * its time, with a plain plan, on work per cell that is not reading: a
 * tuple formed per cell, the executor's scan and aggregate nodes, a call
 * of each aggregate's transition function (avg(float8) updates an array).
 * The planner hook here replaces Agg over a Wide Scan by a Custom Scan
 * "WideAggregate" over the same Wide Scan (its child plan), which takes
 * the cells from the scan (WideScanFold) and folds them into the
 * aggregates directly.  The cells are exactly those the Wide Scan returns
 * -- visibility, deletes, versions, families, key ranges and windows of
 * timestamps are the reader's (engine/reader.c, merge.c) -- and each
 * aggregate repeats the arithmetic of PostgreSQL's transition function in
 * the same order, so results equal the plain plan's bit for bit.
 *
 * Pushed down: the query reads one wide table, has no GROUP BY, grouping
 * sets or HAVING, and every condition on the table is enforced by the Wide
 * Scan (key ranges, family/qualifier sets, ts windows: no Filter); every
 * aggregate is plain (no DISTINCT, ORDER BY or FILTER) and one of
 *	count(*), count(column)            (no column of a cell is ever NULL)
 *	sum, avg, min, max of a float8 value
 *	min, max of an int8 or timestamptz ts or value.
 * Anything else keeps the plain plan.
 *
 * Parallel: the same node over a parallel Wide Scan computes partial
 * aggregates (the transition states: int8, float8, float8[3] for avg) in
 * every participant, under Gather and Finalize Aggregate.  A parallel
 * plan's sum of floats depends on how the cells were divided, as with any
 * parallel aggregate.
 *
 * wide.enable_aggregate_pushdown = off keeps the plain plans (tests
 * compare both).
 *
 * IDENTIFICATION
 *	  src/am/scan_agg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "utils/array.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "am/am.h"
#include "am/scan_agg.h"

/* what an aggregate computes */
#define AGG_COUNT		1		/* count(*), count(column) */
#define AGG_SUM_F8		2		/* sum(float8): float8pl */
#define AGG_AVG_F8		3		/* avg(float8): float8_accum, float8_avg */
#define AGG_MIN_F8		4		/* float8smaller */
#define AGG_MAX_F8		5		/* float8larger */
#define AGG_MIN_I8		6		/* int8smaller, timestamptz_smaller */
#define AGG_MAX_I8		7		/* int8larger, timestamptz_larger */

/* where its argument comes from */
#define SRC_NONE		0
#define SRC_TS			4		/* the cell's ts (attno 4) */
#define SRC_VALUE		5		/* the cell's value (attno 5) */

/* one aggregate's state while the cells are read */
typedef struct WideAggAcc
{
	int			kind;			/* AGG_* */
	int			src;			/* SRC_* */
	bool		has;			/* sum, min, max: a value was seen */
	int64		i8;				/* min, max of int8 */
	float8		f8;				/* sum, min, max of float8 */
	float8		n;				/* avg: float8_accum's N (once exact), Sx, Sxx */
	float8		sx;
	float8		sxx;
	bool		exact;			/* avg: Sxx kept (see fold_cell) */
} WideAggAcc;

typedef struct WideAggState
{
	CustomScanState css;
	bool		partial;		/* output transition states */
	int			naccs;
	WideAggAcc *accs;
	int			nfold;			/* the aggregates other than counts ... */
	int		   *fold;			/* ... (their indexes in accs) */
	int64		ncells;			/* cells folded: the counts, avg's N */
	bool		need_value;		/* some aggregate reads the value */
	bool		ts_is_tz;		/* ts is timestamptz (else int8) */
	const WideSchema *schema;	/* the scan's (aggregate cells' values) */
	bool		exact_avg;		/* avg keeps Sxx from the first cell */
	bool		restart;		/* read again, with exact_avg */
	bool		done;
} WideAggState;

static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;
bool		wide_enable_aggregate_pushdown = true;	/* also rows_agg.c */

static Plan *plan_agg_path(PlannerInfo *root, RelOptInfo *rel,
						   CustomPath *best_path, List *tlist,
						   List *clauses, List *custom_plans);
static Node *create_agg_state(CustomScan *cscan);
static void begin_agg(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_agg(CustomScanState *node);
static void end_agg(CustomScanState *node);
static void rescan_agg(CustomScanState *node);
static void explain_agg(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomPathMethods wide_agg_path_methods = {
	.CustomName = "WideAggregate",
	.PlanCustomPath = plan_agg_path,
};

static const CustomScanMethods wide_agg_scan_methods = {
	.CustomName = "WideAggregate",
	.CreateCustomScanState = create_agg_state,
};

static const CustomExecMethods wide_agg_exec_methods = {
	.CustomName = "WideAggregate",
	.BeginCustomScan = begin_agg,
	.ExecCustomScan = exec_agg,
	.EndCustomScan = end_agg,
	.ReScanCustomScan = rescan_agg,
	.ExplainCustomScan = explain_agg,
};

/* ----------------------------------------------------------------
 *	Planning
 * ----------------------------------------------------------------
 */

/*
 * The kind and source of an aggregate the scan can compute, or false.
 */
static bool
classify_aggref(Aggref *agg, Index relid, AggSplit split, int *kind, int *src)
{
	HeapTuple	tup;
	Form_pg_aggregate form;
	Oid			transfn,
				finalfn;
	Oid			type = InvalidOid;
	Var		   *var = NULL;

	if (agg->agglevelsup != 0 || agg->aggkind != AGGKIND_NORMAL ||
		agg->aggdistinct != NIL || agg->aggorder != NIL ||
		agg->aggfilter != NULL || agg->aggvariadic || agg->aggsplit != split)
		return false;
	if (!agg->aggstar)
	{
		TargetEntry *te;

		if (list_length(agg->args) != 1)
			return false;
		te = linitial_node(TargetEntry, agg->args);
		if (!IsA(te->expr, Var))
			return false;
		var = (Var *) te->expr;
		if (var->varno != relid || var->varlevelsup != 0 ||
			var->varattno < 1 || var->varattno > 5)
			return false;
		type = var->vartype;
	}
	else if (agg->args != NIL)
		return false;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg->aggfnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	form = (Form_pg_aggregate) GETSTRUCT(tup);
	transfn = form->aggtransfn;
	finalfn = form->aggfinalfn;
	ReleaseSysCache(tup);

	*src = var ? var->varattno : SRC_NONE;
	switch (transfn)
	{
		case F_INT8INC:
			*kind = AGG_COUNT;
			return agg->aggstar && !OidIsValid(finalfn);
		case F_INT8INC_ANY:
			/* no column of a cell is ever NULL: count(column) = count(*) */
			*kind = AGG_COUNT;
			*src = SRC_NONE;
			return var != NULL && !OidIsValid(finalfn);
		case F_FLOAT8PL:
			*kind = AGG_SUM_F8;
			break;
		case F_FLOAT8_ACCUM:
			if (finalfn != F_FLOAT8_AVG)
				return false;
			*kind = AGG_AVG_F8;
			return type == FLOAT8OID && *src == SRC_VALUE;
		case F_FLOAT8SMALLER:
			*kind = AGG_MIN_F8;
			break;
		case F_FLOAT8LARGER:
			*kind = AGG_MAX_F8;
			break;
		case F_INT8SMALLER:
		case F_TIMESTAMPTZ_SMALLER:
			*kind = AGG_MIN_I8;
			return !OidIsValid(finalfn) &&
				(type == INT8OID || type == TIMESTAMPTZOID) &&
				(*src == SRC_TS || *src == SRC_VALUE);
		case F_INT8LARGER:
		case F_TIMESTAMPTZ_LARGER:
			*kind = AGG_MAX_I8;
			return !OidIsValid(finalfn) &&
				(type == INT8OID || type == TIMESTAMPTZOID) &&
				(*src == SRC_TS || *src == SRC_VALUE);
		default:
			return false;
	}
	/* the float8 ones */
	return !OidIsValid(finalfn) && type == FLOAT8OID && *src == SRC_VALUE;
}

/*
 * The aggregates of target, each classified, into *aggs (as target entries
 * for custom_scan_tlist), *kinds and *srcs; false if anything in it is not
 * an aggregate the scan computes.
 */
static bool
collect_aggrefs(PathTarget *target, Index relid, AggSplit split,
				List **aggs, List **kinds, List **srcs)
{
	List	   *nodes = pull_var_clause((Node *) target->exprs,
										PVC_INCLUDE_AGGREGATES |
										PVC_INCLUDE_WINDOWFUNCS |
										PVC_INCLUDE_PLACEHOLDERS);
	ListCell   *lc;

	*aggs = *kinds = *srcs = NIL;
	foreach(lc, nodes)
	{
		Aggref	   *agg = lfirst(lc);
		ListCell   *la;
		bool		seen = false;
		int			kind,
					src;

		if (!IsA(agg, Aggref) ||
			!classify_aggref(agg, relid, split, &kind, &src))
			return false;
		foreach(la, *aggs)
			if (equal(lfirst_node(TargetEntry, la)->expr, agg))
				seen = true;
		if (seen)
			continue;
		*aggs = lappend(*aggs, makeTargetEntry((Expr *) agg,
											   list_length(*aggs) + 1,
											   NULL, false));
		*kinds = lappend_int(*kinds, kind);
		*srcs = lappend_int(*srcs, src);
	}
	return *aggs != NIL;
}

/* the cheapest exact Wide Scan path of rel among paths (parallel or not) */
static Path *
exact_scan_path(RelOptInfo *rel, List *paths, bool parallel)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *p = lfirst(lc);

		if (p->parallel_aware == parallel && WideScanPathExact(rel, p) &&
			(best == NULL || p->total_cost < best->total_cost))
			best = p;
	}
	return best;
}

/*
 * A Wide Aggregate path over scan, to output_rel (the grouped relation, or
 * partial: the partially grouped one); NULL if the target holds anything
 * the scan cannot compute.
 */
static CustomPath *
agg_path(RelOptInfo *input_rel, RelOptInfo *output_rel, Path *scan,
		 bool partial)
{
	List	   *aggs,
			   *kinds,
			   *srcs;
	CustomPath *cpath;
	double		cells;

	if (!collect_aggrefs(output_rel->reltarget, input_rel->relid,
						 partial ? AGGSPLIT_INITIAL_SERIAL : AGGSPLIT_SIMPLE,
						 &aggs, &kinds, &srcs))
		return NULL;
	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = output_rel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = scan->parallel_safe && output_rel->consider_parallel;
	cpath->path.parallel_workers = scan->parallel_workers;
	cpath->path.rows = 1;
	/*
	 * The scan's cost without the tuples it would form (cpu_tuple_cost a
	 * cell, in its run cost), and the aggregates folded in at a fraction
	 * of an operator each: below Agg over the same scan, always
	 */
	cells = Max(scan->rows, 1.0);
	cpath->path.startup_cost = scan->total_cost -
		Min(cpu_tuple_cost * cells, (scan->total_cost - scan->startup_cost) / 2) +
		0.25 * cpu_operator_cost * cells * list_length(aggs);
	cpath->path.total_cost = cpath->path.startup_cost + cpu_tuple_cost;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = list_make1(scan);
	cpath->custom_private = list_make4(aggs, kinds, srcs,
									   makeInteger(partial ? 1 : 0));
	cpath->methods = &wide_agg_path_methods;
	return cpath;
}

/*
 * Add Wide Aggregate paths to the grouped relation, when the query is one
 * the scan can aggregate: over the serial Wide Scan; and, over a parallel
 * Wide Scan, Finalize Aggregate over Gather over a partial Wide Aggregate
 * (PostgreSQL calls this hook for the grouped relation only, after it has
 * planned its own partial aggregates: the partial path is put together
 * here).
 */
static void
wide_upper_paths(PlannerInfo *root, UpperRelationKind stage,
				 RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	Query	   *parse = root->parse;
	GroupPathExtraData *gextra = extra;
	Path	   *scan;
	CustomPath *cpath;

	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);

	if (!wide_enable_aggregate_pushdown || stage != UPPERREL_GROUP_AGG)
		return;
	if (input_rel->reloptkind != RELOPT_BASEREL || !parse->hasAggs ||
		parse->groupClause != NIL || parse->groupingSets != NIL ||
		parse->havingQual != NULL || root->hasHavingQual ||
		root->minmax_aggs != NIL || gextra == NULL ||
		gextra->patype != PARTITIONWISE_AGGREGATE_NONE)
		return;

	scan = exact_scan_path(input_rel, input_rel->pathlist, false);
	if (scan != NULL && (cpath = agg_path(input_rel, output_rel, scan, false)) != NULL)
		add_path(output_rel, &cpath->path);

	/* in parallel: PostgreSQL made the partially grouped relation, if it may */
	scan = exact_scan_path(input_rel, input_rel->partial_pathlist, true);
	if (scan != NULL && output_rel->consider_parallel &&
		(gextra->flags & GROUPING_CAN_PARTIAL_AGG) && gextra->partial_costs_set)
	{
		RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG,
												  output_rel->relids);
		Path	   *path;
		double		rows;

		if (!partial_rel->consider_parallel ||
			(cpath = agg_path(input_rel, partial_rel, scan, true)) == NULL ||
			!cpath->path.parallel_safe)
			return;
		rows = cpath->path.rows * Max(cpath->path.parallel_workers, 1);
		path = (Path *) create_gather_path(root, partial_rel, &cpath->path,
										   partial_rel->reltarget, NULL, &rows);
		path = (Path *) create_agg_path(root, output_rel, path,
										output_rel->reltarget, AGG_PLAIN,
										AGGSPLIT_FINAL_DESERIAL, NIL, NULL,
										&gextra->agg_final_costs, 1);
		add_path(output_rel, path);
	}
}

static Plan *
plan_agg_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	/* the aggregates, which the targetlist refers to */
	cscan->custom_scan_tlist = linitial(best_path->custom_private);
	cscan->custom_private = list_copy_tail(best_path->custom_private, 1);
	cscan->methods = &wide_agg_scan_methods;
	return &cscan->scan.plan;
}

/* ----------------------------------------------------------------
 *	Execution
 * ----------------------------------------------------------------
 */

static Node *
create_agg_state(CustomScan *cscan)
{
	WideAggState *s = (WideAggState *) newNode(sizeof(WideAggState),
											   T_CustomScanState);
	List	   *kinds = linitial(cscan->custom_private);
	List	   *srcs = lsecond(cscan->custom_private);
	ListCell   *lk,
			   *ls;
	int			i = 0;

	s->css.methods = &wide_agg_exec_methods;
	s->partial = intVal(lthird(cscan->custom_private)) != 0;
	s->naccs = list_length(kinds);
	s->accs = palloc0(sizeof(WideAggAcc) * s->naccs);
	s->fold = palloc0(sizeof(int) * s->naccs);
	forboth(lk, kinds, ls, srcs)
	{
		s->accs[i].kind = lfirst_int(lk);
		s->accs[i].src = lfirst_int(ls);
		if (s->accs[i].src == SRC_VALUE)
			s->need_value = true;
		/* (counts count the cells: s->ncells) */
		if (s->accs[i].kind != AGG_COUNT)
			s->fold[s->nfold++] = i;
		i++;
	}
	return (Node *) s;
}

static void
begin_agg(CustomScanState *node, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child;

	child = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	if (!WideScanIsWideScan(child))
		elog(ERROR, "the child of a Wide Aggregate is not a Wide Scan");
	node->custom_ps = list_make1(child);
}

/* a corrupt value: not the 8 bytes of a float8 or an int8 */
static void
bad_value(const WideCell *cell)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("stored value has %u bytes, expected 8", cell->vallen)));
}

/*
 * Fold one cell into the aggregates: PostgreSQL's transition functions,
 * operation for operation (float8pl, float8_accum, float8larger, ...).
 *
 * avg(float8) is float8_accum's N and Sx, and Sxx (for variances), whose
 * update costs a division a cell.  avg's result is Sx / N; Sxx shows only
 * in the error float8_accum raises when it overflows.  While every value
 * is finite and within 1e100 of zero, Sxx stays below 8e200 * N and never
 * overflows, so it is left out; at the first value past that, a serial
 * scan starts again with Sxx kept from the first cell (the same cells in
 * the same order: the same results and errors as float8_accum).  A
 * partial (parallel) aggregate cannot read its cells again: it keeps Sxx
 * from that value on, counting the values before it as adding 0 -- a
 * difference below 8e200 * N, which shows in no result (Finalize's avg is
 * Sx / N), and in an error only if Sxx later overflows, which then depends
 * on the parallel plan's division of the cells anyway.
 */
static inline void
fold_cell(WideAggState *s, const WideCell *cell)
{
	float8		f8 = 0;
	int64		i8 = 0;
	WideAggAcc *accs = s->accs;
	const int  *fold = s->fold;
	int			nfold = s->nfold;
	int			i;

	if (s->need_value &&
		(cell->kind == WIDE_KIND_ADD || cell->kind == WIDE_KIND_MERGE))
	{
		/* an aggregate cell: a float sum is not 8 bytes, a count an int */
		Datum		d = WideAggToValue(s->schema, cell);

		if (s->schema->valtype == FLOAT8OID)
			f8 = DatumGetFloat8(d);
		else if (s->schema->valtype == INT8OID)
			i8 = DatumGetInt64(d);
	}
	else if (s->need_value)
	{
		if (cell->vallen != 8 || cell->value == NULL)
			bad_value(cell);
		memcpy(&i8, cell->value, 8);
		memcpy(&f8, cell->value, 8);
	}
	for (i = 0; i < nfold; i++)
	{
		WideAggAcc *a = &accs[fold[i]];

		switch (a->kind)
		{
			case AGG_SUM_F8:
				a->f8 = a->has ? float8_pl(a->f8, f8) : f8;
				a->has = true;
				break;
			case AGG_AVG_F8:
				if (!a->exact)
				{
					/* (false for NaN and infinities) */
					if (likely(fabs(f8) <= 1e100))
					{
						/* (N: the cells folded, agg_results) */
						a->sx += f8;
						break;
					}
					if (!s->partial)
					{
						s->restart = true;
						return;
					}
					a->exact = true;
					a->n = (float8) s->ncells;
				}
				{
					float8		n = a->n + 1.0;
					float8		sx = a->sx + f8;
					float8		sxx = a->sxx;

					if (a->n > 0.0)
					{
						float8		tmp = f8 * n - sx;

						sxx += tmp * tmp / (n * a->n);
						if (isinf(sx) || isinf(sxx))
						{
							if (!isinf(a->sx) && !isinf(f8))
								float_overflow_error();
							sxx = get_float8_nan();
						}
					}
					else if (isnan(f8) || isinf(f8))
						sxx = get_float8_nan();
					a->n = n;
					a->sx = sx;
					a->sxx = sxx;
				}
				break;
			case AGG_MIN_F8:
				if (!a->has || !float8_lt(a->f8, f8))
					a->f8 = f8;
				a->has = true;
				break;
			case AGG_MAX_F8:
				if (!a->has || !float8_gt(a->f8, f8))
					a->f8 = f8;
				a->has = true;
				break;
			case AGG_MIN_I8:
				{
					int64		v = a->src == SRC_TS ? cell->ts : i8;

					if (!a->has || v < a->i8)
						a->i8 = v;
					a->has = true;
				}
				break;
			case AGG_MAX_I8:
				{
					int64		v = a->src == SRC_TS ? cell->ts : i8;

					if (!a->has || v > a->i8)
						a->i8 = v;
					a->has = true;
				}
				break;
		}
	}
	s->ncells++;
}

/* fold_cell for WideScanFold: false to stop (a restart) */
static bool
fold_next(const WideCell *cell, void *arg)
{
	WideAggState *s = (WideAggState *) arg;

	fold_cell(s, cell);
	return !s->restart;
}

/* the aggregates' results (or, partial, their transition states) */
static void
agg_results(WideAggState *s, Datum *values, bool *isnull)
{
	int			i;

	for (i = 0; i < s->naccs; i++)
	{
		WideAggAcc *a = &s->accs[i];

		isnull[i] = false;
		switch (a->kind)
		{
			case AGG_COUNT:
				values[i] = Int64GetDatum(s->ncells);
				break;
			case AGG_SUM_F8:
			case AGG_MIN_F8:
			case AGG_MAX_F8:
				values[i] = Float8GetDatum(a->f8);
				isnull[i] = !a->has;
				break;
			case AGG_AVG_F8:
				if (!a->exact)
					a->n = (float8) s->ncells;	/* (fold_cell) */
				if (s->partial)
				{
					Datum		d[3];

					d[0] = Float8GetDatumFast(a->n);
					d[1] = Float8GetDatumFast(a->sx);
					d[2] = Float8GetDatumFast(a->sxx);
					values[i] = PointerGetDatum(construct_array(d, 3, FLOAT8OID,
																sizeof(float8),
																FLOAT8PASSBYVAL,
																TYPALIGN_DOUBLE));
				}
				else if (a->n == 0.0)
					isnull[i] = true;	/* float8_avg: no values, NULL */
				else
					values[i] = Float8GetDatum(a->sx / a->n);
				break;
			case AGG_MIN_I8:
			case AGG_MAX_I8:
				/* a timestamptz ts is microseconds since 1970 in the cell */
				values[i] = Int64GetDatum(a->src == SRC_TS && s->ts_is_tz ?
										  WideUnixToTimestamp(a->i8) : a->i8);
				isnull[i] = !a->has;
				break;
		}
	}
}

/* read every cell of the scan, and form the one result row */
static TupleTableSlot *
agg_next(ScanState *ss)
{
	WideAggState *s = (WideAggState *) ss;
	CustomScanState *child = linitial(s->css.custom_ps);
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	Instrumentation *instr = child->ss.ps.instrument;
	uint64		ncells;

	ExecClearTuple(slot);
	if (s->done)
		return slot;
	s->schema = WideScanSchema(child);
	s->ts_is_tz = s->schema->tstype == TIMESTAMPTZOID;
again:
	for (int i = 0; i < s->naccs; i++)
	{
		WideAggAcc *a = &s->accs[i];

		a->has = false;
		a->i8 = 0;
		a->f8 = a->n = a->sx = a->sxx = 0.0;
		a->exact = s->exact_avg;
	}
	s->ncells = 0;
	/* the child's EXPLAIN ANALYZE counts the cells it gave */
	if (instr)
		InstrStartNode(instr);
	ncells = WideScanFold(child, fold_next, s);
	if (unlikely(s->restart))
	{
		/* avg met a large value: all again, with Sxx (fold_cell) */
		s->restart = false;
		s->exact_avg = true;
		if (instr)
			InstrStopNode(instr, (double) ncells);
		ExecReScan((PlanState *) child);
		goto again;
	}
	if (instr)
		InstrStopNode(instr, (double) ncells);
	agg_results(s, slot->tts_values, slot->tts_isnull);
	ExecStoreVirtualTuple(slot);
	s->done = true;
	return slot;
}

static bool
agg_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_agg(CustomScanState *node)
{
	return ExecScan(&node->ss, (ExecScanAccessMtd) agg_next,
					(ExecScanRecheckMtd) agg_recheck);
}

static void
end_agg(CustomScanState *node)
{
	ExecEndNode(linitial(node->custom_ps));
}

static void
rescan_agg(CustomScanState *node)
{
	PlanState  *child = linitial(node->custom_ps);

	((WideAggState *) node)->done = false;
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	ExecReScan(child);
}

/* EXPLAIN: the aggregates the scan computes */
static void
explain_agg(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	StringInfoData buf;
	ListCell   *lc;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									   ancestors);
	initStringInfo(&buf);
	foreach(lc, cscan->custom_scan_tlist)
	{
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf,
							   deparse_expression((Node *) lfirst_node(TargetEntry, lc)->expr,
												  context, es->verbose, false));
	}
	ExplainPropertyText("Aggregates", buf.data, es);
}

/*
 * WideInstallAggregate -- the planner hook and its setting (from _PG_init,
 * after WideInstallPlanner).
 */
void
WideInstallAggregate(void)
{
	DefineCustomBoolVariable("wide.enable_aggregate_pushdown",
							 "Lets the planner compute count, sum, avg, min and max of a wide table in its scan.",
							 "Off, such aggregates are computed by PostgreSQL's Aggregate over the rows of a Wide Scan; for testing and for comparing plans.",
							 &wide_enable_aggregate_pushdown, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	RegisterCustomScanMethods(&wide_agg_scan_methods);
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = wide_upper_paths;
}
