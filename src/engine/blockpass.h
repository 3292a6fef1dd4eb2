/*-------------------------------------------------------------------------
 *
 * blockpass.h
 *	  A compaction's inputs read block by block, passing whole data blocks
 *	  into the output (blockpass.c).
 *
 * IDENTIFICATION
 *	  src/engine/blockpass.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_BLOCKPASS_H
#define WIDE_BLOCKPASS_H

#include "lib/stringinfo.h"
#include "utils/relcache.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/segment.h"
#include "engine/lsm.h"

extern bool wide_compaction_pass_through;	/* GUC */
extern bool wide_compaction_fast_survey;	/* GUC (tests) */

typedef struct WidePassRules
{
	const WideSchema *schema;	/* the committed catalog (the resolver's) */
	const WideSchema *current;	/* the one our transaction sees */
	int64		gc_now;			/* the resolver's GC time */
	bool		enabled;
} WidePassRules;

typedef struct WidePassStats
{
	uint64		passed;			/* data blocks written as they were */
	uint64		passed_cells;	/* their records */
	uint64		merged;			/* data blocks merged record by record */
} WidePassStats;

typedef struct WidePassSource WidePassSource;

extern void WidePassRulesInit(WidePassRules *rules, Relation rel,
							  const WideSchema *schema, int64 gc_now,
							  bool enabled);
extern WidePassSource *WidePassSourceBegin(Relation rel, const WideRunData *run,
										   const WidePassRules *rules);
extern WideSegment *WidePassSourceSegment(WidePassSource *ps);
extern bool WidePassSourceNext(void *arg, WideCell *cell);
extern bool WidePassSourceAtMarker(const WidePassSource *ps);
extern bool WidePassSourceOffer(WidePassSource *ps, const WideCell *other,
								StringInfo merged, bool have_merged,
								WideResolver *resolver, WideSegmentWriter *w,
								WidePassStats *stats);
extern void WidePassSourceEnd(WidePassSource *ps);

#endif							/* WIDE_BLOCKPASS_H */
