/*-------------------------------------------------------------------------
 *
 * truncate.c
 *	  Giving free pages at the end of the table back to the file system.
 *
 * VACUUM (am/vacuum.c) ends like the heap's lazy_truncate_heap: if enough
 * of the table is free, it takes the AccessExclusiveLock without waiting
 * (and gives up if it cannot), and while it holds it:
 *
 * 1. Under the exclusive metapage lock, every page the metapage refers to
 *	  is marked (as the sweep does, sweep.c), and the free queue is rebuilt
 *	  from the others -- queued or orphaned: under the lock no writer owns
 *	  an unregistered page -- as EXTENT entries in block order, without the
 *	  free pages at the end of the table; the new metapage is one Generic
 *	  WAL record (manifest.c, M6).
 * 2. The table is truncated after its last page that is not free
 *	  (RelationTruncate: XLOG_SMGR_TRUNCATE, flushed before the file
 *	  shrinks, replayed by a standby; buffers of the cut pages are dropped).
 *
 * Why every queued page may go, and be reused at once, stamps regardless
 * (manifest.c, M7): the stamp rule (M4) protects scans that read the
 * metapage while the page was still part of the table.  Every scan holds
 * at least AccessShareLock from before its metapage read to its end (the
 * end of its transaction for a cursor), so once VACUUM holds the
 * AccessExclusiveLock no such scan is left on the primary, and every later
 * one reads a metapage that refers to none of the queued pages.  On a
 * standby the lock is replayed from the WAL (it is logged when taken), so
 * a standby query on the table is waited for or cancelled before the
 * truncation is replayed, exactly as for the heap.  The rebuilt entries
 * are therefore stamped FirstNormalFullTransactionId: reusable by anyone,
 * and their reuse conflicts with no standby snapshot.
 *
 * Placing new pages low (space.c hands out the lowest reusable extent
 * first) lets the end of the table empty by itself; where live data still
 * sits in the tail, WideRelocateTail moves the runs found there into free
 * pages lower down, so that the next truncation can cut them: a run whose
 * blobs are all below the tail is copied page by page under a new segment
 * id (WideMoveRunBySegid: nothing decoded, so moving the run a compaction
 * just wrote at the end costs a copy, not a second rewrite); one with blobs
 * in the tail is rewritten, as a compaction of it alone, which copies those
 * blobs along (segment writer, WideSegmentWriterMoveBlobs) and frees the
 * old ones.
 *
 * Crashes: after step 1 and before step 2 the cut pages are neither
 * referred to nor queued, i.e. orphans (M2 d): the next VACUUM's sweep
 * queues them again and its truncation cuts them.  A crash during a
 * relocation is a crash during a compaction (the old run stays, the new
 * pages are orphans).  test/t/100_space_truncate.pl kills the server at
 * both points (wide.debug_crash).
 *
 * IDENTIFICATION
 *	  src/engine/truncate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>
#include <unistd.h>

#include "access/xlog.h"
#include "catalog/storage.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/maintenance.h"
#include "engine/manifest.h"

/* wide.debug_crash: where to kill this backend (tests only) */
char	   *wide_debug_crash = NULL;

/*
 * WideDebugCrash -- if wide.debug_crash names this point, make the WAL
 * written so far durable and kill this backend with SIGKILL, which makes
 * the postmaster restart the server and run crash recovery.
 */
void
WideDebugCrash(const char *where)
{
	if (wide_debug_crash == NULL || strcmp(wide_debug_crash, where) != 0)
		return;
	XLogFlush(GetXLogInsertRecPtr());
	elog(LOG, "wide.debug_crash: killing this backend at \"%s\"", where);
	(void) kill(getpid(), SIGKILL);
	pg_usleep(10 * 1000000L);	/* not reached */
}

typedef struct FreeMarks
{
	BlockNumber nblocks;
	uint8	   *bits;
} FreeMarks;

static void
mark(FreeMarks *m, BlockNumber blk, uint32 n)
{
	uint32		i;

	for (i = 0; i < n; i++)
		if (blk + i < m->nblocks)
			m->bits[(blk + i) / 8] |= 1 << ((blk + i) % 8);
}

static bool
marked(const FreeMarks *m, BlockNumber blk)
{
	return (m->bits[blk / 8] & (1 << (blk % 8))) != 0;
}

/*
 * Mark every page of the free queue.  REQUIRES: the metapage locked (so
 * the queue does not change under us).
 */
static void
mark_queue(Relation rel, const WideMetaPageData *meta, FreeMarks *m)
{
	uint32		i;

	m->nblocks = RelationGetNumberOfBlocks(rel);
	m->bits = palloc0(m->nblocks / 8 + 1);
	for (i = 0; i < meta->nfree; i++)
	{
		const WideFreeEntry *e = &meta->free[i];

		CHECK_FOR_INTERRUPTS();
		if (e->kind == WIDE_FREE_EXTENT)
			mark(m, e->start, e->npages);
		else if (e->kind == WIDE_FREE_CHAIN)
		{
			BlockNumber blk = e->start;
			uint32		k;

			for (k = 0; k < e->npages && blk != InvalidBlockNumber &&
				 blk != WIDE_META_BLKNO && blk < m->nblocks && !marked(m, blk); k++)
			{
				Buffer		buf = ReadBuffer(rel, blk);

				mark(m, blk, 1);
				LockBuffer(buf, BUFFER_LOCK_SHARE);
				blk = WidePageGetOpaque(BufferGetPage(buf))->next;
				UnlockReleaseBuffer(buf);
			}
		}
		else
		{
			/* SEGMENT: header pages, and the extents not yet handed out */
			WideSegment *seg = WideSegmentLoad(rel, e->start, false);
			int			k;

			for (k = 0; k < seg->nroots; k++)
				mark(m, seg->roots[k], 1);
			for (k = e->npages; k < seg->nextents; k++)
			{
				uint32		skip = (k == (int) e->npages) ? e->pad : 0;

				if (skip < seg->extents[k].npages)
					mark(m, seg->extents[k].start + skip,
						 seg->extents[k].npages - skip);
			}
			WideSegmentFree(seg);
		}
	}
}

/*
 * Mark every page nothing refers to, queued or orphaned.  REQUIRES: the
 * metapage locked.  Only under the AccessExclusiveLock is every such page
 * free: otherwise a bulk load's unregistered pages are among them.
 */
static void
mark_unreachable(Relation rel, const WideMetaPageData *meta, FreeMarks *m)
{
	Size		len;
	Size		i;

	m->nblocks = RelationGetNumberOfBlocks(rel);
	len = m->nblocks / 8 + 1;
	m->bits = palloc0(len);
	WideMarkReachable(rel, meta, m->nblocks, m->bits);
	for (i = 0; i < len; i++)
		m->bits[i] = ~m->bits[i];
}

/* the first block of the free tail: every block from there on is free */
static BlockNumber
free_tail(const FreeMarks *m)
{
	BlockNumber end = m->nblocks;

	while (end > WIDE_META_BLKNO + 1 && marked(m, end - 1))
		end--;
	return end;
}

/* marked pages below "end" */
static BlockNumber
count_marked(const FreeMarks *m, BlockNumber end)
{
	BlockNumber n = 0;
	BlockNumber b;

	for (b = WIDE_META_BLKNO + 1; b < end; b++)
		if (marked(m, b))
			n++;
	return n;
}

/*
 * WideFreeSurvey -- how much of the table nothing refers to (queued or
 * orphaned), and how much of that at its end.  Takes the metapage share
 * lock.  REQUIRES: ShareUpdateExclusiveLock.
 */
void
WideFreeSurvey(Relation rel, WideFreeSurveyData *s)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	FreeMarks	m;

	memset(s, 0, sizeof(*s));
	if (!BufferIsValid(metabuf))
		return;
	mark_unreachable(rel, WidePageGetMeta(BufferGetPage(metabuf)), &m);
	UnlockReleaseBuffer(metabuf);
	s->nblocks = m.nblocks;
	s->tail_start = free_tail(&m);
	s->free_pages = count_marked(&m, m.nblocks);
	pfree(m.bits);
}

/*
 * WideTruncateTail -- rebuild the free queue in block order, all of it
 * reusable, from every page nothing refers to (the queue's and orphans
 * alike: under the lock nobody owns an unregistered page), without those at
 * the end, and cut these off the file.  Returns the number of pages
 * removed.
 * REQUIRES: AccessExclusiveLock on the relation (see the file header).
 */
BlockNumber
WideTruncateTail(Relation rel)
{
	WideManifestTx tx;
	WideMetaPage meta;
	FreeMarks	m;
	BlockNumber end;
	BlockNumber blk;
	uint32		n = 0;

	Assert(CheckRelationLockedByMe(rel, AccessExclusiveLock, false));
	{
		Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);

		if (!BufferIsValid(metabuf))
			return 0;
		UnlockReleaseBuffer(metabuf);
	}

	meta = WideManifestBegin(rel, &tx);
	mark_unreachable(rel, meta, &m);
	end = free_tail(&m);

	/* the queue again: the free pages below "end", lowest first */
	WideSpaceResetQueue(meta);
	for (blk = WIDE_META_BLKNO + 1; blk < end && n < WIDE_FREE_SLOTS;)
	{
		BlockNumber stop = blk;

		if (!marked(&m, blk))
		{
			blk++;
			continue;
		}
		while (stop < end && marked(&m, stop))
			stop++;
		(void) WideSpaceQueueReusable(meta, blk, stop - blk);
		n++;
		blk = stop;
	}
	/* more extents than slots: the highest stay orphans for the next time */
	(void) WideManifestCommit(&tx);
	pfree(m.bits);

	if (end >= m.nblocks)
		return 0;
	WideDebugCrash("truncate");
	RelationTruncate(rel, end);
	return m.nblocks - end;
}

/* where a run's pages are */
typedef struct RunPlace
{
	int			index;
	BlockNumber last;			/* highest page (tail blobs included) */
	uint64		stream_pages;	/* header pages and extents */
	BlockNumber stream_last;	/* highest of these */
	int			nblobs;			/* blobs in the tail, highest first */
	WideBlobRef *blobs;
} RunPlace;

static int
cmp_last_desc(const void *a, const void *b)
{
	BlockNumber x = ((const RunPlace *) a)->last;
	BlockNumber y = ((const RunPlace *) b)->last;

	return (x > y) ? -1 : (x < y) ? 1 : 0;
}

static int
cmp_blob_desc(const void *a, const void *b)
{
	BlockNumber x = ((const WideBlobRef *) a)->first;
	BlockNumber y = ((const WideBlobRef *) b)->first;

	return (x > y) ? -1 : (x < y) ? 1 : 0;
}

/* find where run i's pages are; blobs count only from block "used" on */
static void
place_run(Relation rel, const WideRunData *run, int i, BlockNumber used,
		  RunPlace *p)
{
	WideSegment *seg = WideSegmentLoad(rel, run->root, false);
	int			k;

	p->index = i;
	p->stream_last = 0;
	p->stream_pages = seg->nroots;
	for (k = 0; k < seg->nroots; k++)
		p->stream_last = Max(p->stream_last, seg->roots[k]);
	for (k = 0; k < seg->nextents; k++)
	{
		p->stream_last = Max(p->stream_last,
							 seg->extents[k].start + seg->extents[k].npages - 1);
		p->stream_pages += seg->extents[k].npages;
	}
	p->last = p->stream_last;
	p->blobs = palloc(sizeof(WideBlobRef) * Max(seg->nblobs, 1));
	p->nblobs = 0;
	for (k = 0; k < seg->nblobs; k++)
		if (seg->blobs[k].first >= used)
		{
			p->blobs[p->nblobs++] = seg->blobs[k];
			p->last = Max(p->last, seg->blobs[k].first +
						  WideBlobPages(seg->blobs[k].length) - 1);
		}
	qsort(p->blobs, p->nblobs, sizeof(WideBlobRef), cmp_blob_desc);
	WideSegmentFree(seg);
}

/*
 * WideRelocateTail -- rewrite, each as a compaction of that run alone, the
 * runs that lie in the tail of the table, with as many of their blobs in
 * the tail as the free pages below them can take; returns how many runs
 * were rewritten.  Best used right after WideTruncateTail, which made
 * every queued page reusable and put the queue in block order, so that the
 * rewritten runs land low.  REQUIRES: ShareUpdateExclusiveLock.
 */
int
WideRelocateTail(Relation rel)
{
	Buffer		metabuf;
	WideMetaPage meta;
	WideRunData runs[WIDE_MAX_RUNS];
	RunPlace	place[WIDE_MAX_RUNS];
	FreeMarks	m;
	int			nruns;
	int			i;
	int			done = 0;
	BlockNumber used;
	uint64		taken = 0;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
		return 0;
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	/* the table packed tight would end at "used" */
	mark_unreachable(rel, meta, &m);
	used = m.nblocks - count_marked(&m, m.nblocks);
	pfree(m.bits);
	/* what allocation can hand out */
	mark_queue(rel, meta, &m);
	nruns = meta->nruns;
	memcpy(runs, meta->runs, sizeof(WideRunData) * nruns);
	UnlockReleaseBuffer(metabuf);

	for (i = 0; i < nruns; i++)
		place_run(rel, &runs[i], i, used, &place[i]);
	qsort(place, nruns, sizeof(RunPlace), cmp_last_desc);

	/*
	 * Highest first.  What is rewritten -- the stream and header pages, and
	 * the highest of the tail blobs -- must fit in the free pages below the
	 * run's highest page that earlier relocations have not taken:
	 * allocation is lowest first, so the copy then ends lower than the run
	 * did.  Runs are found again by segment id: a compaction of one run
	 * that leaves nothing drops it from the list.
	 */
	for (i = 0; i < nruns; i++)
	{
		RunPlace   *p = &place[i];
		uint64		below = count_marked(&m, p->last);
		uint64		need = p->stream_pages;
		BlockNumber move_from = InvalidBlockNumber;
		int			k;

		if (p->last < used)
			break;
		if (below < taken + need)
			continue;
		for (k = 0; k < p->nblobs; k++)
		{
			uint32		n = WideBlobPages(p->blobs[k].length);

			if (below < taken + need + n)
				break;
			need += n;
			move_from = p->blobs[k].first;
		}
		/* nothing of it would come down */
		if (move_from == InvalidBlockNumber && p->stream_last < used)
			continue;
		CHECK_FOR_INTERRUPTS();
		/* no blob to bring down: a copy of its pages; else a rewrite */
		if (move_from == InvalidBlockNumber ?
			!WideMoveRunBySegid(rel, runs[p->index].segid, "relocate") :
			!WideCompactRunBySegid(rel, runs[p->index].segid, move_from,
								   "relocate"))
			continue;
		taken += need;
		done++;
	}
	pfree(m.bits);
	return done;
}
