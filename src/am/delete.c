/*-------------------------------------------------------------------------
 *
 * delete.c
 *	  SQL DELETE on a wide table: each deleted cell becomes a tombstone.
 *
 * The executor deletes by item pointer: a scan returns rows with a TID,
 * ModifyTable hands the TID to tuple_delete.  A cell has no address that
 * fits in a TID (it may live in a compressed segment block), so while a
 * DELETE runs on a wide table (noticed by the ExecutorStart hook), scans
 * of that table number the cells they return and remember the coordinates
 * of the last WIDE_DELETE_RING of them; tuple_delete finds the cell by its
 * number and writes a DeleteFromColumn tombstone for exactly that version,
 * [ts, ts + 1).  Deleting is thus Bigtable's delete: it removes what was
 * written before it.  The scan does not see its own statement's tombstones
 * (they carry the statement's command id).
 *
 * As for a heap tuple, a cell this statement already deleted is
 * TM_SelfModified when deleted again (a join returning it twice, two
 * DELETEs of the table in one statement, MERGE with two source rows): it is
 * counted, returned and shown to BEFORE ROW DELETE triggers once.  A cell is
 * known as deleted by its ring slot and, when the plan may return it twice
 * from different scans (a rescanned inner side), by its coordinates.
 * MERGE's WHEN MATCHED, BEFORE ROW DELETE triggers (which "lock" the cell)
 * and OLD TABLE transition tables fetch the cell the scan returned: the
 * values are then kept, as for RETURNING.
 *
 * A plan that scans more than WIDE_DELETE_RING cells of the table before
 * deleting one of them (say, a hash join that builds on the wide table)
 * gets a clear error for that cell, never a wrong delete; plain DELETE ...
 * WHERE deletes each cell right after the scan returns it.
 *
 * IDENTIFICATION
 *	  src/am/delete.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "common/hashfn.h"
#include "nodes/execnodes.h"
#include "utils/hsearch.h"
#include "executor/executor.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "utils/memutils.h"
#include "utils/relcache.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "am/am.h"

#define WIDE_DELETE_RING	65536
#define TIDS_PER_BLOCK		2000	/* offsets 1..2000 */

typedef struct RememberedCell
{
	uint64		id;				/* 0: empty */
	Oid			relid;
	char	   *bytes;			/* key, family, qualifier */
	uint32		keylen;
	uint16		famlen;
	uint32		quallen;
	int64		ts;
	uint8		kind;			/* for RETURNING: the cell's record kind */
	bool		has_value;		/* for RETURNING: value and vallen kept */
	char	   *value;			/* its value, or NULL when empty */
	uint32		vallen;
	bool		deleted;		/* tuple_delete wrote its tombstone */
	CommandId	deleted_cid;	/* ... in this command */
} RememberedCell;

/*
 * A cell deleted by a DELETE or MERGE whose plan may return one cell more
 * than once (a join with duplicate matches, a rescanned inner side, two
 * data-modifying CTEs deleting from one table): the second delete of it is
 * TM_SelfModified, as for a heap tuple, so that it is counted and returned
 * once.  Keyed by the cell's coordinates.
 */
typedef struct DeletedKey
{
	Oid			relid;
	uint32		keylen;
	uint32		famlen;
	uint32		quallen;
	int64		ts;
	const char *bytes;			/* key, family, qualifier */
} DeletedKey;

typedef struct DeletedEntry
{
	DeletedKey	key;
	CommandId	cid;			/* of the command that deleted it */
} DeletedEntry;

typedef struct DeleteTarget
{
	Oid			relid;
	QueryDesc  *query;			/* the DELETE that targets it */
	bool		returning;		/* keep values too (see add_delete_targets) */
	bool		dedupe;			/* its plan may return a cell twice */
} DeleteTarget;

static List *targets = NIL;		/* of DeleteTarget *, in TopMemoryContext */
static RememberedCell *ring = NULL;	/* ringcap slots, cell id % ringcap */
static int	ringcap = 0;
static MemoryContext ringcxt = NULL;
static uint64 next_id = 1;
static uint64 latest_id = 0;	/* remembered with WIDE_DELETE_LATEST_VALUE */
static HTAB *deleted = NULL;	/* of DeletedEntry, in ringcxt */
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static bool callback_registered = false;

static void
forget_all(void)
{
	ListCell   *lc;

	foreach(lc, targets)
		pfree(lfirst(lc));
	list_free(targets);
	targets = NIL;
	if (ringcxt)
		MemoryContextReset(ringcxt);
	ring = NULL;
	ringcap = 0;
	deleted = NULL;
}

/*
 * Make room for the cell numbered id.  The ring starts small and doubles,
 * up to WIDE_DELETE_RING slots, rather than forget a remembered cell: a
 * DELETE of a few cells (or a replication worker applying a few deletes per
 * transaction) must not allocate and zero the whole ring each time.  The
 * cells remembered span fewer consecutive ids than the ring has slots, so
 * they fall in distinct slots of the doubled ring too.
 */
static void
ring_reserve(uint64 id)
{
	RememberedCell *grown;
	int			newcap;
	int			i;

	if (ring == NULL)
	{
		ringcap = 64;
		ring = MemoryContextAllocZero(ringcxt, sizeof(RememberedCell) * ringcap);
		return;
	}
	if (ringcap >= WIDE_DELETE_RING || ring[id % ringcap].id == 0)
		return;
	newcap = ringcap * 2;
	grown = MemoryContextAllocZero(ringcxt, sizeof(RememberedCell) * newcap);
	for (i = 0; i < ringcap; i++)
		if (ring[i].id != 0)
			grown[ring[i].id % newcap] = ring[i];
	pfree(ring);
	ring = grown;
	ringcap = newcap;
}

static void
xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
		forget_all();
}

/*
 * Does plan return each cell of the result relations (range table entries
 * rtis) at most once?  A plain scan of one (or an Append of them), or a
 * join with such an outer side that emits each outer row at most once (a
 * semi or anti join, or an inner join whose inner side is unique: DELETE
 * ... WHERE k IN (SELECT ...)).  When not, deleted cells are deduplicated
 * by their coordinates, which costs memory for each cell deleted.
 */
static bool
plain_scan(Plan *plan, List *rtis)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	switch (nodeTag(plan))
	{
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			{
				Join	   *j = (Join *) plan;

				if (j->jointype != JOIN_SEMI && j->jointype != JOIN_ANTI &&
					!(j->jointype == JOIN_INNER && j->inner_unique) &&
					!(j->jointype == JOIN_LEFT && j->inner_unique))
					return false;
				return plain_scan(outerPlan(plan), rtis);
			}
		case T_SeqScan:
		case T_CustomScan:
			return list_member_int(rtis, ((Scan *) plan)->scanrelid);
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				if (!plain_scan(lfirst(lc), rtis))
					return false;
			return true;
		case T_Result:
			return plan->lefttree == NULL ? false : plain_scan(plan->lefttree, rtis);
		default:
			return false;
	}
}

/*
 * Does relation relid have triggers that fetch a deleted cell again (a
 * BEFORE ROW DELETE trigger, which "locks" it, or a statement trigger's
 * transition table OLD TABLE)?
 */
static bool
triggers_fetch_deleted(Oid relid)
{
	Relation	rel = RelationIdGetRelation(relid);
	bool		fetch = false;

	if (RelationIsValid(rel))
	{
		fetch = rel->trigdesc != NULL &&
			(rel->trigdesc->trig_delete_before_row ||
			 rel->trigdesc->trig_delete_after_row ||
			 rel->trigdesc->trig_delete_old_table);
		RelationClose(rel);
	}
	return fetch;
}

/*
 * The wide tables a plan deletes from: a ModifyTable DELETE or MERGE at
 * the top of the plan, or of a subplan (a data-modifying CTE: WITH x AS
 * (DELETE ... RETURNING ...) SELECT ..., whose own statement is a SELECT).
 * The values of the cells its scans return are kept when something
 * fetches them again by TID: RETURNING, MERGE (its WHEN clauses read the
 * target row), row triggers and transition tables.
 */
static void
add_delete_targets(QueryDesc *query, Plan *plan)
{
	ModifyTable *mt;
	ListCell   *lc;
	bool		plain;

	if (plan == NULL || !IsA(plan, ModifyTable))
		return;
	mt = (ModifyTable *) plan;
	if (mt->operation != CMD_DELETE && mt->operation != CMD_MERGE)
		return;
	plain = mt->operation == CMD_DELETE &&
		plain_scan(outerPlan(plan), mt->resultRelations);
	foreach(lc, mt->resultRelations)
	{
		RangeTblEntry *rte = rt_fetch(lfirst_int(lc), query->plannedstmt->rtable);

		if (rte->relkind == RELKIND_RELATION && WideRelationIsWide(rte->relid))
		{
			DeleteTarget *t = MemoryContextAlloc(TopMemoryContext, sizeof(DeleteTarget));
			ListCell   *lc2;
			MemoryContext old;

			t->relid = rte->relid;
			t->query = query;
			t->returning = mt->returningLists != NIL ||
				mt->operation == CMD_MERGE || triggers_fetch_deleted(rte->relid);
			t->dedupe = !plain;
			/* two DELETEs of one table in one statement (CTEs) */
			foreach(lc2, targets)
			{
				DeleteTarget *o = lfirst(lc2);

				if (o->relid == t->relid && o->query == query)
					o->dedupe = t->dedupe = true;
			}
			old = MemoryContextSwitchTo(TopMemoryContext);
			targets = lappend(targets, t);
			MemoryContextSwitchTo(old);
		}
	}
}

static void
wide_ExecutorStart(QueryDesc *query, int eflags)
{
	/* before ExecOpenIndices fails on a wide_key arbiter (keyindex.c) */
	WideKeyCheckOnConflict(query->plannedstmt);
	/* before the plan's scans begin, which ask WideDeleteTracking */
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY))
	{
		add_delete_targets(query, query->plannedstmt->planTree);
		if (query->plannedstmt->hasModifyingCTE)
		{
			ListCell   *lc;

			foreach(lc, query->plannedstmt->subplans)
				add_delete_targets(query, (Plan *) lfirst(lc));
		}
	}
	if (prev_ExecutorStart)
		prev_ExecutorStart(query, eflags);
	else
		standard_ExecutorStart(query, eflags);
}

/* the DELETE statement running on rel, if any */
static DeleteTarget *
running_target(Relation rel)
{
	ListCell   *lc;

	DeleteTarget *found = NULL;

	/* the innermost one: a trigger's DELETE runs inside its statement's */
	foreach(lc, targets)
	{
		DeleteTarget *t = lfirst(lc);

		if (t->relid == RelationGetRelid(rel) && t->query->snapshot != NULL)
			found = t;
	}
	return found;
}

static void
wide_ExecutorEnd(QueryDesc *query)
{
	ListCell   *lc;
	bool		ended = false;

	foreach(lc, targets)
	{
		DeleteTarget *t = lfirst(lc);

		if (t->query == query)
		{
			/* the last batch of the columns it deleted (engine/uncover.c) */
			Relation	rel = relation_open(t->relid, NoLock);

			WideWriteEnd(rel, WIDE_WRITE_DELETE);
			relation_close(rel, NoLock);
			targets = foreach_delete_current(targets, lc);
			pfree(t);
			ended = true;
		}
	}

	/*
	 * The ring is forgotten when the last DELETE ends, not when any query
	 * ends: a logical replication worker remembers the cell it found by
	 * its replica identity index (keyindex.c) and deletes it after the row
	 * triggers, whose queries end in between.
	 */
	if (ended && targets == NIL && ringcxt)
	{
		MemoryContextReset(ringcxt);
		ring = NULL;
		deleted = NULL;
	}
	if (prev_ExecutorEnd)
		prev_ExecutorEnd(query);
	else
		standard_ExecutorEnd(query);
}

/*
 * WideInstallDeleteHooks -- called once, at load.
 */
void
WideInstallDeleteHooks(void)
{
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = wide_ExecutorStart;
	prev_ExecutorEnd = ExecutorEnd_hook;
	ExecutorEnd_hook = wide_ExecutorEnd;
}

/*
 * WideDeleteTracking -- is a DELETE of this relation running?  0 if not;
 * WIDE_DELETE_KEYS, or WIDE_DELETE_WITH_VALUES when it has RETURNING.
 */
int
WideDeleteTracking(Relation rel)
{
	ListCell   *lc;
	int			track = 0;

	if (targets == NIL)
		return 0;
	foreach(lc, targets)
	{
		DeleteTarget *t = lfirst(lc);

		if (t->relid == RelationGetRelid(rel))
			track = Max(track, t->returning ? WIDE_DELETE_WITH_VALUES : WIDE_DELETE_KEYS);
	}
	return track;
}

/*
 * WideDeleteRemember -- give a cell a scan returns for a DELETE its TID,
 * and remember its coordinates; with WIDE_DELETE_WITH_VALUES its value
 * too, with WIDE_DELETE_LATEST_VALUE its value until the next cell
 * remembered so (a wide_key index scan: the executor and the replication
 * worker fetch, lock and delete the cell it returned before asking for
 * another, and a worker applying a large transaction must not keep the
 * values of all the cells it deleted).
 */
void
WideDeleteRemember(Relation rel, const WideCell *cell, ItemPointer tid, int track)
{
	uint64		id = next_id++;
	RememberedCell *r;

	if (!callback_registered)
	{
		RegisterXactCallback(xact_callback, NULL);
		callback_registered = true;
	}
	if (ringcxt == NULL)
		ringcxt = AllocSetContextCreate(TopMemoryContext, "wide DELETE cells",
										ALLOCSET_DEFAULT_SIZES);
	ring_reserve(id);
	if (track == WIDE_DELETE_LATEST_VALUE)
	{
		RememberedCell *l = &ring[latest_id % ringcap];

		if (latest_id != 0 && l->id == latest_id)
		{
			if (l->value)
				pfree(l->value);
			l->value = NULL;
			l->vallen = 0;
			l->has_value = false;
		}
		latest_id = id;
	}
	r = &ring[id % ringcap];
	if (r->bytes)
		pfree(r->bytes);
	if (r->value)
		pfree(r->value);
	r->value = NULL;
	r->vallen = 0;
	r->deleted = false;
	r->kind = cell->kind;
	r->has_value = (track == WIDE_DELETE_WITH_VALUES ||
					track == WIDE_DELETE_LATEST_VALUE);
	if (r->has_value && cell->vallen > 0)
	{
		r->value = MemoryContextAlloc(ringcxt, cell->vallen);
		memcpy(r->value, cell->value, cell->vallen);
		r->vallen = cell->vallen;
	}
	r->bytes = MemoryContextAlloc(ringcxt, Max(cell->keylen + cell->famlen + cell->quallen, 1));
	memcpy(r->bytes, cell->key, cell->keylen);
	memcpy(r->bytes + cell->keylen, cell->family, cell->famlen);
	memcpy(r->bytes + cell->keylen + cell->famlen, cell->qual, cell->quallen);
	r->keylen = cell->keylen;
	r->famlen = cell->famlen;
	r->quallen = cell->quallen;
	r->ts = cell->ts;
	r->relid = RelationGetRelid(rel);
	r->id = id;
	ItemPointerSet(tid, (BlockNumber) (id / TIDS_PER_BLOCK),
				   (OffsetNumber) (id % TIDS_PER_BLOCK) + 1);
}

/*
 * remembered -- the cell remembered under a TID, as a cell (value NULL
 * unless kept for RETURNING, *has_value says); false if it is not known.
 */
static bool
remembered(Relation rel, ItemPointer tid, WideCell *c, bool *has_value)
{
	uint64		id;
	RememberedCell *r;

	/* a TID no scan of ours handed out (the executor may pass an unset one) */
	if (!ItemPointerIsValid(tid))
		return false;
	id = (uint64) ItemPointerGetBlockNumber(tid) * TIDS_PER_BLOCK +
		(ItemPointerGetOffsetNumber(tid) - 1);
	r = ring ? &ring[id % ringcap] : NULL;
	if (r == NULL || r->id != id || r->relid != RelationGetRelid(rel))
		return false;
	memset(c, 0, sizeof(WideCell));
	c->kind = r->kind;
	c->key = r->bytes;
	c->keylen = r->keylen;
	c->family = r->bytes + r->keylen;
	c->famlen = r->famlen;
	c->qual = r->bytes + r->keylen + r->famlen;
	c->quallen = r->quallen;
	c->ts = r->ts;
	c->value = r->value;
	c->vallen = r->vallen;
	if (has_value)
		*has_value = r->has_value;
	return true;
}

static uint32
deleted_hash(const void *key, Size keysize)
{
	const DeletedKey *k = key;

	return hash_combine(hash_bytes((const unsigned char *) k->bytes,
								   k->keylen + k->famlen + k->quallen),
						hash_bytes_uint32((uint32) k->ts ^ k->relid ^
										  (k->keylen << 16) ^ k->famlen));
}

static int
deleted_match(const void *key1, const void *key2, Size keysize)
{
	const DeletedKey *a = key1;
	const DeletedKey *b = key2;

	if (a->relid != b->relid || a->ts != b->ts || a->keylen != b->keylen ||
		a->famlen != b->famlen || a->quallen != b->quallen)
		return 1;
	return memcmp(a->bytes, b->bytes, a->keylen + a->famlen + a->quallen);
}

/* does a running DELETE or MERGE of rel need deleted cells deduplicated? */
static bool
dedupe_needed(Relation rel)
{
	ListCell   *lc;

	foreach(lc, targets)
	{
		DeleteTarget *t = lfirst(lc);

		if (t->relid == RelationGetRelid(rel) && t->dedupe)
			return true;
	}
	return false;
}

/* the ring slot of a TID remembered() found */
static RememberedCell *
remembered_slot(ItemPointer tid)
{
	uint64		id = (uint64) ItemPointerGetBlockNumber(tid) * TIDS_PER_BLOCK +
		(ItemPointerGetOffsetNumber(tid) - 1);

	return &ring[id % ringcap];
}

/*
 * Has this statement (command cid or one a trigger of it ran) deleted the
 * cell c, remembered in slot r, already?  If so, fill *tmfd for
 * TM_SelfModified.  With record, remember it as deleted by cid if not.
 */
static bool
already_deleted(Relation rel, RememberedCell *r, const WideCell *c,
				CommandId cid, bool record, struct TM_FailureData *tmfd)
{
	CommandId	by = r->deleted_cid;
	bool		found = r->deleted;

	if (!found && dedupe_needed(rel) && (record || deleted != NULL))
	{
		DeletedKey	k;
		DeletedEntry *e;

		if (deleted == NULL)
		{
			HASHCTL		ctl;

			ctl.keysize = sizeof(DeletedKey);
			ctl.entrysize = sizeof(DeletedEntry);
			ctl.hash = deleted_hash;
			ctl.match = deleted_match;
			ctl.hcxt = ringcxt;
			deleted = hash_create("wide deleted cells", 256, &ctl,
								  HASH_ELEM | HASH_FUNCTION | HASH_COMPARE |
								  HASH_CONTEXT);
		}
		k.relid = RelationGetRelid(rel);
		k.keylen = c->keylen;
		k.famlen = c->famlen;
		k.quallen = c->quallen;
		k.ts = c->ts;
		k.bytes = c->key;		/* key, family, qualifier: contiguous */
		e = hash_search(deleted, &k, record ? HASH_ENTER : HASH_FIND, &found);
		if (e == NULL)
			found = false;
		else if (!found)
		{
			char	   *b = MemoryContextAlloc(ringcxt, Max(c->keylen + c->famlen + c->quallen, 1));

			memcpy(b, c->key, c->keylen + c->famlen + c->quallen);
			e->key.bytes = b;
			e->cid = cid;
		}
		else if (e->cid < cid)
		{
			/* deleted by an earlier statement: this is a newer write */
			if (record)
				e->cid = cid;
			found = false;
		}
		else
			by = e->cid;
	}
	if (found)
	{
		tmfd->xmax = GetCurrentTransactionId();
		tmfd->cmax = by;
		tmfd->traversed = false;
	}
	return found;
}

/*
 * WideDeleteCell -- tuple_delete: a tombstone for the cell a scan of this
 * DELETE returned with this TID, by command cid.  A cell this statement
 * already deleted (returned twice by a join) is TM_SelfModified, as a heap
 * tuple is: the executor skips it (or, deleted by a command a trigger of
 * this one ran, raises the heap's error).
 */
TM_Result
WideDeleteCell(Relation rel, ItemPointer tid, CommandId cid,
			   struct TM_FailureData *tmfd)
{
	const WideSchema *schema = WideGetSchema(rel);
	WideCell	c;
	DeleteTarget *t;
	RememberedCell *r;

	if (!remembered(rel, tid, &c, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot DELETE this cell of wide table \"%s\": it was scanned too long before",
						RelationGetRelationName(rel)),
				 errdetail("A DELETE deletes each cell by the coordinates its scan remembered; this plan read more than %d cells of the table before deleting one.",
						   WIDE_DELETE_RING),
				 errhint("Delete with a simpler WHERE clause, or with wide.delete_cells() or wide.mutate_rows().")));
	r = remembered_slot(tid);
	if (already_deleted(rel, r, &c, cid, true, tmfd))
	{
		tmfd->ctid = *tid;
		return TM_SelfModified;
	}
	r->deleted = true;
	r->deleted_cid = cid;

	/* a tombstone of exactly this version */
	c.kind = WIDE_KIND_DEL_CELLS;
	c.value = NULL;
	c.vallen = 0;
	c.ts_to = c.ts == PG_INT64_MAX ? PG_INT64_MAX : c.ts + 1;
	c.famid = WideFamilyForWrite(rel, schema, c.family, c.famlen)->id;
	/*
	 * appended at once, with the versions its family's policy hides
	 * (write.c): for a DELETE statement, once its batch of columns is read
	 * with its snapshot; for a delete without one (a logical replication
	 * worker's), at once
	 */
	if ((t = running_target(rel)) != NULL)
		WideWrite(rel, schema, &c, 1, WIDE_WRITE_DELETE,
				  GetCurrentCommandId(true), t->query->snapshot);
	else
		WideWrite(rel, schema, &c, 1, WIDE_WRITE_APPEND,
				  GetCurrentCommandId(true), NULL);
	return TM_Ok;
}

/*
 * WideDeleteLock -- tuple_lock for a DELETE or MERGE with a BEFORE ROW
 * DELETE trigger (GetTupleForTrigger): the cell its scan returned with
 * this TID, or TM_SelfModified if this statement deleted it already (a
 * join returned it twice: the trigger does not fire again, as for a heap
 * tuple).  false if the cell is not known.
 */
bool
WideDeleteLock(Relation rel, ItemPointer tid, CommandId cid,
			   struct TupleTableSlot *slot, struct TM_FailureData *tmfd,
			   TM_Result *result)
{
	WideCell	c;
	ItemPointerData self = *tid;

	if (!remembered(rel, &self, &c, NULL))
		return false;
	if (already_deleted(rel, remembered_slot(&self), &c, cid, false, tmfd))
	{
		tmfd->ctid = self;
		*result = TM_SelfModified;
		return true;
	}
	if (!WideDeleteFetch(rel, &self, slot))
		return false;
	tmfd->traversed = false;
	*result = TM_Ok;
	return true;
}

/*
 * WideDeleteFetch -- tuple_fetch_row_version for DELETE ... RETURNING, and
 * index_fetch_tuple and tuple_lock for a logical replication worker that
 * found the cell by its replica identity index (keyindex.c): the cell a
 * scan returned with this TID, its value included; false if it is not
 * known, or was remembered without its value.
 */
bool
WideDeleteFetch(Relation rel, ItemPointer tid, TupleTableSlot *slot)
{
	WideCell	c;
	bool		has_value;
	ItemPointerData self = *tid;	/* tid may be slot's own, which clearing resets */

	if (!remembered(rel, &self, &c, &has_value) || !has_value)
		return false;
	ExecClearTuple(slot);
	WideCellToValues(WideGetSchema(rel), &c, slot->tts_values, slot->tts_isnull, NULL);
	ExecStoreVirtualTuple(slot);
	slot->tts_tid = self;
	slot->tts_tableOid = RelationGetRelid(rel);
	return true;
}
