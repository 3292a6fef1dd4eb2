# Randomized differential test of the Wide Read Rows scan (issue 11):
# random calls of wide.read_rows, read_rows_labeled and read_row in FROM (alone, under
# quals and aggregates, LATERAL) must return exactly what the Function Scan
# returns (wide.enable_read_scan = off: the same read drained into a
# tuplestore), in the same order, or fail with the same error; and without
# a filter, what a heap table holding the table's visible cells returns for
# the same row set and row limit.
#
# The data: families with max_versions, max_age and aggregates (sum, max),
# deletes of every kind (cells, cells in a ts range, family, row, DELETE),
# 95 row keys (reversed reads cross chunks of 64 rows), three batches:
# one compacted fully, one compacted minor, one left in the
# write area (small flush threshold and blocks: several runs and blocks).
#
# Fixed seed and count in CI; any other by environment:
#   WIDE_FUZZ_SEED=123 WIDE_FUZZ_COUNT=2000 prove ... test/t/150_read_scan_fuzz.pl
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} // 20261123;
my $count = $ENV{WIDE_FUZZ_COUNT} // 400;
srand($seed);
diag("read scan fuzz: seed $seed, $count queries (WIDE_FUZZ_SEED, WIDE_FUZZ_COUNT)");

my $node = PostgreSQL::Test::Cluster->new('read_scan_fuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nwide.block_size = 1024\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts timestamptz,
	                value int8) USING wide;
	SELECT wide.create_family('t', 'a');
	SELECT wide.create_family('t', 'v', max_versions => 2);
	SELECT wide.create_family('t', 'g', max_age => '1 hour');
	SELECT wide.create_family('t', 's', aggregate => 'sum');
	SELECT wide.create_family('t', 'm', aggregate => 'max');
});

my @keys = ((map { sprintf('r%02d', $_) } 0 .. 89), 'r1', 'r1a', 's', 's0', 'x');
my @absent = ('r', 'r05a', 'r3', 'q', 'zz', 'r15b');
my @fams = ('a', 'v', 'g', 's', 'm');
my @quals = ('q1', 'q2', 'q3');
sub pick { return $_[ int(rand(@_)) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

# a timestamp: recent (inside max_age) or old (outside it), never near the edge
sub ts_expr
{
	return rand() < 0.5
	  ? sprintf("now() - interval '%d seconds'", int(rand(1800)))
	  : sprintf("'2020-01-01'::timestamptz + interval '%d seconds'", int(rand(100)));
}

for my $batch (0 .. 2)
{
	my @sql;
	for (1 .. 250)
	{
		push @sql, sprintf("INSERT INTO t VALUES (%s, '%s', '%s', %s, %d);",
			lit(pick(@keys)), pick(@fams), pick(@quals), ts_expr(), int(rand(100)) - 20);
	}
	for (1 .. 12)
	{
		my $k = lit(pick(@keys));
		my $r = rand();
		if ($r < 0.3)
		{
			push @sql, sprintf("SELECT wide.delete_cells('t', %s, '%s', '%s');",
				$k, pick(@fams), pick(@quals));
		}
		elsif ($r < 0.45)
		{
			push @sql, sprintf("SELECT wide.delete_cells('t', %s, '%s', '%s', "
				  . "'2020-01-01'::timestamptz, '2020-01-01'::timestamptz + interval '50 seconds');",
				$k, pick(@fams), pick(@quals));
		}
		elsif ($r < 0.6)
		{
			push @sql, sprintf("SELECT wide.delete_family('t', %s, '%s');", $k, pick(@fams));
		}
		elsif ($r < 0.75)
		{
			push @sql, sprintf("SELECT wide.delete_row('t', %s);", $k);
		}
		else
		{
			push @sql, sprintf("DELETE FROM t WHERE row_key = %s AND qualifier = '%s';",
				$k, pick(@quals));
		}
	}
	push @sql, "SELECT FROM wide.compact('t', true);" if $batch == 0;
	push @sql, "SELECT FROM wide.compact('t');" if $batch == 1;
	$node->safe_psql('postgres', join("\n", @sql));
}

# the heap: the cells the wide table shows now
$node->safe_psql('postgres', q{
	CREATE TABLE h (row_key text COLLATE "C", family text COLLATE "C",
	                qualifier text COLLATE "C", ts timestamptz, value int8);
	INSERT INTO h SELECT * FROM t;
	ANALYZE t;
	ANALYZE h;
});
my $ncells = $node->safe_psql('postgres', 'SELECT count(*) FROM h');
my $runs = $node->safe_psql('postgres',
	q{SELECT count(*) FROM wide.runs('t')});
diag("$ncells visible cells, $runs runs");

# ----------------------------------------------------------------
# random calls
# ----------------------------------------------------------------
my @filters = (
	"wide.family_filter('a|v')",
	"wide.qualifier_filter('q[12]')",
	"wide.latest(1)",
	"wide.cells_per_row(2)",
	"wide.chain(wide.family_filter('[gsm]'), wide.latest(1))",
	"wide.interleave(wide.family_filter('a'), wide.qualifier_filter('q3'))",
	"wide.row_key_filter('r1.*')",
	"wide.strip_value()",
	"wide.interleave(wide.chain(wide.family_filter('a|s'), wide.label('as')), wide.chain(wide.latest(1), wide.label('new')))",
	"wide.condition(wide.qualifier_filter('q2'), wide.family_filter('v'), wide.family_filter('s'))",
);

sub any_key { return rand() < 0.8 ? pick(@keys) : pick(@absent); }

# a random call: (SQL text, heap predicate or undef, row limit or undef, reversed)
sub random_call
{
	my ($lateral) = @_;
	if (rand() < 0.2)
	{
		my $k = $lateral ? 'v.k' : lit(any_key());
		my $f = rand() < 0.3 ? ", filter => " . pick(@filters) : '';
		return ("wide.read_row(NULL::t, $k$f)", $f ? undef : "row_key = $k", undef, 0);
	}
	my (@args, @pred);
	if (rand() < 0.25)
	{
		my @ks = map { lit(any_key()) } 1 .. 1 + int(rand(4));
		push @args, "keys => ARRAY[" . join(', ', @ks) . "]";
		push @pred, "row_key = ANY (ARRAY[" . join(', ', @ks) . "])";
	}
	if (rand() < 0.4)
	{
		my ($s, $e) = sort (any_key(), any_key());
		my $has_s = rand() < 0.8;
		my $has_e = rand() < 0.7;
		$s = 'v.k' if $lateral && $has_s;
		my $si = rand() < 0.7;
		my $ei = rand() < 0.3;
		my @c;
		if ($has_s)
		{
			push @args, "start_key => " . ($s eq 'v.k' ? $s : lit($s));
			push @args, "start_inclusive => false" unless $si;
			push @c, "row_key " . ($si ? '>=' : '>') . ' ' . ($s eq 'v.k' ? $s : lit($s));
		}
		if ($has_e)
		{
			push @args, "end_key => " . lit($e);
			push @args, "end_inclusive => true" if $ei;
			push @c, "row_key " . ($ei ? '<=' : '<') . ' ' . lit($e);
		}
		push @pred, '(' . join(' AND ', @c) . ')' if @c;
	}
	if (rand() < 0.3)
	{
		my $p = $lateral && rand() < 0.5 ? 'left(v.k, 2)' : lit(pick('r1', 'r0', 's', 'r2', 'q', 'r05'));
		push @args, "prefix => $p";
		push @pred, "starts_with(row_key, $p)";
	}
	if (rand() < 0.2)
	{
		my @rs;
		my @c;
		for (1 .. 1 + int(rand(2)))
		{
			my ($s, $e) = sort (any_key(), any_key());
			my ($so, $eo) = (rand() < 0.5, rand() < 0.5);
			push @rs, sprintf('{"%s": "%s", "%s": "%s"}',
				$so ? 'start_key_open' : 'start_key_closed', $s,
				$eo ? 'end_key_open' : 'end_key_closed', $e);
			push @c, sprintf("(row_key %s %s AND row_key %s %s)",
				$so ? '>' : '>=', lit($s), $eo ? '<' : '<=', lit($e));
		}
		push @args, "ranges => '[" . join(', ', @rs) . "]'";
		push @pred, @c;
	}
	my $limit;
	if (rand() < 0.35)
	{
		$limit = int(rand(6));
		push @args, qq{"limit" => $limit};
	}
	my $rev = rand() < 0.35 ? 1 : 0;
	push @args, "reversed => true" if $rev;
	my $filter = rand() < 0.3;
	push @args, "filter => " . pick(@filters) if $filter;
	my $pred = @pred ? join(' OR ', @pred) : 'true';
	return ("wide.read_rows(NULL::t" . join('', map { ", $_" } @args) . ")",
		$filter ? undef : $pred, $limit, $rev);
}

# the heap's cells of a row set and row limit
sub heap_rows
{
	my ($pred, $limit, $rev) = @_;
	return "(SELECT * FROM h WHERE $pred)" unless defined $limit;
	my $dir = $rev ? 'DESC' : '';
	return "(WITH c AS (SELECT * FROM h WHERE $pred)
	         SELECT * FROM c WHERE row_key IN
	           (SELECT DISTINCT row_key FROM c ORDER BY row_key $dir LIMIT $limit))";
}

# Every query runs in one session per mode, through a function that
# returns its rows as text, in order, or its error
$node->safe_psql('postgres', q{
	CREATE FUNCTION fuzz_q(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
	DECLARE
		r text[];
	BEGIN
		EXECUTE 'SELECT array_agg(t::text) FROM (' || q || ') t' INTO r;
		RETURN QUERY SELECT unnest(coalesce(r, '{}'));
	EXCEPTION WHEN OTHERS THEN
		RETURN NEXT 'ERROR: ' || SQLERRM;
	END $$;
	CREATE FUNCTION fuzz_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
	DECLARE
		l text;
		found_scan bool := false;
	BEGIN
		FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
			found_scan := found_scan OR l ~ 'WideReadRows';
		END LOOP;
		RETURN NEXT CASE WHEN found_scan THEN 'PLAN: scan' ELSE 'PLAN: function' END;
	END $$;
});

# run the queries (n => sql) under a setting: n => output text
sub run_all
{
	my ($setting, $queries, $plans) = @_;
	my $script = "SET wide.enable_read_scan = $setting;\n";
	for my $n (sort { $a <=> $b } keys %$queries)
	{
		my $q = $queries->{$n};
		$q =~ s/\$fz\$//g;
		$script .= "SELECT $n, r FROM fuzz_plan(\$fz\$$q\$fz\$) r;\n" if $plans;
		$script .= "SELECT $n, r FROM fuzz_q(\$fz\$$q\$fz\$) r;\n";
	}
	my %out = map { $_ => '' } keys %$queries;
	for my $l (split /\n/, $node->safe_psql('postgres', $script))
	{
		my ($n, $r) = split /\|/, $l, 2;
		$out{$n} .= "$r\n";
	}
	return \%out;
}

my @quals_sql = ("qualifier = 'q1'", "family IN ('a', 's')", "value > 10",
	"ts > now() - interval '1 day'", "row_key >= 'r1'");
my (%q, %hq, %join);
for my $i (1 .. $count)
{
	my $shape = int(rand(4));
	my ($call, $pred, $limit, $rev) = random_call($shape == 3);
	if ($shape == 0 && $call =~ /^wide\.read_rows\(/ && rand() < 0.25)
	{
		# with the labels of apply_label_transformer
		$call =~ s/^wide\.read_rows\(/wide.read_rows_labeled(/;
		$q{$i} = "SELECT * FROM $call";
	}
	elsif ($shape == 0)
	{
		$q{$i} = "SELECT * FROM $call";
		$hq{$i} = 'SELECT * FROM ' . heap_rows($pred, $limit, $rev) . ' s' if defined $pred;
	}
	elsif ($shape == 1)
	{
		my $w = pick(@quals_sql);
		$q{$i} = "SELECT row_key, family, qualifier, value FROM $call r WHERE $w";
		$hq{$i} = "SELECT row_key, family, qualifier, value FROM "
		  . heap_rows($pred, $limit, $rev) . " r WHERE $w" if defined $pred;
	}
	elsif ($shape == 2)
	{
		$q{$i} = "SELECT count(*), sum(value), min(row_key), max(row_key) FROM $call r";
		$hq{$i} = "SELECT count(*), sum(value), min(row_key), max(row_key) FROM "
		  . heap_rows($pred, $limit, $rev) . " r" if defined $pred;
	}
	else
	{
		my @vs = map { '(' . lit(any_key()) . ')' } 1 .. 1 + int(rand(3));
		$q{$i} = "SELECT v.k, r.* FROM (VALUES " . join(', ', @vs) . ") v(k), LATERAL $call r";
		$join{$i} = 1;
	}
}
my $on = run_all('on', \%q, 1);
my $off = run_all('off', \%q, 0);
my $heap = run_all('on', \%hq, 0);

# sorted lines (a join's order is its plan's; the heap's, its own)
sub sorted { return join("\n", sort split /\n/, $_[0]); }

my ($bad, $heap_checked, $scans, $errors) = (0, 0, 0, 0);
for my $i (1 .. $count)
{
	my $a = $on->{$i};
	$scans++ if $a =~ s/^PLAN: scan\n//;
	$a =~ s/^PLAN: function\n//;
	my $b = $off->{$i};
	($a, $b) = (sorted($a), sorted($b)) if $join{$i};
	$errors++ if $a =~ /^ERROR/m;
	if ($a ne $b)
	{
		$bad++;
		diag("query $i differs from the Function Scan:\n$q{$i}\n--- scan:\n$a\n--- function:\n$b");
		next;
	}
	next unless defined $hq{$i} && $a !~ /^ERROR/m;
	$heap_checked++;
	if (sorted($a) ne sorted($heap->{$i}))
	{
		$bad++;
		diag("query $i differs from the heap:\n$q{$i}\n$hq{$i}\n--- wide:\n$a\n--- heap:\n$heap->{$i}");
	}
}
diag("$scans scans, $heap_checked compared with the heap, $errors errors");
is($bad, 0, "$count random reads: the scan returns what the Function Scan and the heap return");
cmp_ok($scans, '>=', $count * 0.9, "the calls were Wide Read Rows scans ($scans)");
cmp_ok($heap_checked, '>=', $count / 4, "results compared with the heap ($heap_checked)");

$node->stop;
done_testing();
