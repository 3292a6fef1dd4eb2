/*-------------------------------------------------------------------------
 *
 * ddsketch.c
 *	  Quantile sketches merged on write: DDSketch (Masson, Rim, Lee,
 *	  "DDSketch: a fast and fully-mergeable quantile sketch with
 *	  relative-error guarantees", VLDB 2019), the accumulator of a ddsketch
 *	  family.
 *
 * Why DDSketch and not t-digest: a DDSketch is a histogram of counts over
 * fixed logarithmic bins, so merging two sketches adds their counts bin by
 * bin -- exactly commutative and associative, the merge of sketches is the
 * sketch of the union of their inputs, whatever the order in which reads,
 * flushes, compactions and aborts fold them (the engine's requirement).  A
 * t-digest's merge depends on the order of merging.  And its guarantee is
 * relative to the value, per quantile, also for the tails (p99, p99.9),
 * which is what latency and readings dashboards ask.
 *
 * Relative accuracy alpha = 1%: gamma = (1 + alpha) / (1 - alpha); a
 * positive value x falls in bin i = ceil(log(x) / log(gamma)), the bin of
 * (gamma^(i-1), gamma^i]; negative values in bins of |x| kept apart; zeros
 * are counted apart.  The value reported for bin i is 2 gamma^i / (gamma +
 * 1), within alpha of every value of the bin.  Bins are never collapsed,
 * so the guarantee holds for every quantile: wide.quantile(s, q) returns a
 * value within 1% (relative) of the input of rank ceil(q n) (1-based, at
 * least 1) in increasing order -- what percentile_disc(q) returns -- for n
 * inputs.  Every finite double has a bin (about 72,000 bins span all of
 * them; readings within six orders of magnitude take at most 700).  The
 * bound is for normal doubles: the estimate of a subnormal one (below
 * 2.2e-308) is rounded to a multiple of 4.9e-324, which may add half of
 * that to its error.
 *
 * Sketch (the value of a ddsketch cell, as SQL reads it back):
 *
 *	byte 0      'D' (0x44)
 *	byte 1      format version, 1
 *	byte 2      relative accuracy in percent, 1
 *	byte 3      0
 *	varint      count of zeros
 *	varint      n: positive bins, then n times (zigzag varint: bin index
 *	            minus the previous one's, the first minus 0; varint count)
 *	            by increasing index, counts > 0
 *	varint      m: negative bins, the same
 *
 * varint := LEB128 of a uint64; zigzag(k) := (k << 1) ^ (k >> 63).  The
 * encoding depends only on the counts, so equal sketches are equal bytes.
 * An input (an ADD record) is the value, a double of 8 bytes.
 *
 * IDENTIFICATION
 *	  src/engine/ddsketch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "lib/stringinfo.h"

#include "engine/aggregate.h"

#define DDS_MAGIC		0x44
#define DDS_VERSION		1
#define DDS_ACCURACY	1		/* percent */
#define DDS_HEADER		4
#define DDS_ALPHA		0.01
#define DDS_MAX_INDEX	40000	/* beyond every finite double's bin */

/*
 * one sign's bins: counts[i - lo] for i in [lo, lo + n); those of [ulo,
 * uhi] may be non-zero (none if ulo > uhi), so that starting again and
 * encoding cost the span of one sketch's bins, not of every sketch the
 * accumulator held before
 */
typedef struct DDStore
{
	int32		lo;
	int32		n;
	int32		ulo;
	int32		uhi;
	uint64	   *counts;
} DDStore;

/*
 * A sketch being folded.  The first fold of a cell is often its only one
 * (a compacted cell is one MERGE record): such a sketch is kept as its
 * bytes ("single", well-formed and so canonical: WideDDSCheck) and only
 * decoded into bins when a second input comes, so that reading a folded
 * cell costs a copy, not a decode and an encode.
 */
struct WideDDS
{
	uint64		zeros;
	DDStore		pos;
	DDStore		neg;
	bool		pending;		/* "single" holds the whole sketch */
	bool		folded;			/* something was folded since the start */
	char	   *single;
	uint32		single_len;
	uint32		single_cap;
};

static double
dds_gamma(void)
{
	return (1.0 + DDS_ALPHA) / (1.0 - DDS_ALPHA);
}

/* make room for index i in a store */
static void
store_reserve(MemoryContext cxt, DDStore *s, int32 i)
{
	int32		lo,
				hi,
				n;
	uint64	   *c;

	if (s->n > 0 && i >= s->lo && i < s->lo + s->n)
		return;
	if (s->n > 0 && s->ulo > s->uhi)
	{
		/* nothing in use: start the window over around i */
		pfree(s->counts);
		s->n = 0;
	}
	if (s->n == 0)
	{
		lo = i - 64;
		hi = i + 64;
	}
	else
	{
		lo = Min(s->lo, i);
		hi = Max(s->lo + s->n, i + 1);
		/* grow by half again, towards the side that needed it */
		if (i < s->lo)
			lo -= (hi - lo) / 2 + 16;
		else
			hi += (hi - lo) / 2 + 16;
	}
	n = hi - lo;
	c = MemoryContextAllocZero(cxt, sizeof(uint64) * n);
	if (s->n > 0)
	{
		memcpy(c + (s->lo - lo), s->counts, sizeof(uint64) * s->n);
		pfree(s->counts);
	}
	s->lo = lo;
	s->n = n;
	s->counts = c;
}

static void
store_add(MemoryContext cxt, DDStore *s, int32 i, uint64 count)
{
	store_reserve(cxt, s, i);
	s->counts[i - s->lo] += count;
	if (s->ulo > s->uhi)
		s->ulo = s->uhi = i;
	else
	{
		s->ulo = Min(s->ulo, i);
		s->uhi = Max(s->uhi, i);
	}
}

/* zero a store's bins in use */
static void
store_clear(DDStore *s)
{
	if (s->ulo <= s->uhi)
		memset(s->counts + (s->ulo - s->lo), 0, sizeof(uint64) * (s->uhi - s->ulo + 1));
	s->ulo = 1;
	s->uhi = 0;
}

/*
 * WideDDSStart -- an empty sketch in the accumulator.
 */
void
WideDDSStart(WideAcc *a)
{
	struct WideDDS *d = a->dds;

	if (d == NULL)
	{
		d = a->dds = MemoryContextAllocZero(a->cxt, sizeof(struct WideDDS));
		d->pos.ulo = d->neg.ulo = 1;	/* nothing in use */
	}
	d->zeros = 0;
	store_clear(&d->pos);
	store_clear(&d->neg);
	d->pending = false;
	d->folded = false;
}

/* bins a walk keeps, per sign, for the quantiles without a second walk */
#define DDS_SHAPE_BINS	32

/*
 * what a walk finds: the counts, where each sign's list starts, and the
 * first DDS_SHAPE_BINS bins of each (index, running count)
 */
typedef struct DDSShape
{
	uint64		zeros;
	uint64		npos;
	uint64		nneg;
	const uint8 *pos;
	const uint8 *neg;
	bool		keep;			/* keep bins (WideDDSCheckedQuantiles) */
	int			nbins[2];		/* of each sign; > DDS_SHAPE_BINS: not all kept */
	int32		index[2][DDS_SHAPE_BINS];
	uint64		upto[2][DDS_SHAPE_BINS];	/* running count at the bin */
} DDSShape;

static const char *walk(const char *data, uint32 len, WideAcc *a, DDSShape *shape);

/* decode a sketch kept as its bytes into the bins */
static void
unpend(WideAcc *a)
{
	struct WideDDS *d = a->dds;

	if (d->pending)
	{
		d->pending = false;
		if (walk(d->single, d->single_len, a, NULL) != NULL)
			elog(ERROR, "malformed DDSketch kept for folding");
	}
}

/* the bin of a positive finite value */
static int32
bin_of(double x)
{
	double		i = ceil(log(x) / log(dds_gamma()));

	return (int32) Max(Min(i, DDS_MAX_INDEX), -DDS_MAX_INDEX);
}

/*
 * WideDDSAdd -- add one value (finite: the caller checks).
 */
void
WideDDSAdd(WideAcc *a, double x)
{
	struct WideDDS *d = a->dds;

	unpend(a);
	d->folded = true;
	if (x == 0.0 || isnan(x))
		d->zeros++;
	else if (x > 0)
		store_add(a->cxt, &d->pos, bin_of(x), 1);
	else
		store_add(a->cxt, &d->neg, bin_of(-x), 1);
}

/*
 * read a varint; false if the data ends first, or if it takes more bytes
 * than its value needs (a last byte of 0 after the first), which would
 * give an equal sketch other bytes
 */
static inline bool
get_varint(const uint8 **p, const uint8 *end, uint64 *v)
{
	uint64		r = 0;
	int			shift = 0;

	/* (one byte, the common case: counts, deltas between near bins) */
	if (likely(*p < end) && **p < 0x80)
	{
		*v = *(*p)++;
		return true;
	}
	while (*p < end && shift < 64)
	{
		uint8		b = *(*p)++;

		r |= (uint64) (b & 0x7f) << shift;
		if (!(b & 0x80))
		{
			*v = r;
			return b != 0 || shift == 0;
		}
		shift += 7;
	}
	return false;
}

/*
 * walk a sketch's bins; with a, add them to it; with shape, note its
 * counts and lists there; NULL if well-formed.  Always inlined into its
 * three callers below, so that each is compiled for its own a and shape
 * (the check and the quantile of every cell a rollup read returns, in
 * particular, without the tests of a merge's).
 */
static pg_attribute_always_inline const char *
walk_impl(const char *data, uint32 len, WideAcc *a, DDSShape *shape)
{
	const uint8 *p = (const uint8 *) data;
	const uint8 *end = p + len;
	uint64		zeros;
	int			sign;

	if (len < DDS_HEADER || p[0] != DDS_MAGIC)
		return "It does not start with a DDSketch header.";
	if (p[1] != DDS_VERSION)
		return "Its format version is not 1.";
	if (p[2] != DDS_ACCURACY || p[3] != 0)
		return "Its relative accuracy is not 1%.";
	p += DDS_HEADER;
	if (!get_varint(&p, end, &zeros))
		return "It ends before its count of zeros, or a number takes more bytes than it needs.";
	if (a)
		a->dds->zeros += zeros;
	if (shape)
	{
		shape->zeros = zeros;
		shape->npos = shape->nneg = 0;
	}
	for (sign = 0; sign < 2; sign++)
	{
		uint64		n;
		int64		index = 0;
		uint64		k;
		uint64		total = 0;

		if (shape)
		{
			if (sign == 0)
				shape->pos = p;
			else
				shape->neg = p;
		}
		if (!get_varint(&p, end, &n))
			return "It ends before its count of bins, or a number takes more bytes than it needs.";
		if (n > 2 * DDS_MAX_INDEX + 1)
			return "It has more bins than there are.";
		for (k = 0; k < n; k++)
		{
			uint64		z,
						count;
			int64		delta;

			if (!get_varint(&p, end, &z) || !get_varint(&p, end, &count))
				return "It ends inside a bin, or a number takes more bytes than it needs.";
			delta = (int64) (z >> 1) ^ -(int64) (z & 1);
			if ((k > 0 && delta <= 0) || count == 0)
				return "Its bins are out of order or empty.";
			index += delta;
			if (index < -DDS_MAX_INDEX || index > DDS_MAX_INDEX)
				return "A bin index is out of range.";
			if (a)
				store_add(a->cxt, sign == 0 ? &a->dds->pos : &a->dds->neg,
						  (int32) index, count);
			total += count;
			if (shape && shape->keep && k < DDS_SHAPE_BINS)
			{
				shape->index[sign][k] = (int32) index;
				shape->upto[sign][k] = total;
			}
		}
		if (shape)
		{
			shape->nbins[sign] = (int) Min(n, DDS_SHAPE_BINS + 1);
			if (sign == 0)
				shape->npos = total;
			else
				shape->nneg = total;
		}
	}
	if (p != end)
		return "It has bytes after its bins.";
	return NULL;
}

static pg_noinline const char *
walk(const char *data, uint32 len, WideAcc *a, DDSShape *shape)
{
	if (a != NULL)
		return walk_impl(data, len, a, NULL);
	if (shape != NULL)
		return walk_impl(data, len, NULL, shape);
	return walk_impl(data, len, NULL, NULL);
}

/*
 * WideDDSCheck -- is this a well-formed sketch?  NULL if so, else what is
 * wrong with it.
 */
const char *
WideDDSCheck(const char *data, uint32 len)
{
	return walk(data, len, NULL, NULL);
}

/*
 * WideDDSMerge -- add a well-formed sketch's counts (the caller checked).
 */
void
WideDDSMerge(WideAcc *a, const char *data, uint32 len)
{
	struct WideDDS *d = a->dds;
	const char *problem;

	if (!d->folded)
	{
		/* the first fold: kept as its bytes, decoded if another comes */
		if (d->single_cap < len)
		{
			if (d->single)
				pfree(d->single);
			d->single_cap = Max(len, 256);
			d->single = MemoryContextAlloc(a->cxt, d->single_cap);
		}
		memcpy(d->single, data, len);
		d->single_len = len;
		d->pending = true;
		d->folded = true;
		return;
	}
	unpend(a);
	problem = walk(data, len, a, NULL);
	if (problem)
		elog(ERROR, "malformed DDSketch: %s", problem);
}

static void
put_varint(StringInfo b, uint64 v)
{
	while (v >= 0x80)
	{
		appendStringInfoChar(b, (char) ((v & 0x7f) | 0x80));
		v >>= 7;
	}
	appendStringInfoChar(b, (char) v);
}

static void
put_store(StringInfo b, const DDStore *s)
{
	int32		i,
				from = s->ulo - s->lo,
				to = s->uhi - s->lo;
	int64		prev = 0;
	uint64		n = 0;

	for (i = from; i <= to; i++)
		n += s->counts[i] != 0;
	put_varint(b, n);
	for (i = from; i <= to; i++)
		if (s->counts[i] != 0)
		{
			int64		index = (int64) s->lo + i;
			int64		delta = index - prev;

			put_varint(b, ((uint64) delta << 1) ^ (uint64) (delta >> 63));
			put_varint(b, s->counts[i]);
			prev = index;
		}
}

/*
 * WideDDSEncode -- the sketch's bytes, palloc'd in the current context.
 */
char *
WideDDSEncode(const WideAcc *a, uint32 *len)
{
	StringInfoData b;

	if (a->dds->pending)
	{
		/* one well-formed sketch folded: its bytes are the encoding */
		char	   *out = palloc(a->dds->single_len);

		memcpy(out, a->dds->single, a->dds->single_len);
		*len = a->dds->single_len;
		return out;
	}
	initStringInfo(&b);
	appendStringInfoChar(&b, (char) DDS_MAGIC);
	appendStringInfoChar(&b, (char) DDS_VERSION);
	appendStringInfoChar(&b, (char) DDS_ACCURACY);
	appendStringInfoChar(&b, 0);
	put_varint(&b, a->dds->zeros);
	put_store(&b, &a->dds->pos);
	put_store(&b, &a->dds->neg);
	*len = b.len;
	return b.data;
}

/*
 * the value a bin stands for, 2 gamma^i / (gamma + 1), computed as one exp
 * so that it stays finite where gamma^i alone would not (the top bin of
 * doubles: gamma^i above DBL_MAX, the value below it); clamped to DBL_MAX
 * past that, which is then nearer than the bin's value to every input
 */
static double
bin_value(int32 i)
{
	/* the last bins asked for, by index (a pure function: no invalidation; 1024 bins span 9 orders of magnitude) */
	static struct
	{
		int32		index;
		double		value;
	}			memo[1024] = {{1, 0.0}};	/* (no index maps to a slot whose
										 * index it is before it is set:
										 * slot 0 holds 1, the others 0) */
	int			slot = i & 1023;
	double		g,
				v;

	if (memo[slot].index == i)
		return memo[slot].value;
	g = dds_gamma();
	v = exp(i * log(g) + log(2.0 / (g + 1.0)));
	v = isinf(v) ? DBL_MAX : v;
	memo[slot].index = i;
	memo[slot].value = v;
	return v;
}

/* the value of the bin of a sign's list where the running count first reaches rank */
static double
list_rank(const uint8 *p, const uint8 *end, uint64 rank)
{
	uint64		n = 0,
				k,
				seen = 0;
	int64		index = 0;

	(void) get_varint(&p, end, &n);
	for (k = 0; k < n; k++)
	{
		uint64		z = 0,
					count = 0;

		(void) get_varint(&p, end, &z);
		(void) get_varint(&p, end, &count);
		index += (int64) (z >> 1) ^ -(int64) (z & 1);
		seen += count;
		if (seen >= rank)
			break;
	}
	return bin_value((int32) index);
}

/* skip a sign's list, adding its counts to *total */
static const uint8 *
list_skip(const uint8 *p, const uint8 *end, uint64 *total)
{
	uint64		n = 0,
				k,
				z = 0,
				count = 0;

	(void) get_varint(&p, end, &n);
	for (k = 0; k < n; k++)
	{
		(void) get_varint(&p, end, &z);
		(void) get_varint(&p, end, &count);
		*total += count;
	}
	return p;
}

/*
 * the value of the bin of a sign's list where the running count first
 * reaches rank, from the bins a walk kept if it kept them all
 */
static double
shape_rank(const DDSShape *sh, int sign, const uint8 *end, uint64 rank)
{
	int			k;

	if (!sh->keep || sh->nbins[sign] > DDS_SHAPE_BINS)
		return list_rank(sign == 0 ? sh->pos : sh->neg, end, rank);
	for (k = 0; k < sh->nbins[sign] - 1; k++)
		if (sh->upto[sign][k] >= rank)
			break;
	return bin_value(sh->index[sign][k]);
}

/* the quantiles of a sketch of that shape (ends at end), as below */
static uint64
quantiles_of(const DDSShape *sh, const uint8 *end, int nq, const double *qs,
			 double *out)
{
	uint64		n = sh->zeros + sh->npos + sh->nneg;
	int			j;

	if (n == 0)
		return 0;
	for (j = 0; j < nq; j++)
	{
		uint64		rank = (uint64) ceil(qs[j] * (double) n);

		if (rank < 1)
			rank = 1;
		if (rank > n)
			rank = n;
		/* negative values, increasing: by decreasing |x|, the list's reverse */
		if (rank <= sh->nneg)
			out[j] = -shape_rank(sh, 1, end, sh->nneg - rank + 1);
		else if (rank <= sh->nneg + sh->zeros)
			out[j] = 0.0;
		else
			out[j] = shape_rank(sh, 0, end, rank - sh->nneg - sh->zeros);
	}
	return n;
}

/*
 * WideDDSQuantiles -- the quantiles qs[0 .. nq-1] (each in [0, 1]) of a
 * well-formed sketch's bytes (the caller checked them: WideDDSCheck), read
 * from the bytes without building its bins: the estimate of the input of
 * rank ceil(q n) (1-based, at least 1) of the sketch's n inputs in
 * increasing order.  Returns n; if 0, out is not set.  Allocates nothing.
 */
uint64
WideDDSQuantiles(const char *data, uint32 len, int nq, const double *qs, double *out)
{
	const uint8 *p = (const uint8 *) data + DDS_HEADER;
	const uint8 *end = (const uint8 *) data + len;
	DDSShape	sh;

	(void) get_varint(&p, end, &sh.zeros);
	sh.keep = false;
	sh.npos = sh.nneg = 0;
	sh.pos = p;
	sh.neg = list_skip(sh.pos, end, &sh.npos);
	(void) list_skip(sh.neg, end, &sh.nneg);
	return quantiles_of(&sh, end, nq, qs, out);
}

/*
 * WideDDSCheckedQuantiles -- WideDDSCheck and WideDDSQuantiles in one: NULL
 * and the quantiles (*n: the inputs; out not set if 0) if the bytes are a
 * well-formed sketch, else what is wrong with them.  It walks the bytes
 * once to check and count them, and once more only as far as the
 * quantile's bin: this is what a rollup read does per cell (wide.quantile).
 */
const char *
WideDDSCheckedQuantiles(const char *data, uint32 len, int nq, const double *qs,
						double *out, uint64 *n)
{
	DDSShape	sh;
	const char *problem;

	sh.keep = true;
	problem = walk(data, len, NULL, &sh);

	if (problem == NULL)
		*n = quantiles_of(&sh, (const uint8 *) data + len, nq, qs, out);
	return problem;
}
