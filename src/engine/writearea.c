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
 * WAL record.
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
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"

/* The largest record a write-area page takes in line. */
StaticAssertDecl(WIDE_WA_MAX_INLINE * 4 < BLCKSZ, "four records fit a page");

/*
 * Move the parts of a record that make it too big for a page into a blob.
 * The blob is written (and WAL-logged) before the record that refers to it.
 */
static void
spill_to_blob(Relation rel, WideCell *cell)
{
	Size		size;
	char	   *body;
	char	   *p;

	cell->flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
	if (WideRecordSize(cell) <= WIDE_WA_MAX_INLINE)
		return;

	/* first choice: only the value out of line */
	cell->flags |= WIDE_REC_VALUE_BLOB;
	if (WideRecordSize(cell) <= WIDE_WA_MAX_INLINE)
	{
		cell->blob = WideBlobWrite(rel, cell->value, cell->vallen);
		return;
	}

	/* a long key and qualifier: the whole body */
	cell->flags = (cell->flags & ~WIDE_REC_VALUE_BLOB) | WIDE_REC_BODY_BLOB;
	size = cell->keylen + cell->famlen + cell->quallen + cell->vallen;
	body = palloc(size);
	p = body;
	memcpy(p, cell->key, cell->keylen);
	p += cell->keylen;
	memcpy(p, cell->family, cell->famlen);
	p += cell->famlen;
	memcpy(p, cell->qual, cell->quallen);
	p += cell->quallen;
	if (cell->vallen > 0)
		memcpy(p, cell->value, cell->vallen);
	cell->blob = WideBlobWrite(rel, body, size);
	pfree(body);
}

/* number of records from cells[0..n) that fit in the free space of page */
static int
records_that_fit(Page page, WideCell *cells, int n)
{
	Size		free = PageGetFreeSpace(page);
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

/*
 * Append as many of cells[0..n) as fit to the lane's head page.  Returns how
 * many were appended (0: the page is full, absent or stale).
 */
static int
append_to_head(Relation rel, int lane, WideCell *cells, int n, char *scratch)
{
	Buffer		metabuf;
	Buffer		buf;
	WideMetaPage meta;
	BlockNumber head;
	uint32		gen;
	Page		page;
	int			k;
	uint64		seq;
	GenericXLogState *state;
	XLogRecPtr	lsn;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
		return 0;
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	head = meta->lanes[lane].head;
	gen = meta->generation;
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
 * Start a new head page for the lane and append as many records as fit.
 */
static int
append_to_new_page(Relation rel, int lane, WideCell *cells, int n,
				   char *scratch)
{
	Buffer		metabuf;
	Buffer		buf;
	WideMetaPage meta;
	Page		metapage;
	Page		page;
	int			k;
	uint64		seq;
	GenericXLogState *state;
	XLogRecPtr	lsn;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_EXCLUSIVE);
	meta = WidePageGetMeta(BufferGetPage(metabuf));

	/* somebody else may have started a new head page meanwhile */
	if (meta->lanes[lane].head != InvalidBlockNumber)
	{
		Buffer		headbuf;
		int			fits;

		headbuf = WideReadPage(rel, meta->lanes[lane].head,
							   BUFFER_LOCK_SHARE, WIDE_PAGE_WRITE);
		fits = (WidePageGetOpaque(BufferGetPage(headbuf))->owner ==
				meta->generation) ?
			records_that_fit(BufferGetPage(headbuf), cells, 1) : 0;
		UnlockReleaseBuffer(headbuf);
		if (fits > 0)
		{
			UnlockReleaseBuffer(metabuf);
			return 0;			/* retry on that page */
		}
	}

	buf = WideNewPage(rel);
	state = GenericXLogStart(rel);
	metapage = GenericXLogRegisterBuffer(state, metabuf, 0);
	page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
	meta = WidePageGetMeta(metapage);

	WideInitPage(page, WIDE_PAGE_WRITE, meta->generation);
	WidePageGetOpaque(page)->next = meta->lanes[lane].head;
	meta->lanes[lane].head = BufferGetBlockNumber(buf);
	meta->lanes[lane].npages++;

	k = records_that_fit(page, cells, n);
	Assert(k > 0);
	seq = WideSeqNext(rel, k);
	add_records(rel, page, cells, k, seq, scratch);
	lsn = GenericXLogFinish(state);
	WideSeqAfterWrite(rel, seq + k - 1, lsn);

	UnlockReleaseBuffer(buf);
	UnlockReleaseBuffer(metabuf);
	return k;
}

/*
 * WideWriteAreaInsert -- append records.
 *
 * The caller has filled every field but seq (set here) and the blob
 * reference; xmin and cmin are the writing transaction's.  Records are
 * appended in array order, so a later element gets a larger sequence
 * number: the last write of a cell in a batch wins.
 */
void
WideWriteAreaInsert(Relation rel, WideCell *cells, int ncells)
{
	int			lane = (MyBackendId > 0 ? MyBackendId : MyProcPid) % WIDE_NLANES;
	char	   *scratch;
	int			done = 0;
	int			i;

	for (i = 0; i < ncells; i++)
		spill_to_blob(rel, &cells[i]);

	scratch = palloc(BLCKSZ);
	while (done < ncells)
	{
		int			k;

		CHECK_FOR_INTERRUPTS();
		k = append_to_head(rel, lane, cells + done, ncells - done, scratch);
		if (k == 0)
			k = append_to_new_page(rel, lane, cells + done, ncells - done,
								   scratch);
		done += k;
	}
	pfree(scratch);
}

/* ----------------------------------------------------------------
 *	Scanning
 * ----------------------------------------------------------------
 */

struct WideWAScan
{
	Relation	rel;
	Snapshot	snapshot;
	uint32		generation;
	BlockNumber heads[WIDE_NLANES];
	int			lane;			/* lane being read */
	BlockNumber next;			/* next page to read in that lane */
	Buffer		buf;			/* page being read, pinned and share-locked */
	OffsetNumber off;
	OffsetNumber maxoff;
	MemoryContext cxt;			/* for blob bodies of the current page */
};

/*
 * WideWAScanBegin -- start reading the records of the write area visible to
 * a snapshot (in no particular order).
 */
WideWAScan *
WideWAScanBegin(Relation rel, Snapshot snapshot)
{
	WideWAScan *scan = palloc0(sizeof(WideWAScan));
	Buffer		metabuf;
	int			i;

	scan->rel = rel;
	scan->snapshot = snapshot;
	scan->buf = InvalidBuffer;
	scan->lane = 0;
	scan->next = InvalidBlockNumber;
	for (i = 0; i < WIDE_NLANES; i++)
		scan->heads[i] = InvalidBlockNumber;
	scan->cxt = AllocSetContextCreate(CurrentMemoryContext, "wide write-area scan",
									  ALLOCSET_DEFAULT_SIZES);

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (BufferIsValid(metabuf))
	{
		WideMetaPage meta = WidePageGetMeta(BufferGetPage(metabuf));

		scan->generation = meta->generation;
		for (i = 0; i < WIDE_NLANES; i++)
			scan->heads[i] = meta->lanes[i].head;
		UnlockReleaseBuffer(metabuf);
	}
	scan->next = scan->heads[0];
	return scan;
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
		if (++scan->lane >= WIDE_NLANES)
			return false;
		scan->next = scan->heads[scan->lane];
	}

	scan->buf = WideReadPage(scan->rel, scan->next, BUFFER_LOCK_SHARE,
							 WIDE_PAGE_WRITE);
	page = BufferGetPage(scan->buf);
	if (WidePageGetOpaque(page)->owner != scan->generation)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" has a write-area page of another generation at block %u",
						RelationGetRelationName(scan->rel), scan->next),
				 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
	scan->next = WidePageGetOpaque(page)->next;
	scan->off = FirstOffsetNumber;
	scan->maxoff = PageGetMaxOffsetNumber(page);
	return true;
}

/*
 * WideWAScanNext -- the next visible record.  Its memory stays valid until
 * the next call.  Values kept in blobs are left unread (value == NULL).
 */
bool
WideWAScanNext(WideWAScan *scan, WideCell *cell)
{
	for (;;)
	{
		Page		page;
		ItemId		itemid;
		char	   *rec;
		uint8		hint;

		if (!BufferIsValid(scan->buf) || scan->off > scan->maxoff)
		{
			if (!next_page(scan))
				return false;
			continue;
		}

		page = BufferGetPage(scan->buf);
		itemid = PageGetItemId(page, scan->off);
		scan->off++;
		if (!ItemIdIsNormal(itemid))
			continue;
		rec = (char *) PageGetItem(page, itemid);
		if (!WideRecordDecode(rec, ItemIdGetLength(itemid), cell))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("wide table \"%s\" has a malformed record at block %u, item %u",
							RelationGetRelationName(scan->rel),
							BufferGetBlockNumber(scan->buf), scan->off - 1),
					 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));

		if (!WideRecordVisible(cell, scan->snapshot, &hint))
		{
			WideSetHint(scan->buf, rec, cell->xmin, hint);
			continue;
		}
		WideSetHint(scan->buf, rec, cell->xmin, hint);

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
