#!/usr/bin/env bash
#
# test/stress/run.sh -- the long stress run: test/t/020_stress.pl (concurrent
# writers, readers, VACUUM, autovacuum, compaction and kill -9 of backends
# and of the postmaster, checked against a heap model after every round)
# with many rounds.  Run it like test/run-all.sh (as root, or as a user with
# the build dependencies):
#
#   test/stress/run.sh                                    50 rounds of 30 s
#   WIDE_STRESS_ROUNDS=200 WIDE_STRESS_SECONDS=60 test/stress/run.sh
#   WIDE_STRESS_SEED=123456 WIDE_STRESS_ROUNDS=4 test/stress/run.sh   replay
#
# A failed run keeps its server log and the clients' logs in the directory
# printed at the end.
#
set -uo pipefail
source "$(dirname "$0")/../lib.sh"

ROUNDS=${WIDE_STRESS_ROUNDS:-50}
SECONDS_PER_ROUND=${WIDE_STRESS_SECONDS:-30}
SEED=${WIDE_STRESS_SEED:-}

wide_install_deps || exit 1
wide_test_user
wide_build_install || exit 1

OUT=$(wide_tmpdir stress)
PGXS_DIR=$(dirname "$(pg_config --pgxs)")/..
log "stress: $ROUNDS rounds of $SECONDS_PER_ROUND s${SEED:+, seed $SEED}"
if as_test_user "WIDE_STRESS_ROUNDS=$ROUNDS WIDE_STRESS_SECONDS=$SECONDS_PER_ROUND \
		${SEED:+WIDE_STRESS_SEED=$SEED} PG_TEST_NOCLEAN=1 \
		TESTDIR='$OUT' PG_REGRESS='$PGXS_DIR/test/regress/pg_regress' \
		prove -v -I '$PGXS_DIR/test/perl' -I '$WIDE_ROOT/test/t' test/t/020_stress.pl"; then
	log "stress: passed"
	rm -rf "$OUT"
	exit 0
fi
log "stress: FAILED (server log and client logs in $OUT/tmp_check)"
exit 1
