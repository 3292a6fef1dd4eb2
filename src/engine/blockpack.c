/*-------------------------------------------------------------------------
 *
 * blockpack.c
 *	  Packing of data blocks before compression (stored block type 2).
 *
 * A data block (block.c) is a header and four sections: keys, timestamps,
 * auxiliary fields and values.  Two of them hold numbers that zstd
 * compresses poorly as they are:
 *
 *	- timestamps are zigzag varints of deltas in microseconds, while most
 *	  data is stamped in milliseconds or seconds: every delta of a block of
 *	  such data is a multiple of 1000 (or 10^6), so the packed block stores
 *	  the deltas divided by their greatest common divisor (the unit);
 *	- fixed-length 8-byte values are often float8 readings with a few
 *	  decimals (53.27), whose binary fractions look random; when every value
 *	  of the block is k / 10^e for an integer k (for one e, bit for bit),
 *	  the packed block stores zigzag varints of k instead, as ALP does
 *	  ("ALP: Adaptive Lossless floating-Point Compression", SIGMOD 2024).
 *
 *	- other 8-byte values (full-precision float8 readings, random walks)
 *	  are coded against the previous value of their column, in the class of
 *	  Gorilla ("Gorilla: A Fast, Scalable, In-Memory Time Series Database",
 *	  VLDB 2015): the residual of a value is the difference of its 64 bits
 *	  and those of the value before it in the block with the same family
 *	  and qualifier (in a tall-and-narrow block, about as many records back
 *	  as a row has columns; in a block of versions, the record before), or
 *	  of the value just before it when its column has none, or of 0 for the
 *	  block's first value.  An integer difference of the bit patterns rather
 *	  than Gorilla's XOR: it is as exact (arithmetic modulo 2^64), and a
 *	  step that crosses a power of two stays small where the XOR sets
 *	  exponent bits (TSBS-like random walks, blocks of 900 values after
 *	  zstd: 6.40 bytes a value against 6.49 for XOR).  Residuals are stored
 *	  in a bit stream, each in one of four widths chosen per block (the
 *	  cheapest for the block's residual lengths) after a 2-bit width class:
 *	  a stream zstd cannot shrink further, which keeps the block small
 *	  after zstd (a byte stream of bit lengths beside the bits came out
 *	  4.5% larger after zstd, which codes a block's literals with one
 *	  table).
 *
 *	  packed := rawlen:varint unit:varint exp:u8 ncells:varint arena:varint
 *				keylen:varint tslen:varint auxlen:varint
 *				keys ts' aux values'
 *	  ts'     := zigzag(delta / unit)*       (the raw section's varints)
 *	  values' := the raw values if exp = 255,
 *				 delta if exp = 254 (format version 4),
 *				 else zigzag(k)* with value = (float8) k / 10^exp
 *	  delta   := shift:u8 w0:u8 w1:u8 w2:u8 w3:u8 bits
 *	  bits    := (class:2 r:w[class])*, least significant bit first, zero
 *				 padded to a byte; one per value record (PUT, ADD, MERGE)
 *	  value   := bits(ref) + (unzigzag(r) << shift)  (as uint64, mod 2^64)
 *
 *	  0 <= shift <= 63, w0 <= w1 <= w2 <= w3 <= 64; ref is the value
 *	  record before it of the same column, else the value record just
 *	  before it, else 0.  A record's column is the hash of its family id
 *	  and qualifier (column_hash: FNV-1a 64 of the qualifier's bytes from
 *	  0xcbf29ce484222325 ^ famid, then h ^= h >> 33, h *= 0xff51afd7ed558ccd,
 *	  h ^= h >> 33), as the key section gives them (as block.c reads it: a
 *	  value record with no qualifier since its family started has the
 *	  empty one); two columns of one hash are one column.
 *	  shift is the fewest trailing zero bits of the block's non-zero
 *	  differences (integers stored as float8 have many).  The writer uses
 *	  delta only for a block of 8-byte values that no exponent packs and
 *	  where it is smaller than the raw values.
 *
 * Packing is a function of the raw bytes only (it does not need to know
 * the table's types), and the writer unpacks what it packed and compares
 * before it stores a packed block, so a packed block always unpacks to the
 * exact raw block, whatever the bytes meant.  A reader iterates a packed
 * block as it is when it can (block.c), multiplying each timestamp varint
 * by the unit and dividing each k by 10^e as it goes: the block cache then
 * holds the packed form, which is smaller, and no block is rewritten to
 * be read.  Where it cannot (values not all 8 bytes long, or delta coded:
 * a value needs the one before it in its column), compress.c unpacks the
 * block first, and the block cache holds the raw block.
 *
 * IDENTIFICATION
 *	  src/engine/blockpack.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "wide.h"
#include "engine/coding.h"
#include "engine/segment.h"

#define EXP_NONE		255
#define EXP_DELTA		254		/* values' delta coded (format version 4) */
#define MAX_EXP			18		/* 10^18 < 2^63, and exact as a float8 */
#define MAX_UNIT		((uint64) 1 << 62)

/* 10^e as a float8, exact for e <= 22 */
static double
pow10_exact(int e)
{
	double		f = 1.0;

	while (e-- > 0)
		f *= 10.0;
	return f;
}

static uint64
gcd64(uint64 a, uint64 b)
{
	while (b != 0)
	{
		uint64		t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* the raw block's header and sections; false if malformed */
typedef struct RawBlock
{
	uint64		ncells,
				arena,
				keylen,
				tslen,
				auxlen;
	const char *keys,
			   *ts,
			   *aux,
			   *vals;
	Size		valslen;
} RawBlock;

static bool
parse_raw(const char *raw, Size len, RawBlock *b)
{
	const char *end = raw + len;
	const char *p = raw;

	if (!(p = get_varint(p, end, &b->ncells)) || !(p = get_varint(p, end, &b->arena)) ||
		!(p = get_varint(p, end, &b->keylen)) || !(p = get_varint(p, end, &b->tslen)) ||
		!(p = get_varint(p, end, &b->auxlen)))
		return false;
	if (b->keylen > (uint64) (end - p) || b->tslen > (uint64) (end - p) - b->keylen ||
		b->auxlen > (uint64) (end - p) - b->keylen - b->tslen)
		return false;
	b->keys = p;
	b->ts = b->keys + b->keylen;
	b->aux = b->ts + b->tslen;
	b->vals = b->aux + b->auxlen;
	b->valslen = end - b->vals;
	return true;
}

/* the unit of a timestamp section: gcd of its deltas (1: none) */
static uint64
ts_unit(const char *p, const char *end)
{
	uint64		g = 0;

	while (p < end)
	{
		int64		d;
		uint64		a;

		if (!(p = get_zigzag(p, end, &d)))
			return 1;
		a = d < 0 ? (uint64) 0 - (uint64) d : (uint64) d;
		g = gcd64(g, a);
		if (g == 1)
			return 1;
	}
	return (g == 0 || g > MAX_UNIT) ? 1 : g;
}

/* the smallest e for which every 8-byte value is k / 10^e; EXP_NONE if none */
static int
value_exp(const char *v, Size len)
{
	Size		n = len / 8;
	int			e;

	if (len == 0 || len % 8 != 0)
		return EXP_NONE;
	for (e = 0; e <= MAX_EXP; e++)
	{
		double		f = pow10_exact(e);
		Size		i;

		for (i = 0; i < n; i++)
		{
			double		d;
			double		x;
			double		back;

			memcpy(&d, v + i * 8, 8);
			x = d * f;
			if (!(fabs(x) < 4503599627370496.0))	/* 2^52; false for NaN */
				break;
			back = (double) (int64) rint(x) / f;
			if (memcmp(&back, v + i * 8, 8) != 0)
				break;
		}
		if (i == n)
			return e;
	}
	return EXP_NONE;
}

/*
 * The delta coding of 8-byte values (values' with exp = EXP_DELTA).
 */

/* a record's flags in the key section (block.c) */
#define K_KIND		0x07
#define K_NEW_ROW	0x08
#define K_NEW_FAM	0x10
#define K_NEW_QUAL	0x20

#define DELTA_HEAD	5			/* shift w0 w1 w2 w3 */

/* value_refs's tables, kept for the backend (grown as blocks need) */
static uint64 *col_hash = NULL;
static int32 *col_last = NULL;
static uint32 col_cap = 0;
static char *col_qual = NULL;

/* a column's hash: of its qualifier's bytes, seeded with the family id */
static inline uint64
column_hash(const char *q, uint64 len, uint32 famid)
{
	uint64		h = UINT64CONST(0xcbf29ce484222325) ^ famid;
	uint64		i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8) q[i]) * UINT64CONST(0x100000001b3);
	/* (murmur3's finalizer: the table takes the low bits) */
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

/*
 * value_refs -- for each value record of a block's key section (ncells
 * records), the index of its reference value: the value record before it
 * of the same column, else the one just before it, else -1 (none); into
 * refs (room for ncells).  Returns the number of value records, or -1 if
 * the key section is malformed.  The encoder and the decoder both use it,
 * so a column is a hash of the family id and the qualifier: two columns
 * sharing a hash only make the prediction worse, never a value wrong.
 */
static int
value_refs(const char *k, Size keylen, uint64 ncells, int32 *refs)
{
	const char *kend = k + keylen;
	uint32		cap = 16;
	uint64		quallen = 0;
	bool		have_row = false;
	bool		have_fam = false;
	uint32		famid = 0;
	bool		h_valid = false;
	uint32		slot = 0;
	int			nvals = 0;
	uint64		i;

	/* (every record has a flags byte: this bounds what is allocated) */
	if (ncells > keylen || ncells > MaxAllocSize / 32)
		return -1;
	while (cap < ncells * 2)
		cap <<= 1;
	if (col_cap < cap)
	{
		if (col_hash)
		{
			pfree(col_hash);
			pfree(col_last);
		}
		col_hash = MemoryContextAlloc(TopMemoryContext, sizeof(uint64) * cap);
		col_last = MemoryContextAlloc(TopMemoryContext, sizeof(int32) * cap);
		col_cap = cap;
	}
	if (col_qual == NULL)
		col_qual = MemoryContextAlloc(TopMemoryContext, WIDE_MAX_QUALIFIER);
	memset(col_last, 0xff, sizeof(int32) * cap);	/* -1: empty slot */

	for (i = 0; i < ncells; i++)
	{
		uint8		flags,
					kind;
		uint64		shared,
					unshared;

		if (k >= kend)
			return -1;
		flags = (uint8) *k++;
		kind = flags & K_KIND;
		if (kind < WIDE_KIND_DEL_ROW || kind > WIDE_KIND_MERGE)
			return -1;
		if (flags & K_NEW_ROW)
		{
			if (!(k = get_varint(k, kend, &shared)) ||
				!(k = get_varint(k, kend, &unshared)) ||
				unshared > (uint64) (kend - k))
				return -1;
			k += unshared;
			have_row = true;
			have_fam = false;
			quallen = 0;
			h_valid = false;
		}
		else if (!have_row)
			return -1;
		if (flags & K_NEW_FAM)
		{
			uint8		famlen;

			if (k >= kend)
				return -1;
			famlen = (uint8) *k++;
			if (famlen > (uint64) (kend - k))
				return -1;
			k += famlen;
			if (!(k = get_u32v(k, kend, &famid)))
				return -1;
			have_fam = true;
			quallen = 0;
			h_valid = false;
		}
		if (flags & K_NEW_QUAL)
		{
			if (!(k = get_varint(k, kend, &shared)) ||
				!(k = get_varint(k, kend, &unshared)) ||
				shared > quallen || unshared > (uint64) (kend - k) ||
				shared + unshared > WIDE_MAX_QUALIFIER)
				return -1;
			memcpy(col_qual + shared, k, unshared);
			k += unshared;
			quallen = shared + unshared;
			h_valid = false;
		}
		if (WIDE_KIND_IS_TOMBSTONE(kind))
			continue;
		if (!have_fam)
			return -1;
		if (!h_valid)
		{
			/* (unchanged since the last value record: the same column) */
			uint64		h = column_hash(col_qual, quallen, famid);

			h_valid = true;
			for (slot = (uint32) h & (cap - 1);
				 col_last[slot] >= 0 && col_hash[slot] != h;
				 slot = (slot + 1) & (cap - 1))
				;
			col_hash[slot] = h;
		}
		refs[nvals] = col_last[slot] >= 0 ? col_last[slot] : nvals - 1;
		col_last[slot] = nvals;
		nvals++;
	}
	if (k != kend)
		return -1;
	return nvals;
}

/* a bit stream, least significant bit first */
typedef struct BitWriter
{
	StringInfo	out;
	uint64		acc;			/* pending bits, fewer than 8 between calls */
	int			n;
} BitWriter;

static inline void
bits_put(BitWriter *w, uint64 v, int nbits)
{
	while (nbits > 0)
	{
		int			take = Min(nbits, 64 - w->n);
		uint64		part = take == 64 ? v : v & (((uint64) 1 << take) - 1);

		w->acc |= part << w->n;
		v = take == 64 ? 0 : v >> take;
		nbits -= take;
		w->n += take;
		while (w->n >= 8)
		{
			appendStringInfoCharMacro(w->out, (char) (w->acc & 0xff));
			w->acc = w->n == 8 ? 0 : w->acc >> 8;
			w->n -= 8;
		}
	}
}

static inline void
bits_flush(BitWriter *w)
{
	if (w->n > 0)
		appendStringInfoCharMacro(w->out, (char) (w->acc & 0xff));
	w->acc = 0;
	w->n = 0;
}

typedef struct BitReader
{
	const uint8 *p;				/* the stream */
	Size		len;			/* its bytes */
	uint64		pos;			/* the next bit */
} BitReader;

/*
 * bits_get -- the next nbits (at most 64) of the stream; past its end the
 * stream reads as zeros, and *r.pos says how far it went (the caller
 * checks it against the stream's length).
 */
static inline uint64
bits_get(BitReader *r, int nbits)
{
	Size		at = (Size) (r->pos >> 3);
	int			sh = (int) (r->pos & 7);
	uint64		w = 0;

	if (nbits == 0)
		return 0;
	if (likely(at + 9 <= r->len))
	{
		memcpy(&w, r->p + at, 8);
#ifdef WORDS_BIGENDIAN
		w = pg_bswap64(w);
#endif
		w >>= sh;
		if (sh > 0 && nbits > 64 - sh)
			w |= (uint64) r->p[at + 8] << (64 - sh);
	}
	else
	{
		int			i;

		for (i = 0; i < 9 && at + i < r->len; i++)
		{
			uint64		byte = r->p[at + i];

			if (i * 8 - sh >= 64)
				break;
			w |= i * 8 >= sh ? byte << (i * 8 - sh) : byte >> (sh - i * 8);
		}
	}
	r->pos += nbits;
	return nbits == 64 ? w : w & (((uint64) 1 << nbits) - 1);
}

/* bit length of v (0 for 0) */
static inline int
bit_length(uint64 v)
{
	return v == 0 ? 0 : pg_leftmost_one_pos64(v) + 1;
}

/*
 * delta_encode -- values' of a block in the delta coding, appended to out;
 * false (out unchanged) if the values are not one 8-byte value per value
 * record, or the coding is not smaller than the raw values.
 */
static bool
delta_encode(const RawBlock *b, StringInfo out)
{
	int32	   *refs;
	uint64	   *res;
	int			nvals;
	int			shift = 64;
	int			hist[65];
	int			cum[66];
	int			lens[65];
	int			nlens = 0;
	int			w[4];
	uint64		best = PG_UINT64_MAX;
	int			i,
				a,
				c,
				d;
	int			start PG_USED_FOR_ASSERTS_ONLY = out->len;
	BitWriter	bw;

	if (b->valslen == 0 || b->valslen % 8 != 0 || b->ncells > b->keylen)
		return false;
	refs = palloc(sizeof(int32) * Max(b->ncells, 1));
	nvals = value_refs(b->keys, b->keylen, b->ncells, refs);
	if (nvals < 0 || (Size) nvals * 8 != b->valslen)
	{
		pfree(refs);
		return false;
	}

	/* the differences, and the fewest trailing zeros of the non-zero ones */
	res = palloc(sizeof(uint64) * nvals);
	for (i = 0; i < nvals; i++)
	{
		uint64		v,
					ref = 0;

		memcpy(&v, b->vals + (Size) i * 8, 8);
		if (refs[i] >= 0)
			memcpy(&ref, b->vals + (Size) refs[i] * 8, 8);
		res[i] = v - ref;
		if (res[i] != 0)
			shift = Min(shift, pg_rightmost_one_pos64(res[i]));
	}
	if (shift == 64)
		shift = 0;

	/* the residuals, zigzag(difference >> shift), and their lengths */
	memset(hist, 0, sizeof(hist));
	for (i = 0; i < nvals; i++)
	{
		int64		q = (int64) res[i] >> shift;	/* (exact: low bits zero) */

		res[i] = ((uint64) q << 1) ^ (uint64) (q >> 63);
		hist[bit_length(res[i])]++;
	}
	cum[0] = 0;
	for (i = 0; i <= 64; i++)
	{
		cum[i + 1] = cum[i] + hist[i];
		if (hist[i] > 0)
			lens[nlens++] = i;
	}

	/*
	 * The cheapest four widths: the longest residual's for the last class,
	 * and three lengths present for the others (a width between two
	 * present lengths only costs more than the lower of them).  cum[n + 1]
	 * counts the residuals of at most n bits.
	 */
	w[0] = w[1] = w[2] = w[3] = lens[nlens - 1];
	for (a = 0; a < nlens; a++)
		for (c = a; c < nlens; c++)
			for (d = c; d < nlens; d++)
			{
				int			wa = lens[a],
							wc = lens[c],
							wd = lens[d],
							we = lens[nlens - 1];
				uint64		cost = (uint64) wa * cum[wa + 1] +
					(uint64) wc * (cum[wc + 1] - cum[wa + 1]) +
					(uint64) wd * (cum[wd + 1] - cum[wc + 1]) +
					(uint64) we * (nvals - cum[wd + 1]);

				if (cost < best)
				{
					best = cost;
					w[0] = wa;
					w[1] = wc;
					w[2] = wd;
				}
			}
	if (DELTA_HEAD + (best + 2 * (uint64) nvals + 7) / 8 >= b->valslen)
	{
		pfree(refs);
		pfree(res);
		return false;
	}

	put_byte(out, (uint8) shift);
	for (i = 0; i < 4; i++)
		put_byte(out, (uint8) w[i]);
	bw.out = out;
	bw.acc = 0;
	bw.n = 0;
	for (i = 0; i < nvals; i++)
	{
		int			len = bit_length(res[i]);
		int			k = len <= w[0] ? 0 : len <= w[1] ? 1 : len <= w[2] ? 2 : 3;

		bits_put(&bw, (uint64) k, 2);
		bits_put(&bw, res[i], w[k]);
	}
	bits_flush(&bw);
	Assert((uint64) (out->len - start) == DELTA_HEAD + (best + 2 * (uint64) nvals + 7) / 8);
	pfree(refs);
	pfree(res);
	return true;
}

/*
 * delta_decode -- the raw values of values' in the delta coding at p (up
 * to end), written at o (room up to olimit); the key section says which
 * record is of which column.  Returns the end of the values written, or
 * NULL if malformed.
 */
static char *
delta_decode(const char *p, const char *end, const char *keys, uint64 keylen,
			 uint64 ncells, char *o, char *olimit)
{
	int32	   *refs;
	int			nvals;
	int			shift;
	int			w[4];
	int			i;
	BitReader	br;

	if (end - p < DELTA_HEAD || ncells > keylen)
		return NULL;
	shift = (uint8) p[0];
	for (i = 0; i < 4; i++)
		w[i] = (uint8) p[1 + i];
	if (shift > 63 || w[3] > 64 || w[0] > w[1] || w[1] > w[2] || w[2] > w[3])
		return NULL;
	refs = palloc(sizeof(int32) * Max(ncells, 1));
	nvals = value_refs(keys, keylen, ncells, refs);
	if (nvals < 0 || (uint64) (olimit - o) < (uint64) nvals * 8)
	{
		pfree(refs);
		return NULL;
	}
	br.p = (const uint8 *) p + DELTA_HEAD;
	br.len = (end - p) - DELTA_HEAD;
	br.pos = 0;
	for (i = 0; i < nvals; i++)
	{
		uint64		k = bits_get(&br, 2),
					r = bits_get(&br, w[k]),
					v,
					ref = 0;
		int64		q = (int64) (r >> 1) ^ -(int64) (r & 1);

		if (refs[i] >= 0)
			memcpy(&ref, o - (Size) (i - refs[i]) * 8, 8);
		v = ref + ((uint64) q << shift);
		memcpy(o, &v, 8);
		o += 8;
		/* (a damaged stream ends early: stop at its end) */
		if (unlikely(br.pos > (uint64) br.len * 8))
			break;
	}
	pfree(refs);
	/* every byte of the stream used, none past it, its padding zero */
	if (i < nvals || (br.pos + 7) / 8 != br.len ||
		(br.pos % 8 != 0 && (br.p[br.len - 1] >> (br.pos % 8)) != 0))
		return NULL;
	return o;
}

/*
 * WideBlockPack -- the packed form of a raw data block, appended to out;
 * false (out unchanged) if packing saves nothing or the block is not one.
 */
bool
WideBlockPack(const char *raw, Size len, StringInfo out)
{
	RawBlock	b;
	uint64		unit;
	int			e;
	int			start = out->len;
	StringInfoData ts;
	StringInfoData vals;
	const char *p;
	const char *end;

	if (!parse_raw(raw, len, &b))
		return false;
	unit = ts_unit(b.ts, b.ts + b.tslen);
	e = value_exp(b.vals, b.valslen);
	vals.data = NULL;
	if (e == EXP_NONE)
	{
		initStringInfo(&vals);
		if (delta_encode(&b, &vals))
			e = EXP_DELTA;
	}
	if (unit == 1 && e == EXP_NONE)
	{
		if (vals.data)
			pfree(vals.data);
		return false;
	}

	initStringInfo(&ts);
	for (p = b.ts, end = b.ts + b.tslen; p < end;)
	{
		int64		d = 0;

		if (!(p = get_zigzag(p, end, &d)))
			break;			/* (ts_unit parsed it) */
		put_zigzag(&ts, d / (int64) unit);
	}

	put_varint(out, len);
	put_varint(out, unit);
	put_byte(out, (uint8) e);
	put_varint(out, b.ncells);
	put_varint(out, b.arena);
	put_varint(out, b.keylen);
	put_varint(out, ts.len);
	put_varint(out, b.auxlen);
	put_bytes(out, b.keys, b.keylen);
	put_bytes(out, ts.data, ts.len);
	put_bytes(out, b.aux, b.auxlen);
	if (e == EXP_NONE)
		put_bytes(out, b.vals, b.valslen);
	else if (e == EXP_DELTA)
		put_bytes(out, vals.data, vals.len);
	else
	{
		double		f = pow10_exact(e);
		Size		i;

		for (i = 0; i < b.valslen / 8; i++)
		{
			double		d;

			memcpy(&d, b.vals + i * 8, 8);
			put_zigzag(out, (int64) rint(d * f));
		}
	}
	pfree(ts.data);
	if (vals.data)
		pfree(vals.data);

	/* store it packed only if it unpacks to the very same bytes */
	{
		Size		got;
		char	   *back = WideBlockUnpack(out->data + start, out->len - start,
										   len, &got);
		bool		same = back != NULL && got == len && memcmp(back, raw, len) == 0;

		if (back)
			pfree(back);
		if (!same)
		{
			out->len = start;
			out->data[start] = '\0';
			return false;
		}
	}
	return true;
}

/*
 * WideBlockPackedHeader -- the head of a packed block: the raw block's size
 * (checked against maxraw), the timestamp unit and the value divisor (0:
 * values stored as they are, -1: delta coded, else 10^e, exact); returns
 * where the rest
 * starts, which has the layout of a raw block (block.c) with the sections
 * ts' and values', or NULL if the head is malformed.  Iterators read a
 * packed block as it is when its values are stored as they are or are all
 * 8 bytes long (block.c: WideBlockIterInitBlock), not delta coded.
 */
const char *
WideBlockPackedHeader(const char *packed, Size len, Size maxraw,
					  Size *rawlen, uint64 *unit, double *div)
{
	const char *end = packed + len;
	const char *p = packed;
	uint64		size;
	uint8		e;

	if (!(p = get_varint(p, end, &size)) || size > maxraw ||
		!(p = get_varint(p, end, unit)) || *unit == 0 || *unit > MAX_UNIT ||
		p >= end)
		return NULL;
	e = (uint8) *p++;
	if (e > MAX_EXP && e != EXP_NONE && e != EXP_DELTA)
		return NULL;
	*rawlen = size;
	*div = (e == EXP_NONE) ? 0.0 : (e == EXP_DELTA) ? -1.0 : pow10_exact(e);
	return p;
}

/* WideBlockUnpack's scratch buffer for timestamp sections */
static char *ts_scratch = NULL;
static Size ts_scratch_size = 0;

/* a varint at p (room for 10 bytes is the caller's); returns the end */
static inline char *
enc_varint(char *p, uint64 v)
{
	while (v >= 0x80)
	{
		*p++ = (char) (v | 0x80);
		v >>= 7;
	}
	*p++ = (char) v;
	return p;
}

/*
 * WideBlockUnpack -- the raw block of a packed one (palloc'd), or NULL if
 * it is malformed or would exceed maxraw bytes.
 *
 * Readers iterate most packed blocks as they are (block.c); this runs for
 * the others, and for wide.verify and the writer's check, so it writes
 * straight into its output; the timestamp section is
 * decoded first into a scratch buffer kept for the backend, because its
 * raw length goes into the header before it.
 */
char *
WideBlockUnpack(const char *packed, Size len, Size maxraw, Size *rawlen)
{
	const char *end = packed + len;
	const char *p = packed;
	uint64		size,
				unit,
				ncells,
				arena,
				keylen,
				tslen,
				auxlen;
	char	   *out;
	char	   *o;
	char	   *olimit;
	char	   *tsbuf;
	char	   *tsend;
	const char *q;
	const char *qend;
	const char *keys;

	double		f;

	if (!(p = WideBlockPackedHeader(packed, len, maxraw, &size, &unit, &f)))
		return NULL;
	if (!(p = get_varint(p, end, &ncells)) || !(p = get_varint(p, end, &arena)) ||
		!(p = get_varint(p, end, &keylen)) || !(p = get_varint(p, end, &tslen)) ||
		!(p = get_varint(p, end, &auxlen)))
		return NULL;
	if (keylen > (uint64) (end - p) || tslen > (uint64) (end - p) - keylen ||
		auxlen > (uint64) (end - p) - keylen - tslen)
		return NULL;

	/* room for a raw timestamp section of up to size bytes + one varint */
	if (ts_scratch_size < size + 32)
	{
		if (ts_scratch)
			pfree(ts_scratch);
		ts_scratch = MemoryContextAlloc(TopMemoryContext, size + 32);
		ts_scratch_size = size + 32;
	}
	tsbuf = tsend = ts_scratch;
	/* (+ 64: the header's five varints are written before they are checked) */
	out = palloc(size + 64);
	olimit = out + size;
	for (q = p + keylen, qend = q + tslen; q < qend;)
	{
		int64		d;
		uint64		u;

		if (!(q = get_zigzag(q, qend, &d)) || tsend - tsbuf > (ptrdiff_t) size)
			goto bad;
		/* (wrapping: a damaged block must not be undefined) */
		d = (int64) ((uint64) d * unit);
		u = ((uint64) d << 1) ^ (uint64) (d >> 63);
		tsend = enc_varint(tsend, u);
	}

	/* the header, the keys, the timestamps, the aux fields */
	o = out;
	o = enc_varint(o, ncells);
	o = enc_varint(o, arena);
	o = enc_varint(o, keylen);
	o = enc_varint(o, (uint64) (tsend - tsbuf));
	o = enc_varint(o, auxlen);
	if (o > olimit ||
		(uint64) (olimit - o) < keylen + (uint64) (tsend - tsbuf) + auxlen)
		goto bad;
	keys = p;
	memcpy(o, p, keylen);
	o += keylen;
	memcpy(o, tsbuf, tsend - tsbuf);
	o += tsend - tsbuf;
	p += keylen + tslen;
	memcpy(o, p, auxlen);
	o += auxlen;
	p += auxlen;

	/* the values */
	if (f == 0.0)
	{
		if ((uint64) (olimit - o) < (uint64) (end - p))
			goto bad;
		memcpy(o, p, end - p);
		o += end - p;
	}
	else if (f < 0.0)
	{
		if (!(o = delta_decode(p, end, keys, keylen, ncells, o, olimit)))
			goto bad;
	}
	else
	{
		while (p < end)
		{
			int64		k;
			double		d;

			if (!(p = get_zigzag(p, end, &k)) || olimit - o < 8)
				goto bad;
			d = (double) k / f;
			memcpy(o, &d, 8);
			o += 8;
		}
	}
	if (o != olimit)
		goto bad;
	*rawlen = size;
	return out;

bad:
	pfree(out);
	return NULL;
}
