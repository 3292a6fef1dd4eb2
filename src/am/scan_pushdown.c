/*-------------------------------------------------------------------------
 *
 * scan_pushdown.c
 *	  What the Wide Scan pushes down besides row_key comparisons (its costs
 *	  are plan_cost.c's).
 *
 * Patterns.  LIKE 'prefix...', starts_with(row_key, s) (and ^@) and ILIKE
 * with a literal prefix become key ranges.  For ILIKE the range must hold
 * every key whose prefix equals the pattern's case-insensitively: under
 * the "C" collation only ASCII letters fold, so the prefix with its letters
 * upper-cased is the least such key, and the prefix lower-cased the
 * greatest ('A' < 'a'); under another collation a letter may fold to or
 * from a non-ASCII character (KELVIN SIGN is a 'k'), so the prefix ends at
 * the first letter.  A non-ASCII byte ends it in either case.  A pattern
 * that begins with a wildcard gives no range: it is a filter, and the scan
 * reads every row.
 *
 * Columns.  family = x, family = ANY(array), and the same on qualifier,
 * become sets.  The reader merges only the records of kept columns, the
 * family tombstones of kept families and every row tombstone
 * (WideColumnFilterKeep): versions, ages and aggregates are rules of one
 * column, so dropping the others changes nothing of the kept ones, and a
 * row tombstone still hides the cells of every family.  The scan checks
 * the merged cells again before it forms a tuple.
 *
 * Lists of key ranges.  An OR of key conditions, an IN list of key parts
 * (split_part(row_key, '#', 1) IN (...)) and the case variants of an ILIKE
 * prefix are read as a list of ranges, one seek each, in key order.
 * WideKeyRangesNormalize sorts such a list and merges the ranges that
 * overlap or touch, so that no row is read twice and a backward scan can
 * read the list from its end; WideKeyRangesIntersect is the AND of two
 * normalized lists.  Both only move pointers: the bytes of the bounds
 * belong to the caller (the Wide Scan's key memory; the row form's key
 * parts use the same functions).
 *
 * IDENTIFICATION
 *	  src/am/scan_pushdown.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "am/scan.h"

/*
 * WidePatternPrefix -- the literal prefix of a pattern, escapes resolved:
 * the bytes every match begins with (up to the case of ASCII letters for
 * WIDE_PAT_ILIKE_C).  Returns the number of ASCII letters in it.
 */
int
WidePatternPrefix(const char *pat, uint32 len, int mode, StringInfo prefix)
{
	uint32		i;
	int			letters = 0;

	resetStringInfo(prefix);
	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) pat[i];
		bool		letter;

		if (mode != WIDE_PAT_STARTS && mode != WIDE_PAT_ISTARTS)
		{
			if (c == '%' || c == '_')
				break;
			if (c == '\\')
			{
				if (++i >= len)
					break;
				c = (unsigned char) pat[i];
			}
		}
		letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
		if (mode == WIDE_PAT_ILIKE_C || mode == WIDE_PAT_ILIKE)
		{
			if (c >= 0x80 || (letter && mode == WIDE_PAT_ILIKE))
				break;
		}
		if (letter)
			letters++;
		appendStringInfoChar(prefix, (char) c);
	}
	return letters;
}

/*
 * WidePatternRange -- the key range of a pattern's literal prefix: lo, and
 * (when *has_hi) the exclusive upper bound hi.  False when the prefix is
 * empty: the pattern bounds nothing.  *same says lo is the prefix itself
 * (no letter folded), so the range is exactly the keys with that prefix.
 * For ILIKE under "C", lo is the prefix upper-cased and hi follows it
 * lower-cased: every case variant lies between.
 */
bool
WidePatternRange(const char *pat, uint32 len, int mode, StringInfo lo,
				 StringInfo hi, bool *has_hi, bool *same)
{
	int			letters = WidePatternPrefix(pat, len, mode, lo);
	int			i;

	resetStringInfo(hi);
	*has_hi = false;
	*same = true;
	if (lo->len == 0)
		return false;
	appendBinaryStringInfo(hi, lo->data, lo->len);
	if (letters > 0 && (mode == WIDE_PAT_ILIKE_C || mode == WIDE_PAT_ISTARTS))
	{
		for (i = 0; i < lo->len; i++)
		{
			lo->data[i] = (char) pg_ascii_toupper((unsigned char) lo->data[i]);
			hi->data[i] = (char) pg_ascii_tolower((unsigned char) hi->data[i]);
		}
		*same = false;
	}
	/* the least key greater than every key that begins with hi */
	while (hi->len > 0 && (uint8) hi->data[hi->len - 1] == 0xFF)
		hi->len--;
	if (hi->len > 0)
	{
		hi->data[hi->len - 1]++;
		hi->data[hi->len] = '\0';
		*has_hi = true;
	}
	return true;
}

/*
 * WideCaseVariants -- every ASCII case variant of a prefix, sorted, in cxt;
 * NULL if there would be more than max.
 */
WideBytes *
WideCaseVariants(const char *prefix, uint32 len, int max, int *n,
				 MemoryContext cxt)
{
	int			letters = 0;
	int			pos[31];
	uint32		i;
	int			v,
				j;
	WideBytes  *out;

	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) prefix[i];

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
		{
			if (letters == lengthof(pos) ||
				WideCaseVariantCount(letters + 1, max) == 0)
				return NULL;
			pos[letters++] = i;
		}
	}
	*n = WideCaseVariantCount(letters, max);
	out = MemoryContextAlloc(cxt, *n * sizeof(WideBytes));
	/*
	 * Variant v has letter j lower-cased when bit (letters - 1 - j) of v is
	 * set: the first letter is the most significant bit, and upper case
	 * sorts first ('A' < 'a'), so the variants come out sorted.
	 */
	for (v = 0; v < *n; v++)
	{
		char	   *b = MemoryContextAlloc(cxt, len + 1);

		memcpy(b, prefix, len);
		for (j = 0; j < letters; j++)
		{
			unsigned char c = (unsigned char) b[pos[j]];

			b[pos[j]] = (v & (1 << (letters - 1 - j))) ?
				(char) pg_ascii_tolower(c) : (char) pg_ascii_toupper(c);
		}
		out[v].data = b;
		out[v].len = len;
	}
	return out;
}

/* ----------------------------------------------------------------
 *	Family and qualifier sets
 * ----------------------------------------------------------------
 */

/*
 * WideDatumBytes -- the bytes of a text or bytea datum, or of a name (its
 * bytes up to the NUL: the text it equals); the planner admits no other
 * type for a key bound or a column set.  May detoast into the current
 * memory context.
 */
void
WideDatumBytes(Datum d, Oid type, const char **p, uint32 *len)
{
	struct varlena *v;

	if (type == NAMEOID)
	{
		*p = NameStr(*DatumGetName(d));
		*len = strlen(*p);
		return;
	}
	Assert(type == TEXTOID || type == BYTEAOID);
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
	*p = VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
}

/* qsort and bsearch comparator of WideBytes */
static int
cmp_bytes(const void *a, const void *b)
{
	const WideBytes *x = (const WideBytes *) a;
	const WideBytes *y = (const WideBytes *) b;

	return WideKeyCompare(x->data, x->len, y->data, y->len);
}

/*
 * WideColumnFilterReset -- keep every family and qualifier.
 */
void
WideColumnFilterReset(WideColumnFilter *f)
{
	memset(f, 0, sizeof(*f));
}

/*
 * WideBytesSetAdd -- the values of d (one, or the elements of an array d
 * of type, NULLs left out: "= NULL" is never true), copied into cxt,
 * sorted and without repeats: *set if it is not *active yet (then it is),
 * else *set keeps only the values in both.
 */
void
WideBytesSetAdd(WideBytes **set, int *nset, bool *active, MemoryContext cxt,
				Datum d, Oid type, bool is_array)
{
	WideBytes  *add;
	Datum	   *elems = &d;
	bool	   *nulls = NULL;
	int			n = 1;
	int			i,
				k = 0;

	if (is_array)
	{
		ArrayType  *a = DatumGetArrayTypeP(d);
		int16		typlen;
		bool		typbyval;
		char		typalign;

		if (ARR_ELEMTYPE(a) != type)
			elog(ERROR, "wide scan: array of type %u where %u was planned",
				 ARR_ELEMTYPE(a), type);
		get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
		deconstruct_array(a, type, typlen, typbyval, typalign,
						  &elems, &nulls, &n);
	}
	add = MemoryContextAlloc(cxt, Max(n, 1) * sizeof(WideBytes));
	for (i = 0; i < n; i++)
	{
		const char *p;
		uint32		len;
		char	   *copy;

		if (nulls && nulls[i])
			continue;
		WideDatumBytes(elems[i], type, &p, &len);
		copy = MemoryContextAlloc(cxt, len + 1);
		memcpy(copy, p, len);
		add[k].data = copy;
		add[k].len = len;
		k++;
	}
	qsort(add, k, sizeof(WideBytes), cmp_bytes);
	n = k;
	k = 0;
	for (i = 0; i < n; i++)
		if (k == 0 || cmp_bytes(&add[k - 1], &add[i]) != 0)
			add[k++] = add[i];
	if (!*active)
	{
		*set = add;
		*nset = k;
		*active = true;
	}
	else
	{
		/* both conditions hold: keep the values in both sets */
		int			m = 0,
					j = 0;

		for (i = 0; i < *nset && j < k;)
		{
			int			c = cmp_bytes(&(*set)[i], &add[j]);

			if (c == 0)
			{
				(*set)[m++] = (*set)[i];
				i++, j++;
			}
			else if (c < 0)
				i++;
			else
				j++;
		}
		*nset = m;
	}
}

/*
 * WideColumnFilterAdd -- keep only the families (or qualifiers) equal to d,
 * or to an element of the array d; the values are copied into cxt.
 * Conditions on the same column intersect.
 */
void
WideColumnFilterAdd(WideColumnFilter *f, MemoryContext cxt, bool qualifier,
					Datum d, Oid type, bool is_array)
{
	if (qualifier)
		WideBytesSetAdd(&f->quals, &f->nquals, &f->qual_active, cxt, d, type,
						is_array);
	else
		WideBytesSetAdd(&f->fams, &f->nfams, &f->fam_active, cxt, d, type,
						is_array);
}

/*
 * WideColumnFilterEmpty -- does the filter reject every cell?
 */
bool
WideColumnFilterEmpty(const WideColumnFilter *f)
{
	return (f->fam_active && f->nfams == 0) ||
		(f->qual_active && f->nquals == 0);
}

/*
 * WideColumnFilterMatch -- does the cell's family and qualifier pass?
 */
bool
WideColumnFilterMatch(const WideColumnFilter *f, const WideCell *cell)
{
	WideBytes	b;

	if (f->fam_active)
	{
		b.data = cell->family;
		b.len = cell->famlen;
		if (f->nfams == 1 ? cmp_bytes(&b, f->fams) != 0 :
			bsearch(&b, f->fams, f->nfams, sizeof(WideBytes), cmp_bytes) == NULL)
			return false;
	}
	if (f->qual_active)
	{
		b.data = cell->qual;
		b.len = cell->quallen;
		if (f->nquals == 1 ? cmp_bytes(&b, f->quals) != 0 :
			bsearch(&b, f->quals, f->nquals, sizeof(WideBytes), cmp_bytes) == NULL)
			return false;
	}
	return true;
}

/*
 * WideColumnFilterKeep -- WideReaderSetFilter's test: the records of a kept
 * column, and the family tombstones of a kept family, are merged.
 */
bool
WideColumnFilterKeep(const WideCell *cell, void *arg)
{
	const WideColumnFilter *f = (const WideColumnFilter *) arg;
	WideBytes	b;

	if (cell->kind == WIDE_KIND_DEL_FAMILY)
	{
		if (!f->fam_active)
			return true;
		b.data = cell->family;
		b.len = cell->famlen;
		return bsearch(&b, f->fams, f->nfams, sizeof(WideBytes), cmp_bytes) != NULL;
	}
	return WideColumnFilterMatch(f, cell);
}

/* ----------------------------------------------------------------
 *	Lists of key ranges
 * ----------------------------------------------------------------
 */

/* order of two lower bounds: unbounded first; at one key, included first */
static int
cmp_lower(const WideKeyRange *a, const WideKeyRange *b)
{
	int			c;

	if (!a->has_start || !b->has_start)
		return (a->has_start ? 1 : 0) - (b->has_start ? 1 : 0);
	c = WideKeyCompare(a->start, a->startlen, b->start, b->startlen);
	if (c != 0)
		return c;
	return (a->start_incl ? 0 : 1) - (b->start_incl ? 0 : 1);
}

/* order of two upper bounds: unbounded last; at one key, excluded first */
static int
cmp_upper(const WideKeyRange *a, const WideKeyRange *b)
{
	int			c;

	if (!a->has_end || !b->has_end)
		return (a->has_end ? 0 : 1) - (b->has_end ? 0 : 1);
	c = WideKeyCompare(a->end, a->endlen, b->end, b->endlen);
	if (c != 0)
		return c;
	return (a->end_incl ? 1 : 0) - (b->end_incl ? 1 : 0);
}

static int
cmp_range_qsort(const void *a, const void *b)
{
	return cmp_lower((const WideKeyRange *) a, (const WideKeyRange *) b);
}

/* set is_point: one key, both ends included */
static void
set_is_point(WideKeyRange *r)
{
	r->is_point = r->has_start && r->has_end && r->start_incl && r->end_incl &&
		WideKeyCompare(r->start, r->startlen, r->end, r->endlen) == 0;
}

/*
 * WideKeyRangeIsEmpty -- does the range hold no key?  (lo > hi, or lo = hi
 * with an end excluded)
 */
bool
WideKeyRangeIsEmpty(const WideKeyRange *r)
{
	int			c;

	if (!r->has_start || !r->has_end)
		return false;
	c = WideKeyCompare(r->start, r->startlen, r->end, r->endlen);
	return c > 0 || (c == 0 && !(r->start_incl && r->end_incl));
}

/*
 * WideKeyRangesNormalize -- sort a list of ranges by their lower bounds,
 * drop the empty ones and merge those that overlap or touch ([a, b] and
 * (b, c), [a, b) and [b, c)), in place.  Returns the new length; the
 * ranges are then disjoint and ascending, each with is_point set.
 */
int
WideKeyRangesNormalize(WideKeyRange *r, int n)
{
	int			i,
				k = 0;

	for (i = 0; i < n; i++)
		if (!WideKeyRangeIsEmpty(&r[i]))
			r[k++] = r[i];
	n = k;
	if (n > 1)
		qsort(r, n, sizeof(WideKeyRange), cmp_range_qsort);
	k = 0;
	for (i = 0; i < n; i++)
	{
		WideKeyRange *cur = k > 0 ? &r[k - 1] : NULL;
		bool		merge = false;

		if (cur != NULL)
		{
			if (!cur->has_end || !r[i].has_start)
				merge = true;
			else
			{
				int			c = WideKeyCompare(r[i].start, r[i].startlen,
											   cur->end, cur->endlen);

				merge = c < 0 || (c == 0 && (cur->end_incl || r[i].start_incl));
			}
		}
		if (!merge)
		{
			r[k++] = r[i];
			continue;
		}
		/* the merged range ends where the later of the two ends */
		if (cmp_upper(&r[i], cur) > 0)
		{
			cur->has_end = r[i].has_end;
			cur->end_incl = r[i].end_incl;
			cur->end = r[i].end;
			cur->endlen = r[i].endlen;
		}
	}
	for (i = 0; i < k; i++)
		set_is_point(&r[i]);
	return k;
}

/*
 * WideKeyRangesIntersect -- the keys in both of two normalized lists, as a
 * normalized list allocated in cxt (its bounds point into a's and b's).
 */
WideKeyRange *
WideKeyRangesIntersect(const WideKeyRange *a, int na, const WideKeyRange *b,
					   int nb, int *n, MemoryContext cxt)
{
	WideKeyRange *out = MemoryContextAlloc(cxt, Max(na + nb, 1) * sizeof(WideKeyRange));
	int			i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		WideKeyRange v;
		const WideKeyRange *lo = cmp_lower(&a[i], &b[j]) >= 0 ? &a[i] : &b[j];
		const WideKeyRange *hi = cmp_upper(&a[i], &b[j]) <= 0 ? &a[i] : &b[j];

		memset(&v, 0, sizeof(v));
		v.has_start = lo->has_start;
		v.start_incl = lo->start_incl;
		v.start = lo->start;
		v.startlen = lo->startlen;
		v.has_end = hi->has_end;
		v.end_incl = hi->end_incl;
		v.end = hi->end;
		v.endlen = hi->endlen;
		if (!WideKeyRangeIsEmpty(&v))
		{
			set_is_point(&v);
			out[k++] = v;
		}
		/* the range that ends first meets nothing further in the other */
		if (hi == &a[i])
			i++;
		else
			j++;
	}
	*n = k;
	return out;
}

/*
 * WideKeyRangesContain -- is the key in one of a normalized list's ranges?
 */
bool
WideKeyRangesContain(const WideKeyRange *r, int n, const char *key, uint32 len)
{
	int			lo = 0,
				hi = n;

	/* the first range whose end is not before the key */
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (WideRowAfterRange(&r[mid], key, len))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !WideRowBeforeRange(&r[lo], key, len);
}

/*
 * WidePrefixEnd -- into buf, the least key greater than every key that
 * begins with prefix; *has_end false when there is none (the prefix is
 * empty or all 0xFF bytes).
 */
void
WidePrefixEnd(StringInfo buf, const char *prefix, uint32 len, bool *has_end)
{
	resetStringInfo(buf);
	appendBinaryStringInfo(buf, prefix, len);
	while (buf->len > 0 && (uint8) buf->data[buf->len - 1] == 0xFF)
		buf->len--;
	*has_end = buf->len > 0;
	if (*has_end)
		buf->data[buf->len - 1]++;
	buf->data[buf->len] = '\0';
}
