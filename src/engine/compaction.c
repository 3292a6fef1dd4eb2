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
 * newest ones are merged to get back under.  Each record is rewritten about
 * log_ratio(table / flush size) times (write amplification); a read visits
 * at most wide.max_runs runs plus the write area (read amplification), each
 * with one index lookup and a row filter.  wide.compact(major => true)
 * merges everything into one run, which drops every frozen tombstone.
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
#include "engine/maintenance.h"
#include "engine/manifest.h"
#include "engine/blockpass.h"
#include "engine/rangedel.h"

int			wide_max_runs = 8;
double		wide_compaction_ratio = 2.0;

#define MIN_MERGE_WIDTH		4

static uint64
run_size(const WideRunData *r)
{
	return Max(r->raw_bytes, 1);
}

/*
 * Choose the runs [lo, hi] to merge; false if none.  cap limits the bytes a
 * merge may rewrite (0: no limit).
 */
static bool
pick_window(const WideRunData *runs, int n, bool major, uint64 cap,
			int *lo, int *hi)
{
	uint64		sum;

	if (n == 0)
		return false;
	if (major)
	{
		*lo = 0;
		*hi = n - 1;
		return true;
	}
	if (n < 2)
		return false;

	*hi = n - 1;
	*lo = *hi;
	sum = run_size(&runs[*hi]);
	while (*lo > 0 && run_size(&runs[*lo - 1]) <= wide_compaction_ratio * sum)
	{
		(*lo)--;
		sum += run_size(&runs[*lo]);
	}
	if (*hi - *lo + 1 < MIN_MERGE_WIDTH)
	{
		if (n <= wide_max_runs)
			return false;
		*lo = Min(n - 2, wide_max_runs - 1);
		*lo = Max(0, *lo);
		sum = 0;
		for (int i = *lo; i <= *hi; i++)
			sum += run_size(&runs[i]);
	}
	while (cap > 0 && sum > cap && *hi - *lo + 1 > 2)
	{
		sum -= run_size(&runs[*lo]);
		(*lo)++;
	}
	return cap == 0 || sum <= cap;
}

/*
 * WideCompactRuns -- merge runs [lo, hi] (as read from the metapage into
 * runs[]) into one.
 */
static void
compact_runs(Relation rel, const WideRunData *runs, int lo, int hi,
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
	WideResolver *resolver;
	WideResolveStats stats;
	const WideCell *cell;
	WideRunData run;
	bool		have_run;
	const WideBlobRef *kept;
	int			nkept;
	WideManifestTx tx;
	WideMetaPage meta;
	int			i;
	int			nblobs = 0;
	WideBlobRef *blobs;
	int64		gc_now = WideGCNow();

	/*
	 * Inputs read block by block, passing through what they can
	 * (blockpass.c) -- not when blobs must move with the records
	 * (relocation, truncate.c).
	 */
	WidePassRulesInit(&rules, rel, schema, gc_now,
					  move_blobs_from == InvalidBlockNumber);
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

	w = WideSegmentWriterBegin(rel, schema->vallen);
	if (move_blobs_from != InvalidBlockNumber)
		WideSegmentWriterMoveBlobs(w, move_blobs_from);
	resolver = WideResolverCreate(rel, schema, lo == 0, gc_now, w);
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
	have_run = WideSegmentWriterFinish(w, &run);
	kept = WideSegmentWriterBlobs(w, &nkept);
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
	WideManifestLogHorizon(rel);	/* manifest.c, M5 */
	meta = WideManifestBegin(rel, &tx);
	/* the range tombstones it cleared the last runs of (rangedel.c) */
	WideRangeDelsRetire(rel, meta, WideResolverRangeDels(resolver),
						meta->runs, meta->nruns, lo, hi);
	WideManifestReplaceRuns(rel, meta, lo, hi, runs + lo, have_run ? &run : NULL);
	for (i = lo; i <= hi; i++)
		(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, runs[i].root, 0);
	WideFreeBlobsNotKept(meta, blobs, nblobs, kept, nkept);
	meta->version_counter++;
	meta->compactions++;
	(void) WideManifestCommit(&tx);

	/* what it did, for wide.compact and VACUUM VERBOSE (summary.c) */
	WideMaintTotals.compactions++;
	WideMaintTotals.runs_in += hi - lo + 1;
	for (i = lo; i <= hi; i++)
	{
		WideMaintTotals.bytes_read += (int64) runs[i].npages * BLCKSZ;
		WideMaintTotals.cells_in += runs[i].ncells;
	}
	if (have_run)
	{
		WideMaintTotals.runs_out++;
		WideMaintTotals.bytes_written += (int64) run.npages * BLCKSZ;
		WideMaintTotals.cells_out += run.ncells;
	}
	WideMaintAddResolved(&stats);

	for (i = lo; i <= hi; i++)
		WidePassSourceEnd(srcs[i - lo]);
	WideSegmentWriterEnd(w);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
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
	int			n = read_runs(rel, runs);
	int			lo,
				hi;

	if (!pick_window(runs, n, major, cap, &lo, &hi))
		return false;
	compact_runs(rel, runs, lo, hi, InvalidBlockNumber, NULL);
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
		compact_runs(rel, runs, lo, hi, InvalidBlockNumber, NULL);
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
		compact_runs(rel, runs, Max(0, WIDE_MAX_RUNS - slots - 2), n - 1,
					 InvalidBlockNumber, NULL);
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
			compact_runs(rel, runs, i, i, move_blobs_from, crash_point);
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
			meta->version_counter++;
			meta->compactions++;
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
	meta->version_counter++;
	meta->compactions++;
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

		memcpy(runs, m->runs, sizeof(WideRunData) * n);
		WideRangeDelsRetire(rel, m, &frozen, runs, n,
							rewrite || touched_cells == 0 ? 0 : 1,
							rewrite || touched_cells == 0 ? n - 1 : 0);
		if (m->nrangedels == before)
			WideManifestAbort(&tx);
		else
		{
			m->version_counter++;
			(void) WideManifestCommit(&tx);
		}
	}
	return done;
}
