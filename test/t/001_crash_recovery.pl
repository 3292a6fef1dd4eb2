# kill -9 of the postmaster (and every server process) in the middle of
# ingest: after restart every acknowledged commit is there, nothing that was
# not committed is, values kept out of line come back whole, and the table
# keeps working.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(usleep);
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', "max_wal_size = 1GB\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts timestamptz, value text) USING wide;
	SELECT wide.create_family('t', 'f');
	SELECT wide.create_family('t', 'g', max_versions => 2);
});

my $rounds = 2;
for my $round (1 .. $rounds)
{
	# writer A: one cell per transaction, acknowledged one by one; every
	# 50th cell has a large value (blob pages)
	my $script = '';
	for my $i (1 .. 200000)
	{
		my $v = ($i % 50 == 0) ? "repeat('$i', 3000)" : "'$i'";
		$script .= "INSERT INTO t VALUES ('a$round#' || lpad('$i', 6, '0'), 'f', 'q', '2030-01-01', $v);\n";
	}
	my ($a_out, $a_err) = ('', '');
	my $a = IPC::Run::start(
		[ 'stdbuf', '-oL', 'psql', '-X', '-d', $node->connstr('postgres'), '-f', '-' ],
		'<', \$script, '>', \$a_out, '2>', \$a_err);

	# writer B: a transaction left open
	my $b = $node->background_psql('postgres', on_error_stop => 0);
	$b->query_safe("BEGIN");
	$b->query_safe("INSERT INTO t SELECT 'open$round#' || i, 'f', 'q', '2030-01-01', i::text FROM generate_series(1, 5000) i");

	# writer C: a COPY of many cells, in flight
	my ($c_out, $c_err) = ('', '');
	my $c = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
		  "INSERT INTO t SELECT 'bulk$round#' || i, 'g', 'q', '2030-01-01', i::text FROM generate_series(1, 3000000) i" ],
		'>', \$c_out, '2>', \$c_err);

	# writer D: a COPY that has written several runs of the write area
	my $copy = "COPY t FROM STDIN (FORMAT csv);\n";
	$copy .= "copy$round#$_,f,q,2030-01-01 00:00:00+00,$_\n" for 1 .. 300000;
	my ($d_out, $d_err) = ('', '');
	my $d = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres') ],
		'<', \$copy, '>', \$d_out, '2>', \$d_err,
		init => sub { $ENV{PGOPTIONS} = '-c wide.bulk_memory=1MB'; });

	# let A get well into its work
	my $acked = 0;
	for (my $n = 0; $n < 600 && $acked < 3000; $n++)
	{
		$a->pump_nb;
		$d->pump_nb;
		$acked = () = $a_out =~ /^INSERT 0 1$/mg;
		usleep(50_000);
	}
	ok($acked >= 3000, "round $round: writer acknowledged $acked commits before the crash");
	for (my $n = 0; $n < 200; $n++)
	{
		last if $node->safe_psql('postgres', 'SELECT write_area_runs FROM wide.stats(\'t\')') > 0;
		$d->pump_nb;
		usleep(50_000);
	}
	cmp_ok($node->safe_psql('postgres', 'SELECT write_area_runs FROM wide.stats(\'t\')'), '>', 0,
		"round $round: the COPY in flight has written runs of the write area");

	# kill -9 the postmaster and, like a machine crash would, every child
	my @pids = split /\n/, $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()");
	my $postmaster = $node->{_pid};
	$node->kill9;
	kill 'KILL', @pids;
	for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
	{
		usleep(50_000);
	}

	# the clients lose their server; their exit status does not matter
	eval { $a->kill_kill; $a->finish; };
	eval { $c->kill_kill; $c->finish; };
	eval { $d->kill_kill; $d->finish; };
	eval { $b->{run}->kill_kill; };
	$acked = () = $a_out =~ /^INSERT 0 1$/mg;
	note "round $round: $acked acknowledged commits";

	$node->start;

	my $res = $node->safe_psql('postgres', qq{
		SELECT count(*), coalesce(sum(value::int8) FILTER (WHERE value::int8 <= $acked), 0)
		  FROM t WHERE row_key LIKE 'a$round#%' AND length(value) < 10
	});
	my ($count, $sum) = split /\|/, $res;
	my $small = $acked - int($acked / 50);
	my $want = 0;
	$want += $_ for grep { $_ % 50 != 0 } 1 .. $acked;
	cmp_ok($count, '>=', $small, "round $round: every acknowledged small cell survived");
	is($sum, $want, "round $round: acknowledged cells have their values");

	my $big = $node->safe_psql('postgres', qq{
		SELECT count(*), bool_and(value = repeat(substr(row_key, 5)::int::text, 3000))
		  FROM t WHERE row_key LIKE 'a$round#%' AND length(value) >= 10
		   AND substr(row_key, 5)::int <= $acked
	});
	is($big, int($acked / 50) . '|' . ($acked >= 50 ? 't' : ''),
		"round $round: acknowledged large values came back whole");

	is($node->safe_psql('postgres',
		"SELECT count(*) FROM t WHERE row_key LIKE 'open$round#%' OR row_key LIKE 'bulk$round#%' OR row_key LIKE 'copy$round#%'"),
		'0', "round $round: nothing uncommitted survived");
	is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
		"round $round: verify finds nothing wrong");

	# the table keeps working after recovery
	$node->safe_psql('postgres',
		"INSERT INTO t VALUES ('after$round', 'f', 'q', '2030-01-01', 'ok')");
	is($node->safe_psql('postgres', "SELECT value FROM t WHERE row_key = 'after$round'"),
		'ok', "round $round: writes work after recovery");
}

$node->stop;
done_testing();
