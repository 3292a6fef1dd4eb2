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
#include "engine/keysection.h"
#include "engine/segment.h"

#define EXP_NONE		255
#define EXP_DELTA		254		/* values' delta coded (format version 4) */
#define EXP_HUFF		253		/* values' Huffman coded, keys' digit steps
								 * (format version 6) */
#define MAX_EXP			18		/* 10^18 < 2^63, and exact as a float8 */
#define MAX_UNIT		((uint64) 1 << 62)

/*
 * GUC wide.block_pack_format: the format version whose packing the writer
 * uses (4 or 5: full-precision floats delta coded, in blocks of
 * wide.block_size; 6: Huffman coded, in blocks of twice that), so that a
 * bench compares the readers of both on one server.  Readers read all.
 */
int			wide_block_pack_format = WIDE_FORMAT_VERSION;

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
 * WideValuesFullPrecision -- whether a value section of 8-byte values is one
 * no exponent packs (values of full precision, coded by their residuals).
 */
bool
WideValuesFullPrecision(const char *vals, Size len)
{
	return len > 0 && len % 8 == 0 && value_exp(vals, len) == EXP_NONE;
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
static uint64 *col_fnv = NULL;	/* FNV-1a state after each qualifier byte */

/*
 * A column's hash: FNV-1a 64 of its qualifier's bytes from
 * 0xcbf29ce484222325 ^ famid, then murmur3's finalizer (the table takes the
 * low bits).  value_refs computes it byte by byte as qualifiers are
 * decoded, from the state after their shared prefix.
 */

/* refs_setup -- value_refs's tables for ncells records; their size */
static uint32
refs_setup(uint64 ncells)
{
	uint32		cap = 16;

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
	if (col_fnv == NULL)
		col_fnv = MemoryContextAlloc(TopMemoryContext,
									 sizeof(uint64) * (WIDE_MAX_QUALIFIER + 1));
	memset(col_last, 0xff, sizeof(int32) * cap);	/* -1: empty slot */
	return cap;
}

/* the slot of the column whose FNV state is h (finalized here) */
static inline uint32
refs_slot(uint64 h, uint32 cap)
{
	uint32		slot;

	/* (column_hash's finalizer) */
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	for (slot = (uint32) h & (cap - 1);
		 col_last[slot] >= 0 && col_hash[slot] != h;
		 slot = (slot + 1) & (cap - 1))
		;
	col_hash[slot] = h;
	return slot;
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
	uint64		rowlen = 0;
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
	cap = refs_setup(ncells);

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
			if (!wide_key_row(&k, kend, rowlen, &shared, &unshared))
				return -1;
			k += unshared;
			rowlen = shared + unshared;
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
			const char *fam;

			if (!wide_key_family(&k, kend, &fam, &famlen, &famid))
				return -1;
			col_fnv[0] = UINT64CONST(0xcbf29ce484222325) ^ famid;
			have_fam = true;
			quallen = 0;
			h_valid = false;
		}
		if (flags & K_NEW_QUAL)
		{
			if (!wide_key_qual(&k, kend, quallen, &shared, &unshared))
				return -1;
			/*
			 * (the hash continues from the shared prefix's: the qualifiers
			 * of a tall and narrow row share "usage_" and more)
			 */
			for (uint64 j = 0; j < unshared; j++)
				col_fnv[shared + j + 1] =
					(col_fnv[shared + j] ^ (uint8) k[j]) * UINT64CONST(0x100000001b3);
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
			uint64		h = col_fnv[quallen];

			/* (column_hash's finalizer) */
			h ^= h >> 33;
			h *= UINT64CONST(0xff51afd7ed558ccd);
			h ^= h >> 33;

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
 * residuals -- the references' differences of a block's values as zigzag
 * residuals shifted by the fewest trailing zeros (into res, room for
 * ncells); the number of value records, or -1 if they are not one 8-byte
 * value each.
 */
static int
residuals(const RawBlock *b, const char *keys, uint64 keylen, uint64 *res,
		  int *shiftp)
{
	int32	   *refs;
	int			nvals;
	int			shift = 64;

	if (b->valslen == 0 || b->valslen % 8 != 0 || b->ncells > keylen)
		return -1;
	refs = palloc(sizeof(int32) * Max(b->ncells, 1));
	nvals = value_refs(keys, keylen, b->ncells, refs);
	if (nvals < 0 || (Size) nvals * 8 != b->valslen)
	{
		pfree(refs);
		return -1;
	}
	for (int i = 0; i < nvals; i++)
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
	for (int i = 0; i < nvals; i++)
	{
		int64		q = (int64) res[i] >> shift;	/* (exact: low bits zero) */

		res[i] = ((uint64) q << 1) ^ (uint64) (q >> 63);
	}
	pfree(refs);
	*shiftp = shift;
	return nvals;
}

/*
 * delta_encode -- values' of a block in the delta coding, appended to out;
 * false (out unchanged) if the values are not one 8-byte value per value
 * record, or the coding is not smaller than the raw values.
 */
static bool
delta_encode(const RawBlock *b, StringInfo out)
{
	uint64	   *res;
	int			nvals;
	int			shift;
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

	/* the residuals, zigzag(difference >> shift), and their lengths */
	res = palloc(sizeof(uint64) * Max(b->ncells, 1));
	nvals = residuals(b, b->keys, b->keylen, res, &shift);
	if (nvals < 0)
	{
		pfree(res);
		return false;
	}
	memset(hist, 0, sizeof(hist));
	for (i = 0; i < nvals; i++)
		hist[bit_length(res[i])]++;
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
 * The coding of format version 6 (values' with exp = EXP_HUFF): the same
 * residuals, each stored as a Huffman code of its bit length (a table per
 * block) and the bits below its leading one; and the key section's row
 * keys that step a decimal number at their end as that step.
 */

#define HUFF_NSYM		65		/* bit lengths 0 to 64 */
#define HUFF_MAXLEN		12		/* longest code */
#define DIGITS_MAX		18		/* 10^18 < 2^63 */

/* huff_lengths -- Huffman code lengths (at most HUFF_MAXLEN) of freq */
static void
huff_lengths(const uint64 *freq, uint8 *len)
{
	uint64		w[2 * HUFF_NSYM];
	int			parent[2 * HUFF_NSYM];
	int			sym[HUFF_NSYM];
	bool		active[2 * HUFF_NSYM];
	int			n = 0;
	int			scale = 0;

	memset(len, 0, HUFF_NSYM);
	for (int i = 0; i < HUFF_NSYM; i++)
		if (freq[i] > 0)
			sym[n++] = i;
	if (n == 1)
	{
		len[sym[0]] = 1;
		return;
	}
	for (;;)
	{
		int			nodes = n;
		int			maxlen = 0;

		for (int i = 0; i < n; i++)
		{
			/* (flattened until the longest code fits) */
			w[i] = Max(freq[sym[i]] >> scale, 1);
			active[i] = true;
			parent[i] = -1;
		}
		for (int m = 0; m < n - 1; m++)
		{
			int			a = -1,
						b = -1;

			for (int i = 0; i < nodes; i++)
			{
				if (!active[i])
					continue;
				if (a < 0 || w[i] < w[a])
				{
					b = a;
					a = i;
				}
				else if (b < 0 || w[i] < w[b])
					b = i;
			}
			w[nodes] = w[a] + w[b];
			active[nodes] = true;
			parent[nodes] = -1;
			active[a] = active[b] = false;
			parent[a] = parent[b] = nodes;
			nodes++;
		}
		for (int i = 0; i < n; i++)
		{
			int			d = 0;

			for (int j = i; parent[j] >= 0; j = parent[j])
				d++;
			len[sym[i]] = (uint8) d;
			maxlen = Max(maxlen, d);
		}
		if (maxlen <= HUFF_MAXLEN)
			return;
		scale++;
	}
}

/*
 * huff_codes -- the canonical codes of code lengths len (shorter codes
 * first, then by symbol), bit-reversed for the least-significant-first
 * stream; false if the lengths oversubscribe the code space.
 */
static bool
huff_codes(const uint8 *len, uint32 *code)
{
	uint32		c = 0;
	int			prev = 0;

	for (int l = 1; l <= HUFF_MAXLEN; l++)
		for (int s = 0; s < HUFF_NSYM; s++)
		{
			uint32		r = 0;

			if (len[s] != l)
				continue;
			c <<= (l - prev);
			prev = l;
			if (c >= ((uint32) 1 << l))
				return false;
			for (int i = 0; i < l; i++)
				r |= ((c >> i) & 1) << (l - 1 - i);
			code[s] = r;
			c++;
		}
	return true;
}

/*
 * huff_encode -- values' of a block in the coding of format version 6,
 * appended to out:
 *
 *	  huff := shift:u8 first:u8 nsym:u8 lens bits
 *	  lens := nsym code lengths (0: unused, 1 to 12) of the bit lengths
 *			  first .. first + nsym - 1, 4 bits each, low nibble first,
 *			  the last byte's high nibble 0 if nsym is odd
 *	  bits := (code(L) [low L - 1 bits of r])*   (L = r's bit length; r
 *			  with L <= 1 is L itself), least significant bit first,
 *			  zero padded to a byte; codes canonical (by length, then
 *			  symbol), each stored last bit first
 *
 * false (out unchanged) if the values are not one 8-byte value per value
 * record or the coding is not smaller than the raw values.
 */
static bool
huff_encode(const RawBlock *b, StringInfo out)
{
	uint64	   *res;
	uint64		freq[HUFF_NSYM];
	uint8		len[HUFF_NSYM];
	uint32		code[HUFF_NSYM];
	int			nvals;
	int			shift;
	int			first = HUFF_NSYM,
				last = -1;
	uint64		bits = 0;
	BitWriter	bw;

	res = palloc(sizeof(uint64) * Max(b->ncells, 1));
	nvals = residuals(b, b->keys, b->keylen, res, &shift);
	if (nvals <= 0)
	{
		pfree(res);
		return false;
	}
	memset(freq, 0, sizeof(freq));
	for (int i = 0; i < nvals; i++)
		freq[bit_length(res[i])]++;
	huff_lengths(freq, len);
	if (!huff_codes(len, code))
		elog(ERROR, "huffman code lengths oversubscribed");
	for (int s = 0; s < HUFF_NSYM; s++)
		if (freq[s] > 0)
		{
			first = Min(first, s);
			last = s;
			bits += freq[s] * (len[s] + (s > 1 ? s - 1 : 0));
		}
	if (3 + (uint64) (last - first + 2) / 2 + (bits + 7) / 8 >= b->valslen)
	{
		pfree(res);
		return false;
	}
	put_byte(out, (uint8) shift);
	put_byte(out, (uint8) first);
	put_byte(out, (uint8) (last - first + 1));
	for (int s = first; s <= last; s += 2)
		put_byte(out, (uint8) (len[s] | (s + 1 <= last ? len[s + 1] << 4 : 0)));
	bw.out = out;
	bw.acc = 0;
	bw.n = 0;
	for (int i = 0; i < nvals; i++)
	{
		int			l = bit_length(res[i]);

		bits_put(&bw, code[l], len[l]);
		if (l > 1)
			bits_put(&bw, res[i], l - 1);	/* (the leading one is l) */
	}
	bits_flush(&bw);
	pfree(res);
	return true;
}

/*
 * huff_decode -- the raw values of values' in the coding of format version
 * 6 at p (up to end), written at o (room up to olimit); keys is the raw key
 * section.  Returns the end of the values written, or NULL if malformed.
 */
static char *
huff_decode(const char *p, const char *end, const int32 *refs, int nvals,
			char *o, char *olimit)
{
	static uint16 table[1 << HUFF_MAXLEN];
	uint8		len[HUFF_NSYM];
	uint32		code[HUFF_NSYM];
	int			shift,
				first,
				nsym,
				tbits = 0;
	int			i;
	BitReader	br;

	if (end - p < 3)
		return NULL;
	shift = (uint8) p[0];
	first = (uint8) p[1];
	nsym = (uint8) p[2];
	p += 3;
	if (shift > 63 || nsym == 0 || first + nsym > HUFF_NSYM ||
		end - p < (nsym + 1) / 2)
		return NULL;
	memset(len, 0, sizeof(len));
	for (i = 0; i < nsym; i++)
	{
		uint8		l = ((uint8) p[i / 2] >> (4 * (i % 2))) & 0x0f;

		if (l > HUFF_MAXLEN)
			return NULL;
		len[first + i] = l;
		tbits = Max(tbits, l);
	}
	if ((nsym % 2 == 1 && ((uint8) p[nsym / 2] >> 4) != 0) || tbits == 0 ||
		!huff_codes(len, code))
		return NULL;
	p += (nsym + 1) / 2;

	/* the decoding table: the next tbits bits of the stream give the code */
	memset(table, 0, sizeof(uint16) << tbits);
	for (int s = 0; s < HUFF_NSYM; s++)
		if (len[s] > 0)
			for (uint32 j = code[s]; j < ((uint32) 1 << tbits); j += (uint32) 1 << len[s])
				table[j] = (uint16) (len[s] << 8 | s);

	if ((uint64) (olimit - o) < (uint64) nvals * 8)
		return NULL;
	br.p = (const uint8 *) p;
	br.len = end - p;
	br.pos = 0;

	/*
	 * Where 16 bytes of the stream are left, one 8-byte load holds at least
	 * 57 bits from the value's first: its code, and its residual's bits too
	 * when the two are no longer (they mostly are not: 6.3 bytes a value);
	 * the rest of the stream is read by bits_get.
	 */
	for (i = 0; i < nvals; i++)
	{
		Size		at = (Size) (br.pos >> 3);
		uint64		w,
					r,
					v,
					ref = 0;
		uint16		e;
		int			l,
					cl,
					sh;
		int64		q;

		if (unlikely(at + 16 > br.len))
			break;
		memcpy(&w, br.p + at, 8);
#ifdef WORDS_BIGENDIAN
		w = pg_bswap64(w);
#endif
		w >>= br.pos & 7;
		e = table[w & (((uint64) 1 << tbits) - 1)];
		if (unlikely(e == 0))
			break;				/* (bits_get's loop finds it again) */
		cl = e >> 8;
		l = e & 0xff;
		br.pos += cl;
		if (l <= 1)
			r = (uint64) l;
		else
		{
			uint64		top = (uint64) 1 << (l - 1);

			if (likely(cl + l - 1 <= 57))
				r = top | ((w >> cl) & (top - 1));
			else
			{
				at = (Size) (br.pos >> 3);
				memcpy(&w, br.p + at, 8);
#ifdef WORDS_BIGENDIAN
				w = pg_bswap64(w);
#endif
				sh = (int) (br.pos & 7);
				w >>= sh;
				if (sh > 0 && l - 1 > 64 - sh)
					w |= (uint64) br.p[at + 8] << (64 - sh);
				r = top | (w & (top - 1));
			}
			br.pos += l - 1;
		}
		q = (int64) (r >> 1) ^ -(int64) (r & 1);
		if (refs[i] >= 0)
			memcpy(&ref, o - (Size) (i - refs[i]) * 8, 8);
		v = ref + ((uint64) q << shift);
		memcpy(o, &v, 8);
		o += 8;
	}
	for (; i < nvals; i++)
	{
		uint64		peek = bits_get(&br, tbits);
		uint16		e = table[peek];
		int			l = e & 0xff;
		uint64		r,
					v,
					ref = 0;
		int64		q;

		if (unlikely(e == 0))
			break;				/* (a code the table does not have) */
		br.pos -= tbits - (e >> 8);
		r = l <= 1 ? (uint64) l : ((uint64) 1 << (l - 1)) | bits_get(&br, l - 1);
		q = (int64) (r >> 1) ^ -(int64) (r & 1);
		if (refs[i] >= 0)
			memcpy(&ref, o - (Size) (i - refs[i]) * 8, 8);
		v = ref + ((uint64) q << shift);
		memcpy(o, &v, 8);
		o += 8;
		/* (a damaged stream ends early: stop at its end) */
		if (unlikely(br.pos > (uint64) br.len * 8))
			break;
	}
	/* every byte of the stream used, none past it, its padding zero */
	if (i < nvals || (br.pos + 7) / 8 != br.len ||
		(br.pos % 8 != 0 && (br.p[br.len - 1] >> (br.pos % 8)) != 0))
		return NULL;
	return o;
}

/* the number of ASCII digits that end a key, at most DIGITS_MAX */
static inline int
digits_tail(const char *k, uint32 len)
{
	int			t = 0;

	while (t < DIGITS_MAX && (uint32) t < len &&
		   k[len - 1 - t] >= '0' && k[len - 1 - t] <= '9')
		t++;
	return t;
}

static inline int64
digits_value(const char *d, int t)
{
	int64		v = 0;

	for (int i = 0; i < t; i++)
		v = v * 10 + (d[i] - '0');
	return v;
}

static inline int
varint_len(uint64 v)
{
	int			n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * The key section of format version 6 (keys' of a block whose values'
 * exp is EXP_HUFF): a record's row key part, when it starts a row, is
 *
 *	  row'  := x:varint, x even: shared = x / 2, then unshared:varint bytes
 *								 (as in the raw block)
 *					     x odd:  zigzag(d) = x >> 1: the row key is the
 *								 previous row's with its last t digits
 *								 (t: the digits that end the previous row
 *								 key, at most 18) replaced by their value
 *								 + d, as t digits (0 <= value + d < 10^t);
 *								 the raw part is then shared = the common
 *								 prefix of the two keys, and the rest
 *
 * everything else as in the raw block.  Time-ordered keys ending in
 * fixed-width digits (the row form's `host#time`) step by the same d from
 * row to row, which zstd then finds repeated; their changing digits did
 * not repeat.
 */

/* keys_walk's state: the previous row key */
typedef struct KeyWalk
{
	char		prev[WIDE_MAX_ROW_KEY];
	uint32		prevlen;
	bool		have_prev;
	int			t;				/* keys_decode: prev's digits_tail, -1: not known */
	int64		v;				/* and their value */
	int64		lim;			/* 10^t */
} KeyWalk;

/*
 * keys_encode -- keys' of a raw key section, appended to out; false (out
 * left partly written: the caller resets it) if the section is malformed.
 * Never longer than the raw section.
 */
static bool
keys_encode(const char *k, uint64 keylen, uint64 ncells, StringInfo out)
{
	const char *kend = k + keylen;
	KeyWalk    *w = palloc(sizeof(KeyWalk));
	char	   *cur = palloc(WIDE_MAX_ROW_KEY);
	bool		ok = false;
	uint64		quallen = 0;
	uint64		i;

	w->have_prev = false;
	w->prevlen = 0;
	for (i = 0; i < ncells; i++)
	{
		uint8		flags;
		uint64		shared,
					unshared;
		const char *from;

		if (k >= kend)
			goto done;
		flags = (uint8) *k++;
		put_byte(out, flags);
		if (flags & K_NEW_ROW)
		{
			uint32		len;
			int			t;

			from = k;
			if (!wide_key_row(&k, kend, w->prevlen, &shared, &unshared))
				goto done;
			len = (uint32) (shared + unshared);
			memcpy(cur, w->prev, shared);
			memcpy(cur + shared, k, unshared);
			k += unshared;
			t = digits_tail(w->prev, w->prevlen);
			if (w->have_prev && t > 0 && len == w->prevlen &&
				memcmp(cur, w->prev, len - t) == 0 &&
				digits_tail(cur, len) >= t &&
				shared == common_prefix(cur, len, w->prev, w->prevlen))
			{
				int64		d = digits_value(cur + len - t, t) -
					digits_value(w->prev + len - t, t);
				uint64		x = ((((uint64) d << 1) ^ (uint64) (d >> 63)) << 1) | 1;

				if (varint_len(x) <= k - from)
				{
					put_varint(out, x);
					from = NULL;
				}
			}
			if (from != NULL)
			{
				put_varint(out, shared << 1);
				put_varint(out, unshared);
				put_bytes(out, cur + shared, (int) unshared);
			}
			memcpy(w->prev, cur, len);
			w->prevlen = len;
			w->have_prev = true;
			quallen = 0;
		}
		from = k;
		if (flags & K_NEW_FAM)
		{
			uint8		famlen;
			uint32		famid;
			const char *fam;

			if (!wide_key_family(&k, kend, &fam, &famlen, &famid))
				goto done;
			quallen = 0;
		}
		if (flags & K_NEW_QUAL)
		{
			if (!wide_key_qual(&k, kend, quallen, &shared, &unshared))
				goto done;
			k += unshared;
			quallen = shared + unshared;
		}
		put_bytes(out, from, (int) (k - from));
	}
	ok = (k == kend);
done:
	pfree(w);
	pfree(cur);
	return ok;
}

/* keys_decode's record columns of the row before and of the current one */
static int32 *row_slots[2] = {NULL, NULL};
static uint64 row_slots_cap = 0;

/*
 * keys_decode -- the raw key section of keys' at p (keylen bytes, ncells
 * records), written at o (room up to olimit), and in the same pass what
 * value_refs finds in it: each value record's reference (into refs, room
 * for ncells) and their number (*nvals); returns the end of what was
 * written, or NULL if malformed.
 *
 * Rows of a time series repeat the records of the row before but for their
 * key (the same family and qualifiers in the same order, as
 * WideBlockIterRowBatch also finds): where a row's bytes after its key are
 * those of the row before, and its first record's flags too, they parse
 * the same way from the same state (a row starts with no family and no
 * qualifier), so they are copied and each of its records takes the column
 * slot of the record at its place in the row before, without parsing or
 * hashing them again.  The references then follow from the slots as they
 * do for parsed records: the result is the same, only found faster.
 */
static char *
keys_decode(const char *p, uint64 keylen, uint64 ncells, char *o, char *olimit,
			int32 *refs, int *nvals)
{
	const char *kend = p + keylen;
	static KeyWalk w;
	uint64		i;
	uint32		cap;
	uint64		quallen = 0;
	bool		have_row = false;
	bool		have_fam = false;
	uint32		slot = 0;
	bool		ref_valid = false;
	int			n = 0;

	/* the current row's tail (its bytes after its key), if parsed */
	const char *tail = NULL;
	uint64		tail_i = 0;
	uint8		tail_flags = 0;
	int32	   *cur_slots;

	/* the row before's tail, its records' slots, the state after it */
	const char *ptail = NULL;
	uint64		ptail_len = 0;
	uint64		pnrec = 0;
	uint8		pflags = 0;
	int32	   *prev_slots;
	bool		p_have_fam = false;
	uint64		p_quallen = 0;
	uint32		p_slot = 0;
	bool		p_ref_valid = false;

	if (ncells > keylen || ncells > MaxAllocSize / 32)
		return NULL;
	cap = refs_setup(ncells);
	if (row_slots_cap < Max(ncells, 1))
	{
		for (int j = 0; j < 2; j++)
		{
			if (row_slots[j])
				pfree(row_slots[j]);
			row_slots[j] = MemoryContextAlloc(TopMemoryContext,
											  sizeof(int32) * Max(ncells, 1));
		}
		row_slots_cap = Max(ncells, 1);
	}
	cur_slots = row_slots[0];
	prev_slots = row_slots[1];
	w.have_prev = false;
	w.prevlen = 0;
	w.t = -1;
	for (i = 0; i < ncells; i++)
	{
		uint8		flags,
					kind;
		uint64		x,
					shared,
					unshared;
		const char *from;

		if (p >= kend || o >= olimit)
			return NULL;
		flags = (uint8) *p;
		if ((flags & K_NEW_ROW) && tail != NULL)
		{
			/* the row parsed before ends: it is the one to compare with */
			int32	   *t = prev_slots;

			prev_slots = cur_slots;
			cur_slots = t;
			ptail = tail;
			ptail_len = p - tail;
			pnrec = i - tail_i;
			pflags = tail_flags;
			p_have_fam = have_fam;
			p_quallen = quallen;
			p_slot = slot;
			p_ref_valid = ref_valid;
			tail = NULL;
		}
		p++;
		*o++ = (char) flags;
		kind = flags & K_KIND;
		if (kind < WIDE_KIND_DEL_ROW || kind > WIDE_KIND_MERGE)
			return NULL;
		if (!(flags & K_NEW_ROW) && !have_row)
			return NULL;
		if (flags & K_NEW_ROW)
		{
			have_row = true;
			have_fam = false;
			quallen = 0;
			ref_valid = false;
			if (!(p = get_varint(p, kend, &x)))
				return NULL;
			if (x & 1)
			{
				uint64		u = x >> 1;
				int64		d = (int64) (u >> 1) ^ -(int64) (u & 1);
				int64		v,
							old;
				uint32		pos;

				if (!w.have_prev)
					return NULL;
				if (w.t < 0)
				{
					/* (kept from row to row: only a literal row changes it) */
					w.t = digits_tail(w.prev, w.prevlen);
					w.v = digits_value(w.prev + w.prevlen - w.t, w.t);
					w.lim = 1;
					for (int j = 0; j < w.t; j++)
						w.lim *= 10;
				}
				if (w.t == 0 || d >= w.lim || d <= -w.lim)
					return NULL;
				v = w.v + d;
				if (v < 0 || v >= w.lim)
					return NULL;
				/* the digits that differ, from the last one */
				old = w.v;
				w.v = v;
				pos = w.prevlen;
				while (v != old)
				{
					w.prev[--pos] = (char) ('0' + v % 10);
					v /= 10;
					old /= 10;
				}
				/*
				 * (the first digit written differs: the rest above it was
				 * equal, it was not; so pos is the keys' common prefix)
				 */
				shared = pos;
				unshared = w.prevlen - pos;
				if (olimit - o < 20 + (ptrdiff_t) unshared)
					return NULL;
				o = enc_varint(o, shared);
				o = enc_varint(o, unshared);
				memcpy(o, w.prev + shared, unshared);
				o += unshared;
			}
			else
			{
				shared = x >> 1;
				if (!wide_key_rest(&p, kend, shared, w.prevlen, WIDE_MAX_ROW_KEY,
								   &unshared) ||
					olimit - o < 20 + (ptrdiff_t) unshared)
					return NULL;
				o = enc_varint(o, shared);
				o = enc_varint(o, unshared);
				memcpy(o, p, unshared);
				o += unshared;
				memcpy(w.prev + shared, p, unshared);
				w.prevlen = (uint32) (shared + unshared);
				w.t = -1;
				p += unshared;
			}
			w.have_prev = true;

			if (ptail != NULL && flags == pflags &&
				ptail_len <= (uint64) (kend - p) && pnrec <= ncells - i &&
				(ptail_len == (uint64) (kend - p) || ((uint8) p[ptail_len] & K_NEW_ROW)) &&
				ptail_len <= (uint64) (olimit - o) &&
				memcmp(p, ptail, ptail_len) == 0)
			{
				/* the records of the row before, again */
				memcpy(o, p, ptail_len);
				o += ptail_len;
				p += ptail_len;
				for (uint64 r = 0; r < pnrec; r++)
				{
					int32		s = prev_slots[r];

					if (s < 0)
						continue;	/* (a tombstone) */
					refs[n] = col_last[s] >= 0 ? col_last[s] : n - 1;
					col_last[s] = n;
					n++;
				}
				have_fam = p_have_fam;
				quallen = p_quallen;
				slot = p_slot;
				ref_valid = p_ref_valid;
				i += pnrec - 1;
				continue;
			}
			tail = p;
			tail_i = i;
			tail_flags = flags;
		}
		from = p;
		if (flags & K_NEW_FAM)
		{
			uint8		famlen;
			uint32		famid;
			const char *fam;

			if (!wide_key_family(&p, kend, &fam, &famlen, &famid))
				return NULL;
			col_fnv[0] = UINT64CONST(0xcbf29ce484222325) ^ famid;
			have_fam = true;
			quallen = 0;
			ref_valid = false;
		}
		if (flags & K_NEW_QUAL)
		{
			if (!wide_key_qual(&p, kend, quallen, &shared, &unshared))
				return NULL;
			for (uint64 j = 0; j < unshared; j++)
				col_fnv[shared + j + 1] =
					(col_fnv[shared + j] ^ (uint8) p[j]) * UINT64CONST(0x100000001b3);
			p += unshared;
			quallen = shared + unshared;
			ref_valid = false;
		}
		if (olimit - o < p - from)
			return NULL;
		memcpy(o, from, p - from);
		o += p - from;
		if (WIDE_KIND_IS_TOMBSTONE(kind))
		{
			cur_slots[i - tail_i] = -1;
			continue;
		}
		if (!have_fam)
			return NULL;
		if (!ref_valid)
		{
			/* (unchanged since the last value record: the same column) */
			slot = refs_slot(col_fnv[quallen], cap);
			ref_valid = true;
		}
		cur_slots[i - tail_i] = (int32) slot;
		refs[n] = col_last[slot] >= 0 ? col_last[slot] : n - 1;
		col_last[slot] = n;
		n++;
	}
	if (p != kend)
		return NULL;
	*nvals = n;
	return o;
}

/*
 * WideBlockPack -- the packed form of a raw data block, appended to out;
 * false (out unchanged) if packing saves nothing or the block is not one.
 */
bool
WideBlockPack(const char *raw, Size len, StringInfo out, Size *split)
{
	return WideBlockPackFormat(raw, len, out, wide_block_pack_format, split);
}

/*
 * WideBlockPackFormat -- WideBlockPack as the build that wrote format
 * version "format" (2 to WIDE_FORMAT_VERSION) packed: full-precision
 * values delta coded from version 4 on, Huffman coded (with keys' digit
 * steps) from version 6 on.  The self-test writes older blocks with it to
 * check that this build reads them.
 */
bool
WideBlockPackFormat(const char *raw, Size len, StringInfo out, int format,
					Size *split)
{
	RawBlock	b;
	uint64		unit;
	int			e;
	int			start = out->len;
	StringInfoData ts;
	StringInfoData vals;
	StringInfoData keys;
	const char *p;
	const char *end;

	if (!parse_raw(raw, len, &b))
		return false;
	unit = ts_unit(b.ts, b.ts + b.tslen);
	e = value_exp(b.vals, b.valslen);
	vals.data = NULL;
	keys.data = NULL;
	if (e == EXP_NONE && format >= 6)
	{
		initStringInfo(&vals);
		initStringInfo(&keys);
		if (huff_encode(&b, &vals) &&
			keys_encode(b.keys, b.keylen, b.ncells, &keys))
			e = EXP_HUFF;
		else
		{
			resetStringInfo(&vals);
			pfree(keys.data);
			keys.data = NULL;
		}
	}
	else if (e == EXP_NONE && format >= 4)
	{
		initStringInfo(&vals);
		if (delta_encode(&b, &vals))
			e = EXP_DELTA;
	}
	if (unit == 1 && e == EXP_NONE)
	{
		if (vals.data)
			pfree(vals.data);
		if (keys.data)
			pfree(keys.data);
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
	if (e == EXP_HUFF)
		put_varint(out, keys.len);
	else
		put_varint(out, b.keylen);
	put_varint(out, ts.len);
	put_varint(out, b.auxlen);
	if (e == EXP_HUFF)
		put_bytes(out, keys.data, keys.len);
	else
		put_bytes(out, b.keys, b.keylen);
	put_bytes(out, ts.data, ts.len);
	put_bytes(out, b.aux, b.auxlen);
	*split = 0;
	if (e == EXP_HUFF)
		*split = out->len - start;	/* (bits zstd cannot shrink follow) */
	if (e == EXP_NONE)
		put_bytes(out, b.vals, b.valslen);
	else if (e == EXP_DELTA || e == EXP_HUFF)
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
	if (keys.data)
		pfree(keys.data);

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
	if (e > MAX_EXP && e != EXP_NONE && e != EXP_DELTA && e != EXP_HUFF)
		return NULL;
	*rawlen = size;
	*div = (e == EXP_NONE) ? 0.0 :
		(e == EXP_DELTA) ? -1.0 : (e == EXP_HUFF) ? -2.0 : pow10_exact(e);
	return p;
}

static char *unpack(const char *packed, Size len, Size maxraw, Size *rawlen,
					bool values);

/* WideBlockUnpack's scratch buffers for timestamp and key sections */
static char *ts_scratch = NULL;
static Size ts_scratch_size = 0;
static char *keys_scratch = NULL;
static Size keys_scratch_size = 0;

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
	return unpack(packed, len, maxraw, rawlen, true);
}

/*
 * WideBlockUnpackKeys -- WideBlockUnpack, but for its values section, which
 * is left zeroed (of its raw length): what a compaction reads of a block it
 * may pass through as stored (blockpass.c), whose values it never looks at.
 * Values that are not read are not checked either: the stored block's
 * checksum is, and a reader decodes them.
 */
char *
WideBlockUnpackKeys(const char *packed, Size len, Size maxraw, Size *rawlen)
{
	return unpack(packed, len, maxraw, rawlen, false);
}

static char *
unpack(const char *packed, Size len, Size maxraw, Size *rawlen, bool values)
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
	const char *rawkeys;
	uint64		rawkeylen;
	int32	   *refs = NULL;
	int			nvals = 0;
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

		/* (most deltas of a row's records are 0, and stay so) */
		if (*q == 0 && tsend - tsbuf < (ptrdiff_t) size)
		{
			q++;
			*tsend++ = 0;
			continue;
		}
		if (!(q = get_zigzag(q, qend, &d)) || tsend - tsbuf > (ptrdiff_t) size)
			goto bad;
		/* (wrapping: a damaged block must not be undefined) */
		d = (int64) ((uint64) d * unit);
		u = ((uint64) d << 1) ^ (uint64) (d >> 63);
		tsend = enc_varint(tsend, u);
	}

	/* format version 6: the raw key section, into its scratch buffer */
	rawkeys = p;
	rawkeylen = keylen;
	if (f == -2.0)
	{
		char	   *kend;

		if (keys_scratch_size < size + 32)
		{
			if (keys_scratch)
				pfree(keys_scratch);
			keys_scratch = MemoryContextAlloc(TopMemoryContext, size + 32);
			keys_scratch_size = size + 32;
		}
		refs = palloc(sizeof(int32) * Max(ncells, 1));
		if (!(kend = keys_decode(p, keylen, ncells, keys_scratch,
								 keys_scratch + size, refs, &nvals)))
			goto bad;
		rawkeys = keys_scratch;
		rawkeylen = kend - keys_scratch;
	}

	/* the header, the keys, the timestamps, the aux fields */
	o = out;
	o = enc_varint(o, ncells);
	o = enc_varint(o, arena);
	o = enc_varint(o, rawkeylen);
	o = enc_varint(o, (uint64) (tsend - tsbuf));
	o = enc_varint(o, auxlen);
	if (o > olimit ||
		(uint64) (olimit - o) < rawkeylen + (uint64) (tsend - tsbuf) + auxlen)
		goto bad;
	keys = o;
	memcpy(o, rawkeys, rawkeylen);
	o += rawkeylen;
	memcpy(o, tsbuf, tsend - tsbuf);
	o += tsend - tsbuf;
	p += keylen + tslen;
	memcpy(o, p, auxlen);
	o += auxlen;
	p += auxlen;

	/* the values */
	if (!values)
	{
		memset(o, 0, olimit - o);
		o = olimit;
	}
	else if (f == 0.0)
	{
		if ((uint64) (olimit - o) < (uint64) (end - p))
			goto bad;
		memcpy(o, p, end - p);
		o += end - p;
	}
	else if (f == -1.0)
	{
		if (!(o = delta_decode(p, end, keys, keylen, ncells, o, olimit)))
			goto bad;
	}
	else if (f == -2.0)
	{
		if (!(o = huff_decode(p, end, refs, nvals, o, olimit)))
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
	if (refs)
		pfree(refs);
	*rawlen = size;
	return out;

bad:
	if (refs)
		pfree(refs);
	pfree(out);
	return NULL;
}
