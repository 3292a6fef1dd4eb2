/*-------------------------------------------------------------------------
 *
 * rows_agg.c
 *	  GROUP BY inside the row form's scan: a query that groups one row form
 *	  (by any expressions of its columns: key parts, date_trunc of the
 *	  time, ...) and aggregates with count, sum, avg, min and max is
 *	  planned as one Foreign Scan that returns the groups.  The rows are
 *	  assembled (rows_scan.c), filtered by the query's conditions and
 *	  folded into a hash table of groups in C; no row is a tuple of the
 *	  executor.
 *
 * Exactness.  The aggregates fold the rows in the scan's order, as the
 * Aggregate node above a plain scan of the form would, with PostgreSQL's
 * own arithmetic: sum(float8) adds as float8pl does, avg(float8) keeps
 * N, Sx and Sxx as float8_accum does (and fails on overflow as it does),
 * min and max compare as float8larger and float8smaller (NaN largest).
 * So the answers are bit for bit those of the plan without the pushdown
 * (test rows_agg compares them).
 *
 * What is pushed: count(*), count(x), sum and avg of float8, min and max
 * of float8, int2/4/8, timestamp and timestamptz; no DISTINCT, ORDER BY
 * or FILTER inside an aggregate, no HAVING, no grouping sets; grouping
 * expressions hashable and not volatile; conditions without subplans.
 * Anything else is planned as before: the scan below an Aggregate, as is
 * everything with wide.enable_aggregate_pushdown = off (the Wide Scan's
 * setting: one switch for both forms).
 * Parallel: under Gather, each participant of a parallel scan of the form
 * folds the rows of the stretches it claims and returns its groups with
 * the aggregates' transition states (avg: float8_accum's {N, Sx, Sxx}),
 * which a Finalize Aggregate combines (a partial path of
 * UPPERREL_PARTIAL_GROUP_AGG): as PostgreSQL's own partial aggregates, the
 * sums then depend on how the rows were shared.
 * The groups are held in memory: a grouping estimated at more than
 * WIDE_ROWS_AGG_MAX_GROUPS groups is not pushed (the Aggregate node can
 * spill to disk).
 *
 * IDENTIFICATION
 *	  src/am/rows_agg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "common/int.h"
#include "catalog/pg_aggregate.h"
#include "parser/scansup.h"
#include "pgtime.h"
#include "utils/timestamp.h"
#include "utils/datetime.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "am/rows.h"
#include "am/scan_agg.h"

#define WIDE_ROWS_AGG_MAX_GROUPS	2000000

typedef enum RowsAggKind
{
	AGG_COUNT_STAR = 1,
	AGG_COUNT,
	AGG_SUM_F8,
	AGG_AVG_F8,
	AGG_MAX_F8,
	AGG_MIN_F8,
	AGG_MAX_INT,				/* int2, int4, int8, timestamp(tz): as int64 */
	AGG_MIN_INT
} RowsAggKind;

/* the kind of an aggregate the scan computes, or 0 */
static int
agg_kind(Aggref *a)
{
	Oid			argtype;

	if (a->aggorder != NIL || a->aggdistinct != NIL || a->aggfilter != NULL ||
		a->aggkind != AGGKIND_NORMAL || a->agglevelsup != 0 ||
		(a->aggsplit != AGGSPLIT_SIMPLE && a->aggsplit != AGGSPLIT_INITIAL_SERIAL))
		return 0;
	if (a->aggfnoid == F_COUNT_)
		return AGG_COUNT_STAR;
	if (list_length(a->args) != 1)
		return 0;
	argtype = exprType((Node *) ((TargetEntry *) linitial(a->args))->expr);
	switch (a->aggfnoid)
	{
		case F_COUNT_ANY:
			return AGG_COUNT;
		case F_SUM_FLOAT8:
			return AGG_SUM_F8;
		case F_AVG_FLOAT8:
			return AGG_AVG_F8;
		case F_MAX_FLOAT8:
			return AGG_MAX_F8;
		case F_MIN_FLOAT8:
			return AGG_MIN_F8;
		case F_MAX_INT2:
		case F_MAX_INT4:
		case F_MAX_INT8:
		case F_MAX_TIMESTAMP:
		case F_MAX_TIMESTAMPTZ:
			return AGG_MAX_INT;
		case F_MIN_INT2:
		case F_MIN_INT4:
		case F_MIN_INT8:
		case F_MIN_TIMESTAMP:
		case F_MIN_TIMESTAMPTZ:
			return AGG_MIN_INT;
	}
	(void) argtype;
	return 0;
}

/* does an expression use only columns of the row form rel? */
static bool
of_rel_only(PlannerInfo *root, Node *expr, RelOptInfo *rel)
{
	Relids		r = pull_varnos(root, expr);

	return bms_is_subset(r, rel->relids) &&
		!contain_volatile_functions(expr) && !contain_subplans(expr) &&
		!contain_agg_clause(expr) && !expression_returns_set(expr);
}

/*
 * Top groups.  ORDER BY the one grouping expression DESC LIMIT n, where
 * that expression is the time key part or date_trunc of it (non-decreasing
 * in the time) and the query bounds the time from above (time < X): the
 * latest n buckets, TSBS's groupby-orderby-limit.  Instead of folding every
 * row before X and sorting the groups, the scan folds the rows of a window
 * [X - w, X), widened (w x 4) until at least n groups are whole -- a group
 * b is whole when b > f(X - w - 1 us): no earlier row can belong to it --
 * and returns the n largest in order; after four widenings, every row.
 * The path is one of the ordered relation, with the query's pathkeys; it
 * returns LIMIT + OFFSET groups, and the Limit above it takes them.
 */
/* the default btree operator family of a type (the type cache's) */
static Oid
btree_family(Oid type)
{
	return lookup_type_cache(type, TYPECACHE_BTREE_OPFAMILY)->btree_opf;
}

/*
 * window_fraction -- of the rows below the upper bound, the share the top
 * groups' scan folds, about: the last window it needs (n + 1 buckets of
 * date_trunc's unit, or an hour) among those the widening tries, and the
 * ones before it (a third more); 0.1 if the bound is not a constant.
 */
static double
window_fraction(PlannerInfo *root, RelOptInfo *baserel, Var *var, Expr *upper,
				Expr *gexpr, double n)
{
	Const	   *c = (Const *) upper;
	int64		need = USECS_PER_HOUR;
	int64		w = USECS_PER_HOUR;
	Oid			opno;
	Const	   *lo;
	Expr	   *ge;
	Expr	   *lt;
	Selectivity s_ge,
				s_lt;

	if (!IsA(c, Const) || c->constisnull || c->consttype != var->vartype ||
		TIMESTAMP_NOT_FINITE(DatumGetTimestamp(c->constvalue)))
		return 0.1;
	if (IsA(gexpr, FuncExpr))
	{
		char	   *unit = TextDatumGetCString(((Const *) linitial(((FuncExpr *) gexpr)->args))->constvalue);
		int64		width = USECS_PER_HOUR;

		if (pg_strcasecmp(unit, "second") == 0)
			width = USECS_PER_SEC;
		else if (pg_strcasecmp(unit, "minute") == 0)
			width = USECS_PER_MINUTE;
		else if (pg_strcasecmp(unit, "day") == 0)
			width = USECS_PER_DAY;
		else if (pg_strcasecmp(unit, "week") == 0)
			width = 7 * USECS_PER_DAY;
		else if (pg_strcasecmp(unit, "month") == 0)
			width = 31 * USECS_PER_DAY;
		else if (pg_strcasecmp(unit, "year") == 0)
			width = 366 * USECS_PER_DAY;
		need = (int64) Min((n + 1) * (double) width, 100.0 * 366 * USECS_PER_DAY);
	}
	for (int k = 0; k < 4 && w < need; k++)
		w *= 4;
	if (DatumGetTimestamp(c->constvalue) - w <= MIN_TIMESTAMP + 1)
		return 1.0;
	opno = get_opfamily_member(btree_family(var->vartype),
							   var->vartype, var->vartype, BTGreaterEqualStrategyNumber);
	if (!OidIsValid(opno))
		return 0.1;
	lo = makeConst(var->vartype, -1, InvalidOid, sizeof(int64),
				   TimestampGetDatum(DatumGetTimestamp(c->constvalue) - w), false, FLOAT8PASSBYVAL);
	ge = make_opclause(opno, BOOLOID, false, (Expr *) var, (Expr *) lo, InvalidOid, InvalidOid);
	lt = make_opclause(get_opfamily_member(btree_family(var->vartype),
										   var->vartype, var->vartype, BTLessStrategyNumber),
					   BOOLOID, false, (Expr *) var, (Expr *) c, InvalidOid, InvalidOid);
	s_ge = clauselist_selectivity(root, list_make1(ge), baserel->relid, JOIN_INNER, NULL);
	s_lt = clauselist_selectivity(root, list_make1(lt), baserel->relid, JOIN_INNER, NULL);
	if (s_lt <= 0)
		return 1.0;
	return Min(Max((s_ge + s_lt - 1.0) / s_lt * 4.0 / 3.0, 0.001), 1.0);
}

static void
add_top_groups(PlannerInfo *root, RelOptInfo *grouped, RelOptInfo *ordered)
{
	Query	   *parse = root->parse;
	ForeignPath *gp = NULL;
	ListCell   *lc;
	List	   *gtlist;
	int			relid;
	RelOptInfo *baserel;
	RowsPlanInfo *info;
	SortGroupClause *sgc;
	TargetEntry *gtle = NULL;
	Expr	   *gexpr;
	Var		   *var;
	Expr	   *upper = NULL;
	int			tpart = -1;
	PathKey    *pk;
	ForeignPath *path;
	double		frac;
	Cost		cost;
	double		limit;

	/*
	 * LIMIT + OFFSET, constants (root->limit_tuples is not kept for a query
	 * with GROUP BY)
	 */
	if (parse->limitCount == NULL || !IsA(parse->limitCount, Const) ||
		((Const *) parse->limitCount)->constisnull ||
		(parse->limitOffset != NULL && (!IsA(parse->limitOffset, Const) ||
										((Const *) parse->limitOffset)->constisnull)) ||
		parse->limitOption != LIMIT_OPTION_COUNT)
		return;
	limit = (double) DatumGetInt64(((Const *) parse->limitCount)->constvalue) +
		(parse->limitOffset ? (double) DatumGetInt64(((Const *) parse->limitOffset)->constvalue) : 0);
	if (limit <= 0 || limit > 100000 ||
		list_length(parse->groupClause) != 1 || list_length(parse->sortClause) != 1 ||
		list_length(root->sort_pathkeys) != 1 || parse->hasWindowFuncs ||
		parse->distinctClause != NIL)
		return;
	foreach(lc, grouped->pathlist)
	{
		Path	   *p = lfirst(lc);

		if (IsA(p, ForeignPath) && p->parent == grouped && p->parallel_aware == false &&
			((ForeignPath *) p)->fdw_private != NIL &&
			list_length(((ForeignPath *) p)->fdw_private) == 2)
			gp = (ForeignPath *) p;
	}
	if (gp == NULL)
		return;
	gtlist = linitial(gp->fdw_private);
	relid = intVal(lsecond(gp->fdw_private));
	baserel = root->simple_rel_array[relid];
	info = baserel->fdw_private;

	/* ORDER BY the grouping expression, descending */
	sgc = linitial(parse->sortClause);
	if (sgc->tleSortGroupRef != ((SortGroupClause *) linitial(parse->groupClause))->tleSortGroupRef)
		return;
	pk = linitial(root->sort_pathkeys);
	if (pk->pk_strategy != BTGreaterStrategyNumber || pk->pk_nulls_first == false)
		return;
	foreach(lc, gtlist)
		if (((TargetEntry *) lfirst(lc))->ressortgroupref == sgc->tleSortGroupRef)
			gtle = lfirst(lc);
	if (gtle == NULL)
		return;

	/* ... which is the time part, or date_trunc('unit', time part) */
	gexpr = gtle->expr;
	if (IsA(gexpr, FuncExpr) &&
		(((FuncExpr *) gexpr)->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ ||
		 ((FuncExpr *) gexpr)->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP) &&
		IsA(linitial(((FuncExpr *) gexpr)->args), Const))
		var = lsecond(((FuncExpr *) gexpr)->args);
	else
		var = (Var *) gexpr;
	if (!IsA(var, Var) || var->varno != relid || var->varattno <= 0 ||
		info->shape->cols[var->varattno - 1].kind != WIDE_COL_KEY ||
		info->shape->parts[info->shape->cols[var->varattno - 1].part].kind != WIDE_PART_TIME)
		return;
	tpart = info->shape->cols[var->varattno - 1].part;

	/* ... bounded from above by a key condition */
	foreach(lc, info->keys)
	{
		WideRowsKey *k = lfirst(lc);

		if (k->part == tpart && !k->is_array &&
			(k->strategy == BTLessStrategyNumber ||
			 k->strategy == BTLessEqualStrategyNumber))
			upper = k->value;
	}
	if (upper == NULL)
		return;

	frac = window_fraction(root, baserel, var, upper, gexpr, limit);
	cost = gp->path.startup_cost * frac;
	path = create_foreign_upper_path(root, ordered, root->upper_targets[UPPERREL_ORDERED],
									 limit, cost, cost + cpu_tuple_cost * limit,
									 root->sort_pathkeys, NULL,
									 list_make5(gtlist, makeInteger(relid),
												makeInteger((int) limit),
												makeInteger(var->varattno),
												list_make2(upper, gexpr)));
	add_path(ordered, (Path *) path);
}

void
WideRowsGetUpperPaths(PlannerInfo *root, UpperRelationKind stage,
					  RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	Query	   *parse = root->parse;
	GroupPathExtraData *gx = extra;
	PathTarget *target;
	List	   *tlist = NIL;
	List	   *groupexprs = NIL;
	ListCell   *lc;
	int			i = 0;
	int			naggs = 0;
	Path	   *in;
	double		ngroups;
	Cost		startup,
				total;
	ForeignPath *path;
	bool		partial = (stage == UPPERREL_PARTIAL_GROUP_AGG);

	if (stage == UPPERREL_ORDERED && wide_enable_aggregate_pushdown)
	{
		add_top_groups(root, input_rel, output_rel);
		return;
	}
	if (!wide_enable_aggregate_pushdown ||
		(stage != UPPERREL_GROUP_AGG && stage != UPPERREL_PARTIAL_GROUP_AGG) ||
		input_rel->reloptkind != RELOPT_BASEREL ||
		input_rel->fdw_private == NULL || output_rel->fdw_private != NULL)
		return;
	if (parse->groupingSets || root->hasHavingQual || gx->havingQual != NULL ||
		gx->patype != PARTITIONWISE_AGGREGATE_NONE)
		return;
	foreach(lc, input_rel->baserestrictinfo)
		if (contain_subplans((Node *) ((RestrictInfo *) lfirst(lc))->clause))
			return;
	target = output_rel->reltarget;
	foreach(lc, target->exprs)
	{
		Expr	   *expr = lfirst(lc);
		Index		sgref = get_pathtarget_sortgroupref(target, i);
		SortGroupClause *sgc = sgref ? get_sortgroupref_clause_noerr(sgref, parse->groupClause) : NULL;

		i++;
		if (sgc != NULL)
		{
			TargetEntry *tle;

			if (!sgc->hashable || !of_rel_only(root, (Node *) expr, input_rel))
				return;
			tle = makeTargetEntry(copyObject(expr), list_length(tlist) + 1, NULL, false);
			tle->ressortgroupref = sgref;
			tlist = lappend(tlist, tle);
			groupexprs = lappend(groupexprs, expr);
		}
		else
		{
			List	   *vars = pull_var_clause((Node *) expr, PVC_INCLUDE_AGGREGATES);
			ListCell   *lv;

			foreach(lv, vars)
			{
				Aggref	   *a = lfirst(lv);

				if (!IsA(a, Aggref) || agg_kind(a) == 0)
					return;
				if (a->args != NIL &&
					!of_rel_only(root, (Node *) ((TargetEntry *) linitial(a->args))->expr,
								 input_rel))
					return;
				if (!tlist_member((Expr *) a, tlist))
				{
					tlist = lappend(tlist, makeTargetEntry(copyObject((Expr *) a),
														   list_length(tlist) + 1,
														   NULL, false));
					naggs++;
				}
			}
		}
	}
	if (naggs == 0 && groupexprs == NIL)
		return;

	/*
	 * costs: the scan, less its tuples, plus the folding; partial (a share
	 * of the groups of each participant of a parallel scan, under Gather
	 * and a Finalize Aggregate): the parallel scan's
	 */
	in = partial ? (input_rel->partial_pathlist ? linitial(input_rel->partial_pathlist) : NULL) :
		input_rel->cheapest_total_path;
	if (in == NULL || in->param_info != NULL)
		return;
	ngroups = groupexprs == NIL ? 1 :
		estimate_num_groups(root, groupexprs, input_rel->rows, NULL, NULL);
	if (ngroups > WIDE_ROWS_AGG_MAX_GROUPS)
		return;
	startup = in->total_cost - in->rows * cpu_tuple_cost * 0.5 +
		in->rows * cpu_operator_cost * (list_length(groupexprs) + naggs) * 0.5;
	total = startup + ngroups * cpu_tuple_cost;
	path = create_foreign_upper_path(root, output_rel, target, ngroups, startup, total,
									 NIL, NULL,
									 list_make2(tlist, makeInteger(input_rel->relid)));
	if (partial)
	{
		path->path.parallel_aware = true;
		path->path.parallel_safe = true;
		path->path.parallel_workers = in->parallel_workers;
		add_partial_path(output_rel, (Path *) path);
	}
	else
		add_path(output_rel, (Path *) path);
}

/* the wide_rows table of a grouping scan */
Oid
WideRowsAggRelid(ForeignScan *plan)
{
	return (Oid) intVal(list_nth(plan->fdw_private, 4));
}

/*
 * WideRowsAggPlan -- the plan of a grouping path: a Foreign Scan of no
 * relation whose tuples are fdw_scan_tlist (group columns, aggregates).
 * fdw_private: the base scan's four items (WideRowsPlanPrivate), the
 * table, the key conditions' values, the conditions, the grouping
 * expressions and their equality operators, the aggregates' kinds and
 * arguments, and which tlist entry is which.
 */
ForeignScan *
WideRowsAggPlan(PlannerInfo *root, RelOptInfo *rel, ForeignPath *best_path,
				List *tlist, Plan *outer_plan)
{
	List	   *scan_tlist = linitial(best_path->fdw_private);
	int			relid = intVal(lsecond(best_path->fdw_private));
	RelOptInfo *baserel = root->simple_rel_array[relid];
	Oid			ftoid = root->simple_rte_array[relid]->relid;
	List	   *values;
	List	   *priv = WideRowsPlanPrivate(baserel, false, &values,
										   baserel->baserestrictinfo, root);
	/* every condition, pseudo-constant ones too (no gating Result here) */
	List	   *quals = list_concat(extract_actual_clauses(baserel->baserestrictinfo, false),
									extract_actual_clauses(baserel->baserestrictinfo, true));
	List	   *groups = NIL,
			   *eqops = NIL,
			   *kinds = NIL,
			   *partials = NIL,
			   *args = NIL,
			   *colmap = NIL;
	ListCell   *lc;

	foreach(lc, scan_tlist)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->ressortgroupref)
		{
			SortGroupClause *sgc = get_sortgroupref_clause(tle->ressortgroupref,
														   root->parse->groupClause);

			colmap = lappend_int(colmap, list_length(groups));
			groups = lappend(groups, copyObject(tle->expr));
			eqops = lappend_oid(eqops, sgc->eqop);
		}
		else
		{
			Aggref	   *a = (Aggref *) tle->expr;

			colmap = lappend_int(colmap, -1 - list_length(kinds));
			kinds = lappend_int(kinds, agg_kind(a));
			partials = lappend_int(partials, a->aggsplit == AGGSPLIT_INITIAL_SERIAL);
			args = lappend(args, a->args ? copyObject(((TargetEntry *) linitial(a->args))->expr) :
						   (Expr *) makeBoolConst(true, false));
		}
	}
	quals = copyObject(quals);
	values = copyObject(values);
	fix_opfuncids((Node *) quals);
	fix_opfuncids((Node *) groups);
	fix_opfuncids((Node *) args);
	fix_opfuncids((Node *) values);
	priv = lappend(priv, makeInteger((int) ftoid));
	priv = lappend(priv, values);
	priv = lappend(priv, quals);
	priv = lappend(priv, groups);
	priv = lappend(priv, eqops);
	priv = lappend(priv, kinds);
	priv = lappend(priv, args);
	priv = lappend(priv, colmap);
	priv = lappend(priv, partials);
	if (list_length(best_path->fdw_private) == 5)
	{
		/* top groups: n, the time column, its upper bound and the group expression */
		List	   *te = copyObject(list_nth(best_path->fdw_private, 4));

		fix_opfuncids((Node *) te);
		priv = lappend(priv, list_nth(best_path->fdw_private, 2));
		priv = lappend(priv, list_nth(best_path->fdw_private, 3));
		priv = lappend(priv, te);
	}
	return make_foreignscan(tlist, NIL, 0, NIL, priv, scan_tlist, NIL, outer_plan);
}

/* ----------------------------------------------------------------
 *	Execution
 * ----------------------------------------------------------------
 */

typedef struct RowsAcc
{
	int64		n;				/* rows counted / N */
	double		sx;				/* sum, Sx */
	double		sxx;			/* avg: Sxx */
	Datum		v;				/* min, max */
	bool		has;			/* a value was seen */
} RowsAcc;

/*
 * A grouping expression date_trunc('unit', x) with a unit of one fixed
 * length (microseconds to day) over timestamp, or over timestamptz while the
 * session's time zone has one UTC offset (no daylight saving, no history):
 * its result r is the same for every x in [r, r + unit), so it is computed
 * once per bucket -- a host's readings of an hour come one after the other
 * -- and x alone is evaluated per row.  The result is always date_trunc's
 * own (computed by it on a miss); the memo only says when to reuse it.
 */
typedef struct RowsBucketMemo
{
	ExprState  *arg;			/* x */
	int64		unit;			/* the unit's length, microseconds */
	bool		tz;				/* over timestamptz */
	pg_tz	   *zone;			/* (tz) the zone lo and hi were found in */
	bool		valid;			/* lo, hi and result hold a bucket */
	Timestamp	lo;
	Timestamp	hi;
	Datum		result;
} RowsBucketMemo;

typedef struct RowsAggState
{
	RowsScan   *scan;
	Relation	rel;			/* the row form */
	TupleTableSlot *baseslot;	/* a row of it */
	ExprContext *econtext;		/* evaluates over baseslot */
	ExprState  *qual;
	int			ngroups;
	ExprState **groupstates;
	RowsBucketMemo **memos;		/* by group: date_trunc's memo, or NULL */
	uint64		nbuckets;		/* date_trunc computed for a memo (EXPLAIN) */
	int			naggs;
	int		   *kinds;
	bool	   *partial;		/* a partial aggregate: its state, not its result */
	ExprState **argstates;
	Oid		   *argtypes;		/* (looked up once, not per row) */
	int		   *colmap;
	TupleDesc	groupdesc;
	TupleTableSlot *groupslot;
	TupleTableSlot *outslot;	/* a group found in the table */
	TupleHashTable ht;
	MemoryContext tablecxt;
	MemoryContext tempcxt;
	RowsAcc    *single;			/* no GROUP BY: the one group */
	/*
	 * The group of the row before: rows come in storage order, so runs of
	 * rows fall in one group (a host's hour); one with the same grouping
	 * values, bit for bit, is that group without a lookup.  Only for
	 * groupings of by-value types.
	 */
	bool		cacheable;
	Datum	   *lastvals;
	bool	   *lastnulls;
	RowsAcc    *lastacc;
	bool		folded;
	bool		emitted;
	TupleHashIterator iter;
	uint64		nrows;
	uint64		ngroupsout;

	/* top groups (add_top_groups): the n latest, in order */
	int			top;
	AttrNumber	topatt;			/* the time column */
	int			toppart;		/* ... its key part */
	ExprState  *upper;			/* the time's upper bound */
	ExprState  *topgroup;		/* the group expression, over baseslot */
	FmgrInfo	gt;				/* '>' of the group expression's type */
	Oid			gtcoll;
	TupleHashEntry *sorted;		/* the groups to return, in order */
	int			nsorted;
	int			nextsorted;
	int			windows;		/* folds done (EXPLAIN) */
} RowsAggState;

/* a memo for grouping expression g if it is such a date_trunc, or NULL */
static RowsBucketMemo *
bucket_memo(Expr *g, PlanState *ps)
{
	FuncExpr   *f = (FuncExpr *) g;
	Const	   *c;
	text	   *units;
	char	   *low;
	int			val;
	int64		unit;
	RowsBucketMemo *m;

	if (!IsA(g, FuncExpr) || list_length(f->args) != 2 ||
		(f->funcid != F_DATE_TRUNC_TEXT_TIMESTAMPTZ &&
		 f->funcid != F_DATE_TRUNC_TEXT_TIMESTAMP) ||
		!IsA(linitial(f->args), Const))
		return NULL;
	c = linitial(f->args);
	if (c->constisnull)
		return NULL;
	/* (as timestamp_trunc reads its unit) */
	units = DatumGetTextPP(c->constvalue);
	low = downcase_truncate_identifier(VARDATA_ANY(units), VARSIZE_ANY_EXHDR(units), false);
	if (DecodeUnits(0, low, &val) != UNITS)
		return NULL;
	switch (val)
	{
		case DTK_DAY:
			unit = USECS_PER_DAY;
			break;
		case DTK_HOUR:
			unit = USECS_PER_HOUR;
			break;
		case DTK_MINUTE:
			unit = USECS_PER_MINUTE;
			break;
		case DTK_SECOND:
			unit = USECS_PER_SEC;
			break;
		case DTK_MILLISEC:
			unit = 1000;
			break;
		case DTK_MICROSEC:
			unit = 1;
			break;
		default:
			return NULL;		/* (weeks, months ... are not of one length) */
	}
	m = palloc0(sizeof(RowsBucketMemo));
	m->arg = ExecInitExpr(lsecond(f->args), ps);
	m->unit = unit;
	m->tz = (f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ);
	return m;
}

/*
 * bucket_value -- grouping expression i of the current row, through its
 * date_trunc memo: the bucket before if x lies in it, else date_trunc's
 * result, kept as the bucket when the bucket is [result, result + unit).
 */
static Datum
bucket_value(RowsAggState *as, int i, ExprContext *ec, bool *isnull)
{
	RowsBucketMemo *m = as->memos[i];
	Datum		x = ExecEvalExpr(m->arg, ec, isnull);
	Timestamp	t,
				r;
	long		off;

	if (*isnull)
		return (Datum) 0;
	t = DatumGetTimestamp(x);
	if (m->valid && t >= m->lo && t < m->hi && (!m->tz || session_timezone == m->zone))
		return m->result;
	m->valid = false;
	as->nbuckets++;
	x = ExecEvalExpr(as->groupstates[i], ec, isnull);
	if (*isnull || TIMESTAMP_NOT_FINITE(t))
		return x;
	r = DatumGetTimestamp(x);
	if (m->tz && !pg_get_timezone_offset(session_timezone, &off))
		return x;				/* (a zone of several offsets: every row) */
	if (r <= t && !pg_add_s64_overflow(r, m->unit, &m->hi) && t < m->hi)
	{
		m->lo = r;
		m->result = x;
		m->zone = session_timezone;
		m->valid = true;
	}
	return x;
}

static void
acc_add(const RowsAggState *as, RowsAcc *acc, Datum *vals, bool *nulls)
{
	for (int j = 0; j < as->naggs; j++)
	{
		RowsAcc    *a = &acc[j];
		Datum		d = vals[j];

		if (as->kinds[j] == AGG_COUNT_STAR)
		{
			a->n++;
			continue;
		}
		if (nulls[j])
			continue;
		switch (as->kinds[j])
		{
			case AGG_COUNT:
				a->n++;
				break;
			case AGG_SUM_F8:
				/* float8pl */
				a->sx = a->has ? float8_pl(a->sx, DatumGetFloat8(d)) : DatumGetFloat8(d);
				a->has = true;
				break;
			case AGG_AVG_F8:
				{
					/* float8_accum */
					double		newval = DatumGetFloat8(d);
					double		N = (double) a->n;
					double		Sx = a->sx;
					double		Sxx = a->sxx;
					double		tmp;

					N += 1.0;
					Sx += newval;
					if (a->n > 0)
					{
						tmp = newval * N - Sx;
						Sxx += tmp * tmp / (N * (double) a->n);
						if (isinf(Sx) || isinf(Sxx))
						{
							if (!isinf(a->sx) && !isinf(newval))
								float_overflow_error();
							Sxx = get_float8_nan();
						}
					}
					else if (isnan(newval) || isinf(newval))
						Sxx = get_float8_nan();
					a->n++;
					a->sx = Sx;
					a->sxx = Sxx;
					break;
				}
			case AGG_MAX_F8:
				/* float8larger(state, new) */
				if (!a->has || !float8_gt(DatumGetFloat8(a->v), DatumGetFloat8(d)))
					a->v = d;
				a->has = true;
				break;
			case AGG_MIN_F8:
				/* float8smaller(state, new) */
				if (!a->has || !float8_lt(DatumGetFloat8(a->v), DatumGetFloat8(d)))
					a->v = d;
				a->has = true;
				break;
			case AGG_MAX_INT:
				if (!a->has || DatumGetInt64(d) > DatumGetInt64(a->v))
					a->v = d;
				a->has = true;
				break;
			case AGG_MIN_INT:
				if (!a->has || DatumGetInt64(d) < DatumGetInt64(a->v))
					a->v = d;
				a->has = true;
				break;
		}
	}
}

/* an integer aggregate's argument as int64 (int2, int4 widen) */
static Datum
int_arg(Oid type, Datum d)
{
	switch (type)
	{
		case INT2OID:
			return Int64GetDatum((int64) DatumGetInt16(d));
		case INT4OID:
			return Int64GetDatum((int64) DatumGetInt32(d));
		default:
			return d;			/* int8, timestamp(tz) */
	}
}

static Datum
int_result(Oid type, Datum d)
{
	switch (type)
	{
		case INT2OID:
			return Int16GetDatum((int16) DatumGetInt64(d));
		case INT4OID:
			return Int32GetDatum((int32) DatumGetInt64(d));
		default:
			return d;
	}
}

void
WideRowsAggBegin(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	List	   *priv = plan->fdw_private;
	RowsAggState *as = palloc0(sizeof(RowsAggState));
	EState	   *estate = node->ss.ps.state;
	Oid			ftoid = WideRowsAggRelid(plan);
	List	   *values = list_nth(priv, 5);
	List	   *quals = list_nth(priv, 6);
	List	   *groups = list_nth(priv, 7);
	List	   *eqops = list_nth(priv, 8);
	List	   *kinds = list_nth(priv, 9);
	List	   *args = list_nth(priv, 10);
	List	   *colmap = list_nth(priv, 11);
	List	   *partials = list_nth(priv, 12);
	List	   *top = list_length(priv) > 13 ? list_nth(priv, 15) : NIL;
	ListCell   *lc;
	int			i;

	as->rel = table_open(ftoid, AccessShareLock);
	as->scan = WideRowsScanOpen(WideRowShapeGet(ftoid), estate->es_snapshot,
								list_make4(linitial(priv), lsecond(priv),
										   lthird(priv), lfourth(priv)),
								ExecInitExprList(values, (PlanState *) node));
	WideRowsScanSetFilter(as->scan, quals);
	as->baseslot = MakeSingleTupleTableSlot(RelationGetDescr(as->rel), &TTSOpsVirtual);
	as->econtext = CreateExprContext(estate);
	as->qual = ExecInitQual(quals, (PlanState *) node);
	as->ngroups = list_length(groups);
	as->groupstates = palloc(sizeof(ExprState *) * Max(as->ngroups, 1));
	as->memos = palloc0(sizeof(RowsBucketMemo *) * Max(as->ngroups, 1));
	i = 0;
	foreach(lc, groups)
	{
		as->memos[i] = bucket_memo(lfirst(lc), (PlanState *) node);
		as->groupstates[i++] = ExecInitExpr(lfirst(lc), (PlanState *) node);
	}
	as->naggs = list_length(kinds);
	as->kinds = palloc(sizeof(int) * Max(as->naggs, 1));
	as->argstates = palloc(sizeof(ExprState *) * Max(as->naggs, 1));
	as->argtypes = palloc(sizeof(Oid) * Max(as->naggs, 1));
	as->partial = palloc(sizeof(bool) * Max(as->naggs, 1));
	i = 0;
	foreach(lc, kinds)
	{
		as->kinds[i] = lfirst_int(lc);
		as->partial[i] = list_nth_int(partials, i);
		as->argstates[i] = ExecInitExpr(list_nth(args, i), (PlanState *) node);
		as->argtypes[i] = exprType(list_nth(args, i));
		i++;
	}
	as->colmap = palloc(sizeof(int) * list_length(colmap));
	i = 0;
	foreach(lc, colmap)
		as->colmap[i++] = lfirst_int(lc);

	as->tablecxt = AllocSetContextCreate(estate->es_query_cxt, "wide rows groups",
										 ALLOCSET_DEFAULT_SIZES);
	as->tempcxt = AllocSetContextCreate(estate->es_query_cxt, "wide rows group hash",
										ALLOCSET_DEFAULT_SIZES);
	if (as->ngroups > 0)
	{
		AttrNumber *keycols = palloc(sizeof(AttrNumber) * as->ngroups);
		Oid		   *ops = palloc(sizeof(Oid) * as->ngroups);
		Oid		   *colls = palloc(sizeof(Oid) * as->ngroups);
		Oid		   *eqfuncs;
		FmgrInfo   *hashfns;

		as->groupdesc = CreateTemplateTupleDesc(as->ngroups);
		i = 0;
		foreach(lc, groups)
		{
			Node	   *g = lfirst(lc);

			TupleDescInitEntry(as->groupdesc, i + 1, NULL, exprType(g), exprTypmod(g), 0);
			TupleDescInitEntryCollation(as->groupdesc, i + 1, exprCollation(g));
			keycols[i] = i + 1;
			ops[i] = list_nth_oid(eqops, i);
			colls[i] = exprCollation(g);
			i++;
		}
		execTuplesHashPrepare(as->ngroups, ops, &eqfuncs, &hashfns);
		as->cacheable = true;
		for (i = 0; i < as->ngroups; i++)
			if (!TupleDescAttr(as->groupdesc, i)->attbyval)
				as->cacheable = false;
		as->lastvals = palloc(sizeof(Datum) * as->ngroups);
		as->lastnulls = palloc(sizeof(bool) * as->ngroups);
		as->groupslot = MakeSingleTupleTableSlot(as->groupdesc, &TTSOpsVirtual);
		as->outslot = MakeSingleTupleTableSlot(as->groupdesc, &TTSOpsMinimalTuple);
		as->ht = BuildTupleHashTableExt(&node->ss.ps, as->groupdesc, as->ngroups,
										keycols, eqfuncs, hashfns, colls, 1024,
										sizeof(RowsAcc) * as->naggs,
										estate->es_query_cxt, as->tablecxt,
										as->tempcxt, false);
	}
	if (top != NIL)
	{
		Expr	   *gexpr = lsecond(top);

		as->top = intVal(list_nth(priv, 13));
		as->topatt = intVal(list_nth(priv, 14));
		as->toppart = WideRowShapeGet(ftoid)->cols[as->topatt - 1].part;
		as->upper = ExecInitExpr(linitial(top), (PlanState *) node);
		as->topgroup = ExecInitExpr(gexpr, (PlanState *) node);
		fmgr_info(get_opcode(get_opfamily_member(btree_family(exprType((Node *) gexpr)),
												 exprType((Node *) gexpr), exprType((Node *) gexpr),
												 BTGreaterStrategyNumber)),
				  &as->gt);
		as->gtcoll = exprCollation((Node *) gexpr);
	}
	node->fdw_state = as;
}

/* fold every row of the scan into the groups */
static void
fold(ForeignScanState *node, RowsAggState *as)
{
	ExprContext *ec = as->econtext;
	TupleTableSlot *bs = as->baseslot;
	Datum	   *vals = palloc(sizeof(Datum) * Max(as->naggs, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(as->naggs, 1));

	if (as->ngroups == 0)
		as->single = MemoryContextAllocZero(as->tablecxt, sizeof(RowsAcc) * Max(as->naggs, 1));
	as->lastacc = NULL;			/* (the groups may be new: fold_top) */
	for (;;)
	{
		RowsAcc    *acc;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(ec);
		ExecClearTuple(bs);
		if (!WideRowsScanNext(as->scan, node->ss.ps.ps_ExprContext,
							  bs->tts_values, bs->tts_isnull))
			break;
		ExecStoreVirtualTuple(bs);
		ec->ecxt_scantuple = bs;
		if (as->qual && !ExecQual(as->qual, ec))
			continue;
		as->nrows++;
		if (as->ngroups > 0)
		{
			TupleTableSlot *gs = as->groupslot;
			TupleHashEntry e;
			bool		isnew;
			bool		same = (as->lastacc != NULL);

			ExecClearTuple(gs);
			for (int i = 0; i < as->ngroups; i++)
			{
				gs->tts_values[i] = as->memos[i] ?
					bucket_value(as, i, ec, &gs->tts_isnull[i]) :
					ExecEvalExpr(as->groupstates[i], ec, &gs->tts_isnull[i]);
				if (same && (gs->tts_isnull[i] != as->lastnulls[i] ||
							 (!gs->tts_isnull[i] && gs->tts_values[i] != as->lastvals[i])))
					same = false;
			}
			if (same)
				acc = as->lastacc;
			else
			{
				ExecStoreVirtualTuple(gs);
				e = LookupTupleHashEntry(as->ht, gs, &isnew, NULL);
				if (isnew)
				{
					e->additional = MemoryContextAllocZero(as->tablecxt,
														   sizeof(RowsAcc) * Max(as->naggs, 1));
					as->ngroupsout++;
				}
				acc = e->additional;
				if (as->cacheable)
				{
					memcpy(as->lastvals, gs->tts_values, sizeof(Datum) * as->ngroups);
					memcpy(as->lastnulls, gs->tts_isnull, sizeof(bool) * as->ngroups);
					as->lastacc = acc;
				}
			}
		}
		else
			acc = as->single;
		for (int j = 0; j < as->naggs; j++)
		{
			if (as->kinds[j] == AGG_COUNT_STAR)
				continue;
			vals[j] = ExecEvalExpr(as->argstates[j], ec, &nulls[j]);
			if (!nulls[j] && (as->kinds[j] == AGG_MAX_INT || as->kinds[j] == AGG_MIN_INT))
				vals[j] = int_arg(as->argtypes[j], vals[j]);
		}
		acc_add(as, acc, vals, nulls);
	}
	if (as->ngroups > 0)
		InitTupleHashIterator(as->ht, &as->iter);
	as->folded = true;
}

/* a group's value, in the groups' descending order (qsort_arg) */
typedef struct TopGroup
{
	Datum		value;
	TupleHashEntry entry;
} TopGroup;

static int
cmp_top(const void *a, const void *b, void *arg)
{
	RowsAggState *as = arg;
	Datum		x = ((const TopGroup *) a)->value;
	Datum		y = ((const TopGroup *) b)->value;

	if (DatumGetBool(FunctionCall2Coll(&as->gt, as->gtcoll, x, y)))
		return -1;
	if (DatumGetBool(FunctionCall2Coll(&as->gt, as->gtcoll, y, x)))
		return 1;
	return 0;
}

/*
 * fold_top -- the top groups (add_top_groups): fold the rows of windows
 * [X - w, X) of the time, widening w, until at least as->top groups are
 * whole, then keep those, largest first.
 */
static void
fold_top(ForeignScanState *node, RowsAggState *as)
{
	bool		isnull;
	Datum		x = ExecEvalExpr(as->upper, node->ss.ps.ps_ExprContext, &isnull);
	Oid			xtype = exprType((Node *) as->upper->expr);
	int64		w = USECS_PER_HOUR;
	TupleTableSlot *bs = as->baseslot;

	for (int k = 0;; k++)
	{
		bool		last = isnull || k == 4 ||
			(xtype != TIMESTAMPTZOID && xtype != TIMESTAMPOID) ||
			TIMESTAMP_NOT_FINITE(DatumGetTimestamp(x)) ||
			DatumGetTimestamp(x) - w <= MIN_TIMESTAMP + 1;
		Timestamp	floor = last ? 0 : DatumGetTimestamp(x) - w;
		Datum		before = 0;
		TupleHashEntry e;
		TopGroup   *groups;
		int			n = 0;

		WideRowsScanSetFloor(as->scan, as->toppart, !last, TimestampGetDatum(floor), xtype);
		WideRowsScanRestart(as->scan);
		ResetTupleHashTable(as->ht);
		MemoryContextReset(as->tablecxt);
		as->nrows = 0;
		as->ngroupsout = 0;
		fold(node, as);
		as->windows++;

		/* f(floor - 1 us): the largest group of an earlier row */
		if (!last)
		{
			bool		bnull;

			ExecClearTuple(bs);
			for (int i = 0; i < bs->tts_tupleDescriptor->natts; i++)
				bs->tts_isnull[i] = true;
			bs->tts_values[as->topatt - 1] = TimestampGetDatum(floor - 1);
			bs->tts_isnull[as->topatt - 1] = false;
			ExecStoreVirtualTuple(bs);
			ResetExprContext(as->econtext);
			as->econtext->ecxt_scantuple = bs;
			before = ExecEvalExpr(as->topgroup, as->econtext, &bnull);
			if (bnull)
				last = true;
		}
		groups = MemoryContextAlloc(as->tablecxt, sizeof(TopGroup) * Max(as->ngroupsout, 1));
		while ((e = ScanTupleHashTable(as->ht, &as->iter)) != NULL)
		{
			bool		gnull;
			Datum		g;

			ExecStoreMinimalTuple(e->firstTuple, as->outslot, false);
			g = slot_getattr(as->outslot, 1, &gnull);
			if (!gnull &&
				(last || DatumGetBool(FunctionCall2Coll(&as->gt, as->gtcoll, g, before))))
			{
				groups[n].value = g;
				groups[n].entry = e;
				n++;
			}
		}
		if (n >= as->top || last)
		{
			qsort_arg(groups, n, sizeof(TopGroup), cmp_top, as);
			as->sorted = MemoryContextAlloc(as->tablecxt, sizeof(TupleHashEntry) * Max(n, 1));
			as->nsorted = Min(n, as->top);
			for (int i = 0; i < as->nsorted; i++)
				as->sorted[i] = groups[i].entry;
			as->nextsorted = 0;
			return;
		}
		w *= 4;
	}
}

TupleTableSlot *
WideRowsAggNext(ForeignScanState *node)
{
	RowsAggState *as = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	RowsAcc    *acc;
	int			natts = slot->tts_tupleDescriptor->natts;

	if (!as->folded)
	{
		if (as->top > 0)
			fold_top(node, as);
		else
			fold(node, as);
	}
	ExecClearTuple(slot);
	if (as->ngroups > 0)
	{
		TupleHashEntry e;

		if (as->top > 0)
			e = as->nextsorted < as->nsorted ? as->sorted[as->nextsorted++] : NULL;
		else
			e = ScanTupleHashTable(as->ht, &as->iter);

		if (e == NULL)
			return slot;
		ExecStoreMinimalTuple(e->firstTuple, as->outslot, false);
		slot_getallattrs(as->outslot);
		acc = e->additional;
	}
	else
	{
		if (as->emitted)
			return slot;
		as->emitted = true;
		acc = as->single;
	}
	for (int i = 0; i < natts; i++)
	{
		int			m = as->colmap[i];

		slot->tts_isnull[i] = false;
		if (m >= 0)
		{
			slot->tts_values[i] = as->outslot->tts_values[m];
			slot->tts_isnull[i] = as->outslot->tts_isnull[m];
		}
		else
		{
			int			j = -1 - m;
			RowsAcc    *a = &acc[j];

			switch (as->kinds[j])
			{
				case AGG_COUNT_STAR:
				case AGG_COUNT:
					slot->tts_values[i] = Int64GetDatum(a->n);
					break;
				case AGG_SUM_F8:
					slot->tts_values[i] = Float8GetDatum(a->sx);
					slot->tts_isnull[i] = !a->has;
					break;
				case AGG_AVG_F8:
					if (as->partial[j])
					{
						/* float8_accum's state: {N, Sx, Sxx} */
						Datum		st[3];

						st[0] = Float8GetDatum((double) a->n);
						st[1] = Float8GetDatum(a->sx);
						st[2] = Float8GetDatum(a->sxx);
						slot->tts_values[i] =
							PointerGetDatum(construct_array(st, 3, FLOAT8OID, sizeof(float8),
															FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
						break;
					}
					/* float8_avg */
					slot->tts_values[i] = Float8GetDatum(a->sx / (double) a->n);
					slot->tts_isnull[i] = (a->n == 0);
					break;
				case AGG_MAX_INT:
				case AGG_MIN_INT:
					slot->tts_values[i] = int_result(as->argtypes[j], a->v);
					slot->tts_isnull[i] = !a->has;
					break;
				default:
					slot->tts_values[i] = a->v;
					slot->tts_isnull[i] = !a->has;
					break;
			}
		}
	}
	ExecStoreVirtualTuple(slot);
	return slot;
}

void
WideRowsAggRescan(ForeignScanState *node)
{
	RowsAggState *as = node->fdw_state;

	WideRowsScanRestart(as->scan);
	if (as->ht)
		ResetTupleHashTable(as->ht);
	MemoryContextReset(as->tablecxt);
	as->single = NULL;
	as->lastacc = NULL;
	as->sorted = NULL;
	as->nsorted = 0;
	as->nextsorted = 0;
	as->windows = 0;
	as->folded = false;
	as->emitted = false;
	as->nrows = 0;
	as->ngroupsout = 0;
}

void
WideRowsAggEnd(ForeignScanState *node)
{
	RowsAggState *as = node->fdw_state;

	WideRowsScanClose(as->scan);
	ExecDropSingleTupleTableSlot(as->baseslot);
	if (as->groupslot)
	{
		ExecDropSingleTupleTableSlot(as->groupslot);
		ExecDropSingleTupleTableSlot(as->outslot);
	}
	table_close(as->rel, NoLock);
}

RowsScan *
WideRowsAggScan(ForeignScanState *node)
{
	RowsAggState *as = node->fdw_state;

	return as ? as->scan : NULL;
}

void
WideRowsAggExplain(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	RowsAggState *as = node->fdw_state;

	ExplainPropertyInteger("Grouped By", NULL, list_length(list_nth(plan->fdw_private, 7)), es);
	ExplainPropertyInteger("Aggregates", NULL, list_length(list_nth(plan->fdw_private, 9)), es);
	if (list_length(plan->fdw_private) > 13)
		ExplainPropertyInteger("Top Groups", NULL, intVal(list_nth(plan->fdw_private, 13)), es);
	if (es->analyze && as != NULL && !plan->scan.plan.parallel_aware)
	{
		ExplainPropertyInteger("Rows Folded", NULL, (int64) as->nrows, es);
		ExplainPropertyInteger("Groups", NULL, (int64) as->ngroupsout, es);
		for (int i = 0; i < as->ngroups; i++)
			if (as->memos[i] != NULL)
			{
				/* date_trunc once per bucket, not per row */
				ExplainPropertyInteger("Buckets Computed", NULL, (int64) as->nbuckets, es);
				break;
			}
		if (as->top > 0)
			ExplainPropertyInteger("Windows", NULL, (int64) as->windows, es);
	}
}
