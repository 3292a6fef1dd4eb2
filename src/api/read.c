/*-------------------------------------------------------------------------
 *
 * read.c
 *	  Bigtable reads as set-returning functions: ReadRows with a row set,
 *	  a row limit and a filter.
 *
 *	  wide.read_rows(tbl anyelement, keys text[], start_key, end_key,
 *	                 start_inclusive, end_inclusive, prefix, ranges jsonb,
 *	                 "limit", reversed, filter jsonb) -> SETOF anyelement
 *	  wide.read_row(tbl anyelement, row_key, filter) -> SETOF anyelement
 *	  wide.read_rows_labeled(...) -> TABLE (cell anyelement, labels text[])
 *
 * The table is named by a value of its row type, usually NULL::tablename,
 * so that the cells come back as the table's own rows and compose with the
 * rest of SQL.  The row set is the union of the keys, the ranges (a JSON
 * array of Bigtable RowRange objects: start_key_closed | start_key_open,
 * end_key_closed | end_key_open), the start_key/end_key range and the
 * prefix; with none of them, the whole table.  Each range is read with the
 * engine's seek, so only blocks that can hold it are decoded; keys are
 * point reads (row filters first).  Rows come in key order, each once, with
 * their cells in (family, qualifier, ts desc) order; "limit" counts rows
 * returned, after the filter.  A row's cells are held in memory while the
 * filter runs (filter.c); without a filter, cells stream.
 *
 * IDENTIFICATION
 *	  src/api/read.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "am/am.h"
#include "api/api.h"
#include "api/filter.h"
#include "api/readiter.h"

PG_FUNCTION_INFO_V1(wide_read_rows);
PG_FUNCTION_INFO_V1(wide_read_row);



/* order of ranges by start: unbounded first, then bytes, closed first */
static int
rowset_order(const void *a, const void *b)
{
	const WideKeyRange *x = (const WideKeyRange *) a;
	const WideKeyRange *y = (const WideKeyRange *) b;
	int			c;

	if (!x->has_start || !y->has_start)
		return (int) x->has_start - (int) y->has_start;
	c = WideKeyCompare(x->start, x->startlen, y->start, y->startlen);
	if (c != 0)
		return c;
	return (int) y->start_incl - (int) x->start_incl;
}

static void
check_range(const WideKeyRange *r)
{
	if (r->has_start && r->has_end &&
		WideKeyCompare(r->start, r->startlen, r->end, r->endlen) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row range [\"%.*s\", \"%.*s\") is inverted",
						(int) Min(r->startlen, 64), r->start,
						(int) Min(r->endlen, 64), r->end),
				 errdetail("A row range's start key must not be after its end key.")));
}

static void
check_key_length(uint32 len, const char *what)
{
	if (len > WIDE_MAX_ROW_KEY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of %u bytes is longer than a row key can be", what, len),
				 errdetail("Row keys are at most %d bytes.", WIDE_MAX_ROW_KEY)));
}

/* the ranges of a JSON array of RowRange objects */
static int
parse_ranges(Jsonb *json, WideKeyRange **out)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = 0,
				cap = 4;
	WideKeyRange *rs = palloc(sizeof(WideKeyRange) * cap);

	json = WideBigtableJson(json, InvalidOid);	/* proto3 JSON, if it is */

	it = JsonbIteratorInit(&json->root);
	tok = JsonbIteratorNext(&it, &v, true);
	if (tok != WJB_BEGIN_ARRAY || JB_ROOT_IS_SCALAR(json))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ranges must be a JSON array of row ranges"),
				 errhint("For example: [{\"start_key_closed\": \"a\", \"end_key_open\": \"b\"}].")));
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_END_ARRAY)
	{
		WideKeyRange *r;
		JsonbIterator *fit;
		JsonbValue	k,
					fv;
		JsonbIteratorToken ftok;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("row range %d is not a JSON object", n + 1)));
		if (n == cap)
			rs = repalloc(rs, sizeof(WideKeyRange) * (cap *= 2));
		r = &rs[n++];
		memset(r, 0, sizeof(WideKeyRange));
		fit = JsonbIteratorInit(v.val.binary.data);
		while ((ftok = JsonbIteratorNext(&fit, &k, true)) != WJB_DONE)
		{
			char	   *name;
			bool		start,
						closed;
			char	   *kb;
			int			klen;

			if (ftok != WJB_KEY)
				continue;
			name = pnstrdup(k.val.string.val, k.val.string.len);
			ftok = JsonbIteratorNext(&fit, &fv, true);
			if (strcmp(name, "start_key_closed") == 0)
				start = true, closed = true;
			else if (strcmp(name, "start_key_open") == 0)
				start = true, closed = false;
			else if (strcmp(name, "end_key_closed") == 0)
				start = false, closed = true;
			else if (strcmp(name, "end_key_open") == 0)
				start = false, closed = false;
			else
			{
				static const char *const fields[] = {"start_key_closed",
					"start_key_open", "end_key_closed", "end_key_open", NULL};
				const char *near = WideNearestName(name, fields);

				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unknown field \"%s\" in row range %d", name, n),
						 near ? errdetail("Perhaps you meant \"%s\".", near) : 0,
						 errhint("A row range has start_key_closed or start_key_open, and end_key_closed or end_key_open.")));
			}
			if (WideJsonBase64Key(&fv, &kb, &klen))
				;				/* a key of Bigtable's JSON mapping that is not text */
			else if (fv.type != jbvString)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("\"%s\" of row range %d must be a JSON string", name, n)));
			else
			{
				kb = pnstrdup(fv.val.string.val, fv.val.string.len);
				klen = fv.val.string.len;
			}
			if ((start && r->has_start) || (!start && r->has_end))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("row range %d has two %s keys", n, start ? "start" : "end")));
			check_key_length(klen, "a range key");
			if (start)
			{
				r->has_start = true;
				r->start_incl = closed;
				r->start = kb;
				r->startlen = klen;
			}
			else
			{
				r->has_end = true;
				r->end_incl = closed;
				r->end = kb;
				r->endlen = klen;
			}
		}
		check_range(r);
	}
	*out = rs;
	return n;
}

/* the range of keys starting with a prefix */
static void
prefix_range(const char *p, uint32 len, WideKeyRange *r)
{
	char	   *end = palloc(Max(len, 1));
	int			n = len;

	memset(r, 0, sizeof(WideKeyRange));
	if (len == 0)
		return;					/* every row */
	r->has_start = r->start_incl = true;
	r->start = p;
	r->startlen = len;
	memcpy(end, p, len);
	while (n > 0 && (uint8) end[n - 1] == 0xff)
		n--;
	if (n > 0)
	{
		end[n - 1]++;
		r->has_end = true;
		r->end_incl = false;
		r->end = end;
		r->endlen = n;
	}
}

/* the bytes of a text argument (detoasted into the current context) */
static const char *
text_bytes(Datum d, uint32 *len)
{
	text	   *t = DatumGetTextPP(d);

	*len = VARSIZE_ANY_EXHDR(t);
	return VARDATA_ANY(t);
}

/* the row set of read_rows's arguments, sorted by start; nranges 0: the table */
static WideKeyRange *
row_set(const Datum *args, const bool *nulls, int *nranges, bool *whole)
{
	WideKeyRange *rs = NULL;
	int			n = 0;
	int			cap = 8;

	*whole = nulls[A_KEYS] && nulls[A_START] && nulls[A_END] &&
		nulls[A_PREFIX] && nulls[A_RANGES];
	rs = palloc(sizeof(WideKeyRange) * cap);

	if (!nulls[A_KEYS])
	{
		ArrayType  *a = DatumGetArrayTypeP(args[A_KEYS]);
		Datum	   *elems;
		bool	   *enulls;
		int			nelems,
					i;

		/* text[] or bytea[]: both arrays of byte strings */
		deconstruct_array(a, ARR_ELEMTYPE(a), -1, false, TYPALIGN_INT, &elems, &enulls, &nelems);
		for (i = 0; i < nelems; i++)
		{
			text	   *t;
			WideKeyRange *r;

			CHECK_FOR_INTERRUPTS();
			if (enulls[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("row keys cannot be NULL")));
			t = DatumGetTextPP(elems[i]);
			check_key_length(VARSIZE_ANY_EXHDR(t), "a row key");
			if (n == cap)
				rs = repalloc(rs, sizeof(WideKeyRange) * (cap *= 2));
			r = &rs[n++];
			memset(r, 0, sizeof(WideKeyRange));
			r->has_start = r->has_end = r->start_incl = r->end_incl = r->is_point = true;
			r->start = r->end = VARDATA_ANY(t);
			r->startlen = r->endlen = VARSIZE_ANY_EXHDR(t);
		}
	}
	if (!nulls[A_START] || !nulls[A_END])
	{
		WideKeyRange *r;

		if (n == cap)
			rs = repalloc(rs, sizeof(WideKeyRange) * (cap *= 2));
		r = &rs[n++];
		memset(r, 0, sizeof(WideKeyRange));
		if (!nulls[A_START])
		{
			r->has_start = true;
			r->start_incl = nulls[A_START_INCL] || DatumGetBool(args[A_START_INCL]);
			r->start = text_bytes(args[A_START], &r->startlen);
			check_key_length(r->startlen, "start_key");
		}
		if (!nulls[A_END])
		{
			r->has_end = true;
			r->end_incl = !nulls[A_END_INCL] && DatumGetBool(args[A_END_INCL]);
			r->end = text_bytes(args[A_END], &r->endlen);
			check_key_length(r->endlen, "end_key");
		}
		check_range(r);
	}
	if (!nulls[A_PREFIX])
	{
		const char *p;
		uint32		len;

		if (n == cap)
			rs = repalloc(rs, sizeof(WideKeyRange) * (cap *= 2));
		p = text_bytes(args[A_PREFIX], &len);
		check_key_length(len, "prefix");
		prefix_range(p, len, &rs[n++]);
	}
	if (!nulls[A_RANGES])
	{
		WideKeyRange *more;
		int			m = parse_ranges(DatumGetJsonbP(args[A_RANGES]), &more);

		rs = repalloc(rs, sizeof(WideKeyRange) * (n + m + 1));
		memcpy(rs + n, more, sizeof(WideKeyRange) * m);
		n += m;
	}
	if (n > 1)
		qsort(rs, n, sizeof(WideKeyRange), rowset_order);
	*nranges = n;
	return rs;
}

/*
 * WideReadSpecFromArgs -- what a call of read_rows (or read_row) reads,
 * from its arguments, checked.  The ranges point into the argument values,
 * which must outlive the spec; allocates in the current memory context.
 */
void
WideReadSpecFromArgs(bool read_row, const Datum *args, const bool *nulls,
					 const Oid *types, WideReadSpec *spec)
{
	Datum		keyargs[WIDE_READ_ROWS_NARGS];

	/* the key arguments as byte strings, whatever their type */
	if (types != NULL)
	{
		memcpy(keyargs, args, sizeof(Datum) * (read_row ? WIDE_READ_ROW_NARGS :
											   WIDE_READ_ROWS_NARGS));
		if (read_row)
		{
			if (!nulls[1])
				keyargs[1] = WideReadKeyArg(args[1], types[1], false, "row_key");
		}
		else
		{
			if (!nulls[A_KEYS])
				keyargs[A_KEYS] = WideReadKeyArg(args[A_KEYS], types[A_KEYS], true, "keys");
			if (!nulls[A_START])
				keyargs[A_START] = WideReadKeyArg(args[A_START], types[A_START], false, "start_key");
			if (!nulls[A_END])
				keyargs[A_END] = WideReadKeyArg(args[A_END], types[A_END], false, "end_key");
			if (!nulls[A_PREFIX])
				keyargs[A_PREFIX] = WideReadKeyArg(args[A_PREFIX], types[A_PREFIX], false, "prefix");
		}
		args = keyargs;
	}
	memset(spec, 0, sizeof(*spec));
	spec->limit = -1;
	if (read_row)
	{
		WideKeyRange *r = palloc0(sizeof(WideKeyRange));

		if (nulls[1])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("row keys cannot be NULL")));
		r->has_start = r->has_end = r->start_incl = r->end_incl = r->is_point = true;
		r->start = r->end = text_bytes(args[1], &r->startlen);
		r->endlen = r->startlen;
		check_key_length(r->startlen, "a row key");
		spec->ranges = r;
		spec->nranges = 1;
		spec->filter = nulls[2] ? NULL : DatumGetJsonbP(args[2]);
		return;
	}
	if (!nulls[A_LIMIT])
	{
		spec->limit = DatumGetInt64(args[A_LIMIT]);
		if (spec->limit < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("limit must not be negative, not " INT64_FORMAT, spec->limit),
					 errhint("Pass NULL for no limit.")));
	}
	spec->ranges = row_set(args, nulls, &spec->nranges, &spec->whole);
	spec->reversed = !nulls[A_REVERSED] && DatumGetBool(args[A_REVERSED]);
	spec->filter = nulls[A_FILTER] ? NULL : DatumGetJsonbP(args[A_FILTER]);
}

/*
 * The state of one read.  Without a filter, a forward read streams: each
 * cell of the engine's reader becomes the caller's values, nothing copied
 * but what the conversion needs.  With a filter, a row's cells are copied
 * (rowcxt) until the row is complete, then its filter's output entries are
 * returned one by one.  A reversed read takes the rows of the engine's
 * reverse reader (engine/reverse.c: last row first, a row's cells in
 * order) one row at a time: the row being returned lives in one of two
 * contexts, the next row's first cell (read to see the row end) in the
 * other.
 */
struct WideReadIter
{
	Relation	rel;
	const WideSchema *schema;
	TupleDesc	rowdesc;		/* the table's row type */
	Snapshot	snapshot;
	const bool *needed;			/* columns to convert; NULL: all */
	bool		convert[5];		/* columns WideCellToValues converts */
	bool		track_rows;		/* rows counted, or remembered for overlaps */
	bool		none_needed;	/* the caller uses no column */
	StringInfoData family;		/* the family of familyval */
	Datum		familyval;		/* the last family streamed, or 0 */
	WideFilter *filter;
	WideFilterContext fc;
	Datum		stripped;		/* the value of a stripped cell, or 0: NULL */
	WideTsWindow window;		/* the filter's time window (time pruning) */
	bool		has_window;
	int			latest_n;		/* the filter keeps n cells a column: the
								 * reader skips the rest (WideReaderLatest) */
	int64		limit;			/* rows; -1: no limit */
	int64		rows;			/* rows returned */
	bool		full;			/* the limit is reached */
	bool		reversed;
	WideKeyRange *ranges;		/* in the order they are read */
	int			nranges;
	int			nextrange;
	/* the last row of a finished range or chunk (to skip overlaps) */
	StringInfoData last;
	bool		have_last;
	/* the current row */
	StringInfoData row;
	bool		have_row;
	WideRowCell *cells;			/* its cells, with a filter */
	int			ncells;
	int			maxcells;
	/* the output entries of the row being returned */
	const WideRowCell *outcells;
	const char *outkey;			/* their row's key */
	uint32		outkeylen;
	WideRowOut *out;
	int			nout;
	int			nextout;
	/* forward reads */
	WideReader *reader;
	const WideCell *pending;	/* read, not yet added: a next row's first */
	/* reversed reads */
	WideReverseReader *rreader;
	MemoryContext revcxt[2];	/* a row's cells; the next row's first */
	int			revcur;			/* the one that holds the pending cell */
	bool		has_rpend;		/* a next row's first cell was read */
	WideRowCell rpend;
	char	   *rpendkey;
	uint32		rpendkeylen;
	WideReaderStats stats;		/* of closed readers */
	MemoryContext itcxt;		/* everything of the read */
	MemoryContext readcxt;		/* the open reader's or cursor's memory */
	MemoryContext rowcxt;		/* the current row's cells */
	MemoryContext tupcxt;		/* conversions of the last streamed cell */
	bool		tupcxt_used;
};

/* copy a reader's cell into a row cell, in the current memory context */
static void
copy_cell(const WideSchema *schema, TupleDesc rowdesc, const WideCell *cell,
		  WideRowCell *c)
{
	int			i;

	WideCellToValues(schema, cell, c->values, c->nulls, NULL);
	for (i = 0; i < 5; i++)
		if (!c->nulls[i])
		{
			Form_pg_attribute a = TupleDescAttr(rowdesc, i);

			c->values[i] = datumCopy(c->values[i], a->attbyval, a->attlen);
		}
	c->family = pnstrdup(cell->family, cell->famlen);
	c->familylen = cell->famlen;
	c->qual = palloc(Max(cell->quallen, 1));
	memcpy((char *) c->qual, cell->qual, cell->quallen);
	c->quallen = cell->quallen;
	c->ts = cell->ts;
	c->value = c->values[4];
	c->isnull = c->nulls[4];
}

/*
 * WideReadRow -- the cells of one row as a snapshot sees them, in cell
 * order, copied into the current memory context; returns their number.
 */
int
WideReadRow(Relation rel, const WideSchema *schema, Snapshot snapshot,
			const char *key, uint32 keylen, WideRowCell **cells)
{
	WideKeyRange range;
	WideReader *r;
	const WideCell *cell;
	int			n = 0,
				cap = 16;

	MemoryContext readcxt,
				old;

	memset(&range, 0, sizeof(range));
	range.has_start = range.has_end = range.start_incl = range.end_incl = true;
	range.is_point = true;
	range.start = range.end = key;
	range.startlen = range.endlen = keylen;
	*cells = palloc(sizeof(WideRowCell) * cap);

	/* the reader's own memory goes with it; the cells stay */
	readcxt = AllocSetContextCreate(CurrentMemoryContext, "wide read row",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(readcxt);
	r = WideReaderBegin(rel, snapshot, WideReaderNow(), &range);
	MemoryContextSwitchTo(old);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(readcxt);
		cell = WideReaderNext(r);
		MemoryContextSwitchTo(old);
		if (cell == NULL)
			break;
		if (n == cap)
			*cells = repalloc_huge(*cells, sizeof(WideRowCell) * (Size) (cap *= 2));
		copy_cell(schema, RelationGetDescr(rel), cell, &(*cells)[n++]);
	}
	MemoryContextSwitchTo(readcxt);
	WideReaderEnd(r);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(readcxt);
	return n;
}

/* order of ranges for a reversed read: by end, highest (or none) first */
static int
rowset_order_reversed(const void *a, const void *b)
{
	const WideKeyRange *x = (const WideKeyRange *) a;
	const WideKeyRange *y = (const WideKeyRange *) b;
	int			c;

	if (!x->has_end || !y->has_end)
		return (int) x->has_end - (int) y->has_end;
	c = WideKeyCompare(x->end, x->endlen, y->end, y->endlen);
	if (c != 0)
		return -c;
	return (int) y->end_incl - (int) x->end_incl;
}

/* add the statistics of a reader to the read's */
static void
add_stats(WideReaderStats *to, const WideReaderStats *st)
{
	to->wa_records += st->wa_records;
	to->runs_read += st->runs_read;
	to->blocks_read += st->blocks_read;
	to->records += st->records;
	to->cells += st->cells;
	to->blocks_skipped += st->blocks_skipped;
	to->index_skipped += st->index_skipped;
	to->records_skipped += st->records_skipped;
	to->blocks_column_skipped += st->blocks_column_skipped;
}

/*
 * WideReadBegin -- start a read.  Everything it allocates lives in a
 * context of its own, a child of the current one, deleted by WideReadEnd;
 * the spec's keys must outlive the read.  "needed" (5 flags, or NULL for
 * all) names the columns a streaming read converts.
 */
WideReadIter *
WideReadBegin(Relation rel, const WideSchema *schema, Snapshot snapshot,
			  const WideReadSpec *spec, const bool *needed)
{
	MemoryContext itcxt = AllocSetContextCreate(CurrentMemoryContext, "wide read",
												ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(itcxt);
	WideReadIter *it = palloc0(sizeof(WideReadIter));
	bool		isvarlena;

	it->itcxt = itcxt;
	it->rel = rel;
	it->schema = schema;
	it->rowdesc = RelationGetDescr(rel);
	it->snapshot = snapshot;
	it->needed = needed;
	it->limit = spec->limit;
	it->reversed = spec->reversed;
	it->fc.valtype = schema->valtype;
	getTypeOutputInfo(it->fc.valtype, &it->fc.valout, &isvarlena);
	if (spec->filter)
		it->filter = WideFilterParse(&it->fc, spec->filter);
	it->has_window = WideFilterTsWindow(it->filter, &it->window);
	/* (a reversed read returns a row's cells forward, but reads by window) */
	it->latest_n = it->reversed ? 0 : WideFilterColumnLimit(it->filter);
	if (schema->valtype == BYTEAOID || schema->valtype == TEXTOID)
		it->stripped = PointerGetDatum(cstring_to_text_with_len("", 0));
	if (spec->whole)
	{
		it->ranges = palloc0(sizeof(WideKeyRange));
		it->nranges = 1;
	}
	else
	{
		it->nranges = spec->nranges;
		it->ranges = palloc(sizeof(WideKeyRange) * Max(spec->nranges, 1));
		memcpy(it->ranges, spec->ranges, sizeof(WideKeyRange) * spec->nranges);
		if (it->reversed && it->nranges > 1)
			qsort(it->ranges, it->nranges, sizeof(WideKeyRange), rowset_order_reversed);
	}
	initStringInfo(&it->last);
	initStringInfo(&it->row);
	it->maxcells = 64;
	it->cells = palloc(sizeof(WideRowCell) * it->maxcells);
	it->readcxt = AllocSetContextCreate(itcxt, "wide read reader",
										ALLOCSET_DEFAULT_SIZES);
	it->rowcxt = AllocSetContextCreate(itcxt, "wide read row",
									   ALLOCSET_DEFAULT_SIZES);
	it->revcxt[0] = AllocSetContextCreate(itcxt, "wide reversed row",
										  ALLOCSET_DEFAULT_SIZES);
	it->revcxt[1] = AllocSetContextCreate(itcxt, "wide reversed row",
										  ALLOCSET_DEFAULT_SIZES);
	it->tupcxt = AllocSetContextCreate(itcxt, "wide read cell",
									   ALLOCSET_SMALL_SIZES);
	if (it->limit == 0)
		it->full = true;

	/*
	 * An unfiltered read of one range without a limit needs no row
	 * boundaries; the family column is kept from cell to cell, not made for
	 * each (a table has few families).
	 */
	it->track_rows = it->filter != NULL || it->limit >= 0 || it->nranges > 1;
	for (int i = 0; i < 5; i++)
		it->convert[i] = needed == NULL || needed[i];
	it->convert[1] = false;
	it->none_needed = needed != NULL &&
		!needed[0] && !needed[1] && !needed[2] && !needed[3] && !needed[4];
	initStringInfo(&it->family);
	MemoryContextSwitchTo(old);
	return it;
}

/*
 * copy_cell_lazy -- what a filter reads of a cell (family, qualifier, ts,
 * value), copied into the current memory context.  The other columns are
 * made when the cell is returned (emit_out), if it is: a filter usually
 * drops most cells.
 */
static void
copy_cell_lazy(WideReadIter *it, const WideCell *cell, WideRowCell *c)
{
	static const bool value_only[5] = {false, false, false, false, true};
	bool		allocated;

	allocated = WideCellToValues(it->schema, cell, c->values, c->nulls, value_only);
	if (!c->nulls[4] && !allocated)
	{
		Form_pg_attribute a = TupleDescAttr(it->rowdesc, 4);

		/* it points into the reader's memory */
		c->values[4] = datumCopy(c->values[4], a->attbyval, a->attlen);
	}
	c->family = pnstrdup(cell->family, cell->famlen);
	c->familylen = cell->famlen;
	c->qual = palloc(Max(cell->quallen, 1));
	memcpy((char *) c->qual, cell->qual, cell->quallen);
	c->quallen = cell->quallen;
	c->ts = cell->ts;
	c->value = c->values[4];
	c->isnull = c->nulls[4];
}

/* return the next output entry of the current row */
static bool
emit_out(WideReadIter *it, Datum *values, bool *nulls, const WideRowOut **out)
{
	const WideRowOut *o = &it->out[it->nextout++];
	const WideRowCell *c = &it->outcells[o->cell];
	MemoryContext old;
	int			i;

	/* the columns besides the value are made now (copy_cell_lazy) */
	if (it->tupcxt_used)
		MemoryContextReset(it->tupcxt);
	old = MemoryContextSwitchTo(it->tupcxt);
	for (i = 0; i < 4; i++)
		nulls[i] = it->needed != NULL && !it->needed[i];
	if (!nulls[0])
		values[0] = PointerGetDatum(cstring_to_text_with_len(it->outkey, it->outkeylen));
	if (!nulls[1])
		values[1] = PointerGetDatum(cstring_to_text_with_len(c->family, c->familylen));
	if (!nulls[2])
		values[2] = PointerGetDatum(cstring_to_text_with_len(c->qual, c->quallen));
	if (!nulls[3])
		values[3] = (it->schema->tstype == TIMESTAMPTZOID) ?
			TimestampTzGetDatum(WideUnixToTimestamp(c->ts)) : Int64GetDatum(c->ts);
	MemoryContextSwitchTo(old);
	it->tupcxt_used = true;
	values[4] = c->values[4];
	nulls[4] = c->nulls[4];
	if (o->strip)
	{
		values[4] = it->stripped;
		nulls[4] = (it->stripped == (Datum) 0);
	}
	*out = o;
	return true;
}

/* filter a complete row; its output entries are returned next */
static void
filter_row(WideReadIter *it, const char *key, uint32 keylen,
		   const WideRowCell *cells, int ncells)
{
	WideRowOut *out;
	int			nout;

	it->fc.row = key;
	it->fc.rowlen = keylen;
	out = WideFilterApply(&it->fc, it->filter, cells, ncells, &nout);
	it->nout = it->nextout = 0;
	if (nout == 0)
		return;
	it->out = out;
	it->nout = nout;
	it->outcells = cells;
	it->outkey = key;
	it->outkeylen = keylen;
	it->rows++;
	if (it->limit >= 0 && it->rows >= it->limit)
		it->full = true;
}

/* the current row is complete (forward reads) */
static void
end_row(WideReadIter *it)
{
	it->have_row = false;
	if (it->filter != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(it->rowcxt);

		filter_row(it, it->row.data, it->row.len, it->cells, it->ncells);
		MemoryContextSwitchTo(old);
	}
	resetStringInfo(&it->last);
	appendBinaryStringInfo(&it->last, it->row.data, it->row.len);
	it->have_last = true;
}

/*
 * append a cell to the row being gathered, its copy in the current
 * context (it->cells grows in the context of the read, where it was
 * allocated)
 */
static void
push_cell(WideReadIter *it, const WideCell *cell)
{
	if (it->ncells == it->maxcells)
	{
		it->maxcells *= 2;
		it->cells = repalloc_huge(it->cells, sizeof(WideRowCell) * (Size) it->maxcells);
	}
	copy_cell_lazy(it, cell, &it->cells[it->ncells++]);
}

/* add a cell of the reader to the current row */
static void
add_cell(WideReadIter *it, const WideCell *cell)
{
	MemoryContext old = MemoryContextSwitchTo(it->rowcxt);

	push_cell(it, cell);
	MemoryContextSwitchTo(old);
}

/*
 * the stats of the range's open reader, forward or reverse (a read has one
 * or the other); false if none is open
 */
static bool
open_reader_stats(const WideReadIter *it, WideReaderStats *st)
{
	if (it->reader)
		*st = WideReaderGetStats(it->reader);
	else if (it->rreader)
		*st = WideReverseGetStats(it->rreader);
	else
		return false;
	return true;
}

/* close the range's reader, forward or reverse, keeping its stats */
static void
close_reader(WideReadIter *it)
{
	WideReaderStats st;
	MemoryContext old;

	if (!open_reader_stats(it, &st))
		return;
	add_stats(&it->stats, &st);
	old = MemoryContextSwitchTo(it->readcxt);
	if (it->reader)
		WideReaderEnd(it->reader);
	else
		WideReverseEnd(it->rreader);
	MemoryContextSwitchTo(old);
	it->reader = NULL;
	it->rreader = NULL;
	it->pending = NULL;
	MemoryContextReset(it->readcxt);
}

/* the family of a streamed cell as a datum, kept while it stays the same */
static Datum
family_datum(WideReadIter *it, const WideCell *cell)
{
	if (it->familyval == (Datum) 0 || it->family.len != cell->famlen ||
		memcmp(it->family.data, cell->family, cell->famlen) != 0)
	{
		MemoryContext old = MemoryContextSwitchTo(it->itcxt);

		if (it->familyval != (Datum) 0)
			pfree(DatumGetPointer(it->familyval));
		resetStringInfo(&it->family);
		appendBinaryStringInfo(&it->family, cell->family, cell->famlen);
		it->familyval = PointerGetDatum(cstring_to_text_with_len(cell->family,
																  cell->famlen));
		MemoryContextSwitchTo(old);
	}
	return it->familyval;
}

/* the next cell of a forward read */
static bool
next_forward(WideReadIter *it, Datum *values, bool *nulls, const WideRowOut **out)
{
	const WideCell *cell;
	MemoryContext old;

	for (;;)
	{
		if (it->nextout < it->nout)
			return emit_out(it, values, nulls, out);
		if (it->full)
			return false;
		if (it->pending)
		{
			cell = it->pending;
			it->pending = NULL;
		}
		else
		{
			if (it->reader == NULL)
			{
				/* a row does not continue into the next range */
				if (it->have_row)
				{
					end_row(it);
					continue;
				}
				if (it->nextrange >= it->nranges)
					return false;
				old = MemoryContextSwitchTo(it->readcxt);
				it->reader = WideReaderBeginTs(it->rel, it->snapshot, WideReaderNow(),
											   &it->ranges[it->nextrange++],
											   it->has_window ? &it->window : NULL);
				if (it->latest_n > 0)
					WideReaderLatest(it->reader, it->latest_n);
				MemoryContextSwitchTo(old);
			}
			CHECK_FOR_INTERRUPTS();
			old = MemoryContextSwitchTo(it->readcxt);
			cell = WideReaderNext(it->reader);
			MemoryContextSwitchTo(old);
			if (cell == NULL)
			{
				close_reader(it);
				continue;
			}
			/* a row an earlier, overlapping range returned */
			if (it->have_last &&
				WideKeyCompare(cell->key, cell->keylen, it->last.data, it->last.len) <= 0)
				continue;
		}
		if (it->track_rows &&
			(!it->have_row ||
			 WideKeyCompare(cell->key, cell->keylen, it->row.data, it->row.len) != 0))
		{
			if (it->filter != NULL)
			{
				if (it->have_row)
				{
					/* filter the row before this cell starts the next */
					it->pending = cell;
					end_row(it);
					continue;
				}
				MemoryContextReset(it->rowcxt);
				it->ncells = 0;
				it->nout = it->nextout = 0;
			}
			else
			{
				/* no filter: rows are only counted */
				if (it->limit >= 0 && it->rows >= it->limit)
				{
					it->full = true;
					return false;
				}
				it->rows++;
			}
			resetStringInfo(&it->row);
			appendBinaryStringInfo(&it->row, cell->key, cell->keylen);
			it->have_row = true;
		}
		if (it->filter != NULL)
		{
			add_cell(it, cell);
			continue;
		}
		/* stream the cell */
		if (it->none_needed)
		{
			/* count(*): no column to make */
			memset(nulls, true, sizeof(bool) * 5);
			*out = NULL;
			return true;
		}
		if (it->tupcxt_used)
			MemoryContextReset(it->tupcxt);
		old = MemoryContextSwitchTo(it->tupcxt);
		it->tupcxt_used = WideCellToValues(it->schema, cell, values, nulls, it->convert);
		MemoryContextSwitchTo(old);
		if (it->needed == NULL || it->needed[1])
			values[1] = family_datum(it, cell);
		nulls[1] = !(it->needed == NULL || it->needed[1]);
		*out = NULL;
		return true;
	}
}

/* the reverse reader's next cell that no earlier (higher) range returned */
static const WideCell *
reverse_next(WideReadIter *it)
{
	const WideCell *cell;

	while ((cell = WideReverseNext(it->rreader)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		if (!it->have_last ||
			WideKeyCompare(cell->key, cell->keylen, it->last.data, it->last.len) < 0)
			return cell;
	}
	return NULL;
}

/* keep a next row's first cell, in the context that is not the row's */
static void
keep_pending(WideReadIter *it, const WideCell *cell, int ctx)
{
	MemoryContext old;

	MemoryContextReset(it->revcxt[ctx]);
	old = MemoryContextSwitchTo(it->revcxt[ctx]);
	copy_cell_lazy(it, cell, &it->rpend);
	/* (a bytea key may hold zero bytes: not pnstrdup, which stops there) */
	it->rpendkey = memcpy(palloc(Max(cell->keylen, 1)), cell->key, cell->keylen);
	it->rpendkeylen = cell->keylen;
	MemoryContextSwitchTo(old);
	it->has_rpend = true;
	it->revcur = ctx;
}

/* filter a gathered row (its memory: revcxt[cur]); later rows lie below it */
static void
finish_reversed_row(WideReadIter *it, int cur, const char *key, uint32 keylen)
{
	MemoryContext old = MemoryContextSwitchTo(it->revcxt[cur]);

	filter_row(it, key, keylen, it->cells, it->ncells);
	MemoryContextSwitchTo(old);
	resetStringInfo(&it->last);
	appendBinaryStringInfo(&it->last, key, keylen);
	it->have_last = true;
}

/*
 * next_reversed_row -- gather the next row of a reversed read and filter
 * it (its output entries are returned next); false when the current range
 * has no more rows.
 */
static bool
next_reversed_row(WideReadIter *it)
{
	int			cur;
	const WideCell *cell;
	MemoryContext old;

	if (!it->has_rpend)
	{
		if ((cell = reverse_next(it)) == NULL)
			return false;
		keep_pending(it, cell, it->revcur);
	}
	/* the row begins with the pending cell, in its context */
	cur = it->revcur;
	it->has_rpend = false;
	it->ncells = 0;
	it->cells[it->ncells++] = it->rpend;
	old = MemoryContextSwitchTo(it->revcxt[cur]);
	while ((cell = reverse_next(it)) != NULL)
	{
		if (WideKeyCompare(cell->key, cell->keylen, it->rpendkey, it->rpendkeylen) != 0)
		{
			/* the next row's first cell: the other context (emitted before) */
			char	   *key = it->rpendkey;
			uint32		keylen = it->rpendkeylen;

			MemoryContextSwitchTo(old);
			keep_pending(it, cell, 1 - cur);
			finish_reversed_row(it, cur, key, keylen);
			return true;
		}
		push_cell(it, cell);
	}
	/* the range's last (lowest) row */
	MemoryContextSwitchTo(old);
	finish_reversed_row(it, cur, it->rpendkey, it->rpendkeylen);
	return true;
}

/* the next cell of a reversed read */
static bool
next_reversed(WideReadIter *it, Datum *values, bool *nulls, const WideRowOut **out)
{
	MemoryContext old;

	for (;;)
	{
		if (it->nextout < it->nout)
			return emit_out(it, values, nulls, out);
		if (it->full)
			return false;
		if (it->rreader == NULL)
		{
			if (it->nextrange >= it->nranges)
				return false;
			old = MemoryContextSwitchTo(it->readcxt);
			it->rreader = WideReverseBegin(it->rel, it->snapshot, WideReaderNow(),
										   &it->ranges[it->nextrange++], true,
										   it->has_window ? &it->window : NULL);
			MemoryContextSwitchTo(old);
			it->has_rpend = false;
		}
		if (!next_reversed_row(it))
			close_reader(it);
	}
}

/*
 * WideReadNext -- the next cell of the read as a row of the table
 * (values, nulls: 5 entries), with its filter output entry (labels,
 * or NULL); false at the end.  The values stay valid until the next call.
 */
bool
WideReadNext(WideReadIter *it, Datum *values, bool *nulls, const WideRowOut **out)
{
	if (it->reversed)
		return next_reversed(it, values, nulls, out);
	return next_forward(it, values, nulls, out);
}

/* WideReadGetStats -- what the read's readers read so far */
WideReaderStats
WideReadGetStats(const WideReadIter *it)
{
	WideReaderStats st = it->stats;
	WideReaderStats cur;

	if (open_reader_stats(it, &cur))
		add_stats(&st, &cur);
	return st;
}

/* WideReadTsWindow -- does the read's filter give its readers a time window? */
bool
WideReadTsWindow(const WideReadIter *it)
{
	return it->has_window;
}

/* WideReadEnd -- end a read, freeing its memory */
void
WideReadEnd(WideReadIter *it)
{
	close_reader(it);
	MemoryContextDelete(it->itcxt);
}

/*
 * WideReadTable -- the wide table a read names by its row type (its first
 * argument).
 */
Oid
WideReadTable(Oid rowtype)
{
	Oid			relid = get_typ_typrelid(rowtype);

	if (!OidIsValid(relid) ||
		(!WideRelationIsWide(relid) && !WideTabletParent(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the first argument of a wide read must be a row of a wide table, not %s",
						format_type_be(rowtype)),
				 (rowtype == REGCLASSOID || rowtype == OIDOID || rowtype == NAMEOID) ?
				 errdetail("The cells come back as rows of the table's own type, which a value of type %s cannot give.",
						   format_type_be(rowtype)) : 0,
				 errhint("Name the table by its row type: wide.read_rows(NULL::tablename, ...).")));
	return relid;
}

/* the cells of a read into the result tuplestore of read_srf */
static void
read_into(WideReadIter *it, ReturnSetInfo *rsinfo, TupleDesc rowdesc,
		  bool labeled, MemoryContext cellcxt, MemoryContext callcxt)
{
	Datum		values[5];
	bool		nulls[5];
	const WideRowOut *o;
	int			i;

	while (WideReadNext(it, values, nulls, &o))
	{
		HeapTuple	tup;
		Datum		out[2];
		bool		outnull[2] = {false, false};
		Datum	   *labels;
		int			n = o ? o->nlabels : 0;
		const WideLabel *l;

		if (!labeled)
		{
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			continue;
		}
		MemoryContextSwitchTo(cellcxt);
		tup = heap_form_tuple(rowdesc, values, nulls);
		out[0] = HeapTupleGetDatum(tup);
		labels = palloc(sizeof(Datum) * Max(n, 1));
		/* the list has the last label first; the array, the first */
		for (i = n - 1, l = o ? o->labels : NULL; i >= 0; i--, l = l->prev)
			labels[i] = CStringGetTextDatum(l->label);
		out[1] = PointerGetDatum(construct_array(labels, n, TEXTOID, -1, false,
												 TYPALIGN_INT));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, outnull);
		MemoryContextSwitchTo(callcxt);
		MemoryContextReset(cellcxt);
	}
}

/*
 * WideReadRowCount -- the rows a read has returned so far (counted when it
 * has a limit).
 */
int64
WideReadRowCount(const WideReadIter *it)
{
	return it->rows;
}

/*
 * read_srf -- wide.read_rows, read_rows_labeled and read_row as
 * set-returning functions: the read's cells into the result tuplestore.
 * Everything else lives in a context of the call, deleted at its end (a
 * read_row per row of a LATERAL join must not pile up in per-query memory).
 */
static Datum
read_srf(FunctionCallInfo fcinfo, bool read_row)
{
	Oid			relid = WideReadTable(get_fn_expr_argtype(fcinfo->flinfo, 0));
	int			nargs = read_row ? WIDE_READ_ROW_NARGS : WIDE_READ_ROWS_NARGS;
	Datum		args[WIDE_READ_ROWS_NARGS];
	bool		argnulls[WIDE_READ_ROWS_NARGS];
	Oid			argtypes[WIDE_READ_ROWS_NARGS];
	WideReadSpec spec;
	WideReadIter *it;
	Relation	rel;
	Relation	parent = NULL;
	List	   *tablets;
	ListCell   *lc;
	Snapshot	snapshot = GetActiveSnapshot();
	Snapshot	fresh = NULL;
	TupleDesc	rowdesc = NULL;
	ReturnSetInfo *rsinfo;
	bool		labeled;
	MemoryContext callcxt,
				cellcxt,
				old;
	int			i;

	callcxt = AllocSetContextCreate(CurrentMemoryContext, "wide read call",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(callcxt);
	for (i = 0; i < nargs; i++)
	{
		args[i] = fcinfo->args[i].value;
		argnulls[i] = fcinfo->args[i].isnull;
		argtypes[i] = get_fn_expr_argtype(fcinfo->flinfo, i);
	}
	WideReadSpecFromArgs(read_row, args, argnulls, argtypes, &spec);

	/*
	 * A parent of tablets is read tablet by tablet in key order (backwards
	 * for a reversed read), the limit counting the rows of them all.
	 */
	if (WideTabletParent(relid))
	{
		parent = WideOpenParent(fcinfo, NULL, relid, ACL_SELECT, AccessShareLock);
		if (read_row && !argnulls[1])
		{
			/* one row: its tablet, if there is one */
			text	   *key = DatumGetTextPP(WideReadKeyArg(args[1], argtypes[1], false,
															 "row_key"));
			Oid			leaf = WideTabletForKey(parent, VARDATA_ANY(key),
												VARSIZE_ANY_EXHDR(key),
												AccessShareLock, true);

			tablets = OidIsValid(leaf) ? list_make1_oid(leaf) : NIL;
		}
		else
			tablets = WideTabletsAll(parent, AccessShareLock);
		if (spec.reversed)
		{
			List	   *rev = NIL;

			foreach(lc, tablets)
				rev = lcons_oid(lfirst_oid(lc), rev);
			tablets = rev;
		}
		rowdesc = RelationGetDescr(parent);

		/*
		 * The tablets are locked only now, after the statement's snapshot
		 * was taken: a split or move that swapped tablets while this call
		 * waited for the locks gives the new tablets, whose last cells (the
		 * operation's final catch-up) that snapshot does not see.  A SELECT
		 * through the parent locks its partitions when it is planned,
		 * before its snapshot; in READ COMMITTED do the same as it, with a
		 * snapshot taken after the locks.  (In REPEATABLE READ a SELECT
		 * through the parent reads the new partitions with the
		 * transaction's snapshot too.)
		 */
		if (!IsolationUsesXactSnapshot() &&
			WideTabletsNewerThan(tablets, snapshot))
		{
			fresh = RegisterSnapshot(GetLatestSnapshot());
			snapshot = fresh;
		}
	}
	else
		tablets = list_make1_oid(relid);

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	labeled = rsinfo->setDesc->natts == 2;
	cellcxt = AllocSetContextCreate(callcxt, "wide read output",
									ALLOCSET_SMALL_SIZES);
	foreach(lc, tablets)
	{
		if (parent && get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
		{
			/* a remote tablet: the same read on its node (remote.c) */
			int64		n = WideRemoteRows(fcinfo, lfirst_oid(lc),
										   read_row ? -1 : 8, spec.limit,
										   NameStr(TupleDescAttr(rowdesc, 0)->attname),
										   labeled);

			if (spec.limit > 0)
				spec.limit -= Min(spec.limit, n);
			if (spec.limit == 0)
				break;
			continue;
		}

		/*
		 * Even with a limit of 0 the first read begins: it checks the
		 * privilege and the filter, as a read of a table does.
		 */
		rel = parent ? WideOpenWide(lfirst_oid(lc), AccessShareLock) :
			WideOpenTable(fcinfo, relid, ACL_SELECT, AccessShareLock);
		if (parent == NULL)
			rowdesc = RelationGetDescr(rel);
		it = WideReadBegin(rel, WideSchemaCopy(rel), snapshot, &spec, NULL);
		read_into(it, rsinfo, rowdesc, labeled, cellcxt, callcxt);
		if (spec.limit > 0)
			spec.limit -= Min(spec.limit, WideReadRowCount(it));
		WideReadEnd(it);
		relation_close(rel, NoLock);
		if (spec.limit == 0)
			break;
	}
	if (fresh)
		UnregisterSnapshot(fresh);
	if (parent)
		relation_close(parent, NoLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(callcxt);
	return (Datum) 0;
}

/*
 * wide.read_rows(tbl, keys, start_key, end_key, start_inclusive,
 *                end_inclusive, prefix, ranges, limit, reversed, filter)
 */
Datum
wide_read_rows(PG_FUNCTION_ARGS)
{
	return read_srf(fcinfo, false);
}

/*
 * wide.read_row(tbl, row_key, filter)
 */
Datum
wide_read_row(PG_FUNCTION_ARGS)
{
	return read_srf(fcinfo, true);
}
