#!/usr/bin/env bash
#
# bench/tsbs.sh [options] -- TSBS's devops cpu-only benchmark (the Time
# Series Benchmark Suite, github.com/timescale/tsbs), reimplemented from its
# public definitions, on plain PostgreSQL and on wide, same server, same run,
# every answer compared (issue 26).
#
# Three targets, each in its own schema with its own copy of TSBS's `tags`
# table (a heap table with TSBS's indexes), so that the same SQL text runs on
# each under its search_path:
#   heap   TSBS's plain-PostgreSQL schema (pkg/targets/timescaledb/creator.go,
#          --use-hypertable=false): cpu(time timestamptz, tags_id integer,
#          usage_user ... usage_guest_nice double precision) with btrees on
#          (tags_id, time DESC) and (time DESC), created before the load.
#          TSBS's always-NULL `additional_tags jsonb` column is left out (the
#          other targets have none; it would cost the heap 8 bytes a reading).
#   cells  wide's cell form, the Bigtable schema guide's tall and narrow
#          table: row key `host_12#1451606400`, family `cpu`, a qualifier per
#          metric, value float8, ts = the reading's time; loaded by COPY of
#          cells; each query in the best cell-form SQL we can write (a
#          parameterized Wide Scan per host's key range with qualifier
#          pushdown, aggregates per bucket and qualifier pivoted with
#          FILTER, read_rows of the keys above the threshold for high-cpu,
#          read_latest for lastpoint; see docs/performance.md).  Where a
#          query covers all hosts, the cell form takes them from `tags`,
#          the host registry of TSBS's schema.
#   rows   wide's row form: a foreign table of server `wide_rows` over a wide
#          cells table (key 'tags_id,time'), loaded by COPY of the heap's CSV,
#          queried with the heap's SQL text.  Skipped, with a line saying so,
#          while this build of wide has no server `wide_rows`.
#
# Data (bench/tsbs.py gen): hosts x hours at one reading per interval
# (default 100 x 24 h at 10 s = 864,000 readings of 10 metrics, from
# 2016-01-01, TSBS's defaults), generated as TSBS's devops generator does
# (clamped random walks, host tags), seeded, in TSBS's time-major order;
# integer values as TSBS writes them today, or with --floats the full
# float64 random walk as it wrote them before.  Loaded with COPY (timed:
# readings per second), then VACUUM ANALYZE (timed; for rows, of the cells
# table and ANALYZE of the foreign table); size = pg_total_relation_size of
# cpu (heap: with its two indexes; rows: of its cells table).
#
# Queries: TSBS's 15 devops query types (single-groupby-1-1-1 ...
# groupby-orderby-limit) in the SQL of tsbs_generate_queries for TimescaleDB
# on plain PostgreSQL with its tags table (timescale-use-tags, the default),
# buckets by date_trunc (--bucket tsbs: TSBS's non-time_bucket expression).
# --runs random parameter sets per type (lastpoint has none: the same
# query), each run --reps times on every target in turn, the targets' order
# alternating from run to run; the first set of each type runs once more,
# untimed, before.  Every answer of every run is compared
# with the heap's: the row form's must be identical (with --floats equal to
# 1e-12 relative: sums may add in another order), the cell form's floats
# equal to 1e-9 relative; a mismatch stops the bench with both answers in
# $DIR/mismatch.txt.  The report is a markdown table: size, COPY readings/s,
# VACUUM ANALYZE seconds and each type's median milliseconds, per target,
# with the ratios target/heap and their geometric mean.  Timings are psql's
# \timing over a persistent connection per target.  A benchmark, not a test:
# no timing is asserted.
#
# Options:
#   --hosts N (100)  --hours H (24)  --interval SECONDS (10)
#   --runs N (5)     parameter sets per query type
#   --reps N (1)     timed runs of each parameter set on each target
#   --floats         full-precision float values (a random walk)
#   --seed N (123)   data and query parameters
#   --bucket date_trunc|tsbs (date_trunc)
#   --workers N (0)  max_parallel_workers_per_gather (PostgreSQL's default is 2)
#   --targets heap,cells,rows   --queries TYPE,TYPE,...
#   --cpu            also each query's backend CPU time (/proc/PID/schedstat
#                    before and after it): medians and ratios beside the wall
#                    times, which on a loaded machine are mostly waiting
#   --smoke          8 hosts x 2 h, 3 runs x 1 rep: a minute, to check the
#                    script and the answers (windows longer than the data are
#                    cut to half its span; host counts to the hosts there are)
# Environment: WIDE_BENCH_DIR (/tmp/wide-bench-tsbs), WIDE_BENCH_PORT (54338).
#
# Starts its own server as the other benches do (the test user, wide
# preloaded with a 256 MB shared block cache, 2 GB shared buffers that hold
# the heap), stops it.  Run as root.  The default run took 12.5 minutes on
# the 2-core development machine at a load of 8-9 (less when idle).
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

ARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) ARGS+=(--hosts 8 --hours 2 --runs 3 --reps 1) ;;
	--floats|--compact|--cpu) ARGS+=("$1") ;;
	--hosts|--hours|--interval|--runs|--reps|--seed|--bucket|--workers|--targets|--queries)
		[ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
		ARGS+=("$1" "$2"); shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-tsbs}
PORT=${WIDE_BENCH_PORT:-54338}
PY="$WIDE_ROOT/bench/tsbs.py"

wide_install_deps
wide_test_user
wide_build_install
PY="$WIDE_ROOT/bench/tsbs.py"
bench_fresh_dir

log "generating the data"
python3 "$PY" gen --dir "$BENCH" "${ARGS[@]}"
chmod 644 "$BENCH"/*.csv

start_cluster "$BENCH" "$PORT" "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 2GB
work_mem = 64MB
max_worker_processes = 8
max_parallel_workers = 4
autovacuum = off
jit = off
shared_preload_libraries = 'wide'
wide.shared_block_cache_size = 256MB"
trap 'stop_cluster "$BENCH"' EXIT

log "loading and querying"
python3 "$PY" bench --dir "$BENCH" --psql "$PG_BINDIR/psql" --host "$BENCH" --port "$PORT" "${ARGS[@]}"
