# Long work is not silent (am/progress.c): a VACUUM of a wide table shows in
# pg_stat_progress_vacuum and wide.progress() while it runs, with wide's own
# phase, and a COPY into one shows its last sort and write beside
# pg_stat_progress_copy.
#
# The VACUUM is held where it can be seen for up to 5 s: a session holds an
# ACCESS SHARE lock on the emptied table, so the truncation of its free tail
# waits for the lock (without queueing, as the heap's does).  The COPY's
# last phase is seen by polling while a COPY of 1,500,000 rows that fit in
# wide.bulk_memory ends: all of them are sorted and written then.
use strict;
use warnings;
use IPC::Run;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('progress');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nshared_buffers = 128MB\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION wide;
CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('t', 'f');
INSERT INTO t SELECT 'r' || i, 'f', 'q', 1, md5(i::text) || md5((i + 1)::text)
  FROM generate_series(1, 400000) i;
VACUUM t;
DELETE FROM t;
});
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('t') / 8192");
cmp_ok($pages, '>=', 1000, "the table has $pages pages to give back");

# no progress rows when nothing runs
is($node->safe_psql('postgres', 'SELECT count(*) FROM wide.progress()'), '0',
	'wide.progress() is empty when nothing runs');

# a reader holds the lock the truncation needs
my $reader = $node->background_psql('postgres');
$reader->query_safe('BEGIN');
$reader->query_safe('LOCK TABLE t IN ACCESS SHARE MODE');

my ($v_out, $v_err) = ('', '');
my $vacuum = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', 'VACUUM (VERBOSE) t' ],
	'>', \$v_out, '2>', \$v_err);

my ($std, $wide) = ('', '');
for (my $i = 0; $i < 400 && !($std && $wide); $i++)
{
	$std ||= $node->safe_psql('postgres', q{
		SELECT phase || ' ' || heap_blks_total FROM pg_stat_progress_vacuum
		 WHERE relid = 't'::regclass AND phase = 'truncating heap'});
	$wide ||= $node->safe_psql('postgres', q{
		SELECT command || ': ' || phase FROM wide.progress()
		 WHERE relation = 't'::regclass AND phase = 'giving the free tail back'});
	usleep(20_000);
}
like($std, qr/^truncating heap \d+$/,
	'pg_stat_progress_vacuum shows the VACUUM of a wide table, in the heap phase nearest to its own');
is($wide, 'VACUUM: giving the free tail back', 'wide.progress() shows wide\'s phase');
$reader->query_safe('COMMIT');
$reader->quit;
$vacuum->finish;
like($v_err, qr/truncated \d+ free pages/, 'the VACUUM truncated once the reader let go');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_stat_progress_vacuum WHERE relid = 't'::regclass}), '0',
	'the VACUUM has left the progress view');

cmp_ok($node->safe_psql('postgres', "SELECT pg_relation_size('t') / 8192"), '<', 10,
	'the tail is given back');

# COPY: the last sort and write of the rows it holds
my $csv = $node->basedir . '/rows.csv';
$node->safe_psql('postgres', "COPY (SELECT 'c' || i, 'f', 'q', i, md5(i::text) FROM generate_series(1, 1500000) i) TO '$csv' (FORMAT csv)");
my ($c_out, $c_err) = ('', '');
my $copy = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  "SET wide.bulk_memory = '1GB'; COPY t FROM '$csv' (FORMAT csv)" ],
	'>', \$c_out, '2>', \$c_err);
my $seen = '';
for (my $i = 0; $i < 3000 && !$seen && $copy->pumpable; $i++)
{
	$seen = $node->safe_psql('postgres', q{
		SELECT w.command || ': ' || w.phase || ', ' || c.tuples_processed
		  FROM wide.progress() w JOIN pg_stat_progress_copy c USING (pid)
		 WHERE w.relation = 't'::regclass});
	$copy->pump_nb;
	usleep(10_000);
}
$copy->finish;
like($seen, qr/^COPY: (flushing the write area|sorting and writing the last run), 1500000$/,
	'wide.progress() shows the end of a COPY, once all rows are read');
like($c_out, qr/COPY 1500000/, 'the COPY finished');

$node->stop;
done_testing();
