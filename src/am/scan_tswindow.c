/*-------------------------------------------------------------------------
 *
 * scan_tswindow.c
 *	  The window of timestamps of a Wide Scan: conditions on ts that let
 *	  the reader skip runs and blocks (time pruning, engine/tsprune.c).
 *
 * A condition "ts op x" (=, <, <=, >, >=; BETWEEN is two of them) whose x
 * is a constant, a parameter or a stable expression (now() - interval
 * '1 hour') narrows the window [lo, hi] of cell timestamps, in
 * microseconds since 1970.  Both ts column types work: timestamptz
 * (compared with timestamptz; other types reach it through the parser's
 * casts or stay filters) and int8 (compared with int2, int4 or int8).
 * The window is evaluated when the scan starts and on every rescan, like
 * the key range; a NULL bound makes the scan empty (the condition is never
 * true).  The reader returns exactly the cells in the window (with
 * what the merger decides about them unchanged), so the conditions are not
 * checked again: the conversion of a bound to microseconds since 1970 is
 * exact (timestamptz: its microseconds plus the epoch shift, a bound past
 * every int64 handled by the operator; int2, int4: widened).
 *
 * IDENTIFICATION
 *	  src/am/scan_tswindow.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/timestamp.h"

#include "engine/tswindow.h"
#include "am/scan_tswindow.h"

#define TS_EQ	BTEqualStrategyNumber
#define TS_LT	BTLessStrategyNumber
#define TS_LE	BTLessEqualStrategyNumber
#define TS_GT	BTGreaterStrategyNumber
#define TS_GE	BTGreaterEqualStrategyNumber

/* timestamptz (microseconds since 2000) to microseconds since 1970 */
#define UNIX_OFFSET_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

/* the ts Var of the relation? */
static bool
is_ts(Node *expr, Index relid)
{
	return expr && IsA(expr, Var) && ((Var *) expr)->varno == relid &&
		((Var *) expr)->varattno == 4 && ((Var *) expr)->varlevelsup == 0;
}

/*
 * WideTsMatchClause -- does the clause bound ts?  If so, append its
 * strategy (TS_*) and its bound expression.
 */
bool
WideTsMatchClause(Expr *clause, Index relid, Oid tstype, List **kinds,
				  List **exprs)
{
	OpExpr	   *op;
	Node	   *right;
	Oid			opno,
				ltype,
				rtype,
				opclass;
	int			strategy;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return false;
	op = (OpExpr *) clause;
	opno = op->opno;
	right = lsecond(op->args);
	if (!is_ts(linitial(op->args), relid))
	{
		if (!is_ts(right, relid))
			return false;
		opno = get_commutator(opno);
		if (!OidIsValid(opno))
			return false;
		right = linitial(op->args);
	}
	if (contain_var_clause(right) || contain_volatile_functions(right) ||
		contain_subplans(right))
		return false;
	op_input_types(opno, &ltype, &rtype);
	if (ltype != tstype || exprType(right) != rtype)
		return false;
	if (tstype == TIMESTAMPTZOID ? rtype != TIMESTAMPTZOID :
		(rtype != INT8OID && rtype != INT4OID && rtype != INT2OID))
		return false;
	opclass = GetDefaultOpClass(tstype, BTREE_AM_OID);
	if (!OidIsValid(opclass))
		return false;
	strategy = get_op_opfamily_strategy(opno, get_opclass_family(opclass));
	if (strategy < BTLessStrategyNumber || strategy > BTGreaterStrategyNumber)
		return false;
	*kinds = lappend_int(*kinds, strategy);
	*exprs = lappend(*exprs, right);
	return true;
}

/*
 * A bound as microseconds since 1970; *above: it is greater than every
 * int64 (a timestamptz too late to convert, 'infinity').
 */
static int64
bound_value(Datum d, Oid type, bool *above)
{
	int64		v;

	*above = false;
	switch (type)
	{
		case TIMESTAMPTZOID:
			if (pg_add_s64_overflow(DatumGetTimestampTz(d), UNIX_OFFSET_US, &v))
			{
				*above = true;
				return PG_INT64_MAX;
			}
			return v;
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

/*
 * WideTsWindowEval -- evaluate the bounds into a window; false if no
 * timestamp can match (a NULL bound, or bounds that exclude each other).
 */
bool
WideTsWindowEval(List *kinds, List *exprstates, ExprContext *econtext,
				 WideTsWindow *w)
{
	ListCell   *lk,
			   *le;
	MemoryContext old;
	bool		ok = true;

	WideTsWindowInit(w);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	forboth(lk, kinds, le, exprstates)
	{
		ExprState  *state = (ExprState *) lfirst(le);
		bool		isnull,
					above;
		Datum		d = ExecEvalExpr(state, econtext, &isnull);
		int64		v;

		if (isnull)
		{
			ok = false;
			break;
		}
		v = bound_value(d, exprType((Node *) state->expr), &above);
		switch (lfirst_int(lk))
		{
			case TS_EQ:
				if (above)
					ok = false;
				w->lo = Max(w->lo, v);
				w->hi = Min(w->hi, v);
				break;
			case TS_GT:
				if (above || v == PG_INT64_MAX)
					ok = false;
				else
					w->lo = Max(w->lo, v + 1);
				break;
			case TS_GE:
				if (above)
					ok = false;
				w->lo = Max(w->lo, v);
				break;
			case TS_LT:
				if (v == PG_INT64_MIN)
					ok = false;
				else if (!above)
					w->hi = Min(w->hi, v - 1);
				break;
			case TS_LE:
				if (!above)
					w->hi = Min(w->hi, v);
				break;
		}
	}
	MemoryContextSwitchTo(old);
	return ok && !WideTsWindowEmpty(w);
}

/*
 * WideTsWindowExplain -- show the window's conditions ("Ts Window").
 */
void
WideTsWindowExplain(PlanState *ps, List *kinds, List *exprs, List *ancestors,
					ExplainState *es)
{
	static const char *const names[] = {"", "<", "<=", "=", ">=", ">"};
	List	   *context;
	ListCell   *lk,
			   *le;
	StringInfoData buf;

	if (kinds == NIL)
		return;
	context = set_deparse_context_plan(es->deparse_cxt, ps->plan, ancestors);
	initStringInfo(&buf);
	forboth(lk, kinds, le, exprs)
	{
		if (buf.len > 0)
			appendStringInfoString(&buf, " AND ");
		appendStringInfo(&buf, "ts %s %s", names[lfirst_int(lk)],
						 deparse_expression(lfirst(le), context, false, false));
	}
	ExplainPropertyText("Ts Window", buf.data, es);
	pfree(buf.data);
}
