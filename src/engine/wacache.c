/*-------------------------------------------------------------------------
 *
 * wacache.c
 *	  A backend's copy of the write areas of the tables it reads, kept
 *	  sorted by row key, for the readers that count what a tombstone
 *	  deletes (am/rangedel.c) and the row form's read states.
 *
 * Every DELETE by tombstones reads its key range once to count the cells
 * it deletes, and every statement of the row form takes a read state of
 * its ranges; each read the whole write area, whose records are in no
 * order.  A transaction of many single-row DELETEs appends a row tombstone
 * each, a row form's DELETE of readings a tombstone per reading, so the
 * n-th DELETE read the n-1 tombstones before it only to skip them (1,000
 * DELETEs: half a million record decodes, most of their time).
 *
 * Within a generation the write area only grows: a lane is a chain of
 * pages, newest first, and records are only ever appended to its head page
 * (writearea.c); no record is removed or moved until a flush seals the
 * generation.  So this backend keeps what it has read of the lanes --
 * each lane's newest page and how many of its items it read -- and the
 * records, decoded, sorted by row key; the next read reads only the
 * records appended since (the items past that count on that page and the
 * pages linked in front of it), and takes those of its range by binary
 * search (and from the few read since, one by one).
 *
 * The records are every record, visible or not: the caller checks
 * visibility.  The hints it learns are kept in the copy (they are for
 * good), not set on the pages.  A copy is of one storage of the table: its
 * relfilenode and its metapage's storage epoch, the key of the block
 * caches too (a metapage without an epoch, made before format 5: only
 * within a transaction); it is dropped when the lanes or a lane's
 * generation differ (a flush).  Past WACACHE_MAX_BYTES it keeps no
 * records, and its readers scan, until the next flush.  WACACHE_SLOTS
 * tables at once, the least recently used dropped for another.
 *
 * IDENTIFICATION
 *	  src/engine/wacache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/writearea.h"

/* the most a backend keeps (a flush at wide.flush_threshold comes first) */
#define WACACHE_MAX_BYTES	(8 * 1024 * 1024)

typedef struct WACacheLane
{
	uint32		gen;
	BlockNumber head;			/* the newest page read (Invalid: none) */
	OffsetNumber nitems;		/* its items read */
} WACacheLane;

typedef struct WACache
{
	bool		valid;
	bool		toobig;			/* past WACACHE_MAX_BYTES: scan instead */
	uint64		used;			/* when it last served (LRU) */
	RelFileNode node;
	uint64		epoch;
	LocalTransactionId lxid;
	int			nread;			/* lanes read (read[0..nread)) */
	WACacheLane read[2 * WIDE_NLANES];	/* what was read of each lane */
	MemoryContext cxt;			/* the records and the arrays */
	WideCell  **cells;			/* sorted by row key */
	int64		ncells;
	WideCell  **tail;			/* read since, in no order */
	int64		ntail;
	int64		maxtail;
	Size		bytes;
} WACache;

/* the tables a backend keeps copies of at once, least recently used out */
#define WACACHE_SLOTS	4

static WACache slots[WACACHE_SLOTS];
static WACache *cache;			/* the one being read */
static uint64 uses;
static bool busy;				/* a caller holds cells (WideWACacheRange) */
static LocalTransactionId busy_lxid;
static uint64 reads;			/* records read from pages, ever */

static void
reset(void)
{
	if (cache->cxt == NULL)
		cache->cxt = AllocSetContextCreate(TopMemoryContext, "wide write-area cache",
										  ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(cache->cxt);
	cache->valid = false;
	cache->toobig = false;
	cache->cells = cache->tail = NULL;
	cache->ncells = cache->ntail = cache->maxtail = 0;
	cache->bytes = 0;
}

static int
cell_cmp(const void *a, const void *b)
{
	const WideCell *x = *(const WideCell *const *) a;
	const WideCell *y = *(const WideCell *const *) b;

	return WideKeyCompare(x->key, x->keylen, y->key, y->keylen);
}

static void
corrupt(Relation rel, BlockNumber blkno, OffsetNumber off)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("wide table \"%s\" has a malformed record at block %u, item %u",
					RelationGetRelationName(rel), blkno, off),
			 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
}

/*
 * read items from+1 .. of page blkno of generation gen into *fresh; returns
 * the page's item count and its next page in *next
 */
static OffsetNumber
read_page(Relation rel, BlockNumber blkno, uint32 gen, OffsetNumber from,
		  BlockNumber *next)
{
	Buffer		buf = WideReadPage(rel, blkno, BUFFER_LOCK_SHARE, WIDE_PAGE_WRITE);
	Page		page = BufferGetPage(buf);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off;

	if (WidePageGetOpaque(page)->owner != gen)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" has a write-area page of another generation at block %u",
						RelationGetRelationName(rel), blkno),
				 errhint("Run wide.verify() on the table; on a hot standby, set hot_standby_feedback = on.")));
	*next = WidePageGetOpaque(page)->next;
	for (off = from + 1; off <= maxoff; off++)
	{
		Size		len;
		bool		bad;
		const char *rec = WideRecordItem(page, off, &len, &bad);
		char	   *copy;
		WideCell   *c;

		if (rec == NULL && !bad)
			continue;
		if (rec == NULL)
			corrupt(rel, blkno, off);
		if (cache->ntail == cache->maxtail)
		{
			cache->maxtail = Max(64, cache->maxtail * 2);
			cache->tail = cache->tail == NULL ?
				MemoryContextAllocHuge(cache->cxt, sizeof(WideCell *) * cache->maxtail) :
				repalloc_huge(cache->tail, sizeof(WideCell *) * cache->maxtail);
		}
		copy = MemoryContextAlloc(cache->cxt, len + sizeof(WideCell));
		c = (WideCell *) copy;
		copy += sizeof(WideCell);
		memcpy(copy, rec, len);
		if (!WideRecordDecode(copy, len, c))
			corrupt(rel, blkno, off);
		if (TransactionIdIsNormal(c->xmin) &&
			!TransactionIdPrecedes(c->xmin,
								   XidFromFullTransactionId(ReadNextFullTransactionId())))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("wide table \"%s\" has a damaged write area at block %u: %s",
							RelationGetRelationName(rel), blkno,
							"a record's transaction id is in the future"),
					 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
		if (c->flags & WIDE_REC_BODY_BLOB)
			WideRecordDecodeBody(c, WideBlobRead(rel, c->blob));	/* (in cache->cxt) */
		cache->bytes += len + sizeof(WideCell) + sizeof(WideCell *);
		cache->tail[cache->ntail++] = c;
	}
	UnlockReleaseBuffer(buf);
	return maxoff;
}

/*
 * bring the copy up to date with the lanes; false if it cannot be used.
 * The copy is left invalid until the end: an error (a cancel) half-way
 * through must not leave lanes marked read whose records were not kept.
 */
static bool
refresh(Relation rel, uint64 epoch, const BlockNumber *heads, const uint32 *gens,
		int nlanes)
{
	MemoryContext old;
	WACacheLane seen[2 * WIDE_NLANES];	/* cache->read, as this read goes */
	int64		before;
	int64		nread;
	BlockNumber nblocks = 0;	/* (read when a page is past it: no lseek otherwise) */
	int			k;

	Assert(nlanes <= 2 * WIDE_NLANES);
	if (!cache->valid || !RelFileNodeEquals(cache->node, rel->rd_node) ||
		cache->epoch != epoch ||
		(epoch == 0 && cache->lxid != MyProc->lxid) ||
		cache->nread != nlanes)
		goto restart;
	for (k = 0; k < nlanes; k++)
		if (cache->read[k].gen != gens[k])
			goto restart;
	if (cache->toobig)
		return false;
	goto read;

restart:
	reset();
	cache->node = rel->rd_node;
	cache->epoch = epoch;
	cache->lxid = MyProc->lxid;
	cache->nread = nlanes;
	for (k = 0; k < nlanes; k++)
	{
		cache->read[k].gen = gens[k];
		cache->read[k].head = InvalidBlockNumber;
		cache->read[k].nitems = 0;
	}

read:
	cache->valid = false;
	memcpy(seen, cache->read, sizeof(WACacheLane) * nlanes);
	before = cache->ntail;
	old = MemoryContextSwitchTo(cache->cxt);
	for (k = 0; k < nlanes; k++)
	{
		WACacheLane *lane = &seen[k];
		BlockNumber was = lane->head;
		OffsetNumber wasitems = lane->nitems;
		BlockNumber blkno = heads[k];
		BlockNumber pages = 0;
		bool		met = false;

		/* the pages linked in front of the one read last, then the rest of it */
		while (blkno != InvalidBlockNumber)
		{
			BlockNumber next;
			OffsetNumber n;

			CHECK_FOR_INTERRUPTS();
			met = (blkno == was);
			if (blkno >= nblocks)
				nblocks = RelationGetNumberOfBlocks(rel);
			if (blkno >= nblocks || ++pages > nblocks)
			{
				/* a chain we cannot follow: the plain scan will say so */
				MemoryContextSwitchTo(old);
				return false;
			}
			n = read_page(rel, blkno, gens[k], met ? wasitems : 0, &next);
			if (pages == 1)
			{
				/* the lane's newest page from now on */
				lane->head = blkno;
				lane->nitems = n;
			}
			if (met)
				break;
			blkno = next;
		}
		/* (a page read before is always in its lane until a flush) */
		if (was != InvalidBlockNumber && !met)
		{
			MemoryContextSwitchTo(old);
			return false;
		}
	}
	if (cache->bytes > WACACHE_MAX_BYTES)
	{
		/* not again until a flush: keep the key, drop the records */
		MemoryContextSwitchTo(old);
		MemoryContextReset(cache->cxt);
		cache->cells = cache->tail = NULL;
		cache->ncells = cache->ntail = cache->maxtail = 0;
		cache->bytes = 0;
		memcpy(cache->read, seen, sizeof(WACacheLane) * nlanes);
		cache->toobig = true;
		cache->valid = true;
		return false;
	}
	nread = cache->ntail - before;
	if (cache->ntail > 64 && cache->ntail > cache->ncells / 16)
	{
		/* merge the records read since, sorted, into the sorted ones */
		int64		n = cache->ncells + cache->ntail;
		WideCell  **merged = palloc_extended(sizeof(WideCell *) * n, MCXT_ALLOC_HUGE);
		int64		i = 0,
					j = 0,
					m = 0;

		qsort(cache->tail, cache->ntail, sizeof(WideCell *), cell_cmp);
		while (i < cache->ncells || j < cache->ntail)
		{
			if (j >= cache->ntail ||
				(i < cache->ncells && cell_cmp(&cache->cells[i], &cache->tail[j]) <= 0))
				merged[m++] = cache->cells[i++];
			else
				merged[m++] = cache->tail[j++];
		}
		if (cache->cells != NULL)
			pfree(cache->cells);
		cache->cells = merged;
		cache->ncells = n;
		cache->ntail = 0;
	}
	MemoryContextSwitchTo(old);
	memcpy(cache->read, seen, sizeof(WACacheLane) * nlanes);
	reads += nread;
	cache->valid = true;
	return true;
}

/*
 * WideWACacheRange -- the write-area records (every one, visible or not,
 * as a scan without a snapshot returns them) whose row key lies in range
 * (NULL: all), from this backend's copy of the lanes given (heads and
 * generations, as read from the metapage of storage epoch "epoch"), brought
 * up to date first: *cells is a palloc'd array of *n pointers to them, in
 * no particular order, valid until WideWACacheRelease.  Values kept in
 * blobs are left unread (value NULL), as by the scan; bodies kept in blobs
 * are read.  Returns false if the copy cannot serve (a caller still holds
 * cells, or it would grow past WACACHE_MAX_BYTES): the caller scans the
 * write area itself (WideWAScanBegin).
 */
bool
WideWACacheRange(Relation rel, uint64 epoch, const BlockNumber *heads,
				 const uint32 *gens, int nlanes, const WideKeyRange *range,
				 const WideCell ***cells, int64 *n)
{
	const WideCell **out;
	int64		lo,
				hi,
				first,
				m = 0;

	if (busy && busy_lxid == MyProc->lxid)
		return false;
	busy = false;
	/* the table's copy, or the least recently used one for it */
	cache = &slots[0];
	for (int i = 0; i < WACACHE_SLOTS; i++)
	{
		if (slots[i].valid && RelFileNodeEquals(slots[i].node, rel->rd_node))
		{
			cache = &slots[i];
			break;
		}
		if (!slots[i].valid || slots[i].used < cache->used)
			cache = &slots[i];
	}
	cache->used = ++uses;
	if (!refresh(rel, epoch, heads, gens, nlanes))
		return false;
	/* of the sorted ones, the first not before the range, then the first after */
	lo = 0;
	hi = cache->ncells;
	if (range != NULL)
		while (lo < hi)
		{
			int64		mid = lo + (hi - lo) / 2;

			if (WideRowBeforeRange(range, cache->cells[mid]->key, cache->cells[mid]->keylen))
				lo = mid + 1;
			else
				hi = mid;
		}
	first = lo;
	hi = cache->ncells;
	if (range != NULL)
		while (lo < hi)
		{
			int64		mid = lo + (hi - lo) / 2;

			if (!WideRowAfterRange(range, cache->cells[mid]->key, cache->cells[mid]->keylen))
				lo = mid + 1;
			else
				hi = mid;
		}
	out = palloc_extended(sizeof(WideCell *) * Max(lo - first + cache->ntail, 1),
						  MCXT_ALLOC_HUGE);
	for (int64 i = first; i < lo; i++)
		out[m++] = cache->cells[i];
	/* and those read since, one by one */
	for (int64 i = 0; i < cache->ntail; i++)
	{
		const WideCell *c = cache->tail[i];

		if (range == NULL ||
			(!WideRowBeforeRange(range, c->key, c->keylen) &&
			 !WideRowAfterRange(range, c->key, c->keylen)))
			out[m++] = c;
	}
	*cells = out;
	*n = m;
	busy = true;
	busy_lxid = MyProc->lxid;
	return true;
}

/*
 * WideWACacheRelease -- the caller of WideWACacheRange is done with its
 * cells.
 */
void
WideWACacheRelease(void)
{
	busy = false;
}

/*
 * WideWACacheReads -- records this backend has read from write-area pages
 * into its copy, ever (a test's measure of the copy: a read of a range
 * after n appends reads n records, not the whole write area).
 */
uint64
WideWACacheReads(void)
{
	return reads;
}
