/*-------------------------------------------------------------------------
 *
 * read_scan.c
 *	  "Wide Read Rows", the executor's part: a call of wide.read_rows or
 *	  wide.read_row in FROM, planned by am/scan_read.c, read as a stream.
 *
 * The scan evaluates the call's arguments when it starts and on every
 * rescan (outer references of a LATERAL call are parameters of the nested
 * loop), checks the right to call the function as the Function Scan
 * would, and opens the same iterator the functions use (read.c): row set,
 * row filter, limit and reversal are all inside the read.  Each cell is
 * returned as it is read, only the columns the plan uses converted.
 * EXPLAIN shows what the plan reads (am/scan_read.c), and with ANALYZE the
 * reads, runs and blocks.  The planner (am/) reaches this executor only
 * through the function WideInstallReadScan registers with it.
 *
 * IDENTIFICATION
 *	  src/api/read_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/sysattr.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "engine/cell.h"
#include "engine/reader.h"
#include "engine/schema.h"
#include "am/am.h"
#include "am/plan_cost.h"
#include "am/scan.h"
#include "api/api.h"
#include "api/readiter.h"

static Node *create_read_scan_state(CustomScan *cscan);
static void begin_read_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_read_scan(CustomScanState *node);
static void end_read_scan(CustomScanState *node);
static void rescan_read_scan(CustomScanState *node);
static void explain_read_scan(CustomScanState *node, List *ancestors,
							  ExplainState *es);

static const CustomExecMethods read_exec_methods = {
	.CustomName = "WideReadRows",
	.BeginCustomScan = begin_read_scan,
	.ExecCustomScan = exec_read_scan,
	.EndCustomScan = end_read_scan,
	.ReScanCustomScan = rescan_read_scan,
	.ExplainCustomScan = explain_read_scan,
};

typedef struct ReadScanState
{
	CustomScanState css;
	int			kind;			/* WIDE_READ_FN_ROWS, WIDE_READ_FN_ROW or WIDE_READ_FN_LABELED */
	Oid			funcid;
	Oid			rowtype;		/* of the table argument */
	List	   *args;			/* ExprState of each argument */
	Oid		   *argtypes;		/* the type of each argument */
	int16	   *arglens;		/* typlen and typbyval of each argument */
	bool	   *argbyval;
	Relation	rel;			/* opened by the first start */
	const WideSchema *schema;
	WideReadIter *it;
	MemoryContext argcxt;		/* the arguments and read of this (re)scan */
	bool		started;
	bool		needed[5];		/* columns the plan uses */
	WideReaderStats stats;		/* of the reads of earlier (re)scans */
	int64		reads;			/* (re)scans started */
	bool		ts_window;		/* a read had a time window (time pruning) */
	/* read_rows_labeled: the cell as a record, its labels */
	TupleDesc	celldesc;
	MemoryContext outcxt;		/* the last (cell, labels) */
} ReadScanState;

/* ----------------------------------------------------------------
 *	Execution
 * ----------------------------------------------------------------
 */

static Node *
create_read_scan_state(CustomScan *cscan)
{
	ReadScanState *s = (ReadScanState *) newNode(sizeof(ReadScanState),
												 T_CustomScanState);

	s->css.methods = &read_exec_methods;
	s->kind = linitial_int(cscan->custom_private);
	s->funcid = lsecond_int(cscan->custom_private);
	s->rowtype = lthird_int(cscan->custom_private);
	return (Node *) s;
}

static void
begin_read_scan(CustomScanState *node, EState *estate, int eflags)
{
	ReadScanState *s = (ReadScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Bitmapset  *attrs = NULL;
	AclResult	aclresult;
	ListCell   *lc;
	int			i;

	/* what the Function Scan would check: the right to call the function */
	aclresult = pg_proc_aclcheck(s->funcid, GetUserId(), ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(s->funcid));
	InvokeFunctionExecuteHook(s->funcid);

	s->args = ExecInitExprList(cscan->custom_exprs, &node->ss.ps);
	s->arglens = palloc(sizeof(int16) * Max(list_length(cscan->custom_exprs), 1));
	s->argbyval = palloc(sizeof(bool) * Max(list_length(cscan->custom_exprs), 1));
	i = 0;
	s->argtypes = palloc(sizeof(Oid) * Max(list_length(cscan->custom_exprs), 1));
	foreach(lc, cscan->custom_exprs)
	{
		s->argtypes[i] = exprType(lfirst(lc));
		get_typlenbyval(s->argtypes[i], &s->arglens[i], &s->argbyval[i]);
		i++;
	}
	pull_varattnos((Node *) cscan->scan.plan.targetlist, INDEX_VAR, &attrs);
	pull_varattnos((Node *) cscan->scan.plan.qual, INDEX_VAR, &attrs);
	for (i = 0; i < 5; i++)
		s->needed[i] = s->kind == WIDE_READ_FN_LABELED ||
			bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber, attrs) ||
			bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	if (s->kind == WIDE_READ_FN_LABELED)
	{
		s->celldesc = lookup_rowtype_tupdesc_copy(s->rowtype, -1);
		s->outcxt = AllocSetContextCreate(estate->es_query_cxt, "wide read scan cell",
										  ALLOCSET_SMALL_SIZES);
	}
	s->argcxt = AllocSetContextCreate(estate->es_query_cxt, "wide read scan",
									  ALLOCSET_DEFAULT_SIZES);
}

/* end the read of the current (re)scan */
static void
end_read(ReadScanState *s)
{
	WideReaderStats st;

	if (s->it == NULL)
		return;
	st = WideReadGetStats(s->it);
	s->stats.runs_read += st.runs_read;
	s->stats.blocks_read += st.blocks_read;
	s->stats.records += st.records;
	s->stats.cells += st.cells;
	s->stats.blocks_skipped += st.blocks_skipped;
	s->stats.index_skipped += st.index_skipped;
	s->stats.records_skipped += st.records_skipped;
	s->stats.blocks_column_skipped += st.blocks_column_skipped;
	s->ts_window |= WideReadTsWindow(s->it);
	WideReadEnd(s->it);
	s->it = NULL;
}

/* evaluate the arguments and start the read */
static void
start_read(ReadScanState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	EState	   *estate = s->css.ss.ps.state;
	Datum		args[WIDE_READ_ROWS_NARGS];
	bool		nulls[WIDE_READ_ROWS_NARGS];
	WideReadSpec spec;
	ListCell   *lc;
	MemoryContext old;
	Oid			relid;
	int			i = 0;

	end_read(s);
	MemoryContextReset(s->argcxt);

	/* evaluated in per-tuple memory, kept in argcxt until the next start */
	ResetExprContext(econtext);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	foreach(lc, s->args)
	{
		args[i] = ExecEvalExpr((ExprState *) lfirst(lc), econtext, &nulls[i]);
		i++;
	}
	MemoryContextSwitchTo(s->argcxt);
	for (i = 0; i < list_length(s->args); i++)
		if (!nulls[i])
			args[i] = datumCopy(args[i], s->argbyval[i], s->arglens[i]);

	relid = WideReadTable(s->rowtype);
	WideReadSpecFromArgs(s->kind == WIDE_READ_FN_ROW, args, nulls, s->argtypes, &spec);
	if (s->rel == NULL)
	{
		MemoryContextSwitchTo(estate->es_query_cxt);
		s->rel = WideOpenTableRead(WideReadFunctionName(s->kind), relid, AccessShareLock);
		s->schema = WideSchemaCopy(s->rel);
		MemoryContextSwitchTo(s->argcxt);
	}
	s->it = WideReadBegin(s->rel, s->schema, estate->es_snapshot, &spec, s->needed);
	MemoryContextSwitchTo(old);
	s->reads++;
}

static TupleTableSlot *
read_scan_next(ScanState *ss)
{
	ReadScanState *s = (ReadScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	const WideRowOut *out;

	ExecClearTuple(slot);
	if (s->kind != WIDE_READ_FN_LABELED)
	{
		if (!WideReadNext(s->it, slot->tts_values, slot->tts_isnull, &out))
			return slot;
	}
	else
	{
		Datum		values[5];
		bool		nulls[5];
		Datum	   *labels;
		const WideLabel *l;
		int			n,
					i;
		MemoryContext old;

		MemoryContextReset(s->outcxt);
		if (!WideReadNext(s->it, values, nulls, &out))
			return slot;
		old = MemoryContextSwitchTo(s->outcxt);
		slot->tts_values[0] = HeapTupleGetDatum(heap_form_tuple(s->celldesc, values, nulls));
		n = out ? out->nlabels : 0;
		labels = palloc(sizeof(Datum) * Max(n, 1));
		/* the list has the last label first; the array, the first */
		for (i = n - 1, l = out ? out->labels : NULL; i >= 0; i--, l = l->prev)
			labels[i] = CStringGetTextDatum(l->label);
		slot->tts_values[1] = PointerGetDatum(construct_array(labels, n, TEXTOID, -1, false,
															  TYPALIGN_INT));
		slot->tts_isnull[0] = slot->tts_isnull[1] = false;
		MemoryContextSwitchTo(old);
	}
	return ExecStoreVirtualTuple(slot);
}

static bool
read_scan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_read_scan(CustomScanState *node)
{
	ReadScanState *s = (ReadScanState *) node;

	if (!s->started)
	{
		start_read(s);
		s->started = true;
	}
	return ExecScan(&node->ss, (ExecScanAccessMtd) read_scan_next,
					(ExecScanRecheckMtd) read_scan_recheck);
}

static void
end_read_scan(CustomScanState *node)
{
	ReadScanState *s = (ReadScanState *) node;

	end_read(s);
	if (s->rel)
		relation_close(s->rel, NoLock);
	s->rel = NULL;
}

static void
rescan_read_scan(CustomScanState *node)
{
	ReadScanState *s = (ReadScanState *) node;

	/* the arguments may have changed: evaluated again at the next fetch */
	end_read(s);
	s->started = false;
}

static void
explain_read_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ReadScanState *s = (ReadScanState *) node;

	WideReadScanExplainPlan(node, ancestors, es);
	if (es->analyze)
	{
		WideReaderStats st = s->stats;

		if (s->it)
		{
			WideReaderStats cur = WideReadGetStats(s->it);

			st.runs_read += cur.runs_read;
			st.blocks_read += cur.blocks_read;
			st.records += cur.records;
			st.blocks_skipped += cur.blocks_skipped;
			st.index_skipped += cur.index_skipped;
			st.records_skipped += cur.records_skipped;
			st.blocks_column_skipped += cur.blocks_column_skipped;
		}
		ExplainPropertyInteger("Reads", NULL, s->reads, es);
		ExplainPropertyInteger("Runs Read", NULL, st.runs_read, es);
		ExplainPropertyInteger("Blocks Read", NULL, st.blocks_read, es);
		if (s->ts_window || (s->it && WideReadTsWindow(s->it)))
		{
			ExplainPropertyInteger("Blocks Skipped by ts", NULL, st.blocks_skipped, es);
			ExplainPropertyInteger("Index Blocks Skipped by ts", NULL, st.index_skipped, es);
		}
		ExplainPropertyInteger("Records Merged", NULL, st.records, es);
		/* records of columns that had their cells (WideReaderLatest) */
		if (st.records_skipped > 0)
		{
			ExplainPropertyInteger("Records Skipped", NULL, st.records_skipped, es);
			ExplainPropertyInteger("Blocks Skipped", NULL, st.blocks_column_skipped, es);
		}
	}
}

/*
 * WideInstallReadScan -- install the scan's planner (am/scan_read.c) with
 * this executor (from _PG_init).
 */
void
WideInstallReadScan(void)
{
	WideInstallReadScanPlanner(create_read_scan_state);
}
