/*-------------------------------------------------------------------------
 *
 * rows_scan.c
 *	  The row form's scan: key ranges from the evaluated key conditions,
 *	  one reader over them, and rows assembled in C from the merged cells
 *	  in storage order -- no Sort, no Group, a tuple per reading; EXPLAIN
 *	  and ANALYZE of it.
 *
 * Assembly.  The reader returns the family's visible cells (deletes,
 * versions, GC and aggregates applied, as every read of the wide table)
 * in (row key, qualifier, time newest first) order.  Without a timestamp
 * column outside the key, a row is a row key, and a column's value its
 * qualifier's newest cell (the reader skips older versions). With one, a
 * row is a row key and a time: the row key's cells are gathered, then
 * returned grouped by time, newest first (a row key holds one series).
 * A row key that is not of the form's shape is an error (rows_shape.c).
 *
 * A backward scan reads each range by a reverse reader (reverse.c); the
 * range's last row, where the engine can read it straight from the block
 * that holds it (WideReverseLastRow: lastpoint's LIMIT 1 per host), is
 * assembled from the block's cells as they are decoded, not copied into a
 * window first (direct_row).
 *
 * ANALYZE of a large table reads the first rows of stretches spread over
 * it (cut at block boundaries of its runs, as the cells table's ANALYZE
 * samples), of a small one every row with a reservoir sample (as
 * file_fdw), so the planner gets distinct counts of key parts and columns.
 *
 * IDENTIFICATION
 *	  src/am/rows_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "common/pg_prng.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "port/pg_bitutils.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sampling.h"
#include "utils/timestamp.h"

#include "engine/reader.h"
#include "engine/segment.h"
#include "engine/split.h"
#include "am/am.h"
#include "am/scan.h"
#include "am/scan_parallel.h"
#include "am/rows.h"

/* a cell of a row key, in versions mode */
typedef struct RowsVersion
{
	int64		ts;
	AttrNumber	att;
	int			order;			/* arrival, for a stable sort */
	Datum		value;
} RowsVersion;

struct RowsScan
{
	WideRowShape *shape;
	Relation	cells;
	const WideSchema *schema;
	Snapshot	snapshot;
	bool		by_version;		/* a timestamp column outside the key */

	/* key conditions: values evaluated at each (re)scan */
	List	   *meta;			/* (part, strategy, is_array) per value */
	List	   *values;			/* ExprState per value */
	WideColumnFilter columns;
	bool		all_columns;

	/* ranges of this (re)scan */
	bool		started;
	int			nranges;
	int			nextrange;
	WideKeyRange *ranges;
	bool		wider;			/* the ranges hold keys the key conditions
								 * reject (the filter decides) */
	WideReader *reader;
	WideReadState *rstate;		/* the table's state, read once per scan:
								 * a reader per range or window reads it */
	int64		now;
	bool		backward;		/* rows last first: ranges from the last */

	/*
	 * Skip scan: the parts before skip_part+1 have no condition (or only
	 * equalities, in the ranges), part skip_part+1 a range: each distinct
	 * prefix through part skip_part is read only in that window.
	 */
	bool		skip;
	int			skip_part;
	StringInfoData skip_lo;		/* the window's digits */
	StringInfoData skip_hi;
	bool		skip_hi_inf;
	bool		in_window;
	StringInfoData cur_hi;		/* the current prefix's window end */
	StringInfoData jump;		/* where the next window is looked for */
	bool		skip_done;
	WideReverseReader *rreader;

	/*
	 * A backward scan reads its ranges by reverse readers of one state of
	 * the table (bstate): that of the ranges' hull on the first scan; from
	 * a rescan on (a parameterized scan: lastpoint's LIMIT 1 per host), of
	 * the whole table, kept with its reverse reader (bspare) for every
	 * later rescan, in bstatecxt: the write area is gathered once, not per
	 * rescan.
	 */
	WideReadState *bstate;
	bool		bstate_all;
	WideReverseReader *bspare;
	MemoryContext bstatecxt;
	uint64		nrescans;
	bool	   *wanted;			/* by attnum - 1: columns read */
	bool	   *valued;			/* by attnum - 1: ... whose values are used
								 * (the others only say a row exists) */
	bool		all_valued;
	bool		row_kept;		/* rows_keep_stored: a cell of the row kept */
	bool		keepfam;		/* ... the record before was of the family */
	MemoryContext readcxt;		/* the reader and its ranges */
	MemoryContext rowcxt;		/* the current row's datums */

	/* assembly */
	const WideCell *pending;	/* read, belongs to the next row */
	bool		done;
	char	   *key;			/* the current row key */
	uint32		keylen;
	uint32		keycap;
	RowsVersion *versions;		/* versions mode: the row key's cells */
	int			nversions;
	int			capversions;
	int			nextversion;
	Datum	   *keyvalues;		/* the row key's parts, by attnum - 1 */
	bool	   *keynulls;
	StringInfoData decoded;		/* the row key they were decoded from */

	int			lastqual;		/* by_qual index of the last column found */
	int			keepqual;		/* ... by rows_keep */
	bool		plain8;			/* values are 8-byte by-value datums, as the
								 * columns show them (cell_value's fast path) */

	/* conditions tested on a row's values before it is finished */
	int			npre;
	struct RowsPreFilter *pre;

	/*
	 * Rows decoded a block at a time (WideReaderRowBatch): where the reader
	 * reads a plain run and the rest of a block is in range, its records
	 * come as rows of 8-byte values, a column of the batch per column read
	 */
	bool		batching;		/* the scan may take them */
	WideRowBatchSpec bspec;
	WideRowBatch batch;
	int			bnext;			/* the next row of the batch */
	int			bwin;			/* skip scan: its rows before this one are
								 * inside the window */
	AttrNumber *batt;			/* by column of the batch: its attnum */
	int		   *bcol;			/* by attnum - 1: its column of the batch, -1 */
	StringInfoData winkey;		/* skip scan: a row key inside the window */

	/*
	 * A parallel scan: every participant builds the same ranges (all), and
	 * reads their share of each stretch it claims (ranges); stretches end
	 * between row keys, so no row is divided.
	 */
	WideParallelScan *pscan;
	WideKeyRange *all;
	int			nall;
	WideSplitKey *splits;		/* the leader's, from estimate to initialize */
	int			nsplits;
	StringInfoData plo;			/* the claimed stretch's bounds */
	StringInfoData phi;

	/* a lower bound on a time part besides the key conditions (rows_agg.c) */
	bool		has_floor;
	int			floor_part;
	Datum		floor;
	Oid			floor_type;

	/* EXPLAIN ANALYZE */
	uint64		nrows;
	uint64		ncells;
	uint64		nseeks;
	uint64		ncontinued;		/* ... of them read on by the reader before
								 * (WideReaderRestartAt) */
	uint64		nprefiltered;
	uint64		nbatched;		/* rows decoded a block at a time */
	uint64		nbstates;		/* backward: table states read (bstate) */
	uint64		ndirect;		/* backward: last rows read straight from
								 * their block (reverse.c) */
};

/*
 * A condition "column op constant" (or "constant op column") of the scan's
 * filter on a value column, tested as soon as a row's cells are gathered:
 * a row it rejects is neither key-decoded nor returned (WideRowsScanSetFilter).
 */
typedef struct RowsPreFilter
{
	AttrNumber	att;
	bool		var_left;		/* column op constant */
	Datum		konst;
	Oid			collation;
	FmgrInfo	fn;
	Oid			fast;			/* a float8 comparison tested inline (its
								 * function's oid), or InvalidOid */
} RowsPreFilter;

/* does value v pass condition f?  (v is not NULL) */
static inline bool
pre_test(const RowsPreFilter *f, Datum v)
{
	if (f->fast != InvalidOid)
	{
		/* (float.h's comparisons: those of float8gt and its kin, NaN too) */
		float8		x = DatumGetFloat8(f->var_left ? v : f->konst);
		float8		y = DatumGetFloat8(f->var_left ? f->konst : v);

		switch (f->fast)
		{
			case F_FLOAT8EQ:
				return float8_eq(x, y);
			case F_FLOAT8NE:
				return float8_ne(x, y);
			case F_FLOAT8LT:
				return float8_lt(x, y);
			case F_FLOAT8LE:
				return float8_le(x, y);
			case F_FLOAT8GT:
				return float8_gt(x, y);
			case F_FLOAT8GE:
				return float8_ge(x, y);
		}
	}
	return DatumGetBool(f->var_left ?
						FunctionCall2Coll((FmgrInfo *) &f->fn, f->collation, v, f->konst) :
						FunctionCall2Coll((FmgrInfo *) &f->fn, f->collation, f->konst, v));
}

/* ----------------------------------------------------------------
 *	Key ranges
 * ----------------------------------------------------------------
 */

/* a part's values as digits: u in [lo, hi) (hi_inf: unbounded) */
typedef struct PartBounds
{
	bool		any;			/* a bound was given */
	uint64		lo;
	uint64		hi;
	bool		hi_inf;
	bool		empty;
} PartBounds;

/*
 * bound -- narrow b by "part <strat> d".  In digit space u: integers of a
 * fixed width are themselves, of no width offset by 2^63; times are whole
 * units since 1970.
 */
static void
bound(const WideRowPart *p, int strat, Datum d, Oid type, PartBounds *b)
{
	uint64		lo = 0,
				hi = 0;
	bool		has_lo = false,
				has_hi = false;
	uint64		dom = p->kind == WIDE_PART_INT && p->width == 0 ? 0 : WideRowPow10(p->width);

	b->any = true;
	if (p->kind == WIDE_PART_INT)
	{
		int64		x = WideRowInt(d, type);

		if (p->width == 0)
		{
			uint64		u = (uint64) x + ((uint64) 1 << 63);

			switch (strat)
			{
				case BTGreaterEqualStrategyNumber:
					lo = u, has_lo = true;
					break;
				case BTGreaterStrategyNumber:
					if (u == PG_UINT64_MAX)
						b->empty = true;
					lo = u + 1, has_lo = true;
					break;
				case BTLessStrategyNumber:
					hi = u, has_hi = true;
					break;
				case BTLessEqualStrategyNumber:
					if (u != PG_UINT64_MAX)
						hi = u + 1, has_hi = true;
					break;
			}
		}
		else
		{
			switch (strat)
			{
				case BTGreaterEqualStrategyNumber:
					lo = x < 0 ? 0 : (uint64) x, has_lo = true;
					break;
				case BTGreaterStrategyNumber:
					lo = x < 0 ? 0 : (uint64) x + 1, has_lo = true;
					break;
				case BTLessStrategyNumber:
					hi = x <= 0 ? 0 : (uint64) x, has_hi = true;
					break;
				case BTLessEqualStrategyNumber:
					hi = x < 0 ? 0 : (uint64) x + 1, has_hi = true;
					break;
			}
		}
	}
	else
	{
		Timestamp	t = DatumGetTimestamp(d);
		int64		us;
		int64		fl,
					ce;

		if (TIMESTAMP_IS_NOBEGIN(t))
		{
			if (strat == BTLessStrategyNumber || strat == BTLessEqualStrategyNumber)
				b->empty = true;
			return;
		}
		if (TIMESTAMP_IS_NOEND(t))
		{
			if (strat == BTGreaterStrategyNumber || strat == BTGreaterEqualStrategyNumber)
				b->empty = true;
			return;
		}
		us = WideTimestampToUnix(t);
		/* floor and ceiling of us / unit */
		fl = us / p->unit - (us % p->unit < 0 ? 1 : 0);
		ce = fl + (us - fl * p->unit != 0 ? 1 : 0);
		switch (strat)
		{
			case BTGreaterEqualStrategyNumber:
				lo = ce < 0 ? 0 : (uint64) ce, has_lo = true;
				break;
			case BTGreaterStrategyNumber:
				lo = fl + 1 < 0 ? 0 : (uint64) (fl + 1), has_lo = true;
				break;
			case BTLessStrategyNumber:
				hi = ce < 0 ? 0 : (uint64) ce, has_hi = true;
				break;
			case BTLessEqualStrategyNumber:
				hi = fl + 1 < 0 ? 0 : (uint64) (fl + 1), has_hi = true;
				break;
		}
	}
	if (has_lo && lo > b->lo)
		b->lo = lo;
	if (has_hi && dom != 0 && hi >= dom)
		has_hi = false;
	if (has_hi && (b->hi_inf || hi < b->hi))
	{
		b->hi = hi;
		b->hi_inf = false;
	}
	if (dom != 0 && b->lo >= dom)
		b->empty = true;
	if (!b->hi_inf && b->lo >= b->hi)
		b->empty = true;
}

typedef struct KeyBytes
{
	char	   *data;
	uint32		len;
} KeyBytes;

static int
cmp_keybytes(const void *a, const void *b)
{
	const KeyBytes *x = a,
			   *y = b;
	return WideKeyCompare(x->data, x->len, y->data, y->len);
}

/* the least key greater than every key that begins with p; false: none */
static inline bool
prefix_end(const char *p, uint32 len, StringInfo out)
{
	bool		has_end;

	WidePrefixEnd(out, p, len, &has_end);
	return has_end;
}

static void
add_range(RowsScan *st, int *cap, const char *start, uint32 startlen, bool has_start,
		  const char *end, uint32 endlen, bool has_end, bool point)
{
	WideKeyRange *r;

	if (st->nranges == *cap)
	{
		*cap *= 2;
		st->ranges = repalloc(st->ranges, sizeof(WideKeyRange) * *cap);
	}
	r = &st->ranges[st->nranges++];
	memset(r, 0, sizeof(*r));
	r->has_start = has_start;
	r->start_incl = true;
	r->start = has_start ? pnstrdup(start, startlen) : NULL;
	r->startlen = has_start ? startlen : 0;
	r->has_end = has_end;
	r->end_incl = point;
	r->end = has_end ? pnstrdup(end, endlen) : NULL;
	r->endlen = has_end ? endlen : 0;
	r->is_point = point;
}

/*
 * bound_digits -- a part's bounds as the digits of its key bytes:
 * [*dlo, *dhi) (*dhi_inf: no end), *w digits; false if no value fits.
 */
static bool
bound_digits(const WideRowPart *p, const PartBounds *b, uint64 *dlo,
			 uint64 *dhi, bool *dhi_inf, int *w)
{
	*w = p->kind == WIDE_PART_INT && p->width == 0 ? 20 : p->width;
	if (b->empty)
		return false;
	if (p->reversed)
	{
		/* u in [lo, hi)  <=>  digits in [D - hi, D - lo) */
		uint64		dom = WideRowPow10(p->width);

		*dlo = b->hi_inf ? 0 : dom - b->hi;
		*dhi = dom - b->lo;
		*dhi_inf = (b->lo == 0);
	}
	else
	{
		*dlo = b->lo;
		*dhi = b->hi;
		*dhi_inf = b->hi_inf;
	}
	return true;
}

/* the bucket of a salted prefix build_ranges made (w digits) */
static int
prefix_bucket(const char *data, int w)
{
	int			b = 0;

	for (int i = 0; i < w; i++)
		b = b * 10 + (data[i] - '0');
	return b;
}

/*
 * vals with the bytes of key part p of value d appended (followed by the
 * separator unless p is the last part), or as they are when d is no value
 * of the part; buf is scratch
 */
static List *
add_part_value(const WideRowShape *s, int p, Datum d, Oid type,
			   StringInfo buf, List *vals)
{
	KeyBytes   *k;

	resetStringInfo(buf);
	if (!WideRowKeyPartTry(s, p, d, type, buf))
		return vals;
	k = palloc(sizeof(KeyBytes));
	if (p < s->nparts - 1)
		appendStringInfoChar(buf, s->sep);
	k->data = pnstrdup(buf->data, buf->len);
	k->len = buf->len;
	return lappend(vals, k);
}

/*
 * build_prefix_range -- build_ranges of the one shape a parameterized scan
 * rescanned per outer row mostly has (lastpoint: host = outer.id): a single
 * equality, not of an array, on the first of several parts of an unsalted
 * key, no time floor -- one prefix range, made without the general
 * machinery (a few functions per rescan instead of a dozen).  False if the
 * conditions have another shape.
 */
static bool
build_prefix_range(RowsScan *st, ExprContext *econtext)
{
	const WideRowShape *s = st->shape;
	List	   *m;
	ExprState  *es;
	Datum		d;
	bool		isnull;
	int			cap = 1;
	StringInfoData buf,
				end;
	bool		has_end;

	if (list_length(st->meta) != 1 || s->salt || st->has_floor || s->nparts < 2)
		return false;
	m = linitial(st->meta);
	if (linitial_int(m) != 0 || lsecond_int(m) != BTEqualStrategyNumber ||
		lthird_int(m))
		return false;
	st->nranges = 0;
	st->wider = false;
	st->skip = false;
	st->ranges = palloc(sizeof(WideKeyRange) * cap);
	es = linitial(st->values);
	d = ExecEvalExpr(es, econtext, &isnull);
	if (isnull)
		return true;			/* a comparison with NULL is never true */
	initStringInfo(&buf);
	if (!WideRowKeyPartTry(s, 0, d, exprType((Node *) es->expr), &buf))
		return true;			/* no row key holds the value */
	appendStringInfoChar(&buf, s->sep);
	initStringInfo(&end);
	has_end = prefix_end(buf.data, buf.len, &end);
	add_range(st, &cap, buf.data, buf.len, true, end.data, end.len, has_end, false);
	return true;
}

/*
 * build_ranges -- the ranges of the key conditions' current values, in
 * key order, in st->ranges; none if no row can match.
 */
static void
build_ranges(RowsScan *st, ExprContext *econtext)
{
	const WideRowShape *s = st->shape;
	List	   *eqvals[WIDE_ROWS_MAX_PARTS] = {0};
	bool		has_eq[WIDE_ROWS_MAX_PARTS] = {0};
	PartBounds bounds[WIDE_ROWS_MAX_PARTS];
	ListCell   *lm,
			   *lv;
	KeyBytes   *prefixes;
	int			nprefixes = 1;
	int			cap = 16;
	int			part;
	StringInfoData buf,
				end;

	if (build_prefix_range(st, econtext))
		return;
	memset(bounds, 0, sizeof(bounds));
	for (int i = 0; i < WIDE_ROWS_MAX_PARTS; i++)
		bounds[i].hi_inf = true;
	st->nranges = 0;
	st->wider = false;
	st->ranges = palloc(sizeof(WideKeyRange) * cap);
	initStringInfo(&buf);
	initStringInfo(&end);

	forboth(lm, st->meta, lv, st->values)
	{
		List	   *m = lfirst(lm);
		int			p = linitial_int(m);
		int			strat = lsecond_int(m);
		bool		is_array = lthird_int(m);
		ExprState  *es = lfirst(lv);
		bool		isnull;
		Datum		d = ExecEvalExpr(es, econtext, &isnull);
		Oid			type = exprType((Node *) es->expr);

		if (isnull)
			return;				/* a comparison with NULL is never true */
		if (strat == BTEqualStrategyNumber)
		{
			List	   *vals = NIL;

			if (has_eq[p])
			{
				st->wider = true;
				continue;		/* the first equality decides; the filter the rest */
			}
			if (is_array)
			{
				ArrayType  *a = DatumGetArrayTypeP(d);
				int16		typlen;
				bool		typbyval;
				char		typalign;
				Datum	   *elems;
				bool	   *nulls;
				int			n;

				type = ARR_ELEMTYPE(a);
				get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
				deconstruct_array(a, type, typlen, typbyval, typalign, &elems, &nulls, &n);
				for (int i = 0; i < n; i++)
				{
					if (nulls[i])
						continue;
					vals = add_part_value(s, p, elems[i], type, &buf, vals);
				}
			}
			else
			{
				vals = add_part_value(s, p, d, type, &buf, vals);
			}
			if (vals == NIL)
				return;			/* no row key holds any of the values */
			has_eq[p] = true;
			eqvals[p] = vals;
		}
		else
			bound(&s->parts[p], strat, d, type, &bounds[p]);
	}

	if (st->has_floor)
		bound(&s->parts[st->floor_part], BTGreaterEqualStrategyNumber, st->floor,
			  st->floor_type, &bounds[st->floor_part]);

	/*
	 * A salted key with key conditions: its first part is every bucket (one,
	 * below, if the other parts are all equalities).  Without, the whole
	 * table: a key with no bucket of ours is an error, not a skipped row.
	 */
	if (s->salt && (st->meta != NIL || st->has_floor))
	{
		for (int b = 0; b < s->salt; b++)
		{
			KeyBytes   *k = palloc(sizeof(KeyBytes));

			resetStringInfo(&buf);
			WideRowDigits(&buf, (uint64) b, s->parts[0].width);
			appendStringInfoChar(&buf, s->sep);
			k->data = pnstrdup(buf.data, buf.len);
			k->len = buf.len;
			eqvals[0] = lappend(eqvals[0], k);
		}
		has_eq[0] = true;
	}

	/* prefixes of the parts with equalities, from the first on */
	prefixes = palloc(sizeof(KeyBytes));
	prefixes[0].data = "";
	prefixes[0].len = 0;
	for (part = 0; part < s->nparts && has_eq[part]; part++)
	{
		int			nv = list_length(eqvals[part]);
		KeyBytes   *vals = palloc(sizeof(KeyBytes) * nv);
		KeyBytes   *next;
		int			k = 0,
					nn = 0;
		ListCell   *lc;

		if (bounds[part].empty)
			return;
		foreach(lc, eqvals[part])
			vals[k++] = *(KeyBytes *) lfirst(lc);
		qsort(vals, nv, sizeof(KeyBytes), cmp_keybytes);
		for (int i = 0; i < nv; i++)
			if (nn == 0 || cmp_keybytes(&vals[nn - 1], &vals[i]) != 0)
				vals[nn++] = vals[i];
		if ((double) nprefixes * nn > 1000000)
		{
			st->wider = true;
			break;				/* too many: read the prefixes so far */
		}
		next = palloc(sizeof(KeyBytes) * nprefixes * nn);
		k = 0;
		for (int i = 0; i < nprefixes; i++)
			for (int j = 0; j < nn; j++)
			{
				next[k].len = prefixes[i].len + vals[j].len;
				next[k].data = palloc(next[k].len);
				memcpy(next[k].data, prefixes[i].data, prefixes[i].len);
				memcpy(next[k].data + prefixes[i].len, vals[j].data, vals[j].len);
				k++;
			}
		prefixes = next;
		nprefixes = k;
	}

	/* whole salted keys: each in the bucket its other parts make */
	if (s->salt && part == s->nparts)
	{
		int			w = s->parts[0].width;
		int			k = 0;

		for (int i = 0; i < nprefixes; i++)
			if (WideRowSaltOf(prefixes[i].data + w + 1, prefixes[i].len - w - 1,
							  s->salt) == prefix_bucket(prefixes[i].data, w))
				prefixes[k++] = prefixes[i];
		nprefixes = k;
	}

	/*
	 * A range on the part after the first one without a condition: read
	 * each value of that part only in the range (a skip scan).
	 */
	st->skip = false;
	if (!st->backward && part < s->nparts - 1 &&
		bounds[part + 1].any && !has_eq[part + 1] &&
		s->parts[part + 1].kind != WIDE_PART_TEXT)
	{
		uint64		dlo,
					dhi;
		bool		dhi_inf;
		int			w;

		if (!bound_digits(&s->parts[part + 1], &bounds[part + 1], &dlo, &dhi,
						  &dhi_inf, &w))
			return;
		st->skip = true;
		st->wider = true;
		st->skip_part = part;
		initStringInfo(&st->skip_lo);
		initStringInfo(&st->skip_hi);
		initStringInfo(&st->cur_hi);
		initStringInfo(&st->jump);
		WideRowDigits(&st->skip_lo, dlo, w);
		st->skip_hi_inf = dhi_inf;
		if (!dhi_inf)
			WideRowDigits(&st->skip_hi, dhi, w);
	}

	for (int i = 0; i < nprefixes; i++)
	{
		const KeyBytes *pre = &prefixes[i];

		if (part == s->nparts)
		{
			/* every part equal: one row key */
			add_range(st, &cap, pre->data, pre->len, true, pre->data, pre->len, true, true);
		}
		else if (bounds[part].any && s->parts[part].kind != WIDE_PART_TEXT &&
				 has_eq[part] == false)
		{
			uint64		dlo,
						dhi;
			bool		dhi_inf;
			int			w;

			if (!bound_digits(&s->parts[part], &bounds[part], &dlo, &dhi, &dhi_inf, &w))
				return;
			resetStringInfo(&buf);
			appendBinaryStringInfo(&buf, pre->data, pre->len);
			WideRowDigits(&buf, dlo, w);
			if (!dhi_inf)
			{
				resetStringInfo(&end);
				appendBinaryStringInfo(&end, pre->data, pre->len);
				WideRowDigits(&end, dhi, w);
				add_range(st, &cap, buf.data, buf.len, true, end.data, end.len, true, false);
			}
			else
			{
				bool		has_end = prefix_end(pre->data, pre->len, &end);

				add_range(st, &cap, buf.data, buf.len, true, end.data, end.len, has_end, false);
			}
		}
		else
		{
			bool		has_end = prefix_end(pre->data, pre->len, &end);

			add_range(st, &cap, pre->data, pre->len, pre->len > 0,
					  end.data, end.len, has_end, false);
		}
	}
}

/* ----------------------------------------------------------------
 *	Reading cells
 * ----------------------------------------------------------------
 */

static void
close_reader(RowsScan *st)
{
	st->batch.nrows = 0;
	st->bnext = 0;
	if (st->reader != NULL)
		WideReaderEnd(st->reader);
	if (st->rreader != NULL)
		st->ndirect += WideReverseGetStats(st->rreader).rows_direct;
	if (st->rreader != NULL && st->bstate_all && st->bspare == NULL)
		st->bspare = st->rreader;	/* (kept for the next rescan) */
	else if (st->rreader != NULL)
		WideReverseEnd(st->rreader);
	if (st->rstate != NULL)
		WideReadStateEnd(st->rstate);
	if (st->bstate != NULL && !st->bstate_all)
	{
		WideReadStateEnd(st->bstate);
		st->bstate = NULL;
		MemoryContextReset(st->bstatecxt);
	}
	st->reader = NULL;
	st->rreader = NULL;
	st->rstate = NULL;
}

/* the end of the scan: close_reader, and what it keeps for rescans */
static void
close_all(RowsScan *st)
{
	close_reader(st);
	if (st->bspare != NULL)
		WideReverseEnd(st->bspare);
	if (st->bstate != NULL)
		WideReadStateEnd(st->bstate);
	st->bspare = NULL;
	st->bstate = NULL;
	st->bstate_all = false;
}

/* the by_qual index of a qualifier, trying the one after *last first; -1 */
static inline int
qual_index(const WideRowShape *s, const char *qual, uint32 len, int *last)
{
	int			next = *last + 1;

	if (next < s->nvalues)
	{
		const WideRowCol *col = &s->cols[s->by_qual[next] - 1];

		if (WideBytesEqual(col->qual, col->quallen, qual, len))
			return *last = next;
	}
	for (int i = 0; i < s->nvalues; i++)
	{
		const WideRowCol *col = &s->cols[s->by_qual[i] - 1];

		if (WideBytesEqual(col->qual, col->quallen, qual, len))
			return *last = i;
	}
	return *last = -1;
}

/*
 * rows_keep -- the reader's filter (WideReaderSetFilter): the records of
 * the form's family and of the columns read, and the family's tombstones.
 * (What WideColumnFilterKeep keeps of st->columns, without a search: for
 * the block iterator, which steps over the rest without decoding them.)
 */
static bool
rows_keep(const WideCell *c, void *arg)
{
	RowsScan   *st = (RowsScan *) arg;
	const WideRowShape *s = st->shape;
	int			i;

	if (!WideBytesEqual(c->family, c->famlen, s->family, s->famlen))
		return false;
	if (c->kind == WIDE_KIND_DEL_FAMILY)
		return true;
	i = qual_index(s, c->qual, c->quallen, &st->keepqual);
	return i >= 0 && st->wanted[s->by_qual[i] - 1];
}

/*
 * rows_keep_stored -- the filter of a plain run read as stored
 * (WideReaderSetStoredFilter): of the columns read whose values are not
 * used, only a row's first cell, which says the row exists.
 */
static bool
rows_keep_stored(const WideCell *c, void *arg)
{
	RowsScan   *st = (RowsScan *) arg;
	const WideRowShape *s = st->shape;
	int			i;
	AttrNumber	att;

	if (!(c->same & WIDE_SAME_ROW))
		st->row_kept = false;	/* (a new row, or a block's first record) */
	/* (every record of the run comes here: the hint is of the one before) */
	if (!(c->same & WIDE_SAME_FAMILY))
		st->keepfam = WideBytesEqual(c->family, c->famlen, s->family, s->famlen);
	if (!st->keepfam)
		return false;
	i = qual_index(s, c->qual, c->quallen, &st->keepqual);
	if (i < 0)
		return false;
	att = s->by_qual[i];
	if (!st->wanted[att - 1] || (!st->valued[att - 1] && st->row_kept))
		return false;
	st->row_kept = true;
	return true;
}

/*
 * open_at -- a reader of range r of the scan's read state (taken at the
 * first): every range and skip window reads the one state of the table,
 * its write-area records gathered and sorted once.
 */
/* the range from the first range's start to the last one's end */
static void
scan_hull(const RowsScan *st, WideKeyRange *hull)
{
	const WideKeyRange *r = st->pscan ? st->all : st->ranges;
	int			n = st->pscan ? st->nall : st->nranges;

	*hull = r[0];
	hull->has_end = r[n - 1].has_end;
	hull->end = r[n - 1].end;
	hull->endlen = r[n - 1].endlen;
	hull->end_incl = r[n - 1].end_incl;
	hull->is_point = hull->is_point && n == 1;
}

/* a and b's common keys into *out (bounds point into a and b); false if none */
static bool
intersect(const WideKeyRange *a, const WideKeyRange *b, WideKeyRange *out)
{
	int			cmp;

	*out = *a;
	if (b->has_start &&
		(!out->has_start ||
		 (cmp = WideKeyCompare(b->start, b->startlen, out->start, out->startlen)) > 0 ||
		 (cmp == 0 && !b->start_incl)))
	{
		out->has_start = true;
		out->start = b->start;
		out->startlen = b->startlen;
		out->start_incl = b->start_incl;
	}
	if (b->has_end &&
		(!out->has_end ||
		 (cmp = WideKeyCompare(b->end, b->endlen, out->end, out->endlen)) < 0 ||
		 (cmp == 0 && !b->end_incl)))
	{
		out->has_end = true;
		out->end = b->end;
		out->endlen = b->endlen;
		out->end_incl = b->end_incl;
	}
	if (out->has_start && out->has_end)
	{
		cmp = WideKeyCompare(out->start, out->startlen, out->end, out->endlen);
		if (cmp > 0 || (cmp == 0 && !(out->start_incl && out->end_incl)))
			return false;
	}
	return true;
}

/*
 * more_ranges -- a parallel scan's next share: the scan's ranges within the
 * next stretch it claims, in st->ranges; false when every stretch is
 * claimed (and always, for a serial scan).
 */
static bool
more_ranges(RowsScan *st)
{
	WideKeyRange whole;
	WideKeyRange stretch;

	if (st->pscan == NULL || st->nall == 0)
		return false;
	scan_hull(st, &whole);
	whole.is_point = false;
	for (;;)
	{
		if (!WideParallelClaim(st->pscan, &whole, &stretch, &st->plo, &st->phi))
			return false;
		st->nranges = 0;
		st->nextrange = 0;
		for (int i = 0; i < st->nall; i++)
			if (intersect(&st->all[i], &stretch, &st->ranges[st->nranges]))
				st->nranges++;
		if (st->nranges > 0)
			return true;
	}
}

/* a parallel scan: the ranges just built are shared out by stretches */
static void
share_ranges(RowsScan *st)
{
	if (st->pscan == NULL)
		return;
	st->all = st->ranges;
	st->nall = st->nranges;
	st->ranges = palloc(sizeof(WideKeyRange) * Max(st->nall, 1));
	st->nranges = 0;
	st->nextrange = 0;
	if (st->plo.data == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(st));

		initStringInfo(&st->plo);
		initStringInfo(&st->phi);
		MemoryContextSwitchTo(old);
	}
}

static void
open_at(RowsScan *st, const WideKeyRange *r)
{
	if (st->reader != NULL)
		WideReaderEnd(st->reader);
	if (st->rstate == NULL)
	{
		WideKeyRange hull;

		scan_hull(st, &hull);
		st->rstate = WideReadStateBegin(st->cells, st->snapshot, &hull);
		st->now = st->pscan ? WideParallelNow(st->pscan) : WideReaderNow();
	}
	st->batch.nrows = 0;		/* (rows of the reader before) */
	st->bnext = 0;
	st->reader = WideReaderBeginAt(st->rstate, st->now, r, NULL);
	if (st->columns.fam_active || st->columns.qual_active)
		WideReaderSetFilter(st->reader, rows_keep, st);
	if (!st->all_valued && !st->by_version)
		WideReaderSetStoredFilter(st->reader, rows_keep_stored, st);
	st->nseeks++;
}

/*
 * backward_open -- the reverse reader of a backward scan's next range, in
 * st->rreader; false if no range is left.
 */
static bool
backward_open(RowsScan *st)
{
	const WideKeyRange *r;

	if (st->nextrange >= st->nranges)
		return false;
	r = &st->ranges[st->nranges - 1 - st->nextrange];
	if (st->bstate == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(st->bstatecxt);
		WideKeyRange hull;

		scan_hull(st, &hull);
		st->bstate_all = st->nrescans > 0;
		st->bstate = WideReadStateBegin(st->cells, st->snapshot,
										st->bstate_all ? NULL : &hull);
		st->nbstates++;
		MemoryContextSwitchTo(old);
	}
	if (st->bspare != NULL)
	{
		st->rreader = st->bspare;
		st->bspare = NULL;
		WideReverseRestart(st->rreader, WideReaderNow(), r);
	}
	else
	{
		/* (in bstatecxt if it is kept for rescans, else readcxt) */
		MemoryContext old = MemoryContextSwitchTo(st->bstate_all ?
												  st->bstatecxt :
												  CurrentMemoryContext);

		st->rreader = WideReverseBeginAt(st->cells, st->snapshot, st->bstate,
										 WideReaderNow(), r, true, NULL);
		MemoryContextSwitchTo(old);
	}
	st->nextrange++;
	st->nseeks++;
	return true;
}

/* backward_close -- the end of a range's reverse reader */
static void
backward_close(RowsScan *st)
{
	st->ndirect += WideReverseGetStats(st->rreader).rows_direct;
	if (st->bstate_all && st->bspare == NULL)
		st->bspare = st->rreader;
	else
		WideReverseEnd(st->rreader);
	st->rreader = NULL;
}

/*
 * next_cell_backward -- the next cell of a backward scan: each range by a
 * reverse reader (rows last first, the cells of a row in forward order),
 * from the last range to the first.
 */
static const WideCell *
next_cell_backward(RowsScan *st)
{
	const WideCell *c;

	for (;;)
	{
		if (st->rreader == NULL && !backward_open(st))
			return NULL;
		c = WideReverseNext(st->rreader);
		if (c == NULL)
		{
			backward_close(st);
			continue;
		}
		if (WideBytesEqual(c->family, c->famlen, st->shape->family, st->shape->famlen))
			return c;
	}
}

/*
 * row_done -- whether the cell read last ended its row, as far as the
 * reader knows without reading on: a backward scan's reverse reader knows
 * (its windows hold whole rows), and the next cell, which could read a
 * whole window for a LIMIT 1, is not needed to end the row.
 */
static inline bool
row_done(const RowsScan *st)
{
	return st->backward && st->rreader != NULL && WideReverseRowDone(st->rreader);
}

/* the bytes of key through the separator after part "part", or -1 */
static int
prefix_len(const WideRowShape *s, const char *key, uint32 len, int part)
{
	uint32		pos = 0;

	for (int i = 0; i <= part; i++)
	{
		const WideRowPart *p = &s->parts[i];

		if (p->kind == WIDE_PART_TEXT)
		{
			while (pos < len && key[pos] != s->sep)
				pos += (key[pos] == '\\') ? 2 : 1;
		}
		else
			pos += (p->kind == WIDE_PART_INT && p->width == 0) ? 20 : p->width;
		if (pos >= len || key[pos] != s->sep)
			return -1;
		pos++;
	}
	return (int) pos;
}


/*
 * skip_to -- read on from key "from" (included) to the end of the current
 * range; true if the reader is in that range, false if "from" was past its
 * end and the reader moved to the start of the next range (or there is
 * none: skip_done).  Never before the range's start: a parallel scan's
 * range may begin inside a prefix's window.
 */
static bool
skip_to(RowsScan *st, const char *from, uint32 len)
{
	const WideKeyRange *cur = &st->ranges[st->nextrange - 1];
	WideKeyRange r = *cur;
	int			cmp;

	st->in_window = false;
	if (cur->has_end && ((cmp = WideKeyCompare(from, len, cur->end, cur->endlen)) > 0 ||
						 (cmp == 0 && !cur->end_incl)))
	{
		/* past this range: the next one */
		if (st->nextrange >= st->nranges && !more_ranges(st))
		{
			st->skip_done = true;
			return false;
		}
		open_at(st, &st->ranges[st->nextrange++]);
		return false;
	}
	if (cur->has_start && WideKeyCompare(from, len, cur->start, cur->startlen) <= 0)
	{
		open_at(st, &r);		/* (the range from its start) */
		return true;
	}
	r.has_start = true;
	r.start_incl = true;
	r.start = pnstrdup(from, len);
	r.startlen = len;
	r.is_point = false;
	open_at(st, &r);
	return true;
}

/*
 * past_window -- a skip scan's reader went past the current prefix's
 * window: read on from the next prefix; false if there is none.
 */
static bool
past_window(RowsScan *st)
{
	resetStringInfo(&st->jump);
	if (st->skip_hi_inf)
		appendBinaryStringInfo(&st->jump, st->cur_hi.data, st->cur_hi.len);
	else if (!prefix_end(st->cur_hi.data,
						 prefix_len(st->shape, st->cur_hi.data, st->cur_hi.len,
									st->skip_part),
						 &st->jump))
	{
		st->skip_done = true;
		return false;
	}
	skip_to(st, st->jump.data, st->jump.len);
	return true;
}

/*
 * next_cell_skip -- the next cell of a skip scan: for each prefix through
 * part skip_part (a host), only the rows whose next part lies in the
 * window, found by seeking to the prefix and the window's start, and past
 * the window to the next prefix.
 */
static const WideCell *
next_cell_skip(RowsScan *st)
{
	const WideRowShape *s = st->shape;
	const WideCell *c;

	for (;;)
	{
		int			plen;
		StringInfoData lo;

		if (st->reader == NULL)
		{
			if (st->nranges == 0 && !more_ranges(st))
				return NULL;
			open_at(st, &st->ranges[0]);
			st->nextrange = 1;
			st->in_window = false;
			st->skip_done = false;
		}
		if (st->skip_done)
			return NULL;
		c = WideReaderNext(st->reader);
		if (c == NULL)
		{
			if (st->nextrange >= st->nranges && !more_ranges(st))
				return NULL;
			open_at(st, &st->ranges[st->nextrange++]);
			st->in_window = false;
			continue;
		}
		if (!WideBytesEqual(c->family, c->famlen, s->family, s->famlen))
			continue;
		if (st->in_window)
		{
			/* (a row's cells: its key is compared with the window's end once) */
			if (st->cur_hi.len == 0 ||
				WideBytesEqual(c->key, c->keylen, st->winkey.data, st->winkey.len))
				return c;
			if (WideKeyCompare(c->key, c->keylen, st->cur_hi.data, st->cur_hi.len) < 0)
			{
				resetStringInfo(&st->winkey);
				appendBinaryStringInfo(&st->winkey, c->key, c->keylen);
				return c;
			}
			/* past the window: the next prefix */
			if (!past_window(st))
				return NULL;
			continue;
		}
		/* the first cell at or after a jump: its prefix and window */
		plen = prefix_len(s, c->key, c->keylen, st->skip_part);
		if (plen < 0)
		{
			resetStringInfo(&st->decoded);
			WideRowKeyDecode(s, c->key, c->keylen, st->keyvalues, st->keynulls);	/* errors */
		}
		initStringInfo(&lo);
		appendBinaryStringInfo(&lo, c->key, plen);
		appendBinaryStringInfoNT(&lo, st->skip_lo.data, st->skip_lo.len);
		resetStringInfo(&st->cur_hi);
		resetStringInfo(&st->winkey);
		if (st->skip_hi_inf)
		{
			if (!prefix_end(c->key, plen, &st->cur_hi))
				resetStringInfo(&st->cur_hi);	/* (no end: to the last key) */
		}
		else
		{
			appendBinaryStringInfo(&st->cur_hi, c->key, plen);
			appendBinaryStringInfo(&st->cur_hi, st->skip_hi.data, st->skip_hi.len);
		}
		st->in_window = true;
		if (WideKeyCompare(c->key, c->keylen, lo.data, lo.len) < 0)
		{
			/* before the window: seek to it (in the next range: a new prefix) */
			st->in_window = skip_to(st, lo.data, lo.len);
			continue;
		}
		if (st->cur_hi.len == 0 ||
			WideKeyCompare(c->key, c->keylen, st->cur_hi.data, st->cur_hi.len) < 0)
			return c;
		/* after it: the next prefix */
		if (!prefix_end(c->key, plen, &st->jump))
			return NULL;
		skip_to(st, st->jump.data, st->jump.len);
	}
}

/* the next cell of the family in the ranges, or NULL */
static const WideCell *
next_cell(RowsScan *st)
{
	const WideCell *c;
	MemoryContext old = MemoryContextSwitchTo(st->readcxt);

	if (st->backward || st->skip)
	{
		c = st->backward ? next_cell_backward(st) : next_cell_skip(st);
		MemoryContextSwitchTo(old);
		if (c != NULL)
			st->ncells++;
		return c;
	}
	for (;;)
	{
		if (st->reader == NULL)
		{
			if (st->nextrange >= st->nranges && !more_ranges(st))
			{
				c = NULL;
				break;
			}
			open_at(st, &st->ranges[st->nextrange++]);
		}
		c = WideReaderNext(st->reader);
		if (c != NULL)
		{
			/* (the merged cells of kept columns; other families' too, if
			 * the table has no other) */
			if (WideBytesEqual(c->family, c->famlen, st->shape->family, st->shape->famlen))
				break;
			continue;
		}
		/* the next range by the same reader, where it can (an IN list) */
		if (st->nextrange < st->nranges && st->pscan == NULL &&
			WideReaderRestartAt(st->reader, st->rstate, &st->ranges[st->nextrange]))
		{
			st->nextrange++;
			st->nseeks++;
			st->ncontinued++;
			st->batch.nrows = 0;
			st->bnext = 0;
			continue;
		}
		WideReaderEnd(st->reader);
		st->reader = NULL;
	}
	MemoryContextSwitchTo(old);
	if (c != NULL)
		st->ncells++;
	return c;
}

/*
 * next_batch_row -- the next row of the current batch that holds a record
 * the cell path would read (st->ncells: not yet counted), taking a new
 * batch from the reader when it is used up; -1 when there is none (the
 * cell path goes on: next_cell).  In a skip scan, a row past the window
 * ends the batch and moves the reader to the next prefix.
 */
static int
next_batch_row(RowsScan *st)
{
	WideRowBatch *b = &st->batch;
	MemoryContext old;
	int			n;

	for (;;)
	{
		int			j;
		const char *key;
		uint32		keylen;

		if (st->bnext >= b->nrows)
		{
			b->nrows = 0;
			st->bnext = 0;
			if (!st->batching || st->done || st->backward || st->reader == NULL ||
				(st->skip && (!st->in_window || st->skip_done)))
				return -1;
			old = MemoryContextSwitchTo(st->readcxt);
			n = WideReaderRowBatch(st->reader, &st->bspec, b);
			MemoryContextSwitchTo(old);
			if (n == 0)
				return -1;
			st->nbatched += n;
			/* (keys are sorted: the last one inside, all are) */
			st->bwin = n;
			if (st->skip && st->cur_hi.len > 0)
			{
				key = WideRowBatchKey(b, n - 1, &keylen);
				if (WideKeyCompare(key, keylen, st->cur_hi.data, st->cur_hi.len) >= 0)
					st->bwin = 0;
			}
			CHECK_FOR_INTERRUPTS();
		}
		j = st->bnext;
		if (b->ncells[j] == 0)
		{
			st->bnext++;		/* (no record the cell path would see) */
			continue;
		}
		/* as next_cell_skip: a row key is compared with the window's end once */
		if (j >= st->bwin && st->cur_hi.len > 0 &&
			!WideBytesEqual((key = WideRowBatchKey(b, j, &keylen)), keylen,
							st->winkey.data, st->winkey.len))
		{
			if (WideKeyCompare(key, keylen, st->cur_hi.data, st->cur_hi.len) >= 0)
			{
				b->nrows = 0;
				st->bnext = 0;
				old = MemoryContextSwitchTo(st->readcxt);
				(void) past_window(st);
				MemoryContextSwitchTo(old);
				return -1;
			}
			resetStringInfo(&st->winkey);
			appendBinaryStringInfo(&st->winkey, key, keylen);
		}
		st->bnext++;
		return j;
	}
}

/*
 * batch_prefilter -- does row j of the batch, a whole row, pass the
 * conditions of st->pre?  Tested on the batch's values, before the row is
 * assembled.
 */
static bool
batch_prefilter(RowsScan *st, int j)
{
	const WideRowBatch *b = &st->batch;

	for (int i = 0; i < st->npre; i++)
	{
		RowsPreFilter *f = &st->pre[i];
		int			col = st->bcol[f->att - 1];
		Datum		v;

		if (col < 0 || !(b->present[j] & ((uint64) 1 << col)))
			return false;		/* (NULL: each is strict) */
		v = Int64GetDatum((int64) b->vals[j * st->bspec.ncols + col]);
		if (!pre_test(f, v))
			return false;
	}
	return true;
}

/* the value of a cell as a datum of its column, in the current context */
static Datum
cell_value(RowsScan *st, const WideCell *c, AttrNumber att)
{
	Datum		v;

	/* float8, int8, timestamp values as they are: no call, no check to make */
	if (likely(st->plain8 && c->kind == WIDE_KIND_PUT && c->vallen == 8))
	{
		int64		x;

		memcpy(&x, c->value, 8);
		return Int64GetDatum(x);
	}
	if (c->kind == WIDE_KIND_MERGE || c->kind == WIDE_KIND_ADD)
		v = WideAggToValue(st->schema, c);
	else
		v = WideBytesToValue(st->schema, c->value, c->vallen);
	return WideRowValueOut(st->shape, st->schema, &st->shape->cols[att - 1], v);
}

/*
 * column_of -- the column of a cell's qualifier, or 0.  Cells come in
 * qualifier order, so the column after the last one found is tried first.
 */
static AttrNumber
column_of(RowsScan *st, const WideCell *c)
{
	const WideRowShape *s = st->shape;
	int			i = qual_index(s, c->qual, c->quallen, &st->lastqual);

	return i >= 0 ? s->by_qual[i] : 0;
}

/* does a row pass the conditions of st->pre?  (Each is strict) */
static bool
prefilter(RowsScan *st, Datum *values, bool *isnull)
{
	for (int i = 0; i < st->npre; i++)
	{
		RowsPreFilter *f = &st->pre[i];
		Datum		v = values[f->att - 1];

		if (isnull[f->att - 1])
			return false;
		if (!pre_test(f, v))
			return false;
	}
	return true;
}

static int
cmp_version(const void *a, const void *b)
{
	const RowsVersion *x = a,
			   *y = b;

	if (x->ts != y->ts)
		return x->ts > y->ts ? -1 : 1;
	return x->order - y->order;
}

/* keep_key -- the row key of the row being assembled, in st->key */
static void
keep_key(RowsScan *st, const char *key, uint32 keylen)
{
	if (keylen > st->keycap)
	{
		st->keycap = Max(keylen, 64);
		st->key = MemoryContextAlloc(GetMemoryChunkContext(st), st->keycap);
	}
	memcpy(st->key, key, keylen);
	st->keylen = keylen;
}

/* direct_row's cells go into the row being assembled */
typedef struct DirectRow
{
	RowsScan   *st;
	Datum	   *values;
	bool	   *isnull;
} DirectRow;

/* a cell of direct_row's row, taken as next_row takes a cell of a row */
static bool
direct_cell(const WideCell *c, void *arg)
{
	DirectRow  *d = (DirectRow *) arg;
	RowsScan   *st = d->st;
	AttrNumber	att;

	if (!WideBytesEqual(c->family, c->famlen, st->shape->family, st->shape->famlen))
		return true;
	st->ncells++;
	att = column_of(st, c);
	if (att == 0 || !st->wanted[att - 1])
		return true;
	if (st->keylen == 0)
		keep_key(st, c->key, c->keylen);
	if (d->isnull[att - 1] && st->valued[att - 1])
	{
		MemoryContext old = MemoryContextSwitchTo(st->rowcxt);

		d->values[att - 1] = cell_value(st, c, att);
		d->isnull[att - 1] = false;
		MemoryContextSwitchTo(old);
	}
	return true;
}

/*
 * direct_row -- a backward scan's next range, opened, and its last row
 * assembled straight from the cells the engine reads from its block
 * (reverse.c: WideReverseLastRow; no window, no copy of the cells) -- a
 * LIMIT 1 per outer row reads nothing else.  Returns 1 when the row was
 * read (st->keylen 0 if it held no column the scan wants: the caller
 * reads on), 0 if the range holds no row (its reader closed), -1 where
 * this way cannot tell: nothing is set, and the caller reads the range
 * (if any is left) as ever.
 */
static int
direct_row(RowsScan *st, Datum *values, bool *isnull)
{
	MemoryContext old = MemoryContextSwitchTo(st->readcxt);
	uint64		ncells = st->ncells;
	DirectRow	d;
	int			res = -1;

	if (backward_open(st))
	{
		d.st = st;
		d.values = values;
		d.isnull = isnull;
		res = WideReverseLastRow(st->rreader, direct_cell, &d);
		if (res == 0)
			backward_close(st);
	}
	MemoryContextSwitchTo(old);
	if (res < 0)
	{
		/* (what it gave is void) */
		for (int i = 0; i < st->shape->natts; i++)
			isnull[i] = true;
		st->keylen = 0;
		st->ncells = ncells;
	}
	return res;
}

/*
 * next_row -- assemble the next row into values/isnull (natts of them);
 * false at the end.  Datums live in st->rowcxt until the next call.
 */
static bool
next_row(RowsScan *st, Datum *values, bool *isnull)
{
	const WideRowShape *s = st->shape;
	MemoryContext old;

	if (st->by_version && st->nextversion < st->nversions)
		goto emit_version;
again:
	if (st->done)
		return false;

	MemoryContextReset(st->rowcxt);
	old = MemoryContextSwitchTo(st->rowcxt);
	for (int i = 0; i < s->natts; i++)
		isnull[i] = true;
	st->keylen = 0;
	st->nversions = 0;
	st->nextversion = 0;
	for (;;)
	{
		const WideCell *c = st->pending;
		AttrNumber	att;
		int			j = -1;

		if (c == NULL && (j = next_batch_row(st)) >= 0)
		{
			/* a row of a batch: its values where the row has none yet */
			WideRowBatch *b = &st->batch;
			uint32		keylen;
			const char *key;
			uint64		present = b->present[j];
			const uint64 *vals = b->vals + (Size) j * st->bspec.ncols;

			if (present == 0)
			{
				st->ncells += b->ncells[j];
				continue;		/* (qualifiers without a column) */
			}
			if (st->keylen == 0 && st->npre > 0 && st->bnext < b->nrows &&
				!batch_prefilter(st, j))
			{
				/* a whole row (the batch goes on after it) it rejects */
				st->ncells += b->ncells[j];
				st->nprefiltered++;
				continue;
			}
			key = WideRowBatchKey(b, j, &keylen);
			if (st->keylen > 0 && !WideBytesEqual(key, keylen, st->key, st->keylen))
			{
				st->bnext--;	/* the next row's */
				break;
			}
			st->ncells += b->ncells[j];
			if (st->keylen == 0)
				keep_key(st, key, keylen);
			while (present != 0)
			{
				int			i = pg_rightmost_one_pos64(present);
				AttrNumber	a = st->batt[i];

				present &= present - 1;
				if (isnull[a - 1] && st->valued[a - 1])
				{
					values[a - 1] = Int64GetDatum((int64) vals[i]);
					isnull[a - 1] = false;
				}
			}
			continue;
		}
		/* a backward scan's range: its last row straight from its block */
		if (c == NULL && st->backward && st->rreader == NULL &&
			!st->by_version && st->keylen == 0)
		{
			int			res = direct_row(st, values, isnull);

			if (res > 0 && st->keylen > 0)
				break;
			if (res == 0)
				continue;		/* (an empty range: the next one) */
		}
		if (c == NULL)
			c = next_cell(st);
		st->pending = NULL;
		if (c == NULL)
		{
			st->done = true;
			break;
		}
		att = column_of(st, c);
		if (att == 0 || !st->wanted[att - 1])
		{
			/* a qualifier the form has no column for */
			if (st->keylen > 0 && row_done(st))
				break;
			continue;
		}
		if (st->keylen > 0 && !WideBytesEqual(c->key, c->keylen, st->key, st->keylen))
		{
			st->pending = c;	/* the next row's */
			break;
		}
		if (st->keylen == 0)
			keep_key(st, c->key, c->keylen);
		if (!st->by_version)
		{
			if (isnull[att - 1] && st->valued[att - 1])
			{
				values[att - 1] = cell_value(st, c, att);
				isnull[att - 1] = false;
			}
		}
		else
		{
			RowsVersion *v;

			if (st->nversions == st->capversions)
			{
				st->capversions = Max(64, st->capversions * 2);
				st->versions = st->versions == NULL ?
					MemoryContextAlloc(GetMemoryChunkContext(st),
									   sizeof(RowsVersion) * st->capversions) :
					repalloc(st->versions, sizeof(RowsVersion) * st->capversions);
			}
			v = &st->versions[st->nversions];
			v->ts = c->ts;
			v->att = att;
			v->order = st->nversions;
			v->value = cell_value(st, c, att);
			st->nversions++;
		}
		if (row_done(st))
			break;
	}
	if (st->keylen == 0)
	{
		MemoryContextSwitchTo(old);
		return false;
	}
	if (st->npre > 0 && !st->by_version && !prefilter(st, values, isnull))
	{
		MemoryContextSwitchTo(old);
		st->nprefiltered++;
		CHECK_FOR_INTERRUPTS();
		goto again;
	}
	{
		/* (the parts it shares with the row before keep their values) */
		uint32		same = 0;
		uint32		n = Min(st->keylen, (uint32) st->decoded.len);

		while (same + 8 <= n && memcmp(st->key + same, st->decoded.data + same, 8) == 0)
			same += 8;
		while (same < n && st->key[same] == st->decoded.data[same])
			same++;
		WideRowKeyDecodeSince(s, st->key, st->keylen, same, st->keyvalues, st->keynulls);
		resetStringInfo(&st->decoded);
		appendBinaryStringInfo(&st->decoded, st->key, st->keylen);
	}
	MemoryContextSwitchTo(old);
	if (!st->by_version)
	{
		for (int i = s->salt ? 1 : 0; i < s->nparts; i++)
		{
			int			a = s->parts[i].attnum - 1;

			values[a] = st->keyvalues[a];
			isnull[a] = false;
		}
		st->nrows++;
		return true;
	}
	if (st->nversions == 0)
		return next_row(st, values, isnull);	/* only unknown qualifiers */
	qsort(st->versions, st->nversions, sizeof(RowsVersion), cmp_version);

emit_version:
	{
		int64		ts = st->versions[st->nextversion].ts;

		for (int i = 0; i < s->natts; i++)
			isnull[i] = true;
		for (int i = s->salt ? 1 : 0; i < s->nparts; i++)
		{
			int			a = s->parts[i].attnum - 1;

			values[a] = st->keyvalues[a];
			isnull[a] = false;
		}
		values[s->ts_attnum - 1] = TimestampTzGetDatum(WideUnixToTimestamp(ts));
		isnull[s->ts_attnum - 1] = false;
		while (st->nextversion < st->nversions && st->versions[st->nextversion].ts == ts)
		{
			RowsVersion *v = &st->versions[st->nextversion++];

			/* the newest write of a column at one time wins: merged already */
			if (isnull[v->att - 1])
			{
				values[v->att - 1] = v->value;
				isnull[v->att - 1] = false;
			}
		}
		st->nrows++;
		return true;
	}
}

/*
 * WideRowsBegin -- a scan of a row form's rows (reading columns "needed",
 * or all), for the executor, ANALYZE and UPDATE/DELETE.
 */
static RowsScan *
rows_begin(WideRowShape *shape, Snapshot snapshot, List *needed, bool exist_by_needed)
{
	RowsScan   *st = palloc0(sizeof(RowsScan));
	WideBytes  *quals;
	int			n = 0;

	st->shape = shape;
	st->cells = WideRowCellsOpen(shape, AccessShareLock, ACL_SELECT);
	st->schema = WideGetSchema(st->cells);
	st->snapshot = snapshot;
	st->by_version = shape->ts_attnum > 0 && !shape->ts_in_key;
	st->readcxt = AllocSetContextCreate(CurrentMemoryContext, "wide rows reader",
										ALLOCSET_DEFAULT_SIZES);
	st->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "wide rows row",
									   ALLOCSET_DEFAULT_SIZES);
	st->bstatecxt = AllocSetContextCreate(CurrentMemoryContext, "wide rows backward state",
										  ALLOCSET_DEFAULT_SIZES);
	st->keyvalues = palloc0(sizeof(Datum) * shape->natts);
	st->keynulls = palloc0(sizeof(bool) * shape->natts);

	/* the family's cells of the columns read */
	WideColumnFilterReset(&st->columns);
	st->columns.fam_active = true;
	st->columns.nfams = 1;
	st->columns.fams = palloc(sizeof(WideBytes));
	st->columns.fams[0].data = shape->family;
	st->columns.fams[0].len = shape->famlen;
	st->columns.qual_active = true;
	quals = palloc(sizeof(WideBytes) * Max(shape->nvalues, 1));
	for (int i = 0; i < shape->nvalues; i++)
	{
		AttrNumber	a = shape->by_qual[i];

		if (exist_by_needed && needed != NIL && !list_member_int(needed, a))
			continue;
		quals[n].data = shape->cols[a - 1].qual;
		quals[n].len = shape->cols[a - 1].quallen;
		n++;
	}
	st->columns.quals = quals;
	st->columns.nquals = n;
	st->wanted = palloc0(sizeof(bool) * shape->natts);
	for (int i = 0; i < n; i++)
		st->wanted[WideRowColumnOf(shape, quals[i].data, quals[i].len) - 1] = true;
	/* (no list: every column's) */
	st->valued = palloc0(sizeof(bool) * shape->natts);
	st->all_valued = true;
	for (int i = 0; i < shape->natts; i++)
	{
		st->valued[i] = shape->cols[i].kind == WIDE_COL_VALUE &&
			(needed == NIL || list_member_int(needed, i + 1));
		if (shape->cols[i].kind == WIDE_COL_VALUE && !st->valued[i])
			st->all_valued = false;
	}
	/* a filter the reader applies only where it drops cells */
	if (st->schema->nfamilies <= 1)
		st->columns.fam_active = false;
	if (n == shape->nvalues)
		st->columns.qual_active = false;	/* others have no column anyway */
	st->lastqual = -1;
	st->keepqual = -1;
	st->plain8 = st->schema->valbyval && st->schema->vallen == 8;
	for (int i = 0; i < shape->natts; i++)
		if (shape->cols[i].kind == WIDE_COL_VALUE && shape->cols[i].binary)
			st->plain8 = false;
	initStringInfo(&st->winkey);
	initStringInfo(&st->decoded);

	/* rows a block at a time: 8-byte values as they are, a row per key */
	st->batching = st->plain8 && !st->by_version && n > 0 && n <= WIDE_BATCH_MAX_COLS;
	if (st->batching)
	{
		const char **bq = palloc(sizeof(char *) * n);
		uint32	   *bl = palloc(sizeof(uint32) * n);

		st->batt = palloc(sizeof(AttrNumber) * n);
		st->bcol = palloc(sizeof(int) * shape->natts);
		for (int i = 0; i < shape->natts; i++)
			st->bcol[i] = -1;
		st->bspec.valued = 0;
		for (int i = 0; i < n; i++)
		{
			AttrNumber	a = WideRowColumnOf(shape, quals[i].data, quals[i].len);

			bq[i] = quals[i].data;
			bl[i] = quals[i].len;
			st->batt[i] = a;
			st->bcol[a - 1] = i;
			if (st->valued[a - 1])
				st->bspec.valued |= (uint64) 1 << i;
		}
		st->bspec.family = shape->family;
		st->bspec.famlen = shape->famlen;
		st->bspec.ncols = n;
		st->bspec.quals = bq;
		st->bspec.quallens = bl;
		/* what open_at's filter of the block's records keeps */
		if (!st->all_valued)
			st->bspec.mode = WIDE_BATCH_STORED;
		else if (st->columns.fam_active || st->columns.qual_active)
			st->bspec.mode = WIDE_BATCH_COLUMNS;
		else
			st->bspec.mode = WIDE_BATCH_FAMILY;
		st->bspec.row_kept = &st->row_kept;
		st->batch.cxt = GetMemoryChunkContext(st);
	}
	return st;
}

static void
rows_end(RowsScan *st)
{
	close_all(st);
	table_close(st->cells, NoLock);
}

/* start again: the ranges are the caller's (st->ranges) */
static void
rows_restart(RowsScan *st)
{
	close_reader(st);
	MemoryContextReset(st->readcxt);
	st->nextrange = 0;
	st->pending = NULL;
	st->done = false;
	st->nversions = 0;
	st->nextversion = 0;
	st->started = true;
}

/* ----------------------------------------------------------------
 *	The executor's callbacks
 * ----------------------------------------------------------------
 */

/*
 * WideRowsScanOpen -- a scan of a row form's rows for an executor node:
 * the key conditions' values are evaluated (in econtext) when the first
 * row is asked for, and again after WideRowsScanRestart.
 */
RowsScan *
WideRowsScanOpen(WideRowShape *shape, Snapshot snapshot, List *fdw_private,
				 List *valuestates)
{
	RowsScan   *st = rows_begin(shape, snapshot, linitial(fdw_private),
								intVal(lthird(fdw_private)));

	st->meta = lsecond(fdw_private);
	st->backward = intVal(lfourth(fdw_private));
	st->values = valuestates;
	return st;
}

/* the ranges of the key conditions' values, built at the first row */
static void
start(RowsScan *st, ExprContext *econtext)
{
	MemoryContext old = MemoryContextSwitchTo(st->readcxt);

	rows_restart(st);
	build_ranges(st, econtext);
	share_ranges(st);
	MemoryContextSwitchTo(old);
}

/* the next row into values/isnull; false at the end */
bool
WideRowsScanNext(RowsScan *st, ExprContext *econtext, Datum *values, bool *isnull)
{
	if (!st->started)
		start(st, econtext);
	return next_row(st, values, isnull);
}

/*
 * WideRowsScanRanges -- the key ranges of a scan not yet started (its key
 * conditions evaluated in econtext), sorted and disjoint, into *ranges
 * and *nranges; the scan then reads them.  False if they may hold rows the
 * key conditions reject (the filter decides: a skip scan, an equality
 * after the first on a part, too many prefixes).
 */
bool
WideRowsScanRanges(RowsScan *st, ExprContext *econtext,
				   const WideKeyRange **ranges, int *nranges)
{
	Assert(!st->started && st->pscan == NULL);
	start(st, econtext);
	*ranges = st->ranges;
	*nranges = st->nranges;
	return !st->wider;
}

/*
 * WideRowsScanSetFilter -- of the conditions "quals" (implicitly ANDed,
 * over the row form's columns, all of which the caller tests on every row
 * returned anyway), those the scan may test itself on a row's values
 * before it decodes the row key and returns the row: a value column
 * compared with a constant by a strict, leakproof, non-volatile operator
 * (one that cannot fail or tell anything but its answer, so testing it
 * before the others, and on rows the others reject, changes nothing).  A
 * row any of them rejects is skipped; the caller's test of the rest is
 * then only a check.  Call before the first row.
 */
void
WideRowsScanSetFilter(RowsScan *st, List *quals)
{
	ListCell   *lc;

	if (st->by_version)
		return;					/* (a row per time of a row key: not here) */
	foreach(lc, quals)
	{
		Expr	   *q = lfirst(lc);
		OpExpr	   *op;
		Node	   *l,
				   *r;
		Var		   *var;
		Const	   *k;
		RowsPreFilter *f;

		if (IsA(q, RestrictInfo))
			q = ((RestrictInfo *) q)->clause;
		if (!IsA(q, OpExpr))
			continue;
		op = (OpExpr *) q;
		if (list_length(op->args) != 2 || op->opresulttype != BOOLOID || op->opretset)
			continue;
		l = linitial(op->args);
		r = lsecond(op->args);
		if (IsA(l, Var) && IsA(r, Const))
			var = (Var *) l, k = (Const *) r;
		else if (IsA(r, Var) && IsA(l, Const))
			var = (Var *) r, k = (Const *) l;
		else
			continue;
		if (k->constisnull || var->varlevelsup != 0 || IS_SPECIAL_VARNO(var->varno) ||
			var->varattno <= 0 || var->varattno > st->shape->natts ||
			st->shape->cols[var->varattno - 1].kind != WIDE_COL_VALUE ||
			!st->wanted[var->varattno - 1] || !st->valued[var->varattno - 1] ||
			var->vartype != st->shape->cols[var->varattno - 1].type)
			continue;
		set_opfuncid(op);
		if (!func_strict(op->opfuncid) || !get_func_leakproof(op->opfuncid) ||
			func_volatile(op->opfuncid) == PROVOLATILE_VOLATILE)
			continue;
		if (st->pre == NULL)
			st->pre = palloc0(sizeof(RowsPreFilter) * list_length(quals));
		f = &st->pre[st->npre++];
		f->att = var->varattno;
		f->var_left = ((Node *) var == l);
		f->konst = k->constvalue;
		f->collation = op->inputcollid;
		fmgr_info(op->opfuncid, &f->fn);
		f->fast = InvalidOid;
		if (op->opfuncid == F_FLOAT8EQ || op->opfuncid == F_FLOAT8NE ||
			op->opfuncid == F_FLOAT8LT || op->opfuncid == F_FLOAT8LE ||
			op->opfuncid == F_FLOAT8GT || op->opfuncid == F_FLOAT8GE)
			f->fast = op->opfuncid;
	}
}

/*
 * WideRowsScanEstimateDSM -- the leader, as a parallel query starts: the
 * split keys of the scan's key ranges (evaluated in econtext) for nworkers,
 * and the size of the shared state they need.
 */
Size
WideRowsScanEstimateDSM(RowsScan *st, ExprContext *econtext, int nworkers)
{
	WideKeyRange hull;

	if (!st->started)
	{
		MemoryContext old = MemoryContextSwitchTo(st->readcxt);

		rows_restart(st);
		build_ranges(st, econtext);
		MemoryContextSwitchTo(old);
	}
	st->nsplits = 0;
	st->splits = NULL;
	if (st->nranges > 0)
	{
		scan_hull(st, &hull);
		hull.is_point = false;
		st->nsplits = WideParallelSplits(st->cells, &hull, nworkers, &st->splits);
	}
	return WideParallelSize(st->nsplits, st->splits);
}

/* the leader's shared state, and its own part in the scan */
void
WideRowsScanInitDSM(RowsScan *st, void *coordinate)
{
	WideParallelInit(coordinate, st->nsplits, st->splits, WideReaderNow());
	WideRowsScanInitWorker(st, coordinate);
}

/* a rescan of the parallel plan: stretches are claimed again */
void
WideRowsScanReinitDSM(RowsScan *st, void *coordinate)
{
	WideParallelReinit(coordinate);
	st->pscan = coordinate;
}

/* a participant of a parallel scan (the leader too) */
void
WideRowsScanInitWorker(RowsScan *st, void *coordinate)
{
	st->pscan = coordinate;
	if (st->started)
	{
		MemoryContext old = MemoryContextSwitchTo(st->readcxt);

		share_ranges(st);
		MemoryContextSwitchTo(old);
	}
}

/*
 * WideRowsScanSetFloor -- from the next (re)scan on, read only rows whose
 * time key part "part" is at least t (of type "type"), as if the query had
 * said so too; has_floor false: no such bound.
 */
void
WideRowsScanSetFloor(RowsScan *st, int part, bool has_floor, Datum t, Oid type)
{
	Assert(st->shape->parts[part].kind == WIDE_PART_TIME);
	st->has_floor = has_floor;
	st->floor_part = part;
	st->floor = t;
	st->floor_type = type;
}

void
WideRowsScanRestart(RowsScan *st)
{
	close_reader(st);
	st->started = false;
	st->nrescans++;
}

void
WideRowsScanClose(RowsScan *st)
{
	rows_end(st);
}

/*
 * WideRowsScanExplain -- EXPLAIN of a scan of the row form relid with the
 * plan's fdw_private (WideRowsPlanPrivate's four items first) and, under
 * ANALYZE, its scan st.
 */
void
WideRowsScanExplain(Oid relid, List *fdw_private, RowsScan *st, ExplainState *es)
{
	WideRowShape *s = WideRowShapeGet(relid);
	List	   *meta = lsecond(fdw_private);
	StringInfoData b;
	ListCell   *lc;

	ExplainPropertyText("Wide Table", get_rel_name(s->cells), es);
	ExplainPropertyText("Family", s->family, es);
	initStringInfo(&b);
	foreach(lc, meta)
	{
		List	   *m = lfirst(lc);
		int			part = linitial_int(m);
		int			strat = lsecond_int(m);
		static const char *const ops[] = {"", "<", "<=", "=", ">=", ">"};

		if (b.len > 0)
			appendStringInfoString(&b, ", ");
		appendStringInfo(&b, "%s %s%s",
						 get_attname(s->relid, s->parts[part].attnum, false),
						 ops[strat], lthird_int(m) ? " ANY" : "");
	}
	ExplainPropertyText("Row Keys", b.len > 0 ? b.data : "all", es);
	if (s->salt)
		ExplainPropertyInteger("Salt Buckets", NULL, s->salt, es);
	if (intVal(lfourth(fdw_private)))
		ExplainPropertyText("Direction", "backward", es);
	if (es->analyze && st != NULL)
	{
		ExplainPropertyInteger("Seeks", NULL, (int64) st->nseeks, es);
		ExplainPropertyInteger("Cells Read", NULL, (int64) st->ncells, es);
		if (st->npre > 0)
			ExplainPropertyInteger("Rows Removed by Scan Filter", NULL,
								   (int64) st->nprefiltered, es);
		if (es->verbose)
			ExplainPropertyInteger("Rows Decoded in Batches", NULL,
								   (int64) st->nbatched, es);
		if (es->verbose && st->ncontinued > 0)
			ExplainPropertyInteger("Ranges Read On", NULL,
								   (int64) st->ncontinued, es);
		if (es->verbose && st->backward)
		{
			ExplainPropertyInteger("Table States Read", NULL,
								   (int64) st->nbstates, es);
			ExplainPropertyInteger("Last Rows Read Directly", NULL,
								   (int64) st->ndirect, es);
		}
	}
}

/* ----------------------------------------------------------------
 *	ANALYZE
 * ----------------------------------------------------------------
 */

/* rows_full_sample -- every row read, a reservoir sample of them */
static int
rows_full_sample(Relation rel, RowsScan *st, int elevel, HeapTuple *rows,
				 int targrows, double *totalrows)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *isnull = palloc(sizeof(bool) * desc->natts);
	ReservoirStateData rstate;
	double		seen = 0;
	int			n = 0;
	int			cap = 4;

	st->ranges = palloc0(sizeof(WideKeyRange) * cap);
	st->nranges = 1;			/* everything */
	rows_restart(st);
	reservoir_init_selection_state(&rstate, targrows);
	while (next_row(st, values, isnull))
	{
		vacuum_delay_point();
		if (n < targrows)
			rows[n++] = heap_form_tuple(desc, values, isnull);
		else
		{
			double		skip = reservoir_get_next_S(&rstate, seen, targrows);

			if (skip < 1)
			{
				int			k = (int) (targrows * sampler_random_fract(&rstate.randstate));

				heap_freetuple(rows[k]);
				rows[k] = heap_form_tuple(desc, values, isnull);
			}
			/* (skipping rows would save only their tuples: they are read anyway) */
		}
		seen += 1;
	}
	*totalrows = seen;
	ereport(elevel,
			(errmsg("\"%s\": %.0f rows read, %d in the sample",
					RelationGetRelationName(rel), seen, n)));
	return n;
}

/*
 * rows_stretch_sample -- the first rows of targrows / ROWS_PER_STRETCH
 * stretches drawn at random among about targrows / STRETCH_CHOICE of the
 * table (engine/split.c cuts them at block boundaries of its runs, in
 * similar numbers of records), up to targrows in all; false, with nothing
 * read, when the table has too few stretches.  The stretches are drawn
 * from many more than are read: where every series of a table has the same
 * layout (TSBS: a host's readings fill the same blocks at the same times),
 * stretches evenly spaced start at the same few times of every series, and
 * the sample saw 300 distinct times of 8,640.  The row count is the table's
 * count of records times the rows per cell read.
 */
#define ROWS_PER_STRETCH	30
#define STRETCH_CHOICE		3

static bool
rows_stretch_sample(Relation rel, RowsScan *st, double ncells, int elevel,
					HeapTuple *rows, int targrows, int *nsampled,
					double *totalrows)
{
	TupleDesc	desc = RelationGetDescr(rel);
	WideSplitKey *keys;
	uint64		nblocks;
	int			nkeys;
	int			nst;
	int			m;
	int			per;
	int			n = 0;
	BlockSamplerData bs;
	double		nread = 0;
	double		cells = 0;
	Datum	   *values;
	bool	   *isnull;

	nkeys = WideSplitKeys(st->cells, NULL, Max(targrows / STRETCH_CHOICE, 2),
						  &nblocks, &keys);
	nst = nkeys + 1;
	if (nst < 2)
		return false;
	m = (int) BlockSampler_Init(&bs, nst,
								Max((targrows + ROWS_PER_STRETCH - 1) / ROWS_PER_STRETCH, 2),
								pg_prng_uint32(&pg_global_prng_state));
	per = (targrows + m - 1) / m;

	/* stretch j: the rows after split key j - 1 through key j */
	st->ranges = palloc0(sizeof(WideKeyRange) * nst);
	for (int j = 0; j < nst; j++)
	{
		WideKeyRange *r = &st->ranges[j];

		if (j > 0)
		{
			char	   *lo = palloc(keys[j - 1].len + 1);

			memcpy(lo, keys[j - 1].key, keys[j - 1].len);
			lo[keys[j - 1].len] = '\0';
			r->start = lo;
			r->startlen = keys[j - 1].len + 1;
			r->has_start = r->start_incl = true;
		}
		if (j < nkeys)
		{
			r->end = keys[j].key;
			r->endlen = keys[j].len;
			r->has_end = r->end_incl = true;
		}
	}
	values = palloc(sizeof(Datum) * desc->natts);
	isnull = palloc(sizeof(bool) * desc->natts);
	rows_restart(st);
	st->nranges = nst;
	while (BlockSampler_HasMore(&bs) && n < targrows)
	{
		int			j = (int) BlockSampler_Next(&bs);
		int			taken = 0;
		uint64		cells0;

		/* read stretch j alone: the scan ends with its range */
		if (st->reader != NULL)
			WideReaderEnd(st->reader);
		st->reader = NULL;
		st->pending = NULL;
		st->done = false;
		st->nversions = st->nextversion = 0;
		st->nranges = nst;		/* the first: the table's state, once */
		open_at(st, &st->ranges[j]);
		st->nextrange = j + 1;
		st->nranges = j + 1;
		cells0 = st->ncells;
		while (taken < per && n < targrows && next_row(st, values, isnull))
		{
			vacuum_delay_point();
			rows[n++] = heap_form_tuple(desc, values, isnull);
			taken++;
		}
		/* rows and cells read: a row key's other times were read too */
		nread += taken + (st->by_version ? st->nversions - st->nextversion : 0);
		cells += st->ncells - cells0 - (st->pending != NULL ? 1 : 0);
	}
	*nsampled = n;
	*totalrows = cells > 0 ? floor(ncells * nread / cells + 0.5) : 0;
	ereport(elevel,
			(errmsg("\"%s\": a sample from the starts of stretches of its cells table, %.0f rows estimated",
					RelationGetRelationName(rel), *totalrows)));
	elog(DEBUG1, "\"%s\": %d rows from %d of %d stretches",
		 RelationGetRelationName(rel), n, m, nst);
	return true;
}

/*
 * rows_sample -- ANALYZE's sample.  A table of many more rows than the
 * sample (by its count of records, at most a cell per column a row) of one
 * family is sampled by stretches, as the cells table is (am/tableam.c):
 * reading every row of it would read the whole table.  Others are read
 * whole, with a reservoir sample (as file_fdw), which counts rows exactly.
 */
static int
rows_sample(Relation rel, int elevel, HeapTuple *rows, int targrows,
			double *totalrows, double *totaldeadrows)
{
	WideRowShape *shape = WideRowShapeGet(RelationGetRelid(rel));
	Snapshot	snap = RegisterSnapshot(GetTransactionSnapshot());
	RowsScan   *st = rows_begin(shape, snap, NIL, false);
	double		ncells = WideEstimateCells(st->cells);
	int			n;

	if (st->schema->nfamilies > 1 ||
		ncells / Max(shape->nvalues, 1) <= 4.0 * targrows ||
		!rows_stretch_sample(rel, st, ncells, elevel, rows, targrows, &n,
							 totalrows))
		n = rows_full_sample(rel, st, elevel, rows, targrows, totalrows);
	rows_end(st);
	UnregisterSnapshot(snap);
	*totaldeadrows = 0;
	return n;
}

bool
WideRowsAnalyze(Relation rel, AcquireSampleRowsFunc *func, BlockNumber *totalpages)
{
	WideRowShape *shape = WideRowShapeGet(RelationGetRelid(rel));
	Relation	crel = WideRowCellsOpen(shape, AccessShareLock, ACL_SELECT);

	*totalpages = RelationGetNumberOfBlocks(crel);
	table_close(crel, AccessShareLock);
	*func = rows_sample;
	return true;
}
