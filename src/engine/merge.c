/*-------------------------------------------------------------------------
 *
 * merge.c
 *	  From sorted records to the cells a reader sees.
 *
 * The input is every record visible to the reader's snapshot, in the order
 * of cell.c (tombstones first within their scope, versions newest first,
 * equal coordinates newest write first).  The merger applies, in one pass
 * and constant memory per column:
 *
 *	- families: cells of a family that does not exist, or of an earlier
 *	  incarnation of it (dropped and created again), are skipped;
 *	- deletes: a tombstone removes the records of its scope written before
 *	  it (smaller sequence number), whatever their timestamps;
 *	- last write wins: of records with equal coordinates the newest write is
 *	  the cell; in an aggregate family they are all folded into one value;
 *	- GC policies: max versions (counted over live versions, newest first)
 *	  and max age (against the reader's "now"), their union or intersection.
 *
 * Deletes and versions are counted only among records that survive the
 * earlier steps, so the result is deterministic for a given snapshot.
 *
 * IDENTIFICATION
 *	  src/engine/merge.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "wide.h"

typedef struct ColumnTombstone
{
	int64		from;
	int64		to;
	uint64		seq;
} ColumnTombstone;

/* An owned copy of a cell. */
typedef struct OwnedCell
{
	WideCell	cell;
	StringInfoData buf;
} OwnedCell;

struct WideMerger
{
	const WideSchema *schema;
	int64		now;

	/* current row */
	bool		have_row;
	StringInfoData row;
	uint64		row_del;

	/* current family of the row */
	bool		have_family;
	StringInfoData family;
	const WideFamily *def;		/* NULL: unknown family */
	uint64		family_del;

	/* current column of the family */
	bool		have_column;
	StringInfoData qual;
	int			nversions;
	ColumnTombstone *tombs;
	int			ntombs;
	int			maxtombs;

	/* the version being built, and the one last returned */
	bool		pending;
	bool		pending_collected;
	int64		acc;			/* aggregate accumulator */
	OwnedCell	cells[2];
	int			cur;			/* cells[cur] is pending */
};

static void
set_string(StringInfo s, const char *data, int len)
{
	resetStringInfo(s);
	appendBinaryStringInfo(s, data, len);
}

static bool
same_string(StringInfo s, const char *data, int len)
{
	return s->len == len && memcmp(s->data, data, len) == 0;
}

/*
 * WideMergerCreate -- a merger for a table's schema; "now" (microseconds
 * since 1970) is the reference time of max-age policies.
 */
WideMerger *
WideMergerCreate(const WideSchema *schema, int64 now)
{
	WideMerger *m = palloc0(sizeof(WideMerger));

	m->schema = schema;
	m->now = now;
	initStringInfo(&m->row);
	initStringInfo(&m->family);
	initStringInfo(&m->qual);
	initStringInfo(&m->cells[0].buf);
	initStringInfo(&m->cells[1].buf);
	m->maxtombs = 8;
	m->tombs = palloc(sizeof(ColumnTombstone) * m->maxtombs);
	return m;
}

/* copy a cell into an owned buffer */
static void
own_cell(OwnedCell *dst, const WideCell *src)
{
	StringInfo	b = &dst->buf;
	int			off_key,
				off_fam,
				off_qual,
				off_val = -1;

	resetStringInfo(b);
	off_key = b->len;
	appendBinaryStringInfo(b, src->key, src->keylen);
	off_fam = b->len;
	appendBinaryStringInfo(b, src->family, src->famlen);
	off_qual = b->len;
	appendBinaryStringInfo(b, src->qual, src->quallen);
	if (src->value != NULL)
	{
		off_val = b->len;
		appendBinaryStringInfo(b, src->value, src->vallen);
	}
	dst->cell = *src;
	dst->cell.key = b->data + off_key;
	dst->cell.family = b->data + off_fam;
	dst->cell.qual = b->data + off_qual;
	dst->cell.value = (off_val >= 0) ? b->data + off_val : NULL;
}

/* is the version with this index and timestamp collected by the policy? */
static bool
gc_collects(const WideMerger *m, const WideFamily *def, int index, int64 ts)
{
	bool		has_v = def->max_versions > 0;
	bool		has_a = def->max_age > 0;
	bool		by_v = has_v && index >= def->max_versions;
	bool		by_a = has_a && ts < m->now - def->max_age;

	if (has_v && has_a && def->gc_intersection)
		return by_v && by_a;
	return by_v || by_a;
}

static int64
agg_value(const WideCell *cell)
{
	int64		v;

	Assert(cell->vallen == sizeof(int64) && cell->value != NULL);
	memcpy(&v, cell->value, sizeof(int64));
	return v;
}

static int64
agg_fold(WideAggregate agg, int64 acc, int64 v)
{
	switch (agg)
	{
		case WIDE_AGG_SUM:
			/* wraps around on overflow, as Bigtable's sum does */
			return (int64) ((uint64) acc + (uint64) v);
		case WIDE_AGG_MIN:
			return Min(acc, v);
		case WIDE_AGG_MAX:
			return Max(acc, v);
		default:
			elog(ERROR, "unexpected aggregate %d", (int) agg);
	}
	return 0;					/* keep compiler quiet */
}

/*
 * Finish the pending version: if it is to be returned, point *out at it and
 * return true.
 */
static bool
flush_pending(WideMerger *m, WideCell *out)
{
	OwnedCell  *p;

	if (!m->pending)
		return false;
	m->pending = false;
	if (m->pending_collected)
		return false;

	p = &m->cells[m->cur];
	if (m->def->aggregate != WIDE_AGG_NONE)
	{
		/* the accumulator replaces the value of the newest input */
		memcpy((char *) p->cell.value, &m->acc, sizeof(int64));
		p->cell.kind = WIDE_KIND_MERGE;
	}
	*out = p->cell;
	m->cur = 1 - m->cur;
	return true;
}

static bool
covered(const WideMerger *m, const WideCell *cell)
{
	int			i;

	if (cell->seq < m->row_del || cell->seq < m->family_del)
		return true;
	for (i = 0; i < m->ntombs; i++)
	{
		const ColumnTombstone *t = &m->tombs[i];

		if (cell->seq < t->seq && cell->ts >= t->from && cell->ts < t->to)
			return true;
	}
	return false;
}

/*
 * WideMergerPush -- feed the next record.  Returns true, with *out set, when
 * a cell is complete; *out stays valid until the next call.
 */
bool
WideMergerPush(WideMerger *m, const WideCell *cell, WideCell *out)
{
	int			level = WideCellLevel(cell);
	bool		emitted = false;

	/* a new row? */
	if (!m->have_row || !same_string(&m->row, cell->key, cell->keylen))
	{
		emitted = flush_pending(m, out);
		set_string(&m->row, cell->key, cell->keylen);
		m->have_row = true;
		m->row_del = 0;
		m->have_family = false;
		m->have_column = false;
	}
	if (level == WIDE_LEVEL_ROW)
	{
		m->row_del = Max(m->row_del, cell->seq);
		return emitted;
	}

	/* a new family? */
	if (!m->have_family || !same_string(&m->family, cell->family, cell->famlen))
	{
		if (!emitted)
			emitted = flush_pending(m, out);
		set_string(&m->family, cell->family, cell->famlen);
		m->have_family = true;
		m->def = WideSchemaFindFamily(m->schema, cell->family, cell->famlen);
		m->family_del = 0;
		m->have_column = false;
	}
	if (level == WIDE_LEVEL_FAMILY)
	{
		m->family_del = Max(m->family_del, cell->seq);
		return emitted;
	}

	/* a new column? */
	if (!m->have_column || !same_string(&m->qual, cell->qual, cell->quallen))
	{
		if (!emitted)
			emitted = flush_pending(m, out);
		set_string(&m->qual, cell->qual, cell->quallen);
		m->have_column = true;
		m->nversions = 0;
		m->ntombs = 0;
	}
	if (level == WIDE_LEVEL_COLUMN)
	{
		if (m->ntombs == m->maxtombs)
		{
			m->maxtombs *= 2;
			m->tombs = repalloc(m->tombs, sizeof(ColumnTombstone) * m->maxtombs);
		}
		m->tombs[m->ntombs].from = cell->ts;
		m->tombs[m->ntombs].to = cell->ts_to;
		m->tombs[m->ntombs].seq = cell->seq;
		m->ntombs++;
		return emitted;
	}

	/* a cell: of a live incarnation of its family, and not deleted? */
	if (m->def == NULL || cell->famid != m->def->id || covered(m, cell))
		return emitted;

	if (m->pending && m->cells[m->cur].cell.ts == cell->ts)
	{
		/* an older write of the same version */
		if (m->def->aggregate != WIDE_AGG_NONE)
			m->acc = agg_fold(m->def->aggregate, m->acc, agg_value(cell));
		return emitted;
	}

	/* a new version */
	if (!emitted)
		emitted = flush_pending(m, out);
	own_cell(&m->cells[m->cur], cell);
	m->pending = true;
	m->pending_collected = gc_collects(m, m->def, m->nversions, cell->ts);
	m->nversions++;
	if (m->def->aggregate != WIDE_AGG_NONE)
		m->acc = agg_value(cell);
	return emitted;
}

/*
 * WideMergerFinish -- after the last record: returns the last cell, if any.
 */
bool
WideMergerFinish(WideMerger *m, WideCell *out)
{
	return flush_pending(m, out);
}
