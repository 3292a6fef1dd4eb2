/*-------------------------------------------------------------------------
 *
 * retention.c
 *	  Time-aware runs: the time windows of a table whose families expire
 *	  cells by age, merge output split by window, and whole runs dropped
 *	  when every cell in them has expired or was dropped (drop_before).
 *
 * Data that expires together should live together (Cassandra's
 * TimeWindowCompactionStrategy, HBase's date-tiered compaction), so that
 * retention frees whole runs instead of rewriting them.
 *
 * Age families.  A family is an age family if its policy collects every
 * version older than its largest max_age whatever else holds: max_age
 * alone, or in a union (not under an intersection, which keeps a version
 * another rule keeps).  Aggregate families qualify too: the inputs of one
 * accumulator share its timestamp.
 *
 * The window.  A table with an age family has time windows of width W,
 * aligned on multiples of W since 1970: the smallest of 1, 2, 3, 6, 12
 * hours, 1, 2, 3, 7, 14, 28 days and multiples of 28 days that cuts the
 * largest max_age of its age families into at most WIDE_WINDOWS_PER_AGE
 * windows (a 29- or 30-day policy: 3 days), or wide.time_window when it is
 * set.  The run list has WIDE_MAX_RUNS slots, of which a flush keeps 9 for
 * bulk runs, so a merge whose output would not fit doubles W for it.
 *
 * Windowed merges (compaction.c).  A merge of contiguous runs [lo, hi]
 * writes, in place of its inputs and in this order, a "rest" run -- every
 * tombstone, and the cells of the other families -- and one run per
 * window holding the age families' cells of that window, all flagged
 * WIDE_RUN_WINDOWED with the merge's number in "gen" (a tier).  Why later
 * contiguous merges stay correct (compaction.c's invariant, relaxed):
 * inside a tier the resolver has already applied the tier's frozen
 * tombstones to its cells, so what a tier's rest run still deletes is
 * older than the tier -- except the cells a tombstone some snapshot may not
 * see yet still covers, which are kept and keep their own sequence numbers
 * in their window run (window_writer), so that they compare exactly with
 * the tombstone; the rest run comes first, so a merge that takes any run of a tier
 * after its first takes every later run of it, and a merge that starts
 * inside a tier only misses the tier's older windows, whose versions are
 * older than every version in the merge and so never change what a
 * version limit or last-write-wins decides about them.  Merges that start
 * inside a tier never drop tombstones (they do not start at run 0).
 *
 * Dropping runs (WideCompactDropRuns in compaction.c, before every step).  A run
 * with no tombstone and no unfrozen record is freed without being read
 * past its root index when every cell in it is dead for every snapshot,
 * which holds when it holds for the cells of every family of the table
 * the run may hold (format 6: its descriptor's "families", the families
 * of the records the segment writer wrote into it, hashed into 32 bits;
 * every family for a run written before; a family whose policy changed
 * may still have cells in any run, so it is the records written, not the
 * families a window was cut for, that count; cells of dropped families
 * are dead), each family by either rule:
 *	- it is an age family, and the run's newest timestamp (the root
 *	  index's ts_max) is older than "now" (WideGCNow) minus its max_age;
 *	- a drop every snapshot sees, of every family or of this one, is newer
 *	  than the run (max_seq < its seq) and its time is past the run's
 *	  newest timestamp.
 * So in a table with a family kept for ever, the window runs of its age
 * families (which hold none of its cells) are freed by age, and a run
 * that holds its cells once it is dropped before their time
 * (drop_before(t, family, ts)).
 * A run without tombstones deletes nothing, so freeing it changes no other
 * cell; its pages go to the free queue, reused once no snapshot can read
 * them (space.c), after the conflict horizon is logged for standbys
 * (manifest.c, M5).
 *
 * IDENTIFICATION
 *	  src/engine/retention.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/rules.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/manifest.h"
#include "engine/drops.h"
#include "engine/retention.h"

#define HOUR	INT64CONST(3600000000)
#define DAY		(24 * HOUR)

int			wide_time_window = 0;	/* seconds; 0: derived from the policy */

/* the largest age after which the family collects every version, or 0 */
static int64
family_expiry(const WideFamily *f)
{
	int64		now = INT64CONST(1) << 62;

	if (f->max_age <= 0 || f->ngc == 0)
		return 0;
	/* versions_ok false: no version rule helps, the age rule must */
	if (!WideGCCollects(f, 0, now - f->max_age - 1, now, false))
		return 0;
	return f->max_age;
}

/*
 * WideFamilyExpiry -- the age past which the family collects every version
 * (its largest max_age), or 0 if it is not an age family.
 */
int64
WideFamilyExpiry(const WideFamily *f)
{
	return family_expiry(f);
}

/*
 * WideAgeFamily -- is famid an age family of the schema (see the header)?
 */
bool
WideAgeFamily(const WideSchema *schema, uint32 famid)
{
	int			i;

	for (i = 0; i < schema->nfamilies; i++)
		if (schema->families[i].id == famid)
			return family_expiry(&schema->families[i]) > 0;
	return false;
}

/*
 * WideRetentionAges -- the largest max_age of the age families (0: none),
 * and in *all the largest of every family's, or 0 if some family is not an
 * age family.
 */
int64
WideRetentionAges(const WideSchema *schema, int64 *all)
{
	int64		ages = 0;
	int			i;

	*all = schema->nfamilies > 0 ? 1 : 0;
	for (i = 0; i < schema->nfamilies; i++)
	{
		int64		e = family_expiry(&schema->families[i]);

		ages = Max(ages, e);
		if (e == 0)
			*all = 0;
		else if (*all != 0)
			*all = Max(*all, e);
	}
	return ages;
}

/*
 * WideTimeWindow -- the table's window width in microseconds, 0 if it has
 * none (no age family).
 */
int64
WideTimeWindow(const WideSchema *schema)
{
	static const int64 ladder[] = {HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR,
	DAY, 2 * DAY, 3 * DAY, 7 * DAY, 14 * DAY, 28 * DAY};
	int64		all;
	int64		age = WideRetentionAges(schema, &all);
	int64		w;
	int			i;

	if (age == 0)
		return 0;
	if (wide_time_window > 0)
		return (int64) wide_time_window * INT64CONST(1000000);
	for (i = 0; i < (int) lengthof(ladder); i++)
		if (age <= ladder[i] * WIDE_WINDOWS_PER_AGE)
			return ladder[i];
	w = 28 * DAY;
	while (age > w * WIDE_WINDOWS_PER_AGE)
		w *= 2;
	return w;
}

/*
 * WideWindowOf -- the number of the window of width w that holds ts,
 * floor(ts / w).
 */
int64
WideWindowOf(int64 ts, int64 w)
{
	int64		q = ts / w;

	return (ts % w != 0 && ts < 0) ? q - 1 : q;
}

/* ----------------------------------------------------------------
 *	Run bounds
 * ----------------------------------------------------------------
 */

/*
 * WideRunTimes -- the smallest and largest timestamp of a run's records
 * (root index), and whether it holds a tombstone.  False if it is empty.
 */
bool
WideRunTimes(Relation rel, const WideRunData *run, int64 *ts_min,
			 int64 *ts_max, bool *tombstones)
{
	WideCacheEntry *pin;
	WideSegment *seg = WideSegmentOpen(rel, run, &pin);
	const WideIndex *root = seg->root;
	int			i;

	*ts_min = PG_INT64_MAX;
	*ts_max = PG_INT64_MIN;
	*tombstones = (run->flags & WIDE_RUN_HAS_TOMBSTONES) != 0;
	for (i = 0; i < root->n; i++)
	{
		*ts_min = Min(*ts_min, root->entries[i].ts_min);
		*ts_max = Max(*ts_max, root->entries[i].ts_max);
		if (root->entries[i].flags & WIDE_INDEX_HAS_TOMBSTONES)
			*tombstones = true;
	}
	WideCacheRelease(pin);
	return root->n > 0;
}

/* ----------------------------------------------------------------
 *	Windowed output
 * ----------------------------------------------------------------
 */
#define MAX_OUT		WIDE_MAX_RUNS

struct WideRunOutput
{
	Relation	rel;
	const WideSchema *schema;
	int16		typlen;
	int64		width;			/* 0: one output run */
	WideSegmentWriter *rest;
	int			nwin;
	int64		keys[MAX_OUT];	/* window numbers, ascending */
	WideSegmentWriter *writers[MAX_OUT];
	uint32		age_ids[64];	/* age family incarnations (cache) */
	int			nage;
	bool		age_overflow;
	StringInfoData tomb_row;	/* the row of the last tombstone routed */
	bool		have_tomb_row;
};

/*
 * A window run gets no tombstone, so its writer alone would not know which
 * records must keep their sequence numbers (segment_writer.c): a cell of a
 * row whose tombstone went to the rest run keeps its own, as the
 * tombstone may be kept with the cells it covers (one a snapshot may still
 * not see).  (Tombstones come first in their row, scope by scope.)
 */
static WideSegmentWriter *
window_writer(WideRunOutput *o, WideSegmentWriter *w, const WideCell *c)
{
	if (o->have_tomb_row && o->tomb_row.len == (int) c->keylen &&
		memcmp(o->tomb_row.data, c->key, c->keylen) == 0)
		WideSegmentWriterKeepNextSeq(w);
	return w;
}

/* the writer of a record */
static WideSegmentWriter *
route(void *arg, const WideCell *c)
{
	WideRunOutput *o = (WideRunOutput *) arg;
	int64		k;
	bool		age = false;
	int			i;

	if (WIDE_KIND_IS_TOMBSTONE(c->kind))
	{
		/* the row's cells that follow keep their sequence numbers */
		if (!o->have_tomb_row || o->tomb_row.len != (int) c->keylen ||
			memcmp(o->tomb_row.data, c->key, c->keylen) != 0)
		{
			resetStringInfo(&o->tomb_row);
			appendBinaryStringInfo(&o->tomb_row, c->key, c->keylen);
			o->have_tomb_row = true;
		}
		return o->rest;
	}
	if (o->age_overflow)
		age = WideAgeFamily(o->schema, c->famid);
	else
		for (i = 0; i < o->nage && !age; i++)
			age = (o->age_ids[i] == c->famid);
	if (!age)
		return o->rest;
	k = WideWindowOf(c->ts, o->width);
	for (i = 0; i < o->nwin; i++)
		if (o->keys[i] == k)
			return window_writer(o, o->writers[i], c);
	if (o->nwin == MAX_OUT)
		elog(ERROR, "too many time windows in one merge");
	/* keep keys ascending */
	for (i = o->nwin; i > 0 && o->keys[i - 1] > k; i--)
	{
		o->keys[i] = o->keys[i - 1];
		o->writers[i] = o->writers[i - 1];
	}
	o->keys[i] = k;
	o->writers[i] = WideSegmentWriterBegin(o->rel, o->typlen);
	/* (the pending range tombstones and drops its resolver gave the rest) */
	WideSegmentWriterKeepLike(o->writers[i], o->rest);
	o->nwin++;
	return window_writer(o, o->writers[i], c);
}

/*
 * WideRunOutputBegin -- the output of a merge of inputs whose timestamps
 * lie in [ts_min, ts_max]: windowed if the table has windows, with at
 * most "slots" runs (the window widens until the windows fit).
 */
WideRunOutput *
WideRunOutputBegin(Relation rel, const WideSchema *schema, int16 typlen,
				   int64 ts_min, int64 ts_max, int slots)
{
	WideRunOutput *o = palloc0(sizeof(WideRunOutput));
	int			i;

	o->rel = rel;
	o->schema = schema;
	o->typlen = typlen;
	o->rest = WideSegmentWriterBegin(rel, typlen);
	initStringInfo(&o->tomb_row);
	o->width = WideTimeWindow(schema);
	if (ts_min > ts_max)
		o->width = 0;			/* bounds unknown: one run */
	if (o->width > 0)
	{
		slots = Min(slots - 1, MAX_OUT);	/* one for the rest */
		while (slots > 0 &&
			   WideWindowOf(ts_max, o->width) - WideWindowOf(ts_min, o->width) + 1 > slots &&
			   o->width < PG_INT64_MAX / 4)
			o->width *= 2;
		if (slots <= 0)
			o->width = 0;
	}
	for (i = 0; i < schema->nfamilies; i++)
		if (family_expiry(&schema->families[i]) > 0)
		{
			if (o->nage == lengthof(o->age_ids))
				o->age_overflow = true;
			else
				o->age_ids[o->nage++] = schema->families[i].id;
		}
	return o;
}

/* does the output cut its records by time window? */
bool
WideRunOutputWindowed(const WideRunOutput *o)
{
	return o->width > 0;
}

/* the writer a resolver is created with */
WideSegmentWriter *
WideRunOutputDefault(WideRunOutput *o)
{
	return o->rest;
}

/* route the resolver's records by window, if the output is windowed */
void
WideRunOutputRoute(WideRunOutput *o, WideResolver *r)
{
	if (o->width > 0)
		WideResolverSetRoute(r, route, o);
}

/*
 * WideRunOutputFinish -- finish the runs; out gets the non-empty ones (rest
 * first, then windows ascending), marked as written by compaction number
 * gen; returns how many.
 */
int
WideRunOutputFinish(WideRunOutput *o, WideRunData *out, uint32 gen)
{
	int			n = 0;
	int			i;

	if (WideSegmentWriterFinish(o->rest, &out[n]))
		n++;
	for (i = 0; i < o->nwin; i++)
		if (WideSegmentWriterFinish(o->writers[i], &out[n]))
			n++;
	for (i = 0; i < n; i++)
	{
		out[i].gen = gen;
		out[i].flags |= WIDE_RUN_BY_COMPACTION;
		if (o->width > 0)
			out[i].flags |= WIDE_RUN_WINDOWED;
	}
	return n;
}

/* the blobs the output keeps (palloc'd) */
WideBlobRef *
WideRunOutputBlobs(WideRunOutput *o, int *nkept)
{
	int			total = 0;
	int			n;
	int			i;
	const WideBlobRef *b;
	WideBlobRef *all;

	b = WideSegmentWriterBlobs(o->rest, &n);
	total += n;
	for (i = 0; i < o->nwin; i++)
	{
		(void) WideSegmentWriterBlobs(o->writers[i], &n);
		total += n;
	}
	all = palloc(sizeof(WideBlobRef) * Max(total, 1));
	b = WideSegmentWriterBlobs(o->rest, &n);
	memcpy(all, b, sizeof(WideBlobRef) * n);
	total = n;
	for (i = 0; i < o->nwin; i++)
	{
		b = WideSegmentWriterBlobs(o->writers[i], &n);
		memcpy(all + total, b, sizeof(WideBlobRef) * n);
		total += n;
	}
	*nkept = total;
	return all;
}

void
WideRunOutputEnd(WideRunOutput *o)
{
	int			i;

	WideSegmentWriterEnd(o->rest);
	for (i = 0; i < o->nwin; i++)
		WideSegmentWriterEnd(o->writers[i]);
}
