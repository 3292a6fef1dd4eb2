/*-------------------------------------------------------------------------
 *
 * blockpass.c
 *	  A compaction's inputs read block by block: a data block that no other
 *	  input interleaves with, and that the resolver would keep whole, is
 *	  written into the output as it is stored (LevelDB's "trivial move", at
 *	  the grain of a data block).
 *
 * Why: a COPY leaves a few dozen runs that VACUUM merges into one; decoding,
 * resolving and encoding again every record was most of VACUUM's time.  With
 * time-major input (readings in time order, every host in every run) the
 * runs overlap as wholes, but each host's stretch of one run lies between
 * those of the others, so most data blocks hold rows no other input has.
 *
 * How: each input is a source of the compaction's merge (iterator.c) that,
 * before the records of a data block, returns a *marker*: a record with the
 * block's first row key that sorts before every record of that row.  When
 * the merge returns a marker, the compaction offers the block
 * (WidePassSourceOffer).  It is passed when
 *	- every other input's next record (WideMergeIterPeekOther) is of a row
 *	  after the block's last row, and every record already merged is of a
 *	  row before its first: no other record falls among its records;
 *	- the resolver (resolve.c) would keep each of its records, unchanged:
 *	  its run has WIDE_RUN_ONE_VERSION (no column has two records, so no
 *	  version is superseded or collected, within the block or across its
 *	  ends), it holds no tombstone and no record storing a sequence number
 *	  (which would be relative to its run), every record is of the live
 *	  incarnation of a family without an aggregate whose GC policy
 *	  collects nothing at the block's smallest timestamp (a single version
 *	  is collected only by age, and an age that spares the oldest record
 *	  spares all), in both the committed catalog and ours;
 *	- no range tombstone (rangedel.c) the resolver applies or keeps in
 *	  mind covers a row between its first and last, and no drop
 *	  (wide.drop_before) it applies reaches the block's oldest timestamp;
 *	- every xmin it stores was committed.  If each is also older than
 *	  every snapshot (WideRecordVisibleToAll), which is what the resolver
 *	  freezes, the output's index entry gets WIDE_INDEX_XMINS_FROZEN, and
 *	  readers take its records as frozen without looking the xmins up
 *	  (block.c), as PostgreSQL's all-frozen bit spares the heap's VACUUM a
 *	  rewrite.  If one is not (a snapshot older than the load is still
 *	  open), the block passes with its xmins, as the resolver would keep
 *	  them, and the run's min_xmin takes its oldest: an open snapshot does
 *	  not make VACUUM merge what it would otherwise pass, nor change where
 *	  the output's blocks are cut.  A block with a record of a transaction
 *	  in progress or aborted is merged (the resolver drops what aborted).
 *	  A block whose records share one xmin kept in its index entry
 *	  (WIDE_INDEX_ONE_XMIN, format version 6) has that xmin checked once;
 *	  frozen, the output's entry drops it (its records then read as
 *	  frozen), else keeps it (segment_writer.c: WideSegmentWriterAddBlock).
 * Otherwise the block is decoded and its records merged and resolved as
 * before.  The output's records are those the record-by-record merge would
 * write, in the same order, with the same keys, timestamps and values;
 * a passed block's records read with the output's largest sequence
 * number, which is exact for the same reason as for any record that does
 * not store one (segment_writer.c): they share coordinates with no other
 * record of the output.
 *
 * Checking a block decodes it once (to hash its rows for the output's row
 * filter, and to see its families, xmins and blobs), stepping over its
 * fixed-length values and its qualifiers (the last record's is in the
 * index entry); it is compressed again never.  A bulk load's runs cut
 * their blocks where a row key's leading part changes, where the stretch
 * that ends is long (WideSegmentWriterCutAtPrefix), so that with
 * time-major input nearly every block passes.  A block that would pass
 * while the output's block being written is short is merged instead, into
 * that block (WideSegmentWriterJoin), so that the output is not left with
 * a short block wherever passing resumes.  Crash safety is the
 * compaction's: the output is published in one metapage record, or its
 * pages are swept.
 *
 * IDENTIFICATION
 *	  src/engine/blockpass.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/record.h"
#include "engine/rules.h"
#include "engine/segment.h"
#include "engine/lsm.h"
#include "engine/blockpass.h"

bool		wide_compaction_pass_through = true;
bool		wide_compaction_fast_survey = true;

struct WidePassSource
{
	Relation	rel;
	const WidePassRules *rules;
	WideSegment *seg;
	WideCacheEntry *segpin;
	uint64		seq_base;
	uint32		families;		/* the run's "families", all if unknown */
	uint64		default_seq;	/* what a record storing none reads as */
	bool		may_pass;		/* run-level conditions hold */
	MemoryContext cxt;			/* the current block's memory */

	/* position */
	int			ri;
	WideIndex  *idx;
	WideCacheEntry *idxpin;
	int			ii;
	bool		done;

	/* the current block */
	const WideIndexEntry *e;
	WideRawBlock blk;
	char	   *stored;
	bool		loaded;
	char	   *packed;			/* loaded without its values: its packed
								 * bytes, to unpack them from (load_block) */
	Size		packedlen;
	bool		marker;			/* its marker is the source's current record */
	WideBlockIter bi;
	StringInfoData first;		/* its first row key */
};

/*
 * WidePassRulesInit -- what every offer checks against: the catalogs the
 * resolver uses, its GC time, the output's value length.
 */
void
WidePassRulesInit(WidePassRules *rules, Relation rel, const WideSchema *schema,
				  int64 gc_now, bool enabled)
{
	memset(rules, 0, sizeof(*rules));
	rules->schema = schema;
	rules->current = WideSchemaCopy(rel);
	rules->gc_now = gc_now;
	rules->enabled = enabled && wide_compaction_pass_through;
}

/*
 * WidePassSourceBegin -- read "run" block by block (a merge source: next
 * is WidePassSourceNext).
 */
WidePassSource *
WidePassSourceBegin(Relation rel, const WideRunData *run,
					const WidePassRules *rules)
{
	WidePassSource *ps = palloc0(sizeof(WidePassSource));

	ps->rel = rel;
	ps->rules = rules;
	ps->seq_base = run->seq_base;
	ps->families = (run->flags & WIDE_RUN_FAMILIES) ? run->families : PG_UINT32_MAX;
	ps->seg = WideSegmentOpen(rel, run, &ps->segpin);
	ps->default_seq = ps->seg->max_seq + run->seq_base;
	ps->may_pass = rules->enabled &&
		(run->flags & WIDE_RUN_ONE_VERSION) &&
		ps->seg->typlen == rules->schema->vallen;
	ps->cxt = AllocSetContextCreate(CurrentMemoryContext, "wide block pass",
									ALLOCSET_DEFAULT_SIZES);
	ps->bi.cxt = CurrentMemoryContext;
	initStringInfo(&ps->first);
	return ps;
}

/* the segment read */
WideSegment *
WidePassSourceSegment(WidePassSource *ps)
{
	return ps->seg;
}

static void
drop_block(WidePassSource *ps)
{
	if (ps->loaded)
	{
		WideSegmentFreeDataBlock(&ps->blk, ps->stored);
		ps->loaded = false;
	}
	MemoryContextReset(ps->cxt);
	ps->stored = NULL;
	ps->packed = NULL;
	ps->e = NULL;
}

/* (re)start the block's iterator at its first record */
static void
start_records(WidePassSource *ps)
{
	if (!WideBlockIterInitBlock(&ps->bi, &ps->blk, ps->seg->typlen,
								ps->default_seq, ps->seq_base) ||
		(uint64) ps->bi.ncells != ps->e->ncells)
		WideSegmentCorrupt(ps->rel, ps->seg, "bad data block", ps->e->offset);
	WideBlockIterSetEntry(&ps->bi, ps->e);
}

/* load the next data block; false at the end of the segment */
static bool
load_block(WidePassSource *ps)
{
	WideCell	c;
	MemoryContext old;

	drop_block(ps);
	for (;;)
	{
		if (ps->idx == NULL)
		{
			if (ps->ri >= ps->seg->root->n)
				return false;
			ps->idx = WideSegmentOpenIndex(ps->rel, ps->seg,
										   &ps->seg->root->entries[ps->ri],
										   &ps->idxpin);
			ps->ii = 0;
		}
		if (ps->ii < ps->idx->n)
			break;
		WideCacheRelease(ps->idxpin);
		ps->idxpin = NULL;
		ps->idx = NULL;
		ps->ri++;
	}
	ps->e = &ps->idx->entries[ps->ii++];

	/*
	 * A block that may pass is surveyed, never iterated by value: its
	 * values (of 8 bytes, no blob references among them) are decoded only
	 * if it is merged after all (need_values).  Delta coded full-precision
	 * floats were most of the cost of loading a block that passed.
	 */
	old = MemoryContextSwitchTo(ps->cxt);
	if (ps->may_pass && ps->seg->typlen == 8 &&
		!(ps->e->flags & WIDE_INDEX_HAS_TOMBSTONES))
		WideSegmentLoadDataBlock(ps->rel, ps->seg, ps->e, &ps->blk, &ps->stored,
								 &ps->packed, &ps->packedlen);
	else
		WideSegmentLoadDataBlock(ps->rel, ps->seg, ps->e, &ps->blk, &ps->stored,
								 NULL, NULL);
	MemoryContextSwitchTo(old);
	ps->loaded = true;

	/* its first row key, then back to its start */
	start_records(ps);
	if (!WideBlockIterNext(&ps->bi, &c))
		WideSegmentCorrupt(ps->rel, ps->seg, "bad data block", ps->e->offset);
	resetStringInfo(&ps->first);
	appendBinaryStringInfo(&ps->first, c.key, c.keylen);
	start_records(ps);
	return true;
}

/*
 * need_values -- the block is merged record by record: if it was loaded
 * without its values, unpack it whole from the packed bytes kept (no second
 * read or decompression), its iterator back at its start.
 */
static void
need_values(WidePassSource *ps)
{
	char	   *raw;
	Size		rawlen;
	MemoryContext old;

	if (ps->packed == NULL)
		return;
	old = MemoryContextSwitchTo(ps->cxt);
	raw = WideBlockUnpack(ps->packed, ps->packedlen, ps->blk.len, &rawlen);
	MemoryContextSwitchTo(old);
	if (raw == NULL || rawlen != ps->blk.len)
		WideSegmentCorrupt(ps->rel, ps->seg, "bad packed block", ps->e->offset);
	pfree(ps->blk.mem);
	ps->blk.mem = raw;
	ps->blk.data = raw;
	pfree(ps->packed);
	ps->packed = NULL;
	start_records(ps);
}

/*
 * WidePassSourceNext -- the merge's source callback: the marker of each
 * data block, then (unless the block was passed) its records.
 */
bool
WidePassSourceNext(void *arg, WideCell *cell)
{
	WidePassSource *ps = (WidePassSource *) arg;

	if (ps->done)
		return false;
	/* (a marker not passed: its records follow) */
	ps->marker = false;
	for (;;)
	{
		if (ps->loaded)
		{
			if (WideBlockIterNext(&ps->bi, cell))
				return true;
			if (ps->bi.error)
				WideSegmentCorrupt(ps->rel, ps->seg, "bad data block",
								   ps->e->offset);
		}
		CHECK_FOR_INTERRUPTS();
		if (!load_block(ps))
		{
			drop_block(ps);
			ps->done = true;
			return false;
		}

		/* the marker: sorts before every record of the block's first row */
		memset(cell, 0, sizeof(*cell));
		cell->kind = WIDE_KIND_DEL_ROW;
		cell->key = ps->first.data;
		cell->keylen = ps->first.len;
		cell->family = "";
		cell->qual = "";
		cell->seq = PG_UINT64_MAX;
		cell->ts_to = PG_INT64_MAX;
		cell->xmin = FrozenTransactionId;
		ps->marker = true;
		return true;
	}
}

/* is the source's current record its block's marker? */
bool
WidePassSourceAtMarker(const WidePassSource *ps)
{
	return ps->marker;
}

/* does the resolver keep every record of family famid (of that name) unchanged? */
static bool
family_passes(const WidePassRules *rules, const WideCell *c, int64 ts_min)
{
	const WideFamily *def = WideSchemaFindFamily(rules->schema, c->family,
												 c->famlen);
	const WideFamily *cur;

	if (def == NULL || def->id != c->famid || def->aggregate != WIDE_AGG_NONE ||
		WideGCCollects(def, 0, ts_min, rules->gc_now, true))
		return false;
	cur = WideSchemaFindFamily(rules->current, c->family, c->famlen);
	if (cur != NULL && cur->id == c->famid &&
		(cur->aggregate != WIDE_AGG_NONE ||
		 WideGCCollects(cur, 0, ts_min, rules->gc_now, true)))
		return false;
	return true;
}

/*
 * fill_passed -- what a passed block is (its input's stored bytes and
 * entry, its rows' hashes, blobs, first and last records), and whether its
 * xmins are frozen: when each is visible to every snapshot, else the run
 * takes their oldest
 */
static void
fill_passed(WidePassSource *ps, WidePassedBlock *pb, bool all_visible,
			bool any_xmin, TransactionId min_xmin, const uint64 *hashes,
			int nhashes, const WideBlobRef *blobs, int nblobs,
			const WideCell *first, const WideCell *last)
{
	pb->entry = ps->e;
	pb->stored = ps->stored;
	pb->stored_len = ps->e->length;
	pb->dirlen = (ps->e->flags & WIDE_INDEX_ROW_DIR) ? ps->e->dirlen : 0;
	pb->rawlen = ps->blk.len;
	pb->xmins_frozen = all_visible &&
		(any_xmin || (ps->e->flags & WIDE_INDEX_XMINS_FROZEN));
	pb->min_xmin = pb->xmins_frozen ? InvalidTransactionId : min_xmin;
	pb->seq = ps->default_seq;
	pb->hashes = hashes;
	pb->nhashes = nhashes;
	pb->blobs = blobs;
	pb->nblobs = nblobs;
	pb->first = first;
	pb->last = last;
	pb->families = ps->families;
}

/* what the fast survey's callbacks note of the block's xmins */
typedef struct SurveyXmins
{
	WidePassSource *ps;
	TransactionId min_xmin;
	bool		any_xmin;
	bool		all_visible;
} SurveyXmins;

static bool
survey_family_ok(const char *fam, uint32 famlen, uint32 famid, void *arg)
{
	SurveyXmins *sx = (SurveyXmins *) arg;
	WideCell	c;

	/*
	 * (a family its run's set lacks: the set is damaged, and the output's
	 * would be too; merged record by record, the output's set is exact)
	 */
	if (!(sx->ps->families & WideFamilyBit(famid)))
		return false;
	memset(&c, 0, sizeof(c));
	c.family = fam;
	c.famlen = famlen;
	c.famid = famid;
	return family_passes(sx->ps->rules, &c, sx->ps->e->ts_min);
}

static bool
survey_xmin_ok(TransactionId xmin, void *arg)
{
	SurveyXmins *sx = (SurveyXmins *) arg;
	WideCell	c;

	memset(&c, 0, sizeof(c));
	c.xmin = xmin;
	sx->any_xmin = true;
	if (!WideRecordVisibleToAll(sx->ps->rel, &c))
	{
		/* kept as it is stored, as the resolver would keep it */
		if (!WideRecordCommitted(&c))
			return false;
		sx->all_visible = false;
	}
	if (!TransactionIdIsValid(sx->min_xmin) ||
		TransactionIdPrecedes(xmin, sx->min_xmin))
		sx->min_xmin = xmin;
	return true;
}

/*
 * survey_fast -- survey for a block of fixed-length values whose index
 * entry has its last column: its key, timestamp and auxiliary sections
 * read as they are (WideBlockSurvey), no record made a cell of.  Returns
 * what survey does.
 */
static bool
survey_fast(WidePassSource *ps, WidePassedBlock *pb, WideCell *first,
			WideCell *last, StringInfo lastbuf)
{
	MemoryContext old = MemoryContextSwitchTo(ps->cxt);
	uint64	   *hashes = palloc(sizeof(uint64) * Max(ps->e->ncells, 1));
	int			nhashes = 0;
	SurveyXmins sx;
	WideBlockSurveyOps ops;
	WideSurveyResult r;

	sx.ps = ps;
	sx.min_xmin = InvalidTransactionId;
	sx.any_xmin = false;
	sx.all_visible = true;
	ops.family_ok = survey_family_ok;
	ops.xmin_ok = survey_xmin_ok;
	ops.arg = &sx;
	r = WideBlockSurvey(&ps->blk, ps->seg->typlen,
						(ps->e->flags & WIDE_INDEX_XMINS_FROZEN) != 0,
						(ps->e->flags & WIDE_INDEX_ONE_XMIN) ?
						ps->e->xmin : InvalidTransactionId, &ops,
						hashes, (int) Max(ps->e->ncells, 1), &nhashes,
						lastbuf, last);
	MemoryContextSwitchTo(old);
	if (r == WIDE_SURVEY_BAD ||
		(r == WIDE_SURVEY_PASS &&
		 (last->famlen != ps->e->lastfamlen ||
		  memcmp(last->family, ps->e->lastfam, last->famlen) != 0 ||
		  last->keylen != ps->e->lastrowlen ||
		  memcmp(last->key, ps->e->lastrow, last->keylen) != 0)))
		WideSegmentCorrupt(ps->rel, ps->seg, "bad data block", ps->e->offset);
	if (r != WIDE_SURVEY_PASS)
		return false;

	/* the last record's coordinates: the family out of the block's bytes */
	last->family = ps->e->lastfam;
	last->qual = ps->e->lastqual;
	last->quallen = ps->e->lastquallen;
	memset(first, 0, sizeof(*first));
	first->key = ps->first.data;	/* (its row key is all that is used) */
	first->keylen = ps->first.len;

	fill_passed(ps, pb, sx.all_visible, sx.any_xmin, sx.min_xmin,
				hashes, nhashes, NULL, 0, first, last);
	return true;
}

/*
 * survey -- may the block be passed as it is?  Fills in pb (its rows'
 * hashes, blobs, first and last records) if so; the block's iterator is
 * back at its start either way.
 */
static bool
survey(WidePassSource *ps, WidePassedBlock *pb, WideCell *first, WideCell *last,
	   StringInfo lastbuf)
{
	const WidePassRules *rules = ps->rules;
	WideBlockIter *bi = &ps->bi;
	MemoryContext old = MemoryContextSwitchTo(ps->cxt);
	uint64	   *hashes = palloc(sizeof(uint64) * Max(ps->e->ncells, 1));
	int			nhashes = 0;
	WideBlobRef *blobs = NULL;
	int			nblobs = 0;
	int			maxblobs = 0;
	uint32		famid_ok = 0;
	bool		have_famid = false;
	TransactionId xmin_ok = InvalidTransactionId;
	TransactionId min_xmin = InvalidTransactionId;
	bool		any_xmin = false;
	bool		all_visible = true;
	bool		ok = true;
	WideCell	c;
	uint64		n = 0;

	/*
	 * Neither values (unless they may be blob references) nor qualifiers
	 * are needed, but for the last record's, which the index entry holds
	 */
	(void) WideBlockIterSkipValues(bi);
	bi->skip_quals = (ps->e->flags & WIDE_INDEX_HAS_LASTCOL) != 0;
	while (ok && WideBlockIterNext(bi, &c))
	{
		if (WIDE_KIND_IS_TOMBSTONE(c.kind) || bi->nseq > 0)
		{
			ok = false;
			break;
		}
		if (!have_famid || c.famid != famid_ok)
		{
			/* (not in its run's family set: see survey_family_ok) */
			if (!(ps->families & WideFamilyBit(c.famid)) ||
				!family_passes(rules, &c, ps->e->ts_min))
			{
				ok = false;
				break;
			}
			famid_ok = c.famid;
			have_famid = true;
		}
		if (TransactionIdIsNormal(c.xmin))
		{
			any_xmin = true;
			if (c.xmin != xmin_ok)
			{
				if (!WideRecordVisibleToAll(ps->rel, &c))
				{
					/* kept as it is stored, as the resolver would keep it */
					if (!WideRecordCommitted(&c))
					{
						ok = false;
						break;
					}
					all_visible = false;
				}
				xmin_ok = c.xmin;
			}
			if (!TransactionIdIsValid(min_xmin) ||
				TransactionIdPrecedes(c.xmin, min_xmin))
				min_xmin = c.xmin;
		}
		if (n >= ps->e->ncells)	/* (more records than its entry says) */
			WideSegmentCorrupt(ps->rel, ps->seg, "bad data block", ps->e->offset);
		if (n == 0 || !(c.same & WIDE_SAME_ROW))
			hashes[nhashes++] = WideRowHash(c.key, c.keylen);
		if (c.flags & WIDE_REC_VALUE_BLOB)
		{
			if (nblobs == maxblobs)
			{
				maxblobs = Max(16, 2 * maxblobs);
				blobs = blobs ? repalloc(blobs, sizeof(WideBlobRef) * maxblobs) :
					palloc(sizeof(WideBlobRef) * maxblobs);
			}
			blobs[nblobs++] = c.blob;
		}
		if (n == 0)
			*first = c;
		*last = c;
		n++;
	}
	if (bi->error)
		WideSegmentCorrupt(ps->rel, ps->seg, "bad data block", ps->e->offset);
	if (ok && bi->skip_quals)
	{
		/* the last record's family and qualifier, from the index entry */
		if (last->kind < WIDE_KIND_DEL_CELLS ||
			last->famlen != ps->e->lastfamlen ||
			memcmp(last->family, ps->e->lastfam, last->famlen) != 0)
			WideSegmentCorrupt(ps->rel, ps->seg, "bad data block", ps->e->offset);
		last->qual = ps->e->lastqual;
		last->quallen = ps->e->lastquallen;
	}
	bi->skip_quals = false;
	if (ok && n != ps->e->ncells)
		WideSegmentCorrupt(ps->rel, ps->seg, "bad data block", ps->e->offset);
	if (ok)
	{
		/* the last record's coordinates, out of the iterator's buffers */
		resetStringInfo(lastbuf);
		appendBinaryStringInfo(lastbuf, last->key, last->keylen);
		appendBinaryStringInfo(lastbuf, last->family, last->famlen);
		appendBinaryStringInfo(lastbuf, last->qual, last->quallen);
		last->key = lastbuf->data;
		last->family = lastbuf->data + last->keylen;
		last->qual = lastbuf->data + last->keylen + last->famlen;
		last->value = NULL;
		last->key_datum = last->qual_datum = last->value_datum = NULL;
		first->key = ps->first.data;	/* (its row key is all that is used) */
		first->keylen = ps->first.len;

		fill_passed(ps, pb, all_visible, any_xmin, min_xmin,
					hashes, nhashes, blobs, nblobs, first, last);
	}
	MemoryContextSwitchTo(old);
	if (!ok)
		start_records(ps);
	return ok;
}

/*
 * range_deleted -- may a range tombstone the resolver knows (applied or
 * pending, rangedel.c) cover a row of [first, last]?  Then the block is
 * merged record by record, so that the resolver deletes what it covers
 * (a passed block would bring its cells back once the tombstone is
 * retired) and keeps the exact sequence numbers a pending one needs.
 */
static bool
range_deleted(const WideResolver *resolver, const char *first, uint32 firstlen,
			  const char *last, uint32 lastlen)
{
	const WideRangeDels *ds = WideResolverRangeDels(resolver);

	for (int i = 0; ds != NULL && i < ds->n; i++)
	{
		const WideRangeDel *d = &ds->d[i];

		if (WideKeyCompare(d->start, d->startlen, last, lastlen) <= 0 &&
			(!d->has_end || WideKeyCompare(d->end, d->endlen, first, firstlen) > 0))
			return true;
	}
	return false;
}

/*
 * dropped -- may a drop (wide.drop_before) the resolver deletes by remove a
 * record of a block whose smallest timestamp is ts_min, or one it does not
 * apply yet delete one?  Then it is merged record by record (a pending
 * drop's records keep their sequence numbers: segment_writer.c).
 */
static bool
dropped(const WideResolver *resolver, int64 ts_min)
{
	int			n;
	const WideDropRule *drops = WideResolverDrops(resolver, &n);

	for (int i = 0; i < n; i++)
		if (ts_min < drops[i].before)
			return true;
	drops = WideResolverPendingDrops(resolver, &n);
	for (int i = 0; i < n; i++)
		if (ts_min < drops[i].before)
			return true;
	return false;
}

/*
 * WidePassSourceOffer -- the merge returned the marker of ps's block:
 * write the block into w as it is if it may be (see the top), after what
 * the resolver holds back; else leave it to be merged record by record
 * (its records are the source's next).  "other" is the smallest next
 * record of the other inputs (NULL: none), "merged" the row key of the
 * last record merged so far (len -1: none); a passed block's last row
 * replaces it.  Returns true if the block was passed.
 */
bool
WidePassSourceOffer(WidePassSource *ps, const WideCell *other,
					StringInfo merged, bool have_merged,
					WideResolver *resolver, WideSegmentWriter *w,
					WidePassStats *stats)
{
	const WideIndexEntry *e = ps->e;
	WidePassedBlock pb;
	WideCell	first,
				last;
	StringInfoData lastbuf;

	Assert(ps->marker && ps->loaded);
	if (!ps->may_pass || (e->flags & WIDE_INDEX_HAS_TOMBSTONES) ||
		(other != NULL &&
		 WideKeyCompare(other->key, other->keylen, e->lastrow, e->lastrowlen) <= 0) ||
		(have_merged &&
		 WideKeyCompare(merged->data, merged->len, ps->first.data, ps->first.len) >= 0) ||
		range_deleted(resolver, ps->first.data, ps->first.len, e->lastrow, e->lastrowlen) ||
		dropped(resolver, e->ts_min))
		goto merge;
	/* a short block being written joins this one (segment_writer.c) */
	WideResolverFlush(resolver);
	if (WideSegmentWriterJoin(w, e->lastrow, e->lastrowlen))
		goto merge;
	initStringInfo(&lastbuf);
	if (ps->seg->typlen > 0 && (e->flags & WIDE_INDEX_HAS_LASTCOL) &&
		wide_compaction_fast_survey ?
		!survey_fast(ps, &pb, &first, &last, &lastbuf) :
		!survey(ps, &pb, &first, &last, &lastbuf))
	{
		pfree(lastbuf.data);
		goto merge;
	}
	WideSegmentWriterAddBlock(w, &pb);
	resetStringInfo(merged);
	appendBinaryStringInfo(merged, e->lastrow, e->lastrowlen);
	pfree(lastbuf.data);
	stats->passed++;
	stats->passed_cells += e->ncells;

	/* done with the block: the source goes on with the next one */
	drop_block(ps);
	return true;

merge:
	/* its records are merged one by one: they need their values */
	need_values(ps);
	stats->merged++;
	return false;
}

/*
 * WidePassSourceEnd -- release the source.
 */
void
WidePassSourceEnd(WidePassSource *ps)
{
	drop_block(ps);
	WideBlockIterEnd(&ps->bi);
	WideCacheRelease(ps->idxpin);
	WideCacheRelease(ps->segpin);
	MemoryContextDelete(ps->cxt);
	pfree(ps);
}
