/*-------------------------------------------------------------------------
 *
 * block.c
 *	  Data blocks: the encoding of a run of sorted records.
 *
 * A data block holds consecutive records of a segment in cell order,
 * encoded in four sections so that similar bytes sit together before
 * compression:
 *
 *	  block    := ncells:varint arena:varint keylen:varint tslen:varint
 *	              auxlen:varint keys ts aux values
 *	  keys     := (flags:u8 [row] [family] [qualifier])*    one per record
 *	      flags: bits 0-2 kind, 0x08 NEW_ROW, 0x10 NEW_FAMILY, 0x20 NEW_QUAL,
 *	             0x40 HAS_SEQ, 0x80 HAS_XMIN
 *	      row       := shared:varint unshared:varint bytes   (vs previous row)
 *	      family    := len:u8 bytes famid:varint
 *	      qualifier := shared:varint unshared:varint bytes   (vs previous)
 *	  ts       := (zigzag(prev_ts - ts) [zigzag(ts_to - ts)])*  ts_to: DEL_CELLS
 *	  aux      := ([zigzag(seq - prev_seq)] [xmin:varint cmin:varint])*
 *	  values   := value*                  PUT, ADD, MERGE only
 *	      fixed-length value type:  typlen bytes (ADD, MERGE: 8 bytes)
 *	      otherwise, by the first byte b:
 *	        b odd:   a value of (b >> 1) - 1 bytes (at most 126) follows; b
 *	                 is also a PostgreSQL one-byte varlena header, so on
 *	                 little-endian machines the value is returned in place
 *	        b == 0:  len:varint, then len bytes
 *	        b == 2:  a blob: len:varint first:varint
 *
 * "arena" is the number of bytes needed to rebuild the row keys and
 * qualifiers.  A record without HAS_SEQ takes the segment's largest
 * sequence number (see segment_writer.c for why that is exact); a record
 * without HAS_XMIN is frozen, visible to every snapshot, and so is every
 * record of a block whose index entry has WIDE_INDEX_XMINS_FROZEN (a block
 * a compaction passed through unchanged, blockpass.c): its stored xmins are
 * skipped, never looked up.  Where every record of a block would store the
 * same xmin and cmin (a load's blocks, one command's), none does: they go in
 * the block's index entry (WIDE_INDEX_ONE_XMIN, format version 6), and a
 * record without HAS_XMIN of that block has them.  The caller gives the
 * iterator the block's index entry (WideBlockIterSetEntry).
 *
 * IDENTIFICATION
 *	  src/engine/block.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/segment.h"
#include "engine/coding.h"
#include "engine/keysection.h"

#define F_KIND		0x07
#define F_NEW_ROW	0x08
#define F_NEW_FAM	0x10
#define F_NEW_QUAL	0x20
#define F_HAS_SEQ	0x40
#define F_HAS_XMIN	0x80

bool		wide_block_one_xmin = true;	/* GUC (tests: off writes format 5's) */

struct WideBlockBuilder
{
	int16		fixed_len;		/* value typlen if fixed, else 0 */
	int			ncells;
	uint64		arena;
	StringInfoData keys;
	StringInfoData ts;
	StringInfoData aux;
	StringInfoData vals;
	/* the previous record */
	StringInfoData row;
	StringInfoData fam;
	StringInfoData qual;
	bool		have_qual;		/* qual holds a qualifier of this family */
	uint32		famid;
	int64		prev_ts;
	uint64		prev_seq;
	/* the records' xmins: all one (xmin, cmin), stored in xmin_bytes of aux? */
	bool		may_strip;		/* wide.block_one_xmin when it was made */
	bool		one_xmin;
	TransactionId xmin;
	CommandId	cmin;
	uint32		xmin_bytes;
	int		   *flagoff;		/* where each record's flags are in keys */
	int			flagcap;
	/* the row directory's points (rowdir.c), their keys in pkeys */
	bool		may_dir;		/* points noted (WideBlockBuilderSetDirSpacing) */
	Size		dir_spacing;	/* bytes between points */
	WideDirPoint *points;
	int			npoints;
	int			pointcap;
	StringInfoData pkeys;
	Size		last_point;		/* WideBlockBuilderSize at the last point */
	uint32		tsn;			/* timestamp varints so far */
	uint32		valn;			/* values so far */
	int64		first_ts;		/* the first record's timestamp */
	uint32		first_keylen;	/* ... and row key (first in pkeys) */
};

/*
 * WideBlockBuilderCreate -- a builder for a table whose value type has the
 * given typlen.
 */
WideBlockBuilder *
WideBlockBuilderCreate(int16 typlen)
{
	WideBlockBuilder *b = palloc0(sizeof(WideBlockBuilder));

	b->fixed_len = typlen > 0 ? typlen : 0;
	initStringInfo(&b->keys);
	initStringInfo(&b->ts);
	initStringInfo(&b->aux);
	initStringInfo(&b->vals);
	initStringInfo(&b->row);
	initStringInfo(&b->fam);
	initStringInfo(&b->qual);
	b->may_strip = wide_block_one_xmin;
	b->flagcap = 256;
	b->flagoff = palloc(sizeof(int) * b->flagcap);
	b->may_dir = false;
	b->dir_spacing = 0;
	b->pointcap = 8;
	b->points = palloc(sizeof(WideDirPoint) * b->pointcap);
	initStringInfo(&b->pkeys);
	WideBlockBuilderReset(b);
	return b;
}

/*
 * WideBlockBuilderReset -- start a new block.
 */
void
WideBlockBuilderReset(WideBlockBuilder *b)
{
	b->ncells = 0;
	b->arena = 0;
	resetStringInfo(&b->keys);
	resetStringInfo(&b->ts);
	resetStringInfo(&b->aux);
	resetStringInfo(&b->vals);
	resetStringInfo(&b->row);
	resetStringInfo(&b->fam);
	resetStringInfo(&b->qual);
	b->have_qual = false;
	b->famid = 0;
	b->prev_ts = 0;
	b->prev_seq = 0;
	b->one_xmin = false;
	b->xmin = InvalidTransactionId;
	b->cmin = 0;
	b->xmin_bytes = 0;
	b->npoints = 0;
	resetStringInfo(&b->pkeys);
	b->last_point = 0;
	b->tsn = 0;
	b->valn = 0;
}

int
WideBlockBuilderCount(const WideBlockBuilder *b)
{
	return b->ncells;
}

/*
 * WideBlockBuilderSize -- the encoded size so far, for cutting blocks (of
 * a block whose records share one xmin: without them, as it is written).
 */
Size
WideBlockBuilderSize(const WideBlockBuilder *b)
{
	return b->keys.len + b->ts.len + b->aux.len + b->vals.len + 16 -
		(b->one_xmin ? b->xmin_bytes : 0);
}

/*
 * WideBlockBuilderFullFloats -- whether the values added so far are 8-byte
 * values that no exponent packs (full-precision float8: blockpack.c).
 */
bool
WideBlockBuilderFullFloats(const WideBlockBuilder *b)
{
	return b->fixed_len == 8 && WideValuesFullPrecision(b->vals.data, b->vals.len);
}

/*
 * put_prefixed -- a row key or qualifier as the key section stores it
 * against the previous one (*prev): the length they share, the length of
 * the rest and its bytes; *prev becomes key.
 */
static inline void
put_prefixed(StringInfo keys, StringInfo prev, const char *key, uint32 len)
{
	uint32		shared = common_prefix(prev->data, prev->len, key, len);

	put_varint(keys, shared);
	put_varint(keys, len - shared);
	put_bytes(keys, key + shared, len - shared);
	resetStringInfo(prev);
	put_bytes(prev, key, len);
}

/* note a point of the row directory at record c, a row's first */
static void
add_point(WideBlockBuilder *b, const WideCell *c)
{
	WideDirPoint *p;

	if (b->npoints == b->pointcap)
	{
		b->pointcap *= 2;
		b->points = repalloc(b->points, sizeof(WideDirPoint) * b->pointcap);
	}
	p = &b->points[b->npoints++];
	p->i = b->ncells;
	p->koff = b->keys.len;
	p->aoff = b->aux.len;		/* (WideBlockFinish may shorten aux) */
	p->tsn = b->tsn;
	p->voff = b->vals.len;
	p->valn = b->valn;
	p->ts = b->prev_ts;
	p->seq = b->prev_seq;
	p->keyoff = b->pkeys.len;
	p->keylen = c->keylen;
	put_bytes(&b->pkeys, c->key, c->keylen);
	b->last_point = WideBlockBuilderSize(b);
}

/*
 * WideBlockAdd -- append a record (in cell order).  store_seq: keep its
 * sequence number; frozen: visible to all, drop xmin/cmin.
 */
void
WideBlockAdd(WideBlockBuilder *b, const WideCell *c, bool store_seq,
			 bool frozen)
{
	int			level = WideCellLevel(c);
	uint8		flags = c->kind & F_KIND;
	bool		new_row = b->ncells == 0 ||
		!WideBytesEqual(b->row.data, b->row.len, c->key, c->keylen);
	bool		new_fam = level >= WIDE_LEVEL_FAMILY &&
		(new_row || b->fam.len != c->famlen || b->famid != c->famid ||
		 memcmp(b->fam.data, c->family, c->famlen) != 0);
	/*
	 * (!have_qual: the empty qualifier after a family's start, e.g. after a
	 * DEL_FAMILY, is a new one too: readers know no qualifier there)
	 */
	bool		new_qual = level >= WIDE_LEVEL_COLUMN &&
		(new_row || new_fam || !b->have_qual ||
		 WideKeyCompare(b->qual.data, b->qual.len, c->qual, c->quallen) != 0);

	if (new_row)
		flags |= F_NEW_ROW;
	if (new_fam)
		flags |= F_NEW_FAM;
	if (new_qual)
		flags |= F_NEW_QUAL;
	if (store_seq)
		flags |= F_HAS_SEQ;
	if (!frozen)
		flags |= F_HAS_XMIN;
	if (b->ncells == b->flagcap)
	{
		b->flagcap *= 2;
		b->flagoff = repalloc(b->flagoff, sizeof(int) * b->flagcap);
	}
	if (b->ncells == 0)
	{
		/* the bases of the directory's first key and timestamps */
		b->first_ts = c->ts;
		b->first_keylen = c->keylen;
		put_bytes(&b->pkeys, c->key, c->keylen);
	}
	else if (new_row && b->may_dir &&
			 WideBlockBuilderSize(b) - b->last_point >= b->dir_spacing)
		add_point(b, c);
	b->flagoff[b->ncells] = b->keys.len;
	put_byte(&b->keys, flags);

	if (new_row)
	{
		put_prefixed(&b->keys, &b->row, c->key, c->keylen);
		b->arena += c->keylen;
		/* a new row starts its families and qualifiers afresh */
		resetStringInfo(&b->fam);
		resetStringInfo(&b->qual);
		b->have_qual = false;
	}
	if (new_fam)
	{
		put_byte(&b->keys, (uint8) c->famlen);
		put_bytes(&b->keys, c->family, c->famlen);
		put_varint(&b->keys, c->famid);
		resetStringInfo(&b->fam);
		put_bytes(&b->fam, c->family, c->famlen);
		b->famid = c->famid;
		resetStringInfo(&b->qual);
		b->have_qual = false;
	}
	if (new_qual)
	{
		put_prefixed(&b->keys, &b->qual, c->qual, c->quallen);
		b->have_qual = true;
		b->arena += c->quallen;
	}

	put_zigzag(&b->ts, b->prev_ts - c->ts);
	b->tsn++;
	if (c->kind == WIDE_KIND_DEL_CELLS)
	{
		put_zigzag(&b->ts, c->ts_to - c->ts);
		b->tsn++;
	}
	b->prev_ts = c->ts;

	if (store_seq)
	{
		put_zigzag(&b->aux, (int64) (c->seq - b->prev_seq));
		b->prev_seq = c->seq;
	}
	if (!frozen)
	{
		int			before = b->aux.len;

		put_varint(&b->aux, c->xmin);
		put_varint(&b->aux, c->cmin);
		b->xmin_bytes += b->aux.len - before;
		if (b->ncells == 0)
		{
			b->one_xmin = b->may_strip;
			b->xmin = c->xmin;
			b->cmin = c->cmin;
		}
		else if (c->xmin != b->xmin || c->cmin != b->cmin)
			b->one_xmin = false;
	}
	else
		b->one_xmin = false;

	if (!WIDE_KIND_IS_TOMBSTONE(c->kind))
	{
		bool		blob = (c->flags & WIDE_REC_VALUE_BLOB) != 0;

		b->valn++;
		if (b->fixed_len > 0)
		{
			/* fixed-length values (and int64 accumulators) are never blobs */
			Assert(!blob);
			Assert(c->vallen == (c->kind == WIDE_KIND_PUT ?
								 (uint32) b->fixed_len : sizeof(int64)));
			put_bytes(&b->vals, c->value, c->vallen);
		}
		else if (blob)
		{
			put_byte(&b->vals, 2);
			put_varint(&b->vals, c->vallen);
			put_varint(&b->vals, c->blob.first);
		}
		else if (c->vallen <= WIDE_SHORT_VALUE)
		{
			put_byte(&b->vals, (uint8) (((c->vallen + 1) << 1) | 1));
			put_bytes(&b->vals, c->value, c->vallen);
		}
		else
		{
			put_byte(&b->vals, 0);
			put_varint(&b->vals, c->vallen);
			put_bytes(&b->vals, c->value, c->vallen);
		}
	}
	b->ncells++;
}

/* the bytes of the varint at p (p lies in a section the builder wrote) */
static inline int
varint_len(const char *p)
{
	int			n = 1;

	while ((uint8) *p++ & 0x80)
		n++;
	return n;
}

/*
 * WideBlockFinish -- the encoded block, appended to out.  With xmin and
 * cmin given: if every record stores one xmin and cmin, the same, the
 * block is written without them (no record has HAS_XMIN) and *xmin, *cmin
 * are theirs, for the block's index entry (WIDE_INDEX_ONE_XMIN); else
 * *xmin is InvalidTransactionId.
 */
void
WideBlockFinish(WideBlockBuilder *b, StringInfo out, TransactionId *xmin,
				CommandId *cmin)
{
	if (xmin != NULL)
		*xmin = InvalidTransactionId;
	if (xmin != NULL && b->one_xmin && b->ncells > 0)
	{
		/* the flags lose HAS_XMIN, aux keeps the sequence numbers only */
		const char *a = b->aux.data;
		int			alen = 0;
		int			pj = 0;

		for (int i = 0; i < b->ncells; i++)
		{
			uint8		flags = (uint8) b->keys.data[b->flagoff[i]];

			/* (the directory's points move with the aux bytes) */
			if (pj < b->npoints && b->points[pj].i == i)
				b->points[pj++].aoff = alen;

			Assert(flags & F_HAS_XMIN);
			if (flags & F_HAS_SEQ)
			{
				int			n = varint_len(a);

				memmove(b->aux.data + alen, a, n);
				alen += n;
				a += n;
			}
			a += varint_len(a);
			a += varint_len(a);
			b->keys.data[b->flagoff[i]] = (char) (flags & ~F_HAS_XMIN);
		}
		Assert(a == b->aux.data + b->aux.len);
		b->aux.len = alen;
		b->one_xmin = false;
		*xmin = b->xmin;
		*cmin = b->cmin;
	}
	put_varint(out, b->ncells);
	put_varint(out, b->arena);
	put_varint(out, b->keys.len);
	put_varint(out, b->ts.len);
	put_varint(out, b->aux.len);
	put_bytes(out, b->keys.data, b->keys.len);
	put_bytes(out, b->ts.data, b->ts.len);
	put_bytes(out, b->aux.data, b->aux.len);
	put_bytes(out, b->vals.data, b->vals.len);
}

/*
 * WideBlockBuilderSetDirSpacing -- note points of a row directory (rowdir.c)
 * at the first row starting past every "bytes" of the blocks' encoded
 * bytes from now on (none if 0, the default).
 */
void
WideBlockBuilderSetDirSpacing(WideBlockBuilder *b, Size bytes)
{
	b->may_dir = bytes > 0;
	b->dir_spacing = bytes;
}

/*
 * WideBlockBuilderPoints -- the points of the row directory of the block
 * WideBlockFinish wrote last (their keys at each point's keyoff in *keys),
 * and that block's first record's timestamp and row key (the directory's
 * bases, rowdir.c: WideRowDirEncode); returns how many (0: none).
 */
int
WideBlockBuilderPoints(const WideBlockBuilder *b, const WideDirPoint **points,
					   const char **keys, int64 *ts0, const char **first,
					   uint32 *firstlen)
{
	*points = b->points;
	*keys = b->pkeys.data;
	*ts0 = b->first_ts;
	*first = b->pkeys.data;
	*firstlen = b->first_keylen;
	return b->ncells > 0 ? b->npoints : 0;
}

/* ----------------------------------------------------------------
 *	Decoding: an iterator, one record at a time
 *
 * Row keys and qualifiers are rebuilt in buffers of the iterator, each
 * preceded by room for a varlena header, which is filled in when the key is
 * short: such keys (and short values, see above) can be handed to the
 * executor as datums without a copy.
 * ----------------------------------------------------------------
 */

/* bytes a key buffer keeps past its key (key_suffix_copy) */
#define KEYBUF_SLACK	16

/* keybuf_reserve when the buffer must grow */
static pg_noinline char *
keybuf_grow(MemoryContext cxt, char **buf, uint32 *cap, uint32 len)
{
	uint32		newcap = Max(len + VARHDRSZ + KEYBUF_SLACK, 64);

	newcap = Max(newcap, *cap * 2);
	*buf = *buf ? repalloc(*buf, newcap) : MemoryContextAlloc(cxt, newcap);
	*cap = newcap;
	return *buf + VARHDRSZ;
}

/*
 * a key buffer: [4 bytes header room][key][KEYBUF_SLACK bytes] (once a
 * cell: kept inline); the slack lets key_suffix_copy write 16 bytes at once
 */
static inline char *
keybuf_reserve(MemoryContext cxt, char **buf, uint32 *cap, uint32 len)
{
	if (likely(*buf != NULL && *cap >= len + VARHDRSZ + KEYBUF_SLACK))
		return *buf + VARHDRSZ;
	return keybuf_grow(cxt, buf, cap, len);
}

/*
 * copy the few bytes a key or qualifier adds to the one before it, into a
 * key buffer (keybuf_reserve: 16 bytes of slack past the end); src lies in
 * a block whose bytes end at srcend: where 16 bytes are left, a short
 * suffix is copied as one 16-byte move (the bytes past it land in the
 * slack, and are never read)
 */
static inline void
key_suffix_copy(char *dst, const char *src, uint64 len, const char *srcend)
{
	if (len <= 16)
	{
		if (likely(srcend - src >= 16))
			memcpy(dst, src, 16);
		else
			while (len-- > 0)
				*dst++ = *src++;
	}
	else
		memcpy(dst, src, len);
}

/* the datum pointer of a rebuilt key, or NULL if it needs a long header */
static const char *
keybuf_datum(char *buf, uint32 len)
{
	if (len > WIDE_SHORT_VALUE)
	{
		SET_VARSIZE(buf, len + VARHDRSZ);
		return buf;
	}
	SET_VARSIZE_SHORT(buf + VARHDRSZ - 1, len + 1);
	return buf + VARHDRSZ - 1;
}

/*
 * WideBlockIterInit -- start iterating a block.  Records stored without a
 * sequence number get default_seq; seq_base is added to the stored ones
 * (runs bulk-loaded into the write area store them relative to a base).
 * Returns false if the block's header is malformed.  The iterator's buffers are kept across blocks (in it->cxt,
 * or the current context if it is not set: zero the iterator before the
 * first use); the block's bytes must outlive the records returned.
 */
bool
WideBlockIterInit(WideBlockIter *it, const char *data, Size len, int16 typlen,
				  uint64 default_seq, uint64 seq_base)
{
	const char *end = data + len;
	const char *p = data;
	uint64		ncells,
				arena,
				keylen,
				tslen,
				auxlen;

	if (it->cxt == NULL)
		it->cxt = CurrentMemoryContext;
	it->error = false;
	it->fixed = typlen > 0 ? typlen : 0;
	it->default_seq = default_seq;
	it->seq_base = seq_base;
	it->i = 0;
	it->rowlen = 0;
	it->quallen = 0;
	it->have_row = false;
	it->have_qual = false;
	it->fam = NULL;
	it->famlen = 0;
	it->famid = 0;
	it->ts = 0;
	it->seq = 0;
	it->ts_unit = 1;
	it->val_div = 0.0;
	/*
	 * blocks are written after their records' transactions started (read
	 * at the first record with an xmin: a frozen block needs no XidGenLock)
	 */
	it->next_xid = InvalidTransactionId;
	/* (the caller sets these from the index entry: WideBlockIterSetEntry) */
	it->xmins_frozen = false;
	it->block_xmin = FrozenTransactionId;
	it->block_cmin = 0;
	it->skip_values = false;
	it->nseq = 0;
	it->col_judged = false;
	if (!(p = get_varint(p, end, &ncells)) || !(p = get_varint(p, end, &arena)) ||
		!(p = get_varint(p, end, &keylen)) || !(p = get_varint(p, end, &tslen)) ||
		!(p = get_varint(p, end, &auxlen)) ||
		keylen > (uint64) (end - p) || tslen > (uint64) (end - p) - keylen ||
		auxlen > (uint64) (end - p) - keylen - tslen || ncells > len)
	{
		it->error = true;
		it->ncells = 0;
		return false;
	}
	it->ncells = (int) ncells;
	it->kstart = it->k = p;
	it->kend = p + keylen;
	it->t = it->kend;
	it->tend = it->t + tslen;
	it->a = it->tend;
	it->aend = it->a + auxlen;
	it->v = it->aend;
	it->end = end;
	return true;
}

/*
 * WideBlockIterInitBlock -- WideBlockIterInit on a block as loaded
 * (compress.c: WideBlockLoadData): a packed block is read as it is, each
 * timestamp varint times the unit, and each value (8 bytes, checked by the
 * loader) k / 10^e, decoded into the iterator's value buffer, one slot per
 * record so that a value stays put while the iterator is in the block.
 */
bool
WideBlockIterInitBlock(WideBlockIter *it, const WideRawBlock *blk,
					   int16 typlen, uint64 default_seq, uint64 seq_base)
{
	if (!WideBlockIterInit(it, blk->data, blk->len, typlen, default_seq, seq_base))
		return false;
	it->ts_unit = blk->ts_unit;
	it->val_div = blk->val_div;
	if (it->val_div != 0.0)
	{
		Size		need = (Size) Max(it->ncells, 1) * 8;

		if (it->fixed != 8)
		{
			it->error = true;
			return false;
		}
		if (it->valcap < need)
		{
			if (it->valbuf)
				pfree(it->valbuf);
			it->valbuf = MemoryContextAlloc(it->cxt, need);
			it->valcap = need;
		}
	}
	return true;
}

/* a timestamp varint's delta, in microseconds (wrapping: never undefined) */
static inline uint64
ts_delta(const WideBlockIter *it, int64 d)
{
	return (uint64) d * it->ts_unit;
}

#define BAD()	do { it->error = true; return false; } while (0)

/*
 * empty_qualifier -- a column record with no qualifier since its family
 * started has the empty one.  Builds before ef1f32a wrote the empty
 * qualifier that way after a family's DEL_FAMILY record (WideBlockAdd
 * compared it with the empty qualifier a new family starts with); it is the
 * only way such a record was written, so reading it so is exact, and keeps
 * those blocks readable.
 */
static pg_noinline void
empty_qualifier(WideBlockIter *it)
{
	(void) keybuf_reserve(it->cxt, &it->qualbuf, &it->qualcap, 0);
	it->qual_datum = keybuf_datum(it->qualbuf, 0);
	it->quallen = 0;
	it->have_qual = true;
}

/*
 * read_family, read_qualifier -- the family or qualifier a record starts,
 * at *kp (advanced past it), into the iterator's state; a qualifier is
 * rebuilt in qualbuf only if copy (it shares a prefix with the one before).
 * False on a malformed block (it->error).
 */
static inline bool
read_family(WideBlockIter *it, const char **kp)
{
	const char *k = *kp;
	const char *kend = it->kend;
	uint8		famlen;

	if (!wide_key_family(&k, kend, &it->fam, &famlen, &it->famid))
		BAD();
	it->famlen = famlen;
	it->have_qual = false;
	it->quallen = 0;
	*kp = k;
	return true;
}

static inline bool
read_qualifier(WideBlockIter *it, const char **kp, bool copy)
{
	const char *k = *kp;
	const char *kend = it->kend;
	uint64		shared,
				unshared;

	if (!wide_key_qual(&k, kend, it->quallen, &shared, &unshared))
		BAD();
	if (copy)
	{
		char	   *dst = keybuf_reserve(it->cxt, &it->qualbuf, &it->qualcap,
										 shared + unshared);

		key_suffix_copy(dst + shared, k, unshared, it->end);
		it->qual_datum = keybuf_datum(it->qualbuf, shared + unshared);
	}
	*kp = k + unshared;
	it->quallen = shared + unshared;
	it->have_qual = true;
	return true;
}

/*
 * read_keys -- decode the record's row key, family and qualifier from the
 * key stream (each only where flags say it changed) into c.
 */
static bool
read_keys(WideBlockIter *it, uint8 flags, WideCell *c)
{
	const char *k = it->k;
	const char *kend = it->kend;
	uint64		shared,
				unshared;
	char	   *dst;

	if (flags & F_NEW_ROW)
	{
		if (!wide_key_row(&k, kend, it->rowlen, &shared, &unshared))
			BAD();
		dst = keybuf_reserve(it->cxt, &it->rowbuf, &it->rowcap, shared + unshared);
		key_suffix_copy(dst + shared, k, unshared, it->end);
		k += unshared;
		it->rowlen = shared + unshared;
		it->row_datum = keybuf_datum(it->rowbuf, it->rowlen);
		it->have_row = true;
		it->fam = NULL;
		it->famlen = 0;
		it->have_qual = false;
		it->quallen = 0;
	}
	else if (!it->have_row)
		BAD();
	if ((flags & F_NEW_FAM) && !read_family(it, &k))
		return false;
	if ((flags & F_NEW_QUAL) && !read_qualifier(it, &k, !it->skip_quals))
		return false;
	it->k = k;

	c->key = it->rowbuf + VARHDRSZ;
	c->keylen = it->rowlen;
	c->key_datum = it->row_datum;
	if (it->i > 0)
		c->same = (flags & F_NEW_ROW) ? 0 :
			(flags & F_NEW_FAM) ? WIDE_SAME_ROW :
			(flags & F_NEW_QUAL) ? (WIDE_SAME_ROW | WIDE_SAME_FAMILY) :
			(WIDE_SAME_ROW | WIDE_SAME_FAMILY | WIDE_SAME_QUAL);
	c->family = "";
	c->qual = "";
	if (c->kind != WIDE_KIND_DEL_ROW)
	{
		if (it->fam == NULL)
			BAD();
		c->family = it->fam;
		c->famlen = it->famlen;
		c->famid = it->famid;
	}
	if (c->kind >= WIDE_KIND_DEL_CELLS)
	{
		if (unlikely(!it->have_qual))
			empty_qualifier(it);
		if (likely(!it->skip_quals))
		{
			c->qual = it->qualbuf + VARHDRSZ;
			c->quallen = it->quallen;
			c->qual_datum = it->qual_datum;
		}
		else
			c->qual = "";		/* (quallen 0) */
	}
	return true;
}

/*
 * read_times -- decode the record's timestamp (and a DEL_CELLS range's end)
 * from the timestamp stream.
 */
static bool
read_times(WideBlockIter *it, WideCell *c)
{
	int64		delta;

	/* (wrapping arithmetic: a damaged delta must not be undefined) */
	if (!(it->t = get_zigzag(it->t, it->tend, &delta)))
		BAD();
	it->ts = (int64) ((uint64) it->ts - ts_delta(it, delta));
	c->ts = it->ts;
	c->ts_to = PG_INT64_MAX;
	if (c->kind == WIDE_KIND_DEL_CELLS)
	{
		if (!(it->t = get_zigzag(it->t, it->tend, &delta)))
			BAD();
		c->ts_to = (int64) ((uint64) it->ts + ts_delta(it, delta));
	}
	return true;
}

/* the next transaction id, as of the first record that needed it */
static pg_noinline TransactionId
next_xid_read(WideBlockIter *it)
{
	it->next_xid = XidFromFullTransactionId(ReadNextFullTransactionId());
	return it->next_xid;
}

static inline TransactionId
block_next_xid(WideBlockIter *it)
{
	return TransactionIdIsValid(it->next_xid) ? it->next_xid : next_xid_read(it);
}

/*
 * read_aux -- decode the record's sequence number and xmin/cmin from the
 * auxiliary stream, or take the defaults when flags say they are absent.
 */
static bool
read_aux(WideBlockIter *it, uint8 flags, WideCell *c)
{
	int64		delta;

	if (flags & F_HAS_SEQ)
	{
		if (!(it->a = get_zigzag(it->a, it->aend, &delta)))
			BAD();
		it->seq += (uint64) delta;
		c->seq = it->seq + it->seq_base;
		it->nseq++;
	}
	else
		c->seq = it->default_seq;
	if (flags & F_HAS_XMIN)
	{
		if (!(it->a = get_u32v(it->a, it->aend, &c->xmin)) ||
			!(it->a = get_u32v(it->a, it->aend, &c->cmin)))
			BAD();
		if (it->xmins_frozen)
		{
			/*
			 * frozen by the compaction that passed the block through: the
			 * stored xmin may be older than clog keeps, never looked up
			 */
			c->xmin = FrozenTransactionId;
			c->cmin = 0;
		}
		/* an xmin from the future would send visibility checks to clog */
		else if (TransactionIdIsNormal(c->xmin) &&
				 !TransactionIdPrecedes(c->xmin, block_next_xid(it)))
			BAD();
	}
	else
	{
		c->xmin = it->block_xmin;
		c->cmin = it->block_cmin;
	}
	return true;
}

/*
 * WideBlockIterSetEntry -- the iterator's block is the one index entry e
 * describes (after WideBlockIterInitBlock): its records read with the
 * entry's xmin and cmin where they store none (WIDE_INDEX_ONE_XMIN), as
 * frozen where its flags say so (WIDE_INDEX_XMINS_FROZEN).  An xmin from
 * the future makes the block malformed (it->error).
 */
void
WideBlockIterSetEntry(WideBlockIter *it, const WideIndexEntry *e)
{
	it->xmins_frozen = (e->flags & WIDE_INDEX_XMINS_FROZEN) != 0;
	it->block_xmin = FrozenTransactionId;
	it->block_cmin = 0;
	if ((e->flags & WIDE_INDEX_ONE_XMIN) && !it->xmins_frozen &&
		TransactionIdIsNormal(e->xmin))
	{
		/* an xmin from the future would send visibility checks to clog */
		if (!TransactionIdPrecedes(e->xmin, block_next_xid(it)))
			it->error = true;
		it->block_xmin = e->xmin;
		it->block_cmin = e->cmin;
	}
}

/*
 * read_value -- decode a cell's value from the value stream: fixed length,
 * short, long, or a reference to a blob.
 */
static bool
read_value(WideBlockIter *it, WideCell *c)
{
	const char *v = it->v;
	const char *end = it->end;

	if (it->val_div != 0.0)
	{
		/* a packed block: k / 10^e, as WideBlockUnpack computes it */
		int64		k;
		double		d;
		char	   *slot = it->valbuf + (Size) it->i * 8;

		if (!(v = get_zigzag(v, end, &k)))
			BAD();
		/* (integers, the common case: no division, the same double) */
		d = likely(it->val_div == 1.0) ? (double) k : (double) k / it->val_div;
		memcpy(slot, &d, 8);
		c->value = slot;
		c->vallen = 8;
	}
	else if (it->fixed > 0)
	{
		int			n = (c->kind == WIDE_KIND_PUT) ? it->fixed : sizeof(int64);

		if (end - v < n)
			BAD();
		c->value = v;
		c->vallen = n;
		v += n;
	}
	else
	{
		uint8		b;
		uint64		len;

		if (v >= end)
			BAD();
		b = (uint8) *v;
		if (b & 1)
		{
			len = (b >> 1) - 1;
			if (len > (uint64) (end - v - 1))
				BAD();
#ifndef WORDS_BIGENDIAN
			c->value_datum = v;
#endif
			c->value = v + 1;
			c->vallen = (uint32) len;
			v += 1 + len;
		}
		else if (b == 0)
		{
			if (!(v = get_varint(v + 1, end, &len)) || len > (uint64) (end - v))
				BAD();
			c->value = v;
			c->vallen = (uint32) len;
			v += len;
		}
		else if (b == 2)
		{
			if (!(v = get_varint(v + 1, end, &len)) || len > PG_UINT32_MAX ||
				!(v = get_u32v(v, end, &c->blob.first)))
				BAD();
			c->flags |= WIDE_REC_VALUE_BLOB;
			c->vallen = (uint32) len;
			c->blob.length = (uint32) len;
			c->value = NULL;
		}
		else
			BAD();
	}
	it->v = v;
	return true;
}

/* step over a value of the value stream (read_value without the cell) */
static bool
skip_value(WideBlockIter *it, uint8 kind)
{
	const char *v = it->v;
	const char *end = it->end;
	uint64		len;
	uint32		first;

	if (it->val_div != 0.0)
	{
		if (!(it->v = get_varint(v, end, &len)))
			BAD();
		return true;
	}
	if (it->fixed > 0)
	{
		int			n = (kind == WIDE_KIND_PUT) ? it->fixed : sizeof(int64);

		if (end - v < n)
			BAD();
		it->v = v + n;
		return true;
	}
	if (v >= end)
		BAD();
	if (*v & 1)
	{
		len = ((uint8) *v >> 1) - 1;
		if (len > (uint64) (end - v - 1))
			BAD();
		it->v = v + 1 + len;
	}
	else if (*v == 0)
	{
		if (!(v = get_varint(v + 1, end, &len)) || len > (uint64) (end - v))
			BAD();
		it->v = v + len;
	}
	else if (*v == 2)
	{
		if (!(v = get_varint(v + 1, end, &len)) || !(v = get_u32v(v, end, &first)))
			BAD();
		it->v = v;
	}
	else
		BAD();
	return true;
}

/*
 * step_tail -- step over what a record holds past its keys: its
 * timestamps, sequence number, xmin and cmin, and value, without checking
 * or copying them (it->ts and it->seq follow, for the records after it).
 * False on a malformed block (it->error).
 */
static inline bool
step_tail(WideBlockIter *it, uint8 flags)
{
	uint8		kind = flags & F_KIND;
	int64		delta;
	uint32		u;

	if (!(it->t = get_zigzag(it->t, it->tend, &delta)))
		BAD();
	it->ts = (int64) ((uint64) it->ts - ts_delta(it, delta));
	if (kind == WIDE_KIND_DEL_CELLS &&
		!(it->t = get_zigzag(it->t, it->tend, &delta)))
		BAD();
	if (flags & F_HAS_SEQ)
	{
		if (!(it->a = get_zigzag(it->a, it->aend, &delta)))
			BAD();
		it->seq += (uint64) delta;
	}
	if ((flags & F_HAS_XMIN) &&
		(!(it->a = get_u32v(it->a, it->aend, &u)) ||
		 !(it->a = get_u32v(it->a, it->aend, &u))))
		BAD();
	return WIDE_KIND_IS_TOMBSTONE(kind) || skip_value(it, kind);
}

/*
 * WideBlockIterNext -- the next record, or false at the end (check
 * it->error for a malformed block).  The record points into the block and
 * the iterator's buffers, valid until the next call.  Its hints (same) are
 * relative to the record returned before it: where a filter stepped over
 * records in between, they hold what held across all of them.
 */
bool
WideBlockIterNext(WideBlockIter *it, WideCell *c)
{
	uint8		flags;
	uint8		same = WIDE_SAME_ROW | WIDE_SAME_FAMILY | WIDE_SAME_QUAL;

next:
	if (it->error || it->i >= it->ncells)
	{
		if (!it->error && (it->k != it->kend || it->t != it->tend ||
						   it->a != it->aend || it->v != it->end))
			it->error = true;
		return false;
	}
	if (it->k >= it->kend)
		BAD();
	flags = (uint8) *it->k++;
	/*
	 * (every field, one by one: a memset of the cell cost more than the
	 * rest; key, keylen, family, qual, ts, ts_to, seq and xmin are set below
	 * for every record)
	 */
	c->flags = 0;
	c->famlen = 0;
	c->quallen = c->vallen = c->famid = 0;
	c->value = NULL;
	c->cmin = 0;
	c->blob.first = 0;
	c->blob.length = 0;
	c->same = 0;
	c->key_datum = c->qual_datum = c->value_datum = NULL;
	c->kind = flags & F_KIND;
	if (c->kind < WIDE_KIND_DEL_ROW || c->kind > WIDE_KIND_MERGE)
		BAD();

	if (!read_keys(it, flags, c))
		return false;
	if (it->keep != NULL && !it->skip_quals && !WIDE_KIND_IS_TOMBSTONE(c->kind))
	{
		bool		reject;

		/*
		 * a column filter's verdict holds for the rest of the column (a
		 * record that starts no row, family or qualifier continues it)
		 */
		if (it->keep_columns && it->col_judged &&
			!(flags & (F_NEW_ROW | F_NEW_FAM | F_NEW_QUAL)))
			reject = it->col_rejected;
		else
			reject = !it->keep(c, it->keep_arg);
		it->col_rejected = reject;
		it->col_judged = true;
		if (reject)
		{
			/* a column the caller does not want: its hints join the next one's */
			same &= c->same;
			if (!step_tail(it, flags))
				return false;
			it->i++;
			goto next;
		}
	}
	else
		it->col_judged = false;
	if (!read_times(it, c) || !read_aux(it, flags, c))
		return false;
	if (!WIDE_KIND_IS_TOMBSTONE(c->kind) &&
		!(unlikely(it->skip_values) ? skip_value(it, c->kind) : read_value(it, c)))
		return false;
	c->same &= same;
	it->i++;
	return true;
}

/*
 * WideBlockIterSkipValues -- from now on, in this block, step over the
 * records' values instead of decoding them: cells carry no value (NULL,
 * length 0).  Only where values have a fixed length (no blob references
 * to see); returns false, changing nothing, in another block.  For a
 * compaction's survey of a block it may pass whole (blockpass.c).
 */
bool
WideBlockIterSkipValues(WideBlockIter *it)
{
	if (it->fixed <= 0 && it->val_div == 0.0)
		return false;
	it->skip_values = true;
	return true;
}

/*
 * WideBlockIterSetFilter -- from now on, step over the records (PUT, ADD,
 * MERGE: tombstones are always returned) that keep() rejects instead of
 * returning them: keep sees every such record the iterator decodes, in
 * order (its row key, family, famid, qualifier, kind and hints, not its
 * time or value), for a reader that wants some columns only.  Not with
 * skip_quals.
 */
void
WideBlockIterSetFilter(WideBlockIter *it, bool (*keep) (const WideCell *cell, void *arg),
					   void *arg)
{
	it->keep = keep;
	it->keep_arg = arg;
	it->keep_columns = false;
	it->col_judged = false;
}

/*
 * WideBlockIterSetColumnFilter -- WideBlockIterSetFilter for a keep() whose
 * verdict depends on the record's column only (row key, family,
 * qualifier): it is asked at the first record of each column, and the
 * rest of a rejected column is stepped over unasked.
 */
void
WideBlockIterSetColumnFilter(WideBlockIter *it,
							 bool (*keep) (const WideCell *cell, void *arg),
							 void *arg)
{
	WideBlockIterSetFilter(it, keep, arg);
	it->keep_columns = true;
}

/*
 * WideBlockIterSkipColumn -- step over the records that continue the column
 * of the record returned last (those whose flags start no row, family or
 * qualifier: the same coordinates but for the timestamp), without making
 * cells of them: their timestamps, sequence numbers, xmins and values are
 * stepped over, not checked or copied.  Returns how many it skipped; the
 * next WideBlockIterNext returns the first record of another column, or
 * false at the block's end (or on a malformed block: it->error).
 */
int
WideBlockIterSkipColumn(WideBlockIter *it)
{
	int			n = 0;

	while (!it->error && it->i < it->ncells && it->k < it->kend)
	{
		uint8		flags = (uint8) *it->k;
		uint8		kind = flags & F_KIND;

		/* a new row, family or qualifier, or a non-column record: stop */
		if ((flags & (F_NEW_ROW | F_NEW_FAM | F_NEW_QUAL)) ||
			kind < WIDE_KIND_DEL_CELLS || kind > WIDE_KIND_MERGE || !it->have_qual)
			break;
		if (!step_tail(it, flags))
			break;
		it->k++;
		it->i++;
		n++;
	}
	return n;
}

/* ----------------------------------------------------------------
 *	Decoding rows a section at a time (WideRowBatch, engine/cell.h)
 * ----------------------------------------------------------------
 */

/* grow the batch's arrays to hold nrec records and nrow rows of ncols */
static void
batch_reserve(WideRowBatch *b, int nrec, int nrow, int ncols)
{
	if (b->cxt == NULL)
		b->cxt = CurrentMemoryContext;
	if (nrec > b->reccap)
	{
		int			cap = Max(nrec, 1024);

		if (b->dest)
			pfree(b->dest);
		b->dest = MemoryContextAlloc(b->cxt, sizeof(int32) * cap);
		b->reccap = cap;
	}
	if (nrow > b->rowcap)
	{
		int			cap = Max(nrow, 256);

		if (b->keylen)
		{
			pfree(b->shared);
			pfree(b->sfx);
			pfree(b->sfxlen);
			pfree(b->keylen);
			pfree(b->present);
			pfree(b->ncells);
			pfree(b->vals);
		}
		b->shared = MemoryContextAlloc(b->cxt, sizeof(uint32) * cap);
		b->sfx = MemoryContextAlloc(b->cxt, sizeof(char *) * cap);
		b->sfxlen = MemoryContextAlloc(b->cxt, sizeof(uint32) * cap);
		b->keylen = MemoryContextAlloc(b->cxt, sizeof(uint32) * cap);
		b->present = MemoryContextAlloc(b->cxt, sizeof(uint64) * cap);
		b->ncells = MemoryContextAlloc(b->cxt, sizeof(uint32) * cap);
		b->vals = MemoryContextAlloc(b->cxt, sizeof(uint64) * cap * Max(ncols, 1));
		b->rowcap = cap;
	}
}

/* a key buffer of the batch holding len bytes and KEYBUF_SLACK more */
static inline char *
batch_keybuf(WideRowBatch *b, char **buf, uint32 *cap, uint32 len)
{
	if ((uint64) len + KEYBUF_SLACK > *cap)
	{
		uint32		newcap = Max(len + KEYBUF_SLACK, 128);

		if (*buf)
			pfree(*buf);
		*buf = MemoryContextAlloc(b->cxt, newcap);
		*cap = newcap;
	}
	return *buf;
}

/*
 * WideRowBatchKey -- the key of row j of a batch (its length in *len),
 * valid until the key of another row is asked for: each key is the one
 * before with its suffix put in place (as the block stores it), so rows
 * are best asked for in order.
 */
const char *
WideRowBatchKey(WideRowBatch *b, int j, uint32 *len)
{
	Assert(j >= 0 && j < b->nrows);
	if (j < b->keyrow)
		b->keyrow = -1;
	if (b->keyrow < 0)
		memcpy(b->curkey, b->keys, b->baselen);
	for (int r = b->keyrow + 1; r <= j; r++)
	{
		/* (a suffix of the block: key_suffix_copy may move 16 bytes) */
		if (b->sfxlen[r] > 0)
			key_suffix_copy(b->curkey + b->shared[r], b->sfx[r], b->sfxlen[r],
							b->sfxend);
	}
	b->keyrow = j;
	*len = b->keylen[j];
	return b->curkey;
}

/* are n bytes equal?  (short ones: no call) */
static inline bool
bytes_equal(const char *a, const char *b, uint32 n)
{
	for (; n >= 8; a += 8, b += 8, n -= 8)
	{
		uint64		x,
					y;

		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	while (n-- > 0)
		if (*a++ != *b++)
			return false;
	return true;
}

/* the column of a qualifier (-1: none), trying the one after *last first */
static inline int
batch_column(const WideRowBatchSpec *spec, const char *q, uint32 len, int *last)
{
	int			next = *last + 1;

	if (next < spec->ncols && spec->quallens[next] == len &&
		bytes_equal(spec->quals[next], q, len))
		return *last = next;
	for (int i = 0; i < spec->ncols; i++)
		if (spec->quallens[i] == len && bytes_equal(spec->quals[i], q, len))
			return *last = i;
	return -1;
}

/*
 * the prefix each column's qualifier shares with the one before it (the
 * first: 0), for the spec's columns (kept in b while the spec is the same)
 */
static void
batch_lcp(const WideRowBatchSpec *spec, WideRowBatch *b)
{
	if (b->lcp_spec == spec)
		return;
	if (b->lcp == NULL)
		b->lcp = MemoryContextAlloc(b->cxt, sizeof(uint32) * WIDE_BATCH_MAX_COLS);
	for (int i = 0; i < spec->ncols; i++)
		b->lcp[i] = i == 0 ? 0 :
			common_prefix(spec->quals[i - 1], spec->quallens[i - 1],
						  spec->quals[i], spec->quallens[i]);
	b->lcp_spec = spec;
}

/*
 * step over n varints from p (NULL if the stream ends first).  Eight bytes
 * at a time where they are there: a varint ends at each byte whose high bit
 * is clear, so a word's count of those is how many end in it (the stored
 * xmins of a passed block's records and a batch's timestamps are long runs
 * of short varints: a byte at a time, this was a quarter of a batch's
 * decoding).
 */
static inline const char *
skip_varints(const char *p, const char *end, uint64 n)
{
#if !defined(WORDS_BIGENDIAN) && defined(HAVE__BUILTIN_CTZ)
	while (n > 0 && end - p >= 8)
	{
		uint64		w;
		uint64		ends;
		uint64		c;

		memcpy(&w, p, 8);
		ends = ~w & UINT64CONST(0x8080808080808080);
		/* (one bit a byte at most: the bytes' sum, in the top byte) */
		c = ((ends >> 7) * UINT64CONST(0x0101010101010101)) >> 56;
		if (c < n)
		{
			n -= c;
			p += 8;
			continue;
		}
		/* the n-th end is in this word: clear the n - 1 before it */
		while (--n > 0)
			ends &= ends - 1;
		return p + (__builtin_ctzll(ends) >> 3) + 1;
	}
#endif
	while (n > 0)
	{
		if (p >= end)
			return NULL;
		n -= ((uint8) *p++ & 0x80) == 0;
	}
	return p;
}

/*
 * WideBlockIterRowBatch -- decode the records left in the iterator's block
 * into rows of b (engine/cell.h), for the family famid is the live
 * incarnation of: first the key section (each record's row and column),
 * then the timestamps and sequence numbers stepped over, then the values
 * into the rows' slots.  Returns the number of rows (0: nothing consumed).
 * Where it meets a record it does not decode (not a frozen PUT) it stops
 * at the start of that record's row, so that WideBlockIterNext goes on
 * from a row's start; a record's row key or qualifier that is damaged
 * sets it->error and returns 0, for WideBlockIterNext to report.  The
 * first row may continue the row of the record returned before (as may the
 * first row of the block after the last one): the caller joins them.
 * Only for blocks of 8-byte values (fixed, or packed), with no filter
 * (WideBlockIterSetFilter) the spec does not describe.
 */
int
WideBlockIterRowBatch(WideBlockIter *it, const WideRowBatchSpec *spec,
					  uint32 famid, WideRowBatch *b)
{
	const char *k = it->k;
	const char *kend = it->kend;
	const char *rowk = it->k;	/* where the last row the batch holds starts */
	int			i0 = it->i;
	int			i = it->i;
	int			rowi = it->i;	/* ... and its first record */
	int			nrows = 0;
	int			rows_before = 0;	/* rows before the last one */
	int			ncols = spec->ncols;
	uint32		maxlen;
	uint32		rowlen = it->rowlen;
	const char *rowkey = it->rowbuf ? it->rowbuf + VARHDRSZ : NULL;
	bool		have_row = it->have_row;
	const char *fam = it->fam;
	uint32		famlen = it->famlen;
	uint32		recfamid = it->famid;
	bool		fam_match,
				fam_live;
	uint32		quallen = it->quallen;
	bool		have_qual = it->have_qual;
	int			col = -1;
	int			lastcol = -1;
	bool		qmat = true;	/* b->qualbuf holds the qualifier (else it is
								 * column col's) */
	bool		row_kept = spec->row_kept ? *spec->row_kept : false;
	bool		kept_row0 = row_kept;
	uint64		nseq = 0,
				nseq_row = 0;	/* ... of the records before the last row */
	const char *v;
	const char *t;
	const char *a;
	int			iend;
	int64		seqsum = 0;
	bool		full = false;	/* WIDE_BATCH_MAX_ROWS rows decoded */

	/*
	 * Rows of a time series repeat the records of the row before but for
	 * their key (the same family and qualifiers, in the same order): where
	 * the bytes after a row's key are those of the row before, its records
	 * go where the row before's went, without decoding them.  The current
	 * row's bytes after its key (tail), and of the row before (whole in the
	 * batch): where they lie, its first record's flags, its records and
	 * sequence numbers, and the decoder's state after it.
	 */
	const char *tail = NULL;
	int			tail_i = 0;
	uint8		tail_flags = 0;
	uint64		tail_nseq = 0;
	const char *ptail = NULL;
	uint32		ptail_len = 0;
	int			pfirst = 0;
	int			pnrec = 0;
	uint8		pflags = 0;
	uint64		pnseq = 0;
	struct
	{
		const char *fam;
		uint32		famlen;
		uint32		famid;
		bool		fam_match;
		bool		fam_live;
		uint32		quallen;
		bool		have_qual;
		bool		qmat;
		int			col;
		bool		row_kept;
	}			pend = {0};

	/* (records that have the block's xmin are not frozen: none is decoded) */
	if (it->error || i >= it->ncells || ncols > WIDE_BATCH_MAX_COLS ||
		(it->val_div == 0.0 && it->fixed != 8) || it->skip_quals ||
		it->block_xmin != FrozenTransactionId)
		return 0;
	batch_reserve(b, it->ncells - i, Min(it->ncells - i + 1, WIDE_BATCH_MAX_ROWS + 1),
				  ncols);
	batch_lcp(spec, b);
	/* (the qualifier so far, to rebuild the next ones from) */
	(void) keybuf_reserve(b->cxt, &b->qualbuf, &b->qualcap, quallen);
	if (quallen > 0)
		memcpy(b->qualbuf + VARHDRSZ, it->qualbuf + VARHDRSZ, quallen);
	fam_match = fam != NULL && famlen == spec->famlen &&
		bytes_equal(fam, spec->family, famlen);
	fam_live = fam_match && recfamid == famid;
	if (have_qual)
		col = batch_column(spec, b->qualbuf + VARHDRSZ, quallen, &lastcol);
	/* the key before the batch, which the first row's shares bytes with */
	(void) batch_keybuf(b, &b->keys, &b->keycap, rowlen);
	if (rowlen > 0)
		memcpy(b->keys, rowkey, rowlen);
	b->baselen = rowlen;
	b->sfxend = it->end;
	maxlen = rowlen;
	/* a first row that continues the current one */
	if (have_row && i > 0 && k < kend && !((uint8) *k & F_NEW_ROW))
	{
		b->shared[0] = rowlen;
		b->sfx[0] = NULL;
		b->sfxlen[0] = 0;
		b->keylen[0] = rowlen;
		b->present[0] = 0;
		b->ncells[0] = 0;
		nrows = 1;
	}

	for (; i < it->ncells; i++)
	{
		uint8		flags;
		uint8		kind;
		uint64		shared,
					unshared;
		bool		kept;
		int32		dest = -1;

		if (k >= kend)
			goto bad;
		flags = (uint8) *k;
		kind = flags & F_KIND;
		/*
		 * (a block whose index entry says its xmins are frozen: their
		 * xmin/cmin are stepped over below, as long as no record of it also
		 * stores a sequence number, which would interleave with them)
		 */
		if (kind != WIDE_KIND_PUT ||
			((flags & F_HAS_XMIN) && !it->xmins_frozen) ||
			((flags & F_HAS_SEQ) && it->xmins_frozen))
			break;				/* (for WideBlockIterNext) */
		if (flags & F_NEW_ROW)
		{
			uint32		len;

			if (nrows >= WIDE_BATCH_MAX_ROWS)
			{
				full = true;	/* (the rows so far are whole: stop here) */
				break;
			}
			if (tail != NULL)
			{
				/* the row before ends */
				ptail = tail;
				ptail_len = (uint32) (k - tail);
				pfirst = tail_i;
				pnrec = i - tail_i;
				pflags = tail_flags;
				pnseq = nseq - tail_nseq;
				pend.fam = fam;
				pend.famlen = famlen;
				pend.famid = recfamid;
				pend.fam_match = fam_match;
				pend.fam_live = fam_live;
				pend.quallen = quallen;
				pend.have_qual = have_qual;
				pend.qmat = qmat;
				pend.col = col;
				pend.row_kept = row_kept;
			}
			rowk = k;
			rowi = i;
			rows_before = nrows;
			nseq_row = nseq;
			kept_row0 = row_kept;
			k++;
			if (!wide_key_row(&k, kend, rowlen, &shared, &unshared))
				goto bad;
			len = (uint32) (shared + unshared);
			b->shared[nrows] = (uint32) shared;
			b->sfx[nrows] = k;
			b->sfxlen[nrows] = (uint32) unshared;
			k += unshared;
			b->keylen[nrows] = len;
			maxlen = Max(maxlen, len);
			b->present[nrows] = 0;
			b->ncells[nrows] = 0;
			rowlen = len;
			nrows++;
			have_row = true;
			fam = NULL;
			famlen = 0;
			fam_match = fam_live = false;
			have_qual = false;
			quallen = 0;
			qmat = true;
			row_kept = false;

			tail = k;
			tail_i = i;
			tail_flags = flags;
			tail_nseq = nseq;
			if (ptail != NULL && flags == pflags && ptail_len <= (uint64) (kend - k) &&
				pnrec <= it->ncells - i &&
				(ptail_len == (uint64) (kend - k) || ((uint8) k[ptail_len] & F_NEW_ROW)) &&
				memcmp(k, ptail, ptail_len) == 0)
			{
				/* the records of the row before, again */
				const int32 *from = b->dest + (pfirst - i0);
				int32	   *to = b->dest + (i - i0);

				for (int r = 0; r < pnrec; r++)
					to[r] = from[r] < 0 ? -1 : from[r] + ncols;
				b->present[nrows - 1] = b->present[nrows - 2];
				b->ncells[nrows - 1] = b->ncells[nrows - 2];
				nseq += pnseq;
				fam = pend.fam;
				famlen = pend.famlen;
				recfamid = pend.famid;
				fam_match = pend.fam_match;
				fam_live = pend.fam_live;
				quallen = pend.quallen;
				have_qual = pend.have_qual;
				qmat = pend.qmat;
				col = pend.col;
				row_kept = pend.row_kept;
				k += ptail_len;
				i += pnrec - 1;
				continue;
			}
		}
		else
		{
			if (!have_row || nrows == 0)
				goto bad;
			k++;
		}
		if (flags & F_NEW_FAM)
		{
			uint8		flen;

			if (!wide_key_family(&k, kend, &fam, &flen, &recfamid))
				goto bad;
			famlen = flen;
			have_qual = false;
			quallen = 0;
			qmat = true;
			fam_match = famlen == spec->famlen && bytes_equal(fam, spec->family, famlen);
			fam_live = fam_match && recfamid == famid;
		}
		if (fam == NULL)
			goto bad;
		if (flags & F_NEW_QUAL)
		{
			char	   *dst;
			uint32		len;
			int			next = col + 1;

			if (!wide_key_qual(&k, kend, quallen, &shared, &unshared))
				goto bad;
			len = (uint32) (shared + unshared);
			/*
			 * The column after the last one, as the qualifier's suffix and
			 * length say (its prefix is the last column's, as far as the
			 * two columns share one): no qualifier rebuilt, no search.
			 */
			if (fam_match && have_qual && qmat == false && next < ncols &&
				spec->quallens[next] == len && shared <= b->lcp[next] &&
				bytes_equal(spec->quals[next] + shared, k, unshared))
			{
				col = next;
				k += unshared;
			}
			else if (fam_match && !have_qual && ncols > 0 && shared == 0 &&
					 spec->quallens[0] == len && bytes_equal(spec->quals[0], k, len))
			{
				col = 0;		/* (a family's first column) */
				qmat = false;
				k += unshared;
			}
			else
			{
				/* rebuilt from the last one (if it was a column, from it) */
				if (!qmat)
				{
					dst = keybuf_reserve(b->cxt, &b->qualbuf, &b->qualcap,
										 spec->quallens[col]);
					memcpy(dst, spec->quals[col], spec->quallens[col]);
				}
				dst = keybuf_reserve(b->cxt, &b->qualbuf, &b->qualcap, len);
				memcpy(dst + shared, k, unshared);
				k += unshared;
				qmat = true;
				lastcol = col;
				col = fam_match ? batch_column(spec, dst, len, &lastcol) : -1;
			}
			quallen = len;
			have_qual = true;
		}
		else if (!have_qual)
		{
			/* (the empty qualifier: empty_qualifier) */
			quallen = 0;
			have_qual = true;
			qmat = true;
			lastcol = -1;
			col = fam_match ? batch_column(spec, "", 0, &lastcol) : -1;
		}
		if (flags & F_HAS_SEQ)
			nseq++;
		if (flags & F_HAS_XMIN)
			nseq += 2;			/* xmins frozen: two varints to step over */

		/* what the caller's filter keeps, then what the reader returns */
		if (!fam_match)
			kept = false;
		else if (spec->mode == WIDE_BATCH_FAMILY)
			kept = true;
		else if (col < 0)
			kept = false;
		else if (spec->mode == WIDE_BATCH_STORED &&
				 !(spec->valued & ((uint64) 1 << col)) && row_kept)
			kept = false;
		else
		{
			kept = true;
			row_kept = true;
		}
		if (kept && fam_live)
		{
			b->ncells[nrows - 1]++;
			if (col >= 0 && !(b->present[nrows - 1] & ((uint64) 1 << col)))
			{
				b->present[nrows - 1] |= (uint64) 1 << col;
				dest = (nrows - 1) * ncols + col;
			}
		}
		b->dest[i - i0] = dest;
	}
	if (i < it->ncells && !full)
	{
		/*
		 * stop where the row of the record not decoded starts (nothing, if
		 * that row began before the batch)
		 */
		i = rowi;
		k = rowk;
		nrows = rows_before;
		nseq = nseq_row;
		row_kept = kept_row0;
		if (nrows == 0)
			return 0;
	}
	iend = i;

	/* timestamps: stepped over (decoded if records are left after) */
	t = it->t;
	if (iend == it->ncells)
	{
		if (!(t = skip_varints(t, it->tend, (uint64) (iend - i0))))
			goto bad;
	}
	else
	{
		for (int j = i0; j < iend; j++)
		{
			int64		delta;

			if (!(t = get_zigzag(t, it->tend, &delta)))
				goto bad;
			it->ts = (int64) ((uint64) it->ts - ts_delta(it, delta));
		}
	}
	/*
	 * sequence numbers (frozen records have no xmin); in a block whose
	 * xmins are frozen, nseq counts the stored xmins' varints instead
	 */
	a = it->a;
	if (it->xmins_frozen)
	{
		if (!(a = skip_varints(a, it->aend, nseq)))
			goto bad;
		nseq = 0;
	}
	for (uint64 j = 0; j < nseq; j++)
	{
		int64		delta;

		if (!(a = get_zigzag(a, it->aend, &delta)))
			goto bad;
		seqsum += delta;
	}
	/* values */
	v = it->v;
	if (it->val_div == 1.0)
	{
		/* (integers: the common case, its own loop without the division) */
		for (int j = 0; j < iend - i0; j++)
		{
			uint64		u;
			double		d;

			if (!(v = get_varint(v, it->end, &u)))
				goto bad;
			if (b->dest[j] < 0)
				continue;
			d = (double) ((int64) (u >> 1) ^ -(int64) (u & 1));
			memcpy(&b->vals[b->dest[j]], &d, 8);
		}
	}
	else if (it->val_div != 0.0)
	{
		double		div = it->val_div;

		for (int j = 0; j < iend - i0; j++)
		{
			uint64		u;
			int64		kv;
			double		d;

			if (!(v = get_varint(v, it->end, &u)))
				goto bad;
			if (b->dest[j] < 0)
				continue;
			kv = (int64) (u >> 1) ^ -(int64) (u & 1);
			d = (double) kv / div;
			memcpy(&b->vals[b->dest[j]], &d, 8);
		}
	}
	else
	{
		if ((uint64) (it->end - v) < (uint64) (iend - i0) * 8)
			goto bad;
		for (int j = 0; j < iend - i0; j++, v += 8)
			if (b->dest[j] >= 0)
				memcpy(&b->vals[b->dest[j]], v, 8);
	}

	/* the iterator goes on after the batch */
	it->i = iend;
	it->k = k;
	it->t = t;
	it->a = a;
	it->v = v;
	it->seq += (uint64) seqsum;
	b->nrows = nrows;
	(void) batch_keybuf(b, &b->curkey, &b->curcap, maxlen);
	b->keyrow = -1;
	{
		uint32		lastlen;
		const char *last = WideRowBatchKey(b, nrows - 1, &lastlen);
		char	   *dst = keybuf_reserve(it->cxt, &it->rowbuf, &it->rowcap, lastlen);

		memcpy(dst, last, lastlen);
		it->rowlen = lastlen;
		it->row_datum = keybuf_datum(it->rowbuf, lastlen);
		it->have_row = true;
	}
	{
		/* (the last record's family and qualifier, for records after it) */
		it->fam = fam;
		it->famlen = famlen;
		it->famid = recfamid;
		it->have_qual = have_qual;
		it->quallen = quallen;
		if (have_qual)
		{
			char	   *dst = keybuf_reserve(it->cxt, &it->qualbuf, &it->qualcap, quallen);

			memcpy(dst, qmat ? b->qualbuf + VARHDRSZ : spec->quals[col], quallen);
			it->qual_datum = keybuf_datum(it->qualbuf, quallen);
		}
	}
	if (spec->row_kept)
		*spec->row_kept = row_kept;
	b->nrows = nrows;
	return nrows;

bad:
	it->error = true;
	return 0;
}

/*
 * skip_records -- step over records without making cells of them: their
 * row keys are rebuilt (a row key shares a prefix with the one before) and
 * the four streams advanced, but qualifiers are not copied and timestamps,
 * sequence numbers, xmins and values not checked: a record is checked when
 * WideBlockIterNext returns it.
 *
 * With key, stops before the first record of the first row >= key (> key if
 * !incl), which the next WideBlockIterNext returns.  With rows, appends to
 * it where every row stepped over starts.  Returns false on a malformed
 * block (it->error).
 */
static bool
skip_records(WideBlockIter *it, const char *key, uint32 keylen, bool incl,
			 WideBlockRows *rows, int *cap)
{
	while (it->i < it->ncells)
	{
		const char *k = it->k;
		const char *kend = it->kend;
		uint8		flags,
					kind;
		uint64		shared,
					unshared;

		if (k >= kend)
			BAD();
		flags = (uint8) *k++;
		kind = flags & F_KIND;
		if (kind < WIDE_KIND_DEL_ROW || kind > WIDE_KIND_MERGE)
			BAD();
		if (flags & F_NEW_ROW)
		{
			char	   *dst;
			uint32		len;

			if (!wide_key_row(&k, kend, it->rowlen, &shared, &unshared))
				BAD();
			len = (uint32) (shared + unshared);
			/* (only bytes past the shared prefix change: read_keys redoes it) */
			dst = keybuf_reserve(it->cxt, &it->rowbuf, &it->rowcap, len);
			key_suffix_copy(dst + shared, k, unshared, it->end);
			if (key != NULL)
			{
				int			cmp = WideKeyCompare(dst, len, key, keylen);

				if (cmp > 0 || (cmp == 0 && incl))
					return true;
			}
			if (rows != NULL)
			{
				WideBlockRowStart *r;

				if (rows->n == *cap)
					rows->rows = repalloc(rows->rows,
										  sizeof(WideBlockRowStart) * (*cap *= 2));
				r = &rows->rows[rows->n++];
				r->i = it->i;
				r->koff = it->k - it->kstart;
				r->toff = it->t - it->kend;
				r->aoff = it->a - it->tend;
				r->voff = it->v - it->aend;
				r->ts = it->ts;
				r->seq = it->seq;
				r->key = memcpy(palloc(Max(len, 1)), dst, len);
				r->keylen = len;
			}
			k += unshared;
			it->rowlen = len;
			it->have_row = true;
			it->fam = NULL;
			it->famlen = 0;
			it->have_qual = false;
			it->quallen = 0;
		}
		else if (!it->have_row)
			BAD();
		if ((flags & F_NEW_FAM) && !read_family(it, &k))
			return false;
		if ((flags & F_NEW_QUAL) && !read_qualifier(it, &k, false))
			return false;
		if (kind != WIDE_KIND_DEL_ROW && it->fam == NULL)
			BAD();
		if (kind >= WIDE_KIND_DEL_CELLS && !it->have_qual)
			empty_qualifier(it);
		it->k = k;
		if (!step_tail(it, flags))
			return false;
		it->i++;
	}
	return true;
}

/*
 * WideBlockIterSkipRows -- step over the records of the rows before key
 * (up to key if !incl), the start of a range, without making cells of them;
 * the next WideBlockIterNext returns the first record of the range, or
 * false if the block holds none.  For a point read of a block not read
 * before (no row directory): it costs a few byte tests per record, where
 * WideBlockIterNext and a key comparison per record cost several times
 * that.  Returns false on a malformed block (it->error).
 */
bool
WideBlockIterSkipRows(WideBlockIter *it, const char *key, uint32 keylen,
					  bool incl)
{
	if (it->error)
		return false;
	return skip_records(it, key, keylen, incl, NULL, NULL);
}

/*
 * WideBlockRowsBuild -- where each row of a block starts: its key and the
 * iterator's state before its first record (so that an iterator can start
 * there: WideBlockIterSeekRow), in the current memory context; NULL if the
 * block is damaged.  Steps over the whole block once (skip_records); the
 * directory is cached beside it (segment_reader.c), so seeks into a hot
 * block cost a binary search instead of stepping over the records before
 * the key.
 */
WideBlockRows *
WideBlockRowsBuild(const WideRawBlock *blk, int16 typlen,
				   uint64 default_seq, uint64 seq_base)
{
	WideBlockRows *rows = palloc(sizeof(WideBlockRows));
	WideBlockIter it;
	int			cap = 16;
	bool		ok;

	memset(&it, 0, sizeof(it));
	rows->n = 0;
	rows->rows = palloc(sizeof(WideBlockRowStart) * cap);
	if (!WideBlockIterInitBlock(&it, blk, typlen, default_seq, seq_base))
	{
		WideBlockIterEnd(&it);
		return NULL;
	}
	ok = skip_records(&it, NULL, 0, false, rows, &cap) &&
		it.k == it.kend && it.t == it.tend && it.a == it.aend && it.v == it.end;
	WideBlockIterEnd(&it);
	if (!ok)
		return NULL;
	/* the prefix all keys share (WideBlockRowsSeek) */
	rows->plen = 0;
	rows->next8 = NULL;
	if (rows->n > 0)
	{
		const WideBlockRowStart *first = &rows->rows[0];

		rows->plen = Min(first->keylen, WIDE_KEY_PREFIX_MAX);
		for (int j = 1; j < rows->n; j++)
			rows->plen = WideKeyCommonLen(first->key, rows->plen,
										  rows->rows[j].key, rows->rows[j].keylen);
		memcpy(rows->prefix, first->key, rows->plen);
		rows->next8 = palloc(sizeof(uint64) * rows->n);
		for (int j = 0; j < rows->n; j++)
			rows->next8[j] = WideKeyNext8(rows->rows[j].key, rows->rows[j].keylen,
									   rows->plen);
	}
	return rows;
}


/*
 * WideBlockRowsSeek -- the first row of the directory whose key is >= key
 * (> key if !incl); n if none.
 */
int
WideBlockRowsSeek(const WideBlockRows *rows, const char *key, uint32 keylen,
				  bool incl)
{
	int			lo = 0,
				hi = rows->n;
	uint64		k8 = 0;

	if (rows->next8 != NULL)
	{
		int			pos = WideKeyPrefixSeek(key, keylen, rows->prefix, rows->plen,
											rows->n, &k8);

		if (pos >= 0)
			return pos;
	}
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			cmp;

		/* the 8 bytes after the prefix order the keys, unless equal */
		if (rows->next8 != NULL && rows->next8[mid] != k8)
			cmp = rows->next8[mid] < k8 ? -1 : 1;
		else
			cmp = WideKeyCompare(rows->rows[mid].key, rows->rows[mid].keylen,
								 key, keylen);

		if (cmp < 0 || (cmp == 0 && !incl))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * start_row_at -- a seek's iterator is at the first record of the row
 * "key": its row key copied out (the record's own key bytes share a prefix
 * with the row before it), no family or qualifier yet
 */
static void
start_row_at(WideBlockIter *it, const char *key, uint32 keylen)
{
	char	   *dst = keybuf_reserve(it->cxt, &it->rowbuf, &it->rowcap, keylen);

	memcpy(dst, key, keylen);
	it->rowlen = keylen;
	it->row_datum = keybuf_datum(it->rowbuf, it->rowlen);
	it->have_row = true;
	it->fam = NULL;
	it->famlen = 0;
	it->have_qual = false;
	it->quallen = 0;
}

/*
 * WideBlockIterSeekRow -- move an iterator just initialized on the block
 * of the directory to the start of its row j.
 */
void
WideBlockIterSeekRow(WideBlockIter *it, const WideBlockRows *rows, int j)
{
	const WideBlockRowStart *r = &rows->rows[j];

	it->i = r->i;
	it->k += r->koff;
	it->t += r->toff;
	it->a += r->aoff;
	it->v += r->voff;
	it->ts = r->ts;
	it->seq = r->seq;
	start_row_at(it, r->key, r->keylen);
}

/*
 * WideBlockIterSeekPoint -- move an iterator over a block to a point of
 * its stored row directory (rowdir.c: WideRowDirSeek), whose row key is
 * key: where it would be after stepping over the records before it.  The
 * timestamps, and values packed by an exponent, are stepped over by count.
 * False if the point does not fit the block.
 */
bool
WideBlockIterSeekPoint(WideBlockIter *it, const WideDirPoint *p, const char *key)
{
	const char *t = skip_varints(it->kend, it->tend, p->tsn);
	const char *v;

	if (t == NULL)
		return false;
	if (it->val_div != 0.0)
		v = skip_varints(it->aend, it->end, p->valn);
	else
		v = it->aend + p->voff;
	if (v == NULL)
		return false;
	it->i = p->i;
	it->k = it->kstart + p->koff;
	it->t = t;
	it->a = it->tend + p->aoff;
	it->v = v;
	it->ts = p->ts;
	it->seq = p->seq;
	start_row_at(it, key, p->keylen);
	it->col_judged = false;
	return true;
}

/* ----------------------------------------------------------------
 *	Surveying a block for a compaction that may pass it (blockpass.c)
 * ----------------------------------------------------------------
 */

/*
 * an xmin the survey meets: PASS if the block's xmins are frozen or it is
 * not a normal one, BAD if it is from the future, else as ops judge it
 */
static WideSurveyResult
survey_xmin(TransactionId xmin, bool xmins_frozen, TransactionId *next_xid,
			const WideBlockSurveyOps *ops)
{
	if (xmins_frozen || !TransactionIdIsNormal(xmin))
		return WIDE_SURVEY_PASS;
	/* an xmin from the future would send visibility checks to clog */
	if (!TransactionIdIsValid(*next_xid))
		*next_xid = XidFromFullTransactionId(ReadNextFullTransactionId());
	if (!TransactionIdPrecedes(xmin, *next_xid))
		return WIDE_SURVEY_BAD;
	return ops->xmin_ok(xmin, ops->arg) ? WIDE_SURVEY_PASS : WIDE_SURVEY_REFUSED;
}

/*
 * WideBlockSurvey -- what a compaction needs to know of a data block of
 * fixed-length values to write it into its output as it is, read from its
 * key, timestamp and auxiliary sections without making a cell of any
 * record: each family it starts (ops->family_ok), each stored xmin that
 * differs from the one before (ops->xmin_ok; none if xmins_frozen, the
 * block's index entry flag, or for records that store none; block_xmin,
 * if normal, is the xmin of every record, its entry's: WIDE_INDEX_ONE_XMIN;
 * an auxiliary
 * section that repeats one xmin and cmin, as a load's does, is compared
 * with its first pair as a whole), the hash of
 * each row it starts (into hashes: more than maxhashes rows is BAD), and its last record's
 * row key (into lastrow), family, kind and timestamp.  Stops with
 * WIDE_SURVEY_REFUSED at the first tombstone, stored sequence number, or
 * family or xmin refused; WIDE_SURVEY_BAD if the block is malformed (the
 * checks of WideBlockIterNext on those sections, and the length of the
 * values section of a block stored raw).  Qualifiers are stepped over:
 * the last record's is in its index entry.
 *
 * Why: decoding every record through WideBlockIterNext was a third of
 * VACUUM's CPU after a COPY whose every block passes.
 */
WideSurveyResult
WideBlockSurvey(const WideRawBlock *blk, int16 typlen, bool xmins_frozen,
				TransactionId block_xmin, const WideBlockSurveyOps *ops, uint64 *hashes, int maxhashes,
				int *nhashes, StringInfo lastrow, WideCell *last)
{
	const char *end = blk->data + blk->len;
	const char *p = blk->data;
	const char *k,
			   *kend,
			   *t,
			   *tend,
			   *a,
			   *aend;
	uint64		ncells,
				arena,
				keylen,
				tslen,
				auxlen,
				nvalues = 0,
				n8 = 0,
				nxmin = 0;
	uint64		i;
	uint32		rowlen = 0;
	uint32		quallen = 0;
	bool		have_row = false;
	const char *fam = NULL;
	uint32		famlen = 0;
	uint32		famid = 0;
	bool		checked_fam = false;
	const char *ok_fam = NULL;
	uint32		ok_famlen = 0;
	uint32		ok_famid = 0;
	TransactionId last_xmin = InvalidTransactionId;
	TransactionId next_xid = InvalidTransactionId;
	int64		ts = 0;
	uint8		kind = 0;
	int			nh = 0;
	WideSurveyResult r;

	*nhashes = 0;
	if (typlen <= 0 ||
		!(p = get_varint(p, end, &ncells)) || !(p = get_varint(p, end, &arena)) ||
		!(p = get_varint(p, end, &keylen)) || !(p = get_varint(p, end, &tslen)) ||
		!(p = get_varint(p, end, &auxlen)) ||
		keylen > (uint64) (end - p) || tslen > (uint64) (end - p) - keylen ||
		auxlen > (uint64) (end - p) - keylen - tslen || ncells > blk->len ||
		ncells == 0)
		return WIDE_SURVEY_BAD;
	k = p;
	kend = t = k + keylen;
	tend = a = t + tslen;
	aend = a + auxlen;
	resetStringInfo(lastrow);
	enlargeStringInfo(lastrow, WIDE_MAX_ROW_KEY + 1);
	for (i = 0; i < ncells; i++)
	{
		uint8		flags;
		uint64		shared,
					unshared;

		if (k >= kend)
			return WIDE_SURVEY_BAD;
		flags = (uint8) *k++;
		kind = flags & F_KIND;

		/*
		 * The common record: the next column of a row and family that go
		 * on, its qualifier's two lengths a byte each
		 */
		if ((flags & (F_NEW_ROW | F_NEW_FAM | F_NEW_QUAL | F_HAS_SEQ)) == F_NEW_QUAL &&
			kind >= WIDE_KIND_PUT && kind <= WIDE_KIND_MERGE && checked_fam &&
			fam != NULL && kend - k >= 2 && !((k[0] | k[1]) & 0x80))
		{
			uint32		qs = (uint8) k[0];
			uint32		qu = (uint8) k[1];

			k += 2;
			if (qs > quallen || qu > (uint64) (kend - k))
				return WIDE_SURVEY_BAD;
			k += qu;
			quallen = qs + qu;
			nxmin += (flags & F_HAS_XMIN) != 0;
			if (kind == WIDE_KIND_PUT)
				nvalues++;
			else
				n8++;
			continue;
		}

		if (kind < WIDE_KIND_DEL_ROW || kind > WIDE_KIND_MERGE)
			return WIDE_SURVEY_BAD;
		if (WIDE_KIND_IS_TOMBSTONE(kind) || (flags & F_HAS_SEQ))
			return WIDE_SURVEY_REFUSED;
		if (flags & F_NEW_ROW)
		{
			if (!wide_key_row(&k, kend, rowlen, &shared, &unshared))
				return WIDE_SURVEY_BAD;
			memcpy(lastrow->data + shared, k, unshared);
			lastrow->len = (int) (shared + unshared);
			k += unshared;
			rowlen = lastrow->len;
			have_row = true;
			fam = NULL;
			famlen = 0;
			if (nh >= maxhashes)
				return WIDE_SURVEY_BAD;
			hashes[nh++] = WideRowHash(lastrow->data, rowlen);
		}
		else if (!have_row)
			return WIDE_SURVEY_BAD;
		if (flags & (F_NEW_ROW | F_NEW_FAM))
			quallen = 0;
		if (flags & F_NEW_FAM)
		{
			uint8		flen;

			if (!wide_key_family(&k, kend, &fam, &flen, &famid))
				return WIDE_SURVEY_BAD;
			famlen = flen;
			/* (each row starts its family again: asked once while it is the same) */
			checked_fam = checked_fam && famid == ok_famid && famlen == ok_famlen &&
				memcmp(fam, ok_fam, famlen) == 0;
		}
		if (flags & F_NEW_QUAL)
		{
			if (!wide_key_qual(&k, kend, quallen, &shared, &unshared))
				return WIDE_SURVEY_BAD;
			k += unshared;
			quallen = (uint32) (shared + unshared);
		}
		if (fam == NULL)
			return WIDE_SURVEY_BAD;
		if (!checked_fam)
		{
			if (!ops->family_ok(fam, famlen, famid, ops->arg))
				return WIDE_SURVEY_REFUSED;
			checked_fam = true;
			ok_fam = fam;
			ok_famlen = famlen;
			ok_famid = famid;
		}

		if (flags & F_HAS_XMIN)
			nxmin++;
		if (kind == WIDE_KIND_PUT)
			nvalues++;
		else
			n8++;
	}
	if (k != kend)
		return WIDE_SURVEY_BAD;

	/* the timestamps: the last one is the last record's */
	for (i = 0; i < ncells; i++)
	{
		int64		delta;

		if (likely(t < tend && !(*t & 0x80)))
		{
			uint8		b = (uint8) *t++;

			delta = (int64) (b >> 1) ^ -(int64) (b & 1);
		}
		else if (!(t = get_zigzag(t, tend, &delta)))
			return WIDE_SURVEY_BAD;
		ts = (int64) ((uint64) ts - (uint64) delta * blk->ts_unit);
	}
	if (t != tend)
		return WIDE_SURVEY_BAD;

	/*
	 * The xmins (and cmins; no sequence number is stored).  A load's
	 * records store one xmin and cmin: a section that repeats its first
	 * pair is checked as a whole, else pair by pair.  A block whose records
	 * store none but have its index entry's (WIDE_INDEX_ONE_XMIN) has
	 * block_xmin checked once.
	 */
	r = survey_xmin(block_xmin, xmins_frozen, &next_xid, ops);
	if (r != WIDE_SURVEY_PASS)
		return r;
	if (nxmin > 0)
	{
		const char *a1;
		uint32		xmin,
					cmin;
		uint64		plen;

		if (!(a1 = get_u32v(a, aend, &xmin)) || !(a1 = get_u32v(a1, aend, &cmin)))
			return WIDE_SURVEY_BAD;
		plen = a1 - a;
		if ((uint64) (aend - a) == plen * nxmin &&
			memcmp(a + plen, a, (aend - a) - plen) == 0)
		{
			r = survey_xmin(xmin, xmins_frozen, &next_xid, ops);
			if (r != WIDE_SURVEY_PASS)
				return r;
			a = aend;
		}
		else
		{
			for (i = 0; i < nxmin; i++)
			{
				if (!(a = get_u32v(a, aend, &xmin)) || !(a = get_u32v(a, aend, &cmin)))
					return WIDE_SURVEY_BAD;
				if (xmin != last_xmin)
				{
					r = survey_xmin(xmin, xmins_frozen, &next_xid, ops);
					if (r != WIDE_SURVEY_PASS)
						return r;
					last_xmin = xmin;
				}
			}
		}
	}
	if (a != aend)
		return WIDE_SURVEY_BAD;
	/* the values: fixed length when stored raw (a packed block's, checked by the loader) */
	if (blk->val_div == 0.0 &&
		(uint64) (end - aend) != nvalues * (uint64) typlen + n8 * sizeof(int64))
		return WIDE_SURVEY_BAD;

	*nhashes = nh;
	lastrow->data[lastrow->len] = '\0';
	memset(last, 0, sizeof(*last));
	last->kind = kind;
	last->key = lastrow->data;
	last->keylen = lastrow->len;
	last->family = fam;
	last->famlen = famlen;
	last->famid = famid;
	last->qual = "";
	last->ts = ts;
	last->ts_to = PG_INT64_MAX;
	return WIDE_SURVEY_PASS;
}

/*
 * WideBlockIterEnd -- release the iterator's buffers.
 */
void
WideBlockIterEnd(WideBlockIter *it)
{
	if (it->rowbuf)
		pfree(it->rowbuf);
	if (it->qualbuf)
		pfree(it->qualbuf);
	if (it->valbuf)
		pfree(it->valbuf);
	it->rowbuf = it->qualbuf = it->valbuf = NULL;
	it->rowcap = it->qualcap = it->valcap = 0;
}
