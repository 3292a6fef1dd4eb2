/*-------------------------------------------------------------------------
 *
 * drops.c
 *	  Drops: wide.drop_before's delete of every cell older than a time, as
 *	  a transactional entry of the metapage.
 *
 * wide.drop_before(tbl, ts) deletes, in every row, the cells (PUT, ADD,
 * MERGE) of every family, or of one family incarnation, whose timestamp is
 * older than ts and that were written before it -- a tombstone of every
 * row, ordered by sequence number like the others (rules.c).  It costs one
 * metapage change, whatever the table's size:
 *
 *	  entry := xid famid before seq frozen_at generation flags
 *
 * appended to the metapage's drops (format.h, at most WIDE_MAX_DROPS).
 * Its sequence number is taken under the exclusive metapage lock, as
 * appenders take theirs, so every record of the write-area generation
 * "generation" or older was written before it or after it, never both.
 *
 * MVCC.  A reader applies the drops its snapshot sees: xid its own, or
 * committed and not in the snapshot (WideDropsForSnapshot); a rollback
 * leaves an entry no snapshot sees.  Rewrites (flush, compaction) apply
 * only the drops every snapshot sees (WideDropsForAll), as they do with
 * tombstones, so a concurrent snapshot keeps its cells until it ends, and
 * a run wholly dropped (compaction.c) goes to the free queue whose pages
 * are reused only once no snapshot can read them (space.c).  A standby's
 * snapshots are protected by the conflict horizon logged before a
 * rewrite publishes (manifest.c, M5).
 *
 * Life of an entry (WideDropsMaintain, at every VACUUM and compaction):
 * an aborted one is forgotten; a committed one visible to every snapshot
 * is marked frozen (its xid then means nothing, so that the clog may be
 * truncated) with the metapage's count of compactions, frozen_at; a
 * frozen one is forgotten once no record it could delete remains: every
 * write-area generation up to "generation" has been flushed (or the write
 * area holds no record: after drops alone a flush finds nothing to seal
 * and the generation stays where it was), no bulk run
 * of the write area is older than it, and every run is newer than it
 * (min_seq >= seq) or was written by a compaction numbered above frozen_at
 * (WIDE_RUN_BY_COMPACTION: compaction and this run under the same
 * ShareUpdateExclusiveLock, so such a compaction read the entry frozen and
 * applied it).
 *
 * IDENTIFICATION
 *	  src/engine/drops.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/snapmgr.h"

#include "engine/format.h"
#include "engine/storage.h"
#include "engine/manifest.h"
#include "engine/drops.h"

static void
to_rule(const WideDropEntry *e, WideDropRule *out)
{
	out->famid = e->famid;
	out->before = e->before;
	out->seq = e->seq;
}

/* has the entry's transaction rolled back (or crashed)? */
static bool
drop_aborted(const WideDropEntry *e)
{
	if (e->flags & WIDE_DROP_FROZEN)
		return false;
	return !TransactionIdIsCurrentTransactionId(e->xid) &&
		!TransactionIdIsInProgress(e->xid) &&
		!TransactionIdDidCommit(e->xid);
}

/* is the entry committed and visible to every snapshot? */
static bool
drop_visible_to_all(Relation rel, const WideDropEntry *e)
{
	if (e->flags & WIDE_DROP_FROZEN)
		return true;
	if (TransactionIdIsCurrentTransactionId(e->xid) ||
		TransactionIdIsInProgress(e->xid) ||
		!TransactionIdDidCommit(e->xid))
		return false;
	return GlobalVisCheckRemovableXid(rel, e->xid);
}

/*
 * WideDropsForSnapshot -- the drops of a metapage that a snapshot sees,
 * into out (WIDE_MAX_DROPS entries); returns how many.
 */
int
WideDropsForSnapshot(const WideMetaPageData *meta, Snapshot snapshot,
					 WideDropRule *out)
{
	int			n = 0;
	uint32		i;

	for (i = 0; i < Min(meta->ndrops, WIDE_MAX_DROPS); i++)
	{
		const WideDropEntry *e = &meta->drops[i];
		bool		sees;

		if (e->flags & WIDE_DROP_FROZEN)
			sees = true;
		else if (TransactionIdIsCurrentTransactionId(e->xid))
			sees = true;
		else if (snapshot != NULL && IsMVCCSnapshot(snapshot))
			sees = !XidInMVCCSnapshot(e->xid, snapshot) &&
				TransactionIdDidCommit(e->xid);
		else
			sees = !TransactionIdIsInProgress(e->xid) &&
				TransactionIdDidCommit(e->xid);
		if (sees)
			to_rule(e, &out[n++]);
	}
	return n;
}

/* the metapage's drop entries, copied (at most WIDE_MAX_DROPS); how many */
static int
read_drops(Relation rel, WideDropEntry *drops)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	int			nd;

	if (!BufferIsValid(metabuf))
		return 0;
	{
		WideMetaPage meta = WidePageGetMeta(BufferGetPage(metabuf));

		nd = Min(meta->ndrops, WIDE_MAX_DROPS);
		memcpy(drops, meta->drops, sizeof(WideDropEntry) * nd);
	}
	UnlockReleaseBuffer(metabuf);
	return nd;
}

/*
 * WideDropsForAll -- the drops every snapshot sees, which a rewrite may
 * apply physically; returns how many (out: WIDE_MAX_DROPS entries).
 */
int
WideDropsForAll(Relation rel, WideDropRule *out)
{
	WideDropEntry drops[WIDE_MAX_DROPS];
	int			nd = read_drops(rel, drops);
	int			n = 0;

	for (int i = 0; i < nd; i++)
		if (drop_visible_to_all(rel, &drops[i]))
			to_rule(&drops[i], &out[n++]);
	return n;
}

/*
 * WideDropsForRewrite -- the drops of a rewrite starting now, from one
 * read of the metapage and one visibility test each: those every snapshot
 * sees, which it applies physically (all, *nall), and those some snapshot
 * may not see yet, not aborted, whose records keep their sequence numbers
 * in its output (segment_writer.c); returns how many of the latter
 * (pending).  Both WIDE_MAX_DROPS entries.  (Two reads could miss a drop
 * that became visible to all between them: in neither list.)
 */
int
WideDropsForRewrite(Relation rel, WideDropRule *all, int *nall,
					WideDropRule *pending)
{
	WideDropEntry drops[WIDE_MAX_DROPS];
	int			nd = read_drops(rel, drops);
	int			n = 0;

	*nall = 0;
	for (int i = 0; i < nd; i++)
	{
		if (drop_visible_to_all(rel, &drops[i]))
			to_rule(&drops[i], &all[(*nall)++]);
		else if (!drop_aborted(&drops[i]))
			to_rule(&drops[i], &pending[n++]);
	}
	return n;
}

/* forget entry i */
static void
forget(WideMetaPageData *meta, uint32 i)
{
	WideManifestForgetDrop(meta, i);
}

/* may a frozen entry be forgotten (see the header)? */
static bool
applied(const WideMetaPageData *meta, const WideDropEntry *e)
{
	uint32		i;

	if (!(e->flags & WIDE_DROP_FROZEN))
		return false;
	/* write-area records older than it: its generation not yet flushed */
	if (!WideManifestWriteAreaEmpty(meta) &&
		(meta->generation <= e->generation ||
		 (meta->flushing != 0 && meta->flushing <= e->generation)))
		return false;
	for (i = 0; i < meta->nwaruns; i++)
		if (meta->waruns[i].min_seq < e->seq)
			return false;
	for (i = 0; i < meta->nruns; i++)
		if (meta->runs[i].min_seq < e->seq &&
			!((meta->runs[i].flags & WIDE_RUN_BY_COMPACTION) &&
			  (uint64) meta->runs[i].gen > e->frozen_at))
			return false;
	return true;
}

/* forget aborted entries and applied ones; true if the image changed */
static bool
forget_done(WideMetaPageData *meta)
{
	bool		changed = false;
	uint32		i = 0;

	while (i < meta->ndrops)
	{
		if (drop_aborted(&meta->drops[i]) || applied(meta, &meta->drops[i]))
		{
			forget(meta, i);
			changed = true;
		}
		else
			i++;
	}
	return changed;
}

/*
 * WideDropsAdd -- drop_before: delete the cells of family incarnation
 * famid (0: all) older than "before", in this transaction.  REQUIRES: a
 * lock that keeps the table (RowExclusiveLock, as DELETE).
 */
void
WideDropsAdd(Relation rel, uint32 famid, int64 before)
{
	TransactionId xid = GetCurrentTransactionId();
	WideManifestTx tx;
	WideMetaPageData *meta;
	WideDropEntry e;
	uint64		seq;
	XLogRecPtr	end;

	meta = WideManifestBegin(rel, &tx);
	(void) forget_done(meta);
	if (meta->ndrops >= WIDE_MAX_DROPS)
	{
		WideManifestAbort(&tx);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table \"%s\" has %d drops not yet applied",
						RelationGetRelationName(rel), WIDE_MAX_DROPS),
				 errdetail("A drop is forgotten once compaction has removed the cells it deletes."),
				 errhint("Run VACUUM or wide.compact(major => true) on the table, then try again.")));
	}
	seq = WideSeqNext(rel, 1);
	memset(&e, 0, sizeof(WideDropEntry));
	e.xid = xid;
	e.famid = famid;
	e.before = before;
	e.seq = seq;
	e.generation = meta->generation;
	if (!WideManifestAddDrop(meta, &e))
		elog(ERROR, "no room for a drop in \"%s\"", RelationGetRelationName(rel));
	end = WideManifestCommit(&tx);
	WideSeqAfterWrite(rel, seq, end);
}

/*
 * WideDropsMaintain -- forget aborted and applied drops, freeze those every
 * snapshot sees (see the header).  REQUIRES: ShareUpdateExclusiveLock.
 */
void
WideDropsMaintain(Relation rel)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	WideManifestTx tx;
	WideMetaPageData *meta;
	bool		changed = false;
	uint32		i;

	if (!BufferIsValid(metabuf))
		return;
	i = WidePageGetMeta(BufferGetPage(metabuf))->ndrops;
	UnlockReleaseBuffer(metabuf);
	if (i == 0)
		return;

	meta = WideManifestBegin(rel, &tx);
	changed = forget_done(meta);
	for (i = 0; i < meta->ndrops; i++)
	{
		WideDropEntry *e = &meta->drops[i];

		if (!(e->flags & WIDE_DROP_FROZEN) && drop_visible_to_all(rel, e))
		{
			e->flags |= WIDE_DROP_FROZEN;
			e->frozen_at = meta->compactions;
			e->xid = FrozenTransactionId;
			changed = true;
		}
	}
	if (!changed)
	{
		WideManifestAbort(&tx);
		return;
	}
	(void) WideManifestCommit(&tx);
}

/*
 * WideDropsOldestXid -- the oldest transaction id of a drop not frozen yet
 * (VACUUM must not set relfrozenxid past it), or InvalidTransactionId.
 */
TransactionId
WideDropsOldestXid(Relation rel)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	TransactionId oldest = InvalidTransactionId;
	uint32		i;

	if (!BufferIsValid(metabuf))
		return oldest;
	{
		WideMetaPage meta = WidePageGetMeta(BufferGetPage(metabuf));

		for (i = 0; i < Min(meta->ndrops, WIDE_MAX_DROPS); i++)
		{
			TransactionId x = meta->drops[i].xid;

			if (!(meta->drops[i].flags & WIDE_DROP_FROZEN) &&
				TransactionIdIsNormal(x) &&
				(!TransactionIdIsValid(oldest) || TransactionIdPrecedes(x, oldest)))
				oldest = x;
		}
	}
	UnlockReleaseBuffer(metabuf);
	return oldest;
}

/*
 * WideDropsCopy -- VACUUM FULL and CLUSTER (rewrite.c): give dst the drops
 * of src that its rewrite could not apply (not yet seen by every snapshot),
 * so that they keep deleting the copied records, which keep their
 * sequence numbers.
 */
void
WideDropsCopy(Relation src, Relation dst)
{
	Buffer		metabuf = WideReadMeta(src, BUFFER_LOCK_SHARE);
	WideDropEntry drops[WIDE_MAX_DROPS];
	int			nd;
	int			i;
	WideManifestTx tx;
	WideMetaPageData *meta;
	bool		any = false;

	if (!BufferIsValid(metabuf))
		return;
	{
		WideMetaPage m = WidePageGetMeta(BufferGetPage(metabuf));

		nd = Min(m->ndrops, WIDE_MAX_DROPS);
		memcpy(drops, m->drops, sizeof(WideDropEntry) * nd);
	}
	UnlockReleaseBuffer(metabuf);
	for (i = 0; i < nd; i++)
		if (!drop_aborted(&drops[i]) && !drop_visible_to_all(src, &drops[i]))
			any = true;
	if (!any)
		return;
	meta = WideManifestBegin(dst, &tx);
	for (i = 0; i < nd; i++)
		if (!drop_aborted(&drops[i]) && !drop_visible_to_all(src, &drops[i]))
		{
			WideDropEntry e = drops[i];

			e.generation = 0;
			(void) WideManifestAddDrop(meta, &e);
		}
	(void) WideManifestCommit(&tx);
}
