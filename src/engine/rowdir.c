/*-------------------------------------------------------------------------
 *
 * rowdir.c
 *	  A data block's stored row directory (format version 7): restart
 *	  points, so that a point read of a block no statement read before
 *	  steps over a part of the block instead of everything before its row.
 *
 * A data block's sections are read front to back (block.c): each row key
 * shares a prefix with the one before, each timestamp is a difference from
 * the one before, and values and timestamps have no fixed width, so finding
 * a row meant stepping over every record before it.  The cached row
 * directory (WideBlockRowsBuild) helps blocks read again, but is built by
 * such a pass itself; a DELETE or SELECT of readings spread over blocks
 * read once (an IN list of 100 readings of one host: a fifth of its
 * backend's CPU) paid for half a block a reading.  So the writer notes, at
 * the first row starting past every quarter of wide.block_size, where the
 * row starts in each section, and stores that after the data block:
 *
 *	  dir    := n:varint point{n}
 *	  point  := i:varint koff:varint aoff:varint dtsn:varint dvaln:varint
 *	            voff:varint ts:zigzag seq:varint shared:varint
 *	            unshared:varint bytes[unshared]
 *
 * i is the row's first record; koff and aoff its offsets in the key and
 * aux sections; i + dtsn the timestamp varints before it (a record's, and
 * a DEL_CELLS record's end too); i - dvaln the values before it (of PUT,
 * ADD and MERGE records) and voff its offset in the values section; ts the
 * timestamp of the record before it less that of the block's first record,
 * and seq the sequence number stored last before it (0 if none): what the
 * block's iterator holds there; then the row key, sharing shared bytes
 * with the previous point's (the first point: with the block's first row
 * key).  Points are in record order, each at a row's first record, none at
 * the block's first.  The key and aux sections are the same in a block
 * read packed (blockpack.c); its timestamps and, packed by an exponent, its
 * values are varints of other lengths, which the reader steps over by
 * count (skip_varints: eight bytes a step).
 *
 * The directory is stored as a raw block of its own (compress.c framing,
 * type 0: a zstd frame would cost a point read more than it saves) right
 * after the data block in the run's stream, and the data block's index
 * entry says so and how long it is (WIDE_INDEX_ROW_DIR, indexblock.c).  Blocks
 * without one (format versions 1 to 6, wide.block_row_directory = off, a
 * block shorter than a quarter of wide.block_size) are read as before.
 *
 * IDENTIFICATION
 *	  src/engine/rowdir.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "engine/coding.h"
#include "engine/cell.h"
#include "engine/segment.h"

/*
 * WideRowDirEncode -- the directory of points p[0..n) of a block whose
 * first record has timestamp ts0 and row key first (firstlen bytes), the
 * points' row keys in keys (at each point's keyoff), appended to out.
 */
void
WideRowDirEncode(const WideDirPoint *p, int n, int64 ts0, const char *first,
				 uint32 firstlen, const char *keys, StringInfo out)
{
	const char *prev = first;
	uint32		prevlen = firstlen;

	put_varint(out, n);
	for (int j = 0; j < n; j++)
	{
		const char *key = keys + p[j].keyoff;
		uint32		shared = 0;

		Assert(p[j].tsn >= (uint32) p[j].i && p[j].valn <= (uint32) p[j].i);
		while (shared < prevlen && shared < p[j].keylen && prev[shared] == key[shared])
			shared++;
		put_varint(out, p[j].i);
		put_varint(out, p[j].koff);
		put_varint(out, p[j].aoff);
		put_varint(out, p[j].tsn - p[j].i);
		put_varint(out, p[j].i - p[j].valn);
		put_varint(out, p[j].voff);
		put_zigzag(out, (int64) ((uint64) p[j].ts - (uint64) ts0));
		put_varint(out, p[j].seq);
		put_varint(out, shared);
		put_varint(out, p[j].keylen - shared);
		put_bytes(out, key + shared, p[j].keylen - shared);
		prev = key;
		prevlen = p[j].keylen;
	}
}

/*
 * block_start -- the first record's row key and timestamp of the block the
 * iterator reads (the bases of its directory's first key and of every
 * timestamp); false if they do not decode.
 */
static bool
block_start(const WideBlockIter *it, const char **key, uint64 *keylen,
			int64 *ts0)
{
	const char *k = it->kstart;
	uint64		shared;
	int64		d;

	if (it->ncells == 0 || k >= it->kend || !((uint8) *k & 0x08) ||
		!(k = get_varint(k + 1, it->kend, &shared)) || shared != 0 ||
		!(k = get_varint(k, it->kend, keylen)) ||
		*keylen > (uint64) (it->kend - k) || *keylen > WIDE_MAX_ROW_KEY ||
		!get_zigzag(it->kend, it->tend, &d))
		return false;
	*key = k;
	*ts0 = (int64) (0 - (uint64) d * it->ts_unit);
	return true;
}

/*
 * read_point -- the point at *p (advanced past it) of a directory ending at
 * end, of the block the iterator reads, whose first record's timestamp is
 * ts0: its fields into *pt and its row key into key (WIDE_MAX_ROW_KEY
 * bytes, holding the previous point's key, of *keylen bytes, on entry).
 * lasti is the previous point's record (0 before the first).  False if it
 * does not decode or does not fit the block.
 */
static bool
read_point(const char **p, const char *end, const WideBlockIter *it,
		   int64 ts0, uint64 lasti, WideDirPoint *pt, char *key, uint32 *keylen)
{
	const char *q = *p;
	uint64		i,
				koff,
				aoff,
				dtsn,
				dvaln,
				voff,
				seq,
				shared,
				unshared;
	int64		ts;

	if (!(q = get_varint(q, end, &i)) || !(q = get_varint(q, end, &koff)) ||
		!(q = get_varint(q, end, &aoff)) || !(q = get_varint(q, end, &dtsn)) ||
		!(q = get_varint(q, end, &dvaln)) || !(q = get_varint(q, end, &voff)) ||
		!(q = get_zigzag(q, end, &ts)) || !(q = get_varint(q, end, &seq)) ||
		!(q = get_varint(q, end, &shared)) || !(q = get_varint(q, end, &unshared)) ||
		shared > *keylen || unshared > (uint64) (end - q) ||
		shared + unshared > WIDE_MAX_ROW_KEY)
		return false;
	/*
	 * in record order, none at the first record, within the block (a block
	 * read packed by an exponent has other values: voff is not used)
	 */
	if (i <= lasti || i >= (uint64) it->ncells || dvaln > i ||
		dtsn > (uint64) (it->tend - it->kend) ||
		koff > (uint64) (it->kend - it->kstart) ||
		aoff > (uint64) (it->aend - it->tend) ||
		(it->val_div == 0.0 && voff > (uint64) (it->end - it->aend)))
		return false;
	memcpy(key + shared, q, unshared);
	*keylen = (uint32) (shared + unshared);
	*p = q + unshared;
	pt->i = (int) i;
	pt->koff = (uint32) koff;
	pt->aoff = (uint32) aoff;
	pt->tsn = (uint32) (i + dtsn);
	pt->voff = (uint32) voff;
	pt->valn = (uint32) (i - dvaln);
	pt->ts = (int64) ((uint64) ts + (uint64) ts0);
	pt->seq = seq;
	pt->keyoff = 0;
	pt->keylen = *keylen;
	return true;
}

/*
 * dir_seek -- WideRowDirSeek; with stop >= 0, to that point (the last one
 * at most) whatever the key.
 */
static int
dir_seek(WideBlockIter *it, const char *dir, Size len, const char *key,
		 uint32 keylen, bool incl, int stop)
{
	const char *p = dir;
	const char *end = dir + len;
	uint64		n;
	const char *first;
	uint64		firstlen;
	int64		ts0;
	char		cur[WIDE_MAX_ROW_KEY];
	char		bestkey[WIDE_MAX_ROW_KEY];
	uint32		curlen;
	int			best = 0;
	WideDirPoint pt,
				bestpt = {0};
	uint64		lasti = 0;

	if (!(p = get_varint(p, end, &n)) || n > (uint64) it->ncells ||
		!block_start(it, &first, &firstlen, &ts0))
		goto bad;
	memcpy(cur, first, firstlen);
	curlen = (uint32) firstlen;
	for (uint64 j = 0; j < n; j++)
	{
		if (!read_point(&p, end, it, ts0, lasti, &pt, cur, &curlen))
			goto bad;
		lasti = pt.i;
		if (stop < 0)
		{
			int			cmp = WideKeyCompare(cur, curlen, key, keylen);

			if (cmp > 0 || (cmp == 0 && incl))
				break;			/* this point's row is where the skip stops */
		}
		else if ((int) j > stop)
			break;
		if (pt.i <= it->i)
			continue;			/* behind the iterator */
		best = (int) j + 1;
		bestpt = pt;
		memcpy(bestkey, cur, curlen);
	}
	if (best == 0)
		return 0;
	if (!WideBlockIterSeekPoint(it, &bestpt, bestkey))
		goto bad;
	return best;

bad:
	it->error = true;
	return -1;
}

/*
 * WideRowDirSeek -- move an iterator over a block to the last point of its
 * directory (dir, len bytes) that lies past the iterator's record and
 * before the first row >= key (> key if !incl), if there is one: the
 * iterator is then where it would be after stepping over the records
 * before that point.  The caller steps on from there (WideBlockIterSkipRows).
 * Returns the point's index plus one (0: none, the iterator left as it
 * was), or -1 if the directory does not fit the block (the iterator's
 * error set).
 */
int
WideRowDirSeek(WideBlockIter *it, const char *dir, Size len, const char *key,
			   uint32 keylen, bool incl)
{
	return dir_seek(it, dir, len, key, keylen, incl, -1);
}

/* are two records of a block the same (keys, times, aux and value)? */
static bool
same_record(const WideCell *a, const WideCell *b)
{
	return a->kind == b->kind && a->ts == b->ts && a->ts_to == b->ts_to &&
		a->seq == b->seq && a->xmin == b->xmin && a->cmin == b->cmin &&
		a->vallen == b->vallen && WideCellCompare(a, b) == 0 &&
		(a->vallen == 0 || a->value == NULL || b->value == NULL ||
		 memcmp(a->value, b->value, a->vallen) == 0);
}

/*
 * WideRowDirCheck -- does the stored row directory (dir, dirlen bytes) fit
 * its data block (raw, rawlen bytes, of index entry e; wide.verify): at
 * each point the iterator must read the record a pass from the block's
 * start reads there (its key, times, aux and value: each section's offset
 * and the state carried into it).  One pass over the block.  *why says
 * what does not fit.
 */
bool
WideRowDirCheck(const char *raw, Size rawlen, int16 typlen, uint64 default_seq,
				uint64 seq_base, const WideIndexEntry *e, const char *dir,
				Size dirlen, const char **why)
{
	WideBlockIter a = {0},
				b = {0};
	WideCell	ca,
				cb;
	uint64		n;
	bool		ok = true;

	if (!get_varint(dir, dir + dirlen, &n))
	{
		*why = "its point count does not decode";
		return false;
	}
	if (!WideBlockIterInit(&b, raw, rawlen, typlen, default_seq, seq_base))
	{
		*why = "the block does not decode";
		return false;
	}
	WideBlockIterSetEntry(&b, e);
	for (uint64 j = 0; j < n && ok; j++)
	{
		if (!WideBlockIterInit(&a, raw, rawlen, typlen, default_seq, seq_base))
		{
			*why = "the block does not decode";
			ok = false;
			break;
		}
		WideBlockIterSetEntry(&a, e);
		if (dir_seek(&a, dir, dirlen, NULL, 0, false, (int) j) != (int) j + 1)
		{
			*why = "it does not fit the block";
			ok = false;
			break;
		}
		/* (points are in record order: b only goes forward) */
		while (b.i < a.i && WideBlockIterNext(&b, &cb))
			;
		if (b.i != a.i || !WideBlockIterNext(&a, &ca) ||
			!WideBlockIterNext(&b, &cb) || !same_record(&ca, &cb))
		{
			*why = "a point's record differs from the block's";
			ok = false;
		}
	}
	WideBlockIterEnd(&a);
	WideBlockIterEnd(&b);
	return ok;
}
