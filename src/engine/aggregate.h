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
	WIDE_AGG_ROLLUP				/* per cell, by qualifier suffix (rollup.c) */
} WideAggregate;

/*
 * An accumulator being folded (aggregate.c).  sum/min/max keep an int64;
 * hll keeps WIDE_HLL_M one-byte registers.
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

#endif							/* WIDE_AGGREGATE_H */
