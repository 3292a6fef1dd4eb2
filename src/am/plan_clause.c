/*-------------------------------------------------------------------------
 *
 * plan_clause.c
 *	  Conditions a scan of a wide table seeks by: which side of a
 *	  comparison is the scan's column, and how many values a list holds.
 *
 * The Wide Scan (customscan.c: row_key, its first part) and the row form
 * (rows_plan.c: the key columns) both seek by comparisons of a column with
 * a value fixed for the scan: "column op value", "value op column" (read
 * with the operator's commutator, if it has one) and "column = ANY
 * (array)".  WideComparisonSplit finds the column's side, so that each
 * caller only says what its columns are (a callback) and what operators
 * and values it takes.  WideArrayLength is the number of values of a list
 * the planner can see (a constant array, an ARRAY[...] expression): one
 * seek each.
 *
 * IDENTIFICATION
 *	  src/am/plan_clause.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "am/plan_clause.h"

/*
 * WideComparisonSplit -- is the clause a comparison of two arguments, one
 * of them a column is_column accepts (tried on the left first), or a
 * column = ANY (array) (useOr)?  Sets *c; false when it is none, or the
 * column is on the right of an operator without a commutator.
 */
bool
WideComparisonSplit(Expr *clause, WideColumnTest is_column, void *arg,
					WideComparison *c)
{
	memset(c, 0, sizeof(*c));
	if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) clause;

		c->column = linitial(op->args);
		c->value = lsecond(op->args);
		c->opno = op->opno;
		if (!is_column(c->column, arg))
		{
			if (!is_column(c->value, arg))
				return false;
			c->opno = get_commutator(op->opno);
			if (!OidIsValid(c->opno))
				return false;
			c->column = lsecond(op->args);
			c->value = linitial(op->args);
			c->commuted = true;
		}
		return true;
	}
	if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;

		if (!sa->useOr || list_length(sa->args) != 2 ||
			!is_column(linitial(sa->args), arg))
			return false;
		c->column = linitial(sa->args);
		c->value = lsecond(sa->args);
		c->opno = sa->opno;
		c->is_array = true;
		return true;
	}
	return false;
}

/*
 * WideArrayLength -- the elements of a non-null constant array or of an
 * ARRAY[...] expression; dflt for any other expression.
 */
double
WideArrayLength(Node *array, double dflt)
{
	if (array && IsA(array, Const) && !((Const *) array)->constisnull)
	{
		ArrayType  *a = DatumGetArrayTypeP(((Const *) array)->constvalue);

		return ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	}
	if (array && IsA(array, ArrayExpr))
		return list_length(((ArrayExpr *) array)->elements);
	return dflt;
}
