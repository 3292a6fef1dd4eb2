#!/usr/bin/env bash
#
# bench/api.sh -- the Bigtable data API against the heap+btree baseline, in
# one run on the same data: 200,000 rows x 5 cells (row key user#NNNNNN,
# family "p", qualifiers a..e, text values).  Latencies (pgbench, one
# client, $DURATION s each, default 10) of
#   point read      wide.read_row(NULL::w, key)    vs  WHERE row_key = key
#   10-row prefix   read_rows(prefix => ...)       vs  WHERE row_key >= p AND < p+1
#   1000-row range  read_rows(start_key, end_key)  vs  WHERE row_key >= .. AND < ..
# (count(*) of the cells, server side), and the throughput of mutate_rows
# batches (100 rows x 5 set_cell mutations) against INSERT ... SELECT of the
# same 500 cells, 2 clients.
#
# Starts its own server (port 54334, data in /tmp/wide-bench-api).
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"
source "$(dirname "$0")/lib/server.sh"

DURATION=${DURATION:-10}
BENCH=/tmp/wide-bench-api
PORT=54334

wide_install_deps
wide_test_user
wide_build_install
bench_server "shared_buffers = 1GB
max_wal_size = 16GB
checkpoint_timeout = 1h
autovacuum = off
jit = off"

PSQL="psql -X -q -At -h $BENCH -p $PORT -U postgres -v ON_ERROR_STOP=1"
sql() { as_test_user "$PSQL" <<<"$1"; }
PGBENCH="pgbench -h $BENCH -p $PORT -U postgres -n"

log "loading 200,000 rows x 5 cells into each table"
sql "CREATE EXTENSION wide;
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz, value text) USING wide;
SELECT wide.create_family('w', 'p');
CREATE TABLE h (row_key text COLLATE \"C\", family text COLLATE \"C\", qualifier text COLLATE \"C\",
                ts timestamptz, value text);
CREATE INDEX h_key ON h (row_key, family, qualifier, ts DESC);
CREATE TEMP TABLE src AS
  SELECT format('user#%s', lpad(r::text, 6, '0')) AS row_key, 'p' AS family, q AS qualifier,
         timestamptz '2030-01-01' + r * interval '1 second' AS ts, md5(r::text || q) AS value
    FROM generate_series(0, 199999) r, unnest(ARRAY['a', 'b', 'c', 'd', 'e']) q;
INSERT INTO w SELECT * FROM src;
INSERT INTO h SELECT * FROM src;
SELECT FROM wide.compact('w', major => true);
VACUUM ANALYZE h; ANALYZE w; CHECKPOINT;"

script() {
	printf '%s\n' "$2" > "$BENCH/$1.sql"
	chmod 644 "$BENCH/$1.sql"
	echo "$BENCH/$1.sql"
}
latency() {
	as_test_user "$PGBENCH -c 1 -T $DURATION -f '$1' postgres" 2>/dev/null |
		sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}
tps() {
	as_test_user "$PGBENCH -c 2 -j 2 -T $DURATION -f '$1' postgres" 2>/dev/null |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}
KEY="\\set r random(0, 199999)"
R10="\\set r random(0, 19999)"
R1000="\\set r random(0, 198999)"

declare -A R
R[point,heap]=$(latency "$(script ph "$KEY
SELECT count(*) FROM h WHERE row_key = format('user#%s', lpad(:r::text, 6, '0'));")")
R[point,wide]=$(latency "$(script pw "$KEY
SELECT count(*) FROM wide.read_row(NULL::w, format('user#%s', lpad(:r::text, 6, '0')));")")
R[prefix,heap]=$(latency "$(script xh "$R10
SELECT count(*) FROM h WHERE row_key >= format('user#%s', lpad(:r::text, 5, '0'))
                         AND row_key < format('user#%s', lpad((:r + 1)::text, 5, '0'));")")
R[prefix,wide]=$(latency "$(script xw "$R10
SELECT count(*) FROM wide.read_rows(NULL::w, prefix => format('user#%s', lpad(:r::text, 5, '0')));")")
R[range,heap]=$(latency "$(script rh "$R1000
SELECT count(*) FROM h WHERE row_key >= format('user#%s', lpad(:r::text, 6, '0'))
                         AND row_key < format('user#%s', lpad((:r + 1000)::text, 6, '0'));")")
R[range,wide]=$(latency "$(script rw "$R1000
SELECT count(*) FROM wide.read_rows(NULL::w, start_key => format('user#%s', lpad(:r::text, 6, '0')),
                                    end_key => format('user#%s', lpad((:r + 1000)::text, 6, '0')));")")
R[mutate,heap]=$(tps "$(script mh "$KEY
INSERT INTO h SELECT format('user#%s', lpad(((:r + g) % 200000)::text, 6, '0')), 'p', q, now(), 'v'
  FROM generate_series(1, 100) g, unnest(ARRAY['a', 'b', 'c', 'd', 'e']) q;")")
R[mutate,wide]=$(tps "$(script mw "$KEY
SELECT wide.mutate_rows('w', (SELECT jsonb_agg(jsonb_build_object(
         'row_key', format('user#%s', lpad(((:r + g) % 200000)::text, 6, '0')),
         'mutations', (SELECT jsonb_agg(jsonb_build_object('set_cell', jsonb_build_object(
                          'family_name', 'p', 'column_qualifier', q, 'value', 'v')))
                         FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e']) q)))
                              FROM generate_series(1, 100) g));")")

python3 - <<PY
R = {}
for line in """$(for k in "${!R[@]}"; do echo "$k=${R[$k]}"; done)""".split("\n"):
    if "=" in line:
        k, v = line.split("=", 1)
        R[k] = float(v) if v else float("nan")
rows = [("point read (read_row), ms", "point", 1),
        ("10-row prefix read (5 cells a row), ms", "prefix", 1),
        ("1000-row range read (5,000 cells), ms", "range", 1),
        ("mutate_rows, 100 rows x 5 cells a batch, cells/s", "mutate", 500)]
print(f"| {'measure':48} | {'heap+btree':>10} | {'wide':>10} | {'wide/heap':>9} |")
print(f"|{'-'*50}|{'-'*12}|{'-'*12}|{'-'*11}|")
for name, k, mul in rows:
    h, w = R[k + ",heap"] * mul, R[k + ",wide"] * mul
    print(f"| {name:48} | {h:10,.3f} | {w:10,.3f} | {w / h:9.2f} |")
PY
