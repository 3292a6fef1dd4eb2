#!/usr/bin/env bash
#
# test/dml_fuzz.sh [SEED] [STEPS] -- run the differential DML fuzzer
# (test/t/062_dml_fuzz.pl) with any seed and number of steps, e.g.
# `test/dml_fuzz.sh $RANDOM 20000` for a long run.  Without SEED it takes a
# random one; it prints the seed either way, and every mismatch with its
# statements.  Needs wide built and installed (test/run-all.sh does
# that); runs as the test user like run-all.sh.
#
set -uo pipefail
source "$(dirname "$0")/lib.sh"

SEED=${1:-$(( (RANDOM << 15) | RANDOM ))}
STEPS=${2:-10000}
wide_test_user
OUT=$(wide_tmpdir dmlfuzz)
PGXS_DIR=$(dirname "$(pg_config --pgxs)")/..
log "dml fuzz: seed $SEED, $STEPS steps (logs in $OUT)"
as_test_user "WIDE_DML_SEED=$SEED WIDE_DML_STEPS=$STEPS TESTDIR='$OUT' \
	PG_REGRESS='$PGXS_DIR/test/regress/pg_regress' \
	prove -v -I '$PGXS_DIR/test/perl' -I '$WIDE_ROOT/test/t' test/t/062_dml_fuzz.pl"
