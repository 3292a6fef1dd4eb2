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
 *	  it (smaller sequence number), whatever their timestamps; a range
 *	  tombstone (rangedel.c) is a row or family tombstone of each row in
 *	  its range;
 *	- last write wins: of records with equal coordinates the newest write is
 *	  the cell; in an aggregate family they are all folded into one value;
 *	- GC policies: max versions (counted over live versions, newest first)
 *	  and max age (against the reader's "now"), their union or intersection.
 *
 * The delete and GC rules themselves are in rules.c, shared with flush and
 * compaction (resolve.c), so that both decide alike.
 *
 * Deletes and versions are counted only among records that survive the
 * earlier steps, so the result is deterministic for a given snapshot.
 *
 * A cell of a plain family is passed through as it came (no copy: it stays
 * valid until the next record is pushed); only aggregates, whose value is
 * known once all inputs are seen, are copied -- a version that is one
 * accumulator (MERGE) alone, as compaction leaves each, as its bytes,
 * without folding it (start_pending).  Push a record, then Pop the
 * cells it completed (at most two).
 *
 * IDENTIFICATION
 *	  src/engine/merge.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/reader.h"
#include "engine/rules.h"

/* a lone accumulator up to this long is kept after a one-byte varlena header */
#define WIDE_LONE_SHORT		(VARATT_SHORT_MAX - VARHDRSZ_SHORT)

/* a growable byte buffer for the current row, family, qualifier */
typedef struct Bytes
{
	char	   *data;
	uint32		len;
	uint32		cap;
} Bytes;

struct WideMerger
{
	Relation	rel;
	const WideSchema *schema;
	int64		now;
	MemoryContext cxt;

	/* deletes in effect (rules.c) */
	WideDeletes dels;

	/* current row */
	bool		have_row;
	Bytes		row;

	/* current family of the row */
	bool		have_family;
	Bytes		family;
	const WideFamily *def;		/* NULL: unknown family */

	/* current column of the family */
	bool		have_column;
	Bytes		qual;
	int			nversions;
	bool		have_ts;		/* a version of this column was seen */
	int64		cur_ts;

	/* an aggregate being folded (two copies: one may be out) */
	bool		pending;
	bool		pending_collected;
	/*
	 * the pending aggregate is one MERGE record so far, its value kept as
	 * bytes after the coordinates (acc_buf), lone_len of them: folded only
	 * if another record of its version comes (see start_pending)
	 */
	bool		lone;
	uint32		lone_len;
	WideAggregate col_agg;		/* the current column's aggregate ... */
	bool		have_col_agg;	/* ... if looked up */
	WideAcc		acc;
	WideCell	acc_cell[2];
	Bytes		acc_buf[2];
	int			acc_cur;

	/* cells completed by the last push */
	const WideCell *out[2];
	int			nout;
	int			outpos;
};

static inline void
set_bytes(MemoryContext cxt, Bytes *b, const char *data, uint32 len)
{
	if (b->cap < len)
	{
		uint32		cap = Max(len, Max(64, b->cap * 2));

		b->data = b->data ? repalloc(b->data, cap) : MemoryContextAlloc(cxt, cap);
		b->cap = cap;
	}
	if (len > 0)				/* data and b->data may be NULL then */
		memcpy(b->data, data, len);
	b->len = len;
}

static inline bool
same_bytes(const Bytes *b, const char *data, uint32 len)
{
	return b->len == len && (len == 0 || memcmp(b->data, data, len) == 0);
}

/*
 * WideMergerCreate -- a merger for a table and its schema (the relation is
 * needed to read aggregate inputs kept in blobs); "now" (microseconds
 * since 1970) is the reference time of max-age policies.
 */
WideMerger *
WideMergerCreate(Relation rel, const WideSchema *schema, int64 now)
{
	WideMerger *m = palloc0(sizeof(WideMerger));

	m->rel = rel;
	m->schema = schema;
	m->now = now;
	m->cxt = CurrentMemoryContext;
	WideDeletesInit(&m->dels);
	WideAccInit(&m->acc, m->cxt);
	return m;
}

/*
 * WideMergerSetRanges -- the range tombstones the reader's snapshot sees
 * (rangedel.c); they delete as row or family tombstones of the rows they
 * hold.  Before the first push; ranges must outlive the merger.
 */
void
WideMergerSetRanges(WideMerger *m, const WideRangeDels *ranges)
{
	m->dels.ranges = (ranges != NULL && ranges->n > 0) ? ranges : NULL;
}

/*
 * WideMergerSetDrops -- the drops (wide.drop_before) the reader's snapshot
 * sees (copied).
 */
void
WideMergerSetDrops(WideMerger *m, const WideDropRule *drops, int ndrops)
{
	WideDropRule *copy = NULL;

	if (ndrops > 0)
	{
		copy = MemoryContextAlloc(m->cxt, sizeof(WideDropRule) * ndrops);
		memcpy(copy, drops, sizeof(WideDropRule) * ndrops);
	}
	WideDeletesSetDrops(&m->dels, copy, ndrops);
}

static void
emit(WideMerger *m, const WideCell *cell)
{
	Assert(m->nout < 2);
	m->out[m->nout++] = cell;
}

/* fold an aggregate input or accumulator into the pending one */
static void
fold(WideMerger *m, const WideCell *c)
{
	if (c->value == NULL && (c->flags & WIDE_REC_VALUE_BLOB))
	{
		char	   *v = WideBlobRead(m->rel, c->blob);

		WideAccFold(&m->acc, c->kind, v, c->vallen);
		pfree(v);
	}
	else
		WideAccFold(&m->acc, c->kind, c->value, c->vallen);
}

/* make room for len bytes in a pending buffer */
static void
reserve(MemoryContext cxt, Bytes *b, uint32 len)
{
	if (b->cap < len)
	{
		uint32		cap = Max(len, 128);

		b->data = b->data ? repalloc(b->data, cap) : MemoryContextAlloc(cxt, cap);
		b->cap = cap;
	}
}

/* the pending aggregate is complete: emit it unless collected */
static void
flush_pending(WideMerger *m)
{
	WideCell   *a;
	Bytes	   *b;
	uint32		head;

	if (!m->pending)
		return;
	m->pending = false;
	if (m->pending_collected)
	{
		m->lone = false;
		return;
	}
	a = &m->acc_cell[m->acc_cur];
	b = &m->acc_buf[m->acc_cur];
	head = a->keylen + a->famlen + a->quallen;
	if (m->lone)
	{
		/*
		 * one accumulator: its bytes are the cell's, after a one-byte
		 * varlena header if short (start_pending)
		 */
		m->lone = false;
		a->vallen = m->lone_len;
		if (m->lone_len <= WIDE_LONE_SHORT)
		{
			a->value_datum = b->data + head;
			head++;
		}
	}
	else
	{
		a->vallen = WideAccSize(&m->acc);
		reserve(m->cxt, b, head + a->vallen);
		WideAccWrite(&m->acc, b->data + head);
	}
	a->key = b->data;
	a->family = b->data + a->keylen;
	a->qual = b->data + a->keylen + a->famlen;
	a->value = b->data + head;
	a->kind = WIDE_KIND_MERGE;
	emit(m, a);
	m->acc_cur = 1 - m->acc_cur;	/* the emitted copy stays valid */
}

/*
 * WideAggLoneIsValue -- is an accumulator of this aggregate, folded from
 * one MERGE record alone, that record's value (also for the reader's
 * unmerged path, reader.c)?  So for sum, min, max (an int64), fmin, fmax (a
 * double) and ddsketch (its bytes, ddsketch.c); not for fsum (a piece of a
 * sum is not its rounded sum) or hll (the sketch is written anew).
 */
bool
WideAggLoneIsValue(WideAggregate agg, const WideCell *c)
{
	if (c->kind != WIDE_KIND_MERGE || c->value == NULL)
		return false;			/* (an input; a value kept in a blob) */
	switch (agg)
	{
		case WIDE_AGG_SUM:
		case WIDE_AGG_MIN:
		case WIDE_AGG_MAX:
		case WIDE_AGG_FMIN:
		case WIDE_AGG_FMAX:
			return c->vallen == sizeof(int64);	/* (else WideAccFold fails) */
		case WIDE_AGG_DDS:
			return true;
		default:
			return false;
	}
}

/* fold the lone MERGE record kept as bytes into the accumulator */
static void
unlone(WideMerger *m)
{
	Bytes	   *b = &m->acc_buf[m->acc_cur];
	WideCell   *a = &m->acc_cell[m->acc_cur];

	m->lone = false;
	WideAccStart(&m->acc, m->col_agg);
	WideAccFold(&m->acc, WIDE_KIND_MERGE,
				b->data + a->keylen + a->famlen + a->quallen +
				(m->lone_len <= WIDE_LONE_SHORT ? 1 : 0), m->lone_len);
}

/*
 * copy an aggregate's coordinates and start folding its inputs; a MERGE
 * record (an accumulator: the one a compaction wrote of each version) is
 * kept as its bytes instead, which are the cell if no other record of its
 * version follows -- a compacted rollup's cells are read without decoding
 * a sketch (WideAccFold checks a ddsketch's bytes: wide.quantile and the
 * other functions that read one check them, as they check any bytea)
 */
static void
start_pending(WideMerger *m, const WideCell *c)
{
	Bytes	   *b = &m->acc_buf[m->acc_cur];
	WideCell   *a = &m->acc_cell[m->acc_cur];
	uint32		len = c->keylen + c->famlen + c->quallen;

	if (!m->have_col_agg)
	{
		m->col_agg = WideCellAggregate(m->def, c->qual, c->quallen);
		m->have_col_agg = true;
	}
	m->lone = WideAggLoneIsValue(m->col_agg, c);
	reserve(m->cxt, b, len + (m->lone ? c->vallen : sizeof(int64)));
	memcpy(b->data, c->key, c->keylen);
	memcpy(b->data + c->keylen, c->family, c->famlen);
	memcpy(b->data + c->keylen + c->famlen, c->qual, c->quallen);
	*a = *c;
	a->key_datum = a->qual_datum = a->value_datum = NULL;
	a->same = 0;
	a->flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
	if (m->lone)
	{
		/* a short one as a varlena datum too: a tuple takes it uncopied */
		uint32		off = 0;

		if (c->vallen <= WIDE_LONE_SHORT)
		{
			reserve(m->cxt, b, len + 1 + c->vallen);
			SET_VARSIZE_SHORT(b->data + len, VARHDRSZ_SHORT + c->vallen);
			off = 1;
		}
		memcpy(b->data + len + off, c->value, c->vallen);
		m->lone_len = c->vallen;
	}
	else
	{
		WideAccStart(&m->acc, m->col_agg);
		fold(m, c);
	}
	m->pending = true;
}

/*
 * WideMergerPush -- feed the next record; then take the cells it completed
 * with WideMergerPop.  "hints": the record's "same" flags are relative to
 * the record pushed before.
 */
void
WideMergerPush(WideMerger *m, const WideCell *cell, bool hints)
{
	int			level = WideCellLevel(cell);
	uint8		same = hints ? cell->same : 0;

	m->nout = 0;
	m->outpos = 0;

	/*
	 * A new row?  (The stream's hints spare the comparison; the bytes are
	 * still kept for records that come without hints.)
	 */
	if (!(same & WIDE_SAME_ROW) &&
		(!m->have_row || !same_bytes(&m->row, cell->key, cell->keylen)))
	{
		flush_pending(m);
		set_bytes(m->cxt, &m->row, cell->key, cell->keylen);
		m->have_row = true;
		WideDeletesEnter(&m->dels, WIDE_LEVEL_ROW);
		if (m->dels.ranges)
			(void) WideDeletesEnterRange(&m->dels, WIDE_LEVEL_ROW,
										 cell->key, cell->keylen, NULL, 0);
		m->have_family = false;
		m->have_column = false;
	}
	if (level == WIDE_LEVEL_ROW)
	{
		WideDeletesAdd(&m->dels, cell);
		return;
	}

	/* a new family? */
	if (!(same & WIDE_SAME_FAMILY) &&
		(!m->have_family || !same_bytes(&m->family, cell->family, cell->famlen)))
	{
		flush_pending(m);
		set_bytes(m->cxt, &m->family, cell->family, cell->famlen);
		m->have_family = true;
		m->def = WideSchemaFindFamily(m->schema, cell->family, cell->famlen);
		WideDeletesEnter(&m->dels, WIDE_LEVEL_FAMILY);
		if (m->dels.ranges)
			(void) WideDeletesEnterRange(&m->dels, WIDE_LEVEL_FAMILY,
										 cell->key, cell->keylen,
										 cell->family, cell->famlen);
		m->have_column = false;
	}
	if (level == WIDE_LEVEL_FAMILY)
	{
		WideDeletesAdd(&m->dels, cell);
		return;
	}

	/* a new column? */
	if (!(same & WIDE_SAME_QUAL) &&
		(!m->have_column || !same_bytes(&m->qual, cell->qual, cell->quallen)))
	{
		flush_pending(m);
		set_bytes(m->cxt, &m->qual, cell->qual, cell->quallen);
		m->have_column = true;
		m->have_col_agg = false;
		m->nversions = 0;
		WideDeletesEnter(&m->dels, WIDE_LEVEL_COLUMN);
		m->have_ts = false;
	}
	if (level == WIDE_LEVEL_COLUMN)
	{
		WideDeletesAdd(&m->dels, cell);
		return;
	}

	/* a cell: of a live incarnation of its family, and not deleted? */
	if (m->def == NULL || cell->famid != m->def->id ||
		WideDeletesCover(&m->dels, cell))
		return;

	if (m->have_ts && m->cur_ts == cell->ts)
	{
		/* an older write of the same version */
		if (m->pending)
		{
			if (m->lone)
				unlone(m);
			fold(m, cell);
		}
		return;
	}

	/* a new version */
	flush_pending(m);
	m->have_ts = true;
	m->cur_ts = cell->ts;
	if (m->def->aggregate != WIDE_AGG_NONE)
	{
		start_pending(m, cell);
		m->pending_collected = WideGCCollects(m->def, m->nversions++,
											  cell->ts, m->now, true);
	}
	else if (!WideGCCollects(m->def, m->nversions++, cell->ts, m->now, true))
		emit(m, cell);
}

/*
 * WideMergerFinish -- after the last record: completes the last cell.
 */
void
WideMergerFinish(WideMerger *m)
{
	m->nout = 0;
	m->outpos = 0;
	flush_pending(m);
}

/*
 * WideMergerPop -- the next completed cell, or NULL; valid until the next
 * push (and while the record it came from is).
 */
const WideCell *
WideMergerPop(WideMerger *m)
{
	if (m->outpos >= m->nout)
		return NULL;
	return m->out[m->outpos++];
}
