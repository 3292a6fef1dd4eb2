#!/usr/bin/env bash
#
# test/run-all.sh -- build wide and run every test: the pg_regress suites
# (sql/, expected/), the isolation specs (test/isolation/), the TAP
# tests (test/t/; 020_stress.pl is the short stress run with faults, its
# seed printed; WIDE_STRESS_ROUNDS etc. are passed through, see
# docs/testing.md) and the conformance suite against the Bigtable emulator
# (test/conformance/, skipped where the emulator is absent).  Run it as root on a fresh Debian 12 machine (it installs
# what it needs), or as a user who has the build dependencies.
#
# Exit status is 0 only if every suite passed.  Failing suites leave their
# diffs and logs in the directory printed at the end.
#
set -uo pipefail
source "$(dirname "$0")/lib.sh"

wide_install_deps || exit 1
wide_test_user
wide_build_install || exit 1

OUT=$(wide_tmpdir results)
PGXS_DIR=$(dirname "$(pg_config --pgxs)")/..
REGRESS_TESTS=$(sed -n 's/^REGRESS = //p' "$WIDE_ROOT/Makefile")
ISOLATION_TESTS=$(sed -n 's/^ISOLATION = //p' "$WIDE_ROOT/Makefile")
failed=()

log "pg_regress: $REGRESS_TESTS"
if ! as_test_user "'$PGXS_DIR/test/regress/pg_regress' --bindir='$PG_BINDIR' \
		--temp-instance='$OUT/regress-instance' --port=55431 \
		--temp-config='$WIDE_ROOT/test/regress.conf' \
		--inputdir='$WIDE_ROOT' --outputdir='$OUT/regress' \
		--load-extension=wide $REGRESS_TESTS"; then
	failed+=(regress)
	cat "$OUT/regress/regression.diffs" 2>/dev/null | head -200
fi

if [ -n "$ISOLATION_TESTS" ]; then
	log "isolation: $ISOLATION_TESTS"
	if ! as_test_user "'$PGXS_DIR/test/isolation/pg_isolation_regress' --bindir='$PG_BINDIR' \
			--temp-instance='$OUT/isolation-instance' --port=55432 \
			--temp-config='$WIDE_ROOT/test/regress.conf' \
			--inputdir='$WIDE_ROOT/test/isolation' --outputdir='$OUT/isolation' \
			--load-extension=wide $ISOLATION_TESTS"; then
		failed+=(isolation)
		cat "$OUT/isolation/regression.diffs" 2>/dev/null | head -200
	fi
fi

log "TAP: test/t/*.pl"
as_test_user "mkdir -p '$OUT/tap'"
if ! as_test_user "TESTDIR='$OUT/tap' PG_REGRESS='$PGXS_DIR/test/regress/pg_regress' \
		prove -I '$PGXS_DIR/test/perl' -I '$WIDE_ROOT/test/t' test/t/*.pl"; then
	failed+=(tap)
	tail -n 50 "$OUT"/tap/tmp_check/log/*.log 2>/dev/null | tail -200
fi

log "conformance with the Bigtable emulator: test/conformance"
if ! "$WIDE_ROOT/test/conformance/run.sh"; then
	failed+=(conformance)
fi

if [ ${#failed[@]} -gt 0 ]; then
	log "FAILED: ${failed[*]} (details in $OUT)"
	exit 1
fi
log "all tests passed"
rm -rf "$OUT"
