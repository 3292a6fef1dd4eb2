# A hot standby with hot_standby_feedback = off never answers wrongly
# (issue 9, defect 4).  The primary compacts by its own xid horizon (which
# standby snapshots are not part of) and reuses freed pages; a standby
# REPEATABLE READ transaction then saw a count of 200,000 turn into 100,002,
# and later 700,001 with a negative sum.  Now publishing a compaction or
# flush and reusing a page log a recovery conflict (an nbtree REUSE_PAGE
# record, see src/engine/manifest.c), and the standby cancels the
# transaction with SQLSTATE 40001.
#
# The standby runs one REPEATABLE READ transaction that recounts the table
# in a loop and raises "wrong answer" if a count or sum changes, until the
# test creates a stop file; meanwhile the primary deletes, inserts,
# compacts, VACUUMs and reuses pages.  The transaction must end in a
# recovery-conflict error, not in a wrong answer, a corruption error, or
# success.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $primary = PostgreSQL::Test::Cluster->new('conflict_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "autovacuum = off\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE n (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('n', 'f');
	INSERT INTO n SELECT 'r' || lpad(i::text, 7, '0'), 'f', 'q', i, md5(i::text)
	  FROM generate_series(1, 100000) i;
	SELECT FROM wide.compact('n', true);
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('conflict_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', q{
hot_standby_feedback = off
max_standby_streaming_delay = 0
});
$standby->start;
$primary->wait_for_catchup($standby);

my $loop = q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
DO $$
DECLARE
	c0 bigint; s0 numeric; c bigint; s numeric;
BEGIN
	SELECT count(*), sum(ts) INTO c0, s0 FROM n;
	RAISE NOTICE 'started: % cells, sum %', c0, s0;
	LOOP
		PERFORM pg_sleep(0.05);
		SELECT count(*), sum(ts) INTO c, s FROM n;
		IF c <> c0 OR s <> s0 THEN
			RAISE EXCEPTION 'wrong answer: % cells, sum %; first % cells, sum %', c, s, c0, s0;
		END IF;
		EXIT WHEN pg_stat_file('stop_conflict_test', true) IS NOT NULL;
	END LOOP;
END $$;
COMMIT;
};
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose',
	  '-h', $standby->host, '-p', $standby->port, '-d', 'postgres' ],
	'<', \$loop, '>', \$out, '2>', \$err);
my $timeout = time + 60;
$h->pump until $err =~ /started:/ || time > $timeout;
like($err, qr/started: 100000 cells/, 'the standby transaction took its snapshot');

# the primary deletes, inserts, compacts, and reuses the freed pages
$primary->safe_psql('postgres', q{
	DELETE FROM n WHERE ts % 2 = 0;
	INSERT INTO n SELECT 'r' || lpad(i::text, 7, '0'), 'f', 'q', i * 3, md5(i::text)
	  FROM generate_series(200001, 250000) i;
	SELECT FROM wide.compact('n', true);
});
$primary->safe_psql('postgres', q{
	VACUUM n;
	INSERT INTO n SELECT 's' || i, 'f', 'q', i, md5(i::text) FROM generate_series(1, 50000) i;
	SELECT FROM wide.compact('n', true);
	VACUUM n;
});
$primary->wait_for_catchup($standby);

# stop the loop, if it is still running
open my $fh, '>', $standby->data_dir . '/stop_conflict_test' or die;
close $fh;
$h->finish;

unlike($err, qr/wrong answer/, 'the standby never answered wrongly');
unlike($err, qr/XX001/, 'nor met a reused page');
like($err, qr/40001: (canceling statement|terminating connection) due to conflict with recovery/,
	'the standby transaction was cancelled by a recovery conflict')
  or diag($err);

# a new transaction on the standby sees the primary's table
is($standby->safe_psql('postgres', 'SELECT count(*), sum(ts) FROM n'),
	$primary->safe_psql('postgres', 'SELECT count(*), sum(ts) FROM n'),
	'a new standby transaction sees what the primary has');

$standby->stop;
$primary->stop;
done_testing();
