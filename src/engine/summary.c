/*-------------------------------------------------------------------------
 *
 * summary.c
 *	  What a backend's flushes and compactions did: runs, bytes and records
 *	  read and written, and the records dropped by reason.
 *
 *	  WideMaintTotals
 *		  the sums since the backend started; flush.c and compaction.c add
 *		  to them when they publish their result (so a failed or crashed
 *		  step counts nothing).
 *	  WideMaintAddResolved(s)
 *		  add a resolver's statistics (resolve.c).
 *	  WideMaintDiff(before, d)
 *		  *d = the totals now less *before: what happened since a reading
 *		  (wide.compact's summary row, VACUUM VERBOSE's INFO line).
 *
 *	  Backend-local: nothing is shared, nothing needs a lock, and an error
 *	  between two readings leaves no state to clean up.
 *
 * IDENTIFICATION
 *	  src/engine/summary.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/relcache.h"

#include "engine/lsm.h"

WideMaintCounts WideMaintTotals;

void
WideMaintAddResolved(const WideResolveStats *s)
{
	WideResolveStats *t = &WideMaintTotals.resolved;

	t->seen += s->seen;
	t->kept += s->kept;
	t->aborted += s->aborted;
	t->covered += s->covered;
	t->superseded += s->superseded;
	t->collected += s->collected;
	t->expired += s->expired;
	t->folded += s->folded;
	t->tombstones_dropped += s->tombstones_dropped;
	t->dropped_family += s->dropped_family;
}

void
WideMaintDiff(const WideMaintCounts *before, WideMaintCounts *d)
{
	const WideMaintCounts *now = &WideMaintTotals;
	const WideResolveStats *b = &before->resolved;
	const WideResolveStats *n = &now->resolved;

	d->flushes = now->flushes - before->flushes;
	d->compactions = now->compactions - before->compactions;
	d->runs_in = now->runs_in - before->runs_in;
	d->runs_out = now->runs_out - before->runs_out;
	d->bytes_read = now->bytes_read - before->bytes_read;
	d->bytes_written = now->bytes_written - before->bytes_written;
	d->cells_in = now->cells_in - before->cells_in;
	d->cells_out = now->cells_out - before->cells_out;
	d->resolved.seen = n->seen - b->seen;
	d->resolved.kept = n->kept - b->kept;
	d->resolved.aborted = n->aborted - b->aborted;
	d->resolved.covered = n->covered - b->covered;
	d->resolved.superseded = n->superseded - b->superseded;
	d->resolved.collected = n->collected - b->collected;
	d->resolved.expired = n->expired - b->expired;
	d->resolved.folded = n->folded - b->folded;
	d->resolved.tombstones_dropped = n->tombstones_dropped - b->tombstones_dropped;
	d->resolved.dropped_family = n->dropped_family - b->dropped_family;
}
