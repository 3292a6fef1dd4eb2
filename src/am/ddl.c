/*-------------------------------------------------------------------------
 *
 * ddl.c
 *	  Keeping wide tables in shape: hooks on DDL and planning.
 *
 *	- ALTER TABLE ... ADD COLUMN / DROP COLUMN on a wide table fails: its
 *	  columns are fixed (schema.c).  Other column changes are checked when
 *	  the table is next rewritten or used.
 *	- The planner never plans a parallel scan of a wide table.
 *
 * IDENTIFICATION
 *	  src/am/ddl.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "optimizer/plancat.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "wide.h"

static object_access_hook_type prev_object_access_hook = NULL;
static get_relation_info_hook_type prev_get_relation_info_hook = NULL;

/*
 * WideRelationIsWide -- is the relation with this OID a wide table?
 */
bool
WideRelationIsWide(Oid relid)
{
	HeapTuple	tup;
	Oid			am;
	static Oid	wide_am = InvalidOid;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return false;
	am = ((Form_pg_class) GETSTRUCT(tup))->relam;
	ReleaseSysCache(tup);
	if (!OidIsValid(am))
		return false;
	if (!OidIsValid(wide_am))
		wide_am = get_table_am_oid("wide", true);
	return OidIsValid(wide_am) && am == wide_am;
}

static void
wide_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				   int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);

	if (classId != RelationRelationId || subId <= 0)
		return;
	if ((access == OAT_POST_CREATE || access == OAT_DROP) &&
		WideRelationIsWide(objectId))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot %s columns of wide table \"%s\"",
						access == OAT_DROP ? "drop" : "add",
						get_rel_name(objectId)),
				 errdetail("A wide table has exactly the columns (row_key, family, qualifier, ts, value)."),
				 errhint("Qualifiers are data: write new columns as new qualifiers.")));
}

static void
wide_get_relation_info(PlannerInfo *root, Oid relationObjectId,
					   bool inhparent, RelOptInfo *rel)
{
	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relationObjectId, inhparent, rel);

	if (!inhparent && WideRelationIsWide(relationObjectId))
		rel->rel_parallel_workers = 0;
}

/*
 * WideInstallHooks -- called from _PG_init.
 */
void
WideInstallHooks(void)
{
	prev_object_access_hook = object_access_hook;
	object_access_hook = wide_object_access;
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = wide_get_relation_info;
}
