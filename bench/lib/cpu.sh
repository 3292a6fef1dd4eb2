# bench/lib/cpu.sh -- sourced by the bash benches: the CPU time a timed
# statement costs its backend, beside its wall time.
#
# On the shared 2-core machine a statement's wall time is mostly waiting
# for a core; the CPU time its backend spent is not.  The backend's
# /proc/PID/schedstat (its first field: nanoseconds on a CPU, readable by
# any user) is read before and after each timed statement from inside the
# psql session that runs it (the pid from pg_backend_pid()).  Parallel
# workers' CPU is not counted: the benches that use this run with
# max_parallel_workers_per_gather = 0.
#
#   cpu_setup           psql lines: the session's backend pid, into the
#                       environment ($BPID) of its \! commands
#   cpu_mark FILE TAG   a psql line appending "TAG nanoseconds" to FILE
#                       (FILE writable by the user psql runs as)
#   cpu_ms FILE TAG     the milliseconds between the first and second TAG
#                       line of FILE, the third and fourth, ...: one a line
#   cpu_median          the median of the numbers on stdin (the lower of
#                       the middle two of an even count)
#   cpu_ratio A B       A / B to 3 decimals ("-" if B is 0)

cpu_setup() {
	printf '%s\n' "SELECT pg_backend_pid() AS bench_cpu_pid \\gset" "\\setenv BPID :bench_cpu_pid"
}

cpu_mark() {
	printf '%s\n' "\\! awk '{print \"$2\", \$1}' /proc/\$BPID/schedstat >> $1"
}

cpu_ms() {
	awk -v t="$2" '$1 == t { if (s == "") s = $2; else { printf "%.1f\n", ($2 - s) / 1e6; s = "" } }' "$1"
}

cpu_median() {
	sort -n | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'
}

cpu_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.3f\n", a / b }'
}
