/*-------------------------------------------------------------------------
 *
 * scan_node.h
 *	  The Wide Scan's parts, private to them: the kinds of bounds a plan
 *	  carries (custom_private), what the planner matches (WideMatch), the
 *	  executor's state (WideScanState), and the functions the parts call:
 *	  paths and plans (customscan.c), conditions matched to bounds
 *	  (scan_match.c), the executor (scan_exec.c), bounds evaluated into key
 *	  ranges (scan_range.c), EXPLAIN (scan_explain.c).
 *
 * IDENTIFICATION
 *	  src/am/scan_node.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SCAN_NODE_H
#define WIDE_SCAN_NODE_H

#include "commands/explain.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/reader.h"
#include "am/am.h"
#include "am/scan.h"
#include "am/scan_tswindow.h"
#include "am/scan_parallel.h"

/* kinds of bounds, in custom_private, one per custom_exprs entry */
#define BOUND_EQ		1
#define BOUND_LT		2
#define BOUND_LE		3
#define BOUND_GT		4
#define BOUND_GE		5
#define BOUND_PREFIX	6		/* expr is the LIKE pattern */
#define BOUND_IN		7		/* expr is an array of keys */
#define BOUND_STARTS	8		/* expr is a prefix of the keys */
#define BOUND_IPREFIX_C	9		/* expr is an ILIKE pattern, "C" collation */
#define BOUND_IPREFIX	10		/* expr is an ILIKE pattern, other collation */
/* not bounds of the key: sets of the families and qualifiers kept */
#define FILTER_FAMILY	11		/* expr is a family */
#define FILTER_FAMILY_IN 12		/* expr is an array of families */
#define FILTER_QUAL		13		/* expr is a qualifier */
#define FILTER_QUAL_IN	14		/* expr is an array of qualifiers */
#define IS_FILTER(kind)	((kind) >= FILTER_FAMILY && (kind) <= FILTER_QUAL_IN)
#define BOUND_ICASE		15		/* expr is a prefix, ASCII letters in any case */
/*
 * An OR of key conditions: BOUND_OR, then per arm BOUND_ARM followed by the
 * arm's bounds (comparisons, =, LIKE and starts_with prefixes, IN lists),
 * then BOUND_OR_END; the markers' exprs are placeholders.  The scan reads
 * the union of the arms' ranges, sorted and merged (WideKeyRangesNormalize).
 */
#define BOUND_OR		16
#define BOUND_ARM		17
#define BOUND_OR_END	18
#define IS_MARKER(kind)	((kind) >= BOUND_OR && (kind) <= BOUND_OR_END)
/* split_part(row_key, sep, 1) = x: BOUND_SEP (expr: sep), then BOUND_SPLIT */
#define BOUND_SEP		19		/* expr is the one-byte separator */
#define BOUND_SPLIT		20		/* expr is the first key part */
#define BOUND_SPLIT_IN	21		/* expr is an array of first key parts */

typedef struct WideScanState
{
	CustomScanState css;
	List	   *bound_kinds;	/* BOUND_* per bound expression */
	List	   *bound_exprs;	/* ExprState per bound expression */
	List	   *bound_types;	/* type of each bound (of its elements for IN) */
	WideReader *reader;
	WideReverseReader *rreader; /* the reader of a backward scan */
	bool		backward;		/* rows last first: engine/reverse.c */
	MemoryContext tupcxt;
	MemoryContext keycxt;		/* the keys of the current (re)scan */
	MemoryContext readcxt;		/* the open reader's memory */
	/* point reads: the keys of row_key = ANY(...), sorted, and the next one */
	WideBytes  *keys;
	int			nkeys;
	int			nextkey;
	bool		started;		/* bounds evaluated */
	bool		empty;			/* the bounds exclude every row */
	WideKeyRange range;
	WideColumnFilter columns;	/* the families and qualifiers kept */
	/* ILIKE: one range per case variant of a prefix, sorted, and the next */
	WideBytes  *prefixes;
	int			nprefixes;
	int			nextprefix;
	/* OR arms, key parts: a list of ranges, normalized, and the next one */
	bool		has_ranges;
	WideKeyRange *ranges;
	int			nranges;
	int			nextrange;
	StringInfoData prefix_end;
	StringInfoData lo;
	StringInfoData hi;
	WideReaderStats stats;
	List	   *ts_kinds;		/* the window of timestamps (scan_tswindow.c) */
	List	   *ts_exprs;
	WideTsWindow window;
	bool		needed[5];		/* columns the plan uses */
	bool		tupcxt_used;
	WideAggMemo aggmemo;		/* WideCellToValuesMemo's */
	int			for_delete;		/* WideDeleteTracking: a running DELETE's target */
	/* the whole of a DELETE, as one range tombstone (am/rangedel.c) */
	bool		range_delete;	/* planned so */
	bool		rd_tried;
	bool		rd_done;		/* done so: the scan returns nothing */
	uint64		rd_cells;		/* cells it deleted */
	int			rd_tombstones;	/* of rows or ranges, for a list (0: one
								 * range) */
	const WideSchema *schema;	/* copied at the start of the scan */
	/* parallel scans (scan_parallel.c) */
	WideParallelScan *pscan;	/* the shared state, or NULL: read it all */
	WideSplitKey *splits;		/* the leader's split keys, in splitcxt */
	MemoryContext splitcxt;
	int			nsplits;
	StringInfoData plo;			/* the bounds of the current stretch */
	StringInfoData phi;
	WideReaderStats wstats;		/* the workers', for EXPLAIN ANALYZE */
} WideScanState;

/* what the clauses of one path push down into the scan */
typedef struct WideMatch
{
	Index		relid;
	Oid			keytype;
	TupleDesc	desc;
	List	   *kinds;			/* BOUND_* and FILTER_* */
	List	   *exprs;			/* their expressions */
	List	   *sels;			/* clauses whose selectivity is the range's */
	bool		has_range;		/* some bound narrows the keys */
	double		nseeks;			/* ranges or keys the scan seeks to */
} WideMatch;

/* scan_match.c: conditions on a wide table as bounds of its keys */
extern bool WideScanIsRowKey(Node *expr, Index relid);
extern bool WideScanSplitPartSep(Node *expr, Index relid, char *sep);
extern bool WideScanMatchClause(WideMatch *m, Expr *clause, bool *exact);
extern Oid	WideScanSortOperator(Oid type, int16 strategy);
extern void WideScanMatchDefineSettings(void);

/* scan_exec.c: the executor */
extern Node *WideScanCreateState(CustomScan *cscan);

/* scan_range.c: the bounds, evaluated, as key ranges */
extern void WideScanComputeRange(WideScanState *s);
extern bool WideScanNextPrefixRange(WideScanState *s, WideKeyRange *r);

/* scan_explain.c */
extern void WideScanExplain(CustomScanState *node, List *ancestors,
							ExplainState *es);

#endif							/* WIDE_SCAN_NODE_H */
