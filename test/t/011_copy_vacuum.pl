# COPY concurrent with VACUUM keeps the table sound (issue 9, defect 1).
#
# A COPY writes its run's blobs and segment before it registers the run in
# the metapage; VACUUM's page sweep used to take those pages for orphans,
# queue them, and hand them out a second time: count(*) then failed with
# "page belongs to something else" and wide.verify listed doubly used
# blocks.  Now a bulk load holds the allocation guard while it owns pages
# it has not registered, and the sweep skips the table meanwhile.
#
# One session loops VACUUM (pgbench), another runs COPYs; afterwards every
# row is there and wide.verify is empty.  WIDE_STRESS_ROUNDS (default 1)
# repeats the whole thing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $rounds = $ENV{WIDE_STRESS_ROUNDS} // 1;
$ENV{WIDE_BULK_KB} //= 65536;
my $ncopy = $ENV{WIDE_COPY_N} // 8;
my $nrows = $ENV{WIDE_COPY_ROWS} // 100000;

my $node = PostgreSQL::Test::Cluster->new('copyvac');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
restart_after_crash = on
wide.bulk_memory = $ENV{WIDE_BULK_KB}
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wide');

my $vacuum_script = $node->basedir . '/vacuum.sql';
open my $fh, '>', $vacuum_script or die;
print $fh "VACUUM r;\n";
close $fh;

for my $round (1 .. $rounds)
{
	$node->safe_psql('postgres', q{
		DROP TABLE IF EXISTS r;
		CREATE TABLE r (row_key text, family text, qualifier text, ts int8, value text) USING wide;
		SELECT wide.create_family('r', 'cf');
	});

	# VACUUM in a loop until the COPYs are done
	my ($vout, $verr) = ('', '');
	my $vacuum = IPC::Run::start(
		[ 'pgbench', '-n', '-f', $vacuum_script, '-T', '120',
		  '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$vout, '2>', \$verr);

	for my $i (1 .. $ncopy)
	{
		$node->safe_psql('postgres',
			"COPY r FROM PROGRAM 'seq -f k$i-%08g,cf,q,1,some-value-text 1 $nrows' (FORMAT csv)");
	}
	$vacuum->signal('TERM');	# not INT: a shell that runs us in the background may ignore it
	$vacuum->finish;

	my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM r');
	is($ret, 0, "round $round: count(*) works") or diag($err);
	is($out, $ncopy * $nrows, "round $round: every row is there");
	($ret, $out, $err) = $node->psql('postgres',
		"SELECT count(*) FROM wide.verify('r')");
	is($out, '0', "round $round: wide.verify finds nothing")
	  or diag($node->safe_psql('postgres',
		"SELECT object || ': ' || problem FROM wide.verify('r') LIMIT 10"));
	# and the table still works: a compaction and a VACUUM reclaim the rest
	($ret, $out, $err) = $node->psql('postgres',
		"SELECT FROM wide.compact('r', true); VACUUM r; SELECT count(*) FROM wide.verify('r')");
	is($ret, 0, "round $round: compaction and VACUUM work afterwards") or diag($err);
}

# A COPY killed (kill -9, so the server restarts) before registering its
# runs leaves orphaned pages; its allocation guard dies with it, so the next
# VACUUM reclaims them.
my $rows_before = $node->safe_psql('postgres', 'SELECT count(*) FROM r');
my $size_before = $node->safe_psql('postgres', "SELECT pg_relation_size('r')");
# values of 3,000 bytes go to blobs at once, long before their run is
# written and registered
my $big = 'x' x 3000;
my $copy_sql = "SET wide.bulk_memory = 65536; "
  . "COPY r FROM PROGRAM 'seq -f z-%08g,cf,q,1,$big 1 1000000' (FORMAT csv);";
my ($cout, $cerr) = ('', '');
my $copy = IPC::Run::start(
	[ 'psql', '-X', '-h', $node->host, '-p', $node->port, '-d', 'postgres',
	  '-c', $copy_sql ],
	'>', \$cout, '2>', \$cerr);
$node->poll_query_until('postgres',
	"SELECT pg_relation_size('r') > $size_before + 4 * 1024 * 1024")
  or die 'the COPY did not write';
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE query LIKE 'SET wide.bulk_memory%' AND pid <> pg_backend_pid()");
ok($pid, 'the COPY is running');
kill 'KILL', $pid;
$copy->finish;
# the server restarts after the crash
for (1 .. 180)
{
	last if eval { $node->safe_psql('postgres', 'SELECT 1') eq '1' };
	sleep 1;
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM r'), $rows_before,
	'the killed COPY left no rows');
my $vac = $node->psql('postgres', 'VACUUM (VERBOSE) r', stderr => \my $vacinfo);
like($vacinfo, qr/(\d+) orphaned pages reclaimed/, 'VACUUM swept the table');
my ($reclaimed) = $vacinfo =~ /(\d+) orphaned pages reclaimed/;
cmp_ok($reclaimed // 0, '>', 100, "it reclaimed the killed COPY's pages ($reclaimed)");
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('r')"), '0',
	'and wide.verify finds nothing');

$node->stop;
done_testing();
