#!/usr/bin/perl
#
# test/stress/worker.pl -- one client of the stress test (test/t/020_stress.pl)
#
#   worker.pl ROLE ID SEED ROUND CONNSTR DIR
#
# ROLE is writer (every kind of mutation), copier (COPY mostly), bulk (COPY
# only), reader, vacuum or compact.  The worker runs until
# the file DIR/stop exists, reconnecting whenever the server goes away (the
# stress test kills backends and the postmaster), and then writes a summary
# to DIR/ROLE-ID.summary.  psql's errors go to DIR/ROLE-ID.log; the test
# judges errors by the server log, which names every error's SQLSTATE.
#
# Writers own disjoint row keys ("w<ID>-..."), and every writer transaction
# applies each of its mutations twice, in the same transaction: to the wide
# table t and to the heap table m, which models t by plain SQL (a primary
# key on the cell's coordinates; a write replaces the value, an aggregate
# input adds to it, a delete deletes the same scope).  Since one writer's
# keys see one writer's mutations in order, the model of a key is exact:
# after any crash, t and m hold the same cells (committed transactions in
# both, aborted ones in neither).  Each transaction also inserts (ID, n)
# into the heap table txlog; the numbers of transactions whose commit was
# acknowledged and read back are listed in DIR/ROLE-ID.acked, so the test
# can check that none was lost.
#
use strict;
use warnings;
use IPC::Open2;
use Time::HiRes qw(usleep time);

my ($role, $id, $seed, $round, $connstr, $dir) = @ARGV;
die "usage: worker.pl ROLE ID SEED ROUND CONNSTR DIR\n" unless defined $dir;
srand($seed * 7919 + $round * 104729 + $id * 31 + length($role));
$SIG{PIPE} = 'IGNORE';

my $name = "$role-$id";
my $log = "$dir/$name.log";
my %ops;						# operation => count
my @acked;
my ($psql_in, $psql_out, $psql_pid);
my $marker = 0;
my $lost = 0;					# psql died in the last run_sql

sub stopping { return -e "$dir/stop"; }

# (re)start psql; false if the server does not accept connections
sub connect_psql
{
	disconnect();
	my $cmd = "exec psql -X -q -At -v ON_ERROR_STOP=0 -o /dev/null"
	  . " -d \"$connstr application_name=stress-$name\" 2>>'$log'";
	$psql_pid = open2($psql_out, $psql_in, 'sh', '-c', $cmd);
	run_sql("SELECT 1;");
	return !$lost;
}

sub disconnect
{
	return unless $psql_pid;
	close $psql_in;
	close $psql_out;
	waitpid($psql_pid, 0);
	$psql_pid = undef;
}

# send SQL; return the lines it \echo'ed; $lost says if psql died
sub run_sql
{
	my ($sql) = @_;
	$marker++;
	$lost = 1;
	my $ok = print {$psql_in} $sql, "\n\\echo \@\@done $marker\n";
	$ok &&= $psql_in->flush;
	return () unless $ok;
	my @lines;
	while (my $line = <$psql_out>)
	{
		chomp $line;
		if ($line eq "\@\@done $marker")
		{
			$lost = 0;
			last;
		}
		push @lines, $line;
	}
	return @lines;
}

sub sqlq { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }
sub pick { return $_[ int(rand(@_)) ]; }

# ---------------------------------------------------------------------
# writers: each statement pair is (wide table, heap model)

my $nkeys = 300;
# one key in 37 is 2.5 kB long: its records go to blob pages
sub rkey
{
	my $r = int(rand($nkeys));
	return sprintf("w%d-r%04d", $id, $r) . ($r % 37 == 5 ? '-' . ('x' x 2500) : '');
}
sub qual { return 'q' . int(rand(4)); }
sub tsv  { return 1000 * (1 + int(rand(3))); }
sub val  { return 1 + int(rand(1_000_000)); }

sub m_put
{
	my ($k, $f, $q, $ts, $v) = @_;
	my $set = $f eq 'n' ? 'm.value + EXCLUDED.value' : 'EXCLUDED.value';
	return "INSERT INTO m VALUES (" . sqlq($k) . ", '$f', '$q', $ts, $v)"
	  . " ON CONFLICT (row_key, family, qualifier, ts) DO UPDATE SET value = $set;\n";
}

sub m_del
{
	my ($k, $f, $q, $from, $to) = @_;
	my $w = "row_key = " . sqlq($k);
	$w .= " AND family = '$f'" if defined $f;
	$w .= " AND qualifier = '$q'" if defined $q;
	$w .= " AND ts >= $from" if defined $from;
	$w .= " AND ts < $to" if defined $to;
	return "DELETE FROM m WHERE $w;\n";
}

# a few single-row or multi-row INSERTs
sub op_insert
{
	my $n = 1 + int(rand(4));
	my (%seen, @rows, $sql);
	for (1 .. $n)
	{
		my ($k, $f, $q, $ts) = (rkey(), pick('f', 'f', 'n'), qual(), tsv());
		next if $seen{"$k/$f/$q/$ts"}++;
		my $v = val();
		push @rows, "(" . sqlq($k) . ", '$f', '$q', $ts, $v)";
		$sql .= m_put($k, $f, $q, $ts, $v);
	}
	$ops{insert} += @rows;
	return "INSERT INTO t VALUES " . join(', ', @rows) . ";\n" . $sql;
}

sub op_add_to_cell
{
	my ($k, $q, $ts, $v) = (rkey(), qual(), tsv(), int(rand(1000)) - 300);
	$ops{add_to_cell}++;
	return "SELECT wide.add_to_cell('t', " . sqlq($k) . ", 'n', '$q', ${ts}::int8, ${v}::int8);\n"
	  . m_put($k, 'n', $q, $ts, $v);
}

sub op_sql_delete
{
	my $k = rkey();
	my $r = rand();
	$ops{sql_delete}++;
	if ($r < 0.3)
	{
		return "DELETE FROM t WHERE row_key = " . sqlq($k) . ";\n" . m_del($k);
	}
	elsif ($r < 0.7)
	{
		my ($f, $q) = (pick('f', 'n'), qual());
		return "DELETE FROM t WHERE row_key = " . sqlq($k) . " AND family = '$f' AND qualifier = '$q';\n"
		  . m_del($k, $f, $q);
	}
	else
	{
		# a short key range, and a condition on the value
		my $a = int(rand($nkeys));
		my ($lo, $hi) = (sprintf("w%d-r%04d", $id, $a), sprintf("w%d-r%04d", $id, $a + 3));
		return "DELETE FROM t WHERE row_key BETWEEN '$lo' AND '$hi' AND value % 2 = 0;\n"
		  . "DELETE FROM m WHERE row_key BETWEEN '$lo' AND '$hi' AND value % 2 = 0;\n";
	}
}

sub op_delete_cells
{
	my ($k, $f, $q) = (rkey(), pick('f', 'n'), qual());
	my ($from, $to) = (undef, undef);
	$from = 1000 * (1 + int(rand(3))) if rand() < 0.5;
	$to = ($from // 0) + 1000 * (1 + int(rand(3))) if rand() < 0.5;
	$ops{delete_cells}++;
	return "SELECT wide.delete_cells('t', " . sqlq($k) . ", '$f', '$q', "
	  . (defined $from ? "${from}::int8" : 'NULL::int8') . ", "
	  . (defined $to ? "${to}::int8" : 'NULL::int8') . ");\n"
	  . m_del($k, $f, $q, $from, $to);
}

sub op_delete_row
{
	my $k = rkey();
	$ops{delete_row}++;
	return "SELECT wide.delete_row('t', " . sqlq($k) . ");\n" . m_del($k);
}

# a binary string of wide.mutate_rows_bin's batch (docs/sql.md)
sub bstr { return pack('N', length($_[0])) . $_[0]; }

# mutate_rows of a few entries, or (half the time) the same entries as a
# binary batch of mutate_rows_bin
sub op_mutate_rows
{
	my (@entries, @bin, $model);
	my %keys;
	for (1 .. 1 + int(rand(3)))
	{
		my $k = rkey();
		next if $keys{$k}++;
		my (@muts, @bmuts);
		for (1 .. 1 + int(rand(4)))
		{
			my $r = rand();
			my ($q, $ts) = (qual(), tsv());
			if ($r < 0.45)
			{
				my $v = val();
				push @muts, qq({"set_cell": {"family_name": "f", "column_qualifier": "$q", "timestamp_micros": $ts, "value": $v}});
				push @bmuts, "\x01" . bstr('f') . bstr($q) . pack('q>', $ts) . 'n' . bstr($v);
				$model .= m_put($k, 'f', $q, $ts, $v);
			}
			elsif ($r < 0.7)
			{
				my $v = int(rand(1000));
				push @muts, qq({"add_to_cell": {"family_name": "n", "column_qualifier": "$q", "timestamp_micros": $ts, "input": $v}});
				push @bmuts, "\x02" . bstr('n') . bstr($q) . pack('q>', $ts) . 'n' . bstr($v);
				$model .= m_put($k, 'n', $q, $ts, $v);
			}
			elsif ($r < 0.85)
			{
				my $f = pick('f', 'n');
				push @muts, qq({"delete_from_column": {"family_name": "$f", "column_qualifier": "$q", "time_range": {"start_timestamp_micros": $ts}}});
				push @bmuts, "\x04" . bstr($f) . bstr($q) . pack('q>q>', $ts, 0);
				$model .= m_del($k, $f, $q, $ts);
			}
			elsif ($r < 0.95)
			{
				my $f = pick('f', 'n');
				push @muts, qq({"delete_from_family": {"family_name": "$f"}});
				push @bmuts, "\x05" . bstr($f);
				$model .= m_del($k, $f);
			}
			else
			{
				push @muts, qq({"delete_from_row": {}});
				push @bmuts, "\x06";
				$model .= m_del($k);
			}
		}
		push @entries, qq({"row_key": "$k", "mutations": [) . join(', ', @muts) . "]}";
		push @bin, bstr($k) . pack('N', scalar(@bmuts)) . join('', @bmuts);
	}
	if (rand() < 0.5)
	{
		$ops{mutate_rows_bin}++;
		return "SELECT wide.mutate_rows_bin('t', '\\x" .
		  unpack('H*', "WMR\x01" . pack('N', scalar(@bin)) . join('', @bin)) . "');\n" . $model;
	}
	$ops{mutate_rows}++;
	return "SELECT wide.mutate_rows('t', '[" . join(', ', @entries) . "]');\n" . $model;
}

# a COPY of many cells of one of three key groups: later COPYs of a group
# replace its 'f' cells and add to its 'n' cells
sub op_copy
{
	my $n = 2000 + int(rand(18000));
	my $g = int(rand(3));
	my $lo = int(rand(20000));
	my $salt = int(rand(1000000));
	my $data = "COPY t FROM STDIN (FORMAT csv);\n";
	for my $i ($lo .. $lo + $n - 1)
	{
		my $f = $i % 5 == 0 ? 'n' : 'f';
		$data .= sprintf("w%d-b%d-%06d,%s,c%d,%d,%d\n", $id, $g, $i, $f, $i % 3,
			1000 * (1 + $i % 2), ($i * 7919 + $salt) % 1000003);
	}
	$data .= "\\.\n";
	$ops{copy}++;
	$ops{copy_cells} += $n;
	return $data . <<"SQL";
INSERT INTO m
  SELECT format('w%s-b%s-%s', $id, $g, lpad(i::text, 6, '0')),
         CASE WHEN i % 5 = 0 THEN 'n' ELSE 'f' END, 'c' || (i % 3),
         1000 * (1 + i % 2), (i * 7919::int8 + $salt) % 1000003
    FROM generate_series($lo, $lo + $n - 1) i
  ON CONFLICT (row_key, family, qualifier, ts)
  DO UPDATE SET value = CASE WHEN m.family = 'n' THEN m.value + EXCLUDED.value ELSE EXCLUDED.value END;
SQL
}

sub writer_transaction
{
	my ($n) = @_;
	my $sql = "BEGIN;\nINSERT INTO txlog VALUES ($id, $n);\n";
	if ($role eq 'bulk' || ($role eq 'copier' && rand() < 0.6))
	{
		$sql .= op_copy();
	}
	else
	{
		for (1 .. 1 + int(rand(4)))
		{
			my $r = rand();
			my $savepoint = rand() < 0.1;
			$sql .= "SAVEPOINT s;\n" if $savepoint;
			$sql .= $r < 0.30 ? op_insert()
			  : $r < 0.45 ? op_add_to_cell()
			  : $r < 0.60 ? op_mutate_rows()
			  : $r < 0.75 ? op_sql_delete()
			  : $r < 0.85 ? op_delete_cells()
			  : $r < 0.92 ? op_delete_row()
			  : op_copy();
			if ($savepoint)
			{
				$sql .= "ROLLBACK TO SAVEPOINT s;\n";
				$ops{rolled_back_savepoints}++;
			}
		}
	}
	if (rand() < 0.1)
	{
		$ops{rollbacks}++;
		return $sql . "ROLLBACK;\n";
	}
	# read back what committed: the acknowledgement the test relies on
	return $sql . "COMMIT;\n\\set ack 0\n"
	  . "SELECT count(*) AS ack FROM txlog WHERE writer = $id AND n = $n \\gset\n"
	  . "\\echo ack :ack\n";
}

# ---------------------------------------------------------------------
# readers: the online oracle, one writer's keys in one snapshot

sub reader_step
{
	my $r = rand();
	my $w = 1 + int(rand(3));
	if ($r < 0.5)
	{
		my ($lo, $hi) = ("w$w-", "w$w.");
		my @res = run_sql(<<"SQL");
\\set bad failed
\\set sums failed
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) AS bad FROM
  (SELECT * FROM t WHERE row_key >= '$lo' AND row_key < '$hi') a
  FULL JOIN (SELECT * FROM m WHERE row_key >= '$lo' AND row_key < '$hi') b
  USING (row_key, family, qualifier, ts)
  WHERE a.value IS DISTINCT FROM b.value \\gset
SELECT (SELECT coalesce(sum(value), 0) FROM t WHERE row_key >= '$lo' AND row_key < '$hi' AND family = 'n')
     = (SELECT coalesce(sum(value), 0) FROM m WHERE row_key >= '$lo' AND row_key < '$hi' AND family = 'n') AS sums \\gset
\\echo check :bad :sums
COMMIT;
SQL
		$ops{online_checks}++;
		for (@res)
		{
			next unless /^check (\S+) (\S+)/;
			if ($1 ne '0' || $2 ne 't')
			{
				$ops{online_mismatches}++;
				open my $fh, '>>', "$dir/mismatch" or die;
				print $fh "reader $id: keys of writer $w: cells that differ: $1, sums equal: $2\n";
				close $fh;
			}
		}
		return !$lost;
	}
	$ops{reads}++;
	my $sql = $r < 0.7
	  ? "SELECT count(*), sum(value) FROM t;"
	  : $r < 0.85
	  ? "SELECT count(*) FROM wide.read_rows(NULL::t, prefix => 'w$w-r0" . int(rand(3)) . "');"
	  : "SELECT count(*) FROM t WHERE row_key = ANY(ARRAY['w$w-r0001', 'w$w-r0100', 'w$w-b0-000100']);";
	run_sql($sql);
	return !$lost;
}

# ---------------------------------------------------------------------

my $n = $round * 1_000_000;
my $connected = 0;
while (!stopping())
{
	if (!$connected)
	{
		$connected = connect_psql();
		if (!$connected)
		{
			$ops{connect_failures}++;
			usleep(300_000);
			next;
		}
		$ops{connections}++;
		run_sql("SET wide.bulk_memory = '1MB';");
	}
	my @res;
	if ($role eq 'writer' || $role eq 'copier' || $role eq 'bulk')
	{
		$n++;
		@res = run_sql(writer_transaction($n));
		$ops{transactions}++;
		for (@res)
		{
			push @acked, $n if $_ eq 'ack 1';
		}
	}
	elsif ($role eq 'reader')
	{
		$connected = reader_step();
		next;
	}
	elsif ($role eq 'vacuum')
	{
		@res = run_sql("VACUUM t;");
		$ops{vacuums}++;
		usleep(int(rand(300_000)));
	}
	elsif ($role eq 'compact')
	{
		my $major = rand() < 0.2 ? 'true' : 'false';
		@res = run_sql("SELECT FROM wide.compact('t', $major);");
		$ops{$major eq 'true' ? 'major_compactions' : 'compactions'}++;
		usleep(200_000 + int(rand(800_000)));
	}
	else
	{
		die "unknown role $role\n";
	}
	$connected = 0 if $lost;
}
disconnect();

open my $fh, '>', "$dir/$name.acked" or die;
print $fh "$_\n" for @acked;
close $fh;
open $fh, '>', "$dir/$name.summary" or die;
print $fh "$_=$ops{$_}\n" for sort keys %ops;
close $fh;
exit 0;
