/*-------------------------------------------------------------------------
 *
 * sorter.c
 *	  Sorting records into cell order.
 *
 * The write area is unsorted, and so are the rows of a bulk load; a
 * sorter copies records into its own memory and returns them in the order
 * of cell.c.  Records with equal order keys (concurrent writes of the same
 * cell that drew the same sequence number) are ordered by their value
 * bytes, so that every reader, and every later compaction, picks the same
 * winner.
 *
 * Records are packed into large chunks (a bump allocator); WideSorterReset
 * keeps the chunks for the next batch, so a bulk load reuses the same
 * memory for every run it writes.
 *
 * IDENTIFICATION
 *	  src/engine/sorter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "engine/cell.h"
#include "engine/sort.h"

#define CHUNK_SIZE		(1024 * 1024)

typedef struct Chunk
{
	struct Chunk *next;
	Size		size;
	Size		used;
	char		data[FLEXIBLE_ARRAY_MEMBER];
} Chunk;

struct WideSorter
{
	MemoryContext cxt;
	Chunk	   *chunks;			/* all chunks */
	Chunk	   *cur;			/* the one being filled */
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
 * WideSorterBegin -- a new, empty sorter, in the current memory context.
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

/* a new chunk for at least size bytes, linked after "after" (or first) */
static Chunk *
new_chunk(WideSorter *s, Chunk *after, Size size)
{
	Size		csize = Max(CHUNK_SIZE, size + offsetof(Chunk, data));
	Chunk	   *n = MemoryContextAllocHuge(s->cxt, csize);

	n->size = csize - offsetof(Chunk, data);
	n->used = 0;
	if (after == NULL)
	{
		n->next = s->chunks;
		s->chunks = n;
	}
	else
	{
		n->next = after->next;
		after->next = n;
	}
	return n;
}

/* bump-allocate size bytes (MAXALIGNed) */
static char *
sorter_alloc(WideSorter *s, Size size)
{
	Chunk	   *c = s->cur;

	size = MAXALIGN(size);
	if (c == NULL)
		c = s->chunks ? s->chunks : new_chunk(s, NULL, size);
	while (c->used + size > c->size)
	{
		if (c->next != NULL)
		{
			c = c->next;
			c->used = 0;
		}
		else
			c = new_chunk(s, c, size);
	}
	s->cur = c;
	c->used += size;
	return c->data + c->used - size;
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
	c = (WideCell *) sorter_alloc(s, sizeof(WideCell) + body);
	*c = *cell;
	c->key_datum = c->qual_datum = c->value_datum = NULL;
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
 * WideSorterCells -- the records added so far: in the order they were
 * added before WideSorterDone, sorted after it; they belong to the sorter.
 */
WideCell  **
WideSorterCells(WideSorter *s, int64 *n)
{
	*n = s->ncells;
	return s->cells;
}

/*
 * WideSorterBytes -- memory the sorter holds.
 */
Size
WideSorterBytes(WideSorter *s)
{
	return MemoryContextMemAllocated(s->cxt, true);
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
 * sorter and lives until WideSorterReset or WideSorterEnd.
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
 * WideSorterNextInRange -- the next record whose row lies in the range,
 * skipping those before it; false, without consuming it, at a record after
 * it.  Successive ranges must be ascending.
 */
bool
WideSorterNextInRange(WideSorter *s, const WideKeyRange *r, WideCell *cell)
{
	while (s->next < s->ncells)
	{
		const WideCell *c = s->cells[s->next];

		if (WideRowAfterRange(r, c->key, c->keylen))
			return false;
		s->next++;
		if (WideRowBeforeRange(r, c->key, c->keylen))
			continue;
		*cell = *c;
		return true;
	}
	return false;
}

/*
 * WideSorterPeekInRange -- is the next record (after those before the
 * range, which are skipped) in the range?  It is not consumed.
 */
bool
WideSorterPeekInRange(WideSorter *s, const WideKeyRange *r)
{
	while (s->next < s->ncells)
	{
		const WideCell *c = s->cells[s->next];

		if (!WideRowBeforeRange(r, c->key, c->keylen))
			return !WideRowAfterRange(r, c->key, c->keylen);
		s->next++;
	}
	return false;
}

/*
 * WideSorterReset -- empty the sorter, keeping its memory for reuse.
 */
void
WideSorterReset(WideSorter *s)
{
	s->ncells = 0;
	s->next = 0;
	s->cur = s->chunks;
	if (s->cur)
		s->cur->used = 0;
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
