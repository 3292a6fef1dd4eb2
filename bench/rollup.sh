#!/usr/bin/env bash
#
# bench/rollup.sh [hosts] [minutes] -- a dashboard from a rollup merged on
# write, against the raw scan of the same wide table and a heap table, in
# one run.
#
# Data: the server-metrics METRIC pattern: row key hostN#millis, one reading
# a minute of 4 metrics as int8 milli-units (default 50 hosts x 1,440
# minutes = 288,000 cells, a day).  The wide table has a rollup family
# m5 of m: 5-minute buckets, sum and count (and min, max), under the key's
# first part (key_parts 1: 'hostN').  Loaded with COPY into: the heap table
# (btree on row_key, family, qualifier, ts), the wide table without its
# rollup, and the wide table with it (what the rollup costs a load).
#
# The dashboard query: avg cpu per 5 minutes per host over the day.
#   rollup   two cells per host and bucket (sum and count), read by key
#   raw      a scan of the wide table's cells of cpu, GROUP BY
#   heap     the same GROUP BY on the heap table
# Each runs for $DURATION seconds in pgbench (one client); the three must
# return the same rows (checked once).  Report: mean latencies and ratios.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54333, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench-rollup), stops it.  Run as root.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

HOSTS=${1:-50}
MINUTES=${2:-1440}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-rollup}
PORT=${WIDE_BENCH_PORT:-54333}
DURATION=${DURATION:-5}
T0=1699999800000				# first reading, ms since 1970 (a bucket start)
CELLS=$((HOSTS * MINUTES * 4))

wide_install_deps
wide_test_user
wide_build_install
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 1GB
work_mem = 64MB
max_parallel_workers_per_gather = 0
autovacuum = off
jit = off"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
PGBENCH="pgbench -h $BENCH -p $PORT -U postgres -n"
now_ms() { date +%s%3N; }

log "generating $CELLS cells: $HOSTS hosts x $MINUTES minutes x 4 metrics"
sql "CREATE EXTENSION wide;
COPY (
  SELECT 'host' || h || '#' || ($T0 + r * 60000), 'm', m.name,
         to_timestamp(($T0 + r * 60000) / 1000.0),
         (50000 + 40000 * sin(r / 100.0 + h + m.i) + random() * 5000)::int8
    FROM generate_series(1, $HOSTS) h,
         generate_series(0, $MINUTES - 1) r,
         unnest(ARRAY['cpu', 'mem', 'disk', 'net']) WITH ORDINALITY AS m(name, i)
) TO '$BENCH/cells.csv' (FORMAT csv);
CREATE TABLE h (row_key text COLLATE \"C\", family text COLLATE \"C\",
                qualifier text COLLATE \"C\", ts timestamptz, value int8);
CREATE INDEX h_key ON h (row_key, family, qualifier, ts DESC);
CREATE TABLE w0 (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('w0', 'm');
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('w', 'm');
SELECT wide.create_family('w', 'm5', rollup => '{\"source\": \"m\", \"bucket\": \"5 minutes\",
  \"functions\": [\"sum\", \"count\", \"min\", \"max\"], \"key_parts\": 1}');"

declare -A LOAD
for t in h w0 w; do
	a=$(now_ms)
	sql "COPY $t FROM '$BENCH/cells.csv' (FORMAT csv);"
	LOAD[$t]=$(($(now_ms) - a))
done
log "COPY: heap ${LOAD[h]} ms, wide ${LOAD[w0]} ms, wide with rollup ${LOAD[w]} ms"
sql "SELECT FROM wide.compact('w0', major => true); SELECT FROM wide.compact('w', major => true);
VACUUM ANALYZE h; VACUUM ANALYZE w0; VACUUM ANALYZE w; CHECKPOINT;"

HOSTLIST=$(seq -s, 1 "$HOSTS" | sed 's/\([0-9]\+\)/host\1/g')
Q_ROLLUP="SELECT row_key AS host, ts AS bucket,
       round(sum(value) FILTER (WHERE qualifier = 'cpu:sum')::numeric /
             sum(value) FILTER (WHERE qualifier = 'cpu:count'), 3) AS avg_cpu
  FROM w WHERE row_key = ANY ('{$HOSTLIST}'::text[]) AND family = 'm5'
   AND qualifier IN ('cpu:sum', 'cpu:count')
 GROUP BY 1, 2;"
raw() {
	echo "SELECT split_part(row_key, '#', 1) AS host,
       to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS bucket,
       round(avg(value), 3) AS avg_cpu
  FROM $1 WHERE family = 'm' AND qualifier = 'cpu'
 GROUP BY 1, 2;"
}
Q_RAW=$(raw w)
Q_HEAP=$(raw h)

# the three answers must be the same rows
check() { sql "$1" | sort | md5sum; }
A=$(check "$Q_ROLLUP"); B=$(check "$Q_RAW"); C=$(check "$Q_HEAP")
N=$(sql "SELECT count(*) FROM (${Q_ROLLUP%;}) q")
[ "$A" = "$B" ] && [ "$B" = "$C" ] || { echo "DIFFERENT RESULTS: rollup $A raw $B heap $C" >&2; exit 1; }
log "the three queries return the same $N rows (hosts x 5-minute buckets)"

latency() {
	printf '%s\n' "$1" > "$BENCH/q.sql"; chmod 644 "$BENCH/q.sql"
	as_test_user "$PGBENCH -c 1 -T $DURATION -f '$BENCH/q.sql' postgres" 2>/dev/null |
		sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}
LR=$(latency "$Q_ROLLUP"); LW=$(latency "$Q_RAW"); LH=$(latency "$Q_HEAP")
echo
echo "rollup bench: $CELLS cells ($HOSTS hosts x $MINUTES minutes x 4 metrics), $N result rows"
printf '%-44s %10s\n' "dashboard: avg cpu per 5 min per host" "ms"
printf '%-44s %10s\n' "  wide rollup (2 cells per bucket)" "$LR"
printf '%-44s %10s\n' "  wide raw scan + GROUP BY" "$LW"
printf '%-44s %10s\n' "  heap scan + GROUP BY" "$LH"
python3 -c "print('  raw/rollup %.1fx, heap/rollup %.1fx' % ($LW / $LR, $LH / $LR))"
printf 'COPY ms: heap %s, wide %s, wide with rollup %s\n' "${LOAD[h]}" "${LOAD[w0]}" "${LOAD[w]}"
