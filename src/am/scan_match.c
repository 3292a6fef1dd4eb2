/*-------------------------------------------------------------------------
 *
 * scan_match.c
 *	  The Wide Scan's planner, conditions: which conditions on a wide table
 *	  its scan enforces as bounds of the key (comparisons, IN lists, LIKE,
 *	  ILIKE and starts_with prefixes, ORs of those, split_part(row_key,
 *	  sep, 1) = / IN) or as sets of families and qualifiers, each recorded
 *	  as a BOUND_* or FILTER_* kind and its expression (scan_node.h).
 *
 *	  WideScanMatchClause -- push one condition into a WideMatch
 *	  WideScanIsRowKey, WideScanSplitPartSep -- row_key, split_part(row_key)
 *	  WideScanSortOperator -- a type's btree operator of a strategy, cached
 *	  WideScanMatchDefineSettings -- wide.enable_range_lists
 *
 * IDENTIFICATION
 *	  src/am/scan_match.c
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

/* wide.enable_range_lists: ORs and split_part lists as lists of ranges */
static bool wide_enable_range_lists = true;

/* the row_key Var of the relation, if expr is one */
bool
WideScanIsRowKey(Node *expr, Index relid)
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
	return WideScanIsRowKey(expr, *(Index *) arg);
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
 * equals under the "C" collation, so WideDatumBytes() converts it exactly.
 * Anything else (bpchar, say) reaches the key through a cast to its type,
 * or is not a bound.
 */
static bool
bound_type_ok(Oid type, Oid keytype)
{
	return type == keytype || (keytype == TEXTOID && type == NAMEOID);
}


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

	return make_opclause(WideScanSortOperator(m->keytype, strategy), BOOLOID, false,
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

/*
 * the arguments, operator and collation of x op y, or of x op ANY(array);
 * false for any other clause (op ALL too)
 */
static bool
operator_parts(Expr *clause, List **args, Oid *opno, Oid *collid)
{
	if (IsA(clause, OpExpr))
	{
		*args = ((OpExpr *) clause)->args;
		*opno = ((OpExpr *) clause)->opno;
		*collid = ((OpExpr *) clause)->inputcollid;
		return true;
	}
	if (IsA(clause, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) clause)->useOr)
	{
		*args = ((ScalarArrayOpExpr *) clause)->args;
		*opno = ((ScalarArrayOpExpr *) clause)->opno;
		*collid = ((ScalarArrayOpExpr *) clause)->inputcollid;
		return true;
	}
	return false;
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

	if (!operator_parts(clause, &args, &opno, &collid))
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
bool
WideScanSplitPartSep(Node *expr, Index relid, char *sep)
{
	FuncExpr   *f;
	Const	   *c,
			   *n;
	struct varlena *v;

	if (expr == NULL || !IsA(expr, FuncExpr))
		return false;
	f = (FuncExpr *) expr;
	if (f->funcid != F_SPLIT_PART || list_length(f->args) != 3 ||
		!WideScanIsRowKey(linitial(f->args), relid) ||
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

	if (!operator_parts(clause, &args, &opno, &collid))
		return false;
	if (m->keytype != TEXTOID || list_length(args) != 2)
		return false;
	fn = linitial(args);
	arg = lsecond(args);
	if (!is_array && !WideScanSplitPartSep(fn, m->relid, &sep))
	{
		fn = arg;
		arg = linitial(args);
		opno = get_commutator(opno);
	}
	if (!OidIsValid(opno) || !WideScanSplitPartSep(fn, m->relid, &sep) ||
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

			if (WideScanMatchClause(&a, linitial(conj), &e) &&
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

			ok = WideScanMatchClause(&a, lfirst(lc), &e);
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
bool
WideScanMatchClause(WideMatch *m, Expr *clause, bool *exact)
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

		if (keytype != TEXTOID || !WideScanIsRowKey(linitial(f->args), relid) ||
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
Oid
WideScanSortOperator(Oid type, int16 strategy)
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
 * WideScanMatchDefineSettings -- define wide.enable_range_lists (from
 * WideInstallPlanner).
 */
void
WideScanMatchDefineSettings(void)
{
	DefineCustomBoolVariable("wide.enable_range_lists",
							 "Lets the Wide Scan read an OR of row_key conditions, or split_part(row_key, sep, 1) = / IN, as a list of key ranges.",
							 "Off, such conditions are filters over the range of the other conditions; for comparing plans.",
							 &wide_enable_range_lists, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}
