/*-------------------------------------------------------------------------
 *
 * scan_tswindow.h
 *	  Wide Scan's window of timestamps: conditions on ts found by the
 *	  planner, evaluated when a scan starts (scan_tswindow.c).
 *
 * IDENTIFICATION
 *	  src/am/scan_tswindow.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SCAN_TSWINDOW_H
#define WIDE_SCAN_TSWINDOW_H

#include "nodes/execnodes.h"
#include "engine/tswindow.h"

struct ExplainState;

extern bool WideTsMatchClause(Expr *clause, Index relid, Oid tstype,
							  List **kinds, List **exprs);
extern bool WideTsWindowEval(List *kinds, List *exprstates,
							 ExprContext *econtext, WideTsWindow *w);
extern void WideTsWindowExplain(PlanState *ps, List *kinds, List *exprs,
								List *ancestors, struct ExplainState *es);

#endif							/* WIDE_SCAN_TSWINDOW_H */
