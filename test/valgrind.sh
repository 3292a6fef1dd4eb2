#!/usr/bin/env bash
#
# test/valgrind.sh [DIR] -- the pg_regress and isolation suites with the
# server under valgrind's memcheck (run by test/sanitize.sh when
# WIDE_SANITIZE=valgrind; TAP tests are too slow under valgrind).
#
# PostgreSQL here is not built with USE_VALGRIND, so memcheck does not know
# palloc's chunks: like ASan it sees accesses outside malloc'ed blocks, and
# in addition uses of uninitialised memory (a decision on, or a write to
# disk of, bytes never written).  Only errors with wide.so in their stack
# count; the rest belongs to PostgreSQL and its libraries.  Reports are in
# DIR/valgrind.PID.log.
#
set -uo pipefail
source "$(dirname "$0")/lib.sh"

wide_install_deps || exit 1
wide_test_user
command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)" >&2; exit 1; }
DIR=${1:-$(wide_tmpdir valgrind)}

export PG_CFLAGS="-g"
make -C "$WIDE_ROOT" -s clean
wide_build_install || exit 1

# a bindir whose postgres starts the real one under valgrind; initdb and
# pg_ctl resolve their own symlinks and find the real postgres
BIN="$DIR/bin"
as_test_user "mkdir -p '$BIN' && for f in '$PG_BINDIR'/*; do ln -sf \"\$f\" '$BIN'/; done && rm '$BIN/postgres'"
as_test_user "cat > '$BIN/postgres'" <<SCRIPT
#!/bin/sh
exec valgrind --quiet --error-limit=no --leak-check=no --num-callers=30 \\
	--log-file='$DIR/valgrind.%p.log' '$PG_BINDIR/postgres' "\$@"
SCRIPT
as_test_user "chmod +x '$BIN/postgres'"

PGXS_DIR=$(dirname "$(pg_config --pgxs)")/..
status=0
log "valgrind: pg_regress"
as_test_user "PGCTLTIMEOUT=900 '$PGXS_DIR/test/regress/pg_regress' --bindir='$BIN' \
		--temp-instance='$DIR/regress-instance' --port=55441 \
		--temp-config='$WIDE_ROOT/test/regress.conf' \
		--inputdir='$WIDE_ROOT' --outputdir='$DIR/regress' \
		--load-extension=wide $(sed -n 's/^REGRESS = //p' "$WIDE_ROOT/Makefile")" || status=1
log "valgrind: isolation"
as_test_user "PGCTLTIMEOUT=900 '$PGXS_DIR/test/isolation/pg_isolation_regress' --bindir='$BIN' \
		--temp-instance='$DIR/isolation-instance' --port=55442 \
		--temp-config='$WIDE_ROOT/test/regress.conf' \
		--inputdir='$WIDE_ROOT/test/isolation' --outputdir='$DIR/isolation' \
		--load-extension=wide $(sed -n 's/^ISOLATION = //p' "$WIDE_ROOT/Makefile")" || status=1

unset PG_CFLAGS
make -C "$WIDE_ROOT" -s clean
wide_build_install || status=1

ours=$(grep -l 'wide\.so' "$DIR"/valgrind.*.log 2>/dev/null)
errors=$(cat "$DIR"/valgrind.*.log 2>/dev/null | grep -c '^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|Mismatched\|overlap\)')
log "valgrind: $errors error reports in all, $(echo "$ours" | grep -c .) processes with wide.so in a report"
if [ -n "$ours" ]; then
	for f in $ours; do
		echo "--- $f"
		head -60 "$f"
	done
	status=1
fi
[ $status -eq 0 ] && log "valgrind: passed" || log "valgrind: FAILED (logs in $DIR)"
exit $status
