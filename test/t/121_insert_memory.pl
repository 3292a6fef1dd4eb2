# The memory of a backend running one big INSERT ... SELECT into a wide
# table is bounded by wide.bulk_memory plus wide.block_cache_size (the
# flushes and compactions the statement runs read through it) plus a few
# MB, whatever the number of cells: the statement's cells are written as runs whenever the buffer
# fills (engine/pending.c), and what converting each row allocates is freed
# row by row.  Before, tuple_insert left about 20 bytes per cell in the
# query's memory (10M cells: 200 MB).
#
# Measured as the backend's peak resident size (VmHWM, Linux /proc).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'needs /proc/self/status' unless -r '/proc/self/status';

my $node = PostgreSQL::Test::Cluster->new('insertmem');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nshared_buffers = 2MB\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
	SELECT wide.create_family('w', 'f');
});

# peak resident kB of a backend after running sql
sub peak_kb
{
	my ($sql) = @_;
	my $out = $node->safe_psql('postgres', "SET wide.bulk_memory = '2MB'; SET wide.block_cache_size = '1MB'; $sql;
		SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+) kB')");
	my @lines = split /\n/, $out;
	return $lines[-1];
}

# (the source spills to a temporary file beyond work_mem in both cases)
my $ins = "INSERT INTO w SELECT 'k' || lpad((i / 10)::text, 8, '0') || '#' || (i %% 10), 'f',
	'q' || (i %% 20), 1, i * 0.5 FROM generate_series(0, %d - 1) i";
my $small = peak_kb(sprintf($ins, 200000));
my $big = peak_kb(sprintf($ins, 1000000));
note "peak kB: $small after 200,000 cells, $big after 1,000,000 cells";
cmp_ok($big - $small, "<", 8 * 1024, "800,000 more cells take less than 8 MB more memory");
cmp_ok($big, "<", 48 * 1024,
	"the whole backend (2 MB of shared buffers included) stays under 48 MB with wide.bulk_memory = 2MB");
# the second statement rewrote the first one's cells
is($node->safe_psql('postgres', "SELECT count(*) FROM w"), '1000000', 'every cell is there');

$node->stop;
done_testing();
