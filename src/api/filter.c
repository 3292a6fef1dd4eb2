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
 *	                                "end_timestamp_micros" (excluded)}
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
 * IDENTIFICATION
 *	  src/api/filter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "mb/pg_wchar.h"
#include "regex/regex.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/typcache.h"

#include "wide.h"
#include "wide_filter.h"

static void
bad_filter(const char *path, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid row filter at %s", path),
			 errdetail("%s", detail),
			 errhint("A filter is a JSON object with one key, as in Bigtable's RowFilter message, e.g. {\"family_name_regex_filter\": \"cf.*\"}.")));
}

/* ----------------------------------------------------------------
 *	Parsing
 * ----------------------------------------------------------------
 */

/* a JSON string as a palloc'd C string */
static char *
json_string(JsonbValue *v, const char *path, const char *what, int *len)
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

static int64
json_int(JsonbValue *v, const char *path, const char *what, int64 min)
{
	int64		n;

	if (!WideJsonInt64(v, &n))
		bad_filter(path, psprintf("%s must be an integer.", what));
	if (n < min)
		bad_filter(path, psprintf("%s must be at least " INT64_FORMAT ", not " INT64_FORMAT ".",
								  what, min, n));
	return n;
}

/*
 * compile a regex for whole-string matching; a leading embedded-options
 * group such as (?s) stays in front
 */
static regex_t *
compile_regex(const char *pattern, int len)
{
	StringInfoData buf;
	int			opts = 0;

	if (len >= 3 && pattern[0] == '(' && pattern[1] == '?')
	{
		int			i = 2;

		while (i < len && pattern[i] >= 'a' && pattern[i] <= 'z')
			i++;
		if (i < len && pattern[i] == ')' && i > 2)
			opts = i + 1;
	}
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, pattern, opts);
	appendStringInfoString(&buf, "^(?:");
	appendBinaryStringInfo(&buf, pattern + opts, len - opts);
	appendStringInfoString(&buf, ")$");

	/*
	 * Compiled here rather than through RE_compile_and_cache, whose results
	 * move in its cache as other regexes are compiled.
	 */
	{
		regex_t    *re = palloc(sizeof(regex_t));
		pg_wchar   *w = palloc((buf.len + 1) * sizeof(pg_wchar));
		int			wlen = pg_mb2wchar_with_len(buf.data, w, buf.len);
		int			rc = pg_regcomp(re, w, wlen, REG_ADVANCED | REG_NLSTOP,
									C_COLLATION_OID);

		if (rc != REG_OKAY)
		{
			char		msg[100];

			pg_regerror(rc, re, msg, sizeof(msg));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
					 errmsg("invalid regular expression \"%.*s\": %s", len, pattern, msg)));
		}
		pfree(w);
		return re;
	}
}

static bool
regex_matches(regex_t *re, const char *data, int len)
{
	pg_wchar   *w;
	int			wlen;
	int			rc;

	if (pg_verifymbstr(data, len, true) == false)
		return false;			/* not text in the database encoding */
	w = palloc((len + 1) * sizeof(pg_wchar));
	wlen = pg_mb2wchar_with_len(data, w, len);
	rc = pg_regexec(re, w, wlen, 0, NULL, 0, NULL, 0);
	pfree(w);
	if (rc == REG_OKAY)
		return true;
	if (rc != REG_NOMATCH)
	{
		char		msg[100];

		pg_regerror(rc, re, msg, sizeof(msg));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
				 errmsg("regular expression failed: %s", msg)));
	}
	return false;
}

/* a value bound, converted to the value column's type */
static Datum
value_bound(const WideFilterContext *fc, JsonbValue *v, const char *path)
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

static WideFilter *parse(const WideFilterContext *fc, JsonbValue *v, const char *path);

/* the sub-filters of chain or interleave */
static void
parse_list(const WideFilterContext *fc, WideFilter *f, JsonbValue *v, const char *path)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			n = 0;

	if (v->type != jbvBinary)
		bad_filter(path, "chain and interleave take a JSON array of filters.");
	it = JsonbIteratorInit(v->val.binary.data);
	tok = JsonbIteratorNext(&it, &e, false);
	if (tok != WJB_BEGIN_ARRAY)
		bad_filter(path, "chain and interleave take a JSON array of filters.");
	f->children = palloc(sizeof(WideFilter *) * Max(e.val.array.nElems, 1));
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_END_ARRAY)
	{
		if (tok != WJB_ELEM)
			continue;
		f->children[n] = parse(fc, &e, psprintf("%s[%d]", path, n));
		n++;
	}
	f->nchildren = n;
}


static void
check_fields(JsonbValue *obj, const char *path, const char *const *allowed)
{
	char	   *bad;

	if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
		bad_filter(path, "This filter takes a JSON object.");
	if ((bad = WideJsonUnknownField(obj, allowed)) != NULL)
		bad_filter(path, psprintf("Unknown field \"%s\".", bad));
}

static WideFilter *
parse(const WideFilterContext *fc, JsonbValue *v, const char *path)
{
	WideFilter *f = palloc0(sizeof(WideFilter));
	JsonbIterator *it;
	JsonbValue	k,
				arg;
	JsonbIteratorToken tok;
	char	   *name;
	char	   *sub;
	int			nkeys = 0;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		bad_filter(path, "A filter must be a JSON object.");
	it = JsonbIteratorInit(v->val.binary.data);
	name = NULL;
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			nkeys++;
			name = pnstrdup(k.val.string.val, k.val.string.len);
			tok = JsonbIteratorNext(&it, &arg, true);
			Assert(tok == WJB_VALUE);
		}
	}
	if (nkeys != 1)
		bad_filter(path, psprintf("A filter object has exactly one key, not %d.", nkeys));
	sub = psprintf("%s.%s", path, name);

	if (strcmp(name, "chain") == 0 || strcmp(name, "interleave") == 0)
	{
		f->kind = name[0] == 'c' ? WF_CHAIN : WF_INTERLEAVE;
		parse_list(fc, f, &arg, sub);
	}
	else if (strcmp(name, "condition") == 0)
	{
		static const char *const ok[] = {"predicate_filter", "predicate", "true_filter",
		"false_filter", NULL};
		JsonbValue *p;

		check_fields(&arg, sub, ok);
		f->kind = WF_CONDITION;
		f->nchildren = 3;
		f->children = palloc0(sizeof(WideFilter *) * 3);
		p = WideJsonField(&arg, "predicate_filter");
		if (p == NULL)
			p = WideJsonField(&arg, "predicate");
		if (p == NULL)
			bad_filter(sub, "A condition needs a predicate_filter.");
		f->children[0] = parse(fc, p, psprintf("%s.predicate_filter", sub));
		if ((p = WideJsonField(&arg, "true_filter")) != NULL)
			f->children[1] = parse(fc, p, psprintf("%s.true_filter", sub));
		if ((p = WideJsonField(&arg, "false_filter")) != NULL)
			f->children[2] = parse(fc, p, psprintf("%s.false_filter", sub));
	}
	else if (strcmp(name, "pass_all_filter") == 0 || strcmp(name, "block_all_filter") == 0 ||
			 strcmp(name, "strip_value_transformer") == 0)
	{
		if (arg.type != jbvBool || !arg.val.boolean)
			bad_filter(sub, "This filter takes the value true.");
		f->kind = name[0] == 'p' ? WF_PASS : name[0] == 'b' ? WF_BLOCK : WF_STRIP;
	}
	else if (strcmp(name, "row_key_regex_filter") == 0 ||
			 strcmp(name, "family_name_regex_filter") == 0 ||
			 strcmp(name, "column_qualifier_regex_filter") == 0 ||
			 strcmp(name, "value_regex_filter") == 0)
	{
		int			len;
		char	   *re = json_string(&arg, sub, "A regex", &len);

		f->kind = name[0] == 'r' ? WF_ROW_KEY_RE : name[0] == 'f' ? WF_FAMILY_RE :
			name[0] == 'c' ? WF_QUAL_RE : WF_VALUE_RE;
		f->re = compile_regex(re, len);
	}
	else if (strcmp(name, "row_sample_filter") == 0)
	{
		if (arg.type != jbvNumeric)
			bad_filter(sub, "row_sample_filter takes a probability.");
		f->kind = WF_ROW_SAMPLE;
		f->p = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
												  NumericGetDatum(arg.val.numeric)));
		if (!(f->p > 0.0 && f->p < 1.0))
			bad_filter(sub, "A row sample probability is greater than 0 and less than 1.");
	}
	else if (strcmp(name, "cells_per_row_offset_filter") == 0 ||
			 strcmp(name, "cells_per_row_limit_filter") == 0 ||
			 strcmp(name, "cells_per_column_limit_filter") == 0)
	{
		f->kind = strcmp(name, "cells_per_row_offset_filter") == 0 ? WF_ROW_OFFSET :
			strcmp(name, "cells_per_row_limit_filter") == 0 ? WF_ROW_LIMIT : WF_COL_LIMIT;
		f->n = json_int(&arg, sub, name, f->kind == WF_ROW_OFFSET ? 0 : 1);
	}
	else if (strcmp(name, "timestamp_range_filter") == 0)
	{
		static const char *const ok[] = {"start_timestamp_micros", "end_timestamp_micros", NULL};
		JsonbValue *p;

		check_fields(&arg, sub, ok);
		f->kind = WF_TS_RANGE;
		f->ts_from = 0;
		f->ts_to = PG_INT64_MAX;
		if ((p = WideJsonField(&arg, "start_timestamp_micros")) != NULL)
			f->ts_from = json_int(p, sub, "start_timestamp_micros", 0);
		if ((p = WideJsonField(&arg, "end_timestamp_micros")) != NULL)
		{
			f->ts_to = json_int(p, sub, "end_timestamp_micros", 0);
			if (f->ts_to == 0)
				f->ts_to = PG_INT64_MAX;	/* 0: no end, as in Bigtable */
		}
		if (f->ts_to < f->ts_from)
			bad_filter(sub, "The timestamp range ends before it starts.");
	}
	else if (strcmp(name, "column_range_filter") == 0)
	{
		static const char *const ok[] = {"family_name", "start_qualifier_closed",
			"start_qualifier_open", "end_qualifier_closed", "end_qualifier_open", NULL};
		JsonbValue *p;

		check_fields(&arg, sub, ok);
		f->kind = WF_COL_RANGE;
		if ((p = WideJsonField(&arg, "family_name")) == NULL)
			bad_filter(sub, "A column range needs a family_name.");
		f->family = json_string(p, sub, "family_name", &f->familylen);
		if ((p = WideJsonField(&arg, "start_qualifier_closed")) != NULL)
			f->lo = json_string(p, sub, "A qualifier", &f->lolen), f->has_lo = f->lo_incl = true;
		if ((p = WideJsonField(&arg, "start_qualifier_open")) != NULL)
		{
			if (f->has_lo)
				bad_filter(sub, "A range has one start.");
			f->lo = json_string(p, sub, "A qualifier", &f->lolen), f->has_lo = true;
		}
		if ((p = WideJsonField(&arg, "end_qualifier_closed")) != NULL)
			f->hi = json_string(p, sub, "A qualifier", &f->hilen), f->has_hi = f->hi_incl = true;
		if ((p = WideJsonField(&arg, "end_qualifier_open")) != NULL)
		{
			if (f->has_hi)
				bad_filter(sub, "A range has one end.");
			f->hi = json_string(p, sub, "A qualifier", &f->hilen), f->has_hi = true;
		}
	}
	else if (strcmp(name, "value_range_filter") == 0)
	{
		static const char *const ok[] = {"start_value_closed", "start_value_open",
		"end_value_closed", "end_value_open", NULL};
		JsonbValue *p;
		TypeCacheEntry *tc = lookup_type_cache(fc->valtype, TYPECACHE_CMP_PROC_FINFO);

		check_fields(&arg, sub, ok);
		if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
			bad_filter(sub, psprintf("Values of type %s have no order.",
									 format_type_be(fc->valtype)));
		f->kind = WF_VALUE_RANGE;
		f->cmp = &tc->cmp_proc_finfo;
		if ((p = WideJsonField(&arg, "start_value_closed")) != NULL)
			f->vlo = value_bound(fc, p, sub), f->has_lo = f->lo_incl = true;
		if ((p = WideJsonField(&arg, "start_value_open")) != NULL)
		{
			if (f->has_lo)
				bad_filter(sub, "A range has one start.");
			f->vlo = value_bound(fc, p, sub), f->has_lo = true;
		}
		if ((p = WideJsonField(&arg, "end_value_closed")) != NULL)
			f->vhi = value_bound(fc, p, sub), f->has_hi = f->hi_incl = true;
		if ((p = WideJsonField(&arg, "end_value_open")) != NULL)
		{
			if (f->has_hi)
				bad_filter(sub, "A range has one end.");
			f->vhi = value_bound(fc, p, sub), f->has_hi = true;
		}
	}
	else if (strcmp(name, "apply_label_transformer") == 0)
	{
		f->kind = WF_LABEL;
		f->label = json_string(&arg, sub, "A label", NULL);
	}
	else if (strcmp(name, "sink") == 0)
		bad_filter(sub, "The sink filter is not supported.");
	else
		bad_filter(sub, psprintf("Unknown filter \"%s\".", name));
	return f;
}

/*
 * WideFilterParse -- a filter from its JSON form; errors name the path of
 * the bad part ($.chain[1].column_range_filter, ...).
 */
WideFilter *
WideFilterParse(const WideFilterContext *fc, Jsonb *json)
{
	JsonbValue	v;

	v.type = jbvBinary;
	v.val.binary.data = &json->root;
	v.val.binary.len = VARSIZE(json) - VARHDRSZ;
	if (JB_ROOT_IS_SCALAR(json))
		bad_filter("$", "A filter must be a JSON object.");
	return parse(fc, &v, "$");
}

/* ----------------------------------------------------------------
 *	Applying
 * ----------------------------------------------------------------
 */


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
			return regex_matches(f->re, c->family, c->familylen);
		case WF_QUAL_RE:
			return regex_matches(f->re, c->qual, c->quallen);
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
			return c->ts >= f->ts_from && c->ts < f->ts_to;
		case WF_VALUE_RE:
			{
				char	   *s;

				if (c->isnull)
					return false;
				if (fc->valtype == BYTEAOID || fc->valtype == TEXTOID ||
					fc->valtype == VARCHAROID)
				{
					struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(c->value));

					return regex_matches(f->re, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
				}
				s = OidOutputFunctionCall(fc->valout, c->value);
				return regex_matches(f->re, s, strlen(s));
			}
		case WF_VALUE_RANGE:
			return value_in_range(f, c);
		default:
			elog(ERROR, "filter %d is not a cell filter", (int) f->kind);
	}
	return false;
}

/* an output entry with an added label */
static void
add_label(WideRowOut *o, const char *label)
{
	const char **l = palloc(sizeof(char *) * (o->nlabels + 1));

	if (o->nlabels > 0)
		memcpy(l, o->labels, sizeof(char *) * o->nlabels);
	l[o->nlabels++] = label;
	o->labels = l;
}

static int
out_cmp(const void *a, const void *b)
{
	const WideRowOut *x = (const WideRowOut *) a;
	const WideRowOut *y = (const WideRowOut *) b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (x->branch > y->branch) - (x->branch < y->branch);
}

/*
 * apply -- the output of filter f on input in[0..n): *nout entries, in
 * cell order.  Memory comes from the current (per-row) context.
 */
static WideRowOut *
apply(const WideFilterContext *fc, const WideFilter *f, const WideRowCell *cells,
	  WideRowOut *in, int n, int *nout)
{
	WideRowOut *out;
	int			i,
				k = 0;

	switch (f->kind)
	{
		case WF_PASS:
			*nout = n;
			return in;
		case WF_BLOCK:
			*nout = 0;
			return in;
		case WF_CHAIN:
			for (i = 0; i < f->nchildren && n > 0; i++)
				in = apply(fc, f->children[i], cells, in, n, &n);
			*nout = n;
			return in;
		case WF_INTERLEAVE:
			{
				int			total = 0;

				out = palloc(sizeof(WideRowOut) * Max(1, n * f->nchildren));
				for (i = 0; i < f->nchildren; i++)
				{
					WideRowOut *copy = palloc(sizeof(WideRowOut) * Max(n, 1));
					WideRowOut *o;
					int			m,
								j;

					memcpy(copy, in, sizeof(WideRowOut) * n);
					o = apply(fc, f->children[i], cells, copy, n, &m);
					for (j = 0; j < m; j++)
					{
						out[total] = o[j];
						out[total].branch = i;
						total++;
					}
				}
				qsort(out, total, sizeof(WideRowOut), out_cmp);
				*nout = total;
				return out;
			}
		case WF_CONDITION:
			{
				WideRowOut *copy = palloc(sizeof(WideRowOut) * Max(n, 1));
				int			m;
				const WideFilter *branch;

				memcpy(copy, in, sizeof(WideRowOut) * n);
				(void) apply(fc, f->children[0], cells, copy, n, &m);
				branch = m > 0 ? f->children[1] : f->children[2];
				if (branch == NULL)
				{
					*nout = 0;
					return in;
				}
				return apply(fc, branch, cells, in, n, nout);
			}
		case WF_ROW_KEY_RE:
			/* every cell of a row has the row's key */
			*nout = (n > 0 && regex_matches(f->re, fc->row, fc->rowlen)) ? n : 0;
			return in;
		case WF_ROW_SAMPLE:
			*nout = (pg_prng_double(&pg_global_prng_state) < f->p) ? n : 0;
			return in;
		case WF_ROW_OFFSET:
			if (f->n >= n)
			{
				*nout = 0;
				return in;
			}
			*nout = n - (int) f->n;
			return in + f->n;
		case WF_ROW_LIMIT:
			*nout = Min(n, f->n);
			return in;
		case WF_COL_LIMIT:
			{
				int			count = 0;
				const WideRowCell *prev = NULL;

				for (i = 0; i < n; i++)
				{
					const WideRowCell *c = &cells[in[i].cell];

					if (prev == NULL ||
						WideKeyCompare(c->family, c->familylen, prev->family, prev->familylen) != 0 ||
						WideKeyCompare(c->qual, c->quallen, prev->qual, prev->quallen) != 0)
						count = 0;
					prev = c;
					if (count++ < f->n)
						in[k++] = in[i];
				}
				*nout = k;
				return in;
			}
		case WF_STRIP:
			for (i = 0; i < n; i++)
				in[i].strip = true;
			*nout = n;
			return in;
		case WF_LABEL:
			for (i = 0; i < n; i++)
				add_label(&in[i], f->label);
			*nout = n;
			return in;
		default:
			for (i = 0; i < n; i++)
				if (cell_passes(fc, f, &cells[in[i].cell]))
					in[k++] = in[i];
			*nout = k;
			return in;
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
	WideRowOut *in = palloc0(sizeof(WideRowOut) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		in[i].cell = i;
	if (f == NULL)
	{
		*nout = n;
		return in;
	}
	return apply(fc, f, cells, in, n, nout);
}
