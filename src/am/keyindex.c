/*-------------------------------------------------------------------------
 *
 * keyindex.c
 *	  The wide_key index access method: a wide table's own row key order,
 *	  as an index PostgreSQL can name, so that CLUSTER works and a logical
 *	  replication subscriber finds the cell a DELETE names.
 *
 * CLUSTER needs an index that is "clusterable", and a wide table takes no
 * ordinary index (its cells are found by row key through the CustomScan,
 * not by item pointer).  A wide_key index is the order the cells are
 * already stored in, (row_key, family, qualifier, ts), so it needs no
 * storage of its own: building it, inserting into it and vacuuming it do
 * nothing.  CLUSTER t USING t_row_key_idx (and CLUSTER t afterwards, or a
 * database-wide CLUSTER) then rewrites the table through
 * relation_copy_for_cluster, the same major compaction into new storage
 * as VACUUM FULL (engine/rewrite.c), with CLUSTER's usual locks and
 * privilege checks.  See docs/architecture.md for why this design.
 *
 * Two shapes are accepted, no expression, no predicate, no options, no nondeterministic collation:
 *
 *	- (row_key), not unique: the row key order, for CLUSTER;
 *	- UNIQUE (row_key, family, qualifier, ts): the coordinates of a cell,
 *	  which are unique (a write at the same coordinates replaces the cell).
 *	  With NOT NULL columns it can be the table's REPLICA IDENTITY, which
 *	  is what a logical replication subscriber needs to apply a DELETE:
 *	  PostgreSQL 15's apply worker then looks the cell up by these four
 *	  columns (RelationFindReplTupleByIndex) instead of comparing every
 *	  column of every cell (RelationFindReplTupleSeq, which wide refuses,
 *	  tableam.c); the DELETE a wide publisher sends carries no value.
 *
 * A scan (amgettuple) is a read of the cells with equal keys: a point read
 * of one row when the row key is given, else a read of the table, each
 * cell checked against every key with the opclass's equality.  A cell it
 * returns gets a TID remembered in delete.c's ring, with its value until
 * the scan returns another, so that index_fetch_tuple, tuple_lock and
 * tuple_delete find it again (tableam.c).  The planner picks such a scan
 * only when settings rule the others out (amcostestimate gives
 * disable_cost; the CustomScan reads by row key), and it is correct then.  ambuild
 * checks the shape, so CREATE INDEX, REINDEX, and the rebuild after VACUUM
 * FULL, CLUSTER or an ALTER TABLE rewrite all refuse anything else; ALTER
 * TABLE ... SET ACCESS METHOD to another access method is refused earlier,
 * when its new table is created (WideKeyCheckNewTable), so that no cell is
 * copied in vain.
 *
 * INSERT ... ON CONFLICT needs a btree for its arbiter indexes: on a table
 * with a unique wide_key index it is refused (am/delete.c's ExecutorStart
 * hook) before PostgreSQL fails on it.
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
#include "catalog/pg_inherits.h"
#include "catalog/pg_class.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "optimizer/cost.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "engine/cell.h"
#include "engine/reader.h"
#include "engine/schema.h"
#include "engine/tswindow.h"
#include "am/am.h"
#include "am/publication.h"
#include "am/scan.h"

PG_FUNCTION_INFO_V1(wide_key_handler);

/* the name of a table's access method, for messages */
static const char *
table_am_name(Relation heap)
{
	char	   *name = get_am_name(heap->rd_rel->relam);

	return name ? name : "?";
}

/* the columns of the unique shape: a cell's coordinates */
#define WIDE_KEY_COORDS		4

/*
 * check_shape -- refuse an index that is not the row key, or the unique
 * coordinates, of a wide table.
 */
static void
check_shape(Relation heap, Relation index, IndexInfo *info)
{
	bool		coords = info->ii_NumIndexAttrs == WIDE_KEY_COORDS;
	int			i;

	if (heap->rd_tableam != WideTableAmRoutine())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("access method \"wide_key\" cannot index table \"%s\"",
						RelationGetRelationName(heap)),
				 errdetail("A wide_key index is the row key order of a wide table; \"%s\" uses access method \"%s\".",
						   RelationGetRelationName(heap), table_am_name(heap)),
				 errhint("A table that is not wide can have a btree index instead.")));
	for (i = 0; i < info->ii_NumIndexAttrs; i++)
		if (info->ii_IndexAttrNumbers[i] != i + 1)
			coords = false;
	if ((info->ii_NumIndexAttrs != 1 && !coords) ||
		info->ii_IndexAttrNumbers[0] != 1 ||
		info->ii_NumIndexAttrs != info->ii_NumIndexKeyAttrs ||
		info->ii_Expressions != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a wide_key index must be on column \"row_key\" of wide table \"%s\" alone, or unique on (row_key, family, qualifier, ts)",
						RelationGetRelationName(heap)),
				 errdetail("A wide_key index is the order the cells are stored in; it indexes no other column or expression."),
				 errhint("Write CREATE INDEX ON %s USING wide_key (row_key), or CREATE UNIQUE INDEX ON %s USING wide_key (row_key, family, qualifier, ts).",
						 quote_identifier(RelationGetRelationName(heap)),
						 quote_identifier(RelationGetRelationName(heap)))));
	/*
	 * The catalog says whether it is unique: the rebuild after CLUSTER or
	 * VACUUM FULL passes ii_Unique false (it skips uniqueness checks).
	 */
	if (index->rd_index->indisunique != coords)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 coords ?
				 errmsg("a wide_key index on (row_key, family, qualifier, ts) must be unique") :
				 errmsg("a wide_key index on \"row_key\" cannot be unique"),
				 errdetail("The coordinates of a cell are unique in wide table \"%s\"; its row keys are not.",
						   RelationGetRelationName(heap)),
				 errhint("Write CREATE UNIQUE INDEX ON %s USING wide_key (row_key, family, qualifier, ts).",
						 quote_identifier(RelationGetRelationName(heap)))));
	/*
	 * A scan reads the row the row key's bytes name and keeps the column
	 * the family's and qualifier's bytes name: equality must be equality of
	 * bytes, which a nondeterministic collation's is not ('a' = 'A').
	 */
	for (i = 0; i < info->ii_NumIndexAttrs; i++)
	{
		Oid			coll = index->rd_indcollation[i];

		if (OidIsValid(coll) && !get_collation_isdeterministic(coll))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a wide_key index cannot use nondeterministic collation \"%s\"",
							get_collation_name(coll)),
					 errdetail("Cells of wide table \"%s\" are found by the bytes of their coordinates.",
							   RelationGetRelationName(heap)),
					 errhint("Leave out the COLLATE clause.")));
	}
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
 * amcostestimate: a wide table is read by row key through its CustomScan;
 * an index scan would be a read of the same cells, through delete.c's
 * ring.  Give a cost no other path would exceed, so the planner keeps it
 * only when nothing else is possible.
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
	ok = opc->opcintype == TEXTOID || opc->opcintype == BYTEAOID ||
		opc->opcintype == INT8OID || opc->opcintype == TIMESTAMPTZOID;
	if (!ok)
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("operator class \"%s\" of access method wide_key is for type %s, not a coordinate type (text, bytea, int8 or timestamptz)",
						NameStr(opc->opcname), format_type_be(opc->opcintype))));
	ReleaseSysCache(tup);
	return ok;
}

/* the state of a scan: the reader of the cells with equal keys */
typedef struct WideKeyScan
{
	MemoryContext cxt;			/* the reader and the registered snapshot */
	MemoryContext tupcxt;		/* a cell's column values, while matched */
	WideReader *reader;			/* NULL: not started */
	WideColumnFilter columns;	/* the family and qualifier keys */
	Snapshot	snapshot;		/* registered by us, or NULL */
	bool		done;
} WideKeyScan;

/* ambeginscan */
static IndexScanDesc
wide_key_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	WideKeyScan *ks = palloc0(sizeof(WideKeyScan));

	ks->cxt = AllocSetContextCreate(CurrentMemoryContext, "wide_key scan",
									ALLOCSET_DEFAULT_SIZES);
	ks->tupcxt = AllocSetContextCreate(CurrentMemoryContext, "wide_key cell",
									   ALLOCSET_SMALL_SIZES);
	scan->opaque = ks;
	return scan;
}

/* end the read of a scan, if any */
static void
scan_reset(WideKeyScan *ks)
{
	if (ks->reader)
		WideReaderEnd(ks->reader);
	ks->reader = NULL;
	if (ks->snapshot)
		UnregisterSnapshot(ks->snapshot);
	ks->snapshot = NULL;
	ks->done = false;
	MemoryContextReset(ks->cxt);
}

/* amrescan: new keys */
static void
wide_key_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
				ScanKey orderbys, int norderbys)
{
	scan_reset((WideKeyScan *) scan->opaque);
	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
}

/* amendscan */
static void
wide_key_endscan(IndexScanDesc scan)
{
	WideKeyScan *ks = (WideKeyScan *) scan->opaque;

	scan_reset(ks);
	MemoryContextDelete(ks->cxt);
	MemoryContextDelete(ks->tupcxt);
	pfree(ks);
}

/*
 * start_read -- the reader of a scan: of the row the row key names (else
 * of the whole table), merging only the records of the column the family
 * and qualifier keys name, inside the time window of the ts key, so that a
 * lookup reads one column's versions near ts, not a whole row.  Snapshots
 * other than MVCC (the dirty one the apply worker passes) read what the
 * latest snapshot sees, as a sequential scan does (tableam.c); false when
 * a key is NULL (= matches nothing).
 */
static bool
start_read(IndexScanDesc scan, WideKeyScan *ks)
{
	Relation	heap = scan->heapRelation;
	const WideSchema *schema = WideGetSchema(heap);
	Snapshot	snapshot = scan->xs_snapshot;
	WideKeyRange range;
	WideTsWindow window;
	bool		has_range = false;
	MemoryContext old;
	int			i;

	memset(&range, 0, sizeof(range));
	WideTsWindowInit(&window);
	WideColumnFilterReset(&ks->columns);
	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		key = &scan->keyData[i];

		if (key->sk_flags & SK_ISNULL)
			return false;
		if (key->sk_strategy != BTEqualStrategyNumber)
			elog(ERROR, "wide_key index \"%s\" scanned with strategy %d",
				 RelationGetRelationName(scan->indexRelation), key->sk_strategy);
		if (key->sk_attno == 1 && !has_range)
		{
			struct varlena *v;

			old = MemoryContextSwitchTo(ks->cxt);
			v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(key->sk_argument));
			MemoryContextSwitchTo(old);
			range.has_start = range.has_end = true;
			range.start_incl = range.end_incl = true;
			range.is_point = true;
			range.start = range.end = VARDATA_ANY(v);
			range.startlen = range.endlen = VARSIZE_ANY_EXHDR(v);
			has_range = true;
		}
		else if (key->sk_attno == 2)
			WideColumnFilterAdd(&ks->columns, ks->cxt, false, key->sk_argument,
								TEXTOID, false);
		else if (key->sk_attno == 3)
			WideColumnFilterAdd(&ks->columns, ks->cxt, true, key->sk_argument,
								schema->qualtype, false);
		else if (key->sk_attno == 4)
		{
			int64		ts = schema->tstype == TIMESTAMPTZOID ?
				WideTimestampToUnix(DatumGetTimestampTz(key->sk_argument)) :
				DatumGetInt64(key->sk_argument);

			/* (two ts keys: cells must equal both; cell_matches checks) */
			window.lo = window.hi = ts;
		}
	}

	if (snapshot == NULL || snapshot->snapshot_type != SNAPSHOT_MVCC)
	{
		/* a dirty snapshot's xmin and xmax mean "wait for": nothing to */
		if (snapshot != NULL && snapshot->snapshot_type == SNAPSHOT_DIRTY)
		{
			snapshot->xmin = InvalidTransactionId;
			snapshot->xmax = InvalidTransactionId;
		}
		ks->snapshot = RegisterSnapshot(GetLatestSnapshot());
		snapshot = ks->snapshot;
	}
	pgstat_count_index_scan(scan->indexRelation);
	old = MemoryContextSwitchTo(ks->cxt);
	ks->reader = WideReaderBeginTs(heap, snapshot, WideReaderNow(),
								   has_range ? &range : NULL, &window);
	if (ks->columns.fam_active || ks->columns.qual_active)
		WideReaderSetFilter(ks->reader, WideColumnFilterKeep, &ks->columns);
	MemoryContextSwitchTo(old);
	return true;
}

/* does the cell match every key? */
static bool
cell_matches(IndexScanDesc scan, const WideSchema *schema,
			 const WideCell *cell)
{
	Datum		values[5];
	bool		isnull[5];
	int			i;

	WideCellToValues(schema, cell, values, isnull,
					 (const bool[5]) {true, true, true, true, false});
	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		key = &scan->keyData[i];
		int			col = key->sk_attno - 1;

		if (col < 0 || col >= WIDE_KEY_COORDS)
			elog(ERROR, "wide_key index \"%s\" scanned on column %d",
				 RelationGetRelationName(scan->indexRelation), key->sk_attno);
		if (!DatumGetBool(FunctionCall2Coll(&key->sk_func, key->sk_collation,
											values[col], key->sk_argument)))
			return false;
	}
	return true;
}

/*
 * amgettuple: the next cell with equal keys, under a TID that delete.c
 * remembers with the cell's value (until the next cell's).
 */
static bool
wide_key_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	WideKeyScan *ks = (WideKeyScan *) scan->opaque;
	Relation	heap = scan->heapRelation;
	const WideSchema *schema = WideGetSchema(heap);
	MemoryContext old;

	if (dir != ForwardScanDirection)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index \"%s\" cannot be scanned backward",
						RelationGetRelationName(scan->indexRelation))));
	if (ks->done)
		return false;
	if (ks->reader == NULL && !start_read(scan, ks))
	{
		ks->done = true;
		return false;
	}
	scan->xs_recheck = false;
	for (;;)
	{
		const WideCell *cell;
		bool		match;

		old = MemoryContextSwitchTo(ks->cxt);
		cell = WideReaderNext(ks->reader);
		MemoryContextSwitchTo(old);
		if (cell == NULL)
		{
			ks->done = true;
			return false;
		}
		MemoryContextReset(ks->tupcxt);
		old = MemoryContextSwitchTo(ks->tupcxt);
		match = cell_matches(scan, schema, cell);
		MemoryContextSwitchTo(old);
		if (match)
		{
			WideDeleteRemember(heap, cell, &scan->xs_heaptid,
							   WIDE_DELETE_LATEST_VALUE);
			return true;
		}
	}
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

/* refuse ON CONFLICT into a wide table with a unique wide_key index */
static void
check_on_conflict_table(Oid relid, Oid keyam, LOCKMODE lockmode)
{
	Relation	table;
	List	   *indexes;
	ListCell   *ilc;

	if (!WideRelationIsWide(relid))
		return;
	table = relation_open(relid, lockmode);
	indexes = RelationGetIndexList(table);
	foreach(ilc, indexes)
	{
		Oid			indexid = lfirst_oid(ilc);
		HeapTuple	itup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexid));
		HeapTuple	xtup;
		bool		is_key;
		bool		unique;

		if (!HeapTupleIsValid(itup))
			continue;
		is_key = ((Form_pg_class) GETSTRUCT(itup))->relam == keyam;
		ReleaseSysCache(itup);
		if (!is_key)
			continue;
		xtup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexid));
		if (!HeapTupleIsValid(xtup))
			continue;
		unique = ((Form_pg_index) GETSTRUCT(xtup))->indisunique;
		ReleaseSysCache(xtup);
		if (unique)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("INSERT ... ON CONFLICT is not supported on wide table \"%s\" with unique index \"%s\"",
							RelationGetRelationName(table), get_rel_name(indexid)),
					 errdetail("PostgreSQL checks ON CONFLICT against btree indexes only; \"%s\" is a wide_key index.",
							   get_rel_name(indexid)),
					 errhint("A write to an existing cell replaces it: use a plain INSERT.")));
	}
	list_free(indexes);
	relation_close(table, NoLock);
}

/*
 * refuse ON CONFLICT of one ModifyTable node into a table with the index,
 * or into a partitioned table one of whose partitions is one
 */
static void
check_on_conflict(PlannedStmt *stmt, Plan *plan, Oid keyam)
{
	ModifyTable *mt;
	ListCell   *lc;

	if (plan == NULL || !IsA(plan, ModifyTable))
		return;
	mt = (ModifyTable *) plan;
	if (mt->operation != CMD_INSERT || mt->onConflictAction == ONCONFLICT_NONE)
		return;
	foreach(lc, mt->resultRelations)
	{
		RangeTblEntry *rte = rt_fetch(lfirst_int(lc), stmt->rtable);

		if (rte->relkind == RELKIND_RELATION)
			check_on_conflict_table(rte->relid, keyam, NoLock);
		else if (rte->relkind == RELKIND_PARTITIONED_TABLE)
		{
			/* (the partitions the rows are routed to get this lock anyway) */
			List	   *parts = find_all_inheritors(rte->relid, RowExclusiveLock, NULL);
			ListCell   *plc;

			foreach(plc, parts)
				if (get_rel_relkind(lfirst_oid(plc)) == RELKIND_RELATION)
					check_on_conflict_table(lfirst_oid(plc), keyam, NoLock);
			list_free(parts);
		}
	}
}

/*
 * WideKeyCheckOnConflict -- called at ExecutorStart: refuse INSERT ... ON
 * CONFLICT (at the top or in a WITH) into a wide table with a unique
 * wide_key index, or a partitioned table with such a partition (a row is
 * routed to it), which PostgreSQL's speculative insertion cannot check
 * (it knows btree arbiters only, and would fail with an internal error).
 */
void
WideKeyCheckOnConflict(PlannedStmt *stmt)
{
	Oid			keyam;
	ListCell   *lc;

	if (stmt->commandType != CMD_INSERT && !stmt->hasModifyingCTE)
		return;
	if (!OidIsValid(keyam = WideKeyIndexAmOid()))
		return;
	check_on_conflict(stmt, stmt->planTree, keyam);
	foreach(lc, stmt->subplans)
		check_on_conflict(stmt, (Plan *) lfirst(lc), keyam);
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
	am->amcanunique = true;		/* the coordinates; check_shape */
	am->amcanmulticol = true;
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
	am->amgettuple = wide_key_gettuple;
	am->amgetbitmap = NULL;
	am->amendscan = wide_key_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;

	PG_RETURN_POINTER(am);
}
