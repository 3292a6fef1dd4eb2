# VACUUM gives the free end of a wide table back to the file system
# (issue 10): killed (kill -9 of the backend, the server restarts) during a
# truncation and during a relocation, the table reads back every cell (as a
# heap copy has them), wide.verify() finds nothing wrong, and the next
# VACUUM reclaims the space.  A streaming standby replays the truncations:
# same file size, same cells.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('truncprimary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nmax_wal_size = 1GB\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts int8, value int8) USING wide;
	SELECT wide.create_family('t', 'cf');
	CREATE TABLE h (row_key text, family text, qualifier text,
	                ts int8, value int8);
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('truncstandby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

# the same cells into the wide table and the heap, in one statement each
# (appended to the write area, not written as runs: engine/pending.c)
sub load
{
	my ($q, $n) = @_;
	$primary->safe_psql('postgres', qq{
		SET wide.statement_run_size = '1GB';
		INSERT INTO h SELECT 'host' || (i % 40) || '#' || lpad((i / 40)::text, 8, '0'), 'cf',
		       '$q', i, ('x' || substr(md5('$q' || i), 1, 7))::bit(28)::int
		  FROM generate_series(1, $n) i;
		INSERT INTO t SELECT * FROM h WHERE qualifier = '$q';
	});
}

my $diff = q{
	SELECT (SELECT count(*) FROM t) || ' cells, '
	    || (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM h) d) || ' wrong, '
	    || (SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM t) d) || ' missing'
};

sub check
{
	my ($node, $what) = @_;
	my $n = $primary->safe_psql('postgres', 'SELECT count(*) FROM h');
	is($node->safe_psql('postgres', $diff), "$n cells, 0 wrong, 0 missing",
		"$what: every cell reads back");
	is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
		"$what: verify finds nothing wrong");
}

# a VACUUM whose backend kills itself at the named point; the server
# restarts and recovers
sub vacuum_killed_at
{
	my ($point) = @_;
	my $log_offset = -s $primary->logfile;
	my ($ret, $out, $err) = $primary->psql('postgres',
		"SET wide.debug_crash = '$point'; VACUUM t");
	isnt($ret, 0, "$point: the VACUUM did not finish");
	for (1 .. 180)
	{
		last if eval { $primary->safe_psql('postgres', 'SELECT 1') eq '1' };
		sleep 1;
	}
	ok($primary->log_contains(qr/wide.debug_crash: killing this backend at "$point"/,
			$log_offset), "$point: killed at that point");
}

# the file is about the stored bytes
sub file_size_ok
{
	my ($what) = @_;
	my ($file, $stored) = split /\|/, $primary->safe_psql('postgres',
		"SELECT pg_total_relation_size('t'), stored_bytes FROM wide.stats('t')");
	cmp_ok($file, '<=', 1.3 * $stored + 4 * 8192,
		"$what: file of $file bytes for $stored stored bytes");
	return $file;
}

# 1. killed while relocating: VACUUM's flush wrote the new run at the end
# of the table (the pages the INSERT freed were not yet reusable), the
# first truncation could cut nothing, and the run is being rewritten low
load('cpu', 120_000);
my $peak = $primary->safe_psql('postgres', "SELECT pg_relation_size('t')");
vacuum_killed_at('relocate');
check($primary, 'killed while relocating');
cmp_ok($primary->safe_psql('postgres', "SELECT pg_relation_size('t')"), '>=', $peak,
	'killed while relocating: nothing truncated yet');
$primary->safe_psql('postgres', 'VACUUM t');
check($primary, 'VACUUM after the relocation crash');
file_size_ok('VACUUM after the relocation crash');

# 2. killed while truncating: the free queue without the tail is logged,
# the file not yet cut; the tail pages are orphans the sweep finds again
load('mem', 120_000);
$primary->safe_psql('postgres', 'VACUUM t');
$primary->safe_psql('postgres', q{
	DELETE FROM t WHERE qualifier = 'mem';
	DELETE FROM h WHERE qualifier = 'mem';
	SELECT FROM wide.compact('t', major => true);
});
my $before = $primary->safe_psql('postgres', "SELECT pg_relation_size('t')");
vacuum_killed_at('truncate');
check($primary, 'killed while truncating');
is($primary->safe_psql('postgres', "SELECT pg_relation_size('t')"), $before,
	'killed while truncating: the file was not cut (recovery extends it as far as before)');
my ($ret, $out, $err) = $primary->psql('postgres', 'VACUUM (VERBOSE) t');
like($err, qr/(\d+) orphaned pages reclaimed/, 'the next VACUUM sweeps');
my ($swept) = $err =~ /(\d+) orphaned pages reclaimed/;
cmp_ok($swept, '>', 0, "it found the pages the killed truncation had dropped from the queue");
like($err, qr/truncated \d+ free pages/, 'and truncates them');
check($primary, 'VACUUM after the truncation crash');
my $size = file_size_ok('VACUUM after the truncation crash');
cmp_ok($size, '<', $before / 2, 'the file shrank');

# 3. the standby replayed all of it
$primary->wait_for_catchup($standby);
check($standby, 'standby');
is($standby->safe_psql('postgres', "SELECT pg_relation_size('t')"),
	$primary->safe_psql('postgres', "SELECT pg_relation_size('t')"),
	'standby: the same file size');

# 4. delete everything: 64 kB at most, on both
$primary->safe_psql('postgres', q{
	DELETE FROM t;
	DELETE FROM h;
	SELECT FROM wide.compact('t', major => true);
	VACUUM t;
});
cmp_ok($primary->safe_psql('postgres', "SELECT pg_total_relation_size('t')"),
	'<=', 65536, 'everything deleted: at most 64 kB left');
$primary->wait_for_catchup($standby);
cmp_ok($standby->safe_psql('postgres', "SELECT pg_total_relation_size('t')"),
	'<=', 65536, 'standby: at most 64 kB left');
check($standby, 'standby, everything deleted');

# and the table works from there, on the promoted standby too
load('net', 20_000);
$primary->safe_psql('postgres', 'VACUUM t');
$primary->wait_for_catchup($standby);
check($standby, 'standby after a new load');
$standby->promote;
$standby->safe_psql('postgres', q{
	INSERT INTO t VALUES ('after', 'cf', 'q', 1, 1);
	INSERT INTO h VALUES ('after', 'cf', 'q', 1, 1);
	VACUUM t;
});
my $n = $standby->safe_psql('postgres', 'SELECT count(*) FROM h');
is($standby->safe_psql('postgres', $diff), "$n cells, 0 wrong, 0 missing",
	'promoted standby: every cell');

$standby->stop;
$primary->stop;
done_testing();
