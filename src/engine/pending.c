/*-------------------------------------------------------------------------
 *
 * pending.c
 *	  A running statement's cells, held in backend memory and written when
 *	  the statement ends: statement-sized writes at the cost of COPY.
 *
 * Appending every cell of an INSERT ... SELECT to the write area costs a
 * page lock and a Generic WAL record per cell, and the flush writes the
 * cell again.  Instead, INSERT (tuple_insert) and the wide.* mutations
 * hand their cells here while a statement runs (am/write.c passes the
 * executor nesting level).  When the statement ends, its cells are written:
 * a small batch is appended to the write area, page by page with one WAL
 * record per page; a large one (wide.statement_run_size or more of records)
 * is sorted and written as a run of the write area, as COPY's rows are
 * (bulk.c).  A
 * buffer that reaches wide.bulk_memory is written as a run at once, so the
 * memory of a statement stays bounded whatever its size.
 *
 * The guarantees of the write area are kept:
 *
 * - Order.  The buffer's cells keep their order of arrival (sequence
 *	 numbers 0..n-1 inside a run, array order in the write area), and any
 *	 other write to the relation -- an append (writearea.c), a COPY
 *	 (bulk.c) -- first writes the buffer (their callers do: am/write.c,
 *	 uncover.c), so the write order is the order of the calls.
 * - Visibility.  Before any reader of the relation takes its state
 *	 (reader.c), the buffer is written: a read in the same backend during
 *	 the statement (a volatile function, a trigger, read_rows in the SELECT
 *	 list) sees exactly what it would see had every cell been appended at
 *	 once; the records carry the statement's xmin and command id.
 * - Transactions.  A buffer belongs to one subtransaction: its abort
 *	 discards the buffer, its commit hands the buffer to the parent.  At
 *	 pre-commit and before any utility statement a buffer left is written.
 *	 A write that failed half-way poisons the transaction: it cannot commit.
 * - Space.  Only pages of a run (and its blobs) are owned before they are
 *	 registered; the run's writer takes the allocation guard first, as
 *	 COPY does (manifest.c, M2).
 *
 * One buffer exists per backend; a write to another relation, at another
 * nesting level or in another subtransaction writes the current buffer
 * first.  Its memory (a sorter, kept between statements) lives in
 * TopMemoryContext.
 *
 * IDENTIFICATION
 *	  src/engine/pending.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/cell.h"
#include "engine/sort.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/writearea.h"
#include "engine/manifest.h"

/* kB of records from which a buffer is written as a run, not appended */
int			wide_statement_run_size = 128;

/* a sorter that grew larger than this is released after a write */
#define WIDE_PENDING_KEEP_BYTES	(4 * 1024 * 1024)

typedef struct WidePending
{
	Oid			relid;			/* InvalidOid: no buffer */
	SubTransactionId subxid;
	int			level;
	int16		typlen;
	uint64		n;
	Size		bytes;			/* memory held */
	Size		wa_bytes;		/* the records' size in write-area pages */
} WidePending;

static WidePending pending = {InvalidOid};
static MemoryContext pending_cxt = NULL;
static WideSorter *sorter = NULL;
static bool write_failed = false;
static bool callbacks_registered = false;

/* forget the buffer, keeping its memory (unless large and release) */
static void
discard(bool release)
{
	pending.relid = InvalidOid;
	pending.n = 0;
	pending.bytes = 0;
	pending.wa_bytes = 0;
	if (sorter != NULL)
	{
		if (release && WideSorterBytes(sorter) > WIDE_PENDING_KEEP_BYTES)
		{
			WideSorterEnd(sorter);
			sorter = NULL;
		}
		else
			WideSorterReset(sorter);
	}
}

/* write the buffer (of rel); returns the write area's pages if appended */
static uint32
write_buffer(Relation rel, bool as_run)
{
	int64		n;
	WideCell  **cells;
	uint32		wa_pages = 0;
	int16		typlen = pending.typlen;
	MemoryContext wcxt;
	MemoryContext old;
	bool		run = as_run ||
		pending.wa_bytes >= (Size) wide_statement_run_size * 1024;

	Assert(pending.relid == RelationGetRelid(rel));
	cells = WideSorterCells(sorter, &n);
	/* detached first: the writes below must not find it again */
	pending.relid = InvalidOid;
	if (n == 0)
	{
		discard(!as_run);
		return 0;
	}

	/* the writers' memory is given back after each write */
	wcxt = AllocSetContextCreate(CurrentMemoryContext, "wide pending write",
								 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(wcxt);
	write_failed = true;
	if (run)
	{
		int64		i;

		/* before the first page this writer owns unregistered */
		WideManifestGuardAllocations(rel);
		for (i = 0; i < n; i++)
		{
			WideCell   *c = cells[i];

			/* large values go to blobs owned by the run */
			if (c->vallen > WIDE_WA_MAX_INLINE && c->value != NULL)
			{
				c->blob = WideBlobWrite(rel, c->value, c->vallen);
				c->flags |= WIDE_REC_VALUE_BLOB;
				c->value = NULL;
			}
		}
		WideBulkWriteRun(rel, sorter, n, typlen);
	}
	else
	{
		WideCell   *arr = palloc(sizeof(WideCell) * n);
		int64		i;

		for (i = 0; i < n; i++)
			arr[i] = *cells[i];
		/* logged as changes by WidePendingAdd */
		wa_pages = WideWriteAreaAppend(rel, arr, (int) n);
		pfree(arr);
	}
	write_failed = false;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(wcxt);
	/* a statement going on after a full buffer keeps the memory */
	discard(!as_run);
	return wa_pages;
}

static void
pending_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (OidIsValid(pending.relid))
			{
				Relation	rel = relation_open(pending.relid, NoLock);

				write_buffer(rel, false);
				relation_close(rel, NoLock);
			}
			if (write_failed)
				ereport(ERROR,
						(errcode(ERRCODE_IN_FAILED_SQL_TRANSACTION),
						 errmsg("cannot commit a transaction whose writes to a wide table failed"),
						 errdetail("An error interrupted the writing of a statement's cells; the transaction must be rolled back.")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			discard(true);
			write_failed = false;
			break;
		default:
			break;
	}
}

static void
pending_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	if (!OidIsValid(pending.relid) || pending.subxid != mySubid)
		return;
	if (event == SUBXACT_EVENT_ABORT_SUB)
		discard(true);
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
		pending.subxid = parentSubid;
}

/*
 * WidePendingAdd -- take records of the current transaction and command
 * (xmin, cmin set; seq and blob references are set when they are written)
 * of a statement running at the given executor nesting level (> 0: writes
 * outside any query are appended at once by am/write.c).  Returns the write
 * area's pages if the write area was appended to (for deciding to flush),
 * else 0.
 */
uint32
WidePendingAdd(Relation rel, const WideCell *cells, int n, int level)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();
	Oid			relid = RelationGetRelid(rel);
	uint32		wa_pages = 0;
	MemoryContext old;
	int			i;

	Assert(level > 0);
	WideSerializableWrite(rel);
	WideCheckWrite(rel);
	WideLogChanges(rel, cells, n);

	if (!callbacks_registered)
	{
		RegisterXactCallback(pending_xact_callback, NULL);
		RegisterSubXactCallback(pending_subxact_callback, NULL);
		pending_cxt = AllocSetContextCreate(TopMemoryContext,
											"wide pending statement writes",
											ALLOCSET_SMALL_SIZES);
		callbacks_registered = true;
	}

	/* one buffer: of one relation, level and subtransaction */
	if (OidIsValid(pending.relid) &&
		(pending.relid != relid || pending.subxid != subxid ||
		 pending.level != level))
	{
		if (pending.relid == relid)
			wa_pages = write_buffer(rel, false);
		else
		{
			Relation	other = relation_open(pending.relid, NoLock);

			write_buffer(other, false);
			relation_close(other, NoLock);
		}
	}
	if (!OidIsValid(pending.relid))
	{
		pending.relid = relid;
		pending.subxid = subxid;
		pending.level = level;
		pending.typlen = WideGetSchema(rel)->vallen;
		pending.n = 0;
		pending.bytes = 0;
		pending.wa_bytes = 0;
	}
	if (sorter == NULL)
	{
		old = MemoryContextSwitchTo(pending_cxt);
		sorter = WideSorterBegin();
		MemoryContextSwitchTo(old);
	}

	for (i = 0; i < n; i++)
	{
		WideCell	c = cells[i];

		c.seq = pending.n++;
		c.flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
		WideSorterAdd(sorter, &c);
		pending.bytes += sizeof(WideCell) + sizeof(WideCell *) +
			MAXALIGN(c.keylen + c.famlen + c.quallen + (c.value ? c.vallen : 0));
		pending.wa_bytes += MAXALIGN(WideRecordSize(&c)) + sizeof(ItemIdData);
	}

	/* memory full: a run now, and the statement goes on */
	if (pending.bytes >= (Size) wide_bulk_memory * 1024)
	{
		int			keep_level = pending.level;

		write_buffer(rel, true);
		pending.relid = relid;
		pending.subxid = subxid;
		pending.level = keep_level;
	}
	return wa_pages;
}

/*
 * WidePendingWrite -- write the cells pending for this relation, if any.
 * Returns the write area's pages if the write area was appended to.
 */
uint32
WidePendingWrite(Relation rel)
{
	if (!OidIsValid(pending.relid) || pending.relid != RelationGetRelid(rel))
		return 0;
	return write_buffer(rel, false);
}

/*
 * WidePendingRelation -- the relation whose cells are pending from a
 * statement at a nesting level above the given one (InvalidOid: none).
 */
Oid
WidePendingRelation(int above_level)
{
	if (OidIsValid(pending.relid) && pending.level > above_level)
		return pending.relid;
	return InvalidOid;
}
