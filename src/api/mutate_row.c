/*-------------------------------------------------------------------------
 *
 * mutate_row.c
 *	  Batches of mutations in JSON, as Bigtable's MutateRow and MutateRows.
 *
 *	  wide.mutate_row(tbl, row_key, mutations jsonb) -> int (mutations)
 *	  wide.mutate_rows(tbl, entries jsonb) -> bigint (mutations)
 *
 * "mutations" is a JSON array of Bigtable Mutation objects, one key each:
 *
 *	{"set_cell": {"family_name": f, "column_qualifier": q,
 *	              "timestamp_micros": ts, "value": v}}       ts -1 or absent: now
 *	{"add_to_cell": {"family_name", "column_qualifier", "timestamp_micros",
 *	                 "input": v}}
 *	{"merge_to_cell": {"family_name", "column_qualifier", "timestamp_micros",
 *	                   "input": v}}
 *	{"delete_from_column": {"family_name", "column_qualifier",
 *	                        "time_range": {"start_timestamp_micros",
 *	                                       "end_timestamp_micros"}}}
 *	{"delete_from_family": {"family_name": f}}
 *	{"delete_from_row": {}}
 *
 * "entries" is a JSON array of {"row_key": k, "mutations": [...]}.
 * Timestamps are integers (microseconds since 1970) or strings a timestamptz
 * reads.  Values are JSON strings or numbers read by the value column's
 * input function (bytea as '\x...'); an hll sketch to merge is a bytea
 * string.  Every mutation is checked before any is written, then all are
 * appended in order in the caller's transaction: the batch is all or
 * nothing, and a later mutation of the batch applies after an earlier one
 * (a delete after a set in the same batch deletes it).
 *
 * Each JSON mutation is parsed into a WideMutationArgs, which
 * WideMutationArgsCell turns into a record: the one place a mutation of any
 * form becomes one (mutate_rows_bin.c decodes its binary form into the
 * same).  A WideBatch (WideBatchOpen, WideBatchRoute, WideBatchCell,
 * WideBatchFinish) sends the entries of a batch to the tablets of their
 * keys, local or remote, in order, and writes them.
 *
 * IDENTIFICATION
 *	  src/api/mutate_row.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "am/am.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_mutate_row);
PG_FUNCTION_INFO_V1(wide_mutate_rows);

static void
bad_mutation(const char *where, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid mutation at %s", where),
			 errdetail("%s", detail),
			 errhint("A mutation is a JSON object with one key, as in Bigtable's Mutation message, e.g. {\"set_cell\": {\"family_name\": \"cf\", \"column_qualifier\": \"q\", \"value\": \"v\"}}.")));
}


static void
check_fields(JsonbValue *obj, const char *path, const char *const *allowed)
{
	char	   *bad;

	if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
		bad_mutation(path, "This mutation takes a JSON object.");
	if ((bad = WideJsonUnknownField(obj, allowed)) != NULL)
		bad_mutation(path, WideUnknownNameDetail("field", bad, allowed));
}

static text *
string_field(JsonbValue *obj, const char *name, const char *where, bool required)
{
	JsonbValue *v = WideJsonField(obj, name);

	if (v == NULL)
	{
		if (required)
			bad_mutation(where, psprintf("The field \"%s\" is required.", name));
		return NULL;
	}
	if (v->type != jbvString)
		bad_mutation(where, psprintf("\"%s\" must be a JSON string.", name));
	return cstring_to_text_with_len(v->val.string.val, v->val.string.len);
}

/*
 * a qualifier field: a JSON string, or {"base64": "..."} for bytes that are
 * not text (what a qualifier of Bigtable's JSON mapping that is not text
 * becomes, bigtable_json.c); whether the table takes them is checked with
 * the cell (WideCheckCellText)
 */
static text *
qualifier_field(JsonbValue *obj, const char *name, const char *where)
{
	JsonbValue *v = WideJsonField(obj, name);
	char	   *b;
	int			len;

	if (v != NULL && WideJsonBase64Key(v, &b, &len))
		return cstring_to_text_with_len(b, len);
	if (v != NULL && v->type != jbvString)
		bad_mutation(where, psprintf("\"%s\" must be a JSON string, or {\"base64\": \"...\"} for bytes that are not text.", name));
	return string_field(obj, name, where, true);
}

/* the family_name field of a JSON mutation into *a */
static void
family_arg(JsonbValue *obj, const char *where, WideMutationArgs *a)
{
	text	   *t = string_field(obj, "family_name", where, true);

	a->family = VARDATA_ANY(t);
	a->famlen = VARSIZE_ANY_EXHDR(t);
}

/* a qualifier field of a JSON mutation into *a */
static void
qualifier_arg(JsonbValue *obj, const char *name, const char *where, WideMutationArgs *a)
{
	text	   *t = qualifier_field(obj, name, where);

	a->qual = VARDATA_ANY(t);
	a->quallen = VARSIZE_ANY_EXHDR(t);
}

/* a timestamp field: *isnull when absent or -1 (server time) */
static int64
ts_field(JsonbValue *obj, const char *name, const char *where, bool *isnull)
{
	JsonbValue *v = WideJsonField(obj, name);

	*isnull = false;
	if (v == NULL || v->type == jbvNull)
	{
		*isnull = true;
		return 0;
	}
	if (v->type == jbvNumeric)
	{
		int64		ts;

		if (!WideJsonInt64(v, &ts))
			bad_mutation(where, psprintf("\"%s\" must be an integer of microseconds.", name));
		if (ts == -1)
			*isnull = true;
		return ts;
	}
	if (v->type == jbvString)
	{
		char	   *s = pnstrdup(v->val.string.val, v->val.string.len);

		return WideTimestampToUnix(DatumGetTimestampTz(
			DirectFunctionCall3(timestamptz_in, CStringGetDatum(s),
								ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1))));
	}
	bad_mutation(where, psprintf("\"%s\" must be a number of microseconds or a timestamp string.", name));
	return 0;
}

/* the value or input of a JSON mutation, as a WideMutationArgs holds it */
static void
value_arg(JsonbValue *obj, const char *name, WideMutationArgs *a)
{
	JsonbValue *v = WideJsonField(obj, name);

	a->value = NULL;
	a->vallen = 0;
	if (v == NULL || v->type == jbvNull)
		a->vform = WIDE_VALUE_MISSING;
	else if (v->type == jbvString)
	{
		a->vform = WIDE_VALUE_TEXT;
		a->value = v->val.string.val;
		a->vallen = v->val.string.len;
	}
	else if (v->type == jbvNumeric)
	{
		a->vform = WIDE_VALUE_NUMBER;
		a->value = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
		a->vallen = strlen(a->value);
	}
	else if (v->type == jbvBool)
	{
		a->vform = WIDE_VALUE_TEXT;
		a->value = v->val.boolean ? "true" : "false";
		a->vallen = strlen(a->value);
	}
	else
		a->vform = WIDE_VALUE_BAD;
}

/*
 * the value or input ("name") of a mutation as a datum of the given type:
 * its text through the type's input function; bytes are a bytea as they
 * are, and for another type the text "\x<hex>" (what the JSON string of a
 * bytea value is)
 */
static Datum
arg_value(const WideMutationArgs *a, const char *name, const char *where, Oid type)
{
	char	   *s;
	Oid			infunc,
				ioparam;

	switch (a->vform)
	{
		case WIDE_VALUE_MISSING:
			bad_mutation(where, psprintf("The field \"%s\" is required.", name));
			break;
		case WIDE_VALUE_BAD:
			bad_mutation(where, psprintf("\"%s\" must be a JSON string, number or boolean.", name));
			break;
		case WIDE_VALUE_BYTES:
			if (type == BYTEAOID)
			{
				bytea	   *b = palloc(VARHDRSZ + a->vallen);

				SET_VARSIZE(b, VARHDRSZ + a->vallen);
				memcpy(VARDATA(b), a->value, a->vallen);
				return PointerGetDatum(b);
			}
			s = palloc(2 * a->vallen + 3);
			s[0] = '\\';
			s[1] = 'x';
			s[2 + hex_encode(a->value, a->vallen, s + 2)] = '\0';
			getTypeInputInfo(type, &infunc, &ioparam);
			return OidInputFunctionCall(infunc, s, ioparam, -1);
		case WIDE_VALUE_TEXT:
		case WIDE_VALUE_NUMBER:
			break;
	}
	s = pnstrdup(a->value, a->vallen);
	getTypeInputInfo(type, &infunc, &ioparam);
	return OidInputFunctionCall(infunc, s, ioparam, -1);
}

/* the timestamp column's value for microseconds since 1970 */
static Datum
ts_datum(const WideSchema *schema, int64 ts)
{
	return schema->tstype == TIMESTAMPTZOID ?
		TimestampTzGetDatum(WideUnixToTimestamp(ts)) : Int64GetDatum(ts);
}

/* a delete_from_row mutation */
static void
delete_from_row(const char *key, uint32 keylen, WideCell *cell)
{
	memset(cell, 0, sizeof(WideCell));
	if (keylen == 0 || keylen > WIDE_MAX_ROW_KEY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row key must be 1 to %d bytes long", WIDE_MAX_ROW_KEY)));
	cell->kind = WIDE_KIND_DEL_ROW;
	cell->key = key;
	cell->keylen = keylen;
	cell->family = cell->qual = "";
	cell->ts_to = PG_INT64_MAX;
}

/* a delete_from_family mutation; values[0] is the row key */
static void
delete_from_family(Relation rel, const WideSchema *schema, Datum *values,
				   bool *isnull, WideCell *cell)
{
	values[2] = PointerGetDatum(cstring_to_text(""));
	values[3] = ts_datum(schema, 0);
	(void) WideCellCoordinates(rel, schema, values, isnull, cell);
	cell->kind = WIDE_KIND_DEL_FAMILY;
	cell->qual = "";
	cell->quallen = 0;
	cell->ts = 0;
}

/* a delete_from_column mutation; values[0] to [2] are its coordinates */
static void
delete_from_column(Relation rel, const WideSchema *schema, const WideMutationArgs *a,
				   const char *sub, Datum *values, bool *isnull, WideCell *cell)
{
	if (a->from < 0 || a->to < a->from)
		bad_mutation(psprintf("%s.time_range", sub),
					 "The time range must start at 0 or later and not end before it starts.");
	values[3] = ts_datum(schema, 0);
	(void) WideCellCoordinates(rel, schema, values, isnull, cell);
	cell->kind = WIDE_KIND_DEL_CELLS;
	cell->ts = a->from;
	cell->ts_to = a->to;
}

/* the value of a set_cell mutation */
static void
set_cell_value(const WideSchema *schema, const WideFamily *fam,
			   const WideMutationArgs *a, const char *sub, WideCell *cell)
{
	Datum		v;

	if (fam->aggregate != WIDE_AGG_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot set a cell of aggregate family \"%s\"", fam->name),
				 errdetail("At %s.", sub),
				 errhint("Use add_to_cell or merge_to_cell mutations.")));
	cell->kind = WIDE_KIND_PUT;
	if (a->vform == WIDE_VALUE_BYTES && schema->valtype == BYTEAOID)
	{
		/* the bytes as they are: what WideValueToBytes makes of a bytea */
		cell->value = a->value;
		cell->vallen = a->vallen;
	}
	else
	{
		v = arg_value(a, "value", sub, schema->valtype);
		cell->value = WideValueToBytes(schema, v, &cell->vallen);
	}
	if (cell->vallen > WIDE_MAX_VALUE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("value of %u bytes is too long", cell->vallen),
				 errdetail("Values are at most %d bytes.", WIDE_MAX_VALUE)));
}

/* the input of an add_to_cell or merge_to_cell mutation */
static void
aggregate_input(Relation rel, const WideFamily *fam, const WideMutationArgs *a,
				const char *sub, WideCell *cell)
{
	if (fam->aggregate == WIDE_AGG_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("column family \"%s\" is not an aggregate family", fam->name),
				 errdetail("At %s.", sub),
				 errhint("Use set_cell mutations for a plain family.")));
	cell->kind = a->kind == WIDE_MUT_ADD_TO_CELL ? WIDE_KIND_ADD : WIDE_KIND_MERGE;
	if ((fam->aggregate == WIDE_AGG_HLL || fam->aggregate == WIDE_AGG_DDS) &&
		cell->kind == WIDE_KIND_MERGE)
	{
		bytea	   *b = DatumGetByteaPP(arg_value(a, "input", sub, BYTEAOID));
		const char *problem = fam->aggregate == WIDE_AGG_HLL ?
			WideHllCheck(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)) :
			WideDDSCheck(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));

		if (problem)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid %s at %s",
							fam->aggregate == WIDE_AGG_HLL ? "HyperLogLog sketch" : "DDSketch", sub),
					 errdetail_internal("%s", problem)));
		cell->value = VARDATA_ANY(b);
		cell->vallen = VARSIZE_ANY_EXHDR(b);
	}
	else if (fam->aggregate == WIDE_AGG_HLL)
	{
		int64	   *v = palloc(sizeof(int64));

		if (a->vform == WIDE_VALUE_NUMBER)
			*(uint64 *) v = WideHllInputHash(INT8OID,
											 arg_value(a, "input", sub, INT8OID));
		else
			*(uint64 *) v = WideHllInputHash(TEXTOID,
											 arg_value(a, "input", sub, TEXTOID));
		cell->value = (const char *) v;
		cell->vallen = sizeof(int64);
	}
	else
		cell->value = WideAggInput(rel, fam,
								   WideCellAggregate(fam, cell->qual, cell->quallen),
								   cell->kind, TEXTOID,
								   arg_value(a, "input", sub, TEXTOID),
								   &cell->vallen);
}

/*
 * WideMutationArgsCell -- the record of one mutation of a row, decoded
 * from whichever form it came in (JSON here, binary in mutate_rows_bin.c):
 * checks everything (family, types, limits) and fails with a clear error
 * that names "sub", where the mutation is.  "keytext" is the key as a
 * varlena.  The one place where a mutation becomes a record.
 */
void
WideMutationArgsCell(Relation rel, const WideSchema *schema, const char *key,
					 uint32 keylen, text *keytext, const WideMutationArgs *a,
					 const char *sub, WideCell *cell)
{
	Datum		values[5];
	bool		isnull[5] = {0};
	const WideFamily *fam;

	if (a->kind == WIDE_MUT_DELETE_FROM_ROW)
	{
		delete_from_row(key, keylen, cell);
		return;
	}
	values[0] = PointerGetDatum(keytext);
	values[1] = PointerGetDatum(cstring_to_text_with_len(a->family, a->famlen));
	if (a->kind == WIDE_MUT_DELETE_FROM_FAMILY)
	{
		delete_from_family(rel, schema, values, isnull, cell);
		return;
	}
	values[2] = PointerGetDatum(cstring_to_text_with_len(a->qual, a->quallen));
	if (a->kind == WIDE_MUT_DELETE_FROM_COLUMN)
	{
		delete_from_column(rel, schema, a, sub, values, isnull, cell);
		return;
	}
	isnull[3] = a->tsnull;
	values[3] = ts_datum(schema, a->tsnull ? 0 : a->ts);
	fam = WideCellCoordinates(rel, schema, values, isnull, cell);
	if (a->kind == WIDE_MUT_SET_CELL)
		set_cell_value(schema, fam, a, sub, cell);
	else
		aggregate_input(rel, fam, a, sub, cell);
}

/*
 * WideMutationCell -- the record of one JSON mutation of a row; checks
 * everything (family, types, limits) and fails with a clear error.
 */
void
WideMutationCell(Relation rel, const WideSchema *schema, const char *key,
				 uint32 keylen, JsonbValue *m, const char *where, WideCell *cell)
{
	JsonbValue	arg;
	char	   *name;
	int			nkeys;
	char	   *sub;
	WideMutationArgs a;

	name = WideJsonOneKey(m, &arg, &nkeys);
	if (nkeys < 0)
		bad_mutation(where, "A mutation must be a JSON object.");
	if (nkeys != 1)
		bad_mutation(where, psprintf("A mutation object has exactly one key, not %d.", nkeys));
	sub = psprintf("%s.%s", where, name);
	memset(&a, 0, sizeof(a));

	if (strcmp(name, "delete_from_row") == 0)
	{
		static const char *const ok[] = {NULL};

		check_fields(&arg, sub, ok);
		a.kind = WIDE_MUT_DELETE_FROM_ROW;
	}
	else if (strcmp(name, "delete_from_family") == 0)
	{
		static const char *const ok[] = {"family_name", NULL};

		check_fields(&arg, sub, ok);
		a.kind = WIDE_MUT_DELETE_FROM_FAMILY;
		family_arg(&arg, sub, &a);
	}
	else if (strcmp(name, "delete_from_column") == 0)
	{
		static const char *const ok[] = {"family_name", "column_qualifier", "time_range", NULL};
		JsonbValue *r;
		bool		tsnull;

		check_fields(&arg, sub, ok);
		a.kind = WIDE_MUT_DELETE_FROM_COLUMN;
		family_arg(&arg, sub, &a);
		qualifier_arg(&arg, "column_qualifier", sub, &a);
		a.from = 0;
		a.to = PG_INT64_MAX;
		if ((r = WideJsonField(&arg, "time_range")) != NULL)
		{
			static const char *const rok[] = {"start_timestamp_micros", "end_timestamp_micros", NULL};
			char	   *rsub = psprintf("%s.time_range", sub);

			check_fields(r, rsub, rok);
			a.from = ts_field(r, "start_timestamp_micros", rsub, &tsnull);
			if (tsnull)
				a.from = 0;
			a.to = ts_field(r, "end_timestamp_micros", rsub, &tsnull);
			if (tsnull || a.to == 0)
				a.to = PG_INT64_MAX;	/* 0: no end, as in Bigtable */
		}
	}
	else if (strcmp(name, "set_cell") == 0 || strcmp(name, "add_to_cell") == 0 ||
			 strcmp(name, "merge_to_cell") == 0)
	{
		static const char *const set_ok[] = {"family_name", "column_qualifier",
		"timestamp_micros", "value", NULL};
		static const char *const agg_ok[] = {"family_name", "column_qualifier",
		"timestamp_micros", "input", NULL};
		bool		set = name[0] == 's';

		check_fields(&arg, sub, set ? set_ok : agg_ok);
		a.kind = set ? WIDE_MUT_SET_CELL :
			name[0] == 'a' ? WIDE_MUT_ADD_TO_CELL : WIDE_MUT_MERGE_TO_CELL;
		family_arg(&arg, sub, &a);
		qualifier_arg(&arg, "column_qualifier", sub, &a);
		a.ts = ts_field(&arg, "timestamp_micros", sub, &a.tsnull);
		value_arg(&arg, set ? "value" : "input", &a);
	}
	else
	{
		static const char *const mutations[] = {"set_cell", "add_to_cell",
			"merge_to_cell", "delete_from_column", "delete_from_family",
		"delete_from_row", NULL};

		bad_mutation(sub, WideUnknownNameDetail("mutation", name, mutations));
	}
	WideMutationArgsCell(rel, schema, key, keylen, cstring_to_text_with_len(key, keylen),
						 &a, sub, cell);
}

/* the cells of a JSON array of mutations of one row, into the batch */
static void
row_mutations(WideBatch *b, const char *key, uint32 keylen,
			  JsonbValue *arr, const char *where)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			i = 0;

	if (arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data))
		bad_mutation(where, "Mutations are a JSON array.");
	it = JsonbIteratorInit(arr->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		WideMutationCell(b->rel, b->schema, key, keylen, &e, psprintf("%s[%d]", where, i),
						 WideBatchCell(b));
		i++;
	}
	if (i == 0)
		bad_mutation(where, "A row needs at least one mutation.");
}

static JsonbValue
jsonb_root(Jsonb *j)
{
	JsonbValue	v;

	v.type = jbvBinary;
	v.val.binary.data = &j->root;
	v.val.binary.len = VARSIZE(j) - VARHDRSZ;
	return v;
}

/* the privileges the mutations of mutate_rows' entries need */
static AclMode
entries_privileges(JsonbContainer *entries)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	AclMode		need = 0;

	if (!JsonContainerIsArray(entries) || JsonContainerIsScalar(entries))
		return 0;
	it = JsonbIteratorInit(entries);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		JsonbValue *muts;

		if (tok != WJB_ELEM || e.type != jbvBinary ||
			!JsonContainerIsObject(e.val.binary.data))
			continue;
		muts = WideJsonField(&e, "mutations");
		if (muts != NULL && muts->type == jbvBinary)
			need |= WideMutationsPrivileges(muts->val.binary.data);
	}
	return need;
}

/* what opening for a batch needs: an empty or malformed one, INSERT */
static AclMode
batch_privileges(AclMode need)
{
	return need != 0 ? need : ACL_INSERT;
}

/*
 * wide.mutate_row(tbl, row_key, mutations)
 */
Datum
wide_mutate_row(PG_FUNCTION_ARGS)
{
	Relation	rel;
	const WideSchema *schema;
	const char *key;
	uint32		keylen;
	JsonbValue	arr;
	WideBatch	b;
	Oid			relid;

	relid = WideTableArg(fcinfo, 0);
	if (PG_ARGISNULL(2))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("table and mutations cannot be NULL")));
	arr = jsonb_root(WideBigtableJson(PG_GETARG_JSONB_P(2), get_atttype(relid, 5)));
	rel = WideOpenTableKey(fcinfo, relid,
						batch_privileges(WideMutationsPrivileges(arr.val.binary.data)),
						RowExclusiveLock, 1);
	if (rel == NULL)
		return WideRemoteResult;
	schema = WideGetSchema(rel);
	WideArgBytes(fcinfo, 1, "row_key", &key, &keylen);
	WideCheckText(schema->keytype, key, keylen, "row_key");
	memset(&b, 0, sizeof(b));
	b.rel = rel;
	b.schema = schema;
	b.cap = 8;
	b.cells = palloc(sizeof(WideCell) * b.cap);
	row_mutations(&b, key, keylen, &arr, "$");
	PG_RETURN_INT32((int32) WideBatchFinish(&b));
}

/* write the batch's cells of its current table, and close it */
static void
batch_flush(WideBatch *b)
{
	if (b->rel == NULL)
		return;
	if (b->n > 0)
		WideWriteRecords(b->rel, b->cells, b->n);
	b->total += b->n;
	b->n = 0;
	relation_close(b->rel, NoLock);
	b->rel = NULL;
}

/*
 * WideBatchOpen -- open table relid for a batch of entries by the current
 * user, who needs "need" (a parent of tablets: each entry goes to the
 * tablet of its key, tablets.c).
 */
void
WideBatchOpen(WideBatch *b, FunctionCallInfo fcinfo, Oid relid, AclMode need)
{
	memset(b, 0, sizeof(WideBatch));
	if (WideTabletParent(relid))
		b->parent = WideOpenParent(fcinfo, NULL, relid, need, RowExclusiveLock);
	else
	{
		b->rel = WideOpenTable(fcinfo, relid, need, RowExclusiveLock);
		b->schema = WideGetSchema(b->rel);
	}
	b->cap = 64;
	b->cells = palloc(sizeof(WideCell) * b->cap);
}

/*
 * WideBatchRoute -- the next entry's key: InvalidOid when its cells go to
 * b->rel (WideBatchCell), else the remote tablet it goes to, in order (the
 * cells before it are written first; the caller sends the entry and adds
 * what it wrote to b->total).
 */
Oid
WideBatchRoute(WideBatch *b, const char *key, uint32 keylen)
{
	Oid			leaf;

	if (b->parent == NULL)
		return InvalidOid;
	leaf = WideTabletForKey(b->parent, key, keylen, RowExclusiveLock, false);
	if (get_rel_relkind(leaf) == RELKIND_FOREIGN_TABLE)
	{
		batch_flush(b);
		return leaf;
	}
	if (b->rel == NULL || RelationGetRelid(b->rel) != leaf)
	{
		batch_flush(b);
		b->rel = WideOpenWide(leaf, RowExclusiveLock);
		b->schema = WideGetSchema(b->rel);
	}
	return InvalidOid;
}

/* WideBatchCell -- room for the next cell of the current table */
WideCell *
WideBatchCell(WideBatch *b)
{
	if (b->n == b->cap)
		b->cells = repalloc(b->cells, sizeof(WideCell) * (b->cap *= 2));
	return &b->cells[b->n++];
}

/* WideBatchFinish -- write what is left; the records the batch wrote */
int64
WideBatchFinish(WideBatch *b)
{
	batch_flush(b);
	if (b->parent != NULL)
		relation_close(b->parent, NoLock);
	b->parent = NULL;
	return b->total;
}

/*
 * wide.mutate_rows(tbl, entries)
 */
Datum
wide_mutate_rows(PG_FUNCTION_ARGS)
{
	JsonbValue	root;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			i = 0;
	Oid			relid;
	WideBatch	b;

	relid = WideTableArg(fcinfo, 0);
	if (PG_ARGISNULL(1))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("table and entries cannot be NULL")));
	root = jsonb_root(WideBigtableJson(PG_GETARG_JSONB_P(1), get_atttype(relid, 5)));
	WideBatchOpen(&b, fcinfo, relid,
				  batch_privileges(entries_privileges(root.val.binary.data)));
	if (!JsonContainerIsArray(root.val.binary.data) || JsonContainerIsScalar(root.val.binary.data))
		bad_mutation("$", "Entries are a JSON array of {\"row_key\": k, \"mutations\": [...]}.");
	it = JsonbIteratorInit(root.val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		static const char *const ok[] = {"row_key", "mutations", NULL};
		char	   *where;
		text	   *key;
		JsonbValue *muts;
		Oid			remote;

		if (tok != WJB_ELEM)
			continue;
		where = psprintf("$[%d]", i++);
		check_fields(&e, where, ok);
		{
			JsonbValue *kv = WideJsonField(&e, "row_key");
			char	   *kb;
			int			klen;

			/* a key of Bigtable's JSON mapping that is not text */
			if (kv != NULL && WideJsonBase64Key(kv, &kb, &klen))
				key = cstring_to_text_with_len(kb, klen);
			else
				key = string_field(&e, "row_key", where, true);
		}
		if ((muts = WideJsonField(&e, "mutations")) == NULL)
			bad_mutation(where, "The field \"mutations\" is required.");
		remote = WideBatchRoute(&b, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));
		if (OidIsValid(remote))
		{
			/* a remote tablet: the entry goes to its node, in order */
			b.total += WideRemoteMutateRows(remote, JsonbValueToJsonb(&e));
			continue;
		}
		row_mutations(&b, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), muts,
					  psprintf("%s.mutations", where));
	}
	PG_RETURN_INT64(WideBatchFinish(&b));
}
