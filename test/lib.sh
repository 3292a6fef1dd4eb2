# test/lib.sh -- shared by test/run-all.sh, test/demo.sh and bench/*.sh.
#
# Installs what wide needs on Debian 12, builds and installs it, and runs
# commands as an unprivileged OS user (initdb and postgres refuse root).
# Sourced, not executed.

# WIDE_READABLE_ROOT: a copy of the checkout that the test user can read,
# made by wide_test_user when the checkout itself is private (see there)
WIDE_ROOT=${WIDE_READABLE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
WIDE_TEST_USER=${WIDE_TEST_USER:-wide_test}
PG_MAJOR=15

log() { printf '\n== %s (%ss)\n' "$*" "$SECONDS" >&2; }

# apt packages the build, the tests and the benchmarks need
wide_packages() {
	echo "postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-contrib" \
		"libzstd-dev zstd libre2-dev libipc-run-perl make gcc g++ perl" \
		"libgrpc++-dev protobuf-compiler-grpc libpq-dev pkg-config"
}

# install missing packages (as root); a no-op when everything is there
wide_install_deps() {
	local missing=()
	for p in $(wide_packages); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing packages: ${missing[*]} (run as root to install them)" >&2
		return 1
	fi
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${missing[@]}" >/dev/null
}

PG_BINDIR=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/$PG_MAJOR/bin)

# build and install the extension into the server's directories
# build and install wide; WIDE_BIGTABLE=no leaves out wide-bigtable (see
# wide_build_bigtable)
wide_build_install() {
	log "building wide"
	make -C "$WIDE_ROOT" -s -j2 >/dev/null
	wide_as_root make -C "$WIDE_ROOT" -s install >/dev/null
}

# build and install wide-bigtable alone, at low priority: run-all.sh runs
# this in the background while the regress suites run (the C++ of the
# generated gRPC code is most of a fresh build's time)
wide_build_bigtable() {
	nice -n 10 make -C "$WIDE_ROOT/bigtable" -s -j2 >/dev/null &&
		wide_as_root make -C "$WIDE_ROOT/bigtable" -s install >/dev/null
}

wide_as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# create the unprivileged user that runs servers and tests
wide_test_user() {
	if [ "$(id -u)" -ne 0 ]; then
		WIDE_TEST_USER=$(id -un)
		return 0
	fi
	id "$WIDE_TEST_USER" >/dev/null 2>&1 ||
		useradd --system --create-home --shell /bin/bash "$WIDE_TEST_USER"
	wide_readable_root
}

# The servers and psql run as the test user, in the checkout and on its
# files.  A checkout the test user cannot enter (cloned under /root, or
# into a directory of mode 0700 as mktemp -d makes) is copied, once per
# command, to a directory it can read, and everything (build, install,
# tests, examples) runs from the copy; WIDE_READABLE_ROOT tells the
# scripts this one starts.
wide_readable_root() {
	[ "$(id -u)" -eq 0 ] || return 0
	[ -n "${WIDE_READABLE_ROOT:-}" ] && return 0
	if su "$WIDE_TEST_USER" -s /bin/bash -c "cd '$WIDE_ROOT' && test -r Makefile && test -r examples/00_setup.sql" 2>/dev/null; then
		return 0
	fi
	local copy
	copy=$(mktemp -d "/tmp/wide-checkout.XXXXXX")
	log "$WIDE_TEST_USER, who runs the servers and tests, cannot read $WIDE_ROOT (a parent directory is private); working from a copy in $copy"
	tar -C "$WIDE_ROOT" --exclude=./.git -cf - . | tar -C "$copy" -xf -
	chmod -R a+rX "$copy"
	chmod 755 "$copy"
	WIDE_ROOT=$copy
	export WIDE_READABLE_ROOT=$copy
}

# as_test_user CMD... -- run a shell command line as the test user;
# WIDE_TEST_ENV ("VAR=value ...", set by test/sanitize.sh) is exported to it
as_test_user() {
	local env=${WIDE_TEST_ENV:+export $WIDE_TEST_ENV && }
	if [ "$(id -u)" -eq 0 ]; then
		su "$WIDE_TEST_USER" -s /bin/bash -c "cd '$WIDE_ROOT' && PATH='$PG_BINDIR':\$PATH && $env$*"
	else
		bash -c "cd '$WIDE_ROOT' && PATH='$PG_BINDIR':\$PATH && $env$*"
	fi
}

# a directory the test user owns, under /tmp
wide_tmpdir() {
	local d
	d=$(mktemp -d "/tmp/wide-$1.XXXXXX")
	chmod 755 "$d"
	[ "$(id -u)" -eq 0 ] && chown "$WIDE_TEST_USER" "$d"
	echo "$d"
}

# start_cluster DIR PORT [extra postgresql.conf lines] -- initdb and start
start_cluster() {
	local dir=$1 port=$2 extra=${3:-}
	as_test_user "initdb -D '$dir/data' -A trust -U postgres --no-sync >'$dir/initdb.log' 2>&1"
	as_test_user "cat >>'$dir/data/postgresql.conf'" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
shared_buffers = 256MB
max_wal_size = 4GB
$extra
CONF
	as_test_user "pg_ctl -D '$dir/data' -l '$dir/server.log' -w start >/dev/null"
}

# stop_cluster DIR -- stop the server started by start_cluster
stop_cluster() {
	# (from /: the checkout may be one the test user cannot enter, as
	# examples/demo.sh stop runs before it copies a private checkout)
	(WIDE_ROOT=/ as_test_user "pg_ctl -D '$1/data' -m fast -w stop >/dev/null") || true
}
