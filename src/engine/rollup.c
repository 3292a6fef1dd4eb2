/*-------------------------------------------------------------------------
 *
 * rollup.c
 *	  Rollups merged on write: a family that aggregates another family of
 *	  the same table by time bucket, kept current by every write.
 *
 * A rollup family is created with
 *
 *	  wide.create_family(tbl, 'm5', rollup => '{"source": "m",
 *	      "bucket": "5 minutes", "functions": ["sum","count","min","max"]}')
 *
 * Every write of a value to the source family (a PUT: INSERT, COPY,
 * set_cell, mutate_row(s), check_and_mutate_row, read_modify_write_row)
 * also writes, in the same statement and transaction, one ADD record
 * (AddToCell) per function to the rollup family:
 *
 *	  row key    the source cell's row key, or with "key_parts": n its
 *	             part before the n-th "delimiter" (default '#'): a rollup
 *	             of 'host7#1700000000000' keys with key_parts 1 is kept
 *	             under 'host7'
 *	  qualifier  the source qualifier, ':' and the function: 'cpu:sum',
 *	             'cpu:count', 'cpu:min', 'cpu:max', 'cpu:hll', 'cpu:ddsketch'
 *	  ts         the start of the source timestamp's bucket: ts - ts %
 *	             bucket (buckets are aligned on 1970-01-01 00:00 UTC)
 *	  input      sum, min, max: the value (int8 or float8; in a bytea
 *	             table 8 big-endian bytes); count: 1 (an int64, also in a
 *	             float8 table); hll: the value's hash; ddsketch: the
 *	             value (a bytea table's 8-byte integer) as a double
 *
 * A rollup family is an aggregate family whose aggregate is chosen per cell
 * by the qualifier's suffix (WideCellAggregate): ':sum' and ':count' sum,
 * ':min' and ':max' keep the extreme, ':hll' is a HyperLogLog sketch.  In a
 * float8 table sum, min and max fold doubles, the sum exactly (fsum.c), so
 * a rollup cell reads back the correctly rounded sum of its inputs however
 * they were folded; a count stays an integer.  So
 * its cells merge as add_to_cell's do: on read and at compaction, without
 * locks, exactly under concurrency (folding is commutative) and aborts (an
 * aborted writer's ADD records are invisible like its PUTs).
 *
 * What rollups count are writes, not cells: a second write of the same
 * source cell (same row, qualifier and timestamp) counts again, and deletes
 * of source cells are not subtracted (as Bigtable's aggregates are never
 * decremented).  wide.rebuild_rollup(tbl, family, start_key, end_key)
 * recomputes a key range from the source cells present.
 *
 * Under session_replication_role = replica (logical replication's apply
 * workers; pg_restore --disable-triggers) rollups do not fire, as triggers
 * do not: the replicated or restored changes carry the rollup cells.
 *
 * A dump holds both the source cells and the rollup cells: restoring it
 * with rollups firing would count every source cell twice.  So rollups do
 * not fire in a session that restores a dump, which
 * wide.rollup_on_write = auto (the default) recognises by the settings
 * every pg_dump script and every pg_restore connection (its parallel
 * workers' too) makes before anything else: check_function_bodies = off,
 * and row_security = off or (with --enable-row-security) an empty
 * search_path.  A session makes them only to restore: the first lets
 * functions be created before what they use, the second makes a query fail
 * rather than let row-level security hide rows from a dump, the third
 * (pg_dump's defence against objects planted in the search path) leaves
 * every name to be qualified.  The signal is per session, not per
 * statement, because pg_dump --inserts writes every cell in its own
 * INSERT, rollup cells and source cells in key order, and a data-only dump
 * may hold them in separate statements.  wide.rollup_on_write = on makes
 * rollups fire even then, off never.
 *
 * IDENTIFICATION
 *	  src/engine/rollup.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "wide.h"

/* GUC wide.rollup_on_write (WideRollupOnWrite) */
int			wide_rollup_on_write = WIDE_ROLLUP_WRITE_AUTO;

/*
 * Set by am/ (publication.c): true while the session replays another
 * node's changes (session_replication_role = replica, as logical
 * replication's apply workers run), whose rollup cells arrive with them --
 * as triggers, rollups do not fire then.
 */
bool		(*wide_rollup_replaying) (void) = NULL;

static const char *const function_names[WIDE_ROLLUP_NFUNCTIONS] = {
	"sum", "count", "min", "max", "hll", "ddsketch"
};
/* their lengths: every rollup cell read looks its suffix up here */
static const uint8 function_lens[WIDE_ROLLUP_NFUNCTIONS] = {3, 5, 3, 3, 3, 8};

/*
 * Does the session restore a dump?  pg_dump's scripts and pg_restore's
 * connections set check_function_bodies = off and row_security = off (on
 * with --enable-row-security) first, and the search_path to '' (which SET
 * search_path = '' spells ""); the defaults are on, on and "$user", public.
 */
static bool
session_restores_dump(void)
{
	return !check_function_bodies &&
		(!row_security ||
		 (namespace_search_path != NULL &&
		  (strcmp(namespace_search_path, "") == 0 ||
		   strcmp(namespace_search_path, "\"\"") == 0)));
}

/*
 * WideRollupFunctionByName -- a function's number; -1 if unknown.
 */
int
WideRollupFunctionByName(const char *name, int len)
{
	int			i;

	for (i = 0; i < WIDE_ROLLUP_NFUNCTIONS; i++)
		if (len == function_lens[i] && memcmp(name, function_names[i], len) == 0)
			return i;
	return -1;
}

/*
 * WideRollupFunctionOf -- the function a rollup cell's qualifier names by
 * its suffix after the last ':'; -1 if none.
 */
int
WideRollupFunctionOf(const char *qual, uint32 quallen)
{
	uint32		i = quallen;

	while (i > 0 && qual[i - 1] != ':')
		i--;
	if (i == 0)
		return -1;
	return WideRollupFunctionByName(qual + i, (int) (quallen - i));
}

/*
 * WideCellAggregate -- the aggregate that folds a cell of family f.  For a
 * rollup family, by the qualifier's suffix; a cell without a known suffix
 * (writes reject it) sums.
 */
WideAggregate
WideCellAggregate(const WideFamily *f, const char *qual, uint32 quallen)
{
	WideAggregate agg = f->aggregate;

	if (agg == WIDE_AGG_ROLLUP)
		switch (WideRollupFunctionOf(qual, quallen))
		{
			case WIDE_ROLLUP_MIN:
				agg = WIDE_AGG_MIN;
				break;
			case WIDE_ROLLUP_MAX:
				agg = WIDE_AGG_MAX;
				break;
			case WIDE_ROLLUP_HLL:
				return WIDE_AGG_HLL;
			case WIDE_ROLLUP_DDSKETCH:
				return WIDE_AGG_DDS;
			case WIDE_ROLLUP_COUNT:
				return WIDE_AGG_SUM;	/* an int64 count in any table */
			default:
				agg = WIDE_AGG_SUM;
				break;
		}
	/* over a float8 value column, sum, min and max fold doubles */
	if (f->float_values)
		switch (agg)
		{
			case WIDE_AGG_SUM:
				return WIDE_AGG_FSUM;
			case WIDE_AGG_MIN:
				return WIDE_AGG_FMIN;
			case WIDE_AGG_MAX:
				return WIDE_AGG_FMAX;
			default:
				break;
		}
	return agg;
}

/*
 * WideRollupCellCheck -- WideCellAggregate for a write to family f: a
 * write to a rollup family must name its function by the qualifier.
 */
WideAggregate
WideRollupCellCheck(Relation rel, const WideFamily *f, const char *qual,
					uint32 quallen)
{
	if (f->aggregate == WIDE_AGG_ROLLUP &&
		WideRollupFunctionOf(qual, quallen) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("qualifier \"%s\" of rollup family \"%s\" names no function",
						pnstrdup(qual, Min(quallen, 64)), f->name),
				 errdetail("A rollup cell's qualifier ends in :sum, :count, :min, :max, :hll or :ddsketch."),
				 errhint("Rollup families of wide table \"%s\" are written by writes to their source family; wide.rebuild_rollup() recomputes them.",
						 RelationGetRelationName(rel))));
	return WideCellAggregate(f, qual, quallen);
}

/* the int64 input of sum, min and max from a source value's stored bytes */
static int64
rollup_int(Relation rel, const WideSchema *schema, const WideFamily *r,
		   const WideCell *c)
{
	int64		v;

	if (schema->valtype == INT8OID && c->vallen == sizeof(int64))
	{
		memcpy(&v, c->value, sizeof(int64));
		return v;
	}
	if (schema->valtype == BYTEAOID && c->vallen == sizeof(int64))
	{
		uint64		be;

		memcpy(&be, c->value, sizeof(int64));
		return (int64) pg_ntoh64(be);
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("rollup family \"%s\" of wide table \"%s\" needs a 64-bit integer value",
					r->name, RelationGetRelationName(rel)),
			 errdetail("A bytea value written to family \"%s\" has %u bytes, not 8 big-endian bytes.",
					   r->rollup_source, c->vallen),
			 errhint("Write 8-byte big-endian integers to the source family, or drop the rollup's sum, min and max.")));
	return 0;					/* keep the compiler quiet */
}

/* the hash of a source value for an hll rollup, as WideHllInputHash has it */
static uint64
rollup_hash(const WideSchema *schema, const WideCell *c)
{
	if (schema->valtype == INT8OID && c->vallen == sizeof(int64))
	{
		int64		v;
		char		le[8];
		int			i;

		memcpy(&v, c->value, sizeof(int64));
		for (i = 0; i < 8; i++)
			le[i] = (char) (((uint64) v >> (8 * i)) & 0xff);
		return WideHllHash(le, 8);
	}
	return WideHllHash(c->value, c->vallen);
}

/* append the records of rollup family r for source cell c */
static void
expand_one(Relation rel, const WideSchema *schema, const WideFamily *r,
		   const WideCell *c, WideCell *out, int *nout)
{
	int64		bucket = c->ts - c->ts % r->rollup_bucket;
	uint32		keylen = c->keylen;
	int			fn;

	/* the series' key: the first key_parts parts of the source key */
	if (r->rollup_key_parts > 0)
	{
		int			parts = 0;
		uint32		i;

		for (i = 0; i < c->keylen; i++)
			if (c->key[i] == r->rollup_delimiter && ++parts == r->rollup_key_parts)
			{
				keylen = i;
				break;
			}
		if (keylen == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("row key of rollup family \"%s\" would be empty", r->name),
					 errdetail("The source row key starts with the delimiter \"%c\".",
							   r->rollup_delimiter)));
	}

	for (fn = 0; fn < WIDE_ROLLUP_NFUNCTIONS; fn++)
	{
		WideCell   *o;
		int			fnlen;
		char	   *qual;
		int64	   *input;

		if (!(r->rollup_functions & (1 << fn)))
			continue;
		fnlen = strlen(function_names[fn]);
		if (c->quallen + 1 + fnlen > WIDE_MAX_QUALIFIER)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("qualifier of rollup family \"%s\" would exceed %d bytes",
							r->name, WIDE_MAX_QUALIFIER),
					 errdetail("A rollup cell's qualifier is the source qualifier, ':' and the function.")));
		qual = palloc(c->quallen + 1 + fnlen);
		memcpy(qual, c->qual, c->quallen);
		qual[c->quallen] = ':';
		memcpy(qual + c->quallen + 1, function_names[fn], fnlen);
		input = palloc(sizeof(int64));
		switch (fn)
		{
			case WIDE_ROLLUP_COUNT:
				*input = 1;
				break;
			case WIDE_ROLLUP_HLL:
				*(uint64 *) input = rollup_hash(schema, c);
				break;
			case WIDE_ROLLUP_DDSKETCH:
				{
					/* the value as sum takes it (a bytea table's integer) */
					double		d = (double) rollup_int(rel, schema, r, c);

					memcpy(input, &d, sizeof(double));
				}
				break;
			default:
				if (schema->valtype == FLOAT8OID && c->vallen == sizeof(double))
				{
					double		d;

					memcpy(&d, c->value, sizeof(double));
					d = WideFloatInput(WideCellAggregate(r, qual, c->quallen + 1 + fnlen), d);
					memcpy(input, &d, sizeof(double));
				}
				else
					*input = rollup_int(rel, schema, r, c);
				break;
		}

		o = &out[(*nout)++];
		memset(o, 0, sizeof(WideCell));
		o->kind = WIDE_KIND_ADD;
		o->key = c->key;
		o->keylen = keylen;
		o->family = r->name;
		o->famlen = r->namelen;
		o->famid = r->id;
		o->qual = qual;
		o->quallen = c->quallen + 1 + fnlen;
		o->value = (const char *) input;
		o->vallen = sizeof(int64);
		o->ts = bucket;
		o->ts_to = PG_INT64_MAX;
		o->xmin = c->xmin;
		o->cmin = c->cmin;
	}
}

/*
 * WideRollupExpand -- the cells to write for a write of cells[0..*n-1]: the
 * same array if no family is a rollup of theirs, else a new palloc'd array
 * of the cells followed by their rollup records (*n updated).  Each source
 * cell's value must be in memory.
 */
WideCell *
WideRollupExpand(Relation rel, const WideSchema *schema, WideCell *cells,
				 int *n)
{
	int			nrecords = 0;
	int			i,
				j;
	WideCell   *out;
	int			nout;

	/* a restore writes the rollup cells itself (see the top of the file) */
	if (!schema->has_rollups || wide_rollup_on_write == WIDE_ROLLUP_WRITE_OFF)
		return cells;
	if (wide_rollup_on_write == WIDE_ROLLUP_WRITE_AUTO && session_restores_dump())
		return cells;
	/* a replica applying replicated changes receives the rollup cells too */
	if (wide_rollup_replaying && wide_rollup_replaying())
		return cells;
	/* a table rewrite (ALTER TABLE) copies the rollup cells as they are */
	if (OidIsValid(WideRewriteSource(rel)))
		return cells;
	for (i = 0; i < *n; i++)
	{
		if (cells[i].kind != WIDE_KIND_PUT)
			continue;
		for (j = 0; j < schema->nfamilies; j++)
		{
			const WideFamily *r = &schema->families[j];

			if (r->aggregate == WIDE_AGG_ROLLUP &&
				r->rollup_sourcelen == cells[i].famlen &&
				memcmp(r->rollup_source, cells[i].family, cells[i].famlen) == 0)
				nrecords += pg_popcount32(r->rollup_functions);
		}
	}
	if (nrecords == 0)
		return cells;

	out = palloc(sizeof(WideCell) * (*n + nrecords));
	memcpy(out, cells, sizeof(WideCell) * *n);
	nout = *n;
	for (i = 0; i < *n; i++)
	{
		if (cells[i].kind != WIDE_KIND_PUT)
			continue;
		if (cells[i].value == NULL)
			elog(ERROR, "rollup source cell without its value in memory");
		for (j = 0; j < schema->nfamilies; j++)
		{
			const WideFamily *r = &schema->families[j];

			if (r->aggregate == WIDE_AGG_ROLLUP &&
				r->rollup_sourcelen == cells[i].famlen &&
				memcmp(r->rollup_source, cells[i].family, cells[i].famlen) == 0)
				expand_one(rel, schema, r, &cells[i], out, &nout);
		}
	}
	Assert(nout == *n + nrecords);
	*n = nout;
	return out;
}
