/*-------------------------------------------------------------------------
 *
 * ddl.c
 *	  Keeping wide tables in shape: hooks on DDL and planning.
 *
 *	- ALTER TABLE ... ADD COLUMN / DROP COLUMN on a wide table fails: its
 *	  columns are fixed (schema.c).  Other column changes are checked when
 *	  the table is next rewritten or used.
 *	- Indexes, foreign keys and AFTER ROW triggers are refused when they are
 *	  created (for CREATE INDEX CONCURRENTLY, before its first commit):
 *	  they would need cells fetched again by item pointer.
 *	- Rules that could only fail are refused when they are created: an ON
 *	  SELECT rule on a wide table (which would turn it into a view) and a
 *	  rule whose action UPDATEs a wide table (UPDATE is refused; INSERT the
 *	  new value instead).  Every other trigger and rule works
 *	  (test/t/062_dml_fuzz.pl, sql/dml_forms.sql).
 *	- The planner never plans a parallel scan of a wide table.
 *	- Publications never include a wide table (publication.c).
 *
 * IDENTIFICATION
 *	  src/am/ddl.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/objectaccess.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_rewrite.h"
#include "catalog/pg_trigger.h"
#include "nodes/parsenodes.h"
#include "parser/parsetree.h"
#include "commands/trigger.h"
#include "commands/defrem.h"
#include "optimizer/plancat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/fmgroids.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "am/am.h"
#include "am/publication.h"

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

/*
 * WideFetchNewCatalogRow -- a just-created catalog row, by OID: looked up
 * with SnapshotSelf, which sees the current command's own changes (as
 * sepgsql does).  Returns a copy, or NULL.
 */
HeapTuple
WideFetchNewCatalogRow(Oid catalog, Oid index, AttrNumber oidattr, Oid objectId)
{
	Relation	rel = table_open(catalog, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	ScanKeyInit(&key, oidattr, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(objectId));
	scan = systable_beginscan(rel, index, true, SnapshotSelf, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		tup = heap_copytuple(tup);
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return tup;
}

/* is the just-created index "indexid" of access method wide_key (keyindex.c)? */
static bool
is_key_index(Oid indexid)
{
	HeapTuple	tup = WideFetchNewCatalogRow(RelationRelationId, ClassOidIndexId,
											 Anum_pg_class_oid, indexid);
	Oid			am;

	if (tup == NULL)
		return false;
	am = ((Form_pg_class) GETSTRUCT(tup))->relam;
	heap_freetuple(tup);
	return OidIsValid(am) && am == WideKeyIndexAmOid();
}

/* refuse a new rule that could only fail on a wide table */
static void
check_new_rule(Oid ruleid)
{
	HeapTuple	tup = WideFetchNewCatalogRow(RewriteRelationId, RewriteOidIndexId,
											 Anum_pg_rewrite_oid, ruleid);
	Form_pg_rewrite rule;
	Datum		d;
	bool		isnull;
	List	   *actions;
	ListCell   *lc;
	Relation	catalog;

	if (tup == NULL)
		return;
	rule = (Form_pg_rewrite) GETSTRUCT(tup);
	if (rule->ev_type == '0' + CMD_SELECT && WideRelationIsWide(rule->ev_class))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot create an ON SELECT rule on wide table \"%s\"",
						get_rel_name(rule->ev_class)),
				 errdetail("It would turn the table into a view and drop its cells' storage."),
				 errhint("Create a view over the table instead.")));
	catalog = table_open(RewriteRelationId, AccessShareLock);
	d = heap_getattr(tup, Anum_pg_rewrite_ev_action, RelationGetDescr(catalog), &isnull);
	actions = isnull ? NIL : (List *) stringToNode(TextDatumGetCString(d));
	table_close(catalog, AccessShareLock);
	foreach(lc, actions)
	{
		Query	   *q = lfirst(lc);
		RangeTblEntry *rte;

		if (!IsA(q, Query) || q->commandType != CMD_UPDATE || q->resultRelation <= 0)
			continue;
		rte = rt_fetch(q->resultRelation, q->rtable);
		if (rte->rtekind == RTE_RELATION && WideRelationIsWide(rte->relid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot create a rule that updates wide table \"%s\"",
							get_rel_name(rte->relid)),
					 errdetail("UPDATE is not supported on wide tables: a cell's coordinates are its identity."),
					 errhint("Write the action as an INSERT of the new value: a write to an existing cell replaces it.")));
	}
}

/* refuse what would later need a cell fetched by item pointer, or an index */
static void
check_new_object(Oid classId, Oid objectId)
{
	HeapTuple	tup;

	if (classId == RelationRelationId)
	{
		Form_pg_index idx;

		tup = WideFetchNewCatalogRow(IndexRelationId, IndexRelidIndexId,
							Anum_pg_index_indexrelid, objectId);
		if (tup == NULL)
		{
			/* not an index: perhaps the new table of a rewrite */
			WideKeyCheckNewTable(objectId);
			return;
		}
		idx = (Form_pg_index) GETSTRUCT(tup);
		if (WideRelationIsWide(idx->indrelid) && !is_key_index(objectId))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot create index on wide table \"%s\"",
							get_rel_name(idx->indrelid)),
					 errdetail("Cells are stored sorted by (row_key, family, qualifier, ts); the row key is the only index."),
					 errhint("Design the row key for the queries, or keep a second wide table keyed for them.  For CLUSTER, name the row key order: CREATE INDEX ON %s USING wide_key (row_key).",
							 quote_identifier(get_rel_name(idx->indrelid)))));
	}
	else if (classId == ConstraintRelationId)
	{
		Form_pg_constraint con;

		tup = WideFetchNewCatalogRow(ConstraintRelationId, ConstraintOidIndexId,
							Anum_pg_constraint_oid, objectId);
		if (tup == NULL)
			return;
		con = (Form_pg_constraint) GETSTRUCT(tup);
		if (con->contype == CONSTRAINT_FOREIGN &&
			(WideRelationIsWide(con->conrelid) || WideRelationIsWide(con->confrelid)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("foreign keys are not supported on wide table \"%s\"",
							get_rel_name(WideRelationIsWide(con->conrelid) ?
										 con->conrelid : con->confrelid)),
					 errdetail("Foreign-key checks fetch cells by item pointer, which wide tables do not keep.")));
	}
	else if (classId == RewriteRelationId)
		check_new_rule(objectId);
	else if (classId == TriggerRelationId)
	{
		Form_pg_trigger trig;

		tup = WideFetchNewCatalogRow(TriggerRelationId, TriggerOidIndexId,
							Anum_pg_trigger_oid, objectId);
		if (tup == NULL)
			return;
		trig = (Form_pg_trigger) GETSTRUCT(tup);
		if (TRIGGER_FOR_ROW(trig->tgtype) && TRIGGER_FOR_AFTER(trig->tgtype) &&
			WideRelationIsWide(trig->tgrelid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("AFTER ... FOR EACH ROW triggers are not supported on wide table \"%s\"",
							get_rel_name(trig->tgrelid)),
					 errdetail("They fetch cells by item pointer, which wide tables do not keep."),
					 errhint("Use a BEFORE ... FOR EACH ROW or a statement-level trigger.")));
	}
}

static void
wide_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				   int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);

	WidePublicationObjectAccess(access, classId, objectId, subId);

	if (access == OAT_POST_CREATE && subId == 0)
	{
		check_new_object(classId, objectId);
		return;
	}
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
	WideInstallPublicationHooks();
}
