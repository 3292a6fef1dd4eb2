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
	Source	   *s = &m->src[m->nsrc];
	int			i;

	s->next = next;
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
