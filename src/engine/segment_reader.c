/*-------------------------------------------------------------------------
 *
 * segment_reader.c
 *	  Reading a segment: opening it, seeking by row key, iterating.
 *
 * Opening a segment reads its header pages (extents, owned blobs) and its
 * root index; both are cached (blockcache.c).  An iterator seeks with the
 * root to the first index block whose last row is >= the start key, with
 * that index block to the first data block, and with a binary search to the
 * first record; it stops at the end key.  A point read (one row) first asks
 * the index block's row filter, and decodes no data block when the row is
 * absent.  Only the blocks that can hold the range are read; memory is one
 * index block and one data block at a time.
 *
 * Data blocks go through the backend's block cache and the shared one,
 * except in long scans: once an iterator has read a quarter of a cache's
 * size in blocks (and at least WIDE_SCAN_CACHED_BLOCKS blocks), it still
 * uses blocks it finds cached but no longer inserts the ones it reads into
 * that cache (as the heap's sequential scans of a table larger than a
 * quarter of shared_buffers use a small buffer ring), so that a full scan
 * of a large table neither evicts the blocks point reads keep hot nor
 * grows the backend to the cache's size, while the blocks of a range that
 * fits stay hot for the next query, as the heap's pages do.
 *
 * Every page read is checked to belong to the expected segment: a page
 * reused after a compaction (as can happen to a hot standby's reader when
 * the primary does not know its snapshot; see docs/architecture.md) is an
 * error, never a wrong answer.
 *
 * IDENTIFICATION
 *	  src/engine/segment_reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/tswindow.h"

#define CACHE_SEGMENT	1
#define CACHE_INDEX		2
#define CACHE_DATA		3
#define CACHE_ROWS		4		/* a data block's row directory */

/*
 * data blocks an iterator caches before it may read as a scan, and the
 * part of a cache's size it fills before it does (see above)
 */
#define WIDE_SCAN_CACHED_BLOCKS	16
#define WIDE_SCAN_CACHE_SHARE	4

/* seeks into a cached data block before its row directory is built */
#define WIDE_SEEKS_BEFORE_ROWS	2

static void
segment_corrupt(Relation rel, uint32 segid, const char *what, uint64 where)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("wide table \"%s\": segment %u is damaged: %s at %llu",
					RelationGetRelationName(rel), segid, what,
					(unsigned long long) where),
			 errhint("Run wide.verify() on the table; on a hot standby, set hot_standby_feedback = on.")));
}

/* damage in a stored block: name the block that holds its first byte */
static void
stream_corrupt(Relation rel, const WideSegment *seg, const char *what,
			   uint64 off)
{
	uint64		pageno = off / WIDE_PAGE_CAPACITY;
	int			i;

	for (i = seg->nextents - 1; i >= 0; i--)
		if (seg->cum[i] <= pageno && pageno < seg->cum[i + 1])
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("wide table \"%s\": segment %u is damaged: %s at %llu",
							RelationGetRelationName(rel), seg->segid, what,
							(unsigned long long) off),
					 errdetail("The stored block at offset %llu of the segment begins in block %u.",
							   (unsigned long long) off,
							   seg->extents[i].start + (BlockNumber) (pageno - seg->cum[i])),
					 errhint("Run wide.verify() on the table; on a hot standby, set hot_standby_feedback = on.")));
	segment_corrupt(rel, seg->segid, what, off);
}

/*
 * Raw bytes a stored block may hold: data blocks are cut at four times the
 * largest wide.block_size plus one record, index blocks cover 128 data
 * blocks; the root has an entry (at most a row key and a few numbers) per
 * index block, each of which takes at least 5 bytes of the stream.  A frame
 * declaring more is damaged, and is never allocated for.
 */
#define WIDE_MAX_RAW_BLOCK	((Size) 64 * 1024 * 1024)

static Size
max_raw(const WideSegment *seg, uint64 off)
{
	uint64		root;

	if (off != seg->root_off)
		return WIDE_MAX_RAW_BLOCK;
	root = WIDE_MAX_RAW_BLOCK + (seg->stream_len / 5 + 1) * (WIDE_MAX_ROW_KEY + 64);
	return (Size) Min(root, (uint64) MaxAllocSize);
}

/* ----------------------------------------------------------------
 *	Opening
 * ----------------------------------------------------------------
 */

/* entries (extents and blobs) a header page holds */
#define HEADER_ENTRIES	((WIDE_PAGE_CAPACITY - sizeof(WideSegHeader)) / 8)

/*
 * WideSegmentReadHeaders -- a segment's header chain from root, read
 * through src (a relation's buffers, or a file's image: api/formatdecode.c),
 * into memory allocated in the current context; the root index is not read.
 *
 * Everything read is checked before it is used: the chain has the number
 * of pages its first page says and no loops, the counts fit those pages,
 * extents and blobs lie within the table and the stream fits its extents
 * and the root block lies within the stream, so that a damaged header is
 * an error (src->corrupt, which does not return), never a wild read, a
 * loop or an allocation sized by garbage.
 */
WideSegment *
WideSegmentReadHeaders(const WideHeaderSource *src, BlockNumber root)
{
	WideSegment *seg = palloc0(sizeof(WideSegment));
	BlockNumber nblocks = src->nblocks;
	BlockNumber blkno = root;
	uint32		nheaders = 0;
	int			maxroots = 4;
	uint64		done = 0;
	uint64		nentries = 0;
	uint64		pages = 0;
	int			i;

#define CORRUPT(segid, what, where) \
	do { src->corrupt(src->arg, (segid), (what), (where)); pg_unreachable(); } while (0)

	seg->roots = palloc(sizeof(BlockNumber) * maxroots);
	while (blkno != InvalidBlockNumber)
	{
		const char *page;
		const WideSegHeader *h;
		const uint32 *e;
		BlockNumber next;
		int			j;

		if (blkno >= nblocks || (seg->nroots > 0 && (uint32) seg->nroots >= nheaders))
			CORRUPT(seg->segid, "header chain runs past its pages", blkno);
		page = src->get(src->arg, blkno);
		h = (const WideSegHeader *) PageGetContents((Page) page);
		e = (const uint32 *) (h + 1);
		if (h->magic != WIDE_SEG_MAGIC ||
			(seg->nroots > 0 && h->segid != seg->segid) ||
			h->nentries_here > HEADER_ENTRIES)
		{
			uint32		segid = seg->nroots > 0 ? seg->segid : h->segid;

			src->release(src->arg);
			CORRUPT(segid, "bad header page", blkno);
		}
		if (seg->nroots == 0)
		{
			seg->segid = h->segid;
			nheaders = h->nheaders;
			nentries = (uint64) h->nextents + h->nblobs;
			if (nheaders == 0 || nheaders > nblocks ||
				nentries > (uint64) nheaders * HEADER_ENTRIES ||
				h->nextents > nblocks || h->nblobs > nblocks ||
				h->root_len < 5 || h->root_off > h->stream_len ||
				h->root_len > h->stream_len - h->root_off)
			{
				src->release(src->arg);
				CORRUPT(seg->segid, "bad header page", blkno);
			}
			seg->nextents = h->nextents;
			seg->nblobs = h->nblobs;
			seg->typlen = h->typlen;
			seg->stream_len = h->stream_len;
			seg->root_off = h->root_off;
			seg->root_len = h->root_len;
			seg->ncells = h->ncells;
			seg->max_seq = h->max_seq;
			seg->extents = palloc(sizeof(WideExtent) * Max(seg->nextents, 1));
			seg->cum = palloc(sizeof(uint64) * (seg->nextents + 1));
			seg->blobs = palloc(sizeof(WideBlobRef) * Max(seg->nblobs, 1));
		}
		if (seg->nroots == maxroots)
		{
			maxroots *= 2;
			seg->roots = repalloc(seg->roots, sizeof(BlockNumber) * maxroots);
		}
		seg->roots[seg->nroots++] = blkno;
		for (j = 0; j < (int) h->nentries_here && done < nentries; j++, done++)
		{
			if (done < (uint64) seg->nextents)
			{
				seg->extents[done].start = e[2 * j];
				seg->extents[done].npages = e[2 * j + 1];
			}
			else
			{
				seg->blobs[done - seg->nextents].first = e[2 * j];
				seg->blobs[done - seg->nextents].length = e[2 * j + 1];
			}
		}
		next = WidePageGetOpaque((Page) page)->next;
		src->release(src->arg);
		blkno = next;
	}
	if (done != nentries || (uint32) seg->nroots != nheaders)
		CORRUPT(seg->segid, "header lists too few extents", root);

	for (i = 0; i < seg->nextents; i++)
	{
		const WideExtent *x = &seg->extents[i];

		if (x->start == WIDE_META_BLKNO || x->npages == 0 ||
			(uint64) x->start + x->npages > nblocks)
			CORRUPT(seg->segid, "extent outside the table", root);
		seg->cum[i] = pages;
		pages += x->npages;
	}
	seg->cum[seg->nextents] = pages;
	if (pages * WIDE_PAGE_CAPACITY < seg->stream_len)
		CORRUPT(seg->segid, "extents shorter than the stream", root);
	for (i = 0; i < seg->nblobs; i++)
	{
		const WideBlobRef *b = &seg->blobs[i];

		if (b->first == WIDE_META_BLKNO ||
			(uint64) b->first + WideBlobPages(b->length) > nblocks)
			CORRUPT(seg->segid, "blob outside the table", root);
	}
#undef CORRUPT
	return seg;
}

/* a relation's header pages, for WideSegmentReadHeaders */
typedef struct RelHeaders
{
	Relation	rel;
	Buffer		buf;
} RelHeaders;

static const char *
rel_header_get(void *arg, BlockNumber blkno)
{
	RelHeaders *r = arg;

	r->buf = WideReadPage(r->rel, blkno, BUFFER_LOCK_SHARE, WIDE_PAGE_SEGROOT);
	return (const char *) BufferGetPage(r->buf);
}

static void
rel_header_release(void *arg)
{
	RelHeaders *r = arg;

	UnlockReleaseBuffer(r->buf);
	r->buf = InvalidBuffer;
}

static void
rel_header_corrupt(void *arg, uint32 segid, const char *what, uint64 where)
{
	segment_corrupt(((RelHeaders *) arg)->rel, segid, what, where);
}

/*
 * WideSegmentLoad -- read a segment's header chain (and, if with_index, its
 * root index) into memory allocated in the current context, checking
 * everything read (WideSegmentReadHeaders).
 */
WideSegment *
WideSegmentLoad(Relation rel, BlockNumber root, bool with_index)
{
	RelHeaders	r = {rel, InvalidBuffer};
	WideHeaderSource src;
	WideSegment *seg;

	src.nblocks = RelationGetNumberOfBlocks(rel);
	src.get = rel_header_get;
	src.release = rel_header_release;
	src.corrupt = rel_header_corrupt;
	src.arg = &r;
	seg = WideSegmentReadHeaders(&src, root);

	if (with_index)
	{
		Size		rawlen;
		char	   *raw;

		if (seg->typlen != WideGetSchema(rel)->vallen)
			segment_corrupt(rel, seg->segid, "header names another value type", root);
		raw = WideSegmentReadBlock(rel, seg, seg->root_off, seg->root_len, &rawlen);
		seg->root = WideIndexDecode(raw, rawlen, false);
		/* (an empty segment is never written) */
		if (seg->root == NULL || seg->root->n == 0)
			stream_corrupt(rel, seg, "bad root index", seg->root_off);
	}
	return seg;
}

/*
 * WideSegmentFree -- release an uncached segment.
 */
void
WideSegmentFree(WideSegment *seg)
{
	pfree(seg->extents);
	pfree(seg->cum);
	pfree(seg->blobs);
	pfree(seg->roots);
	if (seg->root)
		WideIndexFree(seg->root);
	pfree(seg);
}

/*
 * WideSegmentOpen -- the cached, pinned segment of a run.  Only a segment
 * opened so has its blocks cached (its epoch, WideStorageEpoch, is part of
 * their keys); one from WideSegmentLoad is read with WideSegmentReadBlock.
 */
WideSegment *
WideSegmentOpen(Relation rel, const WideRunData *run, WideCacheEntry **pin)
{
	void	   *obj;
	MemoryContext cxt,
				old;
	WideSegment *seg;
	uint64		epoch = WideStorageEpoch(rel);

	*pin = WideCacheLookup(rel, epoch, run->segid, run->max_seq,
						   CACHE_SEGMENT, 0, &obj);
	if (*pin)
		return (WideSegment *) obj;
	cxt = WideCacheNewContext();
	old = MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		seg = WideSegmentLoad(rel, run->root, true);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	if (seg->segid != run->segid || seg->max_seq + run->seq_base != run->max_seq)
		segment_corrupt(rel, run->segid, "header does not match the metapage",
						run->root);
	seg->epoch = epoch;
	obj = seg;
	*pin = WideCacheInsert(rel, epoch, run->segid, run->max_seq,
						   CACHE_SEGMENT, 0, cxt, &obj);
	return (WideSegment *) obj;
}

/* ----------------------------------------------------------------
 *	The byte stream
 * ----------------------------------------------------------------
 */

static BlockNumber
stream_block(Relation rel, const WideSegment *seg, uint64 pageno)
{
	int			lo = 0;
	int			hi = seg->nextents - 1;

	if (pageno >= seg->cum[seg->nextents])
		segment_corrupt(rel, seg->segid, "read past the end of the stream",
						pageno);
	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (seg->cum[mid] <= pageno)
			lo = mid;
		else
			hi = mid - 1;
	}
	return seg->extents[lo].start + (BlockNumber) (pageno - seg->cum[lo]);
}

/*
 * WideSegmentReadBytes -- copy len bytes at offset off of the stream.
 */
void
WideSegmentReadBytes(Relation rel, const WideSegment *seg, uint64 off,
					 uint32 len, char *dst)
{
	if (off > seg->stream_len || len > seg->stream_len - off)
		segment_corrupt(rel, seg->segid, "block past the end of the stream", off);
	while (len > 0)
	{
		uint64		pageno = off / WIDE_PAGE_CAPACITY;
		uint32		inpage = off % WIDE_PAGE_CAPACITY;
		uint32		n = Min(len, WIDE_PAGE_CAPACITY - inpage);
		BlockNumber blkno = stream_block(rel, seg, pageno);
		Buffer		buf = ReadBuffer(rel, blkno);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) ||
			WidePageGetOpaque(page)->page_type != WIDE_PAGE_SEGMENT ||
			WidePageGetOpaque(page)->owner != seg->segid)
		{
			UnlockReleaseBuffer(buf);
			segment_corrupt(rel, seg->segid, "page belongs to something else",
							blkno);
		}
		memcpy(dst, PageGetContents(page) + inpage, n);
		UnlockReleaseBuffer(buf);
		dst += n;
		off += n;
		len -= n;
	}
}

/*
 * WideSegmentReadBlock -- read, check and decompress a stored block.
 */
char *
WideSegmentReadBlock(Relation rel, const WideSegment *seg, uint64 off,
					 uint32 len, Size *rawlen)
{
	char	   *stored;
	const char *why = NULL;
	char	   *raw;

	/* checked before the allocation: len comes from disk */
	if (off > seg->stream_len || len > seg->stream_len - off)
		segment_corrupt(rel, seg->segid, "block past the end of the stream", off);
	stored = palloc(Max(len, 1));
	WideSegmentReadBytes(rel, seg, off, len, stored);
	raw = WideBlockLoad(stored, len, max_raw(seg, off), rawlen, &why);
	if (raw == NULL)
		stream_corrupt(rel, seg, why, off);
	if (raw != stored)
		pfree(stored);
	return raw;
}

/*
 * read_data_block -- a data block into *blk, packed if it was stored packed
 * and can be read so (compress.c): from the shared cache (sharedcache.c) if
 * it is there, else read, checked and decompressed, and then shared if
 * "share" (a block read by a scan of a whole run is not: it would push out
 * the blocks point reads come back to).
 */
static void
read_data_block(Relation rel, const WideSegment *seg, const WideIndexEntry *e,
				WideRawBlock *blk, bool share)
{
	char	   *stored;
	const char *why = NULL;
	WideSharedMeta meta;
	Size		len;

	blk->seeks = 0;
	/* a temporary table's blocks are its backend's alone */
	if (RelationUsesLocalBuffers(rel))
		share = false;
	blk->mem = RelationUsesLocalBuffers(rel) ? NULL :
		WideSharedCacheGet(rel->rd_node, seg->epoch, seg->segid, seg->max_seq,
								  CACHE_DATA, e->offset, e->length,
								  &len, &meta);
	if (blk->mem != NULL)
	{
		blk->data = blk->mem + meta.data_off;
		blk->len = len - meta.data_off;
		blk->ts_unit = meta.ts_unit;
		blk->val_div = meta.val_div;
		return;
	}
	if (e->offset > seg->stream_len || e->length > seg->stream_len - e->offset)
		segment_corrupt(rel, seg->segid, "block past the end of the stream", e->offset);
	stored = palloc(Max(e->length, 1));
	WideSegmentReadBytes(rel, seg, e->offset, e->length, stored);
	if (!WideBlockLoadData(stored, e->length, max_raw(seg, e->offset),
						   seg->typlen, blk, &why))
		stream_corrupt(rel, seg, why, e->offset);
	if (share)
	{
		meta.ts_unit = blk->ts_unit;
		meta.val_div = blk->val_div;
		meta.data_off = (uint32) (blk->data - blk->mem);
		WideSharedCachePut(rel->rd_node, seg->epoch, seg->segid, seg->max_seq, CACHE_DATA,
						   e->offset, e->length, blk->mem,
						   meta.data_off + blk->len, &meta);
	}
	if (blk->mem != stored)
		pfree(stored);
}

/*
 * WideSegmentLoadDataBlock -- data block e of seg, read, checked and
 * decompressed into *blk as WideSegmentOpenBlock does, but never from or
 * into a cache, and its stored bytes (palloc'd) into *stored, followed by
 * those of its row directory (rowdir.c; checked) if it has one: a
 * compaction may write them into its output unchanged (blockpass.c).
 * With "packed" not NULL, a block that would be unpacked has its values
 * section zeroed instead, and its packed bytes are kept in *packed for
 * the values later (WideBlockLoadDataKeys; NULL if nothing was left out).
 * Free with WideSegmentFreeDataBlock.
 */
void
WideSegmentLoadDataBlock(Relation rel, const WideSegment *seg,
						 const WideIndexEntry *e, WideRawBlock *blk,
						 char **stored, char **packed, Size *packedlen)
{
	const char *why = NULL;
	uint64		len = e->length;

	if (e->flags & WIDE_INDEX_ROW_DIR)
		len += e->dirlen;
	if (e->offset > seg->stream_len || len > seg->stream_len - e->offset)
		segment_corrupt(rel, seg->segid, "block past the end of the stream", e->offset);
	*stored = palloc(Max(len, 1));
	WideSegmentReadBytes(rel, seg, e->offset, len, *stored);
	if (e->flags & WIDE_INDEX_ROW_DIR)
	{
		Size		dirlen;
		char	   *dir = WideBlockLoad(*stored + e->length, e->dirlen,
										max_raw(seg, e->offset + e->length),
										&dirlen, &why);

		if (dir == NULL)
			stream_corrupt(rel, seg, why, e->offset + e->length);
		if (dir != *stored + e->length)
			pfree(dir);
	}
	blk->seeks = 0;
	if (!(packed == NULL ?
		  WideBlockLoadData(*stored, e->length, max_raw(seg, e->offset),
							seg->typlen, blk, &why) :
		  WideBlockLoadDataKeys(*stored, e->length, max_raw(seg, e->offset),
								seg->typlen, blk, &why, packed, packedlen)))
		stream_corrupt(rel, seg, why, e->offset);
}

/* report damage found at offset off of seg's stream (an ERROR) */
void
WideSegmentCorrupt(Relation rel, const WideSegment *seg, const char *what,
				   uint64 off)
{
	stream_corrupt(rel, seg, what, off);
}

/* release what WideSegmentLoadDataBlock loaded */
void
WideSegmentFreeDataBlock(WideRawBlock *blk, char *stored)
{
	if (blk->mem != NULL && blk->mem != stored)
		pfree(blk->mem);
	pfree(stored);
	blk->mem = NULL;
}

/* a cached decoded index block */
static WideIndex *
open_index(Relation rel, const WideSegment *seg, const WideIndexEntry *e,
		   WideCacheEntry **pin)
{
	void	   *obj;
	MemoryContext cxt,
				old;
	Size		rawlen;
	char	   *raw;
	WideIndex  *idx;
	WideSharedMeta meta;

	*pin = WideCacheLookup(rel, seg->epoch, seg->segid, seg->max_seq,
						   CACHE_INDEX, e->offset, &obj);
	if (*pin)
		return (WideIndex *) obj;
	cxt = WideCacheNewContext();
	old = MemoryContextSwitchTo(cxt);
	raw = RelationUsesLocalBuffers(rel) ? NULL :
		WideSharedCacheGet(rel->rd_node, seg->epoch, seg->segid, seg->max_seq,
						   CACHE_INDEX, e->offset, e->length, &rawlen, &meta);
	if (raw == NULL)
	{
		raw = WideSegmentReadBlock(rel, seg, e->offset, e->length, &rawlen);
		memset(&meta, 0, sizeof(meta));
		if (!RelationUsesLocalBuffers(rel))
			WideSharedCachePut(rel->rd_node, seg->epoch, seg->segid, seg->max_seq, CACHE_INDEX,
						   e->offset, e->length, raw, rawlen, &meta);
	}
	idx = WideIndexDecode(raw, rawlen, true);
	MemoryContextSwitchTo(old);
	if (idx == NULL || idx->n == 0)
	{
		MemoryContextDelete(cxt);
		stream_corrupt(rel, seg, "bad index block", e->offset);
	}
	obj = idx;
	*pin = WideCacheInsert(rel, seg->epoch, seg->segid, seg->max_seq,
						   CACHE_INDEX, e->offset, cxt, &obj);
	return (WideIndex *) obj;
}

/*
 * WideSegmentOpenIndex -- the decoded index block of a root entry, pinned
 * in the block cache until WideCacheRelease(*pin).
 */
WideIndex *
WideSegmentOpenIndex(Relation rel, const WideSegment *seg,
					 const WideIndexEntry *e, WideCacheEntry **pin)
{
	return open_index(rel, seg, e, pin);
}

/*
 * WideSegmentOpenBlock -- a decompressed and checked data block: from the
 * block cache if it is there; else read, and cached if "cache" is true.
 * An uncached block is returned with *pin NULL, allocated in the current
 * memory context (WideSegmentCloseBlock frees it).
 */
/*
 * open_block_as -- data block e: from the backend's cache, else read (from
 * the shared cache if it is there) and inserted into the backend's cache
 * if "cache", into the shared one if "share".  A point read ("point")
 * caches a block only when it read it before (blockcache.c:
 * WideCacheAdmit).  *kept (if not NULL) tells whether it was inserted.
 */
static WideRawBlock *
open_block_as(Relation rel, const WideSegment *seg, const WideIndexEntry *e,
			  WideCacheEntry **pin, bool cache, bool share, bool point,
			  bool *kept)
{
	void	   *obj;
	MemoryContext cxt,
				old;
	WideRawBlock *blk;

	if (kept)
		*kept = false;
	*pin = WideCacheLookup(rel, seg->epoch, seg->segid, seg->max_seq,
						   CACHE_DATA, e->offset, &obj);
	if (*pin)
		return (WideRawBlock *) obj;
	if (cache && point &&
		!WideCacheAdmit(rel, seg->epoch, seg->segid, seg->max_seq,
						CACHE_DATA, e->offset))
		cache = false;
	if (!cache)
	{
		blk = palloc(sizeof(WideRawBlock));
		read_data_block(rel, seg, e, blk, share);
		return blk;
	}
	cxt = WideCacheNewContext();
	old = MemoryContextSwitchTo(cxt);
	blk = palloc(sizeof(WideRawBlock));
	read_data_block(rel, seg, e, blk, share);
	MemoryContextSwitchTo(old);
	obj = blk;
	*pin = WideCacheInsert(rel, seg->epoch, seg->segid, seg->max_seq,
						   CACHE_DATA, e->offset, cxt, &obj);
	if (kept)
		*kept = true;
	return (WideRawBlock *) obj;
}

static WideRawBlock *
open_block(Relation rel, const WideSegment *seg, const WideIndexEntry *e,
		   WideCacheEntry **pin, bool cache)
{
	return open_block_as(rel, seg, e, pin, cache, cache, false, NULL);
}

WideRawBlock *
WideSegmentOpenBlock(Relation rel, const WideSegment *seg,
					 const WideIndexEntry *e, WideCacheEntry **pin, bool cache)
{
	return open_block(rel, seg, e, pin, cache);
}

/*
 * WideSegmentCloseBlock -- release a block from WideSegmentOpenBlock.
 */
void
WideSegmentCloseBlock(WideRawBlock *blk, WideCacheEntry *pin)
{
	if (pin != NULL)
		WideCacheRelease(pin);
	else if (blk != NULL)
	{
		pfree(blk->mem);
		pfree(blk);
	}
}

/*
 * The cached row directory of a data block (block.c: WideBlockRowsBuild),
 * built from the block the first time.
 */
static WideBlockRows *
open_rows(Relation rel, const WideSegment *seg, uint64 seq_base,
		  const WideIndexEntry *e, WideCacheEntry **pin)
{
	void	   *obj;
	MemoryContext cxt,
				old;
	WideCacheEntry *blkpin;
	WideRawBlock *blk;
	WideBlockRows *rows;

	*pin = WideCacheLookup(rel, seg->epoch, seg->segid, seg->max_seq,
						   CACHE_ROWS, e->offset, &obj);
	if (*pin)
		return (WideBlockRows *) obj;
	blk = WideSegmentOpenBlock(rel, seg, e, &blkpin, true);
	cxt = WideCacheNewContext();
	old = MemoryContextSwitchTo(cxt);
	rows = WideBlockRowsBuild(blk, seg->typlen,
							  seg->max_seq + seq_base, seq_base);
	MemoryContextSwitchTo(old);
	WideSegmentCloseBlock(blk, blkpin);
	if (rows == NULL)
	{
		MemoryContextDelete(cxt);
		stream_corrupt(rel, seg, "bad data block", e->offset);
	}
	obj = rows;
	*pin = WideCacheInsert(rel, seg->epoch, seg->segid, seg->max_seq,
						   CACHE_ROWS, e->offset, cxt, &obj);
	return (WideBlockRows *) obj;
}

/* ----------------------------------------------------------------
 *	Iterating
 * ----------------------------------------------------------------
 */

struct WideSegIter
{
	Relation	rel;
	WideSegment *seg;
	WideCacheEntry *segpin;
	uint64		seq_base;
	WideKeyRange range;
	uint64		point_hash;		/* row hash, for a point read */
	int			ri;				/* root entry */
	WideIndex  *idx;
	WideCacheEntry *idxpin;
	int			ii;				/* entry of the index block */
	WideRawBlock *blk;
	WideCacheEntry *blkpin;
	WideBlockIter bi;			/* records of the data block */
	uint64		want_cells;		/* the index entry's count, to check */
	uint64		blocks;			/* data blocks opened */
	uint64		blocks_kept;	/* ... of them decoded into the block cache */
	Size		block_bytes;	/* ... their decoded bytes */
	const WideTsPrune *prune;	/* time pruning (tsprune.c), or NULL */
	uint64		skipped;		/* data blocks skipped by it */
	uint64		index_skipped;	/* index blocks skipped by it */
	uint64		skipped_records;	/* stepped over by WideSegIterSkipColumn */
	uint64		column_skipped; /* data blocks it stepped over unread */
	uint64		column_index_skipped;	/* ... and index blocks */
	bool		started;
	bool		done;
	bool		check_start;	/* records of the block may be before the range */
	bool		check_end;		/* ... or after it */
	bool		hinted;			/* seek_start took the segment's hint */
	char	   *dir;			/* the stored row directory of blk, read */
	Size		dirlen;
	/* WideSegIterRestart */
	const WideIndexEntry *cur;	/* the entry of blk */
	uint64		range_blocks;	/* data blocks opened for the range */
	bool		has_after;		/* after: the record after the range that
								 * ended it, taken from bi */
	bool		give_after;		/* ... in the next range: return it first */
	WideCell	after;
};

/*
 * WideSegIterBegin -- iterate over the records of a run whose row key lies
 * in the range.
 */
WideSegIter *
WideSegIterBegin(Relation rel, const WideRunData *run, const WideKeyRange *range)
{
	WideSegIter *it = palloc0(sizeof(WideSegIter));

	it->rel = rel;
	it->range = *range;
	it->seq_base = run->seq_base;
	it->bi.cxt = CurrentMemoryContext;
	it->seg = WideSegmentOpen(rel, run, &it->segpin);
	if (range->is_point)
		it->point_hash = WideRowHash(range->start, range->startlen);
	return it;
}

static void
drop_block(WideSegIter *it)
{
	WideSegmentCloseBlock(it->blk, it->blkpin);
	it->blkpin = NULL;
	it->blk = NULL;
	it->cur = NULL;
	it->has_after = false;
	if (it->dir != NULL)
		pfree(it->dir);
	it->dir = NULL;
	it->dirlen = 0;
}

/* stored row directories read and used by a seek (rowdir.c), this backend */
static uint64 row_dir_seeks = 0;

/*
 * WideRowDirSeeks -- seeks into data blocks that started from a point of a
 * stored row directory (rowdir.c) in this backend, ever (for the tests).
 */
uint64
WideRowDirSeeks(void)
{
	return row_dir_seeks;
}

/*
 * skip_rows -- step the iterator over the rows of its block (index entry
 * e) before key (up to key if !incl; block.c: WideBlockIterSkipRows), from
 * the point of the block's stored row directory (rowdir.c, read the first
 * time a seek in the block needs it) nearest before them, if it has one
 * past the iterator.  ERROR if the block or its directory is damaged.
 */
static void
skip_rows(WideSegIter *it, const WideIndexEntry *e, const char *key,
		  uint32 keylen, bool incl)
{
	if ((e->flags & WIDE_INDEX_ROW_DIR) && it->bi.i + 1 < it->bi.ncells)
	{
		int			got;

		if (it->dir == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(it->bi.cxt);

			if (e->offset > it->seg->stream_len ||
				e->length > it->seg->stream_len - e->offset)
				segment_corrupt(it->rel, it->seg->segid,
								"block past the end of the stream", e->offset);
			it->dir = WideSegmentReadBlock(it->rel, it->seg, e->offset + e->length,
										   e->dirlen, &it->dirlen);
			MemoryContextSwitchTo(old);
		}
		got = WideRowDirSeek(&it->bi, it->dir, it->dirlen, key, keylen, incl);
		if (got < 0)
			stream_corrupt(it->rel, it->seg, "bad row directory",
						   e->offset + e->length);
		if (got > 0)
			row_dir_seeks++;
	}
	if (!WideBlockIterSkipRows(&it->bi, key, keylen, incl))
		stream_corrupt(it->rel, it->seg, "bad data block", e->offset);
}

static void
drop_index(WideSegIter *it)
{
	drop_block(it);
	WideCacheRelease(it->idxpin);
	it->idxpin = NULL;
	it->idx = NULL;
}

/*
 * Does the range start right after the segment's hint (the bound the last
 * WideSegmentWindowStart found)?  Then its first block and row are known.
 */
static inline bool
hint_matches(const WideSegment *seg, const WideKeyRange *r)
{
	return seg->hint_valid && r->has_start && !r->start_incl && !r->is_point &&
		r->startlen == seg->hint_keylen &&
		memcmp(r->start, seg->hint_key, r->startlen) == 0;
}

/* position on the first data block that may hold the range */
static void
seek_start(WideSegIter *it)
{
	WideIndex  *root = it->seg->root;
	const WideKeyRange *r = &it->range;

	it->started = true;
	it->hinted = hint_matches(it->seg, r);
	if (it->hinted)
		it->ri = it->seg->hint_ri;
	else
		it->ri = r->has_start ? WideIndexSeek(root, r->start, r->startlen) : 0;
	if (it->ri >= root->n)
	{
		it->done = true;
		return;
	}
	/* an index block time pruning skips: next_block goes on after it */
	if (it->prune && WideTsPruneBlock(it->prune, root->entries[it->ri].ts_min,
									  root->entries[it->ri].ts_max,
									  root->entries[it->ri].flags))
		return;
	it->idx = open_index(it->rel, it->seg, &root->entries[it->ri], &it->idxpin);
	if (it->hinted && it->seg->hint_ii < it->idx->n)
		it->ii = it->seg->hint_ii;
	else
	{
		it->hinted = false;
		it->ii = r->has_start ? WideIndexSeek(it->idx, r->start, r->startlen) : 0;
	}
	/* an exclusive start that ends a block: the range begins after it */
	if (r->has_start && !r->start_incl && it->ii < it->idx->n &&
		WideKeyCompare(it->idx->entries[it->ii].lastrow,
					   it->idx->entries[it->ii].lastrowlen,
					   r->start, r->startlen) == 0)
		it->ii++;
	if (r->is_point && !WideIndexMayContain(it->idx, it->point_hash))
	{
		it->done = true;
		return;
	}
	it->blk = NULL;
}

/* the next data block in order; false at the end of the segment */
static bool
next_block(WideSegIter *it)
{
	const WideIndexEntry *e;

	drop_block(it);
	for (;;)
	{
		if (it->idx == NULL)
		{
			if (it->ri >= it->seg->root->n)
				return false;
			e = &it->seg->root->entries[it->ri];
			if (it->prune && WideTsPruneBlock(it->prune, e->ts_min, e->ts_max, e->flags))
			{
				/* skipped; the rows after its last one are past the range? */
				it->index_skipped++;
				it->ri++;
				if (WideRowAfterRange(&it->range, e->lastrow, e->lastrowlen))
					return false;
				continue;
			}
			it->idx = open_index(it->rel, it->seg, e, &it->idxpin);
			it->ii = 0;
		}
		if (it->ii < it->idx->n)
		{
			e = &it->idx->entries[it->ii];
			if (!it->prune || !WideTsPruneBlock(it->prune, e->ts_min, e->ts_max, e->flags))
				break;
			it->skipped++;
			it->ii++;
			if (WideRowAfterRange(&it->range, e->lastrow, e->lastrowlen))
				return false;
			continue;
		}
		drop_index(it);
		it->ri++;
	}
	e = &it->idx->entries[it->ii];
	/*
	 * a long scan stops filling a cache once it has read a quarter of its
	 * size: it would only evict (see top)
	 */
	{
		MemoryContext old = MemoryContextSwitchTo(it->bi.cxt);
		bool		first = it->blocks < WIDE_SCAN_CACHED_BLOCKS;
		bool		kept;

		it->blk = open_block_as(it->rel, it->seg, e, &it->blkpin,
								first || it->block_bytes <
								(Size) wide_block_cache_size * 1024 / WIDE_SCAN_CACHE_SHARE,
								first || it->block_bytes <
								(Size) wide_shared_block_cache_size * 1024 / WIDE_SCAN_CACHE_SHARE,
								it->range.is_point, &kept);
		MemoryContextSwitchTo(old);
		it->blocks_kept += kept;
	}
	it->blocks++;
	it->range_blocks++;
	it->cur = e;
	it->block_bytes += it->blk->len;
	it->ii++;
	it->want_cells = e->ncells;
	/* a block whose last row is in range ends before the range does */
	it->check_start = it->range.has_start;
	it->check_end = WideRowAfterRange(&it->range, e->lastrow, e->lastrowlen);
	if (!WideBlockIterInitBlock(&it->bi, it->blk, it->seg->typlen,
								it->seg->max_seq + it->seq_base, it->seq_base) ||
		(uint64) it->bi.ncells != e->ncells)
		stream_corrupt(it->rel, it->seg, "bad data block", e->offset);
	WideBlockIterSetEntry(&it->bi, e);
	/*
	 * The range's first block: start at its first row.  Stepping over the
	 * rows before it (block.c: WideBlockIterSkipRows) costs half a pass over
	 * the block on average; the block's row directory makes it a binary
	 * search, but building it costs a whole pass and an allocation per
	 * row.  So the directory is built for a cached block sought more than
	 * WIDE_SEEKS_BEFORE_ROWS times: a block of random point reads over a
	 * big table is mostly evicted before that, one a workload comes back
	 * to (ranges starting in it, rows read one by one) gets it soon.
	 */
	if (it->range_blocks == 1 && it->range.has_start)
	{
		WideCacheEntry *rowspin = NULL;
		WideBlockRows *rows = NULL;

		/* (a hinted block's directory was just used to find the hint) */
		if (it->blkpin != NULL &&
			(++it->blk->seeks > WIDE_SEEKS_BEFORE_ROWS || it->hinted))
			rows = open_rows(it->rel, it->seg, it->seq_base, e, &rowspin);
		if (rows != NULL)
		{
			int			h = it->seg->hint_row;
			int			j;

			/* the hint's row, if it is where the hint says: the next row */
			if (it->hinted && h < rows->n &&
				WideKeyCompare(rows->rows[h].key, rows->rows[h].keylen,
							   it->range.start, it->range.startlen) == 0)
				j = h + 1;
			else
				j = WideBlockRowsSeek(rows, it->range.start,
									  it->range.startlen,
									  it->range.start_incl);

			if (j > 0 && j < rows->n)
				WideBlockIterSeekRow(&it->bi, rows, j);
			WideCacheRelease(rowspin);
		}
		else
			skip_rows(it, e, it->range.start, it->range.startlen,
					  it->range.start_incl);
	}
	return true;
}

/*
 * WideSegIterNext -- the next record in range, in cell order.  The record
 * points into cached memory and the iterator's buffers, valid until the
 * next call.
 */
bool
WideSegIterNext(WideSegIter *it, WideCell *cell)
{
	if (it->done)
		return false;
	if (!it->started)
	{
		seek_start(it);
		if (it->done)
			return false;
	}
	if (it->give_after)
	{
		/* the record that ended the range before begins this one */
		it->give_after = false;
		it->has_after = false;
		it->check_start = false;
		*cell = it->after;
		return true;
	}
	for (;;)
	{
		if (it->blk == NULL || !WideBlockIterNext(&it->bi, cell))
		{
			if (it->blk != NULL && it->bi.error)
				stream_corrupt(it->rel, it->seg, "bad data block",
							   it->idx->entries[it->ii - 1].offset);
			/*
			 * past a block whose last row is after the range (a filter may
			 * step over its records there): so is every block after it
			 */
			if (it->blk != NULL && it->check_end)
			{
				it->done = true;
				return false;
			}
			CHECK_FOR_INTERRUPTS();
			if (!next_block(it))
			{
				it->done = true;
				return false;
			}
			continue;
		}
		/* records are sorted: once one is in range, the rest are not before */
		if (it->check_start)
		{
			if (WideRowBeforeRange(&it->range, cell->key, cell->keylen))
				continue;
			it->check_start = false;
		}
		if (it->check_end && WideRowAfterRange(&it->range, cell->key, cell->keylen))
		{
			/* (kept: the next range may begin with it, WideSegIterRestart) */
			it->after = *cell;
			it->has_after = true;
			it->done = true;
			return false;
		}
		return true;
	}
}

/*
 * WideSegIterRestart -- read on with range, which begins after every
 * record the iterator returned (the next range of a scan of several, in
 * key order), instead of a new iterator: where the range begins in the
 * current data block, it goes on from where the last range ended, with
 * no index lookup and without stepping over the block's records before
 * that again -- the readings of an IN list, read in key order, take each
 * block once however many of them it holds.  Else the next read seeks the
 * range as a new iterator would.  False if it cannot (time pruning): the
 * caller then ends it.
 */
bool
WideSegIterRestart(WideSegIter *it, const WideKeyRange *range)
{
	if (it->prune != NULL || !range->has_start)
		return false;
	it->range = *range;
	it->point_hash = range->is_point ? WideRowHash(range->start, range->startlen) : 0;
	it->range_blocks = 0;
	it->give_after = false;
	it->done = false;
	if (it->started && it->blk != NULL && it->cur != NULL && !it->bi.error &&
		!WideRowBeforeRange(range, it->cur->lastrow, it->cur->lastrowlen))
	{
		/* the range begins in this block: step on to it */
		it->range_blocks = 1;
		it->check_start = true;
		it->check_end = WideRowAfterRange(range, it->cur->lastrow, it->cur->lastrowlen);
		if (it->has_after)
		{
			if (WideRowAfterRange(range, it->after.key, it->after.keylen))
			{
				it->done = true;	/* (the range is empty; keep it) */
				return true;
			}
			if (!WideRowBeforeRange(range, it->after.key, it->after.keylen))
			{
				it->give_after = true;
				return true;
			}
			it->has_after = false;
		}
		skip_rows(it, it->cur, range->start, range->startlen, range->start_incl);
		return true;
	}
	/* elsewhere: seek it */
	drop_index(it);
	it->started = false;
	it->hinted = false;
	return true;
}

/* does an index entry cover records of column col up to its end? */
static inline bool
ends_in_column(const WideIndexEntry *e, const WideCell *col)
{
	return (e->flags & WIDE_INDEX_HAS_LASTCOL) &&
		e->lastrowlen == col->keylen && e->lastfamlen == col->famlen &&
		e->lastquallen == col->quallen &&
		memcmp(e->lastqual, col->qual, col->quallen) == 0 &&
		memcmp(e->lastfam, col->family, col->famlen) == 0 &&
		memcmp(e->lastrow, col->key, col->keylen) == 0;
}

/*
 * After the last record of a data block, itself of column col: step over
 * the data blocks (and whole index blocks) whose last record is of col too
 * -- every record they hold lies between two records of col, so is of col
 * -- without reading them; next_block goes on with the first block that
 * holds something else.  (Segments written before format version 3 have no
 * last columns in their index: nothing is skipped.)
 */
static void
skip_column_blocks(WideSegIter *it, const WideCell *col)
{
	for (;;)
	{
		const WideIndexEntry *e;

		if (it->idx == NULL)
		{
			if (it->ri >= it->seg->root->n)
				return;
			e = &it->seg->root->entries[it->ri];
			if (!ends_in_column(e, col))
				return;
			it->column_index_skipped++;
			it->skipped_records += e->ncells;
			it->ri++;
			continue;
		}
		if (it->ii >= it->idx->n)
		{
			drop_index(it);
			it->ri++;
			continue;
		}
		e = &it->idx->entries[it->ii];
		if (!ends_in_column(e, col))
			return;
		it->column_skipped++;
		it->skipped_records += e->ncells;
		it->ii++;
	}
}

/*
 * WideSegIterSkipColumn -- the next record in range after the records of
 * column col (the current record is one of them), into *cell; false at the
 * end.  The records of the column left in the current data block are
 * stepped over without being made into cells (WideBlockIterSkipColumn).
 */
bool
WideSegIterSkipColumn(WideSegIter *it, const WideCell *col, WideCell *cell)
{
	for (;;)
	{
		if (it->blk != NULL && !it->done)
		{
			it->skipped_records += WideBlockIterSkipColumn(&it->bi);
			/* the column goes on past the block: skip blocks of it alone */
			if (!it->bi.error && it->bi.i >= it->bi.ncells)
				skip_column_blocks(it, col);
		}
		if (!WideSegIterNext(it, cell))
			return false;
		if (cell->kind < WIDE_KIND_DEL_CELLS || !WideCellSameColumn(cell, col))
			return true;
		it->skipped_records++;
	}
}

/*
 * WideSegIterSkippedRecords -- records WideSegIterSkipColumn stepped over
 * (and in *blocks, the data blocks it did not read for that).
 */
uint64
WideSegIterSkippedRecords(const WideSegIter *it, uint64 *blocks)
{
	*blocks = it->column_skipped;
	return it->skipped_records;
}

/*
 * WideSegIterBlocks -- data blocks the iterator has opened.
 */
uint64
WideSegIterBlocks(const WideSegIter *it)
{
	return it->blocks;
}

/*
 * WideSegIterBlocksKept -- of those, the blocks decoded into the backend's
 * block cache (not found there, and cached: open_block_as).
 */
uint64
WideSegIterBlocksKept(const WideSegIter *it)
{
	return it->blocks_kept;
}

/*
 * WideSegIterSetPrune -- skip what time pruning allows (before the first
 * record is read); "prune" must outlive the iterator.
 */
void
WideSegIterSetPrune(WideSegIter *it, const WideTsPrune *prune)
{
	Assert(!it->started);
	it->prune = prune;
}

/*
 * WideSegIterBlock -- the iterator of the current data block when every
 * record left in it is in range (no check needed), else NULL: a caller may
 * take them with WideBlockIterNext, and go on with WideSegIterNext once
 * that returns false (at the block's end, or on a malformed block, which
 * WideSegIterNext then reports).
 */
WideBlockIter *
WideSegIterBlock(WideSegIter *it)
{
	if (it->blk == NULL || it->done || it->check_start || it->check_end)
		return NULL;
	return &it->bi;
}

/*
 * WideSegIterSkipQualifiers -- from now on, return records without their
 * qualifier (an empty one), for a reader whose caller never looks at it:
 * the qualifiers are parsed but not rebuilt.  There is no way back.
 */
void
WideSegIterSkipQualifiers(WideSegIter *it)
{
	it->bi.skip_quals = true;
}

/*
 * WideSegIterSetFilter -- from now on, step over the records keep()
 * rejects (WideBlockIterSetFilter), for a reader that reads this run's
 * records as they are stored.
 */
void
WideSegIterSetFilter(WideSegIter *it, bool (*keep) (const WideCell *cell, void *arg),
					 void *arg)
{
	WideBlockIterSetFilter(&it->bi, keep, arg);
}

/*
 * WideSegIterSetColumnFilter -- the same with a filter of columns
 * (WideBlockIterSetColumnFilter): a reader's WideReaderSetFilter, whose
 * rejected columns' records need not be decoded whether the run is merged
 * with others or not.
 */
void
WideSegIterSetColumnFilter(WideSegIter *it, bool (*keep) (const WideCell *cell, void *arg),
						   void *arg)
{
	WideBlockIterSetColumnFilter(&it->bi, keep, arg);
}

/*
 * WideSegIterSkipped -- data blocks and index blocks time pruning skipped.
 */
void
WideSegIterSkipped(const WideSegIter *it, uint64 *blocks, uint64 *indexes)
{
	*blocks = it->skipped;
	*indexes = it->index_skipped;
}

/*
 * WideSegIterSegment -- the segment an iterator reads.
 */
WideSegment *
WideSegIterSegment(WideSegIter *it)
{
	return it->seg;
}

/*
 * WideSegIterEnd -- release the iterator.
 */
void
WideSegIterEnd(WideSegIter *it)
{
	drop_index(it);
	WideBlockIterEnd(&it->bi);
	WideCacheRelease(it->segpin);
	pfree(it);
}

/*
 * The row key nrows rows below hi (counting the rows <= hi, or < hi if
 * !hi_incl) in data block ii of index block ri, into *out (and where it
 * is, into the segment's hint); false if the block has no more rows than
 * that.  Uses the block's row directory.
 */
static bool
block_row_below(Relation rel, WideSegment *seg, const WideRunData *run,
				const WideIndex *idx, int ri, int ii, const char *hi,
				uint32 hilen, bool hi_incl, int nrows, StringInfo out,
				int *nbelow)
{
	const WideIndexEntry *e = &idx->entries[ii];
	WideCacheEntry *pin;
	WideBlockRows *rows = open_rows(rel, seg, run->seq_base, e, &pin);
	int			n = hi ? WideBlockRowsSeek(rows, hi, hilen, !hi_incl) : rows->n;

	*nbelow = n;

	if (n > nrows)
	{
		const WideBlockRowStart *r = &rows->rows[n - nrows - 1];

		resetStringInfo(out);
		appendBinaryStringInfo(out, r->key, r->keylen);
		/* where it is, for the reader of the window (seek_start) */
		seg->hint_valid = r->keylen <= WIDE_SEEK_HINT_KEY;
		if (seg->hint_valid)
		{
			seg->hint_ri = ri;
			seg->hint_ii = ii;
			seg->hint_row = n - nrows - 1;
			seg->hint_keylen = r->keylen;
			memcpy(seg->hint_key, r->key, r->keylen);
		}
	}
	WideCacheRelease(pin);
	return n > nrows;
}

/*
 * seek_last_block -- the data block that holds the greatest row <= hi of
 * seg, or would (hi NULL: the run's last block): its root entry *ri and
 * index entry *ii in the index block returned (pinned in *idxpin).
 */
static WideIndex *
seek_last_block(Relation rel, const WideSegment *seg, const char *hi,
				uint32 hilen, int *ri, int *ii, WideCacheEntry **idxpin)
{
	WideIndex  *root = seg->root;
	WideIndex  *idx;

	*ri = hi ? WideIndexSeek(root, hi, hilen) : root->n;
	if (*ri >= root->n)
		*ri = root->n - 1;		/* every row of the run is <= hi */
	idx = open_index(rel, seg, &root->entries[*ri], idxpin);
	*ii = hi ? WideIndexSeek(idx, hi, hilen) : idx->n;
	if (*ii >= idx->n)
		*ii = idx->n - 1;
	return idx;
}

/*
 * WideSegmentWindowStart -- where a backward read of a run may stop for
 * now: the last row of the data block before the one that holds the
 * greatest row <= hi (hi NULL: the run's greatest row), copied into *out;
 * false if that block is the run's first.  Every row of the run in
 * (*out, hi] lies in that one block (or in the blocks a row longer than a
 * block spans).  Reads the root and one index block, both cached; with
 * nrows > 0, also the keys of that data block (cached too), to return the
 * row nrows rows below hi instead if the block has more rows than that
 * (rows < hi if !hi_incl: the window (*out, hi) then holds nrows rows, not
 * nrows - 1, none when nrows is 1 and hi is a row).  The bound is < hi.
 */
bool
WideSegmentWindowStart(Relation rel, const WideRunData *run, const char *hi,
					   uint32 hilen, bool hi_incl, int nrows, StringInfo out)
{
	WideCacheEntry *segpin,
			   *idxpin = NULL;
	WideSegment *seg = WideSegmentOpen(rel, run, &segpin);
	WideIndex  *root = seg->root;
	WideIndex  *idx;
	const WideIndexEntry *e = NULL;
	bool		found = false;
	int			ri,
				ii;

	idx = seek_last_block(rel, seg, hi, hilen, &ri, &ii, &idxpin);
	if (nrows > 0)
	{
		int			n;

		found = block_row_below(rel, seg, run, idx, ri, ii, hi, hilen,
								hi_incl, nrows, out, &n);
		if (!found && n == 0 && (ii > 0 || ri > 0))
		{
			/*
			 * The first block whose last row is >= hi starts after hi (hi
			 * falls between two blocks, as the end of a prefix range often
			 * does): the greatest row <= hi is the last of the block
			 * before (perhaps under the index block before), and so are
			 * the rows the window wants.
			 */
			if (ii > 0)
				ii--;
			else
			{
				WideCacheRelease(idxpin);
				idxpin = NULL;
				ri--;
				idx = open_index(rel, seg, &root->entries[ri], &idxpin);
				ii = idx->n - 1;
			}
			found = block_row_below(rel, seg, run, idx, ri, ii, hi, hilen,
									hi_incl, nrows, out, &n);
		}
	}
	if (!found)
	{
		if (ii > 0)
			e = &idx->entries[ii - 1];
		else if (ri > 0)
			e = &root->entries[ri - 1];
		if (e != NULL)
		{
			resetStringInfo(out);
			appendBinaryStringInfo(out, e->lastrow, e->lastrowlen);
			found = true;
		}
	}
	WideCacheRelease(idxpin);
	WideCacheRelease(segpin);
	return found;
}

/*
 * WideSegmentLastRow -- the records of the greatest row of the run that
 * lies in range and is <= hi (< hi if !hi_incl; hi NULL: the range's end
 * alone bounds it), given to fn one by one in order, read through the
 * root, one index block, the data block's row directory (all cached) and
 * the records of that one row -- the short path of a backward LIMIT 1 read
 * (reverse.c).  bi is the caller's iterator, reused from call to call
 * (its buffers in bi->cxt); *nrecords counts the records read.  Returns 1 once the row's records were given,
 * 0 if the run holds no such row, and -1 if this way cannot tell: the row
 * may span data blocks (it starts its block and the block before ends
 * with it, or it ends a block that is not the run's last), the greatest
 * row <= hi is in the block before the one the index names (hi falls
 * between blocks), or fn returned false (the caller then reads a window).
 */
int
WideSegmentLastRow(Relation rel, const WideRunData *run,
				   const WideKeyRange *range, const char *hi, uint32 hilen,
				   bool hi_incl, WideBlockIter *bi,
				   bool (*fn) (const WideCell *cell, void *arg), void *arg,
				   uint64 *nrecords)
{
	WideCacheEntry *segpin,
			   *idxpin = NULL,
			   *rowspin = NULL,
			   *blkpin = NULL;
	WideSegment *seg = WideSegmentOpen(rel, run, &segpin);
	WideIndex  *root = seg->root;
	WideIndex  *idx;
	const WideIndexEntry *e;
	const WideBlockRowStart *row;
	WideBlockRows *rows;
	WideRawBlock *blk;
	WideCell	cell;
	int			ri,
				ii,
				n,
				result = -1;
	bool		last_block;
	uint64		nrec,
				before = *nrecords;

	idx = seek_last_block(rel, seg, hi, hilen, &ri, &ii, &idxpin);
	e = &idx->entries[ii];
	last_block = (ri == root->n - 1 && ii == idx->n - 1);
	rows = open_rows(rel, seg, run->seq_base, e, &rowspin);
	n = hi ? WideBlockRowsSeek(rows, hi, hilen, !hi_incl) : rows->n;
	if (n == 0)
	{
		/*
		 * Every row of the block is after hi (hi falls between two blocks,
		 * as the end of a prefix range often does): the row is the last of
		 * the block before, which it does not go on after
		 */
		if (ri == 0 && ii == 0)
		{
			result = 0;			/* every row of the run is after hi */
			goto done;
		}
		if (ii > 0)
			ii--;
		else
		{
			WideCacheRelease(idxpin);
			ri--;
			idx = open_index(rel, seg, &root->entries[ri], &idxpin);
			ii = idx->n - 1;
		}
		e = &idx->entries[ii];
		last_block = true;		/* (as far as the row is concerned) */
		WideCacheRelease(rowspin);
		rows = open_rows(rel, seg, run->seq_base, e, &rowspin);
		n = rows->n;
	}
	row = &rows->rows[n - 1];
	if (WideRowBeforeRange(range, row->key, row->keylen))
	{
		result = 0;				/* the run's rows <= hi are before the range */
		goto done;
	}
	/*
	 * a row that may begin in the block before, or go on in the next (it
	 * ends a block whose last row is hi itself)
	 */
	if (n == 1 && (ii > 0 || ri > 0))
	{
		const WideIndexEntry *before = ii > 0 ? &idx->entries[ii - 1] :
		&root->entries[ri - 1];

		if (WideBytesEqual(before->lastrow, before->lastrowlen, row->key, row->keylen))
			goto done;
	}
	if (n == rows->n && !last_block)
		goto done;

	blk = open_block(rel, seg, e, &blkpin, true);
	if (!WideBlockIterInitBlock(bi, blk, seg->typlen,
								seg->max_seq + run->seq_base, run->seq_base) ||
		(uint64) bi->ncells != e->ncells)
		stream_corrupt(rel, seg, "bad data block", e->offset);
	WideBlockIterSetEntry(bi, e);
	WideBlockIterSeekRow(bi, rows, n - 1);
	/*
	 * the row's records are those up to the next row's first (the
	 * directory's), or the block's last: no record of the next row is
	 * decoded, nor any key compared
	 */
	nrec = (n < rows->n ? (uint64) rows->rows[n].i : e->ncells) - (uint64) row->i;
	result = 1;
	for (uint64 k = 0; k < nrec; k++)
	{
		if (!WideBlockIterNext(bi, &cell))
			break;
		Assert(WideBytesEqual(cell.key, cell.keylen, row->key, row->keylen));
		(*nrecords)++;
		if (!fn(&cell, arg))
		{
			result = -1;
			break;
		}
	}
	if (bi->error || (result == 1 && *nrecords - before < nrec))
		stream_corrupt(rel, seg, "bad data block", e->offset);
	WideSegmentCloseBlock(blk, blkpin);
done:
	WideCacheRelease(rowspin);
	WideCacheRelease(idxpin);
	WideCacheRelease(segpin);
	return result;
}
