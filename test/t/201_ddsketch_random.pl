# Quantile sketches merged on write (ddsketch families and rollups) under
# concurrent, randomly aborting writers and compactions, on a primary and
# a streaming standby, and through pg_dump/pg_restore.
#
# pgbench clients add random values (uniform, log-uniform over 16 orders of
# magnitude, negative, zero) to ddsketch cells with add_to_cell, INSERT,
# mutate_row and merge_to_cell of one-value sketches, logging each in a heap
# table in the same transaction, and write readings to a rollup's source;
# a quarter of the transactions roll back while another client compacts;
# then the server crashes (immediate stop) during more of the same.
# Then every cell must be, byte for byte, wide.ddsketch_agg of its committed
# inputs (the merge is exact whatever the order of folding), every quantile
# of it within 1% of percentile_disc over the log, and the same on the
# standby and in a restored dump.  WIDE_DDS_SECONDS (default 5) sets the
# length.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $seconds = $ENV{WIDE_DDS_SECONDS} // 5;

my $node = PostgreSQL::Test::Cluster->new('dds');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wide.flush_threshold = 32
max_connections = 20
});
$node->start;
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('dds_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE s (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
	SELECT wide.create_family('s', 'p', aggregate => 'ddsketch');
	SELECT wide.create_family('s', 'm');
	SELECT wide.create_family('s', 'r', rollup => '{"source": "m", "bucket": "1 minute",
	  "functions": ["count", "ddsketch"], "key_parts": 1}');
	CREATE TABLE log (k text, x float8);
	CREATE SEQUENCE ids;
	CREATE FUNCTION dds_diff() RETURNS bigint LANGUAGE sql AS $$
	  WITH l AS (SELECT k, wide.ddsketch_agg(x) AS s FROM log GROUP BY k),
	  raw AS (
	    SELECT split_part(row_key, '#', 1) AS k, ts - ts % 60000000 AS b,
	           wide.ddsketch_agg(('x' || encode(value, 'hex'))::bit(64)::bigint::float8) AS s
	      FROM s WHERE family = 'm' GROUP BY 1, 2)
	  SELECT (SELECT count(*) FROM l FULL JOIN (SELECT * FROM s WHERE family = 'p') c ON c.row_key = l.k
	           WHERE c.value IS DISTINCT FROM l.s) +
	         (SELECT count(*) FROM raw FULL JOIN (SELECT * FROM s WHERE family = 'r' AND qualifier = 'v:ddsketch') c
	              ON c.row_key = raw.k AND c.ts = raw.b
	           WHERE c.value IS DISTINCT FROM raw.s) $$;
	-- quantiles of every cell outside 1% of percentile_disc over the log
	CREATE FUNCTION dds_bound() RETURNS bigint LANGUAGE sql AS $$
	  SELECT count(*) FROM (SELECT row_key, value FROM s WHERE family = 'p') c,
	         unnest(ARRAY[0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1]) q,
	         LATERAL (SELECT percentile_disc(q) WITHIN GROUP (ORDER BY x) AS e FROM log WHERE k = c.row_key) e
	   WHERE abs(wide.quantile(c.value, q) - e.e) > 0.01 * abs(e.e) $$;
});

my $dir = $node->basedir;
open my $fh, '>', "$dir/write.sql" or die;
print $fh q{\set k random(1, 12)
\set kind random(0, 3)
\set shape random(0, 3)
\set abort random(0, 3)
\set h random(1, 5)
BEGIN;
WITH v AS (SELECT 'k' || :k AS k, CASE :shape WHEN 0 THEN random() * 1000
                                  WHEN 1 THEN exp(random() * 36.8 - 18.4)
                                  WHEN 2 THEN -exp(random() * 10)
                                  ELSE 0 END AS x),
     l AS (INSERT INTO log SELECT k, x FROM v RETURNING k, x)
SELECT CASE :kind
  WHEN 0 THEN wide.add_to_cell('s', k, 'p', 'q', 0, x)::text
  WHEN 1 THEN wide.merge_to_cell('s', k, 'p', 'q', 0, (SELECT wide.ddsketch_agg(y) FROM (VALUES (x)) v(y)))::text
  WHEN 2 THEN wide.mutate_row('s', k, jsonb_build_array(jsonb_build_object('add_to_cell',
                jsonb_build_object('family_name', 'p', 'column_qualifier', 'q', 'timestamp_micros', 0,
                                   'input', x))))::text
  ELSE wide.add_to_cell('s', k, 'p', 'q', 0, float8send(x))::text END
  FROM l;
INSERT INTO s SELECT 'host' || :h || '#' || id, 'm', 'v', id * 997000, int8send((random() * 2000000 - 1000000)::int8)
  FROM (SELECT nextval('ids') AS id FROM generate_series(1, 3)) g;
\if :abort = 0
ROLLBACK;
\else
COMMIT;
\endif
};
close $fh;
open $fh, '>', "$dir/maint.sql" or die;
print $fh q{SELECT FROM wide.compact('s');
SELECT pg_sleep(0.2);
SELECT FROM wide.compact('s', true);
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
my $inputs = $node->safe_psql('postgres', 'SELECT count(*) FROM log');
diag("$inputs committed sketch inputs");
cmp_ok($inputs, '>', 50, 'inputs committed');
is($node->safe_psql('postgres', 'SELECT dds_diff()'), '0',
	'every cell is the sketch of its committed inputs, byte for byte');
is($node->safe_psql('postgres', 'SELECT dds_bound()'), '0', 'every quantile within 1%');
$node->safe_psql('postgres', q{SELECT FROM wide.compact('s', true)});
is($node->safe_psql('postgres', 'SELECT dds_diff()'), '0', 'and after a major compaction');
is($node->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('s')}), '0', 'verify')
  or diag($node->safe_psql('postgres', q{SELECT * FROM wide.verify('s')}));

# a crash (immediate stop) while the writers and compactions run: after
# recovery every cell is still the sketch of its committed inputs
my $before_crash = $node->safe_psql('postgres', 'SELECT count(*) FROM log');
($wout, $werr, $mout, $merr) = ('', '', '', '');
$writers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', 3, '-T', 60, '-f', "$dir/write.sql", @conn ],
	'>', \$wout, '2>', \$werr);
$maint = IPC::Run::start(
	[ 'pgbench', '-n', '-c', 1, '-T', 60, '-f', "$dir/maint.sql", @conn ],
	'>', \$mout, '2>', \$merr);
$node->poll_query_until('postgres', "SELECT count(*) > $before_crash + 30 FROM log")
  or die 'no writes before the crash';
$node->stop('immediate');
$writers->finish;
$maint->finish;
$node->start;
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM log'), '>', $before_crash,
	'inputs committed before the crash');
is($node->safe_psql('postgres', 'SELECT dds_diff()'), '0',
	'after a crash during writes and compactions: every cell exact');
is($node->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('s')}), '0', 'verify after the crash')
  or diag($node->safe_psql('postgres', q{SELECT * FROM wide.verify('s')}));

# the standby reads the same sketches
my $cells = q{SELECT md5(string_agg(row_key || family || qualifier || ts || encode(value, 'hex'), ','
	ORDER BY row_key, family, qualifier, ts)) FROM s WHERE family <> 'm'};
my $before = $node->safe_psql('postgres', $cells);
$node->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $cells), $before, 'the standby reads the same sketches');
is($standby->safe_psql('postgres', 'SELECT dds_diff()'), '0', 'which are exact there too');

# dump and restore: the sketches come back as they were
command_ok([ 'pg_dump', '-Fc', '-f', "$dir/s.dump", @conn ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE r1');
command_ok([ 'pg_restore', '-d', 'r1', '-h', $node->host, '-p', $node->port, "$dir/s.dump" ],
	'pg_restore');
is($node->safe_psql('r1', $cells), $before, 'restored: the same sketches');
is($node->safe_psql('r1', 'SELECT dds_diff()'), '0', 'restored: exact');

$standby->stop;
$node->stop;
done_testing();
