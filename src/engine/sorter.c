/*-------------------------------------------------------------------------
 *
 * sorter.c
 *	  Sorting records into cell order.
 *
 * The write area is unsorted; a reader copies the records it can see into
 * a sorter, which returns them in the order of cell.c.  Records with equal
 * order keys (concurrent writes of the same cell that drew the same
 * sequence number) are ordered by their value bytes, so that every reader,
 * and every later compaction, picks the same winner.
 *
 * IDENTIFICATION
 *	  src/engine/sorter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "wide.h"

struct WideSorter
{
	MemoryContext cxt;
	WideCell  **cells;
	int64		ncells;
	int64		maxcells;
	int64		next;
};

/*
 * WideCellCompareStable -- WideCellCompare, ties broken by value bytes.
 */
int
WideCellCompareStable(const WideCell *a, const WideCell *b)
{
	int			r = WideCellCompare(a, b);

	if (r != 0 || a->value == NULL || b->value == NULL)
		return r;
	return -WideKeyCompare(a->value, a->vallen, b->value, b->vallen);
}

static int
cmp_cellp(const void *a, const void *b)
{
	return WideCellCompareStable(*(WideCell *const *) a,
								 *(WideCell *const *) b);
}

/*
 * WideSorterBegin -- a new, empty sorter.
 */
WideSorter *
WideSorterBegin(void)
{
	WideSorter *s = palloc0(sizeof(WideSorter));

	s->cxt = AllocSetContextCreate(CurrentMemoryContext, "wide sorter",
								   ALLOCSET_DEFAULT_SIZES);
	s->maxcells = 1024;
	s->cells = MemoryContextAlloc(s->cxt, sizeof(WideCell *) * s->maxcells);
	return s;
}

/*
 * WideSorterAdd -- copy a record into the sorter.
 */
void
WideSorterAdd(WideSorter *s, const WideCell *cell)
{
	Size		body = cell->keylen + cell->famlen + cell->quallen +
		(cell->value ? cell->vallen : 0);
	WideCell   *c;
	char	   *p;

	if (s->ncells == s->maxcells)
	{
		s->maxcells *= 2;
		s->cells = repalloc_huge(s->cells, sizeof(WideCell *) * s->maxcells);
	}
	c = MemoryContextAlloc(s->cxt, sizeof(WideCell) + body);
	*c = *cell;
	p = (char *) (c + 1);
	memcpy(p, cell->key, cell->keylen);
	c->key = p;
	p += cell->keylen;
	memcpy(p, cell->family, cell->famlen);
	c->family = p;
	p += cell->famlen;
	memcpy(p, cell->qual, cell->quallen);
	c->qual = p;
	p += cell->quallen;
	if (cell->value)
	{
		memcpy(p, cell->value, cell->vallen);
		c->value = p;
	}
	s->cells[s->ncells++] = c;
}

/*
 * WideSorterDone -- no more records: sort.
 */
void
WideSorterDone(WideSorter *s)
{
	qsort(s->cells, s->ncells, sizeof(WideCell *), cmp_cellp);
	s->next = 0;
}

/*
 * WideSorterNext -- the next record in order; its memory belongs to the
 * sorter and lives until WideSorterEnd.
 */
bool
WideSorterNext(WideSorter *s, WideCell *cell)
{
	if (s->next >= s->ncells)
		return false;
	*cell = *s->cells[s->next++];
	return true;
}

/*
 * WideSorterEnd -- release everything.
 */
void
WideSorterEnd(WideSorter *s)
{
	MemoryContextDelete(s->cxt);
	pfree(s);
}
