/*-------------------------------------------------------------------------
 *
 * reverse.c
 *	  Reading a range of row keys backwards: the last row first.
 *
 * Segments are written forward only, so a reverse read goes by windows:
 * key ranges (lo, hi] taken from the end of the range towards its start,
 * each read forward by an ordinary reader (reader.c) into memory and
 * returned backwards.  A window is sized from the block indexes, without
 * reading data: for every run, the rows of (lo, hi] must lie in the one
 * data block that holds its greatest row <= hi, that is lo is at least the
 * last row of the block before it (WideSegmentWindowStart); lo is the
 * greatest of those bounds, and of the key K rows below hi in the write
 * area.  All windows read one state of the table (reader.c: read states):
 * its runs, and its write-area records in the range, gathered and sorted
 * once, as any reader of the range would.  So a window costs at
 * most one index block and about one data block per run -- a LIMIT query
 * reads O(runs) blocks -- and memory is one window: about a block per run
 * and K write-area rows, or one row if a row is longer than that.
 * K starts small (a LIMIT 1 read of unflushed data sorts few rows) and
 * grows to REVERSE_WA_ROWS.
 *
 * Windows split the range at row keys, so each row is read whole by one
 * window, with all the rules of the read path; each window's reader sees
 * the same snapshot, whatever flushes or compactions run between them
 * (their bounds only decide how much a window reads).
 *
 * A caller that reads many ranges backwards one after the other (the row
 * form's parameterized backward scan: a LIMIT 1 per host) gives the reader
 * a state it gathered once (WideReverseBeginAt) and restarts the one
 * reader at each range (WideReverseRestart): only the range's runs and
 * write-area keys are found again, by binary search in the state.
 *
 * The first window of a range is shorter still where the state allows
 * (reader.c: WideReadStateLastRow): where one plain run alone holds the
 * range, with no write-area record in it, the range's last row is found
 * through the run's index and the block's row directory and its records
 * alone are decoded -- no window bound, reader or iterator (a LIMIT 1
 * read ends there; WideReaderStats.rows_direct counts these rows).
 * Anything it cannot decide that way is read as a window, as before.
 *
 * Cells come in the exact reverse of the forward order (row, family,
 * qualifier descending, ts ascending), or, with cells_forward, rows
 * backwards but the cells of a row in forward order (read_rows reversed,
 * as Bigtable's reversed scans).
 *
 * IDENTIFICATION
 *	  src/engine/reverse.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "engine/cell.h"
#include "engine/segment.h"
#include "engine/reader.h"

/* write-area rows a window may hold: at first, and at most */
#define REVERSE_WA_FIRST	8
#define REVERSE_WA_ROWS		256
/*
 * rows of each run the first window holds; each next window holds
 * REVERSE_RUN_GROWTH times more, up to REVERSE_RUN_MAX, and then a block
 * (a LIMIT 1 read that looks at the next row to end its own reads one more
 * row, not a block)
 */
#define REVERSE_RUN_FIRST	1
#define REVERSE_RUN_GROWTH	8
#define REVERSE_RUN_MAX		64

struct WideReverseReader
{
	Relation	rel;
	Snapshot	snapshot;
	int64		now;
	bool		cells_forward;
	bool		has_window;		/* only the cells of a time window */
	WideTsWindow window;
	WideKeyRange range;
	WideReadState *state;		/* the table's state (NULL: a one-row range) */
	bool		own_state;		/* ... begun (and ended) by the reader */
	MemoryContext rangecxt;		/* the range's keys and write-area keys */
	WideRunData runs[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	int			nruns;
	const char **wakeys;		/* write-area row keys in range, sorted */
	uint32	   *walens;
	int			nwakeys;
	bool		located;		/* runs and wakeys found (locate) */
	int			warows;			/* K: write-area rows of the next window */
	int			runrows;		/* rows of a run in the next window (0: a block) */
	StringInfoData hi;			/* the next window's upper bound */
	bool		has_hi;
	bool		hi_incl;
	bool		exhausted;		/* no window left */
	StringInfoData bound;
	StringInfoData cand;
	MemoryContext wincxt;		/* the current window: reader and cells */
	WideCell   *cells;			/* the window's cells, in forward order */
	int			ncells;
	int			maxcells;
	int			pos;			/* full reverse: cells[pos - 1] is next */
	int			rowstart;		/* cells_forward: the current row */
	int			rowend;
	WideBlockIter lastbi;		/* WideReadStateLastRow's */
	WideReaderStats stats;
};

/* a copy of a key in the current context (keys may hold zero bytes) */
static char *
copy_key(const char *p, uint32 len)
{
	char	   *c = palloc(Max(len, 1));

	memcpy(c, p, len);
	return c;
}

/*
 * set_range -- start reading range (NULL: all) from its end: its keys, in
 * rangecxt (the runs and write-area keys only when a window needs them:
 * locate).
 */
static void
set_range(WideReverseReader *r, const WideKeyRange *range)
{
	MemoryContext old;

	MemoryContextReset(r->rangecxt);
	old = MemoryContextSwitchTo(r->rangecxt);
	memset(&r->range, 0, sizeof(r->range));
	if (range)
	{
		r->range = *range;
		if (range->has_start)
			r->range.start = copy_key(range->start, range->startlen);
		if (range->has_end)
			r->range.end = copy_key(range->end, range->endlen);
	}
	resetStringInfo(&r->hi);
	r->has_hi = false;
	r->hi_incl = false;
	if (r->range.has_end)
	{
		appendBinaryStringInfo(&r->hi, r->range.end, r->range.endlen);
		r->has_hi = true;
		r->hi_incl = r->range.end_incl;
	}
	r->warows = REVERSE_WA_FIRST;
	r->runrows = REVERSE_RUN_FIRST;
	r->exhausted = false;
	r->ncells = 0;
	r->pos = r->rowstart = r->rowend = 0;
	r->nruns = 0;
	r->nwakeys = 0;
	r->wakeys = NULL;
	r->walens = NULL;
	r->located = false;
	MemoryContextSwitchTo(old);
}

/*
 * locate -- the runs of the state that may hold the range, and the
 * distinct row keys of the state's write-area records in it, in rangecxt
 * (once per range)
 */
static void
locate(WideReverseReader *r)
{
	MemoryContext old;

	if (r->located)
		return;
	r->located = true;
	old = MemoryContextSwitchTo(r->rangecxt);
	/* one row is one window: the range itself, read by a plain reader */
	if (!r->range.is_point && r->state)
	{
		WideCell *const *wa;
		int64		nwa,
					lo = 0,
					hi,
					i;

		r->nruns = WideReadStateRuns(r->state, &r->range, r->runs);
		/* the distinct row keys of its write-area records in the range */
		wa = WideReadStateWA(r->state, &nwa);
		hi = nwa;
		while (lo < hi)
		{
			int64		mid = lo + (hi - lo) / 2;

			if (WideRowBeforeRange(&r->range, wa[mid]->key, wa[mid]->keylen))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (i = lo; i < nwa && !WideRowAfterRange(&r->range, wa[i]->key, wa[i]->keylen); i++)
		{
			if (r->nwakeys > 0 &&
				WideKeyCompare(r->wakeys[r->nwakeys - 1], r->walens[r->nwakeys - 1],
							   wa[i]->key, wa[i]->keylen) == 0)
				continue;
			if (r->wakeys == NULL)
			{
				r->wakeys = palloc(sizeof(char *) * (nwa - lo));
				r->walens = palloc(sizeof(uint32) * (nwa - lo));
			}
			r->wakeys[r->nwakeys] = wa[i]->key;
			r->walens[r->nwakeys++] = wa[i]->keylen;
		}
	}
	MemoryContextSwitchTo(old);
}

/* a reader of state (NULL: none, a one-row range) in the current context */
static WideReverseReader *
reverse_new(Relation rel, Snapshot snapshot, int64 now, WideReadState *state,
			bool cells_forward, const WideTsWindow *window)
{
	WideReverseReader *r = palloc0(sizeof(WideReverseReader));

	r->rel = rel;
	r->snapshot = snapshot;
	r->now = now;
	r->state = state;
	r->cells_forward = cells_forward;
	if (window)
	{
		r->has_window = true;
		r->window = *window;
	}
	initStringInfo(&r->hi);
	initStringInfo(&r->bound);
	initStringInfo(&r->cand);
	r->rangecxt = AllocSetContextCreate(CurrentMemoryContext, "wide reverse range",
										ALLOCSET_SMALL_SIZES);
	r->wincxt = AllocSetContextCreate(CurrentMemoryContext, "wide reverse window",
									  ALLOCSET_DEFAULT_SIZES);
	r->maxcells = 32;			/* (grows: a LIMIT read needs few) */
	r->cells = palloc(sizeof(WideCell) * r->maxcells);
	r->lastbi.cxt = CurrentMemoryContext;
	return r;
}

/*
 * WideReverseBegin -- start reading the cells of a range (NULL: all)
 * backwards; with a window, only the cells whose timestamp lies in it
 * (reader.c: WideReaderBeginTs).
 */
WideReverseReader *
WideReverseBegin(Relation rel, Snapshot snapshot, int64 now,
				 const WideKeyRange *range, bool cells_forward,
				 const WideTsWindow *window)
{
	WideReverseReader *r;
	WideReadState *state = NULL;

	if (!(range && range->is_point))
		state = WideReadStateBegin(rel, snapshot, range);
	r = reverse_new(rel, snapshot, now, state, cells_forward, window);
	r->own_state = (state != NULL);
	set_range(r, range);
	return r;
}

/*
 * WideReverseBeginAt -- as WideReverseBegin, reading the given state of
 * the table (WideReadStateBegin of rel and snapshot, over a range that
 * holds this one and every one WideReverseRestart will give; the caller
 * ends it, after the reader): a scan that reads many ranges of one state
 * backwards, one after the other, gathers its write-area records once.
 */
WideReverseReader *
WideReverseBeginAt(Relation rel, Snapshot snapshot, WideReadState *state,
				   int64 now, const WideKeyRange *range, bool cells_forward,
				   const WideTsWindow *window)
{
	WideReverseReader *r = reverse_new(rel, snapshot, now, state, cells_forward,
									   window);

	set_range(r, range);
	return r;
}

/*
 * WideReverseRestart -- read another range backwards from its end (of the
 * state a WideReverseBeginAt reader was given), as a new reader would,
 * reusing this one's memory.
 */
void
WideReverseRestart(WideReverseReader *r, int64 now, const WideKeyRange *range)
{
	Assert(!r->own_state);
	MemoryContextReset(r->wincxt);
	r->now = now;
	memset(&r->stats, 0, sizeof(r->stats));
	set_range(r, range);
}

/* keep the greater of bound and cand */
static void
take_greater(WideReverseReader *r, bool *have)
{
	if (!*have ||
		WideKeyCompare(r->cand.data, r->cand.len, r->bound.data, r->bound.len) > 0)
	{
		resetStringInfo(&r->bound);
		appendBinaryStringInfo(&r->bound, r->cand.data, r->cand.len);
		*have = true;
	}
}

/* the next window's lower bound (exclusive) into r->bound; false if none */
static bool
window_start(WideReverseReader *r)
{
	WideKeyRange upto;
	bool		have = false;
	int			lo = 0,
				hi,
				i;

	locate(r);
	hi = r->nwakeys;
	/* the runs that hold rows <= hi */
	memset(&upto, 0, sizeof(upto));
	upto.has_end = r->has_hi;
	upto.end = r->hi.data;
	upto.endlen = r->hi.len;
	upto.end_incl = r->hi_incl;
	for (i = 0; i < r->nruns; i++)
		if (WideRunOverlapsRange(&r->runs[i], &upto) &&
			WideSegmentWindowStart(r->rel, &r->runs[i],
								   r->has_hi ? r->hi.data : NULL, r->hi.len,
								   r->hi_incl, r->runrows, &r->cand))
			take_greater(r, &have);

	/* the write area: the K-th row key below hi */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (!WideRowAfterRange(&upto, r->wakeys[mid], r->walens[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > r->warows)
	{
		i = lo - r->warows - 1;
		resetStringInfo(&r->cand);
		appendBinaryStringInfo(&r->cand, r->wakeys[i], r->walens[i]);
		take_greater(r, &have);
	}
	r->warows = Min(r->warows * 2, REVERSE_WA_ROWS);
	r->runrows *= REVERSE_RUN_GROWTH;
	if (r->runrows > REVERSE_RUN_MAX)
		r->runrows = 0;
	return have;
}

/* copy len bytes into the window, or reuse prev if it holds the same */
static const char *
window_copy(const char *p, uint32 len, const char *prev, uint32 prevlen)
{
	char	   *c;

	if (p == NULL)
		return NULL;
	if (prev != NULL && prevlen == len && memcmp(prev, p, len) == 0)
		return prev;
	c = palloc(Max(len, 1));
	memcpy(c, p, len);
	return c;
}

/* a cell of the window read, copied into it (in wincxt) */
static bool
window_add(const WideCell *cell, void *arg)
{
	WideReverseReader *r = (WideReverseReader *) arg;
	WideCell   *c;
	const WideCell *prev = r->ncells > 0 ? &r->cells[r->ncells - 1] : NULL;

	if (r->ncells == r->maxcells)
	{
		/* (repalloc keeps the array in the reader's context) */
		r->maxcells *= 2;
		r->cells = repalloc(r->cells, sizeof(WideCell) * r->maxcells);
		prev = &r->cells[r->ncells - 1];
	}
	c = &r->cells[r->ncells++];
	*c = *cell;
	c->key = window_copy(cell->key, cell->keylen,
						 prev ? prev->key : NULL, prev ? prev->keylen : 0);
	c->family = window_copy(cell->family, cell->famlen,
							prev ? prev->family : NULL, prev ? prev->famlen : 0);
	c->qual = window_copy(cell->qual, cell->quallen, NULL, 0);
	c->value = window_copy(cell->value, cell->vallen, NULL, 0);
	c->key_datum = c->qual_datum = c->value_datum = NULL;
	return true;
}

/*
 * a cell of the row WideReadStateLastRow reads, copied into the window as
 * window_add does, in fewer allocations: the cells are of one row, so its
 * key is copied once, and a cell's qualifier and value share one
 */
static bool
last_row_add(const WideCell *cell, void *arg)
{
	WideReverseReader *r = (WideReverseReader *) arg;
	WideCell   *c;
	const WideCell *prev;
	char	   *buf;

	if (r->ncells == 0)
		return window_add(cell, arg);
	if (r->ncells == r->maxcells)
	{
		r->maxcells *= 2;
		r->cells = repalloc(r->cells, sizeof(WideCell) * r->maxcells);
	}
	prev = &r->cells[r->ncells - 1];
	c = &r->cells[r->ncells++];
	*c = *cell;
	Assert(WideBytesEqual(cell->key, cell->keylen, prev->key, prev->keylen));
	c->key = prev->key;
	c->family = window_copy(cell->family, cell->famlen, prev->family, prev->famlen);
	buf = palloc(Max(cell->quallen + (cell->value ? cell->vallen : 0), 1));
	memcpy(buf, cell->qual, cell->quallen);
	c->qual = buf;
	c->value = NULL;
	if (cell->value != NULL)
	{
		memcpy(buf + cell->quallen, cell->value, cell->vallen);
		c->value = buf + cell->quallen;
	}
	c->key_datum = c->qual_datum = c->value_datum = NULL;
	return true;
}

/*
 * The first window of a range: its last row alone, read straight from its
 * block where the state allows (reader.c: WideReadStateLastRow) -- a
 * backward LIMIT 1 read ends there.  True if that decided the window (its
 * cells read, or none left: r->exhausted); false: read it as a window.
 */
static bool
last_row_window(WideReverseReader *r)
{
	int			res;

	if (r->runrows != REVERSE_RUN_FIRST || r->state == NULL || r->has_window)
		return false;
	res = WideReadStateLastRow(r->state, r->now, &r->range,
							   r->has_hi ? r->hi.data : NULL, r->hi.len,
							   r->hi_incl, &r->lastbi, last_row_add, r, &r->stats);
	if (res < 0)
	{
		r->ncells = 0;
		return false;
	}
	if (res == 0)
	{
		r->exhausted = true;
		return true;
	}
	/* the next window: the rows below this one */
	resetStringInfo(&r->hi);
	appendBinaryStringInfo(&r->hi, r->cells[0].key, r->cells[0].keylen);
	r->has_hi = true;
	r->hi_incl = false;
	r->warows = Min(r->warows * 2, REVERSE_WA_ROWS);
	r->runrows *= REVERSE_RUN_GROWTH;
	r->stats.rows_direct++;
	return true;
}

/* read the next window that holds cells; false at the start of the range */
static bool
next_window(WideReverseReader *r)
{
	MemoryContext old;

	r->ncells = 0;
	while (r->ncells == 0)
	{
		WideKeyRange w;
		WideReader *reader;
		const WideCell *cell;
		WideReaderStats st;

		if (r->exhausted)
			return false;
		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(r->wincxt);
		old = MemoryContextSwitchTo(r->wincxt);

		/* (lo, hi], or the rest of the range */
		w = r->range;
		if (r->has_hi)
		{
			w.has_end = true;
			w.end = copy_key(r->hi.data, r->hi.len);
			w.endlen = r->hi.len;
			w.end_incl = r->hi_incl;
			if (WideRowBeforeRange(&r->range, w.end, w.endlen))
			{
				/* hi lies before the range: nothing is left */
				r->exhausted = true;
				MemoryContextSwitchTo(old);
				return false;
			}
		}
		if (last_row_window(r))
		{
			MemoryContextSwitchTo(old);
			continue;			/* (its row, or none and exhausted) */
		}
		if (window_start(r) && !WideRowBeforeRange(&r->range, r->bound.data,
												   r->bound.len))
		{
			w.has_start = true;
			w.start = copy_key(r->bound.data, r->bound.len);
			w.startlen = r->bound.len;
			w.start_incl = false;
			w.is_point = false;
			resetStringInfo(&r->hi);
			appendBinaryStringInfo(&r->hi, r->bound.data, r->bound.len);
			r->has_hi = true;
			r->hi_incl = true;
		}
		else
			r->exhausted = true;

		/* read it forward, keeping its cells */
		reader = r->state ?
			WideReaderBeginAt(r->state, r->now, &w, r->has_window ? &r->window : NULL) :
			WideReaderBeginTs(r->rel, r->snapshot, r->now, &w,
							  r->has_window ? &r->window : NULL);
		while ((cell = WideReaderNext(reader)) != NULL)
			(void) window_add(cell, r);
		st = WideReaderGetStats(reader);
		WideReaderEnd(reader);
		MemoryContextSwitchTo(old);
		r->stats.wa_records += st.wa_records;
		r->stats.runs_read += st.runs_read;
		r->stats.blocks_read += st.blocks_read;
		r->stats.blocks_kept += st.blocks_kept;
		r->stats.records += st.records;
		r->stats.blocks_skipped += st.blocks_skipped;
		r->stats.index_skipped += st.index_skipped;
	}
	r->pos = r->ncells;
	r->rowstart = r->rowend = r->ncells;
	return true;
}

/*
 * WideReverseNext -- the next cell going backwards, with its value, or NULL
 * at the start of the range; it stays valid until the next call.
 */
const WideCell *
WideReverseNext(WideReverseReader *r)
{
	const WideCell *c;

	if (!r->cells_forward)
	{
		if (r->pos == 0 && !next_window(r))
			return NULL;
		c = &r->cells[--r->pos];
	}
	else
	{
		/* rows backwards, each row's cells forward */
		if (r->pos == r->rowend)
		{
			if (r->rowstart == 0 && !next_window(r))
				return NULL;
			r->rowend = r->rowstart;
			r->rowstart = r->rowend - 1;
			while (r->rowstart > 0 &&
				   WideKeyCompare(r->cells[r->rowstart - 1].key,
								  r->cells[r->rowstart - 1].keylen,
								  r->cells[r->rowend - 1].key,
								  r->cells[r->rowend - 1].keylen) == 0)
				r->rowstart--;
			r->pos = r->rowstart;
		}
		c = &r->cells[r->pos++];
	}
	r->stats.cells++;
	return c;
}

/* WideReverseLastRow's wrapper of its caller's function */
typedef struct LastRowFn
{
	WideReverseReader *r;
	bool		(*fn) (const WideCell *cell, void *arg);
	void	   *arg;
	bool		first;			/* no cell given yet */
} LastRowFn;

static bool
last_row_fn(const WideCell *cell, void *arg)
{
	LastRowFn  *f = (LastRowFn *) arg;
	WideReverseReader *r = f->r;

	/* (the row's key, where the next window ends; not in hi: in use) */
	if (f->first)
	{
		resetStringInfo(&r->bound);
		appendBinaryStringInfo(&r->bound, cell->key, cell->keylen);
		f->first = false;
	}
	r->stats.cells++;
	return f->fn(cell, f->arg);
}

/*
 * WideReverseLastRow -- at the start of a range (after WideReverseBeginAt
 * or WideReverseRestart, no cell read yet), the cells of its last row,
 * given to fn one by one in the order WideReverseNext gives them with
 * cells_forward, straight from the block that holds the row where the
 * state allows (reader.c: WideReadStateLastRow): no window, no copy.  A
 * cell is valid during its call only.  Returns 1 once the row's cells
 * were given (WideReverseNext then goes on with the rows below it), 0 if
 * the range holds no row (WideReverseNext returns NULL), and -1 where this
 * way cannot tell (fn returned false, or the state does not allow it):
 * the cells given so far are void, and the reader is as it was.
 */
int
WideReverseLastRow(WideReverseReader *r,
				   bool (*fn) (const WideCell *cell, void *arg), void *arg)
{
	LastRowFn	f;
	int			res;

	if (!r->cells_forward || r->runrows != REVERSE_RUN_FIRST ||
		r->state == NULL || r->has_window || r->exhausted ||
		r->ncells > 0 || r->stats.cells > 0 ||
		(r->has_hi && WideRowBeforeRange(&r->range, r->hi.data, r->hi.len)))
		return -1;
	f.r = r;
	f.fn = fn;
	f.arg = arg;
	f.first = true;
	res = WideReadStateLastRow(r->state, r->now, &r->range,
							   r->has_hi ? r->hi.data : NULL, r->hi.len,
							   r->hi_incl, &r->lastbi, last_row_fn, &f, &r->stats);
	if (res < 0)
	{
		r->stats.cells = 0;
		return -1;
	}
	if (res == 0)
	{
		r->exhausted = true;
		return 0;
	}
	/* the next window: the rows below this one (as last_row_window) */
	resetStringInfo(&r->hi);
	appendBinaryStringInfo(&r->hi, r->bound.data, r->bound.len);
	r->has_hi = true;
	r->hi_incl = false;
	r->warows = Min(r->warows * 2, REVERSE_WA_ROWS);
	r->runrows *= REVERSE_RUN_GROWTH;
	r->stats.rows_direct++;
	return 1;
}

/*
 * WideReverseRowDone -- with cells_forward, whether the cell returned last
 * was the last of its row: a caller that assembles rows knows the row is
 * whole without asking for the next cell, which may read another window.
 */
bool
WideReverseRowDone(const WideReverseReader *r)
{
	return r->cells_forward && r->ncells > 0 && r->pos == r->rowend;
}

/*
 * WideReverseGetStats -- what the reader has done so far.
 */
WideReaderStats
WideReverseGetStats(const WideReverseReader *r)
{
	return r->stats;
}

/*
 * WideReverseEnd -- release the reader.
 */
void
WideReverseEnd(WideReverseReader *r)
{
	MemoryContextDelete(r->wincxt);
	MemoryContextDelete(r->rangecxt);
	WideBlockIterEnd(&r->lastbi);
	if (r->own_state)
		WideReadStateEnd(r->state);
	pfree(r->cells);
	pfree(r);
}
