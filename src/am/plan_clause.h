/*-------------------------------------------------------------------------
 *
 * plan_clause.h
 *	  Conditions a scan of a wide table seeks by, as the Wide Scan
 *	  (customscan.c) and the row form (rows_plan.c) both find them
 *	  (plan_clause.c).
 *
 * IDENTIFICATION
 *	  src/am/plan_clause.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_PLAN_CLAUSE_H
#define WIDE_PLAN_CLAUSE_H

#include "nodes/primnodes.h"

/* a comparison of one of the scan's columns with a value */
typedef struct WideComparison
{
	Node	   *column;			/* the column's side (as written) */
	Oid			opno;			/* the operator, the column on its left */
	Node	   *value;			/* the other side */
	bool		is_array;		/* column op ANY (value) */
	bool		commuted;		/* written value op column */
} WideComparison;

/* is the expression one of the columns the caller seeks by? */
typedef bool (*WideColumnTest) (Node *expr, void *arg);

extern bool WideComparisonSplit(Expr *clause, WideColumnTest is_column,
								void *arg, WideComparison *c);
extern double WideArrayLength(Node *array, double dflt);

#endif							/* WIDE_PLAN_CLAUSE_H */
