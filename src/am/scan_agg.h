/*-------------------------------------------------------------------------
 *
 * scan_agg.h
 *	  The Wide Aggregate (scan_agg.c): count, sum, avg, min and max
 *	  computed from the cells a Wide Scan reads, without forming tuples;
 *	  and what it needs of the Wide Scan (customscan.c, scan_exec.c).
 *
 * IDENTIFICATION
 *	  src/am/scan_agg.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SCAN_AGG_H
#define WIDE_SCAN_AGG_H

#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"

/* customscan.c (WideScanPathExact), scan_exec.c: the cells of a Wide Scan */
extern bool WideScanPathExact(RelOptInfo *rel, Path *path);
extern bool WideScanIsWideScan(PlanState *ps);
extern uint64 WideScanFold(CustomScanState *node, WideCellFold fold, void *arg);
extern const WideSchema *WideScanSchema(CustomScanState *node);

/* scan_agg.c */
extern void WideInstallAggregate(void);

/* wide.enable_aggregate_pushdown: also the row form's (rows_agg.c) */
extern bool wide_enable_aggregate_pushdown;

#endif							/* WIDE_SCAN_AGG_H */
