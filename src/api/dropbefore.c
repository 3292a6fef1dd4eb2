/*-------------------------------------------------------------------------
 *
 * dropbefore.c
 *	  wide.drop_before(tbl, ts) and wide.drop_before(tbl, family, ts):
 *	  delete every cell older than ts, of every family or of one, across
 *	  all rows, in one metapage change (engine/drops.c).
 *
 * Rights: DELETE on the table, as wide.delete_cells with a time range
 * (the same delete for every row); refused where row-level security
 * applies, like the other functions.
 *
 * A parent of tablets: the drop is made in every tablet, in this
 * transaction -- a remote tablet's by the same call on its node, in the
 * remote transaction that commits with this one (remote.c) -- with the
 * parent's rights, as SQL through the parent.  A tablet that a split or
 * move is copying (marked, am/tracking.c) refuses it: the operation's
 * catch-up brings over the rows written during the copy, and a drop writes
 * no row, so the new tablets would keep the dropped cells.  Transactional: a rollback keeps the
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
#include "catalog/pg_class.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/drops.h"
#include "api/api.h"
#include "am/am.h"
#include "am/cdc.h"

PG_FUNCTION_INFO_V1(wide_drop_before);

/*
 * drop_in -- the drop in one wide table, open and locked (RowExclusiveLock)
 * with the caller's rights checked; family NULL: every family.
 */
static void
drop_in(Relation rel, const char *family, int64 before)
{
	uint32		famid = 0;

	if (WideTabletTracked(rel))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot drop cells of tablet \"%s\" while a split or move copies it",
						RelationGetRelationName(rel)),
				 errdetail("The operation's catch-up copies the rows written during the copy; a drop writes none, so the new tablets would keep the dropped cells."),
				 errhint("Call wide.drop_before() again when the operation has finished (wide.tablet_ops).")));
	if (family != NULL)
	{
		const WideFamily *f = WideSchemaFindFamily(WideGetSchema(rel), family,
												   strlen(family));

		if (f == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("column family \"%s\" does not exist in wide table \"%s\"",
							family, RelationGetRelationName(rel)),
					 errhint("wide.families('%s') lists the families.",
							 RelationGetRelationName(rel))));
		famid = f->id;
	}
	WideDropsAdd(rel, famid, before);
	WideCdcLogDrop(rel, family, before);
}

/*
 * wide.drop_before(tbl regclass, ts "any")
 * wide.drop_before(tbl regclass, family text, ts "any")
 */
Datum
wide_drop_before(PG_FUNCTION_ARGS)
{
	Oid			relid = WideTableArg(fcinfo, 0);
	int			tsarg = PG_NARGS() - 1;
	char	   *family = NULL;
	bool		isnull;
	int64		before;
	Relation	rel;

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
	if (PG_NARGS() == 3)
		family = text_to_cstring(PG_GETARG_TEXT_PP(1));

	if (WideTabletParent(relid))
	{
		/* every tablet, remote ones on their nodes, with the parent's rights */
		Relation	parent = WideOpenParent(fcinfo, NULL, relid, ACL_DELETE,
											RowExclusiveLock);
		ListCell   *lc;

		foreach(lc, WideTabletsAll(parent, RowExclusiveLock))
		{
			Oid			tablet = lfirst_oid(lc);

			if (get_rel_relkind(tablet) == RELKIND_FOREIGN_TABLE)
			{
				(void) WideRemoteCall(fcinfo, tablet);
				continue;
			}
			rel = WideOpenWide(tablet, RowExclusiveLock);
			drop_in(rel, family, before);
			relation_close(rel, NoLock);
		}
		relation_close(parent, NoLock);
		PG_RETURN_VOID();
	}

	rel = WideOpenTable(fcinfo, relid, ACL_DELETE, RowExclusiveLock);
	drop_in(rel, family, before);
	relation_close(rel, NoLock);
	PG_RETURN_VOID();
}
