/*-------------------------------------------------------------------------
 *
 * tracking.c
 *	  The row keys written to a tablet while a split or move copies it.
 *
 * wide.split_tablet and wide.move_tablet copy a tablet while writes go on,
 * then catch up, under a lock that stops writes, with what was written
 * since.  So that the catch-up reads only those rows, the operation marks
 * the tablet (on its node, for a remote one) with a CHECK constraint named
 * WIDE_TRACK_CONSTRAINT before the copy's snapshot, and every write path
 * (wide_change_log, engine/writearea.h) records the row keys that a write
 * to a marked table touches into wide.tablet_op_changes (tablet oid,
 * row_key bytea, xid xid8: the writing transaction, so that the catch-up
 * can take the rows a snapshot does not see), in the writing
 * transaction: a write that commits is recorded, one that aborts is not.  The operation drops the marker and
 * the rows when it ends.  Any write path calls the hook before it takes a
 * buffer lock, so a heap insert here is safe.
 *
 * The marker lives in the relcache (the table's CHECK constraints), so an
 * unmarked table costs one look at its constraints per write; a writer
 * that opened the table before the marker was added waits for its lock
 * (ALTER TABLE takes ACCESS EXCLUSIVE) and then sees it.
 *
 * IDENTIFICATION
 *	  src/am/tracking.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/xid8.h"

#include "engine/cell.h"
#include "engine/writearea.h"
#include "am/am.h"

#define WIDE_TRACK_CONSTRAINT "wide_tablet_tracked"

static WideChangeLog prev_change_log = NULL;

/* is the table marked by a split or move? */
static bool
tracked(Relation rel)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;
	int			i;

	if (constr == NULL || constr->num_check == 0)
		return false;
	for (i = 0; i < constr->num_check; i++)
		if (strcmp(constr->check[i].ccname, WIDE_TRACK_CONSTRAINT) == 0)
			return true;
	return false;
}

/*
 * WideTabletTracked -- is the table marked by a split or move (so that its
 * writes must reach wide_change_log cell by cell)?
 */
bool
WideTabletTracked(Relation rel)
{
	return tracked(rel);
}

/* wide_change_log: record the row keys of a marked table's write */
static void
track_changes(Relation rel, const WideCell *cells, int n)
{
	Oid			nsp;
	Oid			logid;
	Relation	log;
	const WideCell *last = NULL;
	int			i;

	if (prev_change_log)
		prev_change_log(rel, cells, n);
	if (n <= 0 || !tracked(rel))
		return;
	nsp = get_namespace_oid("wide", true);
	logid = OidIsValid(nsp) ? get_relname_relid("tablet_op_changes", nsp) : InvalidOid;
	if (!OidIsValid(logid))
		return;
	log = table_open(logid, RowExclusiveLock);
	for (i = 0; i < n; i++)
	{
		const WideCell *c = &cells[i];
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		bytea	   *key;
		HeapTuple	tup;

		/* a batch writes a row's cells together: one entry for them */
		if (last && last->keylen == c->keylen &&
			memcmp(last->key, c->key, c->keylen) == 0)
			continue;
		last = c;
		key = palloc(VARHDRSZ + c->keylen);
		SET_VARSIZE(key, VARHDRSZ + c->keylen);
		memcpy(VARDATA(key), c->key, c->keylen);
		values[0] = ObjectIdGetDatum(RelationGetRelid(rel));
		values[1] = PointerGetDatum(key);
		values[2] = FullTransactionIdGetDatum(GetTopFullTransactionId());
		tup = heap_form_tuple(RelationGetDescr(log), values, nulls);
		simple_heap_insert(log, tup);
		heap_freetuple(tup);
		pfree(key);
	}
	table_close(log, RowExclusiveLock);
}

/*
 * WideInstallTracking -- called from _PG_init, after the other users of
 * wide_change_log (am/cdc.c), which it calls first.
 */
void
WideInstallTracking(void)
{
	prev_change_log = wide_change_log;
	wide_change_log = track_changes;
}
