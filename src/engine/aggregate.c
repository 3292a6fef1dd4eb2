/*-------------------------------------------------------------------------
 *
 * aggregate.c
 *	  Accumulators of aggregate families: sum, min, max and HyperLogLog.
 *
 * An aggregate cell is the fold of every input written to its coordinates
 * (row, family, qualifier, ts) since the last delete.  Inputs are records:
 *
 *	ADD    (AddToCell)    sum/min/max: the int64 input, 8 bytes in native
 *	                      byte order.  hll: the 64-bit hash of the input
 *	                      (WideHllHash), 8 bytes in native byte order.
 *	MERGE  (MergeToCell)  an accumulator: sum/min/max 8 bytes as above; hll
 *	                      a sketch in the format below.
 *
 * Folding is commutative and associative, so the engine folds inputs in
 * whatever order it meets them: a reader folds what its snapshot sees, a
 * flush or compaction folds frozen inputs into one MERGE record.  Sum wraps
 * around on overflow (two's complement, as Bigtable's sum does); min and
 * max keep the smaller or larger input.
 *
 * In a table whose value column is float8, sum, min and max fold float8
 * values (WIDE_AGG_FSUM, FMIN, FMAX; WideCellAggregate chooses them):
 *
 *	ADD    the double, 8 bytes in native byte order (NaN as PostgreSQL's)
 *	MERGE  fmin/fmax: the double kept; fsum: a piece of the sum, a double
 *	       (fsum.c): a cell's sum is the exact sum of its pieces and
 *	       inputs, rounded once when read, so that it does not depend on
 *	       the order of folding either
 *
 * A ddsketch family (any value column of bytea) folds float8 values into a
 * DDSketch (ddsketch.c): ADD is the value, a double of 8 bytes in native
 * byte order; MERGE a sketch.
 *
 * fmin and fmax order doubles as PostgreSQL does (NaN above everything)
 * and put -0 below +0, which PostgreSQL holds equal: which zero a min of
 * both keeps would otherwise depend on the order.
 *
 * HyperLogLog sketch (the value of an hll cell, as SQL reads it back)
 * -------------------------------------------------------------------
 * Precision p = 14: m = 16384 registers, standard error 1.04 / sqrt(m) =
 * 0.81%.  An input is hashed with MurmurHash3 x64 128 (seed 0, first 64
 * bits); integers are hashed as their 8 little-endian bytes, text and
 * bytea as their bytes.  The top 14 bits of the hash choose a register, the
 * register keeps the largest rho seen, rho = 1 + the number of leading
 * zeros of the other 50 bits (1..51).  Two sketches merge by taking the
 * larger value of each register, so the merge of two sketches is exactly
 * the sketch of the union of their inputs.
 *
 *	byte 0      'H' (0x48)
 *	byte 1      format version, 1
 *	byte 2      precision, 14
 *	byte 3      encoding: 1 sparse, 2 dense
 *	sparse:     one big-endian uint32 (index << 8 | rho) per non-zero
 *	            register, by increasing index; used while at most
 *	            WIDE_HLL_SPARSE_MAX registers are non-zero
 *	dense:      16384 bytes, register i at byte 4 + i
 *
 * The encoding depends only on the registers, so equal sketches are equal
 * bytes.  The estimate is Ertl's improved raw estimator ("New cardinality
 * estimation algorithms for HyperLogLog sketches", 2017, algorithm 6): no
 * empirical bias tables, unbiased from 0 to far beyond 2^40 inputs.
 *
 * IDENTIFICATION
 *	  src/engine/aggregate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "utils/float.h"

#include "engine/format.h"
#include "engine/aggregate.h"

#define HLL_MAGIC		0x48
#define HLL_VERSION		1
#define HLL_SPARSE		1
#define HLL_DENSE		2
#define HLL_HEADER		4
#define HLL_Q			(64 - WIDE_HLL_P)	/* bits that give rho */

/* ----------------------------------------------------------------
 *	MurmurHash3 x64 128 (Austin Appleby, public domain), first half
 * ----------------------------------------------------------------
 */
static inline uint64
rotl64(uint64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64
fmix64(uint64 k)
{
	k ^= k >> 33;
	k *= UINT64CONST(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64CONST(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

static inline uint64
load_le64(const uint8 *p)
{
	return (uint64) p[0] | ((uint64) p[1] << 8) | ((uint64) p[2] << 16) |
		((uint64) p[3] << 24) | ((uint64) p[4] << 32) | ((uint64) p[5] << 40) |
		((uint64) p[6] << 48) | ((uint64) p[7] << 56);
}

/*
 * WideHllHash -- the 64-bit hash of an HLL input's bytes.
 */
uint64
WideHllHash(const char *data, uint32 len)
{
	const uint8 *p = (const uint8 *) data;
	const uint64 c1 = UINT64CONST(0x87c37b91114253d5);
	const uint64 c2 = UINT64CONST(0x4cf5ad432745937f);
	uint64		h1 = 0,
				h2 = 0,
				k1 = 0,
				k2 = 0;
	uint32		nblocks = len / 16;
	uint32		i;
	const uint8 *tail;

	for (i = 0; i < nblocks; i++)
	{
		k1 = load_le64(p + i * 16);
		k2 = load_le64(p + i * 16 + 8);

		k1 *= c1;
		k1 = rotl64(k1, 31);
		k1 *= c2;
		h1 ^= k1;
		h1 = rotl64(h1, 27);
		h1 += h2;
		h1 = h1 * 5 + 0x52dce729;

		k2 *= c2;
		k2 = rotl64(k2, 33);
		k2 *= c1;
		h2 ^= k2;
		h2 = rotl64(h2, 31);
		h2 += h1;
		h2 = h2 * 5 + 0x38495ab5;
	}

	tail = p + nblocks * 16;
	k1 = k2 = 0;
	switch (len & 15)
	{
		case 15:
			k2 ^= (uint64) tail[14] << 48;
			/* FALLTHROUGH */
		case 14:
			k2 ^= (uint64) tail[13] << 40;
			/* FALLTHROUGH */
		case 13:
			k2 ^= (uint64) tail[12] << 32;
			/* FALLTHROUGH */
		case 12:
			k2 ^= (uint64) tail[11] << 24;
			/* FALLTHROUGH */
		case 11:
			k2 ^= (uint64) tail[10] << 16;
			/* FALLTHROUGH */
		case 10:
			k2 ^= (uint64) tail[9] << 8;
			/* FALLTHROUGH */
		case 9:
			k2 ^= (uint64) tail[8];
			k2 *= c2;
			k2 = rotl64(k2, 33);
			k2 *= c1;
			h2 ^= k2;
			/* FALLTHROUGH */
		case 8:
			k1 ^= (uint64) tail[7] << 56;
			/* FALLTHROUGH */
		case 7:
			k1 ^= (uint64) tail[6] << 48;
			/* FALLTHROUGH */
		case 6:
			k1 ^= (uint64) tail[5] << 40;
			/* FALLTHROUGH */
		case 5:
			k1 ^= (uint64) tail[4] << 32;
			/* FALLTHROUGH */
		case 4:
			k1 ^= (uint64) tail[3] << 24;
			/* FALLTHROUGH */
		case 3:
			k1 ^= (uint64) tail[2] << 16;
			/* FALLTHROUGH */
		case 2:
			k1 ^= (uint64) tail[1] << 8;
			/* FALLTHROUGH */
		case 1:
			k1 ^= (uint64) tail[0];
			k1 *= c1;
			k1 = rotl64(k1, 31);
			k1 *= c2;
			h1 ^= k1;
	}

	h1 ^= len;
	h2 ^= len;
	h1 += h2;
	h2 += h1;
	h1 = fmix64(h1);
	h2 = fmix64(h2);
	h1 += h2;
	return h1;
}

/* ----------------------------------------------------------------
 *	Sketches
 * ----------------------------------------------------------------
 */

/* add one hash to dense registers */
static inline void
hll_add_hash(uint8 *regs, uint64 h)
{
	uint32		idx = (uint32) (h >> HLL_Q);
	uint64		w = h << WIDE_HLL_P;
	uint8		rho = w == 0 ? HLL_Q + 1 : 64 - pg_leftmost_one_pos64(w);

	if (regs[idx] < rho)
		regs[idx] = rho;
}

/*
 * WideHllCheck -- is this a well-formed sketch?  Returns NULL if so, else
 * what is wrong with it (for an error message).
 */
const char *
WideHllCheck(const char *data, uint32 len)
{
	const uint8 *p = (const uint8 *) data;

	if (len < HLL_HEADER || p[0] != HLL_MAGIC)
		return "It does not start with a HyperLogLog header.";
	if (p[1] != HLL_VERSION)
		return "Its format version is not 1.";
	if (p[2] != WIDE_HLL_P)
		return "Its precision is not 14.";
	if (p[3] == HLL_DENSE)
	{
		uint32		i;

		if (len != HLL_HEADER + WIDE_HLL_M)
			return "A dense sketch has 16388 bytes.";
		for (i = 0; i < WIDE_HLL_M; i++)
			if (p[HLL_HEADER + i] > HLL_Q + 1)
				return "A register is larger than 51.";
		return NULL;
	}
	if (p[3] == HLL_SPARSE)
	{
		uint32		n = (len - HLL_HEADER) / 4;
		int64		last = -1;
		uint32		i;

		if ((len - HLL_HEADER) % 4 != 0 || n > WIDE_HLL_SPARSE_MAX)
			return "A sparse sketch has at most 2048 entries of 4 bytes.";
		for (i = 0; i < n; i++)
		{
			uint32		e;
			uint32		idx;
			uint32		rho;

			/* a value in a page or a segment block is not aligned */
			memcpy(&e, p + HLL_HEADER + i * 4, 4);
			e = pg_ntoh32(e);
			idx = e >> 8;
			rho = e & 0xff;

			if (idx >= WIDE_HLL_M || rho < 1 || rho > HLL_Q + 1 ||
				(int64) idx <= last)
				return "Its sparse entries are out of order or out of range.";
			last = idx;
		}
		return NULL;
	}
	return "Its encoding is neither sparse nor dense.";
}

/* an accumulator as stored is malformed: the table is damaged */
static void
acc_corrupt(const char *what, uint32 len, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("wide aggregate cell holds a malformed %s of %u bytes", what, len),
			 detail ? errdetail_internal("%s", detail) : 0,
			 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
}

/* fold a sketch into dense registers; a malformed one is corruption */
static void
hll_merge_sketch(uint8 *regs, const char *data, uint32 len)
{
	const uint8 *p = (const uint8 *) data;
	const char *problem = WideHllCheck(data, len);
	uint32		i;

	if (problem != NULL)
		acc_corrupt("HyperLogLog sketch", len, problem);
	if (p[3] == HLL_DENSE)
	{
		const uint8 *src = p + HLL_HEADER;

		for (i = 0; i < WIDE_HLL_M; i++)
			regs[i] = Max(regs[i], src[i]);
	}
	else
	{
		uint32		n = (len - HLL_HEADER) / 4;

		for (i = 0; i < n; i++)
		{
			uint32		e;
			uint32		idx;

			memcpy(&e, p + HLL_HEADER + i * 4, 4);
			e = pg_ntoh32(e);
			idx = (e >> 8) & (WIDE_HLL_M - 1);
			regs[idx] = Max(regs[idx], (uint8) Min(e & 0xff, HLL_Q + 1));
		}
	}
}

/* the serialized size of dense registers */
static uint32
hll_size(const uint8 *regs, uint32 *nonzero)
{
	uint32		n = 0;
	uint32		i;

	for (i = 0; i < WIDE_HLL_M; i++)
		n += regs[i] != 0;
	*nonzero = n;
	return n <= WIDE_HLL_SPARSE_MAX ? HLL_HEADER + 4 * n : HLL_HEADER + WIDE_HLL_M;
}

static void
hll_write(const uint8 *regs, uint32 nonzero, char *out)
{
	uint8	   *p = (uint8 *) out;
	uint32		i;

	p[0] = HLL_MAGIC;
	p[1] = HLL_VERSION;
	p[2] = WIDE_HLL_P;
	if (nonzero > WIDE_HLL_SPARSE_MAX)
	{
		p[3] = HLL_DENSE;
		memcpy(p + HLL_HEADER, regs, WIDE_HLL_M);
		return;
	}
	p[3] = HLL_SPARSE;
	p += HLL_HEADER;
	for (i = 0; i < WIDE_HLL_M; i++)
		if (regs[i] != 0)
		{
			uint32		e = pg_hton32((i << 8) | regs[i]);

			memcpy(p, &e, 4);
			p += 4;
		}
}

/* Ertl's sigma and tau, for the improved raw estimator */
static double
ertl_sigma(double x)
{
	double		y = 1.0,
				z = x,
				prev;

	if (x == 1.0)
		return INFINITY;
	do
	{
		x *= x;
		prev = z;
		z += x * y;
		y += y;
	} while (z != prev);
	return z;
}

static double
ertl_tau(double x)
{
	double		y = 1.0,
				z,
				prev;

	if (x == 0.0 || x == 1.0)
		return 0.0;
	z = 1.0 - x;
	do
	{
		x = sqrt(x);
		prev = z;
		y *= 0.5;
		z -= (1.0 - x) * (1.0 - x) * y;
	} while (z != prev);
	return z / 3.0;
}

/*
 * WideHllEstimate -- the estimated number of distinct inputs of a sketch.
 */
double
WideHllEstimate(const char *data, uint32 len)
{
	uint8	   *regs = palloc0(WIDE_HLL_M);
	uint32		counts[HLL_Q + 2] = {0};
	double		m = WIDE_HLL_M;
	double		z;
	int			k;
	uint32		i;

	hll_merge_sketch(regs, data, len);
	for (i = 0; i < WIDE_HLL_M; i++)
		counts[regs[i]]++;
	pfree(regs);
	if (counts[0] == WIDE_HLL_M)
		return 0.0;

	z = m * ertl_tau(1.0 - counts[HLL_Q + 1] / m);
	for (k = HLL_Q; k >= 1; k--)
	{
		z += counts[k];
		z *= 0.5;
	}
	z += m * ertl_sigma(counts[0] / m);
	return (m / (2.0 * log(2.0))) * m / z;
}

/* ----------------------------------------------------------------
 *	Accumulators
 * ----------------------------------------------------------------
 */

/*
 * WideAccInit -- prepare an accumulator; its memory comes from cxt.
 */
void
WideAccInit(WideAcc *a, MemoryContext cxt)
{
	memset(a, 0, sizeof(WideAcc));
	a->cxt = cxt;
}

/*
 * WideAccStart -- an empty accumulator of the given aggregate.
 */
void
WideAccStart(WideAcc *a, WideAggregate agg)
{
	a->agg = agg;
	a->empty = true;
	if (agg == WIDE_AGG_FSUM)
	{
		memset(a->limbs, 0, sizeof(a->limbs));
		a->fflags = 0;
	}
	if (agg == WIDE_AGG_DDS)
		WideDDSStart(a);
	if (agg == WIDE_AGG_HLL)
	{
		if (a->regs == NULL)
			a->regs = MemoryContextAlloc(a->cxt, WIDE_HLL_M);
		memset(a->regs, 0, WIDE_HLL_M);
	}
}

/*
 * float_order -- PostgreSQL's order of float8 (NaN above everything, all
 * NaNs equal), with -0 below +0 so that min and max do not depend on which
 * of two zeros came first.
 */
static int
float_order(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	if (a < b)
		return -1;
	if (a > b)
		return 1;
	return (signbit(b) != 0) - (signbit(a) != 0);
}

/*
 * WideFloatInput -- the stored form of a float8 input: NaNs become the one
 * NaN PostgreSQL makes, so that equal accumulators are equal bytes.
 */
double
WideFloatInput(WideAggregate agg, double v)
{
	(void) agg;
	return isnan(v) ? get_float8_nan() : v;
}

/*
 * WideAccFold -- fold the value of an ADD or MERGE record.
 */
void
WideAccFold(WideAcc *a, uint8 kind, const char *value, uint32 len)
{
	if (a->agg == WIDE_AGG_HLL)
	{
		if (kind == WIDE_KIND_ADD)
		{
			uint64		h;

			if (len != sizeof(uint64))
				acc_corrupt("HyperLogLog input", len, NULL);
			memcpy(&h, value, sizeof(uint64));
			hll_add_hash(a->regs, h);
		}
		else
			hll_merge_sketch(a->regs, value, len);
		a->empty = false;
		return;
	}
	else if (a->agg == WIDE_AGG_DDS)
	{
		if (kind == WIDE_KIND_ADD)
		{
			double		v;

			if (len != sizeof(double))
				acc_corrupt("DDSketch input", len, NULL);
			memcpy(&v, value, sizeof(double));
			WideDDSAdd(a, v);
		}
		else
		{
			const char *problem = WideDDSCheck(value, len);

			if (problem != NULL)
				acc_corrupt("DDSketch", len, problem);
			WideDDSMerge(a, value, len);
		}
		a->empty = false;
	}
	else if (a->agg == WIDE_AGG_FSUM)
	{
		double		v;

		/* an input, or a piece of a folded sum (fsum.c): added exactly */
		if (len != sizeof(double))
			acc_corrupt("float accumulator", len, NULL);
		memcpy(&v, value, sizeof(double));
		WideFsumAdd(a, v);
		a->empty = false;
	}
	else if (a->agg == WIDE_AGG_FMIN || a->agg == WIDE_AGG_FMAX)
	{
		double		v;

		if (len != sizeof(double))
			acc_corrupt("float accumulator", len, NULL);
		memcpy(&v, value, sizeof(double));
		if (a->empty ||
			(a->agg == WIDE_AGG_FMIN ? float_order(v, a->f) < 0 :
			 float_order(v, a->f) > 0))
			a->f = v;
		a->empty = false;
	}
	else
	{
		int64		v;

		if (len != sizeof(int64))
			acc_corrupt("accumulator", len, NULL);
		memcpy(&v, value, sizeof(int64));
		if (a->empty)
			a->i = v;
		else
			switch (a->agg)
			{
				case WIDE_AGG_SUM:
					/* wraps around on overflow, as Bigtable's sum does */
					a->i = (int64) ((uint64) a->i + (uint64) v);
					break;
				case WIDE_AGG_MIN:
					a->i = Min(a->i, v);
					break;
				case WIDE_AGG_MAX:
					a->i = Max(a->i, v);
					break;
				default:
					elog(ERROR, "unexpected aggregate %d", (int) a->agg);
			}
		a->empty = false;
	}
}

/*
 * WideAccSize -- bytes of the accumulator as a MERGE record's value.
 */
uint32
WideAccSize(WideAcc *a)
{
	if (a->agg == WIDE_AGG_HLL)
		return hll_size(a->regs, &a->nonzero);
	if (a->agg == WIDE_AGG_DDS)
	{
		MemoryContext old = MemoryContextSwitchTo(a->cxt);

		if (a->encoded)
			pfree(a->encoded);
		a->encoded = WideDDSEncode(a, &a->encoded_len);
		MemoryContextSwitchTo(old);
		return a->encoded_len;
	}
	return sizeof(int64);		/* fsum: the rounded sum, a double */
}

/*
 * WideAccWrite -- the accumulator as a MERGE record's value; WideAccSize
 * must have been called since the last fold.  An fsum writes its rounded
 * sum: what a reader takes (a flush or compaction writes its pieces
 * instead, WideFsumPieces).
 */
void
WideAccWrite(const WideAcc *a, char *out)
{
	if (a->agg == WIDE_AGG_HLL)
		hll_write(a->regs, a->nonzero, out);
	else if (a->agg == WIDE_AGG_DDS)
		memcpy(out, a->encoded, a->encoded_len);
	else if (WIDE_AGG_IS_FLOAT(a->agg))
	{
		double		f = WideAccFloat(a);

		memcpy(out, &f, sizeof(double));
	}
	else
		memcpy(out, &a->i, sizeof(int64));
}

/*
 * WideAccFloat -- the value of a float accumulator: an fsum rounded to the
 * nearest double, an fmin's or fmax's double.
 */
double
WideAccFloat(const WideAcc *a)
{
	if (a->agg == WIDE_AGG_FSUM)
		return WideFsumRound(a);
	return a->empty ? 0.0 : a->f;
}
