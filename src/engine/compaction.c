/*-------------------------------------------------------------------------
 *
 * compaction.c
 *	  Compaction: merging runs, applying deletes and GC policies.
 *
 * The runs of a table are listed oldest first in the metapage.  Every flush
 * appends one, and every record of a run was written (in write order)
 * after every record of the runs before it; compaction keeps that true by
 * merging only *contiguous* runs into one run at the same place.  So for
 * any merge, records outside it are all older or all newer than all records
 * in it, and the resolver's rules (resolve.c) are safe on any window; a
 * window that includes the oldest run may also drop tombstones.
 *
 * Policy: size-tiered, like RocksDB's universal compaction.  From the
 * newest run, the window grows to older runs while the next older run is no
 * larger than wide.compaction_ratio times the window so far; a window of at
 * least 4 runs is merged.  If there are more than wide.max_runs runs, the
 * newest ones are merged to get back under (a step whose window would
 * leave more takes those runs too: its output would be merged with them
 * next).  Each record is rewritten about
 * log_ratio(table / flush size) times (write amplification); a read visits
 * at most wide.max_runs runs plus the write area (read amplification), each
 * with one index lookup and a row filter.  wide.compact(major => true)
 * merges everything into one run, which drops every frozen tombstone.
 *
 * Time windows (retention.c): in a table with an age family a merge writes
 * a tier of runs -- the rest, then one per time window -- in place of its
 * inputs; the tier counts as one unit for the policy above (units_of).
 * Before every step, runs whose every cell is dead are freed unread
 * (WideCompactDropRuns, at the end of this file).
 *
 * Concurrency: the caller holds ShareUpdateExclusiveLock (no flush or other
 * compaction runs); readers and writers go on.  The merged run replaces its
 * inputs in one metapage WAL record; the inputs' pages go to the free queue
 * and are reused only once no snapshot can be reading them (space.c).
 *
 * IDENTIFICATION
 *	  src/engine/compaction.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/cell.h"
#include "engine/sort.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/manifest.h"
#include "engine/blockpass.h"
#include "engine/rangedel.h"
#include "engine/retention.h"
#include "engine/drops.h"
#include "engine/debugcrash.h"

int			wide_max_runs = 8;
double		wide_compaction_ratio = 2.0;

#define MIN_MERGE_WIDTH		4

static uint64
run_size(const WideRunData *r)
{
	return Max(r->raw_bytes, 1);
}

/*
 * The units the policy weighs: a tier (the runs one merge wrote, marked
 * with its number: several when the output was split by time window,
 * retention.c) counts as one unit of its total size, any other run as
 * one.  first[u] is the first run of unit u; returns the count.
 */
static int
units_of(const WideRunData *runs, int n, int *first, uint64 *size)
{
	int			nu = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		bool		same = i > 0 &&
			(runs[i].flags & WIDE_RUN_BY_COMPACTION) &&
			(runs[i - 1].flags & WIDE_RUN_BY_COMPACTION) &&
			runs[i].gen != 0 && runs[i].gen == runs[i - 1].gen;

		if (!same)
		{
			first[nu] = i;
			size[nu++] = 0;
		}
		size[nu - 1] += run_size(&runs[i]);
	}
	first[nu] = n;
	return nu;
}

/*
 * Choose the runs [lo, hi] to merge; false if none.  cap limits the bytes a
 * merge may rewrite (0: no limit).  The size-tiered rule of the header is
 * applied to units (units_of), so a tier split by time windows is merged
 * whole or not at all, and counts once against wide.max_runs.
 */
static bool
pick_window(const WideRunData *runs, int n, bool major, uint64 cap,
			int *lo, int *hi)
{
	int			first[WIDE_MAX_RUNS + 1];
	uint64		size[WIDE_MAX_RUNS];
	int			nu;
	int			ulo,
				uhi;
	uint64		sum;

	if (n == 0)
		return false;
	if (major)
	{
		*lo = 0;
		*hi = n - 1;
		return true;
	}
	nu = units_of(runs, n, first, size);
	if (nu < 2)
		return false;

	uhi = nu - 1;
	ulo = uhi;
	sum = size[uhi];
	while (ulo > 0 && size[ulo - 1] <= wide_compaction_ratio * sum)
	{
		ulo--;
		sum += size[ulo];
	}
	if (uhi - ulo + 1 < MIN_MERGE_WIDTH)
	{
		if (nu <= wide_max_runs && n <= WIDE_MAX_RUNS - 4)
			return false;
		ulo = Min(nu - 2, wide_max_runs - 1);
		ulo = Max(0, ulo);
		sum = 0;
		for (int i = ulo; i <= uhi; i++)
			sum += size[i];
	}

	/*
	 * Look ahead: the next step would take this one's output, as the newest
	 * unit, with the older units the rules above then pick (the window grows
	 * from it while the next older unit is at most wide.compaction_ratio
	 * times the window; or, with more than wide.max_runs units left, the
	 * newest are merged).  Merge those now, so that their records are
	 * written once, not twice.  (VACUUM after a COPY that left two dozen
	 * runs of one size and a small last one: the newest fifteen were merged
	 * to get under wide.max_runs, and their output with the eight older
	 * ones next.)  The runs left are those the steps would have left.
	 */
	for (;;)
	{
		int			g = ulo;
		uint64		gsum = sum;

		while (g > 0 && size[g - 1] <= wide_compaction_ratio * gsum)
		{
			g--;
			gsum += size[g];
		}
		if (ulo - g + 1 < MIN_MERGE_WIDTH)
		{
			if (ulo + 1 <= wide_max_runs)
				break;
			g = Max(0, Min(ulo - 1, wide_max_runs - 1));
			gsum = sum;
			for (int i = g; i < ulo; i++)
				gsum += size[i];
		}
		if (g >= ulo)
			break;
		ulo = g;
		sum = gsum;
	}
	while (cap > 0 && sum > cap && uhi - ulo + 1 > 2)
	{
		sum -= size[ulo];
		ulo++;
	}
	*lo = first[ulo];
	*hi = first[uhi + 1] - 1;
	return cap == 0 || sum <= cap;
}

/*
 * In a table with time windows, a run that no merge has split by window
 * (a flush's, a bulk load's) and that spans several windows is rewritten
 * alone once, into a tier, so that its windows can be freed one by one
 * (retention.c); the oldest first.  False if there is none (or it is
 * larger than cap).
 */
static bool
pick_unwindowed(Relation rel, const WideRunData *runs, int n, uint64 cap,
				int *lo, int *hi)
{
	int64		width = WideTimeWindow(WideSchemaCommitted(rel));
	int			i;

	if (width <= 0)
		return false;
	for (i = 0; i < n; i++)
	{
		int64		a,
					b;
		bool		t;

		if ((runs[i].flags & WIDE_RUN_BY_COMPACTION) ||
			(cap > 0 && run_size(&runs[i]) > cap) ||
			!WideRunTimes(rel, &runs[i], &a, &b, &t) ||
			WideWindowOf(a, width) == WideWindowOf(b, width))
			continue;
		*lo = *hi = i;
		return true;
	}
	return false;
}

/*
 * WideCompactRuns -- merge runs [lo, hi] (as read from the metapage into
 * runs[]) into one.
 */
static void
compact_runs(Relation rel, const WideRunData *runs, int lo, int hi, int max_out,
			 BlockNumber move_blobs_from, const char *crash_point)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "wide compaction",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WideSchema *schema = WideSchemaCommitted(rel);
	WideMergeIter *merge = WideMergeIterCreate(hi - lo + 1);
	WidePassSource **srcs = palloc(sizeof(WidePassSource *) * (hi - lo + 1));
	WidePassRules rules;
	WidePassStats pstats = {0};
	StringInfoData merged;
	bool		have_merged = false;
	WideSegmentWriter *w;
	WideRunOutput *out;
	WideResolver *resolver;
	WideResolveStats stats;
	const WideCell *cell;
	WideRunData outruns[WIDE_MAX_RUNS];
	int			nout;
	const WideBlobRef *kept;
	int			nkept;
	int64		ts_min = PG_INT64_MAX,
				ts_max = PG_INT64_MIN;
	WideManifestTx tx;
	WideMetaPage meta;
	int			i;
	int			nblobs = 0;
	WideBlobRef *blobs;
	int64		gc_now = WideGCNow();

	/* where the output goes: one run, or one per time window (retention.c) */
	if (max_out > 1)
		for (i = lo; i <= hi; i++)
		{
			int64		a,
						b;
			bool		t;

			if (WideRunTimes(rel, &runs[i], &a, &b, &t))
				ts_min = Min(ts_min, a), ts_max = Max(ts_max, b);
		}
	out = WideRunOutputBegin(rel, schema, schema->vallen, ts_min, ts_max,
							 max_out);

	/*
	 * Inputs read block by block, passing through what they can
	 * (blockpass.c) -- not when blobs must move with the records
	 * (relocation, truncate.c), nor into time windows (a passed block is not
	 * split by window).
	 */
	WidePassRulesInit(&rules, rel, schema, gc_now,
					  move_blobs_from == InvalidBlockNumber &&
					  !WideRunOutputWindowed(out));
	for (i = lo; i <= hi; i++)
	{
		srcs[i - lo] = WidePassSourceBegin(rel, &runs[i], &rules);
		WideMergeIterAdd(merge, WidePassSourceNext, srcs[i - lo], i);
		nblobs += WidePassSourceSegment(srcs[i - lo])->nblobs;
	}
	blobs = palloc(sizeof(WideBlobRef) * Max(nblobs, 1));
	nblobs = 0;
	for (i = lo; i <= hi; i++)
	{
		WideSegment *seg = WidePassSourceSegment(srcs[i - lo]);

		memcpy(blobs + nblobs, seg->blobs, sizeof(WideBlobRef) * seg->nblobs);
		nblobs += seg->nblobs;
	}

	w = WideRunOutputDefault(out);
	if (move_blobs_from != InvalidBlockNumber)
		WideSegmentWriterMoveBlobs(w, move_blobs_from);
	resolver = WideResolverCreate(rel, schema, lo == 0, gc_now, w);
	WideRunOutputRoute(out, resolver);
	initStringInfo(&merged);
	while ((cell = WideMergeIterNext(merge)) != NULL)
	{
		WidePassSource *src = WideMergeIterReturnedArg(merge);

		CHECK_FOR_INTERRUPTS();
		if (WidePassSourceAtMarker(src))
		{
			/* a data block starts: passed whole, or its records follow */
			if (WidePassSourceOffer(src, WideMergeIterPeekOther(merge),
									&merged, have_merged, resolver, w, &pstats))
				have_merged = true;
			continue;
		}
		/* the row of the last record merged (see WidePassSourceOffer) */
		if (!have_merged || !(cell->same & WIDE_SAME_ROW))
		{
			resetStringInfo(&merged);
			appendBinaryStringInfo(&merged, cell->key, cell->keylen);
			have_merged = true;
		}
		WideResolverPush(resolver, cell);
	}
	stats = WideResolverFinish(resolver);
	nout = WideRunOutputFinish(out, outruns, 0);
	kept = WideRunOutputBlobs(out, &nkept);
	ereport(DEBUG1,
			(errmsg_internal("wide table \"%s\": compaction of %d runs passed %llu data blocks (%llu records) through, merged %llu",
							 RelationGetRelationName(rel), hi - lo + 1,
							 (unsigned long long) pstats.passed,
							 (unsigned long long) pstats.passed_cells,
							 (unsigned long long) pstats.merged)));

	/* publish: the new run replaces the inputs */
	if (crash_point)
		WideDebugCrash(crash_point);
	else if (pstats.passed > 0)
		WideDebugCrash("compact_pass");
	else if (WideRunOutputWindowed(out))
		WideDebugCrash("compact_windowed");
	WideManifestLogHorizon(rel);	/* manifest.c, M5 */
	meta = WideManifestBegin(rel, &tx);
	/* the range tombstones it cleared the last runs of (rangedel.c) */
	WideRangeDelsRetire(rel, meta, WideResolverRangeDels(resolver),
						meta->runs, meta->nruns, lo, hi);
	for (i = 0; i < nout; i++)
		outruns[i].gen = (uint32) (meta->compactions + 1);
	WideManifestReplaceRunsN(rel, meta, lo, hi, runs + lo, outruns, nout);
	for (i = lo; i <= hi; i++)
		(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, runs[i].root, 0);
	WideFreeBlobsNotKept(meta, blobs, nblobs, kept, nkept);
	WideManifestNoteCompaction(meta);
	(void) WideManifestCommit(&tx);

	/* what it did, for wide.compact and VACUUM VERBOSE (summary.c) */
	WideMaintTotals.compactions++;
	WideMaintTotals.runs_in += hi - lo + 1;
	for (i = lo; i <= hi; i++)
	{
		WideMaintTotals.bytes_read += (int64) runs[i].npages * BLCKSZ;
		WideMaintTotals.cells_in += runs[i].ncells;
	}
	for (i = 0; i < nout; i++)
	{
		WideMaintTotals.runs_out++;
		WideMaintTotals.bytes_written += (int64) outruns[i].npages * BLCKSZ;
		WideMaintTotals.cells_out += outruns[i].ncells;
	}
	WideMaintAddResolved(&stats);

	for (i = lo; i <= hi; i++)
		WidePassSourceEnd(srcs[i - lo]);
	WideRunOutputEnd(out);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * How many runs a merge of [lo, hi] out of n may write (time windows,
 * retention.c) and leave "spare" slots of the run list free; at least 1.
 * Steps leave the slots a flush keeps for its bulk runs (WideCompactForRoom
 * in flush.c) and one more, or the next flush would merge the newest
 * windows again.
 */
static int
out_budget(int n, int lo, int hi, int spare)
{
	return Max(1, WIDE_MAX_RUNS - spare - (n - (hi - lo + 1)));
}

/* the runs listed in the metapage, copied */
static int
read_runs(Relation rel, WideRunData *runs)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	WideMetaPage meta;
	int			n;

	if (!BufferIsValid(metabuf))
		return 0;
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	n = meta->nruns;
	memcpy(runs, meta->runs, sizeof(WideRunData) * n);
	UnlockReleaseBuffer(metabuf);
	return n;
}

/*
 * WideCompactStep -- one merge chosen by the policy (all runs if major);
 * returns false if there was nothing to do.  cap bounds the bytes merged
 * (0: none).  REQUIRES: ShareUpdateExclusiveLock.
 */
bool
WideCompactStep(Relation rel, bool major, uint64 cap)
{
	WideRunData runs[WIDE_MAX_RUNS];
	int			n;
	int			lo,
				hi;

	/* runs whose every cell is dead go first, unread (retention.c) */
	if (WideCompactDropRuns(rel) > 0 && !major)
		return true;
	n = read_runs(rel, runs);
	if (!pick_window(runs, n, major, cap, &lo, &hi) &&
		!pick_unwindowed(rel, runs, n, cap, &lo, &hi))
		return false;
	compact_runs(rel, runs, lo, hi, out_budget(n, lo, hi, WIDE_MAX_WA_RUNS + 2),
				 InvalidBlockNumber, NULL);
	return true;
}

/*
 * WideCompactRun -- rewrite runs [lo, hi] whatever the policy says (used to
 * freeze old transaction ids).  REQUIRES: ShareUpdateExclusiveLock.
 */
void
WideCompactRange(Relation rel, int lo, int hi)
{
	WideRunData runs[WIDE_MAX_RUNS];
	int			n = read_runs(rel, runs);

	if (lo >= 0 && hi < n && lo <= hi)
		compact_runs(rel, runs, lo, hi, out_budget(n, lo, hi, WIDE_MAX_WA_RUNS + 2),
					 InvalidBlockNumber, NULL);
}

/*
 * WideCompactForRoom -- make sure the run list has "slots" free slots, by
 * merging the newest runs.
 */
void
WideCompactForRoom(Relation rel, int slots)
{
	WideRunData runs[WIDE_MAX_RUNS];
	int			n;

	while ((n = read_runs(rel, runs)) > WIDE_MAX_RUNS - slots)
	{
		int			lo = Max(0, WIDE_MAX_RUNS - slots - 2);

		compact_runs(rel, runs, lo, n - 1, out_budget(n, lo, n - 1, slots),
					 InvalidBlockNumber, NULL);
	}
}

/*
 * WideCompactRunBySegid -- rewrite the run of segment "segid" alone (to
 * move it, truncate.c), copying its blobs that start at block
 * move_blobs_from or beyond; false if it is no longer a run.  A set wide.debug_crash equal
 * to crash_point kills the backend just before the result is published.
 * REQUIRES: ShareUpdateExclusiveLock.
 */
bool
WideCompactRunBySegid(Relation rel, uint32 segid, BlockNumber move_blobs_from,
					  const char *crash_point)
{
	WideRunData runs[WIDE_MAX_RUNS];
	int			n = read_runs(rel, runs);
	int			i;

	for (i = 0; i < n; i++)
		if (runs[i].segid == segid)
		{
			compact_runs(rel, runs, i, i, 1, move_blobs_from, crash_point);
			return true;
		}
	return false;
}

/*
 * WideMoveRunBySegid -- copy the run of segment "segid" page by page into
 * pages the space map hands out (lowest first), and publish the copy in
 * its place (truncate.c moves runs out of the table's tail): the same
 * records, blocks and blobs, nothing decoded or rewritten; false if it is
 * no longer a run.  crash_point as for WideCompactRunBySegid.
 * REQUIRES: ShareUpdateExclusiveLock.
 */
bool
WideMoveRunBySegid(Relation rel, uint32 segid, const char *crash_point)
{
	WideRunData runs[WIDE_MAX_RUNS];
	int			n = read_runs(rel, runs);
	int			i;

	for (i = 0; i < n; i++)
		if (runs[i].segid == segid)
		{
			WideSegmentWriter *w = WideSegmentWriterBegin(rel, 0);
			WideRunData run;
			WideManifestTx tx;
			WideMetaPage meta;

			WideSegmentWriterCopyRun(w, &runs[i], &run);
			if (crash_point)
				WideDebugCrash(crash_point);
			WideManifestLogHorizon(rel);	/* manifest.c, M5 */
			meta = WideManifestBegin(rel, &tx);
			WideManifestReplaceRuns(rel, meta, i, i, runs + i, &run);
			(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, runs[i].root, 0);
			WideManifestNoteCompaction(meta);
			(void) WideManifestCommit(&tx);
			/* a copy: read and written as it is (summary.c) */
			WideMaintTotals.compactions++;
			WideMaintTotals.runs_in++;
			WideMaintTotals.runs_out++;
			WideMaintTotals.bytes_read += (int64) runs[i].npages * BLCKSZ;
			WideMaintTotals.bytes_written += (int64) run.npages * BLCKSZ;
			WideMaintTotals.cells_in += runs[i].ncells;
			WideMaintTotals.cells_out += run.ncells;
			WideSegmentWriterEnd(w);
			return true;
		}
	return false;
}

/* ----------------------------------------------------------------
 *	Range tombstones (rangedel.c): the runs they hide, and retiring them
 * ----------------------------------------------------------------
 */

/* drop a run every record of which a frozen range tombstone deletes */
static void
drop_hidden_run(Relation rel, const WideRunData *run)
{
	WideSegment *seg = WideSegmentLoad(rel, run->root, false);
	WideManifestTx tx;
	WideMetaPageData *meta;
	uint32		i;

	WideManifestLogHorizon(rel);	/* manifest.c, M5 */
	meta = WideManifestBegin(rel, &tx);
	for (i = 0; i < meta->nruns; i++)
		if (meta->runs[i].segid == run->segid)
			break;
	if (i == meta->nruns)
	{
		WideManifestAbort(&tx);
		WideSegmentFree(seg);
		return;
	}
	WideManifestReplaceRuns(rel, meta, i, i, &meta->runs[i], NULL);
	(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, run->root, 0);
	WideFreeBlobsNotKept(meta, seg->blobs, seg->nblobs, NULL, 0);
	WideManifestNoteCompaction(meta);
	(void) WideManifestCommit(&tx);
	WideSegmentFree(seg);
	/* (tests: a crash after one run of several is dropped) */
	WideDebugCrash("rangedel-drop");
}

/*
 * WideRangeDelVacuum -- apply the frozen range tombstones: drop the runs
 * they hide from their metadata alone, rewrite each other run they may
 * delete records of when that is worth it, then retire those no record
 * needs any more (and the aborted ones).  Returns the
 * number of runs dropped or rewritten.  REQUIRES: ShareUpdateExclusiveLock
 * (no other flush or compaction changes the runs meanwhile), the write
 * area just flushed.
 */
int
WideRangeDelVacuum(Relation rel)
{
	WideRangeDels *ds = WideRangeDelsForRewrite(rel);
	WideRangeDels frozen;
	WideRunData runs[WIDE_MAX_RUNS];
	Buffer		metabuf;
	WideMetaPage meta;
	int			nruns,
				i,
				done = 0;
	bool		any_aborted;
	bool		any_full;
	bool		rewrite;
	uint64		touched_cells = 0;
	uint64		deleted = 0;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
		return 0;
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	any_aborted = (int) meta->nrangedels > ds->n;
	any_full = meta->rangedel_len * 2 > WIDE_RANGEDEL_SPACE;
	nruns = meta->nruns;
	memcpy(runs, meta->runs, sizeof(WideRunData) * nruns);
	UnlockReleaseBuffer(metabuf);

	frozen.n = 0;
	frozen.d = palloc(sizeof(WideRangeDel) * Max(ds->n, 1));
	for (i = 0; i < ds->n; i++)
		if (!ds->d[i].pending)
			frozen.d[frozen.n++] = ds->d[i];
	if (frozen.n == 0 && !any_aborted)
		return 0;

	/* runs they hide: dropped unread */
	for (i = 0; i < nruns; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (WideRangeDelsHideRun(&frozen, &runs[i]))
		{
			drop_hidden_run(rel, &runs[i]);
			done++;
		}
		else if (WideRangeDelsTouchRun(&frozen, &runs[i]))
			touched_cells += runs[i].ncells;
	}

	/*
	 * Runs they overlap in part: rewritten one at a time when what they
	 * deleted amounts to a tenth of those runs' records (as for record
	 * tombstones, am/vacuum.c), or when their room in the metapage is half
	 * used; otherwise they stay, and readers apply them.
	 */
	for (i = 0; i < frozen.n; i++)
		deleted += frozen.d[i].ncells;
	rewrite = touched_cells > 0 &&
		(deleted * 10 >= touched_cells || any_full);
	if (rewrite)
	{
		for (i = 0; i < nruns; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (!WideRangeDelsHideRun(&frozen, &runs[i]) &&
				WideRangeDelsTouchRun(&frozen, &runs[i]) &&
				WideCompactRunBySegid(rel, runs[i].segid, InvalidBlockNumber, NULL))
				done++;
		}
	}

	/*
	 * Retire them: after the rewrite every run is clear of them; without
	 * it, those no run older in part overlaps any more
	 */
	WideDebugCrash("rangedel-retire");
	{
		WideManifestTx tx;
		WideMetaPageData *m = WideManifestBegin(rel, &tx);
		int			n = m->nruns;
		uint32		before = m->nrangedels;
		uint32		before_len = m->rangedel_len;
		char		before_bytes[WIDE_RANGEDEL_SPACE];

		memcpy(before_bytes, m->rangedels, Min(before_len, WIDE_RANGEDEL_SPACE));
		memcpy(runs, m->runs, sizeof(WideRunData) * n);
		WideRangeDelsRetire(rel, m, &frozen, runs, n,
							rewrite || touched_cells == 0 ? 0 : 1,
							rewrite || touched_cells == 0 ? n - 1 : 0);
		/* (unchanged unless one was retired, or frozen: rangedel.c) */
		if (m->nrangedels == before && m->rangedel_len == before_len &&
			memcmp(m->rangedels, before_bytes, Min(before_len, WIDE_RANGEDEL_SPACE)) == 0)
			WideManifestAbort(&tx);
		else
		{
			WideManifestNoteRunChange(m);
			(void) WideManifestCommit(&tx);
		}
	}
	return done;
}

/* ----------------------------------------------------------------
 *	Dropping runs whose every cell is dead (retention.c has the rule)
 * ----------------------------------------------------------------
 */

/*
 * are the cells of family incarnation famid (0: of every family) in a run
 * with these newest timestamp and sequence number deleted by a drop every
 * snapshot sees?
 */
static bool
dropped(uint32 famid, int64 ts_max, uint64 max_seq,
		const WideDropRule *drops, int ndrops)
{
	int			i;

	for (i = 0; i < ndrops; i++)
		if ((drops[i].famid == 0 || drops[i].famid == famid) &&
			max_seq < drops[i].seq && ts_max < drops[i].before)
			return true;
	return false;
}

/* is every cell of the run dead for every snapshot? (retention.c's rule) */
static bool
run_dead(Relation rel, const WideRunData *run, const WideSchema *schema,
		 int64 now, const WideDropRule *drops, int ndrops)
{
	int64		ts_min,
				ts_max;
	bool		tombs;
	int			i;

	if ((run->flags & WIDE_RUN_HAS_TOMBSTONES) || run->ntombstones > 0 ||
		TransactionIdIsValid(run->min_xmin))
		return false;
	if (!WideRunTimes(rel, run, &ts_min, &ts_max, &tombs) || tombs)
		return false;
	if (dropped(0, ts_max, run->max_seq, drops, ndrops))
		return true;
	if (schema->nfamilies == 0)
		return false;
	/* each family's cells the run may hold: expired by its age, or dropped */
	for (i = 0; i < schema->nfamilies; i++)
	{
		const WideFamily *f = &schema->families[i];
		int64		e = WideFamilyExpiry(f);

		if (!WideRunMayHoldFamily(run, f->id))
			continue;
		if (e > 0 && now > 0 && ts_max < now - e)
			continue;
		if (!dropped(f->id, ts_max, run->max_seq, drops, ndrops))
			return false;
	}
	return true;
}

/*
 * WideCompactDropRuns -- free the runs whose every cell is dead (see the
 * header), without rewriting anything; returns how many.  A set
 * wide.debug_crash = 'drop-runs' kills the backend before they are
 * published, 'drop-runs-published' right after.  REQUIRES: ShareUpdateExclusiveLock.
 */
int
WideCompactDropRuns(Relation rel)
{
	WideSchema *schema;
	WideRunData runs[WIDE_MAX_RUNS];
	bool		dead[WIDE_MAX_RUNS];
	WideBlobRef *blobs[WIDE_MAX_RUNS];
	int			nblobs[WIDE_MAX_RUNS];
	WideDropRule drops[WIDE_MAX_DROPS];
	int			ndrops;
	int64		all;
	int64		ages;
	int64		now;
	int			n;
	int			ndead = 0;
	int			i;
	WideManifestTx tx;
	WideMetaPage meta;

	WideDropsMaintain(rel);
	n = read_runs(rel, runs);
	if (n == 0)
		return 0;

	schema = WideSchemaCommitted(rel);
	ages = WideRetentionAges(schema, &all);
	now = WideGCNow();
	ndrops = WideDropsForAll(rel, drops);
	/* (without a drop, only a table with a family that expires by age) */
	if (ndrops == 0 && !(ages > 0 && now > 0))
		return 0;
	for (i = 0; i < n; i++)
	{
		dead[i] = run_dead(rel, &runs[i], schema, now, drops, ndrops);
		ndead += dead[i];
	}
	if (ndead == 0)
		return 0;

	/* the blobs the dead runs own, read before the metapage is locked */
	for (i = 0; i < n; i++)
		if (dead[i])
		{
			WideCacheEntry *pin;
			WideSegment *seg = WideSegmentOpen(rel, &runs[i], &pin);

			blobs[i] = palloc(sizeof(WideBlobRef) * Max(seg->nblobs, 1));
			memcpy(blobs[i], seg->blobs, sizeof(WideBlobRef) * seg->nblobs);
			nblobs[i] = seg->nblobs;
			WideCacheRelease(pin);
		}

	WideDebugCrash("drop-runs");
	WideManifestLogHorizon(rel);	/* manifest.c, M5 */
	meta = WideManifestBegin(rel, &tx);
	for (i = n - 1; i >= 0; i--)
	{
		if (!dead[i])
			continue;
		/* fails if the run list changed since it was read */
		WideManifestReplaceRuns(rel, meta, i, i, &runs[i], NULL);
		WideFreeBlobsNotKept(meta, blobs[i], nblobs[i], blobs[i], 0);
		(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, runs[i].root, 0);
	}
	WideManifestNoteCompaction(meta);
	(void) WideManifestCommit(&tx);
	WideDebugCrash("drop-runs-published");
	return ndead;
}
