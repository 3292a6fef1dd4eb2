/*-------------------------------------------------------------------------
 *
 * sweep.c
 *	  Finding pages nothing refers to, and queueing them for reuse.
 *
 * Pages can be orphaned: a flush or compaction that failed or crashed
 * before publishing its segment; freed pages forgotten because the free
 * queue was full.  The sweep (run by VACUUM) marks every page something
 * refers to -- the metapage, the write-area lanes (current and sealed) and
 * their records' blobs, every run's segment, bulk-loaded runs of the write
 * area included (header pages, extents, owned blobs), and every page in the
 * free queue -- and queues the rest.
 *
 * Concurrency (manifest.c, M2 and M3).  The caller holds ShareUpdate-
 * ExclusiveLock, so no flush or compaction changes the runs or owns
 * unregistered pages meanwhile.  A bulk load (COPY) owns pages before it
 * registers its run, and holds the allocation guard in share mode while it
 * does: the sweep takes the guard exclusively, and is skipped if a bulk load
 * holds it (it runs again at the next VACUUM).  Appenders may take pages
 * from the free queue or extend the relation; the first phase (lanes and
 * the whole queue, SEGMENT entries' header chains and extents included)
 * runs under the exclusive metapage lock, so that no page moves from the
 * queue into a lane unseen and no queue entry is used up before it is
 * read.  A page never reached is not in the queue, not reachable and owned
 * by no live writer, so nobody can allocate it while the sweep runs; it is
 * queued stamped with the current transaction id, which covers any old
 * snapshot that might still read it.
 *
 * IDENTIFICATION
 *	  src/engine/sweep.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/manifest.h"

typedef struct Marks
{
	BlockNumber nblocks;
	uint8	   *bits;
} Marks;

static void
mark(Marks *m, BlockNumber blk, uint32 n)
{
	uint32		i;

	for (i = 0; i < n; i++)
		if (blk + i < m->nblocks)
			m->bits[(blk + i) / 8] |= 1 << ((blk + i) % 8);
}

static bool
marked(const Marks *m, BlockNumber blk)
{
	return (m->bits[blk / 8] & (1 << (blk % 8))) != 0;
}

/* mark a write-area lane and the blobs of its records */
static void
mark_lane(Relation rel, Marks *m, BlockNumber head)
{
	BlockNumber blk = head;

	while (blk != InvalidBlockNumber && blk < m->nblocks && !marked(m, blk))
	{
		Buffer		buf = WideReadPage(rel, blk, BUFFER_LOCK_SHARE, WIDE_PAGE_WRITE);
		Page		page = BufferGetPage(buf);
		OffsetNumber off;

		mark(m, blk, 1);
		for (off = FirstOffsetNumber; off <= PageGetMaxOffsetNumber(page); off++)
		{
			ItemId		id = PageGetItemId(page, off);
			WideCell	c;

			if (ItemIdIsNormal(id) &&
				WideRecordDecode(PageGetItem(page, id), ItemIdGetLength(id), &c) &&
				(c.flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB)))
				mark(m, c.blob.first, WideBlobPages(c.blob.length));
		}
		blk = WidePageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
	}
}

/* mark the pages on a free chain */
static void
mark_chain(Relation rel, Marks *m, BlockNumber head, uint32 npages)
{
	BlockNumber blk = head;
	uint32		i;

	for (i = 0; i < npages && blk != InvalidBlockNumber && blk < m->nblocks; i++)
	{
		Buffer		buf = ReadBuffer(rel, blk);

		mark(m, blk, 1);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		blk = WidePageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}
}

/* mark a segment: header pages, extents, and (if owned) its blobs */
static void
mark_segment(Relation rel, Marks *m, BlockNumber root, bool blobs)
{
	WideSegment *seg = WideSegmentLoad(rel, root, false);
	int			i;

	for (i = 0; i < seg->nroots; i++)
		mark(m, seg->roots[i], 1);
	for (i = 0; i < seg->nextents; i++)
		mark(m, seg->extents[i].start, seg->extents[i].npages);
	if (blobs)
		for (i = 0; i < seg->nblobs; i++)
			mark(m, seg->blobs[i].first, WideBlobPages(seg->blobs[i].length));
	WideSegmentFree(seg);
}

/*
 * WideMarkReachable -- set, in bits (one per block, nblocks of them), every
 * page the metapage refers to: itself, the write-area lanes (current and
 * sealed) with their records' blobs, and every run's and write-area run's
 * segment with its blobs.  Not the free queue.  REQUIRES: the metapage
 * locked, and the runs stable (ShareUpdateExclusiveLock).
 */
void
WideMarkReachable(Relation rel, const WideMetaPageData *meta,
				  BlockNumber nblocks, uint8 *bits)
{
	Marks		m;
	uint32		i;

	m.nblocks = nblocks;
	m.bits = bits;
	mark(&m, WIDE_META_BLKNO, 1);
	for (i = 0; i < WIDE_NLANES; i++)
	{
		mark_lane(rel, &m, meta->lanes[i].head);
		if (meta->flushing != 0)
			mark_lane(rel, &m, meta->flush_lanes[i].head);
	}
	for (i = 0; i < meta->nruns; i++)
	{
		CHECK_FOR_INTERRUPTS();
		mark_segment(rel, &m, meta->runs[i].root, true);
	}
	for (i = 0; i < meta->nwaruns; i++)
		mark_segment(rel, &m, meta->waruns[i].root, true);
}

/*
 * WideSweep -- queue every page nothing refers to; returns how many, or -1
 * if a bulk load holding unregistered pages made it skip the table.
 * REQUIRES: ShareUpdateExclusiveLock on the relation.
 */
int64
WideSweep(Relation rel)
{
	Marks		m;
	Buffer		metabuf;
	WideMetaPage meta;
	WideRunData runs[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	int			nruns;
	WideManifestTx tx;
	int64		freed = 0;
	BlockNumber blk;
	int			i;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
		return 0;
	UnlockReleaseBuffer(metabuf);
	Assert(CheckRelationLockedByMe(rel, ShareUpdateExclusiveLock, true));
	if (!WideManifestTrySweepLock(rel))
		return -1;

	/* phase 1, under the metapage lock: lanes and the free queue */
	metabuf = WideReadMeta(rel, BUFFER_LOCK_EXCLUSIVE);
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	m.nblocks = RelationGetNumberOfBlocks(rel);
	m.bits = palloc0(m.nblocks / 8 + 1);
	mark(&m, WIDE_META_BLKNO, 1);
	for (i = 0; i < WIDE_NLANES; i++)
	{
		mark_lane(rel, &m, meta->lanes[i].head);
		if (meta->flushing != 0)
			mark_lane(rel, &m, meta->flush_lanes[i].head);
	}
	for (i = 0; i < (int) meta->nfree; i++)
	{
		WideFreeEntry *e = &meta->free[i];

		if (e->kind == WIDE_FREE_EXTENT)
			mark(&m, e->start, e->npages);
		else if (e->kind == WIDE_FREE_CHAIN)
			mark_chain(rel, &m, e->start, e->npages);
		else
			mark_segment(rel, &m, e->start, false);
	}
	nruns = meta->nruns;
	memcpy(runs, meta->runs, sizeof(WideRunData) * nruns);
	memcpy(runs + nruns, meta->waruns, sizeof(WideRunData) * meta->nwaruns);
	nruns += meta->nwaruns;
	UnlockReleaseBuffer(metabuf);

	/* phase 2: segments (they do not change under our lock) */
	for (i = 0; i < nruns; i++)
	{
		CHECK_FOR_INTERRUPTS();
		mark_segment(rel, &m, runs[i].root, true);
	}

	/* phase 3: queue what nobody refers to */
	meta = WideManifestBegin(rel, &tx);
	for (blk = 1; blk < m.nblocks;)
	{
		BlockNumber end = blk;

		if (marked(&m, blk))
		{
			blk++;
			continue;
		}
		while (end < m.nblocks && !marked(&m, end))
			end++;
		if (!WideSpaceFree(meta, WIDE_FREE_EXTENT, blk, end - blk))
			break;
		freed += end - blk;
		blk = end;
	}
	(void) WideManifestCommit(&tx);
	WideManifestSweepUnlock(rel);
	pfree(m.bits);
	return freed;
}
