/*-------------------------------------------------------------------------
 *
 * reader.c
 *	  Reading the cells of a wide table as one snapshot sees them.
 *
 * A reader gathers the records visible to its snapshot, puts them in cell
 * order and passes them through the merger (merge.c), which applies
 * deletes, last-write-wins, aggregates, families and GC policies.  Values
 * kept in blobs are read only for cells that are returned.
 *
 * The reference time of max-age policies is fixed for a statement -- for a
 * whole transaction under REPEATABLE READ or SERIALIZABLE -- so that one
 * snapshot never sees a cell expire under it.
 *
 * IDENTIFICATION
 *	  src/engine/reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/memutils.h"

#include "wide.h"

struct WideReader
{
	Relation	rel;
	WideSchema *schema;
	WideSorter *sorter;
	WideMerger *merger;
	bool		done;
	MemoryContext valcxt;		/* values read from blobs */
};

/*
 * WideReaderNow -- reference time for max-age policies, microseconds since
 * 1970.
 */
int64
WideReaderNow(void)
{
	TimestampTz now = IsolationUsesXactSnapshot() ?
		GetCurrentTransactionStartTimestamp() :
		GetCurrentStatementStartTimestamp();

	return WideTimestampToUnix(now);
}

/*
 * WideReaderBegin -- start reading every cell of the table.
 */
WideReader *
WideReaderBegin(Relation rel, Snapshot snapshot, int64 now)
{
	WideReader *r = palloc0(sizeof(WideReader));
	WideWAScan *wa;
	WideCell	cell;

	r->rel = rel;
	r->schema = WideSchemaCopy(rel);
	r->merger = WideMergerCreate(r->schema, now);
	r->valcxt = AllocSetContextCreate(CurrentMemoryContext, "wide reader values",
									  ALLOCSET_DEFAULT_SIZES);
	r->sorter = WideSorterBegin();

	wa = WideWAScanBegin(rel, snapshot);
	while (WideWAScanNext(wa, &cell))
		WideSorterAdd(r->sorter, &cell);
	WideWAScanEnd(wa);
	WideSorterDone(r->sorter);
	return r;
}

/*
 * WideReaderNext -- the next cell, with its value; valid until the next call.
 */
bool
WideReaderNext(WideReader *r, WideCell *cell)
{
	WideCell	in;
	bool		found = false;

	if (r->done)
		return false;
	MemoryContextReset(r->valcxt);

	while (!found)
	{
		if (WideSorterNext(r->sorter, &in))
			found = WideMergerPush(r->merger, &in, cell);
		else
		{
			found = WideMergerFinish(r->merger, cell);
			r->done = true;
			if (!found)
				return false;
		}
	}

	if (cell->value == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(r->valcxt);

		cell->value = WideBlobRead(r->rel, cell->blob);
		MemoryContextSwitchTo(old);
	}
	return true;
}

/*
 * WideReaderEnd -- release the reader.
 */
void
WideReaderEnd(WideReader *r)
{
	WideSorterEnd(r->sorter);
	MemoryContextDelete(r->valcxt);
	pfree(r->schema);
	pfree(r);
}
