/*-------------------------------------------------------------------------
 *
 * customscan.c
 *	  "Wide Scan": key-range reads of wide tables, chosen by the planner;
 *	  this file makes its paths and plans (the conditions it enforces:
 *	  scan_match.c; its executor: scan_exec.c, scan_range.c; EXPLAIN:
 *	  scan_explain.c).
 *
 * For every scan of a wide table the planner gets a custom path that
 *	- turns conditions on row_key into a key range the engine seeks to:
 *	  row_key = x, <, <=, >, >=, BETWEEN, row_key = ANY(array) (one point
 *	  read per key), and row_key LIKE 'prefix%' (a prefix range); constants
 *	  and parameters (prepared statements, nested-loop inner sides) both
 *	  work, evaluated when the scan starts;
 *	- reads an OR of such conditions, and split_part(row_key, sep, 1) = x /
 *	  IN / = ANY, as a list of ranges, sorted and merged (match_or,
 *	  match_split; WideKeyRangesNormalize), a seek each;
 *	- declares its output sorted by (row_key, family, qualifier, ts desc),
 *	  so ORDER BY on them costs no sort; and offers the same scan backwards
 *	  (engine/reverse.c), sorted by (row_key desc, family desc, qualifier
 *	  desc, ts), so ORDER BY row_key DESC LIMIT n reads only the end of its
 *	  range;
 * Conditions the range enforces exactly (comparisons, IN lists, a constant
 * LIKE 'prefix%') are not checked again; the others are quals.  Text keys
 * compare bytewise only under the "C" collation, which wide text key
 * columns have; a condition under another collation is just a filter.
 * A bound must have the key's type, or be a name compared with a text key
 * (converted exactly); other types (bpchar, ...) are cast by the parser or
 * the condition stays a filter.  Bounds are evaluated in per-tuple memory;
 * what the scan keeps of them is copied into keycxt, reset on rescan.
 * wide.enable_customscan = off removes the path, for testing.
 *
 * IDENTIFICATION
 *	  src/am/customscan.c
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

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/* wide.enable_customscan: offer the planner the Wide Scan path */
static bool wide_enable_customscan = true;

static Plan *plan_wide_path(PlannerInfo *root, RelOptInfo *rel,
							CustomPath *best_path, List *tlist,
							List *clauses, List *custom_plans);

static const CustomPathMethods wide_path_methods = {
	.CustomName = "WideScan",
	.PlanCustomPath = plan_wide_path,
};

static const CustomScanMethods wide_scan_methods = {
	.CustomName = "WideScan",
	.CreateCustomScanState = WideScanCreateState,
};

/*
 * pathkeys: (row_key, family, qualifier) ascending, ts descending; or,
 * backward, the exact reverse
 */
static List *
wide_pathkeys(PlannerInfo *root, RelOptInfo *rel, Relation r, bool backward)
{
	TupleDesc	desc = RelationGetDescr(r);
	List	   *pathkeys = NIL;
	int			attno;

	for (attno = 1; attno <= 4; attno++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, attno - 1);
		Oid			opno;
		Var		   *var;
		List	   *pk;

		if (att->atttypid == TEXTOID && att->attcollation != C_COLLATION_OID)
			break;
		opno = WideScanSortOperator(att->atttypid, (attno == 4) != backward ?
							 BTGreaterStrategyNumber : BTLessStrategyNumber);
		if (!OidIsValid(opno))
			break;
		var = makeVar(rel->relid, attno, att->atttypid, att->atttypmod,
					  att->attcollation, 0);
		/*
		 * Only columns some equivalence class already holds, as
		 * build_index_pathkeys does: a column that no ORDER BY, GROUP BY,
		 * merge join or equality names sorts nothing this query wants, nor
		 * do the columns after it (and making classes for all four, both
		 * ways, was a tenth of the planning time of a short query).  A
		 * partition's pathkeys are those of the parent's equivalence
		 * classes, which hold the partition's columns as child members.
		 */
		pk = build_expression_pathkey(root, (Expr *) var, NULL, opno,
									  rel->relids, false);
		if (pk == NIL)
			break;
		/* a column equal to a constant sorts nothing (build_index_pathkeys) */
		if (EC_MUST_BE_REDUNDANT(((PathKey *) linitial(pk))->pk_eclass) ||
			list_member_ptr(pathkeys, linitial(pk)))
			continue;
		pathkeys = list_concat(pathkeys, pk);
	}
	return pathkeys;
}

/*
 * Add a Wide Scan path with the relation's conditions, and the join
 * clauses of required_outer if any (a parameterized path: the inner side of
 * a nested loop, its bounds read from each outer row).
 */
static void
add_wide_path(PlannerInfo *root, RelOptInfo *rel, Relation r, List *pathkeys,
			  Relids required_outer, bool for_join)
{
	ParamPathInfo *ppi = get_baserel_parampathinfo(root, rel, required_outer);
	List	   *clauses = rel->baserestrictinfo;
	List	   *exact_clauses = NIL;
	List	   *quals = NIL;
	List	   *tskinds = NIL;
	List	   *tsexprs = NIL;
	Oid			tstype = TupleDescAttr(RelationGetDescr(r), 3)->atttypid;
	CustomPath *cpath;
	CustomPath *rpath = NULL;
	CustomPath	serial;
	List	   *backkeys;
	WideMatch	m;
	ListCell   *lc;
	bool		joins = false;
	Selectivity sel = 1.0;

	memset(&m, 0, sizeof(m));
	m.relid = rel->relid;
	m.desc = RelationGetDescr(r);
	m.keytype = TupleDescAttr(m.desc, 0)->atttypid;
	if (ppi)
		clauses = list_concat_copy(clauses, ppi->ppi_clauses);
	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		bool		exact;
		int			nsels = list_length(m.sels);

		if (WideScanMatchClause(&m, ri->clause, &exact))
		{
			/*
			 * The clause itself estimates the range: give the planner its
			 * RestrictInfo, whose selectivity set_baserel_size_estimates
			 * has cached (a bare clause would be estimated again, reading
			 * and decompressing the column's histogram once more).
			 */
			for (int i = nsels; i < list_length(m.sels); i++)
				if (list_nth(m.sels, i) == (void *) ri->clause)
					list_nth_cell(m.sels, i)->ptr_value = ri;
			if (exact)
			{
				exact_clauses = lappend(exact_clauses, ri);
				continue;
			}
		}
		else if (WideTsMatchClause(ri->clause, rel->relid, tstype, &tskinds, &tsexprs))
		{
			exact_clauses = lappend(exact_clauses, ri); /* the reader enforces it */
			continue;
		}
		if (!ri->pseudoconstant)
			quals = lappend(quals, ri->clause);
	}
	/* a join's path is for point reads or ranges from the outer row */
	if (for_join)
	{
		foreach(lc, ppi->ppi_clauses)
		{
			WideMatch	probe = m;
			bool		exact;

			probe.kinds = probe.exprs = probe.sels = NIL;
			probe.has_range = false;
			if (WideScanMatchClause(&probe, lfirst_node(RestrictInfo, lc)->clause, &exact) &&
				probe.has_range)
				joins = true;
		}
		if (!joins)
			return;
	}
	if (m.sels)
		sel = clauselist_selectivity(root, m.sels, rel->relid, JOIN_INNER, NULL);

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = rel->reltarget;
	cpath->path.param_info = ppi;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = rel->consider_parallel;
	cpath->path.rows = ppi ? ppi->ppi_rows : rel->rows;
	/*
	 * Only the pathkeys that some merge join or the query's order can use,
	 * as build_index_paths keeps of an index's: a key of a column equal to
	 * a constant below an outer join (LEFT JOIN ... ON family = 'f') is not
	 * redundant, and a partition that needs a Sort under an ordered Append
	 * (a heap or remote tablet) cannot sort by it when the column is not in
	 * its output ("could not find pathkey item to sort",
	 * sql/tablet_pathkeys.sql).
	 */
	cpath->path.pathkeys = truncate_useless_pathkeys(root, rel, pathkeys);
	cpath->flags = 0;
	cpath->custom_private = list_make4(m.kinds, m.exprs, exact_clauses,
									   list_make2(tskinds, tsexprs));
	cpath->methods = &wide_path_methods;
	WideScanCost(root, rel, &cpath->path, m.has_range, sel, m.nseeks, quals);

	/*
	 * the same scan backwards, a little dearer: chosen for its order only
	 * (made before add_path, which frees a path it rejects)
	 */
	backkeys = pathkeys != NIL && !for_join ?
		truncate_useless_pathkeys(root, rel, wide_pathkeys(root, rel, r, true)) : NIL;
	if (backkeys != NIL)
	{
		rpath = makeNode(CustomPath);
		memcpy(rpath, cpath, sizeof(CustomPath));
		rpath->path.pathkeys = backkeys;
		rpath->path.total_cost = cpath->path.total_cost * 1.01 + 0.01;
		rpath->custom_private = lappend(list_copy(cpath->custom_private),
										makeInteger(1));
	}
	serial = *cpath;			/* (for the partial path below) */
	add_path(rel, &cpath->path);
	if (rpath != NULL)
		add_path(rel, &rpath->path);

	/*
	 * A large range may go parallel: not a join's or a lateral path, not
	 * point reads or a list of keys, not the case variants of an ILIKE
	 * prefix nor a list of ranges (read one range after the other, which
	 * the stretches of a parallel scan do not)
	 */
	if (ppi == NULL && !for_join &&
		!list_member_int(m.kinds, BOUND_IN) && !list_member_int(m.kinds, BOUND_EQ) &&
		!list_member_int(m.kinds, BOUND_IPREFIX_C) && !list_member_int(m.kinds, BOUND_ICASE) &&
		!list_member_int(m.kinds, BOUND_OR) && !list_member_int(m.kinds, BOUND_SPLIT) &&
		!list_member_int(m.kinds, BOUND_SPLIT_IN))
		WideAddPartialPath(root, rel, &serial, sel);
}

/* is em the relation's row_key?  (for generate_implied_equalities_for_column) */
static bool
ec_member_is_row_key(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
					 EquivalenceMember *em, void *arg)
{
	char		sep;

	return WideScanIsRowKey((Node *) em->em_expr, rel->relid) ||
		WideScanSplitPartSep((Node *) em->em_expr, rel->relid, &sep);
}

/*
 * Parameterized paths: for every set of other relations whose columns
 * bound row_key in a join clause (t.row_key = o.k, t.row_key >= o.lo, ...),
 * a path that a nested loop runs once per outer row, as a point read or a
 * range read.
 */
static void
add_join_paths(PlannerInfo *root, RelOptInfo *rel, Relation r, List *pathkeys)
{
	List	   *candidates;
	List	   *outers = NIL;
	ListCell   *lc;
	WideMatch	probe;

	candidates = generate_implied_equalities_for_column(root, rel,
														ec_member_is_row_key,
														NULL,
														rel->lateral_referencers);
	candidates = list_concat(candidates, rel->joininfo);
	memset(&probe, 0, sizeof(probe));
	probe.relid = rel->relid;
	probe.desc = RelationGetDescr(r);
	probe.keytype = TupleDescAttr(probe.desc, 0)->atttypid;
	foreach(lc, candidates)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		Relids		outer;
		bool		exact;
		ListCell   *lo;
		bool		seen = false;

		if (!join_clause_is_movable_to(ri, rel))
			continue;
		outer = bms_difference(ri->clause_relids, rel->relids);
		if (bms_is_empty(outer) || bms_overlap(outer, rel->lateral_referencers))
			continue;
		probe.kinds = probe.exprs = probe.sels = NIL;
		probe.has_range = false;
		if (!WideScanMatchClause(&probe, ri->clause, &exact) || !probe.has_range)
			continue;
		outer = bms_union(outer, rel->lateral_relids);
		foreach(lo, outers)
			if (bms_equal(lfirst(lo), outer))
				seen = true;
		if (!seen)
			outers = lappend(outers, outer);
	}
	foreach(lc, outers)
		add_wide_path(root, rel, r, pathkeys, (Relids) lfirst(lc), true);
}

static void
wide_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					  RangeTblEntry *rte)
{
	Relation	r;
	List	   *pathkeys;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (!wide_enable_customscan)
		return;
	if ((rel->reloptkind != RELOPT_BASEREL &&
		 rel->reloptkind != RELOPT_OTHER_MEMBER_REL) || rte->rtekind != RTE_RELATION ||
		rte->relkind != RELKIND_RELATION || rte->inh || rte->tablesample)
		return;
	r = relation_open(rte->relid, NoLock);
	if (r->rd_tableam != WideTableAmRoutine())
	{
		relation_close(r, NoLock);
		return;
	}
	pathkeys = wide_pathkeys(root, rel, r, false);
	add_wide_path(root, rel, r, pathkeys, rel->lateral_relids, false);
	add_join_paths(root, rel, r, pathkeys);
	relation_close(r, NoLock);
}

/*
 * May this scan be the whole of a DELETE, as one range tombstone
 * (am/rangedel.c)?  A DELETE of this relation (or of a partitioned table
 * or inheritance parent it belongs to) alone (no USING, no CTE, no
 * RETURNING), the scan not parameterized, every condition enforced by
 * key ranges (a range, an IN list of keys, an OR of them; no filter left,
 * no window of timestamps, no case-insensitive prefix), and a table
 * without row triggers or row-level security.  (Checked again when the
 * scan starts.)
 */
static bool
range_delete_plannable(PlannerInfo *root, RelOptInfo *rel, CustomPath *path,
					   List *kinds, List *tskinds, List *quals)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte;
	Relation	r;
	bool		ok;
	ListCell   *lc;

	if (parse->commandType != CMD_DELETE || parse->resultRelation == 0 ||
		parse->returningList != NIL || parse->cteList != NIL ||
		parse->hasModifyingCTE || root->parent_root != NULL ||
		bms_membership(root->all_baserels) != BMS_SINGLETON ||
		path->path.param_info != NULL || quals != NIL || tskinds != NIL)
		return false;
	if (parse->resultRelation != rel->relid)
	{
		RangeTblEntry *top = planner_rt_fetch(parse->resultRelation, root);

		/*
		 * A partition (or inheritance child) of the table deleted from: its
		 * scan deletes its part, if the parent has no row-level security
		 * (its policies, not the partition's, apply).
		 */
		if (rel->reloptkind != RELOPT_OTHER_MEMBER_REL ||
			!bms_is_member(parse->resultRelation, rel->top_parent_relids) ||
			top->rtekind != RTE_RELATION || top->securityQuals != NIL)
			return false;
		r = relation_open(top->relid, NoLock);
		ok = !r->rd_rel->relrowsecurity;
		relation_close(r, NoLock);
		if (!ok)
			return false;
	}
	foreach(lc, kinds)
	{
		int			kind = lfirst_int(lc);

		if (kind != BOUND_EQ && kind != BOUND_LT && kind != BOUND_LE &&
			kind != BOUND_GT && kind != BOUND_GE && kind != BOUND_PREFIX &&
			kind != BOUND_STARTS && kind != BOUND_IN && !IS_MARKER(kind))
			return false;
	}
	rte = planner_rt_fetch(rel->relid, root);
	r = relation_open(rte->relid, NoLock);
	ok = WideRangeDeleteAllowed(r);
	relation_close(r, NoLock);
	return ok;
}

static Plan *
plan_wide_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *kinds = linitial(best_path->custom_private);
	List	   *exprs = lsecond(best_path->custom_private);
	List	   *exact = lthird(best_path->custom_private);
	bool		backward = list_length(best_path->custom_private) > 4;
	List	   *ts = lfourth(best_path->custom_private);
	List	   *quals = NIL;
	ListCell   *lc;

	/* conditions the key range enforces exactly need no recheck */
	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (!list_member_ptr(exact, ri) && !ri->pseudoconstant)
			quals = lappend(quals, ri->clause);
	}
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = quals;
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	/* the window's bounds follow the key's */
	cscan->custom_exprs = list_concat(list_copy(exprs), lsecond(ts));
	cscan->custom_private = list_make4(kinds, linitial(ts),
									   makeInteger(backward ? 1 : 0),
									   makeInteger(range_delete_plannable(root, rel, best_path,
																		  kinds, linitial(ts),
																		  quals) ? 1 : 0));
	cscan->custom_scan_tlist = NIL;
	cscan->methods = &wide_scan_methods;
	return &cscan->scan.plan;
}

/*
 * WideScanPathExact -- is path a forward, unparameterized Wide Scan path
 * of rel whose key range, column sets and window of timestamps enforce
 * every condition on rel, so that the cells it reads are exactly the rows
 * the query sees?
 */
bool
WideScanPathExact(RelOptInfo *rel, Path *path)
{
	CustomPath *cpath = (CustomPath *) path;
	List	   *exact;
	ListCell   *lc;

	if (!IsA(path, CustomPath) || cpath->methods != &wide_path_methods ||
		list_length(cpath->custom_private) != 4 || path->param_info != NULL)
		return false;
	exact = lthird(cpath->custom_private);
	foreach(lc, rel->baserestrictinfo)
		if (!list_member_ptr(exact, lfirst(lc)))
			return false;
	return true;
}

/*
 * WideInstallPlanner -- add the path hook (from _PG_init).
 */
void
WideInstallPlanner(void)
{
	DefineCustomBoolVariable("wide.enable_customscan",
							 "Lets the planner read wide tables with Wide Scan (key ranges, sorted output).",
							 "Off, wide tables are read by plain sequential scans that check every condition on every cell; for testing and for comparing plans.",
							 &wide_enable_customscan, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	WideScanMatchDefineSettings();
	WideRangeDeleteDefineSettings();
	WideParallelDefineSettings();
	RegisterCustomScanMethods(&wide_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = wide_set_rel_pathlist;
}
