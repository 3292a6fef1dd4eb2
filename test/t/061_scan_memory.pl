# The Wide Scan's memory does not grow with rescans: a correlated subquery
# or the inner side of a nested loop rescans it once per outer row, and
# every rescan opens a reader per key.  Before, what each reader left
# behind stayed in the query's memory until the end of the statement
# (about 3.5 kB per rescan of an IN list: 200,000 rescans took 750 MB).
#
# Measured as the backend's peak resident size (VmHWM, Linux /proc).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'needs /proc/self/status' unless -r '/proc/self/status';

my $node = PostgreSQL::Test::Cluster->new('scanmem');
$node->init;
# jit off: 30000 rescans cost enough to be compiled, and LLVM's memory
# would count as the scan's
$node->append_conf('postgresql.conf', "autovacuum = off\njit = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE r (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('r', 'cf');
	INSERT INTO r SELECT 'k' || i, 'cf', 'q' || j, 1, 'v' FROM generate_series(1, 30) i, generate_series(1, 3) j;
	SELECT FROM wide.compact('r', true);
	INSERT INTO r SELECT 'k' || i, 'cf', 'w', 1, 'v' FROM generate_series(1, 30) i;
});

# peak resident kB of a backend after running sql
sub peak_kb
{
	my ($sql) = @_;
	my $out = $node->safe_psql('postgres', "$sql;
		SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+) kB')");
	my @lines = split /\n/, $out;
	return $lines[-1];
}

my $n = 30000;
my $base = peak_kb('SELECT count(*) FROM r');
my $in = peak_kb("SELECT sum((SELECT count(*) FROM r WHERE row_key = ANY(ARRAY['k1', 'k' || (g % 30)])
	AND length(upper(qualifier || repeat('zyxw', 500))) > 0)) FROM generate_series(1, $n) g");
my $range = peak_kb("SELECT sum((SELECT count(*) FROM r WHERE row_key >= 'k' || (g % 30)
	AND row_key < 'k' || (g % 30) || 'z')) FROM generate_series(1, $n) g");
# lists of ranges: an OR, and split_part = ANY built when each rescan starts
my $list = peak_kb("SELECT sum((SELECT count(*) FROM r WHERE (row_key = 'k' || (g % 30)
	OR (row_key >= 'k1' AND row_key < 'k12') OR row_key ^@ 'k2')
	AND split_part(row_key, '#', 1) = ANY(ARRAY['k1', 'k' || (g % 30), 'k20', 'k25', 'k3'])))
	FROM generate_series(1, $n) g");
note "peak kB: $base at rest, $in after $n IN-list rescans, $range after $n range rescans, "
  . "$list after $n range-list rescans";
cmp_ok($in - $base, "<", 32 * 1024, "$n rescans of an IN list stay within 32 MB");
cmp_ok($range - $base, "<", 32 * 1024, "$n rescans of a key range stay within 32 MB");
cmp_ok($list - $base, "<", 32 * 1024, "$n rescans of a list of ranges stay within 32 MB");

$node->stop;
done_testing();
