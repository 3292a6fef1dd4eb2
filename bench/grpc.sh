#!/usr/bin/env bash
#
# bench/grpc.sh -- wide-bigtable (docs/grpc.md) against SQL and against the
# Bigtable emulator, in one run, with the same clients: test/grpc/bench.js
# (npm's @google-cloud/bigtable stub; npm install --prefix test/grpc) and
# bigtable/bench_client (the same requests through gRPC's C++ stub, built
# with wide-bigtable: a client that costs little beside the server):
#   ReadRows of a 100,000-cell range (10,000 rows x 10 cells, 16-byte
#     values) vs SELECT * FROM wide.read_rows(...) of the same range to psql
#     (\o /dev/null) vs the emulator; and the same read by a client that
#     counts the responses' chunks without decoding them (bench.js readraw),
#     from both servers: what they stream when the client costs little;
#   MutateRows bulk ingest of $MUTATE_ROWS rows (default 20,000) x 10
#     cells (500 entries a request, 2 in flight) vs COPY of the same cells
#     vs the emulator (MUTATE_ROWS=0 skips it); and the same requests sent
#     by a client that encodes them by hand before the clock starts (bench.js
#     mutateraw), to both servers: what they ingest when the client costs
#     little (READS=0 skips the reads);
#   the server's memory (VmRSS, sampled every 0.2 s) during a ReadRows of
#     $BIG_CELLS cells (default 10,000,000; 200,000 rows x 50 cells), read
#     by cbt (a Go client; BIG_CELLS=0 skips it).
# WIDE_BIGTABLE names another server binary to measure.
# Each read runs $RUNS times (default 5), the sides alternating, and the
# median is printed, as wall cells/s and as cells per CPU second of the
# serving processes (wide-bigtable + the PostgreSQL backends; the emulator;
# the backend for psql): on a shared machine the CPU figure is the one to
# compare.  Each client's own CPU seconds a run are printed too: Node's
# bound the wall figures of both gRPC servers.  Skips the emulator where it
# is absent, the C++ client where it was not built.
#
# Starts its own server: WIDE_BENCH_DIR (default /tmp/wide-bench-grpc),
# WIDE_BENCH_PORT (default 54336), wide-bigtable and the emulator on free
# ports.  Run through the private PostgreSQL of a worktree, or as root.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-grpc}
PORT=${WIDE_BENCH_PORT:-54336}
RUNS=${RUNS:-5}
BIG_CELLS=${BIG_CELLS:-10000000}
EMULATOR=${CBTEMULATOR:-/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator}
MODULES=$WIDE_ROOT/test/grpc/node_modules
MUTATE_ROWS=${MUTATE_ROWS:-20000}
SERVER=${WIDE_BIGTABLE:-$PG_BINDIR/wide-bigtable}
[ -x "$SERVER" ] || { echo "no $SERVER (built without gRPC)"; exit 1; }
[ -d "$MODULES/@google-cloud/bigtable" ] || { echo "no $MODULES: npm install --prefix test/grpc"; exit 1; }
CXX_CLIENT=${WIDE_BENCH_CLIENT:-$WIDE_ROOT/bigtable/bench_client}
[ -x "$CXX_CLIENT" ] || { echo "no $CXX_CLIENT (make in bigtable/): the C++ client's runs are skipped"; CXX_CLIENT=; }

bench_fresh_dir
start_cluster "$BENCH" "$PORT" "shared_buffers = 1GB
max_wal_size = 16GB
checkpoint_timeout = 1h
autovacuum = off
jit = off"
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; stop_cluster "$BENCH"' EXIT

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
sql "CREATE EXTENSION wide"

"$SERVER" --host 127.0.0.1 --port 0 --connections 4 \
	--dsn "host=$BENCH port=$PORT user=postgres dbname=postgres" > "$BENCH/wide-bigtable.log" 2>&1 &
SPID=$!
PIDS+=($SPID)
for _ in $(seq 1 100); do grep -q 'listening on' "$BENCH/wide-bigtable.log" && break; sleep 0.1; done
WADDR=$(sed -n 's/.*listening on \(.*\)$/\1/p' "$BENCH/wide-bigtable.log")
EADDR=
if [ -x "$EMULATOR" ]; then
	"$EMULATOR" -host 127.0.0.1 -port 0 > "$BENCH/emulator.log" 2>&1 &
	EPID=$!
	PIDS+=($EPID)
	for _ in $(seq 1 100); do grep -q 'running on' "$BENCH/emulator.log" && break; sleep 0.1; done
	EADDR=$(sed -n 's/.*running on \(.*\)$/\1/p' "$BENCH/emulator.log")
fi

timed() {	# CMD...: "cells seconds client-CPU-ticks" of a bench client
	local out
	out=$(/usr/bin/time -f '%U %S' -o "$BENCH/client.time" "$@")
	echo "$out $(awk -v hz="$HZ" '{printf "%d", ($1 + $2) * hz}' "$BENCH/client.time")"
}
client() {	# ADDR ARGS...: the Node client against ADDR
	local addr=$1; shift
	timed env BIGTABLE_EMULATOR_HOST="$addr" NODE_PATH="$MODULES" METADATA_SERVER_DETECTION=none \
		node "$WIDE_ROOT/test/grpc/bench.js" "$@"
}
cxx() {	# ADDR ARGS...: the C++ client against ADDR
	local addr=$1; shift
	timed env BIGTABLE_EMULATOR_HOST="$addr" "$CXX_CLIENT" "$@"
}
cbt_() {	# ADDR ARGS...
	local addr=$1; shift
	echo '{}' > "$BENCH/creds.json"
	BIGTABLE_EMULATOR_HOST=$addr cbt -project p -instance i -creds "$BENCH/creds.json" "$@"
}
# CPU ticks (utime + stime) of PIDS, and of every PostgreSQL process of the bench cluster
ticks() { local t=0; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo $t; }
pg_pids() { pgrep -P "$(head -1 "$BENCH/data/postmaster.pid")" | tr '\n' ' '; }
HZ=$(getconf CLK_TCK)
SELF_TICKS="SELECT s[14]::int + s[15]::int FROM string_to_array(pg_read_file('/proc/self/stat'), ' ') s"
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

log "loading 10,000 rows x 10 cells into wide (SQL) and the emulator (cbt import)"
sql "CREATE TABLE r (row_key bytea, family text COLLATE \"C\", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('r', 'f');
INSERT INTO r SELECT convert_to('r' || lpad(i::text, 6, '0'), 'UTF8'), 'f', convert_to('c' || j, 'UTF8'), 1000,
	convert_to('0123456789abcdef', 'UTF8') FROM generate_series(0, 9999) i, generate_series(0, 9) j;
SELECT wide.compact('r', major => true); CHECKPOINT;"
if [ -n "$EADDR" ]; then
	cbt_ "$EADDR" createtable r families=f
	{ echo ",f,,,,,,,,,"; echo ",c0,c1,c2,c3,c4,c5,c6,c7,c8,c9"
	  for i in $(seq 0 9999); do printf 'r%06d%s\n' "$i" "$(printf ',0123456789abcdef%.0s' {1..10})"; done
	} > "$BENCH/r.csv"
	cbt_ "$EADDR" import r "$BENCH/r.csv" batch-size=500 > /dev/null
fi

report() {	# NAME FILE: median wall cells/s, cells per server CPU second, and
			# for the gRPC client's runs the client's CPU seconds a run
	[ -s "$2" ] || return 0
	local wall cpu client=
	wall=$(awk '{printf "%d\n", $1 / $2}' "$2" | median)
	cpu=$(awk -v hz="$HZ" '{printf "%d\n", ($3 > 0 ? $1 / ($3 / hz) : 0)}' "$2" | median)
	awk '{if ($1 != 100000 && $1 != '"${3:-100000}"') {print "WRONG CELL COUNT " $1; exit 1}}' "$2"
	[ "$(awk '{print NF; exit}' "$2")" -ge 4 ] &&
		client=$(awk -v hz="$HZ" '{printf "%.2f\n", $4 / hz}' "$2" | median) &&
		client=" (client: $client CPU-s a run)"
	printf '%-40s %12s cells/s wall %14s cells/CPU-s of the server%s\n' "$1" "$wall" "$cpu" "$client"
}
if [ "${READS:-1}" != 0 ]; then
log "ReadRows of the 100,000 cells of [r000000, r999999): $RUNS runs, alternating"
: > "$BENCH/read_wide"; : > "$BENCH/read_sql"; : > "$BENCH/read_emu"
: > "$BENCH/raw_wide"; : > "$BENCH/raw_emu"; : > "$BENCH/cxx_wide"; : > "$BENCH/cxx_emu"
for i in $(seq 1 "$RUNS"); do
	pg=$(pg_pids); c0=$(ticks $SPID $pg)
	out=$(client "$WADDR" read r r000000 r999999); c1=$(ticks $SPID $pg)
	echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/read_wide"
	# the same read with a client that does not decode the responses (what
	# the server streams when the client costs little)
	pg=$(pg_pids); c0=$(ticks $SPID $pg)
	out=$(client "$WADDR" readraw r r000000 r999999); c1=$(ticks $SPID $pg)
	echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/raw_wide"
	if [ -n "$CXX_CLIENT" ]; then
		pg=$(pg_pids); c0=$(ticks $SPID $pg)
		out=$(cxx "$WADDR" read r r000000 r999999); c1=$(ticks $SPID $pg)
		echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/cxx_wide"
	fi
	# the backend's own CPU ticks, before and after, in the same session
	t0=$(date +%s.%N)
	cpu=$(as_test_user "$PSQL -c \"$SELF_TICKS\" -c '\\o /dev/null' -c \"SELECT * FROM wide.read_rows(NULL::r, start_key => 'r000000', end_key => 'r999999')\" -c '\\o' -c \"$SELF_TICKS\"" | tr '\n' ' ')
	t1=$(date +%s.%N); c0=${cpu%% *}; c1=$(echo $cpu | cut -d' ' -f2)
	echo "100000 $(echo "$t1 - $t0" | bc) $((c1 - c0))" >> "$BENCH/read_sql"
	if [ -n "$EADDR" ]; then
		c0=$(ticks $EPID); out=$(client "$EADDR" read r r000000 r999999); c1=$(ticks $EPID)
		echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/read_emu"
		c0=$(ticks $EPID); out=$(client "$EADDR" readraw r r000000 r999999); c1=$(ticks $EPID)
		echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/raw_emu"
		if [ -n "$CXX_CLIENT" ]; then
			c0=$(ticks $EPID); out=$(cxx "$EADDR" read r r000000 r999999); c1=$(ticks $EPID)
			echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/cxx_emu"
		fi
	fi
done
report "ReadRows, wide-bigtable" "$BENCH/read_wide"
report "wide.read_rows to psql" "$BENCH/read_sql"
report "ReadRows, emulator" "$BENCH/read_emu"
report "ReadRows undecoded, wide-bigtable" "$BENCH/raw_wide"
report "ReadRows undecoded, emulator" "$BENCH/raw_emu"
report "ReadRows C++ client, wide-bigtable" "$BENCH/cxx_wide"
report "ReadRows C++ client, emulator" "$BENCH/cxx_emu"
fi

if [ "$MUTATE_ROWS" -gt 0 ]; then
log "MutateRows ingest of $MUTATE_ROWS rows x 10 cells vs COPY: $RUNS runs, alternating"
: > "$BENCH/mut_wide"; : > "$BENCH/mut_copy"; : > "$BENCH/mut_emu"; : > "$BENCH/mraw_wide"; : > "$BENCH/mraw_emu"
: > "$BENCH/mutx_wide"; : > "$BENCH/mutx_emu"
sql "COPY (SELECT convert_to('m' || lpad(i::text, 9, '0'), 'UTF8'), 'f', convert_to('c' || j, 'UTF8'), 1000,
	convert_to('0123456789abcdef', 'UTF8') FROM generate_series(0, $MUTATE_ROWS - 1) i, generate_series(0, 9) j)
	TO '$BENCH/m.copy'"
for i in $(seq 1 "$RUNS"); do
	sql "DROP TABLE IF EXISTS m; CREATE TABLE m (row_key bytea, family text COLLATE \"C\", qualifier bytea, ts int8, value bytea) USING wide;
	     SELECT wide.create_family('m', 'f'); CHECKPOINT"
	pg=$(pg_pids); c0=$(ticks $SPID $pg)
	out=$(client "$WADDR" mutate m "$MUTATE_ROWS" 10 500 2); c1=$(ticks $SPID $pg)
	echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/mut_wide"
	[ "$(sql "SELECT count(*) FROM m")" = $((MUTATE_ROWS * 10)) ] || { echo "MutateRows lost cells"; exit 1; }
	if [ -n "$CXX_CLIENT" ]; then
		sql "TRUNCATE m; CHECKPOINT"
		pg=$(pg_pids); c0=$(ticks $SPID $pg)
		out=$(cxx "$WADDR" mutate m "$MUTATE_ROWS" 10 500 2); c1=$(ticks $SPID $pg)
		echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/mutx_wide"
		[ "$(sql "SELECT count(*) FROM m")" = $((MUTATE_ROWS * 10)) ] || { echo "MutateRows lost cells"; exit 1; }
	fi
	sql "TRUNCATE m; CHECKPOINT"
	pg=$(pg_pids); c0=$(ticks $SPID $pg)
	out=$(client "$WADDR" mutateraw m "$MUTATE_ROWS" 10 500 2); c1=$(ticks $SPID $pg)
	echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/mraw_wide"
	[ "$(sql "SELECT count(*) FROM m")" = $((MUTATE_ROWS * 10)) ] || { echo "MutateRows lost cells"; exit 1; }
	sql "TRUNCATE m; CHECKPOINT"
	t0=$(date +%s.%N)
	cpu=$(as_test_user "$PSQL -c \"$SELF_TICKS\" -c \"COPY m FROM '$BENCH/m.copy'\" -c \"$SELF_TICKS\"" | tr '\n' ' ')
	t1=$(date +%s.%N); c0=${cpu%% *}; c1=$(echo $cpu | cut -d' ' -f2)
	echo "$((MUTATE_ROWS * 10)) $(echo "$t1 - $t0" | bc) $((c1 - c0))" >> "$BENCH/mut_copy"
	if [ -n "$EADDR" ]; then
		cbt_ "$EADDR" deletetable m >/dev/null 2>&1 || true
		cbt_ "$EADDR" createtable m families=f
		c0=$(ticks $EPID); out=$(client "$EADDR" mutate m "$MUTATE_ROWS" 10 500 2); c1=$(ticks $EPID)
		echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/mut_emu"
		if [ -n "$CXX_CLIENT" ]; then
			cbt_ "$EADDR" deletetable m >/dev/null 2>&1 || true
			cbt_ "$EADDR" createtable m families=f
			c0=$(ticks $EPID); out=$(cxx "$EADDR" mutate m "$MUTATE_ROWS" 10 500 2); c1=$(ticks $EPID)
			echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/mutx_emu"
		fi
		cbt_ "$EADDR" deletetable m >/dev/null 2>&1 || true
		cbt_ "$EADDR" createtable m families=f
		c0=$(ticks $EPID); out=$(client "$EADDR" mutateraw m "$MUTATE_ROWS" 10 500 2); c1=$(ticks $EPID)
		echo "${out% *} $((c1 - c0)) ${out##* }" >> "$BENCH/mraw_emu"
	fi
done
report "MutateRows, wide-bigtable" "$BENCH/mut_wide" $((MUTATE_ROWS * 10))
report "COPY" "$BENCH/mut_copy" $((MUTATE_ROWS * 10))
report "MutateRows, emulator" "$BENCH/mut_emu" $((MUTATE_ROWS * 10))
report "MutateRows C++ client, wide-bigtable" "$BENCH/mutx_wide" $((MUTATE_ROWS * 10))
report "MutateRows C++ client, emulator" "$BENCH/mutx_emu" $((MUTATE_ROWS * 10))
report "MutateRows hand-encoded, wide-bigtable" "$BENCH/mraw_wide" $((MUTATE_ROWS * 10))
report "MutateRows hand-encoded, emulator" "$BENCH/mraw_emu" $((MUTATE_ROWS * 10))
fi

[ "$BIG_CELLS" -gt 0 ] || { log "load: $(uptime)"; exit 0; }
rows=$((BIG_CELLS / 50))
log "memory of wide-bigtable during a ReadRows of $BIG_CELLS cells ($rows rows x 50 cells), read by cbt"
sql "CREATE TABLE big (row_key bytea, family text COLLATE \"C\", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('big', 'f');
INSERT INTO big SELECT convert_to('b' || lpad(i::text, 9, '0'), 'UTF8'), 'f', convert_to('c' || j, 'UTF8'), 1000,
	convert_to('0123456789abcdef', 'UTF8') FROM generate_series(0, $rows - 1) i, generate_series(0, 49) j;
CHECKPOINT"
rss() { awk '/VmRSS/ {print $2}' "/proc/$SPID/status"; }
before=$(rss)
( while kill -0 $SPID 2>/dev/null; do rss; sleep 0.2; done ) > "$BENCH/rss" &
SAMPLER=$!
t0=$(date +%s.%N)
cells=$(cbt_ "$WADDR" -timeout 1h read big | grep -c '^    ')
t1=$(date +%s.%N)
kill $SAMPLER
echo "ReadRows of big: $cells cells in $(echo "$t1 - $t0" | bc) s"
[ "$cells" = "$BIG_CELLS" ] || { echo "WRONG CELL COUNT"; exit 1; }
sort -n "$BENCH/rss" | awk -v b="$before" -v n="$BIG_CELLS" '
	{a[NR] = $1} END {printf "wide-bigtable VmRSS: %d KiB before; during the read of %d cells: min %d, median %d, max %d KiB (%d samples)\n",
		b, n, a[1], a[int((NR + 1) / 2)], a[NR], NR}'
log "load: $(uptime)"
