/*-------------------------------------------------------------------------
 *
 * cdc.c
 *	  Change data capture: logical decoding of wide tables through a custom
 *	  WAL resource manager.
 *
 * A wide table's pages are logged as Generic WAL, which logical decoding
 * cannot turn into changes.  When the library is in
 * shared_preload_libraries, it registers the resource manager "wide"
 * (WIDE_RMGR_ID) and, while wal_level = logical, every write path hands the
 * cells a user wrote to wide_change_log (engine/writearea.h), once each, in
 * write order: INSERT, COPY, set_cell, add_to_cell, merge_to_cell,
 * mutate_row(s), the delete functions and SQL DELETE.  They are logged as
 * one record per batch (up to WIDE_CDC_RECORD_TARGET bytes), in the writing
 * (sub)transaction, next to the Generic WAL of the pages: the record
 * carries the relfilenode and, for each cell, the heap tuple of the
 * table's row type (row_key, family, qualifier, ts, value).  Flush and
 * compaction only move cells; they log nothing.
 *
 * rm_redo does nothing (the pages are replayed from their Generic WAL);
 * rm_decode queues the changes in the ReorderBuffer as heap_decode does
 * for heap tables, so test_decoding, pgoutput and any output plugin
 * receive them in commit order, with the relation resolved by the
 * relfilenode under the historic snapshot:
 *
 *	- a cell (PUT, ADD, MERGE) is an INSERT of the cell: an AddToCell input
 *	  or a MergeToCell accumulator is the value an INSERT into the family
 *	  would take (see WideCellToValues; an hll input as a sketch of that
 *	  one input), so replaying the INSERT merges it the same way on a wide
 *	  subscriber;
 *	- a tombstone is a DELETE of each cell it removes (row_key, family,
 *	  qualifier, ts; value NULL): a one-version delete (SQL DELETE,
 *	  delete_cells of [t, t + 1)) names its cell, a delete of a scope reads
 *	  its row when written (delete_each_cell).  That is what a subscriber
 *	  keyed on the coordinates can apply.  As for a heap table, the old
 *	  tuple is there only with a replica identity: REPLICA IDENTITY FULL,
 *	  or USING INDEX the unique wide_key index on the coordinates; without
 *	  one there is one DELETE without old tuple, which pgoutput skips.  Every tombstone is then followed by a
 *	  transactional logical message (prefix "wide") giving its exact scope
 *	  as JSON, timestamp range included (docs/replication.md).
 *
 * Without the preload the resource manager does not exist, nothing is
 * logged, and publications stay refused (am/publication.c).
 *
 * IDENTIFICATION
 *	  src/am/cdc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/origin.h"
#include "replication/reorderbuffer.h"
#include "replication/snapbuild.h"
#include "storage/relfilenode.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "engine/format.h"
#include "engine/aggregate.h"
#include "engine/cell.h"
#include "engine/reader.h"
#include "engine/schema.h"
#include "engine/writearea.h"
#include "am/am.h"
#include "am/cdc.h"

/* the only record type: a batch of changes to one relation */
#define XLOG_WIDE_CHANGES		0x00

/* a change in the record */
#define WIDE_CHANGE_INSERT		1	/* a heap tuple: the new cell */
#define WIDE_CHANGE_DELETE		2	/* a heap tuple: the delete's scope */
#define WIDE_CHANGE_MESSAGE		3	/* JSON text: the delete's exact scope */

/* a record is closed once its changes reach this size */
#define WIDE_CDC_RECORD_TARGET	(1024 * 1024)

/* what follows is nchanges times: uint8 action, uint32 len, len bytes */
typedef struct xl_wide_changes
{
	RelFileNode node;
	uint32		nchanges;
} xl_wide_changes;

#define SizeOfWideChanges	(offsetof(xl_wide_changes, nchanges) + sizeof(uint32))
#define SizeOfWideChange	(sizeof(uint8) + sizeof(uint32))

static bool cdc_registered = false;

/*
 * WideCdcAvailable -- can changes to wide tables be decoded: was the
 * resource manager registered (the library is in shared_preload_libraries)?
 */
bool
WideCdcAvailable(void)
{
	return cdc_registered;
}

/* the text of one column of a tuple, for the message */
static void
append_json_attr(StringInfo buf, const char *name, TupleDesc desc, int attno,
				 Datum value, bool isnull)
{
	Oid			typoutput;
	bool		isvarlena;

	appendStringInfo(buf, ", \"%s\": ", name);
	if (isnull)
	{
		appendStringInfoString(buf, "null");
		return;
	}
	getTypeOutputInfo(TupleDescAttr(desc, attno)->atttypid, &typoutput,
					  &isvarlena);
	escape_json(buf, OidOutputFunctionCall(typoutput, value));
}

/* a timestamp of the table's ts type, for the message */
static void
append_json_ts(StringInfo buf, const char *name, const WideSchema *schema,
			   TupleDesc desc, int64 ts, bool isnull)
{
	Datum		d = (schema->tstype == TIMESTAMPTZOID) ?
		TimestampTzGetDatum(WideUnixToTimestamp(ts)) : Int64GetDatum(ts);

	append_json_attr(buf, name, desc, 3, d, isnull);
}

/* the exact scope of a tombstone as JSON */
static char *
tombstone_message(Relation rel, const WideSchema *schema, const WideCell *c,
				  Datum *values, bool *isnull)
{
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData buf;
	const char *what;

	what = c->kind == WIDE_KIND_DEL_ROW ? "row" :
		c->kind == WIDE_KIND_DEL_FAMILY ? "family" : "cells";
	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"delete\": \"%s\", \"table\": ", what);
	escape_json(&buf, quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												 RelationGetRelationName(rel)));
	append_json_attr(&buf, "row_key", desc, 0, values[0], false);
	if (c->kind != WIDE_KIND_DEL_ROW)
		append_json_attr(&buf, "family", desc, 1, values[1], false);
	if (c->kind == WIDE_KIND_DEL_CELLS)
	{
		append_json_attr(&buf, "qualifier", desc, 2, values[2], false);
		append_json_ts(&buf, "ts_from", schema, desc, c->ts, false);
		append_json_ts(&buf, "ts_to", schema, desc, c->ts_to,
					   c->ts_to == WIDE_TS_NO_END);
	}
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* the column values a tombstone's DELETE carries: its scope */
static void
tombstone_values(const WideSchema *schema, const WideCell *c, Datum *values,
				 bool *isnull)
{
	WideCell	coords = *c;
	bool		needed[5] = {true, true, true, false, false};

	coords.kind = WIDE_KIND_PUT;
	if (c->kind == WIDE_KIND_DEL_ROW)
		needed[1] = false;
	if (c->kind == WIDE_KIND_DEL_ROW || c->kind == WIDE_KIND_DEL_FAMILY)
		needed[2] = false;
	if (c->kind == WIDE_KIND_DEL_CELLS && c->ts_to != WIDE_TS_NO_END &&
		c->ts_to == c->ts + 1)
		needed[3] = true;
	coords.key_datum = coords.qual_datum = coords.value_datum = NULL;
	WideCellToValues(schema, &coords, values, isnull, needed);
}

/*
 * An hll input (a hash) becomes a sketch of that one input, a MERGE: what
 * an INSERT into the family merges the same way, where the hash would be
 * taken for a value and hashed again.  So does a ddsketch input (a double
 * in native byte order, which an INSERT would take for a big-endian one).
 */
static void
hll_input_as_sketch(const WideSchema *schema, WideCell *cell)
{
	const WideFamily *f = WideSchemaFindFamily(schema, cell->family,
											   cell->famlen);
	WideAggregate agg;
	WideAcc		acc;
	char	   *sketch;

	if (f == NULL)
		return;
	/* by the cell: a rollup's :hll and :ddsketch cells too */
	agg = WideCellAggregate(f, cell->qual, cell->quallen);
	if (agg != WIDE_AGG_HLL && agg != WIDE_AGG_DDS)
		return;
	WideAccInit(&acc, CurrentMemoryContext);
	WideAccStart(&acc, agg);
	WideAccFold(&acc, WIDE_KIND_ADD, cell->value, cell->vallen);
	cell->vallen = WideAccSize(&acc);
	sketch = palloc(cell->vallen);
	WideAccWrite(&acc, sketch);
	cell->value = sketch;
	cell->kind = WIDE_KIND_MERGE;
}

/* append one change to the record being built */
static void
append_change(StringInfo rec, uint8 action, const char *data, uint32 len)
{
	appendBinaryStringInfo(rec, (const char *) &action, sizeof(uint8));
	appendBinaryStringInfo(rec, (const char *) &len, sizeof(uint32));
	if (len > 0)
		appendBinaryStringInfo(rec, data, len);
}

/* append a heap tuple of the table's row type */
static void
append_tuple(StringInfo rec, uint8 action, TupleDesc desc, Datum *values,
			 bool *isnull)
{
	HeapTuple	tup = heap_form_tuple(desc, values, isnull);

	append_change(rec, action, (const char *) tup->t_data, tup->t_len);
	heap_freetuple(tup);
}

/* is this live cell inside the tombstone's scope? */
static bool
in_scope(const WideCell *t, const WideCell *cell)
{
	if (t->kind == WIDE_KIND_DEL_ROW)
		return true;
	if (cell->famlen != t->famlen ||
		memcmp(cell->family, t->family, t->famlen) != 0)
		return false;
	if (t->kind == WIDE_KIND_DEL_FAMILY)
		return true;
	return cell->quallen == t->quallen &&
		memcmp(cell->qual, t->qual, t->quallen) == 0 &&
		WideTsInRange(cell->ts, t->ts, t->ts_to);
}

/*
 * delete_each_cell -- a delete of a scope (row, family, column range) as a
 * DELETE of each cell it removes, (row_key, family, qualifier, ts) with
 * value NULL: what a subscriber keyed on the coordinates can apply.  The
 * cells are the row's as the latest snapshot shows them, with this
 * transaction's writes so far (this command's included), then those
 * before the tombstone in its own batch (a cell both written and deleted
 * there may get two DELETEs: the second finds nothing to delete).  Returns
 * the number of changes appended.
 */
static int
delete_each_cell(Relation rel, const WideSchema *schema, const WideCell *t,
				 const WideCell *batch, int nbatch, StringInfo rec)
{
	TupleDesc	desc = RelationGetDescr(rel);
	WideKeyRange range;
	Snapshot	snap;
	WideReader *reader;
	const WideCell *cell;
	bool		needed[5] = {true, true, true, true, false};
	int			n = 0;
	int			i;

	memset(&range, 0, sizeof(range));
	range.has_start = range.has_end = true;
	range.start_incl = range.end_incl = true;
	range.is_point = true;
	range.start = range.end = t->key;
	range.startlen = range.endlen = t->keylen;

	snap = RegisterSnapshot(GetLatestSnapshot());
	snap->curcid = GetCurrentCommandId(false) + 1;
	reader = WideReaderBegin(rel, snap, WideReaderNow(), &range);
	while ((cell = WideReaderNext(reader)) != NULL)
	{
		WideCell	coords;
		Datum		values[5];
		bool		isnull[5];

		if (!in_scope(t, cell))
			continue;
		coords = *cell;
		coords.kind = WIDE_KIND_PUT;
		WideCellToValues(schema, &coords, values, isnull, needed);
		append_tuple(rec, WIDE_CHANGE_DELETE, desc, values, isnull);
		n++;
	}
	WideReaderEnd(reader);
	UnregisterSnapshot(snap);

	/* and the cells before it in its own batch, not written yet */
	for (i = 0; i < nbatch; i++)
	{
		WideCell	coords = batch[i];
		Datum		values[5];
		bool		isnull[5];

		if (WIDE_KIND_IS_TOMBSTONE(coords.kind) ||
			coords.keylen != t->keylen ||
			memcmp(coords.key, t->key, t->keylen) != 0 ||
			!in_scope(t, &coords))
			continue;
		coords.kind = WIDE_KIND_PUT;
		coords.key_datum = coords.qual_datum = coords.value_datum = NULL;
		WideCellToValues(schema, &coords, values, isnull, needed);
		append_tuple(rec, WIDE_CHANGE_DELETE, desc, values, isnull);
		n++;
	}
	return n;
}

/* log the changes collected in rec (header included) */
static void
insert_record(StringInfo rec, uint32 nchanges)
{
	xl_wide_changes *hdr = (xl_wide_changes *) rec->data;

	hdr->nchanges = nchanges;
	XLogBeginInsert();
	XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
	XLogRegisterData(rec->data, rec->len);
	XLogInsert(WIDE_RMGR_ID, XLOG_WIDE_CHANGES);
}

/*
 * log_changes -- wide_change_log: log the cells a user wrote to a
 * permanent table while wal_level = logical.
 */
static void
log_changes(Relation rel, const WideCell *cells, int n)
{
	static MemoryContext cxt = NULL;
	MemoryContext old;
	const WideSchema *schema;
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData rec;
	xl_wide_changes hdr;
	uint32		nchanges = 0;
	int			i;

	if (!XLogLogicalInfoActive() || !RelationNeedsWAL(rel))
		return;

	/* the record needs the (sub)transaction's xid */
	(void) GetCurrentTransactionId();

	if (cxt == NULL)
		cxt = AllocSetContextCreate(TopMemoryContext, "wide change log",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	schema = WideGetSchema(rel);

	memset(&hdr, 0, sizeof(hdr));
	hdr.node = rel->rd_node;
	initStringInfo(&rec);
	appendBinaryStringInfo(&rec, (const char *) &hdr, SizeOfWideChanges);

	for (i = 0; i < n; i++)
	{
		const WideCell *c = &cells[i];
		Datum		values[5];
		bool		isnull[5];

		if (WIDE_KIND_IS_TOMBSTONE(c->kind))
		{
			char	   *msg;

			tombstone_values(schema, c, values, isnull);
			/*
			 * As for a heap table: the old tuple only with an identity,
			 * FULL or the unique wide_key index on the coordinates
			 * (am/keyindex.c), which is all it holds anyway.
			 */
			if (rel->rd_rel->relreplident != REPLICA_IDENTITY_FULL &&
				rel->rd_rel->relreplident != REPLICA_IDENTITY_INDEX)
			{
				append_change(&rec, WIDE_CHANGE_DELETE, NULL, 0);
				nchanges++;
			}
			else if (!isnull[3])
			{
				/* one version: the scope is the cell */
				append_tuple(&rec, WIDE_CHANGE_DELETE, desc, values, isnull);
				nchanges++;
			}
			else
				nchanges += delete_each_cell(rel, schema, c, cells, i, &rec);
			msg = tombstone_message(rel, schema, c, values, isnull);
			append_change(&rec, WIDE_CHANGE_MESSAGE, msg, strlen(msg));
			nchanges++;
		}
		else
		{
			WideCell	cell = *c;

			if (cell.value == NULL && cell.vallen > 0)
				elog(ERROR, "wide change of relation \"%s\" without its value",
					 RelationGetRelationName(rel));
			cell.key_datum = cell.qual_datum = cell.value_datum = NULL;
			if (cell.kind == WIDE_KIND_ADD)
				hll_input_as_sketch(schema, &cell);
			WideCellToValues(schema, &cell, values, isnull, NULL);
			append_tuple(&rec, WIDE_CHANGE_INSERT, desc, values, isnull);
			nchanges++;
		}
		if (rec.len >= WIDE_CDC_RECORD_TARGET)
		{
			insert_record(&rec, nchanges);
			rec.len = SizeOfWideChanges;
			nchanges = 0;
		}
	}
	if (nchanges > 0)
		insert_record(&rec, nchanges);
	MemoryContextSwitchTo(old);
	MemoryContextReset(cxt);
}

/* ----------------------------------------------------------------
 *	The resource manager
 * ----------------------------------------------------------------
 */

/* rm_redo: nothing; the pages come back from their Generic WAL */
static void
wide_rm_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info != XLOG_WIDE_CHANGES)
		elog(PANIC, "wide_rm_redo: unknown op code %u", info);
}

/* the header of a record, checked */
static xl_wide_changes
read_header(XLogReaderState *record, const char **data, const char **end)
{
	xl_wide_changes hdr;
	const char *p = XLogRecGetData(record);
	Size		len = XLogRecGetDataLen(record);

	if (len < SizeOfWideChanges)
		elog(ERROR, "wide change record at %X/%X is too short",
			 LSN_FORMAT_ARGS(record->ReadRecPtr));
	memset(&hdr, 0, sizeof(hdr));
	memcpy(&hdr, p, SizeOfWideChanges);
	*data = p + SizeOfWideChanges;
	*end = p + len;
	return hdr;
}

/* the next change of a record: false at its end */
static bool
next_change(XLogReaderState *record, const char **p, const char *end,
			uint8 *action, const char **data, uint32 *len)
{
	if (*p >= end)
		return false;
	if (end - *p < SizeOfWideChange)
		elog(ERROR, "wide change record at %X/%X is truncated",
			 LSN_FORMAT_ARGS(record->ReadRecPtr));
	memcpy(action, *p, sizeof(uint8));
	memcpy(len, *p + sizeof(uint8), sizeof(uint32));
	*p += SizeOfWideChange;
	if ((Size) (end - *p) < *len)
		elog(ERROR, "wide change record at %X/%X is truncated",
			 LSN_FORMAT_ARGS(record->ReadRecPtr));
	*data = *p;
	*p += *len;
	return true;
}

/* rm_desc, for pg_waldump and the like */
static void
wide_rm_desc(StringInfo buf, XLogReaderState *record)
{
	xl_wide_changes hdr;
	const char *p;
	const char *end;
	uint8		action;
	const char *data;
	uint32		len;
	int			inserts = 0,
				deletes = 0;

	hdr = read_header(record, &p, &end);
	while (next_change(record, &p, end, &action, &data, &len))
	{
		if (action == WIDE_CHANGE_INSERT)
			inserts++;
		else if (action == WIDE_CHANGE_DELETE)
			deletes++;
	}
	appendStringInfo(buf, "rel %u/%u/%u; %d cells, %d deletes",
					 hdr.node.spcNode, hdr.node.dbNode, hdr.node.relNode,
					 inserts, deletes);
}

/* rm_identify */
static const char *
wide_rm_identify(uint8 info)
{
	if ((info & ~XLR_INFO_MASK) == XLOG_WIDE_CHANGES)
		return "CHANGES";
	return NULL;
}

/* a heap tuple of the record as a ReorderBuffer tuple */
static ReorderBufferTupleBuf *
decode_tuple(ReorderBuffer *rb, XLogReaderState *record, const char *data,
			 uint32 len)
{
	ReorderBufferTupleBuf *tuple;

	if (len < SizeofHeapTupleHeader)
		elog(ERROR, "wide change record at %X/%X holds a malformed tuple",
			 LSN_FORMAT_ARGS(record->ReadRecPtr));
	tuple = ReorderBufferGetTupleBuf(rb, len - SizeofHeapTupleHeader);
	memcpy(tuple->tuple.t_data, data, len);
	tuple->tuple.t_len = len;
	ItemPointerSetInvalid(&tuple->tuple.t_self);
	tuple->tuple.t_tableOid = InvalidOid;
	return tuple;
}

/*
 * wide_rm_decode -- queue a record's changes in the ReorderBuffer, as
 * heap_decode does for a heap insert or delete.
 */
static void
wide_rm_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	XLogReaderState *r = buf->record;
	TransactionId xid = XLogRecGetXid(r);
	uint8		info = XLogRecGetInfo(r) & ~XLR_INFO_MASK;
	xl_wide_changes hdr;
	const char *p;
	const char *end;
	uint8		action;
	const char *data;
	uint32		len;

	ReorderBufferProcessXid(ctx->reorder, xid, buf->origptr);

	/* no snapshot yet, or fast-forwarding: nothing to decode */
	if (SnapBuildCurrentState(ctx->snapshot_builder) < SNAPBUILD_FULL_SNAPSHOT ||
		ctx->fast_forward)
		return;
	if (info != XLOG_WIDE_CHANGES)
		elog(ERROR, "unexpected wide WAL record type: %u", info);

	hdr = read_header(r, &p, &end);
	/* only our database, and origins the plugin wants */
	if (hdr.node.dbNode != ctx->slot->data.database)
		return;
	if (ctx->callbacks.filter_by_origin_cb &&
		filter_by_origin_cb_wrapper(ctx, XLogRecGetOrigin(r)))
		return;
	if (!SnapBuildProcessChange(ctx->snapshot_builder, xid, buf->origptr))
		return;

	while (next_change(r, &p, end, &action, &data, &len))
	{
		ReorderBufferChange *change;

		if (action == WIDE_CHANGE_MESSAGE)
		{
			char	   *msg = palloc(len + 1);

			memcpy(msg, data, len);
			msg[len] = '\0';
			ReorderBufferQueueMessage(ctx->reorder, xid, NULL, buf->origptr,
									  true, "wide", len, msg);
			pfree(msg);
			continue;
		}
		if (action != WIDE_CHANGE_INSERT && action != WIDE_CHANGE_DELETE)
			elog(ERROR, "wide change record at %X/%X holds a change of unknown kind %u",
				 LSN_FORMAT_ARGS(r->ReadRecPtr), action);

		change = ReorderBufferGetChange(ctx->reorder);
		change->origin_id = XLogRecGetOrigin(r);
		memcpy(&change->data.tp.relnode, &hdr.node, sizeof(RelFileNode));
		if (action == WIDE_CHANGE_INSERT)
		{
			change->action = REORDER_BUFFER_CHANGE_INSERT;
			change->data.tp.newtuple = decode_tuple(ctx->reorder, r, data, len);
		}
		else
		{
			change->action = REORDER_BUFFER_CHANGE_DELETE;
			/* no old tuple without REPLICA IDENTITY FULL, as for heap */
			if (len > 0)
				change->data.tp.oldtuple = decode_tuple(ctx->reorder, r,
														data, len);
		}
		change->data.tp.clear_toast_afterwards = true;
		ReorderBufferQueueChange(ctx->reorder, xid, buf->origptr, change,
								 false);
	}
}

static RmgrData wide_rmgr = {
	.rm_name = "wide",
	.rm_redo = wide_rm_redo,
	.rm_desc = wide_rm_desc,
	.rm_identify = wide_rm_identify,
	.rm_decode = wide_rm_decode
};

/*
 * WideInstallCdc -- called from _PG_init: when the library is being
 * preloaded, register the resource manager and log changes.
 */
void
WideInstallCdc(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	RegisterCustomRmgr(WIDE_RMGR_ID, &wide_rmgr);
	cdc_registered = true;
	wide_change_log = log_changes;
}

/*
 * WideCdcLogDrop -- wide.drop_before: while wal_level = logical, a
 * transactional message with its scope, {"delete": "before", "table": ...,
 * "family": ... or null, "ts_to": ...}; no DELETE of each cell (that would
 * cost a read of the table, which the drop exists to avoid).
 */
void
WideCdcLogDrop(Relation rel, const char *family, int64 before)
{
	const WideSchema *schema;
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData rec;
	StringInfoData msg;
	xl_wide_changes hdr;

	if (!XLogLogicalInfoActive() || !RelationNeedsWAL(rel))
		return;
	(void) GetCurrentTransactionId();
	schema = WideGetSchema(rel);
	initStringInfo(&msg);
	appendStringInfoString(&msg, "{\"delete\": \"before\", \"table\": ");
	escape_json(&msg, quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												 RelationGetRelationName(rel)));
	appendStringInfoString(&msg, ", \"family\": ");
	if (family)
		escape_json(&msg, family);
	else
		appendStringInfoString(&msg, "null");
	append_json_ts(&msg, "ts_to", schema, desc, before, false);
	appendStringInfoChar(&msg, '}');

	memset(&hdr, 0, sizeof(hdr));
	hdr.node = rel->rd_node;
	initStringInfo(&rec);
	appendBinaryStringInfo(&rec, (const char *) &hdr, SizeOfWideChanges);
	append_change(&rec, WIDE_CHANGE_MESSAGE, msg.data, msg.len);
	insert_record(&rec, 1);
}
