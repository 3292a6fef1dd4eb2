/*-------------------------------------------------------------------------
 *
 * reader.c
 *	  Reading the cells of a wide table as one snapshot sees them.
 *
 * A reader reads the metapage once, and with that one state:
 *	- gathers the write-area records (current and sealed generation) whose
 *	  row lies in the key range and that the snapshot sees, and sorts them;
 *	- opens an iterator on every run that may hold the range (and on the
 *	  runs bulk loads put in the write area), which seeks to its start and
 *	  stops at its end (segment_reader.c);
 *	- merges them all (iterator.c), drops segment records the snapshot does
 *	  not see, and passes the rest through the merger (merge.c), which
 *	  applies deletes, last-write-wins, aggregates, families and GC.
 * Pages the reader may still visit are not reused while its snapshot lives
 * (space.c).  Values kept in blobs are read only for cells returned.
 *
 * The reference time of max-age policies is fixed for a statement -- for a
 * whole transaction under REPEATABLE READ or SERIALIZABLE -- so that one
 * snapshot never sees a cell expire under it.
 *
 * IDENTIFICATION
 *	  src/engine/reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "lib/stringinfo.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/sort.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/writearea.h"
#include "engine/segment.h"
#include "engine/tswindow.h"
#include "engine/reader.h"
#include "engine/rules.h"
#include "engine/rangedel.h"
#include "engine/drops.h"
#include "engine/manifest.h"

struct WideReader
{
	Relation	rel;
	Snapshot	snapshot;
	WideSchema *schema;
	WideKeyRange range;
	WideSorter *sorter;
	WideMergeIter *merge;
	WideCell *const *wacells;	/* WideReaderBeginAt: a read state's records */
	int64		nwa;
	int64		nextwa;
	WideSegIter *its[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	int			nits;
	WideMerger *merger;
	bool		pruning;		/* skipping by a window of timestamps */
	WideTsPrune prune;
	bool		finished;		/* all records pushed */
	bool		skipped;		/* the last record was not pushed */
	bool		done;			/* all cells returned */
	const WideRangeDels *ranges;	/* visible range tombstones (rangedel.c) */
	/* WideReaderBeginCounting: records written before unseen_below by others */
	uint64		unseen_below;
	uint64		nunseen;
	bool		blobvalues;		/* valcxt holds something */
	WideCell	blobcell;		/* a cell whose value was read from a blob */
	MemoryContext valcxt;		/* values read from blobs */
	WideReaderStats stats;
	/* WideReaderBeginRanges: the table's state, kept for each sub-range */
	struct TableState *state;
	int64		now;
	MemoryContext rangecxt;		/* the current sub-range's merge */
	/* one frozen run without tombstones: its cells need no merge */
	bool		fast;
	const WideRunData *fastrun;	/* ... which (WideReaderRestartAt) */
	WideBlockIter *fastbi;		/* its block, when no record needs a check */
	WideCell	fastcell;
	const WideFamily *fastdef;
	bool		has_agg;		/* a family of the schema folds aggregates */
	/* an aggregate record of a plain run folded alone (fast_fold) */
	WideAcc		fastacc;
	bool		fastacc_init;
	WideCell	foldcell;
	char	   *foldbuf;
	uint32		foldcap;
	const WideFamily *foldef;	/* the column whose aggregate is foldagg */
	char		foldqual[64];
	int			foldquallen;	/* -1: none */
	WideAggregate foldagg;
	uint64		nobatch;		/* WideReaderRowBatch: not in this block (its
								 * number, from 1) */
	char		fastfam[WIDE_MAX_FAMILY_NAME + 1];
	int			fastfamlen;		/* -1: no family looked up yet */
	/* WideReaderSetFilter: the records of columns the caller wants */
	WideRecordFilter keep;
	void	   *keep_arg;
	bool		kept_cell;		/* the record pushed last was a cell keep()
								 * accepted */
	WideRecordFilter skeep;		/* WideReaderSetStoredFilter */
	void	   *skeep_arg;
	bool		skip_quals;		/* WideReaderSkipQualifiers */
	/* WideReaderLatest: at most latest_n cells of each column */
	int			latest_n;
	int			col_count;		/* cells of column col returned */
	bool		have_col;
	bool		skip_col;		/* col is complete: step past its records */
	WideCell	col;			/* the column of the last cell returned */
	StringInfoData colbuf;		/* ... its row, family and qualifier */
};

/*
 * WideReaderNow -- reference time for max-age policies, microseconds since
 * 1970.
 */
int64
WideReaderNow(void)
{
	TimestampTz now = IsolationUsesXactSnapshot() ?
		GetCurrentTransactionStartTimestamp() :
		GetCurrentStatementStartTimestamp();

	return WideTimestampToUnix(now);
}

/* the write-area records of the reader's current sub-range */
static bool
sorter_next_range(void *arg, WideCell *cell)
{
	WideReader *r = (WideReader *) arg;

	return WideSorterNextInRange(r->sorter, &r->range, cell);
}

static bool
seg_skip(void *arg, const WideCell *col, WideCell *cell)
{
	return WideSegIterSkipColumn((WideSegIter *) arg, col, cell);
}

static void
copy_bound(const char **dst, const char *src, uint32 len)
{
	char	   *p = palloc(Max(len, 1));

	memcpy(p, src, len);
	*dst = p;
}

/* *dst becomes range, its bounds copied (palloc'd) */
static void
set_range(WideKeyRange *dst, const WideKeyRange *range)
{
	*dst = *range;
	if (range->has_start)
		copy_bound(&dst->start, range->start, range->startlen);
	if (range->has_end)
		copy_bound(&dst->end, range->end, range->endlen);
}

/* one consistent state of a table: its runs and write-area lanes */
typedef struct TableState
{
	WideRunData runs[WIDE_MAX_RUNS];
	int			nruns;
	WideRunData waruns[WIDE_MAX_WA_RUNS];
	int			nwaruns;
	BlockNumber heads[2 * WIDE_NLANES];
	uint32		gens[2 * WIDE_NLANES];
	int			nlanes;
	uint64		epoch;			/* the metapage's storage epoch */
	WideRangeDels *rdels;		/* every range tombstone, or NULL */
	WideDropRule drops[WIDE_MAX_DROPS];	/* that the snapshot sees (drops.c) */
	int			ndrops;
} TableState;

/* copy the table's state from its metapage (nothing if it has none) */
static void
table_state(Relation rel, TableState *ts, Snapshot snapshot)
{
	Buffer		metabuf;

	/* this backend's running statement's cells first (pending.c) */
	WidePendingWrite(rel);
	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	ts->nruns = ts->nwaruns = ts->nlanes = ts->ndrops = 0;
	ts->rdels = NULL;
	if (!BufferIsValid(metabuf))
		return;
	{
		WideMetaPage meta = WidePageGetMeta(BufferGetPage(metabuf));

		ts->ndrops = WideDropsForSnapshot(meta, snapshot, ts->drops);
		ts->epoch = meta->epoch;
		ts->nruns = meta->nruns;
		memcpy(ts->runs, meta->runs, sizeof(WideRunData) * ts->nruns);
		ts->nwaruns = meta->nwaruns;
		memcpy(ts->waruns, meta->waruns, sizeof(WideRunData) * ts->nwaruns);
		if (meta->nrangedels > 0)
			ts->rdels = WideRangeDelsParse(meta);
		ts->nlanes = WideManifestLanes(meta, ts->heads, ts->gens);
	}
	UnlockReleaseBuffer(metabuf);
}

/* the runs (bulk-loaded ones too) that may hold a range */
static int
runs_in_range(const TableState *ts, const WideKeyRange *range, WideRunData *out)
{
	int			n = 0,
				i;

	for (i = 0; i < ts->nruns; i++)
		if (WideRunOverlapsRange(&ts->runs[i], range))
			out[n++] = ts->runs[i];
	for (i = 0; i < ts->nwaruns; i++)
		if (WideRunOverlapsRange(&ts->waruns[i], range))
			out[n++] = ts->waruns[i];
	return n;
}

/* is the record one the snapshot does not see, written by another
 * transaction that has not aborted, before unseen_below? */
static inline bool
unseen_writer(const WideReader *r, const WideCell *c, uint8 hint)
{
	return c->seq < r->unseen_below && TransactionIdIsNormal(c->xmin) &&
		hint != WIDE_REC_XMIN_INVALID && !(c->flags & WIDE_REC_XMIN_INVALID) &&
		!TransactionIdIsCurrentTransactionId(c->xmin);
}

/*
 * wa_take -- a write-area record in range, for a reader r or a read state
 * (r NULL): with a snapshot, one it does not see is left out -- a counting
 * reader counts it if another transaction wrote it (unseen_writer), a read
 * state tells SSI it skipped it, as WideWAScanNext does -- and the hint
 * learnt is kept in the record "stored" of the backend's copy, if any;
 * then one the reader's window prunes is left out; the rest go to sorter.
 */
static void
wa_take(Relation rel, WideReader *r, Snapshot snapshot, WideSorter *sorter,
		WideCell *cell, WideCell *stored)
{
	if (snapshot != NULL)
	{
		uint8		hint;
		bool		visible = WideRecordVisible(cell, snapshot, &hint);

		/* (a hint is for good: the copy keeps it) */
		if (stored != NULL)
			stored->flags |= hint;
		if (!visible)
		{
			if (r == NULL)
				WideSerializableUnseen(rel, cell, snapshot, hint);
			else if (unseen_writer(r, cell, hint))
				r->nunseen++;
			return;
		}
		cell->flags |= hint;
	}
	if (r != NULL && r->pruning && WideTsPruneRecord(&r->prune, cell))
		return;
	WideSorterAdd(sorter, cell);
}

/*
 * wa_from_cache -- the write-area records of range that the snapshot sees
 * (all with none), into sorter, from this backend's copy of the write area
 * (wacache.c), which reads only what was appended since its last read: a
 * transaction of single-row DELETEs appends a tombstone each, and so does
 * a row form's DELETE of readings, and each count or read state would read
 * them all again.  As WideWAScanNext with a snapshot, but the hint learnt
 * is kept in the copy, not set on the page (wa_take).  For a counting
 * reader r (NULL for a read state) each record is counted in its
 * statistics.  False if the copy cannot serve (the caller scans).
 */
static bool
wa_from_cache(Relation rel, const TableState *ts, Snapshot snapshot,
			  const WideKeyRange *range, WideSorter *sorter, WideReader *r)
{
	const WideCell **wa;
	int64		nwa;

	if (!WideWACacheRange(rel, ts->epoch, ts->heads, ts->gens, ts->nlanes,
						  range, &wa, &nwa))
		return false;
	for (int64 i = 0; i < nwa; i++)
	{
		WideCell	cell = *wa[i];

		/* (the copy returns only records in range) */
		if (r != NULL)
			r->stats.wa_records++;
		wa_take(rel, r, snapshot, sorter, &cell, (WideCell *) wa[i]);
	}
	WideWACacheRelease();
	pfree(wa);
	return true;
}

/*
 * wa_scan -- the same by a scan of the write-area pages, which sets the
 * hints it learns on them.  A counting reader scans without a snapshot and
 * judges each record in range itself, to count the ones it does not see.
 */
static void
wa_scan(Relation rel, const TableState *ts, Snapshot snapshot,
		const WideKeyRange *range, WideSorter *sorter, WideReader *r)
{
	bool		counting = r != NULL && r->unseen_below > 0;
	WideWAScan *wa = WideWAScanBegin(rel, counting ? NULL : snapshot,
									 ts->heads, ts->gens, ts->nlanes);
	WideCell	cell;

	while (WideWAScanNext(wa, &cell))
	{
		if (r != NULL)
			r->stats.wa_records++;
		if (WideRowBeforeRange(range, cell.key, cell.keylen) ||
			WideRowAfterRange(range, cell.key, cell.keylen))
			continue;
		/* (the scan judged visibility unless counting) */
		wa_take(rel, r, counting ? snapshot : NULL, sorter, &cell, NULL);
	}
	WideWAScanEnd(wa);
}

/*
 * wa_gather -- the write-area records in range that a read sees, into
 * sorter: for a reader r, or a read state (r NULL).  Read states and
 * counting readers, which a transaction repeats, take them from the
 * backend's copy when it serves (wa_from_cache); other readers, and those
 * the copy cannot serve, scan the pages (wa_scan).
 */
static void
wa_gather(Relation rel, const TableState *ts, Snapshot snapshot,
		  const WideKeyRange *range, WideSorter *sorter, WideReader *r)
{
	if (ts->nlanes == 0)
		return;
	if ((r == NULL || r->unseen_below > 0) &&
		wa_from_cache(rel, ts, snapshot, range, sorter, r))
		return;
	wa_scan(rel, ts, snapshot, range, sorter, r);
}

/*
 * Everything a reader needs before it merges: the schema, the range, the
 * predicate lock, one state of the table (into *ts) and its visible
 * write-area records in range, sorted.
 */
static WideReader *
reader_prepare(Relation rel, Snapshot snapshot, int64 now,
			   const WideKeyRange *range, const WideTsWindow *window,
			   TableState *ts, uint64 unseen_below)
{
	WideReader *r = palloc0(sizeof(WideReader));

	r->rel = rel;
	r->snapshot = snapshot;
	r->now = now;
	r->schema = WideSchemaCopy(rel);
	for (int i = 0; i < r->schema->nfamilies; i++)
		r->has_agg |= r->schema->families[i].aggregate != WIDE_AGG_NONE;
	r->foldquallen = -1;
	if (window)
	{
		r->pruning = true;
		WideTsPruneInit(&r->prune, window, r->schema);
	}
	r->valcxt = AllocSetContextCreate(CurrentMemoryContext, "wide reader values",
									  ALLOCSET_DEFAULT_SIZES);
	if (range)
		set_range(&r->range, range);

	/* under SERIALIZABLE: a predicate lock on the relation */
	WideSerializableRead(rel, snapshot);

	/* one consistent state of the table */
	table_state(rel, ts, snapshot);
	if (ts->rdels)
		r->ranges = WideRangeDelsInRange(snapshot ?
										 WideRangeDelsVisible(ts->rdels, snapshot) :
										 ts->rdels, range);
	r->unseen_below = unseen_below;

	/* the write area: visible records in range, sorted */
	r->sorter = WideSorterBegin();
	wa_gather(rel, ts, snapshot, &r->range, r->sorter, r);
	WideSorterDone(r->sorter);
	return r;
}

/*
 * May the cells of this run, the only source of a range, be returned as
 * they are stored?  Yes if every record is frozen (visible to every
 * snapshot; flush and compaction then left one record per cell), the run
 * holds no tombstones, no family counts versions (or the run holds one
 * record per column, WIDE_RUN_ONE_VERSION, which no version limit
 * collects), and, if a family folds aggregates, the run holds one record
 * per cell (WIDE_RUN_ONE_PER_CELL, format 6: a compacted rollup):
 * the merger would only drop cells of unknown families and cells past a
 * max age, which the fast path does too (reader_next_fast), and fold each
 * aggregate record alone, which the fast path does too (fast_fold).
 */
static bool
run_is_plain(const WideSchema *schema, const WideRunData *run)
{
	int			i;

	if ((run->flags & WIDE_RUN_HAS_TOMBSTONES) ||
		TransactionIdIsValid(run->min_xmin))
		return false;
	for (i = 0; i < schema->nfamilies; i++)
	{
		const WideFamily *f = &schema->families[i];
		bool		versions = false,
					ages = false;
		int			j;

		if (f->aggregate != WIDE_AGG_NONE &&
			!(run->flags & WIDE_RUN_ONE_PER_CELL))
			return false;
		for (j = 0; j < f->ngc; j++)
		{
			versions |= (f->gc[j].kind == WIDE_GC_VERSIONS);
			ages |= (f->gc[j].kind == WIDE_GC_AGE);
		}
		versions |= (f->max_versions > 0);
		ages |= (f->max_age > 0);
		if (!versions)
			continue;			/* (ages only: judged cell by cell,
								 * reader_next_fast) */

		/*
		 * A version limit never collects the only version of a column
		 * (every limit is at least 1), so a run with one record per column
		 * is read as it is -- unless ages join the policy, whose mix with
		 * versions only the merger judges.
		 */
		if (ages || !(run->flags & WIDE_RUN_ONE_VERSION))
			return false;
	}
	return true;
}

/* may a drop the reader sees delete records of the run? (drops.c) */
static bool
drops_touch(const TableState *ts, const WideRunData *run)
{
	int			i;

	for (i = 0; i < ts->ndrops; i++)
		if (run->min_seq < ts->drops[i].seq)
			return true;
	return false;
}

/*
 * reader_merge_run -- add an iterator on a run to the reader's merge,
 * ranked "order" among its sources (WideMergeIterAdd: larger is newer).
 */
static void
reader_merge_run(WideReader *r, const WideRunData *run, int order)
{
	WideSegIter *it = WideSegIterBegin(r->rel, run, &r->range);

	r->its[r->nits++] = it;
	if (r->pruning)
		WideSegIterSetPrune(it, &r->prune);
	if (r->keep)
		WideSegIterSetColumnFilter(it, r->keep, r->keep_arg);
	WideMergeIterAddSkippable(r->merge, WideSegIterSource, seg_skip, it, order);
	r->stats.runs_read++;
}

/*
 * The one run of ts that holds range, if it is plain (run_is_plain) and
 * neither a drop nor one of the range tombstones "ranges" may delete its
 * records; else NULL.  *nover: how many runs may hold the range.
 */
static const WideRunData *
only_plain_run(const WideSchema *schema, const TableState *ts,
			   const WideRangeDels *ranges, const WideKeyRange *range,
			   int *nover)
{
	const WideRunData *only = NULL;
	int			i;

	*nover = 0;
	for (i = 0; i < ts->nwaruns; i++)
		if (WideRunOverlapsRange(&ts->waruns[i], range))
			(*nover)++, only = &ts->waruns[i];
	for (i = 0; i < ts->nruns; i++)
		if (WideRunOverlapsRange(&ts->runs[i], range) &&
			!WideRangeDelsHideRun(ranges, &ts->runs[i]))
			(*nover)++, only = &ts->runs[i];
	if (*nover == 1 && run_is_plain(schema, only) && !drops_touch(ts, only) &&
		!WideRangeDelsTouchRun(ranges, only))
		return only;
	return NULL;
}

/*
 * the one plain run (run_is_plain) that alone holds r->range, with no
 * write-area record in it: read straight from it; else NULL
 */
static const WideRunData *
fast_run(const WideReader *r, const TableState *ts)
{
	const WideRunData *only;
	int			nover;

	only = only_plain_run(r->schema, ts, r->ranges, &r->range, &nover);
	if (only != NULL &&
		!(r->sorter ? WideSorterPeekInRange(r->sorter, &r->range) :
		  (r->nextwa < r->nwa &&
		   !WideRowAfterRange(&r->range, r->wacells[r->nextwa]->key,
							  r->wacells[r->nextwa]->keylen))))
		return only;
	return NULL;
}

/*
 * Start merging r->range: the merger, and the write area merged with every
 * run (bulk-loaded ones too) that may hold the range.  A range that only
 * one plain run holds (run_is_plain), with no write-area record in it, is
 * read straight from that run.
 */
static void
reader_open(WideReader *r, const TableState *ts, WideSourceNext wa_next)
{
	const WideRunData *only = fast_run(r, ts);
	int			i;

	/* (those of an earlier sub-range went with its memory) */
	r->merge = NULL;
	r->merger = NULL;
	r->fast = false;
	r->fastrun = only;
	if (only != NULL)
	{
		r->its[0] = WideSegIterBegin(r->rel, only, &r->range);
		if (r->pruning)
			WideSegIterSetPrune(r->its[0], &r->prune);
		if (r->skip_quals)
			WideSegIterSkipQualifiers(r->its[0]);
		else if (r->skeep && !r->has_agg)
			WideSegIterSetFilter(r->its[0], r->skeep, r->skeep_arg);
		else if (r->keep)
			WideSegIterSetColumnFilter(r->its[0], r->keep, r->keep_arg);
		r->nits = 1;
		r->stats.runs_read++;
		r->fast = true;
		r->fastbi = NULL;
		r->fastfamlen = -1;
		r->nobatch = 0;
		return;
	}

	r->merger = WideMergerCreate(r->rel, r->schema, r->now);
	r->kept_cell = false;
	WideMergerSetRanges(r->merger, r->ranges);
	WideMergerSetDrops(r->merger, ts->drops, ts->ndrops);
	r->merge = WideMergeIterCreate(ts->nruns + ts->nwaruns + 1);
	WideMergeIterAdd(r->merge, wa_next, wa_next == WideSorterSource ? (void *) r->sorter : (void *) r,
					 WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS + 1);
	for (i = ts->nwaruns - 1; i >= 0; i--)
	{
		if (!WideRunOverlapsRange(&ts->waruns[i], &r->range))
			continue;
		reader_merge_run(r, &ts->waruns[i], WIDE_MAX_RUNS + i);
	}
	for (i = ts->nruns - 1; i >= 0; i--)
	{
		/* (a run a range tombstone deletes whole is not read) */
		if (!WideRunOverlapsRange(&ts->runs[i], &r->range) ||
			WideRangeDelsHideRun(r->ranges, &ts->runs[i]))
			continue;
		reader_merge_run(r, &ts->runs[i], i);
	}
}

/*
 * WideReaderBegin -- start reading the cells whose row key lies in range
 * (NULL: all).
 */
WideReader *
WideReaderBegin(Relation rel, Snapshot snapshot, int64 now,
				const WideKeyRange *range)
{
	return WideReaderBeginTs(rel, snapshot, now, range, NULL);
}

/*
 * WideReaderBeginTs -- the same, for a caller that wants only the cells
 * whose timestamp lies in a window (NULL: all): exactly those are
 * returned, as a read without the window returns them, and what time
 * pruning allows is never read (tsprune.c).
 */
WideReader *
WideReaderBeginTs(Relation rel, Snapshot snapshot, int64 now,
				  const WideKeyRange *range, const WideTsWindow *window)
{
	TableState	ts;
	WideReader *r = reader_prepare(rel, snapshot, now, range, window, &ts, 0);

	reader_open(r, &ts, WideSorterSource);
	return r;
}

/*
 * WideReaderBeginCounting -- a reader of a range (NULL: all) as
 * WideReaderBegin, that also counts the records in it that the snapshot
 * does not see because another transaction wrote them, before sequence
 * number "below", and has not aborted (WideReaderUnseen): the records a
 * range tombstone numbered "below" would delete and a delete by the
 * snapshot would not (am/rangedel.c).
 */
WideReader *
WideReaderBeginCounting(Relation rel, Snapshot snapshot, int64 now,
						const WideKeyRange *range, uint64 below)
{
	TableState	ts;
	WideReader *r;

	Assert(below > 0);
	r = reader_prepare(rel, snapshot, now, range, NULL, &ts, below);
	reader_open(r, &ts, WideSorterSource);
	return r;
}

/*
 * WideReaderUnseen -- what WideReaderBeginCounting counted so far.
 */
uint64
WideReaderUnseen(const WideReader *r)
{
	return r->nunseen;
}

/*
 * WideReaderBeginRanges -- a reader of range (NULL: all) that reads
 * nothing until WideReaderNextRange names a part of it; for parallel
 * scans, each of whose processes reads the stretches it claims one after
 * the other.  The state of the table and the write area are read once,
 * here, and serve every stretch.
 */
WideReader *
WideReaderBeginRanges(Relation rel, Snapshot snapshot, int64 now,
					  const WideKeyRange *range, const WideTsWindow *window)
{
	TableState	ts;
	WideReader *r = reader_prepare(rel, snapshot, now, range, window, &ts, 0);

	r->state = palloc(sizeof(TableState));
	memcpy(r->state, &ts, sizeof(TableState));
	r->rangecxt = AllocSetContextCreate(CurrentMemoryContext, "wide reader range",
										ALLOCSET_DEFAULT_SIZES);
	r->done = true;
	return r;
}

/*
 * WideReaderNextRange -- read next the cells of "range", a part of the
 * reader's range (of WideReaderBeginRanges) after every part read before.
 */
void
WideReaderNextRange(WideReader *r, const WideKeyRange *range)
{
	MemoryContext old;
	int			i;

	Assert(r->state != NULL);
	for (i = 0; i < r->nits; i++)
	{
		uint64		skipped,
					index_skipped;

		r->stats.blocks_read += WideSegIterBlocks(r->its[i]);
		r->stats.blocks_kept += WideSegIterBlocksKept(r->its[i]);
		WideSegIterSkipped(r->its[i], &skipped, &index_skipped);
		r->stats.blocks_skipped += skipped;
		r->stats.index_skipped += index_skipped;
		r->stats.records_skipped += WideSegIterSkippedRecords(r->its[i], &skipped);
		r->stats.blocks_column_skipped += skipped;
		WideSegIterEnd(r->its[i]);
	}
	r->nits = 0;
	if (r->merge)
		r->stats.records_skipped += WideMergeIterSkipped(r->merge);
	MemoryContextReset(r->rangecxt);
	old = MemoryContextSwitchTo(r->rangecxt);
	set_range(&r->range, range);
	reader_open(r, r->state, sorter_next_range);
	MemoryContextSwitchTo(old);
	r->finished = r->skipped = r->done = false;
}

/* free the values read from blobs for the cells returned before */
static inline void
free_blob_values(WideReader *r)
{
	if (r->blobvalues)
	{
		MemoryContextReset(r->valcxt);
		r->blobvalues = false;
	}
}

/*
 * a cell whose value is kept in a blob, with its value read (into valcxt,
 * freed at the next cell)
 */
static const WideCell *
blob_cell(WideReader *r, const WideCell *cell)
{
	MemoryContext old = MemoryContextSwitchTo(r->valcxt);

	r->blobcell = *cell;
	r->blobcell.value = WideBlobRead(r->rel, cell->blob);
	r->blobcell.value_datum = NULL;
	MemoryContextSwitchTo(old);
	r->blobvalues = true;
	return &r->blobcell;
}

/*
 * an aggregate record of a plain run as the merger makes it of a cell's
 * only record: a MERGE record that is its accumulator's value as it is
 * (WideAggLoneIsValue), any other folded alone into an accumulator
 */
static WideCell *
fast_fold(WideReader *r, const WideFamily *def, WideCell *c)
{
	WideAggregate agg;
	const char *value = c->value;
	uint32		size;

	if (def != r->foldef || c->quallen != r->foldquallen ||
		memcmp(c->qual, r->foldqual, c->quallen) != 0)
	{
		agg = WideCellAggregate(def, c->qual, c->quallen);
		if (c->quallen <= sizeof(r->foldqual))
		{
			r->foldef = def;
			memcpy(r->foldqual, c->qual, c->quallen);
			r->foldquallen = c->quallen;
			r->foldagg = agg;
		}
		else
			r->foldquallen = -1;
	}
	else
		agg = r->foldagg;
	if (WideAggLoneIsValue(agg, c))
		return c;
	if (!r->fastacc_init)
	{
		WideAccInit(&r->fastacc, GetMemoryChunkContext(r));
		r->fastacc_init = true;
	}
	if (value == NULL && (c->flags & WIDE_REC_VALUE_BLOB))
	{
		MemoryContext old = MemoryContextSwitchTo(r->valcxt);

		value = WideBlobRead(r->rel, c->blob);
		MemoryContextSwitchTo(old);
		r->blobvalues = true;
	}
	WideAccStart(&r->fastacc, agg);
	WideAccFold(&r->fastacc, c->kind, value, c->vallen);
	size = WideAccSize(&r->fastacc);
	if (r->foldcap < size)
	{
		r->foldcap = Max(size, 64);
		r->foldbuf = r->foldbuf ? repalloc(r->foldbuf, r->foldcap) :
			MemoryContextAlloc(GetMemoryChunkContext(r), r->foldcap);
	}
	WideAccWrite(&r->fastacc, r->foldbuf);
	r->foldcell = *c;
	r->foldcell.kind = WIDE_KIND_MERGE;
	r->foldcell.value = r->foldbuf;
	r->foldcell.vallen = size;
	r->foldcell.value_datum = NULL;
	r->foldcell.flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
	return &r->foldcell;
}

/*
 * a record of a plain run that a merge would return: of a live
 * incarnation of its family (def), a PUT (an aggregate family's: no
 * tombstone), and not past its max age
 */
static inline bool
plain_record_live(const WideFamily *def, const WideCell *c, int64 now)
{
	return def != NULL && c->famid == def->id &&
		(def->aggregate == WIDE_AGG_NONE ? c->kind == WIDE_KIND_PUT :
		 !WIDE_KIND_IS_TOMBSTONE(c->kind)) &&
		!(def->ngc > 0 && def->max_age > 0 &&
		  WideGCCollects(def, 0, c->ts, now, true));
}

/* the next cell of a plain run (run_is_plain), or NULL at the end */
static const WideCell *
reader_next_fast(WideReader *r)
{
	WideCell   *c = &r->fastcell;

	for (;;)
	{
		const WideFamily *def;

		/* past a column that has its cells (WideReaderLatest) */
		if (r->skip_col)
		{
			r->skip_col = false;
			if (!WideSegIterSkipColumn(r->its[0], &r->col, c))
				break;
			r->fastbi = WideSegIterBlock(r->its[0]);
		}
		/* straight from the block while its records are all in range */
		else if (r->fastbi == NULL || !WideBlockIterNext(r->fastbi, c))
		{
			if (!WideSegIterNext(r->its[0], c))
				break;
			r->fastbi = WideSegIterBlock(r->its[0]);
		}
		r->stats.records++;
		/* (the iterator's hint: the family of the record before) */
		if (!((c->same & WIDE_SAME_FAMILY) && r->fastfamlen >= 0) &&
			(c->famlen != r->fastfamlen ||
			 memcmp(c->family, r->fastfam, c->famlen) != 0))
		{
			if (c->famlen > WIDE_MAX_FAMILY_NAME)
			{
				r->fastfamlen = -1;
				continue;		/* no such family */
			}
			memcpy(r->fastfam, c->family, c->famlen);
			r->fastfamlen = c->famlen;
			r->fastdef = WideSchemaFindFamily(r->schema, c->family, c->famlen);
		}
		def = r->fastdef;
		if (!plain_record_live(def, c, r->now))
			continue;
		if (def->aggregate != WIDE_AGG_NONE)
			return fast_fold(r, def, c);
		return c;
	}
	return NULL;
}

/*
 * WideReaderRowBatch -- where the reader reads a plain run as it is stored
 * and every record left in the current data block is in range, decode
 * them into rows of b (block.c: WideBlockIterRowBatch, engine/cell.h) --
 * the same cells, in the same order, as WideReaderNext would return of
 * spec's family and columns, filtered as spec->mode says the caller's
 * filter would; returns the number of rows, 0 where it cannot (the next
 * records are then read by WideReaderNext, which goes on to the next
 * block).  The rows stay valid until the next call of the reader.
 */
int
WideReaderRowBatch(WideReader *r, const WideRowBatchSpec *spec, WideRowBatch *b)
{
	const WideFamily *def;
	uint64		blockno;
	int			i0,
				n;

	if (!r->fast || r->done || r->pruning || r->latest_n > 0 || r->skip_col ||
		r->skip_quals || r->fastbi == NULL || r->nits != 1 || r->has_agg)
		return 0;
	blockno = WideSegIterBlocks(r->its[0]);
	if (r->nobatch == blockno || r->fastbi->i >= r->fastbi->ncells)
		return 0;
	def = WideSchemaFindFamily(r->schema, spec->family, spec->famlen);
	/* (cells past a max age: judged cell by cell, reader_next_fast) */
	if (def == NULL || (def->ngc > 0 && def->max_age > 0))
	{
		r->nobatch = blockno;
		return 0;
	}
	free_blob_values(r);
	i0 = r->fastbi->i;
	n = WideBlockIterRowBatch(r->fastbi, spec, def->id, b);
	if (n == 0)
	{
		/* a record it does not decode (or a damaged one): the cell path */
		r->nobatch = blockno;
		return 0;
	}
	r->stats.records += r->fastbi->i - i0;
	for (int j = 0; j < n; j++)
		r->stats.cells += b->ncells[j];
	return n;
}

/*
 * Is cell among the first latest_n cells of its column (WideReaderLatest)?
 * Once a column has them, the records left of it are stepped over (at the
 * next read, when the cell returned is no longer needed); any cell of it
 * that still comes -- an aggregate's older version the merger had started,
 * records of a source that cannot skip -- is not returned.
 */
static bool
latest_wants(WideReader *r, const WideCell *cell)
{
	if (r->have_col && WideCellSameColumn(cell, &r->col))
	{
		if (r->col_count >= r->latest_n)
			return false;
		r->col_count++;
	}
	else
	{
		resetStringInfo(&r->colbuf);
		appendBinaryStringInfo(&r->colbuf, cell->key, cell->keylen);
		appendBinaryStringInfo(&r->colbuf, cell->family, cell->famlen);
		appendBinaryStringInfo(&r->colbuf, cell->qual, cell->quallen);
		r->col = *cell;
		r->col.key = r->colbuf.data;
		r->col.family = r->colbuf.data + cell->keylen;
		r->col.qual = r->colbuf.data + cell->keylen + cell->famlen;
		r->col.value = NULL;
		r->col.key_datum = r->col.qual_datum = r->col.value_datum = NULL;
		r->have_col = true;
		r->col_count = 1;
	}
	/*
	 * A skip asked for an earlier column is moot: a cell of this one came,
	 * so every source is past it.  (An aggregate's last version is made
	 * when the next column's first record arrives; the plain cell that
	 * record is can follow it before the skip is done.)
	 */
	r->skip_col = r->col_count >= r->latest_n;
	return true;
}

/*
 * WideReaderLatest -- from now on, return only the first n cells (the n
 * newest) of each column, and step past the rest of its records instead of
 * reading them.  What is returned is exactly what a read would return,
 * cut to n cells per column: the merge still applies deletes, visibility,
 * aggregates and GC to the records it reads, and a column is complete only
 * once n cells of it were returned (with a window, n cells in it).  Call
 * before the first WideReaderNext; not with WideReaderSkipQualifiers.
 */
void
WideReaderLatest(WideReader *r, int n)
{
	Assert(n > 0);
	if (r->skip_quals)
		elog(ERROR, "a reader without qualifiers cannot tell columns apart");
	r->latest_n = n;
	initStringInfo(&r->colbuf);
}

/*
 * WideReaderNext -- the next cell, with its value, or NULL at the end; it
 * stays valid until the next call.
 */
const WideCell *
WideReaderNext(WideReader *r)
{
	const WideCell *in;
	const WideCell *cell;

	if (r->done)
		return NULL;
	free_blob_values(r);

next:
	if (r->fast)
	{
		if ((cell = reader_next_fast(r)) == NULL)
		{
			r->done = true;
			return NULL;
		}
	}
	else
		while ((cell = WideMergerPop(r->merger)) == NULL)
	{
		if (r->finished)
		{
			r->done = true;
			return NULL;
		}
		/* past a column that has its cells (WideReaderLatest) */
		if (r->skip_col)
		{
			r->skip_col = false;
			in = WideMergeIterNextAfter(r->merge, &r->col);
			r->skipped = true;	/* the records before were not pushed */
		}
		else
			in = WideMergeIterNext(r->merge);
		if (in != NULL)
		{
			uint8		hint;

			r->stats.records++;
			/* outside the window, and nothing the merger needs (tsprune.c) */
			if (r->pruning && WideTsPruneRecord(&r->prune, in))
			{
				r->skipped = true;
				continue;
			}
			/* write-area records were checked; segment records may not be */
			if (TransactionIdIsNormal(in->xmin) &&
				!WideRecordVisible(in, r->snapshot, &hint))
			{
				WideSerializableUnseen(r->rel, in, r->snapshot, hint);
				if (r->unseen_below && unseen_writer(r, in, hint))
					r->nunseen++;
				r->skipped = true;
				continue;
			}
			/*
			 * records of columns nobody wants need no merging (a cell that
			 * continues the column of the cell pushed before it is wanted)
			 */
			if (r->keep && in->kind != WIDE_KIND_DEL_ROW)
			{
				if (!(r->kept_cell && !r->skipped && (in->same & WIDE_SAME_QUAL) &&
					  !WIDE_KIND_IS_TOMBSTONE(in->kind)) &&
					!r->keep(in, r->keep_arg))
				{
					r->skipped = true;
					continue;
				}
				r->kept_cell = !WIDE_KIND_IS_TOMBSTONE(in->kind);
			}
			else
				r->kept_cell = false;
			/* hints are relative to the previous record, unless it was skipped */
			WideMergerPush(r->merger, in, !r->skipped);
			r->skipped = false;
		}
		else
		{
			WideMergerFinish(r->merger);
			r->finished = true;
		}
	}

	/* with a window, exactly its cells */
	if (r->pruning && !WideTsPruneWants(&r->prune, cell))
		goto next;

	/* the first latest_n cells of each column, and a skip past the rest */
	if (r->latest_n > 0 && !latest_wants(r, cell))
		goto next;

	if (cell->value == NULL && !WIDE_KIND_IS_TOMBSTONE(cell->kind))
		cell = blob_cell(r, cell);
	r->stats.cells++;
	return cell;
}

/*
 * WideReaderSkipQualifiers -- the caller never looks at the qualifiers of
 * the cells returned from now on: where the reader reads a plain run's
 * cells as they are stored (run_is_plain), they come with an empty
 * qualifier, which is cheaper to decode.  (A merge needs them: merged
 * cells have theirs.)
 */
void
WideReaderSkipQualifiers(WideReader *r)
{
	if (r->latest_n > 0 || r->has_agg)
		return;					/* columns must be told apart (an
								 * aggregate's function may depend on its
								 * qualifier: rollups) */
	r->skip_quals = true;
	if (r->fast && r->nits == 1)
		WideSegIterSkipQualifiers(r->its[0]);
}

/*
 * WideReaderFold -- pass the cells WideReaderNext would return next, one
 * after the other, to fn (with the reader's memory current), until the end
 * or until fn returns false (then *stopped is set); returns how many it
 * passed.  For callers that
 * only fold cells (the Wide Aggregate): a plain run's cells go straight
 * from its iterator to fn.
 */
uint64
WideReaderFold(WideReader *r, WideCellFold fn, void *arg, bool *stopped)
{
	const WideCell *cell;
	uint64		n = 0;

	*stopped = false;
	if (!r->fast)
	{
		while ((cell = WideReaderNext(r)) != NULL)
		{
			n++;
			if (!fn(cell, arg))
			{
				*stopped = true;
				break;
			}
		}
		return n;
	}
	if (r->done)
		return 0;
	for (;;)
	{
		free_blob_values(r);
		if ((cell = reader_next_fast(r)) == NULL)
		{
			r->done = true;
			break;
		}
		/* the rest of WideReaderNext: the window, values kept in blobs */
		if (r->pruning && !WideTsPruneWants(&r->prune, cell))
			continue;
		if (unlikely(cell->value == NULL) && !WIDE_KIND_IS_TOMBSTONE(cell->kind))
			cell = blob_cell(r, cell);
		r->stats.cells++;
		n++;
		if (!fn(cell, arg))
		{
			*stopped = true;
			break;
		}
	}
	return n;
}

/*
 * WideReaderSetFilter -- merge only the records keep() accepts, besides row
 * tombstones; keep() sees family tombstones (no qualifier) and the records
 * of one column, whose merge no other column's records change, and judges
 * by the column alone.  (A run's PUT, ADD and MERGE records are offered to
 * keep() as they are decoded, the first of each column, and a rejected
 * column's records stepped over in their block, their time, visibility
 * and value not decoded -- the count cells of a rollup whose sketches are
 * read, say.  A plain run read with WideReaderSkipQualifiers is not
 * filtered there.)  Call before the first WideReaderNext.
 */
void
WideReaderSetFilter(WideReader *r, WideRecordFilter keep, void *arg)
{
	int			i;

	r->keep = keep;
	r->keep_arg = arg;
	/* a plain run's records: those rejected are stepped over in the block */
	if (r->fast)
	{
		if (r->nits == 1 && !r->skip_quals && (r->skeep == NULL || r->has_agg))
			WideSegIterSetColumnFilter(r->its[0], keep, arg);
		return;
	}
	/* so are those of the merged runs (the write area's are checked here) */
	for (i = 0; i < r->nits; i++)
		WideSegIterSetColumnFilter(r->its[i], keep, arg);
}

/*
 * WideReaderSetStoredFilter -- where the reader reads a plain run's records
 * as they are stored (no merge: run_is_plain), step over the PUT records
 * keep() rejects, in their block, instead of WideReaderSetFilter's; keep()
 * sees every record the run's iterator decodes, in order, with its hints (same)
 * relative to the record before it in its block (none at a block's
 * start), so it may keep some records of a column and not others.  A
 * merged read is not filtered by it.  Call before the first WideReaderNext.
 */
void
WideReaderSetStoredFilter(WideReader *r, WideRecordFilter keep, void *arg)
{
	r->skeep = keep;
	r->skeep_arg = arg;
	/* (not of aggregate records: their stored values are not the cells') */
	if (r->fast && r->nits == 1 && !r->skip_quals && !r->has_agg)
		WideSegIterSetFilter(r->its[0], keep, arg);
}

/*
 * WideReaderGetStats -- what the reader has done so far.
 */
WideReaderStats
WideReaderGetStats(const WideReader *r)
{
	WideReaderStats st = r->stats;
	int			i;

	for (i = 0; i < r->nits; i++)
	{
		uint64		skipped,
					index_skipped;

		st.blocks_read += WideSegIterBlocks(r->its[i]);
		st.blocks_kept += WideSegIterBlocksKept(r->its[i]);
		WideSegIterSkipped(r->its[i], &skipped, &index_skipped);
		st.blocks_skipped += skipped;
		st.index_skipped += index_skipped;
		st.records_skipped += WideSegIterSkippedRecords(r->its[i], &skipped);
		st.blocks_column_skipped += skipped;
	}
	if (r->merge)
		st.records_skipped += WideMergeIterSkipped(r->merge);
	return st;
}

/*
 * WideReaderEnd -- release the reader.
 */
void
WideReaderEnd(WideReader *r)
{
	int			i;

	for (i = 0; i < r->nits; i++)
		WideSegIterEnd(r->its[i]);
	if (r->sorter)
		WideSorterEnd(r->sorter);
	MemoryContextDelete(r->valcxt);
	if (r->rangecxt)
		MemoryContextDelete(r->rangecxt);
	if (r->state)
		pfree(r->state);
	pfree(r->schema);
	pfree(r);
}

/* ----------------------------------------------------------------
 *	Read states: one state of a table read in pieces (reverse.c)
 *
 * A reverse read opens a reader per window.  They must all read one state
 * of the table -- a flush between two windows must not show a record both
 * in the write area and in a new run -- and scanning the write area for
 * each would cost its size per window: the state keeps the runs and the
 * sorted visible write-area records of the whole range, taken once.
 * ----------------------------------------------------------------
 */
struct WideReadState
{
	Relation	rel;
	Snapshot	snapshot;
	TableState	ts;
	const WideRangeDels *ranges;	/* visible range tombstones */
	WideSorter *wa;				/* visible write-area records in range */
	WideCell *const *wacells;	/* ... sorted */
	int64		nwa;
	WideSchema *schema;			/* WideReadStateLastRow's, or NULL */
	bool		has_agg;		/* ... a family folds aggregates */
};

/*
 * WideReadStateBegin -- the state of the table for reading a range (NULL:
 * all) in pieces.
 */
WideReadState *
WideReadStateBegin(Relation rel, Snapshot snapshot, const WideKeyRange *range)
{
	WideReadState *st = palloc0(sizeof(WideReadState));
	WideKeyRange all;

	if (range == NULL)
	{
		memset(&all, 0, sizeof(all));
		range = &all;
	}
	st->rel = rel;
	st->snapshot = snapshot;
	WideSerializableRead(rel, snapshot);
	table_state(rel, &st->ts, snapshot);
	if (st->ts.rdels)
		st->ranges = snapshot ? WideRangeDelsVisible(st->ts.rdels, snapshot) :
			st->ts.rdels;
	st->wa = WideSorterBegin();
	wa_gather(rel, &st->ts, snapshot, range, st->wa, NULL);
	WideSorterDone(st->wa);
	st->wacells = WideSorterCells(st->wa, &st->nwa);
	return st;
}

/*
 * WideReadStateRuns -- the runs (bulk-loaded ones too) of the state that
 * may hold a range, copied into out; returns their number.
 */
int
WideReadStateRuns(const WideReadState *st, const WideKeyRange *range,
				  WideRunData *out)
{
	return runs_in_range(&st->ts, range, out);
}

/*
 * WideReadStateWA -- the state's write-area records, sorted.
 */
WideCell *const *
WideReadStateWA(const WideReadState *st, int64 *n)
{
	*n = st->nwa;
	return st->wacells;
}

/*
 * WideReadStateEnd -- release the state (after its readers).
 */
void
WideReadStateEnd(WideReadState *st)
{
	WideSorterEnd(st->wa);
	pfree(st);
}

/*
 * wa_first_in_range -- of a WideReaderBeginAt reader's write-area records
 * (sorted), the first from "from" on that is not before its range
 */
static int64
wa_first_in_range(const WideReader *r, int64 from)
{
	int64		lo = from,
				hi = r->nwa;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (WideRowBeforeRange(&r->range, r->wacells[mid]->key,
							   r->wacells[mid]->keylen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the next write-area record of a WideReaderBeginAt reader, in its range */
static bool
state_next(void *arg, WideCell *cell)
{
	WideReader *r = (WideReader *) arg;
	const WideCell *c;

	if (r->nextwa >= r->nwa)
		return false;
	c = r->wacells[r->nextwa];
	if (WideRowAfterRange(&r->range, c->key, c->keylen))
		return false;
	*cell = *c;
	r->nextwa++;
	return true;
}

/*
 * WideReaderBeginAt -- a reader of the cells of a range (within the
 * state's) as WideReaderBeginTs, of the read state's table state.  (The
 * state's write-area records are pruned by the window as they are merged.)
 */
WideReader *
WideReaderBeginAt(WideReadState *st, int64 now, const WideKeyRange *range,
				  const WideTsWindow *window)
{
	WideReader *r = palloc0(sizeof(WideReader));

	r->rel = st->rel;
	r->snapshot = st->snapshot;
	r->now = now;
	r->schema = WideSchemaCopy(st->rel);
	if (window)
	{
		r->pruning = true;
		WideTsPruneInit(&r->prune, window, r->schema);
	}
	r->valcxt = AllocSetContextCreate(CurrentMemoryContext, "wide reader values",
									  ALLOCSET_DEFAULT_SIZES);
	set_range(&r->range, range);
	/* (those elsewhere would only keep the run from being read as stored) */
	r->ranges = WideRangeDelsInRange(st->ranges, range);

	/* the state's write-area records from the start of the range */
	r->wacells = st->wacells;
	r->nwa = st->nwa;
	r->nextwa = wa_first_in_range(r, 0);

	/*
	 * merged with the state's runs that may hold the range (or read
	 * straight from the one plain run that holds it: the last window of a
	 * backward LIMIT query usually is one block of one run)
	 */
	reader_open(r, &st->ts, state_next);
	return r;
}

/*
 * WideReaderRestartAt -- read next, with the reader r of WideReaderBeginAt
 * on st, the cells of range, which begins after r's range (the next range
 * of a scan of several, in key order), where both lie in the same plain
 * run read straight (reader_open): its iterator goes on from where r's
 * range ended (WideSegIterRestart), so the readings of an IN list take
 * each block once, and no reader is made per reading.  False where it
 * cannot; r must then be ended (its range may be changed).
 */
bool
WideReaderRestartAt(WideReader *r, WideReadState *st, const WideKeyRange *range)
{
	WideKeyRange old = r->range;
	int			cmp;

	if (!r->fast || r->nits != 1 || r->pruning || r->state != NULL ||
		r->sorter != NULL || r->latest_n > 0 || r->unseen_below > 0 ||
		r->wacells != st->wacells || !old.has_end || !range->has_start)
		return false;
	cmp = WideKeyCompare(range->start, range->startlen, old.end, old.endlen);
	if (cmp < 0 || (cmp == 0 && range->start_incl && old.end_incl))
		return false;
	set_range(&r->range, range);
	r->ranges = WideRangeDelsInRange(st->ranges, range);
	/* the state's write-area records from the start of the range */
	r->nextwa = wa_first_in_range(r, r->nextwa);
	if (fast_run(r, &st->ts) != r->fastrun ||
		!WideSegIterRestart(r->its[0], &r->range))
		return false;
	if (old.has_start)
		pfree((char *) old.start);
	pfree((char *) old.end);
	free_blob_values(r);
	r->fastbi = NULL;
	r->fastfamlen = -1;
	r->nobatch = 0;
	r->finished = r->skipped = r->done = false;
	r->kept_cell = false;
	return true;
}

/*
 * WideRowWriters -- the transactions other than ours that wrote records
 * of a row that are not yet frozen, whatever their state, each with the
 * smallest sequence number it wrote there (for conditional mutations,
 * which must not race with plain writers: api/conditional.c).  Reads the
 * write area and the runs' blocks of that row, ignoring visibility.
 * Returns the number of writers; *xids and *seqs are palloc'd.
 */
int
WideRowWriters(Relation rel, const char *key, uint32 keylen,
			   TransactionId **xids, uint64 **seqs)
{
	TableState	ts;
	WideRunData runs[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	int			nruns;
	WideKeyRange range;
	int			n = 0,
				cap = 8,
				i;
	WideCell	cell;

	memset(&range, 0, sizeof(range));
	range.has_start = range.has_end = range.start_incl = range.end_incl = true;
	range.is_point = true;
	range.start = range.end = key;
	range.startlen = range.endlen = keylen;
	*xids = palloc(sizeof(TransactionId) * cap);
	*seqs = palloc(sizeof(uint64) * cap);
	table_state(rel, &ts, NULL);
	nruns = runs_in_range(&ts, &range, runs);

#define ADD_WRITER(c) \
	do { \
		TransactionId x = (c).xmin; \
		int			j; \
		if (!TransactionIdIsNormal(x) || ((c).flags & WIDE_REC_XMIN_INVALID) || \
			TransactionIdIsCurrentTransactionId(x)) \
			break; \
		for (j = 0; j < n; j++) \
			if ((*xids)[j] == x) \
				break; \
		if (j < n) \
		{ \
			(*seqs)[j] = Min((*seqs)[j], (c).seq); \
			break; \
		} \
		if (n == cap) \
		{ \
			cap *= 2; \
			*xids = repalloc(*xids, sizeof(TransactionId) * cap); \
			*seqs = repalloc(*seqs, sizeof(uint64) * cap); \
		} \
		(*xids)[n] = x; \
		(*seqs)[n++] = (c).seq; \
	} while (0)

	if (ts.nlanes > 0)
	{
		WideWAScan *wa = WideWAScanBegin(rel, NULL, ts.heads, ts.gens, ts.nlanes);

		while (WideWAScanNext(wa, &cell))
			if (WideKeyCompare(cell.key, cell.keylen, key, keylen) == 0)
				ADD_WRITER(cell);
		WideWAScanEnd(wa);
	}
	for (i = 0; i < nruns; i++)
	{
		WideSegIter *it = WideSegIterBegin(rel, &runs[i], &range);

		while (WideSegIterNext(it, &cell))
			ADD_WRITER(cell);
		WideSegIterEnd(it);
	}
#undef ADD_WRITER
	return n;
}

/* WideReadStateLastRow's filter of the row's records */
typedef struct LastRowArg
{
	const WideSchema *schema;
	int64		now;
	const WideFamily *def;		/* the family of the record before */
	const char *fam;
	uint32		famlen;
	bool		have_fam;
	bool		(*add) (const WideCell *cell, void *arg);
	void	   *arg;
	int			ncells;			/* cells given to add */
} LastRowArg;

static bool
last_row_cell(const WideCell *c, void *arg)
{
	LastRowArg *a = (LastRowArg *) arg;

	/* (the iterator's hint first: the family of the record before) */
	if (!a->have_fam ||
		(!(c->same & WIDE_SAME_FAMILY) &&
		 !WideBytesEqual(c->family, c->famlen, a->fam, a->famlen)))
	{
		a->def = WideSchemaFindFamily(a->schema, c->family, c->famlen);
		a->fam = c->family;
		a->famlen = c->famlen;
		a->have_fam = true;
	}
	if (!plain_record_live(a->def, c, a->now))
		return true;
	/* (an aggregate to fold, a value in a blob: the reader's work) */
	if (a->def->aggregate != WIDE_AGG_NONE || c->value == NULL)
		return false;
	a->ncells++;
	return a->add(c, a->arg);
}

/*
 * WideReadStateLastRow -- the cells of the last row of range (within the
 * state's) that is <= hi (< hi if !hi_incl; hi NULL: the range's end
 * alone), exactly as a reader of the range would return them, given to
 * add one by one: read straight from the data block that holds the row
 * (segment_reader.c: WideSegmentLastRow), where one plain run alone holds
 * the range (run_is_plain; no drop or range tombstone touches it), no
 * write-area record lies in the range and no family folds aggregates.
 * This is a backward LIMIT 1 read's short path (reverse.c): no reader, no
 * merge, one row decoded.  bi is the caller's block iterator, reused from
 * call to call; stats counts what it reads.  Returns 1 once the row's
 * cells were given (at least one), 0 if the range holds no row <= hi, and
 * -1 where this path cannot
 * tell (add returned false, the row's records are not all plain cells of
 * one block, or the conditions above do not hold): nothing is decided
 * then, and the caller reads the range as before.
 */
int
WideReadStateLastRow(WideReadState *st, int64 now, const WideKeyRange *range,
					 const char *hi, uint32 hilen, bool hi_incl,
					 WideBlockIter *bi,
					 bool (*add) (const WideCell *cell, void *arg), void *arg,
					 WideReaderStats *stats)
{
	uint64		records = stats->records;
	const WideRunData *only;
	LastRowArg	a;
	int			nover,
				result;
	int64		lo = 0,
				h = st->nwa;

	if (st->schema == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(st));

		st->schema = WideSchemaCopy(st->rel);
		for (int i = 0; i < st->schema->nfamilies; i++)
			st->has_agg |= st->schema->families[i].aggregate != WIDE_AGG_NONE;
		MemoryContextSwitchTo(old);
	}
	if (st->has_agg)
		return -1;
	/* a write-area record in the range: a merge */
	while (lo < h)
	{
		int64		mid = lo + (h - lo) / 2;

		if (WideRowBeforeRange(range, st->wacells[mid]->key, st->wacells[mid]->keylen))
			lo = mid + 1;
		else
			h = mid;
	}
	if (lo < st->nwa &&
		!WideRowAfterRange(range, st->wacells[lo]->key, st->wacells[lo]->keylen))
		return -1;
	only = only_plain_run(st->schema, &st->ts, st->ranges, range, &nover);
	if (only == NULL)
		return nover == 0 ? 0 : -1;
	memset(&a, 0, sizeof(a));
	a.schema = st->schema;
	a.now = now;
	a.add = add;
	a.arg = arg;
	result = WideSegmentLastRow(st->rel, only, range, hi, hilen, hi_incl, bi,
								last_row_cell, &a, &stats->records);
	stats->runs_read++;
	if (stats->records > records)
		stats->blocks_read++;	/* (the one block of the row) */
	if (result == 1 && a.ncells == 0)
		return -1;				/* (no cell of the row is live: the row before) */
	return result;
}
