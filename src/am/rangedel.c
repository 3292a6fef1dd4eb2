/*-------------------------------------------------------------------------
 *
 * rangedel.c
 *	  SQL DELETE of a key range as one range tombstone; of rows, IN lists
 *	  and ORs of keys as row and range tombstones.
 *
 * A DELETE whose WHERE clause is only a range of row keys (=, <, <=, >,
 * >=, BETWEEN, LIKE 'prefix%', starts_with, or no WHERE at all), without
 * RETURNING, joins, CTEs, row triggers or row-level security, is planned
 * as usual -- ModifyTable over a Wide Scan of the range -- with the scan
 * marked (customscan.c).  When that scan starts, instead of returning each
 * cell for ModifyTable to delete with a tombstone of its own (delete.c),
 * it writes one range tombstone (engine/rangedel.c) and returns nothing;
 * the statement's row count is the number of cells it deleted.
 *
 * Exactly the cells the per-cell DELETE would delete.  A range tombstone
 * deletes every record of the range written before it, whoever wrote it;
 * a DELETE deletes the cells its snapshot sees.  The two differ only by
 * records written before the tombstone by a transaction the snapshot does
 * not see (in progress when it was taken, or committed since).  So the
 * tombstone is written first, then the range is read with the statement's
 * snapshot (the tombstone carries the statement's command id, which that
 * snapshot does not see): the cells read are counted, and any record of
 * such a transaction older than the tombstone is noticed
 * (WideReaderBeginCounting).  If there is one, the tombstone is removed
 * again (no snapshot can have seen it) and the DELETE goes on cell by
 * cell, as before.  Records written after the tombstone are not its
 * business: a concurrent insert into the range that is numbered after it
 * survives, as it would a heap DELETE whose snapshot does not see it.  The
 * count is a read of the range (a pass over its blocks, no tuple made):
 * the price of an exact "DELETE n".  A caller that counts rows rather
 * than cells (the row form, am/rows_delete.c) may take a plain run's
 * blocks as rows (WideDeleteBatch), a block at a time.
 *
 * Logical decoding and tablet splits or moves (wide_change_log) need each
 * deleted cell: when they would get them (wal_level = logical for a
 * permanent table, or a tablet being split or moved), the range is read a
 * second time and each cell handed to them as the one-version tombstone
 * the per-cell path would have written, so that subscribers apply the
 * same DELETEs.
 *
 * One row key (row_key = k), an IN list of keys, an OR of key conditions:
 * WideKeysDelete writes a row tombstone (a DEL_ROW record in the write
 * area, which needs neither a metapage WAL record nor metapage room) per
 * key and a range tombstone per range, in a subtransaction rolled back when
 * the statement must go cell by cell (a write-area record cannot be
 * removed as a metapage entry is: a flush may have copied it into a run).
 *
 * wide.enable_range_delete = off keeps every DELETE cell by cell.
 *
 * IDENTIFICATION
 *	  src/am/rangedel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "engine/writearea.h"
#include "engine/rules.h"
#include "engine/rangedel.h"
#include "engine/lsm.h"
#include "engine/debugcrash.h"
#include "am/am.h"

bool		wide_enable_range_delete = true;

#define LOG_BATCH	512

/* row tombstones in one DELETE at most (WideKeysDelete) */
#define WIDE_KEYS_DELETE_MAX_ROWS	256

/*
 * WideRangeDeleteDefineSettings -- the setting wide.enable_range_delete.
 */
void
WideRangeDeleteDefineSettings(void)
{
	DefineCustomBoolVariable("wide.enable_range_delete",
							 "Lets a DELETE of a range of row keys write one range tombstone instead of one per cell.",
							 "Off, every DELETE writes a tombstone per cell; for testing and for comparing.",
							 &wide_enable_range_delete, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}

/*
 * WideRangeDeleteAllowed -- may a DELETE of this table be one range
 * tombstone?  Not with row-level DELETE triggers or OLD TABLE transition
 * tables (they need each cell), nor with row-level security.
 */
bool
WideRangeDeleteAllowed(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;

	if (!wide_enable_range_delete || rel->rd_rel->relrowsecurity)
		return false;
	if (td != NULL &&
		(td->trig_delete_before_row || td->trig_delete_after_row ||
		 td->trig_delete_instead_row || td->trig_delete_old_table))
		return false;
	return true;
}

/* the tombstone's [start, end) from a key range */
static void
to_half_open(const WideKeyRange *r, WideRangeDel *t, StringInfo lo, StringInfo hi)
{
	memset(t, 0, sizeof(WideRangeDel));
	resetStringInfo(lo);
	resetStringInfo(hi);
	if (r->has_start)
	{
		appendBinaryStringInfo(lo, r->start, r->startlen);
		/* the first key after "start" is start || '\0' */
		if (!r->start_incl)
			appendStringInfoChar(lo, '\0');
	}
	if (r->has_end)
	{
		appendBinaryStringInfo(hi, r->end, r->endlen);
		if (r->end_incl)
			appendStringInfoChar(hi, '\0');
	}
	t->start = lo->data;
	t->startlen = lo->len;
	t->has_end = r->has_end;
	t->end = hi->data;
	t->endlen = hi->len;
}

static bool
count_cell(const WideCell *cell, void *arg)
{
	return true;
}

/* hand the cells of the range to wide_change_log as one-version tombstones */
static void
log_deleted_cells(Relation rel, Snapshot snapshot, const WideKeyRange *range)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "wide range delete log",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WideReader *r = WideReaderBegin(rel, snapshot, WideReaderNow(), range);
	WideCell   *batch = palloc(sizeof(WideCell) * LOG_BATCH);
	MemoryContext bcxt = AllocSetContextCreate(cxt, "batch", ALLOCSET_DEFAULT_SIZES);
	const WideCell *c;
	int			n = 0;

	while ((c = WideReaderNext(r)) != NULL)
	{
		WideCell   *t = &batch[n++];
		char	   *bytes = MemoryContextAlloc(bcxt, c->keylen + c->famlen + c->quallen + 1);

		CHECK_FOR_INTERRUPTS();
		memcpy(bytes, c->key, c->keylen);
		memcpy(bytes + c->keylen, c->family, c->famlen);
		memcpy(bytes + c->keylen + c->famlen, c->qual, c->quallen);
		memset(t, 0, sizeof(WideCell));
		t->kind = WIDE_KIND_DEL_CELLS;
		t->key = bytes;
		t->keylen = c->keylen;
		t->family = bytes + c->keylen;
		t->famlen = c->famlen;
		t->qual = bytes + c->keylen + c->famlen;
		t->quallen = c->quallen;
		t->famid = c->famid;
		t->ts = c->ts;
		t->ts_to = c->ts == PG_INT64_MAX ? PG_INT64_MAX : c->ts + 1;
		if (n == LOG_BATCH)
		{
			WideLogChanges(rel, batch, n);
			n = 0;
			MemoryContextReset(bcxt);
		}
	}
	WideLogChanges(rel, batch, n);
	WideReaderEnd(r);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * count -- read the cells of a range a tombstone (seq) deletes, with the
 * statement's snapshot: how many, and whether it deletes more than they
 * (*unseen) or check refuses one of them (*refused).
 */
static uint64
count(Relation rel, Snapshot snapshot, const WideKeyRange *range, uint64 seq,
	  WideDeleteCheck check, const WideDeleteBatch *batch, void *arg,
	  uint64 *unseen, bool *refused)
{
	WideReader *r = WideReaderBeginCounting(rel, snapshot, WideReaderNow(),
											range, seq);
	uint64		n = 0;

	/* (a check sees the qualifiers) */
	if (check == NULL)
		WideReaderSkipQualifiers(r);
	if (check == NULL || batch == NULL)
		n = WideReaderFold(r, check ? check : count_cell, arg, refused);
	else
	{
		/*
		 * Rows a block at a time where the reader reads a plain run's block
		 * as it is stored (its records all frozen: none is unseen), each
		 * other cell alone.
		 */
		*refused = false;
		for (;;)
		{
			uint64		before = WideReaderGetStats(r).records;
			int			rows = WideReaderRowBatch(r, batch->spec, batch->batch);
			const WideCell *c;

			if (rows > 0)
			{
				uint64		recs = WideReaderGetStats(r).records - before;

				n += recs;
				if (!batch->check_rows(batch->batch, rows, recs, arg))
				{
					*refused = true;
					break;
				}
				continue;
			}
			CHECK_FOR_INTERRUPTS();
			if ((c = WideReaderNext(r)) == NULL)
				break;
			n++;
			if (!check(c, arg))
			{
				*refused = true;
				break;
			}
		}
	}
	*unseen += WideReaderUnseen(r);
	WideReaderEnd(r);
	return n;
}

/*
 * WideRangeDelete -- delete, as the DELETE of the running command (cid)
 * with this snapshot would, every cell whose row key lies in range, with
 * one range tombstone; *ncells is the number of cells deleted.  Returns
 * false, having written nothing, if it cannot (the metapage has no room
 * for the tombstone, a transaction the snapshot does not see wrote in
 * the range before it, or check, if given, returned false for a cell it
 * deletes): the caller deletes cell by cell.  With batch, the check may
 * see the cells a block at a time, as rows (WideDeleteBatch).
 */
bool
WideRangeDelete(Relation rel, Snapshot snapshot, CommandId cid,
				const WideKeyRange *range, uint64 *ncells,
				WideDeleteCheck check, const WideDeleteBatch *batch, void *arg)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "wide range delete",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	StringInfoData lo,
				hi;
	WideRangeDel t;
	uint64		seq;
	uint64		runcells;
	uint64		n;
	uint64		unseen = 0;
	bool		refused;

	initStringInfo(&lo);
	initStringInfo(&hi);
	to_half_open(range, &t, &lo, &hi);
	if (t.has_end && WideKeyCompare(t.start, t.startlen, t.end, t.endlen) >= 0)
	{
		/* an empty range: nothing to delete */
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		*ncells = 0;
		return true;
	}
	WideCheckWrite(rel);
	/* this backend's statement cells are older (pending.c) */
	WidePendingWrite(rel);
	if (!WideRangeDelAdd(rel, &t, cid, &seq, &runcells))
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}

	/* the cells it deletes, and whether it deletes more than they */
	n = count(rel, snapshot, range, seq, check, batch, arg, &unseen, &refused);
	if (unseen > 0 || refused)
	{
		WideRangeDelCancel(rel, seq);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}
	/*
	 * (what VACUUM weighs; a delete small by itself or against the runs it
	 * overlaps is not worth a WAL record: WideRangeDelCountMatters)
	 */
	if (n >= 1000 && WideRangeDelCountMatters(n, runcells))
		WideRangeDelSetCount(rel, seq, n);
	if ((XLogLogicalInfoActive() && RelationNeedsWAL(rel)) || WideTabletTracked(rel))
		log_deleted_cells(rel, snapshot, range);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	*ncells = n;
	return true;
}

/*
 * WideKeysDelete -- delete, as the DELETE of the running command (cid)
 * with this snapshot would, every cell of the key ranges given (sorted,
 * disjoint: an IN list of keys, an OR of key conditions, or one row), all
 * or nothing: a row (a point range) with a row tombstone, a DEL_ROW record
 * in the write area, which needs no room in the metapage and no WAL
 * record of it (the append is a small delta of the write area's head
 * page); another range with a range tombstone in the metapage.  *ncells is
 * the number of cells deleted.  Returns false, having left nothing
 * visible, if a tombstone does not fit the metapage or a transaction the
 * snapshot does not see wrote in one of the ranges before its tombstone,
 * check, if given, returned false for a cell one deletes, there are more
 * than WIDE_KEYS_DELETE_MAX_ROWS rows or a tombstone needs a blob (a key
 * of more than about 2,000 bytes: WideWriteAreaFitsAt), or a flush sealed the write area between
 * the row tombstones' number and their append: the caller deletes cell by
 * cell.
 *
 * No subtransaction: a range tombstone is added to the metapage, counted
 * and taken back if it would delete a record the snapshot does not see
 * (as WideRangeDelete does); the row tombstones are numbered first
 * (WideWriteAreaBound), the cells they delete -- those numbered below --
 * counted, and only then appended, carrying that earlier number, so there
 * is nothing to take back.  A write numbered before the row tombstones is
 * in the write area when the count reads it (its appender holds the lane's
 * page from its number to its record), and so counted or refused; one
 * numbered after is not deleted (the rules delete below a tombstone's
 * number), as a heap DELETE whose snapshot does not see it would not.
 */
bool
WideKeysDelete(Relation rel, Snapshot snapshot, CommandId cid,
			   const WideKeyRange *ranges, int nranges, uint64 *ncells,
			   WideDeleteCheck check, const WideDeleteBatch *batch, void *arg)
{
	MemoryContext cxt;
	MemoryContext old;
	WideCell   *cells;
	uint64	   *seqs;
	uint64	   *runcells;
	uint64	   *counts;
	bool	   *added;
	uint64		n = 0;
	uint64		unseen = 0;
	uint64		bound = 0;
	uint32		gen = 0;
	uint32		wa_pages = 0;
	bool		fits = true;
	int			nrows = 0;
	int			i;
	TransactionId xid;
	StringInfoData lo,
				hi;

	*ncells = 0;
	if (nranges <= 0)
		return true;
	for (i = 0; i < nranges; i++)
	{
		if (ranges[i].is_point &&
			(ranges[i].startlen == 0 || ranges[i].startlen > WIDE_MAX_ROW_KEY))
			return false;
		nrows += ranges[i].is_point;
	}
	/* each row is counted by a reader of its own */
	if (nrows > WIDE_KEYS_DELETE_MAX_ROWS)
		return false;
	WideCheckWrite(rel);
	/* this backend's statement cells are older (pending.c) */
	WidePendingWrite(rel);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "wide keys delete",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	cells = palloc0(sizeof(WideCell) * nranges);
	seqs = palloc0(sizeof(uint64) * nranges);
	runcells = palloc0(sizeof(uint64) * nranges);
	counts = palloc0(sizeof(uint64) * nranges);
	added = palloc0(sizeof(bool) * nranges);

	/* the row tombstones, and whether one append takes them */
	xid = nrows > 0 ? GetCurrentTransactionId() : InvalidTransactionId;
	nrows = 0;
	for (i = 0; i < nranges; i++)
	{
		WideCell   *c;

		if (!ranges[i].is_point)
			continue;
		c = &cells[nrows++];
		c->kind = WIDE_KIND_DEL_ROW;
		c->key = ranges[i].start;
		c->keylen = ranges[i].startlen;
		c->family = c->qual = "";
		c->ts_to = PG_INT64_MAX;
		c->xmin = xid;
		c->cmin = cid;
	}
	if (nrows > 0)
	{
		if (!WideWriteAreaFitsAt(cells, nrows) ||
			(bound = WideWriteAreaBound(rel, &gen)) == 0)
		{
			MemoryContextSwitchTo(old);
			MemoryContextDelete(cxt);
			return false;
		}
		WideDebugCrash("keysdel-numbered");
	}

	/* the range tombstones (in the metapage, taken back if need be) */
	initStringInfo(&lo);
	initStringInfo(&hi);
	for (i = 0; i < nranges && fits; i++)
	{
		WideRangeDel t;

		if (ranges[i].is_point)
		{
			seqs[i] = bound;
			continue;
		}
		to_half_open(&ranges[i], &t, &lo, &hi);
		if (t.has_end && WideKeyCompare(t.start, t.startlen, t.end, t.endlen) >= 0)
			continue;			/* empty: nothing to delete, seqs[i] = 0 */
		fits = added[i] = WideRangeDelAdd(rel, &t, cid, &seqs[i], &runcells[i]);
	}

	/* the cells each deletes, and whether it deletes more than they */
	for (i = 0; i < nranges && fits && unseen == 0; i++)
	{
		bool		refused;

		if (seqs[i] == 0)
			continue;
		counts[i] = count(rel, snapshot, &ranges[i], seqs[i], check, batch,
						  arg, &unseen, &refused);
		n += counts[i];
		unseen += refused ? 1 : 0;
	}
	/* (a test writes in the row here: it is numbered after the bound) */
	if (nrows > 0)
		WideDebugPause("keysdel-numbered");

	/* the row tombstones, numbered before their count */
	if (fits && unseen == 0 && nrows > 0 &&
		!WideWriteAreaAppendAt(rel, cells, nrows, bound, gen, &wa_pages))
		fits = false;

	if (!fits || unseen > 0)
	{
		for (i = 0; i < nranges; i++)
			if (added[i])
				WideRangeDelCancel(rel, seqs[i]);
		WideDebugCrash("keysdel-cancelled");
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}
	WideDebugCrash("keysdel-written");

	/* (what VACUUM weighs; a small delete is not worth a WAL record) */
	for (i = 0; i < nranges; i++)
		if (added[i] && counts[i] >= 1000 &&
			WideRangeDelCountMatters(counts[i], runcells[i]))
			WideRangeDelSetCount(rel, seqs[i], counts[i]);
	if ((XLogLogicalInfoActive() && RelationNeedsWAL(rel)) ||
		WideTabletTracked(rel))
		for (i = 0; i < nranges; i++)
			log_deleted_cells(rel, snapshot, &ranges[i]);
	*ncells = n;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	WideWriteFlushIfFull(rel, wa_pages);
	return true;
}
