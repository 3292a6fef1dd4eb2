/*-------------------------------------------------------------------------
 *
 * vacuum.c
 *	  VACUUM of a wide table.
 *
 * (A write that fills the write area flushes it itself: write.c.)
 *
 * VACUUM (and autovacuum, which the inserts trigger) flushes, compacts per
 * policy without a size limit, merges down to the oldest run when frozen
 * tombstones are a tenth of the records (so that deletes free space),
 * rewrites runs holding transaction ids older
 * than the freeze limit (all of them with FREEZE) so that relfrozenxid can
 * advance, sweeps orphaned pages, gives the free end of the table back to
 * the file system (engine/truncate.c: under a conditional AccessExclusive-
 * Lock, moving runs out of the tail first when that pays), and updates the
 * statistics.
 *
 * IDENTIFICATION
 *	  src/am/vacuum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/multixact.h"
#include "access/transam.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "wide.h"
#include "engine/drops.h"
#include "engine/rangedel.h"
#include "engine/format.h"
#include "engine/storage.h"
#include "engine/lsm.h"
#include "am/am.h"

#define MAX_STEPS	16

/* the runs, copied from the metapage */
static int
current_runs(Relation rel, WideRunData *runs, uint64 *wa_pages)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	WideMetaPage meta;
	int			n;
	int			i;

	*wa_pages = 0;
	if (!BufferIsValid(metabuf))
		return 0;
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	n = meta->nruns;
	memcpy(runs, meta->runs, sizeof(WideRunData) * n);
	for (i = 0; i < WIDE_NLANES; i++)
		*wa_pages += meta->lanes[i].npages + meta->flush_lanes[i].npages;
	for (i = 0; i < (int) meta->nwaruns; i++)
		*wa_pages += meta->waruns[i].ncells / (BLCKSZ / 100);
	UnlockReleaseBuffer(metabuf);
	return n;
}

/* as the heap's VACUUM: how long to try for the AccessExclusiveLock */
#define TRUNCATE_LOCK_WAIT_INTERVAL	50		/* ms */
#define TRUNCATE_LOCK_TIMEOUT		5000	/* ms */
#define TRUNCATE_MINIMUM			1000	/* pages */
#define TRUNCATE_FRACTION			16
#define TRUNCATE_ROUNDS				3

/* take the AccessExclusiveLock without queueing for it; false if not had */
static bool
lock_for_truncation(Relation rel)
{
	int			waited = 0;

	while (!ConditionalLockRelation(rel, AccessExclusiveLock))
	{
		if (waited >= TRUNCATE_LOCK_TIMEOUT)
			return false;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(TRUNCATE_LOCK_WAIT_INTERVAL * 1000L);
		waited += TRUNCATE_LOCK_WAIT_INTERVAL;
	}
	return true;
}

/*
 * Give the free end of the table back (engine/truncate.c), moving runs
 * out of the tail when that lets more go; returns the pages removed, or -1
 * if the lock was not had.  Like the heap, only when at least 1000 pages
 * or 1/16 of the table are free, and not with (TRUNCATE false).
 */
static int64
truncate_tail(Relation rel, VacuumParams *params)
{
	int64		removed = 0;
	int			round;

	if (params->truncate == VACOPTVALUE_DISABLED)
		return 0;
	for (round = 0; round < TRUNCATE_ROUNDS; round++)
	{
		WideFreeSurveyData s;

		WideFreeSurvey(rel, &s);
		if (s.free_pages == 0 ||
			(s.free_pages < TRUNCATE_MINIMUM &&
			 s.free_pages < s.nblocks / TRUNCATE_FRACTION))
			break;
		if (!lock_for_truncation(rel))
			return removed > 0 ? removed : -1;
		removed += WideTruncateTail(rel);
		UnlockRelation(rel, AccessExclusiveLock);

		/* live data in the tail: move it down, then cut again */
		if (round == TRUNCATE_ROUNDS - 1 || WideRelocateTail(rel) == 0)
			break;
	}
	return removed;
}

/* frozen tombstones in runs, in tenths of all records, that merit a merge */
#define DELETES_MERGE_TENTHS	1
/* ... or any, when the runs to merge are this small (pages: 64 MB) */
#define DELETES_MERGE_SMALL_PAGES	8192

/*
 * Deletes give space back only when a merge that includes the oldest run
 * drops their tombstones and what they cover; the size-tiered policy may
 * never merge a large old run with the small ones that delete it.  So when
 * runs whose records are all older than every snapshot (their oldest xmin
 * precedes oldest_xmin) hold tombstones amounting to a tenth of all records,
 * merge every run from the oldest to the newest such run.  So also for any
 * such tombstones when those runs are small (DELETES_MERGE_SMALL_PAGES):
 * a row tombstone deletes a whole row, so a few hundred single-row
 * DELETEs are few records against many deleted cells, and otherwise stayed
 * (with the cells) until a major compaction -- more bytes than they
 * deleted.  The merge passes the blocks no tombstone touches as they are
 * stored (blockpass.c), so it costs about a copy of those runs.
 */
static void
compact_for_deletes(Relation rel, TransactionId oldest_xmin)
{
	WideRunData runs[WIDE_MAX_RUNS];
	uint64		wa_pages;
	int			n = current_runs(rel, runs, &wa_pages);
	uint64		total = 0;
	uint64		tombstones = 0;
	uint64		pages = 0;
	int			last = -1;
	int			i;

	for (i = 0; i < n; i++)
	{
		TransactionId x = runs[i].min_xmin;

		total += runs[i].ncells;
		if (runs[i].ntombstones > 0 &&
			(!TransactionIdIsValid(x) || TransactionIdPrecedes(x, oldest_xmin)))
		{
			tombstones += runs[i].ntombstones;
			last = i;
		}
	}
	if (last < 0)
		return;
	for (i = 0; i <= last; i++)
		pages += runs[i].npages;
	if (tombstones * 10 >= total * DELETES_MERGE_TENTHS ||
		pages <= DELETES_MERGE_SMALL_PAGES)
		WideCompactRange(rel, 0, last);
}

/*
 * report_summary -- VACUUM VERBOSE: what its flush and compactions did, as
 * wide.compact's row says it (engine/summary.c).
 */
static void
report_summary(Relation rel, const WideMaintCounts *before, TimestampTz start)
{
	WideMaintCounts d;
	const WideResolveStats *r = &d.resolved;
	long		secs;
	int			usecs;

	WideMaintDiff(before, &d);
	TimestampDifference(start, GetCurrentTimestamp(), &secs, &usecs);
	ereport(INFO,
			(errmsg("wide table \"%s\": flushes %lld, compactions %lld, runs in %lld, runs out %lld, cells in %lld, cells out %lld",
					RelationGetRelationName(rel), (long long) d.flushes,
					(long long) d.compactions, (long long) d.runs_in,
					(long long) d.runs_out, (long long) d.cells_in,
					(long long) d.cells_out),
			 errdetail("Dropped %lld deleted, %lld superseded, %lld expired, %lld past max_versions, %lld aborted, %lld of dropped families, %lld tombstones; folded %lld; read %lld bytes, wrote %lld bytes, in %ld.%03d s.",
					   (long long) r->covered, (long long) r->superseded,
					   (long long) r->expired,
					   (long long) (r->collected - r->expired),
					   (long long) r->aborted, (long long) r->dropped_family,
					   (long long) r->tombstones_dropped,
					   (long long) r->folded, (long long) d.bytes_read,
					   (long long) d.bytes_written, secs, usecs / 1000)));
}

/*
 * WideVacuum -- the relation_vacuum callback.
 */
void
WideVacuum(Relation rel, VacuumParams *params, BufferAccessStrategy bstrategy)
{
	TransactionId oldest_xmin;
	MultiXactId oldest_mxact;
	TransactionId freeze_limit;
	MultiXactId multi_cutoff;
	bool		aggressive;
	bool		freeze_all;
	WideRunData runs[WIDE_MAX_RUNS];
	int			n;
	int			i;
	int			steps = 0;
	int64		swept;
	int64		truncated;
	uint64		wa_pages;
	double		ncells = 0;
	List	   *indexes;
	TransactionId frozenxid;
	WideMaintCounts before = WideMaintTotals;
	TimestampTz start = GetCurrentTimestamp();

	aggressive = vacuum_set_xid_limits(rel,
									   params->freeze_min_age,
									   params->freeze_table_age,
									   params->multixact_freeze_min_age,
									   params->multixact_freeze_table_age,
									   &oldest_xmin, &oldest_mxact,
									   &freeze_limit, &multi_cutoff);
	freeze_all = aggressive || (params->options & VACOPT_FREEZE) != 0;

	WideProgressVacuumStart(rel);
	WideProgressVacuumPhase(WIDE_PROGRESS_FLUSH);
	WideFlush(rel);
	/* range tombstones: drop the runs they hide, apply them, retire them */
	(void) WideRangeDelVacuum(rel);
	WideProgressVacuumPhase(WIDE_PROGRESS_COMPACT);
	while (steps < MAX_STEPS && WideCompactStep(rel, false, 0))
		WideProgressVacuumCount(WIDE_PROGRESS_PARAM_COMPACTIONS, ++steps);
	WideProgressVacuumPhase(WIDE_PROGRESS_DELETES);
	compact_for_deletes(rel, oldest_xmin);
	WideProgressVacuumPhase(WIDE_PROGRESS_FREEZE);

	/* rewrite runs with old transaction ids, so relfrozenxid can advance */
	n = current_runs(rel, runs, &wa_pages);
	for (i = 0; i < n; i++)
	{
		TransactionId x = runs[i].min_xmin;

		if (TransactionIdIsNormal(x) &&
			(freeze_all || TransactionIdPrecedes(x, freeze_limit)) &&
			TransactionIdPrecedes(x, oldest_xmin))
		{
			WideCompactRange(rel, i, i);
			n = current_runs(rel, runs, &wa_pages);
		}
	}

	WideProgressVacuumCount(PROGRESS_VACUUM_HEAP_BLKS_SCANNED,
							RelationGetNumberOfBlocks(rel));
	WideProgressVacuumPhase(WIDE_PROGRESS_SWEEP);
	swept = WideSweep(rel);
	WideProgressVacuumPhase(WIDE_PROGRESS_TRUNCATE);
	truncated = truncate_tail(rel, params);
	if (truncated > 0)
		WideProgressVacuumCount(WIDE_PROGRESS_PARAM_TRUNCATED, truncated);
	WideProgressVacuumPhase(WIDE_PROGRESS_STATS);

	/* statistics and the new relfrozenxid */
	frozenxid = oldest_xmin;
	n = current_runs(rel, runs, &wa_pages);
	for (i = 0; i < n; i++)
	{
		ncells += runs[i].ncells;
		if (TransactionIdIsNormal(runs[i].min_xmin) &&
			TransactionIdPrecedes(runs[i].min_xmin, frozenxid))
			frozenxid = runs[i].min_xmin;
	}
	ncells += (double) wa_pages * (BLCKSZ / 100);
	{
		/* a drop not yet frozen keeps its xid (engine/drops.c) */
		TransactionId dx;

		WideDropsMaintain(rel);
		dx = WideDropsOldestXid(rel);
		if (TransactionIdIsNormal(dx) && TransactionIdPrecedes(dx, frozenxid))
			frozenxid = dx;
		/* and a range tombstone not yet frozen (engine/rangedel.c) */
		dx = WideRangeDelsOldestXmin(rel);
		if (TransactionIdIsNormal(dx) && TransactionIdPrecedes(dx, frozenxid))
			frozenxid = dx;
	}

	/*
	 * relhasindex must stay true while the table has a wide_key index:
	 * pg_dump dumps, the planner sees, and a publisher sends the replica
	 * identity columns of (RelationGetIdentityKeyBitmap) only the indexes
	 * of a table that has it.
	 */
	indexes = RelationGetIndexList(rel);
	vac_update_relstats(rel, RelationGetNumberOfBlocks(rel), ncells, 0,
						indexes != NIL, frozenxid, oldest_mxact, NULL, NULL,
						false);
	list_free(indexes);
	WideProgressVacuumEnd(rel);

	if ((params->options & VACOPT_VERBOSE) && swept < 0)
		ereport(INFO,
				(errmsg("vacuuming wide table \"%s\": %d runs, %.0f cells, orphaned pages not swept",
						RelationGetRelationName(rel), n, ncells),
				 errdetail("A bulk load held pages it had not registered yet.")));
	else if (params->options & VACOPT_VERBOSE)
		ereport(INFO,
				(errmsg("vacuuming wide table \"%s\": %d runs, %.0f cells, %lld orphaned pages reclaimed",
						RelationGetRelationName(rel), n, ncells,
						(long long) swept)));
	if (params->options & VACOPT_VERBOSE)
		report_summary(rel, &before, start);
	if ((params->options & VACOPT_VERBOSE) && truncated > 0)
		ereport(INFO,
				(errmsg("wide table \"%s\": truncated %lld free pages",
						RelationGetRelationName(rel), (long long) truncated)));
	else if ((params->options & VACOPT_VERBOSE) && truncated < 0)
		ereport(INFO,
				(errmsg("wide table \"%s\": free pages not truncated",
						RelationGetRelationName(rel)),
				 errdetail("Another session was using the table.")));
}

/*
 * WideEstimateCells -- records in the runs and the write area's runs, and
 * (estimated from its pages) the rest of the write area.  Superseded and
 * deleted records count too, so this is an upper bound.
 */
double
WideEstimateCells(Relation rel)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	WideMetaPage meta;
	double		cells = 0;
	uint64		pages = 0;
	int			i;

	if (!BufferIsValid(metabuf))
		return 0;
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	for (i = 0; i < (int) meta->nruns; i++)
		cells += meta->runs[i].ncells;
	for (i = 0; i < (int) meta->nwaruns; i++)
		cells += meta->waruns[i].ncells;
	for (i = 0; i < WIDE_NLANES; i++)
		pages += meta->lanes[i].npages + meta->flush_lanes[i].npages;
	UnlockReleaseBuffer(metabuf);
	return cells + (double) pages * (BLCKSZ / 100);
}
