# CLUSTER on a wide table through a wide_key index (issue 10): the rewrite
# is WAL-logged, so a streaming standby reads the same cells (and has the
# index and its CLUSTER mark) and a crash right after a CLUSTER, committed
# or rolled back, loses nothing; with wal_level=minimal a CLUSTER in the
# transaction that created the table survives a crash too.  pg_dump and
# pg_restore carry the index and the mark, and CLUSTER without USING then
# works in the restored database.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('cl_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "autovacuum = off\n");
$primary->start;

# the index exists before the data: every write also goes through aminsert
my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f', max_versions => 2);
	SELECT wide.create_family('t', 'g');
	CREATE INDEX t_key ON t USING wide_key (row_key);
	SET wide.flush_threshold = 64;
	INSERT INTO t SELECT 'r' || lpad((i % 500)::text, 4, '0'), 'f', 'q' || (i % 3), i,
	       CASE WHEN i % 97 = 0 THEN repeat(md5(i::text), 100) ELSE md5(i::text) END
	  FROM generate_series(1, 20000) i;
	COPY (SELECT 'r' || lpad(i::text, 4, '0'), 'g', 'x', 1, 'g' || i
	        FROM generate_series(1, 500) i) TO '@FILE@';
	COPY t FROM '@FILE@';
	DELETE FROM t WHERE row_key < 'r0100';
};
my $file = $primary->basedir . '/g.copy';
$setup =~ s/\@FILE\@/$file/g;
$primary->safe_psql('postgres', $setup);

$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('cl_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

my $query = q{
	SELECT count(*), md5(string_agg(row_key || '/' || family || '/' || qualifier
	                                || '/' || ts || '/' || md5(value), ','))
	  FROM t;
};
my $mark = q{SELECT indexrelid::regclass || ':' || indisclustered FROM pg_index
              WHERE indrelid = 't'::regclass};
my $before = $primary->safe_psql('postgres', $query);
my $size_before = $primary->safe_psql('postgres', q{SELECT pg_relation_size('t')});

$primary->safe_psql('postgres', q{CLUSTER t USING t_key});
is($primary->safe_psql('postgres', $query), $before, 'CLUSTER: same cells');
is($primary->safe_psql('postgres', $mark), 't_key:true', 'the index is marked');
my $size_after = $primary->safe_psql('postgres', q{SELECT pg_relation_size('t')});
cmp_ok($size_after * 4, '<', $size_before, "the file shrank ($size_before -> $size_after bytes)");
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $query), $before, 'the standby reads the same cells');
is($standby->safe_psql('postgres', $mark), 't_key:true', 'the standby has the index and its mark');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('t')}), '0',
	'the standby copy verifies');

# a committed CLUSTER in a transaction block, with writes around it, then a
# crash right after (no checkpoint)
$primary->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO t VALUES ('r0200', 'f', 'q0', 99999, 'before');
	DELETE FROM t WHERE row_key = 'r0300';
	CLUSTER t;
	INSERT INTO t VALUES ('r0201', 'f', 'q0', 99999, 'after');
	COMMIT;
});
my $expect = $primary->safe_psql('postgres', $query);
isnt($expect, $before, 'the transaction changed the cells');
$primary->stop('immediate');
$primary->start;
is($primary->safe_psql('postgres', $query), $expect, 'after a crash: same cells');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('t')}), '0',
	'after a crash: the table verifies');

# a rolled-back CLUSTER leaves the old storage, also across a crash
$primary->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO t VALUES ('r0202', 'f', 'q0', 99999, 'gone');
	CLUSTER t;
	ROLLBACK;
});
$primary->stop('immediate');
$primary->start;
is($primary->safe_psql('postgres', $query), $expect, 'a rolled-back CLUSTER, a crash: same cells');
$primary->safe_psql('postgres', q{INSERT INTO t VALUES ('r0203', 'f', 'q0', 99999, 'later')});
$expect = $primary->safe_psql('postgres', $query);
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $query), $expect, 'the standby too');
$standby->stop;

# pg_dump and pg_restore: the index and the mark come back, and CLUSTER
# without USING works on the restored table
my $dump = $primary->basedir . '/t.dump';
$primary->command_ok(
	[ 'pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('postgres') ],
	'pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE restored');
$primary->command_ok(
	[ 'pg_restore', '--exit-on-error', '-d', $primary->connstr('restored'), $dump ],
	'pg_restore');
is($primary->safe_psql('restored', $query), $expect, 'restored: same cells');
is($primary->safe_psql('restored', $mark), 't_key:true', 'restored: the index and its mark');
$primary->safe_psql('restored', 'CLUSTER t');
is($primary->safe_psql('restored', $query), $expect, 'restored, CLUSTER: same cells');
is($primary->safe_psql('restored', q{SELECT runs FROM wide.stats('t')}), '1',
	'restored, CLUSTER: one run');

# a database that created wide 0.1 gets the access method and its operator
# classes from ALTER EXTENSION UPDATE, and CLUSTER works on its old tables
$primary->safe_psql('postgres', 'CREATE DATABASE old');
$primary->safe_psql('old', q{
	CREATE EXTENSION wide VERSION '0.1';
	CREATE TABLE o (row_key bytea, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('o', 'f', max_versions => 1);
	INSERT INTO o SELECT int4send(i % 300), 'f', 'q', i, i FROM generate_series(1, 3000) i;
});
my ($ret, $stdout, $stderr) = $primary->psql('old',
	q{CREATE INDEX o_key ON o USING wide_key (row_key)});
like($stderr, qr/access method "wide_key" does not exist/, '0.1 has no wide_key');
$primary->safe_psql('old', 'ALTER EXTENSION wide UPDATE');
$primary->safe_psql('old', q{
	CREATE INDEX o_key ON o USING wide_key (row_key);
	CLUSTER o USING o_key;
});
is($primary->safe_psql('old', q{SELECT count(*), sum(value), (SELECT runs FROM wide.stats('o')) FROM o}),
	'300|855150|1', 'after the update: CLUSTER through a wide_key index on a bytea row key');
$primary->stop;

# wal_level = minimal: CLUSTER in the transaction that created the table
# (storage that is not WAL-logged but synced at commit), then a crash
my $minimal = PostgreSQL::Test::Cluster->new('cl_minimal');
$minimal->init;
$minimal->append_conf('postgresql.conf', qq{
wal_level = minimal
max_wal_senders = 0
autovacuum = off
});
$minimal->start;
$minimal->safe_psql('postgres', 'CREATE EXTENSION wide');
$minimal->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f', max_versions => 1);
	CREATE INDEX t_key ON t USING wide_key (row_key);
	INSERT INTO t SELECT 'r' || (i % 700), 'f', 'q', i, md5(i::text)
	  FROM generate_series(1, 5000) i;
	CLUSTER t USING t_key;
	INSERT INTO t VALUES ('z', 'f', 'q', 1, 'after');
	COMMIT;
});
$expect = $minimal->safe_psql('postgres', $query);
like($expect, qr/^701\|/, 'wal_level=minimal: the cells of the transaction');
$minimal->stop('immediate');
$minimal->start;
is($minimal->safe_psql('postgres', $query), $expect, 'wal_level=minimal: same cells after a crash');
is($minimal->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('t')}), '0',
	'wal_level=minimal: the table verifies');
$minimal->stop;

done_testing();
