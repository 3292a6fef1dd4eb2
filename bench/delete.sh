#!/usr/bin/env bash
#
# bench/delete.sh [cells] -- DELETE on wide against a heap table with a
# btree on (row_key, family, qualifier, ts desc), same cells, same run:
#   range:      DELETE ... WHERE row_key >= a AND row_key < b  (a tenth)
#   rows:       200 DELETE ... WHERE row_key = k, in one transaction
#   rows1000:   the same with 1,000 row keys
#   in:         one DELETE ... WHERE row_key IN (the same 200 keys)
#   everything: DELETE FROM t
# and, for the wide table, the same range cell by cell
# (wide.enable_range_delete = off), the path every DELETE took before.
# Each case loads both tables afresh (VACUUM ANALYZE, wide compacted),
# times the DELETE (wall clock, and the backend's CPU time from its
# /proc/self/schedstat, the two sides alternated, medians of $ROUNDS
# rounds) and measures the bytes the table holds before the
# delete, what the delete added, and what VACUUM leaves.  Prints one
# table, as docs/performance.md shows it.
#
# The row form (a wide_rows foreign table in TSBS's cpu schema, key
# tags_id,time, against the heap table TSBS creates with its two btrees,
# $ROWS_HOSTS hosts x one day at 10 s, 10 metrics), loaded once; each
# round deletes another host's readings, the two sides alternated:
#   form_hour:    DELETE ... WHERE tags_id = h AND time in one hour
#   form_reading: DELETE ... WHERE tags_id = h AND time = t
#   form_day:     DELETE ... WHERE tags_id = h (the host's day)
#   form_in:      DELETE ... WHERE tags_id = h AND time IN (100 readings,
#                 one every 10 minutes): a row tombstone each
#   form_hour_by_row: form_hour with wide.enable_range_delete = off (a
#                 tombstone per row, as every row form DELETE was before)
# Bytes for these: both tables before the case, what its deletes added,
# and after a VACUUM.  For every case, the backend's CPU time of each timed
# DELETE (of the case's transaction, for the others) too (bench/lib/cpu.sh:
# /proc/self/schedstat read by the session before and after it), medians:
# on a loaded machine a DELETE of a few ms waits for a CPU longer than it
# runs, so the wall-clock ratio is mostly the run queue's noise.
#
# CASES="range rows rows1000 in everything form_hour form_reading form_day form_in
# form_hour_by_row" (the default) picks the cases.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54336, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench-delete) and stops it.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"
source "$(dirname "$0")/lib/cpu.sh"

CELLS=${1:-1000000}
ROUNDS=${ROUNDS:-3}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-delete}
PORT=${WIDE_BENCH_PORT:-54336}
HOSTS=100
READINGS=$(( (CELLS + HOSTS * 20 - 1) / (HOSTS * 20) ))

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
  ORDER BY hashtext(row_key) LIMIT 200;
CREATE TABLE keys1000 AS SELECT row_key FROM (SELECT DISTINCT row_key FROM src) k
  ORDER BY hashtext(row_key) LIMIT 1000;"
sql "SELECT 'rows: ' || string_agg(format('DELETE FROM @ WHERE row_key = %L;', row_key), ' ') FROM keys" \
	| sed 's/^rows: //' > "$BENCH/rows.sql"
ROWS_SQL=$(cat "$BENCH/rows.sql")
ROWS1000_SQL=$(sql "SELECT string_agg(format('DELETE FROM @ WHERE row_key = %L;', row_key), ' ') FROM keys1000")
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

# one KIND SETTING STATEMENT: prints "ms bytes_before added after_vacuum
# cpu_ms" (cpu_ms: the backend's, of the transaction)
one() {
	local kind=$1 set=$2 stmt=$3 before t0 t1 out added after
	load "$kind"
	before=$(sql "SELECT pg_total_relation_size('t')")
	t0=$(date +%s%N)
	out=$(as_test_user "$PSQL" <<<"$set
$(cpu_mark)
BEGIN; ${stmt//@/t} COMMIT;
$(cpu_mark)")
	t1=$(date +%s%N)
	added=$(( $(sql "SELECT pg_total_relation_size('t')") - before ))
	after=$(sql "VACUUM t; SELECT pg_total_relation_size('t')")
	echo "$(( (t1 - t0) / 1000000 )) $before $added $after $(cpu_ms <<<"$out")"
}

# cpu_cols HEAP_ROUNDS WIDE_ROUNDS: the CPU columns of two sides' rounds
# (one's lines): medians and their ratio
cpu_cols() {
	local hc wc
	hc=$(cut -d' ' -f5 <<<"$1" | cpu_median)
	wc=$(cut -d' ' -f5 <<<"$2" | cpu_median)
	printf ' %s | %s | %s |' "$hc" "$wc" "$(cpu_ratio "$wc" "$hc")"
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
	read -r _ hb ha hv _ <<<"${H[0]}"
	read -r _ wb wa wv _ <<<"${W[0]}"
	printf '| %s | %s | %s | %.2f | %s / %s | %s / %s | %s / %s |%s\n' "$name" "$hm" "$wm" \
		"$(echo "$wm / $hm" | bc -l)" "$(numfmt --to=iec "$hb")" "$(numfmt --to=iec "$wb")" \
		"$(numfmt --to=iec "$ha")" "$(numfmt --to=iec "$wa")" \
		"$(numfmt --to=iec "$hv")" "$(numfmt --to=iec "$wv")" \
		"$(cpu_cols "$(printf '%s\n' "${H[@]}")" "$(printf '%s\n' "${W[@]}")")"
	if [ ${#C[@]} -gt 0 ]; then
		local cm cb ca cv
		cm=$(printf '%s\n' "${C[@]}" | cut -d' ' -f1 | tr '\n' ' ' | median)
		read -r _ cb ca cv _ <<<"${C[0]}"
		printf '| %s, wide cell by cell | %s | %s | %.2f | %s / %s | %s / %s | %s / %s |%s\n' "$name" \
			"$hm" "$cm" "$(echo "$cm / $hm" | bc -l)" "$(numfmt --to=iec "$hb")" \
			"$(numfmt --to=iec "$cb")" "$(numfmt --to=iec "$ha")" "$(numfmt --to=iec "$ca")" \
			"$(numfmt --to=iec "$hv")" "$(numfmt --to=iec "$cv")" \
			"$(cpu_cols "$(printf '%s\n' "${H[@]}")" "$(printf '%s\n' "${C[@]}")")"
	fi
}

ROWS_HOSTS=${ROWS_HOSTS:-30}
IN_TIMES=$(for k in $(seq 0 99); do echo "'2016-01-01 00:00:10'::timestamptz + interval '$((k * 600)) s'"; done | paste -sd, -)
METRICS="usage_user usage_system usage_idle usage_nice usage_iowait usage_irq usage_softirq usage_steal usage_guest usage_guest_nice"
form_loaded=
# the row form and the heap in TSBS's schema, loaded once
form_load() {
	[ -n "$form_loaded" ] && return
	form_loaded=1
	local cols vals
	cols=$(for m in $METRICS; do printf ', %s float8' "$m"; done)
	vals=$(i=0; for m in $METRICS; do i=$((i + 1)); printf ', ((h * 7 + s * %d) %% 100)::float8' "$i"; done)
	log "row form: $ROWS_HOSTS hosts x 8640 readings x 10 metrics"
	sql "CREATE TABLE hcpu (time timestamptz, tags_id integer $cols);
	     INSERT INTO hcpu SELECT '2016-01-01'::timestamptz + s * interval '10 s', h $vals
	       FROM generate_series(0, 8639) s, generate_series(1, $ROWS_HOSTS) h;
	     CREATE INDEX ON hcpu (tags_id, time DESC);
	     CREATE INDEX ON hcpu (time DESC);
	     CREATE TABLE cpu_cells (row_key text, family text, qualifier text, ts timestamptz,
	                             value float8) USING wide;
	     SELECT wide.create_family('cpu_cells', 'cpu', max_versions => 1);
	     CREATE FOREIGN TABLE rcpu (time timestamptz NOT NULL, tags_id int4 NOT NULL $cols)
	       SERVER wide_rows OPTIONS (cells 'cpu_cells', family 'cpu', key 'tags_id,time');
	     INSERT INTO rcpu SELECT * FROM hcpu;
	     SELECT wide.compact('cpu_cells', major => true);
	     VACUUM ANALYZE hcpu; VACUUM ANALYZE cpu_cells; ANALYZE rcpu; CHECKPOINT;" >/dev/null
}

form_bytes() { sql "SELECT pg_total_relation_size('hcpu') || ' ' || pg_total_relation_size('cpu_cells')"; }

# form_case NAME FIRST_HOST SET WHERE: WHERE with @ for the host, a round each
form_case() {
	local name=$1 first=$2 set=$3 where=$4 i h script out hb wb ha wa hv wv n
	form_load
	read -r hb wb <<<"$(form_bytes)"
	# each DELETE timed by psql (wall: parse, plan, execute, commit and the
	# round trip) and by the backend's CPU time around it (schedstat)
	local cpu
	cpu=$(cpu_mark)
	script="$set"
	for ((i = 0; i < ROUNDS; i++)); do
		h=$((first + i))
		if ((i % 2 == 0)); then
			script+="
$cpu
DELETE FROM hcpu WHERE ${where//@/$h};
$cpu
DELETE FROM rcpu WHERE ${where//@/$h};"
		else
			script+="
$cpu
DELETE FROM rcpu WHERE ${where//@/$h};
$cpu
DELETE FROM hcpu WHERE ${where//@/$h};"
		fi
	done
	script+="
$cpu"
	out=$(as_test_user "psql -X -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1" <<<"$script")
	# the times in statement order: heap, rows, rows, heap, ...
	local -a T=() H=() W=() N=() C=() HC=() WC=()
	mapfile -t T < <(grep '^Time:' <<<"$out" | awk '{print $2}')
	# CPU ms of each DELETE: the difference of the schedstat lines around it
	mapfile -t C < <(cpu_ms <<<"$out")
	mapfile -t N < <(grep '^DELETE' <<<"$out" | awk '{print $2}')
	for ((i = 0; i < ROUNDS; i++)); do
		if ((i % 2 == 0)); then H+=("${T[2 * i]}"); W+=("${T[2 * i + 1]}")
			HC+=("${C[2 * i]}"); WC+=("${C[2 * i + 1]}")
		else W+=("${T[2 * i]}"); H+=("${T[2 * i + 1]}")
			WC+=("${C[2 * i]}"); HC+=("${C[2 * i + 1]}"); fi
		[ "${N[2 * i]}" = "${N[2 * i + 1]}" ] || { echo "row counts differ: ${N[*]}" >&2; exit 1; }
	done
	read -r ha wa <<<"$(form_bytes)"
	sql "VACUUM hcpu; VACUUM cpu_cells;"
	read -r hv wv <<<"$(form_bytes)"
	local hm wm hc wc
	hm=$(printf '%s\n' "${H[@]}" | tr '\n' ' ' | median)
	wm=$(printf '%s\n' "${W[@]}" | tr '\n' ' ' | median)
	hc=$(printf '%s\n' "${HC[@]}" | tr '\n' ' ' | median)
	wc=$(printf '%s\n' "${WC[@]}" | tr '\n' ' ' | median)
	printf '| %s (%s rows each) | %s | %s | %.2f | %s / %s | %s / %s | %s / %s | %s | %s | %.2f |\n' "$name" "${N[0]}" \
		"$hm" "$wm" "$(echo "$wm / $hm" | bc -l)" "$(numfmt --to=iec "$hb")" "$(numfmt --to=iec "$wb")" \
		"$(numfmt --to=iec $((ha - hb)))" "$(numfmt --to=iec $((wa - wb)))" \
		"$(numfmt --to=iec "$hv")" "$(numfmt --to=iec "$wv")" "$hc" "$wc" "$(echo "$wc / $hc" | bc -l)"
}

echo "load: $(uptime | sed 's/.*load average/load average/')"
echo "| delete ($CELLS cells) | heap ms | wide ms | wide/heap | bytes before (heap / wide) | added by the DELETE | after VACUUM | heap CPU ms | wide CPU ms | CPU wide/heap |"
echo "|---|---:|---:|---:|---|---|---|---:|---:|---:|"
[ -z "${CASES:-}" ] && CASES="range rows rows1000 in everything form_hour form_reading form_day form_in form_hour_by_row"
for c in $CASES; do
	case $c in
		range) case_ range "DELETE FROM @ WHERE row_key >= 'host041' AND row_key < 'host051';" ;;
		rows) case_ rows "$ROWS_SQL" ;;
		rows1000) case_ rows1000 "$ROWS1000_SQL" ;;
		in) case_ in "$IN_SQL" ;;
		everything) case_ everything "DELETE FROM @;" ;;
		form_hour) form_case "row form: a host's hour" 1 '' \
			"tags_id = @ AND time >= '2016-01-01 10:00' AND time < '2016-01-01 11:00'" ;;
		form_hour_by_row) form_case "row form: a host's hour, by row (before)" 1 \
			'SET wide.enable_range_delete = off;' \
			"tags_id = @ AND time >= '2016-01-01 12:00' AND time < '2016-01-01 13:00'" ;;
		form_reading) form_case "row form: one reading" 1 '' \
			"tags_id = @ AND time = '2016-01-01 15:00:10'" ;;
		form_day) form_case "row form: a host's day" $((ROUNDS + 1)) '' "tags_id = @" ;;
		form_in) form_case "row form: 100 readings in an IN list" $((2 * ROUNDS + 1)) '' \
			"tags_id = @ AND time IN ($IN_TIMES)" ;;
	esac
done
echo "load: $(uptime | sed 's/.*load average/load average/')"
