/*-------------------------------------------------------------------------
 *
 * writearea.h
 *	  The write paths: single records into the write area (writearea.c),
 *	  COPY into sorted runs (bulk.c).
 *
 * IDENTIFICATION
 *	  src/engine/writearea.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_WRITEAREA_H
#define WIDE_WRITEAREA_H

#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/cell.h"

/*
 * writearea.c: a check every write path (the write area, COPY runs) makes
 * before writing; set by am/publication.c (when the library is loaded) to
 * refuse writes to published tables.  A hook, so that the engine does not
 * call up into am/.
 */
typedef void (*WideWriteCheck) (Relation rel);
extern WideWriteCheck wide_write_check;

static inline void
WideCheckWrite(Relation rel)
{
	if (wide_write_check != NULL)
		wide_write_check(rel);
}

/*
 * writearea.c: a hook every write path calls with the cells a user wrote
 * (WideWriteAreaInsert, WidePendingAdd, WideBulkAdd), once per cell, in
 * write order; flush and compaction never call it.  Set by am/cdc.c, when
 * the library is preloaded, to log the changes for logical decoding.
 */
typedef void (*WideChangeLog) (Relation rel, const WideCell *cells, int n);
extern WideChangeLog wide_change_log;

static inline void
WideLogChanges(Relation rel, const WideCell *cells, int n)
{
	if (wide_change_log != NULL && n > 0)
		wide_change_log(rel, cells, n);
}

/* writearea.c: the write area */
extern uint32 WideWriteAreaInsert(Relation rel, WideCell *cells, int ncells);
extern uint32 WideWriteAreaAppend(Relation rel, WideCell *cells, int ncells);
extern uint64 WideWriteAreaBound(Relation rel, uint32 *gen);
extern bool WideWriteAreaFitsAt(WideCell *cells, int n);
extern bool WideWriteAreaAppendAt(Relation rel, WideCell *cells, int n,
								  uint64 seq, uint32 gen, uint32 *wa_pages);

extern uint64 WideWACountRecords(Relation rel, const BlockNumber *heads,
								 const uint32 *gens, int nlanes);

typedef struct WideWAScan WideWAScan;
extern WideWAScan *WideWAScanBegin(Relation rel, Snapshot snapshot,
								   const BlockNumber *heads, const uint32 *gens,
								   int nlanes);
extern bool WideWAScanNext(WideWAScan *scan, WideCell *cell);
extern void WideWAScanEnd(WideWAScan *scan);

/* wacache.c: a backend's sorted copy of the write area, for counts */
extern bool WideWACacheRange(Relation rel, uint64 epoch, const BlockNumber *heads,
							 const uint32 *gens, int nlanes, const WideKeyRange *range,
							 const WideCell ***cells, int64 *n);
extern void WideWACacheRelease(void);
extern uint64 WideWACacheReads(void);

/* bulk.c: COPY into sorted runs */
struct WideSorter;
extern void WideBulkAdd(Relation rel, WideCell *cells, int n);
extern void WideBulkFinish(Relation rel);
extern void WideBulkWriteRun(Relation rel, struct WideSorter *sorter, uint64 n,
							 int16 typlen);

/* pending.c: a running statement's cells, written when it ends */
extern uint32 WidePendingAdd(Relation rel, const WideCell *cells, int n,
							 int level);
extern uint32 WidePendingWrite(Relation rel);
extern Oid	WidePendingRelation(int above_level);

#endif							/* WIDE_WRITEAREA_H */
