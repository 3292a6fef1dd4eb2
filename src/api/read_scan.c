/*-------------------------------------------------------------------------
 *
 * read_scan.c
 *	  "Wide Read Rows": a call of wide.read_rows or wide.read_row in FROM
 *	  (LATERAL too) planned as a custom scan that streams the read.
 *
 * A set-returning function in FROM is a Function Scan: the function runs
 * to its end into a tuplestore, which the scan then reads, and the planner
 * guesses 1,000 rows.  For the read functions a path hook replaces that
 * path with a custom scan of the function's range-table entry that
 *	- evaluates the call's arguments when the scan starts and on every
 *	  rescan (outer references of a LATERAL call become parameters of the
 *	  nested loop), and opens the same iterator the functions use (read.c):
 *	  row set, row filter, limit and reversal are all inside the read;
 *	- returns each cell as it is read: no tuplestore, no copies of
 *	  unfiltered cells, only the columns the plan uses converted;
 *	- estimates its rows from the table's statistics (cells, row_key's
 *	  distinct values and histogram) and the row set;
 *	- shows the row set, the filter and the limit in EXPLAIN, and with
 *	  ANALYZE the runs and blocks it read.
 * Calls the hook does not recognize (WITH ORDINALITY, several functions in
 * one ROWS FROM, a table argument that is not a wide table's row type,
 * whole-row references, read_rows_labeled) stay Function Scans, as do all
 * calls under wide.enable_read_scan = off, for testing.
 *
 * IDENTIFICATION
 *	  src/api/read_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/sysattr.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
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
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "engine/cell.h"
#include "engine/reader.h"
#include "engine/schema.h"
#include "am/am.h"
#include "am/plan_cost.h"
#include "am/scan.h"
#include "api/api.h"
#include "api/readiter.h"

/* the read functions, in custom_private */
#define READ_ROWS	1
#define READ_ROW	2
#define READ_LABELED	3		/* read_rows_labeled: (cell, labels) */

/* without statistics: cells of a row, keys of a key array not known */
#define DEFAULT_CELLS_PER_ROW	10.0
#define DEFAULT_KEYS			10.0

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/* wide.enable_read_scan: plan the read functions as Wide Read Rows */
static bool wide_enable_read_scan = true;

static Plan *plan_read_path(PlannerInfo *root, RelOptInfo *rel,
							CustomPath *best_path, List *tlist,
							List *clauses, List *custom_plans);
static Node *create_read_scan_state(CustomScan *cscan);
static void begin_read_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_read_scan(CustomScanState *node);
static void end_read_scan(CustomScanState *node);
static void rescan_read_scan(CustomScanState *node);
static void explain_read_scan(CustomScanState *node, List *ancestors,
							  ExplainState *es);

static const CustomPathMethods read_path_methods = {
	.CustomName = "WideReadRows",
	.PlanCustomPath = plan_read_path,
};

static const CustomScanMethods read_scan_methods = {
	.CustomName = "WideReadRows",
	.CreateCustomScanState = create_read_scan_state,
};

static const CustomExecMethods read_exec_methods = {
	.CustomName = "WideReadRows",
	.BeginCustomScan = begin_read_scan,
	.ExecCustomScan = exec_read_scan,
	.EndCustomScan = end_read_scan,
	.ReScanCustomScan = rescan_read_scan,
	.ExplainCustomScan = explain_read_scan,
};

typedef struct ReadScanState
{
	CustomScanState css;
	int			kind;			/* READ_ROWS, READ_ROW or READ_LABELED */
	Oid			funcid;
	Oid			rowtype;		/* of the table argument */
	List	   *args;			/* ExprState of each argument */
	Oid		   *argtypes;		/* the type of each argument */
	int16	   *arglens;		/* typlen and typbyval of each argument */
	bool	   *argbyval;
	Relation	rel;			/* opened by the first start */
	const WideSchema *schema;
	WideReadIter *it;
	MemoryContext argcxt;		/* the arguments and read of this (re)scan */
	bool		started;
	bool		needed[5];		/* columns the plan uses */
	WideReaderStats stats;		/* of the reads of earlier (re)scans */
	int64		reads;			/* (re)scans started */
	bool		ts_window;		/* a read had a time window (time pruning) */
	/* read_rows_labeled: the cell as a record, its labels */
	TupleDesc	celldesc;
	MemoryContext outcxt;		/* the last (cell, labels) */
} ReadScanState;

/* ----------------------------------------------------------------
 *	Planning
 * ----------------------------------------------------------------
 */

/* READ_ROWS, READ_ROW or READ_LABELED: the read function it is (or 0) */
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
				kind = proc->prorettype == RECORDOID ? READ_LABELED : READ_ROWS;
			else if (strcmp(s, "wide_read_row") == 0 && proc->pronargs == WIDE_READ_ROW_NARGS)
				kind = READ_ROW;
		}
	}
	ReleaseSysCache(tup);
	return kind;
}

/* the name of a read function */
static const char *
kind_name(int kind)
{
	return kind == READ_ROW ? "read_row" : kind == READ_LABELED ? "read_rows_labeled" : "read_rows";
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
					 kind != READ_ROW &&
					 (!arg_is_null(args, A_START) || !arg_is_null(args, A_END) ||
					  !arg_is_null(args, A_PREFIX)),
					 &ks);
	cpr = WideKeyStatsCellsPerRow(&ks, tuples, DEFAULT_CELLS_PER_ROW);

	if (kind == READ_ROW)
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
	if (!arg_is_null(args, kind == READ_ROW ? 2 : A_FILTER))
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
		(*kind == READ_ROW ? WIDE_READ_ROW_NARGS : WIDE_READ_ROWS_NARGS))
		return InvalidOid;
	rowtype = exprType(linitial((*fexpr)->args));
	relid = get_typ_typrelid(rowtype);
	/* read_rows_labeled returns (cell, labels) records */
	if (!OidIsValid(relid) || !WideRelationIsWide(relid) ||
		(*kind == READ_LABELED ?
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

	if (kind == READ_LABELED)
	{
		/* cells are records */
		ReleaseTupleDesc(desc);
		return NIL;
	}
	if (kind == READ_ROWS && !arg_is_null(args, A_REVERSED))
	{
		Const	   *c = const_arg(args, A_REVERSED);

		if (c == NULL)
		{
			ReleaseTupleDesc(desc);
			return NIL;
		}
		reversed = DatumGetBool(c->constvalue);
	}
	if (!reversed && arg_is_null(args, kind == READ_ROW ? 2 : A_FILTER))
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

	if (kind == READ_LABELED)
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

/* ----------------------------------------------------------------
 *	Execution
 * ----------------------------------------------------------------
 */

static Node *
create_read_scan_state(CustomScan *cscan)
{
	ReadScanState *s = (ReadScanState *) newNode(sizeof(ReadScanState),
												 T_CustomScanState);

	s->css.methods = &read_exec_methods;
	s->kind = linitial_int(cscan->custom_private);
	s->funcid = lsecond_int(cscan->custom_private);
	s->rowtype = lthird_int(cscan->custom_private);
	return (Node *) s;
}

static void
begin_read_scan(CustomScanState *node, EState *estate, int eflags)
{
	ReadScanState *s = (ReadScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Bitmapset  *attrs = NULL;
	AclResult	aclresult;
	ListCell   *lc;
	int			i;

	/* what the Function Scan would check: the right to call the function */
	aclresult = pg_proc_aclcheck(s->funcid, GetUserId(), ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(s->funcid));
	InvokeFunctionExecuteHook(s->funcid);

	s->args = ExecInitExprList(cscan->custom_exprs, &node->ss.ps);
	s->arglens = palloc(sizeof(int16) * Max(list_length(cscan->custom_exprs), 1));
	s->argbyval = palloc(sizeof(bool) * Max(list_length(cscan->custom_exprs), 1));
	i = 0;
	s->argtypes = palloc(sizeof(Oid) * Max(list_length(cscan->custom_exprs), 1));
	foreach(lc, cscan->custom_exprs)
	{
		s->argtypes[i] = exprType(lfirst(lc));
		get_typlenbyval(s->argtypes[i], &s->arglens[i], &s->argbyval[i]);
		i++;
	}
	pull_varattnos((Node *) cscan->scan.plan.targetlist, INDEX_VAR, &attrs);
	pull_varattnos((Node *) cscan->scan.plan.qual, INDEX_VAR, &attrs);
	for (i = 0; i < 5; i++)
		s->needed[i] = s->kind == READ_LABELED ||
			bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber, attrs) ||
			bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	if (s->kind == READ_LABELED)
	{
		s->celldesc = lookup_rowtype_tupdesc_copy(s->rowtype, -1);
		s->outcxt = AllocSetContextCreate(estate->es_query_cxt, "wide read scan cell",
										  ALLOCSET_SMALL_SIZES);
	}
	s->argcxt = AllocSetContextCreate(estate->es_query_cxt, "wide read scan",
									  ALLOCSET_DEFAULT_SIZES);
}

/* end the read of the current (re)scan */
static void
end_read(ReadScanState *s)
{
	WideReaderStats st;

	if (s->it == NULL)
		return;
	st = WideReadGetStats(s->it);
	s->stats.runs_read += st.runs_read;
	s->stats.blocks_read += st.blocks_read;
	s->stats.records += st.records;
	s->stats.cells += st.cells;
	s->stats.blocks_skipped += st.blocks_skipped;
	s->stats.index_skipped += st.index_skipped;
	s->stats.records_skipped += st.records_skipped;
	s->stats.blocks_column_skipped += st.blocks_column_skipped;
	s->ts_window |= WideReadTsWindow(s->it);
	WideReadEnd(s->it);
	s->it = NULL;
}

/* evaluate the arguments and start the read */
static void
start_read(ReadScanState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	EState	   *estate = s->css.ss.ps.state;
	Datum		args[WIDE_READ_ROWS_NARGS];
	bool		nulls[WIDE_READ_ROWS_NARGS];
	WideReadSpec spec;
	ListCell   *lc;
	MemoryContext old;
	Oid			relid;
	int			i = 0;

	end_read(s);
	MemoryContextReset(s->argcxt);

	/* evaluated in per-tuple memory, kept in argcxt until the next start */
	ResetExprContext(econtext);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	foreach(lc, s->args)
	{
		args[i] = ExecEvalExpr((ExprState *) lfirst(lc), econtext, &nulls[i]);
		i++;
	}
	MemoryContextSwitchTo(s->argcxt);
	for (i = 0; i < list_length(s->args); i++)
		if (!nulls[i])
			args[i] = datumCopy(args[i], s->argbyval[i], s->arglens[i]);

	relid = WideReadTable(s->rowtype);
	WideReadSpecFromArgs(s->kind == READ_ROW, args, nulls, s->argtypes, &spec);
	if (s->rel == NULL)
	{
		MemoryContextSwitchTo(estate->es_query_cxt);
		s->rel = WideOpenTableRead(kind_name(s->kind), relid, AccessShareLock);
		s->schema = WideSchemaCopy(s->rel);
		MemoryContextSwitchTo(s->argcxt);
	}
	s->it = WideReadBegin(s->rel, s->schema, estate->es_snapshot, &spec, s->needed);
	MemoryContextSwitchTo(old);
	s->reads++;
}

static TupleTableSlot *
read_scan_next(ScanState *ss)
{
	ReadScanState *s = (ReadScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	const WideRowOut *out;

	ExecClearTuple(slot);
	if (s->kind != READ_LABELED)
	{
		if (!WideReadNext(s->it, slot->tts_values, slot->tts_isnull, &out))
			return slot;
	}
	else
	{
		Datum		values[5];
		bool		nulls[5];
		Datum	   *labels;
		const WideLabel *l;
		int			n,
					i;
		MemoryContext old;

		MemoryContextReset(s->outcxt);
		if (!WideReadNext(s->it, values, nulls, &out))
			return slot;
		old = MemoryContextSwitchTo(s->outcxt);
		slot->tts_values[0] = HeapTupleGetDatum(heap_form_tuple(s->celldesc, values, nulls));
		n = out ? out->nlabels : 0;
		labels = palloc(sizeof(Datum) * Max(n, 1));
		/* the list has the last label first; the array, the first */
		for (i = n - 1, l = out ? out->labels : NULL; i >= 0; i--, l = l->prev)
			labels[i] = CStringGetTextDatum(l->label);
		slot->tts_values[1] = PointerGetDatum(construct_array(labels, n, TEXTOID, -1, false,
															  TYPALIGN_INT));
		slot->tts_isnull[0] = slot->tts_isnull[1] = false;
		MemoryContextSwitchTo(old);
	}
	return ExecStoreVirtualTuple(slot);
}

static bool
read_scan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_read_scan(CustomScanState *node)
{
	ReadScanState *s = (ReadScanState *) node;

	if (!s->started)
	{
		start_read(s);
		s->started = true;
	}
	return ExecScan(&node->ss, (ExecScanAccessMtd) read_scan_next,
					(ExecScanRecheckMtd) read_scan_recheck);
}

static void
end_read_scan(CustomScanState *node)
{
	ReadScanState *s = (ReadScanState *) node;

	end_read(s);
	if (s->rel)
		relation_close(s->rel, NoLock);
	s->rel = NULL;
}

static void
rescan_read_scan(CustomScanState *node)
{
	ReadScanState *s = (ReadScanState *) node;

	/* the arguments may have changed: evaluated again at the next fetch */
	end_read(s);
	s->started = false;
}

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

static void
explain_read_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ReadScanState *s = (ReadScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *args = cscan->custom_exprs;
	List	   *context;
	StringInfoData buf;
	bool		first = true;
	Oid			relid = get_typ_typrelid(s->rowtype);
	char	   *relname = OidIsValid(relid) ? get_rel_name(relid) : NULL;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s(%s)", kind_name(s->kind),
					 relname ? quote_identifier(relname) : "?");
	ExplainPropertyText("Read", buf.data, es);

	resetStringInfo(&buf);
	if (s->kind == READ_ROW)
		first = explain_arg(&buf, args, 1, "row_key = %s", context, first);
	else
	{
		first = explain_arg(&buf, args, A_KEYS, "row_key = ANY (%s)", context, first);
		first = explain_range(&buf, args, context, first);
		first = explain_arg(&buf, args, A_PREFIX, "prefix %s", context, first);
		first = explain_arg(&buf, args, A_RANGES, "ranges %s", context, first);
	}
	ExplainPropertyText("Row Set", first ? "all" : buf.data, es);
	if (!arg_is_null(args, s->kind == READ_ROW ? 2 : A_FILTER))
		ExplainPropertyText("Row Filter",
							deparse_expression(list_nth(args, s->kind == READ_ROW ? 2 : A_FILTER),
											   context, false, false), es);
	if (s->kind != READ_ROW && !arg_is_null(args, A_LIMIT))
		ExplainPropertyText("Row Limit",
							deparse_expression(list_nth(args, A_LIMIT), context, false, false),
							es);
	if (s->kind != READ_ROW && !arg_is_null(args, A_REVERSED))
	{
		Const	   *c = const_arg(args, A_REVERSED);

		if (c == NULL || DatumGetBool(c->constvalue))
			ExplainPropertyText("Reversed",
								deparse_expression(list_nth(args, A_REVERSED), context,
												   false, false), es);
	}
	if (es->analyze)
	{
		WideReaderStats st = s->stats;

		if (s->it)
		{
			WideReaderStats cur = WideReadGetStats(s->it);

			st.runs_read += cur.runs_read;
			st.blocks_read += cur.blocks_read;
			st.records += cur.records;
			st.blocks_skipped += cur.blocks_skipped;
			st.index_skipped += cur.index_skipped;
			st.records_skipped += cur.records_skipped;
			st.blocks_column_skipped += cur.blocks_column_skipped;
		}
		ExplainPropertyInteger("Reads", NULL, s->reads, es);
		ExplainPropertyInteger("Runs Read", NULL, st.runs_read, es);
		ExplainPropertyInteger("Blocks Read", NULL, st.blocks_read, es);
		if (s->ts_window || (s->it && WideReadTsWindow(s->it)))
		{
			ExplainPropertyInteger("Blocks Skipped by ts", NULL, st.blocks_skipped, es);
			ExplainPropertyInteger("Index Blocks Skipped by ts", NULL, st.index_skipped, es);
		}
		ExplainPropertyInteger("Records Merged", NULL, st.records, es);
		/* records of columns that had their cells (WideReaderLatest) */
		if (st.records_skipped > 0)
		{
			ExplainPropertyInteger("Records Skipped", NULL, st.records_skipped, es);
			ExplainPropertyInteger("Blocks Skipped", NULL, st.blocks_column_skipped, es);
		}
	}
}

/*
 * WideInstallReadScan -- add the path hook (from _PG_init).
 */
void
WideInstallReadScan(void)
{
	DefineCustomBoolVariable("wide.enable_read_scan",
							 "Plans calls of wide.read_rows and wide.read_row in FROM as Wide Read Rows scans.",
							 "Off, they are Function Scans: the read runs to its end into a tuplestore first; for testing and for comparing plans.",
							 &wide_enable_read_scan, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	RegisterCustomScanMethods(&read_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = read_set_rel_pathlist;
}
