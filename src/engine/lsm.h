/*-------------------------------------------------------------------------
 *
 * lsm.h
 *	  Maintenance of the LSM tree: flush of the write area (flush.c),
 *	  compaction of runs (compaction.c), the rules both apply (resolve.c),
 *	  VACUUM FULL's rewrite (rewrite.c), the sweep of unreferenced pages
 *	  (sweep.c), truncation of the free tail (truncate.c), and the counts
 *	  of what they did (summary.c).  (api/maintenance.c holds the SQL
 *	  functions that run them.)
 *
 * IDENTIFICATION
 *	  src/engine/lsm.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_LSM_H
#define WIDE_LSM_H

#include "utils/relcache.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/segment.h"

/* resolve.c: the rules of flush and compaction */
typedef struct WideResolver WideResolver;

typedef struct WideResolveStats
{
	uint64		seen;
	uint64		kept;
	uint64		aborted;
	uint64		covered;
	uint64		superseded;
	uint64		collected;		/* by a GC policy (expired + past versions) */
	uint64		expired;		/* of those, by max_age alone */
	uint64		folded;			/* aggregate inputs merged into another */
	uint64		tombstones_dropped;
	uint64		dropped_family;
} WideResolveStats;

/* where a resolver writes a record (a time-windowed merge, compaction.c) */
typedef WideSegmentWriter *(*WideResolverRoute) (void *arg, const WideCell *c);

extern int64 WideGCNow(void);
extern WideResolver *WideResolverCreate(Relation rel, const WideSchema *schema,
										bool bottom, int64 gc_now,
										WideSegmentWriter *w);
extern void WideResolverSetRoute(WideResolver *r, WideResolverRoute route,
								 void *arg);
extern void WideResolverPush(WideResolver *r, const WideCell *c);
extern void WideResolverFlush(WideResolver *r);
struct WideDropRule;
extern const struct WideDropRule *WideResolverDrops(const WideResolver *r, int *ndrops);
extern const struct WideDropRule *WideResolverPendingDrops(const WideResolver *r, int *ndrops);
struct WideRangeDels;
extern const struct WideRangeDels *WideResolverRangeDels(const WideResolver *r);
extern WideResolveStats WideResolverFinish(WideResolver *r);

/* flush.c */
extern bool WideFlush(Relation rel);

/* compaction.c */
extern bool WideCompactStep(Relation rel, bool major, uint64 cap);
extern void WideCompactRange(Relation rel, int lo, int hi);
extern void WideCompactForRoom(Relation rel, int slots);
extern int	WideCompactDropRuns(Relation rel);
extern int64 WideTimeWindow(const WideSchema *schema);
extern bool WideCompactRunBySegid(Relation rel, uint32 segid,
								  BlockNumber move_blobs_from,
								  const char *crash_point);
extern bool WideMoveRunBySegid(Relation rel, uint32 segid,
							   const char *crash_point);
extern int	WideRangeDelVacuum(Relation rel);

/*
 * summary.c: what this backend's flushes and compactions did, summed since
 * it started; wide.compact and VACUUM VERBOSE report the difference between
 * two readings.
 */
typedef struct WideMaintCounts
{
	int64		flushes;		/* flushes that wrote or listed runs */
	int64		compactions;	/* merges, and rewrites of one run */
	int64		runs_in;		/* runs of the table merged */
	int64		runs_out;		/* runs added to the table's list */
	int64		bytes_read;		/* pages read (runs, write area) * BLCKSZ */
	int64		bytes_written;	/* pages of the runs written * BLCKSZ */
	int64		cells_in;		/* records read */
	int64		cells_out;		/* records written */
	WideResolveStats resolved;	/* what the resolver dropped, and why */
} WideMaintCounts;

extern PGDLLIMPORT WideMaintCounts WideMaintTotals;
extern void WideMaintAddResolved(const WideResolveStats *s);
extern void WideMaintDiff(const WideMaintCounts *before, WideMaintCounts *d);

/* rewrite.c */
extern WideResolveStats WideRewrite(Relation src, Relation dst);

/* sweep.c */
extern int64 WideSweep(Relation rel);
extern void WideMarkReachable(Relation rel, const WideMetaPageData *meta,
							  BlockNumber nblocks, uint8 *bits);

/* truncate.c: free pages at the end of the table back to the file system */
typedef struct WideFreeSurveyData
{
	BlockNumber nblocks;		/* pages in the table */
	BlockNumber tail_start;		/* every page from here on is queued */
	BlockNumber free_pages;		/* pages in the free queue */
} WideFreeSurveyData;

extern void WideFreeSurvey(Relation rel, WideFreeSurveyData *s);
extern BlockNumber WideTruncateTail(Relation rel);
extern int	WideRelocateTail(Relation rel);

#endif							/* WIDE_LSM_H */
