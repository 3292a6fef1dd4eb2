#!/usr/bin/env bash
#
# bench/ingest_tsbs.sh [readings] -- COPY of TSBS devops cpu-only readings
# (100 hosts x 10 float8 metrics, a reading every 10 s, time-major: readings
# in time order, hosts interleaved, as TSBS writes its CSV) into
#
#   - heap: TSBS's plain-PostgreSQL schema, cpu(time, tags_id, usage_user ...
#     usage_guest_nice float8) with btrees on (tags_id, time DESC) and
#     (time DESC), one row per reading;
#   - wide: the cell form, one cell per metric (row key host_12#1451606400,
#     family cpu with max_versions 1, qualifier = the metric, ts = the time),
#     the same readings as 10 cells each, in the same time-major order;
#
# then VACUUM ANALYZE of each loaded table.  REPS rounds (default 3), the two
# sides alternating in each, fresh tables each round; prints medians of
# readings/s and VACUUM ANALYZE seconds, and the wide/heap ratios.
# VALUES=int (default: integers, as TSBS writes them today) or VALUES=float
# (full-precision random walk).  Default 864,000 readings (100 hosts x 24 h).
# FORM=rows loads wide's row form instead of the cell form: a foreign table
# of server wide_rows (key 'tags_id,time') over the cells table, COPY of the
# heap's CSV, then VACUUM ANALYZE of the cells table and ANALYZE of the row
# form.  Besides wall times it reports the backend's CPU seconds of each
# statement and its seconds waiting for a CPU (/proc/PID/schedstat: the
# rest of the wall time is sleep, I/O or locks), and the WAL COPY wrote
# (pg_current_wal_insert_lsn).
# Starts its own server (PORT, default 54336, data in /tmp/wide-bench-itsbs)
# and stops it; with PERF=1 it records `perf record -g` of the COPY and
# VACUUM ANALYZE backends of the last round in $BENCH/perf-*.data.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

READINGS=${1:-864000}
REPS=${REPS:-3}
VALUES=${VALUES:-int}
BENCH=${BENCH:-/tmp/wide-bench-itsbs}
PORT=${PORT:-54336}
HOSTS=100
T0=1451606400					# 2016-01-01, TSBS's default start
STEPS=$(( (READINGS + HOSTS - 1) / HOSTS ))
METRICS="usage_user usage_system usage_idle usage_nice usage_iowait usage_irq usage_softirq usage_steal usage_guest usage_guest_nice"

wide_install_deps
wide_test_user
[ -n "${NOBUILD:-}" ] || wide_build_install
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 1GB
work_mem = 64MB
maintenance_work_mem = 256MB
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
autovacuum = off
jit = off"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }

cols=""; vals=""; i=0
for m in $METRICS; do
	cols+=", $m float8"
	if [ "$VALUES" = float ]; then
		vals+=", 50 + 40 * sin(s / 300.0 + h * 0.7 + $i) + random() AS $m"
	else
		vals+=", round(50 + 40 * sin(s / 300.0 + h * 0.7 + $i) + random() * 3) AS $m"
	fi
	i=$((i + 1))
done

log "generating $((STEPS * HOSTS)) readings: $HOSTS hosts x $STEPS steps of 10 s ($VALUES values)"
sql "CREATE EXTENSION wide;
CREATE TABLE src AS
  SELECT to_timestamp($T0 + s * 10) AS time, h AS tags_id $vals
    FROM generate_series(0, $STEPS - 1) s, generate_series(1, $HOSTS) h
   ORDER BY s, h
   LIMIT $READINGS;
COPY src TO '$BENCH/rows.csv' (FORMAT csv);
COPY (SELECT format('host_%s#%s', r.tags_id, extract(epoch FROM r.time)::int8),
             'cpu', m.q, r.time, m.v
        FROM src r,
             LATERAL (VALUES $(i=0; for m in $METRICS; do [ $i -gt 0 ] && printf ', '; printf "('%s', r.%s, %d)" $m $m $i; i=$((i + 1)); done)) m(q, v, i)
       ORDER BY r.time, r.tags_id, m.i)
  TO '$BENCH/cells.csv' (FORMAT csv);
DROP TABLE src;
CHECKPOINT;"

FORM=${FORM:-cells}
make_table() {
	if [ "$1" = wide ] && [ "$FORM" = rows ]; then
		sql "DROP FOREIGN TABLE IF EXISTS cpu_rows; DROP TABLE IF EXISTS cpu_cells;
CREATE TABLE cpu_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('cpu_cells', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE cpu_rows (time timestamptz NOT NULL, tags_id int4 NOT NULL $cols)
  SERVER wide_rows OPTIONS (cells 'cpu_cells', family 'cpu', key 'tags_id,time');" >/dev/null
	elif [ "$1" = wide ]; then
		sql "DROP TABLE IF EXISTS cpu_cells;
CREATE TABLE cpu_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('cpu_cells', 'cpu', max_versions => 1);" >/dev/null
	else
		sql "DROP TABLE IF EXISTS cpu;
CREATE TABLE cpu (time timestamptz NOT NULL, tags_id int4 NOT NULL $cols);
CREATE INDEX cpu_tags_id_time ON cpu (tags_id, time DESC);
CREATE INDEX cpu_time ON cpu (time DESC);"
	fi
	sql "CHECKPOINT"
}

# timed TAG SQL: seconds of SQL in one backend (perf-recorded with PERF=1);
# leaves the backend's CPU seconds in $BENCH/cpu, its seconds waiting for a
# CPU (run queue) in $BENCH/rqwait and the WAL bytes in $BENCH/wal
timed() {
	local tag=$1 query=$2 pid job
	cat > "$BENCH/timed.sql" <<SQL
\\o $BENCH/pid
SELECT pg_backend_pid() AS bpid \\gset
SELECT :bpid;
\\o
\\setenv BPID :bpid
\\! sleep ${PERF_WAIT:-0}
SELECT pg_current_wal_insert_lsn() AS l0 \\gset
\\! cat /proc/\$BPID/schedstat > $BENCH/cpu0
SELECT clock_timestamp() AS t0 \\gset
$query;
\\o $BENCH/sec
SELECT extract(epoch FROM clock_timestamp() - :'t0');
\\o
\\! cat /proc/\$BPID/schedstat > $BENCH/cpu1
\\o $BENCH/wal
SELECT pg_current_wal_insert_lsn() - :'l0';
\\o
SQL
	chmod 644 "$BENCH/timed.sql"
	rm -f "$BENCH/pid" "$BENCH/sec"
	if [ -n "${PERF:-}" ] && [ "$r" -eq "$REPS" ]; then
		PERF_WAIT=1
		as_test_user "$PSQL -f '$BENCH/timed.sql'" >/dev/null &
		job=$!
		while [ ! -s "$BENCH/pid" ]; do sleep 0.05; done
		pid=$(tr -d ' \n' < "$BENCH/pid")
		perf record -g -o "$BENCH/perf-$tag.data" -p "$pid" 2>/dev/null >/dev/null &
		local perfjob=$!
		wait "$job"
		kill -INT "$perfjob"; wait "$perfjob" || true
		PERF_WAIT=0
	else
		as_test_user "$PSQL -f '$BENCH/timed.sql'" >/dev/null
	fi
	head -1 "$BENCH/sec"
	read -r c0 w0 _ < "$BENCH/cpu0"
	read -r c1 w1 _ < "$BENCH/cpu1"
	awk -v c="$((c1 - c0))" 'BEGIN { printf "%.3f\n", c / 1e9 }' > "$BENCH/cpu"
	awk -v w="$((w1 - w0))" 'BEGIN { printf "%.3f\n", w / 1e9 }' > "$BENCH/rqwait"
}

declare -A COPY VAC CCPU VCPU CWAL CRQ VRQ COFF
for r in $(seq 1 "$REPS"); do
	for tag in heap wide; do
		make_table $tag
		if [ $tag = wide ] && [ "$FORM" = rows ]; then
			t=cpu_rows; f=rows.csv; v="VACUUM ANALYZE cpu_cells; ANALYZE cpu_rows"
		elif [ $tag = wide ]; then
			t=cpu_cells; f=cells.csv; v="VACUUM ANALYZE cpu_cells"
		else
			t=cpu; f=rows.csv; v="VACUUM ANALYZE cpu"
		fi
		COPY[$tag]+=" $(timed ${tag}_copy "COPY $t FROM '$BENCH/$f' (FORMAT csv)")"
		CCPU[$tag]+=" $(cat "$BENCH/cpu")"
		CRQ[$tag]+=" $(cat "$BENCH/rqwait")"
		COFF[$tag]+=" $(awk -v w="${COPY[$tag]##* }" -v c="${CCPU[$tag]##* }" -v q="${CRQ[$tag]##* }" 'BEGIN { printf "%.3f", w - c - q }')"
		CWAL[$tag]+=" $(cat "$BENCH/wal")"
		VAC[$tag]+=" $(timed ${tag}_vacuum "$v")"
		VCPU[$tag]+=" $(cat "$BENCH/cpu")"
		VRQ[$tag]+=" $(cat "$BENCH/rqwait")"
		log "round $r $tag: COPY ${COPY[$tag]##* } s (CPU ${CCPU[$tag]##* } s, run queue ${CRQ[$tag]##* } s, WAL ${CWAL[$tag]##* } B), VACUUM ANALYZE ${VAC[$tag]##* } s (CPU ${VCPU[$tag]##* } s, run queue ${VRQ[$tag]##* } s)"
	done
done
n=$(sql "SELECT count(*) FROM cpu")
if [ "$FORM" = rows ]; then
	c=$(sql "SELECT count(*) FROM cpu_rows")
	[ "$c" -eq "$n" ] || { echo "rows $c != readings $n" >&2; exit 1; }
	d=$(sql "SELECT count(*) FROM (SELECT * FROM cpu EXCEPT ALL SELECT * FROM cpu_rows) x")
	[ "$d" -eq 0 ] || { echo "$d readings of the heap differ in the row form" >&2; exit 1; }
else
	c=$(sql "SELECT count(*) FROM cpu_cells")
	[ "$c" -eq $((n * 10)) ] || { echo "cells $c != 10 x readings $n" >&2; exit 1; }
fi
sizes=$(sql "SELECT pg_total_relation_size('cpu'), pg_total_relation_size('cpu_cells')")

python3 - "$n" "${COPY[heap]}" "${COPY[wide]}" "${VAC[heap]}" "${VAC[wide]}" "$sizes" \
	"${CCPU[heap]}" "${CCPU[wide]}" "${VCPU[heap]}" "${VCPU[wide]}" "${CWAL[heap]}" "${CWAL[wide]}" "$FORM" "${CRQ[heap]}" "${CRQ[wide]}" "${COFF[heap]}" "${COFF[wide]}" <<'PY'
import sys, statistics as st
n = int(sys.argv[1])
med = lambda a: st.median(float(x) for x in a.split())
ch, cw, vh, vw = (med(a) for a in sys.argv[2:6])
sh, sw = (int(x) for x in sys.argv[6].split("|"))
cch, ccw, vch, vcw, wh, ww = (med(a) for a in sys.argv[7:13])
form = sys.argv[13]
rqh, rqw, offh, offw = (med(a) for a in sys.argv[14:18])
print(f"{n} readings, medians of {len(sys.argv[2].split())} rounds")
print(f"| | heap | wide ({form}) | wide/heap |")
print(f"|---|---:|---:|---:|")
print(f"| COPY, readings/s | {n / ch:,.0f} | {n / cw:,.0f} | {ch / cw:.2f} |")
print(f"| COPY, backend CPU s | {cch:.2f} | {ccw:.2f} | {cch / ccw:.2f} (heap/wide) |")
print(f"| COPY, backend waiting for a CPU, s | {rqh:.2f} | {rqw:.2f} | |")
print(f"| COPY, backend off CPU otherwise (wall - CPU - wait), s | {offh:.2f} | {offw:.2f} | |")
print(f"| COPY, WAL MB | {wh / 2**20:.1f} | {ww / 2**20:.1f} | {ww / wh:.2f} |")
print(f"| VACUUM ANALYZE, s | {vh:.2f} | {vw:.2f} | {vw / vh:.2f} |")
print(f"| VACUUM ANALYZE, backend CPU s | {vch:.2f} | {vcw:.2f} | {vcw / vch:.2f} |")
print(f"| size after, MB | {sh / 2**20:.1f} | {sw / 2**20:.1f} | {sw / sh:.3f} |")
PY
