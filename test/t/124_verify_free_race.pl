# wide.verify against a writer that reuses the free queue's pages
# (api/verify.c, engine/space.c).  A free queue entry whose stamp every
# snapshot has passed may be handed out at any moment; verify reads the
# metapage once, then the header pages of each freed segment.  When a
# writer takes those pages in between, verify read the writer's pages and
# reported "unexpected page" on a sound table (test/t/020_stress.pl, with
# autovacuum relocating runs during its check).  verify now reports a
# problem of a free entry only if the entry is still queued after the
# check.
#
# The test stops verify with gdb before it reads the freed segment
# (skipped when gdb, or its Python support, is missing).
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

my $node = PostgreSQL::Test::Cluster->new('verify_free_race');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nwide.block_size = 1024\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('w', 'f');
	INSERT INTO w SELECT 'r' || lpad(i::text, 5, '0'), 'f', 'q', 1, md5(i::text)
	  FROM generate_series(1, 2000) i;
	SELECT FROM wide.compact('w', major => true);
	INSERT INTO w SELECT 'r' || lpad(i::text, 5, '0'), 'f', 'q', 2, md5(i::text)
	  FROM generate_series(1, 2000) i;
	SELECT FROM wide.compact('w', major => true);
});
# the first run's segment is freed; later transactions make it reusable
$node->safe_psql('postgres', 'SELECT txid_current()') for 1 .. 3;
my $segs = $node->safe_psql('postgres', q{
	SELECT count(*) FROM wide.verify('w')});
is($segs, '0', 'the table verifies');

my $dir = PostgreSQL::Test::Utils::tempdir;
my ($ain, $aout, $aerr) = ('', '', '');
my $a = IPC::Run::start(
	[ 'psql', '-X', '-q', '-At', '-d', $node->connstr('postgres') ],
	\$ain, \$aout, \$aerr);
# (wide.so loaded in A before gdb looks for its functions)
$ain .= "SELECT count(*) FROM wide.verify('w');\nSELECT pg_backend_pid();\n";
$a->pump until $aout =~ /^\d+\n(\d+)$/m;
my $apid = $1;

# stop verify before it reads a freed segment's header pages
open my $cmds, '>', "$dir/gdb.cmds" or die;
print $cmds <<"EOF2";
set pagination off
break check_free_segment
continue
shell touch $dir/paused
shell while [ ! -f $dir/release ]; do sleep 0.1; done
detach
quit
EOF2
close $cmds;
my $gdb = IPC::Run::start([ 'gdb', '-p', $apid, '-batch', '-x', "$dir/gdb.cmds" ],
	'>', "$dir/gdb.out", '2>&1');
my $waited = 0;
until (-s "$dir/gdb.out" && slurp_file("$dir/gdb.out") =~ /Breakpoint 1 at|not defined/)
{
	die "gdb did not attach: " . slurp_file("$dir/gdb.out") if ++$waited > 600;
	usleep(100_000);
}
if (slurp_file("$dir/gdb.out") !~ /Breakpoint 1 at/)
{
	# (a traced backend would hold up the server's stop)
	$gdb->kill_kill;
	die "gdb found no check_free_segment: " . slurp_file("$dir/gdb.out");
}
$ain .= "SELECT count(*) || ' problems: ' || coalesce(string_agg(object || ': ' || problem, '; '), '') FROM wide.verify('w');\n";
$waited = 0;
until (-e "$dir/paused")
{
	$a->pump_nb;
	die "verify did not stop: " . slurp_file("$dir/gdb.out") if ++$waited > 600;
	usleep(100_000);
}
pass('verify stopped before reading a freed segment');

# meanwhile a writer needs more pages than the queue holds: it takes the
# freed segment's pages, its header pages too, and writes over them
$node->safe_psql('postgres', q{
	INSERT INTO w SELECT 's' || lpad(i::text, 5, '0'), 'f', 'q', 3, md5(i::text)
	  FROM generate_series(1, 6000) i;
	SELECT FROM wide.compact('w', major => true);
});
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT (wide.verify('w')).*) v}), '0',
	'the table verifies after the writer');

open my $rel, '>', "$dir/release" or die;
close $rel;
$waited = 0;
until ($aout =~ /problems/)
{
	$a->pump_nb;
	last if ++$waited > 300;
	usleep(100_000);
}
$gdb->finish;
like($aout, qr/^0 problems: $/m, 'verify reports nothing of the entry the writer took')
  or diag("verify: $aout $aerr\n" . slurp_file("$dir/gdb.out"));
$ain .= "\\q\n";
$a->finish;
is($node->safe_psql('postgres', 'SELECT count(*) FROM w'), '10000', 'the cells are there');
$node->stop;
done_testing();
