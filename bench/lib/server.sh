# bench/lib/server.sh -- sourced by the benches (after test/lib.sh): the
# bench's own server, started afresh.
#
#   bench_fresh_dir        an empty $BENCH owned by the test user (its old
#                          server, if one runs there, stopped first)
#   bench_server CONF      bench_fresh_dir, then a server there on $PORT
#                          with the postgresql.conf lines CONF, stopped
#                          when the script exits

bench_fresh_dir() {
	[ -f "$BENCH/data/postmaster.pid" ] && stop_cluster "$BENCH"
	rm -rf "$BENCH"; mkdir -p "$BENCH"; chmod 755 "$BENCH"
	[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$BENCH"
	return 0
}

bench_server() {
	bench_fresh_dir
	start_cluster "$BENCH" "$PORT" "$1"
	trap 'stop_cluster "$BENCH"' EXIT
}
