/*-------------------------------------------------------------------------
 *
 * blob.c
 *	  Values (and, rarely, whole records) too large for a write-area page.
 *
 * A blob is a chain of WIDE_PAGE_BLOB pages linked by "next"; every page of
 * it has owner = the block number of its first page, and its bytes start at
 * PageGetContents and run to pd_lower.
 *
 * Reachability: the first page of every blob written into the write area is
 * pushed on the metapage's "blobs" list (through the "link" field) in the
 * same WAL record that creates it, and each further page is linked from its
 * predecessor in the WAL record that creates it.  So a crash or an error
 * half way through writing a blob never leaks pages: the flush that empties
 * the write area walks that list and keeps exactly the blobs that flushed
 * records still refer to.
 *
 * The pages of a blob being written are private to the writer until the
 * record that refers to it is appended; that is why holding the previous
 * page's lock while taking the metapage lock cannot deadlock.
 *
 * IDENTIFICATION
 *	  src/engine/blob.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "wide.h"

#define BLOB_PAGE_CAPACITY \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - \
	 MAXALIGN(sizeof(WidePageOpaqueData)))

/*
 * WideBlobWrite -- store len bytes out of line; return the reference.
 */
WideBlobRef
WideBlobWrite(Relation rel, const char *data, uint32 len)
{
	WideBlobRef ref;
	Buffer		prevbuf = InvalidBuffer;
	uint32		done = 0;

	ref.first = InvalidBlockNumber;
	ref.length = len;

	do
	{
		uint32		chunk = Min(len - done, BLOB_PAGE_CAPACITY);
		Buffer		metabuf;
		Buffer		buf;
		GenericXLogState *state;
		Page		metapage;
		Page		page;
		WideMetaPage meta;
		BlockNumber blkno;

		CHECK_FOR_INTERRUPTS();

		metabuf = WideReadMeta(rel, BUFFER_LOCK_EXCLUSIVE);
		buf = WideNewPage(rel);
		blkno = BufferGetBlockNumber(buf);
		if (ref.first == InvalidBlockNumber)
			ref.first = blkno;

		state = GenericXLogStart(rel);
		metapage = GenericXLogRegisterBuffer(state, metabuf, 0);
		page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
		WideInitPage(page, WIDE_PAGE_BLOB, ref.first);
		memcpy(PageGetContents(page), data + done, chunk);
		((PageHeader) page)->pd_lower += chunk;

		meta = WidePageGetMeta(metapage);
		meta->nblobpages++;
		if (BufferIsValid(prevbuf))
		{
			Page		prevpage = GenericXLogRegisterBuffer(state, prevbuf, 0);

			WidePageGetOpaque(prevpage)->next = blkno;
		}
		else
		{
			WidePageGetOpaque(page)->link = meta->blobs;
			meta->blobs = blkno;
		}
		GenericXLogFinish(state);

		UnlockReleaseBuffer(metabuf);
		if (BufferIsValid(prevbuf))
			UnlockReleaseBuffer(prevbuf);
		prevbuf = buf;
		done += chunk;
	} while (done < len);

	UnlockReleaseBuffer(prevbuf);
	return ref;
}

/*
 * WideBlobRead -- return a palloc'd copy of a blob's bytes.
 */
char *
WideBlobRead(Relation rel, WideBlobRef ref)
{
	char	   *out = palloc(Max(ref.length, 1));
	uint32		done = 0;
	BlockNumber blkno = ref.first;

	while (done < ref.length)
	{
		Buffer		buf;
		Page		page;
		uint32		have;

		CHECK_FOR_INTERRUPTS();
		buf = WideReadPage(rel, blkno, BUFFER_LOCK_SHARE, WIDE_PAGE_BLOB);
		page = BufferGetPage(buf);
		have = ((PageHeader) page)->pd_lower - MAXALIGN(SizeOfPageHeaderData);
		if (WidePageGetOpaque(page)->owner != ref.first ||
			have > BLOB_PAGE_CAPACITY || have > ref.length - done ||
			(have < ref.length - done &&
			 WidePageGetOpaque(page)->next == InvalidBlockNumber))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("wide table \"%s\" has a broken value chain at block %u",
							RelationGetRelationName(rel), blkno),
					 errdetail("The value of %u bytes starting at block %u could not be read.",
							   ref.length, ref.first),
					 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
		memcpy(out + done, PageGetContents(page), have);
		done += have;
		blkno = WidePageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
	}
	return out;
}
