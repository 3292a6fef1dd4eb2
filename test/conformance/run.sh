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
	--emulator "127.0.0.1:$EPORT" "$WIDE_ROOT"/test/conformance/scenarios/*.scn
