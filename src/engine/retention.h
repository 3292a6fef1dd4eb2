/*-------------------------------------------------------------------------
 *
 * retention.h
 *	  Time-aware runs: windows, windowed merge output, dropped runs
 *	  (retention.c).
 *
 * IDENTIFICATION
 *	  src/engine/retention.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_RETENTION_H
#define WIDE_RETENTION_H

#include "utils/relcache.h"

#include "engine/format.h"
#include "engine/schema.h"
#include "engine/segment.h"
#include "engine/lsm.h"

/* a policy's largest max_age is cut into at most this many windows */
#define WIDE_WINDOWS_PER_AGE	10

extern int	wide_time_window;

typedef struct WideRunOutput WideRunOutput;

extern int64 WideWindowOf(int64 ts, int64 w);
extern bool WideAgeFamily(const WideSchema *schema, uint32 famid);
extern int64 WideFamilyExpiry(const WideFamily *f);
extern int64 WideRetentionAges(const WideSchema *schema, int64 *all);
extern bool WideRunTimes(Relation rel, const WideRunData *run, int64 *ts_min,
						 int64 *ts_max, bool *tombstones);
extern WideRunOutput *WideRunOutputBegin(Relation rel, const WideSchema *schema,
										 int16 typlen, int64 ts_min,
										 int64 ts_max, int slots);
extern bool WideRunOutputWindowed(const WideRunOutput *o);
extern WideSegmentWriter *WideRunOutputDefault(WideRunOutput *o);
extern void WideRunOutputRoute(WideRunOutput *o, WideResolver *r);
extern int	WideRunOutputFinish(WideRunOutput *o, WideRunData *out, uint32 gen);
extern WideBlobRef *WideRunOutputBlobs(WideRunOutput *o, int *nkept);
extern void WideRunOutputEnd(WideRunOutput *o);

#endif							/* WIDE_RETENTION_H */
