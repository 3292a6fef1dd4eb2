/*-------------------------------------------------------------------------
 *
 * rows_write.c
 *	  Writes through the row form: INSERT and COPY turn a row into a cell
 *	  per non-NULL value column; UPDATE writes the changed columns (a NULL
 *	  deletes the column's cells); DELETE writes one family tombstone per
 *	  row (or, with a timestamp column outside the key, a column tombstone
 *	  per column at the row's time).
 *
 * Cells are written as SQL writes of the wide table are: checked like an
 * INSERT's (family, limits, timestamps, aggregate inputs: cellslot.c),
 * then handed to the one write entry point (write.c), which stamps them
 * and adds the rollups of the family and, for deletes, what the family's
 * policy hides; INSERT, UPDATE and DELETE as statement writes, COPY as a
 * bulk load (sorted in memory, written as runs), a batch of rows at a time
 * (ROWS_COPY_BATCH rows, few enough that their cells stay in the cache:
 * the write's per-call work, its checks and the load's lock once a batch,
 * not once a row).  The wide table's privileges
 * are checked for the user: INSERT for INSERT and COPY, UPDATE for
 * UPDATE, DELETE for DELETE.
 *
 * A row is its key: UPDATE cannot change a key column (or the timestamp
 * column), and a row all of whose value columns are NULL has no cells,
 * so INSERT refuses it rather than lose it.
 *
 * IDENTIFICATION
 *	  src/am/rows_write.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "nodes/makefuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/inherit.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "engine/uncover.h"
#include "engine/writearea.h"
#include "am/am.h"
#include "am/rows.h"

typedef struct RowsModify
{
	WideRowShape *shape;
	Relation	cells;
	bool		bulk;			/* COPY: the bulk path */
	CmdType		op;
	List	   *updated;		/* UPDATE: attnums set */
	AttrNumber	junk[WIDE_ROWS_MAX_PARTS + 1];	/* key parts, then ts */
	AttrNumber	wholerow;		/* DELETE ... RETURNING: the deleted row */
	MemoryContext cxt;			/* per row */
	Datum	   *values;			/* the row's key and time, by attnum - 1 */
	bool	   *isnull;
	Datum		famd;			/* the family, as text */
	Datum	   *quald;			/* the value columns' qualifiers, as text */
	StringInfoData keybuf;		/* INSERT and COPY: a row's key, built */
	/* COPY: the cells of the rows not written yet, and their memory */
	MemoryContext batchcxt;
	WideCell   *batch;
	int			nbatch;
	int			maxbatch;
	CommandId	batchcid;
} RowsModify;

/* COPY writes the cells of this many rows at once */
#define ROWS_COPY_BATCH		64

static int
rows_updatable(Relation rel)
{
	return (1 << CMD_INSERT) | (1 << CMD_UPDATE) | (1 << CMD_DELETE);
}

static const char *
junk_name(int i)
{
	return psprintf("wide_key_%d", i + 1);
}

/* UPDATE and DELETE find a row by its key parts (and time) */
static void
rows_add_targets(PlannerInfo *root, Index rtindex, RangeTblEntry *rte,
				 Relation rel)
{
	WideRowShape *s = WideRowShapeGet(RelationGetRelid(rel));
	int			i;

	for (i = 0; i < s->nparts; i++)
	{
		const WideRowPart *p = &s->parts[i];
		Var		   *v;

		if (p->kind == WIDE_PART_SALT)
			continue;			/* no column: made from the others */
		v = makeVar(rtindex, p->attnum, p->type, -1,
								get_typcollation(p->type), 0);

		add_row_identity_var(root, v, rtindex, junk_name(i));
	}
	if (s->ts_attnum > 0 && !s->ts_in_key)
		add_row_identity_var(root,
							 makeVar(rtindex, s->ts_attnum,
									 s->cols[s->ts_attnum - 1].type, -1, InvalidOid, 0),
							 rtindex, junk_name(i));

	/*
	 * DELETE ... RETURNING returns the deleted row: the whole row comes up
	 * from the scan (UPDATE's new row is the executor's).
	 */
	if (root->parse->commandType == CMD_DELETE && root->parse->returningList != NIL)
		add_row_identity_var(root, makeWholeRowVar(rte, rtindex, 0, false),
							 rtindex, "wholerow");
}

static List *
rows_plan_modify(PlannerInfo *root, ModifyTable *plan, Index rti, int subplan_index)
{
	RangeTblEntry *rte = planner_rt_fetch(rti, root);
	List	   *updated = NIL;
	int			x = -1;
	Bitmapset  *cols;

	if (plan->onConflictAction != ONCONFLICT_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("INSERT ... ON CONFLICT is not supported on the row form \"%s\"",
						get_rel_name(rte->relid)),
				 errdetail("An INSERT of an existing row writes over the columns it gives, as Bigtable's writes do.")));
	if (plan->operation != CMD_UPDATE)
		return NIL;
	cols = get_rel_all_updated_cols(root, root->simple_rel_array[rti]);
	(void) rte;
	while ((x = bms_next_member(cols, x)) >= 0)
	{
		AttrNumber	a = x + FirstLowInvalidHeapAttributeNumber;

		if (a > 0)
			updated = lappend_int(updated, a);
	}
	return list_make1(updated);
}

static RowsModify *
modify_begin(ResultRelInfo *rinfo, CmdType op, bool bulk)
{
	Relation	rel = rinfo->ri_RelationDesc;
	RowsModify *m = palloc0(sizeof(RowsModify));
	AclMode		perm = op == CMD_INSERT ? ACL_INSERT :
		op == CMD_UPDATE ? ACL_UPDATE : ACL_DELETE;

	m->shape = WideRowShapeGet(RelationGetRelid(rel));
	m->cells = WideRowCellsOpen(m->shape, RowExclusiveLock, perm);
	m->bulk = bulk;
	m->op = op;
	m->cxt = AllocSetContextCreate(CurrentMemoryContext, "wide rows write",
								   ALLOCSET_DEFAULT_SIZES);
	m->values = palloc0(sizeof(Datum) * m->shape->natts);
	m->isnull = palloc0(sizeof(bool) * m->shape->natts);
	m->famd = PointerGetDatum(cstring_to_text_with_len(m->shape->family, m->shape->famlen));
	m->quald = palloc0(sizeof(Datum) * m->shape->natts);
	for (int i = 0; i < m->shape->natts; i++)
		if (m->shape->cols[i].kind == WIDE_COL_VALUE)
			m->quald[i] = PointerGetDatum(cstring_to_text_with_len(m->shape->cols[i].qual,
																	m->shape->cols[i].quallen));
	initStringInfo(&m->keybuf);
	if (bulk)
	{
		m->batchcxt = AllocSetContextCreate(CurrentMemoryContext, "wide rows copy batch",
											ALLOCSET_DEFAULT_SIZES);
		m->maxbatch = ROWS_COPY_BATCH * Max(m->shape->nvalues, 1);
		m->batch = palloc(sizeof(WideCell) * m->maxbatch);
	}
	rinfo->ri_FdwState = m;
	return m;
}

static void
rows_begin_modify(ModifyTableState *mtstate, ResultRelInfo *rinfo,
				  List *fdw_private, int subplan_index, int eflags)
{
	RowsModify *m;
	int			njunk;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	m = modify_begin(rinfo, mtstate->operation, false);
	if (m->op == CMD_UPDATE)
		m->updated = linitial(fdw_private);
	if (m->op == CMD_INSERT)
		return;
	njunk = m->shape->nparts + (m->shape->ts_attnum > 0 && !m->shape->ts_in_key ? 1 : 0);
	for (int i = 0; i < njunk; i++)
	{
		if (i < m->shape->nparts && m->shape->parts[i].kind == WIDE_PART_SALT)
			continue;			/* no column */
		m->junk[i] = ExecFindJunkAttributeInTlist(outerPlanState(mtstate)->plan->targetlist,
												  junk_name(i));
		if (!AttributeNumberIsValid(m->junk[i]))
			elog(ERROR, "wide rows: junk column %s not found", junk_name(i));
	}
	m->wholerow = ExecFindJunkAttributeInTlist(outerPlanState(mtstate)->plan->targetlist,
											   "wholerow");
}

/* COPY (and tuple routing): the bulk path */
static void
rows_begin_insert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	modify_begin(rinfo, CMD_INSERT, mtstate == NULL || mtstate->ps.plan == NULL);
}

/*
 * write_cells -- write cells of the current transaction and command: the
 * statement buffer, or for COPY the bulk path.
 */
static void
write_cells(RowsModify *m, WideCell *cells, int n, CommandId cid, bool deletes)
{
	if (n == 0)
		return;
	/* the one write entry point (write.c): stamps, rollups, hidden versions */
	WideWrite(m->cells, WideGetSchema(m->cells), cells, n,
			  m->bulk ? WIDE_WRITE_BULK : WIDE_WRITE_STATEMENT, cid,
			  deletes ? GetActiveSnapshot() : NULL);
}

/* COPY: write the rows batched so far */
static void
flush_batch(RowsModify *m)
{
	MemoryContext old;

	if (m->nbatch == 0)
		return;
	old = MemoryContextSwitchTo(m->batchcxt);
	write_cells(m, m->batch, m->nbatch, m->batchcid, false);
	MemoryContextSwitchTo(old);
	m->nbatch = 0;
	MemoryContextReset(m->batchcxt);
}

/* the row key of a row whose key columns are in values/isnull */
static void
build_key(RowsModify *m, Datum *values, bool *isnull, StringInfo key)
{
	const WideRowShape *s = m->shape;

	for (int i = s->salt ? 1 : 0; i < s->nparts; i++)
	{
		AttrNumber	a = s->parts[i].attnum;

		if (isnull[a - 1])
			ereport(ERROR,
					(errcode(ERRCODE_NOT_NULL_VIOLATION),
					 errmsg("key column \"%s\" of \"%s\" cannot be NULL",
							get_attname(s->relid, a, false), get_rel_name(s->relid)),
					 errdetail("A row of a row form is found by its key.")));
		if (i > (s->salt ? 1 : 0))
			appendStringInfoChar(key, s->sep);
		WideRowKeyPart(s, i, values[a - 1], key);
	}
	if (s->salt)
		WideRowSaltKey(s, key);
	if (key->len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the row key of a row of \"%s\" is empty", get_rel_name(s->relid)),
				 errdetail("Bigtable row keys are one byte or longer.")));
}

/* the cell timestamp of a row: its time column, or NULL (server time) */
static void
row_time(RowsModify *m, const WideSchema *schema, Datum *values, bool *isnull,
		 Datum *ts, bool *tsnull)
{
	AttrNumber	a = m->shape->ts_attnum;

	*tsnull = true;
	if (a <= 0)
		return;
	if (isnull[a - 1])
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("timestamp column \"%s\" of \"%s\" cannot be NULL",
						get_attname(m->shape->relid, a, false),
						get_rel_name(m->shape->relid))));
	*tsnull = false;
	*ts = schema->tstype == TIMESTAMPTZOID ? values[a - 1] :
		Int64GetDatum(WideTimestampToUnix(DatumGetTimestampTz(values[a - 1])));
}

/* a cell of one value column of a row */
static void
value_cell(RowsModify *m, const WideSchema *schema, Datum keyd, int att,
		   Datum value, Datum ts, bool tsnull, WideCell *cell)
{
	const WideRowCol *col = &m->shape->cols[att - 1];
	Datum		v[5];
	bool		n[5] = {false, false, false, tsnull, false};

	v[0] = keyd;
	v[1] = m->famd;
	v[2] = m->quald[att - 1];
	v[3] = ts;
	v[4] = WideRowValueIn(m->shape, schema, col, value);
	WideCellFromValues(m->cells, schema, v, n, cell);
}

static TupleTableSlot *
rows_insert(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
			TupleTableSlot *planSlot)
{
	RowsModify *m = rinfo->ri_FdwState;
	const WideRowShape *s = m->shape;
	const WideSchema *schema = WideGetSchema(m->cells);
	/*
	 * COPY batches its rows' cells, unless a family has rollups: their
	 * records are made (and may fail) when the cells are written, which must
	 * then be at the row's line.
	 */
	bool		batched = m->bulk && !schema->has_rollups;
	MemoryContext old;
	StringInfo	key = &m->keybuf;
	WideCell   *cells;
	char	   *valbuf = NULL;
	int			n = 0;
	Datum		ts;
	bool		tsnull;
	Datum		keyd;

	if (batched && m->nbatch + Max(s->nvalues, 1) > m->maxbatch)
		flush_batch(m);
	old = MemoryContextSwitchTo(batched ? m->batchcxt : m->cxt);
	cells = batched ? &m->batch[m->nbatch] : palloc(sizeof(WideCell) * Max(s->nvalues, 1));
	/* by-value values of the row's columns, in one allocation */
	if (schema->valbyval && schema->vallen > 0)
		valbuf = palloc(schema->vallen * Max(s->nvalues, 1));
	slot_getallattrs(slot);
	resetStringInfo(key);		/* (the key is copied into keyd) */
	build_key(m, slot->tts_values, slot->tts_isnull, key);
	row_time(m, schema, slot->tts_values, slot->tts_isnull, &ts, &tsnull);
	keyd = PointerGetDatum(cstring_to_text_with_len(key->data, key->len));
	for (int i = 0; i < s->nvalues; i++)
	{
		AttrNumber	a = s->by_qual[i];

		if (slot->tts_isnull[a - 1])
			continue;
		/* the row's key, family and time checked once (cellslot.c) */
		if (n == 0 ||
			!WideCellSibling(m->cells, schema, &cells[0], m->quald[a - 1],
							 WideRowValueIn(s, schema, &s->cols[a - 1],
											slot->tts_values[a - 1]),
							 valbuf ? valbuf + n * schema->vallen : NULL, &cells[n]))
			value_cell(m, schema, keyd, a, slot->tts_values[a - 1], ts, tsnull, &cells[n]);
		n++;
	}
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("a row of \"%s\" needs a value besides its key", get_rel_name(s->relid)),
				 errdetail("Every value column is NULL: the row would have no cell, and would not exist."),
				 errhint("Write at least one column of the family \"%s\".", s->family)));
	if (batched)
	{
		/* a value may point into the slot, which the next row overwrites */
		if (!schema->valbyval)
			for (int i = 0; i < n; i++)
				if (cells[i].value != NULL)
				{
					char	   *v = palloc(Max(cells[i].vallen, 1));

					memcpy(v, cells[i].value, cells[i].vallen);
					cells[i].value = v;
				}
		m->nbatch += n;
		m->batchcid = estate->es_output_cid;
		MemoryContextSwitchTo(old);
		return slot;
	}
	write_cells(m, cells, n, estate->es_output_cid, false);
	MemoryContextSwitchTo(old);
	MemoryContextReset(m->cxt);
	return slot;
}

/* the key (and time) of the row an UPDATE or DELETE names */
static void
junk_key(RowsModify *m, TupleTableSlot *planSlot, StringInfo key)
{
	const WideRowShape *s = m->shape;
	bool		isnull;

	for (int i = s->salt ? 1 : 0; i < s->nparts; i++)
	{
		AttrNumber	a = s->parts[i].attnum;

		m->values[a - 1] = ExecGetJunkAttribute(planSlot, m->junk[i], &isnull);
		m->isnull[a - 1] = isnull;
	}
	if (s->ts_attnum > 0 && !s->ts_in_key)
	{
		m->values[s->ts_attnum - 1] = ExecGetJunkAttribute(planSlot, m->junk[s->nparts],
														   &isnull);
		m->isnull[s->ts_attnum - 1] = isnull;
	}
	build_key(m, m->values, m->isnull, key);
}

/* a tombstone of the row's cells of column att (0: of the family) */
static void
tombstone(RowsModify *m, const WideSchema *schema, StringInfo key, int att,
		  WideCell *c)
{
	const WideRowShape *s = m->shape;
	const WideFamily *f = WideFamilyForWrite(m->cells, schema, s->family, s->famlen);

	memset(c, 0, sizeof(WideCell));
	c->key = pnstrdup(key->data, key->len);
	c->keylen = key->len;
	c->family = s->family;
	c->famlen = s->famlen;
	c->famid = f->id;
	c->qual = "";
	c->ts = 0;
	c->ts_to = PG_INT64_MAX;
	if (att == 0)
		c->kind = WIDE_KIND_DEL_FAMILY;
	else
	{
		c->kind = WIDE_KIND_DEL_CELLS;
		c->qual = s->cols[att - 1].qual;
		c->quallen = s->cols[att - 1].quallen;
		if (s->ts_attnum > 0 && !s->ts_in_key)
		{
			/* the cells of the row's time */
			c->ts = WideTimestampToUnix(DatumGetTimestampTz(m->values[s->ts_attnum - 1]));
			c->ts_to = c->ts + 1;
		}
	}
}

/* delete the row of key (and of the time in m->values), in m->cxt */
static void
delete_row(RowsModify *m, StringInfo key, CommandId cid)
{
	const WideRowShape *s = m->shape;
	const WideSchema *schema = WideGetSchema(m->cells);
	WideCell   *cells = palloc(sizeof(WideCell) * Max(s->nvalues, 1));
	int			n = 0;

	if (s->ts_attnum > 0 && !s->ts_in_key)
		for (int i = 0; i < s->nvalues; i++)
			tombstone(m, schema, key, s->by_qual[i], &cells[n++]);
	else
		tombstone(m, schema, key, 0, &cells[n++]);
	write_cells(m, cells, n, cid, true);
}

static TupleTableSlot *
rows_delete(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
			TupleTableSlot *planSlot)
{
	RowsModify *m = rinfo->ri_FdwState;
	MemoryContext old = MemoryContextSwitchTo(m->cxt);
	StringInfoData key;

	initStringInfo(&key);
	junk_key(m, planSlot, &key);
	delete_row(m, &key, estate->es_output_cid);
	MemoryContextSwitchTo(old);
	MemoryContextReset(m->cxt);
	if (AttributeNumberIsValid(m->wholerow))
	{
		bool		isnull;
		Datum		d = ExecGetJunkAttribute(planSlot, m->wholerow, &isnull);

		if (!isnull)
		{
			HeapTupleHeader td = DatumGetHeapTupleHeader(d);
			HeapTupleData tuple;

			tuple.t_len = HeapTupleHeaderGetDatumLength(td);
			ItemPointerSetInvalid(&tuple.t_self);
			tuple.t_tableOid = RelationGetRelid(rinfo->ri_RelationDesc);
			tuple.t_data = td;
			ExecForceStoreHeapTuple(heap_copytuple(&tuple), slot, true);
		}
	}
	return slot;
}

static TupleTableSlot *
rows_update(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
			TupleTableSlot *planSlot)
{
	RowsModify *m = rinfo->ri_FdwState;
	const WideRowShape *s = m->shape;
	MemoryContext old = MemoryContextSwitchTo(m->cxt);
	const WideSchema *schema = WideGetSchema(m->cells);
	StringInfoData key;
	WideCell   *cells = palloc(sizeof(WideCell) * Max(list_length(m->updated), 1));
	int			nput = 0;
	int			ndel = 0;
	WideCell   *dels = palloc(sizeof(WideCell) * Max(list_length(m->updated), 1));
	ListCell   *lc;
	Datum		ts;
	bool		tsnull;

	initStringInfo(&key);
	junk_key(m, planSlot, &key);
	slot_getallattrs(slot);
	row_time(m, schema, m->values, m->isnull, &ts, &tsnull);
	foreach(lc, m->updated)
	{
		AttrNumber	a = lfirst_int(lc);

		if (s->cols[a - 1].kind == WIDE_COL_KEY || s->cols[a - 1].kind == WIDE_COL_TS)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot update column \"%s\" of \"%s\": it is part of the row's key",
							get_attname(s->relid, a, false), get_rel_name(s->relid)),
					 errhint("Delete the row and insert it with the new key.")));
		if (s->cols[a - 1].kind != WIDE_COL_VALUE)
			continue;
		if (slot->tts_isnull[a - 1])
			tombstone(m, schema, &key, a, &dels[ndel++]);
		else
			value_cell(m, schema, PointerGetDatum(cstring_to_text_with_len(key.data, key.len)),
					   a, slot->tts_values[a - 1], ts, tsnull, &cells[nput++]);
	}
	write_cells(m, dels, ndel, estate->es_output_cid, true);
	write_cells(m, cells, nput, estate->es_output_cid, false);
	MemoryContextSwitchTo(old);
	MemoryContextReset(m->cxt);
	return slot;
}

static void
rows_end_modify(EState *estate, ResultRelInfo *rinfo)
{
	RowsModify *m = rinfo->ri_FdwState;

	if (m == NULL)
		return;
	if (m->bulk)
	{
		flush_batch(m);
		WideWriteEnd(m->cells, WIDE_WRITE_BULK);	/* (reports COPY's phases) */
	}
	table_close(m->cells, NoLock);
	rinfo->ri_FdwState = NULL;
}

/*
 * WideRowsDeleteBegin -- the state of a DELETE of rows of rinfo's form,
 * row by row (rows_delete.c); returns its wide table, opened after
 * checking the user's DELETE privilege on it.
 */
Relation
WideRowsDeleteBegin(ResultRelInfo *rinfo)
{
	return modify_begin(rinfo, CMD_DELETE, false)->cells;
}

/*
 * WideRowsDeleteRow -- delete, as the running command (cid), the row whose
 * columns are in values/isnull (by attnum - 1; its key parts and time are
 * read), as ExecForeignDelete does.
 */
void
WideRowsDeleteRow(ResultRelInfo *rinfo, Datum *values, bool *isnull,
				  CommandId cid)
{
	RowsModify *m = rinfo->ri_FdwState;
	const WideRowShape *s = m->shape;
	MemoryContext old = MemoryContextSwitchTo(m->cxt);
	StringInfoData key;

	for (int i = s->salt ? 1 : 0; i < s->nparts; i++)
	{
		AttrNumber	a = s->parts[i].attnum;

		m->values[a - 1] = values[a - 1];
		m->isnull[a - 1] = isnull[a - 1];
	}
	if (s->ts_attnum > 0)
	{
		m->values[s->ts_attnum - 1] = values[s->ts_attnum - 1];
		m->isnull[s->ts_attnum - 1] = isnull[s->ts_attnum - 1];
	}
	initStringInfo(&key);
	build_key(m, m->values, m->isnull, &key);
	delete_row(m, &key, cid);
	MemoryContextSwitchTo(old);
	MemoryContextReset(m->cxt);
}

/* WideRowsDeleteEnd -- the end of WideRowsDeleteBegin's DELETE */
void
WideRowsDeleteEnd(ResultRelInfo *rinfo)
{
	rows_end_modify(NULL, rinfo);
}

/* WideRowsModifyRoutine -- the write callbacks of the wrapper */
void
WideRowsModifyRoutine(FdwRoutine *r)
{
	r->IsForeignRelUpdatable = rows_updatable;
	r->AddForeignUpdateTargets = rows_add_targets;
	r->PlanForeignModify = rows_plan_modify;
	r->BeginForeignModify = rows_begin_modify;
	r->ExecForeignInsert = rows_insert;
	r->ExecForeignUpdate = rows_update;
	r->ExecForeignDelete = rows_delete;
	r->EndForeignModify = rows_end_modify;
	r->BeginForeignInsert = rows_begin_insert;
	r->EndForeignInsert = rows_end_modify;
}
