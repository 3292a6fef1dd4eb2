/*-------------------------------------------------------------------------
 *
 * bulk.c
 *	  COPY's bulk path: rows sorted in memory and written as runs of the
 *	  write area.
 *
 * Appending a bulk load to the write area record by record and sorting it
 * again at the flush would write and log every cell twice.  Instead, the
 * rows a COPY hands over (multi_insert) are collected in backend memory, up
 * to wide.bulk_memory, sorted, and written as a segment: a *write-area run*.
 * Its records carry the loading transaction's xmin and command id, like any
 * write-area record, so they are invisible until commit and gone on abort.
 *
 * Write order.  Inside the run, records keep their order of arrival as
 * sequence numbers 0..n-1.  When the run is registered in the metapage
 * (under the exclusive metapage lock, like an append), it is given n real
 * sequence numbers at once: its base.  So the whole run is one write in the
 * write order, and the flush of its generation keeps the invariant of
 * runs (compaction.c): a generation made only of such runs becomes runs
 * as is, without a rewrite.
 *
 * The run's data blocks are also cut where a row key's leading part
 * changes (find_parts; segment_writer.c, WideSegmentWriterPart): VACUUM's
 * merge of a time-major load's runs then passes those blocks through.
 *
 * Nothing is written until a buffer is full or the COPY ends
 * (finish_bulk_insert); an error discards the buffer.  Pages written and not
 * registered yet (the run's blobs, then its segment) are not referenced by
 * the metapage, so the load holds the allocation guard (manifest.c, M2)
 * from its first row to the end of its transaction: VACUUM's sweep does not
 * free them under it.  A run written but never registered (error, crash) is
 * reclaimed by a later sweep.
 *
 * IDENTIFICATION
 *	  src/engine/bulk.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/relation.h"
#include "access/xact.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
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
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/manifest.h"

int			wide_bulk_memory = 64 * 1024;	/* kB */

typedef struct WideBulk
{
	Oid			relid;
	SubTransactionId subxid;
	MemoryContext cxt;
	WideSorter *sorter;
	uint64		n;				/* records, numbered in arrival order */
	Size		bytes;
	int16		typlen;
} WideBulk;

static WideBulk *bulk = NULL;
static bool callbacks_registered = false;

static void
bulk_xact_callback(XactEvent event, void *arg)
{
	/* the memory belonged to the transaction */
	bulk = NULL;
}

static void
bulk_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && bulk != NULL && bulk->subxid == mySubid)
		bulk = NULL;
}

/* register the run: sequence numbers, generation, metapage entry */
static void
register_run(Relation rel, WideRunData *run, uint64 n)
{
	for (;;)
	{
		WideManifestTx tx;
		WideMetaPage meta = WideManifestBegin(rel, &tx);
		uint64		base;
		XLogRecPtr	lsn;

		if (meta->nwaruns < WIDE_MAX_WA_RUNS)
		{
			base = WideSeqNext(rel, n);
			run->seq_base = base;
			run->min_seq += base;
			run->max_seq += base;
			run->gen = meta->generation;
			if (!WideManifestAddWARun(meta, run))
				elog(ERROR, "no room for a write-area run");	/* checked above */
			lsn = WideManifestLog(&tx);
			WideSeqAfterWrite(rel, base + n - 1, lsn);
			WideManifestRelease(&tx);
			return;
		}

		/* no room: flush the write area (waiting for a flush under way) */
		WideManifestAbort(&tx);
		LockRelation(rel, ShareUpdateExclusiveLock);
		WideFlush(rel);
		UnlockRelation(rel, ShareUpdateExclusiveLock);
	}
}

/* find_parts: how many fewer leading bytes make a new part ... */
#define WIDE_PART_LCP_DROP		4
/* ... than the row steps among how many rows before it share */
#define WIDE_PART_WINDOW		32

/*
 * find_parts -- where the parts of the sorted records start
 * (WideSegmentWriterPart): at a row whose key shares with the previous
 * row's at least WIDE_PART_LCP_DROP fewer leading bytes than any two
 * consecutive rows among the WIDE_PART_WINDOW rows of its part before it
 * do (host_12#... after host_11#... where those rows share "host_11#14516";
 * a window, not the whole part, so that a part whose later bytes roll over
 * once, h01#1499 to h01#1500, is still told from the next, h02#1400).
 * Which part of a key is "the host" the engine does not know, so the rule
 * is on bytes; keys without such structure (random ones) share few bytes
 * from row to row, never that many fewer, and are one part.  The rows and
 * what each key shares with the one before are the sorter's
 * (WideSorterRows), learnt from its groups: a pass over the records, which
 * are scattered in memory, showed in perf profiles of a COPY of TSBS's
 * readings as a few percent of it.
 * Returns the number of parts; starts[k] is the index of part k's first
 * record, and starts[nparts] = ncells.
 */
static int64
find_parts(WideSorter *sorter, int64 ncells, int64 **startsp)
{
	const int64 *first;
	const uint32 *lcps;
	int64		nrows = WideSorterRows(sorter, &first, &lcps);
	int64	   *starts;
	int64		nparts = 0;
	int64		maxparts = 64;
	uint32		steps[WIDE_PART_WINDOW];
	int			nsteps = 0;		/* row steps of the part, up to the window */
	int			next = 0;		/* where the next step goes in steps[] */

	starts = palloc(sizeof(int64) * (maxparts + 1));
	starts[nparts++] = 0;
	for (int64 r = 1; r < nrows; r++)
	{
		uint32		lcp = lcps[r];
		uint32		min_lcp = PG_UINT32_MAX;

		for (int k = 0; k < nsteps; k++)
			min_lcp = Min(min_lcp, steps[k]);
		if (nsteps > 0 && lcp + WIDE_PART_LCP_DROP <= min_lcp)
		{
			if (nparts == maxparts)
			{
				maxparts *= 2;
				starts = repalloc(starts, sizeof(int64) * (maxparts + 1));
			}
			starts[nparts++] = first[r];
			nsteps = 0;
			next = 0;
			continue;
		}
		steps[next] = lcp;
		next = (next + 1) % WIDE_PART_WINDOW;
		nsteps = Min(nsteps + 1, WIDE_PART_WINDOW);
	}
	starts[nparts] = ncells;
	*startsp = starts;
	return nparts;
}

/*
 * WideBulkWriteRun -- sort the n records of a sorter (numbered 0..n-1 in
 * their order of arrival, large values already in blobs) and write them as
 * a run of the write area.  The caller holds the allocation guard.
 */
void
WideBulkWriteRun(Relation rel, WideSorter *sorter, uint64 n, int16 typlen)
{
	WideSegmentWriter *w;
	WideCell  **cells;
	int64		ncells;
	int64		i;
	int64	   *starts;
	int64		nparts;
	int64		part = 0;
	WideRunData run;

	if (n == 0)
		return;
	WideSorterDone(sorter);
	w = WideSegmentWriterBegin(rel, typlen);
	cells = WideSorterCells(sorter, &ncells);
	/* blocks of one key prefix, so that a merge of the runs passes them */
	nparts = find_parts(sorter, ncells, &starts);
	/*
	 * the sorted records in place, fetched a few ahead (they are scattered):
	 * a record and its bytes span three cache lines
	 */
	for (i = 0; i < ncells; i++)
	{
#ifdef __GNUC__
		if (i + 8 < ncells)
		{
			const char *ahead = (const char *) cells[i + 8];

			__builtin_prefetch(ahead);
			__builtin_prefetch(ahead + 64);
			__builtin_prefetch(ahead + 128);
		}
#endif
		if (part < nparts && i == starts[part])
		{
			WideSegmentWriterPart(w, (uint64) (starts[part + 1] - i));
			part++;
		}
		WideSegmentWriterAdd(w, cells[i], false);
	}
	if (WideSegmentWriterFinish(w, &run))
		register_run(rel, &run, n);
	WideSegmentWriterEnd(w);
	pfree(starts);
}

/* sort what was collected and write it as a run of the write area */
static void
write_run(Relation rel, WideBulk *b)
{
	if (b->n == 0)
		return;
	WideBulkWriteRun(rel, b->sorter, b->n, b->typlen);
	WideSorterReset(b->sorter);
	b->n = 0;
	b->bytes = 0;
}

/*
 * WideBulkAdd -- take rows of the current transaction and command (xmin,
 * cmin set); they are written when the buffer is full or at WideBulkFinish.
 * The caller wrote the statement buffer of rel first (WidePendingWrite),
 * for the write order.
 */
void
WideBulkAdd(Relation rel, WideCell *cells, int n)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();
	MemoryContext old;
	int			i;

	WideSerializableWrite(rel);
	WideCheckWrite(rel);
	WideLogChanges(rel, cells, n);

	if (!callbacks_registered)
	{
		RegisterXactCallback(bulk_xact_callback, NULL);
		RegisterSubXactCallback(bulk_subxact_callback, NULL);
		callbacks_registered = true;
	}
	if (bulk != NULL && (bulk->relid != RelationGetRelid(rel) || bulk->subxid != subxid))
	{
		Relation	other = relation_open(bulk->relid, NoLock);

		WideBulkFinish(other);
		relation_close(other, NoLock);
	}
	if (bulk == NULL)
	{
		MemoryContext cxt = AllocSetContextCreate(CurTransactionContext, "wide bulk load",
												  ALLOCSET_DEFAULT_SIZES);

		old = MemoryContextSwitchTo(cxt);
		bulk = palloc0(sizeof(WideBulk));
		bulk->relid = RelationGetRelid(rel);
		bulk->subxid = subxid;
		bulk->cxt = cxt;
		bulk->typlen = WideGetSchema(rel)->vallen;
		bulk->sorter = WideSorterBegin();
		MemoryContextSwitchTo(old);
	}

	/* before the first page this load owns unregistered */
	WideManifestGuardAllocations(rel);

	old = MemoryContextSwitchTo(bulk->cxt);
	for (i = 0; i < n; i++)
	{
		WideCell   *c = &cells[i];

		/* large values go to blobs owned by the run */
		if (c->vallen > WIDE_WA_MAX_INLINE && c->value != NULL)
		{
			c->blob = WideBlobWrite(rel, c->value, c->vallen);
			c->flags |= WIDE_REC_VALUE_BLOB;
			c->value = NULL;
		}
		c->seq = bulk->n++;
		WideSorterAdd(bulk->sorter, c);
		bulk->bytes += sizeof(WideCell) + c->keylen + c->famlen + c->quallen +
			(c->value ? c->vallen : 0);
	}
	MemoryContextSwitchTo(old);

	if (bulk->bytes >= (Size) wide_bulk_memory * 1024)
	{
		old = MemoryContextSwitchTo(bulk->cxt);
		write_run(rel, bulk);
		MemoryContextSwitchTo(old);
	}
}

/*
 * WideBulkFinish -- write what the bulk load of this relation collected.
 */
void
WideBulkFinish(Relation rel)
{
	MemoryContext old;
	WideBulk   *b = bulk;

	if (b == NULL || b->relid != RelationGetRelid(rel))
		return;
	old = MemoryContextSwitchTo(b->cxt);
	write_run(rel, b);
	MemoryContextSwitchTo(old);
	bulk = NULL;
	MemoryContextDelete(b->cxt);
}
