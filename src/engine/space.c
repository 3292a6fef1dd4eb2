/*-------------------------------------------------------------------------
 *
 * space.c
 *	  Allocating and reclaiming pages.
 *
 * Pages freed by a flush or a compaction may still be read by a scan that
 * started before: such a scan read the metapage when the freed pages were
 * current.  So a freed page is not reused at once; it goes on a queue in
 * the metapage stamped with the next transaction id, and is reused only
 * when that id is older than every snapshot's xmin (GlobalVisCheckRemovable-
 * FullXid) -- nbtree's page-recycling rule.  A scan holds a snapshot from
 * before its metapage read, so it can never see its pages reused.
 *
 * Queue entries, oldest stamp first:
 *	  EXTENT   pages start .. start+npages-1
 *	  CHAIN    npages pages linked by their "next" field (a write-area lane)
 *	  SEGMENT  a whole segment, identified by its first header page; its
 *	           extents are handed out in turn, then the entry becomes the
 *	           CHAIN of its header pages (never the other way round: the
 *	           entry is read from its header pages)
 *
 * Allocation hands out the lowest reusable EXTENT first, then SEGMENT and
 * CHAIN entries oldest first, and extends the table only when nothing
 * reusable serves; VACUUM rebuilds the queue in block order and truncates
 * the free end of the table (truncate.c).
 *
 * When the queue is full, further freed pages are forgotten; VACUUM's sweep
 * (sweep.c) finds every page that nothing refers to and queues it again.
 * The sweep is also what reclaims pages allocated by a flush or compaction
 * that failed or crashed before publishing its result.
 *
 * All of this runs with the metapage exclusively locked and registered in
 * the caller's Generic WAL record, so that the queue changes atomically with
 * whatever the caller does with the pages.
 *
 * IDENTIFICATION
 *	  src/engine/space.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "engine/format.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/manifest.h"

/* remove entry i of the queue */
static void
queue_remove(WideMetaPage meta, uint32 i)
{
	memmove(&meta->free[i], &meta->free[i + 1],
			sizeof(WideFreeEntry) * (meta->nfree - i - 1));
	meta->nfree--;
}

/* append an entry to the queue; false if it is full */
static bool
queue_append(WideMetaPage meta, uint32 kind, BlockNumber start, uint32 npages,
			 FullTransactionId stamp)
{
	WideFreeEntry *e;

	if (meta->nfree >= WIDE_FREE_SLOTS)
		return false;
	e = &meta->free[meta->nfree++];
	e->kind = kind;
	e->start = start;
	e->npages = npages;
	e->pad = 0;
	e->stamp = stamp;
	return true;
}

/*
 * WideSpaceFree -- put pages on the queue, stamped now.
 *
 * Returns false if the queue was full and the pages were forgotten (the
 * sweep will find them).
 */
bool
WideSpaceFree(WideMetaPage meta, uint32 kind, BlockNumber start,
			  uint32 npages)
{
	FullTransactionId stamp = ReadNextFullTransactionId();
	WideFreeEntry *last;

	if (start == InvalidBlockNumber || (kind != WIDE_FREE_SEGMENT && npages == 0))
		return true;

	/* extend the previous extent when adjacent and stamped the same */
	last = meta->nfree > 0 ? &meta->free[meta->nfree - 1] : NULL;
	if (last && kind == WIDE_FREE_EXTENT && last->kind == WIDE_FREE_EXTENT &&
		FullTransactionIdEquals(last->stamp, stamp) &&
		last->start + last->npages == start)
	{
		last->npages += npages;
		return true;
	}
	return queue_append(meta, kind, start, npages, stamp);
}

/*
 * WideSpaceTrimTail -- forget the queued extents at the end of a table of
 * nblocks pages that nobody else can see yet (a rewrite's new storage);
 * returns the block where the table may end.
 */
BlockNumber
WideSpaceTrimTail(WideMetaPage meta, BlockNumber nblocks)
{
	BlockNumber keep = nblocks;
	bool		found = true;

	while (found)
	{
		found = false;
		for (uint32 i = 0; i < meta->nfree; i++)
		{
			WideFreeEntry *e = &meta->free[i];

			if (e->kind == WIDE_FREE_EXTENT && e->npages > 0 &&
				e->start + e->npages == keep)
			{
				keep = e->start;
				queue_remove(meta, i);
				found = true;
				break;
			}
		}
	}
	return keep;
}

/*
 * WideSpaceResetQueue -- empty the queue, to rebuild it from what is
 * unreachable (truncate.c, under the AccessExclusiveLock of M7).
 */
void
WideSpaceResetQueue(WideMetaPage meta)
{
	memset(meta->free, 0, sizeof(meta->free));
	meta->nfree = 0;
}

/*
 * WideSpaceQueueReusable -- queue an extent reusable at once (stamped
 * FirstNormalFullTransactionId: no reader can reach it, M7); false if the
 * queue is full.
 */
bool
WideSpaceQueueReusable(WideMetaPage meta, BlockNumber start, uint32 npages)
{
	return npages > 0 &&
		queue_append(meta, WIDE_FREE_EXTENT, start, npages,
					 FirstNormalFullTransactionId);
}

/*
 * Take up to "want" pages straight from the SEGMENT entry at index i: its
 * extents in order.  "npages" counts the extents used up, "pad" the pages
 * taken from the current one.  Returns InvalidBlockNumber if the current
 * extent cannot serve a contiguous request.  (The segment's blobs are not
 * freed here: a compaction may have handed them to its output, and frees
 * the others itself.)
 *
 * The header pages are what the entry is read from, so none of them may be
 * reused while the entry is a SEGMENT entry: once the extents are used up,
 * the entry becomes a CHAIN of the header pages (they are linked by their
 * "next" field in order, root first), which take_from() hands out one by
 * one, reading each page's link before the page is reused.
 */
static BlockNumber
take_from_segment(Relation rel, WideMetaPage meta, uint32 i, uint32 want,
				  bool contiguous, uint32 *got)
{
	WideFreeEntry *e = &meta->free[i];
	WideSegment *seg = WideSegmentLoad(rel, e->start, false);
	BlockNumber result = InvalidBlockNumber;

	*got = 0;
	while (e->npages < (uint32) seg->nextents)
	{
		uint32		k = e->npages;
		BlockNumber start = seg->extents[k].start;
		uint32		len = seg->extents[k].npages;

		if (e->pad >= len)
		{
			e->npages++;
			e->pad = 0;
			continue;
		}
		if (contiguous && len - e->pad < want)
			break;
		*got = Min(want, len - e->pad);
		result = start + e->pad;
		e->pad += *got;
		if (e->pad >= len)
		{
			e->npages++;
			e->pad = 0;
		}
		break;
	}
	if (e->npages >= (uint32) seg->nextents)
	{
		/* extents used up: the header chain remains, root first */
		Assert(seg->nroots > 0 && seg->roots[0] == e->start);
		e->kind = WIDE_FREE_CHAIN;
		e->npages = seg->nroots;
		e->pad = 0;
	}
	WideSegmentFree(seg);
	return result;
}

/*
 * Fail unless the pages a queue entry hands out next lie within the table.
 * (A damaged entry would otherwise zero a buffer far past the end, which
 * the checkpointer cannot write and recovery extends the table to.)
 */
static void
check_entry(Relation rel, const WideFreeEntry *e, uint32 i)
{
	uint64		end = (uint64) e->start +
		(e->kind == WIDE_FREE_CHAIN ? 1 : e->npages);
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

	if (end > nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" has an invalid metapage",
						RelationGetRelationName(rel)),
				 errdetail("Block %u: free queue entry %u refers to block %llu beyond the end of the table (%u blocks).",
						   WIDE_META_BLKNO, i + 1,
						   (unsigned long long) (end - 1), nblocks),
				 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
}

/*
 * Take up to "want" pages from the queue entry i (reusable, not SEGMENT).
 */
static BlockNumber
take_from(Relation rel, WideMetaPage meta, uint32 i, uint32 want,
		  bool contiguous, uint32 *got)
{
	WideFreeEntry *e = &meta->free[i];
	BlockNumber start = e->start;

	check_entry(rel, e, i);
	if (e->kind == WIDE_FREE_CHAIN)
	{
		Buffer		buf = ReadBuffer(rel, start);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		e->start = WidePageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
		e->npages--;
		*got = 1;
	}
	else
	{
		if (contiguous && e->npages < want)
			return InvalidBlockNumber;
		*got = Min(want, e->npages);
		e->start += *got;
		e->npages -= *got;
	}
	if (e->npages == 0 || e->start == InvalidBlockNumber)
		queue_remove(meta, i);
	return start;
}

/*
 * WAL-log the last page of an extension (empty), so that crash recovery and
 * a standby extend the table at least as far as the primary did.  Without
 * it, replaying a truncation (truncate.c) leaves the table only as long as
 * the pages later records touch, and pages queued without ever being
 * written (the unused end of a segment's last extent, the sweep's orphans)
 * would be queued past the end of the table.
 */
static void
log_last_page(Relation rel, Buffer buf)
{
	if (!RelationNeedsWAL(rel))
		return;
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	START_CRIT_SECTION();
	PageInit(BufferGetPage(buf), BLCKSZ, sizeof(WidePageOpaqueData));
	MarkBufferDirty(buf);
	log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
}

/*
 * WideSpaceAlloc -- allocate up to "want" pages (exactly "want" contiguous
 * pages if "contiguous"); returns the first and sets *got.
 *
 * REQUIRES: the metapage is exclusively locked and "meta" is its image in
 * the caller's Generic WAL record.  The pages' contents are undefined: the
 * caller initialises each page (ReadBufferExtended with RBM_ZERO_AND_LOCK)
 * and WAL-logs it as a full image.  A caller that does not register the
 * pages in the same WAL record holds ShareUpdateExclusiveLock or the
 * allocation guard (manifest.c, M2).  Reusing queued pages first logs a
 * hot-standby conflict with their stamp (M4).
 */
BlockNumber
WideSpaceAlloc(Relation rel, WideMetaPage meta, uint32 want, bool contiguous,
			   uint32 *got)
{
	GlobalVisState *vistest = GlobalVisTestFor(rel);
	uint32		i = 0;
	BlockNumber first;
	uint32		n;

	Assert(want > 0);

	/*
	 * Low first: of the reusable EXTENT entries, the one that starts lowest
	 * (and fits), so that the end of the table empties and VACUUM can
	 * truncate it (truncate.c).
	 */
	{
		int			best = -1;

		for (i = 0; i < meta->nfree; i++)
		{
			WideFreeEntry *e = &meta->free[i];

			if (!GlobalVisTestIsRemovableFullXid(vistest, e->stamp))
				break;
			if (e->kind == WIDE_FREE_EXTENT &&
				(!contiguous || e->npages >= want) &&
				(best < 0 || e->start < meta->free[best].start))
				best = i;
		}
		if (best >= 0)
		{
			FullTransactionId stamp = meta->free[best].stamp;

			first = take_from(rel, meta, best, want, contiguous, got);
			Assert(first != InvalidBlockNumber);
			WideManifestLogReuse(rel, first, stamp);
			return first;
		}
		i = 0;
	}

	/* otherwise the oldest SEGMENT or CHAIN entry that serves */
	while (i < meta->nfree)
	{
		WideFreeEntry *e = &meta->free[i];
		BlockNumber start;

		/* the queue is in stamp order: the first unreusable ends the search */
		if (!GlobalVisTestIsRemovableFullXid(vistest, e->stamp))
			break;
		if (e->kind == WIDE_FREE_SEGMENT)
		{
			FullTransactionId stamp = e->stamp;

			start = take_from_segment(rel, meta, i, want, contiguous, got);
			if (start != InvalidBlockNumber)
			{
				WideManifestLogReuse(rel, start, stamp);
				return start;
			}
			/* nothing that fits here: unless it became a chain, skip it */
			if (e->kind == WIDE_FREE_SEGMENT)
				i++;
			continue;
		}
		if (contiguous && e->kind == WIDE_FREE_CHAIN && want > 1)
		{
			i++;
			continue;
		}
		{
			FullTransactionId stamp = e->stamp;

			start = take_from(rel, meta, i, want, contiguous, got);
			if (start != InvalidBlockNumber)
			{
				WideManifestLogReuse(rel, start, stamp);
				return start;
			}
		}
		i++;
	}

	/* nothing reusable: extend the relation */
	LockRelationForExtension(rel, ExclusiveLock);
	first = InvalidBlockNumber;
	for (n = 0; n < want; n++)
	{
		Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW,
											 RBM_NORMAL, NULL);

		if (n == 0)
			first = BufferGetBlockNumber(buf);
		Assert(BufferGetBlockNumber(buf) == first + n);
		if (n == want - 1)
			log_last_page(rel, buf);
		ReleaseBuffer(buf);
	}
	UnlockRelationForExtension(rel, ExclusiveLock);
	*got = want;
	return first;
}

/*
 * WideSpaceAllocOne -- allocate one page and return it pinned and
 * exclusively locked, zeroed.  Same requirements as WideSpaceAlloc.
 */
Buffer
WideSpaceAllocOne(Relation rel, WideMetaPage meta)
{
	uint32		got;
	BlockNumber blkno = WideSpaceAlloc(rel, meta, 1, false, &got);

	return ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_ZERO_AND_LOCK,
							  NULL);
}
