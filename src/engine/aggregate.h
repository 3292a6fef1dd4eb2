/*-------------------------------------------------------------------------
 *
 * aggregate.h
 *	  Aggregate families: sum, min, max and HyperLogLog accumulators and
 *	  their folding (aggregate.c).
 *
 * IDENTIFICATION
 *	  src/engine/aggregate.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_AGGREGATE_H
#define WIDE_AGGREGATE_H

typedef enum WideAggregate
{
	WIDE_AGG_NONE = 0,
	WIDE_AGG_SUM,
	WIDE_AGG_MIN,
	WIDE_AGG_MAX,
	WIDE_AGG_HLL,
	WIDE_AGG_ROLLUP,			/* per cell, by qualifier suffix (rollup.c) */
	/* the same over float8 values (a float8 value column) */
	WIDE_AGG_FSUM,
	WIDE_AGG_FMIN,
	WIDE_AGG_FMAX,
	WIDE_AGG_DDS				/* a DDSketch of float8 values (ddsketch.c) */
} WideAggregate;

#define WIDE_AGG_IS_FLOAT(a) \
	((a) == WIDE_AGG_FSUM || (a) == WIDE_AGG_FMIN || (a) == WIDE_AGG_FMAX)

/*
 * A float8 sum is kept exactly: a two's complement integer in units of
 * 2^-1074 (the smallest subnormal double) of WIDE_FSUM_LIMBS 64-bit limbs,
 * least significant first.  Every finite double is an integer multiple of
 * 2^-1074 below 2^2098, so 78 bits are left for carries: more than 2^77
 * inputs of the largest magnitude before the sum could wrap.
 */
#define WIDE_FSUM_LIMBS		34
#define WIDE_FSUM_NAN		0x01	/* a NaN was added */
#define WIDE_FSUM_PINF		0x02	/* +Infinity was added */
#define WIDE_FSUM_NINF		0x04	/* -Infinity was added */

/*
 * An accumulator being folded (aggregate.c).  sum/min/max keep an int64;
 * hll keeps WIDE_HLL_M one-byte registers; fmin/fmax a double, fsum an
 * exact fixed-point sum (limbs) and the special values seen (fflags).
 */
#define WIDE_HLL_P			14
#define WIDE_HLL_M			(1 << WIDE_HLL_P)
#define WIDE_HLL_SPARSE_MAX	2048	/* non-zero registers of a sparse sketch */

typedef struct WideAcc
{
	WideAggregate agg;
	bool		empty;			/* nothing folded yet */
	int64		i;				/* sum, min, max */
	uint8	   *regs;			/* hll registers */
	uint32		nonzero;		/* hll: set by WideAccSize */
	char	   *encoded;		/* ddsketch: set by WideAccSize */
	uint32		encoded_len;
	double		f;				/* fmin, fmax */
	uint8		fflags;			/* fsum: WIDE_FSUM_* */
	uint64		limbs[WIDE_FSUM_LIMBS];	/* fsum */
	struct WideDDS *dds;		/* ddsketch: its bins */
	MemoryContext cxt;
} WideAcc;

extern uint64 WideHllHash(const char *data, uint32 len);
extern const char *WideHllCheck(const char *data, uint32 len);
extern double WideHllEstimate(const char *data, uint32 len);
extern void WideAccInit(WideAcc *a, MemoryContext cxt);
extern void WideAccStart(WideAcc *a, WideAggregate agg);
extern void WideAccFold(WideAcc *a, uint8 kind, const char *value, uint32 len);
extern uint32 WideAccSize(WideAcc *a);
extern void WideAccWrite(const WideAcc *a, char *out);
extern double WideAccFloat(const WideAcc *a);
extern double WideFloatInput(WideAggregate agg, double v);

/* quantile sketches (ddsketch.c) */
extern void WideDDSStart(WideAcc *a);
extern void WideDDSAdd(WideAcc *a, double x);
extern const char *WideDDSCheck(const char *data, uint32 len);
extern void WideDDSMerge(WideAcc *a, const char *data, uint32 len);
extern char *WideDDSEncode(const WideAcc *a, uint32 *len);
extern uint64 WideDDSQuantiles(const char *data, uint32 len, int nq,
							   const double *qs, double *out);
extern const char *WideDDSCheckedQuantiles(const char *data, uint32 len, int nq,
										   const double *qs, double *out, uint64 *n);

/* exact float8 sums (fsum.c) */
extern void WideFsumAdd(WideAcc *a, double v);
extern double WideFsumRound(const WideAcc *a);
extern int	WideFsumPieces(const WideAcc *a, double *out, int max);

#endif							/* WIDE_AGGREGATE_H */
