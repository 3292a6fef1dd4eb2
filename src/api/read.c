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
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "am/am.h"
#include "api/api.h"
#include "api/filter.h"

PG_FUNCTION_INFO_V1(wide_read_rows);
PG_FUNCTION_INFO_V1(wide_read_row);

/* argument positions of read_rows */
enum
{
	A_TBL, A_KEYS, A_START, A_END, A_START_INCL, A_END_INCL, A_PREFIX,
	A_RANGES, A_LIMIT, A_REVERSED, A_FILTER
};


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
			if (fv.type != jbvString)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("\"%s\" of row range %d must be a JSON string", name, n)));
			if ((start && r->has_start) || (!start && r->has_end))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("row range %d has two %s keys", n, start ? "start" : "end")));
			check_key_length(fv.val.string.len, "a range key");
			if (start)
			{
				r->has_start = true;
				r->start_incl = closed;
				r->start = pnstrdup(fv.val.string.val, fv.val.string.len);
				r->startlen = fv.val.string.len;
			}
			else
			{
				r->has_end = true;
				r->end_incl = closed;
				r->end = pnstrdup(fv.val.string.val, fv.val.string.len);
				r->endlen = fv.val.string.len;
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

static const char *
text_arg_bytes(FunctionCallInfo fcinfo, int argno, uint32 *len)
{
	text	   *t = PG_GETARG_TEXT_PP(argno);

	*len = VARSIZE_ANY_EXHDR(t);
	return VARDATA_ANY(t);
}

/* the row set of the arguments, sorted by start; nranges 0: the table */
static WideKeyRange *
row_set(FunctionCallInfo fcinfo, int *nranges, bool *whole)
{
	WideKeyRange *rs = NULL;
	int			n = 0;
	int			cap = 8;

	*whole = PG_ARGISNULL(A_KEYS) && PG_ARGISNULL(A_START) && PG_ARGISNULL(A_END) &&
		PG_ARGISNULL(A_PREFIX) && PG_ARGISNULL(A_RANGES);
	rs = palloc(sizeof(WideKeyRange) * cap);

	if (!PG_ARGISNULL(A_KEYS))
	{
		ArrayType  *a = PG_GETARG_ARRAYTYPE_P(A_KEYS);
		Datum	   *elems;
		bool	   *nulls;
		int			nelems,
					i;

		deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &nelems);
		for (i = 0; i < nelems; i++)
		{
			text	   *t;
			WideKeyRange *r;

			CHECK_FOR_INTERRUPTS();
			if (nulls[i])
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
	if (!PG_ARGISNULL(A_START) || !PG_ARGISNULL(A_END))
	{
		WideKeyRange *r;

		if (n == cap)
			rs = repalloc(rs, sizeof(WideKeyRange) * (cap *= 2));
		r = &rs[n++];
		memset(r, 0, sizeof(WideKeyRange));
		if (!PG_ARGISNULL(A_START))
		{
			r->has_start = true;
			r->start_incl = PG_ARGISNULL(A_START_INCL) || PG_GETARG_BOOL(A_START_INCL);
			r->start = text_arg_bytes(fcinfo, A_START, &r->startlen);
			check_key_length(r->startlen, "start_key");
		}
		if (!PG_ARGISNULL(A_END))
		{
			r->has_end = true;
			r->end_incl = !PG_ARGISNULL(A_END_INCL) && PG_GETARG_BOOL(A_END_INCL);
			r->end = text_arg_bytes(fcinfo, A_END, &r->endlen);
			check_key_length(r->endlen, "end_key");
		}
		check_range(r);
	}
	if (!PG_ARGISNULL(A_PREFIX))
	{
		const char *p;
		uint32		len;

		if (n == cap)
			rs = repalloc(rs, sizeof(WideKeyRange) * (cap *= 2));
		p = text_arg_bytes(fcinfo, A_PREFIX, &len);
		check_key_length(len, "prefix");
		prefix_range(p, len, &rs[n++]);
	}
	if (!PG_ARGISNULL(A_RANGES))
	{
		WideKeyRange *more;
		int			m = parse_ranges(PG_GETARG_JSONB_P(A_RANGES), &more);

		rs = repalloc(rs, sizeof(WideKeyRange) * (n + m + 1));
		memcpy(rs + n, more, sizeof(WideKeyRange) * m);
		n += m;
	}
	if (n > 1)
		qsort(rs, n, sizeof(WideKeyRange), rowset_order);
	*nranges = n;
	return rs;
}

/* the state of one read */
typedef struct ReadState
{
	Relation	rel;
	const WideSchema *schema;
	TupleDesc	rowdesc;		/* the table's row type */
	ReturnSetInfo *rsinfo;
	bool		labeled;
	WideFilter *filter;
	WideFilterContext fc;
	WideTsWindow window;		/* the filter's time window (time pruning) */
	bool		has_window;
	int64		limit;			/* rows; -1: no limit */
	int64		rows;
	bool		full;			/* the limit is reached */
	/* the last row emitted (to skip it in overlapping ranges) */
	StringInfoData last;
	bool		have_last;
	/* the current row */
	StringInfoData row;
	bool		have_row;
	WideRowCell *cells;
	int			ncells;
	int			maxcells;
	MemoryContext rowcxt;
} ReadState;

static void
emit_cell(ReadState *st, WideRowCell *c, const WideRowOut *o)
{
	Datum		values[5];
	bool		nulls[5];

	memcpy(values, c->values, sizeof(values));
	memcpy(nulls, c->nulls, sizeof(nulls));
	if (o && o->strip)
	{
		if (st->schema->valtype == BYTEAOID || st->schema->valtype == TEXTOID)
			values[4] = PointerGetDatum(cstring_to_text_with_len("", 0));
		else
			nulls[4] = true;
	}
	if (!st->labeled)
		tuplestore_putvalues(st->rsinfo->setResult, st->rsinfo->setDesc, values, nulls);
	else
	{
		HeapTuple	tup = heap_form_tuple(st->rowdesc, values, nulls);
		Datum		out[2];
		bool		outnull[2] = {false, false};
		Datum	   *labels;
		int			i,
					n = o ? o->nlabels : 0;
		const WideLabel *l;

		out[0] = HeapTupleGetDatum(tup);
		labels = palloc(sizeof(Datum) * Max(n, 1));
		/* the list has the last label first; the array, the first */
		for (i = n - 1, l = o ? o->labels : NULL; i >= 0; i--, l = l->prev)
			labels[i] = CStringGetTextDatum(l->label);
		out[1] = PointerGetDatum(construct_array(labels, n, TEXTOID, -1, false,
												 TYPALIGN_INT));
		tuplestore_putvalues(st->rsinfo->setResult, st->rsinfo->setDesc, out, outnull);
	}
}

/* the current row is complete: filter it and emit its cells */
static void
finish_row(ReadState *st)
{
	MemoryContext old;
	WideRowOut *out;
	int			nout,
				i;

	if (!st->have_row)
		return;
	st->have_row = false;
	old = MemoryContextSwitchTo(st->rowcxt);
	st->fc.row = st->row.data;
	st->fc.rowlen = st->row.len;
	out = WideFilterApply(&st->fc, st->filter, st->cells, st->ncells, &nout);
	if (nout > 0 && !st->full)
	{
		for (i = 0; i < nout; i++)
			emit_cell(st, &st->cells[out[i].cell], &out[i]);
		st->rows++;
		if (st->limit >= 0 && st->rows >= st->limit)
			st->full = true;
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->rowcxt);
	st->ncells = 0;
	resetStringInfo(&st->last);
	appendBinaryStringInfo(&st->last, st->row.data, st->row.len);
	st->have_last = true;
}

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

/* add a cell of the reader to the current row */
static void
add_cell(ReadState *st, const WideCell *cell)
{
	MemoryContext old;

	if (st->ncells == st->maxcells)
	{
		/* grows in the context of the read (st->cells was allocated there) */
		st->maxcells *= 2;
		st->cells = repalloc_huge(st->cells, sizeof(WideRowCell) * (Size) st->maxcells);
	}
	old = MemoryContextSwitchTo(st->rowcxt);
	copy_cell(st->schema, st->rowdesc, cell, &st->cells[st->ncells++]);
	MemoryContextSwitchTo(old);
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

/* read one range of the row set */
static void
read_range(ReadState *st, const WideKeyRange *range)
{
	WideReader *r = WideReaderBeginTs(st->rel, GetActiveSnapshot(), WideReaderNow(), range,
									  st->has_window ? &st->window : NULL);
	const WideCell *cell;

	while (!st->full && (cell = WideReaderNext(r)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		/* a row an earlier, overlapping range returned */
		if (st->have_last &&
			WideKeyCompare(cell->key, cell->keylen, st->last.data, st->last.len) <= 0)
			continue;
		if (st->filter == NULL && !st->labeled)
		{
			/* no filter: cells stream, rows are only counted */
			Datum		values[5];
			bool		nulls[5];
			MemoryContext old;

			if (!st->have_row ||
				WideKeyCompare(cell->key, cell->keylen, st->row.data, st->row.len) != 0)
			{
				if (st->limit >= 0 && st->rows >= st->limit)
				{
					st->full = true;
					break;
				}
				st->rows++;
				resetStringInfo(&st->row);
				appendBinaryStringInfo(&st->row, cell->key, cell->keylen);
				st->have_row = true;
			}
			old = MemoryContextSwitchTo(st->rowcxt);
			WideCellToValues(st->schema, cell, values, nulls, NULL);
			tuplestore_putvalues(st->rsinfo->setResult, st->rsinfo->setDesc, values, nulls);
			MemoryContextSwitchTo(old);
			MemoryContextReset(st->rowcxt);
			continue;
		}
		if (!st->have_row ||
			WideKeyCompare(cell->key, cell->keylen, st->row.data, st->row.len) != 0)
		{
			finish_row(st);
			if (st->full)
				break;
			resetStringInfo(&st->row);
			appendBinaryStringInfo(&st->row, cell->key, cell->keylen);
			st->have_row = true;
		}
		add_cell(st, cell);
	}
	if (st->filter == NULL && !st->labeled)
	{
		/* remember the last row, for overlapping ranges */
		if (st->have_row)
		{
			resetStringInfo(&st->last);
			appendBinaryStringInfo(&st->last, st->row.data, st->row.len);
			st->have_last = true;
		}
	}
	else
		finish_row(st);
	WideReaderEnd(r);
}

/* rows of a reversed read gathered at a time (bounds its memory) */
#define REVERSE_CHUNK_ROWS	64

typedef struct ChunkRow
{
	char	   *key;
	uint32		keylen;
	WideRowCell *cells;
	int			ncells;
} ChunkRow;

/* filter and emit one row of a chunk (reversed reads) */
static void
emit_chunk_row(ReadState *st, ChunkRow *r)
{
	WideRowOut *out;
	int			nout,
				i;

	st->fc.row = r->key;
	st->fc.rowlen = r->keylen;
	out = WideFilterApply(&st->fc, st->filter, r->cells, r->ncells, &nout);
	if (nout == 0 || st->full)
		return;
	for (i = 0; i < nout; i++)
		emit_cell(st, &r->cells[out[i].cell], &out[i]);
	st->rows++;
	if (st->limit >= 0 && st->rows >= st->limit)
		st->full = true;
}

/*
 * read_range_reversed -- the rows of a range, last row first (cells inside
 * a row keep their order, as in Bigtable).  The row cursor finds up to
 * REVERSE_CHUNK_ROWS row keys going backwards; one forward reader over
 * just those rows reads them; they are emitted in reverse.  Memory is one
 * chunk of rows, whatever the range.
 */
static void
read_range_reversed(ReadState *st, const WideKeyRange *range)
{
	WideRowCursor *cur = WideRowCursorBegin(st->rel, GetActiveSnapshot(), range);
	MemoryContext chunkcxt = AllocSetContextCreate(CurrentMemoryContext,
												   "wide reversed chunk",
												   ALLOCSET_DEFAULT_SIZES);
	char	   *hi = NULL;
	uint32		hilen = 0;
	bool		more = true;

	while (more && !st->full)
	{
		MemoryContext old = MemoryContextSwitchTo(chunkcxt);
		const char *k;
		uint32		klen;
		char	   *lo = NULL;
		uint32		lolen = 0;
		int			nkeys = 0;
		WideKeyRange r;
		WideReader *reader;
		const WideCell *cell;
		ChunkRow   *rows = palloc(sizeof(ChunkRow) * REVERSE_CHUNK_ROWS);
		int			nrows = 0,
					cap = 0,
					i;

		/* the next chunk of row keys, backwards */
		while (nkeys < REVERSE_CHUNK_ROWS && (more = WideRowCursorPrev(cur, &k, &klen)))
		{
			/* rows an earlier (higher) range returned */
			if (st->have_last &&
				WideKeyCompare(k, klen, st->last.data, st->last.len) >= 0)
				continue;
			if (nkeys == 0)
			{
				hi = pnstrdup(k, klen);
				hilen = klen;
			}
			lo = pnstrdup(k, klen);
			lolen = klen;
			nkeys++;
		}
		if (nkeys == 0)
		{
			MemoryContextSwitchTo(old);
			break;
		}

		/* read them forward */
		memset(&r, 0, sizeof(r));
		r.has_start = r.has_end = r.start_incl = r.end_incl = true;
		r.start = lo;
		r.startlen = lolen;
		r.end = hi;
		r.endlen = hilen;
		r.is_point = (nkeys == 1);
		reader = WideReaderBeginTs(st->rel, GetActiveSnapshot(), WideReaderNow(), &r,
								   st->has_window ? &st->window : NULL);
		while ((cell = WideReaderNext(reader)) != NULL)
		{
			ChunkRow   *row;

			CHECK_FOR_INTERRUPTS();
			if (nrows == 0 ||
				WideKeyCompare(cell->key, cell->keylen, rows[nrows - 1].key,
						  rows[nrows - 1].keylen) != 0)
			{
				if (nrows == REVERSE_CHUNK_ROWS)
					rows = repalloc(rows, sizeof(ChunkRow) * (nrows + REVERSE_CHUNK_ROWS));
				row = &rows[nrows++];
				row->key = pnstrdup(cell->key, cell->keylen);
				row->keylen = cell->keylen;
				row->ncells = 0;
				cap = 16;
				row->cells = palloc(sizeof(WideRowCell) * cap);
			}
			row = &rows[nrows - 1];
			if (row->ncells == cap)
				row->cells = repalloc(row->cells, sizeof(WideRowCell) * (cap *= 2));
			copy_cell(st->schema, st->rowdesc, cell, &row->cells[row->ncells++]);
		}
		WideReaderEnd(reader);

		for (i = nrows - 1; i >= 0 && !st->full; i--)
			emit_chunk_row(st, &rows[i]);
		resetStringInfo(&st->last);
		appendBinaryStringInfo(&st->last, lo, lolen);
		st->have_last = true;
		MemoryContextSwitchTo(old);
		MemoryContextReset(chunkcxt);
	}
	MemoryContextDelete(chunkcxt);
	WideRowCursorEnd(cur);
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

/*
 * wide.read_rows(tbl, keys, start_key, end_key, start_inclusive,
 *                end_inclusive, prefix, ranges, limit, reversed, filter)
 */
static Datum read_rows(FunctionCallInfo fcinfo, Oid relid, int64 limit,
					   Jsonb *filter, WideKeyRange *ranges, int nranges,
					   bool whole, bool reversed);

/* the table a read names by its row type (argument 0) */
static Oid
read_table(FunctionCallInfo fcinfo)
{
	Oid			rowtype = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Oid			relid = get_typ_typrelid(rowtype);

	if (!OidIsValid(relid) || !WideRelationIsWide(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the first argument of a wide read must be a row of a wide table, not %s",
						format_type_be(rowtype)),
				 errhint("Name the table by its row type: wide.read_rows(NULL::tablename, ...).")));
	return relid;
}

Datum
wide_read_rows(PG_FUNCTION_ARGS)
{
	Oid			relid = read_table(fcinfo);
	WideKeyRange *ranges;
	int			nranges;
	bool		whole;
	int64		limit = -1;

	if (!PG_ARGISNULL(A_LIMIT))
	{
		limit = PG_GETARG_INT64(A_LIMIT);
		if (limit < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("limit must not be negative, not " INT64_FORMAT, limit),
					 errhint("Pass NULL for no limit.")));
	}
	ranges = row_set(fcinfo, &nranges, &whole);
	return read_rows(fcinfo, relid, limit,
					 PG_ARGISNULL(A_FILTER) ? NULL : PG_GETARG_JSONB_P(A_FILTER),
					 ranges, nranges, whole,
					 !PG_ARGISNULL(A_REVERSED) && PG_GETARG_BOOL(A_REVERSED));
}

/*
 * wide.read_row(tbl, row_key, filter)
 */
Datum
wide_read_row(PG_FUNCTION_ARGS)
{
	Oid			relid = read_table(fcinfo);
	WideKeyRange r;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("row keys cannot be NULL")));
	memset(&r, 0, sizeof(r));
	r.has_start = r.has_end = r.start_incl = r.end_incl = r.is_point = true;
	r.start = r.end = text_arg_bytes(fcinfo, 1, &r.startlen);
	r.endlen = r.startlen;
	check_key_length(r.startlen, "a row key");
	return read_rows(fcinfo, relid, -1, PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2),
					 &r, 1, false, false);
}

/*
 * read_rows -- the read itself.  Everything it allocates lives in a
 * context of the call, deleted at its end (a read_row per row of a LATERAL
 * join must not pile up in per-query memory); each range of the row set
 * is read in a context reset after it (a million point reads cost the
 * memory of one), and each row in a context reset after it.  Only the
 * result tuplestore outlives the call.
 */
static Datum
read_rows(FunctionCallInfo fcinfo, Oid relid, int64 limit, Jsonb *filter,
		  WideKeyRange *ranges, int nranges, bool whole, bool reversed)
{
	ReadState	st;
	int			i;
	bool		isvarlena;
	MemoryContext callcxt,
				rangecxt,
				old;

	callcxt = AllocSetContextCreate(CurrentMemoryContext, "wide read",
									ALLOCSET_DEFAULT_SIZES);
	memset(&st, 0, sizeof(st));
	st.rel = WideOpenTable(fcinfo, relid, ACL_SELECT, AccessShareLock);
	old = MemoryContextSwitchTo(callcxt);
	st.schema = WideSchemaCopy(st.rel);
	st.rowdesc = RelationGetDescr(st.rel);
	st.limit = limit;
	st.fc.valtype = st.schema->valtype;
	getTypeOutputInfo(st.fc.valtype, &st.fc.valout, &isvarlena);
	if (filter)
		st.filter = WideFilterParse(&st.fc, filter);
	st.has_window = WideFilterTsWindow(st.filter, &st.window);

	InitMaterializedSRF(fcinfo, 0);
	st.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	st.labeled = st.rsinfo->setDesc->natts == 2;
	initStringInfo(&st.last);
	initStringInfo(&st.row);
	st.maxcells = 64;
	st.cells = palloc(sizeof(WideRowCell) * st.maxcells);
	st.rowcxt = AllocSetContextCreate(callcxt, "wide read row",
									  ALLOCSET_DEFAULT_SIZES);
	rangecxt = AllocSetContextCreate(callcxt, "wide read range",
									 ALLOCSET_DEFAULT_SIZES);
	if (st.limit == 0)
		st.full = true;

	if (whole)
	{
		WideKeyRange all;

		memset(&all, 0, sizeof(all));
		MemoryContextSwitchTo(rangecxt);
		if (reversed)
			read_range_reversed(&st, &all);
		else
			read_range(&st, &all);
		MemoryContextSwitchTo(callcxt);
		MemoryContextReset(rangecxt);
	}
	if (reversed && nranges > 1)
		qsort(ranges, nranges, sizeof(WideKeyRange), rowset_order_reversed);
	for (i = 0; i < nranges && !st.full; i++)
	{
		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(rangecxt);
		if (reversed)
			read_range_reversed(&st, &ranges[i]);
		else
			read_range(&st, &ranges[i]);
		MemoryContextSwitchTo(callcxt);
		MemoryContextReset(rangecxt);
	}

	MemoryContextSwitchTo(old);
	MemoryContextDelete(callcxt);
	relation_close(st.rel, NoLock);
	return (Datum) 0;
}
