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
WIDE_BIGTABLE=no wide_build_install || exit 1

OUT=$(wide_tmpdir results)
# wide-bigtable (the gRPC front end) builds in the background while the
# first suites run; the TAP and conformance suites, which use it, wait
wide_build_bigtable >"$OUT/bigtable-build.log" 2>&1 &
BIGTABLE_BUILD=$!
bigtable_built() {
	[ -z "$BIGTABLE_BUILD" ] && return 0
	local rc=0
	wait "$BIGTABLE_BUILD" || rc=$?
	BIGTABLE_BUILD=
	log "wide-bigtable built (exit status $rc)"
	if [ $rc -ne 0 ]; then
		cat "$OUT/bigtable-build.log"
		failed+=(bigtable-build)
	fi
}
PORT=${WIDE_TEST_PORT:-55431}
failed=()
# WIDE_SUITES picks suites (default: all of them, in this order)
SUITES=" ${WIDE_SUITES:-layers installcheck tap conformance private} "
want() { [[ $SUITES == *" $1 "* ]]; }

if want layers; then
log "layering: test/check-layers.sh, test/check-manifest.sh"
if ! bash "$WIDE_ROOT/test/check-layers.sh"; then
	failed+=(layers)
fi
if ! bash "$WIDE_ROOT/test/check-manifest.sh"; then
	failed+=(manifest)
fi
fi

PGXS_DIR=$(dirname "$(pg_config --pgxs)")/..

if want installcheck; then

# pg_regress and the isolation specs run as users run them: `make
# installcheck`, the Makefile's lists, against a server with PostgreSQL's
# default settings; then the tests that need two-phase commit (skipped in
# the first pass) again, with max_prepared_transactions set
SERVER="$OUT/server"
as_test_user "mkdir -p '$SERVER'"
start_cluster "$SERVER" "$PORT"
installcheck() {
	as_test_user "PGHOST='$SERVER' PGPORT=$PORT PGUSER=postgres \
		make -s installcheck WIDE_TEST_OUT='$OUT/$1' ${2:-}"
}
log "make installcheck (pg_regress, isolation) against a server with default settings"
if ! installcheck regress; then
	failed+=(installcheck)
	cat "$OUT/regress/regression.diffs" "$OUT/regress/output_iso/regression.diffs" 2>/dev/null | head -200
fi
# Second pass: wide preloaded, which also puts a shared block cache
# (sharedcache.c) under every read; 4 MB of it, so that it evicts all the
# time.  Every test runs again (publications and publication_race, whose
# subject is a server without the preload, check there what it allows:
# their expected outputs *_1.out).
log "make installcheck again with wide preloaded (a 4 MB shared block cache), two-phase commit (max_prepared_transactions = 10) and logical decoding (wal_level = logical)"
as_test_user "printf '%s\\n' 'max_prepared_transactions = 10' 'wal_level = logical' \"shared_preload_libraries = 'wide'\" 'wide.shared_block_cache_size = 4MB' >> '$SERVER/data/postgresql.conf' &&
	pg_ctl -D '$SERVER/data' -l '$SERVER/server.log' -w restart >/dev/null"
if ! installcheck regress-2pc; then
	failed+=(installcheck-2pc)
	cat "$OUT/regress-2pc/regression.diffs" "$OUT/regress-2pc/output_iso/regression.diffs" 2>/dev/null | head -200
fi
grep -q "^skipped: two-phase commit" "$OUT/regress/results/prepared.out" 2>/dev/null ||
	{ echo "the first pass did not skip the two-phase commit tests" >&2; failed+=(installcheck-skip); }
grep -q "^skipped: logical decoding" "$OUT/regress/results/cdc_decoding.out" 2>/dev/null ||
	{ echo "the first pass did not skip the logical decoding tests" >&2; failed+=(installcheck-skip); }
grep -q "^skipped: logical decoding" "$OUT/regress-2pc/results/cdc_decoding.out" 2>/dev/null &&
	{ echo "the second pass skipped the logical decoding tests" >&2; failed+=(installcheck-cdc); }
stop_cluster "$SERVER"
fi

if want tap; then
bigtable_built
# two at a time (WIDE_TAP_JOBS): most of a TAP test's time is a server
# starting, waiting or syncing, and each has its own cluster and port
log "TAP: test/t/*.pl, ${WIDE_TAP_JOBS:-2} at a time"
as_test_user "mkdir -p '$OUT/tap'"
if ! as_test_user "TESTDIR='$OUT/tap' PG_REGRESS='$PGXS_DIR/test/regress/pg_regress' \
		prove --timer -j${WIDE_TAP_JOBS:-2} -I '$PGXS_DIR/test/perl' -I '$WIDE_ROOT/test/t' test/t/*.pl"; then
	failed+=(tap)
	# each failed test's failures (got/expected and diagnostics), then
	# the end of its servers' logs
	for f in $(grep -l '^\[[^]]*\]([^)]*) not ok' "$OUT"/tap/tmp_check/log/regress_log_* 2>/dev/null); do
		t=${f##*/regress_log_}
		echo "== TAP $t failed:"
		grep -A8 ') not ok' "$f" | head -60
		for l in "$OUT"/tap/tmp_check/log/"${t}"_*.log; do
			[ -f "$l" ] && { echo "-- ${l##*/}"; tail -n 15 "$l"; }
		done
	done | head -400
fi

fi

if want conformance; then
bigtable_built
log "conformance with the Bigtable emulator: test/conformance"
if ! "$WIDE_ROOT/test/conformance/run.sh"; then
	failed+=(conformance)
fi
fi

# The README's commands from a private checkout (a directory of mode 0700,
# as mktemp -d or a clone under /root makes), which the test user who runs
# the servers cannot enter: the demo with one example, and this script's
# first suite.  As root only (that is the README's case).
if want private && [ "$(id -u)" -eq 0 ]; then
	log "the README commands from a checkout in a private directory"
	PRIV=$(mktemp -d /tmp/wide-private.XXXXXX)
	chmod 700 "$PRIV"
	mkdir "$PRIV/wide"
	tar -C "$WIDE_ROOT" --exclude=./.git -cf - . | tar -C "$PRIV/wide" -xf -
	if su "$WIDE_TEST_USER" -s /bin/bash -c "cd '$PRIV/wide'" 2>/dev/null; then
		echo "the private checkout $PRIV/wide is readable by $WIDE_TEST_USER" >&2
		failed+=(private)
	elif ! (unset WIDE_READABLE_ROOT && cd "$PRIV/wide" &&
		WIDE_DEMO_DIR="$OUT/private-demo" WIDE_DEMO_PORT=$((PORT + 7)) examples/demo.sh 06 >"$OUT/private.log" 2>&1 &&
		WIDE_DEMO_DIR="$OUT/private-demo" examples/demo.sh stop >>"$OUT/private.log" 2>&1 &&
		{ ! test -e "$OUT/private-demo/data/postmaster.pid" ||
		  { echo "examples/demo.sh stop left its server running" >>"$OUT/private.log"; false; }; } &&
		WIDE_SUITES=layers test/run-all.sh >>"$OUT/private.log" 2>&1); then
		failed+=(private)
		tail -n 40 "$OUT/private.log"
	fi
	rm -rf "$PRIV"
fi

bigtable_built
if [ ${#failed[@]} -gt 0 ]; then
	log "FAILED: ${failed[*]} (details in $OUT)"
	exit 1
fi
log "all tests passed"
rm -rf "$OUT"
[ -n "${WIDE_READABLE_ROOT:-}" ] && rm -rf "$WIDE_READABLE_ROOT"
exit 0
