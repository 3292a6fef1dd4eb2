#!/usr/bin/env bash
#
# bench/ingest.sh [cells] -- COPY ingest of the server-metrics data set
# (hosts x 20 metrics x a reading every 5 s) into a wide table and into a
# heap table with a btree on (row_key, family, qualifier, ts desc), in the
# same run on the same CSV file.  Prints cells/s, WAL bytes per cell and
# bytes on disk per cell for both, and the ratios.
#
# Starts its own server (port 54330, data in /tmp/wide-bench) and stops it.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"

CELLS=${1:-2000000}
BENCH=/tmp/wide-bench
PORT=54330

wide_install_deps
wide_test_user
wide_build_install
[ -f "$BENCH/data/postmaster.pid" ] && stop_cluster "$BENCH"
rm -rf "$BENCH"; mkdir -p "$BENCH"; chmod 755 "$BENCH"
[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$BENCH"
start_cluster "$BENCH" "$PORT" "checkpoint_timeout = 1h
synchronous_commit = on"
trap 'stop_cluster "$BENCH"' EXIT

SQL="psql -X -q -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
run() { as_test_user "$SQL -At -c \"$1\""; }

# the data set: readings every 5 s for hosts x 20 metrics, written in time
# order (as collectors send them), row key HOST#MILLIS
HOSTS=$(( (CELLS / 20 / 720) + 1 ))   # 720 readings = one hour per host
log "generating $CELLS cells ($HOSTS hosts x 20 metrics, readings every 5 s)"
as_test_user "$SQL" <<SQL
CREATE EXTENSION wide;
COPY (
  SELECT format('server%s.example.com#%s', h, 1426535612000 + r * 5000),
         'm', 'metric' || lpad(m::text, 2, '0'),
         to_timestamp(1426535612 + r * 5), round((random() * 100)::numeric, 2)
    FROM generate_series(0, $CELLS / 20 / $HOSTS) r,
         generate_series(1, $HOSTS) h,
         generate_series(1, 20) m
   LIMIT $CELLS
) TO '$BENCH/cells.csv' (FORMAT csv);
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz,
                value float8) USING wide;
SELECT wide.create_family('w', 'm');
CREATE TABLE h (row_key text COLLATE "C", family text COLLATE "C",
                qualifier text COLLATE "C", ts timestamptz, value float8);
CREATE INDEX ON h (row_key, family, qualifier, ts DESC);
CHECKPOINT;
SQL

# measure: COPY, then CHECKPOINT (durable on disk); WAL from LSN difference
measure() {
	local table=$1
	as_test_user "$SQL -At" <<SQL
\set start \`date +%s.%N\`
SELECT pg_current_wal_insert_lsn() AS lsn0 \gset
\timing off
COPY $table FROM '$BENCH/cells.csv' (FORMAT csv);
CHECKPOINT;
\set stop \`date +%s.%N\`
SELECT :'stop'::numeric - :'start'::numeric,
       pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'lsn0'),
       pg_total_relation_size('$table'),
       (SELECT count(*) FROM $table);
SQL
}

log "COPY into heap + btree"
IFS='|' read -r h_sec h_wal h_size h_count < <(measure h)
log "COPY into wide"
IFS='|' read -r w_sec w_wal w_size w_count < <(measure w)

python3 - "$CELLS" "$h_sec" "$h_wal" "$h_size" "$h_count" "$w_sec" "$w_wal" "$w_size" "$w_count" <<'PY'
import sys
n, hs, hw, hz, hc, ws, ww, wz, wc = sys.argv[1:]
n = int(n); hs, ws = float(hs), float(ws)
hw, ww, hz, wz = int(float(hw)), int(float(ww)), int(hz), int(wz)
assert int(hc) == n and int(wc) == n, (hc, wc, n)
print(f"cells: {n}")
print(f"{'':24}{'heap+btree':>14}{'wide':>14}{'wide/heap':>12}")
print(f"{'COPY+CHECKPOINT s':24}{hs:14.2f}{ws:14.2f}{ws/hs:12.2f}")
print(f"{'cells/s':24}{n/hs:14.0f}{n/ws:14.0f}{(n/ws)/(n/hs):12.2f}")
print(f"{'WAL bytes/cell':24}{hw/n:14.1f}{ww/n:14.1f}{ww/hw:12.2f}")
print(f"{'disk bytes/cell':24}{hz/n:14.1f}{wz/n:14.1f}{wz/hz:12.2f}")
PY
