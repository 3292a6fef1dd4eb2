/*-------------------------------------------------------------------------
 *
 * utility.h
 *	  wide's one ProcessUtility hook and the concerns it calls in order
 *	  (am/utility.c).
 *
 * IDENTIFICATION
 *	  src/am/utility.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_UTILITY_H
#define WIDE_UTILITY_H

#include "tcop/utility.h"

/* one utility statement on its way through the concerns */
typedef struct WideUtilityCall WideUtilityCall;
struct WideUtilityCall
{
	PlannedStmt *pstmt;			/* a concern may replace it (movein.c) */
	const char *queryString;
	bool		readOnlyTree;
	ProcessUtilityContext context;
	ParamListInfo params;
	QueryEnvironment *queryEnv;
	DestReceiver *dest;
	QueryCompletion *qc;
	int			next;			/* the concern run_next runs next */
	void		(*run_next) (WideUtilityCall *call);	/* utility.c's */
};

/*
 * WideUtilityNext -- a concern runs the rest: the concerns after it, then
 * the statement (utility.c; through a pointer, so that the concerns do not
 * call back into the file that calls them).
 */
static inline void
WideUtilityNext(WideUtilityCall *call)
{
	call->run_next(call);
}

/* utility.c */
extern void WideInstallUtility(void);

/* the concerns, in the order utility.c calls them */
extern void WideStatementUtility(WideUtilityCall *call);	/* write.c */
extern void WideMoveInUtility(WideUtilityCall *call);	/* movein.c */
extern void WidePublicationUtility(WideUtilityCall *call);	/* publication.c */
extern void WideRowsUtility(WideUtilityCall *call);	/* rows_shape.c */

#endif							/* WIDE_UTILITY_H */
