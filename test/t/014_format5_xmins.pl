# A table of on-disk format version 5 (every record of a data block stores
# its xmin and cmin) reads, compacts, freezes and verifies the same under
# this build, which writes format version 6's blocks (a data block whose
# records share one xmin and cmin stores them once, in its index entry:
# WIDE_INDEX_ONE_XMIN, docs/format.md) and marks tables version 7.
#
# The version 5 table is written by this build with wide.block_one_xmin =
# off, which writes data blocks exactly as format version 5 did, and its
# metapage is then marked version 5 on disk (server stopped, no data
# checksums), as a table an older build left behind.  A twin loaded the
# same way with the setting on is the version 6 table.  Both hold a
# committed load, an aborted one (its cells must never show) and a load
# whose cells a cursor opened before it must not see (cmin).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('format5');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
is($node->safe_psql('postgres', 'SHOW data_checksums'), 'off',
	'no data checksums (the metapage is patched in place)');

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t5 (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	CREATE TABLE t6 (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('t5', 'm'), wide.create_family('t6', 'm');
});

# each load is a bulk run (INSERT ... SELECT above wide.statement_run_size)
sub load
{
	my ($t, $one, $from, $to, $abort) = @_;
	my $ins = "INSERT INTO $t SELECT 'host' || (i % 20) || '#' || (1000000 + i), 'm', 'q' || q,
		to_timestamp(1000000 + i), (i * 7 + q) % 1000 / 100.0
		FROM generate_series($from, $to) i, generate_series(1, 5) q ORDER BY i, q";
	return $node->safe_psql('postgres', qq{
		SET wide.block_one_xmin = $one;
		BEGIN;
		$ins;
		} . ($abort ? 'ROLLBACK;' : 'COMMIT;'));
}
for my $t ([ 't5', 'off' ], [ 't6', 'on' ])
{
	load($t->[0], $t->[1], 1, 6000, 0);
	load($t->[0], $t->[1], 6001, 9000, 1);    # aborted
	# a cursor opened before a load in its transaction does not see it
	my $r = $node->safe_psql('postgres', qq{
		SET wide.block_one_xmin = $t->[1];
		BEGIN;
		DECLARE c CURSOR FOR SELECT count(*) FROM $t->[0];
		INSERT INTO $t->[0] SELECT 'host' || (i % 20) || '#' || (1000000 + i), 'm', 'q' || q,
			to_timestamp(1000000 + i), (i * 7 + q) % 1000 / 100.0
			FROM generate_series(9001, 12000) i, generate_series(1, 5) q ORDER BY i, q;
		FETCH c;
		SELECT count(*) FROM $t->[0];
		COMMIT;});
	is($r, "30000\n45000", "$t->[0]: a cursor opened before the load sees none of it, the next command all");
}
my $content = "SELECT count(*), sum(value), min(row_key), max(row_key), count(DISTINCT qualifier)";
my $want = $node->safe_psql('postgres', "$content FROM t6");
is($want, '45000|224775|host0#1000020|host9#1011989|5', 'the version 6 table holds the committed loads');
is($node->safe_psql('postgres', "$content FROM t5"), $want, 'the version 5 table holds the same');

# mark t5's metapage version 5, as an older build left it
my $path = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('t5')");
$node->stop;
sub meta_version
{
	open my $fh, '+<:raw', $path or die "$path: $!";
	seek $fh, 24, 0;    # PageHeaderData, then magic:u32 version:u32
	read $fh, my $b, 8;
	my ($magic, $version) = unpack('VV', $b);
	die "not a wide metapage" unless $magic == 0x57494445;
	if (@_)
	{
		seek $fh, 28, 0;
		print $fh pack('V', $_[0]);
	}
	close $fh;
	return $version;
}
is(meta_version(), 7, 'this build writes format version 7');
meta_version(5);
$node->start;

is($node->safe_psql('postgres', "$content FROM t5"), $want, 'the format 5 table reads the same');
is($node->safe_psql('postgres', "SELECT count(*) FROM t5 WHERE row_key >= 'host3#' AND row_key < 'host4#'"),
	$node->safe_psql('postgres', "SELECT count(*) FROM t6 WHERE row_key >= 'host3#' AND row_key < 'host4#'"),
	'... and a key range the same');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t5')"), '0', 'verify finds nothing wrong');

# a write to it (a new run), then the merges of VACUUM: old and new blocks
load('t5', 'on', 12001, 13000, 0);
load('t6', 'on', 12001, 13000, 0);
$node->safe_psql('postgres', 'VACUUM t5; VACUUM t6');
$want = $node->safe_psql('postgres', "$content FROM t6");
is($node->safe_psql('postgres', "$content FROM t5"), $want, 'after a load and VACUUM, the same');
# (VACUUM passed blocks of both through: t5's keep their stored xmins)
cmp_ok($node->safe_psql('postgres', "SELECT raw_bytes FROM wide.stats('t6')"), '<',
	$node->safe_psql('postgres', "SELECT raw_bytes FROM wide.stats('t5')"),
	'the version 6 blocks store no xmin per record');
$node->safe_psql('postgres', "SELECT txid_current()") for 1 .. 10;
my $age = "SELECT age(relfrozenxid) FROM pg_class WHERE oid = 't5'::regclass";
my $age_before = $node->safe_psql('postgres', $age);
$node->safe_psql('postgres', 'VACUUM (FREEZE) t5; VACUUM (FREEZE) t6');
cmp_ok($node->safe_psql('postgres', $age), '<', $age_before, 'VACUUM (FREEZE) advances relfrozenxid');
# (no run holds an xid older than its table's relfrozenxid)
for my $t ('t5', 't6')
{
	is($node->safe_psql('postgres', qq{
		SELECT bool_and(r.oldest_xid IS NULL OR age(r.oldest_xid) <= age(c.relfrozenxid))
		  FROM wide.runs('$t') r, pg_class c WHERE c.oid = '$t'::regclass}),
		't', "$t: no run's xid is older than relfrozenxid");
}
is($node->safe_psql('postgres', "$content FROM t5"), $want, 'frozen, the same');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t5')"), '0', 'verify finds nothing wrong');
$node->stop;
is(meta_version(), 7, 'the table is version 7 after this build wrote to it');
done_testing();
