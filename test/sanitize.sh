#!/usr/bin/env bash
#
# test/sanitize.sh -- run the whole suite (test/run-all.sh) with wide built
# under UndefinedBehaviorSanitizer, and with AddressSanitizer where it works.
# Run it like run-all.sh (as root on Debian 12, or as a user with the build
# dependencies).  CI does not run it.
#
#   test/sanitize.sh                                   UBSan (default)
#   WIDE_SANITIZE=address,undefined test/sanitize.sh   ASan + UBSan
#   WIDE_SANITIZE=valgrind test/sanitize.sh            pg_regress and
#       isolation suites with the server under valgrind (test/valgrind.sh)
#
# The server itself is not instrumented, only wide.so:
#
#  - UBSan: libubsan is an ordinary dependency of wide.so (a preloaded hook
#    gives it its options, see below).  It sees misaligned loads, signed overflow, bad shifts,
#    out-of-range enum and bool values, NULL passed to memcpy, in our code.
#  - ASan must be the first library of every process, so libasan is
#    preloaded (LD_PRELOAD) into every process the test user starts; it
#    replaces malloc and checks every access our instrumented code makes.
#    palloc chunks live inside malloc'ed blocks of 8 kB and more, so ASan
#    sees an overflow of a palloc'ed buffer only when it runs past the whole
#    block (PostgreSQL's allocator puts no red zones between chunks), and
#    shared buffers are one mapping, so a read past a page into the next
#    buffer is not seen either; buffers malloc'ed by the regex library and
#    zstd are checked exactly, stack and globals too.  Leaks are not
#    checked (detect_leaks=0): PostgreSQL frees by context reset and exit.
#    On some machines (seen on Debian 12 in a sandboxed kernel, with both
#    gcc 12's and clang 14's runtimes) any process with a preloaded ASan
#    runtime hangs in glibc's internal rwlocks (bindtextdomain, freelocale);
#    the script checks for that first and stops with a message.
#
# A report aborts the process (abort_on_error, halt_on_error,
# -fno-sanitize-recover), so the postmaster restarts and the test that
# caused it fails; the reports are written to files and printed at the end.
# Exit status 0 only if the suite passed and no report was written.
#
# The sanitized build replaces the installed wide while the suite runs; a
# normal build is installed again at the end.
#
set -uo pipefail
source "$(dirname "$0")/lib.sh"

wide_install_deps || exit 1
wide_test_user

SANITIZE=${WIDE_SANITIZE:-undefined}
SANDIR=$(wide_tmpdir sanitize)
if [ "$SANITIZE" = valgrind ]; then
	exec "$WIDE_ROOT/test/valgrind.sh" "$SANDIR"
fi
export PG_CFLAGS="-fsanitize=$SANITIZE -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
# UBSan's runtime starts at its first report and reads its options from
# /proc/self/environ, which the postmaster has overwritten with its process
# title by then; this preloaded hook hands it the options from getenv(),
# which still works
cat > "$SANDIR/options.c" <<'CODE'
#include <stdlib.h>
const char *__ubsan_default_options(void);
const char *__asan_default_options(void);
const char *__ubsan_default_options(void) { const char *o = getenv("UBSAN_OPTIONS"); return o ? o : ""; }
const char *__asan_default_options(void) { const char *o = getenv("ASAN_OPTIONS"); return o ? o : ""; }
CODE
gcc -shared -fPIC -O2 -o "$SANDIR/options.so" "$SANDIR/options.c" || exit 1
chmod 755 "$SANDIR/options.so"
WIDE_TEST_ENV="LD_PRELOAD=$SANDIR/options.so UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$SANDIR/ubsan"
case "$SANITIZE" in
*address*)
	LIBASAN=$(gcc -print-file-name=libasan.so)
	if [ ! -f "$LIBASAN" ]; then
		echo "sanitize: gcc has no libasan.so" >&2
		exit 1
	fi
	if ! timeout 20 env LD_PRELOAD="$LIBASAN" ASAN_OPTIONS=detect_leaks=0 \
			"$PG_BINDIR/postgres" -V >/dev/null; then
		echo "sanitize: postgres -V does not finish with $LIBASAN preloaded;" \
			"ASan cannot run here (use the default, UBSan)" >&2
		exit 1
	fi
	WIDE_TEST_ENV="LD_PRELOAD=$LIBASAN:$SANDIR/options.so \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:disable_coredump=1:log_path=$SANDIR/asan \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$SANDIR/ubsan"
	;;
esac
export WIDE_TEST_ENV

log "sanitize: building wide with $PG_CFLAGS; reports go to $SANDIR"
make -C "$WIDE_ROOT" -s clean
wide_build_install || exit 1
# the build must have taken the flags (a Makefile that set PG_CFLAGS with
# "=" dropped them once, and the suite ran unsanitized without a word)
case "$SANITIZE" in *undefined*) need=__ubsan_handle_ ;; *) need=__asan_report_ ;; esac
if ! nm -D "$WIDE_ROOT/wide.so" | grep -q " U $need"; then
	echo "sanitize: wide.so has no $need calls: it was built without -fsanitize=$SANITIZE" >&2
	exit 1
fi
"$WIDE_ROOT/test/run-all.sh"
status=$?

log "sanitize: installing a normal build again"
unset PG_CFLAGS WIDE_TEST_ENV
make -C "$WIDE_ROOT" -s clean
wide_build_install || status=1

reports=$(ls "$SANDIR"/asan.* "$SANDIR"/ubsan.* 2>/dev/null)
if [ -n "$reports" ]; then
	log "sanitize: reports"
	for f in $reports; do
		echo "--- $f"
		head -80 "$f"
	done
	status=1
fi
if [ $status -eq 0 ]; then
	log "sanitize: the suite passed, no sanitizer report"
	rm -rf "$SANDIR"
else
	log "sanitize: FAILED (reports in $SANDIR)"
fi
exit $status
