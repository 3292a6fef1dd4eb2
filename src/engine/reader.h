/*-------------------------------------------------------------------------
 *
 * reader.h
 *	  The read path: a snapshot of the runs and the write area, merged
 *	  (reader.c), with deletes, versions and aggregates applied (merge.c).
 *
 * IDENTIFICATION
 *	  src/engine/reader.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_READER_H
#define WIDE_READER_H

#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/tswindow.h"

struct WideDropRule;

typedef struct WideReaderStats
{
	uint64		wa_records;		/* write-area records read */
	uint64		runs_read;		/* runs opened */
	uint64		blocks_read;	/* segment data blocks opened */
	uint64		blocks_kept;	/* ... decoded into the backend's block cache */
	uint64		records;		/* records merged */
	uint64		cells;			/* cells returned */
	uint64		blocks_skipped; /* data blocks skipped by time pruning */
	uint64		index_skipped;	/* index blocks skipped by time pruning */
	uint64		records_skipped;	/* stepped over past complete columns
									 * (WideReaderLatest) */
	uint64		blocks_column_skipped;	/* data blocks of such columns alone,
										 * not read */
	uint64		rows_direct;	/* rows read straight from their block
								 * (reverse.c: a backward LIMIT 1's short
								 * path) */
} WideReaderStats;

/* merge.c: the rules of the read path */
typedef struct WideMerger WideMerger;
extern WideMerger *WideMergerCreate(Relation rel, const WideSchema *schema, int64 now);
struct WideRangeDels;
extern void WideMergerSetRanges(WideMerger *m, const struct WideRangeDels *ranges);
extern void WideMergerSetDrops(WideMerger *m, const struct WideDropRule *drops,
							   int ndrops);
extern void WideMergerPush(WideMerger *m, const WideCell *cell, bool hints);
extern bool WideAggLoneIsValue(WideAggregate agg, const WideCell *c);
extern void WideMergerFinish(WideMerger *m);
extern const WideCell *WideMergerPop(WideMerger *m);

/* reader.c */
typedef struct WideReader WideReader;
extern WideReader *WideReaderBegin(Relation rel, Snapshot snapshot, int64 now,
								   const WideKeyRange *range);
extern WideReader *WideReaderBeginTs(Relation rel, Snapshot snapshot, int64 now,
									 const WideKeyRange *range,
									 const WideTsWindow *window);
extern WideReader *WideReaderBeginRanges(Relation rel, Snapshot snapshot,
										 int64 now, const WideKeyRange *range,
										 const WideTsWindow *window);
extern WideReader *WideReaderBeginCounting(Relation rel, Snapshot snapshot,
										   int64 now, const WideKeyRange *range,
										   uint64 below);
extern uint64 WideReaderUnseen(const WideReader *r);
extern void WideReaderNextRange(WideReader *r, const WideKeyRange *range);
extern const WideCell *WideReaderNext(WideReader *r);
extern WideReaderStats WideReaderGetStats(const WideReader *r);
extern void WideReaderEnd(WideReader *r);
typedef bool (*WideRecordFilter) (const WideCell *cell, void *arg);
typedef bool (*WideCellFold) (const WideCell *cell, void *arg);
extern void WideReaderSkipQualifiers(WideReader *r);
extern void WideReaderLatest(WideReader *r, int n);
extern uint64 WideReaderFold(WideReader *r, WideCellFold fold, void *arg,
							 bool *stopped);
extern void WideReaderSetFilter(WideReader *r, WideRecordFilter keep, void *arg);
extern void WideReaderSetStoredFilter(WideReader *r, WideRecordFilter keep, void *arg);
extern int	WideReaderRowBatch(WideReader *r, const WideRowBatchSpec *spec,
							   WideRowBatch *b);
extern int64 WideReaderNow(void);
typedef struct WideReadState WideReadState;
extern WideReadState *WideReadStateBegin(Relation rel, Snapshot snapshot,
										 const WideKeyRange *range);
extern int	WideReadStateRuns(const WideReadState *st, const WideKeyRange *range,
							  WideRunData *out);
extern WideCell *const *WideReadStateWA(const WideReadState *st, int64 *n);
extern WideReader *WideReaderBeginAt(WideReadState *st, int64 now,
									 const WideKeyRange *range,
									 const WideTsWindow *window);
extern bool WideReaderRestartAt(WideReader *r, WideReadState *st,
								const WideKeyRange *range);
extern void WideReadStateEnd(WideReadState *st);
struct WideBlockIter;
extern int	WideReadStateLastRow(WideReadState *st, int64 now,
								 const WideKeyRange *range, const char *hi,
								 uint32 hilen, bool hi_incl,
								 struct WideBlockIter *bi,
								 bool (*add) (const WideCell *cell, void *arg),
								 void *arg, WideReaderStats *stats);

/* reverse.c: reading a range backwards */
typedef struct WideReverseReader WideReverseReader;
extern WideReverseReader *WideReverseBegin(Relation rel, Snapshot snapshot,
										   int64 now, const WideKeyRange *range,
										   bool cells_forward,
										   const WideTsWindow *window);
extern WideReverseReader *WideReverseBeginAt(Relation rel, Snapshot snapshot,
											 WideReadState *state, int64 now,
											 const WideKeyRange *range,
											 bool cells_forward,
											 const WideTsWindow *window);
extern void WideReverseRestart(WideReverseReader *r, int64 now,
							   const WideKeyRange *range);
extern const WideCell *WideReverseNext(WideReverseReader *r);
extern int	WideReverseLastRow(WideReverseReader *r,
							   bool (*fn) (const WideCell *cell, void *arg),
							   void *arg);
extern bool WideReverseRowDone(const WideReverseReader *r);
extern WideReaderStats WideReverseGetStats(const WideReverseReader *r);
extern void WideReverseEnd(WideReverseReader *r);

extern int	WideRowWriters(Relation rel, const char *key, uint32 keylen,
						   TransactionId **xids, uint64 **seqs);

#endif							/* WIDE_READER_H */
