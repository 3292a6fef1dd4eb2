/*-------------------------------------------------------------------------
 *
 * tsprune.c
 *	  Time pruning: which runs, blocks and write-area records a read with a
 *	  window of timestamps may skip.
 *
 * A read given a window [lo, hi] (conditions on ts, or a
 * timestamp_range_filter) must return every cell whose timestamp lies in
 * the window exactly as a read without the window would, and no other
 * (the reader drops the merger's cells outside it, so a Wide Scan need not
 * check its ts conditions again).  Segment index entries carry
 * the smallest and largest timestamp of the PUT, ADD, MERGE and DEL_CELLS
 * records of what they cover (a data block, or an index block in the root)
 * and a flag for tombstones, so whole index blocks and data blocks can be
 * skipped.  Whether a cell in the window is returned depends on records
 * outside the window only through the merger's rules (merge.c, rules.c):
 *
 *	- deletes: a tombstone hides the records of its scope written before
 *	  it, whatever their timestamps (DEL_ROW and DEL_FAMILY cover every
 *	  timestamp; DEL_CELLS covers its own range, whose end the index does
 *	  not record).  So a block or record with a tombstone is never skipped;
 *	- last write wins and aggregate folding combine the records of one
 *	  version, which share its timestamp: all inside the window or all
 *	  outside it;
 *	- max_age judges a version by its own timestamp;
 *	- max_versions keeps the newest max_versions live versions of a
 *	  column: whether a version is visible depends on the number of live
 *	  versions NEWER than it, whose timestamps may lie above the window,
 *	  and never on older ones.
 *
 * Hence the rule: skip what holds no tombstone and is entirely older than
 * the window (ts_max < lo) -- always safe; and skip what holds no
 * tombstone and is entirely newer (ts_min > hi) only when no family of the
 * reader's schema counts versions (max_versions, alone or with max_age,
 * or anywhere in a nested GC rule).
 * Skipping a block in the middle of a row is harmless: a data block's first
 * record carries no "same row" hint, so the merger compares keys again
 * (merge.c), and its per-column state only sees fewer old versions.
 * test/t/130_ts_prune_fuzz.pl checks the rule against reads without
 * pruning, on random data and windows.
 *
 * IDENTIFICATION
 *	  src/engine/tsprune.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/segment.h"
#include "engine/tswindow.h"

/*
 * WideTsWindowInit -- the window of every timestamp.
 */
void
WideTsWindowInit(WideTsWindow *w)
{
	w->lo = PG_INT64_MIN;
	w->hi = PG_INT64_MAX;
}

/*
 * WideTsWindowEmpty -- does the window hold no timestamp?
 */
bool
WideTsWindowEmpty(const WideTsWindow *w)
{
	return w->lo > w->hi;
}

/*
 * WideTsPruneInit -- what a reader of this schema may skip for a window
 * (see the rule above).
 */
void
WideTsPruneInit(WideTsPrune *p, const WideTsWindow *w, const WideSchema *schema)
{
	bool		counts_versions = false;
	int			i;

	for (i = 0; i < schema->nfamilies; i++)
	{
		const WideFamily *f = &schema->families[i];
		int			j;

		if (f->max_versions > 0)
			counts_versions = true;
		/* a version rule anywhere in a nested GC rule (schema.c) */
		for (j = 0; j < f->ngc; j++)
			if (f->gc[j].kind == WIDE_GC_VERSIONS)
				counts_versions = true;
	}
	p->lo = w->lo;
	p->hi = counts_versions ? PG_INT64_MAX : w->hi;
	p->window = *w;
}

/*
 * WideTsPruneBlock -- may a block (or index block) with these timestamps
 * and index flags be skipped?
 */
bool
WideTsPruneBlock(const WideTsPrune *p, int64 ts_min, int64 ts_max, uint8 flags)
{
	if (flags & WIDE_INDEX_HAS_TOMBSTONES)
		return false;
	return ts_max < p->lo || ts_min > p->hi;
}

/*
 * WideTsPruneRecord -- may a record be skipped?
 */
bool
WideTsPruneRecord(const WideTsPrune *p, const WideCell *c)
{
	if (WIDE_KIND_IS_TOMBSTONE(c->kind))
		return false;
	return c->ts < p->lo || c->ts > p->hi;
}

/*
 * WideTsPruneWants -- is a cell the merger returned inside the window?
 */
bool
WideTsPruneWants(const WideTsPrune *p, const WideCell *c)
{
	return c->ts >= p->window.lo && c->ts <= p->window.hi;
}
