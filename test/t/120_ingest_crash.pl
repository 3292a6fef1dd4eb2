# kill -9 around statement-sized writes (engine/pending.c): a big
# INSERT ... SELECT that committed before the crash is there after it, one
# that had not committed (its runs written and registered, or one still
# running) is not; the table equals a heap table that got the same
# committed statements, VACUUM reclaims what the interrupted statements
# wrote, and the table keeps working.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(usleep);
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('ingest_crash');
$node->init;
$node->append_conf('postgresql.conf', "max_wal_size = 1GB\nautovacuum = off\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('w', 'f');
	CREATE TABLE h (row_key text COLLATE "C", family text COLLATE "C",
	                qualifier text COLLATE "C", ts int8, value text);
	CREATE TABLE wg (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('wg', 'n', aggregate => 'sum');
});

# the same committed statements into both tables; several runs per
# statement (wide.bulk_memory = 1MB), a few large values (blobs), some
# overwrites, a small statement (the write area) and an aggregate family
my @committed = (
	q{SELECT 'a' || lpad(i::text, 6, '0'), 'f', 'q' || (i % 3), 1,
	         CASE WHEN i % 997 = 0 THEN repeat(i::text, 2000) ELSE i::text END
	    FROM generate_series(1, 60000) i},
	q{SELECT 'a' || lpad(i::text, 6, '0'), 'f', 'q' || (i % 3), 1, 'over' || i
	    FROM generate_series(1, 60000, 7) i},
	q{SELECT 's' || i, 'f', 'q', 2, 'small' FROM generate_series(1, 20) i},
);
for my $sel (@committed)
{
	$node->safe_psql('postgres', "SET wide.bulk_memory = 1024; INSERT INTO w $sel");
}
# the heap keeps the last write of each cell, as the wide table does
$node->safe_psql('postgres', q{
	INSERT INTO h SELECT DISTINCT ON (row_key, family, qualifier, ts) row_key, family, qualifier, ts, value FROM (
	  SELECT *, 1 AS o FROM (SELECT 'a' || lpad(i::text, 6, '0'), 'f', 'q' || (i % 3), 1::int8,
	         CASE WHEN i % 997 = 0 THEN repeat(i::text, 2000) ELSE i::text END
	    FROM generate_series(1, 60000) i) a
	  UNION ALL
	  SELECT *, 2 FROM (SELECT 'a' || lpad(i::text, 6, '0'), 'f', 'q' || (i % 3), 1::int8, 'over' || i
	    FROM generate_series(1, 60000, 7) i) b
	  UNION ALL
	  SELECT *, 3 FROM (SELECT 's' || i, 'f', 'q', 2::int8, 'small' FROM generate_series(1, 20) i) c
	) x(row_key, family, qualifier, ts, value, o)
	ORDER BY row_key, family, qualifier, ts, o DESC
});
# and committed sums into the aggregate family
$node->safe_psql('postgres',
	"SET wide.bulk_memory = 1024; INSERT INTO wg SELECT 'g' || (i % 5), 'n', 'q', 0, i FROM generate_series(1, 50000) i");
$node->safe_psql('postgres',
	"SET wide.bulk_memory = 1024; INSERT INTO wg SELECT 'g' || (i % 5), 'n', 'q', 0, i FROM generate_series(1, 50000) i");
my $sums = join(',', map { 2 * $_ } (250025000, 249985000, 249995000, 250005000, 250015000));

# not committed at the crash: a transaction whose big INSERT ... SELECT has
# ended (its runs written and registered) ...
my $b = $node->background_psql('postgres', on_error_stop => 0);
$b->query_safe("SET wide.bulk_memory = 1024");
$b->query_safe("BEGIN");
$b->query_safe("INSERT INTO w SELECT 'open' || i, 'f', 'q', 1, i::text FROM generate_series(1, 50000) i");
cmp_ok($node->safe_psql('postgres', "SELECT write_area_runs FROM wide.stats('w')"), '>', 0,
	'the uncommitted statement wrote runs of the write area');

# ... and a statement still running, some of its runs written
my ($c_out, $c_err) = ('', '');
my $c = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  "INSERT INTO w SELECT 'run' || a || '#' || b, 'f', 'q', 1, b::text FROM generate_series(1, 1000) a, generate_series(1, 50000) b" ],
	'>', \$c_out, '2>', \$c_err,
	init => sub { $ENV{PGOPTIONS} = '-c wide.bulk_memory=1024'; });
my $pages0 = $node->safe_psql('postgres', "SELECT pg_relation_size('w') / 8192");
for (my $n = 0; $n < 600; $n++)
{
	last if $node->safe_psql('postgres', "SELECT pg_relation_size('w') / 8192") > $pages0 + 200;
	usleep(50_000);
}
cmp_ok($node->safe_psql('postgres', "SELECT pg_relation_size('w') / 8192"), '>', $pages0 + 200,
	'the running statement has written pages');

# kill -9 the postmaster and every child
my @pids = split /\n/, $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()");
my $postmaster = $node->{_pid};
$node->kill9;
kill 'KILL', @pids;
for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
{
	usleep(50_000);
}
eval { $c->kill_kill; $c->finish; };
eval { $b->{run}->kill_kill; };
$node->start;

my $diff = q{
	SELECT count(*) FROM (
	  (SELECT row_key, family, qualifier, ts, value FROM w
	   EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM h)
	  UNION ALL
	  (SELECT row_key, family, qualifier, ts, value FROM h
	   EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM w)) d
};
is($node->safe_psql('postgres', $diff), '0',
	'after the crash: the committed statements, nothing else');
is($node->safe_psql('postgres', "SELECT count(*) FROM w"),
	$node->safe_psql('postgres', "SELECT count(*) FROM h"), 'same number of cells');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('w')"), '0', 'verify finds nothing');
is($node->safe_psql('postgres', "SELECT string_agg(value::text, ',' ORDER BY row_key) FROM wg"), $sums,
	'the aggregate family has the sums of the committed statements');

# VACUUM reclaims what the interrupted statements wrote; the table works
# (freed to the queue, or truncated away: the pages in use go down)
my $used = "SELECT table_pages - free_pages FROM wide.stats('w')";
my $before = $node->safe_psql('postgres', $used);
$node->safe_psql('postgres', "VACUUM w");
cmp_ok($node->safe_psql('postgres', $used), '<', $before,
	'VACUUM reclaimed the pages of the interrupted statements');
$node->safe_psql('postgres', q{
	INSERT INTO w SELECT 'after' || i, 'f', 'q', 1, i::text FROM generate_series(1, 30000) i;
	INSERT INTO h SELECT 'after' || i, 'f', 'q', 1, i::text FROM generate_series(1, 30000) i;
	SELECT FROM wide.compact('w', major => true);
});
is($node->safe_psql('postgres', $diff), '0', 'after more writes and a major compaction: still equal');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('w')"), '0', 'verify finds nothing');

$node->stop;
done_testing();
