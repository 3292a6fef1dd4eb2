/*-------------------------------------------------------------------------
 *
 * filter.c
 *	  Bigtable row filters, in a JSON form mirroring the RowFilter message.
 *
 * A filter is a JSON object with exactly one of these keys (Bigtable's
 * field names):
 *
 *	chain                          [filter, ...]   each filter's output is
 *	                                               the next one's input
 *	interleave                     [filter, ...]   every filter sees the
 *	                                               input; outputs are merged
 *	                                               in cell order, duplicates
 *	                                               kept
 *	condition                      {"predicate": f, "true_filter": f,
 *	                                "false_filter": f}  true_filter if the
 *	                                               predicate outputs any
 *	                                               cell of the row
 *	pass_all_filter / block_all_filter   true
 *	row_key_regex_filter           regex (the whole key must match)
 *	row_sample_filter              probability in (0, 1)
 *	family_name_regex_filter       regex
 *	column_qualifier_regex_filter  regex
 *	column_range_filter            {"family_name", "start_qualifier_closed" |
 *	                                "start_qualifier_open", "end_qualifier_closed"
 *	                                | "end_qualifier_open"}
 *	timestamp_range_filter         {"start_timestamp_micros" (included),
 *	                                "end_timestamp_micros" (excluded; 0 or
 *	                                absent: no end)}
 *	value_regex_filter             regex
 *	value_range_filter             {"start_value_closed" | "start_value_open",
 *	                                "end_value_closed" | "end_value_open"}
 *	cells_per_row_offset_filter    n
 *	cells_per_row_limit_filter     n
 *	cells_per_column_limit_filter  n
 *	strip_value_transformer        true
 *	apply_label_transformer        label
 *
 * Filters apply to one row at a time: the row's cells in order (family,
 * qualifier, ts desc) go in, a subsequence (with labels, values possibly
 * stripped) comes out.  Regexes are PostgreSQL advanced regular
 * expressions, matched against the whole key, family, qualifier or value
 * (as RE2 full matches are), with '.' not matching a newline unless the
 * pattern starts with (?s).  Values compare by the value column's type
 * (bytewise for bytea and text, numerically for numbers); a value regex
 * matches a value's text form.  Everything is checked when the filter is
 * parsed, before a cell is read.
 *
 * Limits and resources: parsing takes time and memory linear in the size
 * of the JSON (error paths such as $.chain[1].condition.true_filter are
 * only built when an error is reported); parsing and applying recurse, so
 * nesting deeper than max_stack_depth allows fails with a clean error.
 * Compiled regexes (RE2 objects, allocated by C++ new) are freed when
 * the memory context the filter was parsed in is reset or deleted, error
 * or not.  Applying a filter to a row costs memory linear in the row's
 * cells times the nesting depth; interleave copies its input once per
 * branch, so nested interleaves multiply the output: a row's output is
 * limited to Max(cells of the row, WIDE_FILTER_MAX_OUT) entries.
 *
 *
 * IDENTIFICATION
 *	  src/api/filter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/typcache.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "api/api.h"
#include "api/filter.h"

/*
 * Where a part of the filter is: a chain of steps from the root, on the
 * stack of parse().  The text form ($.chain[1].condition) is only built
 * for an error message, so that parsing stays linear in the nesting depth.
 */
typedef struct FilterPath
{
	const struct FilterPath *parent;
	const char *key;			/* a field name, or NULL: */
	int			index;			/* an array element */
} FilterPath;

/* the regexes of a parsed filter, freed with the memory they live in */
typedef struct FilterRegexes
{
	MemoryContextCallback cb;
	WideRe2   **re;
	int			n;
	int			cap;
} FilterRegexes;

/* what parse() carries down */
typedef struct ParseState
{
	const WideFilterContext *fc;
	FilterRegexes *regexes;
} ParseState;

/* the text form of a path */
static void
append_path(StringInfo buf, const FilterPath *path)
{
	if (path == NULL)
	{
		appendStringInfoChar(buf, '$');
		return;
	}
	append_path(buf, path->parent);
	if (path->key)
		appendStringInfo(buf, ".%s", path->key);
	else
		appendStringInfo(buf, "[%d]", path->index);
}

/* report a bad filter: the path of the bad part, and why */
static void
bad_filter(const FilterPath *path, const char *detail)
{
	StringInfoData buf;

	initStringInfo(&buf);
	append_path(&buf, path);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid row filter at %s", buf.data),
			 errdetail("%s", detail),
			 errhint("A filter is a JSON object with one key, as in Bigtable's RowFilter message, e.g. {\"family_name_regex_filter\": \"cf.*\"}.")));
}

/* ----------------------------------------------------------------
 *	Parsing
 * ----------------------------------------------------------------
 */

/* a JSON string as a palloc'd C string */
static char *
json_string(JsonbValue *v, const FilterPath *path, const char *what, int *len)
{
	char	   *s;

	if (v->type != jbvString)
		bad_filter(path, psprintf("%s must be a JSON string.", what));
	s = palloc(v->val.string.len + 1);
	memcpy(s, v->val.string.val, v->val.string.len);
	s[v->val.string.len] = '\0';
	if (len)
		*len = v->val.string.len;
	return s;
}

/* a JSON whole number of at least min */
static int64
json_int(JsonbValue *v, const FilterPath *path, const char *what, int64 min)
{
	int64		n;

	if (!WideJsonInt64(v, &n))
		bad_filter(path, psprintf("%s must be an integer.", what));
	if (n < min)
		bad_filter(path, psprintf("%s must be at least " INT64_FORMAT ", not " INT64_FORMAT ".",
								  what, min, n));
	return n;
}

/* memory context callback: free the regexes of a filter */
static void
free_regexes(void *arg)
{
	FilterRegexes *rs = (FilterRegexes *) arg;
	int			i;

	for (i = 0; i < rs->n; i++)
		wide_re2_free(rs->re[i]);
	rs->n = 0;
}

/*
 * compile an RE2 pattern (Bigtable's syntax and semantics: re2_shim.cpp).
 * The pattern is freed with the current memory context (see free_regexes).
 */
static WideRe2 *
compile_regex(ParseState *ps, const char *pattern, int len)
{
	FilterRegexes *rs = ps->regexes;
	WideRe2    *re;
	char		msg[200];

	/* room to remember it first: nothing may fail once it is compiled */
	if (rs->n == rs->cap)
	{
		rs->cap = rs->cap == 0 ? 8 : rs->cap * 2;
		rs->re = rs->re == NULL ? palloc(sizeof(WideRe2 *) * rs->cap) :
			repalloc(rs->re, sizeof(WideRe2 *) * rs->cap);
	}
	re = wide_re2_compile(pattern, len, msg, sizeof(msg));
	if (re == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
				 errmsg("invalid regular expression \"%.*s\": %s",
						Min(len, 200), pattern, msg),
				 errhint("Regex filters use RE2 syntax, as Bigtable does.")));
	rs->re[rs->n++] = re;
	return re;
}

/* does the whole of data match (as bytes)? */
static inline bool
regex_matches(const WideRe2 *re, const char *data, int len)
{
	return wide_re2_full_match(re, data, len);
}

/*
 * Is the regex a literal string (no character a regex treats specially)?
 * Then matching the whole of a string is comparing its bytes, which is what
 * a filter such as {"column_qualifier_regex_filter": "cpu/usr"} asks for
 * on every cell.
 */
static bool
regex_is_literal(const char *p, int len)
{
	int			i;

	for (i = 0; i < len; i++)
		if (strchr("\\^$.|?*+()[]{}", p[i]) != NULL || p[i] == '\0' ||
			IS_HIGHBIT_SET(p[i]))
			return false;
	return true;
}

/* does the whole of data match the filter's regex? */
static bool
filter_re(const WideFilter *f, const char *data, int len)
{
	if (f->lit)
		return len == f->litlen && memcmp(data, f->lit, len) == 0;
	return regex_matches(f->re, data, len);
}

/* a value bound, converted to the value column's type */
static Datum
value_bound(const WideFilterContext *fc, JsonbValue *v, const FilterPath *path)
{
	Oid			infunc,
				ioparam;
	char	   *s;

	if (v->type == jbvString)
		s = json_string(v, path, "a value bound", NULL);
	else if (v->type == jbvNumeric)
		s = DatumGetCString(DirectFunctionCall1(numeric_out,
												NumericGetDatum(v->val.numeric)));
	else
	{
		bad_filter(path, "A value bound must be a JSON string or number.");
		return (Datum) 0;
	}
	getTypeInputInfo(fc->valtype, &infunc, &ioparam);
	return OidInputFunctionCall(infunc, s, ioparam, -1);
}

static WideFilter *parse(ParseState *ps, JsonbValue *v, const FilterPath *path);

/* the sub-filters of chain or interleave */
static pg_noinline void
parse_list(ParseState *ps, WideFilter *f, JsonbValue *v, const FilterPath *path)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			n = 0;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		bad_filter(path, "chain and interleave take a JSON array of filters.");
	it = JsonbIteratorInit(v->val.binary.data);
	tok = JsonbIteratorNext(&it, &e, false);
	if (tok != WJB_BEGIN_ARRAY)
		bad_filter(path, "chain and interleave take a JSON array of filters.");
	f->children = palloc(sizeof(WideFilter *) * Max(e.val.array.nElems, 1));
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		FilterPath	sub;

		if (tok != WJB_ELEM)
			continue;
		sub.parent = path;
		sub.key = NULL;
		sub.index = n;
		f->children[n] = parse(ps, &e, &sub);
		n++;
	}
	f->nchildren = n;
}

/* the argument of a filter must be an object with only these fields */
static void
check_fields(JsonbValue *obj, const FilterPath *path, const char *const *allowed)
{
	char	   *bad;

	if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
		bad_filter(path, "This filter takes a JSON object.");
	if ((bad = WideJsonUnknownField(obj, allowed)) != NULL)
		bad_filter(path, WideUnknownNameDetail("field", bad, allowed));
}

/*
 * a qualifier bound: a JSON string, or {"base64": "..."} for bytes that
 * are not text (bigtable_json.c)
 */
static char *
qualifier_bound(JsonbValue *v, const FilterPath *path, int *len)
{
	char	   *b;

	if (WideJsonBase64Key(v, &b, len))
		return b;
	if (v->type != jbvString)
		bad_filter(path, "A qualifier must be a JSON string, or {\"base64\": \"...\"} for bytes that are not text.");
	return json_string(v, path, "A qualifier", len);
}

/* the bounds of a column_range_filter */
static void
parse_column_range(WideFilter *f, JsonbValue *arg, const FilterPath *sub)
{
	static const char *const ok[] = {"family_name", "start_qualifier_closed",
	"start_qualifier_open", "end_qualifier_closed", "end_qualifier_open", NULL};
	JsonbValue *p;

	check_fields(arg, sub, ok);
	f->kind = WF_COL_RANGE;
	if ((p = WideJsonField(arg, "family_name")) == NULL)
		bad_filter(sub, "A column range needs a family_name.");
	f->family = json_string(p, sub, "family_name", &f->familylen);
	if ((p = WideJsonField(arg, "start_qualifier_closed")) != NULL)
		f->lo = qualifier_bound(p, sub, &f->lolen), f->has_lo = f->lo_incl = true;
	if ((p = WideJsonField(arg, "start_qualifier_open")) != NULL)
	{
		if (f->has_lo)
			bad_filter(sub, "A range has one start.");
		f->lo = qualifier_bound(p, sub, &f->lolen), f->has_lo = true;
	}
	if ((p = WideJsonField(arg, "end_qualifier_closed")) != NULL)
		f->hi = qualifier_bound(p, sub, &f->hilen), f->has_hi = f->hi_incl = true;
	if ((p = WideJsonField(arg, "end_qualifier_open")) != NULL)
	{
		if (f->has_hi)
			bad_filter(sub, "A range has one end.");
		f->hi = qualifier_bound(p, sub, &f->hilen), f->has_hi = true;
	}
}

/* the bounds of a value_range_filter */
static void
parse_value_range(ParseState *ps, WideFilter *f, JsonbValue *arg, const FilterPath *sub)
{
	static const char *const ok[] = {"start_value_closed", "start_value_open",
	"end_value_closed", "end_value_open", NULL};
	const WideFilterContext *fc = ps->fc;
	JsonbValue *p;
	TypeCacheEntry *tc = lookup_type_cache(fc->valtype, TYPECACHE_CMP_PROC_FINFO);

	check_fields(arg, sub, ok);
	if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
		bad_filter(sub, psprintf("Values of type %s have no order.",
								 format_type_be(fc->valtype)));
	f->kind = WF_VALUE_RANGE;
	f->cmp = &tc->cmp_proc_finfo;
	if ((p = WideJsonField(arg, "start_value_closed")) != NULL)
		f->vlo = value_bound(fc, p, sub), f->has_lo = f->lo_incl = true;
	if ((p = WideJsonField(arg, "start_value_open")) != NULL)
	{
		if (f->has_lo)
			bad_filter(sub, "A range has one start.");
		f->vlo = value_bound(fc, p, sub), f->has_lo = true;
	}
	if ((p = WideJsonField(arg, "end_value_closed")) != NULL)
		f->vhi = value_bound(fc, p, sub), f->has_hi = f->hi_incl = true;
	if ((p = WideJsonField(arg, "end_value_open")) != NULL)
	{
		if (f->has_hi)
			bad_filter(sub, "A range has one end.");
		f->vhi = value_bound(fc, p, sub), f->has_hi = true;
	}
}

/* the range of a timestamp_range_filter */
static void
parse_ts_range(WideFilter *f, JsonbValue *arg, const FilterPath *sub)
{
	static const char *const ok[] = {"start_timestamp_micros", "end_timestamp_micros", NULL};
	JsonbValue *p;

	check_fields(arg, sub, ok);
	f->kind = WF_TS_RANGE;
	f->ts_from = 0;
	f->ts_to = WIDE_TS_NO_END;
	if ((p = WideJsonField(arg, "start_timestamp_micros")) != NULL)
		f->ts_from = json_int(p, sub, "start_timestamp_micros", 0);
	if ((p = WideJsonField(arg, "end_timestamp_micros")) != NULL)
	{
		f->ts_to = json_int(p, sub, "end_timestamp_micros", 0);
		if (f->ts_to == 0)
			f->ts_to = WIDE_TS_NO_END;	/* 0: no end, as in Bigtable */
	}
	if (f->ts_to < f->ts_from)
		bad_filter(sub, "The timestamp range ends before it starts.");
}

/* a condition's sub-filters */
static pg_noinline void
parse_condition(ParseState *ps, WideFilter *f, JsonbValue *arg, const FilterPath *path)
{
	static const char *const ok[] = {"predicate_filter", "predicate", "true_filter",
	"false_filter", NULL};
	static const char *const fields[] = {"predicate_filter", "true_filter", "false_filter"};
	FilterPath	sub;
	int			i;

	check_fields(arg, path, ok);
	f->kind = WF_CONDITION;
	f->nchildren = 3;
	f->children = palloc0(sizeof(WideFilter *) * 3);
	sub.parent = path;
	sub.index = -1;
	for (i = 0; i < 3; i++)
	{
		JsonbValue *p;

		sub.key = fields[i];
		p = WideJsonField(arg, sub.key);
		if (p == NULL && i == 0)
		{
			sub.key = "predicate";
			p = WideJsonField(arg, sub.key);
		}
		if (p == NULL && i == 0)
			bad_filter(path, "A condition needs a predicate_filter.");
		if (p != NULL)
			f->children[i] = parse(ps, p, &sub);
	}
}

/* a filter that has no sub-filters */
/* every filter name, for suggesting the nearest to a mistyped one */
static const char *const filter_names[] = {
	"chain", "interleave", "condition", "pass_all_filter", "block_all_filter",
	"strip_value_transformer", "row_key_regex_filter", "family_name_regex_filter",
	"column_qualifier_regex_filter", "value_regex_filter", "row_sample_filter",
	"cells_per_row_offset_filter", "cells_per_row_limit_filter",
	"cells_per_column_limit_filter", "timestamp_range_filter",
	"column_range_filter", "value_range_filter", "apply_label_transformer",
	"sink", NULL
};

static pg_noinline void
parse_leaf(ParseState *ps, WideFilter *f, const char *name, JsonbValue *arg,
		   const FilterPath *sub)
{
	if (strcmp(name, "pass_all_filter") == 0 || strcmp(name, "block_all_filter") == 0 ||
		strcmp(name, "strip_value_transformer") == 0)
	{
		if (arg->type != jbvBool || !arg->val.boolean)
			bad_filter(sub, "This filter takes the value true.");
		f->kind = name[0] == 'p' ? WF_PASS : name[0] == 'b' ? WF_BLOCK : WF_STRIP;
	}
	else if (strcmp(name, "row_key_regex_filter") == 0 ||
			 strcmp(name, "family_name_regex_filter") == 0 ||
			 strcmp(name, "column_qualifier_regex_filter") == 0 ||
			 strcmp(name, "value_regex_filter") == 0)
	{
		int			len;
		char	   *re = json_string(arg, sub, "A regex", &len);

		f->kind = name[0] == 'r' ? WF_ROW_KEY_RE : name[0] == 'f' ? WF_FAMILY_RE :
			name[0] == 'c' ? WF_QUAL_RE : WF_VALUE_RE;
		f->re = compile_regex(ps, re, len);
		if (regex_is_literal(re, len))
		{
			f->lit = re;
			f->litlen = len;
		}
	}
	else if (strcmp(name, "row_sample_filter") == 0)
	{
		if (arg->type != jbvNumeric)
			bad_filter(sub, "row_sample_filter takes a probability.");
		f->kind = WF_ROW_SAMPLE;
		f->p = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
												  NumericGetDatum(arg->val.numeric)));
		if (!(f->p > 0.0 && f->p < 1.0))
			bad_filter(sub, "A row sample probability is greater than 0 and less than 1.");
	}
	else if (strcmp(name, "cells_per_row_offset_filter") == 0 ||
			 strcmp(name, "cells_per_row_limit_filter") == 0 ||
			 strcmp(name, "cells_per_column_limit_filter") == 0)
	{
		f->kind = strcmp(name, "cells_per_row_offset_filter") == 0 ? WF_ROW_OFFSET :
			strcmp(name, "cells_per_row_limit_filter") == 0 ? WF_ROW_LIMIT : WF_COL_LIMIT;
		f->n = json_int(arg, sub, name, f->kind == WF_ROW_OFFSET ? 0 : 1);
	}
	else if (strcmp(name, "timestamp_range_filter") == 0)
		parse_ts_range(f, arg, sub);
	else if (strcmp(name, "column_range_filter") == 0)
		parse_column_range(f, arg, sub);
	else if (strcmp(name, "value_range_filter") == 0)
		parse_value_range(ps, f, arg, sub);
	else if (strcmp(name, "apply_label_transformer") == 0)
	{
		f->kind = WF_LABEL;
		f->label = json_string(arg, sub, "A label", NULL);
	}
	else if (strcmp(name, "sink") == 0)
		bad_filter(sub, "The sink filter is not supported.");
	else
		bad_filter(sub, WideUnknownNameDetail("filter", name, filter_names));
}

/* the one key of a filter object, and its value in *arg */
static pg_noinline char *
filter_key(JsonbValue *v, const FilterPath *path, JsonbValue *arg)
{
	int			nkeys;
	char	   *name = WideJsonOneKey(v, arg, &nkeys);

	if (nkeys < 0)
		bad_filter(path, "A filter must be a JSON object.");
	if (nkeys != 1)
		bad_filter(path, psprintf("A filter object has exactly one key, not %d.", nkeys));
	return name;
}

/*
 * parse -- one filter object, and everything under it.  It recurses once
 * per level of nesting, through small frames: a 6,000 deep condition fits
 * in the default max_stack_depth; deeper nesting fails cleanly.
 */
static WideFilter *
parse(ParseState *ps, JsonbValue *v, const FilterPath *path)
{
	WideFilter *f;
	JsonbValue	arg;
	FilterPath	sub;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();

	sub.key = filter_key(v, path, &arg);
	sub.parent = path;
	sub.index = -1;
	f = palloc0(sizeof(WideFilter));
	if (strcmp(sub.key, "chain") == 0 || strcmp(sub.key, "interleave") == 0)
	{
		f->kind = sub.key[0] == 'c' ? WF_CHAIN : WF_INTERLEAVE;
		parse_list(ps, f, &arg, &sub);
	}
	else if (strcmp(sub.key, "condition") == 0)
		parse_condition(ps, f, &arg, &sub);
	else
		parse_leaf(ps, f, sub.key, &arg, &sub);
	return f;
}

/*
 * WideFilterParse -- a filter from its JSON form; errors name the path of
 * the bad part ($.chain[1].column_range_filter, ...).  The filter lives in
 * the current memory context; its regexes are freed when that context is
 * reset or deleted.
 */
WideFilter *
WideFilterParse(const WideFilterContext *fc, Jsonb *json)
{
	JsonbValue	v;
	ParseState	ps;
	FilterRegexes *rs;

	/* registered first, so that an error while parsing frees them too */
	rs = palloc0(sizeof(FilterRegexes));
	rs->cb.func = free_regexes;
	rs->cb.arg = rs;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &rs->cb);
	ps.fc = fc;
	ps.regexes = rs;
	json = WideBigtableJson(json, fc->valtype);	/* proto3 JSON, if it is */

	v.type = jbvBinary;
	v.val.binary.data = &json->root;
	v.val.binary.len = VARSIZE(json) - VARHDRSZ;
	if (JB_ROOT_IS_SCALAR(json))
		bad_filter(NULL, "A filter must be a JSON object.");
	return parse(&ps, &v, NULL);
}

/* ----------------------------------------------------------------
 *	Applying
 * ----------------------------------------------------------------
 */

/* what apply() carries down */
typedef struct ApplyState
{
	const WideFilterContext *fc;
	const WideRowCell *cells;
	int64		maxout;			/* most output entries of one step */
} ApplyState;

/* is a cell's value in a value_range_filter's range? */
static bool
value_in_range(const WideFilter *f, const WideRowCell *c)
{
	int			r;

	if (c->isnull)
		return false;
	if (f->has_lo)
	{
		r = DatumGetInt32(FunctionCall2Coll(f->cmp, C_COLLATION_OID, c->value, f->vlo));
		if (r < 0 || (r == 0 && !f->lo_incl))
			return false;
	}
	if (f->has_hi)
	{
		r = DatumGetInt32(FunctionCall2Coll(f->cmp, C_COLLATION_OID, c->value, f->vhi));
		if (r > 0 || (r == 0 && !f->hi_incl))
			return false;
	}
	return true;
}

/* does a single cell pass a per-cell filter? */
static bool
cell_passes(const WideFilterContext *fc, const WideFilter *f, const WideRowCell *c)
{
	switch (f->kind)
	{
		case WF_FAMILY_RE:
			return filter_re(f, c->family, c->familylen);
		case WF_QUAL_RE:
			return filter_re(f, c->qual, c->quallen);
		case WF_COL_RANGE:
			{
				int			r;

				if (WideKeyCompare(c->family, c->familylen, f->family, f->familylen) != 0)
					return false;
				if (f->has_lo)
				{
					r = WideKeyCompare(c->qual, c->quallen, f->lo, f->lolen);
					if (r < 0 || (r == 0 && !f->lo_incl))
						return false;
				}
				if (f->has_hi)
				{
					r = WideKeyCompare(c->qual, c->quallen, f->hi, f->hilen);
					if (r > 0 || (r == 0 && !f->hi_incl))
						return false;
				}
				return true;
			}
		case WF_TS_RANGE:
			return WideTsInRange(c->ts, f->ts_from, f->ts_to);
		case WF_VALUE_RE:
			{
				char	   *s;

				if (c->isnull)
					return false;
				if (fc->valtype == BYTEAOID || fc->valtype == TEXTOID ||
					fc->valtype == VARCHAROID)
				{
					struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(c->value));

					return filter_re(f, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
				}
				s = OidOutputFunctionCall(fc->valout, c->value);
				return filter_re(f, s, strlen(s));
			}
		case WF_VALUE_RANGE:
			return value_in_range(f, c);
		default:
			elog(ERROR, "filter %d is not a cell filter", (int) f->kind);
	}
	return false;
}

/* order of interleaved outputs: by cell, then by branch and place */
static int
out_cmp(const void *a, const void *b)
{
	const WideRowOut *x = (const WideRowOut *) a;
	const WideRowOut *y = (const WideRowOut *) b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * The entries a filter step works on.  "owned": e is a palloc'd array the
 * step may change, shrink or free; otherwise it belongs to a caller that
 * still needs it (a condition's predicate and every interleave branch see
 * their input this way), and a step that changes entries copies them
 * first.  So nesting costs no copies unless a step changes something.
 */
typedef struct Outs
{
	WideRowOut *e;
	int			n;
	bool		owned;
} Outs;

/* make the entries the step's own to change */
static void
make_writable(Outs *io)
{
	WideRowOut *copy;

	if (io->owned)
		return;
	copy = MemoryContextAllocHuge(CurrentMemoryContext,
								  sizeof(WideRowOut) * (Size) Max(io->n, 1));
	memcpy(copy, io->e, sizeof(WideRowOut) * (Size) io->n);
	io->e = copy;
	io->owned = true;
}

/* done with a step's output */
static void
release(Outs *o)
{
	if (o->owned)
		pfree(o->e);
	o->e = NULL;
	o->n = 0;
	o->owned = false;
}

static void apply_interleave(ApplyState *as, const WideFilter *f, Outs *io);

/*
 * apply -- replace the entries *io (in cell order) by the output of filter
 * f on them, in cell order.  Memory comes from the current (per-row)
 * context.
 */
static void
apply(ApplyState *as, const WideFilter *f, Outs *io)
{
	const WideFilterContext *fc = as->fc;
	int			i,
				k = 0;

	check_stack_depth();
	if (io->n == 0)
		return;					/* nothing in, nothing out */
	switch (f->kind)
	{
		case WF_PASS:
			return;
		case WF_BLOCK:
			io->n = 0;
			return;
		case WF_CHAIN:
			for (i = 0; i < f->nchildren && io->n > 0; i++)
				apply(as, f->children[i], io);
			return;
		case WF_INTERLEAVE:
			apply_interleave(as, f, io);
			return;
		case WF_CONDITION:
			{
				Outs		p = {io->e, io->n, false};
				const WideFilter *branch;

				apply(as, f->children[0], &p);
				branch = p.n > 0 ? f->children[1] : f->children[2];
				release(&p);
				if (branch == NULL)
					io->n = 0;
				else
					apply(as, branch, io);
				return;
			}
		case WF_ROW_KEY_RE:
			/* every cell of a row has the row's key */
			if (!filter_re(f, fc->row, fc->rowlen))
				io->n = 0;
			return;
		case WF_ROW_SAMPLE:
			if (!(pg_prng_double(&pg_global_prng_state) < f->p))
				io->n = 0;
			return;
		case WF_ROW_OFFSET:
			if (f->n >= io->n)
				io->n = 0;
			else if (io->owned)
			{
				io->n -= (int) f->n;
				memmove(io->e, io->e + f->n, sizeof(WideRowOut) * (Size) io->n);
			}
			else
			{
				io->e += f->n;
				io->n -= (int) f->n;
			}
			return;
		case WF_ROW_LIMIT:
			io->n = (int) Min((int64) io->n, f->n);
			return;
		case WF_COL_LIMIT:
			{
				int64		count = 0;
				const WideRowCell *prev = NULL;

				make_writable(io);
				for (i = 0; i < io->n; i++)
				{
					const WideRowCell *c = &as->cells[io->e[i].cell];

					if (prev == NULL ||
						WideKeyCompare(c->family, c->familylen, prev->family, prev->familylen) != 0 ||
						WideKeyCompare(c->qual, c->quallen, prev->qual, prev->quallen) != 0)
						count = 0;
					prev = c;
					if (count++ < f->n)
						io->e[k++] = io->e[i];
				}
				io->n = k;
				return;
			}
		case WF_STRIP:
			make_writable(io);
			for (i = 0; i < io->n; i++)
				io->e[i].strip = true;
			return;
		case WF_LABEL:
			{
				WideLabel  *l;

				make_writable(io);
				l = MemoryContextAllocHuge(CurrentMemoryContext,
										   sizeof(WideLabel) * (Size) io->n);
				for (i = 0; i < io->n; i++)
				{
					l[i].label = f->label;
					l[i].prev = io->e[i].labels;
					io->e[i].labels = &l[i];
					io->e[i].nlabels++;
				}
				return;
			}
		default:
			make_writable(io);
			for (i = 0; i < io->n; i++)
			{
				CHECK_FOR_INTERRUPTS();
				if (cell_passes(fc, f, &as->cells[io->e[i].cell]))
					io->e[k++] = io->e[i];
			}
			io->n = k;
			return;
	}
}

/*
 * apply_interleave -- each branch filters the input; the outputs are
 * merged in cell order, the cells of earlier branches first.  Outputs can
 * outnumber the input (a branch may itself interleave), so the result
 * grows as needed, up to as->maxout entries.
 */
static void
apply_interleave(ApplyState *as, const WideFilter *f, Outs *io)
{
	WideRowOut *out = NULL;
	int64		total = 0,
				cap = 0;
	int			i,
				j;

	if (f->nchildren == 0)
	{
		io->n = 0;
		return;
	}
	if (f->nchildren == 1)
	{
		apply(as, f->children[0], io);
		return;
	}
	for (i = 0; i < f->nchildren; i++)
	{
		Outs		b = {io->e, io->n, false};

		CHECK_FOR_INTERRUPTS();
		apply(as, f->children[i], &b);
		if (total + b.n > as->maxout)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("row filter output for row \"%.*s\" exceeds " INT64_FORMAT " cells",
							Min(as->fc->rowlen, 64), as->fc->row, as->maxout),
					 errdetail("An interleave outputs each cell once per branch that passes it; nested interleaves multiply the output."),
					 errhint("Use fewer or less nested interleave branches.")));
		if (total + b.n > cap)
		{
			int64		newcap = Min(Max(total + b.n, cap * 2), as->maxout);

			if (out == NULL)
				out = MemoryContextAllocHuge(CurrentMemoryContext,
											 sizeof(WideRowOut) * (Size) newcap);
			else
				out = repalloc_huge(out, sizeof(WideRowOut) * (Size) newcap);
			cap = newcap;
		}
		for (j = 0; j < b.n; j++)
		{
			out[total] = b.e[j];
			out[total].order = (int) total;
			total++;
		}
		release(&b);
	}
	release(io);
	if (out != NULL)
	{
		qsort(out, (size_t) total, sizeof(WideRowOut), out_cmp);
		io->e = out;
		io->n = (int) total;
		io->owned = true;
	}
}

/*
 * WideFilterApply -- filter one row's cells; returns the output entries
 * (*nout of them), allocated in the current memory context.  A NULL filter
 * passes everything.
 */
WideRowOut *
WideFilterApply(const WideFilterContext *fc, const WideFilter *f,
				const WideRowCell *cells, int n, int *nout)
{
	WideRowOut *in = MemoryContextAllocHuge(CurrentMemoryContext,
											sizeof(WideRowOut) * (Size) Max(n, 1));
	ApplyState	as;
	Outs		io;
	int			i;

	for (i = 0; i < n; i++)
	{
		in[i].cell = i;
		in[i].order = 0;
		in[i].strip = false;
		in[i].nlabels = 0;
		in[i].labels = NULL;
	}
	*nout = n;
	if (f == NULL)
		return in;
	as.fc = fc;
	as.cells = cells;
	as.maxout = Max((int64) n, WIDE_FILTER_MAX_OUT);
	io.e = in;
	io.n = n;
	io.owned = true;
	apply(&as, f, &io);
	*nout = io.n;
	return io.e ? io.e : palloc(sizeof(WideRowOut));
}

/*
 * Does filter f keep or drop whole columns of whole rows, whatever their
 * cells' timestamps and values: the same columns from a row cut to its
 * first cells of each column as from the row?
 */
static bool
keeps_whole_columns(const WideFilter *f)
{
	int			i;

	switch (f->kind)
	{
		case WF_PASS:
		case WF_ROW_KEY_RE:
		case WF_FAMILY_RE:
		case WF_QUAL_RE:
		case WF_COL_RANGE:
			return true;
		case WF_CHAIN:
			for (i = 0; i < f->nchildren; i++)
				if (!keeps_whole_columns(f->children[i]))
					return false;
			return true;
		default:
			return false;
	}
}

/*
 * WideFilterColumnLimit -- n if the filter's output is made of the first n
 * cells of each column of the row (0 if not known to be): a
 * cells_per_column_limit_filter, or a chain that reaches one through
 * filters that keep or drop whole columns only (keeps_whole_columns), and
 * at most one timestamp_range_filter (the window of WideFilterTsWindow: the
 * reader returns the window's cells only, so the first n are the window's).
 * Whatever follows in the chain sees only the cut rows.  A reader may then
 * skip the rest of each column (WideReaderLatest) without changing the
 * output: the filter still runs, on rows that hold every cell it keeps.
 */
int
WideFilterColumnLimit(const WideFilter *f)
{
	int			i;
	bool		seen_range = false;

	if (f == NULL)
		return 0;
	if (f->kind == WF_COL_LIMIT)
		return f->n <= INT_MAX ? (int) f->n : 0;
	if (f->kind != WF_CHAIN)
		return 0;
	for (i = 0; i < f->nchildren; i++)
	{
		const WideFilter *c = f->children[i];

		if (c->kind == WF_COL_LIMIT)
			return c->n <= INT_MAX ? (int) c->n : 0;
		/* the first range is the window (WideFilterTsWindow), no other */
		if (c->kind == WF_TS_RANGE && !seen_range)
			seen_range = true;
		else if (!keeps_whole_columns(c))
			return 0;
	}
	return 0;
}

/*
 * WideFilterTsWindow -- the timestamps outside which no cell can affect the
 * filter's output, if the filter has such a window: a
 * timestamp_range_filter, a chain that starts with one (what follows sees
 * only its cells) -- or with one after filters that keep whole columns,
 * which commute with it -- or whose first other filter has a window, or
 * an interleave whose every branch has a window (their hull).  A reader
 * may then skip what time pruning allows (tsprune.c).
 */
bool
WideFilterTsWindow(const WideFilter *f, WideTsWindow *w)
{
	int			i;

	if (f == NULL)
		return false;
	switch (f->kind)
	{
		case WF_TS_RANGE:
			w->lo = f->ts_from;
			w->hi = f->ts_to == WIDE_TS_NO_END ? PG_INT64_MAX : f->ts_to - 1;
			return true;
		case WF_CHAIN:
			/* (filters of whole columns commute with the range) */
			for (i = 0; i < f->nchildren; i++)
			{
				if (f->children[i]->kind == WF_TS_RANGE)
					return WideFilterTsWindow(f->children[i], w);
				if (!keeps_whole_columns(f->children[i]))
					return WideFilterTsWindow(f->children[i], w);
			}
			return false;
		case WF_INTERLEAVE:
			if (f->nchildren == 0)
				return false;
			for (i = 0; i < f->nchildren; i++)
			{
				WideTsWindow b;

				if (!WideFilterTsWindow(f->children[i], &b))
					return false;
				w->lo = i == 0 ? b.lo : Min(w->lo, b.lo);
				w->hi = i == 0 ? b.hi : Max(w->hi, b.hi);
			}
			return true;
		default:
			return false;
	}
}
