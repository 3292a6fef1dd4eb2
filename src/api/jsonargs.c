/*-------------------------------------------------------------------------
 *
 * jsonargs.c
 *	  Reading the JSON arguments of the data API (filters, mutations):
 *	  a field of an object, the fields an object must not have, integers,
 *	  and the nearest valid name to a mistyped one.
 *
 * IDENTIFICATION
 *	  src/api/jsonargs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/numeric.h"
#include "utils/varlena.h"

#include "api/api.h"

/*
 * WideJsonField -- the value of a field of a JSON object, or NULL.
 */
JsonbValue *
WideJsonField(JsonbValue *obj, const char *name)
{
	if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
		return NULL;
	return getKeyJsonValueFromContainer(obj->val.binary.data, name, strlen(name), NULL);
}

/*
 * WideJsonOneKey -- the key of a JSON object that should have exactly one
 * (a filter, a mutation), with its value in *arg.  *nkeys is the number of
 * keys, or -1 if "obj" is not an object; the caller reports anything but 1.
 */
char *
WideJsonOneKey(JsonbValue *obj, JsonbValue *arg, int *nkeys)
{
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	k;
	char	   *name = NULL;

	*nkeys = -1;
	if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
		return NULL;
	*nkeys = 0;
	it = JsonbIteratorInit(obj->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		(*nkeys)++;
		name = pnstrdup(k.val.string.val, k.val.string.len);
		tok = JsonbIteratorNext(&it, arg, true);
		Assert(tok == WJB_VALUE);
	}
	return name;
}

/*
 * WideJsonUnknownField -- the first field of a JSON object that is not in
 * the NULL-terminated list "allowed", or NULL if there is none.
 */
char *
WideJsonUnknownField(JsonbValue *obj, const char *const *allowed)
{
	JsonbIterator *it = JsonbIteratorInit(obj->val.binary.data);
	JsonbValue	k;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		const char *const *a;

		if (tok != WJB_KEY)
			continue;
		for (a = allowed; *a; a++)
			if (strlen(*a) == (size_t) k.val.string.len &&
				memcmp(*a, k.val.string.val, k.val.string.len) == 0)
				break;
		if (*a == NULL)
			return pnstrdup(k.val.string.val, k.val.string.len);
	}
	return NULL;
}

/*
 * WideJsonInt64 -- a JSON number that is a whole number, as int64; false
 * if the value is not one (numeric_int8 still fails beyond int64's range).
 */
bool
WideJsonInt64(JsonbValue *v, int64 *out)
{
	Datum		n;

	if (v->type != jbvNumeric || numeric_is_nan(v->val.numeric) ||
		numeric_is_inf(v->val.numeric))
		return false;
	n = NumericGetDatum(v->val.numeric);
	if (!DatumGetBool(DirectFunctionCall2(numeric_eq, n,
										  DirectFunctionCall2(numeric_trunc, n,
															  Int32GetDatum(0)))))
		return false;
	*out = DatumGetInt64(DirectFunctionCall1(numeric_int8, n));
	return true;
}

/*
 * WideNearestName -- the name of the NULL-terminated list "names" nearest
 * to "name" by edit distance, if it is near enough to be a typo (at most 2
 * edits, or a third of the name's length), else NULL.  Ties go to the first.
 */
const char *
WideNearestName(const char *name, const char *const *names)
{
	int			len = strlen(name);
	int			max_d = Max(2, len / 3);
	const char *best = NULL;
	const char *const *n;

	for (n = names; *n; n++)
	{
		int			d = varstr_levenshtein_less_equal(name, len, *n, strlen(*n),
													  1, 1, 1, max_d, true);

		if (d <= max_d)
		{
			best = *n;
			max_d = d - 1;		/* later names must be strictly nearer */
			if (max_d < 0)
				break;
		}
	}
	return best;
}

/*
 * WideUnknownNameDetail -- "Unknown <what> "name"." with, when one is
 * near, " Perhaps you meant "nearest"." (for errdetail).
 */
char *
WideUnknownNameDetail(const char *what, const char *name, const char *const *names)
{
	const char *near = WideNearestName(name, names);

	if (near)
		return psprintf("Unknown %s \"%s\". Perhaps you meant \"%s\".", what, name, near);
	return psprintf("Unknown %s \"%s\".", what, name);
}
