# Upgrades: a database that created wide 0.1 and filled tables runs ALTER
# EXTENSION wide UPDATE and reads every cell back; the upgraded extension
# then has exactly the objects (functions, with their definitions) a fresh
# CREATE EXTENSION of the new version has.  And a table whose metapage
# carries an on-disk format version this build does not know fails with a
# clear error instead of being misread.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;

my $new = $node->safe_psql('postgres',
	"SELECT default_version FROM pg_available_extensions WHERE name = 'wide'");
isnt($new, '0.1', "the default version ($new) is newer than 0.1");

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide VERSION '0.1';
	CREATE TABLE m (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('m', 'cpu', max_versions => 2);
	SELECT wide.create_family('m', 'mem', max_age => '3650 days');
	INSERT INTO m SELECT 'host' || h || '#' || t, 'cpu', 'usr', '2030-01-01'::timestamptz + t * interval '1 min', h + t / 10.0
	  FROM generate_series(1, 20) h, generate_series(1, 200) t;
	SELECT FROM wide.compact('m', major => true);
	INSERT INTO m SELECT 'host' || h || '#' || t, 'mem', 'used', '2030-01-01'::timestamptz, h * t
	  FROM generate_series(1, 20) h, generate_series(1, 50) t;
	SELECT wide.delete_row('m', 'host3#7');
	CREATE TABLE c (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('c', 'n', aggregate => 'sum');
	SELECT wide.add_to_cell('c', 'hits', 'n', 'x', 1000, i) FROM generate_series(1, 100) i;
	SELECT wide.mutate_row('c', 'hits', '[{"add_to_cell": {"family_name": "n", "column_qualifier": "y", "timestamp_micros": 1000, "input": 5}}]');
});
my $cells_q = "SELECT count(*), md5(string_agg(m::text, ',' ORDER BY row_key, family, qualifier, ts)) FROM m";
my $agg_q = "SELECT string_agg(c::text, ',' ORDER BY qualifier) FROM c";
my $cells = $node->safe_psql('postgres', $cells_q);
my $aggs = $node->safe_psql('postgres', $agg_q);

$node->safe_psql('postgres', 'ALTER EXTENSION wide UPDATE');
is($node->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'wide'"),
	$new, "ALTER EXTENSION wide UPDATE goes to $new");
is($node->safe_psql('postgres', $cells_q), $cells, 'every cell reads back after the update');
is($node->safe_psql('postgres', $agg_q), $aggs, 'aggregates read back after the update');
$node->safe_psql('postgres', q{
	INSERT INTO m VALUES ('host1#9999', 'cpu', 'usr', '2031-01-01', 1);
	SELECT FROM wide.compact('m', major => true);
	SELECT wide.create_family('m', 'nested', gc_rule => '{"union": [{"max_num_versions": 1}, {"max_age": "1s"}]}');
});
is($node->safe_psql('postgres', "SELECT count(*) FROM m"), (split /\|/, $cells)[0] + 1,
	'writes, compaction and the new version\'s functions work on the old tables');

# the upgraded extension equals a fresh one: same objects, same definitions,
# same EXECUTE privileges
my $objects = q{
	SELECT string_agg(d, E'\n' ORDER BY d) FROM (
	  SELECT pg_describe_object(classid, objid, 0) || ' ' ||
	         coalesce((SELECT md5(CASE WHEN p.prokind = 'a'
	                                   THEN (SELECT row(a.*)::text FROM pg_aggregate a WHERE a.aggfnoid = p.oid)
	                                   ELSE pg_get_functiondef(p.oid) END
	                              || coalesce(obj_description(p.oid, 'pg_proc'), '')
	                              || coalesce(p.proacl::text, ''))
	                     FROM pg_proc p WHERE classid = 'pg_proc'::regclass AND p.oid = objid), '') AS d
	    FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	     AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')) s};
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION wide');
my $fresh = $node->safe_psql('fresh', $objects);
my $upgraded = $node->safe_psql('postgres', $objects);
is($upgraded, $fresh, 'the upgraded extension has the objects and definitions of a fresh one');
if ($upgraded ne $fresh)
{
	my %f = map { $_ => 1 } split /\n/, $fresh;
	my %u = map { $_ => 1 } split /\n/, $upgraded;
	diag("only after the update: $_") for grep { !$f{$_} } sort keys %u;
	diag("only in a fresh install: $_") for grep { !$u{$_} } sort keys %f;
}

# an unknown on-disk format version is refused with a clear error
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c')");
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
open(my $fh, '+<:raw', $file) or die "open $file: $!";
seek($fh, 28, 0);	# block 0: page header (24 bytes), magic, then version
my $old;
read($fh, $old, 4);
seek($fh, 28, 0);
print $fh pack('L', 99);
close($fh);
$node->start;
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM c');
like($err, qr/wide table "c" has on-disk format version 99/, 'an unknown format version is refused');
like($err, qr/This version of wide reads format version/, '... and the error says which it reads');
$node->stop;
open($fh, '+<:raw', $file) or die "open $file: $!";
seek($fh, 28, 0);
print $fh $old;
close($fh);
$node->start;
is($node->safe_psql('postgres', $agg_q), $aggs, 'the table reads again with its version restored');
$node->stop;
done_testing();
