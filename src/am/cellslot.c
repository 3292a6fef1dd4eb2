/*-------------------------------------------------------------------------
 *
 * cellslot.c
 *	  Between SQL values and cells: checks on the way in, datums on the way
 *	  out.
 *
 * Values are kept as the bytes of their binary form: a varlena's contents
 * (detoasted, without header), or the typlen bytes of a fixed-length type.
 * Aggregate families keep an accumulator (aggregate.c): sum, min and max an
 * int64, which int8 columns carry as is and bytea columns as 8 big-endian
 * bytes (Bigtable's encoding); hll a sketch, in a bytea column.
 *
 * IDENTIFICATION
 *	  src/am/cellslot.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "am/am.h"

static const char *const column_names[] = {
	"row_key", "family", "qualifier", "ts", "value"
};

/*
 * WideNowUnix -- the server's current time, microseconds since 1970.
 */
int64
WideNowUnix(void)
{
	return WideTimestampToUnix(GetCurrentTimestamp());
}

/* bytes of a text/bytea datum */
static const char *
varlena_bytes(Datum d, uint32 *len)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

	*len = VARSIZE_ANY_EXHDR(v);
	return VARDATA_ANY(v);
}

static void
check_not_null(Relation rel, bool isnull, int attno)
{
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("null value in column \"%s\" of wide table \"%s\"",
						column_names[attno], RelationGetRelationName(rel)),
				 errdetail("Every cell has a row key, a family, a qualifier and a value."),
				 errhint("A NULL ts means the current time; no other column may be NULL.")));
}

static void
check_length(Relation rel, const char *what, uint32 len, uint32 limit)
{
	if (len > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of %u bytes is too long for wide table \"%s\"",
						what, len, RelationGetRelationName(rel)),
				 errdetail("The limit is %u bytes.", limit)));
}

/*
 * WideCheckTimestamp -- fail unless ts is a valid cell timestamp.
 */
void
WideCheckTimestamp(int64 ts)
{
	if (ts < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("cell timestamp %lld is before 1970",
						(long long) ts),
				 errdetail("Cell timestamps are microseconds since 1970-01-01 and cannot be negative.")));
}

static const WideFamily *nearest_family(const WideSchema *schema,
										 const char *name, uint32 len);

/*
 * WideFamilyForWrite -- the family a write names; fails if it is unknown.
 */
const WideFamily *
WideFamilyForWrite(Relation rel, const WideSchema *schema,
				   const char *name, uint32 len)
{
	const WideFamily *f = WideSchemaFindFamily(schema, name, len);

	if (f == NULL)
		f = WideMoveInFamily(rel, schema, name, len);	/* movein.c */
	if (f == NULL)
	{
		/* the new table of a rewrite has the families of the table */
		Oid			orig = WideRewriteSource(rel);
		const char *relname = OidIsValid(orig) ? get_rel_name(orig) :
			RelationGetRelationName(rel);

		const WideFamily *near = nearest_family(schema, name, len);

		if (near != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("column family \"%.*s\" does not exist in wide table \"%s\"",
							(int) len, name, relname),
					 errhint("Did you mean \"%.*s\"?  Or create it first: SELECT wide.create_family('%s', '%.*s');",
							 near->namelen, near->name, relname, (int) len, name)));
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("column family \"%.*s\" does not exist in wide table \"%s\"",
						(int) len, name, relname),
				 errhint("Create it first: SELECT wide.create_family('%s', '%.*s');",
						 relname, (int) len, name)));
	}
	return f;
}

/*
 * nearest_family -- the family whose name is nearest to name by edit
 * distance, if near enough to be a typo, else NULL: at most a third of the
 * name's length rounded up, and fewer edits than the shorter name has
 * bytes (family names are often one or two letters: "x" is no typo of "m").
 */
static const WideFamily *
nearest_family(const WideSchema *schema, const char *name, uint32 len)
{
	int			max_d = ((int) len + 2) / 3;
	const WideFamily *best = NULL;

	for (int i = 0; i < schema->nfamilies; i++)
	{
		const WideFamily *f = &schema->families[i];
		int			d = varstr_levenshtein_less_equal(name, len, f->name,
													  f->namelen, 1, 1, 1,
													  max_d, true);

		if (d <= max_d && d < Min((int) len, f->namelen))
		{
			best = f;
			max_d = d - 1;		/* later names must be strictly nearer */
			if (max_d < 0)
				break;
		}
	}
	return best;
}

/*
 * WideValueToBytes -- the stored bytes of a value datum.
 */
const char *
WideValueToBytes(const WideSchema *schema, Datum value, uint32 *len)
{
	if (schema->vallen == -1)
		return varlena_bytes(value, len);
	*len = schema->vallen;
	if (schema->valbyval)
	{
		char	   *buf = palloc(sizeof(Datum));

		store_att_byval(buf, value, schema->vallen);
		return buf;
	}
	return DatumGetPointer(value);
}

/*
 * WideBytesToValue -- a datum of the value column's type from stored bytes.
 */
Datum
WideBytesToValue(const WideSchema *schema, const char *bytes, uint32 len)
{
	if (schema->vallen == -1)
	{
		struct varlena *v = palloc(VARHDRSZ + len);

		SET_VARSIZE(v, VARHDRSZ + len);
		memcpy(VARDATA(v), bytes, len);
		return PointerGetDatum(v);
	}
	if (len != (uint32) schema->vallen)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored value has %u bytes, expected %d", len,
						schema->vallen)));
	if (schema->valbyval)
	{
		union
		{
			char		c;
			int16		i16;
			int32		i32;
			int64		i64;
		}			u;

		memcpy(&u, bytes, len);
		switch (len)
		{
			case 1:
				return CharGetDatum(u.c);
			case 2:
				return Int16GetDatum(u.i16);
			case 4:
				return Int32GetDatum(u.i32);
			default:
				return Int64GetDatum(u.i64);
		}
	}
	else
	{
		char	   *copy = palloc(len);

		memcpy(copy, bytes, len);
		return PointerGetDatum(copy);
	}
}

/* a text or bytea datum of the given bytes */
static Datum
bytes_datum(const char *data, uint32 len)
{
	struct varlena *v = palloc(VARHDRSZ + len);

	SET_VARSIZE(v, VARHDRSZ + len);
	memcpy(VARDATA(v), data, len);
	return PointerGetDatum(v);
}

/*
 * WideAggInt -- the int64 input or accumulator of a sum, min or max family
 * from a datum of any type: integers as they are, bytea as 8 big-endian
 * bytes (Bigtable's encoding), anything else through its text form.
 */
int64
WideAggInt(Relation rel, const WideFamily *fam, Oid type, Datum value)
{
	switch (type)
	{
		case INT8OID:
			return DatumGetInt64(value);
		case INT4OID:
			return DatumGetInt32(value);
		case INT2OID:
			return DatumGetInt16(value);
		case BYTEAOID:
			{
				uint32		len;
				const char *b = varlena_bytes(value, &len);
				uint64		be;

				if (len != sizeof(int64))
					ereport(ERROR,
							(errcode(ERRCODE_DATATYPE_MISMATCH),
							 errmsg("input to aggregate family \"%s\" must be a 64-bit integer",
									fam->name),
							 errdetail("A bytea input has 8 big-endian bytes, not %u.", len)));
				memcpy(&be, b, sizeof(int64));
				return (int64) pg_ntoh64(be);
			}
		default:
			{
				Oid			outfunc;
				bool		varlena;
				char	   *s;
				char	   *end;
				int64		v;

				if (type == UNKNOWNOID || type == CSTRINGOID)
					s = DatumGetCString(value);
				else
				{
					getTypeOutputInfo(type, &outfunc, &varlena);
					s = OidOutputFunctionCall(outfunc, value);
				}
				errno = 0;
				v = strtoi64(s, &end, 10);
				while (*end == ' ')
					end++;
				if (errno != 0 || end == s || *end != '\0')
					ereport(ERROR,
							(errcode(ERRCODE_DATATYPE_MISMATCH),
							 errmsg("input to aggregate family \"%s\" must be a 64-bit integer, not \"%s\"",
									fam->name, s),
							 errdetail("Aggregate family \"%s\" of wide table \"%s\" keeps %s over int8.",
									   fam->name, RelationGetRelationName(rel),
									   fam->aggregate == WIDE_AGG_SUM ? "a sum" :
									   fam->aggregate == WIDE_AGG_MIN ? "a minimum" :
									   fam->aggregate == WIDE_AGG_MAX ? "a maximum" :
									   "a count (and in an int8 table a sum, minimum and maximum)")));
				return v;
			}
	}
}

/*
 * WideAggFloat -- the float8 input of a sum, min or max family over a
 * float8 value column: floats and integers as they are (an int8 rounded to
 * the nearest double), numeric rounded, anything else through its text form
 * (float8in: 'NaN', 'Infinity' and '-Infinity' are values too).
 */
double
WideAggFloat(Relation rel, const WideFamily *fam, Oid type, Datum value)
{
	(void) rel;
	(void) fam;
	switch (type)
	{
		case FLOAT8OID:
			return DatumGetFloat8(value);
		case FLOAT4OID:
			return (double) DatumGetFloat4(value);
		case INT8OID:
			return (double) DatumGetInt64(value);
		case INT4OID:
			return (double) DatumGetInt32(value);
		case INT2OID:
			return (double) DatumGetInt16(value);
		case NUMERICOID:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8, value));
		default:
			{
				Oid			outfunc;
				bool		varlena;
				char	   *s;

				if (type == UNKNOWNOID || type == CSTRINGOID)
					s = DatumGetCString(value);
				else
				{
					getTypeOutputInfo(type, &outfunc, &varlena);
					s = OidOutputFunctionCall(outfunc, value);
				}
				return DatumGetFloat8(DirectFunctionCall1(float8in, CStringGetDatum(s)));
			}
	}
}

/*
 * WideAggInput -- the value of an ADD (or MERGE) record of an input of
 * aggregate agg to a cell of family fam, in the current memory context:
 * 8 bytes for an int64 or a double input or an hll hash (a MERGE is the
 * same 8 bytes).  An hll MERGE (a sketch) is the caller's.
 */
const char *
WideAggInput(Relation rel, const WideFamily *fam, WideAggregate agg,
			 WideKind kind, Oid type, Datum value, uint32 *len)
{
	char	   *out;

	(void) kind;
	if (agg == WIDE_AGG_DDS)
	{
		double		d;

		/* a bytea input is 8 big-endian bytes of a double */
		if (type == BYTEAOID)
		{
			uint32		blen;
			const char *b = varlena_bytes(value, &blen);
			uint64		be;

			if (blen != sizeof(double))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("input to ddsketch family \"%s\" must be a float8 or a sketch", fam->name),
						 errdetail("A bytea input is a sketch, or 8 big-endian bytes of a double, not %u bytes.", blen)));
			memcpy(&be, b, sizeof(be));
			be = pg_ntoh64(be);
			memcpy(&d, &be, sizeof(d));
		}
		else
			d = WideAggFloat(rel, fam, type, value);
		if (isnan(d) || isinf(d))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("input to ddsketch family \"%s\" must be finite, not %g", fam->name, d),
					 errdetail("A quantile sketch keeps finite values.")));
		out = palloc(sizeof(double));
		memcpy(out, &d, sizeof(double));
		*len = sizeof(double);
		return out;
	}
	if (WIDE_AGG_IS_FLOAT(agg))
	{
		double		d = WideFloatInput(agg, WideAggFloat(rel, fam, type, value));

		/* a MERGE of a float sum is a piece of one: a double too */
		out = palloc(sizeof(double));
		memcpy(out, &d, sizeof(double));
		*len = sizeof(double);
		return out;
	}
	out = palloc(sizeof(int64));
	if (agg == WIDE_AGG_HLL)
		*(uint64 *) out = WideHllInputHash(type, value);
	else
		*(int64 *) out = WideAggInt(rel, fam, type, value);
	*len = sizeof(int64);
	return out;
}

/*
 * WideHllInputHash -- the hash of a HyperLogLog input: integers hash as
 * their 8 little-endian bytes, text and bytea as their bytes, anything else
 * as its text form (so that a uuid and its text hash alike).
 */
uint64
WideHllInputHash(Oid type, Datum value)
{
	switch (type)
	{
		case INT8OID:
		case INT4OID:
		case INT2OID:
			{
				int64		v = type == INT8OID ? DatumGetInt64(value) :
					type == INT4OID ? DatumGetInt32(value) : DatumGetInt16(value);
				char		le[8];
				int			i;

				for (i = 0; i < 8; i++)
					le[i] = (char) (((uint64) v >> (8 * i)) & 0xff);
				return WideHllHash(le, 8);
			}
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case BYTEAOID:
			{
				uint32		len;
				const char *b = varlena_bytes(value, &len);

				return WideHllHash(b, len);
			}
		case UNKNOWNOID:
		case CSTRINGOID:
			return WideHllHash(DatumGetCString(value), strlen(DatumGetCString(value)));
		default:
			{
				Oid			outfunc;
				bool		varlena;
				char	   *s;

				getTypeOutputInfo(type, &outfunc, &varlena);
				s = OidOutputFunctionCall(outfunc, value);
				return WideHllHash(s, strlen(s));
			}
	}
}

/*
 * WideAggToValue -- the datum of an aggregate cell's value (a MERGE
 * record's): sum/min/max as int8, or 8 big-endian bytes in a bytea column;
 * in a float8 column as float8 (a float sum rounded once to the nearest
 * double, a rollup's count converted); hll as its sketch (hll families
 * need a bytea column).  WideAggToValue's datum is new; with nocopy, a
 * sketch may be the cell's own varlena (valid as long as the cell), for a
 * tuple of this cell alone (WideCellToValues).
 */
static Datum
agg_to_value(const WideSchema *schema, const WideCell *cell, bool nocopy,
			 WideAggMemo *memo)
{
	WideAggregate agg;
	int64		acc;

	if (memo && memo->schema == schema && memo->famlen == cell->famlen &&
		memo->quallen == cell->quallen &&
		memcmp(memo->qual, cell->qual, cell->quallen) == 0 &&
		memcmp(memo->fam, cell->family, cell->famlen) == 0)
		agg = memo->agg;		/* the column of the cell before */
	else
	{
		const WideFamily *f = WideSchemaFindFamily(schema, cell->family, cell->famlen);

		agg = f != NULL ? WideCellAggregate(f, cell->qual, cell->quallen) : WIDE_AGG_NONE;
		if (memo && cell->famlen <= WIDE_AGG_MEMO_BYTES &&
			cell->quallen <= WIDE_AGG_MEMO_BYTES)
		{
			memo->schema = schema;
			memo->famlen = cell->famlen;
			memo->quallen = cell->quallen;
			memcpy(memo->fam, cell->family, cell->famlen);
			memcpy(memo->qual, cell->qual, cell->quallen);
			memo->agg = agg;
		}
	}

	if (agg == WIDE_AGG_HLL || agg == WIDE_AGG_DDS)
	{
		if (schema->valtype != BYTEAOID)
			elog(ERROR, "sketch cell in a wide table without a bytea value column");
		/* (a short accumulator the merger kept as a varlena: merge.c) */
		if (nocopy && cell->kind == WIDE_KIND_MERGE && cell->value_datum != NULL)
			return PointerGetDatum(cell->value_datum);
		return bytes_datum(cell->value, cell->vallen);
	}
	if (WIDE_AGG_IS_FLOAT(agg))
	{
		WideAcc		a;

		/* an ADD or a MERGE reads as its fold, however it was folded */
		WideAccInit(&a, CurrentMemoryContext);
		WideAccStart(&a, agg);
		WideAccFold(&a, cell->kind, cell->value, cell->vallen);
		return Float8GetDatum(WideAccFloat(&a));
	}
	/* read from disk: a damaged record may claim to be an aggregate */
	if (cell->vallen != sizeof(int64))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("wide aggregate cell holds a malformed accumulator of %u bytes",
						cell->vallen),
				 errhint("Run wide.verify() on the table, and restore it from a backup if it reports corruption.")));
	memcpy(&acc, cell->value, sizeof(int64));
	if (schema->valtype == FLOAT8OID)
		return Float8GetDatum((double) acc);	/* a count in a float8 table */
	if (schema->valtype == BYTEAOID)
	{
		uint64		be = pg_hton64((uint64) acc);

		return bytes_datum((const char *) &be, sizeof(int64));
	}
	return Int64GetDatum(acc);
}

Datum
WideAggToValue(const WideSchema *schema, const WideCell *cell)
{
	return agg_to_value(schema, cell, false, NULL);
}

/*
 * WideCellCoordinates -- check the row key, family, qualifier and
 * timestamp of a row (values 0 to 3) and set them in the cell; returns the
 * family.  The cell points into the values' memory.
 */
const WideFamily *
WideCellCoordinates(Relation rel, const WideSchema *schema,
					Datum *values, bool *isnull, WideCell *cell)
{
	const WideFamily *fam;
	uint32		famlen;
	int			i;

	memset(cell, 0, sizeof(WideCell));
	for (i = 0; i < 3; i++)
		check_not_null(rel, isnull[i], i);

	cell->key = varlena_bytes(values[0], &cell->keylen);
	if (cell->keylen == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row key cannot be empty"),
				 errdetail("Bigtable row keys are one byte or longer.")));
	check_length(rel, "row key", cell->keylen, WIDE_MAX_ROW_KEY);

	cell->family = varlena_bytes(values[1], &famlen);
	fam = WideFamilyForWrite(rel, schema, cell->family, famlen);
	cell->famlen = famlen;
	cell->famid = fam->id;

	cell->qual = varlena_bytes(values[2], &cell->quallen);
	check_length(rel, "qualifier", cell->quallen, WIDE_MAX_QUALIFIER);

	if (isnull[3] && fam->aggregate != WIDE_AGG_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("a write to aggregate family \"%s\" needs a timestamp", fam->name),
				 errdetail("The timestamp is the cell's bucket: every input with the same timestamp is merged into one cell."),
				 errhint("Truncate it to the bucket you want, e.g. date_trunc('day', now()).")));
	if (isnull[3])
		cell->ts = WideNowUnix();
	else if (schema->tstype == TIMESTAMPTZOID)
		cell->ts = WideTimestampToUnix(DatumGetTimestampTz(values[3]));
	else
		cell->ts = DatumGetInt64(values[3]);
	WideCheckTimestamp(cell->ts);
	cell->ts_to = PG_INT64_MAX;
	return fam;
}

/*
 * WideCellFromValues -- the record of an INSERTed row: a PUT, or for an
 * aggregate family an ADD (AddToCell) -- a MERGE for a HyperLogLog sketch
 * written into an hll family; fails with a clear error on bad input.  The cell points into memory allocated in the current context.
 */
void
WideCellFromValues(Relation rel, const WideSchema *schema,
				   Datum *values, bool *isnull, WideCell *cell)
{
	const WideFamily *fam = WideCellCoordinates(rel, schema, values, isnull, cell);
	WideAggregate agg = WideRollupCellCheck(rel, fam, cell->qual, cell->quallen);

	check_not_null(rel, isnull[4], 4);
	if (agg == WIDE_AGG_NONE)
	{
		cell->kind = WIDE_KIND_PUT;
		cell->value = WideValueToBytes(schema, values[4], &cell->vallen);
		check_length(rel, "value", cell->vallen, WIDE_MAX_VALUE);
	}
	else if ((agg == WIDE_AGG_HLL || agg == WIDE_AGG_DDS) &&
			 schema->valtype == BYTEAOID &&
			 (cell->value = varlena_bytes(values[4], &cell->vallen)) != NULL &&
			 (agg == WIDE_AGG_HLL ? WideHllCheck(cell->value, cell->vallen) :
			  WideDDSCheck(cell->value, cell->vallen)) == NULL)
	{
		/*
		 * A well-formed sketch written into an hll family is merged
		 * (MergeToCell), so that what SELECT or pg_dump read back restores
		 * the same cell; any other value is an input.
		 */
		cell->kind = WIDE_KIND_MERGE;
	}
	else
	{
		cell->kind = WIDE_KIND_ADD;
		cell->value = WideAggInput(rel, fam, agg, WIDE_KIND_ADD, schema->valtype,
								   values[4], &cell->vallen);
	}
}

/*
 * WideCellSibling -- WideCellFromValues of another column of a row just
 * converted: "first" (from WideCellFromValues) gives the row key, family
 * and timestamp, already checked; only the qualifier (qual, a text or
 * bytea datum) and the value are new.  False, with *cell unset, when the
 * cell is not a plain PUT (an aggregate or rollup family's): the caller
 * converts it with WideCellFromValues.  (The row form writes ten columns
 * of a reading this way: the per-cell checks of the key, family and
 * timestamp, and the family's lookup, once a row.)  valbuf, if not NULL:
 * schema->vallen bytes where a by-value value is stored, instead of memory
 * allocated for it.
 */
bool
WideCellSibling(Relation rel, const WideSchema *schema, const WideCell *first,
				Datum qual, Datum value, char *valbuf, WideCell *cell)
{
	if (first->kind != WIDE_KIND_PUT)
		return false;
	*cell = *first;
	cell->qual = varlena_bytes(qual, &cell->quallen);
	check_length(rel, "qualifier", cell->quallen, WIDE_MAX_QUALIFIER);
	cell->qual_datum = NULL;
	cell->value_datum = NULL;
	if (valbuf != NULL && schema->valbyval && schema->vallen > 0)
	{
		store_att_byval(valbuf, value, schema->vallen);
		cell->value = valbuf;
		cell->vallen = schema->vallen;
	}
	else
		cell->value = WideValueToBytes(schema, value, &cell->vallen);
	check_length(rel, "value", cell->vallen, WIDE_MAX_VALUE);
	return true;
}


/*
 * WideCellToValues -- the column values of a cell.  Only the columns with
 * needed[i] (all, if needed is NULL) are filled in; the others are NULL.
 * Keys, qualifiers and short values are returned in place when the cell
 * carries them as varlenas; everything else is allocated in the current
 * memory context (returns whether anything was).  A value kept in a blob
 * must have been read (cell->value set) by the caller.
 */
bool
WideCellToValues(const WideSchema *schema, const WideCell *cell,
				 Datum *values, bool *isnull, const bool *needed)
{
	return WideCellToValuesMemo(schema, cell, values, isnull, needed, NULL);
}

/*
 * WideCellToValuesMemo -- WideCellToValues for a caller forming tuple after
 * tuple (a scan): memo (zeroed at first) remembers the aggregate of the
 * last accumulator's column, for the next cells of that column.
 */
bool
WideCellToValuesMemo(const WideSchema *schema, const WideCell *cell,
					 Datum *values, bool *isnull, const bool *needed,
					 WideAggMemo *memo)
{
	int			i;
	bool		allocated = false;

	for (i = 0; i < 5; i++)
		isnull[i] = needed != NULL && !needed[i];

	if (!isnull[0])
	{
		if (cell->key_datum)
			values[0] = PointerGetDatum(cell->key_datum);
		else
		{
			values[0] = bytes_datum(cell->key, cell->keylen);
			allocated = true;
		}
	}
	if (!isnull[1])
	{
		values[1] = bytes_datum(cell->family, cell->famlen);
		allocated = true;
	}
	if (!isnull[2])
	{
		if (cell->qual_datum)
			values[2] = PointerGetDatum(cell->qual_datum);
		else
		{
			values[2] = bytes_datum(cell->qual, cell->quallen);
			allocated = true;
		}
	}
	if (!isnull[3])
		values[3] = (schema->tstype == TIMESTAMPTZOID) ?
			TimestampTzGetDatum(WideUnixToTimestamp(cell->ts)) :
			Int64GetDatum(cell->ts);
	if (!isnull[4])
	{
		if (cell->kind == WIDE_KIND_MERGE || cell->kind == WIDE_KIND_ADD)
		{
			/* an accumulator (a sketch the merger kept as a varlena is not copied) */
			values[4] = agg_to_value(schema, cell, true, memo);
			allocated |= cell->value_datum == NULL ||
				DatumGetPointer(values[4]) != cell->value_datum;
		}
		else if (cell->value_datum && schema->vallen == -1)
			values[4] = PointerGetDatum(cell->value_datum);
		else
		{
			values[4] = WideBytesToValue(schema, cell->value, cell->vallen);
			allocated |= !schema->valbyval;
		}
	}
	return allocated;
}
