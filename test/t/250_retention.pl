# Time-aware runs and wide.drop_before (issue 29 item 1), against a heap
# model: random loads (backfills into old windows too), drops of every
# family or of one, rolled-back drops and VACUUMs; after each step the wide
# table reads exactly what the heap holds.  Family f is kept for ever, and
# m's max_age is lowered at random (each run names the families it holds,
# format 6: m's and a's window runs are freed by age while f's stay).
# Snapshots are held across steps at random (drops and range DELETEs made
# meanwhile are pending in every flush and compaction).
# Then: the backend killed while
# VACUUM drops runs (before and right after the metapage change is
# published), a streaming standby, and dump/restore.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_SEED} // time;
srand($seed);
note("seed $seed (WIDE_SEED to repeat)");

my $primary = PostgreSQL::Test::Cluster->new('retprimary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nwide.time_window = 86400\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('t', 'm', max_age => '36500 days');
	SELECT wide.create_family('t', 'a', max_age => '36500 days');
	SELECT wide.create_family('t', 'f');
	CREATE TABLE h (row_key text, family text, qualifier text,
	                ts timestamptz, value int8);
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('retstandby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

my $base = "'2020-01-01 00:00:00+00'::timestamptz";
my $diff = q{
	SELECT (SELECT count(*) FROM t) || ' cells, '
	    || (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM h) d) || ' wrong, '
	    || (SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM t) d) || ' missing'
};

sub check
{
	my ($node, $what) = @_;
	my $n = $primary->safe_psql('postgres', 'SELECT count(*) FROM h');
	is($node->safe_psql('postgres', $diff), "$n cells, 0 wrong, 0 missing", $what);
}

my $batch = 0;
# cells of days [d, d + n) of the 20, hosts x hourly readings, both tables
sub load
{
	my ($d, $n, $fam) = @_;
	$batch++;
	$primary->safe_psql('postgres', qq{
		INSERT INTO h SELECT 'host' || (i % 5) || '#' || $batch, '$fam', 'q' || (i % 3),
		       $base + ($d || ' days')::interval + ((i / 15) || ' hours')::interval
		             + (i % 15 || ' seconds')::interval, $batch * 100000 + i
		  FROM generate_series(0, $n * 24 * 15 - 1) i;
		INSERT INTO t SELECT * FROM h WHERE value / 100000 = $batch;
	});
	expire_m();
}

# m's cells before $m_cut (now() - its max_age, which drifts by the
# seconds the test takes from half past an hour: no cell is that late in
# an hour) are expired: gone from the model
my $m_cut;
sub expire_m
{
	return unless defined $m_cut;
	$primary->safe_psql('postgres',
		"DELETE FROM h WHERE family = 'm' AND ts < $base + interval '$m_cut'");
}

sub runs { $primary->safe_psql('postgres', "SELECT count(*) FROM wide.runs('t')") }

# a snapshot held across steps (as an autovacuum of a catalog holds the
# xmin horizon): drops and DELETEs made meanwhile are pending, and every
# flush and compaction keeps the cells they delete; new snapshots must
# still see them deleted (the checks), and the holder the cells it saw
my $hold;
my $held;

sub release
{
	return unless $hold;
	$hold->query_safe('COMMIT');
	$hold->quit;
	undef $hold;
}

# a drop_before, and the heap's DELETE; at the limit of drops not yet
# applied (8), the major compaction and VACUUM the error's hint asks for
# first, after which the drop must have room (a drop is forgotten once
# every run older than it has been rewritten and the write area holds
# nothing older than it, also when nothing was written since)
sub drop_before
{
	my ($args, $where) = @_;
	my ($ret, $out, $err) = $primary->psql('postgres', "SELECT wide.drop_before($args)");
	if ($ret != 0)
	{
		like($err, qr/drops not yet applied/, "a drop refused only at the limit of drops pending");
		release();    # (a held snapshot keeps them pending)
		$primary->safe_psql('postgres', "SELECT wide.compact('t', major => true); VACUUM t");
		($ret, $out, $err) = $primary->psql('postgres', "SELECT wide.drop_before($args)");
		is($ret, 0, '... after the major compaction and VACUUM the hint asks for, it has room')
		  or diag $err;
	}
	$primary->safe_psql('postgres', "DELETE FROM h WHERE $where");
}

# the random walk
load(0, 10, 'm');
load(0, 10, 'a');
load(0, 10, 'f');
$primary->safe_psql('postgres', 'VACUUM t');
my $m_day = -1;
for my $step (1 .. 24)
{
	my $op = int(rand(9));
	my $day = int(rand(12));
	my $cut = "$base + interval '$day days' + interval '" . int(rand(24)) . " hours'";
	my $what;
	my @fams = ('m', 'a', 'f');
	if ($op == 0)
	{
		my $fam = $fams[int(rand(3))];
		load($day, 1 + int(rand(3)), $fam);
		$what = "load days $day+ of $fam";
	}
	elsif ($op == 1)
	{
		drop_before("'t', $cut", "ts < $cut");
		$what = "drop_before day $day";
	}
	elsif ($op == 2)
	{
		my $fam = $fams[int(rand(3))];
		drop_before("'t', '$fam', $cut", "family = '$fam' AND ts < $cut");
		$what = "drop_before day $day of $fam";
	}
	elsif ($op == 3)
	{
		$primary->safe_psql('postgres', "BEGIN; SELECT wide.drop_before('t', $cut); ROLLBACK");
		$what = "rolled-back drop_before day $day";
	}
	elsif ($op == 4)
	{
		$primary->safe_psql('postgres', 'VACUUM t');
		$what = 'VACUUM';
	}
	elsif ($op == 5)
	{
		$primary->safe_psql('postgres', "SELECT wide.compact('t')");
		$what = 'compact';
	}
	elsif ($op == 7)
	{
		if ($hold)
		{
			is($hold->query_safe('SELECT count(*) FROM t'), $held,
				"step $step: the held snapshot still sees its $held cells");
			release();
			$what = 'snapshot released';
		}
		else
		{
			$hold = $primary->background_psql('postgres');
			$hold->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
			$held = $hold->query_safe('SELECT count(*) FROM t');
			$what = 'snapshot held';
		}
	}
	elsif ($op == 7 + 1)
	{
		# a range DELETE (a range tombstone), and the same of the heap
		my $host = int(rand(5));
		my $where = "row_key >= 'host$host#' AND row_key < 'host$host#~'";
		$primary->safe_psql('postgres', "DELETE FROM t WHERE $where; DELETE FROM h WHERE $where");
		$what = "range DELETE of host$host";
	}
	else
	{
		# lower m's max_age (never raise it: expired cells stay expired)
		# so that it expires what is older than half past noon of a day
		# (alter_family waits for the held snapshot's lock on t)
		release();
		$m_day = $day if $day > $m_day;
		$m_cut = "$m_day days 12 hours 30 minutes";
		$primary->safe_psql('postgres', qq{
			SELECT wide.alter_family('t', 'm', max_age =>
			    (now() - ($base + interval '$m_cut')))});
		expire_m();
		$what = "m's max_age to day $m_day";
	}
	check($primary, "step $step ($what): the table reads as the heap");
}
release();

# a drop that frees whole runs: killed before and right after publishing
load(11, 1, 'm');
load(11, 1, 'a');
load(14, 4, 'm');
load(14, 4, 'f');
$primary->safe_psql('postgres', "SELECT wide.compact('t', major => true)");
check($primary, 'major compaction');

# m and a expire by age up to day 12: their windows' runs go, unread and
# unwritten (no run is new), though f is kept for ever; f's cells all stay
{
	my $segs = $primary->safe_psql('postgres',
		"SELECT string_agg(segment::text, ',' ORDER BY segment) FROM wide.runs('t')");
	my $cut12 = "12 days 12 hours 30 minutes";
	$m_day = 12 if $m_day < 12;
	$m_cut = "$m_day days 12 hours 30 minutes";
	$primary->safe_psql('postgres', qq{
		SELECT wide.alter_family('t', 'm', max_age => (now() - ($base + interval '$m_cut')));
		SELECT wide.alter_family('t', 'a', max_age => (now() - ($base + interval '$cut12')));
		DELETE FROM h WHERE family = 'a' AND ts < $base + interval '$cut12'});
	expire_m();
	my $f_before = $primary->safe_psql('postgres', "SELECT count(*) FROM h WHERE family = 'f'");
	$primary->safe_psql('postgres', 'VACUUM (TRUNCATE false) t');
	my $left = $primary->safe_psql('postgres', qq{
		SELECT count(*) || ' runs, ' || count(*) FILTER (WHERE segment NOT IN ($segs)) || ' new'
		  FROM wide.runs('t')});
	my ($nleft) = $left =~ /^(\d+)/;
	my $nbefore = scalar(split /,/, $segs);
	like($left, qr/ 0 new$/, "expiry by age with a family kept for ever: no run written ($left)");
	cmp_ok($nleft, '<', $nbefore, "... and runs freed ($nbefore before)");
	check($primary, 'after the expiry');
	is($primary->safe_psql('postgres', "SELECT count(*) FROM t WHERE family = 'f'"), $f_before,
		"... every cell of the family kept for ever is there");
}
# a major compaction, time-windowed, killed after writing its window runs
# and before publishing them, with a snapshot held (pending tombstones):
# nothing changes, and the next one publishes the same cells
{
	load(15, 1, 'm');
	$primary->safe_psql('postgres',
		"DELETE FROM t WHERE row_key = 'host1#1'; DELETE FROM h WHERE row_key = 'host1#1'");
	$hold = $primary->background_psql('postgres');
	$hold->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$held = $hold->query_safe('SELECT count(*) FROM t');
	my $log_offset = -s $primary->logfile;
	my ($ret) = $primary->psql('postgres',
		"SET wide.debug_crash = 'compact_windowed'; SELECT wide.compact('t', major => true)");
	isnt($ret, 0, 'compact_windowed: the compaction did not finish');
	for (1 .. 180)
	{
		last if eval { $primary->safe_psql('postgres', 'SELECT 1') eq '1' };
		sleep 1;
	}
	ok($primary->log_contains(qr/killing this backend at "compact_windowed"/, $log_offset),
		'compact_windowed: killed there');
	eval { $hold->quit };    # (its backend died with the restart)
	undef $hold;
	check($primary, 'compact_windowed: every cell reads back after recovery');
	$primary->safe_psql('postgres', "SELECT wide.compact('t', major => true)");
	check($primary, 'compact_windowed: the next major compaction');
	is($primary->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
		'compact_windowed: verify finds nothing wrong');
}
my $cut = "$base + interval '16 days'";
drop_before("'t', $cut", "ts < $cut");
my $runs_before = runs();

sub vacuum_killed_at
{
	my ($point) = @_;
	my $log_offset = -s $primary->logfile;
	my ($ret) = $primary->psql('postgres', "SET wide.debug_crash = '$point'; VACUUM (TRUNCATE false) t");
	isnt($ret, 0, "$point: the VACUUM did not finish");
	for (1 .. 180)
	{
		last if eval { $primary->safe_psql('postgres', 'SELECT 1') eq '1' };
		sleep 1;
	}
	ok($primary->log_contains(qr/wide.debug_crash: killing this backend at "$point"/, $log_offset),
		"$point: killed there");
	check($primary, "$point: every cell reads back after recovery");
	is($primary->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
		"$point: verify finds nothing wrong");
}
vacuum_killed_at('drop-runs');
is(runs(), $runs_before, 'drop-runs: no run was dropped');
vacuum_killed_at('drop-runs-published');
cmp_ok(runs(), '<', $runs_before, 'drop-runs-published: the runs were dropped');
$primary->safe_psql('postgres', 'VACUUM t');
check($primary, 'VACUUM after the crashes');

# the standby replayed all of it
$primary->wait_for_catchup($standby);
check($standby, 'standby reads as the heap');
is($standby->safe_psql('postgres', "SELECT count(*) FROM wide.runs('t')"), runs(),
	'standby: the same runs');

# dump and restore: the cells as they read
my $dump = $primary->basedir . '/ret.dump';
$primary->command_ok(['pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('postgres')], 'pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE r');
$primary->command_ok(['pg_restore', '-d', $primary->connstr('r'), $dump], 'pg_restore');
is($primary->safe_psql('r', $diff), $primary->safe_psql('postgres', $diff),
	'restored: the same cells');

done_testing();
