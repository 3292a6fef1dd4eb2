/*-------------------------------------------------------------------------
 *
 * wide.h
 *	  Settings of the wide extension used across modules.  module.c
 *	  registers them (_PG_init); each variable is defined by the file
 *	  named beside it below (wide.shared_block_cache_size, registered
 *	  only when wide is preloaded: engine/sharedcache.c and segment.h).
 *	  Settings used by one module only are registered and declared
 *	  there: wide.enable_customscan
 *	  (am/customscan.c), wide.enable_range_lists (am/scan_match.c),
 *	  wide.enable_aggregate_pushdown (am/scan_agg.c),
 *	  wide.parallel_stretch_blocks (am/scan_parallel.c),
 *	  wide.enable_read_scan (api/read_scan.c).  Everything else is
 *	  declared by the header of the module that defines it.
 *
 * The extension is layered (see docs/architecture.md):
 *
 *	  am/       PostgreSQL glue: the TableAmRoutine, DDL checks, planner
 *	            (am/am.h).
 *	  api/      SQL-callable functions (api/api.h, api/filter.h).
 *	  engine/   the storage engine (engine/format.h, cell.h, schema.h, ...).
 *	            It knows pages, WAL, records, cells and MVCC visibility, but
 *	            no executor, planner or fmgr types: engine files include no
 *	            header of am/ or api/ and none of the executor, planner,
 *	            tableam, fmgr or jsonb headers (test/check-layers.sh, run by
 *	            "make check-layers" and test/run-all.sh, enforces this).
 *
 * The call graph is one-way: am/ and api/ call engine/, never the reverse.
 *
 * IDENTIFICATION
 *	  src/wide.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_H
#define WIDE_H

extern int	wide_flush_threshold;	/* engine/flush.c */
extern int	wide_block_size;	/* engine/segment_writer.c */
extern bool wide_block_row_directory;	/* engine/segment_writer.c (tests) */
extern int	wide_compression_level; /* engine/compress.c */
extern int	wide_block_cache_size;	/* engine/blockcache.c */
extern int	wide_max_runs;		/* engine/compaction.c */
extern double wide_compaction_ratio;	/* engine/compaction.c */

/* engine/bulk.c */
extern int	wide_bulk_memory;

/* engine/debugcrash.c: wide.debug_crash, crash points for the tests */
extern char *wide_debug_crash;
extern char *wide_debug_pause;

/* engine/pending.c */
extern int	wide_statement_run_size;

/* engine/rollup.c: wide.rollup_on_write */
typedef enum WideRollupOnWrite
{
	WIDE_ROLLUP_WRITE_AUTO,		/* on, except in a session restoring a dump */
	WIDE_ROLLUP_WRITE_ON,
	WIDE_ROLLUP_WRITE_OFF
} WideRollupOnWrite;
extern int	wide_rollup_on_write;

#endif							/* WIDE_H */
