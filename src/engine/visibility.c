/*-------------------------------------------------------------------------
 *
 * visibility.c
 *	  MVCC visibility of records.
 *
 * Records are never updated or deleted in place: a delete is a record of
 * its own.  So a record is visible to a snapshot exactly when its inserting
 * transaction is: it committed before the snapshot was taken, or it is the
 * snapshot's own transaction and inserted the record in an earlier command.
 * This is the xmin half of HeapTupleSatisfiesMVCC, with the same hint bits.
 *
 * Serializable transactions (SSI) take the heap's coarsest predicate lock:
 * every read locks the whole relation, every write checks for a conflict
 * with such locks, and a reader that meets a record it cannot see because
 * its writer is concurrent records the conflict with that writer.  That is
 * exact for full scans and over-cautious for point reads (a concurrent
 * write to another row fails a transaction the heap, locking tuples and
 * pages, might let through), never wrong.
 *
 * IDENTIFICATION
 *	  src/engine/visibility.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "utils/snapmgr.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/record.h"

/*
 * WideRecordVisible -- is the record visible to the snapshot?
 *
 * *hint is set to a hint flag the caller may store in the record
 * (WIDE_REC_XMIN_COMMITTED or WIDE_REC_XMIN_INVALID), or 0.  Only MVCC
 * snapshots and SnapshotAny are supported.
 */
bool
WideRecordVisible(const WideCell *cell, Snapshot snapshot, uint8 *hint)
{
	TransactionId xmin = cell->xmin;

	*hint = 0;
	if (snapshot->snapshot_type == SNAPSHOT_ANY)
		return true;
	Assert(snapshot->snapshot_type == SNAPSHOT_MVCC);

	if (!TransactionIdIsNormal(xmin))
		return xmin == FrozenTransactionId || xmin == BootstrapTransactionId;
	if (cell->flags & WIDE_REC_XMIN_INVALID)
		return false;

	if (!(cell->flags & WIDE_REC_XMIN_COMMITTED))
	{
		if (TransactionIdIsCurrentTransactionId(xmin))
			return cell->cmin < snapshot->curcid;
		if (XidInMVCCSnapshot(xmin, snapshot))
			return false;
		if (TransactionIdDidCommit(xmin))
		{
			*hint = WIDE_REC_XMIN_COMMITTED;
			return true;
		}
		/* not in the snapshot, so finished: aborted, or crashed */
		*hint = WIDE_REC_XMIN_INVALID;
		return false;
	}

	/* committed: visible unless after the snapshot */
	return !XidInMVCCSnapshot(xmin, snapshot);
}

/*
 * WideSerializableRead -- a read of the relation is about to start: under
 * SERIALIZABLE, take a predicate lock on the whole relation.
 */
void
WideSerializableRead(Relation rel, Snapshot snapshot)
{
	if (snapshot != NULL)
		PredicateLockRelation(rel, snapshot);
}

/*
 * WideSerializableUnseen -- a reader skipped a record its snapshot does not
 * see ("hint" as WideRecordVisible set it): if its writer is concurrent,
 * that is a read-write conflict with it.
 */
void
WideSerializableUnseen(Relation rel, const WideCell *cell, Snapshot snapshot,
					   uint8 hint)
{
	if (hint != WIDE_REC_XMIN_INVALID && TransactionIdIsNormal(cell->xmin) &&
		snapshot->snapshot_type == SNAPSHOT_MVCC)
		CheckForSerializableConflictOut(rel, cell->xmin, snapshot);
}

/*
 * WideSerializableWrite -- a write to the relation is about to be made:
 * under SERIALIZABLE, check for conflicts with readers' predicate locks.
 */
void
WideSerializableWrite(Relation rel)
{
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
}

/*
 * WideRecordCommitted -- did the record's inserting transaction commit?
 * (Not the current one, nor one in progress: it is over and committed.)
 */
bool
WideRecordCommitted(const WideCell *cell)
{
	TransactionId xmin = cell->xmin;

	if (!TransactionIdIsNormal(xmin))
		return true;
	if (cell->flags & WIDE_REC_XMIN_INVALID)
		return false;
	if (cell->flags & WIDE_REC_XMIN_COMMITTED)
		return true;
	return !TransactionIdIsCurrentTransactionId(xmin) &&
		!TransactionIdIsInProgress(xmin) &&
		TransactionIdDidCommit(xmin);
}

/*
 * WideRecordVisibleToAll -- is the record visible to every snapshot that
 * exists or can exist?  (Its inserting transaction committed and is older
 * than every running transaction's xmin.)
 */
bool
WideRecordVisibleToAll(Relation rel, const WideCell *cell)
{
	if (!TransactionIdIsNormal(cell->xmin))
		return true;
	return WideRecordCommitted(cell) &&
		GlobalVisCheckRemovableXid(rel, cell->xmin);
}

/*
 * WideSetHint -- store a hint flag in a record on a pinned, share-locked page.
 *
 * As SetHintBits does for the heap: a "committed" hint may only be stored
 * once the commit record is flushed, or an asynchronous commit lost in a
 * crash would leave the record looking committed.
 */
void
WideSetHint(Buffer buf, char *rec, TransactionId xmin, uint8 hint)
{
	if (hint == 0)
		return;
	if (hint == WIDE_REC_XMIN_COMMITTED && BufferIsPermanent(buf))
	{
		XLogRecPtr	commitLSN = TransactionIdGetCommitLSN(xmin);

		if (XLogNeedsFlush(commitLSN) &&
			BufferGetLSNAtomic(buf) < commitLSN)
			return;
	}
	WideRecordSetHint(rec, hint);
	MarkBufferDirtyHint(buf, true);
}
