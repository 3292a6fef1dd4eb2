/*-------------------------------------------------------------------------
 *
 * bigtable_json.c
 *	  Bigtable's JSON mapping of its messages (proto3 JSON) in the JSON
 *	  arguments of the data API: filters, mutations and row ranges.
 *
 * The data API's own JSON forms name fields in snake_case and carry keys,
 * qualifiers, regexes and values as plain strings.  Bigtable's client
 * libraries write the same messages as proto3 JSON: lowerCamelCase names,
 * bytes fields in base64, 64-bit integers as strings, and chain/interleave
 * as {"filters": [...]}.  WideBigtableJson rewrites a document that uses
 * that mapping into the data API's form, field by field:
 *
 *	- a field named in lowerCamelCase is renamed to snake_case, and if it is
 *	  a bytes field its base64 string is decoded: row keys, qualifiers and
 *	  regexes become strings of their bytes (which must then be valid text
 *	  in the database encoding: a JSON string cannot hold other bytes; a
 *	  row key or qualifier that is not becomes {"base64": "..."}, which the
 *	  readers of keys and qualifiers take: WideJsonBase64Key; whether the
 *	  table takes such bytes is checked where they are used), a
 *	  value becomes what the value column takes (bytea: "\x..." hex, int8:
 *	  the 8-byte big-endian integer Bigtable uses, text: the string);
 *	- int64 fields written as strings ("timestampMicros": "1000") become
 *	  numbers;
 *	- {"chain": {"filters": [...]}} becomes {"chain": [...]}, the same for
 *	  interleave;
 *	- in addToCell and mergeToCell, Bigtable's Value messages: the
 *	  qualifier {"rawValue": b64} is the qualifier's bytes, the timestamp
 *	  {"rawTimestampMicros": n} is timestamp_micros, the input {"intValue":
 *	  n} a number, {"rawValue": b64} Bigtable's 8-byte big-endian int64 in
 *	  an addToCell and the bytes of the state (an hll or ddsketch sketch)
 *	  in a mergeToCell; and, wide's own extension where Bigtable has no
 *	  aggregate of doubles, {"floatValue": x} (a number, or "NaN",
 *	  "Infinity", "-Infinity" as proto3 JSON writes them, which a float8
 *	  input refuses) the input of a float8 sum/min/max or ddsketch family;
 *	- snake_case fields are left as they are: the data API's forms are
 *	  unchanged, and the two may be mixed (each field by its own name).
 *
 * A document without a lowerCamelCase name is returned as it is.
 *
 * IDENTIFICATION
 *	  src/api/bigtable_json.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/base64.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "api/api.h"

/* the bytes fields of Bigtable's messages, by their snake_case names */
static const char *const key_fields[] = {
	"row_key", "row_keys", "start_key_closed", "start_key_open",
	"end_key_closed", "end_key_open", NULL
};
static const char *const qualifier_fields[] = {
	"column_qualifier", "start_qualifier_closed", "start_qualifier_open",
	"end_qualifier_closed", "end_qualifier_open", NULL
};
static const char *const regex_fields[] = {
	"row_key_regex_filter", "column_qualifier_regex_filter",
	"value_regex_filter", NULL
};
static const char *const value_fields[] = {
	"value", "start_value_closed", "start_value_open", "end_value_closed",
	"end_value_open", NULL
};
static const char *const int64_fields[] = {
	"timestamp_micros", "start_timestamp_micros", "end_timestamp_micros", NULL
};

static bool
in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return true;
	return false;
}

/* is the name lowerCamelCase (an ASCII capital, no underscore)? */
static bool
is_camel(const char *s, int len)
{
	bool		upper = false;
	int			i;

	for (i = 0; i < len; i++)
	{
		if (s[i] == '_')
			return false;
		if (s[i] >= 'A' && s[i] <= 'Z')
			upper = true;
	}
	return upper;
}

/* rowKeyRegexFilter -> row_key_regex_filter */
static char *
snake(const char *s, int len)
{
	StringInfoData b;
	int			i;

	initStringInfo(&b);
	for (i = 0; i < len; i++)
	{
		if (s[i] >= 'A' && s[i] <= 'Z')
		{
			appendStringInfoChar(&b, '_');
			appendStringInfoChar(&b, s[i] - 'A' + 'a');
		}
		else
			appendStringInfoChar(&b, s[i]);
	}
	return b.data;
}

/* does any object key in the document use lowerCamelCase? */
static bool
has_camel(JsonbContainer *c)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
		if (tok == WJB_KEY && is_camel(v.val.string.val, v.val.string.len))
			return true;
	return false;
}

static void
bad(const char *field, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid Bigtable JSON field \"%s\"", field),
			 errdetail("%s", detail),
			 hint ? errhint("%s", hint) : 0));
}

/* the bytes of a base64 string */
static char *
unbase64(const char *field, JsonbValue *v, int *len)
{
	char	   *out;

	if (v->type != jbvString)
		bad(field, "A bytes field of Bigtable's JSON mapping is a base64 string.", NULL);
	out = palloc(pg_b64_dec_len(v->val.string.len) + 1);
	*len = pg_b64_decode(v->val.string.val, v->val.string.len, out,
						 pg_b64_dec_len(v->val.string.len));
	if (*len < 0)
		bad(field, "It is not valid base64.",
			"Bigtable's JSON mapping (lowerCamelCase names) carries bytes in base64; the snake_case names take plain strings.");
	out[*len] = '\0';
	return out;
}

/* decoded bytes as a JSON string, if they are text */
static void
text_value(const char *field, const char *b, int len, JsonbValue *out,
		   const char *hint)
{
	if (memchr(b, '\0', len) != NULL ||
		pg_verify_mbstr_len(GetDatabaseEncoding(), b, len, true) < 0)
		bad(field, psprintf("Its %d bytes are not valid text in encoding \"%s\", and a JSON string holds only text.",
							len, GetDatabaseEncodingName()), hint);
	out->type = jbvString;
	out->val.string.val = (char *) b;
	out->val.string.len = len;
}

/* a decoded value as the value column takes it */
static void
value_value(const char *field, const char *b, int len, Oid valtype,
			JsonbValue *out)
{
	if (valtype == BYTEAOID)
	{
		StringInfoData s;
		int			i;

		initStringInfo(&s);
		appendStringInfoString(&s, "\\x");
		for (i = 0; i < len; i++)
			appendStringInfo(&s, "%02x", (unsigned char) b[i]);
		out->type = jbvString;
		out->val.string.val = s.data;
		out->val.string.len = s.len;
	}
	else if (valtype == INT8OID && len == 8)
	{
		uint64		u = 0;
		int			i;

		/* Bigtable's 64-bit integers are 8 bytes, big-endian */
		for (i = 0; i < 8; i++)
			u = (u << 8) | (unsigned char) b[i];
		out->type = jbvNumeric;
		out->val.numeric = int64_to_numeric((int64) u);
	}
	else
		text_value(field, b, len, out,
				   "The value column's type takes its text form; a bytea value column takes any bytes.");
}

static JsonbValue *convert(JsonbValue *v, Oid valtype, JsonbParseState **ps,
						   JsonbIteratorToken as, bool camel);
static JsonbValue *JsonbValueToBinary(JsonbValue *obj);
static JsonbValue *convert_object(JsonbValue *v, Oid valtype, JsonbParseState **ps,
								  bool camel);
static JsonbValue *convert_aggregate_mutation(JsonbValue *v, bool merge, Oid valtype,
											  JsonbParseState **ps);

/* a number given as a JSON string (int64 fields: "123"), as a JSON number */
static void
string_numeric(JsonbValue *v, JsonbValue *out)
{
	char	   *s = pnstrdup(v->val.string.val, v->val.string.len);

	out->type = jbvNumeric;
	out->val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
														   CStringGetDatum(s),
														   ObjectIdGetDatum(InvalidOid),
														   Int32GetDatum(-1)));
}

/* a scalar value of a field */
static void
convert_scalar(const char *name, bool camel, JsonbValue *v, Oid valtype,
			   JsonbValue *out)
{
	*out = *v;
	if (!camel)
		return;
	if (in_list(name, key_fields) || in_list(name, qualifier_fields) ||
		in_list(name, regex_fields) || in_list(name, value_fields))
	{
		int			len;
		char	   *b = unbase64(name, v, &len);

		if ((in_list(name, key_fields) || in_list(name, qualifier_fields)) &&
			(memchr(b, '\0', len) != NULL ||
			 pg_verify_mbstr_len(GetDatabaseEncoding(), b, len, true) < 0))
		{
			/*
			 * a key or qualifier that is not text: {"base64": ...}, read by
			 * the readers of keys and qualifiers
			 */
			JsonbParseState *kps = NULL;
			JsonbValue	k;

			pushJsonbValue(&kps, WJB_BEGIN_OBJECT, NULL);
			k.type = jbvString;
			k.val.string.val = "base64";
			k.val.string.len = 6;
			pushJsonbValue(&kps, WJB_KEY, &k);
			pushJsonbValue(&kps, WJB_VALUE, v);
			*out = *JsonbValueToBinary(pushJsonbValue(&kps, WJB_END_OBJECT, NULL));
		}
		else if (in_list(name, value_fields))
			value_value(name, b, len, valtype, out);
		else if (in_list(name, regex_fields))
			text_value(name, b, len, out,
					   "Write such a byte as an escape in the pattern (RE2 syntax), or match any byte with \\C.");
		else
			/* a key or qualifier that is text, checked above */
			text_value(name, b, len, out, "A key or qualifier that is not text is passed on as {\"base64\": ...}.");
	}
	else if (in_list(name, int64_fields) && v->type == jbvString)
		string_numeric(v, out);
}

/*
 * an object, field by field; the object when it is the outermost one.  An
 * object is in Bigtable's mapping if one of its names is lowerCamelCase or
 * it is the value of such a name ({"setCell": {"value": ...}}): then its
 * one-word bytes fields ("value") are base64 too.
 */
static JsonbValue *
convert_object(JsonbValue *v, Oid valtype, JsonbParseState **ps, bool camel_obj)
{
	JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
	JsonbValue	k,
				e;
	JsonbIteratorToken tok;

	while (!camel_obj && (tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
		if (tok == WJB_KEY && is_camel(k.val.string.val, k.val.string.len))
			camel_obj = true;
	it = JsonbIteratorInit(v->val.binary.data);

	pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		bool		camel;
		char	   *name;
		JsonbValue	key;

		if (tok != WJB_KEY)
			continue;
		camel = is_camel(k.val.string.val, k.val.string.len);
		name = camel ? snake(k.val.string.val, k.val.string.len) :
			pnstrdup(k.val.string.val, k.val.string.len);
		camel = camel || camel_obj;
		tok = JsonbIteratorNext(&it, &e, true);
		Assert(tok == WJB_VALUE);
		key.type = jbvString;
		key.val.string.val = name;
		key.val.string.len = strlen(name);
		pushJsonbValue(ps, WJB_KEY, &key);

		/* {"chain": {"filters": [...]}} -> {"chain": [...]} */
		if ((strcmp(name, "chain") == 0 || strcmp(name, "interleave") == 0) &&
			e.type == jbvBinary && JsonContainerIsObject(e.val.binary.data))
		{
			JsonbValue *fl = WideJsonField(&e, "filters");

			if (fl != NULL && JsonContainerSize(e.val.binary.data) == 1)
			{
				convert(fl, valtype, ps, WJB_VALUE, camel);
				continue;
			}
		}
		/* addToCell and mergeToCell, with Value messages */
		if ((strcmp(name, "add_to_cell") == 0 || strcmp(name, "merge_to_cell") == 0) &&
			camel && e.type == jbvBinary && JsonContainerIsObject(e.val.binary.data))
		{
			convert_aggregate_mutation(&e, name[0] == 'm', valtype, ps);
			continue;
		}
		if (e.type == jbvBinary && JsonContainerIsArray(e.val.binary.data) &&
			camel && in_list(name, key_fields))
		{
			/* rowKeys: an array of base64 keys */
			JsonbIterator *ait = JsonbIteratorInit(e.val.binary.data);
			JsonbValue	a;
			JsonbIteratorToken atok;

			pushJsonbValue(ps, WJB_BEGIN_ARRAY, NULL);
			while ((atok = JsonbIteratorNext(&ait, &a, true)) != WJB_DONE)
				if (atok == WJB_ELEM)
				{
					JsonbValue	out;

					convert_scalar(name, true, &a, valtype, &out);
					pushJsonbValue(ps, WJB_ELEM, &out);
				}
			pushJsonbValue(ps, WJB_END_ARRAY, NULL);
			continue;
		}
		if (e.type == jbvBinary)
			convert(&e, valtype, ps, WJB_VALUE, camel);
		else
		{
			JsonbValue	out;

			convert_scalar(name, camel, &e, valtype, &out);
			pushJsonbValue(ps, WJB_VALUE, &out);
		}
	}
	return pushJsonbValue(ps, WJB_END_OBJECT, NULL);
}

/*
 * the one field of a Value message {"rawValue": ...}: its snake_case name,
 * and the name as written in *given
 */
static char *
value_message(const char *field, JsonbValue *v, JsonbValue *kind, char **given)
{
	int			n;
	char	   *name = WideJsonOneKey(v, kind, &n);

	if (n != 1 || kind->type == jbvBinary)
		bad(field, "A Value of Bigtable's JSON mapping is an object of one field with a scalar, such as {\"rawValue\": \"AAAAAAAAAAU=\"}.",
			NULL);
	*given = name;
	return is_camel(name, strlen(name)) ? snake(name, strlen(name)) : name;
}

/* a JSON number or numeric string as a number */
static void
json_number(const char *field, JsonbValue *v, JsonbValue *out)
{
	if (v->type == jbvNumeric)
		*out = *v;
	else if (v->type == jbvString)
		string_numeric(v, out);
	else
		bad(field, "It is a number, or a string of one.", NULL);
}

/*
 * The fields of an addToCell or mergeToCell, whose qualifier, timestamp and
 * input are Value messages in Bigtable's form (or plain, as in the data
 * API's): pushed in the data API's form.
 */
static JsonbValue *
convert_aggregate_mutation(JsonbValue *v, bool merge, Oid valtype, JsonbParseState **ps)
{
	JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
	JsonbValue	k,
				e;
	JsonbIteratorToken tok;

	pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *name;
		JsonbValue	key,
					out,
					kind;
		char	   *vk,
				   *given;

		if (tok != WJB_KEY)
			continue;
		name = is_camel(k.val.string.val, k.val.string.len) ?
			snake(k.val.string.val, k.val.string.len) :
			pnstrdup(k.val.string.val, k.val.string.len);
		tok = JsonbIteratorNext(&it, &e, true);
		Assert(tok == WJB_VALUE);
		key.type = jbvString;
		if (e.type != jbvBinary || !JsonContainerIsObject(e.val.binary.data) ||
			(strcmp(name, "column_qualifier") != 0 && strcmp(name, "timestamp") != 0 &&
			 strcmp(name, "input") != 0))
		{
			/* not a Value message: as any field of Bigtable's mapping */
			key.val.string.val = name;
			key.val.string.len = strlen(name);
			pushJsonbValue(ps, WJB_KEY, &key);
			if (e.type == jbvBinary)
				convert(&e, valtype, ps, WJB_VALUE, true);
			else
			{
				convert_scalar(name, true, &e, valtype, &out);
				pushJsonbValue(ps, WJB_VALUE, &out);
			}
			continue;
		}
		vk = value_message(name, &e, &kind, &given);
		if (strcmp(name, "column_qualifier") == 0)
		{
			if (strcmp(vk, "raw_value") != 0 && strcmp(vk, "bytes_value") != 0)
				bad(name, psprintf("A qualifier is a rawValue (base64), not \"%s\".", given), NULL);
			convert_scalar(name, true, &kind, valtype, &out);
		}
		else if (strcmp(name, "timestamp") == 0)
		{
			if (strcmp(vk, "raw_timestamp_micros") != 0 && strcmp(vk, "int_value") != 0)
				bad(name, psprintf("A timestamp is a rawTimestampMicros, not \"%s\".", given), NULL);
			name = "timestamp_micros";
			json_number(name, &kind, &out);
		}
		else if (strcmp(vk, "int_value") == 0)
			json_number(name, &kind, &out);
		else if (strcmp(vk, "float_value") == 0)
		{
			/* "NaN" and the infinities go on as text, which refuses them */
			if (kind.type == jbvString)
				out = kind;
			else
				json_number(name, &kind, &out);
		}
		else if (strcmp(vk, "raw_value") == 0)
		{
			int			len;
			char	   *b = unbase64(name, &kind, &len);

			if (merge)
				value_value(name, b, len, valtype, &out);
			else if (len == 8)
			{
				uint64		u = 0;
				int			i;

				for (i = 0; i < 8; i++)
					u = (u << 8) | (unsigned char) b[i];
				out.type = jbvNumeric;
				out.val.numeric = int64_to_numeric((int64) u);
			}
			else
				bad(name, psprintf("An addToCell input given as rawValue is Bigtable's 8-byte big-endian int64, not %d bytes.", len),
					"Give a float8 input as {\"floatValue\": x}; merge a sketch with mergeToCell.");
		}
		else
			bad(name, psprintf("An input is an intValue, a floatValue or a rawValue, not \"%s\".", given), NULL);
		key.val.string.val = name;
		key.val.string.len = strlen(name);
		pushJsonbValue(ps, WJB_KEY, &key);
		pushJsonbValue(ps, WJB_VALUE, &out);
	}
	return pushJsonbValue(ps, WJB_END_OBJECT, NULL);
}

/* a value: containers are walked, scalars copied */
static JsonbValue *
convert(JsonbValue *v, Oid valtype, JsonbParseState **ps, JsonbIteratorToken as,
		bool camel)
{
	check_stack_depth();
	if (v->type != jbvBinary)
		return pushJsonbValue(ps, as, v);
	if (JsonContainerIsObject(v->val.binary.data))
		return convert_object(v, valtype, ps, camel);
	else if (JsonContainerIsScalar(v->val.binary.data))
		return pushJsonbValue(ps, as, v);
	else
	{
		JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
		JsonbValue	e;
		JsonbIteratorToken tok;

		pushJsonbValue(ps, WJB_BEGIN_ARRAY, NULL);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
			if (tok == WJB_ELEM)
				convert(&e, valtype, ps, WJB_ELEM, camel);
		return pushJsonbValue(ps, WJB_END_ARRAY, NULL);
	}
}

/* a JsonbValue object as a binary container value */
static JsonbValue *
JsonbValueToBinary(JsonbValue *obj)
{
	Jsonb	   *j = JsonbValueToJsonb(obj);
	JsonbValue *out = palloc(sizeof(JsonbValue));

	out->type = jbvBinary;
	out->val.binary.data = &j->root;
	out->val.binary.len = VARSIZE(j) - VARHDRSZ;
	return out;
}

/*
 * WideJsonBase64Key -- a row key given as {"base64": "..."} (what a key of
 * Bigtable's JSON mapping that is not text becomes): its bytes in *p, *len.
 * False if the value is not such an object.
 */
bool
WideJsonBase64Key(JsonbValue *v, char **p, int *len)
{
	JsonbValue *b;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) != 1 ||
		(b = WideJsonField(v, "base64")) == NULL)
		return false;
	*p = unbase64("base64", b, len);
	return true;
}

/*
 * WideBigtableJson -- the data API's form of a document that may use
 * Bigtable's JSON mapping (see the top of this file); "valtype" is the
 * type of the table's value column.
 */
Jsonb *
WideBigtableJson(Jsonb *doc, Oid valtype)
{
	JsonbParseState *ps = NULL;
	JsonbValue	v;
	JsonbValue *res;

	if (doc == NULL || JB_ROOT_IS_SCALAR(doc) || !has_camel(&doc->root))
		return doc;
	v.type = jbvBinary;
	v.val.binary.data = &doc->root;
	v.val.binary.len = VARSIZE(doc) - VARHDRSZ;
	res = convert(&v, valtype, &ps, WJB_VALUE, false);
	return JsonbValueToJsonb(res);
}
