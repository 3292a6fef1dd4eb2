#!/usr/bin/env bash
#
# test/stress/dist.sh -- the long distributed stress run: test/t/226_dist_stress.pl
# (a coordinator and two nodes; writers through the parent and the data API,
# readers, random splits, moves, TRUNCATE, family DDL, kill -9 of the
# coordinator and of nodes, random session settings; a model checked after
# every round) with many rounds.  Run it like test/run-all.sh:
#
#   test/stress/dist.sh                                     30 rounds of 30 s
#   WIDE_DIST_ROUNDS=100 WIDE_DIST_SECONDS=60 test/stress/dist.sh
#   WIDE_DIST_SEED=123456 WIDE_DIST_ROUNDS=3 test/stress/dist.sh      replay
#   WIDE_DIST_WAL_MINIMAL=1 test/stress/dist.sh     wal_level minimal (see the test)
#
# A failed run keeps the servers' logs in the directory printed at the end.
#
set -uo pipefail
source "$(dirname "$0")/../lib.sh"

ROUNDS=${WIDE_DIST_ROUNDS:-30}
SECONDS_PER_ROUND=${WIDE_DIST_SECONDS:-30}

wide_install_deps || exit 1
wide_test_user
wide_build_install || exit 1

OUT=$(wide_tmpdir dist-stress)
PGXS_DIR=$(dirname "$(pg_config --pgxs)")/..
log "dist stress: $ROUNDS rounds of $SECONDS_PER_ROUND s${WIDE_DIST_SEED:+, seed $WIDE_DIST_SEED}"
if as_test_user "WIDE_DIST_ROUNDS=$ROUNDS WIDE_DIST_SECONDS=$SECONDS_PER_ROUND \
		${WIDE_DIST_SEED:+WIDE_DIST_SEED=$WIDE_DIST_SEED} \
		WIDE_DIST_KILLS=${WIDE_DIST_KILLS:-1} WIDE_DIST_OP_SETTINGS=${WIDE_DIST_OP_SETTINGS:-1} \
		WIDE_DIST_TRUNCATE_IN_OPS=${WIDE_DIST_TRUNCATE_IN_OPS:-1} WIDE_DIST_WAL_MINIMAL=${WIDE_DIST_WAL_MINIMAL:-0} \
		PG_TEST_NOCLEAN=1 TESTDIR='$OUT' PG_REGRESS='$PGXS_DIR/test/regress/pg_regress' \
		prove -v -I '$PGXS_DIR/test/perl' -I '$WIDE_ROOT/test/t' test/t/226_dist_stress.pl"; then
	log "dist stress: passed"
	rm -rf "$OUT"
	exit 0
fi
log "dist stress: FAILED (server logs in $OUT/tmp_check)"
exit 1
