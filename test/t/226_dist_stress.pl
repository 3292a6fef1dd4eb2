# Distributed stress with a model: a coordinator and two nodes, a parent
# of tablets over all three.  Writers (one cell per transaction, through
# the parent -- INSERT -- or the data API -- set_cell, mutate_row -- by the
# key's number) log each write in a local table in the same transaction;
# a reader checks, in one statement, that every write logged through the
# parent is read (postgres_fdw commits on the node before the local
# commit) through the parent and through wide.read_rows, and that no cell
# is read twice.  Meanwhile random splits, moves, TRUNCATEs (of the parent
# and the log together), family DDL, rollup changes (a rollup family of the
# writes, key_parts 1: dropped, made again with its backfill, rebuilt),
# publication attempts and kill -9 of the coordinator or a node run; every session (writers, reader, and with
# WIDE_DIST_OP_SETTINGS=1 the operations too) runs under random settings
# (standard_conforming_strings, DateStyle, IntervalStyle, TimeZone,
# bytea_output, extra_float_digits, search_path); a fifth of the keys hold
# a backslash.  After each round, with the nodes' leftovers resolved and
# the operations resumed: every logged write is read exactly once, through
# the parent and the data API alike; a cell without a log row is only one
# written through the parent whose local commit a coordinator kill cut
# off (documented: not atomic across nodes); nothing is left prepared;
# every operation is done or rolled back; the rollup, when there is one,
# is the aggregate (sum, count, min, max per group and millisecond) of the
# source cells present, each counted once; no publication includes the
# parent while it has a remote tablet.  Publications: the coordinator
# decodes wide tables (preloaded, wal_level logical; not with
# WIDE_DIST_WAL_MINIMAL), so CREATE PUBLICATION of the parent (by name,
# with publish_via_partition_root, by schema, FOR ALL TABLES, ALTER
# PUBLICATION ... SET TABLE) must be refused while it has a remote tablet
# and accepted while all its tablets are local (in some rounds moves bring
# tablets home to get there); a move to a node of a published parent must
# be refused, at its start or (published during its copy: attempts are
# also made while a split or move waits before its swap) at its swap,
# which resume_tablet_ops rolls back; an accepted publication is dropped
# by a later operation.  Splits are at a group's key (a rollup key), as
# split_tablet requires of a rollup with key_parts.
#
# Environment: WIDE_DIST_ROUNDS (default 3), WIDE_DIST_SECONDS per round
# (default 12), WIDE_DIST_SEED (default random, printed), WIDE_DIST_KILLS
# (default 1: kill -9 of the coordinator or a node in some rounds),
# WIDE_DIST_OP_SETTINGS (default 1: issue 24 defect 2, random settings in
# the sessions that split and move), WIDE_DIST_TRUNCATE_IN_OPS (default 1:
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
use WideTablets;
use IPC::Run;
use Time::HiRes qw(usleep time);
use Test::More;

my $rounds = $ENV{WIDE_DIST_ROUNDS} // 3;
my $seconds = $ENV{WIDE_DIST_SECONDS} // 12;
my $seed = $ENV{WIDE_DIST_SEED} // int(rand(1_000_000));
my $kills = $ENV{WIDE_DIST_KILLS} // 1;
my $op_settings = $ENV{WIDE_DIST_OP_SETTINGS} // 1;
my $trunc_in_ops = $ENV{WIDE_DIST_TRUNCATE_IN_OPS} // 1;
my $wal_minimal = $ENV{WIDE_DIST_WAL_MINIMAL} // 0;
my $mixed_reads = $ENV{WIDE_DIST_MIXED_READS} // 0;
my $strict_api = $ENV{WIDE_DIST_STRICT_API_READS} // 1;
srand($seed);
diag("dist stress: seed $seed, $rounds rounds of $seconds s (repeat with WIDE_DIST_SEED=$seed "
	  . "WIDE_DIST_ROUNDS=$rounds WIDE_DIST_SECONDS=$seconds WIDE_DIST_KILLS=$kills "
	  . "WIDE_DIST_OP_SETTINGS=$op_settings WIDE_DIST_TRUNCATE_IN_OPS=$trunc_in_ops WIDE_DIST_STRICT_API_READS=$strict_api)");
$PostgreSQL::Test::Utils::timeout_default = 60;

my @nodes = tablet_nodes(sub {
	my ($name) = @_;
	return "max_prepared_transactions = 20\nmax_connections = 40\n"
	  . ($wal_minimal ? '' : "wal_level = replica\nmax_wal_senders = 2\n")
	  # the coordinator decodes its wide tables (publications of a parent
	  # whose tablets are all local are accepted)
	  . ($name eq 'coord' && !$wal_minimal
		? "wal_level = logical\nshared_preload_libraries = 'wide'\n" : '');
});
my ($coord, $n1, $n2) = @nodes;
# the rollup of family f: under the key's part before '#' (its group), per
# millisecond of ts; every split is at a group's key
my $rollup = '{"source": "f", "bucket": "0.001 seconds", "functions": ["sum", "count", "min", "max"], "key_parts": 1}';
$coord->safe_psql('postgres', qq{
	CREATE TABLE d (row_key text COLLATE "C", family text COLLATE "C",
	                qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('d', 'f');
	SELECT wide.create_family('d', 'r', rollup => '$rollup');
	SELECT wide.create_tablets('d', ARRAY['h', 'p'], ARRAY['local', 'n1', 'n2']);
	CREATE TABLE wlog (key text COLLATE "C" PRIMARY KEY, w int, i bigint);
	CREATE TABLE rlog (w int, n int, logged bigint, seen bigint, seen_api bigint, dups bigint, ok boolean, miss text, ops text);
	CREATE TABLE stop (b boolean);
	-- (deletes from them while a publication includes them)
	ALTER TABLE stop REPLICA IDENTITY FULL;
	ALTER TABLE rlog REPLICA IDENTITY FULL;
	CREATE PUBLICATION ph FOR TABLE stop;
});
# (the first split makes the journal the reader looks at)
$coord->safe_psql('postgres', q{CALL wide.split_tablet('d', 'd_1', 'c')});
# (a published d's deletes -- rebuild_rollup -- need a replica identity on
# every tablet; the parent's goes to the tablets splits and moves make)
$coord->safe_psql('postgres', q{ALTER TABLE d REPLICA IDENTITY FULL});
$coord->safe_psql('postgres', "ALTER TABLE $_ REPLICA IDENTITY FULL") for map { (split / /)[0] } grep { / local$/ } tablets();

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
         || 'p' || (i %% 3) || 'w' || %d || '#' || i;
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
    -- (a few hundred writes a second at most: with every tablet local,
    -- writes are many times faster than through a node)
    PERFORM pg_sleep(0.003);
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
my $gather = 0;

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

# the key of a group (a rollup key) in the middle of the tablet's groups,
# above its lower bound; '' if it has fewer than two
sub split_key
{
	my ($tab) = @_;
	my ($ret, $out) = $coord->psql('postgres', qq{
		SELECT g FROM (SELECT g, row_number() OVER (ORDER BY g) n, count(*) OVER () c
		  FROM (SELECT DISTINCT split_part(row_key, '#', 1) COLLATE "C" g FROM d
		         WHERE tableoid = '$tab'::regclass AND family = 'f') x) y
		 WHERE c > 1 AND n = 1 + (c + 1) / 2});
	return $ret == 0 ? $out : '';
}

# publications that include d (by name, by schema or all tables)
my $covering = q{SELECT coalesce(string_agg(p.pubname, ', ' ORDER BY p.pubname), '') FROM pg_publication p
	WHERE p.puballtables OR EXISTS (SELECT FROM pg_publication_rel r WHERE r.prpubid = p.oid AND r.prrelid = 'd'::regclass)
	   OR EXISTS (SELECT FROM pg_publication_namespace n WHERE n.pnpubid = p.oid AND n.pnnspid = 'public'::regnamespace)};
my @pubnames;
my $pubseq = 0;

# a publication of d, in one of the forms that include it (each name new: a
# publication attempted while an operation waits, and the operation after
# it, once took the same number from the operation count)
sub publish_sql
{
	my $n = 'p' . ++$pubseq;
	my @forms = ("CREATE PUBLICATION $n FOR TABLE d", "CREATE PUBLICATION $n FOR TABLE d WITH (publish_via_partition_root)",
		"CREATE PUBLICATION $n FOR TABLES IN SCHEMA public", "CREATE PUBLICATION $n FOR ALL TABLES",
		'ALTER PUBLICATION ph SET TABLE stop, d');
	my $sql = $forms[ int(rand(@forms)) ];
	push @pubnames, $n if $sql =~ /^CREATE/;
	return $sql;
}

# what a publication attempt must do: refused while d has a remote tablet,
# accepted (wide decodes here) while all its tablets are local
sub publish_expect
{
	return $coord->safe_psql('postgres', q{SELECT EXISTS (SELECT FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'd'::regclass AND c.relkind = 'f')}) eq 't' ? 'refused' : 'accepted';
}

sub run_op
{
	my @t = tablets();
	my $pick = rand();
	my ($sql, $kind, $expect);
	my ($tab, $where) = split / /, $t[ int(rand(@t)) ];
	# (in a gathering round, tablets come home, then d is published)
	my @remote = grep { !/ local$/ } @t;
	$pick = @remote ? 0.3 + rand(0.3) : 0.9 + rand(0.1) if $gather && rand() < (@remote ? 0.8 : 0.4);
	# (splits at a group's key: the rollup's groups stay whole)
	my $at = $pick < 0.3 && @t < 9 ? split_key($tab) : '';
	$pick = 0.3 + rand(0.3) if $pick < 0.3 && $at eq '';
	if ($pick < 0.3)
	{
		(my $lit = $at) =~ s/'/''/g;
		($sql, $kind) = (qq{CALL wide.split_tablet('d', '$tab', E'} . ($lit =~ s/\\/\\\\/gr) . q{')}, 'split');
	}
	elsif ($pick < 0.6)
	{
		# (in a gathering round, moves bring tablets home: a parent whose
		# tablets are all local may be published)
		($tab, $where) = split / /, $remote[ int(rand(@remote)) ] if $gather && @remote;
		my @to = grep { $_ ne $where } ('local', 'n1', 'n2');
		@to = ('local') if $gather && $where ne 'local';
		($sql, $kind) = (sprintf(q{CALL wide.move_tablet('d', '%s', '%s')}, $tab, $to[ int(rand(@to)) ]), 'move');
	}
	elsif ($pick < 0.68 && !$trunc_in_ops
		&& $coord->safe_psql('postgres', q{SELECT count(*) FROM wide.tablet_ops WHERE step IN ('created', 'copied', 'swapped')}) > 0)
	{
		# an operation a kill left open: TRUNCATE now is defect 3 (below)
		($sql, $kind) = ('CALL wide.resume_tablet_ops()', 'resume');
	}
	elsif ($pick < 0.68)
	{
		($sql, $kind) = ('BEGIN; TRUNCATE d; TRUNCATE wlog; COMMIT', 'truncate');
	}
	elsif ($pick < 0.74)
	{
		($sql, $kind) = (sprintf(q{SELECT wide.create_family('d', 'x%d', max_versions => %d)},
				$stats{ops}, 1 + int(rand(3))), 'create_family');
	}
	elsif ($pick < 0.8)
	{
		($sql, $kind) = (sprintf(q{SELECT wide.alter_family('d', 'f', max_versions => %d)}, 1 + int(rand(4))),
			'alter_family');
	}
	elsif ($pick < 0.9)
	{
		# the rollup: rebuilt, dropped, made again (its backfill under writes)
		if ($coord->safe_psql('postgres', q{SELECT count(*) FROM wide.rollups('d')}) eq '0')
		{
			($sql, $kind) = (qq{SELECT wide.create_family('d', 'r', rollup => '$rollup')}, 'create_rollup');
		}
		elsif (rand() < 0.6)
		{
			($sql, $kind) = (q{SELECT wide.rebuild_rollup('d', 'r')}, 'rebuild_rollup');
		}
		else
		{
			($sql, $kind) = (q{SELECT wide.drop_family('d', 'r')}, 'drop_rollup');
		}
	}
	elsif (!$wal_minimal && $coord->safe_psql('postgres', $covering) ne '' && rand() < 0.6)
	{
		($sql, $kind) = ('BEGIN; ' . join('', map { "DROP PUBLICATION IF EXISTS $_; " } @pubnames)
			  . 'ALTER PUBLICATION ph SET TABLE stop; COMMIT', 'unpublish');
		@pubnames = ();
	}
	elsif (!$wal_minimal)
	{
		($sql, $kind, $expect) = (publish_sql(), 'publish', publish_expect());
	}
	else
	{
		($sql, $kind) = ('CALL wide.resume_tablet_ops()', 'resume');
	}
	my @pre = $op_settings ? random_settings() : ();
	$stats{ops}++;
	$op_counts{$kind}++;
	if (($trunc_in_ops || (!$wal_minimal && rand() < 0.2)) && ($kind eq 'split' || $kind eq 'move'))
	{
		# TRUNCATE, or a publication of d, while the operation waits before
		# its catch-up and swap
		my $inject = $trunc_in_ops && ($wal_minimal || rand() < 0.7) ? 'truncate' : 'publish';
		my ($lin, $lout, $lerr) = ('', '', '');
		my $locker = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
			\$lin, \$lout, \$lerr);
		$lin .= "BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 2 FOR UPDATE; SELECT 'locked';\n";
		$locker->pump until $lout =~ /locked/;
		my $op = start_psql($coord, @pre, $sql);
		# (until it waits there, or has ended: refused at its start, as while
		# a node restarts or an operation a kill left is unfinished --
		# poll_query_until would wait its whole timeout, minutes)
		for (my $until = time() + 60; time() < $until; usleep(100_000))
		{
			$op->{h}->pump_nb if $op->{h}->pumpable;
			last if !$op->{h}->pumpable;
			last if $coord->safe_psql('postgres',
				op_paused_sql('wide\.(split|move)_tablet')) eq 't';
		}
		if ($inject eq 'truncate')
		{
			$coord->psql('postgres', 'BEGIN; TRUNCATE d; TRUNCATE wlog; COMMIT');
		}
		else
		{
			my ($psql, $pexpect) = (publish_sql(), publish_expect());
			my ($ret, $out, $err) = $coord->psql('postgres', $psql);
			publish_done($psql, $pexpect, $err, ' during a ' . $kind);
		}
		$lin .= "COMMIT; SELECT 'unlocked';\n";
		$locker->pump until $lout =~ /unlocked/;
		$lin .= "\\q\n";
		$locker->finish;
		return { %$op, kind => $kind, sql => $sql, start => time() };
	}
	# (a transaction of several statements: one -c)
	my $op = start_psql($coord, @pre, $sql);
	return { %$op, kind => $kind, sql => $sql, expect => $expect, start => time() };
}

# a publication attempt ended: refused exactly when d had a remote tablet
sub publish_done
{
	my ($sql, $expect, $err, $when) = @_;
	my ($first) = $err =~ /((?:ERROR|FATAL):[^\n]*)/;
	if ($expect eq 'refused')
	{
		$stats{publish_refused}++ if $first && $first =~ /cannot publish table .* it has remote tablets/;
		push @failures, "$sql$when: accepted while d has a remote tablet" unless $first;
		push @failures, "$sql$when: $first" if $first && $first !~ /it has remote tablets|could not connect|terminating connection|connection to server/;
	}
	else
	{
		$stats{publish_accepted}++ unless $first;
		push @failures, "$sql$when (all tablets local): $first" if $first && $first !~ /could not connect|terminating connection|connection to server/;
	}
}

sub op_done
{
	my ($op) = @_;
	$op->{h}->finish;
	my $err = ${ $op->{err} };
	if ($op->{kind} eq 'publish')
	{
		publish_done($op->{sql}, $op->{expect}, $err, '');
		return;
	}
	# a move to a node of a published d is refused before it starts; one
	# that a publication made during its copy is refused at its swap (and
	# rolled back by resume_tablet_ops)
	$stats{moves_refused_published}++ if $err =~ /it is published|it has remote tablets/;
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
		  unless $first =~ /could not connect|server closed the connection|terminating connection|node "n\d" failed|is unfinished|connection to server|the database system is|locked by prepared transactions|is empty: give the key|deadlock detected|server "n\d"|it is published|it has remote tablets/;
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
	# the rollup (when there is one) is the aggregate of the source cells
	# that committed, each counted once, whatever split, moved, was
	# killed or truncated
	if ($q->(q{SELECT count(*) FROM wide.rollups('d')}) ne '0')
	{
		my ($n, $bad) = split /\|/, $q->(q{
			WITH s AS (SELECT split_part(row_key, '#', 1) g, ts - ts % 1000 b, sum(value) su, count(*) c,
			                  min(value) mi, max(value) ma
			             FROM d WHERE family = 'f' GROUP BY 1, 2),
			     r AS (SELECT row_key g, ts b, sum(value) FILTER (WHERE qualifier = 'q:sum') su,
			                  sum(value) FILTER (WHERE qualifier = 'q:count') c,
			                  min(value) FILTER (WHERE qualifier = 'q:min') mi,
			                  max(value) FILTER (WHERE qualifier = 'q:max') ma, count(*) n
			             FROM d WHERE family = 'r' GROUP BY 1, 2)
			SELECT (SELECT count(*) FROM r), coalesce(string_agg(format('%s@%s sum/count/min/max %s/%s/%s/%s rollup %s/%s/%s/%s (%s cells)',
			         g, b, s.su, s.c, s.mi, s.ma, r.su, r.c, r.mi, r.ma, r.n), '; '), '')
			  FROM s FULL JOIN r USING (g, b)
			 WHERE (s.su, s.c, s.mi, s.ma) IS DISTINCT FROM (r.su, r.c, r.mi, r.ma) OR r.n <> 4});
		is(substr($bad, 0, 2000), '', "round $round: the rollup is the aggregate of the committed source cells ($n rollup groups)");
		$stats{rollup_checks}++;
		$stats{rollup_groups} += $n;
	}
	my $covers = $q->($covering);
	my $remote = $q->(q{SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'd'::regclass AND c.relkind = 'f'});
	is($remote ne '0' ? $covers : '', '', "round $round: no publication includes d while it has a remote tablet");
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
	$gather = !$wal_minimal && rand() < 0.4;
	note("round $round: gathering tablets home") if $gather;
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
			$op->{h}->pump_nb if $op->{h}->pumpable;
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
	# (a check that fails to run ends the rounds, with what was found so far)
	if (!eval { check($round); 1 })
	{
		push @failures, "round $round: the model check failed to run: $@";
		last;
	}
	$stats{rounds}++;
}

diag(sprintf('dist stress: seed %d, %d rounds, %d writes checked, %d reads, %d operations (%s), '
	  . '%d failed, %d kills of the coordinator, %d of a node, %d failed client statements, %d clients restarted, '
	  . '%d hung, %d rounds with a read_rows miss, %d TRUNCATEs failed on a node, '
	  . 'publications of d: %d accepted (all tablets local), %d refused (a remote tablet), %d moves refused (published), '
	  . 'rollup checked in %d rounds (%d bucket cells), %d session settings tried (%s)',
	$seed, $stats{rounds}, $stats{writes} // 0, $stats{reads} // 0, $stats{ops},
	join(', ', map { "$_ $op_counts{$_}" } sort keys %op_counts), $stats{op_errors},
	$stats{coord_kills}, $stats{node_kills}, $stats{client_errors} // 0, $stats{client_restarts} // 0,
	$stats{hangs} // 0, $stats{api_misses} // 0, $stats{partial_truncates} // 0,
	$stats{publish_accepted} // 0, $stats{publish_refused} // 0, $stats{moves_refused_published} // 0,
	$stats{rollup_checks} // 0, $stats{rollup_groups} // 0, scalar(keys %tried), join(' ', sort keys %tried)));
diag("failure: $_") for @failures;
is(scalar(@failures), 0, 'no unexplained failure');
$_->stop for @nodes;
done_testing();
