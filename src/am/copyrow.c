/*-------------------------------------------------------------------------
 *
 * copyrow.c
 *	  COPY FROM checks each row when it reads it: the slots of a wide table.
 *
 * COPY hands a wide table its rows in batches (multi_insert, up to 1000
 * rows), after it has read them: an error found while converting a batch
 * would name the last line read, not the bad row's (COPY's error context
 * reports its current line).  COPY into a heap table checks a row's
 * constraints as soon as the row is read.  The one call COPY makes on every
 * row it keeps, before it reads the next, is ExecMaterializeSlot on the
 * table's slot; so a wide table's slots are virtual slots whose materialize
 * also checks the row -- everything that can fail for one row: the family,
 * the NULLs, the limits of key, qualifier and value, the timestamp, the
 * input of an aggregate family and what its rollups need -- when a COPY
 * FROM into the table (or a partitioned table with the slot's tablet) is
 * running.  The row is converted again when its batch is written; the
 * check only makes a failure come first, at the right line.
 *
 * WideSlotOps -- the slot callbacks of a wide table.
 *
 * IDENTIFICATION
 *	  src/am/copyrow.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/copy.h"
#include "commands/copyfrom_internal.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "am/am.h"

static void wide_slot_materialize(TupleTableSlot *slot);

static TupleTableSlotOps wide_slot_ops;
static bool wide_slot_ops_ready = false;

/* the COPY FROM running in this backend, if any: its error context */
static CopyFromState
running_copy_from(void)
{
	ErrorContextCallback *e;

	for (e = error_context_stack; e != NULL; e = e->previous)
		if (e->callback == CopyFromErrorCallback)
			return (CopyFromState) e->arg;
	return NULL;
}

/* check the row in the slot as its write to rel will */
static void
check_row(Relation rel, TupleTableSlot *slot)
{
	static MemoryContext cxt = NULL;
	MemoryContext old;
	const WideSchema *schema;
	WideCell	cell;
	int			n = 1;

	if (cxt == NULL)
		cxt = AllocSetContextCreate(TopMemoryContext, "wide copy row check",
									ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	slot_getallattrs(slot);
	schema = WideGetSchema(rel);
	WideCellFromValues(rel, schema, slot->tts_values, slot->tts_isnull, &cell);
	(void) WideRollupExpand(rel, WideGetSchema(rel), &cell, &n);
	MemoryContextSwitchTo(old);
	MemoryContextReset(cxt);
}

static void
wide_slot_materialize(TupleTableSlot *slot)
{
	CopyFromState cstate;
	Oid			relid = slot->tts_tableOid;

	TTSOpsVirtual.materialize(slot);

	if (!OidIsValid(relid) || TTS_EMPTY(slot) ||
		(cstate = running_copy_from()) == NULL || cstate->rel == NULL)
		return;
	/*
	 * Between reading a row and reading the next, a text COPY's current line
	 * is valid; while it writes a batch (and runs AFTER triggers, which may
	 * read the table) it is not: slots materialized then are not its rows.
	 */
	if (!cstate->opts.binary && !cstate->line_buf_valid)
		return;
	if (RelationGetRelid(cstate->rel) == relid)
	{
		if (cstate->rel->rd_tableam == WideTableAmRoutine())
			check_row(cstate->rel, slot);
	}
	else if (cstate->rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
	{
		/* a tablet: open (and locked) by COPY's tuple routing */
		Relation	rel = RelationIdGetRelation(relid);

		if (RelationIsValid(rel))
		{
			PG_TRY();
			{
				if (rel->rd_tableam == WideTableAmRoutine() &&
					rel->rd_rel->relispartition)
					check_row(rel, slot);
			}
			PG_FINALLY();
			{
				RelationClose(rel);
			}
			PG_END_TRY();
		}
	}
}

/*
 * WideSlotOps -- virtual slots whose materialize checks a row COPY FROM
 * keeps (see the top of the file).
 */
const TupleTableSlotOps *
WideSlotOps(void)
{
	if (!wide_slot_ops_ready)
	{
		wide_slot_ops = TTSOpsVirtual;
		wide_slot_ops.materialize = wide_slot_materialize;
		wide_slot_ops_ready = true;
	}
	return &wide_slot_ops;
}
