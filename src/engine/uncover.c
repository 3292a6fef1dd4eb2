/*-------------------------------------------------------------------------
 *
 * uncover.c
 *	  A delete never brings back a version its family's policy hid.
 *
 * A GC policy with a version limit hides the versions of a column beyond
 * the newest max_versions live ones (rules.c), and compaction collects
 * them for good (resolve.c) -- but only once it runs.  A delete of visible
 * versions makes the column's live versions fewer, so before compaction
 * ran the versions it had hidden would count among the newest again and
 * come back, and after it they would not: a statement's result depended on
 * maintenance (issue 24, defect 10).  The rule is that a version hidden by
 * its policy is collected for good, as if GC had run when it was hidden
 * (Bigtable's emulator collects at write time).
 *
 * So a column delete (DEL_CELLS) in a family whose policy has a version
 * limit that removes a version the deleting snapshot sees comes with one
 * more tombstone of the same column, for the timestamps [0, t) where t is
 * that of the oldest version the snapshot sees.  A policy hides a column's
 * oldest versions -- every rule (versions, age) and every union or
 * intersection of them hides a set closed downwards in timestamp order --
 * so that tombstone removes, by the rule that a delete removes what was
 * written before it, exactly the versions hidden when the delete is
 * written, and nothing visible.  After compaction has collected them it
 * removes nothing; either way the column reads the same.
 *
 * Finding t takes a read of the column.  The data API reads it at once
 * (WideUncoverExpand, once per column and command).  SQL DELETE removes
 * only versions its scan returned, so it notes the columns
 * (WideUncoverNote) and reads them in batches of WIDE_UNCOVER_BATCH, sorted,
 * through one reader over the rows (WideUncoverFlush, also when the
 * statement ends): with the statement's snapshot, which does not see the
 * statement's own tombstones, a batch read late finds what a read at once
 * would have.  (A read of each column at once scanned the write area each
 * time: a DELETE of 100,000 cells took minutes.)
 *
 * Row and family deletes remove every version of their scope and uncover
 * nothing.  Aggregate and rollup families keep one merged cell per
 * timestamp and are left alone.
 *
 * IDENTIFICATION
 *	  src/engine/uncover.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "engine/writearea.h"
#include "engine/uncover.h"

/* the column handled last, so that a statement reads each column once */
static struct
{
	Oid			relid;
	TransactionId xid;
	CommandId	cid;
	uint32		famid;
	char	   *key;			/* in TopMemoryContext */
	uint32		keylen;
	char	   *qual;
	uint32		quallen;
} last;

static bool
same_column(const WideCell *a, const WideCell *b)
{
	return a->famlen == b->famlen && a->quallen == b->quallen &&
		memcmp(a->family, b->family, a->famlen) == 0 &&
		memcmp(a->qual, b->qual, a->quallen) == 0;
}

static bool
seen_last(Relation rel, const WideCell *del)
{
	return last.relid == RelationGetRelid(rel) && last.xid == del->xmin &&
		last.cid == del->cmin && last.famid == del->famid &&
		last.keylen == del->keylen && last.quallen == del->quallen &&
		memcmp(last.key, del->key, del->keylen) == 0 &&
		memcmp(last.qual, del->qual, del->quallen) == 0;
}

static void
remember_last(Relation rel, const WideCell *del)
{
	if (last.key)
		pfree(last.key);
	if (last.qual)
		pfree(last.qual);
	last.relid = RelationGetRelid(rel);
	last.xid = del->xmin;
	last.cid = del->cmin;
	last.famid = del->famid;
	last.key = MemoryContextAlloc(TopMemoryContext, Max(del->keylen, 1));
	memcpy(last.key, del->key, del->keylen);
	last.keylen = del->keylen;
	last.qual = MemoryContextAlloc(TopMemoryContext, Max(del->quallen, 1));
	memcpy(last.qual, del->qual, del->quallen);
	last.quallen = del->quallen;
}

/*
 * uncover_tombstone -- if the column delete "del" removes a version the
 * snapshot sees, in a family with a version limit, fill *extra with the
 * tombstone of the versions its policy hides and return true.
 */
static bool
uncover_tombstone(Relation rel, const WideSchema *schema, Snapshot snapshot,
				  const WideCell *del, WideCell *extra)
{
	const WideFamily *fam;
	WideKeyRange range;
	WideReader *r;
	const WideCell *c;
	MemoryContext cxt,
				old;
	bool		hits = false;
	bool		any = false;
	int64		oldest = PG_INT64_MAX;

	if (del->kind != WIDE_KIND_DEL_CELLS)
		return false;
	fam = WideSchemaFindFamily(schema, del->family, del->famlen);
	if (fam == NULL || fam->max_versions <= 0 || fam->aggregate != WIDE_AGG_NONE)
		return false;
	if (seen_last(rel, del))
		return false;

	memset(&range, 0, sizeof(range));
	range.has_start = range.has_end = range.start_incl = range.end_incl = true;
	range.is_point = true;
	range.start = range.end = del->key;
	range.startlen = range.endlen = del->keylen;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "wide uncover",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	r = WideReaderBegin(rel, snapshot, WideReaderNow(), &range);
	while ((c = WideReaderNext(r)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		if (WIDE_KIND_IS_TOMBSTONE(c->kind) || !same_column(c, del))
			continue;
		any = true;
		oldest = Min(oldest, c->ts);
		if (WideTsInRange(c->ts, del->ts, del->ts_to))
			hits = true;
	}
	WideReaderEnd(r);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);

	if (!any || !hits)
		return false;
	/* later deletes of this column in this command uncover nothing more */
	remember_last(rel, del);
	if (oldest <= 0)
		return false;
	*extra = *del;
	extra->ts = 0;
	extra->ts_to = oldest;
	return true;
}

/*
 * WideUncoverExpand -- the cells to write for a write of cells[0..*n-1]
 * read with the snapshot: the same array if no column delete uncovers a
 * version (see the file header), else a new palloc'd array where each such
 * delete is preceded by the tombstone of the versions its family's policy
 * hides (*n updated).  The cells' xmin and cmin must be set.
 */
WideCell *
WideUncoverExpand(Relation rel, const WideSchema *schema, Snapshot snapshot,
				  WideCell *cells, int *n)
{
	WideCell   *out = NULL;
	int			nout = 0;
	int			i;

	for (i = 0; i < *n; i++)
	{
		WideCell	extra;

		if (!uncover_tombstone(rel, schema, snapshot, &cells[i], &extra))
		{
			if (out)
				out[nout++] = cells[i];
			continue;
		}
		if (out == NULL)
		{
			out = palloc(sizeof(WideCell) * (*n * 2));
			memcpy(out, cells, sizeof(WideCell) * i);
			nout = i;
		}
		out[nout++] = extra;
		out[nout++] = cells[i];
	}
	if (out == NULL)
		return cells;
	*n = nout;
	return out;
}

/* ----------------------------------------------------------------
 *	Batches of a SQL DELETE
 * ----------------------------------------------------------------
 */
#define WIDE_UNCOVER_BATCH	4096

typedef struct Noted
{
	WideCell	del;			/* the column: key, family, qualifier; xmin, cmin */
	int64		oldest;			/* oldest visible version's ts */
	bool		any;			/* a version is visible */
} Noted;

static MemoryContext batch_cxt = NULL;
static Oid	batch_relid = InvalidOid;
static Snapshot batch_snapshot = NULL;	/* the DELETE's (its QueryDesc's) */
static SubTransactionId batch_subid = InvalidSubTransactionId;
static Noted *batch = NULL;
static int	nbatch = 0;
static bool batch_callbacks = false;

static uint32 flush_batch(Relation rel);

static void
batch_forget(void)
{
	if (batch_cxt)
		MemoryContextReset(batch_cxt);
	batch = NULL;
	nbatch = 0;
	batch_relid = InvalidOid;
	batch_snapshot = NULL;
}

static void
batch_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PREPARE)
		batch_forget();
}

static void
batch_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	/* the notes of the aborted subtransaction or of one inside it */
	if (event == SUBXACT_EVENT_ABORT_SUB && nbatch > 0 && batch_subid >= mySubid)
		batch_forget();
	else if (event == SUBXACT_EVENT_COMMIT_SUB && batch_subid == mySubid)
		batch_subid = parentSubid;
}

static int
cmp_bytes(const char *a, uint32 alen, const char *b, uint32 blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	return c != 0 ? c : (alen < blen ? -1 : alen > blen ? 1 : 0);
}

/* column order within a row: family, qualifier (bytewise) */
static int
cmp_column(const WideCell *a, const WideCell *b)
{
	int			c = cmp_bytes(a->family, a->famlen, b->family, b->famlen);

	return c != 0 ? c : cmp_bytes(a->qual, a->quallen, b->qual, b->quallen);
}

static int
cmp_noted(const void *x, const void *y)
{
	const WideCell *a = &((const Noted *) x)->del;
	const WideCell *b = &((const Noted *) y)->del;
	int			c = cmp_bytes(a->key, a->keylen, b->key, b->keylen);

	return c != 0 ? c : cmp_column(a, b);
}

/*
 * WideUncoverNote -- a SQL DELETE of the current command writes the column
 * delete "del" (xmin, cmin set) of a version its scan returned: note its
 * column, to be read with the batch.  Returns the write area's pages if a
 * full batch was written (for deciding to flush), else 0.
 */
uint32
WideUncoverNote(Relation rel, const WideSchema *schema, Snapshot snapshot,
				const WideCell *del)
{
	const WideFamily *fam;
	Noted	   *n;
	uint32		pages = 0;

	if (del->kind != WIDE_KIND_DEL_CELLS)
		return 0;
	fam = WideSchemaFindFamily(schema, del->family, del->famlen);
	if (fam == NULL || fam->max_versions <= 0 || fam->aggregate != WIDE_AGG_NONE)
		return 0;
	if (batch_cxt == NULL)
		batch_cxt = AllocSetContextCreate(TopMemoryContext, "wide uncover batch",
										  ALLOCSET_DEFAULT_SIZES);
	if (!batch_callbacks)
	{
		RegisterXactCallback(batch_xact_callback, NULL);
		RegisterSubXactCallback(batch_subxact_callback, NULL);
		batch_callbacks = true;
	}
	if (nbatch > 0 && (batch_relid != RelationGetRelid(rel) ||
					   batch[0].del.cmin != del->cmin ||
					   batch[0].del.xmin != del->xmin))
		pages = WideUncoverFlush(rel);
	/* the versions of a column come one after the other */
	if (nbatch > 0)
	{
		const WideCell *prev = &batch[nbatch - 1].del;

		if (prev->famid == del->famid &&
			cmp_bytes(prev->key, prev->keylen, del->key, del->keylen) == 0 &&
			cmp_column(prev, del) == 0)
			return pages;
	}
	if (batch == NULL)
		batch = MemoryContextAlloc(batch_cxt, sizeof(Noted) * WIDE_UNCOVER_BATCH);
	batch_relid = RelationGetRelid(rel);
	batch_snapshot = snapshot;
	batch_subid = GetCurrentSubTransactionId();
	n = &batch[nbatch++];
	n->del = *del;
	n->del.key = MemoryContextAlloc(batch_cxt, Max(del->keylen, 1));
	memcpy((char *) n->del.key, del->key, del->keylen);
	n->del.family = MemoryContextAlloc(batch_cxt, Max(del->famlen, 1));
	memcpy((char *) n->del.family, del->family, del->famlen);
	n->del.qual = MemoryContextAlloc(batch_cxt, Max(del->quallen, 1));
	memcpy((char *) n->del.qual, del->qual, del->quallen);
	n->del.key_datum = n->del.qual_datum = n->del.value_datum = NULL;
	n->del.value = NULL;
	n->del.vallen = 0;
	n->any = false;
	n->oldest = PG_INT64_MAX;
	if (nbatch == WIDE_UNCOVER_BATCH)
		pages = Max(pages, WideUncoverFlush(rel));
	return pages;
}

/*
 * WideUncoverFlush -- read the columns noted with their statement's
 * snapshot and write, for each, the tombstone of the versions its policy
 * hides.  Returns the write area's pages of rel if it wrote into rel, else
 * 0 (notes of another relation, a DELETE that a trigger's DELETE of rel
 * interrupted, are written into theirs, still locked by that statement).
 */
uint32
WideUncoverFlush(Relation rel)
{
	Relation	target = rel;
	uint32		pages;

	if (nbatch == 0)
		return 0;
	if (batch_relid != RelationGetRelid(rel))
	{
		target = relation_open(batch_relid, NoLock);
		(void) flush_batch(target);
		relation_close(target, NoLock);
		return 0;
	}
	pages = flush_batch(rel);
	return pages;
}

static uint32
flush_batch(Relation rel)
{
	Snapshot	snapshot = batch_snapshot;
	MemoryContext cxt,
				old;
	WideReader *r;
	WideCell   *out;
	int			nout = 0;
	int			i,
				j;
	uint32		pages = 0;

	qsort(batch, nbatch, sizeof(Noted), cmp_noted);
	for (i = j = 1; i < nbatch; i++)
		if (cmp_noted(&batch[j - 1], &batch[i]) != 0)
			batch[j++] = batch[i];
	nbatch = Min(nbatch, j);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "wide uncover read",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	r = WideReaderBeginRanges(rel, snapshot, WideReaderNow(), NULL, NULL);
	for (i = 0; i < nbatch; i = j)
	{
		WideKeyRange range;
		const WideCell *c;

		/* the notes of one row: i .. j-1 */
		for (j = i + 1; j < nbatch &&
			 cmp_bytes(batch[j].del.key, batch[j].del.keylen,
					   batch[i].del.key, batch[i].del.keylen) == 0; j++)
			;
		memset(&range, 0, sizeof(range));
		range.has_start = range.has_end = range.start_incl = range.end_incl = true;
		range.is_point = true;
		range.start = range.end = batch[i].del.key;
		range.startlen = range.endlen = batch[i].del.keylen;
		WideReaderNextRange(r, &range);
		while ((c = WideReaderNext(r)) != NULL)
		{
			int			lo = i,
						hi = j - 1;

			CHECK_FOR_INTERRUPTS();
			if (WIDE_KIND_IS_TOMBSTONE(c->kind))
				continue;
			while (lo <= hi)
			{
				int			mid = (lo + hi) / 2;
				int			cmp = cmp_column(c, &batch[mid].del);

				if (cmp == 0)
				{
					batch[mid].any = true;
					batch[mid].oldest = Min(batch[mid].oldest, c->ts);
					break;
				}
				if (cmp < 0)
					hi = mid - 1;
				else
					lo = mid + 1;
			}
		}
	}
	WideReaderEnd(r);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);

	out = palloc(sizeof(WideCell) * nbatch);
	for (i = 0; i < nbatch; i++)
	{
		if (!batch[i].any || batch[i].oldest <= 0)
			continue;
		out[nout] = batch[i].del;
		out[nout].ts = 0;
		out[nout].ts_to = batch[i].oldest;
		nout++;
	}
	if (nout > 0)
	{
		/* a statement's cells pending in memory go first, in write order */
		WidePendingWrite(rel);
		pages = WideWriteAreaInsert(rel, out, nout);
	}
	pfree(out);
	batch_forget();
	return pages;
}
