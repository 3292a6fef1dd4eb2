/*-------------------------------------------------------------------------
 *
 * args.c
 *	  The scalar arguments of the data API's functions, of type "any": keys
 *	  as bytes, cell timestamps, values.
 *
 * Keys may be given as text or bytea (or an untyped literal) whatever the
 * table's key type: they are bytes.  Timestamps may be timestamptz,
 * timestamp, date or an integer of microseconds since 1970.  A value of
 * another type than the table's value column is converted through its text
 * form.
 *
 * IDENTIFICATION
 *	  src/api/args.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "engine/cell.h"
#include "api/api.h"

/*
 * WideArgBytes -- the bytes of a key-like argument of type "any".
 */
void
WideArgBytes(FunctionCallInfo fcinfo, int argno, const char *what,
			 const char **p, uint32 *len)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Datum		d = PG_GETARG_DATUM(argno);

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s cannot be NULL", what)));
	switch (type)
	{
		case UNKNOWNOID:
		case CSTRINGOID:
			*p = DatumGetCString(d);
			*len = strlen(*p);
			return;
		case NAMEOID:
			*p = NameStr(*DatumGetName(d));
			*len = strlen(*p);
			return;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case BYTEAOID:
			{
				struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

				*p = VARDATA_ANY(v);
				*len = VARSIZE_ANY_EXHDR(v);
				return;
			}
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s must be text or bytea, not %s", what,
							format_type_be(type))));
	}
}

/*
 * WideArgTimestamp -- microseconds since 1970 from an argument of type
 * "any"; *isnull if NULL.
 */
int64
WideArgTimestamp(FunctionCallInfo fcinfo, int argno, bool *isnull)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Datum		d = PG_GETARG_DATUM(argno);

	*isnull = PG_ARGISNULL(argno);
	if (*isnull)
		return 0;
	switch (type)
	{
		case TIMESTAMPTZOID:
			return WideTimestampToUnix(DatumGetTimestampTz(d));
		case TIMESTAMPOID:
			return WideTimestampToUnix(DatumGetTimestampTz(
				DirectFunctionCall1(timestamp_timestamptz, d)));
		case DATEOID:
			return WideTimestampToUnix(DatumGetTimestampTz(
				DirectFunctionCall1(date_timestamptz, d)));
		case INT8OID:
			return DatumGetInt64(d);
		case INT4OID:
			return DatumGetInt32(d);
		case UNKNOWNOID:
		case TEXTOID:
			{
				char	   *s = (type == UNKNOWNOID) ? DatumGetCString(d) :
					TextDatumGetCString(d);

				return WideTimestampToUnix(DatumGetTimestampTz(
					DirectFunctionCall3(timestamptz_in, CStringGetDatum(s),
										ObjectIdGetDatum(InvalidOid),
										Int32GetDatum(-1))));
			}
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("a cell timestamp must be timestamptz, timestamp, date or int8 microseconds, not %s",
							format_type_be(type))));
	}
	return 0;
}

/*
 * WideArgValue -- an argument of type "any" as a datum of the table's value
 * type (converted through text if the types differ).
 */
Datum
WideArgValue(FunctionCallInfo fcinfo, int argno, Oid valtype)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Datum		d = PG_GETARG_DATUM(argno);
	Oid			infunc,
				ioparam,
				outfunc;
	bool		varlena;
	char	   *s;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a cell value cannot be NULL")));
	if (type == valtype)
		return d;
	if (type == UNKNOWNOID || type == CSTRINGOID)
		s = DatumGetCString(d);
	else
	{
		getTypeOutputInfo(type, &outfunc, &varlena);
		s = OidOutputFunctionCall(outfunc, d);
	}
	getTypeInputInfo(valtype, &infunc, &ioparam);
	return OidInputFunctionCall(infunc, s, ioparam, -1);
}
