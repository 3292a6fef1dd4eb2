# Differential test of parallel Wide Scans: random queries with random
# predicates return the same rows with the parallel plan forced (Partial
# and Finalize aggregates, Gather Merge, Gather under nested loops), with
# the serial Wide Scan, with wide.enable_customscan = off (plain
# sequential scans), and -- for the table whose cells a heap can hold --
# from a heap table with the same cells.
#
# Two wide tables, each in several runs plus unflushed write-area data:
#	wp  one plain family; SQL deletes; compared with the heap hp too
#	wg  families with max_versions, max_age, an aggregate (sum) and a
#	    plain one; deletes of every kind (SQL DELETE, delete_row,
#	    delete_family, delete_cells)
# Parallel runs vary the workers, the stretch size, leader participation
# and whether workers are launched at all.
#
#   WIDE_FUZZ_SEED=<n>      the seed (default 20261124); printed
#   WIDE_FUZZ_QUERIES=<n>   queries per table (default 150)
#
# A mismatch prints the seed, the query and the differing results.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} || 20261124;
my $nqueries = $ENV{WIDE_FUZZ_QUERIES} || 150;
srand($seed);
note "WIDE_FUZZ_SEED=$seed WIDE_FUZZ_QUERIES=$nqueries";
diag "parallel fuzz seed $seed, $nqueries queries per table";

my $node = PostgreSQL::Test::Cluster->new('parfuzz');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wide.flush_threshold = 64
wide.block_size = 1024
max_worker_processes = 8
max_parallel_workers = 4
});
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

# ----------------------------------------------------------------
# Data
# ----------------------------------------------------------------
my @rows = map { sprintf('r%04d', $_) } 0 .. 799;
push @rows, 'r', 'r0', 'r01', 'r010', 'r0100x', 's', 'q~', "r\x{e9}";
my @quals = ('a', 'b', 'c', 'cpu', 'mem', 'x');

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE wp (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('wp', 'cf');
	CREATE TABLE hp (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts int8, value int8);
	CREATE TABLE wg (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('wg', 'cf');
	SELECT wide.create_family('wg', 'v', max_versions => 2);
	SELECT wide.create_family('wg', 'age', max_age => '1 day');
	SELECT wide.create_family('wg', 'n', aggregate => 'sum');
};

# four batches: a major compaction, two minor ones, the write area; the
# heap cannot replace a cell, so wp gets each coordinate once
my %seen;
for my $batch (0 .. 3)
{
	my (@p, @g);
	for my $k (@rows)
	{
		next if rnd(3);
		for (1 .. 1 + rnd(4))
		{
			my ($q, $ts) = (pick(@quals), rnd(5));
			next if $seen{"$k\0$q\0$ts"}++;
			push @p, '(' . join(', ', lit($k), "'cf'", lit($q), $ts, rnd(1000) - 100) . ')';
		}
		for (1 .. 1 + rnd(4))
		{
			my $f = pick('cf', 'v', 'v', 'age', 'n', 'n');
			# max_age: a day; cells well inside or well outside it
			my $ts = $f eq 'age' ? pick("now() - interval '1 hour'", "now() - interval '10 days'")
			  : $f eq 'n' ? "'2030-01-01'" : "'2030-01-01'::timestamptz + interval '" . rnd(4) . " minutes'";
			push @g, '(' . join(', ', lit($k), lit($f), lit(pick(@quals)), $ts, rnd(100)) . ')';
		}
	}
	my $pv = join(",\n", @p);
	$setup .= "INSERT INTO wp VALUES $pv;\nINSERT INTO hp VALUES $pv;\n" if @p;
	$setup .= "INSERT INTO wg VALUES " . join(",\n", @g) . ";\n" if @g;
	# deletes, in both
	for (1 .. 3)
	{
		my $c = lit(pick(@rows));
		$setup .= "DELETE FROM wp WHERE row_key = $c; DELETE FROM hp WHERE row_key = $c;\n";
		my $q = lit(pick(@quals));
		my $t = rnd(5);
		$setup .= "DELETE FROM wp WHERE qualifier = $q AND ts = $t; DELETE FROM hp WHERE qualifier = $q AND ts = $t;\n";
		$setup .= "SELECT wide.delete_row('wg', " . lit(pick(@rows)) . ");\n";
		$setup .= "SELECT wide.delete_family('wg', " . lit(pick(@rows)) . ", " . lit(pick('cf', 'v', 'n')) . ");\n";
		$setup .= "SELECT wide.delete_cells('wg', " . lit(pick(@rows)) . ", 'v', " . lit(pick(@quals)) . ");\n";
		$setup .= "DELETE FROM wg WHERE row_key LIKE " . lit(substr(pick(@rows), 0, 4) . '%') . " AND qualifier = $q;\n";
	}
	$setup .= "SELECT FROM wide.compact('wp', true); SELECT FROM wide.compact('wg', true);\n" if $batch == 0;
	$setup .= "SELECT FROM wide.compact('wp'); SELECT FROM wide.compact('wg');\n" if $batch == 1 || $batch == 2;
}
utf8::encode($setup);
# statements appended to the write area, not written as runs (pending.c)
$node->safe_psql('postgres', "SET wide.statement_run_size = '1GB';\n" . $setup);
is($node->safe_psql('postgres', "SELECT (SELECT count(*) FROM wp) = (SELECT count(*) FROM hp)"),
	't', 'wide and heap tables hold the same cells');
cmp_ok($node->safe_psql('postgres', "SELECT count(*) FROM wide.runs('wg')"), '>=', 2,
	'several runs');
cmp_ok($node->safe_psql('postgres', "SELECT write_area_pages FROM wide.stats('wg')"), '>', 0,
	'cells in the write area');

# ----------------------------------------------------------------
# Queries
# ----------------------------------------------------------------
sub key_lit
{
	my $k = pick(@rows);
	$k = substr($k, 0, 1 + rnd(length($k))) if rnd(3) == 0;
	return lit($k);
}

sub key_pred
{
	my $c = rnd(10);
	return "row_key " . pick('<', '<=', '>', '>=') . ' ' . key_lit() if $c < 4;
	return "row_key BETWEEN " . key_lit() . " AND " . key_lit() if $c < 6;
	return "row_key LIKE " . lit(substr(pick(@rows), 0, 1 + rnd(4)) . '%') if $c < 8;
	return "row_key >= " . key_lit() . " AND row_key < " . key_lit() if $c < 9;
	return "row_key >= \$1";    # a parameter (prepared, generic plan)
}

sub other_pred
{
	my ($wg) = @_;
	my $c = rnd(5);
	return "family = " . lit(pick('cf', 'v', 'age', 'n')) if $c < 1 && $wg;
	return "qualifier " . pick('=', '<', '>') . ' ' . lit(pick(@quals)) if $c < 2;
	return "value " . pick('<', '>') . ' ' . rnd(500) if $c < 4;
	return $wg ? "ts < '2030-01-01 00:02'" : "ts " . pick('=', '<', '>') . ' ' . rnd(5);
}

sub where
{
	my ($wg) = @_;
	my @p;
	push @p, key_pred() if rnd(3);
	push @p, other_pred($wg) if rnd(2);
	push @p, '(' . key_pred() . ' OR ' . other_pred($wg) . ')' if rnd(6) == 0;
	return @p ? ' WHERE ' . join(' AND ', @p) : '';
}

# returns (query, ordered)
sub query
{
	my ($t, $wg) = @_;
	my $w = where($wg);
	my $c = rnd(8);
	return ("SELECT count(*), sum(value), min(row_key), max(row_key), count(DISTINCT qualifier) FROM $t$w", 1)
	  if $c < 2;
	return ("SELECT family, qualifier, count(*), sum(value), avg(value) FROM $t$w GROUP BY 1, 2 ORDER BY 1, 2", 1)
	  if $c < 3;
	return ("SELECT * FROM $t$w ORDER BY row_key, family, qualifier, ts DESC"
		  . pick('', ' LIMIT ' . (1 + rnd(50)), ' LIMIT 5 OFFSET ' . rnd(100)), 1)
	  if $c < 5;
	return ("SELECT row_key, count(*), sum(value) FROM $t$w GROUP BY row_key ORDER BY row_key LIMIT " . (1 + rnd(30)), 1)
	  if $c < 6;
	return ("SELECT * FROM $t$w", 0) if $c < 7;
	# rescans: the parallel scan on the inner side of a nested loop
	my $inner = $w eq '' ? ' WHERE' : "$w AND";
	return ("SELECT o.k, count(*), sum(b.value) FROM (VALUES ('r01'), ('r03'), ('r05')) o(k), $t b"
		  . "$inner b.qualifier >= o.k::text COLLATE \"C\" GROUP BY o.k ORDER BY o.k", 1);
}

# the script of one mode: each query between markers, its settings first
sub script
{
	my ($mode, $table, $queries) = @_;
	my $s = "\\pset format unaligned\n\\pset tuples_only on\n\\pset null <null>\n";
	$s .= "SET wide.enable_customscan = off;\n" if $mode eq 'off';
	$s .= "SET max_parallel_workers_per_gather = 0;\n" if $mode ne 'par';
	$s .= "SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;\n"
	  . "SET min_parallel_table_scan_size = 0; SET plan_cache_mode = force_generic_plan;\n";
	my $i = 0;
	for my $q (@$queries)
	{
		my ($sql, $ordered, $set) = @$q;
		$sql =~ s/\{T\}/$table/g;
		$s .= "\\echo ==Q $i\n";
		$s .= "BEGIN;\n";
		$s .= $set if $mode eq 'par';
		$s .= "SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_material = off;\n"
		  if $sql =~ /VALUES/;
		if ($sql =~ /\$1/)
		{
			$s .= "PREPARE p(text) AS $sql;\n";
			$s .= "EXPLAIN (COSTS OFF) EXECUTE p('r02');\n" if $mode eq 'par';
			$s .= "\\echo ==R $i\nEXECUTE p('r02');\nEXECUTE p('r0');\nDEALLOCATE p;\n";
		}
		else
		{
			$s .= "EXPLAIN (COSTS OFF) $sql;\n" if $mode eq 'par';
			$s .= "\\echo ==R $i\n$sql;\n";
		}
		$s .= "COMMIT;\n";
		$i++;
	}
	return $s;
}

# results by query number: [plan, rows]
sub run_mode
{
	my ($mode, $table, $queries) = @_;
	my ($out, $err) = ('', '');
	my $script = script($mode, $table, $queries);
	utf8::encode($script);
	$node->psql('postgres', $script,
		stdout => \$out, stderr => \$err, on_error_stop => 0);
	my %res;
	my ($cur, $part);
	for my $line (split /\n/, $out)
	{
		if ($line =~ /^==Q (\d+)$/) { $cur = $1; $part = 0; $res{$cur} = [ '', [] ]; next; }
		if ($line =~ /^==R (\d+)$/) { $part = 1; next; }
		next unless defined $cur;
		if ($part == 0) { $res{$cur}[0] .= "$line\n"; }
		else { push @{ $res{$cur}[1] }, $line; }
	}
	return (\%res, $err);
}

sub check_table
{
	my ($wide, $heap, $label) = @_;
	my $wg = $wide eq 'wg';
	my @queries;
	for (1 .. $nqueries)
	{
		my ($sql, $ordered) = query('{T}', $wg);
		my $set = "SET LOCAL max_parallel_workers_per_gather = " . (1 + rnd(3)) . ";\n"
		  . "SET LOCAL wide.parallel_stretch_blocks = " . pick(1, 1, 2, 5, 50) . ";\n";
		$set .= "SET LOCAL parallel_leader_participation = off;\n" if rnd(6) == 0;
		$set .= "SET LOCAL max_parallel_workers = 0;\n" if rnd(8) == 0;
		push @queries, [ $sql, $ordered, $set ];
	}
	my %modes;
	my @names = ('par', 'serial', 'off');
	for my $m (@names)
	{
		my ($res, $err) = run_mode($m, $wide, \@queries);
		is($err, '', "$label, $m: no errors") or diag $err;
		$modes{$m} = $res;
	}
	if ($heap)
	{
		my ($res, $err) = run_mode('serial', $heap, \@queries);
		is($err, '', "$label, heap: no errors") or diag $err;
		$modes{heap} = $res;
		push @names, 'heap';
	}

	my ($bad, $parallel, $merge) = (0, 0, 0);
	for my $i (0 .. $#queries)
	{
		my ($sql, $ordered) = @{ $queries[$i] };
		my $plan = $modes{par}{$i}[0] // '';
		$parallel++ if $plan =~ /Parallel Custom Scan/;
		$merge++ if $plan =~ /Gather Merge/ && $plan =~ /Parallel Custom Scan/;
		my %got;
		for my $m (@names)
		{
			my @r = @{ $modes{$m}{$i}[1] // [] };
			@r = sort @r unless $ordered;
			$got{$m} = join("\n", @r);
		}
		for my $m (@names[1 .. $#names])
		{
			next if $got{$m} eq $got{par};
			$bad++;
			diag "MISMATCH (seed $seed) $m vs par: $sql\n$queries[$i][2]\n$plan"
			  . "-- par:\n" . substr($got{par}, 0, 2000) . "\n-- $m:\n" . substr($got{$m}, 0, 2000);
			last;
		}
	}
	is($bad, 0, "$label: $nqueries random queries agree in every mode");
	note "$label: $parallel parallel plans, $merge with Gather Merge";
	cmp_ok($parallel, '>=', $nqueries / 2, "$label: most queries ran parallel plans");
	cmp_ok($merge, '>', 0, "$label: some ran Gather Merge");
}

check_table('wp', 'hp', 'wp');
check_table('wg', undef, 'wg');
# one run without tombstones, nothing in the write area: stretches are read
# straight from the run, without the merge (reader.c, run_is_plain)
$node->safe_psql('postgres', "SELECT FROM wide.compact('wp', true); SELECT FROM wide.compact('wg', true)");
is($node->safe_psql('postgres',
		"SELECT count(*) || ' ' || bool_or(has_tombstones) FROM wide.runs('wp')"),
	'1 false', 'wp: one run, no tombstones');
check_table('wp', 'hp', 'wp, one plain run');
check_table('wg', undef, 'wg, one run');

$node->stop;
done_testing();
