#!/usr/bin/env bash
#
# bench/quantile.sh [HOSTS] [SECONDS_PER_READING] -- p99 per minute per host
# for a day (issue 29 item 2): percentile_cont over the raw heap rows
# against wide.quantile over a ddsketch rollup's cells, same server, same
# run, alternating, median of 5; and the rollup's error against
# percentile_disc (the documented bound: 1% relative, every bucket).
# Defaults: 20 hosts, one reading per 10 s (6 per bucket); the rollup's
# cost does not grow with the readings per bucket, the heap's does (STEP 1:
# 60 per bucket).  COMPACT=0 reads the rollup as loaded, not compacted.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54334, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench-quantile), stops it.  Run as root.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"

HOSTS=${1:-20}
STEP=${2:-10}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-quantile}
PORT=${WIDE_BENCH_PORT:-54334}

wide_install_deps
wide_test_user
wide_build_install
[ -f "$BENCH/data/postmaster.pid" ] && stop_cluster "$BENCH"
rm -rf "$BENCH"; mkdir -p "$BENCH"; chmod 755 "$BENCH"
[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$BENCH"
start_cluster "$BENCH" "$PORT" "work_mem = 256MB
max_parallel_workers_per_gather = 0
jit = off"
trap 'stop_cluster "$BENCH"' EXIT

PSQL="psql -X -q -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }

log "loading $HOSTS hosts x 1 day at one reading per $STEP s"
sql "CREATE EXTENSION wide;
SELECT setseed(0.5);
CREATE TABLE h (host text, t timestamptz, v int8);
-- latencies in microseconds: log-uniform over e^3, 2% of them 50x slower
INSERT INTO h SELECT 'host' || hst, date_trunc('day', now()) - interval '1 day' + i * interval '$STEP s',
       (exp(random() * 3 + (CASE WHEN random() < 0.02 THEN 4 ELSE 0 END)) * 1000)::int8
  FROM generate_series(1, $HOSTS) hst, generate_series(0, 86400 / $STEP - 1) i;
CREATE INDEX ON h (host, t);
VACUUM ANALYZE h;
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('w', 'm');
SELECT wide.create_family('w', 'p', rollup => '{\"source\": \"m\", \"bucket\": \"1 minute\",
  \"functions\": [\"count\", \"ddsketch\"], \"key_parts\": 1}');
INSERT INTO w SELECT host || '#' || extract(epoch FROM t)::int8, 'm', 'lat', t, int8send(v) FROM h;
VACUUM ANALYZE w;"
# the load is one statement, one sorted run: its rollup cells are still
# one ADD record per reading.  A table written over the day has been
# compacted, which folds each cell into one sketch; so is this one
# (wide.compact, major), unless COMPACT=0.
if [ "${COMPACT:-1}" = 1 ]; then
	sql "SELECT wide.compact('w', true);"
fi

HEAP="SELECT count(*) FROM (SELECT host, date_trunc('minute', t), percentile_cont(0.99) WITHIN GROUP (ORDER BY v)
  FROM h GROUP BY 1, 2) s;"
# the dashboard's hosts by row key: the rollup rows, not the raw cells
# stored after each of them
HOSTLIST=$(seq -f "'host%g'" -s, 1 "$HOSTS")
WIDE="SELECT count(*) FROM (SELECT row_key, ts, wide.quantile(value, 0.99)
  FROM w WHERE row_key IN ($HOSTLIST) AND family = 'p' AND qualifier = 'lat:ddsketch') s;"
ms() { as_test_user "$PSQL" <<<"\\timing on
$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'; }
heap=(); wide=()
for i in 1 2 3 4 5; do
	if [ $((i % 2)) -eq 1 ]; then heap+=("$(ms "$HEAP")"); wide+=("$(ms "$WIDE")")
	else wide+=("$(ms "$WIDE")"); heap+=("$(ms "$HEAP")"); fi
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
hm=$(median "${heap[@]}"); wm=$(median "${wide[@]}")
echo "p99 per minute per host, 1 day, $HOSTS hosts, a reading per $STEP s, compacted: ${COMPACT:-1} (load: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "  heap percentile_cont: median ${hm} ms   (${heap[*]})"
echo "  wide.quantile over the rollup: median ${wm} ms   (${wide[*]})"
echo "  ratio wide/heap: $(echo "scale=3; $wm / $hm" | bc)"
sql "\\pset footer off
WITH r AS MATERIALIZED (SELECT row_key, ts, wide.quantile(value, 0.99) AS q
                          FROM w WHERE family = 'p' AND qualifier = 'lat:ddsketch'),
     x AS MATERIALIZED (SELECT host, date_trunc('minute', t) AS b,
                               percentile_disc(0.99) WITHIN GROUP (ORDER BY v) AS e FROM h GROUP BY 1, 2)
SELECT 'skewed (the timed data)' AS data, count(*) AS buckets, round(max(abs(q - e) / e)::numeric, 5) AS max_rel_err,
       round(avg(abs(q - e) / e)::numeric, 5) AS mean_rel_err
  FROM r JOIN x ON x.host = r.row_key AND x.b = r.ts;
SELECT pg_size_pretty(pg_total_relation_size('h')) AS heap_size,
       pg_size_pretty(pg_total_relation_size('w')) AS wide_size_raw_and_rollup;"
# the error on random (uniform) readings too: a second table, 4 hosts, p50,
# p90, p99 and p99.9 of every bucket against percentile_disc
sql "\\pset footer off
CREATE TABLE hu AS SELECT 'host' || hst AS host, date_trunc('day', now()) - interval '1 day' + i * interval '$STEP s' AS t,
       (1 + random() * 1000000)::int8 AS v
  FROM generate_series(1, 4) hst, generate_series(0, 86400 / $STEP - 1) i;
CREATE TABLE wu (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('wu', 'm');
SELECT wide.create_family('wu', 'p', rollup => '{\"source\": \"m\", \"bucket\": \"1 minute\",
  \"functions\": [\"ddsketch\"], \"key_parts\": 1}');
INSERT INTO wu SELECT host || '#' || extract(epoch FROM t)::int8, 'm', 'lat', t, int8send(v) FROM hu;
WITH r AS MATERIALIZED (SELECT row_key, ts, q, wide.quantile(value, q) AS est
                          FROM wu, unnest('{0.5, 0.9, 0.99, 0.999}'::float8[]) q
                         WHERE family = 'p' AND qualifier = 'lat:ddsketch'),
     x AS MATERIALIZED (SELECT host, date_trunc('minute', t) AS b, q,
                               percentile_disc(q) WITHIN GROUP (ORDER BY v) AS e
                          FROM hu, unnest('{0.5, 0.9, 0.99, 0.999}'::float8[]) q GROUP BY 1, 2, 3)
SELECT 'random (uniform)' AS data, count(*) AS quantiles, round(max(abs(est - e) / e)::numeric, 5) AS max_rel_err,
       round(avg(abs(est - e) / e)::numeric, 5) AS mean_rel_err
  FROM r JOIN x ON x.host = r.row_key AND x.b = r.ts AND x.q = r.q;"
