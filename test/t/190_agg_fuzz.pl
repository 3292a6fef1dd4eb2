# Differential test of the Wide Aggregate (src/am/scan_agg.c): random
# aggregate queries with random predicates return exactly the same result
# (or the same error) with wide.enable_aggregate_pushdown on and off, and
# the same result, floats to 1e-9, with parallel plans forced.
#
# Tables, each in several runs plus unflushed write-area data:
#	wf  float8 values, ts timestamptz: a plain family, max_versions 2
#	    (versions past it), max_age; NaN, Infinity, -Infinity, -0 values;
#	    deletes of every kind; aborted inserts
#	wi  int8 values, ts int8: a plain family, max_versions 1, sum and max
#	    aggregate families
#	wp  float8, one plain family, compacted into one run (the reader's
#	    path without the merge)
# While the queries run, another session holds uncommitted inserts and
# deletes on wf and wi; that session runs queries too (it sees its own
# writes), both ways.  Huge values (sum overflows) are checked apart: the
# error must be the same.
#
#   WIDE_FUZZ_SEED=<n>      the seed (default 20261190); printed
#   WIDE_FUZZ_QUERIES=<n>   queries per table (default 80)
#
# A mismatch prints the seed, the query and both results.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} || 20261190;
my $nqueries = $ENV{WIDE_FUZZ_QUERIES} || 80;
srand($seed);
note "WIDE_FUZZ_SEED=$seed WIDE_FUZZ_QUERIES=$nqueries";
diag "aggregate pushdown fuzz seed $seed, $nqueries queries per table";

my $node = PostgreSQL::Test::Cluster->new('aggfuzz');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wide.flush_threshold = 64
wide.block_size = 1024
max_worker_processes = 8
max_parallel_workers = 4
# the "age" family is written cells already past its max_age on purpose:
# their NOTICE (am/policynote.c) is not an error of the background session
client_min_messages = warning
});
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

# ----------------------------------------------------------------
# Data
# ----------------------------------------------------------------
my @rows = map { sprintf('r%04d', $_) } 0 .. 599;
push @rows, 'r', 'r0', 'r01', 's', 'q~';
my @quals = ('a', 'b', 'c', 'cpu', 'mem', 'x');
my $T0 = "'2030-01-01'::timestamptz";

sub fval
{
	my $c = rnd(40);
	return pick("'NaN'", "'Infinity'", "'-Infinity'", "'-0'") if $c == 0;
	return sprintf('%.2f', rand(1000) - 100);
}

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE wf (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('wf', 'cf');
	SELECT wide.create_family('wf', 'v', max_versions => 2);
	SELECT wide.create_family('wf', 'age', max_age => '1 day');
	CREATE TABLE wi (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('wi', 'cf');
	SELECT wide.create_family('wi', 'v', max_versions => 1);
	SELECT wide.create_family('wi', 'n', aggregate => 'sum');
	SELECT wide.create_family('wi', 'mx', aggregate => 'max');
	CREATE TABLE wp (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('wp', 'm');
	CREATE TABLE wbig (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('wbig', 'm');
	INSERT INTO wbig SELECT 'k' || i, 'm', 'q', '2030-01-01'::timestamptz + i * interval '1 s',
		CASE WHEN i % 50 = 7 THEN 1e308 ELSE i END FROM generate_series(1, 300) i;
	INSERT INTO wp SELECT 'p' || lpad(i::text, 5, '0'), 'm', 'q' || (i % 7),
		'2030-01-01'::timestamptz + (i % 100) * interval '1 min', round((random() * 100)::numeric, 2)
		FROM generate_series(1, 5000) i;
	SELECT FROM wide.compact('wp', true);
};

sub insert_batch
{
	my (@f, @i);
	for my $k (@rows)
	{
		next if rnd(3);
		for (1 .. 1 + rnd(4))
		{
			my $fam = pick('cf', 'v', 'v', 'age');
			my $ts = $fam eq 'age'
			  ? pick("now() - interval '1 hour'", "now() - interval '10 days'")
			  : "$T0 + interval '" . rnd(5) . " minutes'";
			push @f, '(' . join(', ', lit($k), lit($fam), lit(pick(@quals)), $ts, fval()) . ')';
		}
		for (1 .. 1 + rnd(4))
		{
			my $fam = pick('cf', 'v', 'n', 'n', 'mx');
			push @i, '(' . join(', ', lit($k), lit($fam), lit(pick(@quals)), rnd(5),
				rnd(2000) - 1000) . ')';
		}
	}
	my $s = '';
	$s .= "INSERT INTO wf VALUES " . join(",\n", @f) . ";\n" if @f;
	$s .= "INSERT INTO wi VALUES " . join(",\n", @i) . ";\n" if @i;
	return $s;
}

for my $batch (0 .. 3)
{
	$setup .= insert_batch();
	# an aborted writer
	$setup .= "BEGIN;\n" . insert_batch() . "DELETE FROM wf WHERE row_key < 'r03';\nROLLBACK;\n";
	for (1 .. 3)
	{
		my $q = lit(pick(@quals));
		$setup .= "DELETE FROM wf WHERE row_key = " . lit(pick(@rows)) . ";\n";
		$setup .= "DELETE FROM wi WHERE qualifier = $q AND ts = " . rnd(5) . ";\n";
		$setup .= "SELECT wide.delete_row('wf', " . lit(pick(@rows)) . ");\n";
		$setup .= "SELECT wide.delete_family('wi', " . lit(pick(@rows)) . ", " . lit(pick('cf', 'v', 'n')) . ");\n";
		$setup .= "SELECT wide.delete_cells('wf', " . lit(pick(@rows)) . ", 'v', " . lit(pick(@quals)) . ");\n";
		$setup .= "DELETE FROM wf WHERE row_key LIKE " . lit(substr(pick(@rows), 0, 4) . '%') . " AND qualifier = $q;\n";
	}
	$setup .= "SELECT FROM wide.compact('wf', true); SELECT FROM wide.compact('wi', true);\n" if $batch == 0;
	$setup .= "SELECT FROM wide.compact('wf'); SELECT FROM wide.compact('wi');\n" if $batch == 1 || $batch == 2;
}
$node->safe_psql('postgres', "SET wide.statement_run_size = '1GB';\n" . $setup);
cmp_ok($node->safe_psql('postgres', "SELECT count(*) FROM wide.runs('wf')"), '>=', 2, 'several runs');
cmp_ok($node->safe_psql('postgres', "SELECT write_area_pages FROM wide.stats('wf')"), '>', 0,
	'cells in the write area');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.runs('wp')"), '1', 'wp: one run');

# a writer that has not committed, while the queries run
my $writer = $node->background_psql('postgres', on_error_stop => 0);
$writer->query_safe("BEGIN;\n" . insert_batch()
	  . "DELETE FROM wf WHERE row_key >= 'r02' AND row_key < 'r025';\n"
	  . "SELECT wide.delete_row('wi', 'r0100');\n");

# ----------------------------------------------------------------
# Queries
# ----------------------------------------------------------------
sub key_lit
{
	my $k = pick(@rows);
	$k = substr($k, 0, 1 + rnd(length($k))) if rnd(3) == 0;
	return lit($k);
}

# conditions the Wide Scan enforces (and, rarely, one it does not)
sub pred
{
	my ($t) = @_;
	my $c = rnd(14);
	my $tsint = $t eq 'wi';
	return "row_key " . pick('<', '<=', '>', '>=') . ' ' . key_lit() if $c < 3;
	return "row_key BETWEEN " . key_lit() . " AND " . key_lit() if $c < 4;
	return "row_key LIKE " . lit(substr(pick(@rows), 0, 1 + rnd(4)) . '%') if $c < 5;
	return "starts_with(row_key, " . lit(substr(pick(@rows), 0, 1 + rnd(4))) . ")" if $c < 6;
	return "row_key = ANY(ARRAY[" . join(', ', map { key_lit() } 1 .. 1 + rnd(4)) . "])" if $c < 7;
	return "family = " . lit($t eq 'wi' ? pick('cf', 'v', 'n', 'mx') : pick('cf', 'v', 'age')) if $c < 8;
	return "family IN ('cf', " . lit(pick('v', 'n', 'age')) . ")" if $c < 9;
	return "qualifier = " . lit(pick(@quals)) if $c < 10;
	return "qualifier IN (" . lit(pick(@quals)) . ", " . lit(pick(@quals)) . ")" if $c < 11;
	if ($c < 13)
	{
		return "ts " . pick('<', '>=', '=') . ' ' . rnd(5) if $tsint;
		return "ts " . pick('<', '>=') . " $T0 + interval '" . rnd(5) . " minutes'"
		  if $t eq 'wf' && rnd(3);
		return "ts > now() - interval '2 days'";
	}
	return "value > " . rnd(500);    # a Filter: not pushed down
}

sub aggs
{
	my ($t) = @_;
	my @f = $t eq 'wi'
	  ? ('count(*)', 'count(value)', 'min(value)', 'max(value)', 'min(ts)', 'max(ts)',
		'count(qualifier)', 'count(*) + 1')
	  : ('count(*)', 'count(value)', 'sum(value)', 'avg(value)', 'min(value)', 'max(value)',
		'min(ts)', 'max(ts)', 'avg(value) * 2', 'count(row_key)');
	# not pushed down
	my @no = ('count(DISTINCT qualifier)', 'max(row_key)', 'stddev(value)',
		'sum(value) FILTER (WHERE qualifier = \'a\')', 'sum(value)');
	my @a = map { pick(@f) } 1 .. 1 + rnd(4);
	push @a, pick(@no) if rnd(8) == 0;
	return join(', ', @a);
}

sub query
{
	my ($t) = @_;
	my @p;
	push @p, pred($t) for 1 .. rnd(3);
	my $w = @p ? ' WHERE ' . join(' AND ', @p) : '';
	return "SELECT " . aggs($t) . " FROM $t$w";
}

# a session per mode
my %sess;
$sess{on} = $node->background_psql('postgres', on_error_stop => 0);
$sess{off} = $node->background_psql('postgres', on_error_stop => 0);
$sess{par} = $node->background_psql('postgres', on_error_stop => 0);
$sess{off}->query_safe("SET wide.enable_aggregate_pushdown = off");
$sess{$_}->query_safe("SET max_parallel_workers_per_gather = 0") for ('on', 'off');
$sess{par}->query_safe("SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
	SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0");

# the result of a query in a session, or its error
sub result
{
	my ($s, $sql) = @_;
	$s->{stderr} = '';
	my ($out) = $s->query($sql);
	my $err = $s->{stderr};
	$err =~ s/^psql:[^\n]*?(ERROR:)/$1/mg;
	return $err ne '' ? "ERROR: $err" : $out;
}

# floats equal to 1e-9 (a parallel plan sums in another order)
sub close_enough
{
	my ($a, $b) = @_;
	return 1 if $a eq $b;
	my @x = split /[|\n]/, $a, -1;
	my @y = split /[|\n]/, $b, -1;
	return 0 unless @x == @y;
	for my $i (0 .. $#x)
	{
		next if $x[$i] eq $y[$i];
		return 0 unless $x[$i] =~ /^-?[\d.e+-]+$/ && $y[$i] =~ /^-?[\d.e+-]+$/;
		my $d = abs($x[$i] - $y[$i]);
		return 0 if $d > 1e-9 * (abs($x[$i]) + abs($y[$i]) + 1e-300);
	}
	return 1;
}

sub check_table
{
	my ($t) = @_;
	my ($bad, $pushed, $parallel) = (0, 0, 0);
	for my $i (1 .. $nqueries)
	{
		my $sql = query($t);
		my $plan = result($sess{on}, "EXPLAIN (COSTS OFF) $sql");
		my $pplan = result($sess{par}, "EXPLAIN (COSTS OFF) $sql");
		$pushed++ if $plan =~ /WideAggregate/;
		$parallel++ if $pplan =~ /WideAggregate/ && $pplan =~ /Parallel Custom Scan/;
		my %r = map { $_ => result($sess{$_}, $sql) } ('on', 'off', 'par');
		if ($r{on} ne $r{off})
		{
			$bad++;
			diag "MISMATCH (seed $seed) on vs off: $sql\n$plan\n-- on:\n$r{on}\n-- off:\n$r{off}";
		}
		elsif (!close_enough($r{par}, $r{off}))
		{
			$bad++;
			diag "MISMATCH (seed $seed) parallel vs off: $sql\n$pplan\n-- par:\n$r{par}\n-- off:\n$r{off}";
		}
	}
	is($bad, 0, "$t: $nqueries random aggregate queries agree, pushed down or not, in parallel or not");
	note "$t: $pushed pushed down, $parallel in parallel";
	cmp_ok($pushed, '>=', $nqueries / 3, "$t: many queries were pushed down");
	cmp_ok($parallel, '>', 0, "$t: some ran as parallel Wide Aggregates");
}

check_table('wf');
check_table('wi');
check_table('wp');

# the uncommitted writer sees its own writes, both ways
my $wbad = 0;
for my $t ('wf', 'wi')
{
	for (1 .. 15)
	{
		my $sql = query($t);
		$writer->query_safe("SET wide.enable_aggregate_pushdown = on");
		my $on = result($writer, $sql);
		$writer->query_safe("SET wide.enable_aggregate_pushdown = off");
		my $off = result($writer, $sql);
		next if $on eq $off;
		$wbad++;
		diag "MISMATCH (seed $seed) in the writing transaction: $sql\n-- on:\n$on\n-- off:\n$off";
	}
}
is($wbad, 0, 'a transaction with uncommitted writes: the same results both ways');
isnt(result($writer, "SELECT count(*) FROM wf"), result($sess{on}, "SELECT count(*) FROM wf"),
	'the writer and the others see different cells');
$writer->query_safe("ROLLBACK");

# overflow: the same error both ways (float8pl, float8_accum's Sxx)
for my $sql ("SELECT sum(value) FROM wbig", "SELECT avg(value) FROM wbig",
	"SELECT count(*), avg(value) FROM wbig WHERE row_key < 'k2'",
	"SELECT max(value), min(value) FROM wbig")
{
	my $on = result($sess{on}, $sql);
	my $off = result($sess{off}, $sql);
	like(result($sess{on}, "EXPLAIN (COSTS OFF) $sql"), qr/WideAggregate/, "pushed down: $sql");
	is($on, $off, "the same result or error: $sql");
}
like(result($sess{on}, "SELECT sum(value) FROM wbig"), qr/overflow/, 'sum overflows');

$_->quit for values %sess;
$writer->quit;
$node->stop;
done_testing();
