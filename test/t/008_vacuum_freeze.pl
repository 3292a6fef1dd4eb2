# VACUUM (FREEZE) of a wide table advances its relfrozenxid, and the cells
# read back the same, with the runs frozen (no oldest unfrozen xid).
#
# This lived in sql/segments.sql, where it failed on servers with other
# activity (autovacuum, a concurrent session holding back the xmin horizon);
# here the server is private and autovacuum is off, so the horizon is ours.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('freeze');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE f (row_key text, family text, qualifier text, ts timestamptz, value int) USING wide;
	SELECT wide.create_family('f', 'f');
	INSERT INTO f SELECT 'r' || i, 'f', 'q', '2030-01-01', i FROM generate_series(1, 1000) i;
});
my $age_before = $node->safe_psql('postgres',
	"SELECT age(relfrozenxid) FROM pg_class WHERE oid = 'f'::regclass");
$node->safe_psql('postgres', "SELECT txid_current()") for 1 .. 50;
$node->safe_psql('postgres', "VACUUM (FREEZE) f");
my $age_after = $node->safe_psql('postgres',
	"SELECT age(relfrozenxid) FROM pg_class WHERE oid = 'f'::regclass");
cmp_ok($age_after, '<', $age_before, "VACUUM (FREEZE) advanced relfrozenxid ($age_before -> $age_after)");
is($node->safe_psql('postgres', "SELECT count(*), sum(value) FROM f"),
	'1000|500500', 'the cells read back');
is($node->safe_psql('postgres', "SELECT bool_and(oldest_xid IS NULL) FROM wide.runs('f')"),
	't', 'every run is frozen');
$node->stop;
done_testing();
