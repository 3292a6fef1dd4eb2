/*-------------------------------------------------------------------------
 *
 * writearea.c
 *	  The write area: where every write lands first.
 *
 * The write area is a set of lanes; each lane is a chain of record pages
 * (WIDE_PAGE_WRITE), newest first, headed from the metapage.  A backend
 * appends to the head page of lane (MyBackendId % nlanes), so that sessions
 * writing at the same time mostly lock different pages; a transaction's
 * records go to the area as they are written, never buffered until commit.
 *
 * An append:
 *	1. share-locks the metapage and reads the lane head and the generation;
 *	2. exclusively locks the head page (metapage lock still held), checks it
 *	   belongs to the current generation and has room;
 *	3. takes sequence numbers (seq.c), releases the metapage;
 *	4. adds the records and WAL-logs the page (Generic WAL, a delta).
 * Taking the sequence numbers under the metapage lock is what lets a flush
 * (which bumps the generation under an exclusive metapage lock) cut the
 * write area so that every record it takes is older, in write order, than
 * every record it leaves.
 *
 * When the head page is full, the appender exclusively locks the metapage,
 * allocates a page, links it in front of the lane and fills it, all in one
 * WAL record.  A record too large for a page keeps its value (or its whole
 * body) in a blob; the blob's extent is allocated, its first page written
 * and the record appended in one WAL record too, so a blob never exists
 * without the record that owns it (blob.c).
 *
 * Page layout: a standard page of items, one record each (record.c); the
 * special space's owner is the generation the page belongs to.
 *
 * IDENTIFICATION
 *	  src/engine/writearea.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/transam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/writearea.h"
#include "engine/manifest.h"

StaticAssertDecl(WIDE_WA_MAX_INLINE * 4 < BLCKSZ, "four records fit a page");

/* set by am/publication.c (see writearea.h) */
WideWriteCheck wide_write_check = NULL;
WideChangeLog wide_change_log = NULL;

/* number of records from cells[0..n) that fit in "free" bytes of a page */
static int
records_that_fit_in(Size free, WideCell *cells, int n)
{
	int			k = 0;

	while (k < n)
	{
		Size		need = MAXALIGN(WideRecordSize(&cells[k]));

		/* PageGetFreeSpace counted one line pointer already */
		if (k > 0)
			need += sizeof(ItemIdData);
		if (need > free)
			break;
		free -= need;
		k++;
	}
	return k;
}

/* number of records from cells[0..n) that fit in the free space of page */
static int
records_that_fit(Page page, WideCell *cells, int n)
{
	return records_that_fit_in(PageGetFreeSpace(page), cells, n);
}

/* add cells[0..k) to a page image, numbering them from seq */
static void
add_records(Relation rel, Page page, WideCell *cells, int k, uint64 seq,
			char *scratch)
{
	int			i;

	for (i = 0; i < k; i++)
	{
		Size		size = WideRecordSize(&cells[i]);

		cells[i].seq = seq + i;
		memset(scratch, 0, MAXALIGN(size));
		WideRecordEncode(&cells[i], scratch);
		if (PageAddItem(page, (Item) scratch, size, InvalidOffsetNumber,
						false, false) == InvalidOffsetNumber)
			elog(ERROR, "could not add record to page of \"%s\"",
				 RelationGetRelationName(rel));
	}
}

static int
lane_of_backend(void)
{
	return (MyBackendId > 0 ? MyBackendId : MyProcPid) % WIDE_NLANES;
}

/*
 * Append as many of cells[0..n) as fit to the lane's head page.  Returns how
 * many were appended (0: the page is full, absent or stale).
 */
static int
append_to_head(Relation rel, int lane, WideCell *cells, int n, char *scratch,
			   uint32 *wa_pages)
{
	Buffer		metabuf;
	Buffer		buf;
	WideMetaPage meta;
	BlockNumber head;
	uint32		gen;
	Page		page;
	int			k;
	int			i;
	uint64		seq;
	GenericXLogState *state;
	XLogRecPtr	lsn;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
		return 0;
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	head = meta->lanes[lane].head;
	gen = meta->generation;
	*wa_pages = 0;
	for (i = 0; i < WIDE_NLANES; i++)
		*wa_pages += meta->lanes[i].npages;
	if (head == InvalidBlockNumber)
	{
		UnlockReleaseBuffer(metabuf);
		return 0;
	}

	buf = WideReadPage(rel, head, BUFFER_LOCK_EXCLUSIVE, WIDE_PAGE_WRITE);
	page = BufferGetPage(buf);
	k = (WidePageGetOpaque(page)->owner == gen) ?
		records_that_fit(page, cells, n) : 0;
	if (k == 0)
	{
		UnlockReleaseBuffer(buf);
		UnlockReleaseBuffer(metabuf);
		return 0;
	}
	seq = WideSeqNext(rel, k);
	UnlockReleaseBuffer(metabuf);

	state = GenericXLogStart(rel);
	page = GenericXLogRegisterBuffer(state, buf, 0);
	add_records(rel, page, cells, k, seq, scratch);
	lsn = GenericXLogFinish(state);
	WideSeqAfterWrite(rel, seq + k - 1, lsn);
	UnlockReleaseBuffer(buf);
	return k;
}

/*
 * With the metapage exclusively locked and registered: the lane's head page
 * registered in "state" if it belongs to the current generation and takes
 * "need" more records, else a new head page linked in front of the lane.
 */
static Page
head_page_for(Relation rel, GenericXLogState *state, WideMetaPage meta,
			  int lane, WideCell *cells, int need, Buffer *buf)
{
	Page		page;

	if (meta->lanes[lane].head != InvalidBlockNumber)
	{
		*buf = WideReadPage(rel, meta->lanes[lane].head, BUFFER_LOCK_EXCLUSIVE,
							WIDE_PAGE_WRITE);
		if (WidePageGetOpaque(BufferGetPage(*buf))->owner == meta->generation &&
			records_that_fit(BufferGetPage(*buf), cells, need) == need)
			return GenericXLogRegisterBuffer(state, *buf, 0);
		UnlockReleaseBuffer(*buf);
	}

	*buf = WideSpaceAllocOne(rel, meta);
	page = GenericXLogRegisterBuffer(state, *buf, GENERIC_XLOG_FULL_IMAGE);
	WideInitPage(page, WIDE_PAGE_WRITE, meta->generation);
	WidePageGetOpaque(page)->next = meta->lanes[lane].head;
	WideManifestLinkLanePage(meta, lane, BufferGetBlockNumber(*buf));
	return page;
}

/*
 * Start a new head page for the lane and append as many records as fit.
 */
static int
append_to_new_page(Relation rel, int lane, WideCell *cells, int n,
				   char *scratch)
{
	WideManifestTx tx;
	Buffer		buf;
	WideMetaPage meta;
	Page		page;
	int			k;
	uint64		seq;
	XLogRecPtr	lsn;

	meta = WideManifestBegin(rel, &tx);
	page = head_page_for(rel, tx.state, meta, lane, cells, 1, &buf);
	k = records_that_fit(page, cells, n);
	Assert(k > 0);
	seq = WideSeqNext(rel, k);
	add_records(rel, page, cells, k, seq, scratch);
	lsn = WideManifestLog(&tx);
	WideSeqAfterWrite(rel, seq + k - 1, lsn);

	UnlockReleaseBuffer(buf);
	WideManifestRelease(&tx);
	return k;
}

/*
 * Append one record whose value (or whole body) goes to a blob: allocate
 * the blob, write its first page and append the record in one WAL record,
 * then write the rest of the blob.
 */
static void
append_with_blob(Relation rel, int lane, WideCell *cell, const char *data,
				 uint32 len, char *scratch)
{
	WideManifestTx tx;
	Buffer		blobbuf;
	Buffer		buf;
	WideMetaPage meta;
	Page		page;
	uint64		seq;
	uint32		got;
	XLogRecPtr	lsn;

	meta = WideManifestBegin(rel, &tx);

	cell->blob.length = len;
	cell->blob.first = WideSpaceAlloc(rel, meta, WideBlobPages(len), true, &got);
	blobbuf = ReadBufferExtended(rel, MAIN_FORKNUM, cell->blob.first,
								 RBM_ZERO_AND_LOCK, NULL);
	WideBlobFillPage(GenericXLogRegisterBuffer(tx.state, blobbuf, GENERIC_XLOG_FULL_IMAGE),
					 cell->blob.first, 0, data, len);

	page = head_page_for(rel, tx.state, meta, lane, cell, 1, &buf);
	seq = WideSeqNext(rel, 1);
	add_records(rel, page, cell, 1, seq, scratch);
	lsn = WideManifestLog(&tx);
	WideSeqAfterWrite(rel, seq, lsn);
	UnlockReleaseBuffer(buf);
	UnlockReleaseBuffer(blobbuf);
	WideManifestRelease(&tx);

	WideBlobWriteRest(rel, cell->blob, 1, data);
}

/*
 * WideWriteAreaInsert -- append records; returns the number of pages the
 * write area now has (for deciding to flush).
 *
 * The caller has filled every field but seq (set here) and the blob
 * reference; xmin and cmin are the writing transaction's.  Records are
 * appended in array order, so a later element gets a larger sequence
 * number: the last write of a cell in a batch wins.  The caller wrote the
 * statement buffer of rel first (WidePendingWrite), for the write order.
 */
uint32
WideWriteAreaInsert(Relation rel, WideCell *cells, int ncells)
{
	WideCheckWrite(rel);
	WideLogChanges(rel, cells, ncells);
	return WideWriteAreaAppend(rel, cells, ncells);
}

/*
 * WideWriteAreaAppend -- WideWriteAreaInsert for cells already logged as
 * changes (a statement's pending cells, engine/pending.c).
 */
uint32
WideWriteAreaAppend(Relation rel, WideCell *cells, int ncells)
{
	int			lane = lane_of_backend();
	char	   *scratch = palloc(BLCKSZ);
	uint32		wa_pages = 0;
	int			done = 0;

	WideSerializableWrite(rel);
	WideCheckWrite(rel);
	while (done < ncells)
	{
		WideCell   *c = &cells[done];
		int			k;
		int			batch;

		CHECK_FOR_INTERRUPTS();

		/* too large for a page: value, or whole body, to a blob */
		c->flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
		if (WideRecordSize(c) > WIDE_WA_MAX_INLINE)
		{
			c->flags |= WIDE_REC_VALUE_BLOB;
			if (WideRecordSize(c) <= WIDE_WA_MAX_INLINE)
				append_with_blob(rel, lane, c, c->value, c->vallen, scratch);
			else
			{
				uint32		len;
				char	   *body = WideRecordEncodeBody(c, &len);

				c->flags = (c->flags & ~WIDE_REC_VALUE_BLOB) | WIDE_REC_BODY_BLOB;
				append_with_blob(rel, lane, c, body, len, scratch);
				pfree(body);
			}
			done++;
			continue;
		}

		/* a batch of small records: up to the next large one */
		for (k = done; k < ncells && WideRecordSize(&cells[k]) <= WIDE_WA_MAX_INLINE; k++)
			;
		batch = k - done;
		k = append_to_head(rel, lane, c, batch, scratch, &wa_pages);
		if (k == 0)
			k = append_to_new_page(rel, lane, c, batch, scratch);
		done += k;
	}
	pfree(scratch);
	return wa_pages;
}

/*
 * WideWriteAreaBound -- a sequence number for records that delete what was
 * written before them and are appended later (WideWriteAreaAppendAt): every
 * record numbered before this call has a number at most this one (equal
 * only for a write running at the same time, which the snapshot does not
 * see and a tombstone does not delete: rules.c deletes below its number),
 * every record numbered after it a number at least as large.  *gen is the
 * write area's generation when it was drawn.  0 if the table has no
 * metapage.
 *
 * Drawn under the metapage lock, like an append's numbers, so that a flush
 * either sealed its generation before (every sealed record is numbered
 * below) or changes the generation after (WideWriteAreaAppendAt then
 * refuses).  Numbers come from the WAL insert position (seq.c); if this
 * backend's last number ran ahead of it, the WAL is padded past the bound,
 * so that no backend draws a smaller number from now on.
 */
uint64
WideWriteAreaBound(Relation rel, uint32 *gen)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	uint64		bound;

	if (!BufferIsValid(metabuf))
		return 0;
	*gen = WidePageGetMeta(BufferGetPage(metabuf))->generation;
	bound = WideSeqNext(rel, 1);
	UnlockReleaseBuffer(metabuf);
	WideSeqAfterWrite(rel, bound - 1, InvalidXLogRecPtr);
	return bound;
}

/* new write-area pages WideWriteAreaAppendAt links per WAL record */
#define WIDE_APPEND_AT_PAGES	(MAX_GENERIC_XLOG_PAGES - 1)

/*
 * WideWriteAreaFitsAt -- can WideWriteAreaAppendAt take these records (no
 * blob: each inline)?
 */
bool
WideWriteAreaFitsAt(WideCell *cells, int n)
{
	for (int i = 0; i < n; i++)
		if (WideRecordSize(&cells[i]) > WIDE_WA_MAX_INLINE)
			return false;
	return true;
}

/*
 * WideWriteAreaAppendAt -- append records all numbered "seq", a number
 * drawn earlier by WideWriteAreaBound with generation gen, under one lock
 * of the metapage (or of the lane's head page, if they all fit it): the
 * row tombstones of a DELETE, numbered before it counted the
 * cells they delete (am/rangedel.c).  Returns false, having written
 * nothing, if the write area is no longer of generation gen (a flush
 * sealed it since: every record of a generation must be numbered after
 * every record of the ones sealed before it, flush.c) or one needs a blob
 * (WideWriteAreaFitsAt).  New pages are linked a WAL record per
 * WIDE_APPEND_AT_PAGES of them, the metapage locked throughout, so that
 * the generation cannot change half-way (a crash half-way leaves records
 * of a transaction that never committed).  *wa_pages is the number of pages the
 * write area has (for deciding to flush).
 *
 * Unlike WideWriteAreaAppend's, these records may be numbered below records
 * appended before them, even in their lane: nothing reads a lane in
 * number order (readers, flush and the backend copies sort what they read,
 * wacache.c), and what orders generations and runs holds, since the
 * generation is the one the number was drawn in.
 */
bool
WideWriteAreaAppendAt(Relation rel, WideCell *cells, int n, uint64 seq,
					  uint32 gen, uint32 *wa_pages)
{
	int			lane = lane_of_backend();
	char	   *scratch;
	Buffer		metabuf;
	Buffer		bufs[WIDE_APPEND_AT_PAGES];
	WideMetaPage meta;
	WideManifestTx tx;
	BlockNumber head;
	XLogRecPtr	lsn;
	int			npages = 0;
	int			done = 0;
	int			i;

	*wa_pages = 0;
	if (n <= 0)
		return true;
	if (!WideWriteAreaFitsAt(cells, n))
		return false;
	WideSerializableWrite(rel);
	WideCheckWrite(rel);
	for (i = 0; i < n; i++)
		cells[i].flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
	scratch = palloc(BLCKSZ);

	/* all in the lane's head page, as append_to_head */
	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
	{
		pfree(scratch);
		return false;
	}
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	if (meta->generation != gen)
	{
		UnlockReleaseBuffer(metabuf);
		pfree(scratch);
		return false;
	}
	for (i = 0; i < WIDE_NLANES; i++)
		*wa_pages += meta->lanes[i].npages;
	head = meta->lanes[lane].head;
	if (head != InvalidBlockNumber)
	{
		Buffer		buf = WideReadPage(rel, head, BUFFER_LOCK_EXCLUSIVE, WIDE_PAGE_WRITE);
		Page		page = BufferGetPage(buf);

		if (WidePageGetOpaque(page)->owner == gen &&
			records_that_fit(page, cells, n) == n)
		{
			GenericXLogState *state;

			/* a flush sealing gen now reads this page after us */
			UnlockReleaseBuffer(metabuf);
			state = GenericXLogStart(rel);
			page = GenericXLogRegisterBuffer(state, buf, 0);
			for (i = 0; i < n; i++)
				add_records(rel, page, &cells[i], 1, seq, scratch);
			lsn = GenericXLogFinish(state);
			WideSeqAfterWrite(rel, seq, lsn);
			UnlockReleaseBuffer(buf);
			pfree(scratch);
			return true;
		}
		UnlockReleaseBuffer(buf);
	}
	UnlockReleaseBuffer(metabuf);

	/* new head pages, linked with the metapage, locked throughout */
	meta = WideManifestBegin(rel, &tx);
	if (meta->generation != gen)
	{
		WideManifestAbort(&tx);
		pfree(scratch);
		return false;
	}
	for (;;)
	{
		Page		page;
		int			k;

		CHECK_FOR_INTERRUPTS();
		bufs[npages] = WideSpaceAllocOne(rel, meta);
		page = GenericXLogRegisterBuffer(tx.state, bufs[npages], GENERIC_XLOG_FULL_IMAGE);
		WideInitPage(page, WIDE_PAGE_WRITE, meta->generation);
		WidePageGetOpaque(page)->next = meta->lanes[lane].head;
		WideManifestLinkLanePage(meta, lane, BufferGetBlockNumber(bufs[npages]));
		npages++;
		k = records_that_fit(page, cells + done, n - done);
		if (k == 0)
			elog(ERROR, "row tombstone does not fit an empty page");	/* checked above */
		for (i = done; i < done + k; i++)
			add_records(rel, page, &cells[i], 1, seq, scratch);
		done += k;
		if (done < n && npages < WIDE_APPEND_AT_PAGES)
			continue;
		*wa_pages = 0;
		for (i = 0; i < WIDE_NLANES; i++)
			*wa_pages += meta->lanes[i].npages;
		lsn = WideManifestLog(&tx);
		WideSeqAfterWrite(rel, seq, lsn);
		for (i = 0; i < npages; i++)
			UnlockReleaseBuffer(bufs[i]);
		npages = 0;
		if (done == n)
			break;
		meta = WideManifestContinue(&tx);
	}
	WideManifestRelease(&tx);
	pfree(scratch);
	return true;
}

/*
 * WideWACountRecords -- the records in the write-area lanes given (head
 * pages and generations, as read from one metapage).  A lane that a
 * concurrent flush recycled meanwhile is counted up to where its pages
 * change hands; without concurrent flushes the count is exact.
 */
uint64
WideWACountRecords(Relation rel, const BlockNumber *heads, const uint32 *gens,
				   int nlanes)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	uint64		n = 0;
	int			i;

	for (i = 0; i < nlanes; i++)
	{
		BlockNumber blkno = heads[i];
		BlockNumber seen = 0;

		while (blkno != InvalidBlockNumber && blkno != WIDE_META_BLKNO &&
			   blkno < nblocks && seen++ < nblocks)
		{
			Buffer		buf;
			Page		page;
			WidePageOpaque op;

			CHECK_FOR_INTERRUPTS();
			buf = ReadBuffer(rel, blkno);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			op = WidePageGetOpaque(page);
			if (PageIsNew(page) || PageGetSpecialSize(page) != MAXALIGN(sizeof(WidePageOpaqueData)) ||
				op->page_type != WIDE_PAGE_WRITE || op->owner != gens[i])
			{
				UnlockReleaseBuffer(buf);
				break;
			}
			n += PageGetMaxOffsetNumber(page);
			blkno = op->next;
			UnlockReleaseBuffer(buf);
		}
	}
	return n;
}

/* ----------------------------------------------------------------
 *	Scanning
 * ----------------------------------------------------------------
 */

struct WideWAScan
{
	Relation	rel;
	Snapshot	snapshot;		/* NULL: every record (for a flush) */
	BlockNumber heads[2 * WIDE_NLANES];
	uint32		gens[2 * WIDE_NLANES];
	int			nlanes;
	int			lane;			/* lane being read */
	BlockNumber next;			/* next page to read in that lane */
	Buffer		buf;			/* page being read, pinned and share-locked */
	OffsetNumber off;
	OffsetNumber maxoff;
	MemoryContext cxt;			/* for blob bodies of the current page */
	BlockNumber nblocks;		/* the table's size, to bound the chains */
	TransactionId next_xid;		/* no record's xmin is at or after it */
	uint64		pages;			/* pages read so far */
};

/*
 * WideWAScanBegin -- read the records of the write area lanes given (head
 * pages and generations, as read from one metapage) visible to a snapshot,
 * or all of them if snapshot is NULL, in no particular order.
 */
WideWAScan *
WideWAScanBegin(Relation rel, Snapshot snapshot, const BlockNumber *heads,
				const uint32 *gens, int nlanes)
{
	WideWAScan *scan = palloc0(sizeof(WideWAScan));

	Assert(nlanes <= 2 * WIDE_NLANES);
	scan->rel = rel;
	scan->snapshot = snapshot;
	scan->buf = InvalidBuffer;
	memcpy(scan->heads, heads, sizeof(BlockNumber) * nlanes);
	memcpy(scan->gens, gens, sizeof(uint32) * nlanes);
	scan->nlanes = nlanes;
	scan->lane = 0;
	scan->next = nlanes > 0 ? heads[0] : InvalidBlockNumber;
	scan->cxt = AllocSetContextCreate(CurrentMemoryContext, "wide write-area scan",
									  ALLOCSET_DEFAULT_SIZES);
	/* (read at the first page: an empty write area needs no lseek) */
	scan->nblocks = 0;
	scan->next_xid = XidFromFullTransactionId(ReadNextFullTransactionId());
	return scan;
}

/* a damaged write area */
static void
wa_corrupt(WideWAScan *scan, BlockNumber blkno, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("wide table \"%s\" has a damaged write area at block %u: %s",
					RelationGetRelationName(scan->rel), blkno, what),
			 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
}

/* move to the next page of the write area; false at the end */
static bool
next_page(WideWAScan *scan)
{
	Page		page;

	if (BufferIsValid(scan->buf))
	{
		UnlockReleaseBuffer(scan->buf);
		scan->buf = InvalidBuffer;
	}
	MemoryContextReset(scan->cxt);

	while (scan->next == InvalidBlockNumber)
	{
		if (++scan->lane >= scan->nlanes)
			return false;
		scan->next = scan->heads[scan->lane];
	}

	CHECK_FOR_INTERRUPTS();
	/* a lane is a chain of distinct pages of the table: no loops */
	if (scan->next >= scan->nblocks)
		scan->nblocks = RelationGetNumberOfBlocks(scan->rel);
	if (scan->next >= scan->nblocks)
		wa_corrupt(scan, scan->next, "a lane links to a block beyond the end of the table");
	if (++scan->pages > scan->nblocks)
		wa_corrupt(scan, scan->next, "a lane's chain of pages loops");
	scan->buf = WideReadPage(scan->rel, scan->next, BUFFER_LOCK_SHARE,
							 WIDE_PAGE_WRITE);
	page = BufferGetPage(scan->buf);
	if (WidePageGetOpaque(page)->owner != scan->gens[scan->lane])
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" has a write-area page of another generation at block %u",
						RelationGetRelationName(scan->rel), scan->next),
				 errhint("Run wide.verify() on the table; on a hot standby, set hot_standby_feedback = on.")));
	scan->next = WidePageGetOpaque(page)->next;
	scan->off = FirstOffsetNumber;
	scan->maxoff = PageGetMaxOffsetNumber(page);
	return true;
}

/*
 * WideWAScanNext -- the next record (visible to the snapshot).  Its memory
 * stays valid until the next call.  Values kept in blobs are left unread
 * (value == NULL); bodies kept in blobs are read.
 */
bool
WideWAScanNext(WideWAScan *scan, WideCell *cell)
{
	for (;;)
	{
		Page		page;
		char	   *rec;
		Size		len;
		bool		bad;
		uint8		hint;

		if (!BufferIsValid(scan->buf) || scan->off > scan->maxoff)
		{
			if (!next_page(scan))
				return false;
			continue;
		}

		page = BufferGetPage(scan->buf);
		rec = (char *) WideRecordItem(page, scan->off, &len, &bad);
		scan->off++;
		if (rec == NULL && !bad)
			continue;
		if (rec == NULL || !WideRecordDecode(rec, len, cell))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("wide table \"%s\" has a malformed record at block %u, item %u",
							RelationGetRelationName(scan->rel),
							BufferGetBlockNumber(scan->buf), scan->off - 1),
					 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
		/* an xmin from the future would send the visibility check to clog */
		if (TransactionIdIsNormal(cell->xmin) &&
			!TransactionIdPrecedes(cell->xmin, scan->next_xid))
		{
			scan->next_xid = XidFromFullTransactionId(ReadNextFullTransactionId());
			if (!TransactionIdPrecedes(cell->xmin, scan->next_xid))
				wa_corrupt(scan, BufferGetBlockNumber(scan->buf),
						   "a record's transaction id is in the future");
		}

		if (scan->snapshot != NULL)
		{
			bool		visible = WideRecordVisible(cell, scan->snapshot, &hint);

			WideSetHint(scan->buf, rec, cell->xmin, hint);
			if (!visible)
			{
				WideSerializableUnseen(scan->rel, cell, scan->snapshot, hint);
				continue;
			}
			cell->flags |= hint;
		}

		if (cell->flags & WIDE_REC_BODY_BLOB)
		{
			MemoryContext old = MemoryContextSwitchTo(scan->cxt);

			WideRecordDecodeBody(cell, WideBlobRead(scan->rel, cell->blob));
			MemoryContextSwitchTo(old);
		}
		return true;
	}
}

/*
 * WideWAScanEnd -- release the scan.
 */
void
WideWAScanEnd(WideWAScan *scan)
{
	if (BufferIsValid(scan->buf))
		UnlockReleaseBuffer(scan->buf);
	MemoryContextDelete(scan->cxt);
	pfree(scan);
}
