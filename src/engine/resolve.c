/*-------------------------------------------------------------------------
 *
 * resolve.c
 *	  What a flush or a compaction keeps: the rules applied when records are
 *	  rewritten into a segment.
 *
 * Input: every record of the sources being rewritten, in cell order, with
 * their MVCC state.  A record is *frozen* when it is visible to every
 * snapshot that exists or can exist (visibility.c); only frozen records can
 * decide anything, because a reader may not see the others.  Output: the
 * records to keep, each marked frozen or not.
 *
 * Dropped, because no snapshot can ever return them:
 *	- records of aborted transactions;
 *	- records covered by a frozen tombstone of the input (smaller sequence
 *	  number, in its scope), or by a frozen range tombstone of the
 *	  metapage (rangedel.c: it deletes older records wherever they are);
 *	- older writes of a cell whose newest write is a frozen PUT;
 *	- cells of a family that no longer exists (or an earlier incarnation);
 *	- frozen cells a GC policy collects: beyond the max_versions newest
 *	  frozen live versions of their column (only while no unfrozen tombstone
 *	  is in scope), or older than max_age measured from the start of the
 *	  oldest running transaction (so no open snapshot ever sees a cell it
 *	  could still read disappear);
 *	- frozen tombstones, when the output is the oldest run ("bottom"):
 *	  everything they can delete is in the input, and has been dropped.
 * Merged: consecutive frozen inputs of an aggregate cell fold into one
 * MERGE record (not under an unfrozen tombstone, which may still delete
 * some of them and not the others).
 *
 * The delete and GC rules themselves are in rules.c, shared with the read
 * path (merge.c): compaction must never keep what a reader hides, nor
 * drop what a reader shows.  The family catalog is the committed one
 * (WideSchemaCommitted); GC collects only what both it and the catalog our
 * own transaction sees collect (policies_collect).
 *
 * Why partial compactions may apply these rules: runs are ordered by write
 * order (see compaction.c), so every record outside the input that could
 * interact with a record inside is newer than all of the input -- it can
 * delete input records, never be deleted by them.
 *
 * IDENTIFICATION
 *	  src/engine/resolve.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "lib/stringinfo.h"
#include "storage/procarray.h"
#include "utils/backend_status.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "engine/storage.h"
#include "engine/record.h"
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/rules.h"
#include "engine/rangedel.h"
#include "engine/drops.h"

struct WideResolver
{
	Relation	rel;
	const WideSchema *schema;	/* the committed catalog */
	const WideSchema *current;	/* the catalog our transaction sees */
	bool		bottom;
	int64		gc_now;			/* 0: no age-based collection */
	WideSegmentWriter *w;
	TransactionId settled_xid;	/* committed and visible to all, or
								 * invalid: see WideResolverPush */
	WideDropRule drops[WIDE_MAX_DROPS];	/* drops applied (drops.c) */
	int			ndrops;
	WideDropRule pending_drops[WIDE_MAX_DROPS];	/* and not yet: their records
												 * keep their numbers */
	int			npending_drops;
	WideResolverRoute route;	/* or NULL: everything into w */
	void	   *route_arg;
	WideResolveStats stats;

	/* frozen deletes in effect (rules.c) */
	WideDeletes dels;
	WideRangeDels *ranges;		/* range tombstones (rangedel.c) */

	/* row */
	bool		have_row;
	StringInfoData row;
	bool		row_unfrozen;

	/* family */
	bool		have_fam;
	StringInfoData fam;
	const WideFamily *def;		/* the family of that name, or NULL */
	const WideFamily *cur_def;	/* the same in our transaction's catalog */
	bool		fam_unfrozen;

	/* column */
	bool		have_col;
	StringInfoData qual;
	bool		col_unfrozen;
	int			nversions;		/* frozen live versions seen */
	bool		have_ts;
	int64		cur_ts;
	bool		ts_decided;		/* a frozen PUT is the newest write */

	/* an aggregate being folded */
	bool		acc_pending;
	WideAcc		acc;
	WideCell	acc_cell;
	uint64		acc_min_seq;	/* the oldest input folded */
	StringInfoData acc_buf;
};

static void
set_string(StringInfo s, const char *data, int len)
{
	resetStringInfo(s);
	appendBinaryStringInfo(s, data, len);
}

static bool
same_string(StringInfo s, const char *data, int len)
{
	return s->len == len && memcmp(s->data, data, len) == 0;
}

/*
 * WideGCNow -- the reference time for physical max-age collection: the
 * start of the oldest running transaction (microseconds since 1970), or 0
 * if that cannot be known (track_activities off).
 */
int64
WideGCNow(void)
{
	TimestampTz oldest = GetCurrentTransactionStartTimestamp();
	int			n = pgstat_fetch_stat_numbackends();
	int			i;

	if (!pgstat_track_activities)
		return 0;
	for (i = 1; i <= n; i++)
	{
		LocalPgBackendStatus *b = pgstat_fetch_stat_local_beentry(i);

		if (b && b->backendStatus.st_xact_start_timestamp != 0 &&
			b->backendStatus.st_xact_start_timestamp < oldest)
			oldest = b->backendStatus.st_xact_start_timestamp;
	}
	return WideTimestampToUnix(oldest);
}

/*
 * WideResolverCreate -- rules for rewriting into w; "bottom": nothing older
 * than the input exists.
 */
WideResolver *
WideResolverCreate(Relation rel, const WideSchema *schema, bool bottom,
				   int64 gc_now, WideSegmentWriter *w)
{
	WideResolver *r = palloc0(sizeof(WideResolver));

	r->rel = rel;
	r->schema = schema;
	r->current = WideSchemaCopy(rel);
	r->bottom = bottom;
	r->gc_now = gc_now;
	r->w = w;
	initStringInfo(&r->row);
	initStringInfo(&r->fam);
	initStringInfo(&r->qual);
	initStringInfo(&r->acc_buf);
	WideAccInit(&r->acc, CurrentMemoryContext);
	WideDeletesInit(&r->dels);
	r->ranges = WideRangeDelsForRewrite(rel);
	if (r->ranges->n > 0)
	{
		WideRangeDels *pending = palloc0(sizeof(WideRangeDels));

		r->dels.ranges = r->ranges;
		/* the rows a pending one holds keep exact sequence numbers */
		pending->d = palloc(sizeof(WideRangeDel) * r->ranges->n);
		for (int i = 0; i < r->ranges->n; i++)
			if (r->ranges->d[i].pending)
				pending->d[pending->n++] = r->ranges->d[i];
		WideSegmentWriterKeepSeqs(w, pending);
	}
	/*
	 * the drops every snapshot sees (drops.c) delete physically; the records
	 * of those some may not see yet keep their sequence numbers
	 */
	r->npending_drops = WideDropsForRewrite(rel, r->drops, &r->ndrops,
											r->pending_drops);
	WideDeletesSetDrops(&r->dels, r->drops, r->ndrops);
	WideSegmentWriterKeepDrops(w, r->pending_drops, r->npending_drops);
	return r;
}

/*
 * WideResolverSetRoute -- write each record into the writer "route"
 * chooses, instead of the one given at creation.
 */
void
WideResolverSetRoute(WideResolver *r, WideResolverRoute route, void *arg)
{
	r->route = route;
	r->route_arg = arg;
}

static void
emit(WideResolver *r, const WideCell *c, bool frozen)
{
	WideSegmentWriterAdd(r->route ? r->route(r->route_arg, c) : r->w, c, frozen);
	r->stats.kept++;
}

/*
 * flush_fsum -- write a float sum as its pieces (fsum.c): MERGE records of
 * one double each, newest first, numbered from the newest input's sequence
 * number down (within the inputs' numbers, so no other record of the cell
 * shares one).  False if they do not fit there (a sum of fewer inputs than
 * pieces, which does not happen: n doubles sum to at most n pieces), to
 * write the rounded sum instead.
 */
static bool
flush_fsum(WideResolver *r)
{
	double		pieces[64];
	int			n = WideFsumPieces(&r->acc, pieces, lengthof(pieces));
	StringInfo	b = &r->acc_buf;
	uint32		head = r->acc_cell.keylen + r->acc_cell.famlen + r->acc_cell.quallen;
	uint64		seq = r->acc_cell.seq;
	int			i;

	if (n < 0 || (uint64) (n - 1) > seq - r->acc_min_seq)
		return false;
	if (n == 0)
	{
		pieces[0] = 0.0;		/* a sum of zero is one piece of +0 */
		n = 1;
	}
	r->acc_cell.key = b->data;
	r->acc_cell.family = b->data + r->acc_cell.keylen;
	r->acc_cell.qual = b->data + r->acc_cell.keylen + r->acc_cell.famlen;
	r->acc_cell.vallen = sizeof(double);
	for (i = 0; i < n; i++)
	{
		enlargeStringInfo(b, sizeof(double));
		memcpy(b->data + head, &pieces[i], sizeof(double));
		b->len = head + sizeof(double);
		r->acc_cell.value = b->data + head;
		r->acc_cell.seq = seq - i;
		emit(r, &r->acc_cell, true);
	}
	r->stats.folded -= n - 1;	/* inputs merged away, less the pieces added */
	return true;
}

static void
flush_acc(WideResolver *r)
{
	StringInfo	b = &r->acc_buf;
	uint32		head;

	if (!r->acc_pending)
		return;
	r->acc_pending = false;
	if (r->acc.agg == WIDE_AGG_FSUM && flush_fsum(r))
		return;
	head = r->acc_cell.keylen + r->acc_cell.famlen + r->acc_cell.quallen;
	r->acc_cell.vallen = WideAccSize(&r->acc);
	enlargeStringInfo(b, r->acc_cell.vallen);
	WideAccWrite(&r->acc, b->data + head);
	b->len = head + r->acc_cell.vallen;
	r->acc_cell.key = b->data;
	r->acc_cell.family = b->data + r->acc_cell.keylen;
	r->acc_cell.qual = b->data + r->acc_cell.keylen + r->acc_cell.famlen;
	r->acc_cell.value = b->data + head;
	emit(r, &r->acc_cell, true);
}

/* fold an input (its value possibly in a blob) into the pending aggregate */
static void
fold(WideResolver *r, const WideCell *c)
{
	if (c->value == NULL && (c->flags & WIDE_REC_VALUE_BLOB))
	{
		char	   *v = WideBlobRead(r->rel, c->blob);

		WideAccFold(&r->acc, c->kind, v, c->vallen);
		pfree(v);
	}
	else
		WideAccFold(&r->acc, c->kind, c->value, c->vallen);
	r->acc_min_seq = Min(r->acc_min_seq, c->seq);
	r->stats.folded++;
}

static void
start_acc(WideResolver *r, const WideCell *c)
{
	StringInfo	b = &r->acc_buf;

	resetStringInfo(b);
	appendBinaryStringInfo(b, c->key, c->keylen);
	appendBinaryStringInfo(b, c->family, c->famlen);
	appendBinaryStringInfo(b, c->qual, c->quallen);
	r->acc_cell = *c;
	r->acc_cell.kind = WIDE_KIND_MERGE;
	r->acc_cell.flags &= ~(WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB |
						   WIDE_REC_XMIN_INVALID);
	r->acc_cell.xmin = FrozenTransactionId;
	r->acc_cell.key_datum = r->acc_cell.qual_datum = r->acc_cell.value_datum = NULL;
	WideAccStart(&r->acc, WideCellAggregate(r->def, c->qual, c->quallen));
	r->acc_min_seq = c->seq;
	fold(r, c);
	r->stats.folded--;			/* the first input is not folded away */
	r->acc_pending = true;
}

/* was the record written by a transaction that aborted (or crashed)? */
static bool
aborted(const WideCell *c)
{
	TransactionId xmin = c->xmin;

	if (!TransactionIdIsNormal(xmin) || (c->flags & WIDE_REC_XMIN_COMMITTED))
		return false;
	if (c->flags & WIDE_REC_XMIN_INVALID)
		return true;
	if (TransactionIdIsCurrentTransactionId(xmin) ||
		TransactionIdIsInProgress(xmin))
		return false;
	return !TransactionIdDidCommit(xmin);
}

/* what a record's family incarnation is to the catalog */
#define INCARNATION_LIVE	0	/* the family's current incarnation: r->def */
#define INCARNATION_DEAD	1	/* dropped, or an earlier one of the name */
#define INCARNATION_UNKNOWN 2	/* no catalog, or newer than the catalog */

static int
family_incarnation(const WideResolver *r, const WideCell *c)
{
	if (r->def != NULL && r->def->id == c->famid)
		return INCARNATION_LIVE;
	if (r->schema->has_catalog && c->famid < r->schema->next_id)
		return INCARNATION_DEAD;
	return INCARNATION_UNKNOWN;
}

/*
 * policies_collect -- does GC collect this version of a live family's cell?
 *
 * Only if the committed policy collects it and so does the one our own
 * transaction sees, when it has changed the family: a rolled-back change
 * must not have lost cells, and our transaction must not see a version it
 * could read disappear because the committed policy is stricter.  (A family
 * our transaction dropped does not keep anything.)
 */
static bool
policies_collect(const WideResolver *r, const WideCell *c, bool versions_ok)
{
	const WideFamily *cur = r->cur_def;

	if (!WideGCCollects(r->def, r->nversions, c->ts, r->gc_now, versions_ok))
		return false;
	if (cur == NULL || cur->id != c->famid || WideGCSamePolicy(cur, r->def))
		return true;
	return WideGCCollects(cur, r->nversions, c->ts, r->gc_now, versions_ok);
}

/*
 * enter_scopes -- start a new row, family or column scope when c leaves the
 * current one, emitting a pending aggregate first.
 */
static void
enter_scopes(WideResolver *r, const WideCell *c, int level)
{
	if (!r->have_row || !same_string(&r->row, c->key, c->keylen))
	{
		flush_acc(r);
		set_string(&r->row, c->key, c->keylen);
		r->have_row = true;
		WideDeletesEnter(&r->dels, WIDE_LEVEL_ROW);
		r->row_unfrozen = r->dels.ranges != NULL &&
			WideDeletesEnterRange(&r->dels, WIDE_LEVEL_ROW, c->key, c->keylen,
								  NULL, 0);
		r->have_fam = false;
		r->have_col = false;
	}
	if (level >= WIDE_LEVEL_FAMILY &&
		(!r->have_fam || !same_string(&r->fam, c->family, c->famlen)))
	{
		/*
		 * The scope is the family's name, not its incarnation: records of a
		 * dropped incarnation sort among the live one's (cell.c compares
		 * names only), and a tombstone must keep its scope across them.
		 */
		flush_acc(r);
		set_string(&r->fam, c->family, c->famlen);
		r->have_fam = true;
		r->def = WideSchemaFindFamily(r->schema, c->family, c->famlen);
		r->cur_def = WideSchemaFindFamily(r->current, c->family, c->famlen);
		WideDeletesEnter(&r->dels, WIDE_LEVEL_FAMILY);
		r->fam_unfrozen = r->dels.ranges != NULL &&
			WideDeletesEnterRange(&r->dels, WIDE_LEVEL_FAMILY, c->key,
								  c->keylen, c->family, c->famlen);
		r->have_col = false;
	}
	if (level >= WIDE_LEVEL_COLUMN &&
		(!r->have_col || !same_string(&r->qual, c->qual, c->quallen)))
	{
		flush_acc(r);
		set_string(&r->qual, c->qual, c->quallen);
		r->have_col = true;
		WideDeletesEnter(&r->dels, WIDE_LEVEL_COLUMN);
		r->col_unfrozen = false;
		r->nversions = 0;
		r->have_ts = false;
	}
}

/*
 * push_tombstone -- a row, family or column tombstone.  Only frozen ones
 * delete here (and are added to the deletes in effect); a frozen one is
 * dropped if a newer one of its scope makes it redundant, or at the bottom,
 * where nothing older is left for it to delete.
 */
static void
push_tombstone(WideResolver *r, const WideCell *c, int level, bool frozen)
{
	bool		redundant;

	if (level != WIDE_LEVEL_ROW && WideDeletesCover(&r->dels, c))
	{
		r->stats.covered++;
		return;
	}
	if (!frozen)
	{
		if (level == WIDE_LEVEL_ROW)
			r->row_unfrozen = true;
		else if (level == WIDE_LEVEL_FAMILY)
			r->fam_unfrozen = true;
		else
			r->col_unfrozen = true;
		emit(r, c, frozen);
		return;
	}
	redundant = (level == WIDE_LEVEL_ROW && c->seq < r->dels.row_del) ||
		(level == WIDE_LEVEL_FAMILY && c->seq < r->dels.fam_del);
	WideDeletesAdd(&r->dels, c);
	if (redundant || r->bottom)
	{
		r->stats.tombstones_dropped++;
		return;
	}
	emit(r, c, frozen);
}

/*
 * push_cell -- a cell (PUT, ADD or MERGE) of a family that is not dropped:
 * apply deletes, last-write-wins, GC and aggregate folding.
 */
static void
push_cell(WideResolver *r, const WideCell *c, int incarnation, bool frozen)
{
	/* a cell: deleted whatever its family's policies */
	if (WideDeletesCover(&r->dels, c))
	{
		r->stats.covered++;
		return;
	}
	if (incarnation == INCARNATION_UNKNOWN)
	{
		/*
		 * No catalog to judge by, or an incarnation newer than the catalog
		 * knows (created by our own uncommitted transaction): keep as is.
		 * It sorts before the live incarnation's writes of its version (it
		 * is newer), so a pending aggregate is complete.
		 */
		flush_acc(r);
		emit(r, c, frozen);
		return;
	}

	if (r->have_ts && r->cur_ts == c->ts)
	{
		/* an older write of the same version */
		if (r->ts_decided)
		{
			r->stats.superseded++;
			return;
		}
		if (r->def->aggregate != WIDE_AGG_NONE && frozen &&
			!(r->row_unfrozen || r->fam_unfrozen || r->col_unfrozen))
		{
			if (r->acc_pending)
				fold(r, c);
			else
				start_acc(r, c);
			return;
		}
		flush_acc(r);
	}
	else
	{
		bool		scope_unfrozen = r->row_unfrozen || r->fam_unfrozen ||
			r->col_unfrozen;

		/* a new version */
		flush_acc(r);
		r->have_ts = true;
		r->cur_ts = c->ts;
		r->ts_decided = false;
		if (frozen)
		{
			if (policies_collect(r, c, !scope_unfrozen))
			{
				r->nversions++;
				r->ts_decided = true;	/* its older writes go too */
				r->stats.collected++;
				if (WideGCCollects(r->def, r->nversions - 1, c->ts, r->gc_now, false))
					r->stats.expired++;
				return;
			}
			r->nversions++;
			if (c->kind == WIDE_KIND_PUT)
				r->ts_decided = true;
		}
	}

	if (r->def->aggregate != WIDE_AGG_NONE && frozen &&
		!(r->row_unfrozen || r->fam_unfrozen || r->col_unfrozen))
	{
		start_acc(r, c);
		return;
	}
	emit(r, c, frozen);
}

/*
 * WideResolverPush -- take the next record of the input.
 */
void
WideResolverPush(WideResolver *r, const WideCell *c)
{
	int			level = WideCellLevel(c);
	int			incarnation = INCARNATION_UNKNOWN;
	bool		frozen;

	bool		settled;

	r->stats.seen++;

	enter_scopes(r, c, level);

	/*
	 * A compaction's records mostly carry one inserting transaction (a
	 * COPY's): once it is known to have committed before every snapshot,
	 * it stays so, and its next records skip the commit log and the
	 * proc array (a third of a cell's cost in the resolver).
	 */
	settled = TransactionIdIsValid(r->settled_xid) &&
		c->xmin == r->settled_xid &&
		!(c->flags & WIDE_REC_XMIN_INVALID);
	if (!settled && aborted(c))
	{
		r->stats.aborted++;
		return;
	}
	if (level >= WIDE_LEVEL_FAMILY)
	{
		incarnation = family_incarnation(r, c);
		if (incarnation == INCARNATION_DEAD)
		{
			r->stats.dropped_family++;
			return;
		}
	}
	if (settled)
		frozen = true;
	else
	{
		frozen = WideRecordVisibleToAll(r->rel, c);
		if (frozen && TransactionIdIsNormal(c->xmin) &&
			!(c->flags & WIDE_REC_XMIN_INVALID))
			r->settled_xid = c->xmin;
	}

	if (level != WIDE_LEVEL_CELL)
		push_tombstone(r, c, level, frozen);
	else
		push_cell(r, c, incarnation, frozen);
}

/*
 * WideResolverFlush -- write what the resolver holds back (a pending
 * aggregate), so that the writer may take records from elsewhere next (a
 * block a compaction passes through, blockpass.c); they must all sort
 * after every record pushed so far.
 */
void
WideResolverFlush(WideResolver *r)
{
	flush_acc(r);
}

/*
 * WideResolverDrops -- the drops (wide.drop_before) the resolver deletes by
 * (those every snapshot sees).
 */
const WideDropRule *
WideResolverDrops(const WideResolver *r, int *ndrops)
{
	*ndrops = r->ndrops;
	return r->drops;
}

/*
 * WideResolverPendingDrops -- the drops the resolver does not apply yet
 * (some snapshot may not see them), whose records keep their sequence
 * numbers in its output.
 */
const WideDropRule *
WideResolverPendingDrops(const WideResolver *r, int *ndrops)
{
	*ndrops = r->npending_drops;
	return r->pending_drops;
}

/*
 * WideResolverRangeDels -- the range tombstones the resolver applied
 * (frozen) or kept in mind (pending), as read when it was created.
 */
const WideRangeDels *
WideResolverRangeDels(const WideResolver *r)
{
	return r->ranges;
}

/*
 * WideResolverFinish -- end of input; returns the statistics.
 */
WideResolveStats
WideResolverFinish(WideResolver *r)
{
	flush_acc(r);
	return r->stats;
}
