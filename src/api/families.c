/*-------------------------------------------------------------------------
 *
 * families.c
 *	  SQL functions behind the family catalog.
 *
 * The catalog itself is the default expression of a wide table's "family"
 * column (see engine/schema.c); wide.create_family and friends, written in
 * SQL in the extension script, rewrite it with ALTER TABLE.  This file holds
 * the C pieces they need:
 *
 *	  wide.family_catalog(jsonb) RETURNS text
 *		  the default expression itself: raises the error an INSERT without
 *		  a family deserves.
 *	  wide.family_catalog_of(regclass) RETURNS jsonb
 *		  the current catalog document of a wide table, or NULL.
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
#include "fmgr.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

#include "engine/schema.h"
#include "engine/catalog.h"
#include "am/am.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_family_catalog);
PG_FUNCTION_INFO_V1(wide_family_catalog_of);

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
 * WideOpenWide -- open a relation and check it is a wide table.
 */
Relation
WideOpenWide(Oid relid, LOCKMODE lockmode)
{
	Relation	rel = relation_open(relid, lockmode);

	if (rel->rd_rel->relkind != RELKIND_RELATION ||
		rel->rd_tableam != WideTableAmRoutine())
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a wide table", RelationGetRelationName(rel)),
				 errhint("Create it with CREATE TABLE ... USING wide.")));
	return rel;
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
