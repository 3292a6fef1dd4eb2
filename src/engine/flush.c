/*-------------------------------------------------------------------------
 *
 * flush.c
 *	  Flush: the write area becomes the newest run.
 *
 * 1. Under an exclusive metapage lock, the current generation of the write
 *    area is sealed: its lanes move to "flush_lanes", the lanes start empty
 *    and the generation number goes up.  Appenders (and bulk loads
 *    registering a run, bulk.c) take their sequence numbers under the
 *    metapage lock, so every sealed record is older, in write order, than
 *    every record written afterwards.
 * 2. If the generation has no lane records, its bulk-loaded runs simply
 *    become runs.  Otherwise its lane records are read and sorted, merged
 *    with its bulk-loaded runs, and written through the resolver
 *    (resolve.c) into a new segment.  Readers meanwhile read the sealed
 *    generation as part of the write area.
 * 3. Under the metapage lock again, in one WAL record: the new run(s) are
 *    listed, the sealed lanes, the merged bulk runs and the blobs of
 *    dropped records go to the free queue, "flush_lanes" is cleared.
 * A crash or error between 1 and 3 leaves the sealed lanes in place (still
 * read, flushed again next time); the pages of the unpublished segment are
 * reclaimed by VACUUM's sweep.
 *
 * Memory: the sealed records are sorted in memory.  Writers flush the
 * write area when it reaches wide.flush_threshold, and past twice that they
 * wait for a running flush or compaction and flush themselves (am/write.c),
 * so a generation, and the memory its flush sorts, stays within about twice
 * wide.flush_threshold (16 MB by default) whatever the table's size.
 *
 * REQUIRES: the caller holds ShareUpdateExclusiveLock on the relation (the
 * lock VACUUM takes), so flushes and compactions never run concurrently.
 *
 * IDENTIFICATION
 *	  src/engine/flush.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/cell.h"
#include "engine/sort.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/writearea.h"
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/manifest.h"

int			wide_flush_threshold = 2048;	/* pages (16 MB) */

typedef struct BlobList
{
	WideBlobRef *refs;
	int			n;
	int			max;
} BlobList;

static void
blob_add(BlobList *l, WideBlobRef ref)
{
	if (l->n == l->max)
	{
		l->max = Max(16, l->max * 2);
		l->refs = l->refs ? repalloc(l->refs, sizeof(WideBlobRef) * l->max) :
			palloc(sizeof(WideBlobRef) * l->max);
	}
	l->refs[l->n++] = ref;
}

/* what a flush carries from one step to the next */
typedef struct FlushState
{
	Relation	rel;
	WideSchema *schema;			/* the committed catalog */
	uint32		gen;			/* the sealed generation */
	bool		bottom;			/* no run existed when it was sealed */
	bool		lanes_empty;	/* it has no lane records */
	WideLane	sealed[WIDE_NLANES];
	WideRunData waruns[WIDE_MAX_WA_RUNS];	/* its bulk-loaded runs */
	int			nwaruns;
	BlobList	had;			/* blobs of the input */
	WideSegmentWriter *w;		/* the new segment, if one was written */
	WideRunData run;
	bool		have_run;
	const WideBlobRef *kept;	/* blobs of the new segment */
	int			nkept;
	WideResolveStats stats;		/* what the resolver kept and dropped */
} FlushState;

/*
 * seal_generation -- step 1: seal the current generation (or take one a
 * failed flush sealed) and note what it holds.  Returns false if the write
 * area is empty.
 */
static bool
seal_generation(FlushState *fs)
{
	WideManifestTx tx;
	WideMetaPage meta;
	int			i;

	meta = WideManifestBegin(fs->rel, &tx);
	if (meta->flushing == 0)
	{
		bool		any = false;

		for (i = 0; i < WIDE_NLANES; i++)
			any |= meta->lanes[i].head != InvalidBlockNumber;
		for (i = 0; i < (int) meta->nwaruns; i++)
			any |= meta->waruns[i].gen == meta->generation;
		if (!any)
		{
			WideManifestAbort(&tx);
			return false;
		}
		WideManifestSealGeneration(meta);
	}
	fs->gen = meta->flushing;
	fs->lanes_empty = true;
	for (i = 0; i < WIDE_NLANES; i++)
	{
		fs->sealed[i] = meta->flush_lanes[i];
		fs->lanes_empty &= (fs->sealed[i].head == InvalidBlockNumber);
	}
	fs->nwaruns = 0;
	for (i = 0; i < (int) meta->nwaruns; i++)
		if (meta->waruns[i].gen == fs->gen)
			fs->waruns[fs->nwaruns++] = meta->waruns[i];
	fs->bottom = (meta->nruns == 0);
	(void) WideManifestCommit(&tx);
	return true;
}

/*
 * sort_lanes -- read the sealed lanes' records into a sorter, noting the
 * blobs they own; a body read from a blob is written back as a value blob
 * when its value is too long to stay inline.
 */
static WideSorter *
sort_lanes(FlushState *fs)
{
	WideSorter *sorter = WideSorterBegin();
	BlockNumber heads[WIDE_NLANES];
	uint32		gens[WIDE_NLANES];
	WideWAScan *scan;
	WideCell	cell;
	int			i;

	for (i = 0; i < WIDE_NLANES; i++)
	{
		heads[i] = fs->sealed[i].head;
		gens[i] = fs->gen;
	}
	scan = WideWAScanBegin(fs->rel, NULL, heads, gens, WIDE_NLANES);
	while (WideWAScanNext(scan, &cell))
	{
		if (cell.flags & WIDE_REC_BODY_BLOB)
		{
			/* the body was read; its blob is consumed by this flush */
			blob_add(&fs->had, cell.blob);
			cell.flags &= ~WIDE_REC_BODY_BLOB;
			if (cell.vallen > WIDE_WA_MAX_INLINE)
			{
				cell.blob = WideBlobWrite(fs->rel, cell.value, cell.vallen);
				cell.flags |= WIDE_REC_VALUE_BLOB;
				cell.value = NULL;
				blob_add(&fs->had, cell.blob);
			}
		}
		else if (cell.flags & WIDE_REC_VALUE_BLOB)
			blob_add(&fs->had, cell.blob);
		WideSorterAdd(sorter, &cell);
	}
	WideWAScanEnd(scan);
	WideSorterDone(sorter);
	return sorter;
}

/*
 * write_generation -- step 2 with lane records: merge the sorted lane
 * records with the generation's bulk-loaded runs and write them, resolved,
 * as one new segment.
 */
static void
write_generation(FlushState *fs)
{
	WideSorter *sorter = sort_lanes(fs);
	WideMergeIter *merge;
	WideSegIter *its[WIDE_MAX_WA_RUNS];
	WideResolver *resolver;
	WideKeyRange all = {0};
	const WideCell *c;
	int			i;

	merge = WideMergeIterCreate(fs->nwaruns + 1);
	WideMergeIterAdd(merge, WideSorterSource, sorter, WIDE_MAX_WA_RUNS + 1);
	for (i = 0; i < fs->nwaruns; i++)
	{
		WideSegment *seg;
		int			j;

		its[i] = WideSegIterBegin(fs->rel, &fs->waruns[i], &all);
		WideMergeIterAdd(merge, WideSegIterSource, its[i], i);
		seg = WideSegIterSegment(its[i]);
		for (j = 0; j < seg->nblobs; j++)
			blob_add(&fs->had, seg->blobs[j]);
	}

	fs->w = WideSegmentWriterBegin(fs->rel, fs->schema->vallen);
	resolver = WideResolverCreate(fs->rel, fs->schema, fs->bottom, WideGCNow(),
								  fs->w);
	while ((c = WideMergeIterNext(merge)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		WideResolverPush(resolver, c);
	}
	fs->stats = WideResolverFinish(resolver);
	fs->have_run = WideSegmentWriterFinish(fs->w, &fs->run);
	fs->kept = WideSegmentWriterBlobs(fs->w, &fs->nkept);
	for (i = 0; i < fs->nwaruns; i++)
		WideSegIterEnd(its[i]);
	WideSorterEnd(sorter);
}

/*
 * publish_flush -- step 3: list the new run(s) and free what the flush
 * consumed, in one WAL record.
 */
static void
publish_flush(FlushState *fs)
{
	WideManifestTx tx;
	WideMetaPage meta;
	int			i;

	/* standby snapshots older than the horizon used (manifest.c, M5) */
	WideManifestLogHorizon(fs->rel);
	meta = WideManifestBegin(fs->rel, &tx);
	if (meta->nruns + (fs->have_run ? 1 : 0) +
		(fs->lanes_empty ? fs->nwaruns : 0) > WIDE_MAX_RUNS)
		elog(ERROR, "no room for more runs in \"%s\"",
			 RelationGetRelationName(fs->rel));
	if (fs->lanes_empty)
	{
		for (i = 0; i < fs->nwaruns; i++)
			WideManifestAppendRun(fs->rel, meta, &fs->waruns[i]);
	}
	else
	{
		if (fs->have_run)
			WideManifestAppendRun(fs->rel, meta, &fs->run);
		for (i = 0; i < fs->nwaruns; i++)
			(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, fs->waruns[i].root, 0);
		WideFreeBlobsNotKept(meta, fs->had.refs, fs->had.n, fs->kept, fs->nkept);
	}
	WideManifestDropWARuns(meta, fs->gen);
	for (i = 0; i < WIDE_NLANES; i++)
	{
		if (fs->sealed[i].head != InvalidBlockNumber)
			(void) WideSpaceFree(meta, WIDE_FREE_CHAIN, fs->sealed[i].head,
								 fs->sealed[i].npages);
	}
	WideManifestFinishFlush(meta);
	(void) WideManifestCommit(&tx);

	/* what it did, for wide.compact and VACUUM VERBOSE (summary.c) */
	WideMaintTotals.flushes++;
	if (fs->lanes_empty)
		WideMaintTotals.runs_out += fs->nwaruns;	/* listed as they are */
	else
	{
		for (i = 0; i < WIDE_NLANES; i++)
			WideMaintTotals.bytes_read += (int64) fs->sealed[i].npages * BLCKSZ;
		for (i = 0; i < fs->nwaruns; i++)
			WideMaintTotals.bytes_read += (int64) fs->waruns[i].npages * BLCKSZ;
		WideMaintTotals.cells_in += fs->stats.seen;
		if (fs->have_run)
		{
			WideMaintTotals.runs_out++;
			WideMaintTotals.bytes_written += (int64) fs->run.npages * BLCKSZ;
			WideMaintTotals.cells_out += fs->run.ncells;
		}
		WideMaintAddResolved(&fs->stats);
	}
}

/*
 * WideFlush -- move the write area into a new run.  Returns false if there
 * was nothing to flush.
 */
bool
WideFlush(Relation rel)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "wide flush",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	FlushState	fs = {0};
	Buffer		metabuf;

	fs.rel = rel;
	fs.schema = WideSchemaCommitted(rel);

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}
	UnlockReleaseBuffer(metabuf);

	/* 1. seal the current generation (or take one a failed flush sealed) */
	if (!seal_generation(&fs))
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}

	/*
	 * Leave room for the runs this flush adds: its bulk-loaded runs as they
	 * are, or one.  Counted once the generation is sealed (nothing joins it
	 * after), not as the most any generation may add: VACUUM after a COPY
	 * that left 16 runs and 8 bulk runs in the write area merged 3 runs for
	 * room, whose records the policy's merge then read a second time.
	 */
	WideCompactForRoom(rel, fs.lanes_empty ? Max(fs.nwaruns, 1) : 1);

	/*
	 * 2. Without lane records, the generation's bulk-loaded runs become runs
	 * as they are (each is one write, in order).  Otherwise everything is
	 * read, sorted, resolved and written as one run.
	 */
	if (!fs.lanes_empty)
		write_generation(&fs);

	/* 3. publish */
	publish_flush(&fs);

	if (fs.w)
		WideSegmentWriterEnd(fs.w);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return true;
}
