/*-------------------------------------------------------------------------
 *
 * rules.c
 *	  The meaning of deletes and GC policies, shared by the read path
 *	  (merge.c) and by flush and compaction (resolve.c).
 *
 * Both walk records in cell order (cell.c): within a row, tombstones come
 * first in their scope (row, then each family, then each column), then the
 * versions of each column newest first.  What deletes a record and what a
 * GC policy collects must be decided by the same rule in both, or a cell
 * a reader no longer sees could come back once compaction rewrote it (or
 * the other way round).  The callers differ only in which records they
 * feed: a reader every tombstone its snapshot sees; compaction only
 * tombstones every snapshot sees (frozen), because only those may delete
 * physically.
 *
 * Deletes: a tombstone removes the records of its scope written before it
 * (smaller sequence number), whatever their timestamps and whatever
 * incarnation of the family they belong to.  A column tombstone covers the
 * timestamps [from, to).  A range tombstone (rangedel.c) is, for each row
 * of its key range, a row tombstone (or a family tombstone of its family)
 * of its sequence number: it enters the deletes with the row or family.
 * A drop (wide.drop_before, dropbefore.c) is a
 * tombstone of every row: it removes the cells (PUT, ADD, MERGE) of its
 * family incarnation, or of every family, with ts < before written before
 * it; readers get the drops their snapshot sees, rewrites those every
 * snapshot sees.
 *
 * GC: max_versions collects versions beyond the newest max_versions live
 * ones; max_age collects versions older than "now" minus max_age; a union
 * collects what any of its rules does and an intersection only what all
 * do, nested as deep as Bigtable's GcRule (schema.h: a postfix program).
 * A rule that cannot be judged (versions not countable, now unknown) does
 * not collect, and under an intersection neither does the intersection.
 * A version hidden by a version limit stays collected: a column delete that
 * would make it one of the newest again comes with the tombstone of the
 * versions its policy hides (uncover.c), so that reads do not depend on
 * whether compaction collected them first.
 *
 * IDENTIFICATION
 *	  src/engine/rules.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/rules.h"

/*
 * WideDeletesInit -- an empty set of deletes, allocated in the current
 * memory context.
 */
void
WideDeletesInit(WideDeletes *d)
{
	memset(d, 0, sizeof(WideDeletes));
	d->maxtombs = 8;
	d->tombs = palloc(sizeof(WideTombstone) * d->maxtombs);
}

/*
 * WideDeletesEnter -- the walk enters a new row, family or column
 * (WIDE_LEVEL_*): forget the deletes whose scope ended.
 */
void
WideDeletesEnter(WideDeletes *d, int level)
{
	switch (level)
	{
		case WIDE_LEVEL_ROW:
			d->row_del = 0;
			/* FALLTHROUGH */
		case WIDE_LEVEL_FAMILY:
			d->fam_del = 0;
			/* FALLTHROUGH */
		default:
			d->ntombs = 0;
	}
}

/*
 * WideDeletesAdd -- a tombstone of the current scope takes effect.
 */
void
WideDeletesAdd(WideDeletes *d, const WideCell *tomb)
{
	switch (WideCellLevel(tomb))
	{
		case WIDE_LEVEL_ROW:
			d->row_del = Max(d->row_del, tomb->seq);
			break;
		case WIDE_LEVEL_FAMILY:
			d->fam_del = Max(d->fam_del, tomb->seq);
			break;
		case WIDE_LEVEL_COLUMN:
			if (d->ntombs == d->maxtombs)
			{
				d->maxtombs *= 2;
				d->tombs = repalloc(d->tombs, sizeof(WideTombstone) * d->maxtombs);
			}
			d->tombs[d->ntombs].from = tomb->ts;
			d->tombs[d->ntombs].to = tomb->ts_to;
			d->tombs[d->ntombs].seq = tomb->seq;
			d->ntombs++;
			break;
		default:
			Assert(false);
	}
}

/*
 * WideRangeDelCoversKey -- does the range tombstone's key range hold the
 * row key?
 */
bool
WideRangeDelCoversKey(const WideRangeDel *t, const char *key, uint32 keylen)
{
	if (WideKeyCompare(key, keylen, t->start, t->startlen) < 0)
		return false;
	return !t->has_end || WideKeyCompare(key, keylen, t->end, t->endlen) < 0;
}

/*
 * WideDeletesEnterRange -- after WideDeletesEnter of a row (level
 * WIDE_LEVEL_ROW) or of a family in it (WIDE_LEVEL_FAMILY): the range
 * tombstones in effect (d->ranges) that hold the row, of every family or
 * of this one, delete as a row or family tombstone of their sequence
 * number would.  Returns true if a pending one (rewrites: not yet visible
 * to every snapshot) holds it: it may still delete what is older.
 */
bool
WideDeletesEnterRange(WideDeletes *d, int level, const char *key,
					  uint32 keylen, const char *family, uint32 famlen)
{
	bool		pending = false;
	int			i;

	if (d->ranges == NULL)
		return false;
	for (i = 0; i < d->ranges->n; i++)
	{
		const WideRangeDel *t = &d->ranges->d[i];

		if (level == WIDE_LEVEL_ROW ? t->famlen != 0 :
			(t->famlen == 0 || t->famlen != famlen ||
			 memcmp(t->family, family, famlen) != 0))
			continue;
		if (!WideRangeDelCoversKey(t, key, keylen))
			continue;
		if (t->pending)
			pending = true;
		else if (level == WIDE_LEVEL_ROW)
			d->row_del = Max(d->row_del, t->seq);
		else
			d->fam_del = Max(d->fam_del, t->seq);
	}
	return pending;
}

/*
 * WideDeletesSetDrops -- the drops in effect for every row of the walk
 * (the array must outlive it).
 */
void
WideDeletesSetDrops(WideDeletes *d, const WideDropRule *drops, int ndrops)
{
	d->drops = drops;
	d->ndrops = ndrops;
}

/*
 * WideDropsCover -- is the cell (PUT, ADD or MERGE) removed by one of the
 * drops?
 */
bool
WideDropsCover(const WideDropRule *drops, int ndrops, const WideCell *c)
{
	int			i;

	for (i = 0; i < ndrops; i++)
		if (c->seq < drops[i].seq && c->ts < drops[i].before &&
			(drops[i].famid == 0 || drops[i].famid == c->famid))
			return true;
	return false;
}

/*
 * WideDeletesCover -- is the record deleted by a tombstone of its scope?
 * (For a family tombstone only the row's deletes apply, for a column
 * tombstone the row's and the family's; a cell meets all three.)
 */
bool
WideDeletesCover(const WideDeletes *d, const WideCell *c)
{
	int			level = WideCellLevel(c);
	int			i;

	if (c->seq < d->row_del)
		return true;
	if (level == WIDE_LEVEL_ROW || level == WIDE_LEVEL_FAMILY)
		return false;
	if (c->seq < d->fam_del)
		return true;
	if (level == WIDE_LEVEL_COLUMN)
		return false;
	if (d->ndrops > 0 && WideDropsCover(d->drops, d->ndrops, c))
		return true;
	for (i = 0; i < d->ntombs; i++)
	{
		const WideTombstone *t = &d->tombs[i];

		if (c->seq < t->seq && WideTsInRange(c->ts, t->from, t->to))
			return true;
	}
	return false;
}

/*
 * WideGCCollects -- does the family's policy collect the version with this
 * index (0: the newest live version) and timestamp?  "now": the reference
 * time of max_age in microseconds since 1970, 0 if unknown;
 * "versions_ok": may versions be counted (compaction: no unfrozen
 * tombstone in scope, which could still delete some of the newer ones).
 * A leaf that cannot be judged does not collect; a union collects what any
 * of its rules collects, an intersection what all of them do.
 */
bool
WideGCCollects(const WideFamily *def, int index, int64 ts, int64 now,
			   bool versions_ok)
{
	bool		stack[WIDE_GC_MAX_OPS];
	int			top = 0;
	int			i;

	for (i = 0; i < def->ngc; i++)
	{
		const WideGcOp *op = &def->gc[i];
		bool		r;
		int			k;

		switch (op->kind)
		{
			case WIDE_GC_VERSIONS:
				stack[top++] = versions_ok && index >= op->arg;
				break;
			case WIDE_GC_AGE:
				stack[top++] = now > 0 && ts < now - op->arg;
				break;
			case WIDE_GC_UNION:
			case WIDE_GC_INTERSECTION:
				Assert(op->nargs <= top);
				r = op->kind == WIDE_GC_INTERSECTION;
				for (k = 0; k < op->nargs; k++)
				{
					if (op->kind == WIDE_GC_UNION)
						r = r || stack[top - 1 - k];
					else
						r = r && stack[top - 1 - k];
				}
				top -= op->nargs;
				stack[top++] = r;
				break;
			default:
				Assert(false);
		}
	}
	Assert(top <= 1);
	return top == 1 && stack[0];
}

/*
 * WideGCSamePolicy -- do two families collect exactly the same versions?
 */
bool
WideGCSamePolicy(const WideFamily *a, const WideFamily *b)
{
	int			i;

	if (a->ngc != b->ngc)
		return false;
	for (i = 0; i < a->ngc; i++)
		if (a->gc[i].kind != b->gc[i].kind || a->gc[i].nargs != b->gc[i].nargs ||
			a->gc[i].arg != b->gc[i].arg)
			return false;
	return true;
}
