# The row form (issue 26) across pg_dump/pg_restore and on a physical
# standby: a row form's definition (its options, its columns' width, unit,
# reversed and qualifier options, a server of its own) survives a dump
# and restore, and reads the restored cells as before; a streaming standby
# reads the row forms as the primary does, and refuses writes through them;
# a row form's cells option does not depend on the reader's search_path.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('rowsprimary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "timezone = 'UTC'\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE SCHEMA aaa;	-- sorts before public: its row form is restored before the cells
	CREATE TABLE cpu_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('cpu_cells', 'cpu', max_versions => 1);
	SELECT wide.create_family('cpu_cells', 'rev', max_versions => 2, max_age => '36500 days');
	CREATE TABLE counts (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('counts', 'n', aggregate => 'sum');
	CREATE SERVER rows_too FOREIGN DATA WRAPPER wide_rows;
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('rowsstandby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

$primary->safe_psql('postgres', q{
	CREATE FOREIGN TABLE aaa.cpu (time timestamptz NOT NULL, tags_id int4 NOT NULL,
	                              usage_user float8, usage_system float8)
	  SERVER wide_rows OPTIONS (cells 'public.cpu_cells', family 'cpu', key 'tags_id,time');
	CREATE FOREIGN TABLE public.cpu_rev (host text, time timestamptz OPTIONS (unit 'ms', reversed 'true'),
	                                     usr float8 OPTIONS (qualifier 'usage_user'), sys float8)
	  SERVER rows_too OPTIONS (cells 'cpu_cells', family 'rev', key 'host,time', separator '|');
	CREATE FOREIGN TABLE public.counters (page text, day timestamp OPTIONS (width '12'), hits int8)
	  SERVER wide_rows OPTIONS (cells 'counts', family 'n', key 'page,day');
	CREATE TABLE tags (id int4 PRIMARY KEY, hostname text);
	INSERT INTO tags SELECT i, 'host|' || i FROM generate_series(0, 9) i;
	INSERT INTO aaa.cpu SELECT '2020-01-01'::timestamptz + (i / 10) * interval '10 s', i % 10, i, i % 7
	  FROM generate_series(0, 4999) i;
	INSERT INTO cpu_rev SELECT 'host|' || tags_id, time + interval '1 ms', usage_user, usage_system
	  FROM aaa.cpu WHERE tags_id < 5;
	INSERT INTO counters SELECT '/p' || (i % 4), '2020-01-01'::timestamp + (i % 3) * interval '1 day', i
	  FROM generate_series(1, 300) i;
	DELETE FROM aaa.cpu WHERE tags_id = 3 AND time < '2020-01-01 00:10:00';
	UPDATE aaa.cpu SET usage_system = NULL WHERE tags_id = 4;
	ANALYZE aaa.cpu;
});

my @queries = (
	q{SELECT count(*), sum(usage_user), count(usage_system), min(time), max(time) FROM aaa.cpu},
	q{SELECT tags_id, count(*), sum(usage_system) FROM aaa.cpu GROUP BY tags_id ORDER BY 1},
	q{SELECT * FROM aaa.cpu WHERE tags_id IN (3, 4) AND time >= '2020-01-01 00:09:50' ORDER BY tags_id, time LIMIT 5},
	q{SELECT host, count(*), max(time), sum(usr), sum(sys) FROM cpu_rev GROUP BY host ORDER BY 1},
	q{SELECT * FROM cpu_rev WHERE host = 'host|2' LIMIT 3},
	q{SELECT * FROM counters ORDER BY page, day},
	q{SELECT t.hostname, l.* FROM tags t, LATERAL (SELECT time, usr FROM cpu_rev c WHERE c.host = t.hostname
	    ORDER BY time DESC LIMIT 1) l ORDER BY 1},
	q{EXPLAIN (costs off) SELECT * FROM aaa.cpu WHERE tags_id = 3 AND time > '2020-01-01 00:05:00'},
	q{EXPLAIN (costs off) SELECT * FROM cpu_rev WHERE host = 'host|2' AND time < '2020-01-01 00:05:00'},
);
sub answers
{
	my ($node, $db) = @_;
	return join("\n--\n", map { $node->safe_psql($db, $_) } @queries);
}
my $before = answers($primary, 'postgres');
like($before, qr/Row Keys: time >, tags_id =/, 'the key conditions are ranges');

# ----------------------------------------------------------------
# The standby reads the row forms, and refuses writes through them
# ----------------------------------------------------------------
$primary->wait_for_catchup($standby);
is(answers($standby, 'postgres'), $before, 'the standby reads the row forms as the primary does');
my ($ret, $out, $err) = $standby->psql('postgres', q{INSERT INTO aaa.cpu VALUES ('2021-01-01', 1, 1, 1)});
isnt($ret, 0, 'no INSERT through a row form on the standby');
like($err, qr/read-only transaction/, '... a read-only transaction');
($ret, $out, $err) = $standby->psql('postgres', q{DELETE FROM aaa.cpu WHERE tags_id = 1});
isnt($ret, 0, 'no DELETE through a row form on the standby');
$primary->safe_psql('postgres', q{INSERT INTO aaa.cpu VALUES ('2021-01-01', 1, 1, 1);
	UPDATE counters SET hits = 1000 WHERE page = '/p1';});
$primary->wait_for_catchup($standby);
is(answers($standby, 'postgres'), answers($primary, 'postgres'), 'and sees later writes');
$before = answers($primary, 'postgres');

# ----------------------------------------------------------------
# pg_dump and pg_restore
# ----------------------------------------------------------------
my $dump = $primary->basedir . '/rows.dump';
$primary->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('postgres') ], 'pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE restored');
$primary->command_ok([ 'pg_restore', '-d', $primary->connstr('restored'), $dump ], 'pg_restore, no errors');
$primary->safe_psql('restored', 'ANALYZE aaa.cpu');
is(answers($primary, 'restored'), $before, 'the restored row forms read the restored cells as before');
is($primary->safe_psql('restored', q{SELECT array(SELECT unnest(ftoptions) ORDER BY 1) FROM pg_foreign_table WHERE ftrelid = 'cpu_rev'::regclass}),
	$primary->safe_psql('postgres', q{SELECT array(SELECT unnest(ftoptions) ORDER BY 1) FROM pg_foreign_table WHERE ftrelid = 'cpu_rev'::regclass}),
	'the table options restored');
is($primary->safe_psql('restored', q{SELECT attname, array(SELECT unnest(attfdwoptions) ORDER BY 1) FROM pg_attribute
	WHERE attrelid = 'cpu_rev'::regclass AND attnum > 0 ORDER BY attnum}),
	$primary->safe_psql('postgres', q{SELECT attname, array(SELECT unnest(attfdwoptions) ORDER BY 1) FROM pg_attribute
	WHERE attrelid = 'cpu_rev'::regclass AND attnum > 0 ORDER BY attnum}),
	'the column options restored');
$primary->safe_psql('restored', q{INSERT INTO aaa.cpu VALUES ('2021-01-02', 1, 2, 2)});
is($primary->safe_psql('restored', q{SELECT count(*) FROM aaa.cpu WHERE time >= '2021-01-01'}), '2',
	'the restored row form takes writes');

# a plain dump replayed by psql
my $plain = $primary->basedir . '/rows.sql';
$primary->command_ok([ 'pg_dump', '-f', $plain, '-d', $primary->connstr('postgres') ], 'plain pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE restored2');
$primary->command_ok([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-q', '-f', $plain,
	'-d', $primary->connstr('restored2') ], 'psql replays the plain dump');
$primary->safe_psql('restored2', 'ANALYZE aaa.cpu');
is(answers($primary, 'restored2'), $before, 'the row forms of the plain dump read as before');

# the cells option without a schema is the wide table in the row form's
# schema, whatever the reader's search_path (pg_dump's is empty)
is($primary->safe_psql('postgres', q{SET search_path = ''; SELECT count(*) FROM public.cpu_rev}),
	$primary->safe_psql('postgres', q{SELECT count(*) FROM cpu_rev}), 'read with an empty search_path');
$primary->command_ok([ 'pg_dump', '--include-foreign-data=wide_rows', '-f', $primary->basedir . '/rows_data.sql',
	'-d', $primary->connstr('postgres') ], 'pg_dump --include-foreign-data reads the row forms');

$standby->stop;
$primary->stop;
done_testing();
