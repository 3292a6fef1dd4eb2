# Bulk runs cut their data blocks where a row key's leading part changes
# (engine/bulk.c: find_parts; segment_writer.c: WideSegmentWriterPart, a
# part's short tail joining the block before it), and a compaction loads a
# block that may pass without its values, loading it again when it is
# merged after all (blockpass.c).  Random key shapes, part lengths, block
# sizes and values, loaded time-major as statement runs: the merge with
# blocks passed through must hold exactly what a record-by-record merge of
# a twin holds, point reads and ranges must agree, and verify must find
# every block in order.  The seed is printed; WIDE_FUZZ_SEED repeats a run.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WideFuzz;

my $seed = $ENV{WIDE_FUZZ_SEED} // time();
srand($seed);
diag("part cut fuzz: seed $seed");

my $node = PostgreSQL::Test::Cluster->new('partcut');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wide');

# a row key of host h at time t, in one of several shapes
my @shapes = (
	# TSBS's shape: the host, then the time
	sub { "'host_' || $_[0] || '#' || (1451606400 + $_[1] * 10)" },
	# zero-padded hosts, short times that roll over a digit (99 -> 100)
	sub { "'h' || lpad($_[0]::text, 3, '0') || '/' || ($_[1] + 90)" },
	# a salt byte before the host
	sub { "chr(65 + $_[0] % 3) || ':dev' || $_[0] || ':' || lpad($_[1]::text, 6, '0')" },
	# no leading part: random-looking keys are one part
	sub { "md5($_[0] || '/' || $_[1])" },
	# one row per host (versions of one key are not loaded: max_versions 1),
	# the time in the qualifier's place
	sub { "'sensor-' || $_[0]" });
my @values = (
	sub { "random() * 1000" },                              # full precision
	sub { "(($_[0] * 7 + $_[1] * 3) % 101)::float8" },     # integers
	sub { "round((sin($_[0] + $_[1] * 0.1) * 100)::numeric, 2)::float8" });

my $rounds = 30;
my %tags;
for my $round (1 .. $rounds)
{
	my $shape = rnd(scalar @shapes);
	my $hosts = 1 + rnd(30);
	my $loads = 2 + rnd(4);
	my $per = 1 + rnd(80);              # readings of a host in a load
	my $quals = 1 + rnd(10);
	my $bs = pick(1024, 1024, 2048, 4096, 16384);
	my $val = $values[ rnd(scalar @values) ];
	my $what = "round $round: shape $shape, $hosts hosts, $loads loads of $per readings, "
	  . "$quals columns, block_size $bs";

	$node->safe_psql('postgres', q{
		DROP TABLE IF EXISTS t, twin;
		CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
		CREATE TABLE twin (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
		SELECT wide.create_family('t', 'cpu', max_versions => 1);
		SELECT wide.create_family('twin', 'cpu', max_versions => 1);
	});
	for my $k (0 .. $loads - 1)
	{
		my $t = "($k * $per + s)";
		my $key = $shapes[$shape]->('h', $t);
		my $qual = $shape == 4 ? "'m' || q || '\@' || $t" : "'m' || q";
		my $v = $val->('h', $t);
		for my $tbl ('t', 'twin')
		{
			# every statement a sorted run (wide.statement_run_size 0),
			# readings in time order, hosts interleaved
			$node->safe_psql('postgres', qq{
				SET wide.block_size = $bs; SET wide.statement_run_size = 0;
				SELECT setseed(0.$round$k);
				INSERT INTO $tbl SELECT $key, 'cpu', $qual, $t, $v
				  FROM generate_series(0, $per - 1) s, generate_series(1, $hosts) h,
				       generate_series(1, $quals) q
				 ORDER BY s, h, q});
		}
	}
	# sometimes rows written among a host's, so that its blocks are merged
	# with their values after being offered
	if (rnd(3) == 0)
	{
		my $h = 1 + rnd($hosts);
		my $key = $shapes[$shape]->($h, "s");
		for my $tbl ('t', 'twin')
		{
			$node->safe_psql('postgres', qq{
				SET wide.statement_run_size = 0;
				INSERT INTO $tbl SELECT $key || '~', 'cpu', 'm1', s, -s
				  FROM generate_series(0, $loads * $per - 1, 3) s});
		}
		$tags{interleaved}++;
	}

	my $log_offset = -s $node->logfile;
	$node->safe_psql('postgres',
		"SET log_min_messages = debug1; SELECT FROM wide.compact('t', major => true)");
	my ($passed, $merged) = slurp_file($node->logfile, $log_offset) =~
	  /compaction of \d+ runs passed (\d+) data blocks \(\d+ records\) through, merged (\d+)/;
	$tags{passed} += $passed // 0;
	$tags{merged} += $merged // 0;
	$node->safe_psql('postgres',
		"SET wide.compaction_pass_through = off; SELECT FROM wide.compact('twin', major => true)");

	my $diff = $node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM (TABLE t EXCEPT ALL TABLE twin) a) || '/' ||
		       (SELECT count(*) FROM (TABLE twin EXCEPT ALL TABLE t) b) || '/' ||
		       (SELECT count(*) FROM t)});
	my ($only_t, $only_twin, $n) = split m{/}, $diff;
	if ($only_t != 0 || $only_twin != 0)
	{
		fail("$what: the merged tables differ ($diff); seed $seed");
		last;
	}
	my $problems = $node->safe_psql('postgres',
		"SELECT string_agg(object || ': ' || problem, '; ') FROM wide.verify('t')");
	if ($problems ne '')
	{
		fail("$what: verify: $problems; seed $seed");
		last;
	}
	# point reads and a key range through the new index blocks
	my $h = 1 + rnd($hosts);
	my $s = rnd($loads * $per);
	my $point = $shapes[$shape]->($h, $s);
	my $lo = $shapes[$shape]->($h, 0);
	my $q = qq{
		SELECT count(*) || '/' || coalesce(sum(value), 0) FROM {T} WHERE row_key = $point;
		SELECT count(*) || '/' || coalesce(sum(value), 0) FROM {T} WHERE row_key >= $lo AND row_key < $lo || '~~';
	};
	(my $qt = $q) =~ s/\{T\}/t/g;
	(my $qw = $q) =~ s/\{T\}/twin/g;
	my $at = $node->safe_psql('postgres', $qt);
	my $aw = $node->safe_psql('postgres', $qw);
	if ($at ne $aw)
	{
		fail("$what: reads differ: '$at' against '$aw'; seed $seed");
		last;
	}
	$tags{rows} += $n;
}
pass("$rounds rounds: the passed merge equals the merged twin, verify finds nothing, reads agree")
  unless Test::More->builder->is_passing == 0;
diag(join(', ', map { "$_: $tags{$_}" } sort keys %tags));
cmp_ok($tags{passed} // 0, '>', 0, 'blocks were passed through');

$node->stop;
done_testing();
