#!/usr/bin/env bash
#
# bench/ranges.sh [hosts] [hours] -- many key ranges from SQL (issue 26):
# an OR of 8 hosts' 1-hour ranges, split_part(row_key, '#', 1) IN 8 hosts,
# and a join with a table of 8 hosts, on a TSBS-like cell table (row key
# host_N#epochseconds, a reading every 10 s, 10 qualifiers; default 100
# hosts x 24 h = 8.64M cells), on a heap with a btree on (row_key, family,
# qualifier, ts desc) holding the same cells, and on wide with
# wide.enable_range_lists off (before: the whole table with a Filter) and on
# (a seek per range).  Each query runs in pgbench (one client, $DURATION s)
# in the order heap, off, on, on, off, heap; the mean latency of each side
# is its two runs' mean.  Answers are compared once.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54334, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench-ranges), stops it.  Run as root.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

HOSTS=${1:-100}
HOURS=${2:-24}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-ranges}
PORT=${WIDE_BENCH_PORT:-54334}
DURATION=${DURATION:-5}
T0=1451606400					# 2016-01-01, TSBS's start
STEPS=$((HOURS * 360))

wide_install_deps
wide_test_user
wide_build_install
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 2GB
work_mem = 64MB
max_parallel_workers_per_gather = 0
autovacuum = off
jit = off
shared_preload_libraries = 'wide'
wide.shared_block_cache_size = 256MB"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
PGBENCH="pgbench -h $BENCH -p $PORT -U postgres -n"

log "generating $((HOSTS * STEPS * 10)) cells: $HOSTS hosts x $HOURS h at 10 s x 10 qualifiers"
sql "CREATE EXTENSION wide;
COPY (
  SELECT 'host_' || h || '#' || ($T0 + r * 10), 'cpu', q.name,
         to_timestamp($T0 + r * 10), round(50 + 30 * sin(r / 50.0 + h + q.i) + random() * 10)::float8
    FROM generate_series(0, $HOSTS - 1) h, generate_series(0, $STEPS - 1) r,
         unnest(ARRAY['usage_user', 'usage_system', 'usage_idle', 'usage_nice',
                      'usage_iowait', 'usage_irq', 'usage_softirq', 'usage_steal',
                      'usage_guest', 'usage_guest_nice']) WITH ORDINALITY AS q(name, i)
) TO '$BENCH/cells.csv' (FORMAT csv);
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz,
                value float8) USING wide;
SELECT wide.create_family('w', 'cpu', max_versions => 1);
CREATE TABLE h (row_key text COLLATE \"C\", family text COLLATE \"C\",
                qualifier text COLLATE \"C\", ts timestamptz, value float8);
CREATE INDEX h_key ON h (row_key, family, qualifier, ts DESC);"
log "loading"
sql "COPY w FROM '$BENCH/cells.csv' (FORMAT csv);
SELECT FROM wide.compact('w', major => true);
VACUUM ANALYZE w;"
sql "COPY h FROM '$BENCH/cells.csv' (FORMAT csv);
VACUUM ANALYZE h;
CREATE TABLE hosts8 AS SELECT 'host_' || (i * $HOSTS / 8 + 1) AS name FROM generate_series(0, 7) i;
ANALYZE hosts8;
CHECKPOINT;"
rm -f "$BENCH/cells.csv"
sql "SELECT 'sizes: heap ' || pg_size_pretty(pg_total_relation_size('h')) || ', wide ' || pg_size_pretty(pg_total_relation_size('w'));"

latency() {
	as_test_user "PGOPTIONS='$2' $PGBENCH -c 1 -T $DURATION -f '$1' postgres" 2>/dev/null |
		sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}
OFF='-c wide.enable_range_lists=off'
ON='-c wide.enable_range_lists=on'
HOSTLIST=$(sql "SELECT string_agg(quote_literal(name), ', ') FROM hosts8")

# query NAME SQL (@ the table, :m a random hour)
query() {
	local name=$1 q=$2 n
	n=$(echo "$name" | tr -c 'a-z0-9' _)
	printf '\\set m random(0, %d)\n%s\n' $((HOURS - 1)) "${q//@/h}" > "$BENCH/$n-heap.sql"
	printf '\\set m random(0, %d)\n%s\n' $((HOURS - 1)) "${q//@/w}" > "$BENCH/$n-wide.sql"
	chmod 644 "$BENCH/$n-heap.sql" "$BENCH/$n-wide.sql"
	local h1 f1 o1 o2 f2 h2
	h1=$(latency "$BENCH/$n-heap.sql" "$ON"); f1=$(latency "$BENCH/$n-wide.sql" "$OFF")
	o1=$(latency "$BENCH/$n-wide.sql" "$ON"); o2=$(latency "$BENCH/$n-wide.sql" "$ON")
	f2=$(latency "$BENCH/$n-wide.sql" "$OFF"); h2=$(latency "$BENCH/$n-heap.sql" "$ON")
	local fixed a b c
	fixed=$(sed "s/:m/7/g" <<<"$q")
	a=$(sql "${fixed//@/h}"); b=$(sql "SET wide.enable_range_lists = off; ${fixed//@/w}")
	c=$(sql "${fixed//@/w}")
	[ "$a" = "$b" ] && [ "$a" = "$c" ] || { echo "DIFFERENT RESULTS: $name: $a / $b / $c" >&2; }
	python3 - "$name" <<PY
import sys
h, f, o = ($h1 + $h2) / 2, ($f1 + $f2) / 2, ($o1 + $o2) / 2
print('| %s | %.2f | %.2f | %.2f | %.1f | %.2f |' % (sys.argv[1], h, f, o, f / o, o / h))
PY
}

RANGES=$(sql "SELECT string_agg(format('(row_key >= %L || (%s + :m * 3600) AND row_key < %L || (%s + :m * 3600 + 3600))',
                                       name || '#', $T0, name || '#', $T0), ' OR ') FROM hosts8")
echo "| query | heap ms | wide, lists off ms | wide, lists on ms | off/on | on/heap |"
echo "|---|---:|---:|---:|---:|---:|"
query "OR of 8 hosts' 1-hour ranges: count, avg" \
	"SELECT count(*), avg(value) FROM @ WHERE $RANGES;"
query "split_part(row_key, '#', 1) IN 8 hosts: count, max" \
	"SELECT count(*), max(value) FROM @ WHERE split_part(row_key, '#', 1) IN ($HOSTLIST);"
query "split_part IN 8 hosts, 1 hour: count, avg" \
	"SELECT count(*), avg(value) FROM @ WHERE split_part(row_key, '#', 1) IN ($HOSTLIST)
	   AND ts >= to_timestamp($T0 + :m * 3600) AND ts < to_timestamp($T0 + :m * 3600 + 3600);"
query "JOIN hosts8 ON split_part(row_key, '#', 1) = name: count" \
	"SELECT count(*) FROM hosts8 JOIN @ ON split_part(row_key, '#', 1) = hosts8.name;"
sql "EXPLAIN SELECT split_part(row_key, '#', 1), count(*) FROM w GROUP BY 1;" | head -1
sql "CREATE STATISTICS w_host ON (split_part(row_key, '#', 1)) FROM w; ANALYZE w;
     EXPLAIN SELECT split_part(row_key, '#', 1), count(*) FROM w GROUP BY 1;" | head -1
