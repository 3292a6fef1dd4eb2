/*-------------------------------------------------------------------------
 *
 * iterator.c
 *	  The merging iterator: one ordered stream out of many sorted sources.
 *
 * Sources are the sorted write area and one iterator per run.  The merge
 * keeps a binary heap of sources ordered by their current record (cell.c
 * order); of two equal records the newer source's comes first.  A returned
 * record stays valid until the next call: the source it came from is
 * advanced only then.
 *
 * A reader that wants no more records of a column (only the newest cell of
 * each: reader.c) asks WideMergeIterNextAfter for the first record after
 * it: every source whose current record is of that column steps past the
 * column, with its own skip (a run's iterator steps over the rest of the
 * column in a data block without decoding it) or record by record.
 *
 * IDENTIFICATION
 *	  src/engine/iterator.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "engine/cell.h"
#include "engine/sort.h"

typedef struct Source
{
	WideSourceNext next;
	WideSourceSkip skip;		/* or NULL: next() until past the column */
	void	   *arg;
	int			order;			/* larger: newer */
	WideCell	cur;
} Source;

struct WideMergeIter
{
	Source	   *src;
	int			nsrc;
	int		   *heap;			/* indexes into src */
	int			nheap;
	int			returned;		/* source of the last record, or -1 */
	int			last;			/* source of the record before, or -1 */
	uint64		skipped;		/* records stepped over by NextAfter */
};

/* does source a come before source b? */
static bool
before(const WideMergeIter *m, int a, int b)
{
	int			r = WideCellCompare(&m->src[a].cur, &m->src[b].cur);

	if (r != 0)
		return r < 0;
	return m->src[a].order > m->src[b].order;
}

static void
sift_down(WideMergeIter *m, int i)
{
	for (;;)
	{
		int			l = 2 * i + 1;
		int			r = l + 1;
		int			best = i;
		int			tmp;

		if (l < m->nheap && before(m, m->heap[l], m->heap[best]))
			best = l;
		if (r < m->nheap && before(m, m->heap[r], m->heap[best]))
			best = r;
		if (best == i)
			return;
		tmp = m->heap[i];
		m->heap[i] = m->heap[best];
		m->heap[best] = tmp;
		i = best;
	}
}

/*
 * WideMergeIterCreate -- an empty merge; add sources, then read.
 */
WideMergeIter *
WideMergeIterCreate(int maxsources)
{
	WideMergeIter *m = palloc0(sizeof(WideMergeIter));

	m->src = palloc(sizeof(Source) * Max(maxsources, 1));
	m->heap = palloc(sizeof(int) * Max(maxsources, 1));
	m->returned = -1;
	m->last = -1;
	return m;
}

/*
 * WideMergeIterAdd -- add a source; "order" ranks it among the others
 * (larger is newer).  Sources are added before the first read.
 */
void
WideMergeIterAdd(WideMergeIter *m, WideSourceNext next, void *arg, int order)
{
	WideMergeIterAddSkippable(m, next, NULL, arg, order);
}

/*
 * WideMergeIterAddSkippable -- add a source that can step past a column
 * faster than record by record (see WideMergeIterNextAfter).
 */
void
WideMergeIterAddSkippable(WideMergeIter *m, WideSourceNext next,
						  WideSourceSkip skip, void *arg, int order)
{
	Source	   *s = &m->src[m->nsrc];
	int			i;

	s->next = next;
	s->skip = skip;
	s->arg = arg;
	s->order = order;
	if (!next(arg, &s->cur))
	{
		m->nsrc++;
		return;
	}
	m->heap[m->nheap++] = m->nsrc++;
	/* sift up */
	for (i = m->nheap - 1; i > 0;)
	{
		int			parent = (i - 1) / 2;
		int			tmp;

		if (!before(m, m->heap[i], m->heap[parent]))
			break;
		tmp = m->heap[i];
		m->heap[i] = m->heap[parent];
		m->heap[parent] = tmp;
		i = parent;
	}
}

/*
 * WideMergeIterNext -- the next record of all sources, in order, or NULL.
 * It stays valid until the next call.
 */
const WideCell *
WideMergeIterNext(WideMergeIter *m)
{
	WideCell   *cell;

	if (m->returned >= 0)
	{
		Source	   *s = &m->src[m->returned];

		Assert(m->heap[0] == m->returned);
		if (!s->next(s->arg, &s->cur))
		{
			m->heap[0] = m->heap[--m->nheap];
			if (m->nheap > 0)
				sift_down(m, 0);
		}
		else if (m->nheap > 1)
			sift_down(m, 0);
		m->returned = -1;
	}
	if (m->nheap == 0)
		return NULL;
	m->returned = m->heap[0];
	cell = &m->src[m->returned].cur;
	/* "same as the previous record" holds only within one source */
	if (m->returned != m->last)
		cell->same = 0;
	m->last = m->returned;
	return cell;
}

/*
 * WideMergeIterPeekOther -- the smallest current record of the sources
 * other than the one whose record WideMergeIterNext returned last (NULL if
 * they are all exhausted): what would come next if that source had nothing
 * more before it.
 */
const WideCell *
WideMergeIterPeekOther(const WideMergeIter *m)
{
	int			best = -1;

	Assert(m->returned >= 0 && m->heap[0] == m->returned);
	if (m->nheap > 1)
		best = m->heap[1];
	if (m->nheap > 2 && before(m, m->heap[2], m->heap[1]))
		best = m->heap[2];
	return best >= 0 ? &m->src[best].cur : NULL;
}

/*
 * WideMergeIterReturnedArg -- the "arg" of the source whose record
 * WideMergeIterNext returned last.
 */
void *
WideMergeIterReturnedArg(const WideMergeIter *m)
{
	Assert(m->returned >= 0);
	return m->src[m->returned].arg;
}

/* is record c of column col (row, family and qualifier)? */
static inline bool
in_column(const WideCell *c, const WideCell *col)
{
	return c->kind >= WIDE_KIND_DEL_CELLS && WideCellSameColumn(c, col);
}

/* step source s, whose current record is of column col, past the column */
static bool
skip_source(WideMergeIter *m, Source *s, const WideCell *col)
{
	if (s->skip)
		return s->skip(s->arg, col, &s->cur);
	for (;;)
	{
		if (!s->next(s->arg, &s->cur))
			return false;
		if (!in_column(&s->cur, col))
			return true;
		m->skipped++;
	}
}

/*
 * WideMergeIterNextAfter -- WideMergeIterNext, but none of the records of
 * column col (a copy of the coordinates of a record returned before, not
 * pointing into the sources) is returned: the sources step past it.
 */
const WideCell *
WideMergeIterNextAfter(WideMergeIter *m, const WideCell *col)
{
	int			i,
				n = 0;

	if (m->returned >= 0)
	{
		Source	   *s = &m->src[m->returned];

		/* (a record of a later column has every source past col) */
		if (!(in_column(&s->cur, col) ? skip_source(m, s, col) :
			  s->next(s->arg, &s->cur)))
			s->order = -1;		/* exhausted: leaves the heap below */
		m->returned = -1;
	}
	/* every other source whose current record is of the column steps past */
	for (i = 0; i < m->nheap; i++)
	{
		Source	   *s = &m->src[m->heap[i]];

		if (s->order >= 0 && in_column(&s->cur, col) && !skip_source(m, s, col))
			s->order = -1;
		if (s->order >= 0)
			m->heap[n++] = m->heap[i];
	}
	m->nheap = n;
	for (i = m->nheap / 2 - 1; i >= 0; i--)
		sift_down(m, i);
	/* hints are relative to records of a source no longer returned */
	m->last = -1;
	if (m->nheap == 0)
		return NULL;
	return WideMergeIterNext(m);
}

/*
 * WideMergeIterSkipped -- records WideMergeIterNextAfter stepped over one by
 * one (a source's own skip counts its own).
 */
uint64
WideMergeIterSkipped(const WideMergeIter *m)
{
	return m->skipped;
}
