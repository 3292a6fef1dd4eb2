/*-------------------------------------------------------------------------
 *
 * customscan.c
 *	  "Wide Scan": key-range reads of wide tables, chosen by the planner.
 *
 * For every scan of a wide table the planner gets a custom path that
 *	- turns conditions on row_key into a key range the engine seeks to:
 *	  row_key = x, <, <=, >, >=, BETWEEN, row_key = ANY(array) (one point
 *	  read per key), and row_key LIKE 'prefix%' (a prefix range); constants
 *	  and parameters (prepared statements, nested-loop inner sides) both
 *	  work, evaluated when the scan starts;
 *	- declares its output sorted by (row_key, family, qualifier, ts desc),
 *	  so ORDER BY on them costs no sort.
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
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "am/am.h"
#include "am/scan_tswindow.h"
#include "am/scan_parallel.h"

/* kinds of bounds, in custom_private, one per custom_exprs entry */
#define BOUND_EQ		1
#define BOUND_LT		2
#define BOUND_LE		3
#define BOUND_GT		4
#define BOUND_GE		5
#define BOUND_PREFIX	6		/* expr is the LIKE pattern */
#define BOUND_IN		7		/* expr is an array of keys */

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/* wide.enable_customscan: offer the planner the Wide Scan path */
static bool wide_enable_customscan = true;

static Plan *plan_wide_path(PlannerInfo *root, RelOptInfo *rel,
							CustomPath *best_path, List *tlist,
							List *clauses, List *custom_plans);
static Node *create_wide_scan_state(CustomScan *cscan);
static void begin_wide_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_wide_scan(CustomScanState *node);
static void end_wide_scan(CustomScanState *node);
static void rescan_wide_scan(CustomScanState *node);
static void explain_wide_scan(CustomScanState *node, List *ancestors,
							  ExplainState *es);
static Size estimate_wide_scan_dsm(CustomScanState *node, ParallelContext *pcxt);
static void initialize_wide_scan_dsm(CustomScanState *node,
									 ParallelContext *pcxt, void *coordinate);
static void reinitialize_wide_scan_dsm(CustomScanState *node,
									   ParallelContext *pcxt, void *coordinate);
static void initialize_wide_scan_worker(CustomScanState *node, shm_toc *toc,
										void *coordinate);
static void shutdown_wide_scan(CustomScanState *node);

static const CustomPathMethods wide_path_methods = {
	.CustomName = "WideScan",
	.PlanCustomPath = plan_wide_path,
};

static const CustomScanMethods wide_scan_methods = {
	.CustomName = "WideScan",
	.CreateCustomScanState = create_wide_scan_state,
};

static const CustomExecMethods wide_exec_methods = {
	.CustomName = "WideScan",
	.BeginCustomScan = begin_wide_scan,
	.ExecCustomScan = exec_wide_scan,
	.EndCustomScan = end_wide_scan,
	.ReScanCustomScan = rescan_wide_scan,
	.ExplainCustomScan = explain_wide_scan,
	.EstimateDSMCustomScan = estimate_wide_scan_dsm,
	.InitializeDSMCustomScan = initialize_wide_scan_dsm,
	.ReInitializeDSMCustomScan = reinitialize_wide_scan_dsm,
	.InitializeWorkerCustomScan = initialize_wide_scan_worker,
	.ShutdownCustomScan = shutdown_wide_scan,
};

/* a key's bytes, for IN lists */
typedef struct WideKeyRef
{
	const char *data;
	uint32		len;
} WideKeyRef;

typedef struct WideScanState
{
	CustomScanState css;
	List	   *bound_kinds;	/* BOUND_* per bound expression */
	List	   *bound_exprs;	/* ExprState per bound expression */
	List	   *bound_types;	/* type of each bound (of its elements for IN) */
	WideReader *reader;
	MemoryContext tupcxt;
	MemoryContext keycxt;		/* the keys of the current (re)scan */
	MemoryContext readcxt;		/* the open reader's memory */
	/* point reads: the keys of row_key = ANY(...), sorted, and the next one */
	WideKeyRef *keys;
	int			nkeys;
	int			nextkey;
	bool		started;		/* bounds evaluated */
	bool		empty;			/* the bounds exclude every row */
	WideKeyRange range;
	StringInfoData lo;
	StringInfoData hi;
	WideReaderStats stats;
	List	   *ts_kinds;		/* the window of timestamps (scan_tswindow.c) */
	List	   *ts_exprs;
	WideTsWindow window;
	bool		needed[5];		/* columns the plan uses */
	bool		tupcxt_used;
	int			for_delete;		/* WideDeleteTracking: a running DELETE's target */
	const WideSchema *schema;	/* copied at the start of the scan */
	/* parallel scans (scan_parallel.c) */
	WideParallelScan *pscan;	/* the shared state, or NULL: read it all */
	WideSplitKey *splits;		/* the leader's split keys, in splitcxt */
	MemoryContext splitcxt;
	int			nsplits;
	StringInfoData plo;			/* the bounds of the current stretch */
	StringInfoData phi;
	WideReaderStats wstats;		/* the workers', for EXPLAIN ANALYZE */
} WideScanState;

/* ----------------------------------------------------------------
 *	Planning
 * ----------------------------------------------------------------
 */

/* the row_key Var of the relation, if expr is one */
static bool
is_row_key(Node *expr, Index relid)
{
	if (expr && IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	return expr && IsA(expr, Var) && ((Var *) expr)->varno == relid &&
		((Var *) expr)->varattno == 1 && ((Var *) expr)->varlevelsup == 0;
}

/* may the expression be evaluated once when the scan starts? */
static bool
is_scan_constant(Node *expr)
{
	return !contain_var_clause(expr) && !contain_volatile_functions(expr) &&
		!contain_subplans(expr);
}

/* the btree strategy of opno for the key type, under a bytewise collation */
static int
key_strategy(Oid opno, Oid keytype, Oid inputcollid)
{
	Oid			family = (keytype == BYTEAOID) ? BYTEA_BTREE_FAM_OID : TEXT_BTREE_FAM_OID;

	if (keytype == TEXTOID && inputcollid != C_COLLATION_OID)
		return 0;
	return get_op_opfamily_strategy(opno, family);
}

/* is the pattern a constant 'prefix%' whose only wildcard is the last %? */
static bool
like_is_prefix(Node *pattern)
{
	Const	   *c;
	struct varlena *v;
	const char *p;
	int			len,
				i;

	if (!IsA(pattern, Const) || ((Const *) pattern)->constisnull)
		return false;
	c = (Const *) pattern;
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(c->constvalue));
	p = VARDATA_ANY(v);
	len = VARSIZE_ANY_EXHDR(v);
	if (len < 2 || p[len - 1] != '%')
		return false;
	for (i = 0; i < len - 1; i++)
		if (p[i] == '%' || p[i] == '_' || p[i] == '\\')
			return false;
	/* a prefix ending in 0xFF bytes has no exact upper bound */
	return (uint8) p[len - 2] != 0xFF;
}

/*
 * May a bound of this type be compared with the key bytewise?  The key's own
 * type may; so may name against a text key: the btree text family has
 * text-name operators, and a name's bytes (up to its NUL) are the text it
 * equals under the "C" collation, so key_bytes() converts it exactly.
 * Anything else (bpchar, say) reaches the key through a cast to its type,
 * or is not a bound.
 */
static bool
bound_type_ok(Oid type, Oid keytype)
{
	return type == keytype || (keytype == TEXTOID && type == NAMEOID);
}

/*
 * Does the clause bound row_key?  If so, append its kind and bound
 * expression, and say whether the bound enforces the clause exactly (else
 * the clause stays a qual, checked on every row).
 */
static bool
match_clause(Expr *clause, Index relid, Oid keytype, List **kinds, List **exprs,
			 bool *exact)
{
	*exact = true;
	if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) clause;
		Node	   *left = linitial(op->args);
		Node	   *right = lsecond(op->args);
		Oid			opno = op->opno;
		Oid			ltype,
					rtype;
		int			strategy;
		bool		commuted = false;

		if (!is_row_key(left, relid))
		{
			if (!is_row_key(right, relid))
				return false;
			opno = get_commutator(opno);
			if (!OidIsValid(opno))
				return false;
			right = left;
			commuted = true;
		}
		if (!is_scan_constant(right))
			return false;

		/*
		 * The operator must take the key's type on the left, and a type
		 * whose bytes compare as the key's on the right; the expression
		 * must have that type (the parser relabels binary-compatible
		 * arguments, such as varchar, to it).
		 */
		op_input_types(opno, &ltype, &rtype);
		if (ltype != keytype || !bound_type_ok(rtype, keytype) ||
			exprType(right) != rtype)
			return false;

		/* LIKE 'prefix%' on a C-collated text key, or a bytea key */
		if (!commuted &&
			((opno == OID_TEXT_LIKE_OP && op->inputcollid == C_COLLATION_OID) ||
			 opno == OID_BYTEA_LIKE_OP))
		{
			*kinds = lappend_int(*kinds, BOUND_PREFIX);
			*exprs = lappend(*exprs, right);
			*exact = like_is_prefix(right);
			return true;
		}

		strategy = key_strategy(opno, keytype, op->inputcollid);
		switch (strategy)
		{
			case BTEqualStrategyNumber:
				*kinds = lappend_int(*kinds, BOUND_EQ);
				break;
			case BTLessStrategyNumber:
				*kinds = lappend_int(*kinds, BOUND_LT);
				break;
			case BTLessEqualStrategyNumber:
				*kinds = lappend_int(*kinds, BOUND_LE);
				break;
			case BTGreaterStrategyNumber:
				*kinds = lappend_int(*kinds, BOUND_GT);
				break;
			case BTGreaterEqualStrategyNumber:
				*kinds = lappend_int(*kinds, BOUND_GE);
				break;
			default:
				return false;
		}
		*exprs = lappend(*exprs, right);
		return true;
	}
	if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;
		Node	   *arr;
		Oid			ltype,
					rtype;

		if (!sa->useOr || list_length(sa->args) != 2 ||
			!is_row_key(linitial(sa->args), relid))
			return false;
		arr = lsecond(sa->args);
		if (!is_scan_constant(arr))
			return false;
		op_input_types(sa->opno, &ltype, &rtype);
		if (ltype != keytype || !bound_type_ok(rtype, keytype) ||
			get_element_type(exprType(arr)) != rtype ||
			key_strategy(sa->opno, keytype, sa->inputcollid) != BTEqualStrategyNumber)
			return false;
		*kinds = lappend_int(*kinds, BOUND_IN);
		*exprs = lappend(*exprs, arr);
		return true;
	}
	return false;
}

/* the btree operator of a type for a strategy, cached (GetDefaultOpClass
 * scans pg_opclass) */
static Oid
sort_operator(Oid type, int16 strategy)
{
	static struct
	{
		Oid			type;
		int16		strategy;
		Oid			opno;
	}			cache[16];
	static int	ncache = 0;
	Oid			opclass;
	Oid			opno = InvalidOid;
	int			i;

	for (i = 0; i < ncache; i++)
		if (cache[i].type == type && cache[i].strategy == strategy)
			return cache[i].opno;
	opclass = GetDefaultOpClass(type, BTREE_AM_OID);
	if (OidIsValid(opclass))
		opno = get_opfamily_member(get_opclass_family(opclass), type, type, strategy);
	if (ncache < lengthof(cache))
	{
		cache[ncache].type = type;
		cache[ncache].strategy = strategy;
		cache[ncache].opno = opno;
		ncache++;
	}
	return opno;
}

/* pathkeys: (row_key, family, qualifier) ascending, ts descending */
static List *
wide_pathkeys(PlannerInfo *root, RelOptInfo *rel, Relation r)
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
		opno = sort_operator(att->atttypid, attno == 4 ? BTGreaterStrategyNumber :
							 BTLessStrategyNumber);
		if (!OidIsValid(opno))
			break;
		var = makeVar(rel->relid, attno, att->atttypid, att->atttypmod,
					  att->attcollation, 0);
		pk = build_expression_pathkey(root, (Expr *) var, NULL, opno,
									  rel->relids, true);
		if (pk == NIL)
			break;
		pathkeys = list_concat(pathkeys, pk);
	}
	return pathkeys;
}

static void
wide_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					  RangeTblEntry *rte)
{
	Relation	r;
	CustomPath *cpath;
	List	   *kinds = NIL;
	List	   *exprs = NIL;
	List	   *range_clauses = NIL;
	List	   *exact_clauses = NIL;
	ListCell   *lc;
	Oid			keytype;
	Oid			tstype;
	List	   *tskinds = NIL;
	List	   *tsexprs = NIL;
	Selectivity sel = 1.0;
	Cost		seq_total = 0;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (!wide_enable_customscan)
		return;
	if (rel->reloptkind != RELOPT_BASEREL || rte->rtekind != RTE_RELATION ||
		rte->relkind != RELKIND_RELATION || rte->inh || rte->tablesample)
		return;
	r = relation_open(rte->relid, NoLock);
	if (r->rd_tableam != WideTableAmRoutine())
	{
		relation_close(r, NoLock);
		return;
	}
	keytype = TupleDescAttr(RelationGetDescr(r), 0)->atttypid;
	tstype = TupleDescAttr(RelationGetDescr(r), 3)->atttypid;

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		bool		exact;

		if (match_clause(ri->clause, rel->relid, keytype, &kinds, &exprs, &exact))
		{
			range_clauses = lappend(range_clauses, ri);
			if (exact)
				exact_clauses = lappend(exact_clauses, ri);
		}
		else if (WideTsMatchClause(ri->clause, rel->relid, tstype, &tskinds, &tsexprs))
			exact_clauses = lappend(exact_clauses, ri);	/* the reader enforces it */
	}
	if (range_clauses)
		sel = clauselist_selectivity(root, range_clauses, rel->relid,
									 JOIN_INNER, NULL);

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = rel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.rows = rel->rows;
	cpath->path.pathkeys = wide_pathkeys(root, rel, r);
	cpath->flags = 0;
	cpath->custom_private = list_make4(kinds, exprs, exact_clauses,
									   list_make2(tskinds, tsexprs));
	cpath->methods = &wide_path_methods;

	/* a seek costs a few pages; then a share of the table's pages */
	foreach(lc, rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (p->pathtype == T_SeqScan)
			seq_total = p->total_cost;
	}
	if (seq_total <= 0)
		seq_total = rel->pages * seq_page_cost + rel->tuples * cpu_tuple_cost;
	/* never more than a sequential scan: it is one, with a start and end */
	cpath->path.startup_cost = 0;
	cpath->path.total_cost = seq_total * Min(sel * 1.1 + 0.001, 0.9);
	add_path(rel, &cpath->path);
	/* a large range (not a point read or a list of keys) may go parallel */
	if (!list_member_int(kinds, BOUND_IN) && !list_member_int(kinds, BOUND_EQ))
		WideAddPartialPath(root, rel, cpath, sel);
	relation_close(r, NoLock);
}

static Plan *
plan_wide_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *kinds = linitial(best_path->custom_private);
	List	   *exprs = lsecond(best_path->custom_private);
	List	   *exact = lthird(best_path->custom_private);
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
	cscan->custom_private = list_make2(kinds, linitial(ts));
	cscan->custom_scan_tlist = NIL;
	cscan->methods = &wide_scan_methods;
	return &cscan->scan.plan;
}

/* ----------------------------------------------------------------
 *	Execution
 * ----------------------------------------------------------------
 */

static Node *
create_wide_scan_state(CustomScan *cscan)
{
	WideScanState *s = (WideScanState *) newNode(sizeof(WideScanState),
												 T_CustomScanState);

	s->css.methods = &wide_exec_methods;
	s->bound_kinds = linitial(cscan->custom_private);
	s->ts_kinds = lsecond(cscan->custom_private);
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

		if (lfirst_int(lk) == BOUND_IN)
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
}

/*
 * The bytes of a bound: a text or bytea datum, or a name (its bytes up to
 * the NUL: the text it equals).  The planner admits no other type
 * (bound_type_ok).  May detoast into the current memory context.
 */
static void
key_bytes(Datum d, Oid type, const char **p, uint32 *len)
{
	struct varlena *v;

	if (type == NAMEOID)
	{
		*p = NameStr(*DatumGetName(d));
		*len = strlen(*p);
		return;
	}
	Assert(type == TEXTOID || type == BYTEAOID);
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
	*p = VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
}

/* tighten the range's lower bound */
static void
set_lower(WideScanState *s, const char *k, uint32 len, bool incl)
{
	WideKeyRange *r = &s->range;
	int			cmp = r->has_start ? WideKeyCompare(k, len, s->lo.data, s->lo.len) : 1;

	if (cmp > 0 || (cmp == 0 && !incl))
	{
		resetStringInfo(&s->lo);
		appendBinaryStringInfo(&s->lo, k, len);
		r->has_start = true;
		r->start_incl = incl;
	}
}

/* tighten the range's upper bound */
static void
set_upper(WideScanState *s, const char *k, uint32 len, bool incl)
{
	WideKeyRange *r = &s->range;
	int			cmp = r->has_end ? WideKeyCompare(k, len, s->hi.data, s->hi.len) : -1;

	if (cmp < 0 || (cmp == 0 && !incl))
	{
		resetStringInfo(&s->hi);
		appendBinaryStringInfo(&s->hi, k, len);
		r->has_end = true;
		r->end_incl = incl;
	}
}

/* bound from LIKE 'prefix%': [prefix, prefix with its last byte + 1) */
static void
set_prefix(WideScanState *s, const char *pat, uint32 len)
{
	StringInfoData prefix;
	uint32		i;

	initStringInfo(&prefix);
	for (i = 0; i < len; i++)
	{
		if (pat[i] == '%' || pat[i] == '_')
			break;
		if (pat[i] == '\\')
		{
			if (++i >= len)
				break;
		}
		appendStringInfoChar(&prefix, pat[i]);
	}
	if (prefix.len == 0)
		return;
	set_lower(s, prefix.data, prefix.len, true);
	/* the smallest key greater than every key with this prefix */
	while (prefix.len > 0 && (uint8) prefix.data[prefix.len - 1] == 0xFF)
		prefix.len--;
	if (prefix.len > 0)
	{
		prefix.data[prefix.len - 1]++;
		set_upper(s, prefix.data, prefix.len, false);
	}
	pfree(prefix.data);
}

/* qsort comparator of WideKeyRefs */
static int
cmp_key_ref(const void *a, const void *b)
{
	const WideKeyRef *ka = (const WideKeyRef *) a;
	const WideKeyRef *kb = (const WideKeyRef *) b;

	return WideKeyCompare(ka->data, ka->len, kb->data, kb->len);
}

/*
 * The keys of an array bound, intersected with previous IN lists.  The
 * array lives in per-tuple memory, which every tuple resets: the keys are
 * copied into keycxt, which lasts until the next (re)scan.
 */
static void
set_in_list(WideScanState *s, Datum arr, Oid elemtype)
{
	ArrayType  *a = DatumGetArrayTypeP(arr);
	Datum	   *elems;
	bool	   *nulls;
	WideKeyRef *keys;
	int			n;
	int			i,
				k = 0;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	if (ARR_ELEMTYPE(a) != elemtype)
		elog(ERROR, "wide scan: array of type %u where %u was planned",
			 ARR_ELEMTYPE(a), elemtype);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(a, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &n);
	keys = MemoryContextAlloc(s->keycxt, Max(n, 1) * sizeof(WideKeyRef));
	for (i = 0; i < n; i++)
	{
		const char *p;
		uint32		len;
		char	   *copy;

		/* "row_key = NULL" is never true */
		if (nulls[i])
			continue;
		key_bytes(elems[i], elemtype, &p, &len);
		copy = MemoryContextAlloc(s->keycxt, len + 1);
		memcpy(copy, p, len);
		keys[k].data = copy;
		keys[k].len = len;
		k++;
	}
	qsort(keys, k, sizeof(WideKeyRef), cmp_key_ref);
	/* drop duplicates */
	n = k;
	k = 0;
	for (i = 0; i < n; i++)
		if (k == 0 || cmp_key_ref(&keys[k - 1], &keys[i]) != 0)
			keys[k++] = keys[i];
	if (s->keys == NULL)
	{
		s->keys = keys;
		s->nkeys = k;
	}
	else
	{
		/* two IN lists: keep the keys in both */
		int			j = 0,
					m = 0;

		for (i = 0; i < s->nkeys && j < k;)
		{
			int			c = cmp_key_ref(&s->keys[i], &keys[j]);

			if (c == 0)
			{
				s->keys[m++] = s->keys[i];
				i++, j++;
			}
			else if (c < 0)
				i++;
			else
				j++;
		}
		s->nkeys = m;
	}
}

/* evaluate the bounds: the range (and IN keys) of this scan */
static void
compute_range(WideScanState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	ListCell   *lk,
			   *le,
			   *lt;
	MemoryContext old;

	memset(&s->range, 0, sizeof(s->range));
	MemoryContextReset(s->keycxt);
	s->keys = NULL;
	s->nkeys = 0;
	s->nextkey = 0;
	s->empty = false;
	resetStringInfo(&s->lo);
	resetStringInfo(&s->hi);

	/*
	 * Bounds are evaluated, and detoasted, in per-tuple memory; set_lower,
	 * set_upper and set_in_list copy what they keep.
	 */
	ResetExprContext(econtext);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	forthree(lk, s->bound_kinds, le, s->bound_exprs, lt, s->bound_types)
	{
		int			kind = lfirst_int(lk);
		bool		isnull;
		Datum		d = ExecEvalExpr((ExprState *) lfirst(le), econtext, &isnull);
		const char *k;
		uint32		len;

		if (isnull)
		{
			/* "row_key op NULL" is never true */
			s->empty = true;
			break;
		}
		if (kind == BOUND_IN)
		{
			set_in_list(s, d, lfirst_oid(lt));
			continue;
		}
		key_bytes(d, lfirst_oid(lt), &k, &len);
		switch (kind)
		{
			case BOUND_EQ:
				set_lower(s, k, len, true);
				set_upper(s, k, len, true);
				break;
			case BOUND_LT:
				set_upper(s, k, len, false);
				break;
			case BOUND_LE:
				set_upper(s, k, len, true);
				break;
			case BOUND_GT:
				set_lower(s, k, len, false);
				break;
			case BOUND_GE:
				set_lower(s, k, len, true);
				break;
			case BOUND_PREFIX:
				set_prefix(s, k, len);
				break;
		}
	}
	MemoryContextSwitchTo(old);
	if (s->empty)
		return;
	s->range.start = s->lo.data;
	s->range.startlen = s->lo.len;
	s->range.end = s->hi.data;
	s->range.endlen = s->hi.len;
	if (s->range.has_start && s->range.has_end)
	{
		int			cmp = WideKeyCompare(s->lo.data, s->lo.len, s->hi.data, s->hi.len);

		if (cmp > 0 || (cmp == 0 && !(s->range.start_incl && s->range.end_incl)))
			s->empty = true;
		else if (cmp == 0)
			s->range.is_point = true;
	}
	if (s->keys != NULL && s->nkeys == 0)
		s->empty = true;
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
			k = s->keys[s->nextkey].data;
			len = s->keys[s->nextkey].len;
			s->nextkey++;
			if (!WideRowBeforeRange(&s->range, k, len) &&
				!WideRowAfterRange(&s->range, k, len))
				break;
		}
		r.has_start = r.has_end = r.start_incl = r.end_incl = r.is_point = true;
		r.start = r.end = k;
		r.startlen = r.endlen = len;
	}
	/*
	 * The reader lives in readcxt, reset when it is closed: a scan opens one
	 * per key of an IN list and one per rescan, and what a reader leaves
	 * behind must not pile up in the query's memory.
	 */
	old = MemoryContextSwitchTo(s->readcxt);
	if (s->pscan != NULL)
	{
		/* a parallel scan: the range, read by the stretches it claims */
		s->reader = WideReaderBeginRanges(rel, estate->es_snapshot,
										  WideParallelNow(s->pscan), &r,
										  s->ts_kinds ? &s->window : NULL);
		MemoryContextSwitchTo(old);
		next_stretch(s);
		return true;
	}
	s->reader = WideReaderBeginTs(rel, estate->es_snapshot, WideReaderNow(), &r,
								  s->ts_kinds ? &s->window : NULL);
	MemoryContextSwitchTo(old);
	return true;
}

static void
close_reader(WideScanState *s)
{
	WideReaderStats st;
	MemoryContext old;

	if (s->reader == NULL)
		return;
	st = WideReaderGetStats(s->reader);
	s->stats.wa_records += st.wa_records;
	s->stats.runs_read += st.runs_read;
	s->stats.blocks_read += st.blocks_read;
	s->stats.blocks_skipped += st.blocks_skipped;
	s->stats.index_skipped += st.index_skipped;
	s->stats.records += st.records;
	s->stats.cells += st.cells;
	old = MemoryContextSwitchTo(s->readcxt);
	WideReaderEnd(s->reader);
	MemoryContextSwitchTo(old);
	s->reader = NULL;
	MemoryContextReset(s->readcxt);
}

static TupleTableSlot *
wide_scan_next(ScanState *ss)
{
	WideScanState *s = (WideScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	const WideCell *cell;
	MemoryContext old;

	if (s->empty)
		return ExecClearTuple(slot);
	for (;;)
	{
		if (s->reader == NULL && !open_reader(s))
		{
			s->empty = true;
			return ExecClearTuple(slot);
		}
		old = MemoryContextSwitchTo(s->readcxt);
		cell = WideReaderNext(s->reader);
		MemoryContextSwitchTo(old);
		if (cell != NULL)
			break;
		if (s->pscan != NULL && next_stretch(s))
			continue;
		close_reader(s);
		if (s->keys == NULL)
		{
			s->empty = true;
			return ExecClearTuple(slot);
		}
	}

	ExecClearTuple(slot);
	if (s->tupcxt_used)
		MemoryContextReset(s->tupcxt);
	old = MemoryContextSwitchTo(s->tupcxt);
	s->tupcxt_used = WideCellToValues(s->schema, cell, slot->tts_values,
									  slot->tts_isnull, s->needed);
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
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
	compute_range(s);
	if (!s->empty && s->ts_kinds)
		s->empty = !WideTsWindowEval(s->ts_kinds, s->ts_exprs,
									 s->css.ss.ps.ps_ExprContext, &s->window);
	s->started = true;
}

static TupleTableSlot *
exec_wide_scan(CustomScanState *node)
{
	WideScanState *s = (WideScanState *) node;

	if (!s->started)
		start_scan(s);
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

static void
explain_wide_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WideScanState *s = (WideScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	ListCell   *lk,
			   *le;
	StringInfoData buf;
	bool		first = true;

	if (s->bound_kinds == NIL)
		ExplainPropertyText("Row Keys", "all", es);
	else
	{
		context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
										   ancestors);
		initStringInfo(&buf);
		forboth(lk, s->bound_kinds, le, cscan->custom_exprs)
		{
			static const char *const names[] = {
				"", "=", "<", "<=", ">", ">=", "LIKE", "= ANY"
			};

			if (!first)
				appendStringInfoString(&buf, " AND ");
			first = false;
			appendStringInfo(&buf, "row_key %s %s", names[lfirst_int(lk)],
							 deparse_expression(lfirst(le), context, false, false));
		}
		ExplainPropertyText("Row Keys", buf.data, es);
	}
	WideTsWindowExplain(&node->ss.ps, s->ts_kinds,
						list_copy_tail(cscan->custom_exprs, list_length(s->bound_kinds)),
						ancestors, es);
	if (es->analyze)
	{
		WideReaderStats st = s->stats;

		if (s->reader)
		{
			WideReaderStats cur = WideReaderGetStats(s->reader);

			st.runs_read += cur.runs_read;
			st.blocks_read += cur.blocks_read;
			st.blocks_skipped += cur.blocks_skipped;
			st.index_skipped += cur.index_skipped;
			st.records += cur.records;
		}
		st.runs_read += s->wstats.runs_read;
		st.blocks_read += s->wstats.blocks_read;
		st.records += s->wstats.records;
		ExplainPropertyInteger("Runs Read", NULL, st.runs_read, es);
		ExplainPropertyInteger("Blocks Read", NULL, st.blocks_read, es);
		if (s->ts_kinds)
		{
			ExplainPropertyInteger("Blocks Skipped by ts", NULL, st.blocks_skipped, es);
			ExplainPropertyInteger("Index Blocks Skipped by ts", NULL, st.index_skipped, es);
		}
		ExplainPropertyInteger("Records Merged", NULL, st.records, es);
		/* a parallel scan: its key range was cut into this many stretches */
		if (s->nsplits >= 0 && node->ss.ps.plan->parallel_aware && s->splitcxt)
			ExplainPropertyInteger("Stretches", NULL, s->nsplits + 1, es);
	}
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
	WideParallelDefineSettings();
	RegisterCustomScanMethods(&wide_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = wide_set_rel_pathlist;
}
