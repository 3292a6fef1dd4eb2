/*-------------------------------------------------------------------------
 *
 * sort.h
 *	  Sorted streams of cells: the in-memory sorter (sorter.c) and the k-way
 *	  merge of sorted sources (iterator.c).
 *
 * IDENTIFICATION
 *	  src/engine/sort.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SORT_H
#define WIDE_SORT_H

#include "engine/cell.h"

/* iterator.c: k-way merge of sorted sources */
typedef struct WideMergeIter WideMergeIter;
typedef bool (*WideSourceNext) (void *arg, WideCell *cell);

extern WideMergeIter *WideMergeIterCreate(int maxsources);
/* step past column col, whose record is current; false at the end */
typedef bool (*WideSourceSkip) (void *arg, const WideCell *col, WideCell *cell);

extern void WideMergeIterAdd(WideMergeIter *m, WideSourceNext next, void *arg,
							 int order);
extern void WideMergeIterAddSkippable(WideMergeIter *m, WideSourceNext next,
									  WideSourceSkip skip, void *arg, int order);
extern const WideCell *WideMergeIterNext(WideMergeIter *m);
extern const WideCell *WideMergeIterNextAfter(WideMergeIter *m,
											  const WideCell *col);
extern uint64 WideMergeIterSkipped(const WideMergeIter *m);
extern const WideCell *WideMergeIterPeekOther(const WideMergeIter *m);
extern void *WideMergeIterReturnedArg(const WideMergeIter *m);

/* sorter.c: sorting cells in memory */
typedef struct WideSorter WideSorter;
extern int	WideCellCompareStable(const WideCell *a, const WideCell *b);
extern WideSorter *WideSorterBegin(void);
extern void WideSorterAdd(WideSorter *s, const WideCell *cell);
extern WideCell **WideSorterCells(WideSorter *s, int64 *n);
extern int64 WideSorterRows(WideSorter *s, const int64 **first,
							 const uint32 **lcp);
extern Size WideSorterBytes(WideSorter *s);
extern void WideSorterDone(WideSorter *s);
extern bool WideSorterNext(WideSorter *s, WideCell *cell);
extern bool WideSorterPeekInRange(WideSorter *s, const WideKeyRange *r);
extern bool WideSorterNextInRange(WideSorter *s, const WideKeyRange *r,
								  WideCell *cell);
extern void WideSorterReset(WideSorter *s);
extern void WideSorterEnd(WideSorter *s);

/* WideSorterNext as a merge source (arg: the sorter) */
static inline bool
WideSorterSource(void *arg, WideCell *cell)
{
	return WideSorterNext((WideSorter *) arg, cell);
}

#endif							/* WIDE_SORT_H */
