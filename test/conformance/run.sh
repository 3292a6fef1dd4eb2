#!/usr/bin/env bash
#
# test/conformance/run.sh -- replay test/conformance/scenarios/*.scn against
# the Bigtable emulator and against wide, and compare every read cell by
# cell (conform.py).  Skips, with a message and exit status 0, where the
# emulator or cbt is absent.  Starts its own server (port 55434) and
# emulator (port 18086 + $$ % 1000), and stops both.
#
set -uo pipefail
source "$(dirname "$0")/../lib.sh"

EMULATOR=${CBTEMULATOR:-/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator}
if [ ! -x "$EMULATOR" ] || ! command -v cbt >/dev/null; then
	echo "conformance: skipped (no Bigtable emulator at $EMULATOR or no cbt on PATH)"
	exit 0
fi

DIR=$(wide_tmpdir conformance)
PORT=${WIDE_CONFORMANCE_PORT:-55434}
EPORT=$((18086 + $$ % 1000))
start_cluster "$DIR" "$PORT"
"$EMULATOR" -host 127.0.0.1 -port "$EPORT" > "$DIR/emulator.log" 2>&1 &
EPID=$!
cleanup() {
	kill "$EPID" 2>/dev/null
	stop_cluster "$DIR"
	rm -rf "$DIR"
}
trap cleanup EXIT
for _ in $(seq 1 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$EPORT") 2>/dev/null && break
	sleep 0.1
done

as_test_user "psql -X -q -h '$DIR' -p $PORT -U postgres -c 'CREATE EXTENSION wide'" || exit 1
python3 "$WIDE_ROOT/test/conformance/conform.py" \
	--psql "psql -h $DIR -p $PORT -U postgres -d postgres" \
	--emulator "127.0.0.1:$EPORT" "$WIDE_ROOT"/test/conformance/scenarios/*.scn || exit 1

# the same scenarios through wide-bigtable (docs/grpc.md), driven by cbt as
# the emulator is, where the server was built
SERVER="$PG_BINDIR/wide-bigtable"
if [ ! -x "$SERVER" ]; then
	echo "conformance over gRPC: skipped (no $SERVER)"
	exit 0
fi
"$SERVER" --host 127.0.0.1 --port 0 --dsn "host=$DIR port=$PORT user=postgres dbname=postgres" \
	> "$DIR/wide-bigtable.log" 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 100); do
	grep -q 'listening on' "$DIR/wide-bigtable.log" && break
	sleep 0.1
done
GPORT=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$DIR/wide-bigtable.log")
[ -n "$GPORT" ] || { cat "$DIR/wide-bigtable.log"; exit 1; }
echo "conformance over gRPC (wide-bigtable on port $GPORT):"
python3 "$WIDE_ROOT/test/conformance/conform.py" --grpc "127.0.0.1:$GPORT" \
	--emulator "127.0.0.1:$EPORT" "$WIDE_ROOT"/test/conformance/scenarios/*.scn
