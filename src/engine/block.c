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
 *	      fixed-length value type:  typlen bytes
 *	      otherwise:  (len << 1 | blob):varint  (blob ? first:varint : bytes)
 *
 * "arena" is the number of bytes needed to rebuild the row keys and
 * qualifiers.  A record without HAS_SEQ takes the segment's largest
 * sequence number (see segment_writer.c for why that is exact); a record
 * without HAS_XMIN is frozen, visible to every snapshot.
 *
 * IDENTIFICATION
 *	  src/engine/block.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "engine/coding.h"
#include "wide.h"

#define F_KIND		0x07
#define F_NEW_ROW	0x08
#define F_NEW_FAM	0x10
#define F_NEW_QUAL	0x20
#define F_HAS_SEQ	0x40
#define F_HAS_XMIN	0x80

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
	uint32		famid;
	int64		prev_ts;
	uint64		prev_seq;
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
	b->famid = 0;
	b->prev_ts = 0;
	b->prev_seq = 0;
}

int
WideBlockBuilderCount(const WideBlockBuilder *b)
{
	return b->ncells;
}

/*
 * WideBlockBuilderSize -- the encoded size so far, for cutting blocks.
 */
Size
WideBlockBuilderSize(const WideBlockBuilder *b)
{
	return b->keys.len + b->ts.len + b->aux.len + b->vals.len + 16;
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
		WideKeyCompare(b->row.data, b->row.len, c->key, c->keylen) != 0;
	bool		new_fam = level >= WIDE_LEVEL_FAMILY &&
		(new_row || b->fam.len != c->famlen || b->famid != c->famid ||
		 memcmp(b->fam.data, c->family, c->famlen) != 0);
	bool		new_qual = level >= WIDE_LEVEL_COLUMN &&
		(new_row || new_fam ||
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
	put_byte(&b->keys, flags);

	if (new_row)
	{
		uint32		shared = common_prefix(b->row.data, b->row.len,
										   c->key, c->keylen);

		put_varint(&b->keys, shared);
		put_varint(&b->keys, c->keylen - shared);
		put_bytes(&b->keys, c->key + shared, c->keylen - shared);
		resetStringInfo(&b->row);
		appendBinaryStringInfo(&b->row, c->key, c->keylen);
		b->arena += c->keylen;
		/* a new row starts its families and qualifiers afresh */
		resetStringInfo(&b->fam);
		resetStringInfo(&b->qual);
	}
	if (new_fam)
	{
		put_byte(&b->keys, (uint8) c->famlen);
		put_bytes(&b->keys, c->family, c->famlen);
		put_varint(&b->keys, c->famid);
		resetStringInfo(&b->fam);
		appendBinaryStringInfo(&b->fam, c->family, c->famlen);
		b->famid = c->famid;
		resetStringInfo(&b->qual);
	}
	if (new_qual)
	{
		uint32		shared = common_prefix(b->qual.data, b->qual.len,
										   c->qual, c->quallen);

		put_varint(&b->keys, shared);
		put_varint(&b->keys, c->quallen - shared);
		put_bytes(&b->keys, c->qual + shared, c->quallen - shared);
		resetStringInfo(&b->qual);
		appendBinaryStringInfo(&b->qual, c->qual, c->quallen);
		b->arena += c->quallen;
	}

	put_zigzag(&b->ts, b->prev_ts - c->ts);
	if (c->kind == WIDE_KIND_DEL_CELLS)
		put_zigzag(&b->ts, c->ts_to - c->ts);
	b->prev_ts = c->ts;

	if (store_seq)
	{
		put_zigzag(&b->aux, (int64) (c->seq - b->prev_seq));
		b->prev_seq = c->seq;
	}
	if (!frozen)
	{
		put_varint(&b->aux, c->xmin);
		put_varint(&b->aux, c->cmin);
	}

	if (!WIDE_KIND_IS_TOMBSTONE(c->kind))
	{
		bool		blob = (c->flags & WIDE_REC_VALUE_BLOB) != 0;

		if (b->fixed_len > 0)
		{
			/* fixed-length values (and int64 accumulators) are never blobs */
			Assert(!blob);
			Assert(c->vallen == (c->kind == WIDE_KIND_PUT ?
								 (uint32) b->fixed_len : sizeof(int64)));
			put_bytes(&b->vals, c->value, c->vallen);
		}
		else
		{
			put_varint(&b->vals, ((uint64) c->vallen << 1) | (blob ? 1 : 0));
			if (blob)
				put_varint(&b->vals, c->blob.first);
			else
				put_bytes(&b->vals, c->value, c->vallen);
		}
	}
	b->ncells++;
}

/*
 * WideBlockFinish -- the encoded block, appended to out.
 */
void
WideBlockFinish(WideBlockBuilder *b, StringInfo out)
{
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

/* ----------------------------------------------------------------
 *	Decoding
 * ----------------------------------------------------------------
 */

/*
 * WideBlockDecode -- decode a block into an array of cells.  The cells point
 * into "data" (which must outlive them) and into a palloc'd arena.
 * default_seq is given to records stored without a sequence number.
 * Returns NULL if the block is malformed.
 */
WideDecodedBlock *
WideBlockDecode(const char *data, Size len, int16 typlen, uint64 default_seq)
{
	const char *end = data + len;
	const char *p = data;
	uint64		ncells,
				arena,
				keylen,
				tslen,
				auxlen;
	const char *k,
			   *kend,
			   *t,
			   *tend,
			   *a,
			   *aend,
			   *v;
	WideDecodedBlock *blk;
	char	   *ap;
	const char *row = NULL,
			   *qual = NULL,
			   *fam = NULL;
	uint32		rowlen = 0,
				quallen = 0,
				famlen = 0,
				famid = 0;
	int64		ts = 0;
	uint64		seq = 0;
	int16		fixed = typlen > 0 ? typlen : 0;
	uint64		i;

	if (!(p = get_varint(p, end, &ncells)) || !(p = get_varint(p, end, &arena)) ||
		!(p = get_varint(p, end, &keylen)) || !(p = get_varint(p, end, &tslen)) ||
		!(p = get_varint(p, end, &auxlen)))
		return NULL;
	if (keylen > (uint64) (end - p) || tslen > (uint64) (end - p) - keylen ||
		auxlen > (uint64) (end - p) - keylen - tslen ||
		ncells > len || arena > 64 * (uint64) len + 1024 * 1024)
		return NULL;
	k = p;
	kend = k + keylen;
	t = kend;
	tend = t + tslen;
	a = tend;
	aend = a + auxlen;
	v = aend;

	blk = palloc(offsetof(WideDecodedBlock, cells) + sizeof(WideCell) * Max(ncells, 1));
	blk->ncells = (int) ncells;
	blk->arena = palloc(Max(arena, 1));
	ap = blk->arena;

	for (i = 0; i < ncells; i++)
	{
		WideCell   *c = &blk->cells[i];
		uint8		flags;
		uint64		shared,
					unshared;
		int64		delta;

		if (k >= kend)
			goto bad;
		flags = (uint8) *k++;
		memset(c, 0, sizeof(WideCell));
		c->kind = flags & F_KIND;
		if (c->kind < WIDE_KIND_DEL_ROW || c->kind > WIDE_KIND_MERGE)
			goto bad;

		if (flags & F_NEW_ROW)
		{
			if (!(k = get_varint(k, kend, &shared)) ||
				!(k = get_varint(k, kend, &unshared)) ||
				shared > rowlen || unshared > (uint64) (kend - k) ||
				(uint64) (ap - blk->arena) + shared + unshared > arena)
				goto bad;
			if (shared > 0)
				memcpy(ap, row, shared);
			memcpy(ap + shared, k, unshared);
			k += unshared;
			row = ap;
			rowlen = shared + unshared;
			ap += rowlen;
			fam = NULL;
			famlen = 0;
			qual = NULL;
			quallen = 0;
		}
		else if (row == NULL)
			goto bad;
		if (flags & F_NEW_FAM)
		{
			if (k >= kend)
				goto bad;
			famlen = (uint8) *k++;
			if (famlen > (uint64) (kend - k))
				goto bad;
			fam = k;
			k += famlen;
			if (!(k = get_u32v(k, kend, &famid)))
				goto bad;
			qual = NULL;
			quallen = 0;
		}
		if (flags & F_NEW_QUAL)
		{
			if (!(k = get_varint(k, kend, &shared)) ||
				!(k = get_varint(k, kend, &unshared)) ||
				shared > quallen || unshared > (uint64) (kend - k) ||
				(uint64) (ap - blk->arena) + shared + unshared > arena)
				goto bad;
			if (shared > 0)
				memcpy(ap, qual, shared);
			memcpy(ap + shared, k, unshared);
			k += unshared;
			qual = ap;
			quallen = shared + unshared;
			ap += quallen;
		}

		c->key = row;
		c->keylen = rowlen;
		if (c->kind != WIDE_KIND_DEL_ROW)
		{
			if (fam == NULL)
				goto bad;
			c->family = fam;
			c->famlen = famlen;
			c->famid = famid;
		}
		else
			c->family = "";
		if (c->kind >= WIDE_KIND_DEL_CELLS)
		{
			if (qual == NULL && !(flags & F_NEW_QUAL))
				goto bad;
			c->qual = qual ? qual : "";
			c->quallen = quallen;
		}
		else
			c->qual = "";

		if (!(t = get_zigzag(t, tend, &delta)))
			goto bad;
		ts -= delta;
		c->ts = ts;
		c->ts_to = PG_INT64_MAX;
		if (c->kind == WIDE_KIND_DEL_CELLS)
		{
			if (!(t = get_zigzag(t, tend, &delta)))
				goto bad;
			c->ts_to = ts + delta;
		}

		if (flags & F_HAS_SEQ)
		{
			if (!(a = get_zigzag(a, aend, &delta)))
				goto bad;
			seq += (uint64) delta;
			c->seq = seq;
		}
		else
			c->seq = default_seq;
		if (flags & F_HAS_XMIN)
		{
			if (!(a = get_u32v(a, aend, &c->xmin)) ||
				!(a = get_u32v(a, aend, &c->cmin)))
				goto bad;
		}
		else
			c->xmin = FrozenTransactionId;

		if (!WIDE_KIND_IS_TOMBSTONE(c->kind))
		{
			if (fixed > 0)
			{
				int			n = (c->kind == WIDE_KIND_PUT) ? fixed : sizeof(int64);

				if (end - v < n)
					goto bad;
				c->value = v;
				c->vallen = n;
				v += n;
			}
			else
			{
				uint64		lb;

				if (!(v = get_varint(v, end, &lb)))
					goto bad;
				c->vallen = (uint32) (lb >> 1);
				if (lb & 1)
				{
					c->flags |= WIDE_REC_VALUE_BLOB;
					c->blob.length = c->vallen;
					if (!(v = get_u32v(v, end, &c->blob.first)))
						goto bad;
					c->value = NULL;
				}
				else
				{
					if (c->vallen > (uint64) (end - v))
						goto bad;
					c->value = v;
					v += c->vallen;
				}
			}
		}
	}
	if (k != kend || t != tend || a != aend || v != end)
		goto bad;
	return blk;

bad:
	pfree(blk->arena);
	pfree(blk);
	return NULL;
}

/*
 * WideDecodedBlockFree -- release a decoded block.
 */
void
WideDecodedBlockFree(WideDecodedBlock *blk)
{
	pfree(blk->arena);
	pfree(blk);
}
