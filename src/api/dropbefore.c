/*-------------------------------------------------------------------------
 *
 * dropbefore.c
 *	  wide.drop_before(tbl, ts) and wide.drop_before(tbl, family, ts):
 *	  delete every cell older than ts, of every family or of one, across
 *	  all rows, in one metapage change (engine/drops.c).
 *
 * Rights: DELETE on the table, as wide.delete_cells with a time range
 * (the same delete for every row); refused where row-level security
 * applies, like the other functions.  Transactional: a rollback keeps the
 * cells, and snapshots taken before the commit keep seeing them.  The
 * cells' space comes back when VACUUM or compaction frees the runs that
 * held only dropped cells (engine/retention.c), without rewriting them.
 *
 * IDENTIFICATION
 *	  src/api/dropbefore.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "fmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/drops.h"
#include "api/api.h"
#include "am/cdc.h"

PG_FUNCTION_INFO_V1(wide_drop_before);

/*
 * wide.drop_before(tbl regclass, ts "any")
 * wide.drop_before(tbl regclass, family text, ts "any")
 */
Datum
wide_drop_before(PG_FUNCTION_ARGS)
{
	Oid			relid = WideTableArg(fcinfo, 0);
	int			tsarg = PG_NARGS() - 1;
	uint32		famid = 0;
	char	   *family = NULL;
	bool		isnull;
	int64		before;
	Relation	rel;

	if (WideTabletParent(relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("wide.drop_before() is not supported on a table of tablets"),
				 errhint("Call it on each tablet.")));
	before = WideArgTimestamp(fcinfo, tsarg, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the time of wide.drop_before() cannot be NULL"),
				 errhint("Pass the time before which cells are deleted.")));
	if (PG_NARGS() == 3 && PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("family cannot be NULL"),
				 errhint("Use wide.drop_before(table, ts) for every family.")));

	rel = WideOpenTable(fcinfo, relid, ACL_DELETE, RowExclusiveLock);
	if (PG_NARGS() == 3)
	{
		text	   *name = PG_GETARG_TEXT_PP(1);
		const WideFamily *f = WideSchemaFindFamily(WideGetSchema(rel),
												   VARDATA_ANY(name),
												   VARSIZE_ANY_EXHDR(name));

		if (f == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("column family \"%s\" does not exist in wide table \"%s\"",
							text_to_cstring(name), RelationGetRelationName(rel)),
					 errhint("wide.families('%s') lists the families.",
							 RelationGetRelationName(rel))));
		famid = f->id;
		family = text_to_cstring(name);
	}
	WideDropsAdd(rel, famid, before);
	WideCdcLogDrop(rel, family, before);
	relation_close(rel, NoLock);
	PG_RETURN_VOID();
}
