# Rollups after a plain dump and restore, with no user action.
#
# A dump holds the source cells and the rollup cells; if restoring the
# source cells fired the rollups again, every source cell would count twice.
# wide.rollup_on_write = auto (the default) recognises a restoring session
# by the settings pg_dump's scripts and pg_restore's connections set
# (check_function_bodies = off; row_security = off or an empty
# search_path).  For each way of dumping and restoring -- plain script into
# psql, custom format into pg_restore, pg_restore -j 2, pg_restore
# --enable-row-security, --inserts and --column-inserts scripts, a
# schema-only then a data-only dump -- the restored rollup cells must equal
# the original's, and equal the GROUP BY of the restored raw cells.  Tables:
# "w" (two rollups, one under a key prefix), "d" (source cells deleted after
# they were rolled up, so only a restore of the rollup cells -- not a
# recount -- gives the original's), and "tab" (tablets: a partitioned table
# whose partitions roll up on their own).  A restore that forces rollups on
# counts twice: the check can fail.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('rollup_restore');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wide.flush_threshold = 32
});
$node->start;

my $rollup5 = q{'{"source": "m", "bucket": "5 minutes", "functions": ["sum", "count", "min", "max"], "key_parts": 1}'};
my $rollup1h = q{'{"source": "m", "bucket": "1 hour", "functions": ["count", "max"]}'};
$node->safe_psql('postgres', qq{
	CREATE EXTENSION wide;
	SELECT setseed(0.206);
	CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('w', 'm');
	SELECT wide.create_family('w', 'x');
	-- created on data: its first cells are a backfill
	INSERT INTO w SELECT 'host' || (i % 7) || '#' || i, 'm', (ARRAY['cpu', 'mem'])[1 + i % 2],
	       '2024-03-01 00:00:00+00'::timestamptz + i * interval '7 s',
	       (random() * 2000000)::int8 - 1000000
	  FROM generate_series(1, 1500) i;
	SELECT wide.create_family('w', 'm5', rollup => $rollup5);
	SELECT wide.create_family('w', 'zh', rollup => $rollup1h);
	INSERT INTO w SELECT 'host' || (i % 7) || '#' || i, 'm', (ARRAY['cpu', 'mem', 'disk'])[1 + i % 3],
	       '2024-03-01 00:00:00+00'::timestamptz + i * interval '3 s',
	       (random() * 2000000)::int8 - 1000000
	  FROM generate_series(1501, 4000) i;
	SELECT wide.set_cell('w', 'host3#' || i, 'm', 'net', (random() * 100)::int8,
	                     '2024-03-01 01:00:00+00'::timestamptz + i * interval '1 s')
	  FROM generate_series(4001, 4200) i;
	INSERT INTO w SELECT 'host' || i, 'x', 'note', '2024-03-01', i FROM generate_series(1, 50) i;
	SELECT FROM wide.compact('w');
	INSERT INTO w SELECT 'host' || (i % 7) || '#' || i, 'm', 'cpu',
	       '2024-03-01 00:00:00+00'::timestamptz + i * interval '3 s', i % 1000
	  FROM generate_series(4201, 4500) i;

	CREATE TABLE d (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('d', 'm');
	SELECT wide.create_family('d', 'm5', rollup => $rollup5);
	INSERT INTO d SELECT 'dev' || (i % 5) || '#' || i, 'm', 'temp',
	       '2024-03-01 00:00:00+00'::timestamptz + i * interval '11 s', (random() * 1000)::int8
	  FROM generate_series(1, 3000) i;
	DELETE FROM d WHERE family = 'm' AND value % 4 = 0;

	CREATE TABLE tab (row_key text COLLATE "C", family text COLLATE "C",
	                  qualifier text COLLATE "C", ts timestamptz, value int8)
	  PARTITION BY RANGE (row_key);
	CREATE TABLE tab_a PARTITION OF tab FOR VALUES FROM (MINVALUE) TO ('h') USING wide;
	CREATE TABLE tab_h PARTITION OF tab FOR VALUES FROM ('h') TO (MAXVALUE) USING wide;
	SELECT wide.create_family('tab', 'm');
	SELECT wide.create_family('tab', 'm5', rollup => $rollup5);
	INSERT INTO tab SELECT chr(97 + i % 26) || (i % 3) || '#' || i, 'm', 'q',
	       '2024-03-01 00:00:00+00'::timestamptz + i * interval '13 s', (random() * 5000)::int8
	  FROM generate_series(1, 2000) i;
});

# rows of the GROUP BY of the raw cells of a table not in its rollups, and
# of its rollups not in the GROUP BY (0: equal)
my $diff = q{
	CREATE OR REPLACE FUNCTION rollup_diff(t regclass) RETURNS bigint LANGUAGE plpgsql AS $f$
	DECLARE n bigint;
	BEGIN
	  EXECUTE format($q$
	  WITH raw AS (
	    SELECT split_part(row_key, '#', 1) AS k, qualifier,
	           date_bin('5 minutes', ts, 'epoch') AS b,
	           sum(value)::int8 AS s, count(*) AS c, min(value) AS mn, max(value) AS mx
	      FROM %1$s WHERE family = 'm' GROUP BY 1, 2, 3),
	  roll AS (
	    SELECT row_key AS k, split_part(qualifier, ':', 1) AS qualifier, ts AS b,
	           max(value) FILTER (WHERE qualifier LIKE '%%:sum') AS s,
	           max(value) FILTER (WHERE qualifier LIKE '%%:count') AS c,
	           max(value) FILTER (WHERE qualifier LIKE '%%:min') AS mn,
	           max(value) FILTER (WHERE qualifier LIKE '%%:max') AS mx
	      FROM %1$s WHERE family = 'm5' GROUP BY 1, 2, 3),
	  raw1 AS (
	    SELECT row_key AS k, qualifier, date_bin('1 hour', ts, 'epoch') AS b,
	           count(*) AS c, max(value) AS mx
	      FROM %1$s WHERE family = 'm' GROUP BY 1, 2, 3),
	  roll1 AS (
	    SELECT row_key AS k, split_part(qualifier, ':', 1) AS qualifier, ts AS b,
	           max(value) FILTER (WHERE qualifier LIKE '%%:count') AS c,
	           max(value) FILTER (WHERE qualifier LIKE '%%:max') AS mx
	      FROM %1$s WHERE family = 'zh' GROUP BY 1, 2, 3)
	  SELECT (SELECT count(*) FROM (TABLE raw EXCEPT TABLE roll) d) +
	         (SELECT count(*) FROM (TABLE roll EXCEPT TABLE raw) d) +
	         CASE WHEN %2$L THEN
	           (SELECT count(*) FROM (TABLE raw1 EXCEPT TABLE roll1) d) +
	           (SELECT count(*) FROM (TABLE roll1 EXCEPT TABLE raw1) d) ELSE 0 END$q$,
	    t, t = 'w'::regclass) INTO n;
	  RETURN n;
	END $f$};
$node->safe_psql('postgres', $diff);

# every cell of the three tables, as one checksum per table and family group
my $cells = q{
	SELECT t, family <> 'm' AS rollup, count(*),
	       md5(string_agg(row_key || '/' || family || '/' || qualifier || '/' || ts || '/' || value,
	                      ',' ORDER BY row_key, family, qualifier, ts))
	  FROM (SELECT 'w' AS t, * FROM w UNION ALL SELECT 'd', * FROM d
	        UNION ALL SELECT 'tab', * FROM tab) c
	 GROUP BY 1, 2 ORDER BY 1, 2};
my $before = $node->safe_psql('postgres', $cells);
is($node->safe_psql('postgres', q{SELECT rollup_diff('w'), rollup_diff('tab')}), '0|0',
	'the original rollups equal the GROUP BY of the raw cells');
cmp_ok($node->safe_psql('postgres', q{SELECT rollup_diff('d')}), '>', 0,
	'deletes of source cells are not subtracted from the original rollups');
like($before, qr/^w\|t\|\d+\|/m, 'the original has rollup cells');

my $dir = $node->basedir;
my @conn = ('-h', $node->host, '-p', $node->port);

# check a restored database: the same cells, rollups equal to the GROUP BY
sub check_restored
{
	my ($db, $how) = @_;
	is($node->safe_psql($db, $cells), $before, "$how: every cell as in the original");
	$node->safe_psql($db, $diff);
	is($node->safe_psql($db, q{SELECT rollup_diff('w'), rollup_diff('tab')}), '0|0',
		"$how: rollups equal the GROUP BY of the raw cells");
	# and the restored tables roll up new writes as before
	$node->safe_psql($db, q{
		INSERT INTO w VALUES ('host1#9999999', 'm', 'cpu', '2024-03-01 00:00:01+00', 5);
		INSERT INTO tab VALUES ('h0#9999999', 'm', 'q', '2024-03-01 00:00:01+00', 5)});
	is($node->safe_psql($db, q{SELECT rollup_diff('w'), rollup_diff('tab')}), '0|0',
		"$how: a write after the restore rolls up");
}

command_ok([ 'pg_dump', '-f', "$dir/plain.sql", @conn, 'postgres' ], 'pg_dump plain');
command_ok([ 'pg_dump', '-Fc', '-f', "$dir/dump.custom", @conn, 'postgres' ], 'pg_dump -Fc');
command_ok([ 'pg_dump', '--inserts', '-f', "$dir/inserts.sql", @conn, 'postgres' ],
	'pg_dump --inserts');
command_ok([ 'pg_dump', '--column-inserts', '--rows-per-insert', '7', '-f', "$dir/colins.sql",
	@conn, 'postgres' ], 'pg_dump --column-inserts --rows-per-insert 7');
command_ok([ 'pg_dump', '-s', '-f', "$dir/schema.sql", @conn, 'postgres' ], 'pg_dump -s');
command_ok([ 'pg_dump', '-a', '-f', "$dir/data.sql", @conn, 'postgres' ], 'pg_dump -a');

# plain script into psql
$node->safe_psql('postgres', 'CREATE DATABASE plain');
command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', "$dir/plain.sql", @conn, 'plain' ],
	'psql restores the plain dump');
check_restored('plain', 'plain dump into psql');

# custom format into pg_restore, serial and with two parallel jobs
for my $jobs (1, 2)
{
	my $db = "custom_j$jobs";
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	command_ok([ 'pg_restore', '-j', $jobs, '-d', $db, @conn, "$dir/dump.custom" ],
		"pg_restore -j $jobs");
	check_restored($db, "pg_restore -j $jobs");
}

# --enable-row-security: row_security stays on (the search_path is empty)
$node->safe_psql('postgres', 'CREATE DATABASE rls');
command_ok([ 'pg_restore', '--enable-row-security', '-d', 'rls', @conn, "$dir/dump.custom" ],
	'pg_restore --enable-row-security');
check_restored('rls', 'pg_restore --enable-row-security');

# one INSERT per cell, and multi-row INSERTs with column names
for my $f ('inserts', 'colins')
{
	$node->safe_psql('postgres', "CREATE DATABASE $f");
	command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', "$dir/$f.sql", @conn, $f ],
		"psql restores the $f dump");
	check_restored($f, "$f dump into psql");
}

# schema first, then a data-only dump in another session
$node->safe_psql('postgres', 'CREATE DATABASE split');
command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', "$dir/schema.sql", @conn, 'split' ],
	'psql restores the schema-only dump');
command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', "$dir/data.sql", @conn, 'split' ],
	'psql restores the data-only dump');
check_restored('split', 'schema-only then data-only dump');

# forcing rollups on during a restore counts every source cell twice
$node->safe_psql('postgres', 'CREATE DATABASE forced');
{
	local $ENV{PGOPTIONS} = '-c wide.rollup_on_write=on';
	command_ok([ 'pg_restore', '-d', 'forced', @conn, "$dir/dump.custom" ],
		'pg_restore with wide.rollup_on_write = on');
}
isnt($node->safe_psql('forced', $cells), $before, 'rollups forced on: other rollup cells');
$node->safe_psql('forced', $diff);
cmp_ok($node->safe_psql('forced', q{SELECT rollup_diff('w')}), '>', 0,
	'rollups forced on: source cells counted twice');

# a backfill at create_family time in a restored database is a whole rollup
$node->safe_psql('plain', q{SELECT wide.create_family('w', 'n5', rollup =>
	'{"source": "m", "bucket": "5 minutes", "functions": ["sum", "count", "min", "max"], "key_parts": 1}')});
is($node->safe_psql('plain', q{
	SELECT count(*) FROM (
	  (SELECT row_key, qualifier, ts, value FROM w WHERE family = 'm5'
	   EXCEPT SELECT row_key, qualifier, ts, value FROM w WHERE family = 'n5')
	  UNION ALL
	  (SELECT row_key, qualifier, ts, value FROM w WHERE family = 'n5'
	   EXCEPT SELECT row_key, qualifier, ts, value FROM w WHERE family = 'm5')) d}), '0',
	'a rollup created after the restore backfills to the restored one');

$node->stop;
done_testing();
