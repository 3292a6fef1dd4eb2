/*-------------------------------------------------------------------------
 *
 * module.c
 *	  Loading the wide extension: module magic, settings and hooks.
 *
 * The library is loaded by CREATE EXTENSION, and in every backend that
 * opens a wide table (the relcache calls the access method's handler).
 * Only logical decoding of wide tables (am/cdc.c) and the block cache
 * shared by backends (engine/sharedcache.c) require
 * shared_preload_libraries.
 *
 * IDENTIFICATION
 *	  src/module.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "wide.h"
#include "engine/blockpass.h"
#include "engine/format.h"
#include "engine/segment.h"
#include "engine/retention.h"
#include "am/am.h"
#include "am/rows.h"
#include "am/utility.h"
#include "am/cdc.h"
#include "am/scan_agg.h"
#include "api/readiter.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* wide.rollup_on_write: auto, and the boolean spellings of on and off */
static const struct config_enum_entry rollup_on_write_options[] = {
	{"auto", WIDE_ROLLUP_WRITE_AUTO, false},
	{"on", WIDE_ROLLUP_WRITE_ON, false},
	{"off", WIDE_ROLLUP_WRITE_OFF, false},
	{"true", WIDE_ROLLUP_WRITE_ON, true},
	{"false", WIDE_ROLLUP_WRITE_OFF, true},
	{"yes", WIDE_ROLLUP_WRITE_ON, true},
	{"no", WIDE_ROLLUP_WRITE_OFF, true},
	{"1", WIDE_ROLLUP_WRITE_ON, true},
	{"0", WIDE_ROLLUP_WRITE_OFF, true},
	{NULL, 0, false}
};

static void
define_settings(void)
{
	DefineCustomIntVariable("wide.flush_threshold",
							"Size of the write area at which a write flushes it into a segment.",
							NULL, &wide_flush_threshold, 2048, 16, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_BLOCKS, NULL, NULL, NULL);
	DefineCustomIntVariable("wide.bulk_memory",
							"Memory a COPY into a wide table sorts before writing a run.",
							NULL, &wide_bulk_memory, 64 * 1024, 1024, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("wide.statement_run_size",
							"Size of a statement's writes from which they are written as a sorted run rather than appended to the write area.",
							"A statement's cells are held until it ends; smaller batches are appended to the write area page by page.",
							&wide_statement_run_size, 128, 0, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomEnumVariable("wide.rollup_on_write",
							 "Whether writes to a family add to its rollups.",
							 "auto: yes, except in a session that restores a dump (pg_dump's and pg_restore's check_function_bodies = off with row_security = off or an empty search_path), whose rollup cells come with the dump; on: always; off: never.",
							 &wide_rollup_on_write, WIDE_ROLLUP_WRITE_AUTO,
							 rollup_on_write_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("wide.block_size",
							"Target size of a segment data block before compression.",
							"Smaller blocks make point reads cheaper, larger ones compress better.",
							&wide_block_size, 16384, 1024, 1024 * 1024,
							PGC_USERSET, GUC_UNIT_BYTE, NULL, NULL, NULL);
	DefineCustomIntVariable("wide.compression_level",
							"zstd compression level of segment blocks.",
							NULL, &wide_compression_level, 1, -7, 19,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("wide.block_cache_size",
							"Memory each backend keeps for decoded segment blocks.",
							NULL, &wide_block_cache_size, 64 * 1024, 0, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	/* a PGC_POSTMASTER setting can only be defined while preloading */
	if (process_shared_preload_libraries_in_progress)
		DefineCustomIntVariable("wide.shared_block_cache_size",
								"Shared memory for decompressed segment blocks, shared by every backend.",
								"Only with wide in shared_preload_libraries; 0 turns the shared cache off.",
								&wide_shared_block_cache_size, 64 * 1024, 0, INT_MAX / 2,
								PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("wide.max_runs",
							"Number of runs above which compaction merges the newest ones.",
							NULL, &wide_max_runs, 8, 2, WIDE_MAX_RUNS - 4,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("wide.compaction_pass_through",
							 "Lets compaction write data blocks no other input interleaves with as they are stored.",
							 "Off: every record is decoded and encoded again (for comparisons).",
							 &wide_compaction_pass_through, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("wide.compaction_fast_survey",
							 "Lets compaction check a block it may pass from its key and auxiliary sections, without decoding its records.",
							 "Off: each record is decoded (for comparisons).",
							 &wide_compaction_fast_survey, true,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomBoolVariable("wide.block_one_xmin",
							 "Lets a data block whose records share one xmin and cmin store them once, in its index entry.",
							 "Off: every record stores its own, as format version 5 did (tests only).",
							 &wide_block_one_xmin, true,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("wide.block_row_directory",
							 "Stores a row directory after each data block, so that a point read steps over a part of the block.",
							 "Off: no directory, as format version 6 wrote blocks (tests only).",
							 &wide_block_row_directory, true,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("wide.block_pack_format",
							"Format version whose packing of data blocks the writer uses (benches only).",
							"4 or 5: full-precision float8 values delta coded in blocks of wide.block_size; 6: Huffman coded in blocks of twice that.  Every build reads all.",
							&wide_block_pack_format, WIDE_FORMAT_VERSION, 4, WIDE_FORMAT_VERSION,
							PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							NULL, NULL, NULL);
	DefineCustomRealVariable("wide.compaction_ratio",
							 "Size ratio of runs that compaction merges together.",
							 NULL, &wide_compaction_ratio, 2.0, 1.0, 100.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("wide.time_window",
							"Width of the time windows compaction keeps runs in, for tables whose families expire cells by age.",
							"0: derived from the largest max_age (a 10th of it, rounded up to 1, 2, 3, 6 or 12 hours, 1, 2, 3, 7, 14 or 28 days).",
							&wide_time_window, 0, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomStringVariable("wide.debug_crash",
							   "Kills the backend at the named point of VACUUM's truncation, of a compaction or of a drop of runs (tests only).",
							   "Points: \"truncate\", \"relocate\", \"compact_pass\", \"drop-runs\", \"drop-runs-published\".  Empty: never.",
							   &wide_debug_crash, "",
							   PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("wide.debug_pause",
							   "Makes the backend wait at the named point until no session holds pg_advisory_lock(2003395686, 2) (tests only).",
							   "Points: \"keysdel-numbered\".  Empty: never.",
							   &wide_debug_pause, "",
							   PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							   NULL, NULL, NULL);
	MarkGUCPrefixReserved("wide");
}

/*
 * _PG_init -- called once when the library is loaded.
 */
void
_PG_init(void)
{
	/*
	 * define wide.enable_customscan and wide.enable_aggregate_pushdown:
	 * before define_settings reserves "wide."
	 */
	WideInstallPlanner();
	WideInstallAggregate();
	WideInstallReadScan();
	define_settings();
	WideInstallHooks();
	WideInstallDeleteHooks();
	WideInstallStatementHooks();
	/* the row form's utility hook runs after wide's concerns (am/utility.c) */
	WideInstallUtility();
	/* shared_preload_libraries only: logical decoding (am/cdc.c) */
	WideInstallCdc();
	/* shared_preload_libraries only: the shared block cache */
	WideInstallSharedCache();
	/* row keys written to tablets being split or moved: after cdc's hook */
	WideInstallTracking();
}
