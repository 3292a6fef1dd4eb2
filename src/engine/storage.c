/*-------------------------------------------------------------------------
 *
 * storage.c
 *	  Pages of a wide table: page initialisation and checked reads (the
 *	  metapage's are manifest.c's).
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
