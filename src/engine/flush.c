/*-------------------------------------------------------------------------
 *
 * flush.c
 *	  Flush: the write area becomes the newest run.
 *
 * 1. Under an exclusive metapage lock, the current generation of the write
 *    area is sealed: its lanes move to "flush_lanes", the lanes start empty
 *    and the generation number goes up.  Appenders take their sequence
 *    numbers under the metapage lock (writearea.c), so every sealed record
 *    is older, in write order, than every record appended afterwards.
 * 2. The sealed records are read, sorted, and written through the resolver
 *    (resolve.c) into a new segment.  Readers meanwhile read the sealed
 *    lanes as part of the write area.
 * 3. Under the metapage lock again, in one WAL record: the segment becomes
 *    the newest run, the sealed lanes and the blobs of dropped records go to
 *    the free queue, "flush_lanes" is cleared.
 * A crash or error between 1 and 3 leaves the sealed lanes in place (still
 * read, flushed again next time); the pages of the unpublished segment are
 * reclaimed by VACUUM's sweep.
 *
 * Memory: the sealed records are sorted in memory; the write area is
 * flushed when it reaches wide.flush_threshold, which bounds it.
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
	GenericXLogState *state;
	WideMetaPage meta;
	WideLane	sealed[WIDE_NLANES];
	BlockNumber heads[WIDE_NLANES];
	uint32		gens[WIDE_NLANES];
	bool		bottom;
	WideWAScan *scan;
	WideSorter *sorter;
	WideSegmentWriter *w;
	WideResolver *resolver;
	WideCell	cell;
	BlobList	had = {0};
	WideRunData run;
	bool		have_run;
	const WideBlobRef *kept;
	int			nkept;
	int			i;

	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}
	UnlockReleaseBuffer(metabuf);

	/* leave room for one more run */
	WideCompactForRoom(rel);

	/* 1. seal the current generation (or take one a failed flush sealed) */
	metabuf = WideReadMeta(rel, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(rel);
	meta = WidePageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
	if (meta->flushing == 0)
	{
		bool		any = false;

		for (i = 0; i < WIDE_NLANES; i++)
			any |= meta->lanes[i].head != InvalidBlockNumber;
		if (!any)
		{
			GenericXLogAbort(state);
			UnlockReleaseBuffer(metabuf);
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
	for (i = 0; i < WIDE_NLANES; i++)
	{
		sealed[i] = meta->flush_lanes[i];
		heads[i] = sealed[i].head;
		gens[i] = meta->flushing;
	}
	bottom = (meta->nruns == 0);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(metabuf);

	/* 2. read, sort, resolve and write */
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

	w = WideSegmentWriterBegin(rel, schema->vallen);
	resolver = WideResolverCreate(rel, schema, bottom, WideGCNow(), w);
	while (WideSorterNext(sorter, &cell))
		WideResolverPush(resolver, &cell);
	(void) WideResolverFinish(resolver);
	have_run = WideSegmentWriterFinish(w, &run);
	kept = WideSegmentWriterBlobs(w, &nkept);

	/* 3. publish */
	metabuf = WideReadMeta(rel, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(rel);
	meta = WidePageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
	if (have_run)
	{
		if (meta->nruns >= WIDE_MAX_RUNS)
			elog(ERROR, "no room for another run in \"%s\"",
				 RelationGetRelationName(rel));
		meta->runs[meta->nruns++] = run;
	}
	for (i = 0; i < WIDE_NLANES; i++)
	{
		if (sealed[i].head != InvalidBlockNumber)
			(void) WideSpaceFree(meta, WIDE_FREE_CHAIN, sealed[i].head,
								 sealed[i].npages);
		meta->flush_lanes[i].head = InvalidBlockNumber;
		meta->flush_lanes[i].npages = 0;
	}
	WideFreeBlobsNotKept(meta, had.refs, had.n, kept, nkept);
	meta->flushing = 0;
	meta->version_counter++;
	meta->flushes++;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(metabuf);

	WideSegmentWriterEnd(w);
	WideSorterEnd(sorter);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return true;
}
