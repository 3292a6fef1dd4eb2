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
source "$(dirname "$0")/lib/server.sh"

HOSTS=${1:-20}
STEP=${2:-10}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-quantile}
PORT=${WIDE_BENCH_PORT:-54334}

wide_install_deps
wide_test_user
wide_build_install
bench_server "work_mem = 256MB
max_parallel_workers_per_gather = 0
jit = off"

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

# both sides compute every bucket's p99 (a sum of them, so that none is
# left out: count(*) over the rollup's rows would never call wide.quantile)
HEAP="SELECT sum(q) FROM (SELECT host, date_trunc('minute', t), percentile_cont(0.99) WITHIN GROUP (ORDER BY v) AS q
  FROM h GROUP BY 1, 2) s;"
# the dashboard's hosts by row key: the rollup rows, not the raw cells
# stored after each of them
HOSTLIST=$(seq -f "'host%g'" -s, 1 "$HOSTS")
WIDE="SELECT sum(q) FROM (SELECT row_key, ts, wide.quantile(value, 0.99) AS q
  FROM w WHERE row_key IN ($HOSTLIST) AND family = 'p' AND qualifier = 'lat:ddsketch') s;"
# one session runs both, alternating, 5 times each (after one of each to
# warm up); each run's wall time (\timing) and the CPU time its backend
# spent (/proc/PID/schedstat, read before and after: on a loaded machine
# wall times are mostly waiting for a core)
OUT=$BENCH/times; rm -f "$OUT"; as_test_user "touch '$OUT'"
{
	echo "\\timing on"
	echo "SELECT pg_backend_pid() AS pid \\gset"
	echo "\\setenv BPID :pid"
	echo "\\o /dev/null"
	echo "$HEAP"; echo "$WIDE"
	for i in 1 2 3 4 5; do
		if [ $((i % 2)) -eq 1 ]; then order="HEAP WIDE"; else order="WIDE HEAP"; fi
		for q in $order; do
			echo "\\! awk '{print \"$q\", \$1}' /proc/\$BPID/schedstat >> $OUT"
			echo "${!q}"
			echo "\\! awk '{print \"$q\", \$1}' /proc/\$BPID/schedstat >> $OUT"
		done
	done
} > "$BENCH/runs.sql"
chmod 644 "$BENCH/runs.sql"
walls=$(as_test_user "$PSQL -f '$BENCH/runs.sql'" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 10)
# the runs' order: H W, W H, H W, W H, H W
heap=(); wide=(); i=0
for t in $walls; do
	case $i in 0|3|4|7|8) heap+=("$t");; *) wide+=("$t");; esac
	i=$((i + 1))
done
cpu() { awk -v q="$1" '$1 == q { if (s == "") s = $2; else { printf "%.1f\n", ($2 - s) / 1e6; s = "" } }' "$OUT"; }
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
hm=$(median "${heap[@]}"); wm=$(median "${wide[@]}")
hc=($(cpu HEAP)); wc=($(cpu WIDE))
hcm=$(median "${hc[@]}"); wcm=$(median "${wc[@]}")
echo "p99 per minute per host, 1 day, $HOSTS hosts, a reading per $STEP s, compacted: ${COMPACT:-1} (load: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "  heap percentile_cont: median ${hm} ms wall (${heap[*]}), ${hcm} ms CPU (${hc[*]})"
echo "  wide.quantile over the rollup: median ${wm} ms wall (${wide[*]}), ${wcm} ms CPU (${wc[*]})"
echo "  ratio wide/heap: $(echo "scale=3; $wm / $hm" | bc) wall, $(echo "scale=3; $wcm / $hcm" | bc) CPU"
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
