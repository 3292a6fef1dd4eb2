# In-doubt transactions on a node: a data API write whose local commit
# succeeded but whose COMMIT PREPARED on the node failed (the node's session
# is terminated while the coordinator waits for synchronous replication
# after its commit record; the wait is then cancelled).  Three ways the
# resolver used to decide from pg_xact_status alone, each of which lost the
# committed write:
# 1. a split of the tablet while it is in doubt: the old table on the node
#    was dropped (after the swap) with the write about to land in it;
# 2. a clone of the coordinator (same system identifier, promoted to
#    timeline 2) took the other's transaction for its own and, its own xid
#    of that number being aborted, rolled it back;
# 3. the coordinator's commit log no longer knows the xid (pg_resetwal -e
#    puts it two epochs back, as old as a truncation of pg_xact makes it):
#    pg_xact_status is NULL and the committed write was rolled back.
# Now every distributed commit writes a decision record in its local
# transaction, the GID names the coordinator by a random id made again at a
# new system identifier or timeline, and a split or move waits for (or
# refuses) prepared transactions that lock its tablet on the node.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use WideTablets;
use Test::More;
use IPC::Run;

$PostgreSQL::Test::Utils::timeout_default = 30;

my $coord = PostgreSQL::Test::Cluster->new('coord');
$coord->init(allows_streaming => 1);
$coord->append_conf('postgresql.conf', "max_prepared_transactions = 10\n");
$coord->start;
my $n1 = PostgreSQL::Test::Cluster->new('n1');
$n1->init;
$n1->append_conf('postgresql.conf', "max_prepared_transactions = 10\n");
$n1->start;
$_->safe_psql('postgres', 'CREATE EXTENSION wide') for ($coord, $n1);
my ($host, $port) = ($n1->host, $n1->port);
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER n1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER n1;
	CREATE TABLE dist (row_key text COLLATE "C", family text COLLATE "C",
	                   qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('dist', 'm');
	SELECT wide.create_tablets('dist', ARRAY['h'], ARRAY['local', 'n1']);
	INSERT INTO dist SELECT 'k' || i, 'm', 'q', 1, i FROM generate_series(1, 200) i;
	SELECT wide.set_cell('dist', 'k0', 'm', 'q', 1, 0);
	CREATE TABLE note (i int);
});
# (a first split makes the journal and the table of pauses)
$coord->safe_psql('postgres', q{CALL wide.split_tablet('dist', 'dist_1', 'c')});
is($n1->safe_psql('postgres', 'SELECT count(*) FROM pg_prepared_xacts'), '0', 'a data API write commits on the node');
like(($coord->psql('postgres', 'SELECT id FROM wide.remote_cluster WHERE current'))[1], qr/^[0-9a-f]{32}$/,
	'the coordinator named itself by a random id at its first distributed commit');
is($coord->safe_psql('postgres', 'SELECT count(*) FROM wide.resolve_tablets(\'n1\')'), '0', 'nothing to resolve');
is(($coord->psql('postgres', 'SELECT count(*) FROM wide.remote_commits'))[1], '0',
	'resolve_tablets forgets the records of finished transactions');

sub start_psql
{
	my ($node, @sql) = @_;
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), map { ('-c', $_) } @sql ],
		\$in, \$out, \$err);
	return { h => $h, out => \$out, err => \$err };
}

# a write by $sql on $node that commits there but whose COMMIT PREPARED on
# n1 fails; returns its GID on n1 (the write is in a transaction that
# writes here too: one that writes no WAL before its commit record does not
# wait for synchronous replication)
sub in_doubt_write
{
	my ($node, $sql) = @_;
	$node->safe_psql('postgres', q{
		ALTER SYSTEM SET synchronous_standby_names = 'nosuch';
		ALTER SYSTEM SET synchronous_commit = 'local';
		SELECT pg_reload_conf();
	});
	my $w = start_psql($node, 'SET synchronous_commit = on', "INSERT INTO note VALUES (1); $sql");
	$node->poll_query_until('postgres',
		q{SELECT EXISTS (SELECT FROM pg_stat_activity WHERE wait_event = 'SyncRep')})
	  or die 'the write does not wait for synchronous replication: '
	  . $node->safe_psql('postgres', q{SELECT string_agg(concat_ws(' ', pid, state, wait_event, query), E'\n') FROM pg_stat_activity})
	  . $n1->safe_psql('postgres', q{SELECT string_agg(concat_ws(' ', pid, state, wait_event, query), E'\n') FROM pg_stat_activity});
	$n1->safe_psql('postgres',
		q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wide'});
	$node->safe_psql('postgres',
		q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'});
	$w->{h}->finish;
	like(${ $w->{err} }, qr/did not finish prepared transaction/, 'the write committed here, not on the node');
	$node->safe_psql('postgres', q{
		ALTER SYSTEM RESET synchronous_standby_names;
		ALTER SYSTEM RESET synchronous_commit;
		SELECT pg_reload_conf();
	});
	return $n1->safe_psql('postgres', q{SELECT string_agg(gid, ',') FROM pg_prepared_xacts});
}

sub cell
{
	my ($node, $key) = @_;
	return $node->safe_psql('postgres', "SELECT count(*) FROM dist WHERE row_key = '$key'");
}

# 1. a write in doubt during a split of its tablet (held before its
# catch-up): the split decides it before the swap and keeps it
my ($lin, $lout, $lerr) = ('', '', '');
my $locker = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ], \$lin, \$lout, \$lerr);
$lin .= "BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 2 FOR UPDATE; SELECT 'locked';\n";
$locker->pump until $lout =~ /locked/;
my $op = start_psql($coord, q{SET statement_timeout = '30s'}, q{CALL wide.split_tablet('dist', 'dist_2', 'k5')});
$coord->poll_query_until('postgres',
	op_paused_sql('wide\.split_tablet'))
  or die 'the split did not reach its pause';
my $gid = in_doubt_write($coord, q{SELECT wide.set_cell('dist', 'k_split', 'm', 'q', 1, 1)});
like($gid, qr/^wide_[0-9a-f]{32}_\d+_\d+$/, 'the write is prepared on the node');
$lin .= "COMMIT; SELECT 'unlocked';\n";
$locker->pump until $lout =~ /unlocked/;
$op->{h}->finish;
is(${ $op->{err} }, '', 'the split finished');
$coord->psql('postgres', 'SELECT wide.resolve_tablets(\'n1\')');
$coord->psql('postgres', 'CALL wide.resume_tablet_ops()');
is($coord->safe_psql('postgres', q{SELECT string_agg(step, ',' ORDER BY id) FROM wide.tablet_ops}), 'done,done', 'the split is done');
is(cell($coord, 'k_split'), '1', 'the write in doubt during the split is in the new tablets');
is($coord->safe_psql('postgres', 'SELECT count(*) FROM dist'), '202', 'every cell once');
is($n1->safe_psql('postgres', 'SELECT count(*) FROM pg_prepared_xacts'), '0', 'nothing left prepared');
$lin .= "\\q\n";
$locker->finish;

my $t2 = $coord->safe_psql('postgres', q{SELECT tableoid::regclass FROM dist WHERE row_key = 'k9'});
# a split refuses a tablet locked by a transaction in doubt that it cannot
# decide (one of another coordinator), and makes nothing
$n1->safe_psql('postgres', qq{BEGIN; SELECT wide.set_cell('$t2', 'k_other', 'm', 'q', 1, 1);
	PREPARE TRANSACTION 'wide_00000000000000000000000000000000_5_1'});
my ($ret, $out, $err) = $coord->psql('postgres', qq{SET statement_timeout = '20s'; CALL wide.split_tablet('dist', '$t2', 'k7')});
like($err, qr/is locked by prepared transactions not yet decided: wide_0{32}_5_1/,
	'a split of a tablet in doubt on its node is refused');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM wide.tablet_ops}), '2', 'nothing journaled');
$n1->safe_psql('postgres', q{ROLLBACK PREPARED 'wide_00000000000000000000000000000000_5_1'});

# 2. a clone of the coordinator, promoted: it does not decide the other's
# transaction in doubt (of its own former id: reported undecided), and
# names itself by a new id
$coord->backup('bk');
my $clone = PostgreSQL::Test::Cluster->new('clone');
$clone->init_from_backup($coord, 'bk', has_streaming => 1);
$clone->start;
$clone->promote;
$clone->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'no promotion';
$gid = in_doubt_write($coord, q{SELECT wide.set_cell('dist', 'k_clone', 'm', 'q', 1, 1)});
my ($xid) = $gid =~ /^wide_[0-9a-f]+_(\d+)_/;
# the clone's transaction of that number aborted
my $next = $clone->safe_psql('postgres', 'BEGIN; SELECT pg_current_xact_id(); ROLLBACK');
$clone->safe_psql('postgres', sprintf(q{CREATE TABLE burn (i int); DO $$ BEGIN FOR i IN 1 .. %d LOOP
	BEGIN INSERT INTO burn VALUES (i); RAISE EXCEPTION 'no'; EXCEPTION WHEN OTHERS THEN NULL; END;
	END LOOP; END $$}, $xid - $next + 5));
is($clone->safe_psql('postgres', "SELECT pg_xact_status('$xid')"), 'aborted',
	'the clone has an aborted transaction of the same number');
($ret, $out, $err) = $clone->psql('postgres', q{SELECT outcome FROM wide.resolve_tablets('n1')});
is($out, 'undecided', 'the clone leaves the other coordinator\'s transaction undecided');
like($err, qr/has no decision record here/, 'and says why');
is($n1->safe_psql('postgres', 'SELECT string_agg(gid, \',\') FROM pg_prepared_xacts'), $gid,
	'it stays prepared on the node');
is($coord->safe_psql('postgres', q{SELECT string_agg(outcome, ',') FROM wide.resolve_tablets('n1')}), 'committed',
	'its own coordinator commits it by its record');
is(cell($coord, 'k_clone'), '1', 'the write is on the node');
$clone->safe_psql('postgres', q{SELECT wide.set_cell('dist', 'k_clone2', 'm', 'q', 1, 1)});
isnt(($clone->psql('postgres', 'SELECT id FROM wide.remote_cluster WHERE current'))[1],
	($coord->psql('postgres', 'SELECT id FROM wide.remote_cluster WHERE current'))[1],
	'the promoted clone names itself by another id');
$clone->stop;

# 3. the coordinator's commit log no longer knows the transaction
$gid = in_doubt_write($coord, q{SELECT wide.set_cell('dist', 'k_old', 'm', 'q', 1, 1)});
($xid) = $gid =~ /^wide_[0-9a-f]+_(\d+)_/;
$coord->stop;
# two epochs later: pg_xact_status says NULL, as for an xid whose pg_xact
# segment was truncated (the xids themselves do not move)
command_ok([ 'pg_resetwal', '-e', '2', $coord->data_dir ], 'pg_resetwal -e');
$coord->start;
is($coord->safe_psql('postgres', "SELECT pg_xact_status('$xid') IS NULL"), 't',
	'the commit log no longer knows the transaction');
is($coord->safe_psql('postgres', q{SELECT string_agg(outcome, ',') FROM wide.resolve_tablets('n1')}), 'committed',
	'a committed transaction is committed by its record');
is(cell($coord, 'k_old'), '1', 'the write is on the node');
# one of this coordinator with no record, over and unknown to the log: rolled back
$n1->safe_psql('postgres', sprintf(q{BEGIN; SELECT wide.set_cell('%s', 'k_never', 'm', 'q', 1, 1);
	PREPARE TRANSACTION '%s'}, $t2, $gid =~ s/_(\d+)_(\d+)$/_7_$2/r));
is($coord->safe_psql('postgres', q{SELECT string_agg(outcome, ',') FROM wide.resolve_tablets('n1')}), 'rolled back',
	'one without a record is rolled back');
is(cell($coord, 'k_never'), '0', 'its write is not there');
is($n1->safe_psql('postgres', 'SELECT count(*) FROM pg_prepared_xacts'), '0', 'nothing left prepared');
is(($coord->psql('postgres', 'SELECT count(*) FROM wide.remote_commits'))[1], '0', 'no record left');

$_->stop for ($coord, $n1);
done_testing();
