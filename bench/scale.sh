#!/usr/bin/env bash
#
# bench/scale.sh -- a small simulation of tablets past one machine: a
# coordinator and two data nodes on this machine (unix sockets), a parent
# split into $TABLETS tablets (default 120) dealt round-robin to the
# coordinator and the nodes, against one local wide table with the same
# cells ($ROWS rows x 5 cells, default 24,000 rows).  Reports
#   - planning and execution of a point read and of a 50-row range through
#     the parent vs the one table (pgbench, one client, $DURATION s each);
#   - which nodes a key-range read reaches (statements in the nodes' logs);
#   - a fan-out count(*) over every tablet vs the one table;
#   - the lock time of a split and a move (wide.tablet_ops.lock_ms).
# Ports $PORT..$PORT+2 (default 56310), data in /tmp/split-bench-*.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"

DURATION=${DURATION:-5}
TABLETS=${TABLETS:-120}
ROWS=${ROWS:-24000}
PORT=${PORT:-56310}
BENCH=${BENCH:-/tmp/split-bench}

wide_install_deps
wide_test_user
wide_build_install
dirs=("$BENCH-coord" "$BENCH-n1" "$BENCH-n2")
for i in 0 1 2; do
	d=${dirs[$i]}
	[ -f "$d/data/postmaster.pid" ] && stop_cluster "$d"
	rm -rf "$d"; mkdir -p "$d"; chmod 755 "$d"
	[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$d"
	start_cluster "$d" $((PORT + i)) "max_prepared_transactions = 20
autovacuum = off
jit = off"
done
trap 'for d in "${dirs[@]}"; do stop_cluster "$d"; done' EXIT

sql() { as_test_user "psql -X -q -At -h $1 -p $2 -U postgres -v ON_ERROR_STOP=1" <<<"$3"; }
coord() { sql "${dirs[0]}" "$PORT" "$1"; }
PGBENCH="pgbench -h ${dirs[0]} -p $PORT -U postgres -n"

for i in 1 2; do sql "${dirs[$i]}" $((PORT + i)) 'CREATE EXTENSION wide'; done
coord "CREATE EXTENSION wide; CREATE EXTENSION postgres_fdw;
CREATE SERVER n1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '${dirs[1]}', port '$((PORT + 1))', dbname 'postgres');
CREATE SERVER n2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '${dirs[2]}', port '$((PORT + 2))', dbname 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER n1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER n2 OPTIONS (user 'postgres');
CREATE TABLE dist (row_key text COLLATE \"C\", family text COLLATE \"C\",
                   qualifier text COLLATE \"C\", ts int8, value int8) PARTITION BY RANGE (row_key);
SELECT wide.create_family('dist', 'm');
CREATE TABLE one (LIKE dist) USING wide;
SELECT wide.create_family('one', 'm');"

log "$TABLETS tablets over the coordinator, n1 and n2; $ROWS rows x 5 cells"
t0=$(date +%s.%N)
coord "SELECT count(*) FROM wide.create_tablets('dist',
  (SELECT array_agg('k' || lpad((j * $ROWS / $TABLETS)::text, 6, '0') ORDER BY j) FROM generate_series(1, $TABLETS - 1) j),
  (SELECT array_agg((ARRAY['local', 'n1', 'n2'])[j % 3 + 1] ORDER BY j) FROM generate_series(0, $TABLETS - 1) j))" >/dev/null
echo "create_tablets ($TABLETS tablets): $(echo "$(date +%s.%N) - $t0" | bc) s"
for t in one dist; do
	t0=$(date +%s.%N)
	coord "INSERT INTO $t SELECT 'k' || lpad((i / 5)::text, 6, '0'), 'm', 'q' || (i % 5), 1, i
	         FROM generate_series(0, $ROWS * 5 - 1) i" >/dev/null
	echo "load $t ($((ROWS * 5)) cells): $(echo "$(date +%s.%N) - $t0" | bc) s"
done
coord "SELECT FROM wide.compact('one', true); SELECT FROM wide.compact('dist', true)" >/dev/null

log "planning a point read"
for t in one dist; do
	echo "$t point read: $(coord "EXPLAIN (ANALYZE, SUMMARY, COSTS OFF) SELECT count(*) FROM $t WHERE row_key = 'k012345'" |
		grep -E 'Planning Time|Execution Time' | tr '\n' ' ')"
done

log "latency, one client, ${DURATION}s each"
cat >/tmp/split-bench-point.sql <<EOF
\set r random(0, $ROWS - 1)
SELECT count(*) FROM :t WHERE row_key = 'k' || lpad(:r::text, 6, '0');
EOF
cat >/tmp/split-bench-range.sql <<EOF
\set r random(0, $ROWS - 51)
SELECT count(*) FROM :t WHERE row_key >= 'k' || lpad(:r::text, 6, '0') AND row_key < 'k' || lpad((:r + 50)::text, 6, '0');
EOF
chmod 644 /tmp/split-bench-point.sql /tmp/split-bench-range.sql
for q in point range; do
	for t in one dist; do
		lat=$(as_test_user "$PGBENCH -D t=$t -f /tmp/split-bench-$q.sql -T $DURATION postgres" | grep 'latency average' | awk '{print $4}')
		echo "$q read, $t: $lat ms"
	done
done

log "which nodes a key-range read reaches"
for i in 1 2; do sql "${dirs[$i]}" $((PORT + i)) "ALTER SYSTEM SET log_statement = 'all'; SELECT pg_reload_conf()" >/dev/null; done
sleep 1
before1=$(grep -c 'FROM public.dist_' "${dirs[1]}/server.log" || true)
before2=$(grep -c 'FROM public.dist_' "${dirs[2]}/server.log" || true)
# 20 reads of ranges in tablets of n1 (tablet j is on n1 when j % 3 = 1)
coord "DO \$\$ DECLARE j int; n bigint; BEGIN
  FOR j IN SELECT g * 3 + 1 FROM generate_series(0, 19) g LOOP
    EXECUTE format('SELECT count(*) FROM dist WHERE row_key >= %L AND row_key < %L',
                   'k' || lpad((j * $ROWS / $TABLETS)::text, 6, '0'),
                   'k' || lpad((j * $ROWS / $TABLETS + 10)::text, 6, '0')) INTO n;
  END LOOP; END \$\$"
sleep 1
echo "20 range reads in tablets of n1: statements on n1 $(( $(grep -c 'FROM public.dist_' "${dirs[1]}/server.log") - before1 )), on n2 $(( $(grep -c 'FROM public.dist_' "${dirs[2]}/server.log") - before2 ))"
for i in 1 2; do sql "${dirs[$i]}" $((PORT + i)) "ALTER SYSTEM RESET log_statement; SELECT pg_reload_conf()" >/dev/null; done

log "fan-out count(*) over every tablet vs one table (best of 5)"
for t in one dist; do
	best=$(for k in 1 2 3 4 5; do
		coord "\\timing on
SELECT count(*) FROM $t" | grep '^Time' | awk '{print $2}'
	done | sort -n | head -1)
	echo "count(*) $t: $best ms ($(coord "SELECT count(*) FROM $t") cells)"
done
echo "plan of the fan-out: $(coord "EXPLAIN (COSTS OFF) SELECT count(*) FROM dist" | grep -c 'Async Foreign Scan') async foreign scans, $(coord "EXPLAIN (COSTS OFF) SELECT count(*) FROM dist" | grep -c 'WideScan') local Wide Scans"

log "split and move of a tablet with $((ROWS * 5 / TABLETS)) cells"
as_test_user "psql -X -q -h ${dirs[0]} -p $PORT -U postgres -c \"CALL wide.split_tablet('dist', 'dist_1')\" -c \"CALL wide.split_tablet('dist', 'dist_2')\" -c \"CALL wide.move_tablet('dist', 'dist_4', 'n2')\" -c \"CALL wide.move_tablet('dist', 'dist_3', 'local')\""
coord "SELECT op || ' ' || tablet || ' ' || node || '->' || array_to_string(new_nodes, ',') || ': lock ' || round(lock_ms::numeric, 1) || ' ms, total ' ||
              round((extract(epoch FROM finished - started) * 1000)::numeric, 1) || ' ms'
         FROM wide.tablet_ops ORDER BY id"
