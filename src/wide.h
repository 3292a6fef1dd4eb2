/*-------------------------------------------------------------------------
 *
 * wide.h
 *	  Settings of the wide extension (GUCs, defined in module.c and
 *	  bulk.c).  Everything else is declared by the header of the module
 *	  that defines it.
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

/* module.c */
extern int	wide_flush_threshold;
extern int	wide_block_size;
extern int	wide_compression_level;
extern int	wide_block_cache_size;
extern int	wide_max_runs;
extern double wide_compaction_ratio;

/* engine/bulk.c */
extern int	wide_bulk_memory;

/* engine/truncate.c */
extern char *wide_debug_crash;

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
