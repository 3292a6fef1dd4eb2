#!/usr/bin/env bash
#
# test/sql_fuzz.sh [SEED] [QUERIES] -- run the differential SQL fuzzer
# (test/t/060_sql_fuzz.pl) with any seed and number of queries per table,
# e.g. `test/sql_fuzz.sh $RANDOM 20000` for a long run.  Without SEED it
# takes a random one; it prints the seed either way, and every mismatch
# with its query.  Needs wide built and installed (test/run-all.sh does
# that); runs as the test user like run-all.sh.
#
set -uo pipefail
source "$(dirname "$0")/lib.sh"

SEED=${1:-$(( (RANDOM << 15) | RANDOM ))}
QUERIES=${2:-2000}
wide_test_user
OUT=$(wide_tmpdir sqlfuzz)
PGXS_DIR=$(dirname "$(pg_config --pgxs)")/..
log "sql fuzz: seed $SEED, $QUERIES queries per table (logs in $OUT)"
as_test_user "WIDE_FUZZ_SEED=$SEED WIDE_FUZZ_QUERIES=$QUERIES TESTDIR='$OUT' \
	PG_REGRESS='$PGXS_DIR/test/regress/pg_regress' \
	prove -v -I '$PGXS_DIR/test/perl' -I '$WIDE_ROOT/test/t' test/t/060_sql_fuzz.pl"
