# bench/lib/cpu.sh -- sourced by the bash benches: the CPU time a timed
# statement costs its backend, beside its wall time.
#
# On the shared 2-core machine a statement of a few ms waits longer for a
# core than it runs, so wall-clock ratios are mostly the run queue's noise;
# the CPU time the backend spent is not.  The session reads its backend's
# /proc/self/schedstat (first field: nanoseconds on a CPU) with
# pg_read_file (the benches connect as a superuser) before and after each
# timed statement.  Parallel workers' CPU is not counted: the benches that
# use this run with max_parallel_workers_per_gather = 0.
#
#   cpu_mark          psql lines that print "S|<schedstat>" (psql -At),
#                     under \timing off so that they add no Time: line;
#                     they leave \timing on
#   cpu_ms            from psql's output on stdin, the milliseconds between
#                     each two consecutive marks, one a line: with a mark
#                     before the first timed statement and after each, the
#                     CPU time of each statement in order
#   cpu_median        the median of the numbers on stdin, one a line (the
#                     lower of the middle two of an even count)
#   cpu_ratio A B     A / B to 2 decimals

cpu_mark() {
	printf '%s\n' '\timing off' "SELECT 'S', pg_read_file('/proc/self/schedstat');" '\timing on'
}

cpu_ms() {
	grep '^S|' | cut -d'|' -f2 | awk '{ if (NR > 1) printf "%.3f\n", ($1 - p) / 1e6; p = $1 }'
}

cpu_median() {
	sort -n | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'
}

cpu_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f\n", a / b }'
}
