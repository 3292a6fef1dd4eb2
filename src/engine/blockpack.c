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
 *	  packed := rawlen:varint unit:varint exp:u8 ncells:varint arena:varint
 *				keylen:varint tslen:varint auxlen:varint
 *				keys ts' aux values'
 *	  ts'     := zigzag(delta / unit)*       (the raw section's varints)
 *	  values' := the raw values if exp = 255, else zigzag(k)* with
 *				 value = (float8) k / 10^exp
 *
 * Packing is a function of the raw bytes only (it does not need to know
 * the table's types), and the writer unpacks what it packed and compares
 * before it stores a packed block, so a packed block always unpacks to the
 * exact raw block, whatever the bytes meant.  A reader iterates a packed
 * block as it is when it can (block.c), multiplying each timestamp varint
 * by the unit and dividing each k by 10^e as it goes: the block cache then
 * holds the packed form, which is smaller, and no block is rewritten to
 * be read.  Where it cannot (values not all 8 bytes long), compress.c
 * unpacks the block first.
 *
 * IDENTIFICATION
 *	  src/engine/blockpack.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "utils/memutils.h"

#include "wide.h"
#include "engine/coding.h"
#include "engine/segment.h"

#define EXP_NONE		255
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
	const char *p;
	const char *end;

	if (!parse_raw(raw, len, &b))
		return false;
	unit = ts_unit(b.ts, b.ts + b.tslen);
	e = value_exp(b.vals, b.valslen);
	if (unit == 1 && e == EXP_NONE)
		return false;

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
 * values stored as they are, else 10^e, exact); returns where the rest
 * starts, which has the layout of a raw block (block.c) with the sections
 * ts' and values', or NULL if the head is malformed.  Iterators read a
 * packed block as it is when its values are stored as they are or are all
 * 8 bytes long (block.c: WideBlockIterInitBlock).
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
	if (e > MAX_EXP && e != EXP_NONE)
		return NULL;
	*rawlen = size;
	*div = (e == EXP_NONE) ? 0.0 : pow10_exact(e);
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
