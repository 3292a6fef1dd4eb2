/*-------------------------------------------------------------------------
 *
 * indexblock.c
 *	  Index blocks, the root index and row-key filters of a segment.
 *
 * A segment's data blocks are described by index blocks, each covering a
 * run of consecutive data blocks; the root index describes the index blocks.
 * Entries name the last row key of what they cover, so a seek to a row key
 * is a binary search for the first entry whose last row is >= the key.
 *
 *	  index    := nentries:varint arena:varint entry* filter
 *	  entry    := shared:varint unshared:varint lastrow-suffix
 *	              offset:varint length:varint ncells:varint
 *	              ts_min:zigzag ts_max:zigzag flags:u8 [lastcol]
 *	              [xmin:varint cmin:varint] [dirlen:varint]
 *	  lastcol  := famlen:u8 family quallen:varint qualifier
 *	      flags: 0x01 tombstones below; 0x02 lastcol follows (format
 *	      version 3): the family and qualifier of the last record covered,
 *	      when it is of a column, so that a reader stepping past a column
 *	      skips the blocks that hold nothing else (segment_reader.c);
 *	      0x04 the data block's stored xmins are frozen (format version 5,
 *	      blockpass.c); 0x08 xmin and cmin follow (format version 6): every
 *	      record of the data block has them and stores none (block.c);
 *	      0x10 dirlen follows (format version 7): the stored block of the
 *	      data block's row directory (rowdir.c), of dirlen bytes, follows
 *	      the data block in the stream
 *	  filter   := nbits:varint k:u8 bits          (0 bits: no filter)
 *	  root     := nentries:varint arena:varint entry* 0   (no filter)
 *
 * "arena" is the total length of the last-row keys, to rebuild them.
 *
 * Offsets and lengths locate stored blocks (compress.c) in the segment's
 * byte stream.  The filter of an index block is a Bloom filter over the
 * distinct row keys of its data blocks, 10 bits a key and 7 probes (about
 * 1% false positives), so a point read skips blocks without its row.
 *
 * IDENTIFICATION
 *	  src/engine/indexblock.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/segment.h"
#include "engine/coding.h"

#define BLOOM_BITS_PER_KEY	10
#define BLOOM_PROBES		7

/*
 * WideRowHash -- the 64-bit hash of a row key used by the filters.
 */
uint64
WideRowHash(const char *key, uint32 len)
{
	return DatumGetUInt64(hash_bytes_extended((const unsigned char *) key,
											  (int) len, 0x77696465));
}

/*
 * WideIndexEncode -- encode entries (and a filter over the given row
 * hashes, if nhashes > 0) into out.
 */
void
WideIndexEncode(const WideIndexEntry *entries, int n, const uint64 *hashes,
				int nhashes, StringInfo out)
{
	const char *prev = "";
	uint32		prevlen = 0;
	int			i;

	uint64		arena = 0;

	for (i = 0; i < n; i++)
		arena += entries[i].lastrowlen;
	put_varint(out, n);
	put_varint(out, arena);
	for (i = 0; i < n; i++)
	{
		const WideIndexEntry *e = &entries[i];
		uint32		shared = common_prefix(prev, prevlen, e->lastrow, e->lastrowlen);

		put_varint(out, shared);
		put_varint(out, e->lastrowlen - shared);
		put_bytes(out, e->lastrow + shared, e->lastrowlen - shared);
		put_varint(out, e->offset);
		put_varint(out, e->length);
		put_varint(out, e->ncells);
		put_zigzag(out, e->ts_min);
		put_zigzag(out, e->ts_max);
		put_byte(out, e->flags);
		if (e->flags & WIDE_INDEX_HAS_LASTCOL)
		{
			put_byte(out, (uint8) e->lastfamlen);
			put_bytes(out, e->lastfam, e->lastfamlen);
			put_varint(out, e->lastquallen);
			put_bytes(out, e->lastqual, e->lastquallen);
		}
		if (e->flags & WIDE_INDEX_ONE_XMIN)
		{
			put_varint(out, e->xmin);
			put_varint(out, e->cmin);
		}
		if (e->flags & WIDE_INDEX_ROW_DIR)
			put_varint(out, e->dirlen);
		prev = e->lastrow;
		prevlen = e->lastrowlen;
	}

	if (nhashes > 0)
	{
		uint32		nbits = Max(64, nhashes * BLOOM_BITS_PER_KEY);
		uint32		nbytes = (nbits + 7) / 8;
		uint8	   *bits = palloc0(nbytes);

		nbits = nbytes * 8;
		for (i = 0; i < nhashes; i++)
		{
			uint64		h = hashes[i];
			uint64		delta = (h >> 33) | (h << 31);
			int			j;

			for (j = 0; j < BLOOM_PROBES; j++)
			{
				uint32		bit = (uint32) (h % nbits);

				bits[bit / 8] |= 1 << (bit % 8);
				h += delta;
			}
		}
		put_varint(out, nbits);
		put_byte(out, BLOOM_PROBES);
		put_bytes(out, (const char *) bits, nbytes);
		pfree(bits);
	}
	else
		put_varint(out, 0);
}

/*
 * WideIndexDecode -- decode an index or root block.  Entries' last rows
 * point into a palloc'd arena; their last columns and the filter (if any)
 * into "data", which must outlive the index.  NULL if malformed.
 */
WideIndex *
WideIndexDecode(const char *data, Size len, bool has_filter)
{
	const char *p = data;
	const char *end = data + len;
	uint64		n;
	uint64		arenalen;
	WideIndex  *idx;
	char	   *arena;
	char	   *ap;
	const char *prev = "";
	uint32		prevlen = 0;
	uint64		i;

	/* an entry takes at least 8 bytes, a last row at most WIDE_MAX_ROW_KEY */
	if (!(p = get_varint(p, end, &n)) || n > len / 8 ||
		!(p = get_varint(p, end, &arenalen)) ||
		arenalen > n * WIDE_MAX_ROW_KEY || arenalen > MaxAllocSize)
		return NULL;
	idx = palloc(sizeof(WideIndex));
	idx->n = (int) n;
	idx->entries = palloc(sizeof(WideIndexEntry) * Max(n, 1));
	arena = palloc(Max(arenalen, 1));
	ap = arena;
	idx->arena = arena;
	idx->bits = NULL;
	idx->nbits = 0;
	idx->nprobes = 0;
	idx->plen = 0;
	idx->next8 = NULL;

	for (i = 0; i < n; i++)
	{
		WideIndexEntry *e = &idx->entries[i];
		uint64		shared,
					unshared;
		int64		z;
		uint64		u;

		if (!(p = get_varint(p, end, &shared)) ||
			!(p = get_varint(p, end, &unshared)) ||
			shared > prevlen || unshared > (uint64) (end - p) ||
			shared + unshared > WIDE_MAX_ROW_KEY ||
			(uint64) (ap - arena) + shared + unshared > arenalen)
			goto bad;
		memcpy(ap, prev, shared);
		memcpy(ap + shared, p, unshared);
		p += unshared;
		e->lastrow = ap;
		e->lastrowlen = shared + unshared;
		ap += e->lastrowlen;
		if (!(p = get_varint(p, end, &e->offset)) ||
			!(p = get_varint(p, end, &u)) || u > PG_UINT32_MAX)
			goto bad;
		e->length = (uint32) u;
		if (!(p = get_varint(p, end, &e->ncells)) ||
			!(p = get_zigzag(p, end, &z)))
			goto bad;
		e->ts_min = z;
		if (!(p = get_zigzag(p, end, &z)) || p >= end)
			goto bad;
		e->ts_max = z;
		e->flags = (uint8) *p++;
		if (e->flags & ~WIDE_INDEX_ALL_FLAGS)
			goto bad;
		e->lastfam = e->lastqual = NULL;
		e->lastfamlen = e->lastquallen = 0;
		if (e->flags & WIDE_INDEX_HAS_LASTCOL)
		{
			/* (points into data, which the caller keeps) */
			if (p >= end || (uint8) *p > WIDE_MAX_FAMILY_NAME ||
				(uint8) *p > (uint64) (end - p - 1))
				goto bad;
			e->lastfamlen = (uint8) *p++;
			e->lastfam = p;
			p += e->lastfamlen;
			if (!(p = get_varint(p, end, &u)) || u > WIDE_MAX_QUALIFIER ||
				u > (uint64) (end - p))
				goto bad;
			e->lastquallen = (uint32) u;
			e->lastqual = p;
			p += u;
		}
		e->xmin = InvalidTransactionId;
		e->cmin = 0;
		if (e->flags & WIDE_INDEX_ONE_XMIN)
		{
			if (!(p = get_varint(p, end, &u)) || u > PG_UINT32_MAX ||
				!TransactionIdIsValid((TransactionId) u))
				goto bad;
			e->xmin = (TransactionId) u;
			if (!(p = get_varint(p, end, &u)) || u > PG_UINT32_MAX)
				goto bad;
			e->cmin = (CommandId) u;
		}
		e->dirlen = 0;
		if (e->flags & WIDE_INDEX_ROW_DIR)
		{
			if (!(p = get_varint(p, end, &u)) || u < 5 || u > PG_UINT32_MAX)
				goto bad;
			e->dirlen = (uint32) u;
		}
		prev = e->lastrow;
		prevlen = e->lastrowlen;
	}

	{
		uint64		nbits;

		if (!(p = get_varint(p, end, &nbits)))
			goto bad;
		if (nbits > 0)
		{
			if (!has_filter || p >= end || nbits % 8 != 0 ||
				nbits / 8 != (uint64) (end - p - 1))
				goto bad;
			idx->nprobes = (uint8) *p++;
			idx->nbits = (uint32) nbits;
			idx->bits = (const uint8 *) p;
			p += nbits / 8;
		}
	}
	if (p != end)
		goto bad;
	/* the keys' common prefix and what follows it, for WideIndexSeek */
	if (idx->n == 0)
		return idx;
	idx->plen = Min(idx->entries[0].lastrowlen, WIDE_KEY_PREFIX_MAX);
	for (i = 1; i < idx->n; i++)
		idx->plen = WideKeyCommonLen(idx->entries[0].lastrow, idx->plen,
									 idx->entries[i].lastrow,
									 idx->entries[i].lastrowlen);
	memcpy(idx->prefix, idx->entries[0].lastrow, idx->plen);
	idx->next8 = palloc(sizeof(uint64) * Max(idx->n, 1));
	for (i = 0; i < idx->n; i++)
		idx->next8[i] = WideKeyNext8(idx->entries[i].lastrow,
									 idx->entries[i].lastrowlen, idx->plen);
	return idx;

bad:
	pfree(idx->entries);
	pfree(arena);
	pfree(idx);
	return NULL;
}

/*
 * WideIndexMayContain -- false if the filter proves the row is absent.
 */
bool
WideIndexMayContain(const WideIndex *idx, uint64 h)
{
	uint64		delta = (h >> 33) | (h << 31);
	int			j;

	if (idx->bits == NULL)
		return true;
	for (j = 0; j < idx->nprobes; j++)
	{
		uint32		bit = (uint32) (h % idx->nbits);

		if (!(idx->bits[bit / 8] & (1 << (bit % 8))))
			return false;
		h += delta;
	}
	return true;
}

/*
 * WideIndexSeek -- index of the first entry whose last row is >= key
 * (n if none).
 */
int
WideIndexSeek(const WideIndex *idx, const char *key, uint32 keylen)
{
	int			lo = 0;
	int			hi = idx->n;
	uint64		k8 = 0;

	if (idx->next8 != NULL && idx->n > 0)
	{
		int			pos = WideKeyPrefixSeek(key, keylen, idx->prefix, idx->plen,
											idx->n, &k8);

		if (pos >= 0)
			return pos;
	}
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const WideIndexEntry *e = &idx->entries[mid];
		int			cmp;

		/* the 8 bytes after the prefix order the keys, unless equal */
		if (idx->next8 != NULL && idx->next8[mid] != k8)
			cmp = idx->next8[mid] < k8 ? -1 : 1;
		else
			cmp = WideKeyCompare(e->lastrow, e->lastrowlen, key, keylen);
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * WideIndexFree -- release a decoded index.
 */
void
WideIndexFree(WideIndex *idx)
{
	pfree(idx->entries);
	pfree(idx->arena);
	if (idx->next8)
		pfree(idx->next8);
	pfree(idx);
}
