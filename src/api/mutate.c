/*-------------------------------------------------------------------------
 *
 * mutate.c
 *	  Mutations as SQL functions: SetCell and the three deletes.
 *
 *	  wide.set_cell(tbl, row_key, family, qualifier, value, ts => NULL)
 *	  wide.delete_cells(tbl, row_key, family, qualifier,
 *	                    ts_from => NULL, ts_to => NULL)     [from, to)
 *	  wide.delete_family(tbl, row_key, family)
 *	  wide.delete_row(tbl, row_key)
 *
 * Keys may be given as text or bytea (or an untyped literal) whatever the
 * table's key type: they are bytes.  Timestamps may be timestamptz,
 * timestamp, date or an integer of microseconds since 1970.  A value of
 * another type than the table's value column is converted through its text
 * form.  Each call is one write in the caller's transaction, appended to the
 * write area like an INSERT; a delete removes the cells of its scope written
 * before it, whatever their timestamps.
 *
 * IDENTIFICATION
 *	  src/api/mutate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "am/am.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_set_cell);
PG_FUNCTION_INFO_V1(wide_delete_cells);
PG_FUNCTION_INFO_V1(wide_delete_family);
PG_FUNCTION_INFO_V1(wide_delete_row);

/*
 * WideArgCoordinates -- the row key, family, qualifier (arguments 1 to 3)
 * and timestamp (argument tsarg) of a mutation function as the first four
 * columns of a row, as an INSERT would have them; returns the family,
 * which must exist.
 */
const WideFamily *
WideArgCoordinates(FunctionCallInfo fcinfo, Relation rel, const WideSchema *schema,
				   int tsarg, Datum *values, bool *isnull)
{
	const char *p;
	uint32		len;
	const WideFamily *fam;
	int64		ts;

	WideArgBytes(fcinfo, 1, "row_key", &p, &len);
	WideCheckText(schema->keytype, p, len, "row_key");
	values[0] = PointerGetDatum(cstring_to_text_with_len(p, len));
	WideArgBytes(fcinfo, 2, "family", &p, &len);
	WideCheckText(TEXTOID, p, len, "family");
	values[1] = PointerGetDatum(cstring_to_text_with_len(p, len));
	fam = WideFamilyForWrite(rel, schema, p, len);
	WideArgBytes(fcinfo, 3, "qualifier", &p, &len);
	WideCheckText(schema->qualtype, p, len, "qualifier");
	values[2] = PointerGetDatum(cstring_to_text_with_len(p, len));
	ts = WideArgTimestamp(fcinfo, tsarg, &isnull[3]);
	values[3] = schema->tstype == TIMESTAMPTZOID ?
		TimestampTzGetDatum(WideUnixToTimestamp(ts)) : Int64GetDatum(ts);
	return fam;
}

/*
 * WideOpenForWrite -- open a wide table for a mutation by the current user,
 * who must hold every privilege in "mode" (see access.c).
 */
Relation
WideOpenForWrite(Oid relid, AclMode mode)
{
	return WideOpenTable(NULL, relid, mode, RowExclusiveLock);
}

/*
 * WideWriteRecords -- write records of the current transaction and
 * command, after checking them all: the caller opened the table for the
 * privileges these records need, and their text is valid.  Held until the
 * statement ends, as INSERT's (am/write.c).
 */
void
WideWriteRecords(Relation rel, WideCell *cells, int n)
{
	const WideSchema *schema = WideGetSchema(rel);
	int			i;

	WideCheckPrivileges(RelationGetRelid(rel), WideCellsPrivileges(cells, n));
	for (i = 0; i < n; i++)
		WideCheckCellText(schema, &cells[i]);
	WideWrite(rel, schema, cells, n, WIDE_WRITE_STATEMENT,
			  GetCurrentCommandId(true), NULL);
}

/* a tombstone of the given kind for a row */
static void
tombstone(FunctionCallInfo fcinfo, WideKind kind, WideCell *c,
		  const WideSchema *schema, Relation rel)
{
	memset(c, 0, sizeof(WideCell));
	c->kind = kind;
	WideArgBytes(fcinfo, 1, "row_key", &c->key, &c->keylen);
	WideCheckText(schema->keytype, c->key, c->keylen, "row_key");
	if (c->keylen == 0 || c->keylen > WIDE_MAX_ROW_KEY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row key must be 1 to %d bytes long", WIDE_MAX_ROW_KEY)));
	c->family = "";
	c->qual = "";
	c->ts_to = PG_INT64_MAX;
	if (kind != WIDE_KIND_DEL_ROW)
	{
		const WideFamily *f;
		uint32		len;

		WideArgBytes(fcinfo, 2, "family", &c->family, &len);
		WideCheckText(TEXTOID, c->family, len, "family");
		f = WideFamilyForWrite(rel, schema, c->family, len);
		c->famlen = len;
		c->famid = f->id;
	}
}

/*
 * wide.set_cell(tbl, row_key, family, qualifier, value, ts)
 */
Datum
wide_set_cell(PG_FUNCTION_ARGS)
{
	Relation	rel;
	const WideSchema *schema;
	Datum		values[5];
	bool		isnull[5] = {0};
	WideCell	cell;
	const WideFamily *fam;

	rel = WideOpenTableKey(fcinfo, WideTableArg(fcinfo, 0), ACL_INSERT, RowExclusiveLock, 1);
	if (rel == NULL)
		return WideRemoteResult;
	schema = WideGetSchema(rel);

	/* build the row as an INSERT would see it, and reuse its checks */
	fam = WideArgCoordinates(fcinfo, rel, schema, 5, values, isnull);
	if (fam->aggregate != WIDE_AGG_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot set a cell of aggregate family \"%s\"", fam->name),
				 errdetail("Cells of an aggregate family are merged from inputs, never replaced."),
				 errhint("Use wide.add_to_cell() or wide.merge_to_cell(); to reset a cell, delete it first.")));
	values[4] = WideArgValue(fcinfo, 4, schema->valtype);
	WideCellFromValues(rel, schema, values, isnull, &cell);
	WideWriteRecords(rel, &cell, 1);
	relation_close(rel, NoLock);
	PG_RETURN_VOID();
}

/*
 * wide.delete_cells(tbl, row_key, family, qualifier, ts_from, ts_to)
 */
Datum
wide_delete_cells(PG_FUNCTION_ARGS)
{
	Relation	rel;
	WideCell	c;
	bool		isnull;
	int64		from,
				to;

	rel = WideOpenTableKey(fcinfo, WideTableArg(fcinfo, 0), ACL_DELETE, RowExclusiveLock, 1);
	if (rel == NULL)
		return WideRemoteResult;
	tombstone(fcinfo, WIDE_KIND_DEL_CELLS, &c, WideGetSchema(rel), rel);
	WideArgBytes(fcinfo, 3, "qualifier", &c.qual, &c.quallen);
	WideCheckText(WideGetSchema(rel)->qualtype, c.qual, c.quallen, "qualifier");
	if (c.quallen > WIDE_MAX_QUALIFIER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("qualifier of %u bytes is too long", c.quallen)));
	from = WideArgTimestamp(fcinfo, 4, &isnull);
	c.ts = isnull ? 0 : from;
	to = WideArgTimestamp(fcinfo, 5, &isnull);
	c.ts_to = isnull ? PG_INT64_MAX : to;
	if (c.ts < 0 || c.ts_to < c.ts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("timestamp range [%lld, %lld) is invalid",
						(long long) c.ts, (long long) c.ts_to),
				 errhint("ts_from must not be after ts_to; the range includes ts_from and excludes ts_to.")));
	WideWriteRecords(rel, &c, 1);
	relation_close(rel, NoLock);
	PG_RETURN_VOID();
}

/*
 * delete_family and delete_row: one tombstone of kind for the row (and
 * family) of the arguments
 */
static Datum
delete_tombstone(FunctionCallInfo fcinfo, WideKind kind)
{
	Relation	rel = WideOpenTableKey(fcinfo, WideTableArg(fcinfo, 0), ACL_DELETE,
									RowExclusiveLock, 1);
	WideCell	c;

	if (rel == NULL)
		return WideRemoteResult;
	tombstone(fcinfo, kind, &c, WideGetSchema(rel), rel);
	WideWriteRecords(rel, &c, 1);
	relation_close(rel, NoLock);
	PG_RETURN_VOID();
}

/*
 * wide.delete_family(tbl, row_key, family)
 */
Datum
wide_delete_family(PG_FUNCTION_ARGS)
{
	return delete_tombstone(fcinfo, WIDE_KIND_DEL_FAMILY);
}

/*
 * wide.delete_row(tbl, row_key)
 */
Datum
wide_delete_row(PG_FUNCTION_ARGS)
{
	return delete_tombstone(fcinfo, WIDE_KIND_DEL_ROW);
}
