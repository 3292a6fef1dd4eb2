/*-------------------------------------------------------------------------
 *
 * progress.c
 *	  Wide's long work in PostgreSQL's progress views: VACUUM of a wide
 *	  table in pg_stat_progress_vacuum, and the end of a COPY into one
 *	  (its last sort and write) beside pg_stat_progress_copy.
 *
 * A table AM reports its own VACUUM (as heap_vacuum_rel does): WideVacuum
 * starts the command and ends it.  Wide's phases are not the heap's, so
 * each is shown twice: as the nearest heap phase in the view's phase
 * column (flush, compactions and rewrites for freezing as "scanning heap",
 * the sweep of orphaned pages as "vacuuming heap", giving the free tail
 * back as "truncating heap", statistics as "performing final cleanup"),
 * and exactly in parameters the heap does not use, which wide.progress()
 * reads:
 *
 *	param 11 (index 10)  wide's phase, WideProgressPhase
 *	param 12 (index 11)  compactions done by this command
 *	param 13 (index 12)  pages given back to the file system
 *
 * A COPY into a wide table sorts the cells it holds and writes them as
 * runs when its rows are read (engine/bulk.c); that phase is set on the
 * COPY's own progress entry, whose parameters past 6 are free too.
 *
 * An error ends the command (AbortTransaction clears it).
 *
 * IDENTIFICATION
 *	  src/am/progress.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/progress.h"
#include "storage/bufmgr.h"
#include "utils/backend_progress.h"
#include "utils/backend_status.h"
#include "utils/rel.h"

#include "am/am.h"

/* the heap phase shown for each of wide's phases */
static const int heap_phase[] = {
	[WIDE_PROGRESS_FLUSH] = PROGRESS_VACUUM_PHASE_SCAN_HEAP,
	[WIDE_PROGRESS_COMPACT] = PROGRESS_VACUUM_PHASE_SCAN_HEAP,
	[WIDE_PROGRESS_DELETES] = PROGRESS_VACUUM_PHASE_SCAN_HEAP,
	[WIDE_PROGRESS_FREEZE] = PROGRESS_VACUUM_PHASE_SCAN_HEAP,
	[WIDE_PROGRESS_SWEEP] = PROGRESS_VACUUM_PHASE_VACUUM_HEAP,
	[WIDE_PROGRESS_TRUNCATE] = PROGRESS_VACUUM_PHASE_TRUNCATE,
	[WIDE_PROGRESS_STATS] = PROGRESS_VACUUM_PHASE_FINAL_CLEANUP,
};

/*
 * WideProgressVacuumStart -- VACUUM of rel begins: its row in
 * pg_stat_progress_vacuum, with the table's size at the start.
 */
void
WideProgressVacuumStart(Relation rel)
{
	pgstat_progress_start_command(PROGRESS_COMMAND_VACUUM, RelationGetRelid(rel));
	pgstat_progress_update_param(PROGRESS_VACUUM_TOTAL_HEAP_BLKS,
								 RelationGetNumberOfBlocks(rel));
}

/*
 * WideProgressVacuumPhase -- VACUUM enters a phase; after the flush and
 * compactions every block counts as scanned.
 */
void
WideProgressVacuumPhase(WideProgressPhase phase)
{
	const int	index[] = {PROGRESS_VACUUM_PHASE, WIDE_PROGRESS_PARAM_PHASE};
	int64		val[] = {heap_phase[phase], phase};

	pgstat_progress_update_multi_param(2, index, val);
}

/*
 * WideProgressVacuumCount -- set one of wide's counters of the command.
 */
void
WideProgressVacuumCount(int param, int64 value)
{
	pgstat_progress_update_param(param, value);
}

/*
 * WideProgressVacuumEnd -- VACUUM of the table is done.
 */
void
WideProgressVacuumEnd(Relation rel)
{
	pgstat_progress_update_param(PROGRESS_VACUUM_HEAP_BLKS_SCANNED,
								 RelationGetNumberOfBlocks(rel));
	pgstat_progress_end_command();
}

/*
 * WideProgressCopyPhase -- a COPY into a wide table enters a phase of its
 * end (WIDE_PROGRESS_COPY_*), or 0 when it leaves it.  Nothing when the
 * statement is not a COPY (INSERT ... SELECT ends the same way).
 */
void
WideProgressCopyPhase(WideProgressPhase phase)
{
	if (MyBEEntry == NULL || MyBEEntry->st_progress_command != PROGRESS_COMMAND_COPY)
		return;
	pgstat_progress_update_param(WIDE_PROGRESS_PARAM_PHASE, phase);
}
