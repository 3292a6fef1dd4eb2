/*-------------------------------------------------------------------------
 *
 * rangedel.h
 *	  Range tombstones: deletes of a key range of rows, kept in the
 *	  metapage (rangedel.c); applied by rules.c.
 *
 * IDENTIFICATION
 *	  src/engine/rangedel.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_RANGEDEL_H
#define WIDE_RANGEDEL_H

#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/format.h"
#include "engine/rules.h"

extern WideRangeDels *WideRangeDelsParse(const WideMetaPageData *meta);
extern WideRangeDels *WideRangeDelsVisible(const WideRangeDels *all,
										   Snapshot snapshot);
extern WideRangeDels *WideRangeDelsInRange(const WideRangeDels *ds,
										   const WideKeyRange *range);
extern WideRangeDels *WideRangeDelsForRewrite(Relation rel);
extern bool WideRangeDelHidesRun(const WideRangeDel *t, const WideRunData *run);
extern bool WideRangeDelsHideRun(const WideRangeDels *ds, const WideRunData *run);
extern bool WideRangeDelsTouchRun(const WideRangeDels *ds, const WideRunData *run);
extern bool WideRangeDelAdd(Relation rel, const WideRangeDel *t, CommandId cid,
							uint64 *seq, uint64 *runcells);
extern bool WideRangeDelCountMatters(uint64 ncells, uint64 runcells);
extern void WideRangeDelCancel(Relation rel, uint64 seq);
extern void WideRangeDelSetCount(Relation rel, uint64 seq, uint64 ncells);
extern void WideRangeDelsRetire(Relation rel, WideMetaPageData *meta,
								const WideRangeDels *applied,
								const WideRunData *runs, int nruns,
								int lo, int hi);
extern TransactionId WideRangeDelsOldestXmin(Relation rel);
extern void WideRangeDelsCarry(Relation rel, WideMetaPageData *meta,
							   const WideRangeDels *ds);

#endif							/* WIDE_RANGEDEL_H */
