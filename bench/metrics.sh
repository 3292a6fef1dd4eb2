#!/usr/bin/env bash
#
# bench/metrics.sh [cells] -- wide against a heap table with a btree on
# (row_key, family, qualifier, ts desc), on the same generated data, in one
# run: the server-metrics example of the Bigtable time-series guide (hosts
# x 20 metrics x a reading every 5 s, row key HOST#MILLIS, float8 values,
# written in time order).  Prints one table of measurements and ratios
# (wide / heap), as docs/performance.md shows them.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54331, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench) and stops it.
# Run as root (it reads the backends' peak memory from /proc).
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

CELLS=${1:-10000000}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench}
PORT=${WIDE_BENCH_PORT:-54331}
DURATION=${DURATION:-15}		# seconds of each pgbench run
HOSTS=100
READINGS=$(( (CELLS + HOSTS * 20 - 1) / (HOSTS * 20) ))
T0=1426535612000				# first reading, ms since 1970

wide_install_deps
wide_test_user
wide_build_install
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 2GB
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
COPY (
  SELECT format('server%s.example.com#%s', lpad(h::text, 3, '0'), $T0 + r * 5000),
         'm', m.name, to_timestamp(($T0 + r * 5000) / 1000.0),
         round((50 + 40 * sin(r / 100.0 + h + m.i) + random() * 5)::numeric, 2)
    FROM generate_series(0, $READINGS - 1) r,
         generate_series(1, $HOSTS) h,
         unnest(ARRAY['cpu/cpu1_usr', 'cpu/cpu1_nice', 'cpu/cpu1_sys', 'cpu/cpu1_idle',
                      'cpu/cpu2_usr', 'cpu/cpu2_nice', 'cpu/cpu2_sys', 'cpu/cpu2_idle',
                      'mem/used', 'mem/free', 'mem/cached', 'mem/buffers',
                      'disk/sda_read', 'disk/sda_write', 'disk/sdb_read', 'disk/sdb_write',
                      'net/eth0_rx', 'net/eth0_tx', 'load/1m', 'load/5m'])
           WITH ORDINALITY AS m(name, i)
   ORDER BY r, h, m.i
   LIMIT $CELLS
) TO '$BENCH/cells.csv' (FORMAT csv);
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz,
                value float8) USING wide;
SELECT wide.create_family('w', 'm');
CREATE TABLE h (row_key text COLLATE \"C\", family text COLLATE \"C\",
                qualifier text COLLATE \"C\", ts timestamptz, value float8);
CREATE INDEX h_key ON h (row_key, family, qualifier, ts DESC);
CHECKPOINT;"

# ---------------------------------------------------------------- ingest
ingest() {
	local t=$1
	sql "SELECT pg_current_wal_insert_lsn() AS lsn0, clock_timestamp() AS t0 \\gset
COPY $t FROM '$BENCH/cells.csv' (FORMAT csv);
CHECKPOINT;
SELECT extract(epoch FROM clock_timestamp() - :'t0'),
       pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'lsn0')"
}
log "COPY into heap + btree"
IFS='|' read -r sec wal < <(ingest h)
R[copy,heap]=$(python3 -c "print($CELLS / $sec)"); R[wal,heap]=$(python3 -c "print($wal / $CELLS)")
log "COPY into wide"
IFS='|' read -r sec wal < <(ingest w)
R[copy,wide]=$(python3 -c "print($CELLS / $sec)"); R[wal,wide]=$(python3 -c "print($wal / $CELLS)")
R[size_loaded,heap]=$(sql "SELECT pg_total_relation_size('h')::float8 / $CELLS")
R[size_loaded,wide]=$(sql "SELECT pg_total_relation_size('w')::float8 / $CELLS")

log "major compaction of wide (and VACUUM of both)"
sec=$(sql "SELECT clock_timestamp() AS t0 \\gset
SELECT FROM wide.compact('w', major => true);
VACUUM w;
SELECT extract(epoch FROM clock_timestamp() - :'t0')" | tail -1)
R[compact_s,wide]=$sec; R[compact_s,heap]=$(sql "SELECT clock_timestamp() AS t0 \\gset
VACUUM ANALYZE h;
SELECT extract(epoch FROM clock_timestamp() - :'t0')" | tail -1)
sql "ANALYZE w"
R[size,heap]=$(sql "SELECT pg_total_relation_size('h')::float8 / $CELLS")
R[size,wide]=$(sql "SELECT (stored_bytes + write_area_pages * 8192)::float8 / $CELLS FROM wide.stats('w')")
R[file,wide]=$(sql "SELECT pg_total_relation_size('w')::float8 / $CELLS")

# ---------------------------------------------------------------- reads
# pgbench latency (ms) of a script, one client
latency() {
	local file=$1
	as_test_user "$PGBENCH -c 1 -T $DURATION -f '$file' postgres" 2>/dev/null |
		sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}
script() {
	local name=$1 body=$2
	printf '%s\n' "$body" > "$BENCH/$name.sql"
	chmod 644 "$BENCH/$name.sql"
	echo "$BENCH/$name.sql"
}
host_hour() {
	# one host, one hour (720 readings x 20 metrics = 14,400 cells)
	cat <<EOF
\\set h random(1, $HOSTS)
\\set r random(0, $(( READINGS > 720 ? READINGS - 720 : 0 )))
EOF
}
for t in h w; do
	tag=$([ $t = h ] && echo heap || echo wide)
	log "reads on $tag"
	f=$(script range_$t "$(host_hour)
SELECT count(*), avg(value) FROM (SELECT * FROM $t
 WHERE row_key >= format('server%s.example.com#%s', lpad(:h::text, 3, '0'), $T0 + :r * 5000)
   AND row_key <  format('server%s.example.com#%s', lpad(:h::text, 3, '0'), $T0 + (:r + 720) * 5000)) s;")
	R[range_server_ms,$tag]=$(latency "$f")
	f=$(script rangeall_$t "$(host_hour)
SELECT * FROM $t
 WHERE row_key >= format('server%s.example.com#%s', lpad(:h::text, 3, '0'), $T0 + :r * 5000)
   AND row_key <  format('server%s.example.com#%s', lpad(:h::text, 3, '0'), $T0 + (:r + 720) * 5000);")
	R[range_client_ms,$tag]=$(latency "$f")
	f=$(script point_$t "\\set h random(1, $HOSTS)
\\set r random(0, $(( READINGS - 1 )))
SELECT value FROM $t
 WHERE row_key = format('server%s.example.com#%s', lpad(:h::text, 3, '0'), $T0 + :r * 5000)
   AND family = 'm' AND qualifier = 'cpu/cpu1_usr' LIMIT 1;")
	R[point_ms,$tag]=$(latency "$f")
	# full scan, one process; peak memory of the backend
	pid_and_time=$(sql "SELECT pg_backend_pid() AS pid, clock_timestamp() AS t0 \\gset
SELECT count(*), avg(value) FROM $t \\gset
SELECT :pid, extract(epoch FROM clock_timestamp() - :'t0'), :count")
	IFS='|' read -r pid sec n <<<"$pid_and_time"
	R[scan_s,$tag]=$sec
done

# peak private memory (RssAnon, polled every 50 ms; shared buffers are not
# counted) of a fresh backend that runs one query
peak_rss() {
	local query=$1
	rm -f "$BENCH/pid"
	as_test_user "$PSQL -c 'SELECT pg_backend_pid()' -o '$BENCH/pid' -c \"$query\" -c 'SELECT pg_sleep(3)'" >/dev/null &
	local job=$! pid="" n=0
	while [ -z "$pid" ] && [ $n -lt 100 ]; do
		pid=$(cat "$BENCH/pid" 2>/dev/null | tr -d ' \n'); sleep 0.05; n=$((n + 1))
	done
	local peak=0
	while kill -0 "$job" 2>/dev/null; do
		local kb; kb=$(awk '/RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$kb" ] && [ "$kb" -gt "$peak" ] && peak=$kb
		sleep 0.05
	done
	echo "$peak"
}
R[rss_10pct_kb,wide]=$(peak_rss "SELECT count(*), avg(value) FROM w WHERE row_key < 'server011'")
R[rss_full_kb,wide]=$(peak_rss "SELECT count(*), avg(value) FROM w")
R[rss_10pct_kb,heap]=$(peak_rss "SELECT count(*), avg(value) FROM h WHERE row_key < 'server011'")
R[rss_full_kb,heap]=$(peak_rss "SELECT count(*), avg(value) FROM h")

# ---------------------------------------------------------------- inserts
# single-cell INSERT transactions, 2 sessions
ins_script() {
	script ins_$1 "\\set h random(1, $HOSTS)
\\set m random(1, 20)
INSERT INTO $1 VALUES (format('server%s.example.com#%s', lpad(:h::text, 3, '0'), (extract(epoch FROM now()) * 1000)::int8), 'm', 'metric' || :m, now(), random());"
}
for mode in on off; do
	for t in h w; do
		tag=$([ $t = h ] && echo heap || echo wide)
		f=$(ins_script $t)
		tps=$(as_test_user "PGOPTIONS='-c synchronous_commit=$mode' $PGBENCH -c 2 -j 2 -T $DURATION -f '$f' postgres" 2>/dev/null |
			sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
		R[insert_tps_sync_$mode,$tag]=$tps
	done
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
    ("COPY ingest until durable, cells/s", "copy", "higher"),
    ("WAL bytes per cell (COPY)", "wal", "lower"),
    ("bytes on disk per cell, after COPY", "size_loaded", "lower"),
    ("bytes on disk per cell, compacted / vacuumed", "size", "lower"),
    ("compaction / VACUUM after load, s", "compact_s", "lower"),
    ("single-cell INSERT tx/s, 2 sessions, sync commit on", "insert_tps_sync_on", "higher"),
    ("single-cell INSERT tx/s, 2 sessions, sync commit off", "insert_tps_sync_off", "higher"),
    ("one host x one hour (14,400 cells), server ms", "range_server_ms", "lower"),
    ("one host x one hour, rows to client, ms", "range_client_ms", "lower"),
    ("latest cell of one row, ms", "point_ms", "lower"),
    ("full scan count/avg, one process, s", "scan_s", "lower"),
    ("peak private memory of a backend, scan of 10% of cells, kB", "rss_10pct_kb", "lower"),
    ("peak private memory of a backend, full scan, kB", "rss_full_kb", "lower"),
]
print(f"cells: {cells:,}")
print(f"| {'measure':58} | {'heap+btree':>12} | {'wide':>12} | {'wide/heap':>9} |")
print(f"|{'-'*60}|{'-'*14}|{'-'*14}|{'-'*11}|")
for name, key, better in rows:
    h, w = R.get(key + ",heap"), R.get(key + ",wide")
    ratio = w / h if h and w == w and h == h else float("nan")
    fmt = (lambda x: f"{x:,.0f}") if (h or 0) >= 100 else (lambda x: f"{x:,.3f}")
    print(f"| {name:58} | {fmt(h):>12} | {fmt(w):>12} | {ratio:9.2f} |")
PY
