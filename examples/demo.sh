#!/usr/bin/env bash
#
# examples/demo.sh -- the showcase: install what wide needs, build and
# install it, start a local PostgreSQL with wide preloaded, and run every pattern of
# the Bigtable schema guides on generated data (examples/NN_*.sql): market
# QUOTE/TRADE, server METRIC/CURRENT_METRIC, smart-meter SENSOR with the
# nightly SENSOR_YYYYMMDD batch, weather balloons in each time-bucket
# pattern, a salted hot key, and donations summed and counted on write.
# Each file creates its tables, loads its data, runs the guide's queries
# (printed with their results and timings) and checks its answers: a wrong
# answer stops the demo.  Run as root on a fresh Debian 12 machine (or as
# a user with sudo); about 2-3 minutes.  The server keeps running:
#
#     psql -h /tmp/wide-demo -p 54329 -U postgres
#
# Where wide-bigtable was built (gRPC C++ installed), it is started too,
# on WIDE_DEMO_GRPC_PORT (default 8086), and its address printed: Bigtable
# clients and cbt read and write the same tables (docs/grpc.md).
# Run it again to start over (the old servers are stopped and the data
# removed); stop them with
#     examples/demo.sh stop
# Run only some examples: examples/demo.sh 01 03   (by number).
# WIDE_DEMO_DIR and WIDE_DEMO_PORT move the server elsewhere.
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"

DEMO=${WIDE_DEMO_DIR:-/tmp/wide-demo}
PORT=${WIDE_DEMO_PORT:-54329}
GRPC_PORT=${WIDE_DEMO_GRPC_PORT:-8086}

if [ -f "$DEMO/wide-bigtable.pid" ]; then
	kill "$(cat "$DEMO/wide-bigtable.pid")" 2>/dev/null || true
	rm -f "$DEMO/wide-bigtable.pid"
fi
if [ -f "$DEMO/data/postmaster.pid" ]; then
	stop_cluster "$DEMO"
fi
[ "${1:-}" = stop ] && exit 0

start=$SECONDS
wide_install_deps
wide_test_user
wide_build_install
log "built and installed in $((SECONDS - start)) s"

log "starting PostgreSQL in $DEMO on port $PORT"
rm -rf "$DEMO"
mkdir -p "$DEMO"
chmod 755 "$DEMO"
[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$DEMO"
# wide preloaded, as docs/sql.md recommends for a server that reads wide
# tables: a block cache shared by its connections, and logical decoding
start_cluster "$DEMO" "$PORT" "shared_preload_libraries = 'wide'"

PSQL="psql -X -h $DEMO -p $PORT -U postgres -v ON_ERROR_STOP=1"
as_test_user "$PSQL -q -f examples/00_setup.sql"
for f in "$WIDE_ROOT"/examples/[0-9][0-9]_*.sql; do
	name=$(basename "$f")
	[ "$name" = 00_setup.sql ] && continue
	if [ $# -gt 0 ]; then
		want=false
		for n in "$@"; do [ "${name%%_*}" = "$n" ] && want=true; done
		$want || continue
	fi
	log "example $name"
	t0=$SECONDS
	as_test_user "$PSQL -e -c '\\timing on' -f '$f'"
	log "example $name: done in $((SECONDS - t0)) s, every check passed"
done

# the gRPC front-end over the same database, where it was built
GRPC_NOTE="   wide-bigtable not built (it needs libgrpc++-dev protobuf-compiler-grpc libpq-dev)"
if [ -x "$PG_BINDIR/wide-bigtable" ]; then
	nohup "$PG_BINDIR/wide-bigtable" --port "$GRPC_PORT" \
		--dsn "host=$DEMO port=$PORT user=postgres dbname=postgres" > "$DEMO/wide-bigtable.log" 2>&1 &
	echo $! > "$DEMO/wide-bigtable.pid"
	for _ in $(seq 1 100); do
		grep -q 'listening on' "$DEMO/wide-bigtable.log" && break
		sleep 0.1
	done
	GRPC_ADDR=$(sed -n 's/.*listening on \(.*\)$/\1/p' "$DEMO/wide-bigtable.log")
	if [ -n "$GRPC_ADDR" ]; then
		GRPC_NOTE="   wide-bigtable (Bigtable's gRPC API) listens on $GRPC_ADDR:
     export BIGTABLE_EMULATOR_HOST=$GRPC_ADDR; echo '{}' > /tmp/nocreds.json
     cbt -project p -instance i -creds /tmp/nocreds.json read metric count=3"
	else
		GRPC_NOTE="   wide-bigtable did not start: $(tail -1 "$DEMO/wide-bigtable.log")"
	fi
fi

log "done in $((SECONDS - start)) s.  wide is running: psql -h $DEMO -p $PORT -U postgres
   the tables: quote, trade, metric, current_metric, sensor, sensor_20170726, cpu_rows (a row form), cpu_heap,
   balloon_col, balloon_cell, balloon_row, balloon_json, hot_trade_salted,
   donations, donors (and views quote_wide, trade_wide, balloon_row_wide)
$GRPC_NOTE
   stop it: examples/demo.sh stop"
