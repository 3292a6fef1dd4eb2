/*-------------------------------------------------------------------------
 *
 * rewrite.c
 *	  VACUUM FULL: the whole table rewritten into new storage as one major
 *	  compaction.
 *
 * The source is everything the table's metapage lists: the write area's
 * lanes (the current generation and one a failed flush sealed), its
 * bulk-loaded runs and all runs.  They are merged in cell order (newer
 * sources first among equal records, as a reader merges them) and pushed
 * through the resolver (resolve.c) of a compaction of the oldest run, so
 * the rules are exactly those of wide.compact(major => true): records of
 * aborted transactions, deleted, superseded, collected and dropped-family
 * records go, frozen tombstones go, aggregates fold, and what every snapshot
 * sees is frozen.  Records not yet visible to every snapshot (a transaction
 * that committed after an open snapshot was taken, or one still in
 * progress) are kept with their xmin, so MVCC holds across the rewrite.
 * The output is one segment in the new relation (values kept in blobs are
 * copied into blobs of the new relation), listed as its only run; the free
 * pages at the end of the new file are cut off, so the file is the
 * metapage and the segment.  (Copied blobs are placed at the end of the
 * stream's current extent when they fit, so the only free pages left
 * inside the file are the unused middle of the last extent when blobs
 * fill its end: fewer than its size, at most 1024 pages, and reused by
 * later writes.)
 *
 * Sequence numbers are kept: every later write numbers above them (seq.c),
 * so the order of runs still holds.  Pages of the new relation go through
 * WideWritePage and Generic WAL, which log them unless RelationNeedsWAL is
 * false (wal_level=minimal and storage created in this transaction; then
 * the commit syncs the file, as for the heap's rewrite).
 *
 * REQUIRES: AccessExclusiveLock on both relations (cluster.c takes it);
 * "dst" has no blocks yet.
 *
 * IDENTIFICATION
 *	  src/engine/rewrite.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/storage.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "engine/drops.h"
#include "engine/format.h"
#include "engine/cell.h"
#include "engine/sort.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/writearea.h"
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/manifest.h"
#include "engine/rangedel.h"

/*
 * trim_tail -- give back the free pages at the end of the new storage (the
 * unused end of the segment's last extent): nobody else can see it, so
 * they need not wait in the queue.
 */
static void
trim_tail(Relation dst)
{
	WideManifestTx tx;
	WideMetaPage meta = WideManifestBegin(dst, &tx);
	BlockNumber nblocks = RelationGetNumberOfBlocks(dst);
	BlockNumber keep = WideSpaceTrimTail(meta, nblocks);
	if (keep == nblocks)
	{
		WideManifestAbort(&tx);
		return;
	}
	(void) WideManifestCommit(&tx);
	RelationTruncate(dst, keep);
}

/*
 * WideRewrite -- write what "src" holds, resolved as by a major compaction,
 * into the empty relation "dst" as its one run.  Returns the resolver's
 * statistics.
 */
WideResolveStats
WideRewrite(Relation src, Relation dst)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "wide rewrite",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WideResolveStats stats = {0};
	WideSchema *schema;
	Buffer		metabuf;
	WideRunData runs[WIDE_MAX_RUNS];
	int			nruns;
	WideRunData waruns[WIDE_MAX_WA_RUNS];
	int			nwaruns;
	BlockNumber heads[2 * WIDE_NLANES];
	uint32		gens[2 * WIDE_NLANES];
	int			nlanes;
	WideSorter *sorter;
	WideMergeIter *merge;
	WideSegIter **its;
	int			nits = 0;
	WideKeyRange all = {0};
	WideSegmentWriter *w;
	WideResolver *resolver;
	const WideCell *c;
	WideRunData run;
	int			i;

	/* the source's state */
	metabuf = WideReadMeta(src, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
	{
		/* no metapage: an empty table, and so is the new one */
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return stats;
	}
	{
		WideMetaPage meta = WidePageGetMeta(BufferGetPage(metabuf));

		nruns = meta->nruns;
		memcpy(runs, meta->runs, sizeof(WideRunData) * nruns);
		nwaruns = meta->nwaruns;
		memcpy(waruns, meta->waruns, sizeof(WideRunData) * nwaruns);
		nlanes = WideManifestLanes(meta, heads, gens);
	}
	UnlockReleaseBuffer(metabuf);

	/* the write area's records, all of them, sorted */
	sorter = WideSorterBegin();
	{
		WideWAScan *scan = WideWAScanBegin(src, NULL, heads, gens, nlanes);
		WideCell	cell;

		while (WideWAScanNext(scan, &cell))
			WideSorterAdd(sorter, &cell);
		WideWAScanEnd(scan);
	}
	WideSorterDone(sorter);

	/* merged with every run, newer sources first among equal records */
	merge = WideMergeIterCreate(nruns + nwaruns + 1);
	its = palloc(sizeof(WideSegIter *) * (nruns + nwaruns + 1));
	WideMergeIterAdd(merge, WideSorterSource, sorter,
					 WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS + 1);
	for (i = 0; i < nwaruns; i++)
	{
		its[nits] = WideSegIterBegin(src, &waruns[i], &all);
		WideMergeIterAdd(merge, WideSegIterSource, its[nits++], WIDE_MAX_RUNS + i);
	}
	for (i = 0; i < nruns; i++)
	{
		its[nits] = WideSegIterBegin(src, &runs[i], &all);
		WideMergeIterAdd(merge, WideSegIterSource, its[nits++], i);
	}

	/* resolved as at the bottom of the tree, written into dst */
	schema = WideSchemaCommitted(src);
	w = WideSegmentWriterBegin(dst, schema->vallen);
	WideSegmentWriterCopyBlobs(w, src);
	resolver = WideResolverCreate(src, schema, true, WideGCNow(), w);
	while ((c = WideMergeIterNext(merge)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		WideResolverPush(resolver, c);
	}
	stats = WideResolverFinish(resolver);

	if (WideSegmentWriterFinish(w, &run))
	{
		WideManifestTx tx;
		WideMetaPage meta;

		/* standby snapshots older than the horizon used (manifest.c, M5) */
		WideManifestLogHorizon(dst);
		meta = WideManifestBegin(dst, &tx);
		WideManifestAppendRun(dst, meta, &run);
		WideManifestNoteCompaction(meta);
		(void) WideManifestCommit(&tx);
		trim_tail(dst);
	}
	WideDropsCopy(src, dst);

	/*
	 * Range tombstones some snapshot may not see yet go along (rangedel.c);
	 * the frozen ones did their work and stay behind.  (With no run, the
	 * records they may still delete are gone too, but a pending one is kept
	 * as it is: harmless, and retired by a later VACUUM.)
	 */
	{
		const WideRangeDels *ds = WideResolverRangeDels(resolver);
		int			npending = 0;

		for (i = 0; i < ds->n; i++)
			npending += ds->d[i].pending ? 1 : 0;
		if (npending > 0)
		{
			WideManifestTx tx;
			WideMetaPage meta = WideManifestBegin(dst, &tx);

			WideRangeDelsCarry(dst, meta, ds);
			WideManifestNoteRunChange(meta);
			(void) WideManifestCommit(&tx);
		}
	}

	for (i = 0; i < nits; i++)
		WideSegIterEnd(its[i]);
	WideSegmentWriterEnd(w);
	WideSorterEnd(sorter);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return stats;
}
