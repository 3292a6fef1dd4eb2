# wide: a Bigtable-class wide-column store for PostgreSQL

MODULE_big = wide
OBJS = \
	src/module.o \
	src/am/cdc.o \
	src/am/cellslot.o \
	src/am/copyrow.o \
	src/am/customscan.o \
	src/am/scan_exec.o \
	src/am/scan_explain.o \
	src/am/scan_match.o \
	src/am/scan_range.o \
	src/am/ddl.o \
	src/am/delete.o \
	src/am/keyindex.o \
	src/am/movein.o \
	src/am/policynote.o \
	src/am/progress.o \
	src/am/publication.o \
	src/am/rangedel.o \
	src/am/rows_agg.o \
	src/am/rows_fdw.o \
	src/am/rows_plan.o \
	src/am/rows_scan.o \
	src/am/rows_shape.o \
	src/am/rows_write.o \
	src/am/rows_delete.o \
	src/am/scan_agg.o \
	src/am/scan_pushdown.o \
	src/am/plan_cost.o \
	src/am/scan_read.o \
	src/am/plan_clause.o \
	src/am/scan_tswindow.o \
	src/am/scan_parallel.o \
	src/am/utility.o \
	src/am/write.o \
	src/am/tableam.o \
	src/am/vacuum.o \
	src/api/access.o \
	src/api/args.o \
	src/api/tablets.o \
	src/am/tracking.o \
	src/api/remote.o \
	src/api/bigtable_json.o \
	src/api/aggregates.o \
	src/api/conditional.o \
	src/api/families.o \
	src/api/entry.o \
	src/api/filter.o \
	src/api/jsonargs.o \
	src/api/maintenance.o \
	src/api/mutate.o \
	src/api/mutate_row.o \
	src/api/mutate_rows_bin.o \
	src/api/re2_shim.o \
	src/api/read.o \
	src/api/read_scan.o \
	src/api/selftest.o \
	src/api/formatdecode.o \
	src/api/verify.o \
	src/engine/aggregate.o \
	src/engine/fsum.o \
	src/engine/ddsketch.o \
	src/engine/blob.o \
	src/engine/block.o \
	src/engine/blockpass.o \
	src/engine/blockcache.o \
	src/engine/bulk.o \
	src/engine/cell.o \
	src/engine/compaction.o \
	src/engine/debugcrash.o \
	src/engine/summary.o \
	src/engine/blockpack.o \
	src/engine/compress.o \
	src/engine/flush.o \
	src/engine/indexblock.o \
	src/engine/manifest.o \
	src/engine/iterator.o \
	src/engine/merge.o \
	src/engine/rangedel.o \
	src/engine/pending.o \
	src/engine/reader.o \
	src/engine/record.o \
	src/engine/resolve.o \
	src/engine/rollup.o \
	src/engine/uncover.o \
	src/engine/reverse.o \
	src/engine/rewrite.o \
	src/engine/rules.o \
	src/engine/schema.o \
	src/engine/segment_reader.o \
	src/engine/segment_writer.o \
	src/engine/sharedcache.o \
	src/engine/seq.o \
	src/engine/sorter.o \
	src/engine/split.o \
	src/engine/space.o \
	src/engine/storage.o \
	src/engine/selftest.o \
	src/engine/sweep.o \
	src/engine/tsprune.o \
	src/engine/drops.o \
	src/engine/retention.o \
	src/engine/rowdir.o \
	src/api/dropbefore.o \
	src/engine/truncate.o \
	src/engine/visibility.o \
	src/engine/writearea.o \
	src/engine/wacache.o

EXTENSION = wide
DATA = wide--0.1.sql wide--0.2.sql wide--0.1--0.2.sql
PGFILEDESC = "wide - wide-column store"

PG_CPPFLAGS = -I$(srcdir)/src -I$(libpq_srcdir)
# calls between the extension's own functions go straight, not through the
# PLT: nothing interposes them (the scans' per-cell calls cross files).
# Appended: test/sanitize.sh passes its flags in PG_CFLAGS
PG_CFLAGS += -fno-semantic-interposition
SHLIB_LINK = -lzstd -lre2 -lstdc++ $(libpq)

REGRESS = wide_ddl families gc_rules cells mvcc segments bulk aggregates reads mutate_row conditional delete filters privileges privileges_catalog prepared rls validation scan_pushdown txn_families rewrite space_reuse publications publications_remote toolkit toolkit_ranges ts_prune parallel_scan space_truncate ingest_statement stats_counts plan_pushdown reverse_scan srf_read_scan vacuum_full move_in tablets cluster_key replica_identity read_names bytes_reads bytes_json agg_pushdown rollup_basic tablets_create tablet_ops tablet_json tablet_constraints tablet_truncate tablet_settings cdc_decoding density_pack latest_skip copy_lines policy_notice bytes_qualifiers dml_forms truncate_reset delete_gc rows_agg rows_salt rows_parallel rows_top analyze_sample float_delta range_lists rows_basic latest_row tablet_pathkeys publications_internal float_aggregates ddsketch format_selftest format_decode compact_summary rows_privileges rows_batch rows_bucket rows_lastpoint compact_pass range_delete drop_before copy_blocks column_filter_merged rows_delete row_directory mutate_rows_bin vacuum_schedule plan_cost run_families agg_plain_read
ISOLATION = snapshot write_order compaction adders conditional privileges serializable publication_race parallel_serializable parallel_snapshot space_truncate ingest_visibility vacuum_full cluster_concurrent agg_snapshot rollup_concurrent latest_snapshot split_catchup split_pause split_json read_rows_swap rows_concurrent compact_pass range_delete drop_before rows_delete window_delete point_cache

# `make installcheck` runs both lists against the running server that
# PGHOST/PGPORT name, with its default settings (tests that need more, such
# as two-phase commit, say so and are skipped).  Results go to the checkout,
# or to WIDE_TEST_OUT where that is not writable (a root-owned checkout
# tested as the server's user).
WIDE_TEST_OUT ?= $(shell if [ -w . ]; then echo .; else echo "$${TMPDIR:-/tmp}/wide-installcheck-$$(id -u)"; fi)
REGRESS_OPTS = --load-extension=wide --outputdir=$(WIDE_TEST_OUT)
ISOLATION_OPTS = --load-extension=wide --inputdir=$(srcdir)/test/isolation \
	--outputdir=$(WIDE_TEST_OUT)/output_iso

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# every object depends on the extension's headers
WIDE_HEADERS = $(wildcard $(srcdir)/src/*.h $(srcdir)/src/*/*.h)
$(OBJS): $(WIDE_HEADERS)

# the layering rules of src/ (engine/ includes no executor, planner, fmgr,
# jsonb or tableam header, nor any of am/ or api/), and the metapage's one
# owner (engine/manifest.c); also run by run-all.sh
.PHONY: check-layers
check-layers:
	@bash $(srcdir)/test/check-layers.sh
	@bash $(srcdir)/test/check-manifest.sh

# wide-bigtable, the gRPC front-end (bigtable/, docs/grpc.md): its own
# Makefile, which skips the server with a note where gRPC is not installed.
# WIDE_BIGTABLE=no leaves it out of `make` and `make install` (test/run-all.sh
# builds it in the background while the first suites run)
WIDE_BIGTABLE ?= yes
.PHONY: bigtable-server install-bigtable-server clean-bigtable-server
ifeq ($(WIDE_BIGTABLE),yes)
all: bigtable-server
install: install-bigtable-server
endif
clean: clean-bigtable-server
bigtable-server:
	$(MAKE) -C $(srcdir)/bigtable PG_CONFIG=$(PG_CONFIG)
install-bigtable-server: bigtable-server
	$(MAKE) -C $(srcdir)/bigtable PG_CONFIG=$(PG_CONFIG) install
clean-bigtable-server:
	$(MAKE) -C $(srcdir)/bigtable clean
