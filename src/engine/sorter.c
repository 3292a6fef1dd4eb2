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
 * Rows arrive whole.  A reading, a mutation of a row, a row of the row
 * form: consecutive records usually share their row key (a TSBS reading is
 * ten cells of one row).  WideSorterAdd notes such runs of one row key as
 * *groups*; WideSorterDone sorts the groups by row key (16 bytes of the
 * key after the prefix all keys of the batch share, as two big-endian
 * integers, decide most comparisons without touching the record: the row
 * form's keys share their first 15 digits, and its host and time parts
 * fit in the next 16 bytes), then sorts the records of each row key (the groups of one key
 * together, when a row came back later) with the full order, by binary
 * insertion when they are few.  Since the full order sorts by row key
 * first, the result is the same as sorting all records with it, at a
 * tenth of the comparisons when rows have ten cells.
 *
 * What can be learnt of a group while its records are in the cache is
 * learnt then, not in a pass over every record after the whole batch (64 MB
 * of a COPY, long out of the cache): its key's bytes after the common part
 * (set again for all groups only if that part shrinks after the first
 * PREFIX_REDO_GROUPS), and whether its records came in the full order,
 * strictly (each compared with the one before as it is added); a row key
 * whose only group did is not sorted again.  The records of a group share
 * its first record's copy of the key.
 *
 * IDENTIFICATION
 *	  src/engine/sorter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "engine/cell.h"
#include "engine/coding.h"
#include "engine/sort.h"

#define CHUNK_SIZE		(1024 * 1024)

/* consecutive records of one row key, cells[first .. first + n) */
typedef struct Group
{
	uint64		prefix;			/* the key's bytes [common, common + 8) and */
	uint64		prefix2;		/* [common + 8, common + 16), big-endian,
								 * 0-padded (WideSorterDone) */
	const char *key;
	uint32		keylen;
	uint32		n;
	bool		ordered;		/* each record before the next, strictly */
	int64		first;
} Group;

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
	Group	   *groups;
	int64		ngroups;
	int64		maxgroups;
	bool		ungrouped;		/* records added before a WideSorterDone */
	uint32		common;			/* bytes all groups' keys share */
	bool		prefixes_stale; /* common shrank late: groups' prefixes
								 * are set again at WideSorterDone */

	/* WideSorterRows: the sorted records' row keys (after WideSorterDone) */
	int64	   *row_first;		/* the index of each row's first record */
	uint32	   *row_lcp;		/* the bytes its key shares with the one before */
	int64		nrows;
	int64		maxrows;
	int64		row_group;		/* (the last row's first group) */
};

/* groups whose prefixes are set again at once when the common part shrinks */
#define PREFIX_REDO_GROUPS	1024

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

/* WideCellCompareStable of two records of one row key */
static inline int
compare_in_row(const WideCell *a, const WideCell *b)
{
	int			r = WideCellCompareInRow(a, b);

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
	s->maxgroups = 1024;
	s->groups = MemoryContextAlloc(s->cxt, sizeof(Group) * s->maxgroups);
	s->nrows = -1;
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

/* a group's 16 bytes after the common part, as two big-endian integers */
static inline void
set_prefix(Group *g, uint32 common)
{
	uint64		p[2] = {0, 0};

	memcpy(p, g->key + common, Min(g->keylen - common, sizeof(p)));
	g->prefix = pg_ntoh64(p[0]);
	g->prefix2 = pg_ntoh64(p[1]);
}

/*
 * WideSorterAdd -- copy a record into the sorter.  A record of the row
 * key of the record before (one more of its group) shares that record's
 * copy of the key; and it is compared with that record while both are in
 * the cache, so that WideSorterDone need not touch a group whose records
 * came in order (a row form's reading: ten columns in qualifier order).
 */
void
WideSorterAdd(WideSorter *s, const WideCell *cell)
{
	Group	   *g = s->ngroups > 0 ? &s->groups[s->ngroups - 1] : NULL;
	bool		same_row = g != NULL && g->first + g->n == s->ncells &&
		WideBytesEqual(g->key, g->keylen, cell->key, cell->keylen);
	Size		body = (same_row ? 0 : cell->keylen) + cell->famlen + cell->quallen +
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
	if (same_row)
		c->key = g->key;
	else
	{
		memcpy(p, cell->key, cell->keylen);
		c->key = p;
		p += cell->keylen;
	}
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

	/* the row key of the record before: one more record of its group */
	if (same_row)
	{
		if (g->ordered && compare_in_row(s->cells[s->ncells - 1], c) >= 0)
			g->ordered = false;
		g->n++;
		s->cells[s->ncells++] = c;
		return;
	}
	if (s->ngroups == s->maxgroups)
	{
		s->maxgroups *= 2;
		s->groups = repalloc_huge(s->groups, sizeof(Group) * s->maxgroups);
	}
	/*
	 * the part of the key all groups share, and this group's bytes after it,
	 * while the key is in the cache (the first few groups are set again when
	 * the common part shrinks, later ones at WideSorterDone)
	 */
	if (s->ngroups == 0)
	{
		s->common = c->keylen;
		s->prefixes_stale = false;
	}
	else
	{
		uint32		lcp = common_prefix(s->groups[0].key, Min(s->groups[0].keylen, s->common),
										c->key, c->keylen);

		if (lcp < s->common)
		{
			s->common = lcp;
			if (s->ngroups <= PREFIX_REDO_GROUPS)
				for (int64 i = 0; i < s->ngroups; i++)
					set_prefix(&s->groups[i], lcp);
			else
				s->prefixes_stale = true;
		}
	}
	g = &s->groups[s->ngroups++];
	g->key = c->key;
	g->keylen = c->keylen;
	g->n = 1;
	g->first = s->ncells;
	g->ordered = true;
	set_prefix(g, s->common);
	s->cells[s->ncells++] = c;
}

/* groups by row key; equal keys stay adjacent, in any order */
static inline int
cmp_group(const Group *a, const Group *b)
{
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	if (a->prefix2 != b->prefix2)
		return a->prefix2 < b->prefix2 ? -1 : 1;
	return WideKeyCompare(a->key, a->keylen, b->key, b->keylen);
}

#define ST_SORT sort_groups
#define ST_ELEMENT_TYPE Group
#define ST_COMPARE(a, b) cmp_group(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * set_prefixes -- each group's 16 bytes after the prefix every key shares
 * (equal keys compare equal; where those bytes tie, the keys decide), when
 * WideSorterAdd could not keep them
 */
static void
set_prefixes(Group *groups, int64 n)
{
	uint32		common = groups[0].keylen;
	int64		i;

	for (i = 1; i < n && common > 0; i++)
	{
		uint32		j = 0;
		uint32		lim = Min(common, groups[i].keylen);

		while (j < lim && groups[i].key[j] == groups[0].key[j])
			j++;
		common = j;
	}
	for (i = 0; i < n; i++)
		set_prefix(&groups[i], common);
}

/* sort n records (of one row key when in_row) in the full order */
static void
sort_row(WideCell **cells, int64 n, bool in_row)
{
	int64		i;

	if (n > 32 || !in_row)
	{
		qsort(cells, n, sizeof(WideCell *), cmp_cellp);
		return;
	}
	/* binary insertion: few comparisons, a memmove of pointers */
	for (i = 1; i < n; i++)
	{
		WideCell   *c = cells[i];
		int64		lo = 0;
		int64		hi = i;

		if (compare_in_row(cells[i - 1], c) <= 0)
			continue;
		while (lo < hi)
		{
			int64		mid = (lo + hi) / 2;

			if (compare_in_row(cells[mid], c) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		memmove(&cells[lo + 1], &cells[lo], sizeof(WideCell *) * (i - lo));
		cells[lo] = c;
	}
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
 * row_lcp -- the bytes the keys of sorted groups a and b share: from the
 * groups' prefixes, which hold the 16 bytes after the common part, when
 * they differ there (as a host's keys do from the next host's), else from
 * the keys' bytes
 */
static uint32
row_lcp(const Group *groups, int64 a, int64 b, uint32 common)
{
	const Group *x = &groups[a];
	const Group *y = &groups[b];
	uint32		lcp;

	if (x->prefix != y->prefix)
		lcp = common + (63 - pg_leftmost_one_pos64(x->prefix ^ y->prefix)) / 8;
	else if (x->prefix2 != y->prefix2)
		lcp = common + 8 + (63 - pg_leftmost_one_pos64(x->prefix2 ^ y->prefix2)) / 8;
	else
		return common_prefix(x->key, x->keylen, y->key, y->keylen);
	/* (the prefixes are 0-padded past a short key's end) */
	return Min(lcp, Min(x->keylen, y->keylen));
}

/*
 * WideSorterRows -- after WideSorterDone, the row keys of the sorted
 * records: *first the index of each row's first record, *lcp the bytes its
 * key shares with the key before (0 for the first).  Returns the number
 * of rows, or -1 if the sorter does not know them (its records came in no
 * groups: sorted one by one).
 */
int64
WideSorterRows(WideSorter *s, const int64 **first, const uint32 **lcp)
{
	*first = s->row_first;
	*lcp = s->row_lcp;
	return s->nrows;
}

/*
 * WideSorterDone -- no more records: sort.
 */
void
WideSorterDone(WideSorter *s)
{
	WideCell  **out;
	int64		nout = 0;
	int64		g;

	s->next = 0;
	s->nrows = -1;
	if (s->ngroups <= 1 || s->ungrouped)
	{
		/* one row key, or records that are in no group: the full order */
		if (!(s->ngroups == 1 && !s->ungrouped && s->groups[0].ordered))
			sort_row(s->cells, s->ncells, s->ngroups == 1 && !s->ungrouped);
		s->ungrouped = s->ncells > 0;
		s->ngroups = 0;
		return;
	}
	s->ungrouped = true;
	if (s->prefixes_stale)
		set_prefixes(s->groups, s->ngroups);
	sort_groups(s->groups, s->ngroups);
	out = MemoryContextAllocHuge(s->cxt, sizeof(WideCell *) * s->maxcells);
	if (s->maxrows < s->ngroups)
	{
		if (s->row_first)
		{
			pfree(s->row_first);
			pfree(s->row_lcp);
		}
		s->maxrows = s->ngroups;
		s->row_first = MemoryContextAllocHuge(s->cxt, sizeof(int64) * s->maxrows);
		s->row_lcp = MemoryContextAllocHuge(s->cxt, sizeof(uint32) * s->maxrows);
	}
	s->nrows = 0;
	for (g = 0; g < s->ngroups;)
	{
		int64		start = nout;
		int64		h = g;

		/* the row: where it starts, what its key shares with the last one */
		s->row_first[s->nrows] = start;
		s->row_lcp[s->nrows] = s->nrows == 0 ? 0 :
			row_lcp(s->groups, g, s->row_group, s->common);
		s->row_group = g;
		s->nrows++;

		/* the groups of this row key */
		do
		{
			memcpy(&out[nout], &s->cells[s->groups[h].first],
				   sizeof(WideCell *) * s->groups[h].n);
			nout += s->groups[h].n;
			h++;
		} while (h < s->ngroups &&
				 s->groups[h].keylen == s->groups[g].keylen &&
				 s->groups[h].prefix == s->groups[g].prefix &&
				 s->groups[h].prefix2 == s->groups[g].prefix2 &&
				 memcmp(s->groups[h].key, s->groups[g].key, s->groups[g].keylen) == 0);
		/* (one group that came in order is sorted) */
		if (h > g + 1 || !s->groups[g].ordered)
			sort_row(&out[start], nout - start, true);
		g = h;
	}
	Assert(nout == s->ncells);
	pfree(s->cells);
	s->cells = out;
	s->ngroups = 0;
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
	s->ngroups = 0;
	s->ungrouped = false;
	s->next = 0;
	s->nrows = -1;
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
