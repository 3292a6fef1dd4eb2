#!/usr/bin/env bash
#
# bench/hll.sh -- accuracy of wide's HyperLogLog (precision 14) against the
# hll extension packaged by Debian (postgresql-15-hll), on the same inputs
# in the same run: for 1e3, 1e5 and 1e7 distinct int8 inputs, several trials
# on disjoint ranges, the mean and root-mean-square relative error of the
# estimate.  hll is measured at its defaults (log2m 11, 5-bit registers)
# and at log2m 14 (the same number of registers as wide; 5-bit registers,
# since hll 2.x answers NaN for 6-bit ones at this size).  Both hash int8
# inputs with MurmurHash3 x64 128, seed 0.
#
# Also checks that a cell of an hll family holds exactly the sketch that
# wide.hll_add_agg builds from the same inputs, so the accuracy measured on
# sketches is the accuracy of stored cells.
#
# Starts its own server (port 54333, data in /tmp/wide-bench-hll).
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

BENCH=/tmp/wide-bench-hll
PORT=54333

wide_install_deps
if ! dpkg-query -W -f='${Status}' "postgresql-$PG_MAJOR-hll" 2>/dev/null | grep -q "install ok installed"; then
	log "installing postgresql-$PG_MAJOR-hll"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$PG_MAJOR-hll" >/dev/null
fi
wide_test_user
wide_build_install
bench_server "work_mem = 256MB
max_parallel_workers_per_gather = 0
jit = off"

PSQL="psql -X -q -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }

sql "CREATE EXTENSION wide; CREATE EXTENSION hll;"

log "stored cell = hll_add_agg of the same inputs (100,000 inputs)"
sql "CREATE TABLE v (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('v', 'u', aggregate => 'hll');
SELECT count(*) FROM (SELECT wide.add_to_cell('v', 'r', 'u', 'q', '2030-01-01', g::int8)
                        FROM generate_series(1, 100000) g) s;
SELECT FROM wide.compact('v', major => true);
SELECT CASE WHEN (SELECT value FROM v) = (SELECT wide.hll_add_agg(g::int8) FROM generate_series(1, 100000) g)
            THEN 'same sketch' ELSE 'DIFFERENT' END AS stored_vs_agg;" | grep -q "same sketch" ||
	{ echo "stored sketch differs from hll_add_agg" >&2; exit 1; }
echo "stored cell = hll_add_agg: same sketch"

log "relative error by number of distinct inputs"
sql "\\pset footer off
WITH sizes(n, trials) AS (VALUES (1000, 100), (100000, 30), (10000000, 3)),
est AS (
  SELECT n, t,
         wide.hll_count(wide.hll_add_agg(t::int8 * 1000000000000 + g))::float8 AS wide14,
         hll_cardinality(hll_add_agg(hll_hash_bigint(t::int8 * 1000000000000 + g))) AS hll_default,
         hll_cardinality(hll_add_agg(hll_hash_bigint(t::int8 * 1000000000000 + g), 14, 5)) AS hll14
    FROM sizes, generate_series(1, trials) t, generate_series(1, n) g
   GROUP BY n, t)
SELECT n AS distinct_inputs, count(*) AS trials,
       round(100 * avg(wide14 / n - 1)::numeric, 3) AS wide_bias_pct,
       round(100 * sqrt(avg((wide14 / n - 1) ^ 2))::numeric, 3) AS wide_rms_pct,
       round(100 * avg(hll14 / n - 1)::numeric, 3) AS hll14_bias_pct,
       round(100 * sqrt(avg((hll14 / n - 1) ^ 2))::numeric, 3) AS hll14_rms_pct,
       round(100 * avg(hll_default / n - 1)::numeric, 3) AS hll11_bias_pct,
       round(100 * sqrt(avg((hll_default / n - 1) ^ 2))::numeric, 3) AS hll11_rms_pct
  FROM est GROUP BY n ORDER BY n;"
echo "(documented bound for wide: standard error 1.04/sqrt(16384) = 0.81%; for hll at log2m 11: 2.3%)"
echo "sketch bytes: wide sparse 4 + 4 per non-zero register up to 2048, then 16388; hll log2m 14 dense: $(sql "\\pset tuples_only on
SELECT (length(hll_add_agg(hll_hash_bigint(g), 14, 5)::text) - 2) / 2 FROM generate_series(1, 100000) g;" | tr -d ' \n')"
