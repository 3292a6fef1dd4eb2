/*-------------------------------------------------------------------------
 *
 * fsum.c
 *	  Exact sums of float8 values: the accumulator of a float sum family.
 *
 * Float addition is not associative: (1e16 + 1) - 1e16 is 0 or 1 depending
 * on the order.  An aggregate cell is folded in whatever order the engine
 * meets its inputs (a reader folds what its snapshot sees, flushes and
 * compactions fold frozen inputs, an aborted input drops out), so a float
 * sum folded with float additions would depend on compaction timing.
 *
 * So the sum is kept exactly.  Every finite double is m * 2^e with an
 * integer m < 2^53 and -1074 <= e <= 971: an integer multiple of 2^-1074
 * below 2^2098.  The accumulator is that integer, summed in two's
 * complement over WIDE_FSUM_LIMBS = 34 64-bit limbs (2176 bits: 78 bits of
 * headroom, so more than 2^77 inputs of the largest magnitude fit).
 * Integer addition is associative and commutative, so every order of
 * folding gives the same accumulator, and reading rounds it once to the
 * nearest double (ties to even): the correctly rounded sum of the inputs.
 * A sum beyond the largest double rounds to +-Infinity, as IEEE addition
 * does.  Infinities and NaN are kept as flags (an "or" is associative
 * too): the sum is NaN if a NaN was added or both infinities were, else
 * +-Infinity if one was, as PostgreSQL's float8 addition has it.  A sum of
 * zero is +0.
 *
 * Stored form.  A value column of float8 stores 8 bytes per record (block.c
 * keeps no length for a fixed-length type), so the accumulator is stored as
 * *pieces*: MERGE records of one double each, of the cell's coordinates,
 * whose exact sum is the cell's sum.  An input (ADD) is a piece too, and so
 * is a merge_to_cell accumulator.  A flush or compaction folding a cell's
 * frozen inputs writes the canonical pieces of their exact sum
 * (WideFsumPieces): the sum rounded to the nearest double, then what is left
 * rounded, and so on (each piece takes at least 53 bits off the rest, so a
 * sum within the range of a double needs at most 41 pieces, and a sum of
 * readings of similar magnitude one or two: the rounded sum and its
 * rounding error).  Infinities and NaN are one piece (+-Infinity or NaN),
 * which later inputs cannot change; a finite sum beyond the largest double
 * is pieces of +-DBL_MAX and the rest.
 *
 * IDENTIFICATION
 *	  src/engine/fsum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "port/pg_bitutils.h"
#include "utils/float.h"

#include "engine/aggregate.h"

#define FSUM_MAX_PIECES	64

/* add (or subtract) a two-limb value at limb i, carrying to the top */
static void
limbs_add2(uint64 *l, int i, uint64 lo, uint64 hi, bool negative)
{
	uint64		carry;

	if (!negative)
	{
		uint64		s = l[i] + lo;

		carry = s < lo;
		l[i] = s;
		if (i + 1 < WIDE_FSUM_LIMBS)
		{
			uint64		t = l[i + 1] + hi;
			uint64		c2 = t < hi;

			s = t + carry;
			carry = c2 | (s < t);
			l[i + 1] = s;
		}
		for (i += 2; carry && i < WIDE_FSUM_LIMBS; i++)
			carry = (++l[i] == 0);
	}
	else
	{
		uint64		borrow = l[i] < lo;

		l[i] -= lo;
		if (i + 1 < WIDE_FSUM_LIMBS)
		{
			uint64		t = l[i + 1];
			uint64		b2 = t < hi;

			t -= hi;
			b2 |= t < borrow;
			t -= borrow;
			borrow = b2;
			l[i + 1] = t;
		}
		for (i += 2; borrow && i < WIDE_FSUM_LIMBS; i++)
			borrow = (l[i]-- == 0);
	}
}

/*
 * WideFsumAdd -- add one double to the accumulator.
 */
void
WideFsumAdd(WideAcc *a, double v)
{
	uint64		bits;
	int			e;
	uint64		m;
	int			p;

	memcpy(&bits, &v, sizeof(bits));
	e = (int) ((bits >> 52) & 0x7ff);
	m = bits & ((UINT64CONST(1) << 52) - 1);
	if (e == 0x7ff)
	{
		if (m != 0)
			a->fflags |= WIDE_FSUM_NAN;
		else
			a->fflags |= (bits >> 63) ? WIDE_FSUM_NINF : WIDE_FSUM_PINF;
		return;
	}
	if (e == 0)
		p = 0;					/* subnormal (or zero): m * 2^-1074 */
	else
	{
		m |= UINT64CONST(1) << 52;
		p = e - 1;				/* m * 2^(e - 1075) = m * 2^(p - 1074) */
	}
	if (m == 0)
		return;
	limbs_add2(a->limbs, p / 64, m << (p % 64),
			   (p % 64) ? m >> (64 - p % 64) : 0, (bits >> 63) != 0);
}

/* bits [pos, pos + 64) of a magnitude (zero beyond its ends) */
static uint64
bits_at(const uint64 *mag, int pos)
{
	int			i = pos / 64;
	int			s = pos % 64;
	uint64		w = i < WIDE_FSUM_LIMBS ? mag[i] >> s : 0;

	if (s != 0 && i + 1 < WIDE_FSUM_LIMBS)
		w |= mag[i + 1] << (64 - s);
	return w;
}

/* is any bit below pos set? */
static bool
any_below(const uint64 *mag, int pos)
{
	int			i;

	for (i = 0; i < pos / 64; i++)
		if (mag[i] != 0)
			return true;
	return (pos % 64) != 0 && (mag[pos / 64] & ((UINT64CONST(1) << (pos % 64)) - 1)) != 0;
}

/* the two's complement integer l rounded to the nearest double, ties even */
static double
round_limbs(const uint64 *l)
{
	uint64		mag[WIDE_FSUM_LIMBS];
	bool		negative = (l[WIDE_FSUM_LIMBS - 1] >> 63) != 0;
	int			top = -1;
	int			i;
	double		r;

	if (negative)
	{
		uint64		carry = 1;

		for (i = 0; i < WIDE_FSUM_LIMBS; i++)
		{
			mag[i] = ~l[i] + carry;
			carry = carry && mag[i] == 0;
		}
	}
	else
		memcpy(mag, l, sizeof(mag));
	for (i = WIDE_FSUM_LIMBS - 1; i >= 0; i--)
		if (mag[i] != 0)
		{
			top = 64 * i + pg_leftmost_one_pos64(mag[i]);
			break;
		}
	if (top < 0)
		return 0.0;
	if (top < 53)
		r = ldexp((double) mag[0], -1074);	/* exact: below 2^53 units */
	else
	{
		int			shift = top - 52;
		uint64		m = bits_at(mag, shift) & ((UINT64CONST(1) << 53) - 1);
		bool		half = (bits_at(mag, shift - 1) & 1) != 0;

		if (half && (any_below(mag, shift - 1) || (m & 1)))
			m++;				/* to nearest, ties to even */
		r = ldexp((double) m, shift - 1074);	/* +-Infinity beyond range */
	}
	return negative ? -r : r;
}

/* the special value the flags make, or 0 if none */
static double
special_value(uint8 fflags)
{
	if ((fflags & WIDE_FSUM_NAN) ||
		(fflags & (WIDE_FSUM_PINF | WIDE_FSUM_NINF)) ==
		(WIDE_FSUM_PINF | WIDE_FSUM_NINF))
		return get_float8_nan();
	if (fflags & WIDE_FSUM_PINF)
		return INFINITY;
	if (fflags & WIDE_FSUM_NINF)
		return -INFINITY;
	return 0.0;
}

/*
 * WideFsumRound -- the sum rounded to the nearest double, ties to even.
 */
double
WideFsumRound(const WideAcc *a)
{
	if (a->fflags != 0)
		return special_value(a->fflags);
	return round_limbs(a->limbs);
}

/*
 * WideFsumPieces -- the canonical pieces of the sum (see the top of the
 * file) into out[0 .. max-1], largest first; returns how many, or -1 if
 * more than max (or FSUM_MAX_PIECES) would be needed.
 */
int
WideFsumPieces(const WideAcc *a, double *out, int max)
{
	WideAcc		rest;
	int			n = 0;

	if (a->fflags != 0)
	{
		if (max < 1)
			return -1;
		out[0] = special_value(a->fflags);
		return 1;
	}
	memcpy(rest.limbs, a->limbs, sizeof(rest.limbs));
	rest.fflags = 0;
	for (;;)
	{
		double		c;
		int			i;

		for (i = 0; i < WIDE_FSUM_LIMBS && rest.limbs[i] == 0; i++)
			;
		if (i == WIDE_FSUM_LIMBS)
			return n;
		if (n == max || n == FSUM_MAX_PIECES)
			return -1;
		c = round_limbs(rest.limbs);
		if (isinf(c))
			c = copysign(DBL_MAX, c);
		out[n++] = c;
		WideFsumAdd(&rest, -c);
	}
}
