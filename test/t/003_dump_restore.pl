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
});
$node->safe_psql('postgres', 'CREATE DATABASE restored');

my $q = q{SELECT count(*), md5(string_agg(row_key || family || qualifier || ts || value, ',')) FROM %s};
my $before = $node->safe_psql('postgres', sprintf($q, 'aaa.metric'));
my $before_n = $node->safe_psql('postgres', sprintf($q, 'counts'));
my $before_v = $node->safe_psql('postgres', sprintf($q, 'visits'));
my $fams = $node->safe_psql('postgres', q{SELECT * FROM wide.families('aaa.metric')});

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
