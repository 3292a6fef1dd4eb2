/*-------------------------------------------------------------------------
 *
 * write.c
 *	  The one entry point of every write of cells (WideWrite), and when a
 *	  statement's writes end.
 *
 * Every writer of am/ and api/ hands its cells to WideWrite and says what
 * it is (WideWriteMode, am.h):
 *
 *	WIDE_WRITE_STATEMENT  INSERT (tuple_insert), the wide.* mutations: the
 *		cells are held in the statement buffer (engine/pending.c) until the
 *		statement ends.  Outside any query (ALTER TABLE's rewrite, a logical
 *		replication worker's apply, a DO block's PERFORM) they are appended
 *		to the write area at once.
 *	WIDE_WRITE_BULK  COPY (multi_insert): sorted in memory and written as
 *		runs of the write area (engine/bulk.c), the last at WideWriteEnd,
 *		which the writer must call (nothing else writes it).
 *	WIDE_WRITE_APPEND  appended to the write area at once: a delete outside
 *		a DELETE statement (a logical replication worker's).
 *	WIDE_WRITE_DELETE  a DELETE statement's tombstones: appended at once;
 *		the versions their family's policy hides are read in sorted batches
 *		with the statement's snapshot, the last at WideWriteEnd.
 *
 * WideWrite alone then decides, in this order:
 *
 *	1. the stamp: every cell gets the current transaction id and the given
 *	   command id (the executor's for INSERT and COPY);
 *	2. the policy note: cells their family's policy collects at once are
 *	   counted for the statement's NOTICE (policynote.c);
 *	3. the records of rollup families of the cells' families, after them
 *	   (engine/rollup.c: only for puts);
 *	4. the tombstone of the versions a column delete's family hides, before
 *	   the delete (engine/uncover.c: read at once with the given snapshot, or
 *	   for a DELETE statement noted for its batch);
 *	5. where the cells go: the statement buffer, a bulk load or the write
 *	   area, as the mode says; a bulk load or an append writes the statement
 *	   buffer of the relation first, so that the write order is the order of
 *	   the calls (engine/pending.c);
 *	6. the flush: a write that leaves the write area at wide.flush_threshold
 *	   pages or more flushes it (flush_if_full, below).
 *
 * A call costs little more than its destination: a few loops over the
 * cells, no catalog access, so a caller may call it once per row (INSERT
 * does).  The records rollups and hidden versions add are palloc'd in the
 * caller's memory context and not freed: a caller writing row by row
 * resets its context now and then (tuple_insert does, per row).
 *
 * When a statement's writes end: INSERT and the wide.* mutations running
 * inside a query write in the statement buffer at the executor nesting level
 * (1 for a top-level query, one more for each query run inside one: SPI, SQL
 * functions, triggers).  When a query's run returns, and when it finishes
 * (ExecutorFinish, before its AFTER triggers and again after them; and at
 * ExecutorEnd), the cells of levels deeper than the one it runs at are
 * written.  A utility statement first writes whatever is pending (a
 * TRUNCATE, ALTER TABLE or COPY of the table sees it written).  When a
 * top-level statement (no query or utility statement around it) ends well,
 * it reports the cells it wrote that their family's policy collected at
 * once (policynote.c).
 *
 * WideWrite -- write cells (above).
 * WideWriteEnd -- a writer of the given mode is done with the relation.
 * WideStatementLevel -- the executor nesting level writes happen at.
 * WideStatementUtility -- a utility statement's part (am/utility.c).
 * WideInstallStatementHooks -- the executor hooks, at load.
 *
 * IDENTIFICATION
 *	  src/am/write.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "wide.h"
#include "engine/format.h"
#include "engine/lsm.h"
#include "engine/uncover.h"
#include "engine/writearea.h"
#include "am/am.h"
#include "am/utility.h"

/* small compactions a write's flush may do after it */
#define FLUSH_COMPACT_STEPS	16

static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;

static int	exec_level = 0;
static int	utility_level = 0;	/* utility statements running */

/* ----------------------------------------------------------------
 *	Writes
 * ----------------------------------------------------------------
 */

/*
 * flush_if_full -- after a write that left the write area at wa_pages
 * pages: at wide.flush_threshold pages or more, flush it if the table's
 * ShareUpdateExclusiveLock can be had without waiting (otherwise VACUUM or
 * another writer is at it), then do the small compactions the policy asks
 * for (at most 4 times the flush size).
 */
static void
flush_if_full(Relation rel, uint32 wa_pages)
{
	uint64		cap;
	int			steps = 0;

	if (wa_pages < (uint32) wide_flush_threshold)
		return;
	if (!ConditionalLockRelation(rel, ShareUpdateExclusiveLock))
	{
		/*
		 * Another backend is flushing or compacting.  Past twice the
		 * threshold, wait for it and flush (back-pressure): so the write
		 * area, and with it the memory a flush sorts, stays bounded by
		 * wide.flush_threshold however fast writers are.
		 */
		if (wa_pages < 2 * (uint32) wide_flush_threshold)
			return;
		LockRelation(rel, ShareUpdateExclusiveLock);
	}
	WideFlush(rel);
	cap = (uint64) wide_flush_threshold * BLCKSZ * 4;
	while (steps++ < FLUSH_COMPACT_STEPS && WideCompactStep(rel, false, cap))
		;
	UnlockRelation(rel, ShareUpdateExclusiveLock);
}

/*
 * WideWriteFlushIfFull -- flush_if_full for a writer outside this file
 * that appended to the write area itself (am/rangedel.c's row tombstones).
 */
void
WideWriteFlushIfFull(Relation rel, uint32 wa_pages)
{
	flush_if_full(rel, wa_pages);
}

/*
 * append -- cells to the write area at once, after the statement buffer of
 * rel (the write order is the order of the calls); the write area's pages.
 */
static inline uint32
append(Relation rel, WideCell *cells, int n)
{
	WidePendingWrite(rel);
	return WideWriteAreaInsert(rel, cells, n);
}

/* is one of the cells a column delete (which may uncover hidden versions)? */
static inline bool
any_column_delete(const WideCell *cells, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (cells[i].kind == WIDE_KIND_DEL_CELLS)
			return true;
	return false;
}

/*
 * WideWrite -- write cells[0..n-1] of the current transaction by command
 * cid, as a writer of the given mode (see the top of the file).  The cells
 * are stamped in place.  snapshot: what a column delete removes is read
 * with it (the DELETE statement's for WIDE_WRITE_DELETE, required); NULL
 * for the active snapshot.
 */
void
WideWrite(Relation rel, const WideSchema *schema, WideCell *cells, int n,
		  WideWriteMode mode, CommandId cid, Snapshot snapshot)
{
	TransactionId xid = GetCurrentTransactionId();
	int			i;

	if (n <= 0)
		return;
	/* 1. the stamp */
	for (i = 0; i < n; i++)
	{
		cells[i].xmin = xid;
		cells[i].cmin = cid;
	}
	/* 2. the cells written, before their rollup records */
	WidePolicyNoteWrites(rel, schema, cells, n);
	/* 3. with the records of rollups of their families */
	cells = WideRollupExpand(rel, schema, cells, &n);
	/*
	 * 4. a column delete also removes what its family's policy hides: read
	 * now, or for a DELETE statement with its batch (below)
	 */
	if (mode != WIDE_WRITE_DELETE && any_column_delete(cells, n))
		cells = WideUncoverExpand(rel, schema,
								  snapshot ? snapshot : GetActiveSnapshot(),
								  cells, &n);

	/* 5. where the cells go, and 6. the flush */
	switch (mode)
	{
		case WIDE_WRITE_STATEMENT:
			/* held until the statement ends, or at once outside a query */
			if (exec_level > 0)
				flush_if_full(rel, WidePendingAdd(rel, cells, n, exec_level));
			else
				flush_if_full(rel, append(rel, cells, n));
			break;
		case WIDE_WRITE_BULK:
			/*
			 * Sorted into runs of the write area, after the statement buffer
			 * of rel; the runs are flushed as they are (bulk.c), so the write
			 * area does not grow.
			 */
			WidePendingWrite(rel);
			WideBulkAdd(rel, cells, n);
			break;
		case WIDE_WRITE_APPEND:
			flush_if_full(rel, append(rel, cells, n));
			break;
		case WIDE_WRITE_DELETE:
			Assert(snapshot != NULL);
			flush_if_full(rel, append(rel, cells, n));
			/* read with the statement's batch (engine/uncover.c) */
			for (i = 0; i < n; i++)
				flush_if_full(rel, WideUncoverNote(rel, schema, snapshot, &cells[i]));
			break;
	}
}

/*
 * WideWriteEnd -- a writer of the given mode is done with rel: a
 * statement's buffered cells (WIDE_WRITE_STATEMENT), a bulk load's last run
 * (WIDE_WRITE_BULK, with COPY's progress phases) or a DELETE statement's
 * last batch of hidden versions (WIDE_WRITE_DELETE) are written.
 */
void
WideWriteEnd(Relation rel, WideWriteMode mode)
{
	switch (mode)
	{
		case WIDE_WRITE_STATEMENT:
			flush_if_full(rel, WidePendingWrite(rel));
			break;
		case WIDE_WRITE_BULK:
			WideProgressCopyPhase(WIDE_PROGRESS_COPY_FLUSH);
			flush_if_full(rel, WidePendingWrite(rel));
			WideProgressCopyPhase(WIDE_PROGRESS_COPY_WRITE);
			WideBulkFinish(rel);
			WideProgressCopyPhase(WIDE_PROGRESS_NONE);
			break;
		case WIDE_WRITE_APPEND:
			break;
		case WIDE_WRITE_DELETE:
			flush_if_full(rel, WideUncoverFlush(rel));
			break;
	}
}

/* ----------------------------------------------------------------
 *	When a statement's writes end
 * ----------------------------------------------------------------
 */
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

		WideWriteEnd(rel, WIDE_WRITE_STATEMENT);
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

/*
 * WideStatementUtility -- the first concern of a utility statement
 * (am/utility.c): the cells pending before it are written first, and its
 * end, if it is a top-level statement, is a statement's end.
 */
void
WideStatementUtility(WideUtilityCall *call)
{
	/* TRUNCATE, ALTER TABLE, COPY, ...: after every write before them */
	write_pending_above(-1);
	utility_level++;
	PG_TRY();
	{
		WideUtilityNext(call);
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
 * WideInstallStatementHooks -- called once, at load (the utility hook is
 * am/utility.c's).
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
	WidePolicyNoteInstall();
}
