#!/usr/bin/env bash
#
# bench/cdc.sh [cells] -- what logical decoding costs a writer: WAL bytes
# per cell and the COPY rate at wal_level = replica and = logical (with
# wide in shared_preload_libraries, so that wide logs its change records),
# wide against a heap table in the same run, and (logical only) the time
# test_decoding takes to decode the COPY of each.
#
# Data: CELLS cells of server metrics (row key HOST#MILLIS, 20 metrics,
# float8 values), loaded by COPY from a file.  The heap table has a btree on
# (row_key, family, qualifier, ts desc), as in bench/ingest.sh.
#
# Starts its own server (port 54334, data in /tmp/wide-bench-cdc), restarts
# it between the two wal_levels, and stops it.  Run as root.
# Default 1,000,000 cells; a small run: bench/cdc.sh 100000.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

CELLS=${1:-1000000}
BENCH=/tmp/wide-bench-cdc
PORT=54334
HOSTS=100
READINGS=$(( (CELLS + HOSTS * 20 - 1) / (HOSTS * 20) ))
T0=1426535612000

wide_install_deps
wide_test_user
wide_build_install
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 1GB
autovacuum = off
jit = off
shared_preload_libraries = 'wide'
max_replication_slots = 4
wal_level = replica"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }

log "generating $CELLS cells into $BENCH/cells.copy"
sql "CREATE EXTENSION wide;
COPY (SELECT format('server%s.example.com#%s', lpad(h::text, 3, '0'), $T0 + r * 5000),
             'm', 'metric' || m,
             to_timestamp(($T0 + r * 5000) / 1000.0),
             round((50 + 40 * sin(r / 100.0 + h + m) + random() * 5)::numeric, 2)::float8
        FROM generate_series(0, $READINGS - 1) r, generate_series(1, $HOSTS) h,
             generate_series(1, 20) m
       LIMIT $CELLS) TO '$BENCH/cells.copy';"

declare -A R

# run LEVEL: create both tables, COPY into each, note WAL bytes and time
run() {
	local level=$1 am lsn0 lsn1 t0 t1 slot
	for am in heap wide; do
		sql "DROP TABLE IF EXISTS c_$am;
		     CREATE TABLE c_$am (row_key text COLLATE \"C\", family text COLLATE \"C\",
		                         qualifier text COLLATE \"C\", ts timestamptz, value float8)
		       USING $am;"
		if [ "$am" = wide ]; then
			sql "SELECT wide.create_family('c_wide', 'm');"
		else
			sql "CREATE INDEX ON c_heap (row_key, family, qualifier, ts DESC);"
		fi
		if [ "$level" = logical ]; then
			sql "SELECT pg_create_logical_replication_slot('s_$am', 'test_decoding');" >/dev/null
		fi
		sql "CHECKPOINT;"
		lsn0=$(sql "SELECT pg_current_wal_insert_lsn();")
		t0=$(date +%s.%N)
		sql "COPY c_$am FROM '$BENCH/cells.copy';"
		t1=$(date +%s.%N)
		lsn1=$(sql "SELECT pg_current_wal_insert_lsn();")
		R[wal_$level,$am]=$(sql "SELECT round(pg_wal_lsn_diff('$lsn1', '$lsn0') / $CELLS::numeric, 1);")
		R[rate_$level,$am]=$(echo "$CELLS / ($t1 - $t0)" | bc)
		if [ "$level" = logical ]; then
			t0=$(date +%s.%N)
			sql "SELECT count(*) FROM pg_logical_slot_get_changes('s_$am', NULL, NULL);" >/dev/null
			t1=$(date +%s.%N)
			R[decode,$am]=$(echo "$CELLS / ($t1 - $t0)" | bc)
			sql "SELECT pg_drop_replication_slot('s_$am');" >/dev/null
		fi
	done
}

log "wal_level = replica"
run replica
log "wal_level = logical"
as_test_user "sed -i 's/^wal_level = replica/wal_level = logical/' '$BENCH/data/postgresql.conf' &&
	pg_ctl -D '$BENCH/data' -l '$BENCH/server.log' -w restart >/dev/null"
run logical

printf '\n%-40s %12s %12s %8s\n' "$CELLS cells, COPY" heap wide wide/heap
row() {
	printf '%-40s %12s %12s %8s\n' "$1" "${R[$2,heap]}" "${R[$2,wide]}" \
		"$(echo "scale=2; ${R[$2,wide]} / ${R[$2,heap]}" | bc)"
}
row "WAL bytes per cell, replica" wal_replica
row "WAL bytes per cell, logical" wal_logical
row "COPY cells/s, replica" rate_replica
row "COPY cells/s, logical" rate_logical
row "decoded cells/s (test_decoding)" decode
