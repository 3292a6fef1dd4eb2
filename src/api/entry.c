/*-------------------------------------------------------------------------
 *
 * entry.c
 *	  The public functions whose work is done by internal functions.
 *
 * No internal function of the extension (schema wide_internal) is
 * executable by PUBLIC, and PostgreSQL checks EXECUTE on every call made
 * from SQL, a call from a plpgsql function included.  So the public
 * functions below, which need internal ones, are written in C: each checks
 * the caller's privilege on the table exactly as its plpgsql predecessor
 * did, then calls the internal functions through fmgr, as the caller (no
 * user change: every statement they run is checked for the caller, as it
 * was).  The internal functions they call call no internal function
 * themselves.
 *
 *	wide.create_family, wide.alter_family, wide.drop_family
 *		ownership (WideCheckFamilyOwner), then _lock_catalog, _family_hint,
 *		_family_doc (the checks and the new catalog), for a new rollup with
 *		key_parts on a parent of tablets _tablet_bounds, _bound_value and
 *		_check_rollup_boundary on each tablet's bounds, WideStoreCatalog,
 *		the same function on each local partition, WideRemoteFamily on
 *		the remote ones, and for a new rollup of a wide table _rollup_fill
 *	wide.rebuild_rollup
 *		_rebuild_rollup (its checks, its lock and the DELETE, which check
 *		the caller's privileges), then _rollup_fill
 *	wide.create_tablets(parent, split_keys, nodes)
 *		ownership, _create_tablets_check, _check_rollup_boundary on each
 *		split key, _create_tablets_make, WideRemoteCreateTablet on each
 *		remote tablet
 *	wide.create_pivot_view
 *		_family_hint of the table's catalog, then _create_pivot_view
 *	wide.read_rows(text, ...) and the other reads naming their table by a
 *	string: the error saying to write NULL::tablename
 *
 *	WideChildren(relid, local, remote)	the partitions of a table, local
 *		ones, remote ones (foreign tables) or both, in the order of their OIDs
 *
 * IDENTIFICATION
 *	  src/api/entry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/tuplestore.h"

#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_create_family);
PG_FUNCTION_INFO_V1(wide_alter_family);
PG_FUNCTION_INFO_V1(wide_drop_family);
PG_FUNCTION_INFO_V1(wide_rebuild_rollup);
PG_FUNCTION_INFO_V1(wide_create_tablets);
PG_FUNCTION_INFO_V1(wide_create_pivot_view);
PG_FUNCTION_INFO_V1(wide_read_by_name);

#define MAX_CALL_ARGS 12

/* the OID of function schema.name(argtypes) */
static Oid
lookup(const char *schema, const char *name, int nargs, const Oid *argtypes)
{
	return LookupFuncName(list_make2(makeString((char *) schema), makeString((char *) name)),
						  nargs, argtypes, false);
}

/*
 * call -- call a function through fmgr, as the current user, with no
 * EXECUTE check (the caller of call has made the checks the function
 * needs).  Text arguments get the default collation, as from plpgsql.
 */
static Datum
call(Oid fn, int nargs, const Datum *args, const bool *nulls, bool *isnull)
{
	LOCAL_FCINFO(fcinfo, MAX_CALL_ARGS);
	FmgrInfo	flinfo;
	Datum		result;
	int			i;

	Assert(nargs <= MAX_CALL_ARGS);
	fmgr_info(fn, &flinfo);
	InitFunctionCallInfoData(*fcinfo, &flinfo, nargs, DEFAULT_COLLATION_OID, NULL, NULL);
	for (i = 0; i < nargs; i++)
	{
		fcinfo->args[i].value = args[i];
		fcinfo->args[i].isnull = nulls[i];
		if (nulls[i] && flinfo.fn_strict)
		{
			*isnull = true;
			return (Datum) 0;
		}
	}
	result = FunctionCallInvoke(fcinfo);
	*isnull = fcinfo->isnull;
	return result;
}

/* call wide_internal.name(argtypes) */
static Datum
call_internal(const char *name, int nargs, const Oid *argtypes, const Datum *args,
			  const bool *nulls, bool *isnull)
{
	return call(lookup("wide_internal", name, nargs, argtypes), nargs, args, nulls, isnull);
}

/* call the function of fcinfo again with another first argument */
static void
call_again(FunctionCallInfo fcinfo, Oid relid)
{
	Datum		args[MAX_CALL_ARGS];
	bool		nulls[MAX_CALL_ARGS];
	bool		isnull;
	int			i;

	for (i = 0; i < fcinfo->nargs; i++)
	{
		args[i] = fcinfo->args[i].value;
		nulls[i] = fcinfo->args[i].isnull;
	}
	args[0] = ObjectIdGetDatum(relid);
	nulls[0] = false;
	(void) call(fcinfo->flinfo->fn_oid, fcinfo->nargs, args, nulls, &isnull);
}

/* the value of key in a jsonb object, or NULL (absent or JSON null) */
static Jsonb *
jsonb_field(Jsonb *obj, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&obj->root, key, strlen(key), NULL);

	if (v == NULL || v->type == jbvNull)
		return NULL;
	return JsonbValueToJsonb(v);
}

/*
 * WideChildren -- the partitions of relid (pg_inherits), local (not
 * foreign tables), remote (foreign tables) or both, by OID.
 */
List *
WideChildren(Oid relid, bool local, bool remote)
{
	MemoryContext outer = CurrentMemoryContext;
	List	   *result = NIL;
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1] = {ObjectIdGetDatum(relid)};
	uint64		i;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT i.inhrelid, c.relkind = 'f' FROM pg_catalog.pg_inherits i"
							  " JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid"
							  " WHERE i.inhparent = $1 ORDER BY i.inhrelid",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not list the partitions of table %u", relid);
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			child = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														   SPI_tuptable->tupdesc, 1, &isnull));
		bool		foreign = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i],
														 SPI_tuptable->tupdesc, 2, &isnull));

		if (foreign ? remote : local)
		{
			MemoryContext old = MemoryContextSwitchTo(outer);

			result = lappend_oid(result, child);
			MemoryContextSwitchTo(old);
		}
	}
	SPI_finish();
	return result;
}

/*
 * check_boundaries -- fail if a bound of a tablet of relid splits a group
 * of the rollup in check ({"families": {name: entry}}).
 */
static void
check_boundaries(Oid relid, Jsonb *check)
{
	static const Oid regclass[1] = {REGCLASSOID};
	static const Oid text1[1] = {TEXTOID};
	static const Oid jsonb_text[2] = {JSONBOID, TEXTOID};
	ListCell   *lc;

	foreach(lc, WideChildren(relid, true, true))
	{
		Datum		arg = ObjectIdGetDatum(lfirst_oid(lc));
		bool		argnull = false;
		bool		isnull;
		Datum		bounds = call_internal("_tablet_bounds", 1, regclass, &arg, &argnull, &isnull);
		Datum	   *elems;
		bool	   *enulls;
		int			n,
					i;

		if (isnull)
			continue;
		deconstruct_array(DatumGetArrayTypeP(bounds), TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &enulls, &n);
		for (i = 0; i < n; i++)
		{
			Datum		v;
			Datum		args[2];
			bool		nulls[2] = {false, false};

			v = call_internal("_bound_value", 1, text1, &elems[i], &enulls[i], &isnull);
			if (isnull)
				continue;
			args[0] = JsonbPGetDatum(check);
			args[1] = v;
			(void) call_internal("_check_rollup_boundary", 2, jsonb_text, args, nulls, &isnull);
		}
	}
}

typedef enum
{
	FAMILY_CREATE,
	FAMILY_ALTER,
	FAMILY_DROP
} FamilyOp;

/*
 * family_change -- wide.create_family, alter_family and drop_family, with
 * the arguments they are declared with (see wide--0.2.sql).
 */
static void
family_change(FunctionCallInfo fcinfo, FamilyOp op)
{
	static const char *const ops[] = {"create", "alter", "drop"};
	static const char *const fns[] = {"create_family", "alter_family", "drop_family"};
	/* the types of the arguments after the table, per op */
	static const Oid create_types[] = {TEXTOID, INT4OID, INTERVALOID, TEXTOID, TEXTOID, JSONBOID, JSONBOID};
	static const Oid alter_types[] = {TEXTOID, INT4OID, INTERVALOID, TEXTOID, JSONBOID};
	static const Oid drop_types[] = {TEXTOID};
	static const Oid doc_types[] = {TEXTOID, REGCLASSOID, JSONBOID, TEXTOID, TEXTOID, INT4OID,
	INTERVALOID, TEXTOID, TEXTOID, JSONBOID, JSONBOID};
	/* for each argument of _family_doc after hint: the argument of fcinfo, or -1 (NULL) */
	static const int doc_args[3][7] = {
		{1, 2, 3, 4, 5, 6, 7},
		{1, 2, 3, 4, -1, 5, -1},
		{1, -1, -1, -1, -1, -1, -1},
	};
	const Oid  *types = op == FAMILY_CREATE ? create_types :
		op == FAMILY_ALTER ? alter_types : drop_types;
	int			ntypes = op == FAMILY_CREATE ? lengthof(create_types) :
		op == FAMILY_ALTER ? lengthof(alter_types) : lengthof(drop_types);
	Oid			relid = WideTableArg(fcinfo, 0);
	Oid			regclass[1] = {REGCLASSOID};
	Oid			jsonb1[1] = {JSONBOID};
	Datum		args[11];
	bool		nulls[11];
	bool		isnull;
	Datum		doc;
	Datum		hint = (Datum) 0;
	bool		hintnull = true;
	Jsonb	   *result;
	Jsonb	   *newdoc;
	Jsonb	   *check;
	const char *remote_args[7];
	ListCell   *lc;
	int			i;

	/* only the owner, checked before a lock is queued */
	WideCheckFamilyOwner(relid);
	args[0] = ObjectIdGetDatum(relid);
	nulls[0] = false;
	doc = call_internal("_lock_catalog", 1, regclass, args, nulls, &isnull);
	if (op != FAMILY_CREATE)
	{
		hint = call_internal("_family_hint", 1, jsonb1, &doc, &isnull, &hintnull);
	}

	/* the checks and the new catalog */
	args[0] = CStringGetTextDatum(ops[op]);
	args[1] = ObjectIdGetDatum(relid);
	args[2] = doc;
	args[3] = hint;
	nulls[0] = nulls[1] = nulls[2] = false;
	nulls[3] = hintnull;
	for (i = 0; i < 7; i++)
	{
		int			a = doc_args[op][i];

		nulls[4 + i] = a < 0 || PG_ARGISNULL(a);
		args[4 + i] = nulls[4 + i] ? (Datum) 0 : PG_GETARG_DATUM(a);
	}
	result = DatumGetJsonbP(call_internal("_family_doc", 11, doc_types, args, nulls, &isnull));
	newdoc = jsonb_field(result, "doc");
	check = jsonb_field(result, "check");
	if (check != NULL)
		check_boundaries(relid, check);
	WideStoreCatalog(relid, newdoc);

	/* the partitions of a table split into tablets, in one transaction */
	foreach(lc, WideChildren(relid, true, false))
		call_again(fcinfo, lfirst_oid(lc));

	/* the remote tablets, with the arguments as text */
	for (i = 0; i < ntypes; i++)
	{
		Oid			out;
		bool		varlena;

		if (PG_ARGISNULL(i + 1))
		{
			remote_args[i] = NULL;
			continue;
		}
		getTypeOutputInfo(types[i], &out, &varlena);
		remote_args[i] = OidOutputFunctionCall(out, PG_GETARG_DATUM(i + 1));
	}
	foreach(lc, WideChildren(relid, false, true))
		WideRemoteFamily(lfirst_oid(lc), fns[op], ntypes, remote_args);

	/* a rollup of a family with data starts complete (each partition fills its own) */
	if (op == FAMILY_CREATE && !PG_ARGISNULL(7) && get_rel_relkind(relid) == RELKIND_RELATION)
	{
		static const Oid fill_types[4] = {REGCLASSOID, TEXTOID, TEXTOID, TEXTOID};
		Datum		fill[4] = {ObjectIdGetDatum(relid), PG_GETARG_DATUM(1), 0, 0};
		bool		fillnulls[4] = {false, PG_ARGISNULL(1), true, true};

		(void) call_internal("_rollup_fill", 4, fill_types, fill, fillnulls, &isnull);
	}
}

Datum
wide_create_family(PG_FUNCTION_ARGS)
{
	family_change(fcinfo, FAMILY_CREATE);
	PG_RETURN_VOID();
}

Datum
wide_alter_family(PG_FUNCTION_ARGS)
{
	family_change(fcinfo, FAMILY_ALTER);
	PG_RETURN_VOID();
}

Datum
wide_drop_family(PG_FUNCTION_ARGS)
{
	family_change(fcinfo, FAMILY_DROP);
	PG_RETURN_VOID();
}

/* the arguments of fcinfo as arrays */
static void
get_args(FunctionCallInfo fcinfo, Datum *args, bool *nulls)
{
	int			i;

	for (i = 0; i < fcinfo->nargs; i++)
	{
		args[i] = fcinfo->args[i].value;
		nulls[i] = fcinfo->args[i].isnull;
	}
}

/*
 * wide.rebuild_rollup(tbl, family, start_key, end_key): the checks, the
 * lock and the DELETE (_rebuild_rollup), then the fill (_rollup_fill).
 */
Datum
wide_rebuild_rollup(PG_FUNCTION_ARGS)
{
	static const Oid types[4] = {REGCLASSOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		args[4];
	bool		nulls[4];
	bool		isnull;
	Datum		result;

	get_args(fcinfo, args, nulls);
	(void) call_internal("_rebuild_rollup", 4, types, args, nulls, &isnull);
	result = call_internal("_rollup_fill", 4, types, args, nulls, &isnull);
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}

/*
 * wide.create_tablets(parent, split_keys, nodes) -- see wide--0.2.sql.
 */
Datum
wide_create_tablets(PG_FUNCTION_ARGS)
{
	static const Oid types[3] = {REGCLASSOID, TEXTARRAYOID, TEXTARRAYOID};
	static const Oid check_types[2] = {JSONBOID, TEXTOID};
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		args[3];
	bool		nulls[3];
	bool		isnull;
	Datum		doc;
	bool		docnull;
	Datum		tablets;
	Datum	   *elems;
	bool	   *enulls;
	int			n,
				i;

	WideCheckFamilyOwner(WideTableArg(fcinfo, 0));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	get_args(fcinfo, args, nulls);
	doc = call_internal("_create_tablets_check", 3, types, args, nulls, &docnull);
	if (!docnull && !nulls[1])
	{
		deconstruct_array(DatumGetArrayTypeP(args[1]), TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &enulls, &n);
		for (i = 0; i < n; i++)
		{
			Datum		cargs[2] = {doc, elems[i]};
			bool		cnulls[2] = {false, enulls[i]};

			(void) call_internal("_check_rollup_boundary", 2, check_types, cargs, cnulls, &isnull);
		}
	}
	tablets = call_internal("_create_tablets_make", 3, types, args, nulls, &isnull);
	if (isnull)
		return (Datum) 0;
	deconstruct_array(DatumGetArrayTypeP(tablets), REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT,
					  &elems, &enulls, &n);
	for (i = 0; i < n; i++)
	{
		Oid			tablet = DatumGetObjectId(elems[i]);
		bool		null = false;

		if (get_rel_relkind(tablet) == RELKIND_FOREIGN_TABLE)
			WideRemoteCreateTablet(tablet, docnull ? NULL : DatumGetJsonbP(doc));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &elems[i], &null);
	}
	return (Datum) 0;
}

/*
 * wide.create_pivot_view(view_name, tbl, family, qualifiers, per): the hint
 * of an unknown family's error, then _create_pivot_view.
 */
Datum
wide_create_pivot_view(PG_FUNCTION_ARGS)
{
	static const Oid types[6] = {TEXTOID, REGCLASSOID, TEXTOID, TEXTARRAYOID, TEXTOID, TEXTOID};
	static const Oid regclass[1] = {REGCLASSOID};
	static const Oid jsonb1[1] = {JSONBOID};
	Datum		args[6];
	bool		nulls[6];
	bool		isnull;

	get_args(fcinfo, args, nulls);
	args[5] = (Datum) 0;
	nulls[5] = true;
	if (!nulls[1])
	{
		Datum		doc = call(lookup("wide", "family_catalog_of", 1, regclass), 1,
							   &args[1], &nulls[1], &isnull);

		args[5] = call_internal("_family_hint", 1, jsonb1, &doc, &isnull, &nulls[5]);
	}
	(void) call_internal("_create_pivot_view", 6, types, args, nulls, &isnull);
	PG_RETURN_VOID();
}

/*
 * wide.read_rows(tbl text, ...) and the other reads that would name their
 * table by a string: the reads return rows of the table's own type, so they
 * name the table by a value of that type (NULL::t).  wide.read_rows('t')
 * would otherwise fail inside PostgreSQL ("could not determine polymorphic
 * type because input has type unknown"); these overloads take the string
 * and say what to write instead.
 */
Datum
wide_read_by_name(PG_FUNCTION_ARGS)
{
	char	   *fname = get_func_name(fcinfo->flinfo->fn_oid);
	const char *name = "tablename";

	if (!PG_ARGISNULL(0))
	{
		char	   *tbl = text_to_cstring(PG_GETARG_TEXT_PP(0));
		Oid			relid = RangeVarGetRelid(makeRangeVarFromNameList(stringToQualifiedNameList(tbl)),
											 NoLock, true);

		name = OidIsValid(relid) ?
			DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid))) :
			quote_identifier(tbl);
	}
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("wide.%s() takes its table as a row of the table's type, not as a name", fname),
			 errdetail("The cells come back as rows of the table's own type, which PostgreSQL must know when the query is planned."),
			 errhint("Write wide.%s(NULL::%s, ...).", fname, name)));
	PG_RETURN_NULL();
}
