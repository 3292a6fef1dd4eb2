/*-------------------------------------------------------------------------
 *
 * segment_writer.c
 *	  Writing a segment: an immutable, sorted, compressed run of records.
 *
 * A segment is a byte stream laid over extents of WIDE_PAGE_SEGMENT pages
 * (WIDE_PAGE_CAPACITY bytes each), plus a chain of header pages:
 *
 *	  stream   := (data-block+ index-block)+ root
 *	  header   := WideSegHeader entry*       first header page
 *	              then more entry* on further header pages (linked by next)
 *	  entry    := start:u32 npages:u32       nextents extents of the stream
 *	            | first:u32 length:u32       nblobs blobs the records own
 *
 * Data blocks (block.c) are cut at wide.block_size bytes before
 * compression; index blocks (indexblock.c) cover up to 128 data blocks each
 * and carry a row-key filter; the root describes the index blocks.  Every
 * stored block is framed by compress.c (zstd, CRC-32C).
 *
 * Sequence numbers.  A record keeps its sequence number only where a reader
 * of this one segment needs it: tombstones, the records of a row after a
 * tombstone in it, and records that share coordinates with the previous
 * one, the records of rows a range tombstone not yet applied holds
 * (WideSegmentWriterKeepSeqs), and the records a drop not yet applied may
 * delete (WideSegmentWriterKeepDrops).  The others read back as the segment's
 * largest sequence number.
 * That is exact because of the order of runs: any record of another run or
 * of the write area is older than every record of this segment or newer
 * than every one, so only comparisons inside the segment can depend on the
 * exact value -- and those are the cases kept.
 *
 * Pages are written through shared buffers and WAL-logged as full images;
 * extents and header pages come from space.c.  A segment is not reachable
 * until its caller publishes it in the metapage; if that never happens
 * (error, crash), VACUUM's sweep reclaims its pages.  Memory is bounded by a
 * data block, an index block and one root entry per index block.
 *
 * IDENTIFICATION
 *	  src/engine/segment_writer.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/cell.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/rules.h"
#include "engine/manifest.h"
#include "engine/coding.h"

int			wide_block_size = 16384;
bool		wide_block_row_directory = true;	/* GUC (tests: off writes none) */

/*
 * The points of a data block's row directory (rowdir.c): at the first row
 * starting past every quarter of wide.block_size, so that a point read
 * steps over an eighth of a block on average instead of half.
 */
#define ROWDIR_SPACING	((Size) wide_block_size / 4)

/* WideSegmentWriterPart: a part shorter than a block is cut at its end
 * only if that leaves at most 1/n of its stretch unfilled */
#define WIDE_CUT_MAX_WASTE		8
/* ... a part's tail of at most 1/n of a block joins the block before it */
#define WIDE_CUT_TAIL			4

#define INDEX_BLOCK_ENTRIES		128
#define FIRST_EXTENT_PAGES		4
#define MAX_EXTENT_PAGES		1024

struct WideSegmentWriter
{
	Relation	rel;
	MemoryContext cxt;
	BufferAccessStrategy strategy;
	uint32		segid;
	int16		typlen;

	/* the stream */
	uint64		stream_len;
	char		page[BLCKSZ];	/* the page being filled */
	uint32		page_used;
	WideExtent *extents;
	int			nextents;
	int			maxextents;
	uint32		ext_used;		/* pages written in the last extent */
	uint32		next_extent_size;

	/* blocks */
	WideBlockBuilder *block;
	StringInfoData raw;
	StringInfoData stored;
	WideIndexEntry cur;			/* entry of the data block being built */
	StringInfoData cur_lastrow;
	StringInfoData cur_lastcol; /* family and qualifier of its last record,
								 * w->prev's, copied when it is finished */
	bool		cur_has_lastcol;	/* (which is of a column) */

	/* the index block being built */
	WideIndexEntry *ientries;
	StringInfoData iarena;
	int			nientries;
	uint64	   *hashes;
	int			nhashes;
	int			maxhashes;
	uint64		last_hash;

	/* the root */
	WideIndexEntry *rentries;
	StringInfoData rarena;
	int			nrentries;
	int			maxrentries;

	/* blobs the records own */
	WideBlobRef *blobs;
	int			nblobs;
	int			maxblobs;
	BlockNumber move_blobs_from;	/* copy blobs reaching this far (or
									 * InvalidBlockNumber) */

	/* which records keep their sequence number */
	WideCell	prev;
	StringInfoData prevbuf;
	bool		have_prev;
	bool		row_has_tombstone;
	const WideRangeDels *keep_ranges;	/* rows whose records keep theirs */
	bool		row_in_range;
	const WideDropRule *keep_drops;	/* records they may delete keep theirs */
	int			nkeep_drops;
	bool		keep_next_seq;	/* WideSegmentWriterKeepNextSeq */
	bool		repeats;		/* a column has two records: not ONE_VERSION */
	bool		repeats_cell;	/* a cell has two records: not ONE_PER_CELL */

	/* cutting blocks where the caller's parts start (WideSegmentWriterPart) */
	bool		parts;			/* the caller announces parts */
	uint64		part_left;		/* records of the current part not added */
	uint32		stretch_blocks; /* data blocks finished since the part began */

	/* WideSegmentWriterJoin: the block being built ends after this row */
	bool		joining;

	/* block_target: the block being built is of full-precision floats */
	int8		floats;			/* -1: not known yet, else 0 or 1 */
	StringInfoData join_lastrow;

	/* statistics for the run descriptor */
	WideRunData run;
	StringInfoData lo;
	StringInfoData hi;

	/* a rewrite into new storage: blobs are read from here (rewrite.c) */
	Relation	blob_src;
};

static void finish_data_block(WideSegmentWriter *w);

/*
 * WideSegmentWriterBegin -- start a segment.  The caller's memory context
 * must outlive the writer.
 */
WideSegmentWriter *
WideSegmentWriterBegin(Relation rel, int16 typlen)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "wide segment writer",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WideSegmentWriter *w = palloc0(sizeof(WideSegmentWriter));

	w->floats = -1;

	/* its pages are unregistered until the caller publishes (manifest.c) */
	Assert(WideManifestMayAllocate(rel));
	w->rel = rel;
	w->cxt = cxt;
	w->move_blobs_from = InvalidBlockNumber;
	w->strategy = GetAccessStrategy(BAS_BULKWRITE);
	w->typlen = typlen;
	w->maxextents = 16;
	w->extents = palloc(sizeof(WideExtent) * w->maxextents);
	w->next_extent_size = FIRST_EXTENT_PAGES;
	w->block = WideBlockBuilderCreate(typlen);
	WideBlockBuilderSetDirSpacing(w->block,
								  wide_block_row_directory ? ROWDIR_SPACING : 0);
	initStringInfo(&w->raw);
	initStringInfo(&w->stored);
	initStringInfo(&w->cur_lastrow);
	initStringInfo(&w->cur_lastcol);
	w->ientries = palloc(sizeof(WideIndexEntry) * INDEX_BLOCK_ENTRIES);
	initStringInfo(&w->iarena);
	w->maxhashes = 1024;
	w->hashes = palloc(sizeof(uint64) * w->maxhashes);
	w->maxrentries = 64;
	w->rentries = palloc(sizeof(WideIndexEntry) * w->maxrentries);
	initStringInfo(&w->rarena);
	w->maxblobs = 16;
	w->blobs = palloc(sizeof(WideBlobRef) * w->maxblobs);
	initStringInfo(&w->prevbuf);
	initStringInfo(&w->join_lastrow);
	initStringInfo(&w->lo);
	initStringInfo(&w->hi);
	w->run.min_seq = PG_UINT64_MAX;
	w->run.min_xmin = InvalidTransactionId;
	w->cur.ts_min = PG_INT64_MAX;
	w->cur.ts_max = PG_INT64_MIN;

	MemoryContextSwitchTo(old);
	return w;
}

/*
 * WideSegmentWriterPart -- the next "nrecords" records added are a *part*:
 * rows of one leading part of the row key, as the caller (bulk.c) found
 * them in its sorted records.  Data blocks are cut where a part starts, and
 * a part's tail that would be a short block of its own joins the block
 * before it.
 *
 * Why: a COPY of time-major readings (every host in every stretch of time)
 * writes runs in which each host's rows are a part, and the merge of those
 * runs puts the parts of one host from all runs side by side.  A block
 * holding the end of one host's part and the start of the next one's has
 * the other runs' records of those hosts between its rows, so the merge
 * must decode it (blockpass.c); a block of one part's rows is passed
 * through as stored.
 *
 * Where a part starts, the block being built is finished if the part that
 * ends filled a block before it (its stretch is then this block and the
 * ones before it, and the block is at least 1/WIDE_CUT_TAIL full: see
 * below), or if what the cut leaves empty is at most 1/WIDE_CUT_MAX_WASTE
 * of the stretch.  Parts of less than a block (many hosts, short runs:
 * bench/timeseries.sh's load) are not cut, since every cut there would add
 * a nearly empty block to the table for good; their blocks straddle parts
 * and the merge decodes them as it did before.  And since the writer knows
 * how many records of the part are still to come, a block that reaches its
 * size inside a part is not cut if the rest of the part would fill at most
 * 1/WIDE_CUT_TAIL of a block: the part's last block grows by that much
 * instead (a part of 2.1 blocks is two blocks, not two and a sliver that
 * the merge would pass as a block of its own for good).  TSBS's load with
 * full-precision floats (parts of 2.1 blocks): every block of the merge
 * passed, against 30% when only parts of four blocks or more were cut, and
 * the table is 0.3% smaller.
 */
void
WideSegmentWriterPart(WideSegmentWriter *w, uint64 nrecords)
{
	w->parts = true;
	if (WideBlockBuilderCount(w->block) > 0)
	{
		uint64		size = WideBlockBuilderSize(w->block);
		uint64		empty = size < (Size) wide_block_size ?
			(Size) wide_block_size - size : 0;

		if (w->stretch_blocks >= 1 ||
			empty * WIDE_CUT_MAX_WASTE <=
			(uint64) w->stretch_blocks * wide_block_size + size)
			finish_data_block(w);
	}
	/* a new stretch starts, in this block or the next */
	w->stretch_blocks = 0;
	w->part_left = nrecords;
}

/*
 * part_tail_joins -- would the rest of the current part, from the record
 * about to be added on, fill at most 1/WIDE_CUT_TAIL of a block (at the
 * block's mean record size)?
 */
static bool
part_tail_joins(WideSegmentWriter *w, Size target)
{
	uint64		count = WideBlockBuilderCount(w->block);
	uint64		size = WideBlockBuilderSize(w->block);

	/* (a record is a byte at least: a part left that long never joins) */
	if (!w->parts || w->part_left == 0 || count == 0 ||
		w->part_left > target / WIDE_CUT_TAIL)
		return false;
	return w->part_left * (size / count) <= target / WIDE_CUT_TAIL &&
		size + w->part_left * (size / count) < 4 * (Size) wide_block_size;
}

/*
 * WideSegmentWriterJoin -- a compaction is about to pass a data block
 * through (blockpass.c) whose rows run to "lastrow": passing it would end
 * the block being built here, and if that is short (less than half of
 * wide.block_size), it would stay so in the table for good.  Then the
 * writer keeps it open: it is not cut by size before a row after lastrow
 * (up to the hard limit of four times wide.block_size), and is finished
 * there if it then holds half a block.  Returns true in that case: the
 * caller must merge the block record by record instead of passing it, and
 * add nothing from elsewhere before its records.  So a short block joins
 * the next one (at most one and a half blocks), and a load whose merge
 * passes only some blocks (bench/timeseries.sh's: hosts whose stretches
 * are about a block long) is not left with a short block at every switch
 * from merging to passing.  false: nothing is being built, or it is well
 * filled; the caller passes the block.
 */
bool
WideSegmentWriterJoin(WideSegmentWriter *w, const char *lastrow,
					  uint32 lastrowlen)
{
	if (WideBlockBuilderCount(w->block) == 0 ||
		WideBlockBuilderSize(w->block) >= (Size) wide_block_size / 2)
		return false;
	w->joining = true;
	resetStringInfo(&w->join_lastrow);
	put_bytes(&w->join_lastrow, lastrow, lastrowlen);
	return true;
}


/* ----------------------------------------------------------------
 *	The stream
 * ----------------------------------------------------------------
 */

/* get pages for the stream (and the segment id, the first time) */
static void
add_extent(WideSegmentWriter *w)
{
	WideManifestTx tx;
	WideMetaPage meta = WideManifestBegin(w->rel, &tx);
	uint32		got;
	BlockNumber start;

	if (w->segid == 0)
		w->segid = WideManifestTakeSegid(meta);
	start = WideSpaceAlloc(w->rel, meta, w->next_extent_size, false, &got);
	(void) WideManifestCommit(&tx);

	if (w->nextents == w->maxextents)
	{
		w->maxextents *= 2;
		w->extents = repalloc(w->extents, sizeof(WideExtent) * w->maxextents);
	}
	w->extents[w->nextents].start = start;
	w->extents[w->nextents].npages = got;
	w->nextents++;
	w->ext_used = 0;
	w->next_extent_size = Min(w->next_extent_size * 2, MAX_EXTENT_PAGES);
}

/* write out the page being filled */
static void
flush_page(WideSegmentWriter *w)
{
	Page		page = (Page) w->page;

	if (w->nextents == 0 ||
		w->ext_used == w->extents[w->nextents - 1].npages)
		add_extent(w);
	WidePageGetOpaque(page)->owner = w->segid;
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + w->page_used;
	((PageHeader) page)->pd_upper = ((PageHeader) page)->pd_special;
	WideWritePage(w->rel, w->extents[w->nextents - 1].start + w->ext_used, page,
			   w->strategy);
	w->ext_used++;
	w->page_used = 0;
	w->run.npages++;
}

/* append bytes to the stream */
static void
stream_append(WideSegmentWriter *w, const char *data, Size len)
{
	while (len > 0)
	{
		Size		n = Min(len, WIDE_PAGE_CAPACITY - w->page_used);

		if (w->page_used == 0)
			WideInitPage((Page) w->page, WIDE_PAGE_SEGMENT, 0);
		memcpy(w->page + MAXALIGN(SizeOfPageHeaderData) + w->page_used, data, n);
		w->page_used += n;
		w->stream_len += n;
		data += n;
		len -= n;
		if (w->page_used == WIDE_PAGE_CAPACITY)
			flush_page(w);
	}
}

/* store a raw block in the stream; returns its offset, sets *length */
static uint64
store_block(WideSegmentWriter *w, StringInfo raw, bool data, uint32 *length)
{
	uint64		off = w->stream_len;

	resetStringInfo(&w->stored);
	WideBlockStore(raw->data, raw->len, data, &w->stored);
	stream_append(w, w->stored.data, w->stored.len);
	*length = w->stored.len;
	return off;
}

/* ----------------------------------------------------------------
 *	Blocks and index
 * ----------------------------------------------------------------
 */

static void
copy_entry(WideIndexEntry *dst, const WideIndexEntry *src, StringInfo arena)
{
	*dst = *src;
	/* keep the arena offsets; pointers are fixed up before encoding */
	dst->lastrow = (const char *) (uintptr_t) arena->len;
	appendBinaryStringInfo(arena, src->lastrow, src->lastrowlen);
	if (src->flags & WIDE_INDEX_HAS_LASTCOL)
	{
		dst->lastfam = (const char *) (uintptr_t) arena->len;
		appendBinaryStringInfo(arena, src->lastfam, src->lastfamlen);
		dst->lastqual = (const char *) (uintptr_t) arena->len;
		appendBinaryStringInfo(arena, src->lastqual, src->lastquallen);
	}
}

static void
fix_entries(WideIndexEntry *e, int n, StringInfo arena)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		e[i].lastrow = arena->data + (uintptr_t) e[i].lastrow;
		if (e[i].flags & WIDE_INDEX_HAS_LASTCOL)
		{
			e[i].lastfam = arena->data + (uintptr_t) e[i].lastfam;
			e[i].lastqual = arena->data + (uintptr_t) e[i].lastqual;
		}
	}
}

/* write the index block being built and add it to the root */
static void
finish_index_block(WideSegmentWriter *w)
{
	WideIndexEntry rentry;
	WideIndexEntry *last;

	if (w->nientries == 0)
		return;
	fix_entries(w->ientries, w->nientries, &w->iarena);
	resetStringInfo(&w->raw);
	WideIndexEncode(w->ientries, w->nientries, w->hashes, w->nhashes, &w->raw);

	memset(&rentry, 0, sizeof(rentry));
	last = &w->ientries[w->nientries - 1];
	rentry.lastrow = last->lastrow;
	rentry.lastrowlen = last->lastrowlen;
	rentry.ts_min = PG_INT64_MAX;
	rentry.ts_max = PG_INT64_MIN;
	for (int i = 0; i < w->nientries; i++)
	{
		rentry.ncells += w->ientries[i].ncells;
		rentry.ts_min = Min(rentry.ts_min, w->ientries[i].ts_min);
		rentry.ts_max = Max(rentry.ts_max, w->ientries[i].ts_max);
		rentry.flags |= w->ientries[i].flags & WIDE_INDEX_HAS_TOMBSTONES;
	}
	/* the index block ends with its last data block */
	if (last->flags & WIDE_INDEX_HAS_LASTCOL)
	{
		rentry.flags |= WIDE_INDEX_HAS_LASTCOL;
		rentry.lastfam = last->lastfam;
		rentry.lastfamlen = last->lastfamlen;
		rentry.lastqual = last->lastqual;
		rentry.lastquallen = last->lastquallen;
	}
	rentry.offset = store_block(w, &w->raw, false, &rentry.length);

	if (w->nrentries == w->maxrentries)
	{
		w->maxrentries *= 2;
		w->rentries = repalloc(w->rentries, sizeof(WideIndexEntry) * w->maxrentries);
	}
	copy_entry(&w->rentries[w->nrentries++], &rentry, &w->rarena);

	w->nientries = 0;
	resetStringInfo(&w->iarena);
	w->nhashes = 0;
}

/*
 * block_target -- the size at which the data block being built is cut:
 * wide.block_size, or twice that when its values are full-precision
 * float8 (8-byte values that no exponent packs, which blockpack.c codes
 * value by value and zstd leaves alone).  A block of those costs about 300
 * bytes beyond its values (its first row key and qualifiers restated, the
 * keys and timestamps' frame, its index entry: bench/tsbs.sh --floats),
 * 2.5% of a 16 kB block; reading it whole costs the same per value.
 * Decided once per block, when it first reaches wide.block_size.
 */
static Size
block_target(WideSegmentWriter *w)
{
	Size		size = WideBlockBuilderSize(w->block);

	if (size < (Size) wide_block_size)
		return (Size) wide_block_size;
	if (w->floats < 0)
		w->floats = wide_block_pack_format >= 6 &&
			WideBlockBuilderFullFloats(w->block) ? 1 : 0;
	return (Size) wide_block_size * (w->floats ? 2 : 1);
}

/* write the data block being built and add it to the index block */
static void
finish_data_block(WideSegmentWriter *w)
{
	TransactionId xmin;
	CommandId	cmin;

	w->floats = -1;
	if (WideBlockBuilderCount(w->block) == 0)
		return;
	resetStringInfo(&w->raw);
	WideBlockFinish(w->block, &w->raw, &xmin, &cmin);
	if (TransactionIdIsValid(xmin))
	{
		/* one xmin for all its records, in the entry (format version 6) */
		w->cur.flags |= WIDE_INDEX_ONE_XMIN;
		w->cur.xmin = xmin;
		w->cur.cmin = cmin;
	}
	w->run.raw_bytes += w->raw.len;
	w->cur.offset = store_block(w, &w->raw, true, &w->cur.length);
	/* its row directory, right after it (rowdir.c; format version 7) */
	{
		const WideDirPoint *points;
		const char *keys;
		const char *first;
		uint32		firstlen;
		int64		ts0;
		int			n = WideBlockBuilderPoints(w->block, &points, &keys, &ts0,
											   &first, &firstlen);

		if (n > 0)
		{
			resetStringInfo(&w->raw);
			WideRowDirEncode(points, n, ts0, first, firstlen, keys, &w->raw);
			resetStringInfo(&w->stored);
			WideBlockStoreRaw(w->raw.data, w->raw.len, &w->stored);
			stream_append(w, w->stored.data, w->stored.len);
			w->cur.dirlen = w->stored.len;
			w->cur.flags |= WIDE_INDEX_ROW_DIR;
		}
	}
	w->cur.lastrow = w->cur_lastrow.data;
	w->cur.lastrowlen = w->cur_lastrow.len;
	if (w->cur_has_lastcol)
	{
		/* the block's last record is the last one added (w->prev) */
		Assert(w->have_prev);
		resetStringInfo(&w->cur_lastcol);
		appendBinaryStringInfo(&w->cur_lastcol, w->prev.family, w->prev.famlen);
		appendBinaryStringInfo(&w->cur_lastcol, w->prev.qual, w->prev.quallen);
		w->cur.lastfamlen = w->prev.famlen;
		w->cur.flags |= WIDE_INDEX_HAS_LASTCOL;
		w->cur.lastfam = w->cur_lastcol.data;
		w->cur.lastqual = w->cur_lastcol.data + w->cur.lastfamlen;
		w->cur.lastquallen = w->cur_lastcol.len - w->cur.lastfamlen;
	}
	copy_entry(&w->ientries[w->nientries++], &w->cur, &w->iarena);

	WideBlockBuilderReset(w->block);
	w->stretch_blocks++;
	memset(&w->cur, 0, sizeof(w->cur));
	w->cur.ts_min = PG_INT64_MAX;
	w->cur.ts_max = PG_INT64_MIN;
	if (w->nientries == INDEX_BLOCK_ENTRIES)
		finish_index_block(w);
}

/* does this record keep its sequence number? (see the file header) */
static bool
keeps_seq(WideSegmentWriter *w, const WideCell *c, bool same_row)
{
	bool		keep;

	if (!same_row)
	{
		w->row_has_tombstone = false;
		w->row_in_range = false;
		for (int i = 0; w->keep_ranges && i < w->keep_ranges->n; i++)
			if (WideRangeDelCoversKey(&w->keep_ranges->d[i], c->key, c->keylen))
				w->row_in_range = true;
	}
	if (WIDE_KIND_IS_TOMBSTONE(c->kind))
	{
		w->row_has_tombstone = true;
		keep = true;
	}
	else
	{
		bool		same_cell = same_row && WideCellLevel(&w->prev) == WIDE_LEVEL_CELL &&
			w->prev.ts == c->ts && WideCellSameColumn(&w->prev, c);

		keep = w->row_has_tombstone || w->row_in_range || same_cell ||
			w->keep_next_seq;
		if (!keep && w->nkeep_drops > 0)
			keep = WideDropsCover(w->keep_drops, w->nkeep_drops, c);
		w->repeats_cell |= same_cell;
	}
	w->keep_next_seq = false;
	if (same_row && WideCellSameColumn(&w->prev, c))
		w->repeats = true;

	/* remember the coordinates of this record (the row key if new) */
	if (same_row)
		w->prevbuf.len = c->keylen;
	else
	{
		resetStringInfo(&w->prevbuf);
		put_bytes(&w->prevbuf, c->key, c->keylen);
	}
	put_bytes(&w->prevbuf, c->family, c->famlen);
	put_bytes(&w->prevbuf, c->qual, c->quallen);
	w->prev = *c;
	w->prev.key = w->prevbuf.data;
	w->prev.family = w->prevbuf.data + c->keylen;
	w->prev.qual = w->prevbuf.data + c->keylen + c->famlen;
	w->prev.value = NULL;
	w->have_prev = true;
	return keep;
}

/*
 * WideSegmentWriterKeepSeqs -- the records of the rows in these range
 * tombstones' ranges keep their sequence numbers: a range tombstone lives
 * outside the runs (rangedel.c), and one not yet applied may fall between
 * the numbers of this segment's records, which must then compare exactly
 * with its own.  ranges must outlive the writer.
 */
void
WideSegmentWriterKeepSeqs(WideSegmentWriter *w, const WideRangeDels *ranges)
{
	w->keep_ranges = (ranges != NULL && ranges->n > 0) ? ranges : NULL;
}

/*
 * WideSegmentWriterKeepDrops -- the records these drops (drop_before, not
 * yet applied: drops.c) may delete keep their sequence numbers: a drop
 * lives outside the runs, and one a snapshot may not see yet is applied by
 * readers, comparing its number with the record's -- which, read back as
 * the segment's largest, could be newer than the drop when the segment
 * also holds records written after it, and the dropped cell would come
 * back.  drops must outlive the writer.
 */
void
WideSegmentWriterKeepDrops(WideSegmentWriter *w, const WideDropRule *drops, int n)
{
	w->keep_drops = n > 0 ? drops : NULL;
	w->nkeep_drops = n;
}

/*
 * WideSegmentWriterKeepLike -- w keeps the sequence numbers "from" keeps
 * for the pending range tombstones and drops (the window runs of a merge
 * whose rest run its resolver set up: retention.c)
 */
void
WideSegmentWriterKeepLike(WideSegmentWriter *w, const WideSegmentWriter *from)
{
	w->keep_ranges = from->keep_ranges;
	w->keep_drops = from->keep_drops;
	w->nkeep_drops = from->nkeep_drops;
}

/*
 * WideSegmentWriterKeepNextSeq -- the next record added keeps its sequence
 * number: a tombstone of its row went to another segment of the same merge
 * (a time-windowed merge writes tombstones into its "rest" run and the
 * cells into window runs, retention.c), and one a snapshot may still not
 * see is kept with the cells it covers, which must then compare exactly
 * with it -- read back as the window's largest number they would not be
 * older than the tombstone, and the deleted cells would come back.
 */
void
WideSegmentWriterKeepNextSeq(WideSegmentWriter *w)
{
	w->keep_next_seq = true;
}

/*
 * WideSegmentWriterCopyBlobs -- the records added come from "src", another
 * relation: every value kept in a blob is copied into a blob of the
 * segment's own relation (VACUUM FULL, rewrite.c).
 */
void
WideSegmentWriterCopyBlobs(WideSegmentWriter *w, Relation src)
{
	w->blob_src = src;
}

/*
 * place_blob -- store a value copied from the source in a blob: at the end
 * of the extent being filled when it has room (so the rewrite leaves no
 * hole there when it ends), else in new pages.
 */
static WideBlobRef
place_blob(WideSegmentWriter *w, const char *data, uint32 len)
{
	uint32		n = WideBlobPages(len);

	if (w->nextents > 0)
	{
		WideExtent *last = &w->extents[w->nextents - 1];

		if (last->npages - w->ext_used >= n)
		{
			WideBlobRef ref;

			last->npages -= n;
			ref.first = last->start + last->npages;
			ref.length = len;
			WideBlobWriteRest(w->rel, ref, 0, data);
			return ref;
		}
	}
	return WideBlobWrite(w->rel, data, len);
}

/*
 * own_value -- for a writer copying blobs: the record with its value where
 * this relation holds it: a value the source kept in a blob (or a body
 * blob) goes in line, or if long into a new blob here.  *copy
 * is filled when the record changes; *tofree is what to free once added.
 */
static const WideCell *
own_value(WideSegmentWriter *w, const WideCell *c, WideCell *copy,
		  char **tofree)
{
	*tofree = NULL;
	if (!(c->flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB)))
		return c;
	*copy = *c;
	if (c->value == NULL && (c->flags & WIDE_REC_VALUE_BLOB))
		copy->value = *tofree = WideBlobRead(w->blob_src, c->blob);
	copy->flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
	copy->value_datum = NULL;
	if (copy->vallen > WIDE_WA_MAX_INLINE)
	{
		copy->blob = place_blob(w, copy->value, copy->vallen);
		copy->flags |= WIDE_REC_VALUE_BLOB;
		copy->value = NULL;
	}
	return copy;
}

/*
 * WideSegmentWriterAdd -- append a record; records come in cell order.
 * "frozen": the record is visible to every snapshot (its xmin is dropped).
 */
void
WideSegmentWriterAdd(WideSegmentWriter *w, const WideCell *c, bool frozen)
{
	MemoryContext old = MemoryContextSwitchTo(w->cxt);
	bool		new_row = !w->have_prev ||
		!WideBytesEqual(w->prev.key, w->prev.keylen, c->key, c->keylen);
	bool		keep;
	WideCell	copy;
	char	   *tofree = NULL;
	WideCell	moved;

	if (w->blob_src != NULL)
		c = own_value(w, c, &copy, &tofree);
	/* a blob in the tail of the table: copy it to pages lower down */
	else if (w->move_blobs_from != InvalidBlockNumber &&
			 (c->flags & WIDE_REC_VALUE_BLOB) && c->blob.first >= w->move_blobs_from)
	{
		char	   *data = WideBlobRead(w->rel, c->blob);

		moved = *c;
		moved.blob = WideBlobWrite(w->rel, data, c->blob.length);
		pfree(data);
		c = &moved;
	}
	/* a joined block ends before the first row after it */
	if (w->joining && new_row &&
		WideKeyCompare(c->key, c->keylen,
					   w->join_lastrow.data, w->join_lastrow.len) > 0)
	{
		w->joining = false;
		if (WideBlockBuilderSize(w->block) >= (Size) wide_block_size / 2)
			finish_data_block(w);
	}
	/* cut blocks at row boundaries when they can, at the size limit always */
	if (WideBlockBuilderCount(w->block) > 0 &&
		WideBlockBuilderSize(w->block) >= block_target(w) &&
		((new_row && !w->joining && !part_tail_joins(w, block_target(w))) ||
		 WideBlockBuilderSize(w->block) >= 4 * (Size) wide_block_size))
		finish_data_block(w);
	if (w->part_left > 0)
		w->part_left--;
	/* (after the cut: w->prev stays the block's last record until then) */
	keep = keeps_seq(w, c, !new_row);

	WideBlockAdd(w->block, c, keep, frozen);

	/* index entry of the block: its last row key changes with the row */
	if (new_row)
	{
		resetStringInfo(&w->cur_lastrow);
		put_bytes(&w->cur_lastrow, c->key, c->keylen);
	}
	/* (its family and qualifier are w->prev's when the block is cut) */
	w->cur_has_lastcol = c->kind >= WIDE_KIND_DEL_CELLS;
	w->cur.ncells++;
	if (!WIDE_KIND_IS_TOMBSTONE(c->kind) || c->kind == WIDE_KIND_DEL_CELLS)
	{
		w->cur.ts_min = Min(w->cur.ts_min, c->ts);
		w->cur.ts_max = Max(w->cur.ts_max, c->ts);
	}
	w->run.families |= c->kind == WIDE_KIND_DEL_ROW ? PG_UINT32_MAX :
		WideFamilyBit(c->famid);
	if (WIDE_KIND_IS_TOMBSTONE(c->kind))
	{
		w->cur.flags |= WIDE_INDEX_HAS_TOMBSTONES;
		w->run.flags |= WIDE_RUN_HAS_TOMBSTONES;
		if (w->run.ntombstones < PG_UINT32_MAX)
			w->run.ntombstones++;
	}

	/* row filter */
	if (new_row)
	{
		uint64		h = WideRowHash(c->key, c->keylen);

		if (w->nhashes == w->maxhashes)
		{
			w->maxhashes *= 2;
			w->hashes = repalloc(w->hashes, sizeof(uint64) * w->maxhashes);
		}
		w->hashes[w->nhashes++] = h;
	}

	/* blobs now owned by this segment */
	if (c->flags & WIDE_REC_VALUE_BLOB)
	{
		if (w->nblobs == w->maxblobs)
		{
			w->maxblobs *= 2;
			w->blobs = repalloc(w->blobs, sizeof(WideBlobRef) * w->maxblobs);
		}
		w->blobs[w->nblobs++] = c->blob;
	}

	/* run statistics */
	w->run.ncells++;
	w->run.min_seq = Min(w->run.min_seq, c->seq);
	w->run.max_seq = Max(w->run.max_seq, c->seq);
	if (!frozen && TransactionIdIsNormal(c->xmin) &&
		(!TransactionIdIsValid(w->run.min_xmin) ||
		 TransactionIdPrecedes(c->xmin, w->run.min_xmin)))
		w->run.min_xmin = c->xmin;
	if (w->run.ncells == 1)
		put_bytes(&w->lo, c->key, c->keylen);
	if (new_row)
	{
		resetStringInfo(&w->hi);
		put_bytes(&w->hi, c->key, c->keylen);
	}
	if (tofree)
		pfree(tofree);
	MemoryContextSwitchTo(old);
}

/*
 * WideSegmentWriterAddBlock -- append a whole data block as it is stored in
 * another segment of this relation (a compaction's input, blockpass.c):
 * its bytes go into the stream unchanged, its index entry (with the new
 * offset) into the index block, its rows into the row filter, its blobs
 * into the segment's.  The caller guarantees what WideSegmentWriterAdd of
 * its records one by one would need: they all sort after every record
 * added before (its first row is a new one) and before every record added
 * after; none stores a sequence number, and none is a tombstone.
 */
void
WideSegmentWriterAddBlock(WideSegmentWriter *w, const WidePassedBlock *pb)
{
	MemoryContext old = MemoryContextSwitchTo(w->cxt);
	const WideIndexEntry *e = pb->entry;
	const WideCell *last = pb->last;
	int			i;

	Assert(!w->have_prev ||
		   WideKeyCompare(w->prev.key, w->prev.keylen,
						  pb->first->key, pb->first->keylen) < 0);
	Assert(!(e->flags & WIDE_INDEX_HAS_TOMBSTONES));

	/* the block being built ends here */
	finish_data_block(w);
	w->joining = false;

	w->cur = *e;
	w->cur.offset = w->stream_len;
	w->cur.length = pb->stored_len;
	w->cur.flags = e->flags & WIDE_INDEX_HAS_LASTCOL;
	w->cur.dirlen = 0;
	if (pb->dirlen > 0)
	{
		/* its row directory, as stored after it (rowdir.c) */
		w->cur.flags |= WIDE_INDEX_ROW_DIR;
		w->cur.dirlen = pb->dirlen;
	}
	w->cur.xmin = InvalidTransactionId;
	w->cur.cmin = 0;
	if (pb->xmins_frozen)
	{
		/* (a block of one xmin keeps none: its records store none) */
		w->cur.flags |= WIDE_INDEX_XMINS_FROZEN;
	}
	else
	{
		if (e->flags & WIDE_INDEX_ONE_XMIN)
		{
			w->cur.flags |= WIDE_INDEX_ONE_XMIN;
			w->cur.xmin = e->xmin;
			w->cur.cmin = e->cmin;
		}
		if (TransactionIdIsNormal(pb->min_xmin) &&
			(!TransactionIdIsValid(w->run.min_xmin) ||
			 TransactionIdPrecedes(pb->min_xmin, w->run.min_xmin)))
			w->run.min_xmin = pb->min_xmin;
	}
	stream_append(w, pb->stored, pb->stored_len + pb->dirlen);
	w->run.raw_bytes += pb->rawlen;
	w->run.families |= pb->families;

	/* rows for the filter of its index block, blobs now owned by this segment */
	for (i = 0; i < pb->nhashes; i++)
	{
		if (w->nhashes == w->maxhashes)
		{
			w->maxhashes *= 2;
			w->hashes = repalloc(w->hashes, sizeof(uint64) * w->maxhashes);
		}
		w->hashes[w->nhashes++] = pb->hashes[i];
	}
	for (i = 0; i < pb->nblobs; i++)
	{
		if (w->nblobs == w->maxblobs)
		{
			w->maxblobs *= 2;
			w->blobs = repalloc(w->blobs, sizeof(WideBlobRef) * w->maxblobs);
		}
		w->blobs[w->nblobs++] = pb->blobs[i];
	}

	/* its entry, which may end the index block (with its rows) */
	copy_entry(&w->ientries[w->nientries++], &w->cur, &w->iarena);
	memset(&w->cur, 0, sizeof(w->cur));
	w->cur.ts_min = PG_INT64_MAX;
	w->cur.ts_max = PG_INT64_MIN;
	if (w->nientries == INDEX_BLOCK_ENTRIES)
		finish_index_block(w);

	/* run statistics */
	if (w->run.ncells == 0)
		appendBinaryStringInfo(&w->lo, pb->first->key, pb->first->keylen);
	w->run.ncells += e->ncells;
	w->run.min_seq = Min(w->run.min_seq, pb->seq);
	w->run.max_seq = Max(w->run.max_seq, pb->seq);
	resetStringInfo(&w->hi);
	appendBinaryStringInfo(&w->hi, last->key, last->keylen);

	/*
	 * the next record added continues after the block's last: its row may
	 * go on (the next block's index entry then ends with that row unless
	 * another starts), its column may not (no column of a passed block's
	 * run has two records)
	 */
	resetStringInfo(&w->cur_lastrow);
	appendBinaryStringInfo(&w->cur_lastrow, last->key, last->keylen);
	w->cur_has_lastcol = false;
	w->row_has_tombstone = false;
	(void) keeps_seq(w, last, false);
	MemoryContextSwitchTo(old);
}

/* ----------------------------------------------------------------
 *	Finishing
 * ----------------------------------------------------------------
 */

/* write the header page chain; returns its first page */
static BlockNumber
write_header(WideSegmentWriter *w, uint64 root_off, uint32 root_len,
			 uint32 *nheaders)
{
	int			nentries = w->nextents + w->nblobs;
	int			first_cap = (WIDE_PAGE_CAPACITY - sizeof(WideSegHeader)) / 8;
	int			more_cap = (WIDE_PAGE_CAPACITY - sizeof(WideSegHeader)) / 8;
	int			npages = 1 + (nentries > first_cap ?
							  (nentries - first_cap + more_cap - 1) / more_cap : 0);
	BlockNumber *blk = palloc(sizeof(BlockNumber) * npages);
	WideManifestTx tx;
	WideMetaPage meta;
	int			done = 0;
	int			i;
	char	   *image = palloc(BLCKSZ);

	/*
	 * Header pages, taken from the unused end of the last extent first (so
	 * that they sit right after the stream, and no hole stays between them
	 * that VACUUM could not cut off); the rest of it back to the queue.
	 */
	meta = WideManifestBegin(w->rel, &tx);
	{
		WideExtent *last = w->nextents > 0 ? &w->extents[w->nextents - 1] : NULL;
		uint32		spare = last ? last->npages - w->ext_used : 0;

		for (i = 0; i < npages; i++)
		{
			uint32		got;

			if ((uint32) i < spare)
				blk[i] = last->start + w->ext_used + i;
			else
				blk[i] = WideSpaceAlloc(w->rel, meta, 1, false, &got);
		}
		if (spare > (uint32) npages)
			(void) WideSpaceFree(meta, WIDE_FREE_EXTENT,
								 last->start + w->ext_used + npages,
								 spare - npages);
		if (last)
			last->npages = w->ext_used;
	}
	(void) WideManifestCommit(&tx);

	for (i = 0; i < npages; i++)
	{
		Page		page = (Page) image;
		WideSegHeader *h;
		uint32	   *e;
		int			cap = (i == 0) ? first_cap : more_cap;
		int			n = Min(cap, nentries - done);
		int			j;

		memset(image, 0, BLCKSZ);
		WideInitPage(page, WIDE_PAGE_SEGROOT, w->segid);
		WidePageGetOpaque(page)->next = (i + 1 < npages) ? blk[i + 1] : InvalidBlockNumber;
		h = (WideSegHeader *) PageGetContents(page);
		h->magic = WIDE_SEG_MAGIC;
		h->segid = w->segid;
		h->nentries_here = n;
		if (i == 0)
		{
			h->nextents = w->nextents;
			h->nblobs = w->nblobs;
			h->nheaders = npages;
			h->typlen = w->typlen;
			h->stream_len = w->stream_len;
			h->root_off = root_off;
			h->root_len = root_len;
			h->ncells = w->run.ncells;
			h->max_seq = w->run.max_seq;
		}
		e = (uint32 *) (h + 1);
		for (j = 0; j < n; j++, done++)
		{
			if (done < w->nextents)
			{
				e[2 * j] = w->extents[done].start;
				e[2 * j + 1] = w->extents[done].npages;
			}
			else
			{
				e[2 * j] = w->blobs[done - w->nextents].first;
				e[2 * j + 1] = w->blobs[done - w->nextents].length;
			}
		}
		((PageHeader) page)->pd_lower = (char *) (e + 2 * n) - (char *) page;
		WideWritePage(w->rel, blk[i], page, w->strategy);
	}
	*nheaders = npages;
	return blk[0];
}

/* damage found in the segment WideSegmentWriterCopyRun copies */
static void
copy_corrupt(Relation rel, uint32 segid, const char *what, uint64 where)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("wide table \"%s\": segment %u is damaged: %s at %llu",
					RelationGetRelationName(rel), segid, what,
					(unsigned long long) where),
			 errhint("Run wide.verify() on the table.")));
}

/*
 * WideSegmentWriterCopyRun -- write, as this (empty) writer's segment, a
 * page-by-page copy of the segment of "src": the same stream (blocks and
 * index), under the writer's new segment id, in pages the space map hands
 * out (lowest first), listing the same blobs, which stay where they are.
 * Fills in *run (src's descriptor with the new segment id and header).
 * Nothing is decoded: a move of a run (truncate.c) costs a copy of its pages.
 * The caller publishes "run" in place of src, as a compaction does.
 */
void
WideSegmentWriterCopyRun(WideSegmentWriter *w, const WideRunData *src,
						 WideRunData *run)
{
	MemoryContext old = MemoryContextSwitchTo(w->cxt);
	WideSegment *seg = WideSegmentLoad(w->rel, src->root, true);
	uint64		npages = 0;
	uint32		nheaders;
	int			i;

	Assert(w->run.ncells == 0 && w->nextents == 0);

	/*
	 * The copy writes a new header: damage a read of the source would meet
	 * in what the new header states afresh must stop the copy, or it would
	 * vanish from the table unreported (wide.verify reports what reads
	 * reject).  So the source is checked as WideSegmentOpen checks a run
	 * (its header names the run's segment and sequence numbers) and each
	 * page as a read checks it (a stream page of that segment); the blocks
	 * are copied as they are, their damage with them.
	 */
	if (seg->segid != src->segid || seg->max_seq + src->seq_base != src->max_seq)
		copy_corrupt(w->rel, src->segid, "header does not match the metapage",
					 src->root);
	for (i = 0; i < seg->nextents; i++)
		npages += seg->extents[i].npages;
	w->next_extent_size = (uint32) Max(Min(npages, MAX_EXTENT_PAGES), 1);
	for (i = 0; i < seg->nextents; i++)
	{
		uint32		j;

		for (j = 0; j < seg->extents[i].npages; j++)
		{
			Buffer		buf;

			CHECK_FOR_INTERRUPTS();
			buf = ReadBufferExtended(w->rel, MAIN_FORKNUM, seg->extents[i].start + j,
									 RBM_NORMAL, w->strategy);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			WideCheckPage(w->rel, buf, WIDE_PAGE_SEGMENT);
			if (WidePageGetOpaque(BufferGetPage(buf))->owner != src->segid)
			{
				BlockNumber blkno = BufferGetBlockNumber(buf);

				UnlockReleaseBuffer(buf);
				copy_corrupt(w->rel, src->segid, "page belongs to something else",
							 blkno);
			}
			memcpy(w->page, BufferGetPage(buf), BLCKSZ);
			UnlockReleaseBuffer(buf);

			if (w->nextents == 0 ||
				w->ext_used == w->extents[w->nextents - 1].npages)
				add_extent(w);
			WidePageGetOpaque((Page) w->page)->owner = w->segid;
			WideWritePage(w->rel, w->extents[w->nextents - 1].start + w->ext_used,
						  (Page) w->page, w->strategy);
			w->ext_used++;
		}
	}
	if (w->segid == 0)
		add_extent(w);			/* an empty stream still needs a segment id */

	/* the same blobs, the same header fields, the new extents */
	for (i = 0; i < seg->nblobs; i++)
	{
		if (w->nblobs == w->maxblobs)
		{
			w->maxblobs *= 2;
			w->blobs = repalloc(w->blobs, sizeof(WideBlobRef) * w->maxblobs);
		}
		w->blobs[w->nblobs++] = seg->blobs[i];
	}
	w->typlen = seg->typlen;
	w->stream_len = seg->stream_len;
	w->run.ncells = seg->ncells;
	w->run.max_seq = seg->max_seq;	/* the header's, before any base */
	*run = *src;
	run->segid = w->segid;
	run->root = write_header(w, seg->root_off, seg->root_len, &nheaders);
	run->npages = npages + nheaders;
	WideSegmentFree(seg);
	MemoryContextSwitchTo(old);
}

/*
 * WideSegmentWriterFinish -- write what is pending and the header; fill in
 * the run descriptor.  Returns false (and writes nothing) for an empty
 * segment.  The segment is not visible until the caller publishes "run".
 */
bool
WideSegmentWriterFinish(WideSegmentWriter *w, WideRunData *run)
{
	MemoryContext old = MemoryContextSwitchTo(w->cxt);
	WideIndexEntry *root;
	uint64		root_off;
	uint32		root_len;
	uint32		nheaders;

	if (w->run.ncells == 0)
	{
		MemoryContextSwitchTo(old);
		return false;
	}
	finish_data_block(w);
	finish_index_block(w);

	fix_entries(w->rentries, w->nrentries, &w->rarena);
	root = w->rentries;
	resetStringInfo(&w->raw);
	WideIndexEncode(root, w->nrentries, NULL, 0, &w->raw);
	root_off = store_block(w, &w->raw, false, &root_len);
	if (w->page_used > 0)
		flush_page(w);

	w->run.segid = w->segid;
	w->run.root = write_header(w, root_off, root_len, &nheaders);
	w->run.npages += nheaders;
	w->run.lo_len = Min(w->lo.len, WIDE_RUN_KEY_PREFIX);
	memcpy(w->run.lo_key, w->lo.data, w->run.lo_len);
	w->run.hi_len = Min(w->hi.len, WIDE_RUN_KEY_PREFIX);
	memcpy(w->run.hi_key, w->hi.data, w->run.hi_len);
	if (w->hi.len > WIDE_RUN_KEY_PREFIX)
		w->run.flags |= WIDE_RUN_HI_TRUNCATED;
	if (!w->repeats)
		w->run.flags |= WIDE_RUN_ONE_VERSION;
	if (!w->repeats_cell)
		w->run.flags |= WIDE_RUN_ONE_PER_CELL;
	w->run.flags |= WIDE_RUN_FAMILIES;
	*run = w->run;
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * WideSegmentWriterMoveBlobs -- copy the blobs of the records added from now
 * on that start at block "from" or beyond into new blobs (allocated low), so
 * that a relocated run takes its blobs along (truncate.c).  The caller
 * frees the old ones: they are not among WideSegmentWriterBlobs.
 */
void
WideSegmentWriterMoveBlobs(WideSegmentWriter *w, BlockNumber from)
{
	w->move_blobs_from = from;
}

/*
 * WideSegmentWriterBlobs -- the blobs the written records own.
 */
const WideBlobRef *
WideSegmentWriterBlobs(const WideSegmentWriter *w, int *n)
{
	*n = w->nblobs;
	return w->blobs;
}

/*
 * WideSegmentWriterEnd -- release the writer's memory.
 */
void
WideSegmentWriterEnd(WideSegmentWriter *w)
{
	FreeAccessStrategy(w->strategy);
	MemoryContextDelete(w->cxt);
}
