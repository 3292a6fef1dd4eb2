/*-------------------------------------------------------------------------
 *
 * maintenance.c
 *	  SQL functions to compact and inspect wide tables.
 *
 *	  wide.compact(tbl, major => false)
 *		  flush the write area, then merge runs as the policy asks (all of
 *		  them into one with major => true).  Needs table ownership, like
 *		  VACUUM; takes ShareUpdateExclusiveLock (readers and writers go on).
 *		  Returns one row of what it did: runs, bytes and records in and
 *		  out, records dropped by reason, time taken.
 *	  wide.stats(tbl)
 *		  one row: write area, runs, cells, bytes before and after
 *		  compression, pages, flushes and compactions.
 *	  wide.runs(tbl)
 *		  one row per run, oldest first.
 *	  wide.sample_row_keys(tbl)
 *		  split keys with approximate byte offsets (SampleRowKeys).
 *
 * IDENTIFICATION
 *	  src/api/maintenance.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/writearea.h"
#include "engine/lsm.h"
#include "engine/manifest.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_compact);
PG_FUNCTION_INFO_V1(wide_stats);
PG_FUNCTION_INFO_V1(wide_block_cache);
PG_FUNCTION_INFO_V1(wide_write_area_reads);
PG_FUNCTION_INFO_V1(wide_row_dir_seeks);
PG_FUNCTION_INFO_V1(wide_runs);
PG_FUNCTION_INFO_V1(wide_sample_row_keys);

/* flush a table's write area and merge its runs (all of them if major) */
static void
compact_table(Relation rel, bool major)
{
	int			steps = 0;

	WideFlush(rel);
	if (major)
		WideCompactStep(rel, true, 0);
	else
		while (steps++ < 64 && WideCompactStep(rel, false, 0))
			;
}

/* add counts *d (a tablet's, or this backend's since a reading) to *sum */
static void
add_counts(WideMaintCounts *sum, const WideMaintCounts *d)
{
	sum->flushes += d->flushes;
	sum->compactions += d->compactions;
	sum->runs_in += d->runs_in;
	sum->runs_out += d->runs_out;
	sum->bytes_read += d->bytes_read;
	sum->bytes_written += d->bytes_written;
	sum->cells_in += d->cells_in;
	sum->cells_out += d->cells_out;
	sum->resolved.covered += d->resolved.covered;
	sum->resolved.superseded += d->resolved.superseded;
	sum->resolved.collected += d->resolved.collected;
	sum->resolved.expired += d->resolved.expired;
	sum->resolved.aborted += d->resolved.aborted;
	sum->resolved.dropped_family += d->resolved.dropped_family;
	sum->resolved.tombstones_dropped += d->resolved.tombstones_dropped;
	sum->resolved.folded += d->resolved.folded;
}

/*
 * summary_values -- the columns of wide.compact's row (and of its
 * remote form, remote.c) from counts: flushes, compactions, runs_in,
 * runs_out, bytes_read, bytes_written, cells_in, cells_out, cells_deleted,
 * cells_superseded, cells_expired, cells_past_max_versions, cells_aborted,
 * cells_of_dropped_families, tombstones_dropped, cells_folded
 */
static void
summary_values(const WideMaintCounts *d, Datum *values)
{
	const WideResolveStats *r = &d->resolved;

	values[0] = Int64GetDatum(d->flushes);
	values[1] = Int64GetDatum(d->compactions);
	values[2] = Int64GetDatum(d->runs_in);
	values[3] = Int64GetDatum(d->runs_out);
	values[4] = Int64GetDatum(d->bytes_read);
	values[5] = Int64GetDatum(d->bytes_written);
	values[6] = Int64GetDatum(d->cells_in);
	values[7] = Int64GetDatum(d->cells_out);
	values[8] = Int64GetDatum((int64) r->covered);
	values[9] = Int64GetDatum((int64) r->superseded);
	values[10] = Int64GetDatum((int64) r->expired);
	values[11] = Int64GetDatum((int64) (r->collected - r->expired));
	values[12] = Int64GetDatum((int64) r->aborted);
	values[13] = Int64GetDatum((int64) r->dropped_family);
	values[14] = Int64GetDatum((int64) r->tombstones_dropped);
	values[15] = Int64GetDatum((int64) r->folded);
}

#define SUMMARY_COUNTS	16

/*
 * wide.compact(tbl regclass, major bool) RETURNS record: what it did (the
 * counts of summary_values, then the time it took).  Of a parent of
 * tablets, the sums over its tablets, remote ones included.
 */
Datum
wide_compact(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	bool		major = PG_GETARG_BOOL(1);
	TimestampTz start = GetCurrentTimestamp();
	WideMaintCounts before = WideMaintTotals;
	WideMaintCounts sum;
	TupleDesc	desc;
	Datum		values[SUMMARY_COUNTS + 1];
	bool		nulls[SUMMARY_COUNTS + 1] = {0};
	Interval   *elapsed;
	bool		summary;

	/* wide 0.1's definition returns void (the library is newer) */
	summary = get_call_result_type(fcinfo, NULL, &desc) == TYPEFUNC_COMPOSITE;
	if (summary && desc->natts != SUMMARY_COUNTS + 1)
		elog(ERROR, "return type must be a row type of %d columns",
			 SUMMARY_COUNTS + 1);
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot compact during recovery")));
	memset(&sum, 0, sizeof(sum));
	if (WideTabletParent(relid))
	{
		/* a parent of tablets: each of its tablets, by the parent's owner */
		Relation	parent;
		ListCell   *lc;

		WideCheckOwner(relid);
		parent = relation_open(relid, ShareUpdateExclusiveLock);
		WideCheckOwner(relid);
		foreach(lc, WideTabletsAll(parent, ShareUpdateExclusiveLock))
		{
			Relation	rel;

			if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			{
				/* a remote tablet: wide.compact on its node (remote.c) */
				WideMaintCounts remote;

				memset(&remote, 0, sizeof(remote));
				WideRemoteCompact(lfirst_oid(lc), major, &remote);
				add_counts(&sum, &remote);
				continue;
			}
			rel = WideOpenWide(lfirst_oid(lc), ShareUpdateExclusiveLock);
			compact_table(rel, major);
			relation_close(rel, ShareUpdateExclusiveLock);
		}
		relation_close(parent, ShareUpdateExclusiveLock);
	}
	else
	{
		Relation	rel = WideOpenOwned(relid, ShareUpdateExclusiveLock);

		compact_table(rel, major);
		relation_close(rel, ShareUpdateExclusiveLock);
	}

	if (!summary)
		PG_RETURN_VOID();

	/* the local tables' counts, since "before" (summary.c) */
	{
		WideMaintCounts local;

		WideMaintDiff(&before, &local);
		add_counts(&sum, &local);
	}
	summary_values(&sum, values);
	elapsed = DatumGetIntervalP(DirectFunctionCall2(timestamp_mi,
													TimestampTzGetDatum(GetCurrentTimestamp()),
													TimestampTzGetDatum(start)));
	values[SUMMARY_COUNTS] = IntervalPGetDatum(elapsed);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/* the metapage, copied; false if the table has none yet */
static bool
copy_meta(Relation rel, WideMetaPageData *meta)
{
	Buffer		metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);

	if (!BufferIsValid(metabuf))
	{
		memset(meta, 0, sizeof(*meta));
		return false;
	}
	memcpy(meta, WidePageGetMeta(BufferGetPage(metabuf)), sizeof(*meta));
	UnlockReleaseBuffer(metabuf);
	return true;
}

/*
 * open_for_reading -- stats, runs and sample_row_keys need SELECT; runs and
 * sample_row_keys return row keys, so they are refused where row-level
 * security applies (fcinfo given), stats returns only sizes.
 */
static Relation
open_for_reading(FunctionCallInfo fcinfo, Oid relid, bool keys)
{
	if (!keys)
	{
		Relation	rel;

		WideCheckPrivileges(relid, ACL_SELECT);
		rel = WideOpenWide(relid, AccessShareLock);
		WideCheckPrivileges(relid, ACL_SELECT);
		return rel;
	}
	return WideOpenTable(fcinfo, relid, ACL_SELECT, AccessShareLock);
}

/*
 * wide.block_cache() RETURNS record: the shared block cache's size and
 * counters since the server started (sharedcache.c); "shared" is false,
 * and the rest zero, when there is none (wide not preloaded).
 */
Datum
wide_block_cache(PG_FUNCTION_ARGS)
{
	WideSharedCacheCounts c;
	TupleDesc	desc;
	Datum		values[8];
	bool		nulls[8] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = BoolGetDatum(WideSharedCacheStats(&c));
	values[1] = Int64GetDatum((int64) c.size);
	values[2] = Int64GetDatum((int64) c.used);
	values[3] = Int64GetDatum((int64) c.entries);
	values[4] = Int64GetDatum((int64) c.hits);
	values[5] = Int64GetDatum((int64) c.misses);
	values[6] = Int64GetDatum((int64) c.inserts);
	values[7] = Int64GetDatum((int64) c.evictions);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * wide_internal.write_area_reads() RETURNS bigint: the write-area records
 * this backend has read into its copy of a write area for the counts of
 * DELETEs (engine/wacache.c), since it started; for tests.
 */
Datum
wide_write_area_reads(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) WideWACacheReads());
}

/*
 * wide_internal.row_dir_seeks() RETURNS bigint: the seeks into data blocks
 * this backend started from a point of a stored row directory
 * (engine/rowdir.c), ever (a test's measure that readers use them)
 */
Datum
wide_row_dir_seeks(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) WideRowDirSeeks());
}

/*
 * wide.stats(tbl regclass) RETURNS record
 */
Datum
wide_stats(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel = open_for_reading(fcinfo, relid, false);
	WideMetaPageData meta;
	TupleDesc	desc;
	Datum		values[12];
	bool		nulls[12] = {0};
	int64		wa_pages = 0;
	int64		cells = 0;
	int64		raw = 0;
	int64		stored = 0;
	int64		free_pages = 0;
	bool		has_meta;
	int			i;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	has_meta = copy_meta(rel, &meta);
	for (i = 0; i < WIDE_NLANES; i++)
		wa_pages += meta.lanes[i].npages + (meta.flushing ? meta.flush_lanes[i].npages : 0);
	for (i = 0; i < (int) meta.nruns; i++)
	{
		cells += meta.runs[i].ncells;
		raw += meta.runs[i].raw_bytes;
		stored += (int64) meta.runs[i].npages * BLCKSZ;
	}
	for (i = 0; i < (int) meta.nfree; i++)
		if (meta.free[i].kind != WIDE_FREE_SEGMENT)
			free_pages += meta.free[i].npages;
	for (i = 0; i < (int) meta.nwaruns; i++)
	{
		wa_pages += meta.waruns[i].npages;
		cells += meta.waruns[i].ncells;
	}
	/* and the records of the write area's lanes (they are few pages) */
	{
		BlockNumber heads[2 * WIDE_NLANES];
		uint32		gens[2 * WIDE_NLANES];
		int			nlanes = WideManifestLanes(&meta, heads, gens);

		if (has_meta)
			cells += WideWACountRecords(rel, heads, gens, nlanes);
	}

	values[0] = Int64GetDatum(wa_pages);
	values[1] = Int32GetDatum(meta.nruns);
	values[2] = Int64GetDatum(cells);
	values[3] = Int64GetDatum(raw);
	values[4] = Int64GetDatum(stored);
	if (stored > 0)
		values[5] = Float8GetDatum((double) raw / stored);
	else
		nulls[5] = true;
	values[6] = Int64GetDatum(RelationGetNumberOfBlocks(rel));
	values[7] = Int64GetDatum(free_pages);
	values[8] = Int64GetDatum(meta.flushes);
	values[9] = Int64GetDatum(meta.compactions);
	values[10] = Int32GetDatum(meta.nfree);
	values[11] = Int32GetDatum(meta.nwaruns);
	relation_close(rel, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

static Datum
bytes_datum(const char *p, int len)
{
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), p, len);
	return PointerGetDatum(b);
}

/*
 * wide.runs(tbl regclass) RETURNS SETOF record
 */
Datum
wide_runs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel = open_for_reading(fcinfo, relid, true);
	WideMetaPageData meta;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	copy_meta(rel, &meta);
	for (i = 0; i < (int) meta.nruns; i++)
	{
		WideRunData *r = &meta.runs[i];
		Datum		values[9];
		bool		nulls[9] = {0};

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int64GetDatum(r->segid);
		values[2] = Int64GetDatum(r->ncells);
		values[3] = Int64GetDatum(r->raw_bytes);
		values[4] = Int64GetDatum((int64) r->npages * BLCKSZ);
		values[5] = BoolGetDatum((r->flags & WIDE_RUN_HAS_TOMBSTONES) != 0);
		if (TransactionIdIsValid(r->min_xmin))
			values[6] = TransactionIdGetDatum(r->min_xmin);
		else
			nulls[6] = true;
		values[7] = bytes_datum(r->lo_key, r->lo_len);
		values[8] = bytes_datum(r->hi_key, r->hi_len);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}

/* a sample of sample_row_keys: the last row of a stretch of a run */
typedef struct KeySample
{
	char	   *key;
	uint32		len;
	int64		bytes;			/* stored bytes of the stretch */
} KeySample;

static int
key_sample_cmp(const void *a, const void *b)
{
	const KeySample *x = (const KeySample *) a;
	const KeySample *y = (const KeySample *) b;

	return WideKeyCompare(x->key, x->len, y->key, y->len);
}

/* one sample per root index entry (about 128 data blocks) of a run */
static void
sample_run(Relation rel, const WideRunData *run, KeySample **s, int *n, int *cap)
{
	WideCacheEntry *pin;
	WideSegment *seg = WideSegmentOpen(rel, run, &pin);
	uint64		prev = 0;
	int			i;

	for (i = 0; i < seg->root->n; i++)
	{
		const WideIndexEntry *e = &seg->root->entries[i];
		uint64		end = e->offset + e->length;

		if (*n == *cap)
			*s = repalloc(*s, sizeof(KeySample) * (*cap *= 2));
		(*s)[*n].key = palloc(Max(e->lastrowlen, 1));
		memcpy((*s)[*n].key, e->lastrow, e->lastrowlen);
		(*s)[*n].len = e->lastrowlen;
		(*s)[*n].bytes = (int64) (end - prev);
		(*n)++;
		prev = end;
	}
	WideCacheRelease(pin);
}

/*
 * sample_table -- the split keys of one wide table, with offsets counted
 * from *total, which grows by the table's bytes
 */
static void
sample_table(Relation rel, ReturnSetInfo *rsinfo, int64 *total)
{
	WideMetaPageData meta;
	KeySample  *s;
	int			n = 0,
				cap = 64,
				i;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	copy_meta(rel, &meta);
	s = palloc(sizeof(KeySample) * cap);
	for (i = 0; i < (int) meta.nruns; i++)
		sample_run(rel, &meta.runs[i], &s, &n, &cap);
	for (i = 0; i < (int) meta.nwaruns; i++)
		sample_run(rel, &meta.waruns[i], &s, &n, &cap);
	if (n > 1)
		qsort(s, n, sizeof(KeySample), key_sample_cmp);
	for (i = 0; i < n; i++)
	{
		*total += s[i].bytes;

		/*
		 * One row per distinct key; the table's last key is not a split
		 * (the empty key ends the table)
		 */
		if (i + 1 == n || key_sample_cmp(&s[i], &s[i + 1]) == 0)
			continue;
		values[0] = bytes_datum(s[i].key, s[i].len);
		values[1] = Int64GetDatum(*total);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	for (i = 0; i < WIDE_NLANES; i++)
		*total += (int64) (meta.lanes[i].npages + meta.flush_lanes[i].npages) * BLCKSZ;
	pfree(s);
}

/*
 * wide.sample_row_keys(tbl regclass) RETURNS TABLE (row_key bytea,
 * offset_bytes bigint) -- SampleRowKeys: row keys that split the table into
 * stretches of similar size, each with the approximate stored bytes of the
 * table up to and including it, in key order; the last row has an empty
 * key and the whole size (write area included).  For splitting work into
 * parallel key ranges.
 */
Datum
wide_sample_row_keys(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = PG_GETARG_OID(0);
	int64		total = 0;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	InitMaterializedSRF(fcinfo, 0);
	if (WideTabletParent(relid))
	{
		/* a parent of tablets: its tablets' samples, in key order */
		Relation	parent = WideOpenParent(fcinfo, NULL, relid, ACL_SELECT,
											AccessShareLock);
		List	   *tablets = WideTabletsAll(parent, AccessShareLock);
		ListCell   *lc;

		foreach(lc, tablets)
		{
			Relation	rel;

			if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			{
				/* a remote tablet: its node's samples (remote.c) */
				WideRemoteSamples(lfirst_oid(lc), rsinfo, &total);
				continue;
			}
			rel = WideOpenWide(lfirst_oid(lc), AccessShareLock);

			sample_table(rel, rsinfo, &total);
			relation_close(rel, AccessShareLock);
		}
		relation_close(parent, AccessShareLock);
	}
	else
	{
		Relation	rel = open_for_reading(fcinfo, relid, true);

		sample_table(rel, rsinfo, &total);
		relation_close(rel, AccessShareLock);
	}
	/* the empty key ends the table */
	values[0] = bytes_datum("", 0);
	values[1] = Int64GetDatum(total);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
