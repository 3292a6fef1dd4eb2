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
 * wait for a running flush or compaction and flush themselves (vacuum.c),
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
#include "manifest.h"

int			wide_flush_threshold = 2048;	/* pages (16 MB) */

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

static bool
sorter_next(void *arg, WideCell *cell)
{
	return WideSorterNext((WideSorter *) arg, cell);
}

static bool
seg_next(void *arg, WideCell *cell)
{
	return WideSegIterNext((WideSegIter *) arg, cell);
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
	WideSchema *schema = WideSchemaCopy(rel);
	Buffer		metabuf;
	WideManifestTx tx;
	WideMetaPage meta;
	WideLane	sealed[WIDE_NLANES];
	BlockNumber heads[WIDE_NLANES];
	uint32		gens[WIDE_NLANES];
	WideRunData waruns[WIDE_MAX_WA_RUNS];
	int			nwaruns = 0;
	uint32		gen;
	bool		bottom;
	bool		lanes_empty = true;
	WideWAScan *scan;
	WideSorter *sorter;
	WideSegmentWriter *w = NULL;
	WideResolver *resolver;
	WideMergeIter *merge;
	WideSegIter *its[WIDE_MAX_WA_RUNS];
	WideCell	cell;
	BlobList	had = {0};
	WideRunData run;
	bool		have_run = false;
	const WideBlobRef *kept = NULL;
	int			nkept = 0;
	WideKeyRange all = {0};
	int			i;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}
	UnlockReleaseBuffer(metabuf);

	/* leave room for the runs this flush may add */
	WideCompactForRoom(rel, WIDE_MAX_WA_RUNS + 1);

	/* 1. seal the current generation (or take one a failed flush sealed) */
	meta = WideManifestBegin(rel, &tx);
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
			MemoryContextSwitchTo(old);
			MemoryContextDelete(cxt);
			return false;
		}
		meta->flushing = meta->generation;
		for (i = 0; i < WIDE_NLANES; i++)
		{
			meta->flush_lanes[i] = meta->lanes[i];
			meta->lanes[i].head = InvalidBlockNumber;
			meta->lanes[i].npages = 0;
		}
		meta->generation++;
	}
	gen = meta->flushing;
	for (i = 0; i < WIDE_NLANES; i++)
	{
		sealed[i] = meta->flush_lanes[i];
		heads[i] = sealed[i].head;
		gens[i] = gen;
		lanes_empty &= (heads[i] == InvalidBlockNumber);
	}
	for (i = 0; i < (int) meta->nwaruns; i++)
		if (meta->waruns[i].gen == gen)
			waruns[nwaruns++] = meta->waruns[i];
	bottom = (meta->nruns == 0);
	(void) WideManifestCommit(&tx);

	/*
	 * 2. Without lane records, the generation's bulk-loaded runs become runs
	 * as they are (each is one write, in order).  Otherwise everything is
	 * read, sorted, resolved and written as one run.
	 */
	if (!lanes_empty)
	{
		sorter = WideSorterBegin();
		scan = WideWAScanBegin(rel, NULL, heads, gens, WIDE_NLANES);
		while (WideWAScanNext(scan, &cell))
		{
			if (cell.flags & WIDE_REC_BODY_BLOB)
			{
				/* the body was read; its blob is consumed by this flush */
				blob_add(&had, cell.blob);
				cell.flags &= ~WIDE_REC_BODY_BLOB;
				if (cell.vallen > WIDE_WA_MAX_INLINE)
				{
					cell.blob = WideBlobWrite(rel, cell.value, cell.vallen);
					cell.flags |= WIDE_REC_VALUE_BLOB;
					cell.value = NULL;
					blob_add(&had, cell.blob);
				}
			}
			else if (cell.flags & WIDE_REC_VALUE_BLOB)
				blob_add(&had, cell.blob);
			WideSorterAdd(sorter, &cell);
		}
		WideWAScanEnd(scan);
		WideSorterDone(sorter);

		merge = WideMergeIterCreate(nwaruns + 1);
		WideMergeIterAdd(merge, sorter_next, sorter, WIDE_MAX_WA_RUNS + 1);
		for (i = 0; i < nwaruns; i++)
		{
			WideSegment *seg;
			int			j;

			its[i] = WideSegIterBegin(rel, &waruns[i], &all);
			WideMergeIterAdd(merge, seg_next, its[i], i);
			seg = WideSegIterSegment(its[i]);
			for (j = 0; j < seg->nblobs; j++)
				blob_add(&had, seg->blobs[j]);
		}

		w = WideSegmentWriterBegin(rel, schema->vallen);
		resolver = WideResolverCreate(rel, schema, bottom, WideGCNow(), w);
		{
			const WideCell *c;

			while ((c = WideMergeIterNext(merge)) != NULL)
				WideResolverPush(resolver, c);
		}
		(void) WideResolverFinish(resolver);
		have_run = WideSegmentWriterFinish(w, &run);
		kept = WideSegmentWriterBlobs(w, &nkept);
		for (i = 0; i < nwaruns; i++)
			WideSegIterEnd(its[i]);
		WideSorterEnd(sorter);
	}

	/* 3. publish */
	/* standby snapshots older than the horizon used (manifest.c, M5) */
	WideManifestLogHorizon(rel);
	meta = WideManifestBegin(rel, &tx);
	if (meta->nruns + (have_run ? 1 : 0) + (lanes_empty ? nwaruns : 0) > WIDE_MAX_RUNS)
		elog(ERROR, "no room for more runs in \"%s\"", RelationGetRelationName(rel));
	if (lanes_empty)
	{
		for (i = 0; i < nwaruns; i++)
			WideManifestAppendRun(rel, meta, &waruns[i]);
	}
	else
	{
		if (have_run)
			WideManifestAppendRun(rel, meta, &run);
		for (i = 0; i < nwaruns; i++)
			(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, waruns[i].root, 0);
		WideFreeBlobsNotKept(meta, had.refs, had.n, kept, nkept);
	}
	WideManifestDropWARuns(meta, gen);
	for (i = 0; i < WIDE_NLANES; i++)
	{
		if (sealed[i].head != InvalidBlockNumber)
			(void) WideSpaceFree(meta, WIDE_FREE_CHAIN, sealed[i].head,
								 sealed[i].npages);
		meta->flush_lanes[i].head = InvalidBlockNumber;
		meta->flush_lanes[i].npages = 0;
	}
	meta->flushing = 0;
	meta->version_counter++;
	meta->flushes++;
	(void) WideManifestCommit(&tx);

	if (w)
		WideSegmentWriterEnd(w);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return true;
}
