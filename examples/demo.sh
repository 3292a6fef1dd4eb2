#!/usr/bin/env bash
#
# examples/demo.sh -- install what wide needs, build and install it, start a
# local PostgreSQL with wide created, and run the example workloads in
# examples/*.sql.  Run as root on a fresh Debian 12 machine (or as a user
# with sudo).  The server keeps running afterwards:
#
#     psql -h /tmp/wide-demo -p 54329 -U postgres
#
# Run it again to start over; stop the server with
#     examples/demo.sh stop
#
set -euo pipefail
source "$(dirname "$0")/../test/lib.sh"

DEMO=/tmp/wide-demo
PORT=54329

if [ -f "$DEMO/data/postmaster.pid" ]; then
	stop_cluster "$DEMO"
fi
[ "${1:-}" = stop ] && exit 0

wide_install_deps
wide_test_user
wide_build_install

log "starting PostgreSQL in $DEMO on port $PORT"
rm -rf "$DEMO"
mkdir -p "$DEMO"
chmod 755 "$DEMO"
[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$DEMO"
start_cluster "$DEMO" "$PORT"

PSQL="psql -X -h $DEMO -p $PORT -U postgres -v ON_ERROR_STOP=1"
as_test_user "$PSQL -q -c 'CREATE EXTENSION wide'"
for f in "$WIDE_ROOT"/examples/[0-9]*.sql; do
	log "example: $(basename "$f")"
	as_test_user "$PSQL -e -f '$f'"
done

log "wide is running: psql -h $DEMO -p $PORT -U postgres   (stop: examples/demo.sh stop)"
