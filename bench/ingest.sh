#!/usr/bin/env bash
#
# bench/ingest.sh [cells] -- the ingest paths of wide against a heap table
# with a btree on (row_key, family, qualifier, ts desc), in one run, on the
# server-metrics data of bench/metrics.sh (hosts x 20 metrics x a reading
# every 5 s, row key HOST#MILLIS, float8 values, in time order):
#
#   - COPY, one big INSERT ... SELECT (from a heap table holding the cells),
#     and DURATION seconds of single-row INSERTs by 2 pgbench clients: the
#     rate, and the file (pg_total_relation_size) per cell after a plain
#     VACUUM, next to wide.stats' stored bytes;
#   - peak private memory of the backend running the INSERT ... SELECT;
#   - the file after DELETE of everything + VACUUM (and, for wide, after a
#     major compaction + VACUUM too).
#
# Prints one table (wide / heap ratios), as docs/performance.md shows them.
# Starts its own server (port 54332, data in /tmp/wide-bench-ingest) and
# stops it.  Run as root (it reads the backend's memory from /proc).
# Default 1,000,000 cells; a small run: bench/ingest.sh 200000, DURATION=5.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

CELLS=${1:-1000000}
BENCH=/tmp/wide-bench-ingest
PORT=54332
DURATION=${DURATION:-15}		# seconds of the pgbench run
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
max_parallel_workers_per_gather = 0
autovacuum = off
jit = off"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
PGBENCH="pgbench -h $BENCH -p $PORT -U postgres -n"

declare -A R		# results: R[metric,heap] R[metric,wide]

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

# make_table NAME KIND: an empty table of the benchmark's shape
make_table() {
	local t=$1 kind=$2
	if [ "$kind" = wide ]; then
		sql "DROP TABLE IF EXISTS $t;
CREATE TABLE $t (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('$t', 'm');" >/dev/null
	else
		sql "DROP TABLE IF EXISTS $t;
CREATE TABLE $t (row_key text COLLATE \"C\", family text COLLATE \"C\",
                 qualifier text COLLATE \"C\", ts timestamptz, value float8);
CREATE INDEX ${t}_key ON $t (row_key, family, qualifier, ts DESC);"
	fi
}

# after_vacuum T TAG PATH: file bytes per cell (and stored bytes for wide)
after_vacuum() {
	local t=$1 tag=$2 path=$3 n
	sql "VACUUM $t"
	n=$(sql "SELECT count(*) FROM $t")
	R[file_$path,$tag]=$(sql "SELECT pg_total_relation_size('$t')::float8 / $n")
	if [ "$tag" = wide ]; then
		R[stored_$path,wide]=$(sql "SELECT (stored_bytes + write_area_pages * 8192)::float8 / $n FROM wide.stats('$t')")
	fi
}

# ---------------------------------------------------------------- COPY
for tag in heap wide; do
	t=copy_$tag
	make_table $t $tag
	log "COPY into $tag"
	sec=$(sql "SELECT clock_timestamp() AS t0 \\gset
COPY $t FROM '$BENCH/cells.csv' (FORMAT csv);
SELECT extract(epoch FROM clock_timestamp() - :'t0')")
	R[copy,$tag]=$(python3 -c "print($CELLS / $sec)")
	after_vacuum $t $tag copy
	sql "DROP TABLE $t"
done

# ---------------------------------------------------------------- INSERT ... SELECT
# run one statement in a fresh backend; print "seconds peak_RssAnon_kB"
timed_peak() {
	local query=$1
	rm -f "$BENCH/pid" "$BENCH/sec"
	cat > "$BENCH/timed.sql" <<SQL
\\o $BENCH/pid
SELECT pg_backend_pid();
\\o
SELECT clock_timestamp() AS t0 \\gset
$query;
\\o $BENCH/sec
SELECT extract(epoch FROM clock_timestamp() - :'t0');
\\o
SQL
	chmod 644 "$BENCH/timed.sql"
	as_test_user "$PSQL -f '$BENCH/timed.sql'" >/dev/null &
	local job=$! pid="" n=0 peak=0 kb
	while [ -z "$pid" ] && [ $n -lt 500 ]; do
		pid=$(cat "$BENCH/pid" 2>/dev/null | tr -d ' \n' || true); sleep 0.02; n=$((n + 1))
	done
	while kill -0 "$job" 2>/dev/null; do
		kb=$(awk '/RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
		[ -n "$kb" ] && [ "$kb" -gt "$peak" ] && peak=$kb
		sleep 0.05
	done
	wait "$job"
	echo "$(head -1 "$BENCH/sec") $peak"
}
for tag in heap wide; do
	t=ins_$tag
	make_table $t $tag
	sql "CHECKPOINT"
	log "INSERT ... SELECT into $tag"
	read -r sec kb < <(timed_peak "INSERT INTO $t SELECT * FROM src")
	R[insel,$tag]=$(python3 -c "print($CELLS / $sec)")
	R[insel_rss_kb,$tag]=$kb
	after_vacuum $t $tag insel

	# everything deleted, then VACUUM
	log "DELETE of everything in $tag, VACUUM"
	sql "DELETE FROM $t; VACUUM $t"
	R[deleted_kb,$tag]=$(sql "SELECT pg_total_relation_size('$t') / 1024.0")
	if [ "$tag" = wide ]; then
		sql "SELECT FROM wide.compact('$t', major => true); VACUUM $t" >/dev/null
		R[deleted_major_kb,wide]=$(sql "SELECT pg_total_relation_size('$t') / 1024.0")
	fi
	sql "DROP TABLE $t"
done

# ---------------------------------------------------------------- single-row INSERTs
# server-metrics data as it arrives: each INSERT one reading (2 decimals)
# of a random host and metric, keyed by the current millisecond
for tag in heap wide; do
	t=one_$tag
	make_table $t $tag
	printf '%s\n' "\\set h random(1, $HOSTS)
\\set m random(1, 20)
INSERT INTO $t SELECT format('server%s.example.com#%s', lpad(:h::text, 3, '0'), r), 'm', 'metric' || :m,
       to_timestamp(r / 1000.0), round((50 + 40 * sin(r / 500000.0 + :h + :m) + random() * 5)::numeric, 2)
  FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8 AS r) n;" > "$BENCH/one_$tag.sql"
	chmod 644 "$BENCH/one_$tag.sql"
	sql "CHECKPOINT"
	log "single-row INSERTs into $tag, 2 clients, $DURATION s"
	R[one_tps,$tag]=$(as_test_user "$PGBENCH -c 2 -j 2 -T $DURATION -f '$BENCH/one_$tag.sql' postgres" 2>/dev/null |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
	after_vacuum $t $tag one
	sql "DROP TABLE $t"
done

# ---------------------------------------------------------------- report
python3 - "$CELLS" <<PY
import sys
cells = int(sys.argv[1])
R = {}
for line in """$(for k in "${!R[@]}"; do echo "$k=${R[$k]}"; done)""".split("\n"):
    if "=" in line:
        k, v = line.split("=", 1)
        R[k] = float(v) if v else float("nan")
rows = [
    ("COPY, cells/s", "copy"),
    ("file bytes per cell after COPY + VACUUM", "file_copy"),
    ("  wide: stored bytes (+ write area) per cell", "stored_copy"),
    ("INSERT ... SELECT, one statement, cells/s", "insel"),
    ("peak private memory of its backend, kB", "insel_rss_kb"),
    ("file bytes per cell after INSERT ... SELECT + VACUUM", "file_insel"),
    ("  wide: stored bytes (+ write area) per cell", "stored_insel"),
    ("single-row INSERT tx/s, 2 clients", "one_tps"),
    ("file bytes per cell after single-row INSERTs + VACUUM", "file_one"),
    ("  wide: stored bytes (+ write area) per cell", "stored_one"),
    ("file kB after DELETE of everything + VACUUM", "deleted_kb"),
    ("  wide: and after compact(major) + VACUUM", "deleted_major_kb"),
]
print(f"cells: {cells:,}")
print(f"| {'measure':54} | {'heap+btree':>12} | {'wide':>12} | {'wide/heap':>9} |")
print(f"|{'-'*56}|{'-'*14}|{'-'*14}|{'-'*11}|")
def fmt(x):
    if x != x:
        return "-"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.2f}"
for name, key in rows:
    h, w = R.get(key + ",heap", float("nan")), R.get(key + ",wide", float("nan"))
    ratio = f"{w / h:9.2f}" if h == h and w == w and h else f"{'-':>9}"
    print(f"| {name:54} | {fmt(h):>12} | {fmt(w):>12} | {ratio} |")
for path in ("copy", "insel", "one"):
    f, s = R.get("file_" + path + ",wide"), R.get("stored_" + path + ",wide")
    if f and s:
        print(f"wide file / stored bytes after {path}: {f / s:.2f}")
PY
