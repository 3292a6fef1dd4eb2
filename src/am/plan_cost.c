/*-------------------------------------------------------------------------
 *
 * plan_cost.c
 *	  The one cost model of wide's scans, and the share of a wide table a
 *	  key range holds.
 *
 * Three planners read a wide table: the Wide Scan (customscan.c, a table
 * in FROM), the Wide Read Rows scan (read_rows_plan.c, a call of
 * read_rows or read_row in FROM) and the row form's foreign scans
 * (rows_plan.c).  All three read the same runs the same way -- a seek per
 * key range, then the range's blocks in order, merging the records of each
 * cell -- so one function costs them:
 *	- a seek costs a random page (an index block and a data block per run,
 *	  mostly cached) and 20 operators (the binary searches); the first is
 *	  startup cost;
 *	- then the range's share of the table's pages, read in order
 *	  (seq_page_cost each);
 *	- each tuple formed costs cpu_tuple_cost and the quals checked on it;
 *	  where several cells make one tuple (a row of the row form), each cell
 *	  merged into it costs two operators more;
 *	- a full read costs 0.99 of what a sequential scan of the same pages and
 *	  cells would (its output is sorted), and a range never more than a
 *	  full read (on a small table a seek may cost more than every block).
 * The callers differ only in what they know: the Wide Scan the selectivity
 * of its key clauses (clauselist_selectivity over row_key's statistics,
 * which interpolates inside a histogram bucket), the read scan its
 * constant bounds (WideKeyRangeFraction below), the row form the
 * selectivity of its key-part conditions (the foreign table's own
 * statistics) and the cells a row merges.
 *
 * Key fractions.  WideKeyStatsOpen reads what ANALYZE keeps of row_key
 * (pg_statistic: distinct keys, most common keys, histogram) and
 * WideKeyRangeFraction gives the share of the cells whose key lies in
 * [lo, hi): the common keys in it, and the histogram's share of the
 * others; without statistics, the planner's defaults for one or two
 * inequalities.  WideKeyStatsCellsPerRow is the cells of a row (cells per
 * distinct key), what a point read or a list of keys reads.
 *
 * IDENTIFICATION
 *	  src/am/plan_cost.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "engine/cell.h"
#include "am/plan_cost.h"

/*
 * WideReadCost -- the startup and run cost of reading r (see the head of
 * this file); quals are the conditions checked on each tuple formed.  The
 * caller adds what its target list costs.
 */
void
WideReadCost(const WideReadShape *r, const QualCost *quals, Cost *startup,
			 Cost *run)
{
	Cost		seek = random_page_cost + 20 * cpu_operator_cost;
	double		cpt = Max(r->cells_per_tuple, 1.0);
	Cost		per_cell = cpt > 1.0 ? 2 * cpu_operator_cost : 0.0;
	Cost		per_tuple = cpu_tuple_cost + quals->per_tuple;
	double		fraction = Max(Min(r->fraction, 1.0), 0.0);
	double		nseeks = r->nseeks > 0 ? r->nseeks : 0;
	double		cells = r->cells * fraction;
	Cost		full;

	/* a sequential scan whose output is sorted */
	full = 0.99 * (r->pages * seq_page_cost +
				   r->cells * per_cell + r->cells / cpt * per_tuple);
	*startup = quals->startup + (nseeks > 0 ? seek : 0);
	*run = (nseeks > 1 ? (nseeks - 1) * seek : 0) +
		ceil(r->pages * fraction) * seq_page_cost +
		cells * per_cell + cells / cpt * per_tuple;
	/* a range is never more work than the whole table (small tables) */
	if (*startup + *run > full)
	{
		*startup = Min(*startup, full);
		*run = full - *startup;
	}
}

/*
 * WideScanCost -- set a Wide Scan path's costs: a read of range_sel of the
 * table after nseeks seeks (has_range), or of all of it; quals are the
 * conditions still checked on every cell read.
 */
void
WideScanCost(PlannerInfo *root, RelOptInfo *rel, Path *path, bool has_range,
			 Selectivity range_sel, double nseeks, List *quals)
{
	WideReadShape r;
	QualCost	qcost;
	Cost		startup,
				run;

	cost_qual_eval(&qcost, quals, root);
	r.pages = rel->pages;
	r.cells = rel->tuples;
	r.fraction = has_range ? range_sel : 1.0;
	r.nseeks = has_range ? nseeks : 0;
	r.cells_per_tuple = 1;
	WideReadCost(&r, &qcost, &startup, &run);
	run += path->rows * path->pathtarget->cost.per_tuple;
	path->startup_cost = startup + path->pathtarget->cost.startup;
	path->total_cost = path->startup_cost + run;
}

/*
 * WideKeyStatsOpen -- what ANALYZE keeps of row_key (attribute 1) of the
 * wide table relid, whose cells number cells; with distribution, the most
 * common keys and the histogram too.  Release with WideKeyStatsClose.
 */
void
WideKeyStatsOpen(Oid relid, double cells, bool distribution, WideKeyStats *ks)
{
	HeapTuple	st;
	double		nd;
	int			i;

	memset(ks, 0, sizeof(*ks));
	st = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(1),
						 BoolGetDatum(false));
	if (!HeapTupleIsValid(st))
		return;
	ks->tuple = st;
	ks->have = true;
	nd = ((Form_pg_statistic) GETSTRUCT(st))->stadistinct;
	if (nd < 0)
		nd = -nd * cells;
	if (nd >= 1)
		ks->distinct = nd;
	if (!distribution)
		return;
	if (get_attstatsslot(&ks->mslot, st, STATISTIC_KIND_MCV, InvalidOid,
						 ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
	{
		ks->have_mcv = true;
		ks->mcv = ks->mslot.values;
		ks->mcvfreq = ks->mslot.numbers;
		ks->nmcv = Min(ks->mslot.nvalues, ks->mslot.nnumbers);
		for (i = 0; i < ks->nmcv; i++)
			ks->mcvtotal += ks->mcvfreq[i];
	}
	if (get_attstatsslot(&ks->hslot, st, STATISTIC_KIND_HISTOGRAM, InvalidOid,
						 ATTSTATSSLOT_VALUES))
	{
		ks->have_hist = true;
		ks->hist = ks->hslot.values;
		ks->nhist = ks->hslot.nvalues;
	}
}

/* WideKeyStatsClose -- release what WideKeyStatsOpen took */
void
WideKeyStatsClose(WideKeyStats *ks)
{
	if (ks->have_mcv)
		free_attstatsslot(&ks->mslot);
	if (ks->have_hist)
		free_attstatsslot(&ks->hslot);
	if (ks->tuple != NULL)
		ReleaseSysCache(ks->tuple);
	memset(ks, 0, sizeof(*ks));
}

/*
 * WideKeyStatsCellsPerRow -- the cells of one row: cells per distinct key,
 * at least one; dflt without statistics.
 */
double
WideKeyStatsCellsPerRow(const WideKeyStats *ks, double cells, double dflt)
{
	if (ks->distinct >= 1)
		return Max(cells / ks->distinct, 1.0);
	return dflt;
}

/* the bytes of a key datum of the statistics (text or bytea) */
static void
stat_key(Datum d, const char **p, uint32 *len)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	*p = VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
}

/* is the key inside [lo, hi) (a NULL bound: none)? */
static bool
key_in(const char *k, uint32 len, const char *lo, uint32 lolen,
	   const char *hi, uint32 hilen)
{
	return (lo == NULL || WideKeyCompare(k, len, lo, lolen) >= 0) &&
		(hi == NULL || WideKeyCompare(k, len, hi, hilen) < 0);
}

/* the share of the histogram's keys below the key (0..1) */
static double
key_position(const WideKeyStats *ks, const char *k, uint32 len)
{
	int			lo = 0,
				hi = ks->nhist;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		const char *p;
		uint32		plen;

		stat_key(ks->hist[mid], &p, &plen);
		if (WideKeyCompare(p, plen, k, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ks->nhist > 1 ? (double) lo / (ks->nhist - 1) : 0.5;
}

/*
 * WideKeyRangeFraction -- the share of the table's cells whose key lies in
 * [lo, hi) (a NULL bound: none): the most common keys in it, and the
 * histogram's share of the others (a range inside one bucket holds half a
 * bucket); without statistics, the planner's default for one or two
 * inequalities.
 */
Selectivity
WideKeyRangeFraction(const WideKeyStats *ks, const char *lo, uint32 lolen,
					 const char *hi, uint32 hilen)
{
	double		frac = 0.0;
	int			i;

	if (lo == NULL && hi == NULL)
		return 1.0;
	if (!ks->have || (ks->nmcv == 0 && ks->nhist < 2))
		return (lo && hi) ? DEFAULT_RANGE_INEQ_SEL : DEFAULT_INEQ_SEL;
	for (i = 0; i < ks->nmcv; i++)
	{
		const char *p;
		uint32		plen;

		stat_key(ks->mcv[i], &p, &plen);
		if (key_in(p, plen, lo, lolen, hi, hilen))
			frac += ks->mcvfreq[i];
	}
	if (ks->nhist >= 2)
	{
		double		a = lo ? key_position(ks, lo, lolen) : 0.0;
		double		b = hi ? key_position(ks, hi, hilen) : 1.0;

		frac += (1.0 - ks->mcvtotal) * Max(b - a, 0.5 / (ks->nhist - 1));
	}
	return frac;
}
