# Two first writes to an empty wide table at once (engine/storage.c,
# WideReadMeta).  Writer A extends the relation for the metapage; before A
# locks the new, still zeroed block 0, writer B takes it for a metapage a
# crash lost (test/t/122_crash_first_write.pl), initialises it and, still
# holding it, extends the relation for its write-area page.  A must not
# wait for block 0 while holding the extension lock (both backends would
# wait for each other forever, neither interruptible), nor initialise the
# metapage again over B's write.
#
# The window is a few instructions wide, so the test stops A there with
# gdb (skipped when gdb, or its Python support, is missing).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(usleep);
use Test::More;

if (system('gdb -batch -ex "python print(1)" >/dev/null 2>&1') != 0)
{
	plan skip_all => 'gdb with Python support is not available';
}

my $node = PostgreSQL::Test::Cluster->new('first_write_race');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('w', 'f');
});

my $dir = PostgreSQL::Test::Utils::tempdir;
my ($ain, $aout, $aerr) = ('', '', '');
my $a = IPC::Run::start(
	[ 'psql', '-X', '-q', '-At', '-d', $node->connstr('postgres') ],
	\$ain, \$aout, \$aerr);
$ain .= "SELECT pg_backend_pid();\n";
$a->pump until $aout =~ /^(\d+)$/m;
my $apid = $1;

# stop A right after it extended the relation for the metapage
open my $cmds, '>', "$dir/gdb.cmds" or die;
print $cmds <<"EOF";
set pagination off
break ReadBufferExtended if \$_caller_is("WideReadMeta")
continue
finish
shell touch $dir/paused
shell while [ ! -f $dir/release ]; do sleep 0.1; done
detach
quit
EOF
close $cmds;
my $gdb = IPC::Run::start([ 'gdb', '-p', $apid, '-batch', '-x', "$dir/gdb.cmds" ],
	'>', "$dir/gdb.out", '2>&1');
# (gdb has attached when A stops answering; give it time to set the breakpoint)
my $waited = 0;
until (-s "$dir/gdb.out" && slurp_file("$dir/gdb.out") =~ /Breakpoint 1 at/)
{
	die "gdb did not attach: " . slurp_file("$dir/gdb.out") if ++$waited > 600;
	usleep(100_000);
}
$ain .= "INSERT INTO w VALUES ('a', 'f', 'q', 1, 'A'); SELECT 'A done';\n";
$waited = 0;
until (-e "$dir/paused")
{
	$a->pump_nb;
	die "A did not stop: " . slurp_file("$dir/gdb.out") if ++$waited > 600;
	usleep(100_000);
}
pass('A stopped after extending the relation for the metapage');

# B writes meanwhile: it finds block 0 zeroed and initialises it
my ($bin, $bout, $berr) = ('', '', '');
my $b = IPC::Run::start(
	[ 'psql', '-X', '-q', '-At', '-d', $node->connstr('postgres') ],
	\$bin, \$bout, \$berr);
$bin .= "INSERT INTO w VALUES ('b', 'f', 'q', 1, 'B'); SELECT 'B done';\n";
$waited = 0;
until ($bout =~ /B done/
	|| $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'extend'") eq '1')
{
	$b->pump_nb;
	last if ++$waited > 100;
	usleep(100_000);
}

# let A go on; both writes must finish
open my $rel, '>', "$dir/release" or die;
close $rel;
$waited = 0;
until ($aout =~ /A done/ && $bout =~ /B done/)
{
	$a->pump_nb;
	$b->pump_nb;
	last if ++$waited > 300;
	usleep(100_000);
}
ok($aout =~ /A done/ && $bout =~ /B done/, 'both first writes finish')
  or diag("A: $aout $aerr\nB: $bout $berr\n"
	  . $node->safe_psql('postgres',
		"SELECT string_agg(pid || ' ' || coalesce(wait_event_type, '') || ' ' || coalesce(wait_event, ''), '; ') FROM pg_stat_activity WHERE backend_type = 'client backend'"));
$gdb->finish;

if ($aout =~ /A done/ && $bout =~ /B done/)
{
	$ain .= "\\q\n";
	$bin .= "\\q\n";
	$a->finish;
	$b->finish;
	is($node->safe_psql('postgres', q{SELECT string_agg(row_key || value, ',' ORDER BY row_key) FROM w}),
		'aA,bB', 'both writes are there');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('w')}), '0',
		'verify finds nothing wrong');
	$node->stop('immediate');
	$node->start;
	is($node->safe_psql('postgres', q{SELECT string_agg(row_key || value, ',' ORDER BY row_key) FROM w}),
		'aA,bB', 'and after recovery');
	$node->stop;
}
else
{
	# the two backends wait for each other with interrupts held off
	$node->stop('immediate');
	$a->kill_kill;
	$b->kill_kill;
}
done_testing();
