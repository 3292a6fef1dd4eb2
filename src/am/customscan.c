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

/* kinds of bounds, in custom_private, one per custom_exprs entry */
#define BOUND_EQ		1
#define BOUND_LT		2
#define BOUND_LE		3
#define BOUND_GT		4
#define BOUND_GE		5
#define BOUND_PREFIX	6		/* expr is the LIKE pattern */
#define BOUND_IN		7		/* expr is an array of keys */
#define BOUND_STARTS	8		/* expr is a prefix of the keys */
#define BOUND_IPREFIX_C	9		/* expr is an ILIKE pattern, "C" collation */
#define BOUND_IPREFIX	10		/* expr is an ILIKE pattern, other collation */
/* not bounds of the key: sets of the families and qualifiers kept */
#define FILTER_FAMILY	11		/* expr is a family */
#define FILTER_FAMILY_IN 12		/* expr is an array of families */
#define FILTER_QUAL		13		/* expr is a qualifier */
#define FILTER_QUAL_IN	14		/* expr is an array of qualifiers */
#define IS_FILTER(kind)	((kind) >= FILTER_FAMILY && (kind) <= FILTER_QUAL_IN)
#define BOUND_ICASE		15		/* expr is a prefix, ASCII letters in any case */
/*
 * An OR of key conditions: BOUND_OR, then per arm BOUND_ARM followed by the
 * arm's bounds (comparisons, =, LIKE and starts_with prefixes, IN lists),
 * then BOUND_OR_END; the markers' exprs are placeholders.  The scan reads
 * the union of the arms' ranges, sorted and merged (WideKeyRangesNormalize).
 */
#define BOUND_OR		16
#define BOUND_ARM		17
#define BOUND_OR_END	18
#define IS_MARKER(kind)	((kind) >= BOUND_OR && (kind) <= BOUND_OR_END)
/* split_part(row_key, sep, 1) = x: BOUND_SEP (expr: sep), then BOUND_SPLIT */
#define BOUND_SEP		19		/* expr is the one-byte separator */
#define BOUND_SPLIT		20		/* expr is the first key part */
#define BOUND_SPLIT_IN	21		/* expr is an array of first key parts */

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/* wide.enable_customscan: offer the planner the Wide Scan path */
static bool wide_enable_customscan = true;

/* wide.enable_range_lists: ORs and split_part lists as lists of ranges */
static bool wide_enable_range_lists = true;

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
	WideReverseReader *rreader; /* the reader of a backward scan */
	bool		backward;		/* rows last first: engine/reverse.c */
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
	WideColumnFilter columns;	/* the families and qualifiers kept */
	/* ILIKE: one range per case variant of a prefix, sorted, and the next */
	WideBytes  *prefixes;
	int			nprefixes;
	int			nextprefix;
	/* OR arms, key parts: a list of ranges, normalized, and the next one */
	bool		has_ranges;
	WideKeyRange *ranges;
	int			nranges;
	int			nextrange;
	StringInfoData prefix_end;
	StringInfoData lo;
	StringInfoData hi;
	WideReaderStats stats;
	List	   *ts_kinds;		/* the window of timestamps (scan_tswindow.c) */
	List	   *ts_exprs;
	WideTsWindow window;
	bool		needed[5];		/* columns the plan uses */
	bool		tupcxt_used;
	WideAggMemo aggmemo;		/* WideCellToValuesMemo's */
	int			for_delete;		/* WideDeleteTracking: a running DELETE's target */
	/* the whole of a DELETE, as one range tombstone (am/rangedel.c) */
	bool		range_delete;	/* planned so */
	bool		rd_tried;
	bool		rd_done;		/* done so: the scan returns nothing */
	uint64		rd_cells;		/* cells it deleted */
	int			rd_tombstones;	/* of rows or ranges, for a list (0: one
								 * range) */
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

/* WideComparisonSplit's test: the row_key of the relation *arg */
static bool
row_key_test(Node *expr, void *arg)
{
	return is_row_key(expr, *(Index *) arg);
}

/* does the expression use a column of the relation (or a placeholder)? */
static bool
uses_rel_walker(Node *node, Index *relid)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varno == *relid &&
			((Var *) node)->varlevelsup == 0;
	if (IsA(node, PlaceHolderVar))
		return true;
	return expression_tree_walker(node, uses_rel_walker, (void *) relid);
}

/*
 * May the expression be evaluated once when the scan starts?  It may use
 * columns of other relations: those of a nested loop's outer side, which
 * are parameters of a parameterized path (see add_join_paths).
 */
static bool
is_scan_constant(Node *expr, Index relid)
{
	return !uses_rel_walker(expr, &relid) && !contain_volatile_functions(expr) &&
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

/* what the clauses of one path push down into the scan */
typedef struct WideMatch
{
	Index		relid;
	Oid			keytype;
	TupleDesc	desc;
	List	   *kinds;			/* BOUND_* and FILTER_* */
	List	   *exprs;			/* their expressions */
	List	   *sels;			/* clauses whose selectivity is the range's */
	bool		has_range;		/* some bound narrows the keys */
	double		nseeks;			/* ranges or keys the scan seeks to */
} WideMatch;

static Oid	sort_operator(Oid type, int16 strategy);

/* append a bound (or filter) */
static void
add_bound(WideMatch *m, int kind, Node *expr)
{
	m->kinds = lappend_int(m->kinds, kind);
	m->exprs = lappend(m->exprs, expr);
	if (!IS_FILTER(kind))
		m->has_range = true;
}

/* a constant of the key's type */
static Const *
key_const(WideMatch *m, StringInfo bytes)
{
	return makeConst(m->keytype, -1,
					 m->keytype == TEXTOID ? DEFAULT_COLLATION_OID : InvalidOid, -1,
					 PointerGetDatum(cstring_to_text_with_len(bytes->data, bytes->len)),
					 false, false);
}

/* "row_key <op> bound", for the planner's selectivity of a range */
static Expr *
key_opclause(WideMatch *m, int16 strategy, Const *bound)
{
	Oid			coll = m->keytype == TEXTOID ? C_COLLATION_OID : InvalidOid;

	return make_opclause(sort_operator(m->keytype, strategy), BOOLOID, false,
						 (Expr *) makeVar(m->relid, 1, m->keytype, -1, coll, 0),
						 (Expr *) bound, InvalidOid, coll);
}

/*
 * A pattern on the key (LIKE, ILIKE, starts_with): a constant one becomes
 * the range of its literal prefix now, shown as such by EXPLAIN, or no
 * bound at all if it begins with a wildcard; another is read when the scan
 * starts.  Sets *exact when the range is the condition.
 */
static bool
match_pattern(WideMatch *m, Expr *clause, Node *pattern, int mode, bool *exact)
{
	StringInfoData lo,
				hi;
	bool		has_hi,
				same;
	struct varlena *v;
	Const	   *c;

	*exact = false;
	if (!IsA(pattern, Const))
	{
		add_bound(m, mode == WIDE_PAT_LIKE ? BOUND_PREFIX :
				  mode == WIDE_PAT_ILIKE_C ? BOUND_IPREFIX_C :
				  mode == WIDE_PAT_ILIKE ? BOUND_IPREFIX : BOUND_STARTS, pattern);
		m->sels = lappend(m->sels, clause);
		m->nseeks = Max(m->nseeks, 1);
		*exact = (mode == WIDE_PAT_STARTS);
		return true;
	}
	if (((Const *) pattern)->constisnull)
		return false;
	v = pg_detoast_datum_packed((struct varlena *)
								DatumGetPointer(((Const *) pattern)->constvalue));
	initStringInfo(&lo);
	initStringInfo(&hi);
	if (mode == WIDE_PAT_ILIKE_C)
	{
		/* a few letters: a range per case variant (set_icase) */
		int			letters = WidePatternPrefix(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
												mode, &lo);
		int			variants = WideCaseVariantCount(letters, WIDE_MAX_CASE_VARIANTS);

		if (letters > 0 && variants > 0)
		{
			add_bound(m, BOUND_ICASE, (Node *) key_const(m, &lo));
			m->sels = lappend(m->sels, clause);
			m->nseeks = Max(m->nseeks, variants);
			return true;
		}
	}
	if (!WidePatternRange(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), mode, &lo, &hi,
						  &has_hi, &same))
		return false;
	c = key_const(m, &lo);
	if (same)
		add_bound(m, BOUND_STARTS, (Node *) c);
	else
		add_bound(m, BOUND_GE, (Node *) c);
	m->sels = lappend(m->sels, key_opclause(m, BTGreaterEqualStrategyNumber, c));
	if (has_hi)
	{
		c = key_const(m, &hi);
		if (!same)
			add_bound(m, BOUND_LT, (Node *) c);
		m->sels = lappend(m->sels, key_opclause(m, BTLessStrategyNumber, c));
	}
	m->nseeks = Max(m->nseeks, 1);
	*exact = mode == WIDE_PAT_STARTS ||
		(mode == WIDE_PAT_LIKE && like_is_prefix(pattern));
	return true;
}

/* is node the column attno of the relation? */
static bool
is_column(Node *node, Index relid, AttrNumber attno)
{
	if (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node && IsA(node, Var) && ((Var *) node)->varno == relid &&
		((Var *) node)->varattno == attno && ((Var *) node)->varlevelsup == 0;
}

/*
 * family = x, family = ANY(array), and the same on qualifier: the sets of
 * columns the scan keeps, checked exactly on every merged cell.  Text
 * compares bytewise for equality under every deterministic collation.
 */
static bool
match_column(WideMatch *m, Expr *clause)
{
	List	   *args;
	Oid			opno,
				collid;
	bool		is_array = IsA(clause, ScalarArrayOpExpr);
	Node	   *col,
			   *arg;
	AttrNumber attno;
	Oid			coltype,
				ltype,
				rtype;

	if (IsA(clause, OpExpr))
	{
		args = ((OpExpr *) clause)->args;
		opno = ((OpExpr *) clause)->opno;
		collid = ((OpExpr *) clause)->inputcollid;
	}
	else if (is_array && ((ScalarArrayOpExpr *) clause)->useOr)
	{
		args = ((ScalarArrayOpExpr *) clause)->args;
		opno = ((ScalarArrayOpExpr *) clause)->opno;
		collid = ((ScalarArrayOpExpr *) clause)->inputcollid;
	}
	else
		return false;
	if (list_length(args) != 2)
		return false;
	col = linitial(args);
	arg = lsecond(args);
	if (!is_array && !is_column(col, m->relid, 2) && !is_column(col, m->relid, 3))
	{
		/* x = family */
		col = arg;
		arg = linitial(args);
		opno = get_commutator(opno);
		if (!OidIsValid(opno))
			return false;
	}
	if (is_column(col, m->relid, 2))
		attno = 2;
	else if (is_column(col, m->relid, 3))
		attno = 3;
	else
		return false;
	if (!is_scan_constant(arg, m->relid))
		return false;
	coltype = TupleDescAttr(m->desc, attno - 1)->atttypid;
	if (coltype != TEXTOID && coltype != BYTEAOID)
		return false;
	op_input_types(opno, &ltype, &rtype);
	if (ltype != coltype || !bound_type_ok(rtype, coltype) ||
		(is_array ? get_element_type(exprType(arg)) : exprType(arg)) != rtype)
		return false;
	if (get_op_opfamily_strategy(opno, coltype == BYTEAOID ? BYTEA_BTREE_FAM_OID :
								 TEXT_BTREE_FAM_OID) != BTEqualStrategyNumber)
		return false;
	if (coltype == TEXTOID &&
		(!OidIsValid(collid) || !get_collation_isdeterministic(collid)))
		return false;
	add_bound(m, attno == 2 ? (is_array ? FILTER_FAMILY_IN : FILTER_FAMILY) :
			  (is_array ? FILTER_QUAL_IN : FILTER_QUAL), arg);
	return true;
}

/*
 * Is expr split_part(row_key, sep, 1) with a one-byte ASCII separator, under
 * a deterministic collation?  Then split_part(row_key, sep, 1) = v (v free
 * of sep) holds exactly for row_key = v and the keys beginning with v||sep
 * (a key without the separator is its own first part): an ASCII byte is
 * never part of another character in a server encoding, so the search is
 * bytewise.  A v that holds sep is no key's first part.
 */
static bool
split_part_sep(Node *expr, Index relid, char *sep)
{
	FuncExpr   *f;
	Const	   *c,
			   *n;
	struct varlena *v;

	if (expr == NULL || !IsA(expr, FuncExpr))
		return false;
	f = (FuncExpr *) expr;
	if (f->funcid != F_SPLIT_PART || list_length(f->args) != 3 ||
		!is_row_key(linitial(f->args), relid) ||
		exprType(linitial(f->args)) != TEXTOID ||
		!IsA(lsecond(f->args), Const) || !IsA(lthird(f->args), Const))
		return false;
	c = (Const *) lsecond(f->args);
	n = (Const *) lthird(f->args);
	if (c->constisnull || n->constisnull || c->consttype != TEXTOID ||
		n->consttype != INT4OID || DatumGetInt32(n->constvalue) != 1 ||
		!OidIsValid(f->inputcollid) || !get_collation_isdeterministic(f->inputcollid))
		return false;
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(c->constvalue));
	if (VARSIZE_ANY_EXHDR(v) != 1 || (unsigned char) VARDATA_ANY(v)[0] >= 0x80)
		return false;
	*sep = VARDATA_ANY(v)[0];
	return true;
}

/* a placeholder expression for the markers of an OR */
static Node *
marker_expr(void)
{
	return (Node *) makeBoolConst(true, false);
}

/*
 * split_part(row_key, sep, 1) = x, or = ANY(array): exact ranges.  Constant
 * values (up to 64) become an OR of "row_key = v" and "row_key ^@ v||sep"
 * now, shown as such by EXPLAIN; others are read when the scan starts
 * (BOUND_SPLIT, BOUND_SPLIT_IN).
 */
static bool
match_split(WideMatch *m, Expr *clause, bool *exact)
{
	List	   *args;
	Oid			opno,
				collid;
	bool		is_array = IsA(clause, ScalarArrayOpExpr);
	Node	   *fn,
			   *arg;
	char		sep;
	Oid			ltype,
				rtype;

	if (IsA(clause, OpExpr))
	{
		args = ((OpExpr *) clause)->args;
		opno = ((OpExpr *) clause)->opno;
		collid = ((OpExpr *) clause)->inputcollid;
	}
	else if (is_array && ((ScalarArrayOpExpr *) clause)->useOr)
	{
		args = ((ScalarArrayOpExpr *) clause)->args;
		opno = ((ScalarArrayOpExpr *) clause)->opno;
		collid = ((ScalarArrayOpExpr *) clause)->inputcollid;
	}
	else
		return false;
	if (m->keytype != TEXTOID || list_length(args) != 2)
		return false;
	fn = linitial(args);
	arg = lsecond(args);
	if (!is_array && !split_part_sep(fn, m->relid, &sep))
	{
		fn = arg;
		arg = linitial(args);
		opno = get_commutator(opno);
	}
	if (!OidIsValid(opno) || !split_part_sep(fn, m->relid, &sep) ||
		!is_scan_constant(arg, m->relid))
		return false;
	op_input_types(opno, &ltype, &rtype);
	if (ltype != TEXTOID || rtype != TEXTOID ||
		(is_array ? get_element_type(exprType(arg)) : exprType(arg)) != TEXTOID ||
		get_op_opfamily_strategy(opno, TEXT_BTREE_FAM_OID) != BTEqualStrategyNumber ||
		!OidIsValid(collid) || !get_collation_isdeterministic(collid))
		return false;
	*exact = true;
	/* a long constant list is turned into ranges when the scan starts */
	if (IsA(arg, Const) &&
		(!is_array || ((Const *) arg)->constisnull ||
		 WideArrayLength(arg, 0) <= 64))
	{
		Const	   *c = (Const *) arg;
		Datum	   *elems = &c->constvalue;
		bool	   *nulls = NULL;
		int			n = 1;
		List	   *armsels = NIL;
		int			i;

		if (c->constisnull)
			return false;
		if (is_array)
			deconstruct_array(DatumGetArrayTypeP(c->constvalue), TEXTOID, -1, false,
							  TYPALIGN_INT, &elems, &nulls, &n);
		add_bound(m, BOUND_OR, marker_expr());
		for (i = 0; i < n; i++)
		{
			struct varlena *v;
			StringInfoData k,
						end;
			bool		has_end;
			Const	   *lo;

			if (nulls && nulls[i])
				continue;
			v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(elems[i]));
			if (memchr(VARDATA_ANY(v), sep, VARSIZE_ANY_EXHDR(v)) != NULL)
				continue;		/* no key's first part */
			initStringInfo(&k);
			initStringInfo(&end);
			appendBinaryStringInfo(&k, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
			add_bound(m, BOUND_ARM, marker_expr());
			lo = key_const(m, &k);
			add_bound(m, BOUND_EQ, (Node *) lo);
			armsels = lappend(armsels, key_opclause(m, BTEqualStrategyNumber, lo));
			appendStringInfoChar(&k, sep);
			WidePrefixEnd(&end, k.data, k.len, &has_end);
			add_bound(m, BOUND_ARM, marker_expr());
			lo = key_const(m, &k);
			add_bound(m, BOUND_STARTS, (Node *) lo);
			armsels = lappend(armsels,
							  make_andclause(list_make2(key_opclause(m, BTGreaterEqualStrategyNumber, lo),
														key_opclause(m, BTLessStrategyNumber,
																	 key_const(m, &end)))));
		}
		add_bound(m, BOUND_OR_END, marker_expr());
		if (armsels != NIL)
			m->sels = lappend(m->sels, list_length(armsels) > 1 ?
							  make_orclause(armsels) : linitial(armsels));
		else
			m->sels = lappend(m->sels, makeBoolConst(false, false));
		m->nseeks = m->nseeks > 1 ? Min(m->nseeks, Max(list_length(armsels), 1)) :
			Max(list_length(armsels), 1);
		return true;
	}
	add_bound(m, BOUND_SEP, (Node *) makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
											   PointerGetDatum(cstring_to_text_with_len(&sep, 1)),
											   false, false));
	add_bound(m, is_array ? BOUND_SPLIT_IN : BOUND_SPLIT, arg);
	m->sels = lappend(m->sels, clause);
	{
		double		nvals = is_array ? WideArrayLength(arg, 10) : 1;

		m->nseeks = m->nseeks > 1 ? Min(m->nseeks, 2 * nvals) : 2 * nvals;
	}
	return true;
}

static bool match_clause(WideMatch *m, Expr *clause, bool *exact);

/* may a bound of this kind be one of an OR arm's? */
static bool
arm_kind_ok(int kind)
{
	return kind == BOUND_EQ || kind == BOUND_LT || kind == BOUND_LE ||
		kind == BOUND_GT || kind == BOUND_GE || kind == BOUND_PREFIX ||
		kind == BOUND_IN || kind == BOUND_STARTS || kind == BOUND_IPREFIX;
}

/*
 * An OR whose every arm bounds row_key: the union of the arms' ranges.  An
 * arm is an AND of conditions, of which those on the key give its range
 * and the others (families, values, ...) are left to the Filter: the OR is
 * exact only if every condition of every arm is.
 */
static bool
match_or(WideMatch *m, BoolExpr *or, bool *exact)
{
	List	   *kinds = list_make1_int(BOUND_OR);
	List	   *exprs = list_make1(marker_expr());
	double		seeks = 0;
	ListCell   *la;

	*exact = true;
	foreach(la, or->args)
	{
		Node	   *arm = lfirst(la);
		List	   *conj = is_andclause(arm) ? ((BoolExpr *) arm)->args : list_make1(arm);
		WideMatch	a;
		ListCell   *lc;
		bool		bounded = false;

		memset(&a, 0, sizeof(a));
		a.relid = m->relid;
		a.keytype = m->keytype;
		a.desc = m->desc;
		/*
		 * An arm that is itself an OR of ranges (a constant split_part
		 * list, an OR the planner did not flatten): its arms are ours
		 */
		if (list_length(conj) == 1)
		{
			bool		e;

			if (match_clause(&a, linitial(conj), &e) &&
				list_length(a.kinds) >= 2 && linitial_int(a.kinds) == BOUND_OR &&
				llast_int(a.kinds) == BOUND_OR_END)
			{
				/* one OR group, nothing beside it */
				int			depth = 0;
				bool		flat = true;

				foreach(lc, a.kinds)
				{
					int			k = lfirst_int(lc);

					depth += k == BOUND_OR ? 1 : k == BOUND_OR_END ? -1 : 0;
					if (depth == 0 && lnext(a.kinds, lc) != NULL)
						flat = false;
				}
				if (flat)
				{
					int			n = list_length(a.kinds);

					kinds = list_concat(kinds, list_copy_tail(list_truncate(a.kinds, n - 1), 1));
					exprs = list_concat(exprs, list_copy_tail(list_truncate(a.exprs, n - 1), 1));
					*exact = *exact && e;
					seeks += Max(a.nseeks, 1);
					continue;
				}
			}
			a.kinds = a.exprs = a.sels = NIL;
			a.has_range = false;
			a.nseeks = 0;
		}
		foreach(lc, conj)
		{
			int			before = list_length(a.kinds);
			bool		e;
			bool		ok;

			ok = match_clause(&a, lfirst(lc), &e);
			for (int i = before; ok && i < list_length(a.kinds); i++)
				ok = arm_kind_ok(list_nth_int(a.kinds, i));
			if (ok && list_length(a.kinds) > before)
			{
				bounded = true;
				*exact = *exact && e;
				continue;
			}
			a.kinds = list_truncate(a.kinds, before);
			a.exprs = list_truncate(a.exprs, before);
			*exact = false;
		}
		if (!bounded)
			return false;		/* an arm that bounds nothing: every key */
		kinds = lappend_int(kinds, BOUND_ARM);
		kinds = list_concat(kinds, a.kinds);
		exprs = lappend(exprs, marker_expr());
		exprs = list_concat(exprs, a.exprs);
		seeks += Max(a.nseeks, 1);
	}
	kinds = lappend_int(kinds, BOUND_OR_END);
	exprs = lappend(exprs, marker_expr());
	{
		ListCell   *lk,
				   *le;

		forboth(lk, kinds, le, exprs)
			add_bound(m, lfirst_int(lk), lfirst(le));
	}
	m->sels = lappend(m->sels, or);
	m->nseeks = m->nseeks > 1 ? Min(m->nseeks, Max(seeks, 1)) : Max(seeks, 1);
	return true;
}

/*
 * Does the clause bound row_key (or pick families or qualifiers)?  If so,
 * append its kinds and bound expressions, and say whether the bounds
 * enforce the clause exactly (else the clause stays a qual, checked on
 * every row).
 */
static bool
match_clause(WideMatch *m, Expr *clause, bool *exact)
{
	Index		relid = m->relid;
	Oid			keytype = m->keytype;
	WideComparison cmp;

	*exact = true;
	if (match_column(m, clause))
		return true;
	if (wide_enable_range_lists && is_orclause(clause))
		return match_or(m, (BoolExpr *) clause, exact);
	if (wide_enable_range_lists && match_split(m, clause, exact))
		return true;
	*exact = true;

	/* starts_with(row_key, prefix): bytewise under deterministic collations */
	if (IsA(clause, FuncExpr) && ((FuncExpr *) clause)->funcid == F_STARTS_WITH &&
		list_length(((FuncExpr *) clause)->args) == 2)
	{
		FuncExpr   *f = (FuncExpr *) clause;

		if (keytype != TEXTOID || !is_row_key(linitial(f->args), relid) ||
			!is_scan_constant(lsecond(f->args), relid) ||
			!OidIsValid(f->inputcollid) ||
			!get_collation_isdeterministic(f->inputcollid))
			return false;
		return match_pattern(m, clause, lsecond(f->args), WIDE_PAT_STARTS, exact);
	}

	if (!WideComparisonSplit(clause, row_key_test, &relid, &cmp))
		return false;
	if (!cmp.is_array)
	{
		OpExpr	   *op = (OpExpr *) clause;
		Node	   *right = cmp.value;
		Oid			opno = cmp.opno;
		Oid			ltype,
					rtype;
		int			strategy;
		bool		commuted = cmp.commuted;

		if (!is_scan_constant(right, relid))
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
			return match_pattern(m, clause, right, WIDE_PAT_LIKE, exact);
		/* ILIKE: the range of the prefix's case variants, then the filter */
		if (!commuted && opno == OID_TEXT_ICLIKE_OP && OidIsValid(op->inputcollid) &&
			get_collation_isdeterministic(op->inputcollid))
			return match_pattern(m, clause, right,
								 op->inputcollid == C_COLLATION_OID ?
								 WIDE_PAT_ILIKE_C : WIDE_PAT_ILIKE, exact);
		/* row_key ^@ prefix */
		if (!commuted && opno == TextPrefixOperator && OidIsValid(op->inputcollid) &&
			get_collation_isdeterministic(op->inputcollid))
			return match_pattern(m, clause, right, WIDE_PAT_STARTS, exact);

		strategy = key_strategy(opno, keytype, op->inputcollid);
		switch (strategy)
		{
			case BTEqualStrategyNumber:
				add_bound(m, BOUND_EQ, right);
				break;
			case BTLessStrategyNumber:
				add_bound(m, BOUND_LT, right);
				break;
			case BTLessEqualStrategyNumber:
				add_bound(m, BOUND_LE, right);
				break;
			case BTGreaterStrategyNumber:
				add_bound(m, BOUND_GT, right);
				break;
			case BTGreaterEqualStrategyNumber:
				add_bound(m, BOUND_GE, right);
				break;
			default:
				return false;
		}
		m->sels = lappend(m->sels, clause);
		m->nseeks = Max(m->nseeks, 1);
		return true;
	}
	else
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;
		Node	   *arr = cmp.value;
		Oid			ltype,
					rtype;
		double		nkeys;

		if (!is_scan_constant(arr, relid))
			return false;
		op_input_types(sa->opno, &ltype, &rtype);
		if (ltype != keytype || !bound_type_ok(rtype, keytype) ||
			get_element_type(exprType(arr)) != rtype ||
			key_strategy(sa->opno, keytype, sa->inputcollid) != BTEqualStrategyNumber)
			return false;
		add_bound(m, BOUND_IN, arr);
		m->sels = lappend(m->sels, clause);
		nkeys = WideArrayLength(arr, 10);
		/* one point read per key (of the shortest IN list) */
		m->nseeks = m->nseeks > 1 ? Min(m->nseeks, Max(nkeys, 1)) : Max(nkeys, 1);
		return true;
	}
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
		opno = sort_operator(att->atttypid, (attno == 4) != backward ?
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

		if (match_clause(&m, ri->clause, &exact))
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
			if (match_clause(&probe, lfirst_node(RestrictInfo, lc)->clause, &exact) &&
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

	return is_row_key((Node *) em->em_expr, rel->relid) ||
		split_part_sep((Node *) em->em_expr, rel->relid, &sep);
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
		if (!match_clause(&probe, ri->clause, &exact) || !probe.has_range)
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

/* bound from a pattern: the range of its literal prefix (WidePatternRange) */
static void
set_pattern(WideScanState *s, const char *pat, uint32 len, int mode)
{
	StringInfoData lo,
				hi;
	bool		has_hi,
				same;

	initStringInfo(&lo);
	initStringInfo(&hi);
	if (WidePatternRange(pat, len, mode, &lo, &hi, &has_hi, &same))
	{
		set_lower(s, lo.data, lo.len, true);
		if (has_hi)
			set_upper(s, hi.data, hi.len, false);
	}
	pfree(lo.data);
	pfree(hi.data);
}

/*
 * bound from ILIKE under "C": the keys that begin with a case variant of
 * the prefix; a range per variant when there are few (open_reader)
 */
static void
set_icase(WideScanState *s, const char *prefix, uint32 len)
{
	set_pattern(s, prefix, len, WIDE_PAT_ISTARTS);
	if (s->prefixes == NULL && len > 0)
	{
		s->prefixes = WideCaseVariants(prefix, len, WIDE_MAX_CASE_VARIANTS,
									   &s->nprefixes, s->keycxt);
		if (s->prefixes != NULL && s->nprefixes == 1)
			s->prefixes = NULL;
	}
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

/* a list of ranges being built, in keycxt */
typedef struct RangeList
{
	WideKeyRange *r;
	int			n;
	int			cap;
} RangeList;

/* append a range to the list, its bounds copied into keycxt */
static void
range_list_add(WideScanState *s, RangeList *l, const WideKeyRange *r)
{
	WideKeyRange v = *r;

	if (l->n == l->cap)
	{
		l->cap = Max(8, l->cap * 2);
		l->r = l->r ? repalloc(l->r, l->cap * sizeof(WideKeyRange)) :
			MemoryContextAlloc(s->keycxt, l->cap * sizeof(WideKeyRange));
	}
	if (v.has_start)
	{
		char	   *c = MemoryContextAlloc(s->keycxt, v.startlen + 1);

		memcpy(c, v.start, v.startlen);
		v.start = c;
	}
	if (v.has_end)
	{
		char	   *c = MemoryContextAlloc(s->keycxt, v.endlen + 1);

		memcpy(c, v.end, v.endlen);
		v.end = c;
	}
	l->r[l->n++] = v;
}

/* the scan reads only keys in these ranges too (normalized here) */
static void
and_ranges(WideScanState *s, RangeList *l)
{
	int			n;

	if (l->r == NULL)
		l->r = MemoryContextAlloc(s->keycxt, sizeof(WideKeyRange));
	n = WideKeyRangesNormalize(l->r, l->n);
	if (!s->has_ranges)
	{
		s->ranges = l->r;
		s->nranges = n;
		s->has_ranges = true;
	}
	else
		s->ranges = WideKeyRangesIntersect(s->ranges, s->nranges, l->r, n,
										   &s->nranges, s->keycxt);
}

/* the range of the bounds so far (s->lo, s->hi) */
static WideKeyRange
current_range(WideScanState *s)
{
	WideKeyRange v = s->range;

	v.start = s->lo.data;
	v.startlen = s->lo.len;
	v.end = s->hi.data;
	v.endlen = s->hi.len;
	v.is_point = false;
	return v;
}

/* an OR's arm ends: its range, or the keys of its IN list in its range */
static void
close_arm(WideScanState *s, RangeList *arms)
{
	WideKeyRange v = current_range(s);
	int			i;

	if (s->keys == NULL)
	{
		range_list_add(s, arms, &v);
		return;
	}
	for (i = 0; i < s->nkeys; i++)
	{
		WideKeyRange p;

		if (WideRowBeforeRange(&v, s->keys[i].data, s->keys[i].len) ||
			WideRowAfterRange(&v, s->keys[i].data, s->keys[i].len))
			continue;
		memset(&p, 0, sizeof(p));
		p.has_start = p.has_end = p.start_incl = p.end_incl = true;
		p.start = p.end = s->keys[i].data;
		p.startlen = p.endlen = s->keys[i].len;
		range_list_add(s, arms, &p);
	}
}

/*
 * split_part(row_key, sep, 1) = v for each value v (an array's elements):
 * the key v and the keys that begin with v||sep; a v holding sep gives no
 * key (split_part_sep)
 */
static void
set_split(WideScanState *s, Datum d, Oid type, bool is_array, char sep)
{
	Datum	   *elems = &d;
	bool	   *nulls = NULL;
	int			n = 1;
	int			i;
	RangeList	l = {0};
	StringInfoData k,
				end;

	if (is_array)
	{
		ArrayType  *a = DatumGetArrayTypeP(d);

		if (ARR_ELEMTYPE(a) != type)
			elog(ERROR, "wide scan: array of type %u where %u was planned",
				 ARR_ELEMTYPE(a), type);
		deconstruct_array(a, type, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	}
	initStringInfo(&k);
	initStringInfo(&end);
	for (i = 0; i < n; i++)
	{
		const char *p;
		uint32		len;
		WideKeyRange r;
		bool		has_end;

		if (nulls && nulls[i])
			continue;
		key_bytes(elems[i], type, &p, &len);
		if (memchr(p, sep, len) != NULL)
			continue;
		memset(&r, 0, sizeof(r));
		r.has_start = r.has_end = r.start_incl = r.end_incl = true;
		r.start = r.end = p;
		r.startlen = r.endlen = len;
		range_list_add(s, &l, &r);
		resetStringInfo(&k);
		appendBinaryStringInfo(&k, p, len);
		appendStringInfoChar(&k, sep);
		WidePrefixEnd(&end, k.data, k.len, &has_end);
		r.start = k.data;
		r.startlen = k.len;
		r.end = end.data;
		r.endlen = end.len;
		r.end_incl = false;
		r.has_end = has_end;
		range_list_add(s, &l, &r);
	}
	and_ranges(s, &l);
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
	/* an OR: the AND's state while its arms are read, and the arms' ranges */
	bool		in_or = false;
	bool		in_arm = false;
	bool		arm_dead = false;
	WideKeyRange saved_range;
	StringInfoData saved_lo,
				saved_hi;
	WideKeyRef *saved_keys = NULL;
	int			saved_nkeys = 0;
	RangeList	arms = {0};
	char		sep = 0;

	memset(&s->range, 0, sizeof(s->range));
	s->has_ranges = false;
	s->ranges = NULL;
	s->nranges = 0;
	s->nextrange = 0;
	WideColumnFilterReset(&s->columns);
	MemoryContextReset(s->keycxt);
	s->keys = NULL;
	s->nkeys = 0;
	s->nextkey = 0;
	s->prefixes = NULL;
	s->nprefixes = 0;
	s->nextprefix = 0;
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
		Datum		d;
		const char *k;
		uint32		len;

		if (kind == BOUND_OR)
		{
			/* the arms start from no bound; the AND's are put aside */
			saved_range = s->range;
			saved_lo = s->lo;
			saved_hi = s->hi;
			saved_keys = s->keys;
			saved_nkeys = s->nkeys;
			initStringInfo(&s->lo);
			initStringInfo(&s->hi);
			memset(&arms, 0, sizeof(arms));
			in_or = true;
			in_arm = false;
			continue;
		}
		if (kind == BOUND_ARM || kind == BOUND_OR_END)
		{
			if (in_arm && !arm_dead)
				close_arm(s, &arms);
			memset(&s->range, 0, sizeof(s->range));
			resetStringInfo(&s->lo);
			resetStringInfo(&s->hi);
			s->keys = NULL;
			s->nkeys = 0;
			in_arm = true;
			arm_dead = false;
			if (kind == BOUND_OR_END)
			{
				s->range = saved_range;
				s->lo = saved_lo;
				s->hi = saved_hi;
				s->keys = saved_keys;
				s->nkeys = saved_nkeys;
				in_or = in_arm = false;
				and_ranges(s, &arms);
			}
			continue;
		}
		if (arm_dead)
			continue;
		d = ExecEvalExpr((ExprState *) lfirst(le), econtext, &isnull);
		if (isnull)
		{
			/* "row_key op NULL" is never true: no key in this arm, or at all */
			if (in_or)
			{
				arm_dead = true;
				continue;
			}
			s->empty = true;
			break;
		}
		if (kind == BOUND_IN)
		{
			set_in_list(s, d, lfirst_oid(lt));
			continue;
		}
		if (kind == BOUND_SEP)
		{
			key_bytes(d, lfirst_oid(lt), &k, &len);
			Assert(len == 1);
			sep = k[0];
			continue;
		}
		if (kind == BOUND_SPLIT || kind == BOUND_SPLIT_IN)
		{
			set_split(s, d, lfirst_oid(lt), kind == BOUND_SPLIT_IN, sep);
			continue;
		}
		if (IS_FILTER(kind))
		{
			WideColumnFilterAdd(&s->columns, s->keycxt,
								kind == FILTER_QUAL || kind == FILTER_QUAL_IN, d,
								lfirst_oid(lt),
								kind == FILTER_FAMILY_IN || kind == FILTER_QUAL_IN);
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
				set_pattern(s, k, len, WIDE_PAT_LIKE);
				break;
			case BOUND_STARTS:
				set_pattern(s, k, len, WIDE_PAT_STARTS);
				break;
			case BOUND_IPREFIX_C:
				{
					StringInfoData prefix;

					initStringInfo(&prefix);
					WidePatternPrefix(k, len, WIDE_PAT_ILIKE_C, &prefix);
					set_icase(s, prefix.data, prefix.len);
					break;
				}
			case BOUND_ICASE:
				set_icase(s, k, len);
				break;
			case BOUND_IPREFIX:
				set_pattern(s, k, len, WIDE_PAT_ILIKE);
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
	if (s->has_ranges && !s->empty)
	{
		/* the list of ranges, within the range of the other bounds */
		WideKeyRange whole = s->range;

		s->ranges = WideKeyRangesIntersect(s->ranges, s->nranges, &whole, 1,
										   &s->nranges, s->keycxt);
		if (s->prefixes != NULL)
		{
			/* and within the case variants of an ILIKE prefix */
			RangeList	l = {0};
			StringInfoData end;
			int			i;

			initStringInfo(&end);
			for (i = 0; i < s->nprefixes; i++)
			{
				WideKeyRange r;

				memset(&r, 0, sizeof(r));
				r.has_start = r.start_incl = true;
				r.start = s->prefixes[i].data;
				r.startlen = s->prefixes[i].len;
				WidePrefixEnd(&end, r.start, r.startlen, &r.has_end);
				r.end = end.data;
				r.endlen = end.len;
				range_list_add(s, &l, &r);
			}
			pfree(end.data);
			and_ranges(s, &l);
			s->prefixes = NULL;
			s->nprefixes = 0;
		}
		if (s->keys != NULL)
		{
			/* point reads of the keys in the ranges */
			int			i,
						m = 0;

			for (i = 0; i < s->nkeys; i++)
				if (WideKeyRangesContain(s->ranges, s->nranges,
										 s->keys[i].data, s->keys[i].len))
					s->keys[m++] = s->keys[i];
			s->nkeys = m;
			s->has_ranges = false;
		}
		else if (s->nranges == 0)
			s->empty = true;
	}
	if (s->keys != NULL && s->nkeys == 0)
		s->empty = true;
	if (WideColumnFilterEmpty(&s->columns))
		s->empty = true;
}

/*
 * The range of the next case variant of an ILIKE prefix that meets the
 * scan's range, into *r (which holds the scan's range); false after the
 * last one.
 */
static bool
next_prefix_range(WideScanState *s, WideKeyRange *r)
{
	while (s->nextprefix < s->nprefixes)
	{
		/* (a backward scan reads the ranges last first) */
		const WideBytes *p = &s->prefixes[s->backward ?
										  s->nprefixes - 1 - s->nextprefix :
										  s->nextprefix];
		WideKeyRange v = s->range;
		int			cmp;

		v.is_point = false;
		/* [p, the least key after every key that begins with p) */
		if (!v.has_start ||
			(cmp = WideKeyCompare(v.start, v.startlen, p->data, p->len)) < 0 ||
			(cmp == 0 && v.start_incl))
		{
			v.has_start = v.start_incl = true;
			v.start = p->data;
			v.startlen = p->len;
		}
		resetStringInfo(&s->prefix_end);
		appendBinaryStringInfo(&s->prefix_end, p->data, p->len);
		while (s->prefix_end.len > 0 &&
			   (uint8) s->prefix_end.data[s->prefix_end.len - 1] == 0xFF)
			s->prefix_end.len--;
		if (s->prefix_end.len > 0)
		{
			s->prefix_end.data[s->prefix_end.len - 1]++;
			if (!v.has_end ||
				(cmp = WideKeyCompare(s->prefix_end.data, s->prefix_end.len,
									  v.end, v.endlen)) <= 0)
			{
				v.has_end = true;
				v.end_incl = false;
				v.end = s->prefix_end.data;
				v.endlen = s->prefix_end.len;
			}
		}
		if (v.has_start && v.has_end &&
			((cmp = WideKeyCompare(v.start, v.startlen, v.end, v.endlen)) > 0 ||
			 (cmp == 0 && !(v.start_incl && v.end_incl))))
		{
			s->nextprefix++;
			continue;
		}
		s->nextprefix++;
		*r = v;
		return true;
	}
	return false;
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
	else if (s->prefixes != NULL && !next_prefix_range(s, &r))
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
	compute_range(s);
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

static void
explain_wide_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WideScanState *s = (WideScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context = NIL;
	ListCell   *lk,
			   *le;
	StringInfoData keys,
				fams,
				quals,
				arm;
	bool		in_or = false;
	int			narms = 0;
	int			arm_bounds = 0;
	char	   *sep = "";

	/* the key range, then the families and qualifiers kept */
	initStringInfo(&keys);
	initStringInfo(&fams);
	initStringInfo(&quals);
	if (cscan->custom_exprs != NIL)
		context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
										   ancestors);
	initStringInfo(&arm);
	forboth(lk, s->bound_kinds, le, cscan->custom_exprs)
	{
		static const char *const names[] = {
			"", "row_key =", "row_key <", "row_key <=", "row_key >",
			"row_key >=", "prefix of row_key LIKE", "row_key = ANY",
			"row_key ^@", "prefix of row_key ILIKE", "prefix of row_key ILIKE",
			"family =", "family = ANY", "qualifier =", "qualifier = ANY",
			"row_key ^@ any case of", "", "", "", "", "=", "= ANY"
		};
		int			kind = lfirst_int(lk);
		StringInfo	buf = kind == FILTER_FAMILY || kind == FILTER_FAMILY_IN ? &fams :
			kind == FILTER_QUAL || kind == FILTER_QUAL_IN ? &quals :
			in_or ? &arm : &keys;

		/* an OR: (arm OR arm ...), an arm of several bounds parenthesized */
		if (kind == BOUND_OR)
		{
			if (keys.len > 0)
				appendStringInfoString(&keys, " AND ");
			appendStringInfoChar(&keys, '(');
			in_or = true;
			narms = 0;
			resetStringInfo(&arm);
			continue;
		}
		if (kind == BOUND_ARM || kind == BOUND_OR_END)
		{
			if (narms > 0)
				appendStringInfo(&keys, "%s%s%s%s", narms > 1 ? " OR " : "",
								 arm_bounds > 1 ? "(" : "", arm.data,
								 arm_bounds > 1 ? ")" : "");
			resetStringInfo(&arm);
			arm_bounds = 0;
			narms++;
			if (kind == BOUND_OR_END)
			{
				appendStringInfoString(&keys, narms == 1 ? "none)" : ")");
				in_or = false;
			}
			continue;
		}
		if (kind == BOUND_SEP)
		{
			sep = deparse_expression(lfirst(le), context, false, false);
			continue;
		}
		if (buf->len > 0)
			appendStringInfoString(buf, " AND ");
		if (buf == &arm)
			arm_bounds++;
		if (kind == BOUND_SPLIT || kind == BOUND_SPLIT_IN)
			appendStringInfo(buf, "split_part(row_key, %s, 1) ", sep);
		appendStringInfo(buf, "%s %s", names[kind],
						 deparse_expression(lfirst(le), context, false, false));
	}
	ExplainPropertyText("Row Keys", keys.len > 0 ? keys.data : "all", es);
	if (fams.len > 0)
		ExplainPropertyText("Families", fams.data, es);
	if (quals.len > 0)
		ExplainPropertyText("Qualifiers", quals.data, es);
	if (s->backward)
		ExplainPropertyText("Scan Direction", "Backward", es);
	if (s->range_delete)
		ExplainPropertyText("Range Delete",
							!es->analyze ? "planned" :
							!s->rd_done ? "cell by cell" :
							s->rd_tombstones == 0 ?
							psprintf("one range tombstone, " UINT64_FORMAT " cells", s->rd_cells) :
							psprintf("%d row or range tombstones, " UINT64_FORMAT " cells",
									 s->rd_tombstones, s->rd_cells), es);
	WideTsWindowExplain(&node->ss.ps, s->ts_kinds,
						list_copy_tail(cscan->custom_exprs, list_length(s->bound_kinds)),
						ancestors, es);
	if (es->analyze)
	{
		WideReaderStats st = s->stats;

		if (s->reader || s->rreader)
		{
			WideReaderStats cur = s->reader ? WideReaderGetStats(s->reader) :
				WideReverseGetStats(s->rreader);

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

/* ----------------------------------------------------------------
 *	For the Wide Aggregate (scan_agg.c): the cells of a Wide Scan
 * ----------------------------------------------------------------
 */

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
	DefineCustomBoolVariable("wide.enable_range_lists",
							 "Lets the Wide Scan read an OR of row_key conditions, or split_part(row_key, sep, 1) = / IN, as a list of key ranges.",
							 "Off, such conditions are filters over the range of the other conditions; for comparing plans.",
							 &wide_enable_range_lists, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	WideRangeDeleteDefineSettings();
	WideParallelDefineSettings();
	RegisterCustomScanMethods(&wide_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = wide_set_rel_pathlist;
}
