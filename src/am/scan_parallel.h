/*-------------------------------------------------------------------------
 *
 * scan_parallel.h
 *	  Parallel Wide Scans (scan_parallel.c): the partial path, and the
 *	  stretches of the key range that the leader and the workers claim.
 *
 * IDENTIFICATION
 *	  src/am/scan_parallel.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SCAN_PARALLEL_H
#define WIDE_SCAN_PARALLEL_H

#include "lib/stringinfo.h"
#include "utils/relcache.h"
#include "engine/cell.h"
#include "engine/reader.h"
#include "engine/split.h"

struct PlannerInfo;
struct RelOptInfo;
struct CustomPath;

/* the shared state of one parallel scan, in the query's DSM */
typedef struct WideParallelScan WideParallelScan;

extern void WideParallelDefineSettings(void);
extern double WideParallelDivisor(int workers);
extern int	WideParallelWorkers(double pages);
extern void WideAddPartialPath(struct PlannerInfo *root, struct RelOptInfo *rel,
							   const struct CustomPath *serial, double sel);
extern int	WideParallelSplits(Relation rel, const WideKeyRange *range,
							   int nworkers, WideSplitKey **keys);
extern Size WideParallelSize(int nkeys, const WideSplitKey *keys);
extern void WideParallelInit(WideParallelScan *ps, int nkeys,
							 const WideSplitKey *keys, int64 now);
extern void WideParallelReinit(WideParallelScan *ps);
extern int64 WideParallelNow(const WideParallelScan *ps);
extern int	WideParallelStretches(const WideParallelScan *ps);
extern bool WideParallelClaim(WideParallelScan *ps, const WideKeyRange *range,
							  WideKeyRange *out, StringInfo lo, StringInfo hi);
extern void WideParallelAddStats(WideParallelScan *ps, const WideReaderStats *st);
extern void WideParallelGetStats(const WideParallelScan *ps, WideReaderStats *st);

#endif							/* WIDE_SCAN_PARALLEL_H */
