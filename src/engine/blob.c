/*-------------------------------------------------------------------------
 *
 * blob.c
 *	  Values (and, rarely, whole records) too large to keep in line.
 *
 * A blob is one extent of contiguous WIDE_PAGE_BLOB pages: page i holds
 * bytes [i * WIDE_PAGE_CAPACITY, ...) of the blob, from PageGetContents to
 * pd_lower, and has owner = the block number of the first page.  A blob is
 * referred to by (first, length); its page count follows from its length.
 *
 * Ownership.  A blob belongs to the one record that refers to it.  A
 * write-area record and the first page of its blob are created in the same
 * WAL record (writearea.c), so a blob never exists without its record; the
 * flush that moves the record frees the blob if the record is dropped, or
 * hands it to the segment.  Blobs written by a flush or compaction belong to
 * the segment being written; if that segment is never published, VACUUM's
 * sweep reclaims them.
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

#include "engine/format.h"
#include "engine/storage.h"
#include "engine/manifest.h"

/*
 * WideBlobPages -- pages of a blob of len bytes.
 */
uint32
WideBlobPages(uint32 len)
{
	return Max((len + WIDE_PAGE_CAPACITY - 1) / WIDE_PAGE_CAPACITY, 1);
}

/*
 * WideBlobFillPage -- format page i of the blob starting at "first".
 */
void
WideBlobFillPage(Page page, BlockNumber first, uint32 i, const char *data,
				 uint32 len)
{
	uint32		off = i * WIDE_PAGE_CAPACITY;
	uint32		n = Min(len - off, WIDE_PAGE_CAPACITY);

	WideInitPage(page, WIDE_PAGE_BLOB, first);
	memcpy(PageGetContents(page), data + off, n);
	((PageHeader) page)->pd_lower += n;
}

/*
 * WideBlobWriteRest -- write pages from..n-1 of a blob whose extent is
 * allocated (page 0 is written by whoever linked the blob).
 */
void
WideBlobWriteRest(Relation rel, WideBlobRef ref, uint32 from, const char *data)
{
	uint32		n = WideBlobPages(ref.length);
	char	   *image = palloc(BLCKSZ);
	uint32		i;

	for (i = from; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		memset(image, 0, BLCKSZ);
		WideBlobFillPage((Page) image, ref.first, i, data, ref.length);
		WideWritePage(rel, ref.first + i, (Page) image, NULL);
	}
	pfree(image);
}

/*
 * WideBlobWrite -- store len bytes in a new blob owned by a segment being
 * written (see the file header for why it cannot leak for good).
 */
WideBlobRef
WideBlobWrite(Relation rel, const char *data, uint32 len)
{
	WideManifestTx tx;
	WideMetaPage meta;
	WideBlobRef ref;
	uint32		got;

	/* unregistered until its segment is published (manifest.c, M2) */
	Assert(WideManifestMayAllocate(rel));
	meta = WideManifestBegin(rel, &tx);

	ref.length = len;
	ref.first = WideSpaceAlloc(rel, meta, WideBlobPages(len), true, &got);
	(void) WideManifestCommit(&tx);
	WideBlobWriteRest(rel, ref, 0, data);
	return ref;
}

/* a blob that cannot be read: the table is damaged */
static void
blob_corrupt(Relation rel, WideBlobRef ref, BlockNumber blkno, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("wide table \"%s\" has a broken value at block %u",
					RelationGetRelationName(rel), blkno),
			 errdetail("The value of %u bytes starting at block %u could not be read: %s.",
					   ref.length, ref.first, why),
			 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
}

/*
 * WideBlobCheckRef -- fail unless a reference (as read from disk) names
 * pages within the table: checked before anything is allocated for it.
 */
void
WideBlobCheckRef(Relation rel, WideBlobRef ref)
{
	uint64		end = (uint64) ref.first + WideBlobPages(ref.length);

	if (ref.first == WIDE_META_BLKNO || ref.first == InvalidBlockNumber ||
		end > RelationGetNumberOfBlocks(rel))
		blob_corrupt(rel, ref, ref.first, "it lies outside the table");
}

/*
 * WideBlobRead -- return a palloc'd copy of a blob's bytes.  Every page
 * must be a blob page of this blob holding exactly its share of the bytes.
 */
char *
WideBlobRead(Relation rel, WideBlobRef ref)
{
	char	   *out;
	uint32		n = WideBlobPages(ref.length);
	uint32		i;

	WideBlobCheckRef(rel, ref);
	out = palloc(Max(ref.length, 1));
	for (i = 0; i < n; i++)
	{
		Buffer		buf;
		Page		page;
		uint32		have;
		uint32		want = Min(ref.length - i * WIDE_PAGE_CAPACITY, WIDE_PAGE_CAPACITY);

		CHECK_FOR_INTERRUPTS();
		buf = WideReadPage(rel, ref.first + i, BUFFER_LOCK_SHARE, WIDE_PAGE_BLOB);
		page = BufferGetPage(buf);
		have = ((PageHeader) page)->pd_lower - MAXALIGN(SizeOfPageHeaderData);
		if (WidePageGetOpaque(page)->owner != ref.first || have != want)
		{
			bool		other = WidePageGetOpaque(page)->owner != ref.first;

			UnlockReleaseBuffer(buf);
			blob_corrupt(rel, ref, ref.first + i,
						 other ? "a page belongs to another value" :
						 "a page holds the wrong number of bytes");
		}
		memcpy(out + i * WIDE_PAGE_CAPACITY, PageGetContents(page), have);
		UnlockReleaseBuffer(buf);
	}
	return out;
}

static int
cmp_blob(const void *a, const void *b)
{
	BlockNumber x = ((const WideBlobRef *) a)->first;
	BlockNumber y = ((const WideBlobRef *) b)->first;

	return (x < y) ? -1 : (x > y) ? 1 : 0;
}

/*
 * WideFreeBlobsNotKept -- queue every blob of "had" that is not in "kept".
 */
void
WideFreeBlobsNotKept(WideMetaPage meta, WideBlobRef *had, int nhad,
					 const WideBlobRef *kept, int nkept)
{
	WideBlobRef *k = palloc(sizeof(WideBlobRef) * Max(nkept, 1));
	int			i;

	if (nkept > 0)				/* (kept is NULL when none is: a dropped run) */
		memcpy(k, kept, sizeof(WideBlobRef) * nkept);
	qsort(k, nkept, sizeof(WideBlobRef), cmp_blob);
	for (i = 0; i < nhad; i++)
	{
		if (bsearch(&had[i], k, nkept, sizeof(WideBlobRef), cmp_blob) == NULL)
			(void) WideSpaceFree(meta, WIDE_FREE_EXTENT, had[i].first,
								 WideBlobPages(had[i].length));
	}
	pfree(k);
}
