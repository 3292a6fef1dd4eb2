/*-------------------------------------------------------------------------
 *
 * scan_range.c
 *	  The Wide Scan's executor, key ranges: the plan's bounds (scan_node.h),
 *	  evaluated as the scan starts, intersected into the range it reads,
 *	  the sorted keys of IN lists, the case variants of an ILIKE prefix,
 *	  and the normalized lists of ranges of ORs and split_part lists.
 *
 *	  WideScanComputeRange -- evaluate the bounds into the scan's state
 *	  WideScanNextPrefixRange -- the range of an ILIKE prefix's next variant
 *
 * IDENTIFICATION
 *	  src/am/scan_range.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "access/sysattr.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "am/am.h"
#include "am/plan_clause.h"
#include "am/plan_cost.h"
#include "am/scan.h"
#include "am/scan_tswindow.h"
#include "am/scan_parallel.h"
#include "am/scan_agg.h"
#include "am/scan_node.h"

/* tighten the range's lower bound */
static void
set_lower(WideScanState *s, const char *k, uint32 len, bool incl)
{
	WideKeyRange *r = &s->range;
	int			cmp = r->has_start ? WideKeyCompare(k, len, s->lo.data, s->lo.len) : 1;

	if (cmp > 0 || (cmp == 0 && !incl))
	{
		resetStringInfo(&s->lo);
		appendBinaryStringInfo(&s->lo, k, len);
		r->has_start = true;
		r->start_incl = incl;
	}
}

/* tighten the range's upper bound */
static void
set_upper(WideScanState *s, const char *k, uint32 len, bool incl)
{
	WideKeyRange *r = &s->range;
	int			cmp = r->has_end ? WideKeyCompare(k, len, s->hi.data, s->hi.len) : -1;

	if (cmp < 0 || (cmp == 0 && !incl))
	{
		resetStringInfo(&s->hi);
		appendBinaryStringInfo(&s->hi, k, len);
		r->has_end = true;
		r->end_incl = incl;
	}
}

/* bound from a pattern: the range of its literal prefix (WidePatternRange) */
static void
set_pattern(WideScanState *s, const char *pat, uint32 len, int mode)
{
	StringInfoData lo,
				hi;
	bool		has_hi,
				same;

	initStringInfo(&lo);
	initStringInfo(&hi);
	if (WidePatternRange(pat, len, mode, &lo, &hi, &has_hi, &same))
	{
		set_lower(s, lo.data, lo.len, true);
		if (has_hi)
			set_upper(s, hi.data, hi.len, false);
	}
	pfree(lo.data);
	pfree(hi.data);
}

/*
 * bound from ILIKE under "C": the keys that begin with a case variant of
 * the prefix; a range per variant when there are few (open_reader)
 */
static void
set_icase(WideScanState *s, const char *prefix, uint32 len)
{
	set_pattern(s, prefix, len, WIDE_PAT_ISTARTS);
	if (s->prefixes == NULL && len > 0)
	{
		s->prefixes = WideCaseVariants(prefix, len, WIDE_MAX_CASE_VARIANTS,
									   &s->nprefixes, s->keycxt);
		if (s->prefixes != NULL && s->nprefixes == 1)
			s->prefixes = NULL;
	}
}

/*
 * The keys of an array bound, intersected with previous IN lists.  The
 * array lives in per-tuple memory, which every tuple resets: the keys are
 * copied into keycxt, which lasts until the next (re)scan.  (s->keys is
 * NULL while no IN list was met.)
 */
static void
set_in_list(WideScanState *s, Datum arr, Oid elemtype)
{
	bool		active = s->keys != NULL;

	WideBytesSetAdd(&s->keys, &s->nkeys, &active, s->keycxt, arr, elemtype, true);
}

/* a list of ranges being built, in keycxt */
typedef struct RangeList
{
	WideKeyRange *r;
	int			n;
	int			cap;
} RangeList;

/* append a range to the list, its bounds copied into keycxt */
static void
range_list_add(WideScanState *s, RangeList *l, const WideKeyRange *r)
{
	WideKeyRange v = *r;

	if (l->n == l->cap)
	{
		l->cap = Max(8, l->cap * 2);
		l->r = l->r ? repalloc(l->r, l->cap * sizeof(WideKeyRange)) :
			MemoryContextAlloc(s->keycxt, l->cap * sizeof(WideKeyRange));
	}
	if (v.has_start)
	{
		char	   *c = MemoryContextAlloc(s->keycxt, v.startlen + 1);

		memcpy(c, v.start, v.startlen);
		v.start = c;
	}
	if (v.has_end)
	{
		char	   *c = MemoryContextAlloc(s->keycxt, v.endlen + 1);

		memcpy(c, v.end, v.endlen);
		v.end = c;
	}
	l->r[l->n++] = v;
}

/* the scan reads only keys in these ranges too (normalized here) */
static void
and_ranges(WideScanState *s, RangeList *l)
{
	int			n;

	if (l->r == NULL)
		l->r = MemoryContextAlloc(s->keycxt, sizeof(WideKeyRange));
	n = WideKeyRangesNormalize(l->r, l->n);
	if (!s->has_ranges)
	{
		s->ranges = l->r;
		s->nranges = n;
		s->has_ranges = true;
	}
	else
		s->ranges = WideKeyRangesIntersect(s->ranges, s->nranges, l->r, n,
										   &s->nranges, s->keycxt);
}

/* the range of the bounds so far (s->lo, s->hi) */
static WideKeyRange
current_range(WideScanState *s)
{
	WideKeyRange v = s->range;

	v.start = s->lo.data;
	v.startlen = s->lo.len;
	v.end = s->hi.data;
	v.endlen = s->hi.len;
	v.is_point = false;
	return v;
}

/* an OR's arm ends: its range, or the keys of its IN list in its range */
static void
close_arm(WideScanState *s, RangeList *arms)
{
	WideKeyRange v = current_range(s);
	int			i;

	if (s->keys == NULL)
	{
		range_list_add(s, arms, &v);
		return;
	}
	for (i = 0; i < s->nkeys; i++)
	{
		WideKeyRange p;

		if (WideRowBeforeRange(&v, s->keys[i].data, s->keys[i].len) ||
			WideRowAfterRange(&v, s->keys[i].data, s->keys[i].len))
			continue;
		memset(&p, 0, sizeof(p));
		p.has_start = p.has_end = p.start_incl = p.end_incl = true;
		p.start = p.end = s->keys[i].data;
		p.startlen = p.endlen = s->keys[i].len;
		range_list_add(s, arms, &p);
	}
}

/*
 * split_part(row_key, sep, 1) = v for each value v (an array's elements):
 * the key v and the keys that begin with v||sep; a v holding sep gives no
 * key (WideScanSplitPartSep)
 */
static void
set_split(WideScanState *s, Datum d, Oid type, bool is_array, char sep)
{
	Datum	   *elems = &d;
	bool	   *nulls = NULL;
	int			n = 1;
	int			i;
	RangeList	l = {0};
	StringInfoData k,
				end;

	if (is_array)
	{
		ArrayType  *a = DatumGetArrayTypeP(d);

		if (ARR_ELEMTYPE(a) != type)
			elog(ERROR, "wide scan: array of type %u where %u was planned",
				 ARR_ELEMTYPE(a), type);
		deconstruct_array(a, type, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	}
	initStringInfo(&k);
	initStringInfo(&end);
	for (i = 0; i < n; i++)
	{
		const char *p;
		uint32		len;
		WideKeyRange r;
		bool		has_end;

		if (nulls && nulls[i])
			continue;
		WideDatumBytes(elems[i], type, &p, &len);
		if (memchr(p, sep, len) != NULL)
			continue;
		memset(&r, 0, sizeof(r));
		r.has_start = r.has_end = r.start_incl = r.end_incl = true;
		r.start = r.end = p;
		r.startlen = r.endlen = len;
		range_list_add(s, &l, &r);
		resetStringInfo(&k);
		appendBinaryStringInfo(&k, p, len);
		appendStringInfoChar(&k, sep);
		WidePrefixEnd(&end, k.data, k.len, &has_end);
		r.start = k.data;
		r.startlen = k.len;
		r.end = end.data;
		r.endlen = end.len;
		r.end_incl = false;
		r.has_end = has_end;
		range_list_add(s, &l, &r);
	}
	and_ranges(s, &l);
}

/* evaluate the bounds: the range (and IN keys) of this scan */
void
WideScanComputeRange(WideScanState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	ListCell   *lk,
			   *le,
			   *lt;
	MemoryContext old;
	/* an OR: the AND's state while its arms are read, and the arms' ranges */
	bool		in_or = false;
	bool		in_arm = false;
	bool		arm_dead = false;
	WideKeyRange saved_range;
	StringInfoData saved_lo,
				saved_hi;
	WideBytes  *saved_keys = NULL;
	int			saved_nkeys = 0;
	RangeList	arms = {0};
	char		sep = 0;

	memset(&s->range, 0, sizeof(s->range));
	s->has_ranges = false;
	s->ranges = NULL;
	s->nranges = 0;
	s->nextrange = 0;
	WideColumnFilterReset(&s->columns);
	MemoryContextReset(s->keycxt);
	s->keys = NULL;
	s->nkeys = 0;
	s->nextkey = 0;
	s->prefixes = NULL;
	s->nprefixes = 0;
	s->nextprefix = 0;
	s->empty = false;
	resetStringInfo(&s->lo);
	resetStringInfo(&s->hi);

	/*
	 * Bounds are evaluated, and detoasted, in per-tuple memory; set_lower,
	 * set_upper and set_in_list copy what they keep.
	 */
	ResetExprContext(econtext);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	forthree(lk, s->bound_kinds, le, s->bound_exprs, lt, s->bound_types)
	{
		int			kind = lfirst_int(lk);
		bool		isnull;
		Datum		d;
		const char *k;
		uint32		len;

		if (kind == BOUND_OR)
		{
			/* the arms start from no bound; the AND's are put aside */
			saved_range = s->range;
			saved_lo = s->lo;
			saved_hi = s->hi;
			saved_keys = s->keys;
			saved_nkeys = s->nkeys;
			initStringInfo(&s->lo);
			initStringInfo(&s->hi);
			memset(&arms, 0, sizeof(arms));
			in_or = true;
			in_arm = false;
			continue;
		}
		if (kind == BOUND_ARM || kind == BOUND_OR_END)
		{
			if (in_arm && !arm_dead)
				close_arm(s, &arms);
			memset(&s->range, 0, sizeof(s->range));
			resetStringInfo(&s->lo);
			resetStringInfo(&s->hi);
			s->keys = NULL;
			s->nkeys = 0;
			in_arm = true;
			arm_dead = false;
			if (kind == BOUND_OR_END)
			{
				s->range = saved_range;
				s->lo = saved_lo;
				s->hi = saved_hi;
				s->keys = saved_keys;
				s->nkeys = saved_nkeys;
				in_or = in_arm = false;
				and_ranges(s, &arms);
			}
			continue;
		}
		if (arm_dead)
			continue;
		d = ExecEvalExpr((ExprState *) lfirst(le), econtext, &isnull);
		if (isnull)
		{
			/* "row_key op NULL" is never true: no key in this arm, or at all */
			if (in_or)
			{
				arm_dead = true;
				continue;
			}
			s->empty = true;
			break;
		}
		if (kind == BOUND_IN)
		{
			set_in_list(s, d, lfirst_oid(lt));
			continue;
		}
		if (kind == BOUND_SEP)
		{
			WideDatumBytes(d, lfirst_oid(lt), &k, &len);
			Assert(len == 1);
			sep = k[0];
			continue;
		}
		if (kind == BOUND_SPLIT || kind == BOUND_SPLIT_IN)
		{
			set_split(s, d, lfirst_oid(lt), kind == BOUND_SPLIT_IN, sep);
			continue;
		}
		if (IS_FILTER(kind))
		{
			WideColumnFilterAdd(&s->columns, s->keycxt,
								kind == FILTER_QUAL || kind == FILTER_QUAL_IN, d,
								lfirst_oid(lt),
								kind == FILTER_FAMILY_IN || kind == FILTER_QUAL_IN);
			continue;
		}
		WideDatumBytes(d, lfirst_oid(lt), &k, &len);
		switch (kind)
		{
			case BOUND_EQ:
				set_lower(s, k, len, true);
				set_upper(s, k, len, true);
				break;
			case BOUND_LT:
				set_upper(s, k, len, false);
				break;
			case BOUND_LE:
				set_upper(s, k, len, true);
				break;
			case BOUND_GT:
				set_lower(s, k, len, false);
				break;
			case BOUND_GE:
				set_lower(s, k, len, true);
				break;
			case BOUND_PREFIX:
				set_pattern(s, k, len, WIDE_PAT_LIKE);
				break;
			case BOUND_STARTS:
				set_pattern(s, k, len, WIDE_PAT_STARTS);
				break;
			case BOUND_IPREFIX_C:
				{
					StringInfoData prefix;

					initStringInfo(&prefix);
					WidePatternPrefix(k, len, WIDE_PAT_ILIKE_C, &prefix);
					set_icase(s, prefix.data, prefix.len);
					break;
				}
			case BOUND_ICASE:
				set_icase(s, k, len);
				break;
			case BOUND_IPREFIX:
				set_pattern(s, k, len, WIDE_PAT_ILIKE);
				break;
		}
	}
	MemoryContextSwitchTo(old);
	if (s->empty)
		return;
	s->range.start = s->lo.data;
	s->range.startlen = s->lo.len;
	s->range.end = s->hi.data;
	s->range.endlen = s->hi.len;
	if (s->range.has_start && s->range.has_end)
	{
		int			cmp = WideKeyCompare(s->lo.data, s->lo.len, s->hi.data, s->hi.len);

		if (cmp > 0 || (cmp == 0 && !(s->range.start_incl && s->range.end_incl)))
			s->empty = true;
		else if (cmp == 0)
			s->range.is_point = true;
	}
	if (s->has_ranges && !s->empty)
	{
		/* the list of ranges, within the range of the other bounds */
		WideKeyRange whole = s->range;

		s->ranges = WideKeyRangesIntersect(s->ranges, s->nranges, &whole, 1,
										   &s->nranges, s->keycxt);
		if (s->prefixes != NULL)
		{
			/* and within the case variants of an ILIKE prefix */
			RangeList	l = {0};
			StringInfoData end;
			int			i;

			initStringInfo(&end);
			for (i = 0; i < s->nprefixes; i++)
			{
				WideKeyRange r;

				memset(&r, 0, sizeof(r));
				r.has_start = r.start_incl = true;
				r.start = s->prefixes[i].data;
				r.startlen = s->prefixes[i].len;
				WidePrefixEnd(&end, r.start, r.startlen, &r.has_end);
				r.end = end.data;
				r.endlen = end.len;
				range_list_add(s, &l, &r);
			}
			pfree(end.data);
			and_ranges(s, &l);
			s->prefixes = NULL;
			s->nprefixes = 0;
		}
		if (s->keys != NULL)
		{
			/* point reads of the keys in the ranges */
			int			i,
						m = 0;

			for (i = 0; i < s->nkeys; i++)
				if (WideKeyRangesContain(s->ranges, s->nranges,
										 s->keys[i].data, s->keys[i].len))
					s->keys[m++] = s->keys[i];
			s->nkeys = m;
			s->has_ranges = false;
		}
		else if (s->nranges == 0)
			s->empty = true;
	}
	if (s->keys != NULL && s->nkeys == 0)
		s->empty = true;
	if (WideColumnFilterEmpty(&s->columns))
		s->empty = true;
}

/*
 * The range of the next case variant of an ILIKE prefix that meets the
 * scan's range, into *r (which holds the scan's range); false after the
 * last one.
 */
bool
WideScanNextPrefixRange(WideScanState *s, WideKeyRange *r)
{
	while (s->nextprefix < s->nprefixes)
	{
		/* (a backward scan reads the ranges last first) */
		const WideBytes *p = &s->prefixes[s->backward ?
										  s->nprefixes - 1 - s->nextprefix :
										  s->nextprefix];
		WideKeyRange v = s->range;
		int			cmp;

		v.is_point = false;
		/* [p, the least key after every key that begins with p) */
		if (!v.has_start ||
			(cmp = WideKeyCompare(v.start, v.startlen, p->data, p->len)) < 0 ||
			(cmp == 0 && v.start_incl))
		{
			v.has_start = v.start_incl = true;
			v.start = p->data;
			v.startlen = p->len;
		}
		resetStringInfo(&s->prefix_end);
		appendBinaryStringInfo(&s->prefix_end, p->data, p->len);
		while (s->prefix_end.len > 0 &&
			   (uint8) s->prefix_end.data[s->prefix_end.len - 1] == 0xFF)
			s->prefix_end.len--;
		if (s->prefix_end.len > 0)
		{
			s->prefix_end.data[s->prefix_end.len - 1]++;
			if (!v.has_end ||
				(cmp = WideKeyCompare(s->prefix_end.data, s->prefix_end.len,
									  v.end, v.endlen)) <= 0)
			{
				v.has_end = true;
				v.end_incl = false;
				v.end = s->prefix_end.data;
				v.endlen = s->prefix_end.len;
			}
		}
		if (v.has_start && v.has_end &&
			((cmp = WideKeyCompare(v.start, v.startlen, v.end, v.endlen)) > 0 ||
			 (cmp == 0 && !(v.start_incl && v.end_incl))))
		{
			s->nextprefix++;
			continue;
		}
		s->nextprefix++;
		*r = v;
		return true;
	}
	return false;
}
