#!/usr/bin/env bash
#
# bench/counters.sh -- aggregate cells against heap UPDATEs, in one run:
# pgbench, 8 clients x $DURATION s (default 30), each transaction adds 1 to
# one of N hot counters (N = 1, 10, 10000):
#
#   wide:  SELECT wide.add_to_cell('ctr', 'page#K', 'n', 'views', day, 1)
#   heap:  UPDATE counters SET n = n + 1 WHERE k = 'page#K'   (primary key)
#
# After each run the sum of the counters must equal the number of
# transactions pgbench committed (the script fails otherwise).  While it
# runs, pg_stat_activity is sampled every 0.1 s for backends waiting on a
# heavyweight lock (wait_event_type 'Lock') or a lightweight lock ('LWLock').
# Runs with synchronous_commit on, then off.  Also reports the latency of reading the hottest counter right after the
# run (inputs not yet folded) and after wide.compact (folded).
#
# Starts its own server (port 54332, data in /tmp/wide-bench-counters).
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

DURATION=${DURATION:-30}
CLIENTS=${CLIENTS:-8}
BENCH=/tmp/wide-bench-counters
PORT=54332

wide_install_deps
wide_test_user
wide_build_install
bench_server "max_connections = 50
shared_buffers = 1GB
checkpoint_timeout = 1h
max_wal_size = 16GB
autovacuum = off
jit = off"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
PGBENCH="pgbench -h $BENCH -p $PORT -U postgres -n"

sql "CREATE EXTENSION wide;"

script() {
	printf '%s\n' "$2" > "$BENCH/$1.sql"
	chmod 644 "$BENCH/$1.sql"
	echo "$BENCH/$1.sql"
}

# sample lock waits until the file $BENCH/stop appears; prints
# "samples lock_waiters lwlock_waiters" (sums over samples)
sample_waits() {
	local n=0 lock=0 lw=0 l w
	while [ ! -f "$BENCH/stop" ]; do
		IFS='|' read -r l w < <(sql "SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'),
       count(*) FILTER (WHERE wait_event_type = 'LWLock')
  FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
		n=$((n + 1)); lock=$((lock + l)); lw=$((lw + w))
		sleep 0.1
	done
	echo "$n $lock $lw"
}

# read latency (ms, average of 20) of the counter page#1 (the subquery is
# correlated so that it runs 20 times)
read_ms() {
	sql "SELECT clock_timestamp() AS t0 \\gset
SELECT count(v) FROM (SELECT (SELECT value FROM ctr WHERE row_key = 'page#' || (g / 100 + 1)) AS v
                        FROM generate_series(1, 20) g) s;
SELECT round((extract(epoch FROM clock_timestamp() - :'t0') * 1000 / 20)::numeric, 3)" | tail -1
}

printf '%-5s %-8s %-6s %10s %12s %14s %14s %12s %12s\n' sync cells table tx/s committed "lock-waiters" "lwlock-waiters" "read_ms" "folded_ms"
for SYNC in on off; do
for N in 1 10 10000; do
	sql "SET client_min_messages = warning; DROP TABLE IF EXISTS ctr; DROP TABLE IF EXISTS counters;
CREATE TABLE ctr (row_key text, family text, qualifier text, ts timestamptz,
                  value int8) USING wide;
SELECT wide.create_family('ctr', 'n', aggregate => 'sum');
CREATE TABLE counters (k text PRIMARY KEY, n int8 NOT NULL);
INSERT INTO counters SELECT 'page#' || g, 0 FROM generate_series(1, $N) g;
VACUUM ANALYZE counters;
CHECKPOINT;"
	for t in heap wide; do
		if [ $t = heap ]; then
			f=$(script upd "\\set k random(1, $N)
UPDATE counters SET n = n + 1 WHERE k = 'page#' || :k;")
		else
			f=$(script add "\\set k random(1, $N)
SELECT wide.add_to_cell('ctr', 'page#' || :k, 'n', 'views', '2030-01-01', 1);")
		fi
		rm -f "$BENCH/stop"
		sample_waits > "$BENCH/waits" &
		sampler=$!
		out=$(as_test_user "PGOPTIONS='-c synchronous_commit=$SYNC' $PGBENCH -c $CLIENTS -j 2 -T $DURATION -f '$f' postgres" 2>&1)
		touch "$BENCH/stop"; wait $sampler
		read -r samples lock lw < "$BENCH/waits"
		tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
		done_tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
		failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out")
		if [ $t = heap ]; then
			total=$(sql "SELECT sum(n) FROM counters")
			rms="-"; fms="-"
		else
			total=$(sql "SELECT sum(value) FROM ctr")
			rms=$(read_ms)
			sql "SELECT FROM wide.compact('ctr')" >/dev/null
			fms=$(read_ms)
		fi
		if [ "$total" != "$done_tx" ]; then
			echo "MISMATCH: $t with $N counters: sum $total, committed transactions $done_tx (failed ${failed:-0})" >&2
			exit 1
		fi
		printf '%-5s %-8s %-6s %10.0f %12s %14s %14s %12s %12s\n' "$SYNC" "$N" "$t" "$tps" "$done_tx" \
			"$(python3 -c "print(f'{$lock / max($samples, 1):.2f}')")" \
			"$(python3 -c "print(f'{$lw / max($samples, 1):.2f}')")" "$rms" "$fms"
	done
done
done
echo "(lock-waiters, lwlock-waiters: backends waiting, averaged over samples every 0.1 s)"
