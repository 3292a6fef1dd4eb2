# Distributed stress with a model: a coordinator and two nodes, a parent
# of tablets over all three.  Writers (one cell per transaction, through
# the parent -- INSERT -- or the data API -- set_cell, mutate_row -- by the
# key's number) log each write in a local table in the same transaction;
# a reader checks, in one statement, that every write logged through the
# parent is read (postgres_fdw commits on the node before the local
# commit) through the parent and through wide.read_rows, and that no cell
# is read twice.  Meanwhile random splits, moves, TRUNCATEs (of the parent
# and the log together), family DDL and kill -9 of the coordinator or a
# node run; every session (writers, reader, and with
# WIDE_DIST_OP_SETTINGS=1 the operations too) runs under random settings
# (standard_conforming_strings, DateStyle, IntervalStyle, TimeZone,
# bytea_output, extra_float_digits, search_path); a fifth of the keys hold
# a backslash.  After each round, with the nodes' leftovers resolved and
# the operations resumed: every logged write is read exactly once, through
# the parent and the data API alike; a cell without a log row is only one
# written through the parent whose local commit a coordinator kill cut
# off (documented: not atomic across nodes); nothing is left prepared;
# every operation is done or rolled back.
#
# Environment: WIDE_DIST_ROUNDS (default 3), WIDE_DIST_SECONDS per round
# (default 15), WIDE_DIST_SEED (default random, printed), WIDE_DIST_KILLS
# (default 1: kill -9 of the coordinator or a node in some rounds),
# WIDE_DIST_OP_SETTINGS (default 0: issue 24 defect 2, random settings in
# the sessions that split and move), WIDE_DIST_TRUNCATE_IN_OPS (default 0:
# issue 24 defect 3, TRUNCATE while a split or move is between its copy and
# its swap, or while one that a kill left open waits for
# resume_tablet_ops; off, a TRUNCATE is replaced by a resume then),
# WIDE_DIST_WAL_MINIMAL (default 0: wal_level = minimal, where
# the journal's id sequence, made by the first split in the transaction
# that takes its first id, goes back after a crash: a split or move after a
# coordinator kill failed on a duplicate id -- a bug found by this test,
# fixed: 227_journal_minimal_wal.pl), WIDE_DIST_MIXED_READS (default 0: the reader reads the parent
# and wide.read_rows in one statement; a move then hung for ever: its
# ALTER TABLE on the node waits for the reader's postgres_fdw transaction,
# and the reader's read_rows on the node waits behind the ALTER TABLE -- a
# deadlock no server sees, found by this test; fixed by a lock_timeout and
# retries on the node's DDL: 228_move_lock_cycle.pl), WIDE_DIST_STRICT_API_READS
# (default 1: a read by wide.read_rows of the parent that missed a cell
# fails the round; it once could, while a move swapped, until the function
# took a fresh snapshot after its locks -- isolation spec read_rows_swap;
# 0: such reads are counted, not failed).  An operation that runs
# longer than 60 s is reported as hung, and its session and the clients
# are terminated.  The long run is test/stress/dist.sh.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(usleep time);
use Test::More;

my $rounds = $ENV{WIDE_DIST_ROUNDS} // 3;
my $seconds = $ENV{WIDE_DIST_SECONDS} // 15;
my $seed = $ENV{WIDE_DIST_SEED} // int(rand(1_000_000));
my $kills = $ENV{WIDE_DIST_KILLS} // 1;
my $op_settings = $ENV{WIDE_DIST_OP_SETTINGS} // 0;
my $trunc_in_ops = $ENV{WIDE_DIST_TRUNCATE_IN_OPS} // 0;
my $wal_minimal = $ENV{WIDE_DIST_WAL_MINIMAL} // 0;
my $mixed_reads = $ENV{WIDE_DIST_MIXED_READS} // 0;
my $strict_api = $ENV{WIDE_DIST_STRICT_API_READS} // 1;
srand($seed);
diag("dist stress: seed $seed, $rounds rounds of $seconds s (repeat with WIDE_DIST_SEED=$seed "
	  . "WIDE_DIST_ROUNDS=$rounds WIDE_DIST_SECONDS=$seconds WIDE_DIST_KILLS=$kills "
	  . "WIDE_DIST_OP_SETTINGS=$op_settings WIDE_DIST_TRUNCATE_IN_OPS=$trunc_in_ops WIDE_DIST_STRICT_API_READS=$strict_api)");
$PostgreSQL::Test::Utils::timeout_default = 60;

my @nodes;
for my $name ('coord', 'n1', 'n2')
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', "max_prepared_transactions = 20\nmax_connections = 40\n"
		  . ($wal_minimal ? '' : "wal_level = replica\nmax_wal_senders = 2\n"));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION wide');
	push @nodes, $node;
}
my ($coord, $n1, $n2) = @nodes;
$coord->safe_psql('postgres', 'CREATE EXTENSION postgres_fdw');
for my $node ($n1, $n2)
{
	my ($name, $host, $port) = ($node->name, $node->host, $node->port);
	$coord->safe_psql('postgres', qq{
		CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw
		  OPTIONS (host '$host', port '$port', dbname 'postgres');
		CREATE USER MAPPING FOR CURRENT_USER SERVER $name;
	});
}
$coord->safe_psql('postgres', q{
	CREATE TABLE d (row_key text COLLATE "C", family text COLLATE "C",
	                qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('d', 'f');
	SELECT wide.create_tablets('d', ARRAY['h', 'p'], ARRAY['local', 'n1', 'n2']);
	CREATE TABLE wlog (key text COLLATE "C" PRIMARY KEY, w int, i bigint);
	CREATE TABLE rlog (w int, n int, logged bigint, seen bigint, seen_api bigint, dups bigint, ok boolean, miss text, ops text);
	CREATE TABLE stop (b boolean);
});
# (the first split makes the journal the reader looks at)
$coord->safe_psql('postgres', q{CALL wide.split_tablet('d', 'd_1', 'c')});

my @settings = (
	[ 'standard_conforming_strings', 'on', 'off' ],
	[ 'DateStyle', "'ISO, MDY'", "'SQL, DMY'", "'German'", "'Postgres, YMD'" ],
	[ 'IntervalStyle', 'postgres', 'iso_8601', 'sql_standard', 'postgres_verbose' ],
	[ 'TimeZone', "'UTC'", "'Asia/Kathmandu'", "'America/St_Johns'", "'Pacific/Chatham'" ],
	[ 'bytea_output', 'hex', 'escape' ],
	[ 'extra_float_digits', '-15', '0', '3' ],
	[ 'search_path', 'public', 'wide, public', '"$user", public, pg_catalog' ]);
my %tried;
sub random_settings
{
	my @set;
	for my $s (@settings)
	{
		my ($name, @values) = @$s;
		my $v = $values[ int(rand(@values)) ];
		$tried{"$name=$v"}++;
		push @set, "SET $name = $v";
	}
	return @set;
}

# one cell per transaction; the key says how it is written (p0: INSERT
# through the parent, p1: set_cell, p2: mutate_row) and by whom
my $writer = q{DO $$
DECLARE i bigint := %d; k text; v bigint;
BEGIN
  LOOP
    EXIT WHEN EXISTS (SELECT FROM public.stop);
    i := i + 1;
    k := chr(97 + ((i * 7 + %d) %% 26)::int) || CASE WHEN i %% 5 = 0 THEN chr(92) ELSE '' END
         || 'p' || (i %% 3) || 'w' || %d || '_' || i;
    BEGIN
      IF i %% 3 = 0 THEN
        INSERT INTO public.d VALUES (k, 'f', 'q', i, i);
      ELSIF i %% 3 = 1 THEN
        PERFORM wide.set_cell('public.d', k, 'f', 'q', i, i);
      ELSE
        PERFORM wide.mutate_row('public.d', k, jsonb_build_array(jsonb_build_object('setCell',
          jsonb_build_object('familyName', 'f', 'columnQualifier', encode(convert_to('q', 'UTF8'), 'base64'),
                             'timestampMicros', i::text, 'value', encode(int8send(i), 'base64')))));
      END IF;
      INSERT INTO public.wlog VALUES (k, %d, i);
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'write %% failed: %%', k, SQLERRM;
    END;
    COMMIT;
  END LOOP;
END $$;};

# every write logged through the parent before the read began is read,
# through the parent and through the data API; none twice
my $reader = q{DO $$
DECLARE n int := 0; r record; api bigint; logged2 bigint; miss text; mixed boolean := %s;
BEGIN
  LOOP
    EXIT WHEN EXISTS (SELECT FROM public.stop);
    n := n + 1;
    r := NULL;
    miss := NULL;
    BEGIN
      -- the log, the parent and (mixed) the data API in one statement
      WITH l AS (SELECT key FROM public.wlog WHERE key ~ 'p0w'),
           p AS (SELECT row_key FROM public.d WHERE family = 'f'),
           a AS (SELECT row_key FROM wide.read_rows(NULL::public.d) WHERE family = 'f' AND mixed)
      SELECT (SELECT count(*) FROM l) AS logged,
             (SELECT count(*) FROM l WHERE key IN (SELECT row_key FROM p)) AS seen,
             (SELECT count(*) FROM l WHERE key IN (SELECT row_key FROM a)) AS seen_api,
             (SELECT count(*) - count(DISTINCT row_key) FROM p) AS dups INTO r;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'read %% failed: %%', n, SQLERRM;
    END;
    COMMIT;
    IF r IS NOT NULL AND NOT mixed THEN
      -- the data API in a transaction of its own, after the log was read
      BEGIN
        -- (a TRUNCATE may have come between: the log as of now)
        SELECT count(*), count(*) FILTER (WHERE l.key IN
                 (SELECT row_key FROM wide.read_rows(NULL::public.d) WHERE family = 'f'))
          INTO logged2, api FROM public.wlog l WHERE l.key ~ 'p0w';
        r.seen_api := r.logged - (logged2 - api);
        IF api < logged2 THEN
          SELECT string_agg(l.key || ' in ' || coalesce((SELECT tableoid::regclass::text FROM public.d WHERE row_key = l.key), 'none'), ', ')
            INTO miss FROM public.wlog l WHERE l.key ~ 'p0w' AND l.key NOT IN
              (SELECT row_key FROM wide.read_rows(NULL::public.d) WHERE family = 'f');
        END IF;
      EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'read %% failed: %%', n, SQLERRM;
        r := NULL;
      END;
      COMMIT;
    END IF;
    IF r IS NOT NULL THEN
      INSERT INTO public.rlog VALUES (%d, n, r.logged, r.seen, r.seen_api, r.dups,
                                      r.logged = r.seen AND r.logged = r.seen_api AND r.dups = 0,
                                      miss, (SELECT string_agg(format('%%s %%s %%s', t.op, t.tablet, t.step), '; ')
                                               FROM wide.tablet_ops t WHERE t.finished > now() - interval '2 s' OR t.step NOT IN ('done', 'rolled back')));
      COMMIT;
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;};

sub start_psql
{
	my ($node, @sql) = @_;
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), map { ('-c', $_) } @sql ],
		\$in, \$out, \$err);
	return { h => $h, out => \$out, err => \$err };
}

# kill -9 a server's postmaster and every child, as a machine crash would
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

sub tablets
{
	return split /\n/, $coord->safe_psql('postgres', q{
		SELECT c.oid::regclass::text || ' ' || coalesce(s.srvname, 'local')
		  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		  LEFT JOIN pg_foreign_table ft ON ft.ftrelid = c.oid LEFT JOIN pg_foreign_server s ON s.oid = ft.ftserver
		 WHERE i.inhparent = 'd'::regclass ORDER BY 1});
}

my %stats = (ops => 0, op_errors => 0, coord_kills => 0, node_kills => 0, rounds => 0);
my %op_counts;
my @failures;
my $incarnation = 0;
my $coord_killed = 0;
my $round_partial = 0;

# the settle step after a round: nodes' leftovers resolved, operations resumed
sub settle
{
	for my $n ('n1', 'n2')
	{
		my ($ret, $out, $err) = $coord->psql('postgres', "SELECT count(*) FROM wide.resolve_tablets('$n')");
		push @failures, "resolve_tablets($n): $err" if $ret != 0;
	}
	my ($ret, $out, $err) = $coord->psql('postgres', 'CALL wide.resume_tablet_ops()');
	push @failures, "resume_tablet_ops: $err" if $err =~ /WARNING|ERROR/;
}

sub run_op
{
	my @t = tablets();
	my $pick = rand();
	my ($sql, $kind);
	my ($tab, $where) = split / /, $t[ int(rand(@t)) ];
	if ($pick < 0.35 && @t < 9)
	{
		($sql, $kind) = (qq{CALL wide.split_tablet('d', '$tab')}, 'split');
	}
	elsif ($pick < 0.7)
	{
		my @to = grep { $_ ne $where } ('local', 'n1', 'n2');
		($sql, $kind) = (sprintf(q{CALL wide.move_tablet('d', '%s', '%s')}, $tab, $to[ int(rand(@to)) ]), 'move');
	}
	elsif ($pick < 0.8 && !$trunc_in_ops
		&& $coord->safe_psql('postgres', q{SELECT count(*) FROM wide.tablet_ops WHERE step IN ('created', 'copied', 'swapped')}) > 0)
	{
		# an operation a kill left open: TRUNCATE now is defect 3 (below)
		($sql, $kind) = ('CALL wide.resume_tablet_ops()', 'resume');
	}
	elsif ($pick < 0.8)
	{
		($sql, $kind) = ('BEGIN; TRUNCATE d; TRUNCATE wlog; COMMIT', 'truncate');
	}
	elsif ($pick < 0.9)
	{
		($sql, $kind) = (sprintf(q{SELECT wide.create_family('d', 'x%d', max_versions => %d)},
				$stats{ops}, 1 + int(rand(3))), 'create_family');
	}
	else
	{
		($sql, $kind) = (sprintf(q{SELECT wide.alter_family('d', 'f', max_versions => %d)}, 1 + int(rand(4))),
			'alter_family');
	}
	my @pre = $op_settings ? random_settings() : ();
	$stats{ops}++;
	$op_counts{$kind}++;
	if ($trunc_in_ops && ($kind eq 'split' || $kind eq 'move'))
	{
		# TRUNCATE while the operation waits before its catch-up and swap
		my ($lin, $lout, $lerr) = ('', '', '');
		my $locker = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
			\$lin, \$lout, \$lerr);
		$lin .= "BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 2 FOR UPDATE; SELECT 'locked';\n";
		$locker->pump until $lout =~ /locked/;
		my $op = start_psql($coord, @pre, $sql);
		$coord->poll_query_until('postgres',
			q{SELECT EXISTS (SELECT FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ~ 'wide\.(split|move)_tablet')});
		$coord->psql('postgres', 'BEGIN; TRUNCATE d; TRUNCATE wlog; COMMIT');
		$lin .= "COMMIT; SELECT 'unlocked';\n";
		$locker->pump until $lout =~ /unlocked/;
		$lin .= "\\q\n";
		$locker->finish;
		return { %$op, kind => $kind, sql => $sql, start => time() };
	}
	# (a transaction of several statements: one -c)
	my $op = start_psql($coord, @pre, $sql);
	return { %$op, kind => $kind, sql => $sql, start => time() };
}

sub op_done
{
	my ($op) = @_;
	$op->{h}->finish;
	my $err = ${ $op->{err} };
	if ($err =~ /ERROR|FATAL/ && $op->{kind} eq 'truncate')
	{
		# TRUNCATE through the parent commits node after node
		# (postgres_fdw, like INSERT: documented as not atomic across
		# nodes): a node failing at the commit may leave the others
		# truncated and the log not.  Truncate again, and take the reads
		# of the round as they come.
		$stats{partial_truncates}++;
		$round_partial = 1;
		for (1 .. 20)
		{
			my ($ret) = $coord->psql('postgres', 'BEGIN; TRUNCATE d; TRUNCATE wlog; COMMIT');
			last if $ret == 0;
			sleep 1;
		}
	}
	if ($err =~ /ERROR|FATAL/)
	{
		$stats{op_errors}++;
		my ($first) = $err =~ /((?:ERROR|FATAL):[^\n]*)/;
		note("$op->{kind}: $first");
		push @failures, "op $op->{sql}: $first"
		  unless $first =~ /could not connect|server closed the connection|terminating connection|node "n\d" failed|is unfinished|connection to server|the database system is|locked by prepared transactions|is empty: give the key|deadlock detected|server "n\d"/;
	}
}

# a client ended: its errors (a failed write or read is caught and
# counted; an error that ends it must come from a kill)
sub client_done
{
	my ($c) = @_;
	return if $c->{done}++;
	$c->{h}->finish;
	my $err = ${ $c->{err} };
	my @failed = $err =~ /((?:write|read) \S+ failed: [^\n]*)/g;
	$stats{client_errors} += @failed;
	note("client error: $_") for @failed[0 .. ($#failed > 4 ? 4 : $#failed)];
	my @fatal = grep { !/could not connect|server closed|terminat|connection to server|node "n\d" failed|the database system is|no connection to the server/ }
	  $err =~ /^((?:ERROR|FATAL|PANIC):[^\n]*)/mg;
	push @failures, "$c->{kind} $c->{w}: " . join(' | ', @fatal) if @fatal;
	$stats{client_ends}++ if $err =~ /^(?:ERROR|FATAL):/m;
}

# the model check after a round
sub check
{
	my ($round) = @_;
	my $q = sub { $coord->safe_psql('postgres', $_[0]) };
	my $multi = $q->(q{SELECT string_agg(l.key || ':' || n, ', ') FROM
		(SELECT l.key, count(d.row_key) n FROM wlog l LEFT JOIN d ON d.row_key = l.key AND d.family = 'f'
		 GROUP BY l.key HAVING count(d.row_key) <> 1) l});
	is($multi, '', "round $round: every logged write is read exactly once through the parent");
	my $api = $q->(q{SELECT string_agg(l.key || ':' || n, ', ') FROM
		(SELECT l.key, count(a.row_key) n FROM wlog l
		   LEFT JOIN (SELECT row_key FROM wide.read_rows(NULL::d) WHERE family = 'f') a ON a.row_key = l.key
		 GROUP BY l.key HAVING count(a.row_key) <> 1) l});
	is($api, '', "round $round: and through wide.read_rows");
	my $unlogged = $q->(q{SELECT string_agg(row_key, ', ') FROM d WHERE family = 'f'
		AND NOT EXISTS (SELECT FROM wlog l WHERE l.key = d.row_key)});
	my @bad = grep { !($coord_killed && /p0w/) } split /, /, $unlogged;
	is(join(', ', @bad), '', "round $round: no cell without its log row (but for parent writes cut off by a coordinator kill)");
	is($q->(q{SELECT count(*) - count(DISTINCT row_key) FROM d WHERE family = 'f'}), '0',
		"round $round: no row key twice");
	# a read by wide.read_rows that missed a write the parent read fails the
	# round (with WIDE_DIST_STRICT_API_READS=0 it is only counted)
	my $api_miss = $q->(q{SELECT string_agg(format('w%s#%s logged %s api %s (operations then: %s)', w, n, logged, seen_api, ops), '; ')
		FROM rlog WHERE NOT ok AND logged = seen AND dups = 0 AND seen_api < logged});
	if ($api_miss ne '' && !$strict_api)
	{
		$stats{api_misses}++;
		note("round $round: read_rows missed writes: $api_miss");
		$q->(q{DELETE FROM rlog WHERE NOT ok AND logged = seen AND dups = 0 AND seen_api < logged});
	}
	if ($round_partial)
	{
		my $partial = $q->(q{SELECT count(*) FROM rlog WHERE NOT ok AND seen < logged});
		note("round $round: $partial reads missed writes after a TRUNCATE that failed on a node");
		$q->(q{DELETE FROM rlog WHERE NOT ok AND seen < logged});
	}
	my $rbad = $q->(q{SELECT string_agg(format('w%s#%s logged %s seen %s api %s dups %s (not read by read_rows: %s; operations then: %s)', w, n, logged, seen, seen_api, dups, miss, ops), '; ')
		FROM rlog WHERE NOT ok});
	is($rbad // '', '', "round $round: every read saw what was logged before it");
	is(join(',', map { $_->safe_psql('postgres', 'SELECT count(*) FROM pg_prepared_xacts') } ($n1, $n2)), '0,0',
		"round $round: nothing left prepared on the nodes");
	is($q->(q{SELECT count(*) FROM wide.tablet_ops WHERE step NOT IN ('done', 'rolled back')}), '0',
		"round $round: every split and move done or rolled back");
	my $stats = $q->(q{SELECT count(*) FROM wlog}) . ' logged writes, '
	  . $q->(q{SELECT count(*) FROM rlog}) . ' reads';
	note("round $round: $stats");
	$stats{writes} += $q->(q{SELECT count(*) FROM wlog});
	$stats{reads} += $q->(q{SELECT count(*) FROM rlog});
	$q->('TRUNCATE rlog; DELETE FROM stop');
	push @failures, "round $round (seed $seed): model check failed" unless Test::More->builder->is_passing;
}

for my $round (1 .. $rounds)
{
	$coord_killed = 0;
	$round_partial = 0;
	my @clients;
	my $start_client = sub {
		my ($kind, $w) = @_;
		$incarnation++;
		my $sql = $kind eq 'writer'
		  ? sprintf($writer, $incarnation * 10_000_000, $w, $w, $w)
		  : sprintf($reader, $mixed_reads ? 'true' : 'false', $incarnation);
		return { %{ start_psql($coord, random_settings(), $sql) }, kind => $kind, w => $w };
	};
	my $start_clients = sub {
		@clients = map { $start_client->(@$_) } ([ 'writer', 1 ], [ 'writer', 2 ], [ 'reader', 1 ]);
	};
	# a client whose COMMIT failed (a node killed under it) ends: start another
	my $reap = sub {
		my ($restart) = @_;
		for my $c (@clients)
		{
			$c->{h}->pump_nb if $c->{h}->pumpable;
			next if $c->{h}->pumpable;
			client_done($c);
			$stats{client_restarts}++ if $restart;
			$c = $start_client->($c->{kind}, $c->{w}) if $restart;
		}
	};
	$start_clients->();
	my $kill_at = $kills && rand() < 0.7 ? time() + 2 + rand($seconds - 4) : 0;
	my $kill_coord = rand() < 0.5;
	my $end = time() + $seconds;
	my $op;
	while (time() < $end || $op)
	{
		$reap->(time() < $end);
		if ($kill_at && time() >= $kill_at)
		{
			$kill_at = 0;
			if ($kill_coord)
			{
				note("round $round: kill -9 of the coordinator" . ($op ? " during a $op->{kind}" : ''));
				crash($coord);
				$stats{coord_kills}++;
				$coord_killed = 1;
				client_done($_) for @clients;
				@clients = ();
				if ($op) { op_done($op); $op = undef; }
				$coord->start;
				settle();
				$start_clients->();
			}
			else
			{
				my $victim = rand() < 0.5 ? $n1 : $n2;
				note("round $round: kill -9 of node " . $victim->name . ($op ? " during a $op->{kind}" : ''));
				crash($victim);
				$stats{node_kills}++;
				usleep(300_000);
				$victim->start;
			}
			next;
		}
		if ($op && time() - $op->{start} > 60)
		{
			my $act = $coord->safe_psql('postgres', q{SELECT string_agg(concat_ws(' ', pid, wait_event, left(query, 60)), '; ')
				FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()});
			push @failures, "round $round: $op->{kind} hung ($op->{sql}): $act";
			$stats{hangs}++;
			$coord->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()});
			$op->{start} = time();
		}
		if ($op)
		{
			$op->{h}->pump_nb;
			if (!$op->{h}->pumpable)
			{
				op_done($op);
				$op = undef;
			}
			usleep(20_000);
			next;
		}
		$op = run_op() if time() < $end;
		usleep(100_000);
	}
	$coord->safe_psql('postgres', 'INSERT INTO stop VALUES (true)');
	client_done($_) for @clients;
	settle();
	check($round);
	$stats{rounds}++;
}

diag(sprintf('dist stress: seed %d, %d rounds, %d writes checked, %d reads, %d operations (%s), '
	  . '%d failed, %d kills of the coordinator, %d of a node, %d failed client statements, %d clients restarted, '
	  . '%d hung, %d rounds with a read_rows miss, %d TRUNCATEs failed on a node, %d session settings tried (%s)',
	$seed, $stats{rounds}, $stats{writes} // 0, $stats{reads} // 0, $stats{ops},
	join(', ', map { "$_ $op_counts{$_}" } sort keys %op_counts), $stats{op_errors},
	$stats{coord_kills}, $stats{node_kills}, $stats{client_errors} // 0, $stats{client_restarts} // 0,
	$stats{hangs} // 0, $stats{api_misses} // 0, $stats{partial_truncates} // 0, scalar(keys %tried), join(' ', sort keys %tried)));
diag("failure: $_") for @failures;
is(scalar(@failures), 0, 'no unexplained failure');
$_->stop for @nodes;
done_testing();
