# Split and move of tablets while one client writes and another reads: a
# coordinator and two data nodes (loopback unix sockets).  A local and a
# remote tablet are split and tablets are moved between the nodes and the
# coordinator, each paused between its copy and its swap so that writes
# land in between; afterwards every committed cell is present exactly
# once, in the tablet whose range holds it, every read saw every write
# committed before it and no cell twice, and no table is left over on any
# node.  Then a data node is killed (kill -9) while a move waits at a known
# step: after the restart wide.resume_tablet_ops() finishes the move (it
# had copied) or rolls it back (it had not), leaving no orphan.  Last, a
# multi-tablet INSERT is not atomic across nodes (postgres_fdw commits
# node by node) while the data API's writes are (two-phase commit), and a
# statement waiting for a node can be cancelled.  Last, the coordinator is
# killed while a split waits, and resume finishes it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use WideTablets;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);

my @nodes = tablet_nodes("max_prepared_transactions = 10\n");
my ($coord, $n1, $n2) = @nodes;
$coord->safe_psql('postgres', q{
	CREATE TABLE dist (row_key text COLLATE "C", family text COLLATE "C",
	                   qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('dist', 'm');
	SELECT wide.create_family('dist', 'w');
	SELECT wide.create_tablets('dist', ARRAY['h', 'p'], ARRAY['local', 'n1', 'n2']);
	CREATE TABLE single (row_key text COLLATE "C", family text COLLATE "C",
	                     qualifier text COLLATE "C", ts int8, value int8) USING wide;
	SELECT wide.create_family('single', 'm');
	-- the writer's log of its committed writes, the reader's of its reads
	CREATE TABLE wlog (i int PRIMARY KEY);
	CREATE TABLE rlog (n int, seen bigint, ok boolean);
	CREATE TABLE stop (b boolean);
});
for my $t ('dist', 'single')
{
	$coord->safe_psql('postgres', qq{
		INSERT INTO $t SELECT chr(97 + i % 26) || lpad(i::text, 5, '0'), 'm', 'q' || (i % 3), i % 4, i
		  FROM generate_series(1, 6000) i;
	});
}

# the writer: one cell per transaction, keys spread over every tablet, the
# log written in the same transaction; a failed write is not logged
my $writer = q{DO $$
DECLARE i int := 0;
BEGIN
  LOOP
    EXIT WHEN EXISTS (SELECT FROM stop);
    i := i + 1;
    BEGIN
      INSERT INTO dist VALUES (chr(97 + (i * 7) % 26) || 'w' || i, 'w', 'c', i, i);
      INSERT INTO wlog VALUES (i);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'write % failed: %', i, SQLERRM;
    END;
    COMMIT;
    PERFORM pg_sleep(0.003);
  END LOOP;
END $$;};

# the reader: in one statement, the writes logged as committed and the
# cells of the table; every logged write must be read (INSERT through
# postgres_fdw commits on the node before here), none twice
my $reader = q{DO $$
DECLARE n int := 0; r record;
BEGIN
  LOOP
    EXIT WHEN EXISTS (SELECT FROM stop);
    n := n + 1;
    WITH l AS (SELECT coalesce(max(i), 0) m, count(*) c FROM wlog),
         d AS (SELECT value FROM dist WHERE family = 'w')
    SELECT (SELECT c FROM l) AS logged,
           (SELECT count(*) FROM d, l WHERE d.value <= l.m) AS seen,
           (SELECT count(DISTINCT value) FROM d) AS distinct_cells,
           (SELECT count(*) FROM d) AS cells INTO r;
    INSERT INTO rlog VALUES (n, r.seen, r.seen = r.logged AND r.distinct_cells = r.cells);
    COMMIT;
    PERFORM pg_sleep(0.01);
  END LOOP;
END $$;};

sub start_psql
{
	my ($node, $sql) = @_;
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', $sql ],
		\$in, \$out, \$err);
	return { h => $h, out => \$out, err => \$err };
}

# a session holding the pause row of a step (1: before the copy, 2: before
# the swap) FOR UPDATE; an operation waiting for it
$coord->safe_psql('postgres', 'SELECT wide_internal._tablet_ops_tables()');
my $paused = op_paused_sql('wide\.(split|move)_tablet');
my ($lin, $lout, $lerr) = ('', '', '');
my $timer = IPC::Run::timer($PostgreSQL::Test::Utils::timeout_default);
my $locker = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
	\$lin, \$lout, \$lerr, $timer);
sub locker
{
	my ($sql) = @_;
	$lout = '';
	$lin .= "$sql; SELECT 'done';\n";
	$timer->start($PostgreSQL::Test::Utils::timeout_default);
	$locker->pump until $lout =~ /done/ || $timer->is_expired;
	die "locker timed out: $lerr" if $timer->is_expired;
}

# run an operation, held at a step while writes go on, then let it finish
sub paused_op
{
	my ($call, $step) = @_;
	locker("BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = $step FOR UPDATE");
	my $op = start_psql($coord, $call);
	$coord->poll_query_until('postgres',
		$paused)
	  or die 'the operation did not reach its pause';
	my $at = $coord->safe_psql('postgres', q{SELECT step FROM wide.tablet_ops ORDER BY id DESC LIMIT 1});
	my $w0 = $coord->safe_psql('postgres', 'SELECT count(*) FROM wlog');
	$coord->poll_query_until('postgres', "SELECT count(*) >= $w0 + 30 FROM wlog")
	  or die 'the writer does not write';
	locker("COMMIT");
	return ($op, $at);
}

sub tablets
{
	return $coord->safe_psql('postgres', q{
		SELECT string_agg(c.relname || ':' || CASE c.relkind WHEN 'f' THEN s.srvname ELSE 'local' END
		                  || ':' || pg_get_expr(c.relpartbound, c.oid), ' '
		                  ORDER BY pg_get_expr(c.relpartbound, c.oid) LIKE '%(MINVALUE)%' DESC,
		                           pg_get_expr(c.relpartbound, c.oid) COLLATE "C")
		  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		  LEFT JOIN pg_foreign_table ft ON ft.ftrelid = c.oid LEFT JOIN pg_foreign_server s ON s.oid = ft.ftserver
		 WHERE i.inhparent = 'dist'::regclass});
}

# kill -9 a node's postmaster and, as a machine crash would, every child
sub crash
{
	my ($node) = @_;
	my @pids = split /\n/, $node->safe_psql('postgres',
		'SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()');
	my $postmaster = $node->{_pid};
	$node->kill9;
	kill 'KILL', @pids;
	for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
	{
		usleep(50_000);
	}
}

my $w = start_psql($coord, $writer);
my $r = start_psql($coord, $reader);
$coord->poll_query_until('postgres', 'SELECT count(*) > 20 FROM wlog')
  or die 'the writer does not write';

# split the local tablet at a key, the remote one (on n1) at its middle,
# move the tablet of n2 to n1 and a local one to n2
my @ops = (
	[ q{CALL wide.split_tablet('dist', 'dist_1', 'd')}, 'split of the local tablet' ],
	[ q{CALL wide.split_tablet('dist', 'dist_2')}, 'split of the remote tablet at its middle' ],
	[ q{CALL wide.move_tablet('dist', 'dist_3', 'n1')}, 'move of a tablet from n2 to n1' ],
	[ q{CALL wide.move_tablet('dist', 'dist_1b', 'n2')}, 'move of a local tablet to n2' ],
	[ q{CALL wide.move_tablet('dist', 'dist_2a', 'local')}, 'move of a tablet from n1 to here' ]);
for my $o (@ops)
{
	my ($op, $at) = paused_op($o->[0], 2);
	is($at, 'copied', "$o->[1]: paused after its copy while writes go on");
	$op->{h}->finish;
	is(${ $op->{err} }, '', "$o->[1]: done");
}
is(tablets(),
	q{dist_1a:local:FOR VALUES FROM (MINVALUE) TO ('d') dist_4m:n2:FOR VALUES FROM ('d') TO ('h') dist_5m:local:FOR VALUES FROM ('h') TO ('}
	  . $coord->safe_psql('postgres', q{SELECT bounds[2] FROM wide.tablet_ops WHERE id = 2}) =~ s/^'|'::text$//gr
	  . q{') dist_2b:n1:FOR VALUES FROM ('}
	  . $coord->safe_psql('postgres', q{SELECT bounds[2] FROM wide.tablet_ops WHERE id = 2}) =~ s/^'|'::text$//gr
	  . q{') TO ('p') dist_3m:n1:FOR VALUES FROM ('p') TO (MAXVALUE)},
	'the tablets after two splits and three moves');
# a split at the middle by samples (compacted tablets have them)
$n1->safe_psql('postgres', q{SELECT FROM wide.compact('dist_3m', true)});
my ($op) = paused_op(q{CALL wide.split_tablet('dist', 'dist_3m')}, 1);
$op->{h}->finish;
is(${ $op->{err} }, '', 'split of a compacted remote tablet at its middle by samples');
like($coord->safe_psql('postgres', q{SELECT bounds[2] FROM wide.tablet_ops WHERE id = 6}), qr/^'[p-z]/,
	'its middle key is inside it');

$coord->safe_psql('postgres', 'INSERT INTO stop VALUES (true)');
$w->{h}->finish;
$r->{h}->finish;
is(${ $w->{err} }, '', 'no write failed');
is(${ $r->{err} }, '', 'the reader ran through');

my $written = $coord->safe_psql('postgres', 'SELECT count(*) FROM wlog');
cmp_ok($written, '>', 200, "the writer committed $written cells during the operations");
is($coord->safe_psql('postgres', q{SELECT count(*), count(DISTINCT value), count(*) FILTER (WHERE w.i IS NULL)
	FROM dist d LEFT JOIN wlog w ON w.i = d.value WHERE d.family = 'w'}), "$written|$written|0",
	'every committed write is in the table exactly once, and nothing else');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM wlog w WHERE NOT EXISTS
	(SELECT FROM dist d WHERE d.family = 'w' AND d.value = w.i AND d.ts = w.i
	    AND d.row_key = chr(97 + (w.i * 7) % 26) || 'w' || w.i)}), '0',
	'each with its key and timestamp');
# (on a failure, which writes are missing and the operations' ranges)
if ($coord->safe_psql('postgres', q{SELECT count(*) FROM wlog w WHERE NOT EXISTS
	(SELECT FROM dist d WHERE d.family = 'w' AND d.value = w.i)}) > 0)
{
	diag('missing writes: ' . $coord->safe_psql('postgres', q{SELECT string_agg(w.i || ':' || chr(97 + (w.i * 7) % 26) || 'w' || w.i, ', ')
		FROM wlog w WHERE NOT EXISTS (SELECT FROM dist d WHERE d.family = 'w' AND d.value = w.i)}));
	diag('operations: ' . $coord->safe_psql('postgres', q{SELECT string_agg(id || ' ' || op || ' ' || tablet || ' ' || bounds::text, '; ') FROM wide.tablet_ops}));
}
my ($reads, $bad) = split /\|/, $coord->safe_psql('postgres', q{SELECT count(*), count(*) FILTER (WHERE NOT ok) FROM rlog});
cmp_ok($reads, '>', 20, "the reader read $reads times");
is($bad, '0', 'every read saw every write committed before it and no cell twice');
my $cmp = q{SELECT count(*), md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ','
	ORDER BY row_key, qualifier, ts)) FROM %s WHERE family = 'm'};
is($coord->safe_psql('postgres', sprintf($cmp, 'dist')), $coord->safe_psql('postgres', sprintf($cmp, 'single')),
	'the loaded cells are all there');

# every tablet holds only its own range: read each directly (a remote one
# reads its whole table on the node)
sub misplaced_cells
{
	my ($ret, $out, $err) = $coord->psql('postgres', q{
		DO $$ DECLARE t regclass; b text[]; n bigint; bad text := ''; BEGIN
		  FOR t IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'dist'::regclass LOOP
		    b := wide_internal._tablet_bounds(t);
		    EXECUTE format('SELECT count(*) FROM %s WHERE NOT (%s)', t, wide_internal._range_cond('row_key', b[1], b[2])) INTO n;
		    IF n > 0 THEN bad := bad || t || ' '; END IF;
		  END LOOP;
		  RAISE NOTICE 'misplaced: [%]', bad;
		END $$});
	return $err =~ /misplaced: \[(.*)\]/ ? $1 : $err;
}
is(misplaced_cells(), '', 'every cell is in the tablet whose range holds it');

# nothing left over: the wide tables of each node are the tablets on it,
# no foreign table is outside the parent, nothing prepared
my $wide_tables = q{SELECT coalesce(string_agg(c.relname, ',' ORDER BY c.relname), '') FROM pg_class c
	JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'wide' AND c.relname LIKE 'dist%'};
sub no_orphans
{
	my ($name) = @_;
	my %on;
	for my $row (split /\n/, $coord->safe_psql('postgres', q{
		SELECT coalesce(s.srvname, 'local'), c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		  LEFT JOIN pg_foreign_table ft ON ft.ftrelid = c.oid LEFT JOIN pg_foreign_server s ON s.oid = ft.ftserver
		 WHERE i.inhparent = 'dist'::regclass ORDER BY 2}))
	{
		my ($node, $rel) = split /\|/, $row;
		push @{ $on{$node} }, $rel;
	}
	is($coord->safe_psql('postgres', $wide_tables), join(',', @{ $on{local} // [] }), "$name: the coordinator's wide tables are its tablets");
	is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_foreign_table ft
		WHERE NOT EXISTS (SELECT FROM pg_inherits WHERE inhrelid = ft.ftrelid)}), '0',
		"$name: no foreign table outside the parent");
	for my $node ($n1, $n2)
	{
		is($node->safe_psql('postgres', $wide_tables), join(',', @{ $on{ $node->name } // [] }),
			"$name: the wide tables of " . $node->name . ' are its tablets');
		is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_prepared_xacts'), '0',
			"$name: nothing prepared on " . $node->name);
	}
}
no_orphans('after the operations');
is($coord->safe_psql('postgres', q{SELECT string_agg(step, ',') FROM wide.tablet_ops}),
	'done,done,done,done,done,done', 'the journal: every operation done');
note 'lock held at the swap (ms): '
  . $coord->safe_psql('postgres', q{SELECT string_agg(op || ' ' || tablet || ' ' || round(lock_ms::numeric, 1) || ' (delta ' || coalesce(delta_cells::text, '-') || ')', ', ' ORDER BY id) FROM wide.tablet_ops});

# a data node killed while a move to it waits before its swap: the swap
# fails, the move stays at 'copied'; after the restart, resume finishes it
my $state = $coord->safe_psql('postgres', sprintf($cmp, 'dist'));
my $before = tablets();
my $inrange = $coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE row_key >= 'h' AND row_key < 'p'});
locker('BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 2 FOR UPDATE');
$op = start_psql($coord, q{CALL wide.move_tablet('dist', 'dist_2b', 'n2')});
$coord->poll_query_until('postgres',
	$paused)
  or die 'the move did not reach its pause';
# (a write into the tablet after its copy: the swap must catch it up on n2)
$coord->safe_psql('postgres', q{INSERT INTO dist VALUES ('oz1', 'm', 'c', 1, 1)});
crash($n2);
locker('COMMIT');
$op->{h}->finish;
like(${ $op->{err} }, qr/n2/, 'the move fails with the node down, naming it');
is($coord->safe_psql('postgres', q{SELECT step FROM wide.tablet_ops ORDER BY id DESC LIMIT 1}), 'copied',
	'it stays copied in the journal');
is(tablets(), $before, 'the tablets are as before');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE row_key >= 'h' AND row_key < 'p'}),
	$inrange + 1, 'the tablet is read and written on n1 meanwhile');
$n2->start;
my ($ret, $out, $err) = $coord->psql('postgres', 'CALL wide.resume_tablet_ops()');
like($err, qr/tablet operation 7 \(move of public.dist_2b\): finished/, 'resume finishes the move');
is($coord->safe_psql('postgres', q{SELECT tableoid::regclass FROM dist WHERE row_key = 'oz1'}), 'dist_7m',
	'the write made before the kill is in the moved tablet');
$coord->safe_psql('postgres', q{DELETE FROM dist WHERE row_key = 'oz1'});
is($coord->safe_psql('postgres', sprintf($cmp, 'dist')), $state, 'the same cells');
like(tablets(), qr/dist_7m:n2:FOR VALUES FROM \('[^']*'\) TO \('p'\)/, 'the tablet is on n2');
is(misplaced_cells(), '', 'every cell in its tablet');
no_orphans('after the resumed move');

# killed before the copy: the copy fails, resume rolls the move back and
# drops the table it had made on n2
$before = tablets();
locker('BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 1 FOR UPDATE');
$op = start_psql($coord, q{CALL wide.move_tablet('dist', 'dist_1a', 'n2')});
$coord->poll_query_until('postgres',
	$paused)
  or die 'the move did not reach its pause';
is($n2->safe_psql('postgres', q{SELECT to_regclass('dist_8m') IS NOT NULL}), 't', 'the move made its table on n2');
crash($n2);
locker('COMMIT');
$op->{h}->finish;
like(${ $op->{err} }, qr/n2/, 'the copy fails with the node down');
is($coord->safe_psql('postgres', q{SELECT step FROM wide.tablet_ops WHERE id = 8}), 'created', 'it stays created');
$n2->start;
($ret, $out, $err) = $coord->psql('postgres', 'CALL wide.resume_tablet_ops()');
like($err, qr/tablet operation 8 \(move of public.dist_1a\): rolled back/, 'resume rolls it back');
is(tablets(), $before, 'the tablets are as before');
is($coord->safe_psql('postgres', sprintf($cmp, 'dist')), $state, 'the same cells');
no_orphans('after the rolled-back move');

# a multi-tablet INSERT is committed by postgres_fdw node after node (at
# once with parallel_commit): a node failing at its commit (here its
# session is cut between the INSERT and the COMMIT) leaves the other
# node's part committed
$coord->safe_psql('postgres', q{ALTER SERVER n1 OPTIONS (ADD parallel_commit 'true');
	ALTER SERVER n2 OPTIONS (ADD parallel_commit 'true')});
my ($tin, $tout, $terr) = ('', '', '');
my $tx = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
	\$tin, \$tout, \$terr, $timer);
$timer->start($PostgreSQL::Test::Utils::timeout_default);
$tin .= q{BEGIN; INSERT INTO dist VALUES ('t_atomic', 'm', 'c', 1, -666), ('e_atomic', 'm', 'c', 1, -666); SELECT 'inserted';} . "\n";
$tx->pump until $tout =~ /inserted/;
is($n2->safe_psql('postgres', q{SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
	WHERE application_name = 'postgres_fdw' AND state = 'idle in transaction'}), '1',
	'the session of the INSERT on n2 is cut');
$tin .= q{COMMIT; SELECT 'after';} . "\n";
$tx->pump until $tout =~ /after/;
$tx->finish;
like($terr, qr/terminating connection|closed the connection|COMMIT TRANSACTION/,
	'an INSERT into two remote tablets fails at one node\'s commit');
is($coord->safe_psql('postgres', q{SELECT string_agg(row_key, ',') FROM dist WHERE value = -666}), 't_atomic',
	'and the other node kept its part: not atomic across nodes');
$coord->safe_psql('postgres', q{DELETE FROM dist WHERE value = -666});
# ... while the data API's writes are prepared on every node first: a node
# that fails to prepare rolls every node back
$n1->safe_psql('postgres', 'ALTER SYSTEM SET max_prepared_transactions = 0');
$n1->restart;
($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.mutate_rows('dist', '[
	{"row_key": "t_atomic", "mutations": [{"set_cell": {"family_name": "m", "column_qualifier": "c", "timestamp_micros": 1, "value": -667}}]},
	{"row_key": "e_atomic", "mutations": [{"set_cell": {"family_name": "m", "column_qualifier": "c", "timestamp_micros": 1, "value": -667}}]}]')});
like($err, qr/prepared transactions are disabled/, 'a data API write over two nodes fails at one node\'s PREPARE');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE value = -667}), '0',
	'and no node kept its part: atomic by two-phase commit');
is($n2->safe_psql('postgres', 'SELECT count(*) FROM pg_prepared_xacts'), '0', 'nothing left prepared');

# a statement waiting for a node (here for a lock there) can be cancelled
my ($hin, $hout, $herr) = ('', '', '');
my $holder = IPC::Run::start([ 'psql', '-XAtq', '-d', $n2->connstr('postgres') ],
	\$hin, \$hout, \$herr, $timer);
$timer->start($PostgreSQL::Test::Utils::timeout_default);
$hin .= "BEGIN; LOCK TABLE dist_4m; SELECT 'locked';\n";
$holder->pump until $hout =~ /locked/;
($ret, $out, $err) = $coord->psql('postgres',
	q{SET statement_timeout = '1s'; SELECT wide.create_family('dist', 'late')});
like($err, qr/canceling statement due to statement timeout/, 'a family change waiting for a node is cancelled');
$hin .= "COMMIT;\n\\q\n";
$holder->finish;
is($n2->safe_psql('postgres', q{SELECT count(*) FROM wide.families('dist_4m') WHERE family = 'late'}), '0',
	'and the node did not make it');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM wide.families('dist') WHERE family = 'late'}), '0',
	'nor the coordinator');

$lin .= "\\q\n";
$locker->finish;

# the coordinator killed (with every session) while a split waits before
# its catch-up: after the restart, resume finishes it
$state = $coord->safe_psql('postgres', sprintf($cmp, 'dist'));
my $wcells = $coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE family = 'w'});
($lin, $lout, $lerr) = ('', '', '');
$locker = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
	\$lin, \$lout, \$lerr, $timer);
locker('BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 2 FOR UPDATE');
$op = start_psql($coord, q{CALL wide.split_tablet('dist', 'dist_1a', 'b')});
$coord->poll_query_until('postgres',
	$paused)
  or die 'the split did not reach its pause';
crash($coord);
eval { $op->{h}->kill_kill; $op->{h}->finish; };
eval { $locker->kill_kill; $locker->finish; };
$coord->start;
is($coord->safe_psql('postgres', q{SELECT step FROM wide.tablet_ops ORDER BY id DESC LIMIT 1}), 'copied',
	'a split stopped by a coordinator crash stays copied');
($ret, $out, $err) = $coord->psql('postgres', 'CALL wide.resume_tablet_ops()');
like($err, qr/tablet operation \d+ \(split of public.dist_1a\): finished/, 'resume finishes it after the restart');
is($coord->safe_psql('postgres', sprintf($cmp, 'dist')), $state, 'the same cells after the crash and the resumed split');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE family = 'w'}), $wcells, 'and the same written ones');
like(tablets(), qr/^dist_\d+a:local:FOR VALUES FROM \(MINVALUE\) TO \('b'\) dist_\d+b:local:FOR VALUES FROM \('b'\) TO \('d'\)/,
	'the tablet is split');
is(misplaced_cells(), '', 'every cell in its tablet');
no_orphans('after the resumed split');
$_->stop for @nodes;
done_testing();
