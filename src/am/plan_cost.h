/*-------------------------------------------------------------------------
 *
 * plan_cost.h
 *	  The one cost model of wide's scans (the Wide Scan, the Wide Read Rows
 *	  scan, the row form's foreign scans) and the share of a wide table a
 *	  key range holds, from row_key's statistics (plan_cost.c).
 *
 * IDENTIFICATION
 *	  src/am/plan_cost.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_PLAN_COST_H
#define WIDE_PLAN_COST_H

#include "access/htup.h"
#include "nodes/pathnodes.h"
#include "utils/lsyscache.h"

/* what a scan of a wide table reads */
typedef struct WideReadShape
{
	double		pages;			/* the table's pages */
	double		cells;			/* the table's cells (or rows of a row form) */
	Selectivity fraction;		/* the share read (1: all) */
	double		nseeks;			/* seeks to key ranges (0: none, a full read) */
	double		cells_per_tuple;	/* cells merged into one tuple (1: a
									 * cell is a tuple) */
} WideReadShape;

extern void WideReadCost(const WideReadShape *r, const QualCost *quals,
						 Cost *startup, Cost *run);
extern void WideScanCost(PlannerInfo *root, RelOptInfo *rel, Path *path,
						 bool has_range, Selectivity range_sel, double nseeks,
						 List *quals);

/* what ANALYZE knows of a wide table's row_key */
typedef struct WideKeyStats
{
	bool		have;			/* pg_statistic has a row for row_key */
	double		distinct;		/* distinct keys (rows), 0 if unknown */
	Datum	   *mcv;			/* most common keys and their shares */
	float4	   *mcvfreq;
	int			nmcv;
	double		mcvtotal;		/* share of the cells the MCVs hold */
	Datum	   *hist;			/* histogram bounds */
	int			nhist;
	/* (private: what WideKeyStatsClose releases) */
	HeapTuple	tuple;
	bool		have_mcv;
	bool		have_hist;
	AttStatsSlot mslot;
	AttStatsSlot hslot;
} WideKeyStats;

extern void WideKeyStatsOpen(Oid relid, double cells, bool distribution,
							 WideKeyStats *ks);
extern void WideKeyStatsClose(WideKeyStats *ks);
extern double WideKeyStatsCellsPerRow(const WideKeyStats *ks, double cells,
									  double dflt);
extern Selectivity WideKeyRangeFraction(const WideKeyStats *ks,
										const char *lo, uint32 lolen,
										const char *hi, uint32 hilen);

#endif							/* WIDE_PLAN_COST_H */
