# Stress with faults: concurrent COPY, INSERT, mutate_rows(_bin), deletes (SQL
# DELETE, delete_cells, delete_row), add_to_cell, readers, VACUUM loops,
# autovacuum with a 1 s naptime, wide.compact, and kill -9 of backends and
# of the postmaster, checked after every round against a heap model written
# in the same transactions (test/stress/worker.pl explains the model): no
# committed cell lost, no aborted cell visible, aggregate sums exact, no
# acknowledged commit missing, wide.verify silent, and no error in the
# server log that the faults do not explain.  Wide is preloaded with a
# small shared block cache (sharedcache.c), so that every reader and
# compaction goes through it while it evicts and the server restarts.
#
# Environment: WIDE_STRESS_ROUNDS (default 4), WIDE_STRESS_SECONDS per round
# (default 12), WIDE_STRESS_SEED (default: random, printed), and
# WIDE_STRESS_WORKERS, the clients as role:id (default "writer:1 writer:2
# copier:3 reader:1 vacuum:1 compact:1"; writer ids 1-3 are the ones readers
# check).  The long run is test/stress/run.sh.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use POSIX qw(WNOHANG);
use File::Path qw(make_path);
use FindBin;
use Time::HiRes qw(usleep time);
use Test::More;

my $rounds = $ENV{WIDE_STRESS_ROUNDS} // 4;
my $seconds = $ENV{WIDE_STRESS_SECONDS} // 12;
my $seed = $ENV{WIDE_STRESS_SEED} // int(rand(1_000_000));
srand($seed);
diag("stress: seed $seed, $rounds rounds of $seconds s "
	  . "(repeat with WIDE_STRESS_SEED=$seed WIDE_STRESS_ROUNDS=$rounds)");

my $worker = "$FindBin::RealBin/../stress/worker.pl";
$worker = 'test/stress/worker.pl' unless -f $worker;

my $node = PostgreSQL::Test::Cluster->new('stress');
$node->init;
$node->append_conf('postgresql.conf', <<'CONF');
restart_after_crash = on
max_connections = 40
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0.01
autovacuum_vacuum_insert_threshold = 100
autovacuum_vacuum_insert_scale_factor = 0.01
autovacuum_analyze_threshold = 100
log_line_prefix = '%m [%p] %e %b: '
log_autovacuum_min_duration = -1
wide.flush_threshold = 256
wide.max_runs = 4
shared_preload_libraries = 'wide'
wide.shared_block_cache_size = 2MB
CONF
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('t', 'f');
	SELECT wide.create_family('t', 'n', aggregate => 'sum');
	CREATE TABLE m (row_key text COLLATE "C", family text, qualifier text, ts int8, value int8,
	                PRIMARY KEY (row_key, family, qualifier, ts));
	CREATE TABLE txlog (writer int, n int8, PRIMARY KEY (writer, n));
});

my @workers = map { [ split /:/ ] } split ' ',
  $ENV{WIDE_STRESS_WORKERS} // 'writer:1 writer:2 copier:3 reader:1 vacuum:1 compact:1';
# errors the faults explain: shutdown and crash of other processes,
# connections refused during recovery, autovacuum cancelled by a lock,
# "current transaction is aborted" and "savepoint does not exist" after an
# error counted already
my %allowed = map { $_ => 1 } qw(57P01 57P02 57P03 57014 08006 08P01 25P02 3B001);

my (%total, $kills_backend, $kills_postmaster);
my $log_offset = 0;

# wait until the server takes connections again (after a crash restart)
# $node->psql, but a psql that exits before it has read its input (the
# server is still in crash recovery) is a failed attempt, not a die of
# IPC::Run's "ack Broken pipe"
sub try_psql
{
	my ($sql, %opts) = @_;
	my $rc = eval { $node->psql('postgres', $sql, %opts) };
	if (!defined $rc)
	{
		${ $opts{stderr} } = "psql did not run: $@" if $opts{stderr};
		return 1;
	}
	return $rc;
}

sub wait_ready
{
	for (1 .. 600)
	{
		return 1 if try_psql('SELECT 1') == 0;
		usleep(100_000);
	}
	return 0;
}

# kill -9 a random client backend of the stress or an autovacuum worker
sub kill_backend
{
	my $out = '';
	try_psql(q{
		SELECT pid || ' ' || coalesce(nullif(application_name, ''), backend_type)
		  FROM pg_stat_activity
		 WHERE application_name LIKE 'stress-%' OR backend_type = 'autovacuum worker'},
		stdout => \$out);
	my @targets = split /\n/, $out;
	return undef unless @targets;
	my ($pid, $what) = split / /, $targets[ int(rand(@targets)) ], 2;
	kill 'KILL', $pid;
	return $what;
}

# kill -9 the postmaster and, as a machine crash would, every child
sub kill_postmaster
{
	my $pm = $node->{_pid};
	my @children;
	opendir my $d, '/proc' or die;
	for my $p (grep { /^\d+$/ } readdir $d)
	{
		open my $fh, '<', "/proc/$p/stat" or next;
		my $stat = <$fh>;
		close $fh;
		push @children, $p if $stat && $stat =~ /\)\s+\S+\s+(\d+)/ && $1 == $pm;
	}
	closedir $d;
	$node->kill9;
	kill 'KILL', @children;
	for (my $n = 0; $n < 200 && kill(0, $pm, @children); $n++)
	{
		usleep(50_000);
	}
}

# new lines of the server log: errors that the faults do not explain
sub unexplained_errors
{
	open my $fh, '<', $node->logfile or die;
	seek $fh, $log_offset, 0;
	my @bad;
	while (my $line = <$fh>)
	{
		if ($line =~ /\[\d+\] (\S{5}) [^:]*: (ERROR|FATAL|PANIC):  /)
		{
			push @bad, $line unless $allowed{$1} && $2 ne 'PANIC';
		}
		elsif ($line =~ /terminated by signal (\d+)/ && $1 != 9)
		{
			push @bad, $line;
		}
		elsif ($line =~ /TRAP:|AddressSanitizer|runtime error:/)
		{
			push @bad, $line;
		}
	}
	$log_offset = tell $fh;
	close $fh;
	return @bad;
}

# run a query; its output, or the error it failed with
sub query
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	my $rc = try_psql($sql, stdout => \$out, stderr => \$err);
	return $rc == 0 ? $out : "failed: $err";
}

# the table against its model, the sums, verify
sub check_table
{
	my ($when) = @_;
	my $diff = query(q{
		SELECT row_key, family, qualifier, ts, a.value AS wide, b.value AS model
		  FROM t a FULL JOIN m b USING (row_key, family, qualifier, ts)
		 WHERE a.value IS DISTINCT FROM b.value
		 ORDER BY 1, 2, 3, 4 LIMIT 20});
	is($diff, '', "$when: every committed cell is there, no other");
	diag("$when: cells that differ (row_key|family|qualifier|ts|wide|model):\n$diff") if $diff ne '';
	my $sums = query(q{
		SELECT (SELECT count(*) FROM t) || ' ' || (SELECT count(*) FROM m) || ' '
		    || (SELECT coalesce(sum(value), 0) FROM t WHERE family = 'n') || ' '
		    || (SELECT coalesce(sum(value), 0) FROM m WHERE family = 'n')});
	my ($ct, $cm, $st, $sm) = split / /, $sums;
	is("$ct $st", "$cm $sm", "$when: counts and aggregate sums are exact ($cm cells)");
	my $verify = query("SELECT object || ': ' || problem FROM wide.verify('t') LIMIT 20");
	is($verify, '', "$when: wide.verify finds nothing");
}

my $tmp = PostgreSQL::Test::Utils::tempdir;
my $rounds_run = 0;
for my $round (1 .. $rounds)
{
	$rounds_run++;
	my $rdir = "$tmp/round$round";
	make_path($rdir);
	my $connstr = $node->connstr('postgres');
	my @procs;
	for my $w (@workers)
	{
		my ($role, $id) = @$w;
		my $pid = fork;
		die "fork: $!" unless defined $pid;
		if ($pid == 0)
		{
			open STDOUT, '>', "$rdir/$role-$id.out" or POSIX::_exit(127);
			open STDERR, '>&', \*STDOUT or POSIX::_exit(127);
			exec('perl', $worker, $role, $id, $seed, $round, $connstr, $rdir)
			  or POSIX::_exit(127);
		}
		push @procs, $pid;
	}

	# kill -9 one or two backends at random moments; end every other round
	# with a kill -9 of the postmaster instead of a clean stop
	my @kills = sort { $a <=> $b } map { 1 + rand($seconds - 2) } 1 .. 1 + int(rand(2));
	my $crash = $round % 2 == 1;
	my $start = time;
	my @killed;
	while (time - $start < $seconds)
	{
		if (@kills && time - $start >= $kills[0])
		{
			shift @kills;
			my $what = kill_backend();
			if (defined $what)
			{
				push @killed, $what;
				$kills_backend++;
			}
		}
		usleep(100_000);
	}
	if ($crash)
	{
		kill_postmaster();
		push @killed, 'postmaster';
		$kills_postmaster++;
	}
	open my $stop, '>', "$rdir/stop" or die;
	close $stop;
	if ($crash)
	{
		$node->start;
	}
	my $deadline = time + 180;
	for my $pid (@procs)
	{
		usleep(50_000) while waitpid($pid, WNOHANG) == 0 && time < $deadline;
		if (time >= $deadline)
		{
			kill 'KILL', $pid;
			waitpid($pid, 0);
		}
	}
	ok(time < $deadline, "round $round: every client finished");
	ok(wait_ready(), "round $round: the server takes connections");

	my (%ops, @acked);
	for my $w (@workers)
	{
		my $name = "$w->[0]-$w->[1]";
		if (open my $fh, '<', "$rdir/$name.summary")
		{
			while (<$fh>)
			{
				chomp;
				my ($k, $v) = split /=/;
				$ops{$k} += $v;
				$total{$k} += $v;
			}
		}
		if (open my $fh, '<', "$rdir/$name.acked")
		{
			chomp(my @n = <$fh>);
			push @acked, map { "($w->[1], $_)" } @n;
		}
	}
	note("round $round: killed " . join(', ', @killed) . "; "
		  . join(' ', map { "$_=$ops{$_}" } sort keys %ops));

	my $lost = @acked ? query(
		"SELECT count(*) FROM (VALUES " . join(', ', @acked) . ") a(w, n)"
		  . " WHERE NOT EXISTS (SELECT 1 FROM txlog WHERE writer = w AND txlog.n = a.n)") : 0;
	cmp_ok(scalar(@acked), '>', 0, "round $round: writers committed transactions");
	is($lost, '0', "round $round: all " . scalar(@acked) . " acknowledged commits survived");
	my @online = -e "$rdir/mismatch" ? split(/\n/, slurp_file("$rdir/mismatch")) : ();
	is(scalar(@online), 0, "round $round: readers saw the table equal to its model in every snapshot");
	diag(join("\n", @online[ 0 .. ($#online < 4 ? $#online : 4) ])) if @online;
	check_table("round $round");
	my @errors = unexplained_errors();
	is(scalar(@errors), 0, "round $round: no unexplained error in the server log");
	if (@errors)
	{
		# each message once, with its count, in order of appearance
		my (%count, @order);
		for (@errors)
		{
			(my $msg = $_) =~ s/^.*?\[\d+\] //;
			push @order, $msg unless $count{$msg}++;
		}
		diag("round $round: unexplained errors:\n"
			  . join('', map { "$count{$_} x $_" } @order[ 0 .. ($#order < 19 ? $#order : 19) ]));
	}
	if (!Test::More->builder->is_passing)
	{
		diag("stress: stopping after the first failed round (seed $seed, round $round)");
		last;
	}
}

# after the last round everything merged into one run: still the same cells
$total{$_} //= 0 for qw(transactions copy_cells);
diag(sprintf("stress: seed %d, %d rounds run, kill -9 of %d backends and %d postmasters; %s",
		$seed, $rounds_run, $kills_backend // 0, $kills_postmaster // 0,
		join(' ', map { "$_=$total{$_}" } sort keys %total)));
my ($first) = grep { /XX00\d/ } split /\n/, slurp_file($node->logfile);
diag("stress: first corruption error: $first") if $first;
if (!Test::More->builder->is_passing)
{
	$node->stop('immediate');
	done_testing();
	exit 0;
}
is(query("SELECT FROM wide.compact('t', true)"), '', "a major compaction works");
is(query("VACUUM t"), '', "VACUUM works");
check_table("after a major compaction and VACUUM");
is(scalar(unexplained_errors()), 0, "no unexplained error at the end");


$node->stop;
done_testing();
