# Rollups merged on write under concurrent, randomly aborting writers.
#
# pgbench clients write random readings through INSERT ... SELECT (the
# statement buffer), set_cell and mutate_rows, and roll back a quarter of
# their transactions, while another client compacts.  Every source cell
# has distinct coordinates (a sequence), so each rollup must equal the
# GROUP BY of the committed raw cells exactly.  Then deletes and
# wide.rebuild_rollup, and dump/restore: with wide.rollup_on_write = off,
# and with the default (auto: pg_restore's session is recognised), the
# restored rollups equal the originals; forced on, every cell counts twice
# until rebuilt (test/t/206_rollup_restore.pl covers every dump format).
# The same transactions write float8 readings to a float8 table wf and
# float inputs of magnitudes 1e-8 to 1e22 to its sum and min families
# (logged in a heap table): its rollups and sums must equal the GROUP BY of
# the committed readings with the sum taken exactly (numeric of the exact
# binary values, rounded to float8), whatever the compactions and aborts.
# WIDE_ROLLUP_SECONDS (default 6) sets the length.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $seconds = $ENV{WIDE_ROLLUP_SECONDS} // 6;

my $node = PostgreSQL::Test::Cluster->new('rollup');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wide.flush_threshold = 32
max_connections = 20
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('w', 'm');
	SELECT wide.create_family('w', 'm5', rollup => '{"source": "m", "bucket": "5 minutes",
	  "functions": ["sum", "count", "min", "max"], "key_parts": 1}');
	SELECT wide.create_family('w', 'c1', rollup => '{"source": "m", "bucket": "1 hour",
	  "functions": ["count", "max"]}');
	CREATE SEQUENCE ids;
	CREATE TABLE wf (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('wf', 'm');
	SELECT wide.create_family('wf', 'm5', rollup => '{"source": "m", "bucket": "5 minutes",
	  "functions": ["sum", "count", "min", "max"], "key_parts": 1}');
	SELECT wide.create_family('wf', 'acc', aggregate => 'sum');
	SELECT wide.create_family('wf', 'lo', aggregate => 'min');
	CREATE TABLE flog (k text, v float8);
	-- the exact value of a double (numeric's float8 cast keeps 15 digits)
	CREATE FUNCTION exact(x float8) RETURNS numeric LANGUAGE sql IMMUTABLE STRICT AS $$
	  SELECT (CASE WHEN b < 0 THEN -1 ELSE 1 END) * m *
	         CASE WHEN e >= 0 THEN 2::numeric ^ e
	              ELSE (5::numeric ^ (-e)) * ('1e' || e)::numeric END
	    FROM (SELECT b,
	                 CASE WHEN (b >> 52) & 2047 = 0 THEN b & 4503599627370495
	                      ELSE (b & 4503599627370495) + 4503599627370496 END AS m,
	                 CASE WHEN (b >> 52) & 2047 = 0 THEN -1074
	                      ELSE ((b >> 52) & 2047)::int - 1075 END AS e
	            FROM (SELECT ('x' || encode(float8send(x), 'hex'))::bit(64)::bigint AS b) s) t $$;
	CREATE FUNCTION rollup_diff_f() RETURNS bigint LANGUAGE sql AS $$
	  WITH raw AS (
	    SELECT split_part(row_key, '#', 1) AS k, qualifier,
	           date_bin('5 minutes', ts, 'epoch') AS b,
	           sum(exact(value))::float8 AS s, count(*)::float8 AS c, min(value) AS mn, max(value) AS mx
	      FROM wf WHERE family = 'm' GROUP BY 1, 2, 3),
	  roll AS (
	    SELECT row_key AS k, split_part(qualifier, ':', 1) AS qualifier, ts AS b,
	           max(value) FILTER (WHERE qualifier LIKE '%:sum') AS s,
	           max(value) FILTER (WHERE qualifier LIKE '%:count') AS c,
	           max(value) FILTER (WHERE qualifier LIKE '%:min') AS mn,
	           max(value) FILTER (WHERE qualifier LIKE '%:max') AS mx
	      FROM wf WHERE family = 'm5' GROUP BY 1, 2, 3),
	  l AS (SELECT k, sum(exact(v))::float8 AS s, min(v) AS mn FROM flog GROUP BY 1),
	  c AS (SELECT row_key AS k, max(value) FILTER (WHERE family = 'acc') AS s,
	               max(value) FILTER (WHERE family = 'lo') AS mn
	          FROM wf WHERE family IN ('acc', 'lo') GROUP BY 1)
	  SELECT (SELECT count(*) FROM (TABLE raw EXCEPT TABLE roll) d) +
	         (SELECT count(*) FROM (TABLE roll EXCEPT TABLE raw) d) +
	         (SELECT count(*) FROM (TABLE l EXCEPT TABLE c) d) +
	         (SELECT count(*) FROM (TABLE c EXCEPT TABLE l) d) $$;
	-- rows of raw GROUP BY minus rollup, and of rollup minus GROUP BY
	CREATE FUNCTION rollup_diff() RETURNS bigint LANGUAGE sql AS $$
	  WITH raw AS (
	    SELECT split_part(row_key, '#', 1) AS k, qualifier,
	           date_bin('5 minutes', ts, 'epoch') AS b,
	           sum(value)::int8 AS s, count(*) AS c, min(value) AS mn, max(value) AS mx
	      FROM w WHERE family = 'm' GROUP BY 1, 2, 3),
	  roll AS (
	    SELECT row_key AS k, split_part(qualifier, ':', 1) AS qualifier, ts AS b,
	           max(value) FILTER (WHERE qualifier LIKE '%:sum') AS s,
	           max(value) FILTER (WHERE qualifier LIKE '%:count') AS c,
	           max(value) FILTER (WHERE qualifier LIKE '%:min') AS mn,
	           max(value) FILTER (WHERE qualifier LIKE '%:max') AS mx
	      FROM w WHERE family = 'm5' GROUP BY 1, 2, 3),
	  raw1 AS (
	    SELECT row_key AS k, qualifier, date_bin('1 hour', ts, 'epoch') AS b,
	           count(*) AS c, max(value) AS mx
	      FROM w WHERE family = 'm' GROUP BY 1, 2, 3),
	  roll1 AS (
	    SELECT row_key AS k, split_part(qualifier, ':', 1) AS qualifier, ts AS b,
	           max(value) FILTER (WHERE qualifier LIKE '%:count') AS c,
	           max(value) FILTER (WHERE qualifier LIKE '%:max') AS mx
	      FROM w WHERE family = 'c1' GROUP BY 1, 2, 3)
	  SELECT (SELECT count(*) FROM (TABLE raw EXCEPT TABLE roll) d) +
	         (SELECT count(*) FROM (TABLE roll EXCEPT TABLE raw) d) +
	         (SELECT count(*) FROM (TABLE raw1 EXCEPT TABLE roll1) d) +
	         (SELECT count(*) FROM (TABLE roll1 EXCEPT TABLE raw1) d) $$;
});

my $dir = $node->basedir;
my $t0 = q{'2024-03-01 00:00:00+00'::timestamptz};
open my $fh, '>', "$dir/write.sql" or die;
print $fh qq{\\set h random(1, 20)
\\set v random(-1000000, 1000000)
\\set kind random(0, 2)
\\set abort random(0, 3)
\\set e random(-8, 22)
\\set k random(1, 30)
BEGIN;
INSERT INTO wf SELECT 'host' || :h || '#' || id, 'm', (ARRAY['cpu', 'mem'])[1 + id % 2],
  $t0 + id * interval '997 ms', ((:v + id % 1000) / 1000.0)::float8 * (1 + (id % 5) * 1e5)
  FROM (SELECT nextval('ids') AS id FROM generate_series(1, 1 + :k % 5)) s;
WITH x AS (INSERT INTO flog VALUES ('k' || :k, (:v + 0.5) * power(10::float8, :e)) RETURNING k, v)
SELECT wide.add_to_cell('wf', k, 'acc', 'x', $t0, v), wide.add_to_cell('wf', k, 'lo', 'x', $t0, v) FROM x;
\\if :kind = 0
INSERT INTO w SELECT 'host' || :h || '#' || id, 'm', (ARRAY['cpu', 'mem', 'disk'])[1 + id % 3],
  $t0 + id * interval '997 ms', :v + id % 1000
  FROM (SELECT nextval('ids') AS id FROM generate_series(1, 1 + :v % 7 + 7)) s;
\\elif :kind = 1
SELECT wide.set_cell('w', 'host' || :h || '#' || id, 'm', 'cpu', :v, $t0 + id * interval '997 ms')
  FROM (SELECT nextval('ids') AS id) s;
\\else
SELECT wide.mutate_rows('w', jsonb_agg(jsonb_build_object('row_key', 'host' || :h || '#' || id,
  'mutations', jsonb_build_array(jsonb_build_object('set_cell', jsonb_build_object(
    'family_name', 'm', 'column_qualifier', 'mem', 'value', :v,
    'timestamp_micros', (extract(epoch FROM $t0) * 1000000)::int8 + id * 997000))))))
  FROM (SELECT nextval('ids') AS id FROM generate_series(1, 3)) s;
\\endif
\\if :abort = 0
ROLLBACK;
\\else
COMMIT;
\\endif
};
close $fh;
open $fh, '>', "$dir/maint.sql" or die;
print $fh q{SELECT FROM wide.compact('w');
SELECT FROM wide.compact('wf');
SELECT pg_sleep(0.2);
SELECT FROM wide.compact('w', true);
SELECT FROM wide.compact('wf', true);
};
close $fh;

my @conn = ('-h', $node->host, '-p', $node->port, 'postgres');
my ($wout, $werr, $mout, $merr) = ('', '', '', '');
my $writers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', 4, '-T', $seconds, '-f', "$dir/write.sql", @conn ],
	'>', \$wout, '2>', \$werr);
my $maint = IPC::Run::start(
	[ 'pgbench', '-n', '-c', 1, '-T', $seconds, '-f', "$dir/maint.sql", @conn ],
	'>', \$mout, '2>', \$merr);
$writers->finish;
$maint->finish;
is($writers->result(0), 0, 'writers ran without errors') or diag($werr);
is($maint->result(0), 0, 'compactions ran without errors') or diag($merr);
my $cells = $node->safe_psql('postgres', q{SELECT count(*) FROM w WHERE family = 'm'});
my $ids = $node->safe_psql('postgres', q{SELECT last_value FROM ids});
note("$cells committed source cells of $ids written");
cmp_ok($cells, '>', 100, 'writers committed cells');
cmp_ok($cells, '<', $ids, 'some writes were rolled back');
is($node->safe_psql('postgres', 'SELECT rollup_diff()'), '0',
	'rollups equal the GROUP BY of the committed raw cells');
$node->safe_psql('postgres', q{SELECT FROM wide.compact('w', true)});
is($node->safe_psql('postgres', 'SELECT rollup_diff()'), '0', 'and after a major compaction');
my $fcells = $node->safe_psql('postgres', q{SELECT count(*) FROM wf WHERE family = 'm'});
my $finputs = $node->safe_psql('postgres', q{SELECT count(*) FROM flog});
diag("float8: $fcells committed readings, $finputs committed sum inputs");
cmp_ok($finputs, '>', 20, 'float sum inputs committed');
is($node->safe_psql('postgres', 'SELECT rollup_diff_f()'), '0',
	'float rollups and sums equal the exact GROUP BY of the committed readings');
# PostgreSQL's float sum of the same inputs rounds at every addition
diag('float sums where PostgreSQL\'s sum(float8) differs from the exact one: '
	  . $node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT k FROM flog GROUP BY k
		HAVING sum(v) <> sum(exact(v))::float8) d}) . ' of 30');
$node->safe_psql('postgres', q{SELECT FROM wide.compact('wf', true)});
is($node->safe_psql('postgres', 'SELECT rollup_diff_f()'), '0', 'float: and after a major compaction');
is($node->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('wf')}), '0', 'float: verify');

# deletes are not subtracted; rebuilds of every rollup make them exact again
$node->safe_psql('postgres', q{DELETE FROM w WHERE family = 'm' AND value % 3 = 0});
$node->safe_psql('postgres', q{DELETE FROM wf WHERE family = 'm' AND row_key LIKE 'host1%'});
cmp_ok($node->safe_psql('postgres', 'SELECT rollup_diff_f()'), '>', 0, 'float: deletes are not subtracted');
$node->safe_psql('postgres', q{SELECT wide.rebuild_rollup('wf', 'm5', 'host1', 'host5');
	SELECT wide.rebuild_rollup('wf', 'm5', NULL, 'host1'); SELECT wide.rebuild_rollup('wf', 'm5', 'host5')});
is($node->safe_psql('postgres', 'SELECT rollup_diff_f()'), '0', 'float: rebuilt rollups are exact');
cmp_ok($node->safe_psql('postgres', 'SELECT rollup_diff()'), '>', 0, 'deletes are not subtracted');
$node->safe_psql('postgres', q{
	SELECT wide.rebuild_rollup('w', 'm5', 'host1', 'host5');
	SELECT wide.rebuild_rollup('w', 'm5', 'host5');
	SELECT wide.rebuild_rollup('w', 'm5', NULL, 'host1');
	SELECT wide.rebuild_rollup('w', 'c1')});
is($node->safe_psql('postgres', 'SELECT rollup_diff()'), '0', 'rebuilt rollups are exact');

# dump and restore
my $rollups = q{SELECT (SELECT md5(string_agg(row_key || family || qualifier || ts || value, ',' ORDER BY row_key, family, qualifier, ts))
	FROM w WHERE family <> 'm') || ' ' || (SELECT md5(string_agg(row_key || family || qualifier || ts || value, ',' ORDER BY row_key, family, qualifier, ts))
	FROM wf WHERE family <> 'm')};
my $before = $node->safe_psql('postgres', $rollups);
command_ok([ 'pg_dump', '-Fc', '-f', "$dir/w.dump", @conn ], 'pg_dump');
my %options = (r1 => '-c wide.rollup_on_write=off', r2 => '-c wide.rollup_on_write=on', r3 => '');
for my $db (sort keys %options)
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	local $ENV{PGOPTIONS} = $options{$db};
	command_ok([ 'pg_restore', '-d', $db, '-h', $node->host, '-p', $node->port, "$dir/w.dump" ],
		"pg_restore into $db");
}
is($node->safe_psql('r1', $rollups), $before, 'restored with rollup_on_write off: the same rollups');
is($node->safe_psql('r1', 'SELECT rollup_diff()'), '0', 'which equal the GROUP BY');
is($node->safe_psql('r1', 'SELECT rollup_diff_f()'), '0', 'float: which equal the exact GROUP BY');
is($node->safe_psql('r3', $rollups), $before, 'restored with the default (auto): the same rollups');
is($node->safe_psql('r3', 'SELECT rollup_diff()'), '0', 'which equal the GROUP BY');
is($node->safe_psql('r3', 'SELECT rollup_diff_f()'), '0', 'float: which equal the exact GROUP BY');
cmp_ok($node->safe_psql('r2', 'SELECT rollup_diff()'), '>', 0, 'restored with rollups forced on: counted twice');
$node->safe_psql('r2', q{SELECT wide.rebuild_rollup('w', 'm5'); SELECT wide.rebuild_rollup('w', 'c1');
	SELECT wide.rebuild_rollup('wf', 'm5')});
is($node->safe_psql('r2', $rollups), $before, 'until rebuilt');

$node->stop;
done_testing();
