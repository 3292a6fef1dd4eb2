/*-------------------------------------------------------------------------
 *
 * rows_plan.c
 *	  Planning a scan of a row form: which conditions become row key
 *	  ranges, which columns the scan must read, paths (parameterized by
 *	  the key parts a join gives) and their costs.
 *
 * Key conditions.  A comparison of a key column with a value that does
 * not depend on the row -- a constant, a parameter, or a column of another
 * table of a join (a parameterized path: one seek per outer row) -- is a
 * key condition: = and = ANY(array) on any part, and <, <=, >, >= on
 * integer and time parts (text parts are escaped, so their order is not
 * the key's).  At execution (rows_scan.c) the values are evaluated and the
 * conditions become ranges, from the first part on: each = value of a part
 * multiplies the prefixes, a range of a part ends them.  Every condition
 * stays in the scan's filter as well: ranges decide what is read, the
 * filter what is returned.
 *
 * Columns.  The scan reads only the family's cells of the qualifiers the
 * query uses -- if a strict condition on one of them drops the rows
 * without it; otherwise every column's, since a row exists when it has any
 * cell (a row with only usage_system must still be counted by count(*)).
 *
 * Costs.  The Wide Scan's model (plan_cost.c): a seek per range, then the
 * ranges' share of the wide table's pages, the cells read (rows in the
 * ranges times the columns read) at the cost of merging a cell, and a
 * tuple per row.  Rows and distinct values come from ANALYZE of the foreign
 * table (rows_scan.c samples it, and reports the wide table's pages);
 * before ANALYZE, the wide table's cell count divided by the number of
 * columns, and its size.  Readings -- every key part equal -- are at most
 * a row each: their estimate is their number (readings()), with no
 * selectivity of each value of an IN list to compute.
 *
 * Order.  Rows come out in row key order: by the key parts, as long as
 * they are integers or times (reversed times descending), and, with a
 * timestamp column that is not in the key, newest first within a row.
 *
 * IDENTIFICATION
 *	  src/am/rows_plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "foreign/fdwapi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "am/am.h"
#include "am/plan_clause.h"
#include "am/plan_cost.h"
#include "am/rows.h"
#include "am/scan_parallel.h"


/* the opfamily of a key part's comparisons */
static Oid
part_opfamily(const WideRowPart *p)
{
	switch (p->kind)
	{
		case WIDE_PART_TEXT:
			return TEXT_BTREE_FAM_OID;
		case WIDE_PART_INT:
			return INTEGER_BTREE_FAM_OID;
		default:
			/* (the type cache's: GetDefaultOpClass scans pg_opclass) */
			return lookup_type_cache(p->type, TYPECACHE_BTREE_OPFAMILY)->btree_opf;
	}
}

/* may a value of this type be compared with the part as a key condition */
static bool
part_accepts(const WideRowPart *p, Oid type)
{
	switch (p->kind)
	{
		case WIDE_PART_TEXT:
			return type == TEXTOID || type == VARCHAROID || type == NAMEOID;
		case WIDE_PART_INT:
			return type == INT2OID || type == INT4OID || type == INT8OID;
		default:
			return type == p->type;
	}
}

static Node *
strip(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n;
}

/* the key part a node is a Var of, or -1 */
static int
key_part_of(const WideRowShape *s, RelOptInfo *rel, Node *n)
{
	Var		   *v = (Var *) strip(n);

	if (v == NULL || !IsA(v, Var) || (Index) v->varno != rel->relid ||
		v->varlevelsup != 0 || v->varattno <= 0 || v->varattno > s->natts)
		return -1;
	if (s->cols[v->varattno - 1].kind != WIDE_COL_KEY)
		return -1;
	return s->cols[v->varattno - 1].part;
}

/*
 * WideRowsKeyCondition -- whether a clause is a key condition, and of
 * which part, with what strategy, whether its value is an array, and its
 * value expression.
 */
/* WideComparisonSplit's test: a key column of the form */
typedef struct KeyColumnArg
{
	const WideRowShape *shape;
	RelOptInfo *rel;
} KeyColumnArg;

static bool
is_key_column(Node *expr, void *arg)
{
	KeyColumnArg *a = arg;

	return key_part_of(a->shape, a->rel, expr) >= 0;
}

bool
WideRowsKeyCondition(PlannerInfo *root, const WideRowShape *s, RelOptInfo *rel,
					 Expr *clause, int *part, int *strategy, bool *is_array,
					 Expr **value)
{
	KeyColumnArg carg = {s, rel};
	WideComparison c;
	Oid			opno;
	Node	   *left,
			   *right;
	int			p;
	int			strat;
	Oid			lefttype,
				righttype;

	if (!WideComparisonSplit(clause, is_key_column, &carg, &c))
		return false;
	left = c.column;
	right = c.value;
	opno = c.opno;
	*is_array = c.is_array;
	p = key_part_of(s, rel, left);
	if (p < 0)
		return false;
	if (contain_volatile_functions(right) ||
		bms_is_member(rel->relid, pull_varnos(root, right)))
		return false;
	if (!op_in_opfamily(opno, part_opfamily(&s->parts[p])))
		return false;			/* <>, LIKE, ...: not a key condition */
	get_op_opfamily_properties(opno, part_opfamily(&s->parts[p]), false,
							   &strat, &lefttype, &righttype);
	if (*is_array)
	{
		Oid			elt = get_element_type(exprType(right));

		if (strat != BTEqualStrategyNumber || !part_accepts(&s->parts[p], elt))
			return false;
	}
	else if (!part_accepts(&s->parts[p], exprType(right)))
		return false;
	if (s->parts[p].kind == WIDE_PART_TEXT)
	{
		Oid			coll = exprInputCollation((Node *) clause);

		if (strat != BTEqualStrategyNumber ||
			(OidIsValid(coll) && !get_collation_isdeterministic(coll)))
			return false;
	}
	*part = p;
	*strategy = strat;
	*value = (Expr *) right;
	return true;
}

/* the key condition a clause is, or NULL */
static WideRowsKey *
key_of(PlannerInfo *root, const WideRowShape *s, RelOptInfo *rel, RestrictInfo *ri)
{
	WideRowsKey k;
	WideRowsKey *out;

	if (ri->pseudoconstant ||
		!WideRowsKeyCondition(root, s, rel, ri->clause, &k.part, &k.strategy,
							  &k.is_array, &k.value))
		return NULL;
	k.ri = ri;
	out = palloc(sizeof(WideRowsKey));
	*out = k;
	return out;
}

/*
 * WideRowsFindKeys -- the key conditions (WideRowsKey) among rinfos, in
 * their order: those of the relation's own conditions as GetRelSize found
 * them (RowsPlanInfo.keys), the others (a join's) tested now.
 */
List *
WideRowsFindKeys(PlannerInfo *root, RelOptInfo *rel, List *rinfos)
{
	RowsPlanInfo *info = rel->fdw_private;
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, rinfos)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		WideRowsKey *k = NULL;
		ListCell   *kc;

		if (list_member_ptr(info->classified, ri))
		{
			foreach(kc, info->keys)
				if (((WideRowsKey *) lfirst(kc))->ri == ri)
					k = lfirst(kc);
		}
		else
			k = key_of(root, info->shape, rel, ri);
		if (k != NULL)
			out = lappend(out, k);
	}
	return out;
}

/* value columns a list of expressions uses */
static void
columns_used(const WideRowShape *s, RelOptInfo *rel, List *exprs, Bitmapset **attrs)
{
	pull_varattnos((Node *) exprs, rel->relid, attrs);
}

/*
 * readings -- when the key conditions keys (WideRowsKey) set every part of
 * the row key equal, and the row key is the rows' key (no timestamp column
 * outside it), the number of rows they can name, at most one each: the
 * product over the parts of the values of each part's equality (of the
 * fewest, where a part has several; an array not known until execution
 * counts as 10).  Then *eqs (if not NULL) is the RestrictInfos of those
 * equalities.  Else -1.
 */
static double
readings(const WideRowShape *s, List *keys, List **eqs)
{
	bool		eq[WIDE_ROWS_MAX_PARTS] = {0};
	double		nvals[WIDE_ROWS_MAX_PARTS];
	double		n = 1;
	ListCell   *lc;

	if (eqs)
		*eqs = NIL;
	if (s->ts_attnum > 0 && !s->ts_in_key)
		return -1;
	foreach(lc, keys)
	{
		WideRowsKey *k = lfirst(lc);
		double		v;

		if (k->strategy != BTEqualStrategyNumber)
			continue;
		v = k->is_array ? WideArrayLength((Node *) k->value, 10) : 1;
		if (!eq[k->part] || v < nvals[k->part])
			nvals[k->part] = v;
		eq[k->part] = true;
		if (eqs)
			*eqs = lappend(*eqs, k->ri);
	}
	for (int i = s->salt ? 1 : 0; i < s->nparts; i++)
	{
		if (!eq[i])
			return -1;
		n *= nvals[i];
	}
	return n;
}

/*
 * key_selectivity -- the fraction of the tuples the conditions rinfos
 * (RestrictInfos, keys among them) keep: readings (above) keep at most
 * their number, times what the other conditions keep, without estimating
 * the equalities -- eqsel for each value of an IN list, which for a DELETE
 * of 100 readings cost a twelfth of its CPU -- else clauselist_selectivity.
 */
static Selectivity
key_selectivity(PlannerInfo *root, const WideRowShape *s, RelOptInfo *rel,
				List *rinfos, List *keys, int varRelid)
{
	List	   *eqs;
	double		n = readings(s, keys, &eqs);

	if (n >= 0 && rel->tuples > 0)
		return Min(n / rel->tuples, 1.0) *
			clauselist_selectivity(root, list_difference_ptr(rinfos, eqs),
								   varRelid, JOIN_INNER, NULL);
	return clauselist_selectivity(root, rinfos, varRelid, JOIN_INNER, NULL);
}

void
WideRowsGetRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	RowsPlanInfo *info = palloc0(sizeof(RowsPlanInfo));
	WideRowShape *s = WideRowShapeGet(foreigntableid);
	Bitmapset  *attrs = NULL;
	List	   *clauses = NIL;
	ListCell   *lc;
	int			x;
	bool		whole_row = false;

	info->shape = s;
	baserel->fdw_private = info;

	/* the columns read; the key conditions, once for every caller */
	columns_used(s, baserel, baserel->reltarget->exprs, &attrs);
	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		WideRowsKey *k = key_of(root, s, baserel, ri);

		clauses = lappend(clauses, ri->clause);
		info->classified = lappend(info->classified, ri);
		if (k != NULL)
			info->keys = lappend(info->keys, k);
	}
	columns_used(s, baserel, clauses, &attrs);
	/* (join clauses are in the target list already) */
	x = -1;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		AttrNumber	a = x + FirstLowInvalidHeapAttributeNumber;

		if (a == 0)
			whole_row = true;
		else if (a > 0 && s->cols[a - 1].kind == WIDE_COL_VALUE)
			info->needed = lappend_int(info->needed, a);
	}
	if (whole_row)
	{
		list_free(info->needed);
		info->needed = NIL;
		for (int i = 0; i < s->natts; i++)
			if (s->cols[i].kind == WIDE_COL_VALUE)
				info->needed = lappend_int(info->needed, i + 1);
	}
	/* a strict condition on a column read: its cells say which rows exist */
	foreach(lc, find_nonnullable_vars((Node *) clauses))
	{
		Var		   *v = lfirst(lc);

		if ((Index) v->varno == baserel->relid && v->varattno > 0 &&
			s->cols[v->varattno - 1].kind == WIDE_COL_VALUE)
			info->exist_by_needed = true;
	}
	info->cells_per_row = info->exist_by_needed ?
		Max(list_length(info->needed), 1) : Max(s->nvalues, 1);

	/*
	 * rows: ANALYZE's count, else the wide table's cells per column; pages:
	 * the wide table's (ANALYZE's, else its size now)
	 */
	if (baserel->tuples <= 0 || baserel->pages == 0)
	{
		Relation	crel = table_open(s->cells, AccessShareLock);

		if (baserel->tuples <= 0)
			baserel->tuples = Max(WideEstimateCells(crel) / Max(s->nvalues, 1), 10);
		if (baserel->pages == 0)
			baserel->pages = RelationGetNumberOfBlocks(crel);
		table_close(crel, AccessShareLock);
	}
	baserel->rows = clamp_row_est(baserel->tuples *
								  key_selectivity(root, s, baserel,
												  baserel->baserestrictinfo, info->keys, 0));
}

/*
 * the key conditions among clauses (RestrictInfos; *keys: their
 * WideRowsKey), and the seeks they make
 */
static List *
key_clauses(PlannerInfo *root, const WideRowShape *s, RelOptInfo *rel, List *rinfos,
			List **keys, int *nseeks)
{
	List	   *out = NIL;
	ListCell   *lc;
	bool		eq[WIDE_ROWS_MAX_PARTS] = {0};
	double		nvals[WIDE_ROWS_MAX_PARTS];

	*keys = WideRowsFindKeys(root, rel, rinfos);
	foreach(lc, *keys)
	{
		WideRowsKey *k = lfirst(lc);

		out = lappend(out, k->ri);
		if (k->strategy == BTEqualStrategyNumber)
		{
			double		n = k->is_array ? WideArrayLength((Node *) k->value, 10) : 1;

			if (!eq[k->part] || n < nvals[k->part])
				nvals[k->part] = n;
			eq[k->part] = true;
		}
	}
	if (s->salt)
	{
		/* every bucket, or one for each whole key */
		eq[0] = true;
		nvals[0] = s->salt;
		for (int i = 1; i < s->nparts && eq[i]; i++)
			if (i == s->nparts - 1)
				nvals[0] = 1;
	}
	*nseeks = 1;
	for (int i = 0; i < s->nparts && eq[i]; i++)
		*nseeks *= (int) Min(nvals[i], 100000);
	return out;
}

static void
rows_cost(PlannerInfo *root, RelOptInfo *rel, RowsPlanInfo *info,
		  List *rinfos, double rows_out, Cost *startup, Cost *total,
		  double *cells_read)
{
	int			nseeks;
	List	   *found;
	List	   *keys = key_clauses(root, info->shape, rel, rinfos, &found, &nseeks);
	WideReadShape r;
	QualCost	qc;
	Cost		run;

	r.pages = rel->pages;
	r.cells = rel->tuples * info->cells_per_row;
	r.fraction = keys ? key_selectivity(root, info->shape, rel, keys, found,
										rel->relid) : 1.0;
	r.nseeks = keys ? nseeks : 0;
	r.cells_per_tuple = info->cells_per_row;
	cost_qual_eval(&qc, rinfos, root);
	WideReadCost(&r, &qc, startup, &run);
	*total = *startup + run;
	if (cells_read)
		*cells_read = r.cells * r.fraction;
}

/*
 * add_partial -- the partial (parallel-aware) twin of the serial forward
 * path, with the workers the cell form's parallel scans would take for the
 * cells it reads (scan_parallel.c).  Its cost is the serial one divided
 * among the participants.
 */
static void
add_partial(PlannerInfo *root, RelOptInfo *rel, Cost startup, Cost total,
			double cells_read, List *pathkeys)
{
	int			workers;
	double		divisor;
	ForeignPath *p;

	if (!rel->consider_parallel)
		return;
	workers = WideParallelWorkers(cells_read / 64.0);
	if (workers == 0)
		return;
	divisor = WideParallelDivisor(workers);
	p = create_foreignscan_path(root, rel, NULL, clamp_row_est(rel->rows / divisor),
								startup, startup + (total - startup) / divisor,
								truncate_useless_pathkeys(root, rel, pathkeys),
								NULL, NULL, list_make1_int(0));
	p->path.parallel_aware = true;
	p->path.parallel_safe = true;
	p->path.parallel_workers = workers;
	add_partial_path(rel, &p->path);
}

/*
 * the order of the rows: the key parts, while they are fixed-width (or
 * the reverse order, for a backward scan)
 */
static List *
rows_pathkeys(PlannerInfo *root, RelOptInfo *rel, const WideRowShape *s,
			  bool backward)
{
	List	   *pathkeys = NIL;

	for (int i = 0; i < s->nparts; i++)
	{
		const WideRowPart *p = &s->parts[i];
		Oid			opno;
		List	   *pk;
		Var		   *var;

		if (p->kind == WIDE_PART_TEXT || p->kind == WIDE_PART_SALT)
			break;				/* (salted: bucket by bucket, no order) */
		opno = get_opfamily_member(part_opfamily(p), p->type, p->type,
								   p->reversed != backward ? BTGreaterStrategyNumber :
								   BTLessStrategyNumber);
		if (!OidIsValid(opno))
			break;
		var = makeVar(rel->relid, p->attnum, p->type, -1, InvalidOid, 0);
		pk = build_expression_pathkey(root, (Expr *) var, NULL, opno, rel->relids, false);
		if (pk == NIL)
			break;				/* no query uses that order */
		/* a part equal to a constant orders nothing (as an index's) */
		if (((PathKey *) linitial(pk))->pk_eclass->ec_has_const)
			continue;
		pathkeys = list_concat(pathkeys, pk);
	}
	return pathkeys;
}

/* EC members that are a key column of rel: join clauses to seek by */
static bool
ec_member_is_key(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
				 EquivalenceMember *em, void *arg)
{
	return key_part_of((const WideRowShape *) arg, rel, (Node *) em->em_expr) >= 0;
}

/*
 * is relids one of the list's?  (A Bitmapset is not a Node in PostgreSQL
 * 15: list_member's equal() fails on it, "unrecognized node type".)
 */
static bool
relids_member(List *list, Relids relids)
{
	ListCell   *lc;

	foreach(lc, list)
		if (bms_equal((Relids) lfirst(lc), relids))
			return true;
	return false;
}

void
WideRowsGetPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	RowsPlanInfo *info = baserel->fdw_private;
	Cost		startup,
				total;
	List	   *pathkeys = rows_pathkeys(root, baserel, info->shape, false);
	List	   *backkeys = NIL;
	List	   *candidates = NIL;
	List	   *outers = NIL;
	ListCell   *lc;
	double		cells_read;

	/* a backward scan, for ORDER BY ... DESC LIMIT (rows of one time each) */
	if (info->shape->ts_attnum == 0 || info->shape->ts_in_key)
		backkeys = rows_pathkeys(root, baserel, info->shape, true);

	rows_cost(root, baserel, info, baserel->baserestrictinfo, baserel->rows,
			  &startup, &total, &cells_read);
	add_path(baserel, (Path *) create_foreignscan_path(root, baserel, NULL, baserel->rows,
													   startup, total, pathkeys,
													   NULL, NULL, list_make1_int(0)));
	add_partial(root, baserel, startup, total, cells_read, pathkeys);
	if (backkeys != NIL)
		add_path(baserel, (Path *) create_foreignscan_path(root, baserel, NULL, baserel->rows,
														   startup, total * 1.1, backkeys,
														   NULL, NULL, list_make1_int(1)));

	/* parameterized: a seek per row of another relation */
	foreach(lc, baserel->joininfo)
	{
		RestrictInfo *ri = lfirst(lc);
		int			part,
					strat;
		bool		is_array;
		Expr	   *value;

		if (WideRowsKeyCondition(root, info->shape, baserel, ri->clause, &part, &strat,
								 &is_array, &value) &&
			strat == BTEqualStrategyNumber &&
			!bms_is_empty(ri->clause_relids) &&
			join_clause_is_movable_to(ri, baserel))
			candidates = lappend(candidates, ri);
	}
	candidates = list_concat(candidates,
							 generate_implied_equalities_for_column(root, baserel,
																	ec_member_is_key,
																	info->shape,
																	baserel->lateral_referencers));
	foreach(lc, candidates)
	{
		RestrictInfo *ri = lfirst(lc);
		Relids		outer = bms_difference(ri->clause_relids, baserel->relids);
		ParamPathInfo *ppi;
		double		rows;
		List	   *all;

		if (bms_is_empty(outer) || bms_overlap(outer, baserel->lateral_referencers))
			continue;
		if (relids_member(outers, outer))
			continue;
		outers = lappend(outers, outer);
		ppi = get_baserel_parampathinfo(root, baserel, outer);
		rows = ppi->ppi_rows;
		all = list_concat(list_copy(baserel->baserestrictinfo), ppi->ppi_clauses);
		rows_cost(root, baserel, info, all, rows, &startup, &total, NULL);
		add_path(baserel, (Path *) create_foreignscan_path(root, baserel, NULL, rows,
														   startup, total, pathkeys,
														   outer, NULL, list_make1_int(0)));
		if (backkeys != NIL)
			add_path(baserel, (Path *) create_foreignscan_path(root, baserel, NULL, rows,
															   startup, total * 1.1, backkeys,
															   outer, NULL, list_make1_int(1)));
	}
}

/*
 * WideRowsPlanPrivate -- what a scan of baserel needs at execution: the
 * value columns read, the key conditions among clauses (RestrictInfos;
 * their values are returned in *values, in the same order), whether the
 * columns read decide which rows exist, and the direction.
 */
List *
WideRowsPlanPrivate(RelOptInfo *baserel, bool backward, List **values,
					List *clauses, PlannerInfo *root)
{
	RowsPlanInfo *info = baserel->fdw_private;
	List	   *meta = NIL;
	ListCell   *lc;

	*values = NIL;
	foreach(lc, WideRowsFindKeys(root, baserel, clauses))
	{
		WideRowsKey *k = lfirst(lc);

		*values = lappend(*values, k->value);
		meta = lappend(meta, list_make3_int(k->part, k->strategy, k->is_array));
	}
	return list_make4(info->needed, meta, makeInteger(info->exist_by_needed),
					  makeInteger(backward));
}

ForeignScan *
WideRowsGetPlan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
				ForeignPath *best_path, List *tlist, List *scan_clauses,
				Plan *outer_plan)
{
	List	   *exprs;
	List	   *priv;

	priv = WideRowsPlanPrivate(baserel, linitial_int(best_path->fdw_private), &exprs,
							   scan_clauses, root);
	return make_foreignscan(tlist, extract_actual_clauses(scan_clauses, false),
							baserel->relid, exprs, priv, NIL, NIL, outer_plan);
}
