#!/usr/bin/env bash
#
# bench/delete.sh [cells] -- DELETE on wide against a heap table with a
# btree on (row_key, family, qualifier, ts desc), same cells, same run:
#   range:      DELETE ... WHERE row_key >= a AND row_key < b  (a tenth)
#   rows:       200 DELETE ... WHERE row_key = k, in one transaction
#   in:         one DELETE ... WHERE row_key IN (the same 200 keys)
#   everything: DELETE FROM t
# and, for the wide table, the same range cell by cell
# (wide.enable_range_delete = off), the path every DELETE took before.
# Each case loads both tables afresh (VACUUM ANALYZE, wide compacted),
# times the DELETE (wall clock, the two sides alternated, median of
# $ROUNDS rounds) and measures the bytes the table holds before the
# delete, what the delete added, and what VACUUM leaves.  Prints one
# table, as docs/performance.md shows it.
#
# CASES="range rows in everything" (the default) picks the cases.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54336, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench-delete) and stops it.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"

CELLS=${1:-1000000}
ROUNDS=${ROUNDS:-3}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-delete}
PORT=${WIDE_BENCH_PORT:-54336}
HOSTS=100
READINGS=$(( (CELLS + HOSTS * 20 - 1) / (HOSTS * 20) ))

wide_install_deps
wide_test_user
wide_build_install
[ -f "$BENCH/data/postmaster.pid" ] && stop_cluster "$BENCH"
rm -rf "$BENCH"; mkdir -p "$BENCH"; chmod 755 "$BENCH"
[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$BENCH"
start_cluster "$BENCH" "$PORT" "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 1GB
work_mem = 64MB
max_parallel_workers_per_gather = 0
autovacuum = off
jit = off"
trap 'stop_cluster "$BENCH"' EXIT

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }

log "generating $CELLS cells: $HOSTS hosts x 20 metrics x $READINGS readings"
sql "CREATE EXTENSION wide;
CREATE TABLE src AS
  SELECT format('host%s#%s', lpad(h::text, 3, '0'), lpad(r::text, 8, '0')) AS row_key,
         'm'::text AS family, 'metric' || m AS qualifier,
         to_timestamp(1426535612 + r * 5) AS ts,
         round((50 + 40 * sin(r / 100.0 + h + m) + random() * 5)::numeric, 2)::float8 AS value
    FROM generate_series(0, $READINGS - 1) r, generate_series(1, $HOSTS) h,
         generate_series(1, 20) m;
CREATE TABLE keys AS SELECT row_key FROM (SELECT DISTINCT row_key FROM src) k
  ORDER BY hashtext(row_key) LIMIT 200;"
sql "SELECT 'rows: ' || string_agg(format('DELETE FROM @ WHERE row_key = %L;', row_key), ' ') FROM keys" \
	| sed 's/^rows: //' > "$BENCH/rows.sql"
ROWS_SQL=$(cat "$BENCH/rows.sql")
IN_SQL=$(sql "SELECT format('DELETE FROM @ WHERE row_key IN (%s);', string_agg(quote_literal(row_key), ', ')) FROM keys")

# load KIND (heap | wide): the table t afresh
load() {
	sql "DROP TABLE IF EXISTS t;"
	if [ "$1" = heap ]; then
		sql "CREATE TABLE t (row_key text COLLATE \"C\", family text COLLATE \"C\",
		                     qualifier text COLLATE \"C\", ts timestamptz, value float8);
		     INSERT INTO t SELECT * FROM src;
		     CREATE INDEX t_key ON t (row_key, family, qualifier, ts DESC);
		     VACUUM ANALYZE t; CHECKPOINT;"
	else
		sql "CREATE TABLE t (row_key text, family text, qualifier text, ts timestamptz,
		                     value float8) USING wide;
		     SELECT wide.create_family('t', 'm');
		     INSERT INTO t SELECT * FROM src;
		     SELECT wide.compact('t', major => true);
		     VACUUM ANALYZE t; CHECKPOINT;" >/dev/null
	fi
}

# one KIND SETTING STATEMENT: prints "ms cells bytes_before added after_vacuum"
one() {
	local kind=$1 set=$2 stmt=$3 before t0 t1 n added after
	load "$kind"
	before=$(sql "SELECT pg_total_relation_size('t')")
	t0=$(date +%s%N)
	n=$(as_test_user "$PSQL" <<<"$set BEGIN; ${stmt//@/t} COMMIT;" | tail -1)
	t1=$(date +%s%N)
	added=$(( $(sql "SELECT pg_total_relation_size('t')") - before ))
	after=$(sql "VACUUM t; SELECT pg_total_relation_size('t')")
	echo "$(( (t1 - t0) / 1000000 )) $before $added $after"
}

median() { tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# case NAME STATEMENT: heap, wide (range tombstone), wide cell by cell
case_() {
	local name=$1 stmt=$2 i
	local -a H=() W=() C=()
	for ((i = 0; i < ROUNDS; i++)); do
		H+=("$(one heap '' "$stmt")")
		W+=("$(one wide '' "$stmt")")
		if [ "$name" = range ]; then
			C+=("$(one wide 'SET wide.enable_range_delete = off;' "$stmt")")
		fi
	done
	local hm wm cm hb wb wa ha wv hv
	hm=$(printf '%s\n' "${H[@]}" | cut -d' ' -f1 | tr '\n' ' ' | median)
	wm=$(printf '%s\n' "${W[@]}" | cut -d' ' -f1 | tr '\n' ' ' | median)
	read -r _ hb ha hv <<<"${H[0]}"
	read -r _ wb wa wv <<<"${W[0]}"
	printf '| %s | %s | %s | %.2f | %s / %s | %s / %s | %s / %s |\n' "$name" "$hm" "$wm" \
		"$(echo "$wm / $hm" | bc -l)" "$(numfmt --to=iec "$hb")" "$(numfmt --to=iec "$wb")" \
		"$(numfmt --to=iec "$ha")" "$(numfmt --to=iec "$wa")" \
		"$(numfmt --to=iec "$hv")" "$(numfmt --to=iec "$wv")"
	if [ ${#C[@]} -gt 0 ]; then
		local cm cb ca cv
		cm=$(printf '%s\n' "${C[@]}" | cut -d' ' -f1 | tr '\n' ' ' | median)
		read -r _ cb ca cv <<<"${C[0]}"
		printf '| %s, wide cell by cell | %s | %s | %.2f | %s / %s | %s / %s | %s / %s |\n' "$name" \
			"$hm" "$cm" "$(echo "$cm / $hm" | bc -l)" "$(numfmt --to=iec "$hb")" \
			"$(numfmt --to=iec "$cb")" "$(numfmt --to=iec "$ha")" "$(numfmt --to=iec "$ca")" \
			"$(numfmt --to=iec "$hv")" "$(numfmt --to=iec "$cv")"
	fi
}

echo "load: $(uptime | sed 's/.*load average/load average/')"
echo "| delete ($CELLS cells) | heap ms | wide ms | wide/heap | bytes before (heap / wide) | added by the DELETE | after VACUUM |"
echo "|---|---:|---:|---:|---|---|---|"
[ -z "${CASES:-}" ] && CASES="range rows in everything"
for c in $CASES; do
	case $c in
		range) case_ range "DELETE FROM @ WHERE row_key >= 'host041' AND row_key < 'host051';" ;;
		rows) case_ rows "$ROWS_SQL" ;;
		in) case_ in "$IN_SQL" ;;
		everything) case_ everything "DELETE FROM @;" ;;
	esac
done
echo "load: $(uptime | sed 's/.*load average/load average/')"
