# pg_dump and pg_restore of wide tables: families come back with CREATE
# TABLE (before the data that needs them) and every cell is restored.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE SCHEMA aaa;   -- sorts before "wide": its data is restored first
	CREATE TABLE aaa.metric (row_key text, family text, qualifier text,
	                         ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('aaa.metric', 'm', max_versions => 2, max_age => '3650 days');
	SELECT wide.create_family('aaa.metric', 'old');
	INSERT INTO aaa.metric SELECT 'host' || (i % 10) || '#' || i, 'm', 'cpu',
	       now() - i * interval '1 minute', i / 10.0 FROM generate_series(1, 3000) i;
	INSERT INTO aaa.metric SELECT 'host1#1', 'm', 'cpu', now() - i * interval '1 second', i
	  FROM generate_series(1, 5) i;
	SELECT wide.drop_family('aaa.metric', 'old');
	SELECT wide.create_family('aaa.metric', 'old');
	INSERT INTO aaa.metric VALUES ('host0#0', 'old', 'x', now(), 42);
	CREATE TABLE public.counts (row_key text, family text, qualifier text,
	                            ts int8, value int8) USING wide;
	SELECT wide.create_family('counts', 'n', aggregate => 'sum');
	INSERT INTO counts SELECT 'k' || (i % 3), 'n', 'c', 0, i FROM generate_series(1, 100) i;
	CREATE TABLE public.visits (row_key text, family text, qualifier text,
	                            ts timestamptz, value bytea) USING wide;
	SELECT wide.create_family('visits', 'u', aggregate => 'hll');
	SELECT count(*) FROM (SELECT wide.add_to_cell('visits', 'store' || (i % 3), 'u', 'v',
	                                              '2030-01-01', 'visitor' || i)
	                        FROM generate_series(1, 20000) i) s;
	SELECT wide.add_to_cell('visits', 'small', 'u', 'v', '2030-01-01', 'one visitor');
	-- tablets: a parent split by row-key ranges, families set on the parent
	CREATE TABLE public.tab (row_key text COLLATE "C", family text COLLATE "C",
	                         qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	CREATE TABLE public.tab_a PARTITION OF tab FOR VALUES FROM (MINVALUE) TO ('h') USING wide;
	CREATE TABLE public.tab_h PARTITION OF tab FOR VALUES FROM ('h') TO (MAXVALUE) USING wide;
	SELECT wide.create_family('tab', 'm', max_versions => 2);
	INSERT INTO tab SELECT chr(97 + i % 26) || i, 'm', 'q', i % 5, i FROM generate_series(1, 2000) i;
});
$node->safe_psql('postgres', 'CREATE DATABASE restored');

my $q = q{SELECT count(*), md5(string_agg(row_key || family || qualifier || ts || value, ',')) FROM %s};
my $before = $node->safe_psql('postgres', sprintf($q, 'aaa.metric'));
my $before_n = $node->safe_psql('postgres', sprintf($q, 'counts'));
my $before_v = $node->safe_psql('postgres', sprintf($q, 'visits'));
my $fams = $node->safe_psql('postgres', q{SELECT * FROM wide.families('aaa.metric')});
my $tq = q{SELECT tableoid::regclass, count(*), md5(string_agg(row_key || family || qualifier || ts || value, ',' ORDER BY row_key, ts)) FROM tab GROUP BY 1 ORDER BY 1};
my $before_t = $node->safe_psql('postgres', $tq);
my $tf = q{SELECT p, f.* FROM unnest(ARRAY['tab', 'tab_a', 'tab_h']) p, wide.families(p::regclass) f ORDER BY 1};
my $tfams = $node->safe_psql('postgres', $tf);

my $dump = $node->basedir . '/wide.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
	'pg_dump');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ],
	'pg_restore, no errors');

is($node->safe_psql('restored', sprintf($q, 'aaa.metric')), $before, 'cells restored');
is($node->safe_psql('restored', sprintf($q, 'counts')), $before_n, 'aggregate cells restored');
is($node->safe_psql('restored', sprintf($q, 'visits')), $before_v,
	'HyperLogLog sketches restored byte for byte');
is($node->safe_psql('restored', q{SELECT * FROM wide.families('aaa.metric')}), $fams,
	'families restored');
is($node->safe_psql('restored', $tq), $before_t, 'tablets restored, each cell in its tablet');
is($node->safe_psql('restored', $tf), $tfams, 'families of the parent and its tablets restored');

# a plain-format dump replayed with psql works too
my $plain = $node->basedir . '/wide.sql';
$node->command_ok([ 'pg_dump', '-f', $plain, '-d', $node->connstr('postgres') ], 'plain pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored2');
$node->command_ok([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-q', '-f', $plain,
	'-d', $node->connstr('restored2') ], 'psql replays the plain dump');
is($node->safe_psql('restored2', sprintf($q, 'aaa.metric')), $before, 'cells restored from plain dump');
is($node->safe_psql('restored2', sprintf($q, 'visits')), $before_v, 'sketches restored from plain dump');

$node->stop;
done_testing();
