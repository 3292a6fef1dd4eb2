/*-------------------------------------------------------------------------
 *
 * scan_read.c
 *	  "Wide Read Rows", the planner's part: a call of wide.read_rows or
 *	  wide.read_row in FROM (LATERAL too) planned as a custom scan that
 *	  streams the read.
 *
 * A set-returning function in FROM is a Function Scan: the function runs
 * to its end into a tuplestore, which the scan then reads, and the planner
 * guesses 1,000 rows.  For the read functions a path hook replaces that
 * path with a custom scan of the function's range-table entry that
 *	- evaluates the call's arguments when the scan starts and on every
 *	  rescan (outer references of a LATERAL call become parameters of the
 *	  nested loop), and opens the same iterator the functions use;
 *	- returns each cell as it is read: no tuplestore, no copies of
 *	  unfiltered cells, only the columns the plan uses converted;
 *	- estimates its rows from the table's statistics (cells, row_key's
 *	  distinct values and histogram: plan_cost.c) and the row set, and
 *	  costs the read as the Wide Scan costs one (WideReadCost);
 *	- shows the row set, the filter and the limit in EXPLAIN.
 * Calls the hook does not recognize (WITH ORDINALITY, several functions in
 * one ROWS FROM, a table argument that is not a wide table's row type,
 * whole-row references) stay Function Scans, as do all calls under
 * wide.enable_read_scan = off, for testing.
 *
 * The executor.  Executing the plan is reading: the iterator of the read
 * functions (api/read.c, which filters with RE2 through api/re2_shim), so
 * the executor's methods live in api/read_scan.c, which gives this file
 * the function that creates its state when the module is loaded
 * (WideInstallReadScanPlanner): the planner calls it through that pointer,
 * never by name, and am/ does not depend on api/.  Its EXPLAIN method
 * shows what the plan reads through WideReadScanExplainPlan, then the
 * read's counters.
 *
 * IDENTIFICATION
 *	  src/am/scan_read.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/sysattr.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "funcapi.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "engine/cell.h"
#include "am/am.h"
#include "am/plan_cost.h"
#include "am/scan.h"
#include "am/scan_read.h"

/* without statistics: cells of a row, keys of a key array not known */
#define DEFAULT_CELLS_PER_ROW	10.0
#define DEFAULT_KEYS			10.0

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/* wide.enable_read_scan: plan the read functions as Wide Read Rows */
static bool wide_enable_read_scan = true;

/* the executor's (api/read_scan.c) */
static WideReadScanCreateState create_state = NULL;

static Plan *plan_read_path(PlannerInfo *root, RelOptInfo *rel,
							CustomPath *best_path, List *tlist,
							List *clauses, List *custom_plans);
static Node *create_read_scan_state(CustomScan *cscan);

static const CustomPathMethods read_path_methods = {
	.CustomName = "WideReadRows",
	.PlanCustomPath = plan_read_path,
};

static const CustomScanMethods read_scan_methods = {
	.CustomName = "WideReadRows",
	.CreateCustomScanState = create_read_scan_state,
};

/* ----------------------------------------------------------------
 *	Planning
 * ----------------------------------------------------------------
 */

/*
 * WideReadKeyArg -- a key, bound or prefix argument of type "any" as a
 * varlena holding its bytes: text, varchar, bpchar and bytea as they are,
 * a name, or an unknown literal ('a', as text).  "keys" is an array of
 * them.
 */
Datum
WideReadKeyArg(Datum d, Oid type, bool array, const char *what)
{
	switch (type)
	{
		case UNKNOWNOID:
		case CSTRINGOID:
			if (array)
				return OidInputFunctionCall(F_ARRAY_IN, DatumGetCString(d),
											TEXTOID, -1);
			return CStringGetTextDatum(DatumGetCString(d));
		case NAMEOID:
			if (!array)
				return CStringGetTextDatum(NameStr(*DatumGetName(d)));
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case BYTEAOID:
			if (!array)
				return d;
			break;
		case TEXTARRAYOID:
		case VARCHARARRAYOID:
		case BYTEAARRAYOID:
			if (array)
				return d;
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg(array ? "%s must be an array of text or bytea, not %s" :
					"%s must be text or bytea, not %s",
					what, format_type_be(type))));
	return (Datum) 0;
}

/* WIDE_READ_FN_ROWS, WIDE_READ_FN_ROW or WIDE_READ_FN_LABELED: the read function it is (or 0) */
static int
read_function_kind(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	Form_pg_proc proc;
	int			kind = 0;

	if (!HeapTupleIsValid(tup))
		return 0;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (proc->prolang == ClanguageId && proc->proretset)
	{
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		Datum		bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
		char	   *s = isnull ? NULL : TextDatumGetCString(src);
		char	   *b = isnull ? NULL : TextDatumGetCString(bin);
		const char *base = b ? strrchr(b, '/') : NULL;

		/* our library's (probin is "$libdir/wide", or a path to it) */
		base = base ? base + 1 : b;
		if (s && base && strncmp(base, "wide", 4) == 0 &&
			(base[4] == '\0' || strcmp(base + 4, ".so") == 0))
		{
			if (strcmp(s, "wide_read_rows") == 0 && proc->pronargs == WIDE_READ_ROWS_NARGS)
				kind = proc->prorettype == RECORDOID ? WIDE_READ_FN_LABELED : WIDE_READ_FN_ROWS;
			else if (strcmp(s, "wide_read_row") == 0 && proc->pronargs == WIDE_READ_ROW_NARGS)
				kind = WIDE_READ_FN_ROW;
		}
	}
	ReleaseSysCache(tup);
	return kind;
}

/* WideReadFunctionName -- the name of a read function (WIDE_READ_FN_*) */
const char *
WideReadFunctionName(int kind)
{
	return kind == WIDE_READ_FN_ROW ? "read_row" : kind == WIDE_READ_FN_LABELED ? "read_rows_labeled" : "read_rows";
}

/* the argument, if it is a constant (NULL if not) */
static Const *
const_arg(List *args, int i)
{
	Node	   *n = list_nth(args, i);

	if (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return (n && IsA(n, Const)) ? (Const *) n : NULL;
}

/* is the argument the constant NULL? */
static bool
arg_is_null(List *args, int i)
{
	Const	   *c = const_arg(args, i);

	return c && c->constisnull;
}

/* the bytes of a constant text argument */
static const char *
const_bytes(Const *c, uint32 *len)
{
	struct varlena *v;

	/* an argument of type "any": an unknown literal, a name, ... */
	v = pg_detoast_datum_packed((struct varlena *)
								DatumGetPointer(WideReadKeyArg(c->constvalue, c->consttype,
															   false, "a key bound")));

	*len = VARSIZE_ANY_EXHDR(v);
	return VARDATA_ANY(v);
}

/*
 * estimate_read -- what a call reads, from the table's statistics: its
 * cells and pages (reltuples, relpages, or the access method's estimate)
 * and row_key's (plan_cost.c: distinct keys give the cells of a row, the
 * most common keys and the histogram the share of a key range).  Sets the
 * cells read (*rows, the fewer for a filter) and the read's shape.
 */
static void
estimate_read(Oid relid, int kind, List *args, double *rows, WideReadShape *shape)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	BlockNumber pages;
	double		tuples,
				allvisfrac,
				cpr,
				frac = 0.0,
				nseeks = 0;
	WideKeyStats ks;

	estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
	tuples = Max(tuples, 1.0);
	/* the key distribution places key ranges (not needed for keys) */
	WideKeyStatsOpen(relid, tuples,
					 kind != WIDE_READ_FN_ROW &&
					 (!arg_is_null(args, A_START) || !arg_is_null(args, A_END) ||
					  !arg_is_null(args, A_PREFIX)),
					 &ks);
	cpr = WideKeyStatsCellsPerRow(&ks, tuples, DEFAULT_CELLS_PER_ROW);

	if (kind == WIDE_READ_FN_ROW)
	{
		frac = cpr / tuples;
		nseeks = 1;
	}
	else
	{
		bool		whole = true;

		if (!arg_is_null(args, A_KEYS))
		{
			Const	   *c = const_arg(args, A_KEYS);
			double		nkeys = DEFAULT_KEYS;

			if (c)
			{
				ArrayType  *a = DatumGetArrayTypeP(WideReadKeyArg(c->constvalue,
																  c->consttype,
																  true, "keys"));

				nkeys = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
			}
			frac += nkeys * cpr / tuples;
			nseeks += nkeys;
			whole = false;
		}
		if (!arg_is_null(args, A_START) || !arg_is_null(args, A_END))
		{
			Const	   *sc = const_arg(args, A_START);
			Const	   *ec = const_arg(args, A_END);
			bool		has_start = !arg_is_null(args, A_START);
			bool		has_end = !arg_is_null(args, A_END);

			if ((has_start && sc == NULL) || (has_end && ec == NULL))
				frac += (has_start && has_end) ? DEFAULT_RANGE_INEQ_SEL : DEFAULT_INEQ_SEL;
			else
			{
				const char *lo = NULL,
						   *hi = NULL;
				uint32		lolen = 0,
							hilen = 0;

				if (has_start)
					lo = const_bytes(sc, &lolen);
				if (has_end)
					hi = const_bytes(ec, &hilen);
				frac += WideKeyRangeFraction(&ks, lo, lolen, hi, hilen);
			}
			nseeks += 1;
			whole = false;
		}
		if (!arg_is_null(args, A_PREFIX))
		{
			Const	   *c = const_arg(args, A_PREFIX);

			if (c)
			{
				uint32		len;
				const char *p = const_bytes(c, &len);
				StringInfoData end;
				bool		has_end;

				initStringInfo(&end);
				WidePrefixEnd(&end, p, len, &has_end);
				frac += WideKeyRangeFraction(&ks, len > 0 ? p : NULL, len,
											 has_end ? end.data : NULL, end.len);
			}
			else
				frac += DEFAULT_MATCH_SEL;
			nseeks += 1;
			whole = false;
		}
		if (!arg_is_null(args, A_RANGES))
		{
			frac += DEFAULT_RANGE_INEQ_SEL;
			nseeks += 1;
			whole = false;
		}
		if (whole)
		{
			frac = 1.0;
			nseeks = 0;
		}
		if (!arg_is_null(args, A_LIMIT))
		{
			Const	   *c = const_arg(args, A_LIMIT);

			if (c)
				frac = Min(frac, DatumGetInt64(c->constvalue) * cpr / tuples);
		}
	}
	frac = Min(frac, 1.0);
	/* a filter drops some of them */
	if (!arg_is_null(args, kind == WIDE_READ_FN_ROW ? 2 : A_FILTER))
		*rows = clamp_row_est(tuples * frac * 0.5);
	else
		*rows = clamp_row_est(tuples * frac);
	shape->pages = Max(pages, 1);
	shape->cells = tuples;
	shape->fraction = frac;
	shape->nseeks = nseeks;
	shape->cells_per_tuple = 1;
	WideKeyStatsClose(&ks);
	relation_close(rel, NoLock);
}

/*
 * The table a read's first argument names, if the call may be planned as
 * a Wide Read Rows scan; InvalidOid if not.
 */
static Oid
plannable_read(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte,
			   FuncExpr **fexpr, int *kind)
{
	RangeTblFunction *rtfunc;
	Oid			rowtype,
				relid;
	Bitmapset  *attrs = NULL;
	ListCell   *lc;

	if (rel->reloptkind != RELOPT_BASEREL || rte->rtekind != RTE_FUNCTION ||
		rte->funcordinality || list_length(rte->functions) != 1)
		return InvalidOid;
	rtfunc = linitial_node(RangeTblFunction, rte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr))
		return InvalidOid;
	*fexpr = (FuncExpr *) rtfunc->funcexpr;
	if ((*fexpr)->funcretset == false ||
		!(*kind = read_function_kind((*fexpr)->funcid)) ||
		list_length((*fexpr)->args) !=
		(*kind == WIDE_READ_FN_ROW ? WIDE_READ_ROW_NARGS : WIDE_READ_ROWS_NARGS))
		return InvalidOid;
	rowtype = exprType(linitial((*fexpr)->args));
	relid = get_typ_typrelid(rowtype);
	/* read_rows_labeled returns (cell, labels) records */
	if (!OidIsValid(relid) || !WideRelationIsWide(relid) ||
		(*kind == WIDE_READ_FN_LABELED ?
		 ((*fexpr)->funcresulttype != RECORDOID || list_length(rte->eref->colnames) != 2) :
		 ((*fexpr)->funcresulttype != rowtype || list_length(rte->eref->colnames) != 5)))
		return InvalidOid;
	/* the scan returns the columns, not the whole row */
	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	foreach(lc, rel->baserestrictinfo)
		pull_varattnos((Node *) lfirst_node(RestrictInfo, lc)->clause, rel->relid, &attrs);
	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		return InvalidOid;
	return relid;
}

/*
 * The order of the cells a read returns: rows in key order (reversed: the
 * last first); without a filter, cells of a row by (family, qualifier) and
 * newest first.  Text columns order so only under the "C" collation.
 */
static List *
read_pathkeys(PlannerInfo *root, RelOptInfo *rel, Oid rowtype, int kind, List *args)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(rowtype, -1);
	List	   *pathkeys = NIL;
	bool		reversed = false;
	int			ncols = 1;
	int			attno;

	if (kind == WIDE_READ_FN_LABELED)
	{
		/* cells are records */
		ReleaseTupleDesc(desc);
		return NIL;
	}
	if (kind == WIDE_READ_FN_ROWS && !arg_is_null(args, A_REVERSED))
	{
		Const	   *c = const_arg(args, A_REVERSED);

		if (c == NULL)
		{
			ReleaseTupleDesc(desc);
			return NIL;
		}
		reversed = DatumGetBool(c->constvalue);
	}
	if (!reversed && arg_is_null(args, kind == WIDE_READ_FN_ROW ? 2 : A_FILTER))
		ncols = 4;
	for (attno = 1; attno <= ncols; attno++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, attno - 1);
		TypeCacheEntry *tc = lookup_type_cache(att->atttypid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		Oid			opno = (attno == 4) != reversed ? tc->gt_opr : tc->lt_opr;
		Var		   *var;
		List	   *pk;

		if ((att->atttypid == TEXTOID && att->attcollation != C_COLLATION_OID) ||
			!OidIsValid(opno))
			break;
		var = makeVar(rel->relid, attno, att->atttypid, att->atttypmod,
					  att->attcollation, 0);
		/* only columns some equivalence class holds (customscan.c) */
		pk = build_expression_pathkey(root, (Expr *) var, NULL, opno, rel->relids, false);
		if (pk == NIL)
			break;
		pathkeys = list_concat(pathkeys, pk);
	}
	ReleaseTupleDesc(desc);
	return pathkeys;
}

static void
read_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					  RangeTblEntry *rte)
{
	FuncExpr   *fexpr = NULL;
	int			kind = 0;
	Oid			relid;
	CustomPath *cpath;
	double		rows;
	WideReadShape shape;
	QualCost	qcost;
	Cost		startup,
				run;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);
	if (!wide_enable_read_scan)
		return;
	relid = plannable_read(root, rel, rte, &fexpr, &kind);
	if (!OidIsValid(relid))
		return;

	/* the rel's size: the read's, then its quals */
	estimate_read(relid, kind, fexpr->args, &rows, &shape);
	rel->tuples = rows;
	rel->rows = clamp_row_est(rows * clauselist_selectivity(root, rel->baserestrictinfo,
															0, JOIN_INNER, NULL));

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = rel->reltarget;
	cpath->path.param_info = get_baserel_parampathinfo(root, rel, rel->lateral_relids);
	if (cpath->path.param_info)
	{
		/* computed with the Function Scan's guess */
		cpath->path.param_info->ppi_rows =
			get_parameterized_baserel_size(root, rel, cpath->path.param_info->ppi_clauses);
		cpath->path.rows = cpath->path.param_info->ppi_rows;
	}
	else
		cpath->path.rows = rel->rows;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.pathkeys = read_pathkeys(root, rel, exprType(linitial(fexpr->args)),
										 kind, fexpr->args);
	cpath->flags = 0;
	cpath->custom_private = list_make3_int(kind, fexpr->funcid,
										   exprType(linitial(fexpr->args)));
	cpath->methods = &read_path_methods;

	/* the seeks, the share of the pages the ranges hold, each cell */
	cost_qual_eval(&qcost, rel->baserestrictinfo, root);
	WideReadCost(&shape, &qcost, &startup, &run);
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + run;

	/* the Function Scan would read the same, then store and reread it */
	rel->pathlist = NIL;
	add_path(rel, &cpath->path);
}

/* the scan tuple: the function's columns, the table's (or cell, labels) */
static List *
read_scan_tlist(Index varno, Oid rowtype, int kind)
{
	TupleDesc	desc;
	List	   *tlist = NIL;
	int			i;

	if (kind == WIDE_READ_FN_LABELED)
	{
		tlist = lappend(tlist, makeTargetEntry((Expr *) makeVar(varno, 1, rowtype, -1, InvalidOid, 0),
											   1, pstrdup("cell"), false));
		tlist = lappend(tlist, makeTargetEntry((Expr *) makeVar(varno, 2, TEXTARRAYOID, -1,
																InvalidOid, 0),
											   2, pstrdup("labels"), false));
		return tlist;
	}
	desc = lookup_rowtype_tupdesc(rowtype, -1);

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);
		Var		   *var = makeVar(varno, i + 1, a->atttypid, a->atttypmod,
								  a->attcollation, 0);

		tlist = lappend(tlist, makeTargetEntry((Expr *) var, i + 1,
											   pstrdup(NameStr(a->attname)), false));
	}
	ReleaseTupleDesc(desc);
	return tlist;
}

static Plan *
plan_read_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	RangeTblFunction *rtfunc = linitial_node(RangeTblFunction, rte->functions);
	FuncExpr   *fexpr = (FuncExpr *) rtfunc->funcexpr;

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(clauses, false);
	/* not a table: the executor opens no relation, the scan its table */
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_exprs = copyObject(fexpr->args);
	cscan->custom_private = best_path->custom_private;
	cscan->custom_scan_tlist = read_scan_tlist(rel->relid,
											   lthird_int(best_path->custom_private),
											   linitial_int(best_path->custom_private));
	cscan->methods = &read_scan_methods;

	/*
	 * The plan no longer calls the function nor names the table in its
	 * range table: depend on both, as the Function Scan's plan would (a
	 * cached plan is rebuilt when either changes).
	 */
	record_plan_function_dependency(root, fexpr->funcid);
	root->glob->relationOids =
		lappend_oid(root->glob->relationOids,
					get_typ_typrelid(lthird_int(best_path->custom_private)));
	return &cscan->scan.plan;
}

/* the executor's state of a plan: made by the function api/ registered */
static Node *
create_read_scan_state(CustomScan *cscan)
{
	if (create_state == NULL)
		elog(ERROR, "wide read scan: no executor registered");
	return create_state(cscan);
}

/* ----------------------------------------------------------------
 *	Explain
 * ----------------------------------------------------------------
 */

/* append "name expr" of an argument unless it is the constant NULL */
static bool
explain_arg(StringInfo buf, List *args, int i, const char *fmt, List *context,
			bool first)
{
	if (arg_is_null(args, i))
		return first;
	if (!first)
		appendStringInfoString(buf, " OR ");
	appendStringInfo(buf, fmt, deparse_expression(list_nth(args, i), context,
												  false, false));
	return false;
}

/* "row_key >= x AND row_key < y" of read_rows's start and end keys */
static bool
explain_range(StringInfo buf, List *args, List *context, bool first)
{
	Const	   *si = const_arg(args, A_START_INCL);
	Const	   *ei = const_arg(args, A_END_INCL);
	bool		has_start = !arg_is_null(args, A_START);
	bool		has_end = !arg_is_null(args, A_END);

	if (!has_start && !has_end)
		return first;
	if (!first)
		appendStringInfoString(buf, " OR ");
	if (has_start)
	{
		const char *op = ">= ";

		if (si == NULL)
			op = ">=? ";
		else if (!si->constisnull && !DatumGetBool(si->constvalue))
			op = "> ";
		appendStringInfo(buf, "row_key %s%s", op,
						 deparse_expression(list_nth(args, A_START), context, false, false));
	}
	if (has_end)
	{
		const char *op = "< ";

		if (ei == NULL)
			op = "<? ";
		else if (!ei->constisnull && DatumGetBool(ei->constvalue))
			op = "<= ";
		appendStringInfo(buf, "%srow_key %s%s", has_start ? " AND " : "", op,
						 deparse_expression(list_nth(args, A_END), context, false, false));
	}
	return false;
}

/*
 * WideReadScanExplainPlan -- EXPLAIN's lines of what the plan reads: the
 * call, its row set, filter, limit and direction (the executor adds its
 * counters under ANALYZE).
 */
void
WideReadScanExplainPlan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *args = cscan->custom_exprs;
	int			kind = linitial_int(cscan->custom_private);
	List	   *context;
	StringInfoData buf;
	bool		first = true;
	Oid			relid = get_typ_typrelid(lthird_int(cscan->custom_private));
	char	   *relname = OidIsValid(relid) ? get_rel_name(relid) : NULL;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s(%s)", WideReadFunctionName(kind),
					 relname ? quote_identifier(relname) : "?");
	ExplainPropertyText("Read", buf.data, es);

	resetStringInfo(&buf);
	if (kind == WIDE_READ_FN_ROW)
		first = explain_arg(&buf, args, 1, "row_key = %s", context, first);
	else
	{
		first = explain_arg(&buf, args, A_KEYS, "row_key = ANY (%s)", context, first);
		first = explain_range(&buf, args, context, first);
		first = explain_arg(&buf, args, A_PREFIX, "prefix %s", context, first);
		first = explain_arg(&buf, args, A_RANGES, "ranges %s", context, first);
	}
	ExplainPropertyText("Row Set", first ? "all" : buf.data, es);
	if (!arg_is_null(args, kind == WIDE_READ_FN_ROW ? 2 : A_FILTER))
		ExplainPropertyText("Row Filter",
							deparse_expression(list_nth(args, kind == WIDE_READ_FN_ROW ? 2 : A_FILTER),
											   context, false, false), es);
	if (kind != WIDE_READ_FN_ROW && !arg_is_null(args, A_LIMIT))
		ExplainPropertyText("Row Limit",
							deparse_expression(list_nth(args, A_LIMIT), context, false, false),
							es);
	if (kind != WIDE_READ_FN_ROW && !arg_is_null(args, A_REVERSED))
	{
		Const	   *c = const_arg(args, A_REVERSED);

		if (c == NULL || DatumGetBool(c->constvalue))
			ExplainPropertyText("Reversed",
								deparse_expression(list_nth(args, A_REVERSED), context,
												   false, false), es);
	}
}

/*
 * WideInstallReadScanPlanner -- define wide.enable_read_scan, add the path
 * hook, and keep the executor's function that creates a plan's state
 * (from _PG_init, through api/read_scan.c's WideInstallReadScan).
 */
void
WideInstallReadScanPlanner(WideReadScanCreateState create)
{
	create_state = create;
	DefineCustomBoolVariable("wide.enable_read_scan",
							 "Plans calls of wide.read_rows and wide.read_row in FROM as Wide Read Rows scans.",
							 "Off, they are Function Scans: the read runs to its end into a tuplestore first; for testing and for comparing plans.",
							 &wide_enable_read_scan, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	RegisterCustomScanMethods(&read_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = read_set_rel_pathlist;
}
