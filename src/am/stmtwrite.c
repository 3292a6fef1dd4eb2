/*-------------------------------------------------------------------------
 *
 * stmtwrite.c
 *	  When a statement's writes end: the executor nesting level for the
 *	  statement buffer of engine/pending.c.
 *
 * INSERT and the wide.* mutations running inside a query hand their cells
 * to the engine's statement buffer, tagged with the executor nesting level
 * (1 for a top-level query, one more for each query run inside one: SPI,
 * SQL functions, triggers).  When a query's run returns, and when it
 * finishes (ExecutorFinish, before its AFTER triggers and again after them;
 * and at ExecutorEnd), the cells of levels deeper than the one it runs at
 * are written.  A utility statement
 * first writes whatever is pending (a TRUNCATE, ALTER TABLE or COPY of the
 * table sees it written).  Writes outside any query (level 0: ALTER
 * TABLE's rewrite, a DO block's PERFORM) are appended at once.
 *
 * When a top-level statement (no query or utility statement around it)
 * ends well, it reports the cells it wrote that their family's policy
 * collected at once (policynote.c).
 *
 * IDENTIFICATION
 *	  src/am/stmtwrite.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "executor/executor.h"
#include "tcop/utility.h"
#include "utils/rel.h"

#include "engine/writearea.h"
#include "am/am.h"

static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

static int	exec_level = 0;
static int	utility_level = 0;	/* utility statements running */

/* a top-level statement ended well: what it says about its cells */
static void
statement_ended(void)
{
	if (exec_level == 0 && utility_level == 0)
		WidePolicyNoteReport();	/* policynote.c */
}

/* write the cells pending from statements deeper than level */
static void
write_pending_above(int level)
{
	Oid			relid = WidePendingRelation(level);

	if (OidIsValid(relid))
	{
		Relation	rel = relation_open(relid, NoLock);

		WideMaybeFlush(rel, WidePendingWrite(rel));
		relation_close(rel, NoLock);
	}
}

static void
wide_ExecutorRun(QueryDesc *query, ScanDirection direction, uint64 count,
				 bool execute_once)
{
	int			saved = exec_level;

	exec_level++;
	PG_TRY();
	{
		if (prev_ExecutorRun)
			prev_ExecutorRun(query, direction, count, execute_once);
		else
			standard_ExecutorRun(query, direction, count, execute_once);
	}
	PG_FINALLY();
	{
		exec_level = saved;
	}
	PG_END_TRY();
	/* what this run wrote (a cursor's fetch too) */
	write_pending_above(saved);
}

static void
wide_ExecutorFinish(QueryDesc *query)
{
	int			saved = exec_level;

	/* the statement's own cells, before its AFTER triggers run */
	write_pending_above(saved);
	exec_level++;
	PG_TRY();
	{
		if (prev_ExecutorFinish)
			prev_ExecutorFinish(query);
		else
			standard_ExecutorFinish(query);
	}
	PG_FINALLY();
	{
		exec_level = saved;
	}
	PG_END_TRY();
	/* and those of its AFTER triggers */
	write_pending_above(saved);
}

static void
wide_ExecutorEnd(QueryDesc *query)
{
	write_pending_above(exec_level);
	if (prev_ExecutorEnd)
		prev_ExecutorEnd(query);
	else
		standard_ExecutorEnd(query);
	statement_ended();
}

static void
wide_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	/* TRUNCATE, ALTER TABLE, COPY, ...: after every write before them */
	write_pending_above(-1);
	utility_level++;
	PG_TRY();
	{
		if (prev_ProcessUtility)
			prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		utility_level--;
	}
	PG_END_TRY();
	statement_ended();
}

/*
 * WideStatementLevel -- the executor nesting level writes happen at (0:
 * outside any query).
 */
int
WideStatementLevel(void)
{
	return exec_level;
}

/*
 * WideInstallStatementHooks -- called once, at load.
 */
void
WideInstallStatementHooks(void)
{
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = wide_ExecutorRun;
	prev_ExecutorFinish = ExecutorFinish_hook;
	ExecutorFinish_hook = wide_ExecutorFinish;
	prev_ExecutorEnd = ExecutorEnd_hook;
	ExecutorEnd_hook = wide_ExecutorEnd;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = wide_ProcessUtility;
	WidePolicyNoteInstall();
}
