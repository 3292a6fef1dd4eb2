/*-------------------------------------------------------------------------
 *
 * debugcrash.c
 *	  Crash points for the tests: wide.debug_crash names a point where the
 *	  backend makes its WAL durable and kills itself.
 *
 * The points (docs/testing.md, "Crashes at a chosen point") are named by
 * the code that reaches them: "truncate" and "relocate" (truncate.c),
 * "compact_pass", "compact_windowed" (a time-windowed merge's output
 * written, not yet published), "rangedel-drop", "rangedel-retire", "drop-runs" and
 * "drop-runs-published" (compaction.c).  The setting is superuser only and
 * registered by module.c.
 *
 * IDENTIFICATION
 *	  src/engine/debugcrash.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>
#include <unistd.h>

#include "access/xlog.h"
#include "miscadmin.h"

#include "wide.h"
#include "engine/debugcrash.h"

/* wide.debug_crash: where to kill this backend (tests only) */
char	   *wide_debug_crash = NULL;

/*
 * WideDebugCrash -- if wide.debug_crash names this point, make the WAL
 * written so far durable and kill this backend with SIGKILL, which makes
 * the postmaster restart the server and run crash recovery.
 */
void
WideDebugCrash(const char *where)
{
	if (wide_debug_crash == NULL || strcmp(wide_debug_crash, where) != 0)
		return;
	XLogFlush(GetXLogInsertRecPtr());
	elog(LOG, "wide.debug_crash: killing this backend at \"%s\"", where);
	(void) kill(getpid(), SIGKILL);
	pg_usleep(10 * 1000000L);	/* not reached */
}
