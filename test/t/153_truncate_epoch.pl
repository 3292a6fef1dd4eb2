# A TRUNCATE that keeps the relfilenode (of a table created or already
# truncated in the same transaction) must not leave the block caches naming
# the old contents (issue 24, defect 1).  Before, segment ids started again
# at 1 after such a reset and a bulk-loaded run's blocks were keyed by its
# sequence numbers relative to the run, so the per-backend and the shared
# cache returned the old blocks for the new ones: the session that loaded
# read old values after COMMIT, and a compaction wrote them back, so that
# after a restart truncated cells were on disk and committed ones gone.
# Each storage now has an epoch (storage.c) that is part of every key.
#
# Both caches (wide preloaded), both patterns of the issue, and kill -9 of
# the server after COMMIT and in the middle of the transaction.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(usleep);
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('truncate_epoch');
$node->init;
$node->append_conf('postgresql.conf', <<'CONF');
shared_preload_libraries = 'wide'
wide.shared_block_cache_size = 16MB
restart_after_crash = on
autovacuum = off
CONF
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE base (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('base', 'cf');
	INSERT INTO base SELECT 'r' || lpad(i::text, 6, '0'), 'cf', 'q0', 1, 7 FROM generate_series(1, 20000) i;
	SELECT FROM wide.compact('base', major => true);
});
# another connection puts the committed blocks into the shared cache
$node->safe_psql('postgres', 'SELECT count(*) FROM base');

sub load
{
	my ($tbl, $q, $sign) = @_;
	return "COPY $tbl FROM PROGRAM 'seq 1 20000 | awk ''{printf \"r%06d\\tcf\\t$q\\t1\\t${sign}%d\\n\", \$1, \$1}''';";
}

# what the table holds, by qualifier
sub contents
{
	my ($tbl) = @_;
	return $node->safe_psql('postgres',
		"SELECT string_agg(qualifier || ':' || n || ':' || s, ' ' ORDER BY qualifier)
		   FROM (SELECT qualifier, count(*) n, sum(value) s FROM $tbl GROUP BY 1) c");
}

sub crash
{
	my $postmaster = $node->{_pid};
	my @pids = split /\n/, `pgrep -P $postmaster`;
	$node->kill9;
	kill 'KILL', @pids;
	for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
	{
		usleep(50_000);
	}
	$node->start;
}

my $qb = 'qb:20000:-200010000';

# 1. the reload pattern on an existing table, read in the same session
#    after COMMIT (per-backend cache), in a new one (shared cache), and
#    after a crash (the disk)
my $same = $node->safe_psql('postgres', join("\n",
	'BEGIN;', 'TRUNCATE base;', load('base', 'qa', ''),
	"SELECT FROM wide.compact('base', major => true);", 'SELECT count(*) FROM base;',
	'TRUNCATE base;', load('base', 'qb', '-'),
	"SELECT FROM wide.compact('base', major => true);", 'COMMIT;',
	"SELECT string_agg(qualifier || ':' || n || ':' || s, ' ' ORDER BY qualifier)
	   FROM (SELECT qualifier, count(*) n, sum(value) s FROM base GROUP BY 1) c;"));
like($same, qr/\Q$qb\E$/, 'reload: the loading session reads the new cells after COMMIT');
is(contents('base'), $qb, 'reload: a new session (shared cache) reads the new cells');
crash();
is(contents('base'), $qb, 'reload: after a crash restart the disk holds the new cells');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('base')"), '0',
	'reload: verify finds nothing wrong');

# 2. CREATE and TRUNCATE in one transaction, INSERT through the write area
$same = $node->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE fresh (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('fresh', 'cf');
	INSERT INTO fresh SELECT 'r' || lpad(i::text, 6, '0'), 'cf', 'qa', 1, i FROM generate_series(1, 20000) i;
	SELECT FROM wide.compact('fresh', major => true);
	SELECT count(*) FROM fresh;
	TRUNCATE fresh;
	INSERT INTO fresh SELECT 'r' || lpad(i::text, 6, '0'), 'cf', 'qb', 1, -i FROM generate_series(1, 20000) i;
	SELECT FROM wide.compact('fresh', major => true);
	COMMIT;
	SELECT string_agg(qualifier || ':' || n || ':' || s, ' ' ORDER BY qualifier)
	  FROM (SELECT qualifier, count(*) n, sum(value) s FROM fresh GROUP BY 1) c;
});
like($same, qr/\Q$qb\E$/, 'create+truncate: the session reads the new cells after COMMIT');
is(contents('fresh'), $qb, 'create+truncate: a new session reads the new cells');
crash();
is(contents('fresh'), $qb, 'create+truncate: after a crash restart too');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('fresh')"), '0',
	'create+truncate: verify finds nothing wrong');

# 3. killed in the middle of a reload, after the second TRUNCATE's compaction:
#    the committed cells stay, the blocks cached for the aborted ones are gone
$node->safe_psql('postgres', 'SELECT count(*) FROM base');
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  join("\n", 'BEGIN;', 'TRUNCATE base;', load('base', 'qc', ''),
		"SELECT FROM wide.compact('base', major => true);", 'SELECT count(*) FROM base;',
		'TRUNCATE base;', load('base', 'qd', ''),
		"SELECT FROM wide.compact('base', major => true);", 'SELECT count(*) FROM base;',
		"SELECT pg_sleep(60);") ],
	'>', \$out, '2>', \$err);
my $waited = 0;
until ($waited > 600 || $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'") eq '1')
{
	usleep(100_000);
	$waited++;
}
ok($waited <= 600, 'the reload reached its sleep');
crash();
eval { $h->kill_kill; $h->finish; };
is(contents('base'), $qb, 'killed mid-reload: the committed cells, read from the disk');
# and the table's later contents are read right in the same session
$same = $node->safe_psql('postgres', join("\n",
	'BEGIN;', 'TRUNCATE base;', load('base', 'qe', ''),
	"SELECT FROM wide.compact('base', major => true);", 'SELECT count(*) FROM base;',
	'TRUNCATE base;', load('base', 'qf', ''), 'COMMIT;',
	"SELECT FROM wide.compact('base', major => true);",
	"SELECT string_agg(qualifier || ':' || n || ':' || s, ' ' ORDER BY qualifier)
	   FROM (SELECT qualifier, count(*) n, sum(value) s FROM base GROUP BY 1) c;"));
like($same, qr/qf:20000:200010000$/, 'after the crash: a reload reads its own cells');
is(contents('base'), 'qf:20000:200010000', 'after the crash: so does a new session');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('base')"), '0',
	'verify finds nothing wrong');

$node->stop;
done_testing();
