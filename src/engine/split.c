/*-------------------------------------------------------------------------
 *
 * split.c
 *	  Split keys: row keys that cut a key range of a table into stretches
 *	  of similar size, for parallel scans (am/scan_parallel.c).
 *
 * The keys are the last rows of blocks of the runs that hold the range:
 * of root index entries (about 128 data blocks each) when the range has
 * enough of them, else of the data blocks themselves, read from the index
 * blocks (the same boundaries wide.sample_row_keys reports, finer).  Each
 * entry weighs the records it covers; the keys are chosen where the
 * running sum crosses a multiple of total / target.  A stretch ends at a
 * split key (included) and the next begins after it: a row is never cut,
 * and a stretch seeks straight to the block after the one its predecessor
 * ended with.  The write area's records go to whichever stretch holds
 * their row.  The keys are only boundaries: any state of the table is
 * read correctly with them, whatever flushes and compactions happen.
 *
 * IDENTIFICATION
 *	  src/engine/split.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/bufmgr.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/storage.h"
#include "engine/segment.h"
#include "engine/split.h"

/* data blocks under a root entry (segment_writer.c), at most */
#define ROOT_ENTRY_BLOCKS	128

/* a block (or a group of blocks) of a run that may hold rows of the range */
typedef struct Stretch
{
	const char *lastrow;
	uint32		lastrowlen;
	uint64		ncells;
	int			run;			/* index into the runs and their segments */
	int			entry;			/* root entry */
} Stretch;

typedef struct SplitState
{
	Stretch    *s;
	int			n;
	int			cap;
} SplitState;

static void
add_stretch(SplitState *st, const WideIndexEntry *e, int run, int entry)
{
	if (st->n == st->cap)
	{
		st->cap = Max(64, st->cap * 2);
		st->s = st->s ? repalloc(st->s, sizeof(Stretch) * st->cap) :
			palloc(sizeof(Stretch) * st->cap);
	}
	st->s[st->n].lastrow = e->lastrow;
	st->s[st->n].lastrowlen = e->lastrowlen;
	st->s[st->n].ncells = e->ncells;
	st->s[st->n].run = run;
	st->s[st->n].entry = entry;
	st->n++;
}

/* the entries of an index that may hold rows of the range */
static void
entries_in_range(SplitState *st, const WideIndex *idx, const WideKeyRange *range,
				 int run, int entry)
{
	int			i;

	for (i = 0; i < idx->n; i++)
	{
		const WideIndexEntry *e = &idx->entries[i];

		/* the entry covers (previous lastrow, lastrow] */
		if (WideRowBeforeRange(range, e->lastrow, e->lastrowlen))
			continue;
		add_stretch(st, e, run, entry < 0 ? i : entry);
		if (WideRowAfterRange(range, e->lastrow, e->lastrowlen))
			break;
	}
}

static int
stretch_cmp(const void *a, const void *b)
{
	const Stretch *x = (const Stretch *) a;
	const Stretch *y = (const Stretch *) b;

	return WideKeyCompare(x->lastrow, x->lastrowlen, y->lastrow, y->lastrowlen);
}

/*
 * WideSplitKeys -- up to target - 1 row keys, ascending, strictly inside
 * range (NULL: the whole table), that cut it into stretches of similar
 * size; *nblocks is the number of data blocks of the runs that may hold
 * the range (for the caller to choose the target).  The keys are palloc'd.
 */
int
WideSplitKeys(Relation rel, const WideKeyRange *range, int target,
			  uint64 *nblocks, WideSplitKey **keys)
{
	WideKeyRange all;
	WideMetaPageData meta;
	WideRunData runs[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	WideSegment *segs[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	WideCacheEntry *pins[WIDE_MAX_RUNS + WIDE_MAX_WA_RUNS];
	int			nruns = 0;
	SplitState	st = {0};
	Buffer		metabuf;
	uint64		total = 0,
				acc = 0;
	int			nkeys = 0,
				i;

	*nblocks = 0;
	*keys = NULL;
	if (range == NULL)
	{
		memset(&all, 0, sizeof(all));
		range = &all;
	}
	metabuf = WideReadMeta(rel, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(metabuf))
		return 0;
	memcpy(&meta, WidePageGetMeta(BufferGetPage(metabuf)), sizeof(meta));
	UnlockReleaseBuffer(metabuf);
	for (i = 0; i < (int) meta.nruns; i++)
		if (WideRunOverlapsRange(&meta.runs[i], range))
			runs[nruns++] = meta.runs[i];
	for (i = 0; i < (int) meta.nwaruns; i++)
		if (WideRunOverlapsRange(&meta.waruns[i], range))
			runs[nruns++] = meta.waruns[i];

	/* the root entries in range */
	for (i = 0; i < nruns; i++)
	{
		segs[i] = WideSegmentOpen(rel, &runs[i], &pins[i]);
		entries_in_range(&st, segs[i]->root, range, i, -1);
	}

	/* too few to balance the work: the data blocks of those entries */
	if (st.n > 0 && st.n < 4 * target)
	{
		SplitState	fine = {0};

		for (i = 0; i < st.n; i++)
		{
			Stretch    *s = &st.s[i];
			WideCacheEntry *pin;
			const WideIndex *idx;
			int			before,
						j;

			idx = WideSegmentOpenIndex(rel, segs[s->run],
									   &segs[s->run]->root->entries[s->entry], &pin);
			before = fine.n;
			entries_in_range(&fine, idx, range, s->run, s->entry);
			/* copy the keys: the index block is released */
			for (j = before; j < fine.n; j++)
			{
				char	   *k = palloc(Max(fine.s[j].lastrowlen, 1));

				memcpy(k, fine.s[j].lastrow, fine.s[j].lastrowlen);
				fine.s[j].lastrow = k;
			}
			WideCacheRelease(pin);
		}
		pfree(st.s);
		st = fine;
		*nblocks = st.n;
	}
	else
	{
		for (i = 0; i < st.n; i++)
		{
			const WideIndexEntry *e = &segs[st.s[i].run]->root->entries[st.s[i].entry];
			char	   *k = palloc(Max(e->lastrowlen, 1));

			/* a root entry covers up to ROOT_ENTRY_BLOCKS data blocks */
			*nblocks += ROOT_ENTRY_BLOCKS;
			memcpy(k, e->lastrow, e->lastrowlen);
			st.s[i].lastrow = k;
		}
	}
	for (i = 0; i < nruns; i++)
		WideCacheRelease(pins[i]);

	if (st.n == 0 || target < 2)
		return 0;
	qsort(st.s, st.n, sizeof(Stretch), stretch_cmp);
	for (i = 0; i < st.n; i++)
		total += st.s[i].ncells;
	*keys = palloc(sizeof(WideSplitKey) * target);
	for (i = 0; i < st.n && nkeys < target - 1; i++)
	{
		Stretch    *s = &st.s[i];

		acc += s->ncells;
		if ((double) acc < (double) total * (nkeys + 1) / target)
			continue;
		/* strictly inside the range, and after the previous key */
		if (WideRowBeforeRange(range, s->lastrow, s->lastrowlen) ||
			WideRowAfterRange(range, s->lastrow, s->lastrowlen) ||
			(range->has_end &&
			 WideKeyCompare(s->lastrow, s->lastrowlen, range->end, range->endlen) == 0))
			continue;
		if (nkeys > 0 &&
			WideKeyCompare(s->lastrow, s->lastrowlen, (*keys)[nkeys - 1].key,
						   (*keys)[nkeys - 1].len) <= 0)
			continue;
		(*keys)[nkeys].key = (char *) s->lastrow;
		(*keys)[nkeys].len = s->lastrowlen;
		nkeys++;
	}
	return nkeys;
}
