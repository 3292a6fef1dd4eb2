#!/usr/bin/env bash
#
# bench/cluster.sh [cells] -- what a wide_key index costs and what CLUSTER
# gives back, on the server-metrics data of bench/ingest.sh (hosts x 20
# metrics x a reading every 5 s, row key HOST#MILLIS, float8 values):
#
#   - COPY, one INSERT ... SELECT, and DURATION seconds of single-row
#     INSERTs by 2 pgbench clients into a wide table without and with a
#     wide_key index (the executor calls its no-op aminsert per row);
#   - after deleting half of the rows (every other host): the file
#     (pg_total_relation_size), the time of CLUSTER, and the file after it;
#     next to a heap table with a btree on (row_key, family, qualifier,
#     ts DESC), CLUSTERed on that btree.  (A plain VACUUM of the wide table
#     would already compact and give most of the space back.)
#
# Starts its own server (port 54385, data in /tmp/wide-bench-cluster) and
# stops it.  Default 1,000,000 cells; a small run: bench/cluster.sh 200000,
# DURATION=3.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

CELLS=${1:-1000000}
BENCH=/tmp/wide-bench-cluster
PORT=54385
DURATION=${DURATION:-10}		# seconds of each pgbench run
HOSTS=100
READINGS=$(( (CELLS + HOSTS * 20 - 1) / (HOSTS * 20) ))
T0=1426535612000				# first reading, ms since 1970

wide_install_deps
wide_test_user
wide_build_install
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 1GB
work_mem = 64MB
maintenance_work_mem = 512MB
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
autovacuum = off
jit = off"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
PGBENCH="pgbench -h $BENCH -p $PORT -U postgres -n"

declare -A R		# results: R[metric,tag]

log "generating $CELLS cells: $HOSTS hosts x 20 metrics x $READINGS readings, every 5 s"
sql "CREATE EXTENSION wide;
CREATE TABLE src AS
  SELECT format('server%s.example.com#%s', lpad(h::text, 3, '0'), $T0 + r * 5000) AS row_key,
         'm'::text AS family, m.name AS qualifier,
         to_timestamp(($T0 + r * 5000) / 1000.0) AS ts,
         round((50 + 40 * sin(r / 100.0 + h + m.i) + random() * 5)::numeric, 2)::float8 AS value
    FROM generate_series(0, $READINGS - 1) r,
         generate_series(1, $HOSTS) h,
         unnest(ARRAY['cpu/cpu1_usr', 'cpu/cpu1_nice', 'cpu/cpu1_sys', 'cpu/cpu1_idle',
                      'cpu/cpu2_usr', 'cpu/cpu2_nice', 'cpu/cpu2_sys', 'cpu/cpu2_idle',
                      'mem/used', 'mem/free', 'mem/cached', 'mem/buffers',
                      'disk/sda_read', 'disk/sda_write', 'disk/sdb_read', 'disk/sdb_write',
                      'net/eth0_rx', 'net/eth0_tx', 'load/1m', 'load/5m'])
           WITH ORDINALITY AS m(name, i)
   ORDER BY r, h, m.i
   LIMIT $CELLS;
COPY src TO '$BENCH/cells.csv' (FORMAT csv);
VACUUM ANALYZE src;
CHECKPOINT;"

# make_table NAME KIND: an empty table of the benchmark's shape; KIND is
# wide, keyed (wide with a wide_key index) or heap (with its btree)
make_table() {
	local t=$1 kind=$2
	sql "SET client_min_messages = warning; DROP TABLE IF EXISTS $t"
	if [ "$kind" = heap ]; then
		sql "CREATE TABLE $t (row_key text COLLATE \"C\", family text COLLATE \"C\",
                 qualifier text COLLATE \"C\", ts timestamptz, value float8);
CREATE INDEX ${t}_key ON $t (row_key, family, qualifier, ts DESC);"
	else
		sql "CREATE TABLE $t (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('$t', 'm');" >/dev/null
		[ "$kind" = keyed ] && sql "CREATE INDEX ${t}_key ON $t USING wide_key (row_key)"
	fi
	return 0
}

# seconds STATEMENT: run it, print its seconds
seconds() {
	sql "SELECT clock_timestamp() AS t0 \\gset
$1;
SELECT extract(epoch FROM clock_timestamp() - :'t0')"
}

# ---------------------------------------------------------------- ingest
for tag in wide keyed; do
	make_table c_$tag $tag
	sql "CHECKPOINT"
	log "COPY into $tag"
	R[copy,$tag]=$(python3 -c "print($CELLS / $(seconds "COPY c_$tag FROM '$BENCH/cells.csv' (FORMAT csv)"))")
	sql "DROP TABLE c_$tag"
	make_table i_$tag $tag
	sql "CHECKPOINT"
	log "INSERT ... SELECT into $tag"
	R[insel,$tag]=$(python3 -c "print($CELLS / $(seconds "INSERT INTO i_$tag SELECT * FROM src"))")
	sql "DROP TABLE i_$tag"
	make_table o_$tag $tag
	printf '%s\n' "\\set h random(1, $HOSTS)
\\set m random(1, 20)
INSERT INTO o_$tag SELECT format('server%s.example.com#%s', lpad(:h::text, 3, '0'), r), 'm', 'metric' || :m,
       to_timestamp(r / 1000.0), round((50 + 40 * sin(r / 500000.0 + :h + :m) + random() * 5)::numeric, 2)
  FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8 AS r) n;" > "$BENCH/one_$tag.sql"
	chmod 644 "$BENCH/one_$tag.sql"
	sql "CHECKPOINT"
	log "single-row INSERTs into $tag, 2 clients, $DURATION s"
	R[one_tps,$tag]=$(as_test_user "$PGBENCH -c 2 -j 2 -T $DURATION -f '$BENCH/one_$tag.sql' postgres" 2>/dev/null |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
	sql "DROP TABLE o_$tag"
done

# ---------------------------------------------------------------- CLUSTER
for tag in heap keyed; do
	t=k_$tag
	make_table $t $tag
	sql "COPY $t FROM '$BENCH/cells.csv' (FORMAT csv)"
	[ "$tag" = keyed ] && sql "SELECT FROM wide.compact('$t', major => true)" >/dev/null
	log "DELETE of every other host in $tag, CLUSTER"
	sql "DELETE FROM $t WHERE substr(row_key, 7, 3)::int % 2 = 0"
	R[before_kb,$tag]=$(sql "SELECT pg_total_relation_size('$t') / 1024.0")
	sql "CHECKPOINT"
	R[cluster_s,$tag]=$(seconds "CLUSTER $t USING ${t}_key")
	R[after_kb,$tag]=$(sql "SELECT pg_total_relation_size('$t') / 1024.0")
	R[left,$tag]=$(sql "SELECT count(*) FROM $t")
	sql "DROP TABLE $t"
done

# ---------------------------------------------------------------- report
python3 - "$CELLS" <<PY
import sys
R = {}
for line in """$(for k in "${!R[@]}"; do echo "$k=${R[$k]}"; done)""".split("\n"):
    if "=" in line:
        k, v = line.split("=", 1)
        R[k] = float(v) if v else float("nan")
print("%d cells" % int(sys.argv[1]))
print("%-44s %12s %12s %7s" % ("ingest", "wide", "+ wide_key", "ratio"))
for label, key in [("COPY, cells/s", "copy"), ("INSERT ... SELECT, cells/s", "insel"),
                   ("single-row INSERT, 2 clients, tps", "one_tps")]:
    a, b = R[key + ",wide"], R[key + ",keyed"]
    print("%-44s %12.0f %12.0f %7.2f" % (label, a, b, b / a))
print()
print("%-44s %12s %12s %7s" % ("half deleted, then CLUSTER", "heap+btree", "wide", "ratio"))
for label, key, fmt in [("file before CLUSTER, kB", "before_kb", "%12.0f %12.0f"),
                        ("CLUSTER, s", "cluster_s", "%12.2f %12.2f"),
                        ("file after CLUSTER, kB", "after_kb", "%12.0f %12.0f"),
                        ("cells left", "left", "%12.0f %12.0f")]:
    a, b = R[key + ",heap"], R[key + ",keyed"]
    print("%-44s " % label + fmt % (a, b) + " %7.3f" % (b / a if a else float("nan")))
PY
