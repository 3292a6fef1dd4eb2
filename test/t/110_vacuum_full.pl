# VACUUM FULL on a wide table (issue 10): the rewrite into new storage is
# WAL-logged, so a streaming standby reads the same cells and a crash right
# after it loses nothing; with wal_level=minimal it skips WAL the
# PostgreSQL way (the new file is synced at commit) and also survives a
# crash.  Prepared transactions: one that wrote to the table holds VACUUM
# FULL off (its lock), and once rolled back its cells are gone; one that
# holds the xmin horizon back (it wrote elsewhere) makes VACUUM FULL keep
# later records with their xmin, and the next VACUUM FULL after it ends
# freezes them -- the same cells every time.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('vf_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
autovacuum = off
max_prepared_transactions = 5
});
$primary->start;

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f', max_versions => 2);
	SELECT wide.create_family('t', 'g');
	CREATE TABLE other (x int);
	SET wide.flush_threshold = 64;
	INSERT INTO t SELECT 'r' || lpad((i % 500)::text, 4, '0'), 'f', 'q' || (i % 3), i,
	       CASE WHEN i % 97 = 0 THEN repeat(md5(i::text), 100) ELSE md5(i::text) END
	  FROM generate_series(1, 20000) i;
	INSERT INTO t SELECT 'r' || lpad(i::text, 4, '0'), 'g', 'x', 1, 'g' || i
	  FROM generate_series(1, 500) i;
	DELETE FROM t WHERE row_key < 'r0100';
};
$primary->safe_psql('postgres', $setup);

$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('vf_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

my $query = q{
	SELECT count(*), md5(string_agg(row_key || '/' || family || '/' || qualifier
	                                || '/' || ts || '/' || md5(value), ','))
	  FROM t;
};
my $runs = q{SELECT count(*), count(oldest_xid) FROM wide.runs('t')};

my $before = $primary->safe_psql('postgres', $query);
my $size_before = $primary->safe_psql('postgres', q{SELECT pg_relation_size('t')});

# a prepared transaction that wrote to the table holds VACUUM FULL off
$primary->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO t SELECT 'r' || lpad(i::text, 4, '0'), 'f', 'prepared', 1, 'p'
	  FROM generate_series(1, 1000) i;
	PREPARE TRANSACTION 'wrote_t';
});
my ($ret, $stdout, $stderr) = $primary->psql('postgres',
	q{SET lock_timeout = '200ms'; VACUUM FULL t;});
like($stderr, qr/lock timeout/, 'VACUUM FULL waits for a prepared writer of the table');
is($primary->safe_psql('postgres', $query), $before,
	'the prepared cells are invisible, the table intact');
$primary->safe_psql('postgres', q{ROLLBACK PREPARED 'wrote_t'});

# a prepared transaction that holds the xmin horizon back
$primary->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO other VALUES (1);
	PREPARE TRANSACTION 'horizon';
});
$primary->safe_psql('postgres', q{
	INSERT INTO t SELECT 'r' || lpad(i::text, 4, '0'), 'f', 'late', 1, 'late' || i
	  FROM generate_series(1, 200) i;
	DELETE FROM t WHERE row_key >= 'r0400';
});
my $expect = $primary->safe_psql('postgres', $query);
$primary->safe_psql('postgres', q{VACUUM FULL t});
is($primary->safe_psql('postgres', $query), $expect, 'VACUUM FULL: same cells');
is($primary->safe_psql('postgres', $runs), '1|1',
	'one run, whose records after the prepared transaction keep their xmin');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $query), $expect, 'the standby reads the same cells');

$primary->safe_psql('postgres', q{COMMIT PREPARED 'horizon'});
$primary->safe_psql('postgres', q{VACUUM FULL t});
is($primary->safe_psql('postgres', $query), $expect, 'VACUUM FULL again: same cells');
is($primary->safe_psql('postgres', $runs), '1|0', 'now every record is frozen');
my $size_after = $primary->safe_psql('postgres', q{SELECT pg_relation_size('t')});
cmp_ok($size_after * 4, '<', $size_before, "the file shrank ($size_before -> $size_after bytes)");
is($primary->safe_psql('postgres',
	q{SELECT free_pages * 4 < table_pages FROM wide.stats('t')}), 't',
	'few free pages in the new file');

$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $query), $expect, 'the standby reads the same cells');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('t')}), '0',
	'the standby copy verifies');

# the rewrite is in the WAL: a crash right after it (no checkpoint) loses nothing
$primary->safe_psql('postgres', q{
	INSERT INTO t VALUES ('r0200', 'f', 'q0', 99999, 'after');
	VACUUM FULL t;
});
$expect = $primary->safe_psql('postgres', $query);
$primary->stop('immediate');
$primary->start;
is($primary->safe_psql('postgres', $query), $expect, 'after a crash: same cells');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('t')}), '0',
	'after a crash: the table verifies');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $query), $expect, 'the standby too');
$standby->stop;
$primary->stop;

# wal_level = minimal: the new file is not WAL-logged but synced at commit
my $minimal = PostgreSQL::Test::Cluster->new('vf_minimal');
$minimal->init;
$minimal->append_conf('postgresql.conf', qq{
wal_level = minimal
max_wal_senders = 0
autovacuum = off
});
$minimal->start;
$minimal->safe_psql('postgres', $setup);
$expect = $minimal->safe_psql('postgres', $query);
$minimal->safe_psql('postgres', q{VACUUM FULL t});
$minimal->stop('immediate');
$minimal->start;
is($minimal->safe_psql('postgres', $query), $expect, 'wal_level=minimal: same cells after a crash');
is($minimal->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('t')}), '0',
	'wal_level=minimal: the table verifies');
$minimal->stop;

done_testing();
