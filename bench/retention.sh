#!/usr/bin/env bash
#
# bench/retention.sh [hosts] [minutes] -- retention on time-aware runs
# (issue 29 item 1), wide against a heap table with a btree on (row_key,
# family, qualifier, ts desc), on the same data, in one run.
#
# Data: bench/metrics.sh's shape (row key HOST#MILLIS, 20 metrics a row,
# float8 values, written in time order) over 30 whole days, a reading
# every [minutes] (default 5) from [hosts] (default 4) hosts, family "m"
# with max_age 30 days.  The days end at a midnight and start on a
# day such that with 3-day windows (what a 30-day policy derives, set
# explicitly: the policy is 30 + K days when the data ends K days ago) the
# oldest day is alone in its window.  Measures:
#   1. max_age lowered to 29 days, then VACUUM: WAL bytes and bytes of new
#      runs written, against the table's bytes; the same for a second table
#      w2, the same data plus a family "k" kept for ever (an hourly rollup
#      per host, with no max_age): each run names its families (format 6),
#      so m's windows are freed though k never expires;
#   2. wide.drop_before of the oldest remaining day against DELETE ... WHERE
#      ts < ... on the heap (medians of rolled-back runs, alternated), and
#      the VACUUM that frees the dropped runs;
#   3. a backfill of one hour into day 3, then VACUUM: which runs were
#      replaced and the bytes written, against the window's runs.
#
# Starts its own server (port $WIDE_BENCH_PORT or 54336, data in
# $WIDE_BENCH_DIR or /tmp/wide-bench-retention) and stops it.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

HOSTS=${1:-4}
MINUTES=${2:-5}
BENCH=${WIDE_BENCH_DIR:-/tmp/wide-bench-retention}
PORT=${WIDE_BENCH_PORT:-54336}
REPS=${REPS:-5}

wide_test_user
bench_server "checkpoint_timeout = 1h
max_wal_size = 16GB
shared_buffers = 512MB
autovacuum = off
jit = off
wide.time_window = 259200"	# 3-day windows, as a 30-day policy derives them

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
last() { sql "$1" | tail -1; }		# the last line: void results print empty ones
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# the last midnight such that the first day is the last of its 3-day window
END=$(sql "SELECT extract(epoch FROM d)::bigint FROM
  (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS d) x")
K=0	# days the data ends before today; the policy keeps 30 + K days, then 29 + K
while [ $(( (END / 86400 - 30) % 3 )) -ne 2 ]; do END=$(( END - 86400 )); K=$(( K + 1 )); done
START=$(( END - 30 * 86400 ))
READINGS=$(( 30 * 24 * 60 / MINUTES ))
log "30 days from $(date -u -d @$START +%F) to $(date -u -d @$END +%F): $HOSTS hosts x 20 metrics x $READINGS readings = $(( HOSTS * 20 * READINGS )) cells"

sql "CREATE EXTENSION wide;
COPY (
  SELECT format('server%s.example.com#%s', lpad(h::text, 3, '0'), ($START::bigint + r * $MINUTES * 60) * 1000),
         'm', m.name, to_timestamp($START + r * $MINUTES * 60),
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
) TO '$BENCH/cells.csv' (FORMAT csv);
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz,
                value float8) USING wide;
SELECT wide.create_family('w', 'm', max_age => '$(( 30 + K )) days');
CREATE TABLE h (row_key text COLLATE \"C\", family text COLLATE \"C\",
                qualifier text COLLATE \"C\", ts timestamptz, value float8);
CREATE INDEX h_key ON h (row_key, family, qualifier, ts DESC);
COPY w FROM '$BENCH/cells.csv' (FORMAT csv);
COPY h FROM '$BENCH/cells.csv' (FORMAT csv);
CREATE TABLE w2 (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('w2', 'm', max_age => '$(( 30 + K )) days');
SELECT wide.create_family('w2', 'k');
COPY w2 FROM '$BENCH/cells.csv' (FORMAT csv);
INSERT INTO w2 SELECT format('server%s.example.com#%s', lpad(h::text, 3, '0'), ($START::bigint + r * 3600) * 1000),
       'k', 'cpu/avg_1h', to_timestamp($START + r * 3600), r % 100
  FROM generate_series(0, 30 * 24 - 1) r, generate_series(1, $HOSTS) h;
VACUUM w; VACUUM w2; VACUUM h;
CHECKPOINT;"

runs() { sql "SELECT count(*), sum(stored_bytes) FROM wide.runs('w')"; }
log "after load + VACUUM: runs, bytes = $(runs); table $(sql "SELECT pg_relation_size('w')") bytes; heap+index $(sql "SELECT pg_total_relation_size('h')") bytes"

# ------------------------------------------------------------- 1. max_age
TABLE=$(sql "SELECT sum(stored_bytes) FROM wide.runs('w')")
# one maintenance pass, measured: WAL bytes, bytes of runs written, runs freed
measure() {
	local what=$1 cmd=$2
	local t=${3:-w}
	sql "DROP TABLE IF EXISTS segs; CREATE TABLE segs AS SELECT segment, stored_bytes FROM wide.runs('$t'); CHECKPOINT"
	OUT=$(last "SELECT pg_current_wal_insert_lsn() AS l0, clock_timestamp() AS t0 \gset
$cmd
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'l0')::bigint,
       (SELECT coalesce(sum(stored_bytes), 0) FROM wide.runs('$t') WHERE segment NOT IN (SELECT segment FROM segs)),
       (SELECT count(*) FROM segs WHERE segment NOT IN (SELECT segment FROM wide.runs('$t'))),
       (SELECT coalesce(sum(stored_bytes), 0) FROM segs WHERE segment NOT IN (SELECT segment FROM wide.runs('$t'))),
       extract(epoch FROM clock_timestamp() - :'t0')")
	IFS='|' read -r WAL NEWB GONE GONEB SECS <<<"$OUT"
	printf '%s: %.3f s, WAL %s bytes (%.3f%% of the table'"'"'s %s), runs written %s bytes (%.3f%%), runs gone %s (%s bytes)\n' \
		"$what" "$SECS" "$WAL" "$(echo "100 * $WAL / $TABLE" | bc -l)" "$TABLE" "$NEWB" \
		"$(echo "100 * $NEWB / $TABLE" | bc -l)" "$GONE" "$GONEB"
}
sql "SELECT wide.alter_family('w', 'm', max_age => '$(( 29 + K )) days')" >/dev/null
measure "1. max_age $(( 30 + K )) -> $(( 29 + K )) days (the data ends $K days ago), VACUUM (TRUNCATE false)" "VACUUM (TRUNCATE false) w;"
measure "   then a plain VACUUM (gives the freed pages back: truncate.c moves the runs of the file's tail down)" "VACUUM w;"
W_TABLE=$TABLE
TABLE=$(sql "SELECT sum(stored_bytes) FROM wide.runs('w2')")
K_CELLS=$(sql "SELECT count(*) FROM w2 WHERE family = 'k'")
log "w2 (m + k kept for ever): runs, bytes = $(sql "SELECT count(*), sum(stored_bytes) FROM wide.runs('w2')"), k cells $K_CELLS"
sql "SELECT wide.alter_family('w2', 'm', max_age => '$(( 29 + K )) days')" >/dev/null
measure "1b. w2 (m expires, k kept for ever): max_age $(( 30 + K )) -> $(( 29 + K )) days, VACUUM (TRUNCATE false)" "VACUUM (TRUNCATE false) w2;" w2
sql "SELECT 'check w2: k cells ' || count(*) FILTER (WHERE family = 'k') || ' (of $K_CELLS), m cells older than $(( 29 + K )) days visible: '
        || count(*) FILTER (WHERE family = 'm' AND ts < now() - interval '$(( 29 + K )) days') FROM w2"
TABLE=$W_TABLE

# ------------------------------------------------------------- 2. drop_before
# the oldest day left is day 1, which shares its 3-day window with days 2, 3
for DAYS in 2 3 4; do
	CUT="to_timestamp($START + $DAYS * 86400)"
	WT=(); HT=()
	for i in $(seq "$REPS"); do
		WT+=("$(last "SELECT count(*) FROM wide.runs('w') \gset
BEGIN; SELECT clock_timestamp() AS t0 \gset
SELECT wide.drop_before('w', $CUT);
SELECT extract(epoch FROM clock_timestamp() - :'t0'); ROLLBACK;")")
		HT+=("$(last "SELECT count(*) FROM h WHERE false \gset
BEGIN; SELECT clock_timestamp() AS t0 \gset
DELETE FROM h WHERE ts < $CUT;
SELECT extract(epoch FROM clock_timestamp() - :'t0'); ROLLBACK;")")
	done
	WM=$(printf '%s\n' "${WT[@]}" | median); HM=$(printf '%s\n' "${HT[@]}" | median)
	printf '2. drop day %d: wide.drop_before median %.6f s, heap DELETE median %.3f s: %.3f%% (%s reps each, alternated, rolled back)\n' \
		"$(( DAYS - 1 ))" "$WM" "$HM" "$(echo "100 * $WM / $HM" | bc -l)" "$REPS"
	measure "   committed drop_before + DELETE on the heap" "SELECT wide.drop_before('w', $CUT); DELETE FROM h WHERE ts < $CUT;"
	measure "   VACUUM (TRUNCATE false)" "VACUUM (TRUNCATE false) w;"
done

# ------------------------------------------------------------- 3. backfill
sql "DROP TABLE IF EXISTS segs; CREATE TABLE segs AS SELECT segment, stored_bytes FROM wide.runs('w')"
D3=$(( START + 3 * 86400 + 12 * 3600 ))		# noon of day 3
OUT=$(last "SELECT pg_current_wal_insert_lsn() AS l0 \\gset
INSERT INTO w SELECT format('server%s.example.com#%s', lpad(h::text, 3, '0'), ($D3::bigint + s * 60) * 1000 + 1),
         'm', 'cpu/cpu1_usr', to_timestamp($D3 + s * 60 + 0.001), 1
    FROM generate_series(0, 59) s, generate_series(1, $HOSTS) h, generate_series(1, 20) m;
VACUUM (TRUNCATE false) w;
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'l0')::bigint,
       (SELECT count(*) FROM segs WHERE segment NOT IN (SELECT segment FROM wide.runs('w'))),
       (SELECT coalesce(sum(stored_bytes), 0) FROM segs WHERE segment NOT IN (SELECT segment FROM wide.runs('w'))),
       (SELECT coalesce(sum(stored_bytes), 0) FROM wide.runs('w') WHERE segment NOT IN (SELECT segment FROM segs)),
       (SELECT count(*) FROM segs)")
IFS='|' read -r WAL3 GONE3 GONEB3 NEW3 NSEGS <<<"$OUT"
printf '3. backfill 1 hour into day 3 + VACUUM (TRUNCATE false): WAL %s bytes, runs replaced %s of %s (%s bytes; a day-3 window run is ~%s bytes), new runs %s bytes\n' \
	"$WAL3" "$GONE3" "$NSEGS" "$GONEB3" "$(( TABLE / 15 ))" "$NEW3"
sql "SELECT 'check: cells older than $(( 29 + K )) days visible: ' || count(*) FROM w WHERE ts < now() - interval '$(( 29 + K )) days'"
sql "SELECT 'check: wide cells ' || (SELECT count(*) FROM w) || ' (240 backfilled), heap cells ' || (SELECT count(*) FROM h WHERE ts >= now() - interval '$(( 29 + K )) days')"
