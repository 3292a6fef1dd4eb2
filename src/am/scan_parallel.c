/*-------------------------------------------------------------------------
 *
 * scan_parallel.c
 *	  Parallel Wide Scans: the leader and the workers divide a key range.
 *
 * A partial Wide Scan path (under Gather or Gather Merge) cuts its key
 * range into stretches at block boundaries of the runs (engine/split.c):
 * the leader computes the split keys when the parallel query starts and
 * puts them in the query's dynamic shared memory, and every participant
 * claims the next stretch from a shared counter, reads it with the full
 * merge of all runs and the write area restricted to it, and claims
 * another.  Stretches end between rows, so no row is ever divided, and the
 * cells each participant returns are exactly those the serial scan
 * returns for that stretch: workers share the leader's snapshot and
 * transaction state, and every participant uses the leader's reference
 * time for max-age policies.  Each participant claims stretches in
 * ascending order, so its output is sorted, and Gather Merge keeps the
 * scan's order.
 *
 * Each participant reads the table's state and sorts its write area once
 * (WideReaderBeginRanges); its stretches are read from that state.
 * Without a parallel context (no DSM: a plan run without workers) the
 * scan reads its whole range, as a serial scan.
 *
 * IDENTIFICATION
 *	  src/am/scan_parallel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "port/atomics.h"
#include "utils/guc.h"

#include "engine/cell.h"
#include "engine/reader.h"
#include "engine/split.h"
#include "am/scan_parallel.h"

/* stretches per participant: enough that no one waits long for the last */
#define STRETCHES_PER_PARTICIPANT	16
/* wide.parallel_stretch_blocks: data blocks a stretch has at least */
static int	min_stretch_blocks = 8;

struct WideParallelScan
{
	pg_atomic_uint32 next;		/* the next stretch to claim */
	int32		nkeys;			/* stretches: nkeys + 1 */
	int64		now;			/* reference time of max-age policies */
	pg_atomic_uint64 stats[5];	/* the workers' WideReaderStats */
	uint32		offsets[FLEXIBLE_ARRAY_MEMBER]; /* nkeys + 1, then key bytes */
};

#define KEYS(ps) ((char *) &(ps)->offsets[(ps)->nkeys + 1])

/*
 * WideParallelDivisor -- the share of the work of each process, as the
 * planner's cost model has it.
 */
double
WideParallelDivisor(int workers)
{
	double		divisor = workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - 0.3 * workers;

		if (leader > 0)
			divisor += leader;
	}
	return divisor;
}

/*
 * WideParallelWorkers -- the workers for a scan of the cells that would
 * fill "pages" uncompressed (about 64 cells a page, as the heap's rule
 * would see them): none below min_parallel_table_scan_size, one there, one
 * more at every tripling, as for heap scans, up to
 * max_parallel_workers_per_gather.
 */
int
WideParallelWorkers(double pages)
{
	double		threshold = Max(min_parallel_table_scan_size, 1);
	int			workers = 1;

	if (max_parallel_workers_per_gather <= 0 || pages < min_parallel_table_scan_size)
		return 0;
	while (pages >= threshold * 3 && workers < max_parallel_workers_per_gather)
	{
		workers++;
		threshold *= 3;
		if (threshold > INT_MAX / 3)
			break;
	}
	return Min(workers, max_parallel_workers_per_gather);
}

/*
 * WideAddPartialPath -- add the partial (parallel-aware) twin of the serial
 * Wide Scan path, if the relation may be scanned in parallel and the part
 * of it the path reads (sel of its pages) is large enough for workers:
 * one worker at min_parallel_table_scan_size, one more at every tripling,
 * as for heap scans, up to max_parallel_workers_per_gather.  Its cost is
 * the serial one divided among the participants: decoding blocks and
 * merging them, the bulk of a scan's work, divides.
 */
void
WideAddPartialPath(PlannerInfo *root, RelOptInfo *rel, const CustomPath *serial,
				   double sel)
{
	CustomPath *p;
	/*
	 * The work is per cell, and the pages are compressed: count the pages
	 * the cells would fill uncompressed (about 64 cells a page), as the
	 * heap's rule would see them
	 */
	double		pages = Max(rel->pages, rel->tuples / 64.0) * sel;
	int			workers;
	double		divisor;

	if (!rel->consider_parallel || serial->path.param_info != NULL)
		return;
	workers = WideParallelWorkers(pages);
	if (workers == 0)
		return;

	p = makeNode(CustomPath);
	memcpy(p, serial, sizeof(CustomPath));
	p->path.parallel_aware = true;
	p->path.parallel_safe = true;
	p->path.parallel_workers = workers;
	/*
	 * Only the useful part of the order: Gather Merge sorts on it, so its
	 * columns must be in the scan's output (those of ORDER BY and merge
	 * joins are).
	 */
	p->path.pathkeys = truncate_useless_pathkeys(root, rel, serial->path.pathkeys);
	divisor = WideParallelDivisor(workers);
	p->path.rows = clamp_row_est(serial->path.rows / divisor);
	p->path.total_cost = serial->path.startup_cost +
		(serial->path.total_cost - serial->path.startup_cost) / divisor;
	add_partial_path(rel, &p->path);
}

/*
 * WideParallelSplits -- the split keys of a parallel scan of range with
 * nworkers workers: about STRETCHES_PER_PARTICIPANT stretches per process,
 * fewer if stretches would be shorter than wide.parallel_stretch_blocks
 * blocks.
 */
int
WideParallelSplits(Relation rel, const WideKeyRange *range, int nworkers,
				   WideSplitKey **keys)
{
	int			target = STRETCHES_PER_PARTICIPANT * (nworkers + 1);
	uint64		nblocks;
	int			nkeys = WideSplitKeys(rel, range, target, &nblocks, keys);
	int			want = (int) Min((uint64) target, nblocks / min_stretch_blocks);

	/* too many for the blocks: keep every step-th */
	if (nkeys > 0 && want < nkeys + 1)
	{
		int			step = (nkeys + 1 + Max(want, 1) - 1) / Max(want, 1);
		int			n = 0,
					i;

		for (i = step - 1; i < nkeys; i += step)
			(*keys)[n++] = (*keys)[i];
		nkeys = n;
	}
	return nkeys;
}

/*
 * WideParallelSize -- the shared memory of a scan with these split keys.
 */
Size
WideParallelSize(int nkeys, const WideSplitKey *keys)
{
	Size		size = offsetof(WideParallelScan, offsets) +
		sizeof(uint32) * (nkeys + 1);
	int			i;

	for (i = 0; i < nkeys; i++)
		size += keys[i].len;
	return MAXALIGN(size);
}

/*
 * WideParallelInit -- fill the shared state (WideParallelSize bytes).
 */
void
WideParallelInit(WideParallelScan *ps, int nkeys, const WideSplitKey *keys,
				 int64 now)
{
	char	   *p;
	int			i;

	ps->nkeys = nkeys;
	ps->now = now;
	pg_atomic_init_u32(&ps->next, 0);
	for (i = 0; i < (int) lengthof(ps->stats); i++)
		pg_atomic_init_u64(&ps->stats[i], 0);
	p = KEYS(ps);
	ps->offsets[0] = 0;
	for (i = 0; i < nkeys; i++)
	{
		memcpy(p + ps->offsets[i], keys[i].key, keys[i].len);
		ps->offsets[i + 1] = ps->offsets[i] + keys[i].len;
	}
}

/*
 * WideParallelReinit -- start again (a rescan): every stretch unclaimed.
 */
void
WideParallelReinit(WideParallelScan *ps)
{
	int			i;

	pg_atomic_write_u32(&ps->next, 0);
	for (i = 0; i < (int) lengthof(ps->stats); i++)
		pg_atomic_write_u64(&ps->stats[i], 0);
}

/*
 * WideParallelNow -- the leader's reference time for max-age policies.
 */
int64
WideParallelNow(const WideParallelScan *ps)
{
	return ps->now;
}

/*
 * WideParallelStretches -- the number of stretches.
 */
int
WideParallelStretches(const WideParallelScan *ps)
{
	return ps->nkeys + 1;
}

/*
 * WideParallelClaim -- the next unclaimed stretch, intersected with range,
 * into *out (its bounds copied into lo and hi); false when all are claimed.
 * Stretch i holds the rows after split key i - 1 up to split key i.
 */
bool
WideParallelClaim(WideParallelScan *ps, const WideKeyRange *range,
				  WideKeyRange *out, StringInfo lo, StringInfo hi)
{
	for (;;)
	{
		uint32		i = pg_atomic_fetch_add_u32(&ps->next, 1);
		const char *keys = KEYS(ps);
		int			cmp;

		if (i > (uint32) ps->nkeys)
			return false;
		*out = *range;
		resetStringInfo(lo);
		resetStringInfo(hi);
		if (range->has_start)
			appendBinaryStringInfo(lo, range->start, range->startlen);
		if (range->has_end)
			appendBinaryStringInfo(hi, range->end, range->endlen);

		/* after key i - 1: from that key followed by a zero byte, included */
		if (i > 0)
		{
			const char *k = keys + ps->offsets[i - 1];
			uint32		len = ps->offsets[i] - ps->offsets[i - 1];

			cmp = out->has_start ? WideKeyCompare(k, len, lo->data, lo->len) : 1;
			if (cmp >= 0)
			{
				resetStringInfo(lo);
				appendBinaryStringInfo(lo, k, len);
				appendStringInfoChar(lo, '\0');
				out->has_start = out->start_incl = true;
			}
		}
		/* up to key i, included */
		if (i < (uint32) ps->nkeys)
		{
			const char *k = keys + ps->offsets[i];
			uint32		len = ps->offsets[i + 1] - ps->offsets[i];

			cmp = out->has_end ? WideKeyCompare(k, len, hi->data, hi->len) : -1;
			if (cmp < 0)
			{
				resetStringInfo(hi);
				appendBinaryStringInfo(hi, k, len);
				out->has_end = out->end_incl = true;
			}
		}
		out->start = lo->data;
		out->startlen = lo->len;
		out->end = hi->data;
		out->endlen = hi->len;
		out->is_point = false;
		if (out->has_start && out->has_end)
		{
			cmp = WideKeyCompare(lo->data, lo->len, hi->data, hi->len);
			if (cmp > 0 || (cmp == 0 && !(out->start_incl && out->end_incl)))
				continue;		/* nothing of the range in this stretch */
			out->is_point = (cmp == 0);
		}
		return true;
	}
}

/*
 * WideParallelAddStats -- add a worker's reader statistics (at its end).
 */
void
WideParallelAddStats(WideParallelScan *ps, const WideReaderStats *st)
{
	pg_atomic_fetch_add_u64(&ps->stats[0], st->wa_records);
	pg_atomic_fetch_add_u64(&ps->stats[1], st->runs_read);
	pg_atomic_fetch_add_u64(&ps->stats[2], st->blocks_read);
	pg_atomic_fetch_add_u64(&ps->stats[3], st->records);
	pg_atomic_fetch_add_u64(&ps->stats[4], st->cells);
}

/*
 * WideParallelGetStats -- the workers' statistics so far.
 */
void
WideParallelGetStats(const WideParallelScan *ps, WideReaderStats *st)
{
	st->wa_records = pg_atomic_read_u64(unconstify(pg_atomic_uint64 *, &ps->stats[0]));
	st->runs_read = pg_atomic_read_u64(unconstify(pg_atomic_uint64 *, &ps->stats[1]));
	st->blocks_read = pg_atomic_read_u64(unconstify(pg_atomic_uint64 *, &ps->stats[2]));
	st->records = pg_atomic_read_u64(unconstify(pg_atomic_uint64 *, &ps->stats[3]));
	st->cells = pg_atomic_read_u64(unconstify(pg_atomic_uint64 *, &ps->stats[4]));
}

/*
 * WideParallelDefineSettings -- the settings of parallel scans (from
 * WideInstallPlanner).
 */
void
WideParallelDefineSettings(void)
{
	DefineCustomIntVariable("wide.parallel_stretch_blocks",
							"Data blocks a stretch of a parallel Wide Scan has at least.",
							"A parallel scan cuts its key range into about 16 stretches per process, fewer if they would be shorter than this; 1 tests many stretches on small tables.",
							&min_stretch_blocks, 8, 1, 1000000,
							PGC_USERSET, 0, NULL, NULL, NULL);
}
