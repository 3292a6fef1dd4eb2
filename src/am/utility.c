/*-------------------------------------------------------------------------
 *
 * utility.c
 *	  wide's one ProcessUtility hook: what each concern does around a
 *	  utility statement, in one order.
 *
 * The hook calls the concerns below in this order, each around those after
 * it: a concern acts before the statement, calls WideUtilityNext, which
 * runs the next concern (the last runs the statement), and acts after it.
 *
 *	1. statement ends (write.c, WideStatementUtility): the cells pending
 *	   before the statement are written first (a TRUNCATE, ALTER TABLE or
 *	   COPY of the table sees them), and a top-level statement that ends
 *	   well reports what its families' policies collected at once;
 *	2. moving tables in (movein.c, WideMoveInUtility): the checks of CREATE
 *	   TABLE ... PARTITION OF, ATTACH PARTITION and ALTER COLUMN TYPE on
 *	   wide tables; ALTER TABLE ... SET ACCESS METHOD wide gets its key
 *	   columns the "C" collation; a table moved in without a family catalog
 *	   gets the families its cells name, created after the statement;
 *	3. publications (publication.c, WidePublicationUtility): after the
 *	   statement, the checks that keep wide tables out of publications;
 *	4. the row form (rows_shape.c, WideRowsUtility): before the statement,
 *	   a rename of a row form's column whose name is its meaning is refused.
 *
 * After the last concern, the statement runs through the hook installed
 * before this one (another library's) or standard_ProcessUtility.
 *
 * WideInstallUtility -- install the hook (from _PG_init).
 *
 * IDENTIFICATION
 *	  src/am/utility.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "am/utility.h"

typedef void (*WideUtilityConcern) (WideUtilityCall *call);

/* the concerns, in order (above) */
static const WideUtilityConcern concerns[] = {
	WideStatementUtility,
	WideMoveInUtility,
	WidePublicationUtility,
	WideRowsUtility,
};

static ProcessUtility_hook_type prev_ProcessUtility_hook = NULL;

/*
 * run_next -- run the concern after the caller's, or, after the last, the
 * statement (through the hook installed before wide's).  Each concern
 * calls it once, as WideUtilityNext (utility.h).
 */
static void
run_next(WideUtilityCall *call)
{
	if (call->next < (int) lengthof(concerns))
	{
		concerns[call->next++] (call);
		return;
	}
	if (prev_ProcessUtility_hook)
		prev_ProcessUtility_hook(call->pstmt, call->queryString,
								 call->readOnlyTree, call->context,
								 call->params, call->queryEnv, call->dest,
								 call->qc);
	else
		standard_ProcessUtility(call->pstmt, call->queryString,
								call->readOnlyTree, call->context,
								call->params, call->queryEnv, call->dest,
								call->qc);
}

static void
wide_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	WideUtilityCall call;

	call.pstmt = pstmt;
	call.queryString = queryString;
	call.readOnlyTree = readOnlyTree;
	call.context = context;
	call.params = params;
	call.queryEnv = queryEnv;
	call.dest = dest;
	call.qc = qc;
	call.next = 0;
	call.run_next = run_next;
	run_next(&call);
}

/*
 * WideInstallUtility -- install the hook (from _PG_init).
 */
void
WideInstallUtility(void)
{
	prev_ProcessUtility_hook = ProcessUtility_hook;
	ProcessUtility_hook = wide_ProcessUtility;
}
