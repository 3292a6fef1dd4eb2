# Randomized test against a model: random puts, aggregate adds, deletes of
# every kind, flushes, compactions and VACUUMs are applied to a wide table
# and, with the same meaning, to a plain heap table; after every few
# operations both are read and must agree cell for cell.
#
# The model keeps one row per cell: a put replaces the row of the same
# coordinates, a delete removes the rows of its scope (the cells written
# before it, whatever their timestamps), an add updates a sum, and GC
# (max_versions) is applied when the model is read.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('model');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nwide.flush_threshold = 16\n");
$node->start;

my $psql = $node->background_psql('postgres');
$psql->query_safe(q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8,
	                value int8) USING wide;
	SELECT wide.create_family('t', 'a');
	SELECT wide.create_family('t', 'v', max_versions => 2);
	SELECT wide.create_family('t', 'n', aggregate => 'sum');
	CREATE TABLE model (row_key text COLLATE "C", family text COLLATE "C",
	                    qualifier text COLLATE "C", ts int8, value int8);
});

my $read_wide = q{SELECT string_agg(row_key || ',' || family || ',' || qualifier
	|| ',' || ts || ',' || value, ';') FROM t};
my $read_model = q{SELECT string_agg(row_key || ',' || family || ',' || qualifier
	|| ',' || ts || ',' || value, ';' ORDER BY row_key, family, qualifier, ts DESC)
	FROM (SELECT *, row_number() OVER (PARTITION BY row_key, family, qualifier
	                                   ORDER BY ts DESC) AS rn FROM model) m
	WHERE family <> 'v' OR rn <= 2};

sub rnd { return int(rand($_[0])); }
sub key { return 'r' . sprintf('%02d', rnd(25)); }
sub qual { return 'q' . rnd(5); }

sub put
{
	my ($fam, $k, $q, $ts, $v) = @_;
	return (
		"INSERT INTO t VALUES ('$k', '$fam', '$q', $ts, $v)",
		"DELETE FROM model WHERE row_key = '$k' AND family = '$fam' AND qualifier = '$q' AND ts = $ts;"
		  . " INSERT INTO model VALUES ('$k', '$fam', '$q', $ts, $v)");
}

sub operation
{
	my $p = rnd(100);
	my ($k, $q, $ts, $v) = (key(), qual(), rnd(10), rnd(1000) - 500);

	return put('a', $k, $q, $ts, $v) if $p < 40;
	return put('v', $k, $q, $ts, $v) if $p < 50;
	if ($p < 60)
	{
		return (
			"INSERT INTO t VALUES ('$k', 'n', '$q', $ts, $v)",
			"UPDATE model SET value = value + $v WHERE row_key = '$k' AND family = 'n' AND qualifier = '$q' AND ts = $ts;"
			  . " INSERT INTO model SELECT '$k', 'n', '$q', $ts, $v WHERE NOT EXISTS"
			  . " (SELECT FROM model WHERE row_key = '$k' AND family = 'n' AND qualifier = '$q' AND ts = $ts)");
	}
	if ($p < 63)
	{
		# a batch: the later write of the same cell wins
		my (@w, @m);
		for (1 .. 5)
		{
			my ($wq, $mq) = put('a', key(), qual(), rnd(10), rnd(1000));
			push @w, $wq;
			push @m, $mq;
		}
		return (join('; ', @w), join('; ', @m));
	}
	if ($p < 73)
	{
		my $fam = rnd(2) ? 'a' : 'n';
		my $from = rnd(3) ? rnd(10) : undef;
		my $to = rnd(3) ? (defined $from ? $from : 0) + rnd(6) : undef;
		my $args = join(', ', defined $from ? $from : 'NULL::int8', defined $to ? $to : 'NULL::int8');
		my $cond = (defined $from ? " AND ts >= $from" : '') . (defined $to ? " AND ts < $to" : '');
		return (
			"SELECT wide.delete_cells('t', '$k', '$fam', '$q', $args)",
			"DELETE FROM model WHERE row_key = '$k' AND family = '$fam' AND qualifier = '$q'$cond");
	}
	if ($p < 77)
	{
		my $fam = ('a', 'v', 'n')[ rnd(3) ];
		return (
			"SELECT wide.delete_family('t', '$k', '$fam')",
			"DELETE FROM model WHERE row_key = '$k' AND family = '$fam'");
	}
	if ($p < 80)
	{
		return ("SELECT wide.delete_row('t', '$k')",
			"DELETE FROM model WHERE row_key = '$k'");
	}
	if ($p < 84)
	{
		# a transaction that rolls back changes nothing
		my ($wq) = put('a', $k, $q, $ts, $v);
		return ("BEGIN; $wq; SELECT wide.delete_row('t', '" . key() . "'); ROLLBACK", "SELECT 1");
	}
	return ("SELECT FROM wide.compact('t')", "SELECT 1") if $p < 92;
	return ("SELECT FROM wide.compact('t', major => true)", "SELECT 1") if $p < 96;
	return ("VACUUM t", "SELECT 1");
}

my $mismatch = 0;
for my $seed (1, 2, 3, 4)
{
	srand($seed);
	$psql->query_safe('TRUNCATE t; TRUNCATE model');
	for my $i (1 .. 1200)
	{
		my ($w, $m) = operation();
		$psql->query_safe($w);
		$psql->query_safe($m);
		next unless $i % 50 == 0;
		my $got = $psql->query_safe($read_wide);
		my $want = $psql->query_safe($read_model);
		if ($got ne $want)
		{
			$mismatch++;
			diag("seed $seed, operation $i: wide and the model differ");
			diag("wide:  $got");
			diag("model: $want");
			last;
		}
	}
	is($mismatch, 0, "seed $seed: wide agrees with the model after 1200 operations");
	is($psql->query_safe("SELECT count(*) FROM wide.verify('t')"), '0',
		"seed $seed: verify finds nothing wrong");
}

$psql->quit;
$node->stop;
done_testing();
