# Transaction model test: random transactions with savepoints, rollbacks,
# family DDL (create, alter, drop, re-create), deletes of every kind,
# aggregates, and wide.compact and self-triggered flushes inside and between
# them, checked against a model kept in heap tables in the same
# transactions (so every rollback applies to both alike).
#
# The model: "model" holds one row per cell (a put replaces the row of its
# coordinates, an add updates a sum, a delete removes the rows of its scope)
# and "mfam" the family list with each family's max_versions.  GC is applied
# when the model is read.  Dropping a family removes its cells from the
# model; a re-created family starts empty (a new incarnation).  After every
# few operations, inside transactions too, the wide table and the model are
# read and must agree cell for cell.
#
# A version hidden by max_versions is collected for good, whether or not a
# compaction has run (issue 24, defect 10): a delete of some versions that
# removes a visible one also removes those the family's policy hides at that
# moment, and the model does the same.  Compactions and VACUUMs run at
# random points (after any operation, inside transactions too), so a result
# that depended on them would differ from the model.  A family's
# max_versions is only ever lowered by a committed alter_family (a
# rolled-back one changes nothing).
#
# A second session now and then holds a REPEATABLE READ snapshot through
# ~25 operations: its reads of wide and of the model must not change.
#
# Seeds: WIDE_TXN_SEED=<n> runs that one seed, WIDE_TXN_OPS=<n> sets the
# operations per seed (default: seeds 1..3, 400 operations each).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @seeds = defined $ENV{WIDE_TXN_SEED} ? ($ENV{WIDE_TXN_SEED}) : (1, 2, 3);
my $nops = $ENV{WIDE_TXN_OPS} // 400;

my $node = PostgreSQL::Test::Cluster->new('txn_model');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nmax_locks_per_transaction = 256\n");
$node->start;

my $psql = $node->background_psql('postgres', on_error_stop => 0);
$psql->query_safe(q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8,
	                value int8) USING wide;
	CREATE TABLE model (row_key text COLLATE "C", family text COLLATE "C",
	                    qualifier text COLLATE "C", ts int8, value int8);
	CREATE TABLE mfam (name text PRIMARY KEY, max_versions int, agg boolean);
});

my $read_wide = q{SELECT coalesce(string_agg(row_key || ',' || family || ','
	|| qualifier || ',' || ts || ',' || value, ';'), '') FROM t};
my $read_fn = q{SELECT coalesce(string_agg(row_key || ',' || family || ','
	|| qualifier || ',' || ts || ',' || value, ';'), '')
	FROM wide.read_rows(NULL::t)};
my $read_model = q{SELECT coalesce(string_agg(row_key || ',' || family || ','
	|| qualifier || ',' || ts || ',' || value, ';'
	ORDER BY row_key, family, qualifier, ts DESC), '')
	FROM (SELECT m.*, f.max_versions, row_number() OVER (PARTITION BY
	        m.row_key, m.family, m.qualifier ORDER BY m.ts DESC) AS rn
	      FROM model m JOIN mfam f ON f.name = m.family) m
	WHERE max_versions IS NULL OR rn <= max_versions};

sub rnd { return int(rand($_[0])); }
sub key { return 'r' . sprintf('%02d', rnd(6)); }
sub qual { return 'q' . rnd(3); }

# the families as the current transaction sees them: name => [mv, agg]
sub families
{
	my %f;
	my $s = $psql->query_safe(
		q{SELECT coalesce(string_agg(name || ':' || coalesce(max_versions, 0) || ':' || agg::int, ' '), '') FROM mfam});
	for (split / /, $s)
	{
		my ($n, $mv, $agg) = split /:/;
		$f{$n} = [ $mv, $agg ];
	}
	return \%f;
}

sub put_model
{
	my ($k, $fam, $q, $ts, $v) = @_;
	return "DELETE FROM model WHERE row_key = '$k' AND family = '$fam' AND qualifier = '$q' AND ts = $ts;"
	  . " INSERT INTO model VALUES ('$k', '$fam', '$q', $ts, $v)";
}

sub add_model
{
	my ($k, $fam, $q, $ts, $v) = @_;
	return "UPDATE model SET value = value + $v WHERE row_key = '$k' AND family = '$fam' AND qualifier = '$q' AND ts = $ts;"
	  . " INSERT INTO model SELECT '$k', '$fam', '$q', $ts, $v WHERE NOT EXISTS"
	  . " (SELECT FROM model WHERE row_key = '$k' AND family = '$fam' AND qualifier = '$q' AND ts = $ts)";
}

# one data or DDL operation: (statement on wide, statement on the model)
sub operation
{
	my ($in_txn, $no_ddl) = @_;
	my $fams = families();
	my @names = sort keys %$fams;
	my @plain = grep { !$fams->{$_}[1] } @names;
	my @agg = grep { $fams->{$_}[1] } @names;
	my @free = grep { !exists $fams->{$_} } ('a', 'b', 'c', 's');
	my ($k, $q, $ts, $v) = (key(), qual(), rnd(5), rnd(1000) - 500);
	my $p = rnd(100);

	# family DDL and maintenance are more frequent inside transactions,
	# where a rollback must undo what they did
	$p = int($p / 2) if $in_txn && rnd(2);

	if ($p < 8 && @free && !$no_ddl)
	{
		my $n = $free[ rnd(@free) ];
		return ("SELECT wide.create_family('t', '$n', aggregate => 'sum')",
			"INSERT INTO mfam VALUES ('$n', NULL, true)")
		  if $n eq 's';
		my $mv = rnd(2) ? rnd(3) + 1 : undef;
		return (
			"SELECT wide.create_family('t', '$n'" . (defined $mv ? ", max_versions => $mv" : '') . ')',
			"INSERT INTO mfam VALUES ('$n', " . ($mv // 'NULL') . ', false)');
	}
	if ($p < 13 && @names && !$no_ddl)
	{
		my $n = $names[ rnd(@names) ];
		my $then = ('', "; SELECT FROM wide.compact('t')", "; SELECT FROM wide.compact('t', true)")[ rnd(3) ];
		return ("SELECT wide.drop_family('t', '$n')$then",
			"DELETE FROM model WHERE family = '$n'; DELETE FROM mfam WHERE name = '$n'");
	}
	if ($p < 21 && @plain && !$no_ddl)
	{
		# drop and re-create: the new incarnation starts empty, while the
		# old one's cells may stay in runs until a compaction drops them
		my $n = $plain[ rnd(@plain) ];
		my $mv = rnd(2) ? rnd(3) + 1 : undef;
		return (
			"SELECT wide.drop_family('t', '$n'); SELECT wide.create_family('t', '$n'"
			  . (defined $mv ? ", max_versions => $mv" : '') . ')',
			"DELETE FROM model WHERE family = '$n'; UPDATE mfam SET max_versions = "
			  . ($mv // 'NULL') . " WHERE name = '$n'");
	}
	if ($p < 25 && @plain && !$no_ddl)
	{
		# lower max_versions (never raise: collected versions stay collected)
		my $n = $plain[ rnd(@plain) ];
		my $mv = $fams->{$n}[0];
		my $new = $mv == 0 ? rnd(3) + 1 : $mv > 1 ? rnd($mv - 1) + 1 : undef;
		if (defined $new)
		{
			my $then = ('', "; SELECT FROM wide.compact('t')", "; SELECT FROM wide.compact('t', true)")[ rnd(3) ];
			return ("SELECT wide.alter_family('t', '$n', max_versions => $new)$then",
				"UPDATE mfam SET max_versions = $new WHERE name = '$n'");
		}
	}
	return ("SELECT FROM wide.compact('t')", 'SELECT 1') if $p < 29;
	return ("SELECT FROM wide.compact('t', true)", 'SELECT 1') if $p < 31;
	return ('VACUUM t', 'SELECT 1') if $p < 32 && !$in_txn;

	return ('SELECT 1', 'SELECT 1') unless @names;
	my $fam = $names[ rnd(@names) ];
	my ($mv, $isagg) = @{ $fams->{$fam} };
	$p = rnd(100);

	if ($isagg && $p < 50)
	{
		return rnd(2)
		  ? ("INSERT INTO t VALUES ('$k', '$fam', '$q', $ts, $v)", add_model($k, $fam, $q, $ts, $v))
		  : ("SELECT wide.add_to_cell('t', '$k'::text, '$fam'::text, '$q'::text, ${ts}::int8, ${v}::int8)",
			add_model($k, $fam, $q, $ts, $v));
	}
	if (!$isagg && $p < 50)
	{
		return rnd(2)
		  ? ("INSERT INTO t VALUES ('$k', '$fam', '$q', $ts, $v)", put_model($k, $fam, $q, $ts, $v))
		  : ("SELECT wide.set_cell('t', '$k'::text, '$fam'::text, '$q'::text, ${v}::int8, ${ts}::int8)",
			put_model($k, $fam, $q, $ts, $v));
	}
	if (!$isagg && $p < 54)
	{
		# many writes in one statement: the write area fills and the
		# backend flushes by itself (wide.flush_threshold = 16 pages)
		my $n = 2500 + rnd(1500);
		my $sel = "SELECT 'r' || lpad((g * 5 % 6)::text, 2, '0') AS k, 'q' || (g % 3) AS q, g % 5 AS ts, g AS v"
		  . " FROM generate_series(1, $n) g";
		return (
			"INSERT INTO t SELECT k, '$fam', q, ts, v FROM ($sel) s",
			"DELETE FROM model m USING ($sel) s WHERE m.row_key = s.k AND m.family = '$fam' AND m.qualifier = s.q AND m.ts = s.ts;"
			  . " INSERT INTO model SELECT DISTINCT ON (k, q, ts) k, '$fam', q, ts, v FROM ($sel) s ORDER BY k, q, ts, v DESC");
	}
	if (!$isagg && $p < 57)
	{
		# COPY: sorted in memory and written as a run of its own
		my $n = 100 + rnd(1500);
		my $sel = "SELECT 'r' || lpad((g * 5 % 6)::text, 2, '0') AS k, 'q' || (g % 3) AS q, g % 5 AS ts, g AS v"
		  . " FROM generate_series(1, $n) g";
		my $awk = "awk 'BEGIN { for (g = 1; g <= $n; g++) printf \"r%02d,$fam,q%d,%d,%d\\n\", g * 5 % 6, g % 3, g % 5, g }'";
		return (
			"COPY t FROM PROGRAM \$\$$awk\$\$ WITH (FORMAT csv)",
			"DELETE FROM model m USING ($sel) s WHERE m.row_key = s.k AND m.family = '$fam' AND m.qualifier = s.q AND m.ts = s.ts;"
			  . " INSERT INTO model SELECT DISTINCT ON (k, q, ts) k, '$fam', q, ts, v FROM ($sel) s ORDER BY k, q, ts, v DESC");
	}
	if ($p < 66)
	{
		# whole column
		return (
			rnd(2)
			? "SELECT wide.delete_cells('t', '$k'::text, '$fam'::text, '$q'::text)"
			: "SELECT wide.mutate_row('t', '$k'::text, '[{\"delete_from_column\": {\"family_name\": \"$fam\", \"column_qualifier\": \"$q\"}}]')",
			"DELETE FROM model WHERE row_key = '$k' AND family = '$fam' AND qualifier = '$q'");
	}
	if ($p < 76)
	{
		# some versions; with max_versions, removing a visible version also
		# removes the versions the policy hides
		my $from = rnd(5);
		my $to = $from + 1 + rnd(3);
		my $r = rnd(3);
		my $w =
			$r == 0 ? "SELECT wide.delete_cells('t', '$k'::text, '$fam'::text, '$q'::text, ${from}::int8, ${to}::int8)"
		  : $r == 1 ? "SELECT wide.mutate_row('t', '$k'::text, '[{\"delete_from_column\": {\"family_name\": \"$fam\", \"column_qualifier\": \"$q\", \"time_range\": {\"start_timestamp_micros\": $from, \"end_timestamp_micros\": $to}}}]')"
		  :           "DELETE FROM t WHERE row_key = '$k' AND family = '$fam' AND qualifier = '$q' AND ts >= $from AND ts < $to";
		my $col = "row_key = '$k' AND family = '$fam' AND qualifier = '$q'";
		my $visible = "(SELECT ts FROM model WHERE $col ORDER BY ts DESC LIMIT $mv) v";
		my $hidden = $mv
		  ? "DELETE FROM model WHERE $col AND ts < (SELECT min(ts) FROM $visible)"
			. " AND EXISTS (SELECT FROM $visible WHERE ts >= $from AND ts < $to); "
		  : '';
		return ($w, $hidden . "DELETE FROM model WHERE $col AND ts >= $from AND ts < $to");
	}
	if ($p < 82)
	{
		return (
			rnd(2)
			? "SELECT wide.delete_family('t', '$k'::text, '$fam'::text)"
			: "SELECT wide.mutate_row('t', '$k'::text, '[{\"delete_from_family\": {\"family_name\": \"$fam\"}}]')",
			"DELETE FROM model WHERE row_key = '$k' AND family = '$fam'");
	}
	if ($p < 86)
	{
		# SQL DELETE of a whole family in a row (its visible versions, and
		# with them the hidden ones)
		return ("DELETE FROM t WHERE row_key = '$k' AND family = '$fam'",
			"DELETE FROM model WHERE row_key = '$k' AND family = '$fam'");
	}
	if ($p < 89)
	{
		return (
			rnd(2)
			? "SELECT wide.delete_row('t', '$k'::text)"
			: "SELECT wide.mutate_row('t', '$k'::text, '[{\"delete_from_row\": {}}]')",
			"DELETE FROM model WHERE row_key = '$k'");
	}
	# a put after a delete in one batch: the put survives
	return $isagg
	  ? ('SELECT 1', 'SELECT 1')
	  : ("SELECT wide.mutate_row('t', '$k'::text, '[{\"delete_from_row\": {}}, {\"set_cell\": {\"family_name\": \"$fam\", \"column_qualifier\": \"$q\", \"timestamp_micros\": $ts, \"value\": $v}}]')",
		"DELETE FROM model WHERE row_key = '$k'; " . put_model($k, $fam, $q, $ts, $v));
}

my $failed = 0;
my $where = '';

# a compaction or VACUUM at a random point: no answer may depend on it
sub maintenance
{
	my ($in_txn) = @_;
	my $p = rnd(100);

	return both("SELECT FROM wide.compact('t')", 'SELECT 1') if $p < 10;
	return both("SELECT FROM wide.compact('t', true)", 'SELECT 1') if $p < 16;
	return both('VACUUM t', 'SELECT 1') if $p < 22 && !$in_txn;
	return 1;
}

# run a statement on both; any error is a failure of the test
sub both
{
	my ($w, $m) = @_;
	for my $sql ($w, $m)
	{
		my $out = $psql->query($sql);
		if ($psql->{stderr} ne '' && $psql->{stderr} =~ /ERROR/)
		{
			diag("$where: error in: $sql\n$psql->{stderr}");
			$failed++;
			$psql->{stderr} = '';
			return 0;
		}
		$psql->{stderr} = '';
	}
	return 1;
}

sub check
{
	my ($what) = @_;
	my $want = $psql->query_safe($read_model);
	for my $q ($read_wide, $read_fn)
	{
		my $got = $psql->query_safe($q);
		next if $got eq $want;
		diag("$where ($what): wide and the model differ");
		diag("wide:  $got");
		diag("model: $want");
		$failed++;
		return 0;
	}
	return 1;
}

# the reader session with an old snapshot
my $reader = $node->background_psql('postgres', on_error_stop => 0);
my ($snap_until, $snap_wide, $snap_model) = (0, '', '');

sub snapshot_begin
{
	$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$snap_wide = $reader->query_safe($read_wide);
	$snap_model = $reader->query_safe($read_model);
	return 1 if $snap_wide eq $snap_model;
	diag("$where: wide and the model differ for a new snapshot");
	diag("wide:  $snap_wide");
	diag("model: $snap_model");
	$failed++;
	return 0;
}

sub snapshot_end
{
	my $w = $reader->query_safe($read_wide);
	my $f = $reader->query_safe($read_fn);
	my $m = $reader->query_safe($read_model);

	$reader->query_safe('COMMIT');
	$snap_until = 0;
	return 1 if $m eq $snap_model && $w eq $snap_wide && $f eq $snap_wide;
	diag("$where: a snapshot's view changed");
	diag("then: $snap_wide");
	diag("wide: $w");
	diag("read_rows: $f");
	diag("model: $m");
	$failed++;
	return 0;
}

for my $seed (@seeds)
{
	note("seed $seed");
	diag("040_txn_model: seed $seed, $nops operations (WIDE_TXN_SEED=$seed to repeat)");
	srand($seed);
	$failed = 0;
	$psql->query_safe(q{
		TRUNCATE t, model, mfam;
		DO $$ DECLARE f text; BEGIN
		  FOR f IN SELECT family FROM wide.families('t') LOOP
		    PERFORM wide.drop_family('t', f);
		  END LOOP;
		END $$;
		SELECT wide.create_family('t', 'a');
		INSERT INTO mfam VALUES ('a', NULL, false);
	});
	my $i = 0;
  OP:
	while ($i < $nops && !$failed)
	{
		if (rnd(100) < 45)
		{
			# a transaction with savepoints
			my @sp;
			both('BEGIN', 'SELECT 1') or last OP;
			my $len = 1 + rnd(12);
			for my $j (1 .. $len)
			{
				$i++;
				$where = "seed $seed, operation $i (in a transaction)";
				my $p = rnd(100);
				if ($p < 12)
				{
					my $name = 'sp' . scalar(@sp);
					push @sp, $name;
					both("SAVEPOINT $name", 'SELECT 1') or last OP;
				}
				elsif ($p < 20 && @sp)
				{
					my $name = $sp[ rnd(@sp) ];
					both("ROLLBACK TO SAVEPOINT $name", 'SELECT 1') or last OP;
					# later savepoints are gone
					pop @sp while $sp[-1] ne $name;
				}
				elsif ($p < 24 && @sp)
				{
					my $name = pop @sp;
					both("RELEASE SAVEPOINT $name", 'SELECT 1') or last OP;
				}
				else
				{
					both(operation(1, $snap_until)) or last OP;
				}
				maintenance(1) or last OP;
				check('inside') or last OP if rnd(4) == 0;
			}
			both(rnd(2) ? 'COMMIT' : 'ROLLBACK', 'SELECT 1') or last OP;
			$where = "seed $seed, operation $i (after the transaction)";
			check('after') or last OP;
		}
		else
		{
			$i++;
			$where = "seed $seed, operation $i";
			both(operation(0, $snap_until)) or last OP;
			maintenance(0) or last OP;
			check('autocommit') or last OP if $i % 5 == 0;
		}

		# now and then a REPEATABLE READ reader in another session keeps a
		# snapshot through ~25 operations (compactions, VACUUM, deletes,
		# flushes): what it reads must not change, on wide as on the heap
		# (no family DDL meanwhile: it would wait for the reader's lock)
		if ($snap_until && $i >= $snap_until)
		{
			$where = "seed $seed, operation $i (the old snapshot)";
			snapshot_end() or last OP;
		}
		elsif (!$snap_until && $i % 60 >= 30)
		{
			$where = "seed $seed, operation $i (an old snapshot)";
			snapshot_begin() or last OP;
			$snap_until = $i + 25;
		}
	}
	if ($snap_until && !$failed)
	{
		$where = "seed $seed, end (the old snapshot)";
		snapshot_end();
	}
	if ($snap_until)
	{
		$reader->query('ROLLBACK');
		$reader->{stderr} = '';
		$snap_until = 0;
	}
	$psql->query('ROLLBACK') if $failed;
	$where = "seed $seed, end";
	unless ($failed)
	{
		both("SELECT FROM wide.compact('t', true)", 'SELECT 1');
		check('after a major compaction');
	}
	is($failed, 0, "seed $seed: wide agrees with the model through $i operations");
	is($psql->query_safe("SELECT count(*) FROM wide.verify('t')"), '0',
		"seed $seed: verify finds nothing wrong");
}

$reader->quit;
$psql->quit;
$node->stop;
done_testing();
