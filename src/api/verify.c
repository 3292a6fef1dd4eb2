/*-------------------------------------------------------------------------
 *
 * verify.c
 *	  wide.verify(tbl): check a wide table and report what is wrong.
 *
 * Checks, reporting each problem as a row (object, problem) and going on:
 *	- the metapage: magic, version, runs and free queue within the table;
 *	- every page is used by at most one thing;
 *	- write-area lanes: page types, generations, records that decode;
 *	- every run's segment: header pages, extents, every stored block's
 *	  checksum and encoding, records in cell order (equal only where two writes drew one sequence number), index
 *	  entries that match their blocks (last row, cell count, timestamp
 *	  bounds), every row present in its index block's filter, the root
 *	  matching the index blocks, owned blobs readable;
 *	- every run's descriptor in the metapage against its records (family
 *	  set, tombstone, one-version and one-per-cell flags, oldest xmin, key
 *	  bounds), which readers and VACUUM trust without reading them.
 * A damaged segment is reported, not read further; no error escapes (each
 * object is checked in a subtransaction).  An empty result means the table
 * is sound.  Needs table ownership; takes AccessShareLock.
 *
 * IDENTIFICATION
 *	  src/api/verify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/segment.h"
#include "engine/manifest.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_verify);

typedef struct Verify
{
	Relation	rel;
	ReturnSetInfo *rsinfo;
	BlockNumber nblocks;
	uint8	   *used;
	int			problems;
	bool		defer;			/* report() holds problems in pending */
	List	   *pending;		/* of pairs: object, problem */
} Verify;

static void
report(Verify *v, const char *object, const char *fmt,...)
	pg_attribute_printf(3, 4);

static void
report(Verify *v, const char *object, const char *fmt,...)
{
	StringInfoData buf;
	va_list		args;
	Datum		values[2];
	bool		nulls[2] = {0};

	initStringInfo(&buf);
	for (;;)
	{
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	if (v->defer)
	{
		v->pending = lappend(v->pending, pstrdup(object));
		v->pending = lappend(v->pending, buf.data);
		return;
	}
	values[0] = CStringGetTextDatum(object);
	values[1] = CStringGetTextDatum(buf.data);
	tuplestore_putvalues(v->rsinfo->setResult, v->rsinfo->setDesc, values, nulls);
	v->problems++;
}

/* claim pages for an object; report pages outside the table or used twice */
static void
claim(Verify *v, const char *object, BlockNumber start, uint32 n)
{
	uint32		i;

	for (i = 0; i < n; i++)
	{
		BlockNumber b = start + i;

		if (b >= v->nblocks)
		{
			report(v, object, "refers to block %u beyond the end of the table (%u blocks)",
				   b, v->nblocks);
			return;
		}
		if (v->used[b / 8] & (1 << (b % 8)))
			report(v, object, "uses block %u, which something else uses too", b);
		v->used[b / 8] |= 1 << (b % 8);
	}
}

static void verify_blob(Verify *v, const char *object, WideBlobRef ref);
static const char *blob_problem(Verify *v, WideBlobRef ref, BlockNumber *at);

/* the value of an aggregate record must be one its family can fold */
static bool
acc_value_ok(Verify *v, const WideCell *c)
{
	const WideSchema *schema = WideGetSchema(v->rel);
	int			i;

	if (c->kind != WIDE_KIND_ADD && c->kind != WIDE_KIND_MERGE)
		return true;
	for (i = 0; i < schema->nfamilies; i++)
	{
		const WideFamily *f = &schema->families[i];
		const char *value = c->value;
		uint32		vallen = c->vallen;
		bool		ok;

		if (f->id != c->famid)
			continue;
		if (value == NULL && (c->flags & WIDE_REC_VALUE_BLOB))
		{
			BlockNumber at;

			/* a bad blob is reported where its pages are checked */
			if (blob_problem(v, c->blob, &at) != NULL)
				return true;
			value = WideBlobRead(v->rel, c->blob);
			vallen = c->blob.length;
		}
		if (WideCellAggregate(f, c->qual, c->quallen) == WIDE_AGG_HLL &&
			c->kind == WIDE_KIND_MERGE)
			ok = value != NULL && WideHllCheck(value, vallen) == NULL;
		else if (WideCellAggregate(f, c->qual, c->quallen) == WIDE_AGG_DDS &&
				 c->kind == WIDE_KIND_MERGE)
			ok = value != NULL && WideDDSCheck(value, vallen) == NULL;
		else
		{
			/* an aggregate record in a plain family must hold an accumulator too */
			ok = vallen == sizeof(int64);
		}
		if (value != c->value)
			pfree((char *) value);
		return ok;
	}
	return true;
}

/* ----------------------------------------------------------------
 *	Write area
 * ----------------------------------------------------------------
 */
static void
verify_lane(Verify *v, const char *object, BlockNumber head, uint32 gen)
{
	BlockNumber blk = head;
	uint32		n = 0;

	while (blk != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;
		OffsetNumber off;

		if (blk == WIDE_META_BLKNO || blk >= v->nblocks || ++n > v->nblocks)
		{
			report(v, object, "chain reaches invalid block %u", blk);
			return;
		}
		buf = ReadBuffer(v->rel, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) || WidePageGetOpaque(page)->page_type != WIDE_PAGE_WRITE)
		{
			report(v, object, "block %u is not a write-area page", blk);
			UnlockReleaseBuffer(buf);
			return;
		}
		if (WidePageGetOpaque(page)->owner != gen)
			report(v, object, "block %u belongs to generation %u, not %u", blk,
				   WidePageGetOpaque(page)->owner, gen);
		for (off = FirstOffsetNumber; off <= PageGetMaxOffsetNumber(page); off++)
		{
			WideCell	c;
			Size		len;
			bool		bad;
			const char *rec = WideRecordItem(page, off, &len, &bad);

			if (bad)
			{
				report(v, object, "item %u of block %u lies outside the page", off, blk);
				break;
			}
			if (rec == NULL)
				continue;
			if (!WideRecordDecode(rec, len, &c))
				report(v, object, "record %u of block %u does not decode", off, blk);
			else if (!acc_value_ok(v, &c))
				report(v, object, "record %u of block %u holds a malformed aggregate value",
					   off, blk);
			else if (c.flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB))
				verify_blob(v, object, c.blob);
		}
		blk = WidePageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
	}
}

/* ----------------------------------------------------------------
 *	Segments
 * ----------------------------------------------------------------
 */
/*
 * blob_problem -- what is wrong with the pages of a blob, or NULL; *at is
 * the first bad block
 */
static const char *
blob_problem(Verify *v, WideBlobRef ref, BlockNumber *at)
{
	uint32		n = WideBlobPages(ref.length);
	uint32		i;

	*at = ref.first;
	if (ref.first == WIDE_META_BLKNO || (uint64) ref.first + n > v->nblocks)
		return "lies outside the table";
	for (i = 0; i < n; i++)
	{
		Buffer		buf = ReadBuffer(v->rel, ref.first + i);
		Page		page;
		const char *problem = NULL;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) || WidePageGetOpaque(page)->page_type != WIDE_PAGE_BLOB)
			problem = "is not a blob page";
		else if (WidePageGetOpaque(page)->owner != ref.first)
			problem = "belongs to another value";
		else if (((PageHeader) page)->pd_lower - MAXALIGN(SizeOfPageHeaderData) !=
				 Min(ref.length - i * WIDE_PAGE_CAPACITY, WIDE_PAGE_CAPACITY))
			problem = "holds the wrong number of bytes";
		UnlockReleaseBuffer(buf);
		if (problem)
		{
			*at = ref.first + i;
			return problem;
		}
	}
	return NULL;
}

static void
verify_blob(Verify *v, const char *object, WideBlobRef ref)
{
	BlockNumber at;
	const char *problem;

	claim(v, object, ref.first, WideBlobPages(ref.length));
	if (ref.first == WIDE_META_BLKNO ||
		(uint64) ref.first + WideBlobPages(ref.length) > v->nblocks)
		return;					/* claim() reported it */
	problem = blob_problem(v, ref, &at);
	if (problem)
		report(v, object, "block %u of the value at block %u %s",
			   at, ref.first, problem);
}

/* a blob a record refers to must be one the segment owns */
static void
verify_blob_ref(Verify *v, const char *object, const WideSegment *seg,
				WideBlobRef ref)
{
	int			i;

	for (i = 0; i < seg->nblobs; i++)
		if (seg->blobs[i].first == ref.first && seg->blobs[i].length == ref.length)
			return;
	report(v, object, "a record refers to a value at block %u the segment does not list",
		   ref.first);
}

/*
 * run_claims -- add record c (after prev, NULL for the first) to what a
 * run's descriptor says of its records, as segment_writer.c sets it: the
 * family set, tombstones, a column or a cell with two records, the oldest
 * xmin not frozen
 */
static void
run_claims(const WideCell *c, const WideCell *prev, uint32 *families,
		   bool *tombstones, bool *repeats, bool *repeats_cell,
		   TransactionId *min_xmin)
{
	bool		same_row = prev != NULL &&
		WideKeyCompare(prev->key, prev->keylen, c->key, c->keylen) == 0;

	*families |= c->kind == WIDE_KIND_DEL_ROW ? PG_UINT32_MAX : WideFamilyBit(c->famid);
	if (WIDE_KIND_IS_TOMBSTONE(c->kind))
		*tombstones = true;
	else if (same_row && WideCellLevel(prev) == WIDE_LEVEL_CELL &&
			 prev->ts == c->ts && WideCellSameColumn(prev, c))
		*repeats_cell = true;
	if (same_row && WideCellSameColumn(prev, c))
		*repeats = true;
	if (TransactionIdIsNormal(c->xmin) &&
		(!TransactionIdIsValid(*min_xmin) || TransactionIdPrecedes(c->xmin, *min_xmin)))
		*min_xmin = c->xmin;
}

/*
 * verify_run_claims -- the run's descriptor in the metapage against its
 * records: readers trust its flags (reader.c reads a run without the
 * merger by them, without visibility checks when min_xmin is invalid),
 * VACUUM its family set and key bounds, so a damaged descriptor would
 * give wrong answers without any error
 */
static void
verify_run_claims(Verify *v, const char *object, const WideRunData *run,
				  const char *lo, uint32 lolen, const char *hi, uint32 hilen,
				  uint32 families, bool tombstones, bool repeats, bool repeats_cell,
				  TransactionId min_xmin)
{
	if ((run->flags & WIDE_RUN_FAMILIES) && (families & ~run->families) != 0)
		report(v, object, "holds families its family set 0x%08x lacks (0x%08x)",
			   run->families, families & ~run->families);
	if (tombstones && !(run->flags & WIDE_RUN_HAS_TOMBSTONES))
		report(v, object, "holds tombstones, its flags say none");
	if (repeats && (run->flags & WIDE_RUN_ONE_VERSION))
		report(v, object, "has a column of two records, its flags say one version");
	if (repeats_cell && (run->flags & WIDE_RUN_ONE_PER_CELL))
		report(v, object, "has a cell of two records, its flags say one per cell");
	if (TransactionIdIsValid(min_xmin) &&
		(!TransactionIdIsValid(run->min_xmin) ||
		 TransactionIdPrecedes(min_xmin, run->min_xmin)))
		report(v, object, "holds xmin %u, older than its oldest xmin %u",
			   min_xmin, run->min_xmin);
	if (run->lo_len != Min(lolen, WIDE_RUN_KEY_PREFIX) ||
		memcmp(run->lo_key, lo, run->lo_len) != 0)
		report(v, object, "its smallest row key is not the one its descriptor gives");
	if (run->hi_len != Min(hilen, WIDE_RUN_KEY_PREFIX) ||
		memcmp(run->hi_key, hi, run->hi_len) != 0 ||
		((run->flags & WIDE_RUN_HI_TRUNCATED) != 0) != (hilen > WIDE_RUN_KEY_PREFIX))
		report(v, object, "its largest row key is not the one its descriptor gives");
}

static void
verify_segment(Verify *v, const char *object, const WideRunData *run)
{
	WideSegment *seg = WideSegmentLoad(v->rel, run->root, true);
	WideCell	prev;
	StringInfoData prevbuf;
	bool		have_prev = false;
	uint64		ncells = 0;
	uint64		max_seq = 0;
	uint32		families = 0;
	bool		tombstones = false;
	bool		repeats = false;
	bool		repeats_cell = false;
	TransactionId min_xmin = InvalidTransactionId;
	StringInfoData firstkey;
	int			i,
				j;

	initStringInfo(&prevbuf);
	initStringInfo(&firstkey);
	if (seg->segid != run->segid)
		report(v, object, "header names segment %u", seg->segid);
	if (seg->max_seq + run->seq_base != run->max_seq)
		report(v, object, "header's largest sequence number does not match the metapage");
	for (i = 0; i < seg->nroots; i++)
		claim(v, object, seg->roots[i], 1);
	for (i = 0; i < seg->nextents; i++)
		claim(v, object, seg->extents[i].start, seg->extents[i].npages);
	for (i = 0; i < seg->nblobs; i++)
		verify_blob(v, object, seg->blobs[i]);

	for (i = 0; i < seg->root->n; i++)
	{
		const WideIndexEntry *re = &seg->root->entries[i];
		Size		rawlen;
		char	   *raw = WideSegmentReadBlock(v->rel, seg, re->offset, re->length, &rawlen);
		WideIndex  *idx = WideIndexDecode(raw, rawlen, true);
		uint64		icells = 0;

		if (idx == NULL)
		{
			report(v, object, "index block at %llu does not decode",
				   (unsigned long long) re->offset);
			continue;
		}
		if (idx->n == 0 ||
			WideKeyCompare(idx->entries[idx->n - 1].lastrow, idx->entries[idx->n - 1].lastrowlen,
						   re->lastrow, re->lastrowlen) != 0)
			report(v, object, "root entry %d does not match its index block", i);
		for (j = 0; j < idx->n; j++)
		{
			const WideIndexEntry *e = &idx->entries[j];
			Size		blen;
			char	   *braw = WideSegmentReadBlock(v->rel, seg, e->offset, e->length, &blen);
			WideBlockIter bi = {0};
			WideCell	cc;
			WideCell   *c = &cc;
			uint64		n = 0;
			bool		bad_order = false;

			if (!WideBlockIterInit(&bi, braw, blen, seg->typlen,
								   seg->max_seq + run->seq_base, run->seq_base))
			{
				report(v, object, "data block at %llu does not decode",
					   (unsigned long long) e->offset);
				continue;
			}
			WideBlockIterSetEntry(&bi, e);
			while (WideBlockIterNext(&bi, c))
			{
				/*
				 * (equal is in order: writes of one cell by two backends may
				 * draw the same sequence number, seq.c, and be stored as two
				 * records that compare equal -- two equal inputs of an
				 * aggregate cell are even the same bytes)
				 */
				if (have_prev && WideCellCompare(&prev, c) > 0 && !bad_order)
				{
					report(v, object, "records out of order in the data block at %llu",
						   (unsigned long long) e->offset);
					bad_order = true;
				}
				if ((!have_prev || WideKeyCompare(prev.key, prev.keylen, c->key, c->keylen) != 0) &&
					!WideIndexMayContain(idx, WideRowHash(c->key, c->keylen)))
					report(v, object, "a row of the data block at %llu is missing from the row filter",
						   (unsigned long long) e->offset);
				if (!WIDE_KIND_IS_TOMBSTONE(c->kind) || c->kind == WIDE_KIND_DEL_CELLS)
					if (c->ts < e->ts_min || c->ts > e->ts_max)
						report(v, object, "a timestamp of the data block at %llu is outside its index bounds",
							   (unsigned long long) e->offset);
				if (c->flags & WIDE_REC_VALUE_BLOB)
					verify_blob_ref(v, object, seg, c->blob);
				if (!acc_value_ok(v, c))
					report(v, object, "a record of the data block at %llu holds a malformed aggregate value",
						   (unsigned long long) e->offset);
				max_seq = Max(max_seq, c->seq);
				run_claims(c, have_prev ? &prev : NULL, &families, &tombstones,
						   &repeats, &repeats_cell, &min_xmin);
				if (!have_prev)
					appendBinaryStringInfo(&firstkey, c->key, c->keylen);
				resetStringInfo(&prevbuf);
				appendBinaryStringInfo(&prevbuf, c->key, c->keylen);
				appendBinaryStringInfo(&prevbuf, c->family, c->famlen);
				appendBinaryStringInfo(&prevbuf, c->qual, c->quallen);
				prev = *c;
				prev.key = prevbuf.data;
				prev.family = prevbuf.data + c->keylen;
				prev.qual = prevbuf.data + c->keylen + c->famlen;
				have_prev = true;
				n++;
			}
			if (bi.error)
				report(v, object, "data block at %llu does not decode",
					   (unsigned long long) e->offset);
			if (n != e->ncells || n == 0)
				report(v, object, "data block at %llu has %llu cells, its index says %llu",
					   (unsigned long long) e->offset, (unsigned long long) n,
					   (unsigned long long) e->ncells);
			if (n > 0 && WideKeyCompare(prev.key, prev.keylen, e->lastrow, e->lastrowlen) != 0)
				report(v, object, "index entry of the data block at %llu names another last row",
					   (unsigned long long) e->offset);
			/* a reader skips blocks by it (segment_reader.c) */
			if (n > 0 && (e->flags & WIDE_INDEX_HAS_LASTCOL) &&
				(prev.kind < WIDE_KIND_DEL_CELLS || prev.famlen != e->lastfamlen ||
				 prev.quallen != e->lastquallen ||
				 memcmp(prev.family, e->lastfam, e->lastfamlen) != 0 ||
				 memcmp(prev.qual, e->lastqual, e->lastquallen) != 0))
				report(v, object, "index entry of the data block at %llu names another last column",
					   (unsigned long long) e->offset);
			WideBlockIterEnd(&bi);
			/* its stored row directory (rowdir.c) */
			if ((e->flags & WIDE_INDEX_ROW_DIR) && !bi.error)
			{
				Size		dlen;
				char	   *dir = WideSegmentReadBlock(v->rel, seg, e->offset + e->length,
													   e->dirlen, &dlen);
				const char *why = NULL;

				if (!WideRowDirCheck(braw, blen, seg->typlen, seg->max_seq + run->seq_base,
									 run->seq_base, e, dir, dlen, &why))
					report(v, object, "the row directory of the data block at %llu is damaged: %s",
						   (unsigned long long) e->offset, why);
				pfree(dir);
			}
			icells += n;
			ncells += n;
		}
		if (icells != re->ncells)
			report(v, object, "root entry %d counts %llu cells, its blocks hold %llu", i,
				   (unsigned long long) re->ncells, (unsigned long long) icells);
	}
	if (ncells != run->ncells || ncells != seg->ncells)
		report(v, object, "holds %llu cells, the metapage says %llu",
			   (unsigned long long) ncells, (unsigned long long) run->ncells);
	if (max_seq > seg->max_seq + run->seq_base)
		report(v, object, "a record's sequence number exceeds the segment's largest");
	if (ncells > 0)
		verify_run_claims(v, object, run, firstkey.data, firstkey.len,
						  prev.key, prev.keylen, families, tombstones, repeats,
						  repeats_cell, min_xmin);
}

/* run check(v, object, arg) in a subtransaction; report an error it raises */
static void
guarded(Verify *v, const char *object, void (*check) (Verify *, const char *, const void *),
		const void *arg)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		check(v, object, arg);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
		report(v, object, "%s", edata->message);
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

static void
check_segment(Verify *v, const char *object, const void *arg)
{
	verify_segment(v, object, (const WideRunData *) arg);
}

/* a freed segment: its header chain must still load (space.c reuses it) */
static void
check_free_segment(Verify *v, const char *object, const void *arg)
{
	WideSegmentFree(WideSegmentLoad(v->rel, *(const BlockNumber *) arg, false));
}

/* a freed chain of pages: npages links within the table */
static void
check_free_chain(Verify *v, const char *object, const void *arg)
{
	const WideFreeEntry *e = arg;
	BlockNumber blk = e->start;
	uint32		i;

	for (i = 0; i < e->npages; i++)
	{
		Buffer		buf;

		if (blk == WIDE_META_BLKNO || blk >= v->nblocks)
		{
			report(v, object, "chain reaches invalid block %u", blk);
			return;
		}
		buf = ReadBuffer(v->rel, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		blk = PageIsNew(BufferGetPage(buf)) ? InvalidBlockNumber :
			WidePageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}
}

typedef struct LaneArg
{
	BlockNumber head;
	uint32		gen;
} LaneArg;

static void
check_lane(Verify *v, const char *object, const void *arg)
{
	const LaneArg *l = arg;

	verify_lane(v, object, l->head, l->gen);
}

/*
 * Is the free queue entry still in the table's queue as it was?  An entry
 * whose stamp every snapshot had passed when verify read the metapage may
 * be handed out while verify reads its pages (an autovacuum's relocation or
 * a writer allocating): what verify found there then belongs to the new
 * owner, and the entry is gone or changed.
 */
static bool
free_entry_current(Verify *v, const WideFreeEntry *e)
{
	Buffer		metabuf = ReadBuffer(v->rel, WIDE_META_BLKNO);
	WideMetaPage meta;
	bool		found = false;
	uint32		i;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = WidePageGetMeta(BufferGetPage(metabuf));
	for (i = 0; i < meta->nfree && i < WIDE_FREE_SLOTS; i++)
	{
		const WideFreeEntry *f = &meta->free[i];

		if (f->kind == e->kind && f->start == e->start && f->npages == e->npages &&
			FullTransactionIdEquals(f->stamp, e->stamp))
		{
			found = true;
			break;
		}
	}
	UnlockReleaseBuffer(metabuf);
	return found;
}

/*
 * Check the pages of a SEGMENT or CHAIN entry of the free queue; report
 * what is wrong only if the entry is still queued after the check (see
 * free_entry_current).
 */
static void
check_free_entry(Verify *v, const char *object, const WideFreeEntry *e)
{
	ListCell   *lc;

	v->defer = true;
	if (e->kind == WIDE_FREE_SEGMENT)
		guarded(v, object, check_free_segment, &e->start);
	else
		guarded(v, object, check_free_chain, e);
	v->defer = false;
	if (v->pending != NIL && free_entry_current(v, e))
	{
		for (lc = list_head(v->pending); lc != NULL; lc = lnext(v->pending, lc))
		{
			const char *obj = lfirst(lc);

			lc = lnext(v->pending, lc);
			report(v, obj, "%s", (const char *) lfirst(lc));
		}
	}
	list_free_deep(v->pending);
	v->pending = NIL;
}

/*
 * wide.verify(tbl regclass) RETURNS TABLE (object text, problem text)
 */
Datum
wide_verify(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Verify		v = {0};
	Buffer		metabuf;
	WideMetaPageData meta;
	int			i;
	char		object[64];
	char		problem[128];

	InitMaterializedSRF(fcinfo, 0);
	v.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	v.rel = WideOpenOwned(relid, AccessShareLock);

	v.nblocks = RelationGetNumberOfBlocks(v.rel);
	if (v.nblocks == 0)
	{
		relation_close(v.rel, AccessShareLock);
		return (Datum) 0;
	}
	v.used = palloc0(v.nblocks / 8 + 1);
	metabuf = ReadBuffer(v.rel, WIDE_META_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	if (WideMetaLost(v.rel, metabuf))
	{
		/* an empty table: its metapage's creation was lost in a crash */
		UnlockReleaseBuffer(metabuf);
		relation_close(v.rel, AccessShareLock);
		return (Datum) 0;
	}
	memcpy(&meta, WidePageGetMeta(BufferGetPage(metabuf)), sizeof(meta));
	if (WidePageGetOpaque(BufferGetPage(metabuf))->page_type != WIDE_PAGE_META ||
		meta.magic != WIDE_MAGIC || meta.version < WIDE_FORMAT_OLDEST ||
		meta.version > WIDE_FORMAT_VERSION)
	{
		UnlockReleaseBuffer(metabuf);
		report(&v, "metapage", "block 0 is not a wide metapage of format version %d to %d",
			   WIDE_FORMAT_OLDEST, WIDE_FORMAT_VERSION);
		relation_close(v.rel, AccessShareLock);
		return (Datum) 0;
	}
	UnlockReleaseBuffer(metabuf);
	claim(&v, "metapage", WIDE_META_BLKNO, 1);
	/* the checks every reader makes (manifest.c) */
	if (WideManifestProblem(&meta, problem, sizeof(problem)) != NULL)
	{
		report(&v, "metapage", "%s", problem);
		relation_close(v.rel, AccessShareLock);
		return (Datum) 0;
	}

	for (i = 0; i < WIDE_NLANES; i++)
	{
		LaneArg		l = {meta.lanes[i].head, meta.generation};

		snprintf(object, sizeof(object), "write area lane %d", i);
		guarded(&v, object, check_lane, &l);
		if (meta.flushing != 0)
		{
			LaneArg		f = {meta.flush_lanes[i].head, meta.flushing};

			snprintf(object, sizeof(object), "sealed write area lane %d", i);
			guarded(&v, object, check_lane, &f);
		}
	}
	for (i = 0; i < (int) meta.nruns; i++)
	{
		snprintf(object, sizeof(object), "run %d (segment %u)", i + 1, meta.runs[i].segid);
		guarded(&v, object, check_segment, &meta.runs[i]);
	}
	for (i = 0; i < (int) meta.nwaruns && i < WIDE_MAX_WA_RUNS; i++)
	{
		snprintf(object, sizeof(object), "write area run %d (segment %u)", i + 1,
				 meta.waruns[i].segid);
		guarded(&v, object, check_segment, &meta.waruns[i]);
	}
	for (i = 0; i < (int) meta.nfree; i++)
	{
		WideFreeEntry *e = &meta.free[i];

		snprintf(object, sizeof(object), "free queue entry %d", i + 1);
		if (e->kind == WIDE_FREE_EXTENT)
			claim(&v, object, e->start, e->npages);
		else if (e->start >= v.nblocks)
			report(&v, object, "refers to block %u beyond the end of the table", e->start);
		else if (e->kind == WIDE_FREE_SEGMENT || e->kind == WIDE_FREE_CHAIN)
			check_free_entry(&v, object, e);
	}

	relation_close(v.rel, AccessShareLock);
	return (Datum) 0;
}
