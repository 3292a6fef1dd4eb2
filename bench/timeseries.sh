#!/usr/bin/env bash
#
# bench/timeseries.sh [hosts] [minutes] -- the queries a time-series user
# writes, on wide and on a heap table with a btree on (row_key, family,
# qualifier, ts desc), the same data, in one run.
#
# Data: the server-metrics table of issue 11: hosts x minutes x 14 metrics
# (default 50 x 1,440 = 1,008,000 cells), row key hostN#millis, one reading a
# minute, float8 values, loaded with COPY; then wide is compacted and both
# are VACUUM ANALYZEd.  Each query runs in pgbench (one client) for
# $DURATION seconds on the heap, on wide, on wide again and on the heap
# again; the report is the mean latency of each and the ratio wide / heap
# (lower is better for wide).
#
# Queries are declared in one place below (query NAME 'heap sql' 'wide sql'
# [workers]); the two texts differ only where wide has its own function
# (read_rows, read_row).  pgbench variables: :h a random host, :m a random
# minute, with $T0 the first reading in ms and $TEND the last.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54332, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench-ts), stops it.  The heap gets 2 GB of
# shared buffers, which hold all of it; wide is preloaded with a 256 MB
# shared block cache (src/engine/sharedcache.c), which holds the 10M-cell
# table's decompressed blocks (about 125 MB), beside its pages in the same
# shared buffers.
# Run as root.  `bench/timeseries.sh 500` gives the 10M-cell table (the
# scale of issue 11's targets; give it an idle machine: DURATION=6
# bench/timeseries.sh 500 takes about 20 minutes).
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

HOSTS=${1:-50}
MINUTES=${2:-1440}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-ts}	# overridable, for runs side by side
PORT=${WIDE_BENCH_PORT:-54332}
DURATION=${DURATION:-5}			# seconds of each pgbench run
T0=1426535612000				# first reading, ms since 1970
TEND=$((T0 + (MINUTES - 1) * 60000))
CELLS=$((HOSTS * MINUTES * 14))

wide_install_deps
wide_test_user
wide_build_install
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 2GB
work_mem = 64MB
max_worker_processes = 8
max_parallel_workers = 4
max_parallel_workers_per_gather = 0
autovacuum = off
jit = off
shared_preload_libraries = 'wide'
wide.shared_block_cache_size = 256MB"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
PGBENCH="pgbench -h $BENCH -p $PORT -U postgres -n"

log "generating $CELLS cells: $HOSTS hosts x $MINUTES minutes x 14 metrics"
sql "CREATE EXTENSION wide;
COPY (
  SELECT 'host' || h || '#' || ($T0 + r * 60000), 'm', m.name,
         to_timestamp(($T0 + r * 60000) / 1000.0),
         round((50 + 40 * sin(r / 100.0 + h + m.i) + random() * 5)::numeric, 2)
    FROM generate_series(1, $HOSTS) h,
         generate_series(0, $MINUTES - 1) r,
         unnest(ARRAY['cpu/usr', 'cpu/sys', 'cpu/idle', 'cpu/iowait',
                      'mem/used', 'mem/free', 'mem/cached',
                      'disk/read', 'disk/write', 'disk/util',
                      'net/rx', 'net/tx', 'load/1m', 'load/5m'])
           WITH ORDINALITY AS m(name, i)
) TO '$BENCH/cells.csv' (FORMAT csv);
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz,
                value float8) USING wide;
SELECT wide.create_family('w', 'm');
CREATE TABLE h (row_key text COLLATE \"C\", family text COLLATE \"C\",
                qualifier text COLLATE \"C\", ts timestamptz, value float8);
CREATE INDEX h_key ON h (row_key, family, qualifier, ts DESC);
COPY w FROM '$BENCH/cells.csv' (FORMAT csv);
COPY h FROM '$BENCH/cells.csv' (FORMAT csv);
SELECT FROM wide.compact('w', major => true);
VACUUM ANALYZE w;
VACUUM ANALYZE h;
-- 100 existing keys, the outer side of a join keyed by row_key
CREATE TABLE probe AS
  SELECT 'host' || (1 + i % $HOSTS) || '#' || ($T0 + ((i * 7919) % $MINUTES) * 60000) AS k
    FROM generate_series(1, 100) i;
ANALYZE probe;
CHECKPOINT;"

# pgbench mean latencies (ms) of two scripts, "A B": four runs of one
# client, $DURATION seconds each, in the order A B B A, each side's the
# mean of its two, so that a machine whose speed drifts (a shared host)
# slows both alike.  Each run is a new connection: wide's block cache is
# the backend's, so every run starts with it empty (the heap's shared
# buffers stay warm)
latency() {
	local file=$1 workers=$2
	as_test_user "PGOPTIONS='-c max_parallel_workers_per_gather=$workers' $PGBENCH -c 1 -T $DURATION -f '$file' postgres" 2>/dev/null |
		sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}
latencies() {
	local a=$1 b=$2 workers=$3 a1 b1 b2 a2
	a1=$(latency "$a" "$workers"); b1=$(latency "$b" "$workers")
	b2=$(latency "$b" "$workers"); a2=$(latency "$a" "$workers")
	python3 -c "print('%.3f %.3f' % (($a1 + $a2) / 2, ($b1 + $b2) / 2))"
}

VARS="\\set h random(1, $HOSTS)
\\set m random(0, $((MINUTES - 1)))"
NAMES=()
declare -A R		# R[name,heap] R[name,wide] latencies in ms

# same_results FILE_A FILE_B: the same rows, in any order; floats equal to
# a relative 1e-12 (sums in another order differ in the last bits, and
# rounding both to a number of digits can still tell them apart)
same_results() {
	python3 - "$1" "$2" <<'PY'
import sys
def rows(f):
    return sorted(l.rstrip("\n").split("|") for l in open(f))
def same(x, y):
    if x == y:
        return True
    try:
        a, b = float(x), float(y)
    except ValueError:
        return False
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1.0)
a, b = rows(sys.argv[1]), rows(sys.argv[2])
ok = len(a) == len(b) and all(len(r) == len(q) and all(same(x, y) for x, y in zip(r, q))
                              for r, q in zip(a, b))
sys.exit(0 if ok else 1)
PY
}

# query NAME HEAP_SQL WIDE_SQL [WORKERS]: time both, and check that they
# return the same result once (a benchmark of a wrong answer is worthless)
query() {
	local name=$1 hsql=$2 wsql=$3 workers=${4:-0} n=${#NAMES[@]}
	NAMES+=("$name")
	local check="\\set h 7
\\set m 700"
	printf '%s\n%s\n' "$VARS" "$hsql" > "$BENCH/q$n-heap.sql"
	printf '%s\n%s\n' "$VARS" "$wsql" > "$BENCH/q$n-wide.sql"
	chmod 644 "$BENCH/q$n-heap.sql" "$BENCH/q$n-wide.sql"
	read -r "R[$n,heap]" "R[$n,wide]" < <(latencies "$BENCH/q$n-heap.sql" "$BENCH/q$n-wide.sql" "$workers")
	# the same query with fixed variables, results compared as sorted text
	sql "$(sed "s/:h/7/g; s/:m/700/g" <<<"$hsql")" > "$BENCH/r-heap.txt"
	sql "$(sed "s/:h/7/g; s/:m/700/g" <<<"$wsql")" > "$BENCH/r-wide.txt"
	same_results "$BENCH/r-heap.txt" "$BENCH/r-wide.txt" ||
		{ echo "DIFFERENT RESULTS: $name" >&2; R[$n,wide]=nan; }
	log "$name: heap ${R[$n,heap]} ms, wide ${R[$n,wide]} ms"
}
both() { query "$1" "${2//@/h}" "${2//@/w}" "${3:-0}"; }

LAST1PCT=$((TEND - (MINUTES * 60000) / 100))

# ---------------------------------------------------------------- queries
both "ts > now() - 10 s (0 rows)" \
	"SELECT count(*) FROM @ WHERE ts > now() - interval '10 seconds';"
both "last 1% of time, all hosts: count, max" \
	"SELECT count(*), max(value) FROM @ WHERE ts >= to_timestamp($LAST1PCT / 1000.0);"
query "last 1% of time: read_rows timestamp_range_filter" \
	"SELECT count(*), max(value) FROM h WHERE ts >= to_timestamp($LAST1PCT / 1000.0);" \
	"SELECT count(*), max(value) FROM wide.read_rows(NULL::w, filter => wide.ts_range(to_timestamp($LAST1PCT / 1000.0)));"
both "one hour, all hosts: max" \
	"SELECT max(value) FROM @ WHERE ts >= to_timestamp(($T0 + :m * 60000) / 1000.0)
	   AND ts < to_timestamp(($T0 + :m * 60000) / 1000.0) + interval '1 hour';"
both "LIKE 'hostN#%' AND last hour" \
	"SELECT count(*), avg(value) FROM @ WHERE row_key LIKE 'host' || :h || '#%'
	   AND ts > to_timestamp($TEND / 1000.0) - interval '1 hour';"
both "latest row of a host: ORDER BY row_key DESC LIMIT 14" \
	"SELECT * FROM @ WHERE row_key >= 'host' || :h || '#' AND row_key < 'host' || :h || '\$'
	 ORDER BY row_key DESC LIMIT 14;"
both "latest 14 cells of a host, full reverse order" \
	"SELECT * FROM @ WHERE row_key >= 'host' || :h || '#' AND row_key < 'host' || :h || '\$'
	 ORDER BY row_key DESC, family DESC, qualifier DESC, ts LIMIT 14;"
both "latest row of a host before a minute (as of)" \
	"SELECT * FROM @ WHERE row_key >= 'host' || :h || '#' AND row_key < 'host' || :h || '#' || ($T0 + :m * 60000)
	 ORDER BY row_key DESC LIMIT 14;"
query "latest row of a host: read_rows reversed, limit 1" \
	"SELECT * FROM h WHERE row_key = (SELECT max(row_key) FROM h WHERE row_key >= 'host' || :h || '#' AND row_key < 'host' || :h || '\$');" \
	"SELECT * FROM wide.read_rows(NULL::w, prefix => 'host' || :h || '#', \"limit\" => 1, reversed => true);"
query "1000-row range to client: read_rows vs WHERE" \
	"SELECT * FROM h WHERE row_key >= 'host' || :h || '#' || $T0 AND row_key < 'host' || :h || '#' || ($T0 + 1000 * 60000);" \
	"SELECT * FROM wide.read_rows(NULL::w, start_key => 'host' || :h || '#' || $T0, end_key => 'host' || :h || '#' || ($T0 + 1000 * 60000));"
query "one row: read_row vs WHERE row_key =" \
	"SELECT * FROM h WHERE row_key = 'host' || :h || '#' || ($T0 + :m * 60000);" \
	"SELECT * FROM wide.read_row(NULL::w, 'host' || :h || '#' || ($T0 + :m * 60000));"
# the same reads without sending 14,000 rows to the client (the read itself)
query "1000-row range, aggregated: read_rows vs WHERE" \
	"SELECT count(*), avg(value), max(ts) FROM h WHERE row_key >= 'host' || :h || '#' || $T0 AND row_key < 'host' || :h || '#' || ($T0 + 1000 * 60000);" \
	"SELECT count(*), avg(value), max(ts) FROM wide.read_rows(NULL::w, start_key => 'host' || :h || '#' || $T0, end_key => 'host' || :h || '#' || ($T0 + 1000 * 60000));"
query "1000-row range, one metric: read_rows filter vs WHERE" \
	"SELECT * FROM h WHERE row_key >= 'host' || :h || '#' || $T0 AND row_key < 'host' || :h || '#' || ($T0 + 1000 * 60000) AND qualifier = 'cpu/usr';" \
	"SELECT * FROM wide.read_rows(NULL::w, start_key => 'host' || :h || '#' || $T0, end_key => 'host' || :h || '#' || ($T0 + 1000 * 60000), filter => wide.qualifier_filter('cpu/usr'));"
query "100 rows by key: LATERAL read_row vs join" \
	"SELECT count(*), avg(h.value) FROM generate_series(0, 99) i JOIN h ON h.row_key = 'host' || :h || '#' || ($T0 + (:m + i) % $MINUTES * 60000);" \
	"SELECT count(*), avg(r.value) FROM generate_series(0, 99) i, LATERAL wide.read_row(NULL::w, 'host' || :h || '#' || ($T0 + (:m + i) % $MINUTES * 60000)) r;"
both "one minute, all hosts: LIKE '%#millis'" \
	"SELECT count(*), avg(value) FROM @ WHERE row_key LIKE '%#' || ($T0 + :m * 60000);"
both "starts_with(row_key, 'hostN#')" \
	"SELECT count(*), avg(value) FROM @ WHERE starts_with(row_key, 'host' || :h || '#');"
both "ILIKE 'hostN#%'" \
	"SELECT count(*), avg(value) FROM @ WHERE row_key ILIKE 'host' || :h || '#%';"
both "one metric of a host: LIKE 'hostN#%' AND qualifier =" \
	"SELECT count(*), avg(value) FROM @ WHERE row_key LIKE 'host' || :h || '#%' AND qualifier = 'cpu/usr';"
both "one metric, all hosts: qualifier = (full scan)" \
	"SELECT count(*), max(value) FROM @ WHERE qualifier = 'cpu/usr';"
both "join on row_key: 100 probe keys" \
	"SELECT count(*), avg(t.value) FROM probe p JOIN @ t ON t.row_key = p.k;"
both "count/avg of everything, 1 process" "SELECT count(*), avg(value) FROM @;" 0
both "count/avg of everything, 2 workers" "SELECT count(*), avg(value) FROM @;" 2
# the same two without the Wide Aggregate (src/am/scan_agg.c): PostgreSQL's
# Aggregate over the rows of the Wide Scan
query "count/avg of everything, 1 process, no agg pushdown" \
	"SELECT count(*), avg(value) FROM h;" \
	"SET wide.enable_aggregate_pushdown = off; SELECT count(*), avg(value) FROM w;" 0
query "count/avg of everything, 2 workers, no agg pushdown" \
	"SELECT count(*), avg(value) FROM h;" \
	"SET wide.enable_aggregate_pushdown = off; SELECT count(*), avg(value) FROM w;" 2
both "count, sum, min, max of value and ts, 2 workers" \
	"SELECT count(*), sum(value), min(value), max(value), min(ts), max(ts) FROM @;" 2
both "hosts 1, 10-19 (a 22% key range): count/avg, 2 workers" \
	"SELECT count(*), avg(value) FROM @ WHERE row_key >= 'host1#' AND row_key < 'host2#';" 2
both "one hour, all hosts: max, 2 workers" \
	"SELECT max(value) FROM @ WHERE ts >= to_timestamp(($T0 + :m * 60000) / 1000.0)
	   AND ts < to_timestamp(($T0 + :m * 60000) / 1000.0) + interval '1 hour';" 2

# time pruning: data blocks wide read and skipped for the time windows (the
# table has no tombstones and no max_versions family, so the blocks read are
# exactly those whose ts range overlaps the window; see engine/tsprune.c)
blocks() {
	sql "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $1" |
		sed -n 's/^ *\(Blocks Read\|Blocks Skipped by ts\|Index Blocks Skipped by ts\): \([0-9]*\)$/\1 \2/p' |
		paste -sd, -
}
PRUNING=("last 1% of time: $(blocks "SELECT count(*) FROM w WHERE ts >= to_timestamp($LAST1PCT / 1000.0)")"
	"ts > now() - 10 s: $(blocks "SELECT count(*) FROM w WHERE ts > now() - interval '10 seconds'")"
	"one hour at minute 700: $(blocks "SELECT max(value) FROM w WHERE ts >= to_timestamp(($T0 + 700 * 60000) / 1000.0) AND ts < to_timestamp(($T0 + 700 * 60000) / 1000.0) + interval '1 hour'")")

# ---------------------------------------------------------------- report
printf '\ncells: %s (%s hosts x %s minutes x 14 metrics)\n' "$CELLS" "$HOSTS" "$MINUTES"
printf '| %-55s | %10s | %10s | %9s |\n' query "heap ms" "wide ms" wide/heap
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..57})" "------------" "------------" "-----------"
for n in "${!NAMES[@]}"; do
	h=${R[$n,heap]:-nan} w=${R[$n,wide]:-nan}
	ratio=$(python3 -c "
h, w = float('$h' or 'nan'), float('$w' or 'nan')
print(f'{w / h:.2f}' if h == h and w == w and h > 0 else 'n/a')")
	printf '| %-55s | %10s | %10s | %9s |\n' "${NAMES[$n]}" "$h" "$w" "$ratio"
done
printf '\ntime pruning (wide data blocks):\n'
printf '  %s\n' "${PRUNING[@]}"
