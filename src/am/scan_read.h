/*-------------------------------------------------------------------------
 *
 * scan_read.h
 *	  The planner's part of the "Wide Read Rows" custom scan (scan_read.c):
 *	  calls of wide.read_rows, read_rows_labeled and read_row in FROM.
 *	  Its executor is api/read_scan.c's, which registers itself here.
 *
 * IDENTIFICATION
 *	  src/am/scan_read.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_AM_SCAN_READ_H
#define WIDE_AM_SCAN_READ_H

#include "commands/explain.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"

/* argument positions of wide.read_rows (and read_rows_labeled) */
enum
{
	A_TBL, A_KEYS, A_START, A_END, A_START_INCL, A_END_INCL, A_PREFIX,
	A_RANGES, A_LIMIT, A_REVERSED, A_FILTER,
	WIDE_READ_ROWS_NARGS
};

/* wide.read_row(tbl, row_key, filter) */
#define WIDE_READ_ROW_NARGS		3

/*
 * The read function a plan calls: the first of the plan's custom_private,
 * (kind, function, row type of the table argument).
 */
#define WIDE_READ_FN_ROWS		1
#define WIDE_READ_FN_ROW		2
#define WIDE_READ_FN_LABELED	3	/* read_rows_labeled: (cell, labels) */

/* the executor's state of a plan (api/read_scan.c) */
typedef Node *(*WideReadScanCreateState) (CustomScan *cscan);

extern void WideInstallReadScanPlanner(WideReadScanCreateState create);
extern const char *WideReadFunctionName(int kind);
extern Datum WideReadKeyArg(Datum d, Oid type, bool array, const char *what);
extern void WideReadScanExplainPlan(CustomScanState *node, List *ancestors,
									ExplainState *es);

#endif							/* WIDE_AM_SCAN_READ_H */
