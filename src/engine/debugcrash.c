/*-------------------------------------------------------------------------
 *
 * debugcrash.c
 *	  Crash points for the tests: wide.debug_crash names a point where the
 *	  backend makes its WAL durable and kills itself; wide.debug_pause one
 *	  where it waits.
 *
 * The points (docs/testing.md, "Crashes at a chosen point") are named by
 * the code that reaches them: "truncate" and "relocate" (truncate.c),
 * "compact_pass", "compact_windowed" (a time-windowed merge's output
 * written, not yet published), "rangedel-drop", "rangedel-retire", "drop-runs" and
 * "drop-runs-published" (compaction.c), "keysdel-numbered",
 * "keysdel-written" and "keysdel-cancelled" (am/rangedel.c).  The setting is superuser only and
 * registered by module.c.
 *
 * wide.debug_pause names a point where the backend waits for a session
 * holding the advisory lock pg_advisory_lock(2003395686, 2) to let it go
 * ("keysdel-numbered": a row DELETE between its tombstones' number and
 * their append, am/rangedel.c), so that an isolation test can write in
 * between.  Superuser only, like wide.debug_crash.
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
#include "storage/lock.h"

#include "wide.h"
#include "engine/debugcrash.h"

/* wide.debug_crash: where to kill this backend (tests only) */
char	   *wide_debug_crash = NULL;

/* wide.debug_pause: where to wait for the advisory lock (tests only) */
char	   *wide_debug_pause = NULL;

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
	/*
	 * The end of this backend's last record, not the insert position: at a
	 * page boundary that lies past the page header not yet written, and
	 * XLogFlush refuses to flush past the end of generated WAL.
	 */
	if (!XLogRecPtrIsInvalid(XactLastRecEnd))
		XLogFlush(XactLastRecEnd);
	elog(LOG, "wide.debug_crash: killing this backend at \"%s\"", where);
	(void) kill(getpid(), SIGKILL);
	pg_usleep(10 * 1000000L);	/* not reached */
}

/*
 * WideDebugPause -- if wide.debug_pause names this point, wait until no
 * session holds the advisory lock (2003395686, 2) (as pg_advisory_lock of
 * two int4 keys takes it), then go on.
 */
void
WideDebugPause(const char *where)
{
	LOCKTAG		tag;

	if (wide_debug_pause == NULL || strcmp(wide_debug_pause, where) != 0)
		return;
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, 2003395686, 2, 2);
	(void) LockAcquire(&tag, ShareLock, false, false);
	LockRelease(&tag, ShareLock, false);
}
