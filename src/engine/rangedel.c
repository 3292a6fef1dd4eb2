/*-------------------------------------------------------------------------
 *
 * rangedel.c
 *	  Range tombstones: a delete of every row in a key range [start, end),
 *	  of all families or of one, as one record.
 *
 * A SQL DELETE whose WHERE names only a range of row keys (am/rangedel.c)
 * writes one range tombstone instead of a tombstone per cell.  Its meaning
 * is that of a row tombstone (a family tombstone, for one family) of its
 * sequence number in each row of the range (rules.c): it removes what was
 * written before it, and only once its transaction commits, for the
 * snapshots that see that commit.
 *
 * Where it lives.  Not in a run: a reader that seeks into the middle of the
 * range would never meet a record sorted at the range's start.  As
 * RocksDB keeps range deletions beside the data of a table file, they are
 * kept beside the runs, in the metapage (WideMetaPageData.rangedels, a
 * few hundred bytes), so that a reader gets them with the one state of the
 * table it reads (reader.c), and a compaction publishes its output and
 * retires the tombstones it made redundant in one WAL record.  Each entry
 * carries the xmin and command id that wrote it; its visibility is a
 * record's (visibility.c).  A delete that does not fit (long keys, many
 * unretired range deletes) is done cell by cell by the caller.
 *
 * Reads: every visible range tombstone enters the deletes of the merger
 * with each row (or family) it holds; a run all of whose records it
 * deletes (its key bounds inside the range, its largest sequence number
 * below the tombstone's) is not opened at all.
 *
 * Rewrites (resolve.c): a tombstone every snapshot sees (frozen) deletes
 * physically what it holds in any flush or compaction -- unlike a record
 * tombstone it is not in the input, and needs not be: it applies to
 * everything older, wherever it is.  One not yet frozen is pending: it
 * keeps versions from being counted and aggregates from being folded in
 * its rows, as an unfrozen record tombstone does.
 *
 * Retirement: a frozen tombstone is dropped from the metapage once no
 * record it may delete is left: when a compaction applied it to every run
 * holding records older than it that overlap its range, and the write area
 * holds nothing older (the generation it was written in has been flushed,
 * and no bulk-loaded run of the write area is older).  VACUUM
 * (WideRangeDelVacuum, compaction.c) drops the runs a frozen tombstone
 * hides entirely, from their metadata alone and without reading them;
 * rewrites the other runs it overlaps, one at a time, when it deleted a
 * tenth of their cells (or the metapage room is half used); and retires
 * what no run needs any more.  Entries of aborted transactions are dropped
 * whenever the list changes.  One every snapshot sees that must stay (a run
 * it deleted little of is not rewritten) is frozen, its xmin set to
 * FrozenTransactionId, as a drop is (drops.c); VACUUM sets relfrozenxid no
 * further than the oldest xmin of one not frozen.
 *
 * IDENTIFICATION
 *	  src/engine/rangedel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/manifest.h"
#include "engine/rangedel.h"

#define HDRSZ	sizeof(WideRangeDelHeader)

static inline uint32
entry_size(const WideRangeDelHeader *h)
{
	return WideRangeDelEntrySize(h);
}

/*
 * WideRangeDelsParse -- every range tombstone of a (valid) metapage,
 * copied into palloc'd memory.
 */
WideRangeDels *
WideRangeDelsParse(const WideMetaPageData *meta)
{
	WideRangeDels *ds = palloc0(sizeof(WideRangeDels));
	char	   *bytes;
	uint32		off = 0;
	uint32		i;

	if (meta->nrangedels == 0)
		return ds;
	bytes = palloc(meta->rangedel_len);
	memcpy(bytes, meta->rangedels, meta->rangedel_len);
	ds->d = palloc0(sizeof(WideRangeDel) * meta->nrangedels);
	for (i = 0; i < meta->nrangedels; i++)
	{
		WideRangeDelHeader h;
		WideRangeDel *t = &ds->d[ds->n++];
		const char *p = bytes + off + HDRSZ;

		memcpy(&h, bytes + off, HDRSZ);
		t->start = p;
		t->startlen = h.startlen;
		t->end = p + h.startlen;
		t->endlen = h.endlen;
		t->has_end = (h.flags & WIDE_RANGEDEL_HAS_END) != 0;
		t->family = p + h.startlen + h.endlen;
		t->famlen = h.famlen;
		t->seq = h.seq;
		t->xmin = h.xmin;
		t->cmin = h.cmin;
		t->gen = h.gen;
		t->ncells = h.ncells;
		off += entry_size(&h);
	}
	return ds;
}

/* a record with the tombstone's MVCC fields, for visibility.c */
static void
as_record(const WideRangeDel *t, WideCell *c)
{
	memset(c, 0, sizeof(WideCell));
	c->kind = WIDE_KIND_DEL_ROW;
	c->xmin = t->xmin;
	c->cmin = t->cmin;
	c->seq = t->seq;
}

/*
 * WideRangeDelsVisible -- those of "all" the snapshot sees.
 */
WideRangeDels *
WideRangeDelsVisible(const WideRangeDels *all, Snapshot snapshot)
{
	WideRangeDels *ds = palloc0(sizeof(WideRangeDels));
	int			i;

	if (all->n == 0)
		return ds;
	ds->d = palloc(sizeof(WideRangeDel) * all->n);
	for (i = 0; i < all->n; i++)
	{
		WideCell	c;
		uint8		hint;

		as_record(&all->d[i], &c);
		if (WideRecordVisible(&c, snapshot, &hint))
			ds->d[ds->n++] = all->d[i];
	}
	return ds;
}

/*
 * WideRangeDelsInRange -- those of the tombstones whose range overlaps the
 * key range (NULL: all of them): the only ones that can delete a record a
 * reader of that range returns.  A reader that kept the others would
 * merge a run a tombstone elsewhere in it touches instead of reading it as
 * stored (reader.c), as every read after a range DELETE of other rows did.
 */
WideRangeDels *
WideRangeDelsInRange(const WideRangeDels *ds, const WideKeyRange *range)
{
	WideRangeDels *out;
	int			i;

	if (ds == NULL || range == NULL || ds->n == 0)
		return (WideRangeDels *) ds;
	out = palloc0(sizeof(WideRangeDels));
	out->d = palloc(sizeof(WideRangeDel) * ds->n);
	for (i = 0; i < ds->n; i++)
	{
		const WideRangeDel *t = &ds->d[i];

		/* every key of t is at least t->start, and below t->end */
		if (WideRowAfterRange(range, t->start, t->startlen))
			continue;
		if (t->has_end && range->has_start &&
			WideKeyCompare(t->end, t->endlen, range->start, range->startlen) <= 0)
			continue;
		out->d[out->n++] = *t;
	}
	return out;
}

/* did the tombstone's transaction abort (or crash)? */
static bool
rd_aborted(TransactionId xmin)
{
	if (!TransactionIdIsNormal(xmin))
		return false;
	if (TransactionIdIsCurrentTransactionId(xmin) ||
		TransactionIdIsInProgress(xmin))
		return false;
	return !TransactionIdDidCommit(xmin);
}

/*
 * WideRangeDelsForRewrite -- the range tombstones a flush or compaction
 * starting now applies: those every snapshot sees delete, the others
 * (but aborted ones) are pending.
 */
WideRangeDels *
WideRangeDelsForRewrite(Relation rel)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	WideRangeDels *all;
	WideRangeDels *ds;
	int			i;

	if (!BufferIsValid(metabuf))
		return palloc0(sizeof(WideRangeDels));
	all = WideRangeDelsParse(WidePageGetMeta(BufferGetPage(metabuf)));
	UnlockReleaseBuffer(metabuf);
	ds = palloc0(sizeof(WideRangeDels));
	ds->d = palloc(sizeof(WideRangeDel) * Max(all->n, 1));
	for (i = 0; i < all->n; i++)
	{
		WideRangeDel *t = &all->d[i];
		WideCell	c;

		if (rd_aborted(t->xmin))
			continue;
		as_record(t, &c);
		t->pending = !WideRecordVisibleToAll(rel, &c);
		ds->d[ds->n++] = *t;
	}
	return ds;
}

/* the tombstone's key range as a WideKeyRange */
static void
key_range(const WideRangeDel *t, WideKeyRange *r)
{
	memset(r, 0, sizeof(WideKeyRange));
	r->has_start = true;
	r->start_incl = true;
	r->start = t->start;
	r->startlen = t->startlen;
	r->has_end = t->has_end;
	r->end_incl = false;
	r->end = t->end;
	r->endlen = t->endlen;
}

/*
 * WideRangeDelHidesRun -- does the (applicable) tombstone delete every
 * record of the run?  Of every family, newer than all of the run, and the
 * run's bounding keys (lo a prefix of its smallest row, hi of its largest
 * when truncated) inside its range.
 */
bool
WideRangeDelHidesRun(const WideRangeDel *t, const WideRunData *run)
{
	if (t->famlen != 0 || t->pending || run->max_seq >= t->seq)
		return false;
	if (WideKeyCompare(run->lo_key, run->lo_len, t->start, t->startlen) < 0)
		return false;
	if (!t->has_end)
		return true;
	if (run->flags & WIDE_RUN_HI_TRUNCATED)
		return WideKeyCompare(run->hi_key, run->hi_len, t->end,
							  Min(t->endlen, run->hi_len)) < 0;
	return WideKeyCompare(run->hi_key, run->hi_len, t->end, t->endlen) < 0;
}

/*
 * WideRangeDelsHideRun -- does one of the tombstones hide the run?
 */
bool
WideRangeDelsHideRun(const WideRangeDels *ds, const WideRunData *run)
{
	int			i;

	for (i = 0; ds != NULL && i < ds->n; i++)
		if (WideRangeDelHidesRun(&ds->d[i], run))
			return true;
	return false;
}

/*
 * WideRangeDelsTouchRun -- may one of the tombstones delete a record of
 * the run (its range overlaps the run's keys, and it is newer than some of
 * its records)?
 */
bool
WideRangeDelsTouchRun(const WideRangeDels *ds, const WideRunData *run)
{
	int			i;

	for (i = 0; ds != NULL && i < ds->n; i++)
	{
		WideKeyRange r;

		if (ds->d[i].seq <= run->min_seq)
			continue;
		key_range(&ds->d[i], &r);
		if (WideRunOverlapsRange(run, &r))
			return true;
	}
	return false;
}

/* rebuild the metapage's list keeping the entries keep() accepts */
static void
rebuild(WideMetaPageData *meta, bool (*keep) (WideRangeDelHeader *h, void *arg),
		void *arg)
{
	char		buf[WIDE_RANGEDEL_SPACE];
	uint32		off = 0,
				len = 0,
				n = 0,
				i;

	for (i = 0; i < meta->nrangedels; i++)
	{
		WideRangeDelHeader h;
		uint32		sz;

		memcpy(&h, meta->rangedels + off, HDRSZ);
		sz = entry_size(&h);
		if (keep(&h, arg))
		{
			/* (the header as keep() left it) */
			memcpy(buf + len, meta->rangedels + off, sz);
			memcpy(buf + len, &h, HDRSZ);
			len += sz;
			n++;
		}
		off += sz;
	}
	WideManifestSetRangeDels(meta, buf, len, n);
}

static bool
keep_not_aborted(WideRangeDelHeader *h, void *arg)
{
	return !rd_aborted(h->xmin);
}

/* append an entry; false if it does not fit */
static bool
append_entry(WideMetaPageData *meta, const WideRangeDel *t, uint64 seq,
			 TransactionId xmin, CommandId cmin, uint32 gen)
{
	WideRangeDelHeader h;
	char		area[WIDE_RANGEDEL_SPACE];
	char	   *p;

	memset(&h, 0, sizeof(h));
	h.seq = seq;
	h.xmin = xmin;
	h.cmin = cmin;
	h.gen = gen;
	h.ncells = t->ncells;
	h.startlen = t->startlen;
	h.endlen = t->has_end ? t->endlen : 0;
	h.famlen = t->famlen;
	h.flags = t->has_end ? WIDE_RANGEDEL_HAS_END : 0;
	if (t->startlen > PG_UINT16_MAX || (t->has_end && t->endlen > PG_UINT16_MAX) ||
		t->famlen > WIDE_MAX_FAMILY_NAME ||
		meta->rangedel_len + (Size) entry_size(&h) > WIDE_RANGEDEL_SPACE)
		return false;
	memcpy(area, meta->rangedels, meta->rangedel_len);
	p = area + meta->rangedel_len;
	memset(p, 0, entry_size(&h));
	memcpy(p, &h, HDRSZ);
	memcpy(p + HDRSZ, t->start, h.startlen);
	if (h.endlen > 0)
		memcpy(p + HDRSZ + h.startlen, t->end, h.endlen);
	if (h.famlen > 0)
		memcpy(p + HDRSZ + h.startlen + h.endlen, t->family, h.famlen);
	WideManifestSetRangeDels(meta, area, meta->rangedel_len + entry_size(&h),
							 meta->nrangedels + 1);
	return true;
}

/*
 * WideRangeDelAdd -- write a range tombstone (key range and family of t)
 * in the current transaction with command id cid; its sequence number is
 * set in *seq, and in *runcells (if not NULL) the cells of the runs its
 * range overlaps (WideRangeDelCountMatters).  The caller checks the write
 * is allowed (WideCheckWrite) and writes this backend's statement buffer
 * first (WidePendingWrite).  False, and nothing written, if the metapage
 * has no room for it (the caller deletes cell by cell).
 */
bool
WideRangeDelAdd(Relation rel, const WideRangeDel *t, CommandId cid,
				uint64 *seqp, uint64 *runcellsp)
{
	TransactionId xid;
	WideManifestTx tx;
	WideMetaPageData *meta;
	uint64		seq;
	XLogRecPtr	lsn;

	WideSerializableWrite(rel);
	xid = GetCurrentTransactionId();
	meta = WideManifestBegin(rel, &tx);
	/* under the exclusive metapage lock: no append takes a number meanwhile */
	seq = WideSeqNext(rel, 1);
	if (!append_entry(meta, t, seq, xid, cid, meta->generation))
	{
		rebuild(meta, keep_not_aborted, NULL);
		if (!append_entry(meta, t, seq, xid, cid, meta->generation))
		{
			WideManifestAbort(&tx);
			return false;
		}
	}
	if (runcellsp != NULL)
	{
		WideKeyRange r;
		uint64		cells = 0;

		key_range(t, &r);
		for (uint32 i = 0; i < meta->nruns; i++)
			if (WideRunOverlapsRange(&meta->runs[i], &r))
				cells += meta->runs[i].ncells;
		*runcellsp = cells;
	}
	WideManifestNoteRunChange(meta);
	lsn = WideManifestCommit(&tx);
	WideSeqAfterWrite(rel, seq, lsn);
	*seqp = seq;
	return true;
}

static bool
keep_not_seq(WideRangeDelHeader *h, void *arg)
{
	return !(h->seq == *(uint64 *) arg &&
			 TransactionIdIsCurrentTransactionId(h->xmin));
}

/*
 * WideRangeDelCancel -- remove the range tombstone numbered seq that this
 * transaction wrote in its running command (no snapshot, not even ours,
 * can have seen it yet).
 */
void
WideRangeDelCancel(Relation rel, uint64 seq)
{
	WideManifestTx tx;
	WideMetaPageData *meta = WideManifestBegin(rel, &tx);

	rebuild(meta, keep_not_seq, &seq);
	WideManifestNoteRunChange(meta);
	(void) WideManifestCommit(&tx);
}

typedef struct CountArg
{
	uint64		seq;
	uint32		ncells;
} CountArg;

static bool
set_count(WideRangeDelHeader *h, void *arg)
{
	CountArg   *a = (CountArg *) arg;

	if (h->seq == a->seq && TransactionIdIsCurrentTransactionId(h->xmin))
		h->ncells = a->ncells;
	return true;
}

/*
 * WideRangeDelCountMatters -- is the count of a range tombstone that
 * deleted ncells cells, whose range overlaps runs of runcells cells
 * (WideRangeDelAdd), worth a metapage WAL record of its own
 * (WideRangeDelSetCount)?  VACUUM rewrites the runs the tombstones overlap
 * when their counts add up to a tenth of those runs' cells, or when their
 * room is half used (compaction.c).  The room holds at most
 * WIDE_RANGEDEL_SPACE / (an entry's least size) tombstones; a count below
 * a tenth of its runs' cells divided by that number is not recorded (a
 * host's hour in a table of a day of 30 hosts: 3,600 of 2.6M cells).  All
 * such counts together stay below a tenth of the cells of the runs they
 * overlap: the sum VACUUM weighs misses less than the threshold itself,
 * so a rewrite comes at most twice as late as with every count -- or
 * when the room is half used, as before.
 */
bool
WideRangeDelCountMatters(uint64 ncells, uint64 runcells)
{
	const uint64 most = WIDE_RANGEDEL_SPACE /
		MAXALIGN(sizeof(WideRangeDelHeader) + 1);

	return ncells * 10 * most >= runcells;
}

/*
 * WideRangeDelSetCount -- note the number of cells the range tombstone
 * numbered seq, of this transaction's running command, deleted (VACUUM
 * weighs rewriting the runs it overlaps by it).
 */
void
WideRangeDelSetCount(Relation rel, uint64 seq, uint64 ncells)
{
	WideManifestTx tx;
	WideMetaPageData *meta = WideManifestBegin(rel, &tx);
	CountArg	a;

	a.seq = seq;
	a.ncells = (uint32) Min(ncells, PG_UINT32_MAX);
	rebuild(meta, set_count, &a);
	(void) WideManifestCommit(&tx);
}

typedef struct RetireArg
{
	const WideMetaPageData *meta;
	const WideRangeDels *applied;
	const WideRunData *runs;
	int			nruns;
	int			lo;
	int			hi;
} RetireArg;

/*
 * Keep the entry unless its transaction aborted, or it is retired: it was
 * applied (frozen) by a rewrite of runs[lo..hi], every other run older in
 * part than it does not overlap its range, and the write area holds
 * nothing older than it.
 */
static bool
keep_unretired(WideRangeDelHeader *h, void *arg)
{
	RetireArg  *a = (RetireArg *) arg;
	const WideRangeDel *t = NULL;
	WideKeyRange r;
	uint32		i;

	if (rd_aborted(h->xmin))
		return false;
	for (i = 0; a->applied != NULL && i < (uint32) a->applied->n; i++)
		if (a->applied->d[i].seq == h->seq && a->applied->d[i].xmin == h->xmin &&
			!a->applied->d[i].pending)
			t = &a->applied->d[i];
	if (t == NULL)
		return true;
	/*
	 * write-area records older than it: its generation not yet flushed --
	 * unless the write area holds no record at all (a flush finds nothing
	 * to seal and leaves the generation as it is: after range DELETEs
	 * alone, which write only to the metapage, the tombstones were never
	 * retired and their room stayed full)
	 */
	if (h->gen != 0 && !WideManifestWriteAreaEmpty(a->meta) &&
		(h->gen >= a->meta->generation ||
		 (a->meta->flushing != 0 && a->meta->flushing <= h->gen)))
		goto kept;
	for (i = 0; i < a->meta->nwaruns; i++)
		if (a->meta->waruns[i].min_seq < h->seq)
			goto kept;
	key_range(t, &r);
	for (i = 0; i < (uint32) a->nruns; i++)
	{
		if ((int) i >= a->lo && (int) i <= a->hi)
			continue;
		if (a->runs[i].min_seq < h->seq && WideRunOverlapsRange(&a->runs[i], &r))
			goto kept;
	}
	return false;

kept:

	/*
	 * Kept, and seen by every snapshot (not pending): frozen, as a drop is
	 * (drops.c), so that its xid means nothing any more.  It may stay for
	 * long (a run it deleted little of is not rewritten): VACUUM then sets
	 * relfrozenxid past that xid and the clog under it may be truncated.
	 */
	h->xmin = FrozenTransactionId;
	h->cmin = 0;
	return true;
}

/*
 * WideRangeDelsRetire -- in a compaction's publication (meta: the image
 * being changed), drop the tombstones it made redundant: those of
 * "applied" (the rewrite's, WideRangeDelsForRewrite) that were frozen, for
 * which the rewritten runs[lo..hi] (the run list it started from) were
 * every run holding older records in their range; and those of aborted
 * transactions.  lo > hi: nothing was rewritten (VACUUM dropped runs).
 */
void
WideRangeDelsRetire(Relation rel, WideMetaPageData *meta,
					const WideRangeDels *applied, const WideRunData *runs,
					int nruns, int lo, int hi)
{
	RetireArg	a;

	if (meta->nrangedels == 0)
		return;
	a.meta = meta;
	a.applied = applied;
	a.runs = runs;
	a.nruns = nruns;
	a.lo = lo;
	a.hi = hi;
	rebuild(meta, keep_unretired, &a);
}

/*
 * WideRangeDelsOldestXmin -- the oldest transaction id of a range tombstone
 * not frozen yet (VACUUM must not set relfrozenxid past it), or
 * InvalidTransactionId.
 */
TransactionId
WideRangeDelsOldestXmin(Relation rel)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	TransactionId oldest = InvalidTransactionId;
	WideRangeDels *all;
	int			i;

	if (!BufferIsValid(metabuf))
		return oldest;
	all = WideRangeDelsParse(WidePageGetMeta(BufferGetPage(metabuf)));
	UnlockReleaseBuffer(metabuf);
	for (i = 0; i < all->n; i++)
	{
		TransactionId x = all->d[i].xmin;

		if (TransactionIdIsNormal(x) &&
			(!TransactionIdIsValid(oldest) || TransactionIdPrecedes(x, oldest)))
			oldest = x;
	}
	return oldest;
}

/*
 * WideRangeDelsCarry -- VACUUM FULL: the tombstones of ds that are still
 * pending go into the new storage's metapage (its write area is empty, so
 * nothing there is older: generation 0).
 */
void
WideRangeDelsCarry(Relation rel, WideMetaPageData *meta, const WideRangeDels *ds)
{
	int			i;

	for (i = 0; i < ds->n; i++)
		if (ds->d[i].pending &&
			!append_entry(meta, &ds->d[i], ds->d[i].seq, ds->d[i].xmin,
						  ds->d[i].cmin, 0))
			elog(ERROR, "range tombstones of \"%s\" do not fit the new metapage",
				 RelationGetRelationName(rel));
}
