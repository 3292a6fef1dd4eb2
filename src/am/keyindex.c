/*-------------------------------------------------------------------------
 *
 * keyindex.c
 *	  The wide_key index access method: a wide table's own row key order,
 *	  as an index PostgreSQL can name, so that CLUSTER works.
 *
 * CLUSTER needs an index that is "clusterable", and a wide table takes no
 * ordinary index (its cells are found by row key through the CustomScan,
 * not by item pointer).  A wide_key index is the order the cells are
 * already stored in, (row_key, family, qualifier, ts), so it needs no
 * storage of its own: building it, inserting into it and vacuuming it do
 * nothing, and it cannot be scanned (no amgettuple, no amgetbitmap), so the
 * planner never picks it.  CLUSTER t USING t_row_key_idx (and CLUSTER t
 * afterwards, or a database-wide CLUSTER) then rewrites the table through
 * relation_copy_for_cluster, the same major compaction into new storage
 * as VACUUM FULL (engine/rewrite.c), with CLUSTER's usual locks and
 * privilege checks.  See docs/architecture.md for why this design.
 *
 * Only one shape is accepted: one column, the row key (column 1), of a
 * wide table, no expression, no predicate, no options.  ambuild checks
 * it, so CREATE INDEX, REINDEX, and the rebuild after VACUUM FULL, CLUSTER
 * or an ALTER TABLE rewrite all refuse anything else; ALTER TABLE ... SET
 * ACCESS METHOD to another access method is refused earlier, when its new
 * table is created (WideKeyCheckNewTable), so that no cell is copied in
 * vain.
 *
 * IDENTIFICATION
 *	  src/am/keyindex.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "access/relation.h"
#include "access/reloptions.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "am/am.h"
#include "am/publication.h"

PG_FUNCTION_INFO_V1(wide_key_handler);

/* the name of a table's access method, for messages */
static const char *
table_am_name(Relation heap)
{
	char	   *name = get_am_name(heap->rd_rel->relam);

	return name ? name : "?";
}

/*
 * check_shape -- refuse an index that is not the row key of a wide table.
 */
static void
check_shape(Relation heap, Relation index, IndexInfo *info)
{
	if (heap->rd_tableam != WideTableAmRoutine())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("access method \"wide_key\" cannot index table \"%s\"",
						RelationGetRelationName(heap)),
				 errdetail("A wide_key index is the row key order of a wide table; \"%s\" uses access method \"%s\".",
						   RelationGetRelationName(heap), table_am_name(heap)),
				 errhint("A table that is not wide can have a btree index instead.")));
	if (info->ii_NumIndexAttrs != 1 || info->ii_IndexAttrNumbers[0] != 1 ||
		info->ii_Expressions != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a wide_key index must be on column \"row_key\" of wide table \"%s\" alone",
						RelationGetRelationName(heap)),
				 errdetail("A wide_key index is the order the cells are stored in; it indexes no other column or expression."),
				 errhint("Write CREATE INDEX ON %s USING wide_key (row_key).",
						 quote_identifier(RelationGetRelationName(heap)))));
	if (info->ii_Predicate != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a wide_key index cannot be partial"),
				 errdetail("A wide_key index is the order of all the cells of wide table \"%s\".",
						   RelationGetRelationName(heap))));
}

/* ambuild: check the shape; there is nothing to build */
static IndexBuildResult *
wide_key_build(Relation heap, Relation index, IndexInfo *info)
{
	IndexBuildResult *result = palloc0(sizeof(IndexBuildResult));

	check_shape(heap, index, info);

	/*
	 * index_build() stores these as the table's and the index's reltuples:
	 * give the table's estimate (the metapage's counts, read without
	 * reading the cells) rather than 0.
	 */
	result->heap_tuples = WideEstimateCells(heap);
	result->index_tuples = result->heap_tuples;
	return result;
}

/* ambuildempty: an unlogged table's index has no init fork contents */
static void
wide_key_buildempty(Relation index)
{
}

/*
 * aminsert: nothing (the cell is already where the order puts it).  The
 * executor calls this once per inserted row, after evaluating the row key,
 * so it must stay this cheap.
 */
static bool
wide_key_insert(Relation index, Datum *values, bool *isnull,
				ItemPointer heap_tid, Relation heap,
				IndexUniqueCheck checkUnique, bool indexUnchanged,
				IndexInfo *info)
{
	return false;
}

/* ambulkdelete: no entries to delete */
static IndexBulkDeleteResult *
wide_key_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
					IndexBulkDeleteCallback callback, void *callback_state)
{
	return stats;
}

/* amvacuumcleanup: no pages to clean up or count */
static IndexBulkDeleteResult *
wide_key_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	return stats;
}

/*
 * amcostestimate: the planner builds index paths before it asks whether
 * the index can be scanned at all; it cannot (no amgettuple, amgetbitmap),
 * so the path is thrown away.  Give a cost no scan would beat anyway.
 */
static void
wide_key_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
					  Cost *indexStartupCost, Cost *indexTotalCost,
					  Selectivity *indexSelectivity, double *indexCorrelation,
					  double *indexPages)
{
	*indexStartupCost = disable_cost;
	*indexTotalCost = disable_cost;
	*indexSelectivity = 1.0;
	*indexCorrelation = 0.0;
	*indexPages = 0;
}

/* amoptions: there are none */
static bytea *
wide_key_options(Datum reloptions, bool validate)
{
	if (validate && DatumGetPointer(reloptions) != NULL)
	{
		List	   *opts = untransformRelOptions(reloptions);

		if (opts != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unrecognized parameter \"%s\"",
							((DefElem *) linitial(opts))->defname),
					 errdetail("A wide_key index has no storage parameters.")));
	}
	return NULL;
}

/* amvalidate: an operator class of wide_key is for a row key type, empty */
static bool
wide_key_validate(Oid opclassoid)
{
	HeapTuple	tup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	Form_pg_opclass opc;
	bool		ok;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	opc = (Form_pg_opclass) GETSTRUCT(tup);
	ok = opc->opcintype == TEXTOID || opc->opcintype == BYTEAOID;
	if (!ok)
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("operator class \"%s\" of access method wide_key is for type %s, not a row key type (text or bytea)",
						NameStr(opc->opcname), format_type_be(opc->opcintype))));
	ReleaseSysCache(tup);
	return ok;
}

/* ambeginscan: never reached through the planner; refuse anything else */
static IndexScanDesc
wide_key_beginscan(Relation index, int nkeys, int norderbys)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("index \"%s\" cannot be scanned", RelationGetRelationName(index)),
			 errdetail("A wide_key index only names the row key order, for CLUSTER; a wide table is read by row key through its own scan.")));
	return NULL;
}

/* amrescan: unreachable (beginscan refuses) */
static void
wide_key_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
				ScanKey orderbys, int norderbys)
{
}

/* amendscan: unreachable (beginscan refuses) */
static void
wide_key_endscan(IndexScanDesc scan)
{
}

/*
 * WideKeyIndexIs -- is "index" a wide_key index?  (Relcache entries hold a
 * copy of the routine, so its functions are what identify it.)
 */
bool
WideKeyIndexIs(Relation index)
{
	return index != NULL && index->rd_indam != NULL &&
		index->rd_indam->ambuild == wide_key_build;
}

/*
 * WideKeyIndexAmOid -- the OID of access method wide_key, or InvalidOid
 * when it does not exist (the extension's SQL is older).
 */
Oid
WideKeyIndexAmOid(void)
{
	return get_index_am_oid("wide_key", true);
}

/*
 * WideKeyCheckNewTable -- called for every new relation: refuse, before any
 * cell is copied, the rewrite of a wide table into another access method
 * (ALTER TABLE ... SET ACCESS METHOD) while the table has a wide_key index,
 * which PostgreSQL would only try to rebuild on the new table after the
 * copy.  The new table of a rewrite is cluster.c's pg_temp_<oid of the
 * table>, created while this backend holds the table's AccessExclusiveLock.
 */
void
WideKeyCheckNewTable(Oid relid)
{
	HeapTuple	tup = WideFetchNewCatalogRow(RelationRelationId, ClassOidIndexId,
											 Anum_pg_class_oid, relid);
	Form_pg_class cls;
	unsigned int orig;
	char		tail;
	Oid			keyam;
	Relation	table;
	List	   *indexes;
	ListCell   *lc;

	if (tup == NULL)
		return;
	cls = (Form_pg_class) GETSTRUCT(tup);
	if (cls->relkind != RELKIND_RELATION ||
		sscanf(NameStr(cls->relname), "pg_temp_%u%c", &orig, &tail) != 1 ||
		(Oid) orig == relid || !OidIsValid(cls->relam) ||
		cls->relam == get_table_am_oid("wide", true) ||
		!CheckRelationOidLockedByMe((Oid) orig, AccessExclusiveLock, false) ||
		!WideRelationIsWide((Oid) orig) ||
		!OidIsValid(keyam = WideKeyIndexAmOid()))
	{
		heap_freetuple(tup);
		return;
	}
	heap_freetuple(tup);

	table = relation_open((Oid) orig, NoLock);
	indexes = RelationGetIndexList(table);
	foreach(lc, indexes)
	{
		Oid			indexid = lfirst_oid(lc);
		HeapTuple	itup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexid));
		bool		is_key;

		if (!HeapTupleIsValid(itup))
			continue;
		is_key = ((Form_pg_class) GETSTRUCT(itup))->relam == keyam;
		ReleaseSysCache(itup);
		if (is_key)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot change the access method of wide table \"%s\" while it has wide_key index \"%s\"",
							RelationGetRelationName(table), get_rel_name(indexid)),
					 errdetail("A wide_key index is the row key order of a wide table; a table of another access method cannot have one."),
					 errhint("Drop the index first (and create a btree index after the change if queries need one).")));
	}
	list_free(indexes);
	relation_close(table, NoLock);
}

Datum
wide_key_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = 0;
	am->amsupport = 0;
	am->amoptsprocnum = 0;
	am->amcanorder = false;		/* else selfuncs.c would scan it for bounds */
	am->amcanorderbyop = false;
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = false;
	am->amoptionalkey = true;
	am->amsearcharray = false;
	am->amsearchnulls = false;
	am->amstorage = false;
	am->amclusterable = true;
	/* no scans, so no predicate locks: index_insert need not check any */
	am->ampredlocks = true;
	am->amcanparallel = false;
	am->amcaninclude = false;
	am->amusemaintenanceworkmem = false;
	am->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	am->amkeytype = InvalidOid;

	am->ambuild = wide_key_build;
	am->ambuildempty = wide_key_buildempty;
	am->aminsert = wide_key_insert;
	am->ambulkdelete = wide_key_bulkdelete;
	am->amvacuumcleanup = wide_key_vacuumcleanup;
	am->amcanreturn = NULL;
	am->amcostestimate = wide_key_costestimate;
	am->amoptions = wide_key_options;
	am->amproperty = NULL;
	am->ambuildphasename = NULL;
	am->amvalidate = wide_key_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = wide_key_beginscan;
	am->amrescan = wide_key_rescan;
	am->amgettuple = NULL;
	am->amgetbitmap = NULL;
	am->amendscan = wide_key_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;

	PG_RETURN_POINTER(am);
}
