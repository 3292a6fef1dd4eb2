/*-------------------------------------------------------------------------
 *
 * scan_explain.c
 *	  The Wide Scan's EXPLAIN: the key range, lists, columns and window of
 *	  timestamps it reads, and with ANALYZE what it read.
 *
 *	  WideScanExplain -- the ExplainCustomScan method
 *
 * IDENTIFICATION
 *	  src/am/scan_explain.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "access/sysattr.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "am/am.h"
#include "am/plan_clause.h"
#include "am/plan_cost.h"
#include "am/scan.h"
#include "am/scan_tswindow.h"
#include "am/scan_parallel.h"
#include "am/scan_agg.h"
#include "am/scan_node.h"

void
WideScanExplain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WideScanState *s = (WideScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context = NIL;
	ListCell   *lk,
			   *le;
	StringInfoData keys,
				fams,
				quals,
				arm;
	bool		in_or = false;
	int			narms = 0;
	int			arm_bounds = 0;
	char	   *sep = "";

	/* the key range, then the families and qualifiers kept */
	initStringInfo(&keys);
	initStringInfo(&fams);
	initStringInfo(&quals);
	if (cscan->custom_exprs != NIL)
		context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
										   ancestors);
	initStringInfo(&arm);
	forboth(lk, s->bound_kinds, le, cscan->custom_exprs)
	{
		static const char *const names[] = {
			"", "row_key =", "row_key <", "row_key <=", "row_key >",
			"row_key >=", "prefix of row_key LIKE", "row_key = ANY",
			"row_key ^@", "prefix of row_key ILIKE", "prefix of row_key ILIKE",
			"family =", "family = ANY", "qualifier =", "qualifier = ANY",
			"row_key ^@ any case of", "", "", "", "", "=", "= ANY"
		};
		int			kind = lfirst_int(lk);
		StringInfo	buf = kind == FILTER_FAMILY || kind == FILTER_FAMILY_IN ? &fams :
			kind == FILTER_QUAL || kind == FILTER_QUAL_IN ? &quals :
			in_or ? &arm : &keys;

		/* an OR: (arm OR arm ...), an arm of several bounds parenthesized */
		if (kind == BOUND_OR)
		{
			if (keys.len > 0)
				appendStringInfoString(&keys, " AND ");
			appendStringInfoChar(&keys, '(');
			in_or = true;
			narms = 0;
			resetStringInfo(&arm);
			continue;
		}
		if (kind == BOUND_ARM || kind == BOUND_OR_END)
		{
			if (narms > 0)
				appendStringInfo(&keys, "%s%s%s%s", narms > 1 ? " OR " : "",
								 arm_bounds > 1 ? "(" : "", arm.data,
								 arm_bounds > 1 ? ")" : "");
			resetStringInfo(&arm);
			arm_bounds = 0;
			narms++;
			if (kind == BOUND_OR_END)
			{
				appendStringInfoString(&keys, narms == 1 ? "none)" : ")");
				in_or = false;
			}
			continue;
		}
		if (kind == BOUND_SEP)
		{
			sep = deparse_expression(lfirst(le), context, false, false);
			continue;
		}
		if (buf->len > 0)
			appendStringInfoString(buf, " AND ");
		if (buf == &arm)
			arm_bounds++;
		if (kind == BOUND_SPLIT || kind == BOUND_SPLIT_IN)
			appendStringInfo(buf, "split_part(row_key, %s, 1) ", sep);
		appendStringInfo(buf, "%s %s", names[kind],
						 deparse_expression(lfirst(le), context, false, false));
	}
	ExplainPropertyText("Row Keys", keys.len > 0 ? keys.data : "all", es);
	if (fams.len > 0)
		ExplainPropertyText("Families", fams.data, es);
	if (quals.len > 0)
		ExplainPropertyText("Qualifiers", quals.data, es);
	if (s->backward)
		ExplainPropertyText("Scan Direction", "Backward", es);
	if (s->range_delete)
		ExplainPropertyText("Range Delete",
							!es->analyze ? "planned" :
							!s->rd_done ? "cell by cell" :
							s->rd_tombstones == 0 ?
							psprintf("one range tombstone, " UINT64_FORMAT " cells", s->rd_cells) :
							psprintf("%d row or range tombstones, " UINT64_FORMAT " cells",
									 s->rd_tombstones, s->rd_cells), es);
	WideTsWindowExplain(&node->ss.ps, s->ts_kinds,
						list_copy_tail(cscan->custom_exprs, list_length(s->bound_kinds)),
						ancestors, es);
	if (es->analyze)
	{
		WideReaderStats st = s->stats;

		if (s->reader || s->rreader)
		{
			WideReaderStats cur = s->reader ? WideReaderGetStats(s->reader) :
				WideReverseGetStats(s->rreader);

			st.runs_read += cur.runs_read;
			st.blocks_read += cur.blocks_read;
			st.blocks_kept += cur.blocks_kept;
			st.blocks_skipped += cur.blocks_skipped;
			st.index_skipped += cur.index_skipped;
			st.records += cur.records;
		}
		st.runs_read += s->wstats.runs_read;
		st.blocks_read += s->wstats.blocks_read;
		st.records += s->wstats.records;
		ExplainPropertyInteger("Runs Read", NULL, st.runs_read, es);
		ExplainPropertyInteger("Blocks Read", NULL, st.blocks_read, es);
		/* (of a serial scan: a parallel one's workers keep their own) */
		if (es->verbose && !node->ss.ps.plan->parallel_aware)
			ExplainPropertyInteger("Blocks Cached", NULL, st.blocks_kept, es);
		if (s->ts_kinds)
		{
			ExplainPropertyInteger("Blocks Skipped by ts", NULL, st.blocks_skipped, es);
			ExplainPropertyInteger("Index Blocks Skipped by ts", NULL, st.index_skipped, es);
		}
		ExplainPropertyInteger("Records Merged", NULL, st.records, es);
		/* a parallel scan: its key range was cut into this many stretches */
		if (s->nsplits >= 0 && node->ss.ps.plan->parallel_aware && s->splitcxt)
			ExplainPropertyInteger("Stretches", NULL, s->nsplits + 1, es);
	}
}
