# Single-row DELETEs (row tombstones numbered before their count,
# am/rangedel.c WideKeysDelete) racing writers of the same rows, each
# other, and flushes and compactions (issue 28 item 4).
#
# Writers insert cells with unique qualifiers into 30 rows (some roll
# back); deleters, in REPEATABLE READ, log their snapshot and delete a row
# or an IN list of rows (100 a second, for the first half of the run, so
# that cells written while the last ones run outlive them), most of them
# held up to 30 ms between their count and their append
# (wide.debug_pause); a fourth pgbench loops compactions and VACUUMs
# (flushes seal the write area under the deletes).  Afterwards every
# committed cell must be there exactly when no committed delete of its row
# saw it -- what a heap would do: a cell lost (a tombstone deleting a
# write its count did not see) or one kept that a delete saw are both
# errors -- and wide.verify finds nothing.  WIDE_STRESS_SECONDS (default
# 6) sets the length.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $seconds = $ENV{WIDE_STRESS_SECONDS} // 6;

my $node = PostgreSQL::Test::Cluster->new('rowdelrace');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wide.flush_threshold = 16
max_connections = 20
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('w', 'f');
	INSERT INTO w SELECT 'r' || lpad(k::text, 2, '0'), 'f', 'seed' || q, 1, q
	  FROM generate_series(0, 29) k, generate_series(1, 20) q;
	SELECT wide.compact('w', major => true);
	CREATE TABLE ins (xid xid8, row_key text, qualifier text);
	CREATE TABLE dels (row_key text, snap pg_snapshot);
	-- the seed cells, as written by a transaction every snapshot sees
	INSERT INTO ins SELECT '3'::xid8, row_key, qualifier FROM w;
});

my $dir = $node->basedir;
open my $fh, '>', "$dir/write.sql" or die;
print $fh q{\set k random(0, 29)
\set q random(1, 1000000000)
\set a random(1, 10)
BEGIN;
INSERT INTO w VALUES ('r' || lpad(:k::text, 2, '0'), 'f', 'q' || :q || 'x' || pg_current_xact_id(), 2, :q);
INSERT INTO ins VALUES (pg_current_xact_id(), 'r' || lpad(:k::text, 2, '0'), 'q' || :q || 'x' || pg_current_xact_id());
\if :a = 1
ROLLBACK;
\else
COMMIT;
\endif
};
close $fh;
open $fh, '>', "$dir/delete.sql" or die;
print $fh q{\set k random(0, 29)
\set j random(0, 29)
\set a random(1, 3)
SET wide.debug_pause = 'keysdel-numbered';
BEGIN ISOLATION LEVEL REPEATABLE READ;
\if :a = 1
INSERT INTO dels SELECT row_key, pg_current_snapshot()
  FROM unnest(ARRAY['r' || lpad(:k::text, 2, '0'), 'r' || lpad(:j::text, 2, '0')]) row_key;
DELETE FROM w WHERE row_key IN ('r' || lpad(:k::text, 2, '0'), 'r' || lpad(:j::text, 2, '0'));
\else
INSERT INTO dels VALUES ('r' || lpad(:k::text, 2, '0'), pg_current_snapshot());
DELETE FROM w WHERE row_key = 'r' || lpad(:k::text, 2, '0');
\endif
COMMIT;
};
close $fh;
# most of the time, a delete waits up to 30 ms between its count and its append
open $fh, '>', "$dir/pause.sql" or die;
print $fh q{SELECT pg_advisory_lock(2003395686, 2);
SELECT pg_sleep(0.03);
SELECT pg_advisory_unlock(2003395686, 2);
SELECT pg_sleep(0.01);
};
close $fh;
open $fh, '>', "$dir/maint.sql" or die;
print $fh q{SELECT FROM wide.compact('w');
VACUUM w;
};
close $fh;

# the DELETEs go by row tombstones (not cell by cell): EXPLAIN says so
like($node->safe_psql('postgres', q{BEGIN;
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	DELETE FROM w WHERE row_key IN ('r00', 'r01'); ROLLBACK}),
	qr/Range Delete: 2 row or range tombstones, 40 cells/, 'row tombstones');

my @conn = ('-h', $node->host, '-p', $node->port, 'postgres');
my ($wout, $werr, $dout, $derr, $mout, $merr) = ('', '', '', '', '', '');
my $writers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '3', '-T', $seconds, '-f', "$dir/write.sql", @conn ],
	'>', \$wout, '2>', \$werr);
my $deleters = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-R', '100', '-T', int($seconds / 2), '-f', "$dir/delete.sql", @conn ],
	'>', \$dout, '2>', \$derr);
my ($pout, $perr) = ('', '');
my $pauser = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '1', '-T', $seconds, '-f', "$dir/pause.sql", @conn ],
	'>', \$pout, '2>', \$perr);
my $maint = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '1', '-T', $seconds, '-f', "$dir/maint.sql", @conn ],
	'>', \$mout, '2>', \$merr);
$writers->finish;
$deleters->finish;
$maint->finish;
$pauser->finish;

my ($wdone) = $wout =~ /number of transactions actually processed: (\d+)/;
my ($ddone) = $dout =~ /number of transactions actually processed: (\d+)/;
my ($mdone) = $mout =~ /number of transactions actually processed: (\d+)/;
note("writes: " . ($wdone // '?') . ", deletes: " . ($ddone // '?')
	  . ", maintenance rounds: " . ($mdone // '?'));
ok($wdone && $wdone > 0, 'the writers ran') or diag($werr);
ok($ddone && $ddone > 0, 'the deleters ran') or diag($derr);
ok($mdone && $mdone > 0, 'compactions and VACUUMs ran') or diag($merr);
unlike($werr . $derr . $merr, qr/ERROR/, 'no statement failed') or diag($werr . $derr . $merr);

# a committed cell is there exactly when no committed delete of its row saw it
my $check = q{
	SELECT count(*) FILTER (WHERE present AND seen) AS kept_though_deleted,
	       count(*) FILTER (WHERE NOT present AND NOT seen) AS lost,
	       count(*) FILTER (WHERE NOT present) AS deleted,
	       count(*) AS cells
	  FROM (SELECT p.qualifier IS NOT NULL AS present,
	               EXISTS (SELECT 1 FROM dels d WHERE d.row_key = i.row_key
	                         AND pg_visible_in_snapshot(i.xid, d.snap)) AS seen
	          FROM ins i LEFT JOIN (SELECT row_key, qualifier FROM w) p
	            ON p.row_key = i.row_key AND p.qualifier = i.qualifier) x};
my $res = $node->safe_psql('postgres', $check);
note("kept though deleted | lost | deleted | cells: $res");
my ($kept, $lost, $deleted, $cells) = split /\|/, $res;
is($lost, '0', 'no committed cell is lost');
is($kept, '0', 'no cell a delete saw is left');
ok($deleted > 0 && $deleted < $cells, 'some cells deleted, some kept');
is($node->safe_psql('postgres', q{SELECT count(*) FROM w}),
	$node->safe_psql('postgres', q{SELECT count(*) FROM ins i WHERE NOT EXISTS
		(SELECT 1 FROM dels d WHERE d.row_key = i.row_key AND pg_visible_in_snapshot(i.xid, d.snap))}),
	'no other cell');
$node->safe_psql('postgres', q{VACUUM w});
is($node->safe_psql('postgres', $check), $res, 'the same after VACUUM');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('w')"), '0',
	'wide.verify finds nothing');

done_testing();
