/*-------------------------------------------------------------------------
 *
 * maintenance.h
 *	  Maintenance of the LSM tree: flush of the write area (flush.c),
 *	  compaction of runs (compaction.c), the rules both apply (resolve.c),
 *	  and the sweep of unreferenced pages (sweep.c).
 *
 * IDENTIFICATION
 *	  src/engine/maintenance.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_MAINTENANCE_H
#define WIDE_MAINTENANCE_H

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
	uint64		collected;
	uint64		folded;
	uint64		tombstones_dropped;
	uint64		dropped_family;
} WideResolveStats;

extern int64 WideGCNow(void);
extern WideResolver *WideResolverCreate(Relation rel, const WideSchema *schema,
										bool bottom, int64 gc_now,
										WideSegmentWriter *w);
extern void WideResolverPush(WideResolver *r, const WideCell *c);
extern WideResolveStats WideResolverFinish(WideResolver *r);

/* flush.c */
extern bool WideFlush(Relation rel);
extern void WideFreeBlobsNotKept(WideMetaPage meta, WideBlobRef *had, int nhad,
								 const WideBlobRef *kept, int nkept);

/* compaction.c */
extern bool WideCompactStep(Relation rel, bool major, uint64 cap);
extern void WideCompactRange(Relation rel, int lo, int hi);
extern void WideCompactForRoom(Relation rel, int slots);

/* rewrite.c */
extern WideResolveStats WideRewrite(Relation src, Relation dst);

/* sweep.c */
extern int64 WideSweep(Relation rel);

#endif							/* WIDE_MAINTENANCE_H */
