/*-------------------------------------------------------------------------
 *
 * manifest.c
 *	  The owner of the metapage: what it may contain, which pages the sweep
 *	  may free, when a freed page may be reused, and what a crash leaves.
 *
 * The metapage (block 0) is the table's manifest, in the sense of LevelDB's
 * VersionSet: the write-area lanes, the run list and the free queue.  This
 * file states the rules every change of it follows and holds the code that
 * enforces the ones that are not local to one caller; the allocator and the
 * queue are in space.c, the sweep in sweep.c.
 *
 * Invariants
 * ----------
 * M1 (validity).  Every metapage read is checked (WideManifestValidate,
 *	  called by WideCheckMeta for every WideReadMeta): the counts are within
 *	  their arrays, the lanes are the compiled number, every block number
 *	  is a real block (not 0, not invalid), every free entry has a known
 *	  kind.  A damaged metapage fails with ERRCODE_DATA_CORRUPTED naming the
 *	  table and block 0; nothing copies a count it has not checked.
 *
 * M2 (ownership of a page).  Every block past 0 is, at any time, exactly
 *	  one of: (a) reachable from the metapage -- a lane page, a record's
 *	  blob, a run's or write-area run's segment (header pages, extents,
 *	  owned blobs); (b) in the free queue, including the header chain and
 *	  not yet handed out extents of a SEGMENT entry; (c) allocated by a live
 *	  writer and not yet registered; (d) orphaned: allocated by a writer that
 *	  failed or crashed before registering it.
 *	  Writers of kind (c) are exactly: flush and compaction (they hold the
 *	  table's ShareUpdateExclusiveLock), and bulk loads (COPY), which hold
 *	  the *allocation guard* (WideManifestGuardAllocations) in share mode
 *	  from before their first allocation until their transaction ends.
 *	  Appends to the write area allocate a page and link it (or a blob and
 *	  the record referring to it) under one exclusive metapage lock, in one
 *	  WAL record: they never own an unregistered page.
 *
 * M3 (the sweep frees only orphans).  The sweep holds ShareUpdateExclusive-
 *	  Lock and the allocation guard in exclusive mode (taken conditionally:
 *	  a sweep that would wait is skipped, to run at the next VACUUM), so no
 *	  page of kind (c) exists while it runs.  It marks the lanes and the
 *	  whole free queue (SEGMENT entries' header chains and extents included)
 *	  under the exclusive metapage lock, then the runs, which cannot change
 *	  under its locks.  A page allocated after that from the queue was
 *	  marked; one allocated by extending the table is past the end the
 *	  sweep looked at.  So what it did not mark is of kind (d).
 *
 * M4 (reuse).  A freed page is queued stamped with the next transaction id
 *	  and handed out only when the stamp is older than every snapshot on
 *	  the primary (GlobalVisTestIsRemovableFullXid), nbtree's rule.  Before
 *	  it is handed out, a recovery-conflict record carrying the stamp is
 *	  logged (WideManifestLogReuse), so a hot standby cancels every query
 *	  whose snapshot might still read the page.  A SEGMENT entry is read
 *	  from its header pages, so these are handed out only after the entry
 *	  has become a CHAIN of them (space.c).
 *
 * M6 (one way to change it).  Every change goes through WideManifestBegin
 *	  and WideManifestCommit: exclusive metapage lock, one Generic WAL
 *	  record, and the new image checked against M8 before it is logged.  A
 *	  change that would break it is a bug: it fails with an internal error
 *	  and nothing is written.  Inside it, fields change only through the
 *	  edits below: the run list (WideManifestAddWARun, WideManifestAppendRun,
 *	  WideManifestReplaceRuns[N], WideManifestDropWARuns), the write area's
 *	  generations and lanes (WideManifestSealGeneration, FinishFlush,
 *	  LinkLanePage), segment ids (TakeSegid), the counters (NoteCompaction,
 *	  NoteRunChange), the range tombstones' area (SetRangeDels; rangedel.c
 *	  owns the entries' encoding) and the drops (AddDrop, ForgetDrop); the
 *	  free queue only through space.c (WideSpaceAlloc, WideSpaceFree,
 *	  WideSpaceTrimTail, WideSpaceResetQueue, WideSpaceQueueReusable).
 *
 * M7 (truncation).  VACUUM cuts free pages off the end of the table only
 *	  while it holds the AccessExclusiveLock (truncate.c), after logging the
 *	  queue without them.  Under that lock no scan of the table is open on
 *	  the primary, and a standby replays the lock before the truncation, so
 *	  every queued page is then unreachable by any reader: the rebuilt queue
 *	  is stamped FirstNormalFullTransactionId (reusable at once, M4 holds
 *	  trivially).  Every extension of the table WAL-logs its last page
 *	  (space.c), so replaying an older truncation never leaves queued pages
 *	  past the end of the recovered file.
 *
 * M5 (publication).  A flush or compaction publishes its run and queues
 *	  the pages it replaces in one WAL record under the exclusive metapage
 *	  lock.  Its output dropped or froze records by the primary's xid
 *	  horizon, which a standby's snapshots are not part of: before it
 *	  publishes, it logs a conflict at that horizon (WideManifestLogHorizon)
 *	  so that standby snapshots older than it are cancelled rather than
 *	  shown cells that are already frozen or collected.
 *
 * M8 (checked at every commit).  Before a change is logged, the new image
 *	  is checked for everything the page alone can show (WideManifestWrite-
 *	  Problem): M1; no block is owned twice among the lane heads, the runs'
 *	  and write-area runs' roots and the free queue's entries and extents
 *	  (M2 as far as the metapage names pages); run segment ids are distinct
 *	  and below next_segid (a segment id is never reused); the free queue is
 *	  in stamp order (M4, which space.c's FIFO reuse relies on).  Every
 *	  field is assigned by the edit functions of this file (and the free
 *	  queue by space.c); test/check-manifest.sh fails the tests if any
 *	  other file assigns one.  M2 (c), M3, M5 and M7 are rules of locks and
 *	  order, not of an image: they are asserted where they are taken.
 *
 * Reading it.  WideReadMeta pins and locks block 0 (creating the metapage
 * for the first writer: a new or truncated table has no blocks, which is
 * also what the init fork of an unlogged wide table holds), and every read
 * is checked (M1) by WideCheckMeta.
 *
 * The epoch.  A TRUNCATE of a table created or already truncated in the
 * same transaction keeps its relfilenode and cuts the file to nothing; the
 * next writer makes a new metapage, whose segment ids start at 1 again.
 * The block caches (blockcache.c, sharedcache.c) key a block by its
 * relfilenode and segment id, so every metapage carries an epoch, a
 * sequence number (seq.c) taken when it is made, and the keys include it:
 * no two metapages of the server's life get the same one (sequence
 * numbers grow with the WAL position, the metapage is logged as a full
 * image, and WideSeqAfterWrite pads the WAL where it is not).  Each backend
 * remembers the epoch of every relfilenode whose metapage it read
 * (WideStorageEpoch); a reader always reads the metapage before the
 * segments it lists, so what it remembers is current.
 *
 * Crashes.  Every metapage change is one Generic WAL record together with
 * the pages it makes reachable.  A crash between allocating pages and
 * registering them leaves them orphaned (M2 d); the crashed backend's guard
 * lock is gone, so the next sweep reclaims them.  A crash after publication
 * leaves the replaced pages in the queue with their stamp; a crash before
 * leaves the old runs intact and the new pages orphaned.
 *
 * Conflict records.  A standby resolves snapshot conflicts only from the
 * records of built-in resource managers (a custom one needs
 * shared_preload_libraries on the standby).  nbtree's XLOG_BTREE_REUSE_PAGE
 * is exactly the record needed: its redo only calls
 * ResolveRecoveryConflictWithSnapshotFullXid(latestRemovedFullXid, node)
 * and touches no page, so wide logs it with its own relfilenode.
 *
 * IDENTIFICATION
 *	  src/engine/manifest.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtxlog.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/standby.h"

/*
 * The conflict record borrows nbtree's xl_btree_reuse_page, whose layout is
 * PostgreSQL 15's here: PostgreSQL 16 renamed its fields (locator,
 * snapshotConflictHorizon) and added isCatalogRel.  Another major version
 * must not build until log_conflict() is checked against its nbtxlog.h; the
 * assertions below fail the build if 15's layout itself is not what
 * log_conflict() fills (TAP 013_standby_conflict tests the effect).
 */
#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "wide logs nbtree's XLOG_BTREE_REUSE_PAGE as its standby conflict record: check xl_btree_reuse_page of this PostgreSQL version in log_conflict() (engine/manifest.c)"
#endif
StaticAssertDecl(offsetof(xl_btree_reuse_page, node) == 0 &&
				 offsetof(xl_btree_reuse_page, block) == sizeof(RelFileNode) &&
				 SizeOfBtreeReusePage == sizeof(xl_btree_reuse_page),
				 "xl_btree_reuse_page is not PostgreSQL 15's");
#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "engine/format.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/manifest.h"

/* the block whose heavyweight page lock is the allocation guard */
#define WIDE_GUARD_BLKNO	WIDE_META_BLKNO

/* a block number the metapage may hold: a real page past the metapage */
#define BLOCK_OK(b)	((b) != WIDE_META_BLKNO && (b) != InvalidBlockNumber)

/* as BLOCK_OK, or invalid (an empty lane) */
#define LANE_OK(b)	((b) != WIDE_META_BLKNO)

/*
 * Do the range tombstones fill exactly the bytes the metapage says, each
 * within bounds?  (rangedel.c writes them)
 */
static bool
rangedels_valid(const WideMetaPageData *meta)
{
	uint32		off = 0;
	uint32		i;

	if (meta->rangedel_len > WIDE_RANGEDEL_SPACE ||
		meta->nrangedels > WIDE_RANGEDEL_SPACE / sizeof(WideRangeDelHeader))
		return false;
	for (i = 0; i < meta->nrangedels; i++)
	{
		WideRangeDelHeader h;

		if (off + sizeof(WideRangeDelHeader) > meta->rangedel_len)
			return false;
		memcpy(&h, meta->rangedels + off, sizeof(WideRangeDelHeader));
		if (h.famlen > WIDE_MAX_FAMILY_NAME ||
			(h.flags & ~WIDE_RANGEDEL_HAS_END) != 0 ||
			off + WideRangeDelEntrySize(&h) > meta->rangedel_len)
			return false;
		off += WideRangeDelEntrySize(&h);
	}
	return off == meta->rangedel_len;
}

/*
 * WideManifestProblem -- describe what is wrong with a metapage image, or
 * return NULL if it is consistent (M1).  The description is written to buf.
 */
const char *
WideManifestProblem(const WideMetaPageData *meta, char *buf, size_t buflen)
{
	uint32		i;

	if (meta->nlanes != WIDE_NLANES)
		snprintf(buf, buflen, "nlanes is %u, expected %d",
				 meta->nlanes, WIDE_NLANES);
	else if (meta->nruns > WIDE_MAX_RUNS)
		snprintf(buf, buflen, "nruns is %u, at most %d",
				 meta->nruns, WIDE_MAX_RUNS);
	else if (meta->nwaruns > WIDE_MAX_WA_RUNS)
		snprintf(buf, buflen, "nwaruns is %u, at most %d",
				 meta->nwaruns, WIDE_MAX_WA_RUNS);
	else if (meta->nfree > WIDE_FREE_SLOTS)
		snprintf(buf, buflen, "nfree is %u, at most %d",
				 meta->nfree, WIDE_FREE_SLOTS);
	else if (meta->ndrops > WIDE_MAX_DROPS)
		snprintf(buf, buflen, "ndrops is %u, at most %d",
				 meta->ndrops, WIDE_MAX_DROPS);
	else if (meta->generation == 0 || meta->generation == PG_UINT32_MAX ||
			 (meta->flushing != 0 && meta->flushing >= meta->generation))
		snprintf(buf, buflen, "generation %u and flushing %u are inconsistent",
				 meta->generation, meta->flushing);
	else
	{
		for (i = 0; i < WIDE_NLANES; i++)
			if (!LANE_OK(meta->lanes[i].head) ||
				(meta->flushing != 0 && !LANE_OK(meta->flush_lanes[i].head)))
			{
				snprintf(buf, buflen, "write-area lane %u refers to block 0", i);
				return buf;
			}
		for (i = 0; i < meta->nruns; i++)
			if (!BLOCK_OK(meta->runs[i].root))
			{
				snprintf(buf, buflen, "run %u has root block %u",
						 i + 1, meta->runs[i].root);
				return buf;
			}
			/* a run holds a record, so a family: an empty set is damage */
			else if ((meta->runs[i].flags & WIDE_RUN_FAMILIES) &&
					 meta->runs[i].families == 0)
			{
				snprintf(buf, buflen, "run %u holds no family", i + 1);
				return buf;
			}
		for (i = 0; i < meta->nwaruns; i++)
			if (!BLOCK_OK(meta->waruns[i].root))
			{
				snprintf(buf, buflen, "write-area run %u has root block %u",
						 i + 1, meta->waruns[i].root);
				return buf;
			}
			else if ((meta->waruns[i].flags & WIDE_RUN_FAMILIES) &&
					 meta->waruns[i].families == 0)
			{
				snprintf(buf, buflen, "write-area run %u holds no family", i + 1);
				return buf;
			}
		if (!rangedels_valid(meta))
		{
			snprintf(buf, buflen, "%u range tombstones in %u bytes are malformed",
					 meta->nrangedels, meta->rangedel_len);
			return buf;
		}
		for (i = 0; i < meta->nfree; i++)
		{
			const WideFreeEntry *e = &meta->free[i];

			if ((e->kind != WIDE_FREE_EXTENT && e->kind != WIDE_FREE_CHAIN &&
				 e->kind != WIDE_FREE_SEGMENT) ||
				!BLOCK_OK(e->start) ||
				(e->kind == WIDE_FREE_EXTENT &&
				 (e->npages == 0 || e->start + e->npages < e->start)))
			{
				snprintf(buf, buflen,
						 "free queue entry %u (kind %u, block %u, %u pages) is invalid",
						 i + 1, e->kind, e->start, e->npages);
				return buf;
			}
		}
		return NULL;
	}
	return buf;
}

/* one page range the metapage says is owned by something */
typedef struct OwnedRange
{
	BlockNumber start;
	uint32		npages;
	const char *what;
} OwnedRange;

static int
owned_cmp(const void *a, const void *b)
{
	BlockNumber x = ((const OwnedRange *) a)->start;
	BlockNumber y = ((const OwnedRange *) b)->start;

	return x < y ? -1 : x > y ? 1 : 0;
}

static int
segid_cmp(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * WideManifestWriteProblem -- as WideManifestProblem, and the rules an image
 * about to be logged must also follow (M8 in the header: single ownership,
 * segment ids, the queue's stamp order).  NULL if it follows them all.
 */
const char *
WideManifestWriteProblem(const WideMetaPageData *meta, char *buf,
						 size_t buflen)
{
	OwnedRange	own[2 * WIDE_NLANES + WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS +
					WIDE_FREE_SLOTS];
	uint32		segids[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	int			nown = 0;
	int			nseg = 0;
	uint32		i;

	if (WideManifestProblem(meta, buf, buflen) != NULL)
		return buf;

	for (i = 0; i < WIDE_NLANES; i++)
	{
		if (meta->lanes[i].head != InvalidBlockNumber)
			own[nown++] = (OwnedRange) {meta->lanes[i].head, 1, "a write-area lane"};
		if (meta->flushing != 0 && meta->flush_lanes[i].head != InvalidBlockNumber)
			own[nown++] = (OwnedRange) {meta->flush_lanes[i].head, 1, "a lane being flushed"};
	}
	for (i = 0; i < meta->nruns; i++)
	{
		own[nown++] = (OwnedRange) {meta->runs[i].root, 1, "a run"};
		segids[nseg++] = meta->runs[i].segid;
	}
	for (i = 0; i < meta->nwaruns; i++)
	{
		own[nown++] = (OwnedRange) {meta->waruns[i].root, 1, "a write-area run"};
		segids[nseg++] = meta->waruns[i].segid;
	}
	for (i = 0; i < meta->nfree; i++)
	{
		const WideFreeEntry *e = &meta->free[i];

		own[nown++] = (OwnedRange) {e->start,
			e->kind == WIDE_FREE_EXTENT ? e->npages : 1, "the free queue"};
		if (i > 0 && FullTransactionIdPrecedes(e->stamp, meta->free[i - 1].stamp))
		{
			snprintf(buf, buflen, "free queue entry %u is stamped before entry %u",
					 i + 1, i);
			return buf;
		}
	}

	qsort(own, nown, sizeof(OwnedRange), owned_cmp);
	for (i = 1; i < (uint32) nown; i++)
		if ((uint64) own[i - 1].start + own[i - 1].npages > own[i].start)
		{
			snprintf(buf, buflen, "block %u is owned by %s and by %s",
					 own[i].start, own[i - 1].what, own[i].what);
			return buf;
		}

	qsort(segids, nseg, sizeof(uint32), segid_cmp);
	for (i = 0; i < (uint32) nseg; i++)
		if (segids[i] >= meta->next_segid ||
			(i > 0 && segids[i] == segids[i - 1]))
		{
			snprintf(buf, buflen, "segment id %u is %s (next is %u)", segids[i],
					 segids[i] >= meta->next_segid ? "not yet given out" : "listed twice",
					 meta->next_segid);
			return buf;
		}
	return NULL;
}

/*
 * WideManifestValidate -- fail cleanly unless the metapage is consistent.
 */
void
WideManifestValidate(Relation rel, const WideMetaPageData *meta)
{
	char		problem[128];

	if (WideManifestProblem(meta, problem, sizeof(problem)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" has an invalid metapage",
						RelationGetRelationName(rel)),
				 errdetail("Block %u: %s.", WIDE_META_BLKNO, problem),
				 errhint("Restore the table from a backup.")));
}

static void note_epoch(Relation rel, const WideMetaPageData *meta);

/*
 * WideInitMetaPage -- format an empty metapage of storage epoch "epoch".
 */
void
WideInitMetaPage(Page page, uint64 epoch)
{
	WideMetaPage meta;

	WideInitPage(page, WIDE_PAGE_META, 0);
	meta = WidePageGetMeta(page);
	WideManifestInitImage(meta, epoch);

	/* pd_lower past the metadata, so that it is not taken for a hole */
	((PageHeader) page)->pd_lower =
		((char *) meta + sizeof(WideMetaPageData)) - (char *) page;
}

/*
 * WideCheckMeta -- return the metadata of a locked metapage, or fail if
 * the page is not a wide metapage of a version we understand, or if its
 * contents are inconsistent (manifest.c, M1).
 */
WideMetaPage
WideCheckMeta(Relation rel, Buffer metabuf)
{
	Page		page = BufferGetPage(metabuf);
	WideMetaPage meta = WidePageGetMeta(page);

	if (PageIsNew(page) ||
		WidePageGetOpaque(page)->page_type != WIDE_PAGE_META ||
		meta->magic != WIDE_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" has an invalid metapage",
						RelationGetRelationName(rel)),
				 errdetail("Block 0 is not a wide metapage."),
				 errhint("Restore the table from a backup.")));
	if (meta->version < WIDE_FORMAT_OLDEST || meta->version > WIDE_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("wide table \"%s\" has on-disk format version %u",
						RelationGetRelationName(rel), meta->version),
				 errdetail("This version of wide reads format version %d to %d.",
						   WIDE_FORMAT_OLDEST, WIDE_FORMAT_VERSION),
				 errhint("Install the version of wide that wrote the table.")));
	WideManifestValidate(rel, meta);
	note_epoch(rel, meta);
	return meta;
}

/* are all blocks after the metapage all zeroes? */
static bool
only_new_pages(Relation rel)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	bool		all_new = true;
	BlockNumber blkno;

	for (blkno = WIDE_META_BLKNO + 1; blkno < nblocks && all_new; blkno++)
	{
		Buffer		b = ReadBufferExtended(rel, MAIN_FORKNUM, blkno,
										   RBM_NORMAL, strategy);

		LockBuffer(b, BUFFER_LOCK_SHARE);
		all_new = PageIsNew(BufferGetPage(b));
		UnlockReleaseBuffer(b);
		CHECK_FOR_INTERRUPTS();
	}
	FreeAccessStrategy(strategy);
	return all_new;
}

/*
 * WideMetaLost -- is the locked block 0 all zeroes, and every other block
 * too: a metapage whose creation a crash lost (WideReadMeta), an empty
 * table?
 */
bool
WideMetaLost(Relation rel, Buffer metabuf)
{
	return PageIsNew(BufferGetPage(metabuf)) && only_new_pages(rel);
}

/* the epoch of each relfilenode whose metapage this backend read */
typedef struct EpochEntry
{
	RelFileNode node;			/* hash key: must be first */
	uint64		epoch;
} EpochEntry;

static HTAB *epochs = NULL;

static void
note_epoch(Relation rel, const WideMetaPageData *meta)
{
	EpochEntry *e;

	if (epochs == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(RelFileNode);
		ctl.entrysize = sizeof(EpochEntry);
		ctl.hcxt = TopMemoryContext;
		epochs = hash_create("wide storage epochs", 64, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(epochs, &rel->rd_node, HASH_ENTER, NULL);
	e->epoch = meta->epoch;
}

/*
 * WideStorageEpoch -- the epoch of the relation's storage (file header):
 * the one of the metapage this backend read last, or, in a backend that
 * has not read it (a parallel worker), read now.  0 for an empty table.
 * REQUIRES: no lock on the metapage unless this backend read it (with
 * WideReadMeta) since its relfilenode was last reset.
 */
uint64
WideStorageEpoch(Relation rel)
{
	EpochEntry *e = NULL;
	Buffer		metabuf;

	if (epochs != NULL)
		e = hash_search(epochs, &rel->rd_node, HASH_FIND, NULL);
	if (e != NULL)
		return e->epoch;
	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
		return 0;
	UnlockReleaseBuffer(metabuf);
	e = hash_search(epochs, &rel->rd_node, HASH_FIND, NULL);
	return e ? e->epoch : 0;
}

/*
 * initialise the exclusively locked metapage, logged as a full image, with
 * a new epoch
 */
static void
init_meta(Relation rel, Buffer buf)
{
	GenericXLogState *state = GenericXLogStart(rel);
	Page		page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
	uint64		epoch = WideSeqNext(rel, 1);
	XLogRecPtr	lsn;

	WideInitMetaPage(page, epoch);
	lsn = GenericXLogFinish(state);
	WideSeqAfterWrite(rel, epoch, lsn);
	note_epoch(rel, WidePageGetMeta(BufferGetPage(buf)));
}

/*
 * WideReadMeta -- pin and lock the metapage.
 *
 * A relation with no blocks, or whose block 0 is still all zeroes (below),
 * is an empty wide table.  With BUFFER_LOCK_SHARE this returns
 * InvalidBuffer for it; with BUFFER_LOCK_EXCLUSIVE it creates the metapage
 * first (WAL-logged as a full page image).
 */
Buffer
WideReadMeta(Relation rel, int lockmode)
{
	Buffer		buf;
	WideSchema *schema = (WideSchema *) WideGetSchema(rel);

	if (!schema->meta_exists && RelationGetNumberOfBlocks(rel) == 0)
	{
		if (lockmode != BUFFER_LOCK_EXCLUSIVE)
			return InvalidBuffer;

		LockRelationForExtension(rel, ExclusiveLock);
		if (RelationGetNumberOfBlocks(rel) != 0)
		{
			/* somebody else created it meanwhile */
			UnlockRelationForExtension(rel, ExclusiveLock);
			return WideReadMeta(rel, lockmode);
		}
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL);
		Assert(BufferGetBlockNumber(buf) == WIDE_META_BLKNO);

		/*
		 * From here on another writer sees a zeroed block 0 and may take it
		 * for a lost metapage (below): it locks it, initialises it and,
		 * still holding it, extends the relation.  So release the extension
		 * lock before waiting for the buffer's (else neither ever gets the
		 * other's lock), and initialise the page only if nobody has.
		 */
		UnlockRelationForExtension(rel, ExclusiveLock);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		schema->meta_exists = true;
		if (PageIsNew(BufferGetPage(buf)))
			init_meta(rel, buf);
		else
			(void) WideCheckMeta(rel, buf);
		return buf;
	}

	schema->meta_exists = true;
	buf = ReadBuffer(rel, WIDE_META_BLKNO);
	LockBuffer(buf, lockmode);

	/*
	 * Block 0 all zeroes: the relation was extended for the metapage (the
	 * new block is written at once) and a crash lost the WAL record that
	 * initialised it, which is flushed only with a later commit.  Every
	 * other change to the table is logged after that record and was lost
	 * with it (and every page goes through shared buffers, which write a
	 * page only after its WAL), so every block is zeroes too and the table
	 * is empty, as a relation with no blocks.  A zeroed metapage in front
	 * of pages that hold something is damage: WideCheckMeta reports it.
	 */
	if (WideMetaLost(rel, buf))
	{
		if (lockmode != BUFFER_LOCK_EXCLUSIVE)
		{
			UnlockReleaseBuffer(buf);
			return InvalidBuffer;
		}
		init_meta(rel, buf);
		return buf;
	}
	(void) WideCheckMeta(rel, buf);
	return buf;
}

/*
 * WideManifestBegin -- lock the metapage exclusively (creating it if the
 * table has none) and start a WAL record holding it; returns the image to
 * change.  The caller may register other pages in tx->state, and ends with
 * WideManifestCommit or WideManifestAbort.
 */
WideMetaPageData *
WideManifestBegin(Relation rel, WideManifestTx *tx)
{
	Page		page;
	LocationIndex end;

	tx->rel = rel;
	tx->metabuf = WideReadMeta(rel, BUFFER_LOCK_EXCLUSIVE);
	tx->state = GenericXLogStart(rel);
	page = GenericXLogRegisterBuffer(tx->state, tx->metabuf, 0);
	tx->meta = WidePageGetMeta(page);
	/* what this build publishes may use its newest format (packed blocks) */
	tx->meta->version = WIDE_FORMAT_VERSION;

	/*
	 * A metapage made by format 4 or older ends before the range
	 * tombstones and the drops (zeroes there): Generic WAL zeroes the hole past pd_lower,
	 * so it must cover them before they are written.
	 */
	end = ((char *) tx->meta + sizeof(WideMetaPageData)) - (char *) page;
	if (((PageHeader) page)->pd_lower < end)
		((PageHeader) page)->pd_lower = end;
	return tx->meta;
}

/*
 * WideManifestLog -- check the changed image and log the record; the
 * metapage stays locked until WideManifestRelease.  Returns the record's
 * LSN.  Other buffers the caller registered stay locked and pinned.
 */
XLogRecPtr
WideManifestLog(WideManifestTx *tx)
{
	char		problem[128];

	if (WideManifestWriteProblem(tx->meta, problem, sizeof(problem)) != NULL)
		elog(ERROR, "refusing to write an invalid metapage for \"%s\": %s",
			 RelationGetRelationName(tx->rel), problem);
	tx->meta = NULL;
	return GenericXLogFinish(tx->state);
}

/*
 * WideManifestContinue -- after WideManifestLog, another change of the
 * metapage under the same lock, logged by the next WideManifestLog (a
 * change too large for one Generic WAL record that must not interleave
 * with others'); returns the image to change.
 */
WideMetaPageData *
WideManifestContinue(WideManifestTx *tx)
{
	Assert(tx->meta == NULL && BufferIsValid(tx->metabuf));
	tx->state = GenericXLogStart(tx->rel);
	tx->meta = WidePageGetMeta(GenericXLogRegisterBuffer(tx->state, tx->metabuf, 0));
	return tx->meta;
}

/*
 * WideManifestRelease -- unlock the metapage after WideManifestLog.
 */
void
WideManifestRelease(WideManifestTx *tx)
{
	UnlockReleaseBuffer(tx->metabuf);
	tx->metabuf = InvalidBuffer;
}

/*
 * WideManifestCommit -- WideManifestLog, then WideManifestRelease.
 */
XLogRecPtr
WideManifestCommit(WideManifestTx *tx)
{
	XLogRecPtr	lsn = WideManifestLog(tx);

	WideManifestRelease(tx);
	return lsn;
}

/*
 * WideManifestAbort -- drop the change and unlock.
 */
void
WideManifestAbort(WideManifestTx *tx)
{
	GenericXLogAbort(tx->state);
	UnlockReleaseBuffer(tx->metabuf);
	tx->metabuf = InvalidBuffer;
	tx->meta = NULL;
}

/*
 * WideManifestAddWARun -- register a bulk-loaded run in the write area;
 * false if the write area has no room for another (flush first).
 */
bool
WideManifestAddWARun(WideMetaPageData *meta, const WideRunData *run)
{
	Assert(meta->nwaruns <= WIDE_MAX_WA_RUNS);
	if (meta->nwaruns >= WIDE_MAX_WA_RUNS)
		return false;
	meta->waruns[meta->nwaruns++] = *run;
	return true;
}

/*
 * WideManifestDropWARuns -- forget the write-area runs of a generation (the
 * flush that publishes them has made them runs, or queued their pages).
 */
void
WideManifestDropWARuns(WideMetaPageData *meta, uint32 gen)
{
	uint32		i;
	uint32		n = 0;

	for (i = 0; i < meta->nwaruns; i++)
		if (meta->waruns[i].gen != gen)
			meta->waruns[n++] = meta->waruns[i];
	meta->nwaruns = n;
}

/*
 * WideManifestAppendRun -- add the newest run.
 */
void
WideManifestAppendRun(Relation rel, WideMetaPageData *meta,
					  const WideRunData *run)
{
	if (meta->nruns >= WIDE_MAX_RUNS)
		elog(ERROR, "no room for more runs in \"%s\"",
			 RelationGetRelationName(rel));
	Assert(BLOCK_OK(run->root));
	meta->runs[meta->nruns++] = *run;
}

/*
 * WideManifestReplaceRuns -- replace runs lo..hi, which must still be the
 * runs "expect" (the caller read them before compacting), by "run", or by
 * nothing if it is NULL.  The caller queues the replaced pages.
 */
void
WideManifestReplaceRuns(Relation rel, WideMetaPageData *meta, int lo, int hi,
						const WideRunData *expect, const WideRunData *run)
{
	WideManifestReplaceRunsN(rel, meta, lo, hi, expect, run, run ? 1 : 0);
}

/*
 * WideManifestReplaceRunsN -- as WideManifestReplaceRuns, by the nnew runs
 * of "runs" in that order (a time-windowed merge, compaction.c).
 */
void
WideManifestReplaceRunsN(Relation rel, WideMetaPageData *meta, int lo, int hi,
						 const WideRunData *expect, const WideRunData *runs,
						 int nnew)
{
	int			tail;
	int			i;

	Assert(lo >= 0 && lo <= hi);
	for (i = lo; i <= hi; i++)
		if (i >= (int) meta->nruns || meta->runs[i].segid != expect[i - lo].segid)
			elog(ERROR, "runs of \"%s\" changed during compaction",
				 RelationGetRelationName(rel));
	tail = meta->nruns - hi - 1;
	if (lo + nnew + tail > WIDE_MAX_RUNS)
		elog(ERROR, "no room for %d runs in \"%s\"", nnew,
			 RelationGetRelationName(rel));
	memmove(&meta->runs[lo + nnew], &meta->runs[hi + 1],
			sizeof(WideRunData) * tail);
	for (i = 0; i < nnew; i++)
	{
		Assert(BLOCK_OK(runs[i].root));
		meta->runs[lo + i] = runs[i];
	}
	meta->nruns = lo + nnew + tail;
}

/*
 * WideManifestInitImage -- an empty table's metapage contents, of storage
 * epoch "epoch" (the caller formats the page; storage.c).
 */
void
WideManifestInitImage(WideMetaPageData *meta, uint64 epoch)
{
	int			i;

	memset(meta, 0, sizeof(WideMetaPageData));
	meta->magic = WIDE_MAGIC;
	meta->version = WIDE_FORMAT_VERSION;
	meta->generation = 1;
	meta->nlanes = WIDE_NLANES;
	for (i = 0; i < WIDE_NLANES; i++)
	{
		meta->lanes[i].head = InvalidBlockNumber;
		meta->flush_lanes[i].head = InvalidBlockNumber;
	}
	meta->next_segid = 1;
	meta->epoch = epoch;
}

/*
 * WideManifestSealGeneration -- a flush begins: the lanes become the
 * generation being flushed (readable until it is published), and new
 * appends go to empty lanes of the next generation.
 */
void
WideManifestSealGeneration(WideMetaPageData *meta)
{
	int			i;

	Assert(meta->flushing == 0);
	meta->flushing = meta->generation;
	for (i = 0; i < WIDE_NLANES; i++)
	{
		meta->flush_lanes[i] = meta->lanes[i];
		meta->lanes[i].head = InvalidBlockNumber;
		meta->lanes[i].npages = 0;
	}
	meta->generation++;
}

/*
 * WideManifestLanes -- the write-area lanes that hold every record of the
 * write area: each lane's head with the generation it belongs to, and
 * while a flush runs, each lane being flushed with the generation being
 * flushed.  Fills heads and gens (room for 2 * WIDE_NLANES) and returns
 * how many.
 */
int
WideManifestLanes(const WideMetaPageData *meta, BlockNumber *heads, uint32 *gens)
{
	int			n = 0;

	for (int i = 0; i < WIDE_NLANES; i++)
	{
		heads[n] = meta->lanes[i].head;
		gens[n++] = meta->generation;
		if (meta->flushing != 0)
		{
			heads[n] = meta->flush_lanes[i].head;
			gens[n++] = meta->flushing;
		}
	}
	return n;
}

/*
 * WideManifestWriteAreaEmpty -- does the write area hold no record (no
 * lane page, no flush under way)?  A flush of an empty write area finds
 * nothing to seal and leaves the generation as it is, so a metapage entry
 * that waits for "its generation flushed" (a range tombstone, a drop)
 * must also take an empty write area as holding nothing older than it: a
 * record appended from now on is numbered after it.
 */
bool
WideManifestWriteAreaEmpty(const WideMetaPageData *meta)
{
	int			i;

	if (meta->flushing != 0)
		return false;
	for (i = 0; i < WIDE_NLANES; i++)
		if (meta->lanes[i].head != InvalidBlockNumber)
			return false;
	return true;
}

/*
 * WideManifestFinishFlush -- the flush's run is published (the caller has
 * queued the sealed lanes' pages and dropped the generation's write-area
 * runs in the same change).
 */
void
WideManifestFinishFlush(WideMetaPageData *meta)
{
	int			i;

	for (i = 0; i < WIDE_NLANES; i++)
	{
		meta->flush_lanes[i].head = InvalidBlockNumber;
		meta->flush_lanes[i].npages = 0;
	}
	meta->flushing = 0;
	meta->version_counter++;
	meta->flushes++;
}

/*
 * WideManifestLinkLanePage -- a new write-area page becomes the head of a
 * lane (the page links to the previous head itself).
 */
void
WideManifestLinkLanePage(WideMetaPageData *meta, int lane, BlockNumber blkno)
{
	Assert(lane >= 0 && lane < WIDE_NLANES && BLOCK_OK(blkno));
	meta->lanes[lane].head = blkno;
	meta->lanes[lane].npages++;
}

/*
 * WideManifestTakeSegid -- a new segment's id; ids are never reused.
 */
uint32
WideManifestTakeSegid(WideMetaPageData *meta)
{
	if (meta->next_segid == PG_UINT32_MAX)
		elog(ERROR, "segment ids are used up");
	return meta->next_segid++;
}

/*
 * WideManifestNoteCompaction -- a compaction (or rewrite) published its
 * output: the runs changed, and one more compaction is counted.
 */
void
WideManifestNoteCompaction(WideMetaPageData *meta)
{
	meta->version_counter++;
	meta->compactions++;
}

/*
 * WideManifestNoteRunChange -- what readers cache of the run list or the
 * range tombstones is stale (a reader compares version_counter).
 */
void
WideManifestNoteRunChange(WideMetaPageData *meta)
{
	meta->version_counter++;
}

/*
 * WideManifestSetRangeDels -- the range tombstones' area becomes the n
 * entries encoded in the first len bytes of area (rangedel.c encodes them;
 * the image is checked at commit).
 */
void
WideManifestSetRangeDels(WideMetaPageData *meta, const char *area, uint32 len,
						 uint32 n)
{
	Assert(len <= WIDE_RANGEDEL_SPACE);
	if (area != meta->rangedels)
	{
		memset(meta->rangedels, 0, WIDE_RANGEDEL_SPACE);
		memcpy(meta->rangedels, area, len);
	}
	else
		memset(meta->rangedels + len, 0, WIDE_RANGEDEL_SPACE - len);
	meta->rangedel_len = len;
	meta->nrangedels = n;
}

/*
 * WideManifestAddDrop -- append a pending drop (drops.c); false if the list
 * is full.
 */
bool
WideManifestAddDrop(WideMetaPageData *meta, const WideDropEntry *e)
{
	if (meta->ndrops >= WIDE_MAX_DROPS)
		return false;
	meta->drops[meta->ndrops++] = *e;
	return true;
}

/*
 * WideManifestForgetDrop -- remove pending drop i, keeping the order.
 */
void
WideManifestForgetDrop(WideMetaPageData *meta, uint32 i)
{
	Assert(i < meta->ndrops);
	memmove(&meta->drops[i], &meta->drops[i + 1],
			sizeof(WideDropEntry) * (meta->ndrops - i - 1));
	meta->ndrops--;
	memset(&meta->drops[meta->ndrops], 0, sizeof(WideDropEntry));
}

/*
 * WideManifestGuardAllocations -- declare that this transaction is about to
 * own pages it has not registered yet (M2 c); they stay safe from the sweep
 * until the transaction ends.
 */
void
WideManifestGuardAllocations(Relation rel)
{
	LockPage(rel, WIDE_GUARD_BLKNO, ShareLock);
}

/*
 * WideManifestMayAllocate -- may this backend own pages it has not
 * registered (M2 c)?  It may if it holds ShareUpdateExclusiveLock or
 * stronger (flush, compaction) or the allocation guard (bulk loads).  For
 * assertions.
 */
bool
WideManifestMayAllocate(Relation rel)
{
	LOCKTAG		tag;

	if (CheckRelationLockedByMe(rel, ShareUpdateExclusiveLock, true))
		return true;
	SET_LOCKTAG_PAGE(tag, rel->rd_lockInfo.lockRelId.dbId,
					 rel->rd_lockInfo.lockRelId.relId, WIDE_GUARD_BLKNO);
	return LockHeldByMe(&tag, ShareLock);
}

/*
 * WideManifestTrySweepLock -- take the allocation guard exclusively, without
 * waiting (M3).  False if a bulk load holds unregistered pages.
 */
bool
WideManifestTrySweepLock(Relation rel)
{
	return ConditionalLockPage(rel, WIDE_GUARD_BLKNO, ExclusiveLock);
}

/*
 * WideManifestSweepUnlock -- release what WideManifestTrySweepLock took.
 */
void
WideManifestSweepUnlock(Relation rel)
{
	UnlockPage(rel, WIDE_GUARD_BLKNO, ExclusiveLock);
}

/* the newest conflict this backend logged, to log each one once */
static RelFileNode last_node;
static FullTransactionId last_conflict = {0};

/* log a recovery conflict for snapshots with xmin <= latest */
static void
log_conflict(Relation rel, BlockNumber blkno, FullTransactionId latest)
{
	xl_btree_reuse_page xlrec;

	if (!XLogStandbyInfoActive() || !RelationNeedsWAL(rel) ||
		!FullTransactionIdIsNormal(latest))
		return;
	/* a conflict at a newer xid, logged before, covers this one */
	if (RelFileNodeEquals(last_node, rel->rd_node) &&
		FullTransactionIdFollowsOrEquals(last_conflict, latest))
		return;

	xlrec.node = rel->rd_node;
	xlrec.block = blkno;
	xlrec.latestRemovedFullXid = latest;
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfBtreeReusePage);
	(void) XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE);

	last_node = rel->rd_node;
	last_conflict = latest;
}

/*
 * WideManifestLogReuse -- before a freed page (or the first of an extent)
 * stamped "stamp" is handed out again (M4).
 */
void
WideManifestLogReuse(Relation rel, BlockNumber blkno, FullTransactionId stamp)
{
	log_conflict(rel, blkno, stamp);
}

/*
 * WideManifestLogHorizon -- before a flush or compaction publishes output
 * that dropped or froze records by the current xid horizon (M5).
 */
void
WideManifestLogHorizon(Relation rel)
{
	FullTransactionId horizon;

	if (!XLogStandbyInfoActive() || !RelationNeedsWAL(rel))
		return;
	horizon = GlobalVisTestNonRemovableFullHorizon(GlobalVisTestFor(rel));
	if (!FullTransactionIdIsNormal(horizon))
		return;
	FullTransactionIdRetreat(&horizon);
	log_conflict(rel, InvalidBlockNumber, horizon);
}
