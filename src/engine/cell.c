/*-------------------------------------------------------------------------
 *
 * cell.c
 *	  The order of cells and tombstones, and cell timestamps.
 *
 * Cells sort as Bigtable returns them: by row key, family, qualifier (all
 * bytewise, memcmp order, a shorter string before its extensions), then
 * timestamp newest first; equal coordinates sort by sequence number, newest
 * write first.  Tombstones sort at the start of what they delete: a row
 * tombstone before every cell of its row, a family tombstone before every
 * cell of its family, a column tombstone before every version of its column.
 * That lets a reader apply deletes in one forward pass.
 *
 * IDENTIFICATION
 *	  src/engine/cell.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "engine/format.h"
#include "engine/cell.h"

#define UNIX_EPOCH_OFFSET_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

/*
 * WideKeyCompare -- bytewise comparison of two strings.
 */
int
WideKeyCompare(const char *a, uint32 alen, const char *b, uint32 blen)
{
	int			r = memcmp(a, b, Min(alen, blen));

	if (r != 0)
		return r;
	return (alen < blen) ? -1 : (alen > blen) ? 1 : 0;
}

/*
 * WideCellLevel -- the scope of a record inside its row (WIDE_LEVEL_*).
 */
int
WideCellLevel(const WideCell *cell)
{
	switch (cell->kind)
	{
		case WIDE_KIND_DEL_ROW:
			return WIDE_LEVEL_ROW;
		case WIDE_KIND_DEL_FAMILY:
			return WIDE_LEVEL_FAMILY;
		case WIDE_KIND_DEL_CELLS:
			return WIDE_LEVEL_COLUMN;
		default:
			return WIDE_LEVEL_CELL;
	}
}

/*
 * WideCellCompare -- total order of records.
 */
int
WideCellCompare(const WideCell *a, const WideCell *b)
{
	int			r = WideKeyCompare(a->key, a->keylen, b->key, b->keylen);

	if (r != 0)
		return r;
	return WideCellCompareInRow(a, b);
}

/*
 * WideCellCompareInRow -- WideCellCompare of two records of the same row
 * key (the sorter compares a row's records without their key).
 */
int
WideCellCompareInRow(const WideCell *a, const WideCell *b)
{
	int			r;
	int			la;
	int			lb;

	la = WideCellLevel(a);
	lb = WideCellLevel(b);
	if (la == WIDE_LEVEL_ROW || lb == WIDE_LEVEL_ROW)
	{
		if (la != lb)
			return la - lb;
		goto by_seq;
	}

	/* (one family, the common case: no call) */
	if (!WideBytesEqual(a->family, a->famlen, b->family, b->famlen))
		return WideKeyCompare(a->family, a->famlen, b->family, b->famlen);
	if (la == WIDE_LEVEL_FAMILY || lb == WIDE_LEVEL_FAMILY)
	{
		if (la != lb)
			return la - lb;
		goto by_seq;
	}

	r = WideKeyCompare(a->qual, a->quallen, b->qual, b->quallen);
	if (r != 0)
		return r;
	if (la != lb)
		return la - lb;

	/* versions: newest timestamp first */
	if (a->ts != b->ts)
		return (a->ts > b->ts) ? -1 : 1;

by_seq:
	/* newest write first */
	if (a->seq != b->seq)
		return (a->seq > b->seq) ? -1 : 1;
	return 0;
}

/*
 * WideCellSameColumn -- do two cells have the same row, family and
 * qualifier?
 */
bool
WideCellSameColumn(const WideCell *a, const WideCell *b)
{
	return a->keylen == b->keylen && a->famlen == b->famlen &&
		a->quallen == b->quallen &&
		memcmp(a->qual, b->qual, a->quallen) == 0 &&
		memcmp(a->family, b->family, a->famlen) == 0 &&
		memcmp(a->key, b->key, a->keylen) == 0;
}

/*
 * WideRowBeforeRange -- does the row key lie before the start of the range?
 */
bool
WideRowBeforeRange(const WideKeyRange *r, const char *key, uint32 keylen)
{
	int			cmp;

	if (!r->has_start)
		return false;
	cmp = WideKeyCompare(key, keylen, r->start, r->startlen);
	return cmp < 0 || (cmp == 0 && !r->start_incl);
}

/*
 * WideRowAfterRange -- does the row key lie after the end of the range?
 */
bool
WideRowAfterRange(const WideKeyRange *r, const char *key, uint32 keylen)
{
	int			cmp;

	if (!r->has_end)
		return false;
	cmp = WideKeyCompare(key, keylen, r->end, r->endlen);
	return cmp > 0 || (cmp == 0 && !r->end_incl);
}

/*
 * WideRunOverlapsRange -- may a run (by its bounding row keys) hold rows of
 * the range?
 */
bool
WideRunOverlapsRange(const WideRunData *run, const WideKeyRange *r)
{
	/* lo_key is a prefix of the smallest row: a lower bound */
	if (r->has_end && WideRowAfterRange(r, run->lo_key, run->lo_len))
		return false;
	if (r->has_start)
	{
		if (!(run->flags & WIDE_RUN_HI_TRUNCATED))
			return !WideRowBeforeRange(r, run->hi_key, run->hi_len);
		/* hi_key is a prefix of the largest row: every extension is possible */
		if (WideKeyCompare(run->hi_key, run->hi_len, r->start,
						   Min(r->startlen, run->hi_len)) < 0)
			return false;
	}
	return true;
}

/*
 * WideTimestampToUnix -- timestamptz to microseconds since 1970.
 */
int64
WideTimestampToUnix(TimestampTz ts)
{
	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("cell timestamp cannot be infinite"),
				 errhint("Use a finite timestamp, or NULL for the current time.")));
	if (ts > PG_INT64_MAX - UNIX_EPOCH_OFFSET_US)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("cell timestamp is out of range")));
	return ts + UNIX_EPOCH_OFFSET_US;
}

/*
 * WideUnixToTimestamp -- microseconds since 1970 to timestamptz.
 */
TimestampTz
WideUnixToTimestamp(int64 us)
{
	return us - UNIX_EPOCH_OFFSET_US;
}
