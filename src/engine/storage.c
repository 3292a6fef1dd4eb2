/*-------------------------------------------------------------------------
 *
 * storage.c
 *	  Pages of a wide table: the metapage, page initialisation, allocation
 *	  and checked reads.
 *
 * A wide table lives in the main fork of its relation.  Block 0 is the
 * metapage; every other block belongs to exactly one chain (a write-area
 * lane, a blob, a segment stream, the manifest) or is free.  The metapage
 * is created lazily by the first writer, so that a new or truncated
 * relation is simply empty (zero blocks) -- which is also what the init
 * fork of an unlogged wide table holds.
 *
 * Locking rules (LWLocks on buffers; see docs/architecture.md):
 *	- the metapage lock is taken before any other page lock it is held with;
 *	- a page is allocated only while the metapage is exclusively locked, so
 *	  relation extension is serialised by it;
 *	- no page lock is held while waiting for a heavyweight lock, except the
 *	  relation extension lock taken under the metapage lock.
 *
 * Every change is WAL-logged through Generic WAL (access/generic_xlog.h);
 * freshly initialised pages are logged as full images.
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
 * IDENTIFICATION
 *	  src/engine/storage.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/manifest.h"

static void note_epoch(Relation rel, const WideMetaPageData *meta);

/*
 * WideInitPage -- format a page of the given type.
 */
void
WideInitPage(Page page, uint16 page_type, uint32 owner)
{
	WidePageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(WidePageOpaqueData));
	opaque = WidePageGetOpaque(page);
	opaque->next = InvalidBlockNumber;
	opaque->link = InvalidBlockNumber;
	opaque->owner = owner;
	opaque->flags = 0;
	opaque->page_type = page_type;
}

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
 * WideWritePage -- write a full page image to a block (which is not
 * reachable yet) and WAL-log it as a full page image.
 */
void
WideWritePage(Relation rel, BlockNumber blkno, Page image,
			  BufferAccessStrategy strategy)
{
	Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno,
										 RBM_ZERO_AND_LOCK, strategy);

	START_CRIT_SECTION();
	memcpy(BufferGetPage(buf), image, BLCKSZ);
	MarkBufferDirty(buf);
	if (RelationNeedsWAL(rel))
		log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);
}

/*
 * WideCheckPage -- fail cleanly if a locked page is not of the expected type.
 */
void
WideCheckPage(Relation rel, Buffer buf, uint16 page_type)
{
	Page		page = BufferGetPage(buf);

	if (PageIsNew(page) ||
		PageGetSpecialSize(page) != MAXALIGN(sizeof(WidePageOpaqueData)) ||
		WidePageGetOpaque(page)->page_type != page_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" has an unexpected page at block %u",
						RelationGetRelationName(rel),
						BufferGetBlockNumber(buf)),
				 errdetail("Expected page type 0x%04x, found 0x%04x.",
						   page_type,
						   PageIsNew(page) ? 0 :
						   WidePageGetOpaque(page)->page_type),
				 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
}

/*
 * WideReadPage -- pin and lock a block and check its page type.
 */
Buffer
WideReadPage(Relation rel, BlockNumber blkno, int lockmode, uint16 page_type)
{
	Buffer		buf;

	if (blkno == WIDE_META_BLKNO || blkno == InvalidBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide table \"%s\" refers to block %u, which does not exist",
						RelationGetRelationName(rel), blkno),
				 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
	buf = ReadBuffer(rel, blkno);
	LockBuffer(buf, lockmode);
	WideCheckPage(rel, buf, page_type);
	return buf;
}
