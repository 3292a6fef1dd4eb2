# Range deletes (issue 28 item 4): a DELETE of a key range is one range
# tombstone in the metapage.  It is WAL-logged like any write: a crash right
# after its commit, a crash while VACUUM drops the runs it hides (after one
# of several) and one just before VACUUM retires it all leave exactly the
# cells a heap table holding the same cells leaves; a streaming standby
# reads the same; logical decoding receives one DELETE per deleted cell.
# Single rows and IN lists (row tombstones in the write area): a crash
# between them and the commit deletes nothing, also after one was taken
# back for a concurrent writer; committed, they survive a crash and reach
# the standby and logical decoding.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('rd_primary');
$primary->init(allows_streaming => 'logical');
$primary->append_conf('postgresql.conf', qq{
autovacuum = off
shared_preload_libraries = 'wide'
wide.compaction_ratio = 1.0
restart_after_crash = on
max_prepared_transactions = 5
});
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f');
	CREATE TABLE h (row_key text COLLATE "C", family text, qualifier text, ts int8, value text);
	INSERT INTO h SELECT 'r' || lpad((i % 1000)::text, 4, '0'), 'f', 'q' || (i % 7), i, md5(i::text)
	  FROM generate_series(1, 30000) i;
});
# several runs, each of a stretch of keys (so that VACUUM can drop some
# whole), each smaller than the one before (so that compaction keeps them)
for my $s ([0, 400], [400, 650], [650, 850], [850, 1000])
{
	my ($a, $b) = map { sprintf("r%04d", $_) } @$s;
	$primary->safe_psql('postgres', qq{
		INSERT INTO t SELECT * FROM h WHERE row_key >= '$a' AND row_key < '$b';
		SELECT wide.compact('t');
	});
}
$primary->safe_psql('postgres', q{VACUUM t});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM wide.runs('t')}), '4', 'four runs');

$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('rd_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq{shared_preload_libraries = 'wide'});
$standby->start;

my $differ = q{
	SELECT count(*) FROM ((SELECT * FROM t EXCEPT ALL SELECT * FROM h)
	                      UNION ALL (SELECT * FROM h EXCEPT ALL SELECT * FROM t)) x};
my $query = q{SELECT count(*), md5(string_agg(row_key || '/' || qualifier || '/' || ts, ',' ORDER BY row_key, qualifier, ts)) FROM t};

sub same_as_heap
{
	my ($what) = @_;
	is($primary->safe_psql('postgres', $differ), '0', "$what: the cells of the heap table");
	is($primary->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
		"$what: verify finds nothing wrong");
}

sub killed_vacuum
{
	my ($point) = @_;
	my $log_offset = -s $primary->logfile;
	my ($ret) = $primary->psql('postgres', "SET wide.debug_crash = '$point'; VACUUM t");
	isnt($ret, 0, "$point: the VACUUM did not finish");
	for (1 .. 180)
	{
		last if eval { $primary->safe_psql('postgres', 'SELECT 1') eq '1' };
		sleep 1;
	}
	ok($primary->log_contains(qr/wide.debug_crash: killing this backend at "$point"/,
			$log_offset), "$point: killed there");
}

# logical decoding: one DELETE per cell
$primary->safe_psql('postgres',
	q{SELECT pg_create_logical_replication_slot('rd', 'test_decoding')});

# a range delete, committed, then a crash (immediate stop: no checkpoint)
my $plan = $primary->safe_psql('postgres', q{
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	DELETE FROM t WHERE row_key >= 'r0380' AND row_key < 'r0870'});
like($plan, qr/Range Delete: one range tombstone/, 'the delete is one range tombstone');
$primary->safe_psql('postgres', q{DELETE FROM h WHERE row_key >= 'r0380' AND row_key < 'r0870'});
my $deleted = $primary->safe_psql('postgres',
	q{SELECT count(*) FROM pg_logical_slot_get_changes('rd', NULL, NULL)
	   WHERE data LIKE 'table public.t: DELETE:%'});
is($deleted, 30000 / 1000 * 490, 'logical decoding has a DELETE per deleted cell');
$primary->stop('immediate');
$primary->start;
same_as_heap('after a crash right after the commit');

# VACUUM drops the runs it hides: a crash after the first, then before retiring
killed_vacuum('rangedel-drop');
same_as_heap('after a crash while VACUUM drops the hidden runs');
killed_vacuum('rangedel-retire');
same_as_heap('after a crash before VACUUM retires the tombstone');
$primary->safe_psql('postgres', q{VACUUM t});
same_as_heap('after VACUUM');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM wide.runs('t')}), '2',
	'the runs the tombstone hid are gone');

# the standby reads the same cells
my $want = $primary->safe_psql('postgres', $query);
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $query), $want, 'the standby reads the same cells');

# single rows and IN lists: row tombstones in the write area
# (am/rangedel.c WideKeysDelete), numbered, counted, then written, without
# a subtransaction.  A crash after they are numbered, before they are
# written, or after, before the commit: nothing is deleted.
sub killed_delete
{
	my ($point, $sql) = @_;
	my $log_offset = -s $primary->logfile;
	my ($ret) = $primary->psql('postgres', "BEGIN; SET LOCAL wide.debug_crash = '$point'; $sql; COMMIT");
	isnt($ret, 0, "$point: the DELETE did not finish");
	for (1 .. 180)
	{
		last if eval { $primary->safe_psql('postgres', 'SELECT 1') eq '1' };
		sleep 1;
	}
	ok($primary->log_contains(qr/wide.debug_crash: killing this backend at "$point"/,
			$log_offset), "$point: killed there");
}
killed_delete('keysdel-numbered',
	q{DELETE FROM t WHERE row_key = 'r0100'; DELETE FROM t WHERE row_key IN ('r0101', 'r0102')});
same_as_heap('after a crash between numbering the row tombstones and their append');
killed_delete('keysdel-written',
	q{DELETE FROM t WHERE row_key = 'r0100'; DELETE FROM t WHERE row_key IN ('r0101', 'r0102')});
same_as_heap('after a crash between row tombstones and the commit');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM t WHERE row_key IN ('r0100', 'r0101', 'r0102')}),
	'90', 'the rows are all there');

# the same, when a writer the DELETE's snapshot does not see wrote in the
# row first: the tombstone is not written, then the crash
my $writer = $primary->background_psql('postgres', on_error_stop => 0);
$writer->query_safe("BEGIN");
$writer->query_safe("INSERT INTO t VALUES ('r0103', 'f', 'open', 1, 'x')");
killed_delete('keysdel-cancelled', q{DELETE FROM t WHERE row_key = 'r0103'});
$writer->quit;
same_as_heap('after a crash after a row tombstone was taken back');

# committed row deletes, then a crash: exactly the heap's (the slot first
# drained: crashes made it hand out again what it had not checkpointed)
$primary->safe_psql('postgres', q{SELECT count(*) FROM pg_logical_slot_get_changes('rd', NULL, NULL)});
$plan = $primary->safe_psql('postgres', q{
	BEGIN;
	DELETE FROM t WHERE row_key = 'r0010';
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	DELETE FROM t WHERE row_key IN ('r0011', 'r0012', 'r0013') OR row_key = 'r0020';
	COMMIT});
like($plan, qr/Range Delete: 4 row or range tombstones, 120 cells/, 'row tombstones');
$primary->safe_psql('postgres', q{
	DELETE FROM h WHERE row_key IN ('r0010', 'r0011', 'r0012', 'r0013', 'r0020')});
is($primary->safe_psql('postgres',
	q{SELECT count(*) FROM pg_logical_slot_get_changes('rd', NULL, NULL)
	   WHERE data LIKE 'table public.t: DELETE:%'}), '150',
	'logical decoding has a DELETE per cell of the rows');
$primary->stop('immediate');
$primary->start;
same_as_heap('after a crash right after row deletes committed');
$want = $primary->safe_psql('postgres', $query);
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $query), $want, 'the standby reads the same cells after row deletes');
$primary->safe_psql('postgres', q{VACUUM t});
same_as_heap('after row deletes and VACUUM');

# prepared (two-phase) with row tombstones: a crash while prepared keeps
# the rows until COMMIT PREPARED
$primary->safe_psql('postgres', q{
	BEGIN;
	DELETE FROM t WHERE row_key = 'r0030';
	DELETE FROM t WHERE row_key IN ('r0031', 'r0032');
	PREPARE TRANSACTION 'rd'});
$primary->stop('immediate');
$primary->start;
same_as_heap('after a crash with row deletes prepared');
$primary->safe_psql('postgres', q{
	COMMIT PREPARED 'rd';
	DELETE FROM h WHERE row_key IN ('r0030', 'r0031', 'r0032')});
same_as_heap('after COMMIT PREPARED of row deletes');

# and a delete of everything, replayed
$primary->safe_psql('postgres', q{DELETE FROM t; DELETE FROM h; VACUUM t});
same_as_heap('after a delete of everything and VACUUM');
is($primary->safe_psql('postgres', q{SELECT runs FROM wide.stats('t')}), '0', 'no run left');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{SELECT count(*) FROM t}), '0', 'the standby reads nothing');

done_testing();
