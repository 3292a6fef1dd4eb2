# kill -9 in the middle of flushes and compactions: after restart every
# committed cell is there with its value, wide.verify() finds nothing wrong,
# and VACUUM reclaims what the interrupted work had written.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(usleep);
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('crashcompact');
$node->init;
$node->append_conf('postgresql.conf', "max_wal_size = 1GB\nautovacuum = off\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts int8, value int8) USING wide;
	SELECT wide.create_family('t', 'f');
	SELECT wide.create_family('t', 'v', max_versions => 1);
});

my $expect_count = 0;
my $expect_sum = 0;

# load committed cells in several transactions, leaving some runs and a
# full write area behind
sub load
{
	my ($round, $n) = @_;
	for my $batch (1 .. 4)
	{
		$node->safe_psql('postgres', qq{
			INSERT INTO t SELECT 'r$round#$batch#' || lpad(i::text, 7, '0'), 'f', 'q' || (i % 5),
			       i, i FROM generate_series(1, $n) i;
			INSERT INTO t SELECT 'same#' || (i % 1000), 'v', 'q', 1, $round FROM generate_series(1, 1000) i;
		});
		$node->safe_psql('postgres', 'SELECT FROM wide.compact(\'t\')') if $batch < 3;
	}
	$expect_count += 4 * $n;
	$expect_sum += 4 * ($n * ($n + 1) / 2);
}

sub crash_during
{
	my ($sql, $delay_us) = @_;
	my ($out, $err) = ('', '');
	my @pids = split /\n/, $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()");
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', $sql ],
		'>', \$out, '2>', \$err);
	usleep($delay_us);
	my $postmaster = $node->{_pid};
	push @pids, split /\n/, `pgrep -P $postmaster`;
	$node->kill9;
	kill 'KILL', @pids;
	for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
	{
		usleep(50_000);
	}
	eval { $h->kill_kill; $h->finish; };
	$node->start;
}

sub check
{
	my ($what) = @_;
	is($node->safe_psql('postgres',
		"SELECT count(*), sum(value) FROM t WHERE family = 'f' AND row_key NOT LIKE 'w#%'"),
		"$expect_count|$expect_sum", "$what: every committed cell, with its value");
	is($node->safe_psql('postgres',
		"SELECT count(*) FROM t WHERE family = 'v'"), '1000',
		"$what: max_versions cells, once each");
	is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
		"$what: verify finds nothing wrong");
}

my @delays = (20_000, 150_000, 400_000, 900_000);
for my $round (1 .. 4)
{
	load($round, 50_000);
	crash_during("SELECT FROM wide.compact('t', major => true)", $delays[$round - 1]);
	check("round $round, killed during a major compaction");

	load($round + 10, 30_000);
	crash_during("SELECT FROM wide.compact('t')", $delays[4 - $round]);
	check("round $round, killed during a flush");
}

# writes that flush by themselves, killed mid-way
$node->append_conf('postgresql.conf', "wide.flush_threshold = 16\n");
$node->reload;
my ($out, $err) = ('', '');
my $script = '';
$script .= "INSERT INTO t SELECT 'w#$_#' || i, 'f', 'q', i, 0 FROM generate_series(1, 300) i;\n"
  for 1 .. 2000;
my $h = IPC::Run::start([ 'stdbuf', '-oL', 'psql', '-X', '-d', $node->connstr('postgres'), '-f', '-' ],
	'<', \$script, '>', \$out, '2>', \$err);
# feed the script (IPC::Run writes stdin when pumped) for a while
for (my $n = 0; $n < 40; $n++)
{
	$h->pump_nb;
	usleep(50_000);
}
my $postmaster = $node->{_pid};
my @pids = split /\n/, `pgrep -P $postmaster`;
$node->kill9;
kill 'KILL', @pids;
for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
{
	usleep(50_000);
}
eval { $h->kill_kill; $h->finish; };
my $acked = () = $out =~ /^INSERT 0 300$/mg;
$node->start;
ok($acked > 0, "self-flushing writes: $acked statements acknowledged before the crash");
cmp_ok($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE row_key LIKE 'w#%'"),
	'>=', $acked * 300, "self-flushing writes: all $acked acknowledged statements survived");
is($node->safe_psql('postgres', "SELECT count(*) FROM (SELECT split_part(row_key, '#', 2)
	FROM t WHERE row_key LIKE 'w#%' GROUP BY 1 HAVING count(*) <> 300) s"), '0',
	'self-flushing writes: each statement is there whole or not at all');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'self-flushing writes: verify finds nothing wrong');

# VACUUM sweeps whatever the interrupted work left behind, and nothing else
$node->safe_psql('postgres', 'VACUUM t');
check('after VACUUM');
my $before = $node->safe_psql('postgres', "SELECT count(*), sum(value) FROM t");
$node->safe_psql('postgres', "SELECT FROM wide.compact('t', major => true)");
is($node->safe_psql('postgres', "SELECT count(*), sum(value) FROM t"), $before,
	'a major compaction after recovery keeps every cell');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'verify after the final compaction');

$node->stop;
done_testing();
