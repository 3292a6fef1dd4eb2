/*-------------------------------------------------------------------------
 *
 * scan.h
 *	  What the Wide Scan (customscan.c) pushes down besides row_key
 *	  comparisons (scan_pushdown.c): key ranges from LIKE, ILIKE and
 *	  starts_with patterns, lists of key ranges (sorted, merged,
 *	  intersected: ORs, key parts), family and qualifier sets checked on
 *	  merged cells before tuples are formed.  Its costs: plan_cost.h.
 *
 * IDENTIFICATION
 *	  src/am/scan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SCAN_H
#define WIDE_SCAN_H

#include "lib/stringinfo.h"
#include "nodes/pathnodes.h"
#include "engine/cell.h"

/* how a pattern is read by WidePatternRange */
#define WIDE_PAT_LIKE		1	/* LIKE: \ escapes, % and _ wildcards */
#define WIDE_PAT_ILIKE_C	2	/* ILIKE under "C": ASCII letters fold */
#define WIDE_PAT_ILIKE		3	/* ILIKE under another collation */
#define WIDE_PAT_STARTS		4	/* starts_with: the string is the prefix */
#define WIDE_PAT_ISTARTS	5	/* the string is the prefix, ASCII letters fold */

/* ILIKE under "C": one range per case variant of a prefix, up to */
#define WIDE_MAX_CASE_VARIANTS	64

/*
 * the number of case variants of a prefix with that many ASCII letters,
 * 2^letters, or 0 if that is more than max (planner and executor alike)
 */
static inline int
WideCaseVariantCount(int letters, int max)
{
	return letters < 31 && (1 << letters) <= max ? 1 << letters : 0;
}

/* a byte string (sorted sets of them: families, qualifiers, prefixes) */
typedef struct WideBytes
{
	const char *data;
	uint32		len;
} WideBytes;

extern int	WidePatternPrefix(const char *pat, uint32 len, int mode,
							  StringInfo prefix);
extern bool WidePatternRange(const char *pat, uint32 len, int mode,
							 StringInfo lo, StringInfo hi, bool *has_hi,
							 bool *same);
extern WideBytes *WideCaseVariants(const char *prefix, uint32 len, int max,
								   int *n, MemoryContext cxt);

typedef struct WideColumnFilter
{
	bool		fam_active;		/* only the families in fams */
	bool		qual_active;	/* only the qualifiers in quals */
	int			nfams;
	int			nquals;
	WideBytes  *fams;
	WideBytes  *quals;
} WideColumnFilter;

extern void WideDatumBytes(Datum d, Oid type, const char **p, uint32 *len);
extern void WideBytesSetAdd(WideBytes **set, int *nset, bool *active,
							MemoryContext cxt, Datum d, Oid type, bool is_array);
extern void WideColumnFilterReset(WideColumnFilter *f);
extern void WideColumnFilterAdd(WideColumnFilter *f, MemoryContext cxt,
								bool qualifier, Datum d, Oid type, bool is_array);
extern bool WideColumnFilterEmpty(const WideColumnFilter *f);
extern bool WideColumnFilterMatch(const WideColumnFilter *f, const WideCell *cell);
extern bool WideColumnFilterKeep(const WideCell *cell, void *arg);

/* lists of key ranges: OR arms, IN lists of key parts (scan_pushdown.c) */
extern bool WideKeyRangeIsEmpty(const WideKeyRange *r);
extern int	WideKeyRangesNormalize(WideKeyRange *r, int n);
extern WideKeyRange *WideKeyRangesIntersect(const WideKeyRange *a, int na,
											const WideKeyRange *b, int nb,
											int *n, MemoryContext cxt);
extern bool WideKeyRangesContain(const WideKeyRange *r, int n,
								 const char *key, uint32 len);
extern void WidePrefixEnd(StringInfo buf, const char *prefix, uint32 len,
						  bool *has_end);

#endif							/* WIDE_SCAN_H */
