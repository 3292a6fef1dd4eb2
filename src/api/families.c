/*-------------------------------------------------------------------------
 *
 * families.c
 *	  SQL functions behind the family catalog.
 *
 * The catalog itself is the default expression of a wide table's "family"
 * column (see engine/schema.c); wide.create_family and friends (api/entry.c,
 * with their checks in the extension script) rewrite it with ALTER TABLE.
 * This file holds the C pieces they need:
 *
 *	  wide.family_catalog(jsonb) RETURNS text
 *		  the default expression itself: raises the error an INSERT without
 *		  a family deserves.
 *	  wide.family_catalog_of(regclass) RETURNS jsonb
 *		  the current catalog document of a wide table, or NULL.
 *	  wide_internal._store_catalog(regclass, jsonb), WideStoreCatalog
 *		  set it: ALTER TABLE ONLY t ALTER COLUMN family SET DEFAULT ...
 *	  wide_internal._store_catalog_sql(text, text, jsonb) RETURNS text
 *		  that statement (WideStoreCatalogSql, remote.c), for a table on a
 *		  node (no internal function of the extension runs there: the
 *		  node's user may not execute those).
 *
 * IDENTIFICATION
 *	  src/api/families.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

#include "engine/schema.h"
#include "engine/catalog.h"
#include "am/am.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_family_catalog);
PG_FUNCTION_INFO_V1(wide_family_catalog_of);
PG_FUNCTION_INFO_V1(wide_store_catalog);
PG_FUNCTION_INFO_V1(wide_store_catalog_sql);

/*
 * WideStoreCatalog -- make doc the family catalog of a table, as the
 * current user (ALTER TABLE checks its ownership).
 */
void
WideStoreCatalog(Oid relid, Jsonb *doc)
{
	char	   *nsp = get_namespace_name(get_rel_namespace(relid));
	char	   *rel = get_rel_name(relid);
	char	   *sql;

	if (nsp == NULL || rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	sql = WideStoreCatalogSql(quote_qualified_identifier(nsp, rel),
							  get_attname(relid, 2, false),
							  doc ? JsonbToCString(NULL, &doc->root, -1) : NULL);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not store the family catalog of table %u", relid);
	SPI_finish();
}

/*
 * wide_internal._store_catalog(tbl regclass, doc jsonb) -- WideStoreCatalog
 * of a table the current user owns, for the tablet operations and tests.
 */
Datum
wide_store_catalog(PG_FUNCTION_ARGS)
{
	Oid			relid = WideTableArg(fcinfo, 0);

	WideCheckFamilyOwner(relid);
	WideStoreCatalog(relid, PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1));
	PG_RETURN_VOID();
}

/*
 * wide_internal._store_catalog_sql(tbl text, famcol text, doc jsonb) --
 * WideStoreCatalogSql, tbl already quoted (the tablet operations send it
 * to a node).
 */
Datum
wide_store_catalog_sql(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(WideStoreCatalogSql(text_to_cstring(PG_GETARG_TEXT_PP(0)),
														 text_to_cstring(PG_GETARG_TEXT_PP(1)),
														 doc ? JsonbToCString(NULL, &doc->root, -1) : NULL)));
}

/*
 * wide.family_catalog(jsonb) -- evaluated only when an INSERT leaves out
 * the family.
 */
Datum
wide_family_catalog(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_NOT_NULL_VIOLATION),
			 errmsg("a cell needs a column family"),
			 errhint("Give the family column a value; wide.families() lists the table's families.")));
	PG_RETURN_NULL();
}

/*
 * wide.family_catalog_of(regclass) -- the catalog document, or NULL.
 */
Datum
wide_family_catalog_of(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	Jsonb	   *doc;
	Datum		result = (Datum) 0;

	/*
	 * Any privilege on the table will do, as for information_schema.columns:
	 * the catalog is a column default, in pg_attrdef for all to read anyway.
	 */
	WideCheckAnyPrivilege(relid);
	rel = relation_open(relid, AccessShareLock);
	if (((rel->rd_rel->relkind == RELKIND_RELATION &&
		  rel->rd_tableam != WideTableAmRoutine()) ||
		 rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE) &&
		WideHasTableShape(rel))
	{
		/*
		 * A table of another access method with the columns of a wide one
		 * may have families too, ready for ALTER TABLE ... SET ACCESS
		 * METHOD wide (am/movein.c).
		 */
		WideCheckAnyPrivilege(relid);
		doc = WideCatalogDocument(rel);
	}
	else
	{
		relation_close(rel, AccessShareLock);
		rel = WideOpenWide(relid, AccessShareLock);
		WideCheckAnyPrivilege(relid);
		(void) WideGetSchema(rel);	/* checks the table's shape */
		doc = WideCatalogDocument(rel);
	}
	if (doc != NULL)
		result = datumCopy(JsonbPGetDatum(doc), false, -1);
	relation_close(rel, AccessShareLock);
	if (doc == NULL)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}
