# Differential fuzzer for latest values: reads whose filter keeps the first
# n cells of each column (wide.read_current, wide.latest(n), chains ending
# in it) step past the rest of each column and skip blocks that hold only
# older versions.  They must return exactly what the same filter returns
# when every version is read (the filter wrapped in an interleave, which
# the reader does not recognise), and read_current exactly the newest cell
# of each column of a heap copy.
#
# Rounds of random writes build the layouts that matter: versions of few
# columns over many rows (tall columns across small blocks), overwrites of
# a version, every kind of tombstone (a version, a ts range, a column, a
# family, a row, SQL DELETE), sum aggregates, families with max_versions,
# max_age and their intersection, aborted transactions and rolled-back
# savepoints, minor and major compactions, and writes that stay in the
# write area.  A second session holds an uncommitted transaction with
# newer versions and deletes of random columns while the reads run, and
# commits or rolls it back afterwards.
#
#   WIDE_FUZZ_SEED=<n>     the seed (default 20261127); printed
#   WIDE_FUZZ_ROUNDS=<n>   rounds (default 12)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} || 20261127;
my $rounds = $ENV{WIDE_FUZZ_ROUNDS} || 12;
srand($seed);
diag "latest fuzz seed $seed, $rounds rounds";

my $node = PostgreSQL::Test::Cluster->new('latest');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 32\nwide.block_size = 1024\n");
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }

my $now = int(time()) * 1_000_000;
my $DAY = 86_400_000_000;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('t', 'p');
	SELECT wide.create_family('t', 's', aggregate => 'sum');
	SELECT wide.create_family('t', 'v', max_versions => 2);
	SELECT wide.create_family('t', 'g', max_age => '1 day');
	SELECT wide.create_family('t', 'i', max_versions => 1, max_age => '1 day', gc => 'intersection');
});

# a random timestamp: small (old), or near now for the max-age families
sub ts_for
{
	my ($fam) = @_;
	return 1 + rnd(400) if $fam eq 'p' || $fam eq 's' || $fam eq 'v';
	# two days back to now, never within a minute of the one-day boundary
	my $t = $now - rnd(2 * $DAY);
	$t -= 120_000_000 if abs($t - ($now - $DAY)) < 60_000_000;
	return $t;
}

# a batch of random writes, as SQL
sub writes
{
	my @sql;
	for (1 .. 3 + rnd(6))
	{
		my $fam = pick('p', 'p', 'p', 's', 'v', 'g', 'i');
		my $r = rnd(6);
		my $q = 'q' . rnd(3);
		my $n = 1 + rnd(pick(3, 30, 300));
		my $base = ts_for($fam);
		my $step = $fam =~ /[gi]/ ? 60_000_000 : 1;
		push @sql, "INSERT INTO t SELECT 'r$r', '$fam', '$q', greatest($base - v::int8 * $step, 0), "
		  . rnd(1000) . " + v FROM generate_series(0, $n - 1) v;";
	}
	for (1 .. rnd(3))
	{
		my $r = rnd(6);
		my $fam = pick('p', 's', 'v', 'g', 'i');
		my $q = 'q' . rnd(3);
		my $kind = rnd(7);
		if ($kind == 0)
		{
			my $lo = 1 + rnd(400);
			push @sql, "SELECT wide.delete_cells('t', 'r$r', '$fam', '$q', ${lo}::int8, "
			  . ($lo + 1 + rnd(100)) . "::int8);";
		}
		elsif ($kind == 1)
		{
			push @sql, "SELECT wide.delete_cells('t', 'r$r', '$fam', '$q');";
		}
		elsif ($kind == 2)
		{
			push @sql, "SELECT wide.delete_family('t', 'r$r', '$fam');";
		}
		elsif ($kind == 3)
		{
			push @sql, "SELECT wide.delete_row('t', 'r$r');" if rnd(3) == 0;
		}
		elsif ($kind == 4)
		{
			# the newest versions of a column, by SQL
			push @sql, "DELETE FROM t WHERE row_key = 'r$r' AND family = '$fam' AND qualifier = '$q'"
			  . " AND ts > " . (1 + rnd(400)) . ";";
		}
		else
		{
			# an overwrite of an existing version
			push @sql, "INSERT INTO t SELECT row_key, family, qualifier, ts, -value FROM t"
			  . " WHERE row_key = 'r$r' AND family = '$fam' ORDER BY ts DESC LIMIT 1;";
		}
	}
	return join("\n", @sql);
}

# the filters compared: (optimized, plain) pairs are built from each
my @filters = (
	'{"cells_per_column_limit_filter": 1}',
	'{"cells_per_column_limit_filter": 2}',
	'{"cells_per_column_limit_filter": 3}',
	'{"chain": [{"family_name_regex_filter": "p|s|v"}, {"cells_per_column_limit_filter": 1}]}',
	'{"chain": [{"column_qualifier_regex_filter": "q[01]"}, {"cells_per_column_limit_filter": 2}]}',
);
sub random_filter
{
	my $lo = 1 + rnd(400);
	my $hi = $lo + 1 + rnd(300);
	my $range = "{\"timestamp_range_filter\": {\"start_timestamp_micros\": $lo, \"end_timestamp_micros\": $hi}}";
	return pick(
		"{\"chain\": [$range, {\"cells_per_column_limit_filter\": " . (1 + rnd(3)) . "}]}",
		"{\"chain\": [{\"family_name_regex_filter\": \"p|v\"}, $range, {\"cells_per_column_limit_filter\": "
		  . (1 + rnd(2)) . "}]}",
		"{\"chain\": [{\"row_key_regex_filter\": \"r[0-3]\"}, {\"cells_per_column_limit_filter\": "
		  . (1 + rnd(3)) . "}, {\"cells_per_row_limit_filter\": 4}]}");
}

# differences between the optimized and the plain read of a filter
sub check_sql
{
	my ($f, $prefix) = @_;
	my $p = defined $prefix ? "prefix => '$prefix', " : '';
	return qq{SELECT count(*) FROM (
	  (SELECT * FROM wide.read_rows(NULL::t, ${p}filter => '$f')
	   EXCEPT ALL SELECT * FROM wide.read_rows(NULL::t, ${p}filter => wide.interleave('$f')))
	  UNION ALL
	  (SELECT * FROM wide.read_rows(NULL::t, ${p}filter => wide.interleave('$f'))
	   EXCEPT ALL SELECT * FROM wide.read_rows(NULL::t, ${p}filter => '$f'))) d};
}
my $oracle = q{
	CREATE TEMP TABLE h AS SELECT * FROM t;
	WITH o AS (SELECT DISTINCT ON (row_key, family, qualifier) * FROM h
	            ORDER BY row_key, family, qualifier, ts DESC),
	     c AS (SELECT * FROM wide.read_current(NULL::t))
	SELECT (SELECT count(*) FROM (TABLE o EXCEPT ALL TABLE c) x) +
	       (SELECT count(*) FROM (TABLE c EXCEPT ALL TABLE o) y);
};

my ($checks, $bad, $skipped) = (0, 0, 0);
my $bg = $node->background_psql('postgres', on_error_stop => 0);
for my $round (1 .. $rounds)
{
	# writes, some aborted or rolled back to a savepoint
	my $w = writes();
	my $how = rnd(5);
	if ($how == 0)
	{
		$node->safe_psql('postgres', "BEGIN; $w ROLLBACK;");
	}
	elsif ($how == 1)
	{
		$node->safe_psql('postgres', "BEGIN; " . writes() . " SAVEPOINT s; $w ROLLBACK TO s; COMMIT;");
	}
	else
	{
		$node->safe_psql('postgres', $w);
	}
	my $m = rnd(4);
	$node->safe_psql('postgres', "SELECT FROM wide.compact('t')") if $m == 0;
	$node->safe_psql('postgres', "SELECT FROM wide.compact('t', true)") if $m == 1;

	# an uncommitted transaction with newer versions and deletes
	my $r = rnd(6);
	$bg->query_safe('BEGIN');
	$bg->query_safe("INSERT INTO t SELECT 'r$r', f, 'q' || q, 1000, 1 FROM unnest(ARRAY['p', 's', 'v']) f,"
		  . " generate_series(0, 2) q");
	$bg->query_safe("SELECT wide.delete_cells('t', 'r" . rnd(6) . "', 'p', 'q" . rnd(3) . "')");

	my @round_filters = (@filters, random_filter(), random_filter());
	for my $f (@round_filters)
	{
		for my $prefix (undef, 'r' . rnd(6))
		{
			my $d = $node->safe_psql('postgres', check_sql($f, $prefix));
			$checks++;
			if ($d ne '0')
			{
				$bad++;
				diag("round $round (seed $seed): $d differences for $f"
					  . (defined $prefix ? " prefix $prefix" : ''));
			}
		}
	}
	my $d = $node->safe_psql('postgres', $oracle);
	$checks++;
	if ($d ne '0')
	{
		$bad++;
		diag("round $round (seed $seed): read_current differs from the heap copy by $d");
	}
	my $plan = $node->safe_psql('postgres',
		q{EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM wide.read_current(NULL::t)});
	$skipped++ if $plan =~ /Records Skipped: [1-9]/;
	$bg->query_safe(rnd(2) ? 'COMMIT' : 'ROLLBACK');
}
$bg->quit;

my $runs = $node->safe_psql('postgres', q{SELECT count(*) FROM wide.runs('t')});
my $cells = $node->safe_psql('postgres', q{SELECT count(*) FROM t});
diag("latest fuzz: $checks comparisons, $bad differ; $skipped of $rounds rounds skipped records; "
	  . "$cells cells in $runs runs at the end");
is($bad, 0, "$checks reads of the first n cells a column agree with the full reads, seed $seed");
cmp_ok($skipped, '>', 0, 'the reads skipped older versions');
is($node->safe_psql('postgres', q{SELECT count(*) FROM wide.verify('t')}), '0', 'verify finds no problem');

$node->stop;
done_testing();
