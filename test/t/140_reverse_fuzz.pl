# Differential test of backward Wide Scans (engine/reverse.c): random
# queries ordered by row_key DESC (alone, or the full reverse order
# row_key DESC, family DESC, qualifier DESC, ts), with random key bounds,
# IN lists, LIKE prefixes, time windows, LIMITs and OFFSETs, prepared with generic plans
# (parameters) and as the inner side of nested loops (rescans), must return
# exactly what the same query returns with wide.enable_customscan = off
# (a sequential scan and a sort), and, on a table of plain families, what a
# heap table with the same cells returns.
#
# The table "wt" has a plain family, one with max_versions, one with
# max_age, and a sum aggregate family; both tables have cells in a major
# compaction, in minor runs, in the write area (unflushed), and deletes of
# every kind (rows, families, columns, cell ranges, DELETE by ts), with
# small blocks so that windows cross many of them.
#
#   WIDE_FUZZ_SEED=<n>      the seed (default 20261123); printed
#   WIDE_FUZZ_QUERIES=<n>   queries per table (default 150)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} || 20261123;
my $nqueries = $ENV{WIDE_FUZZ_QUERIES} || 150;
srand($seed);
diag "reverse fuzz seed $seed, $nqueries queries per table";

my $node = PostgreSQL::Test::Cluster->new('reversefuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nwide.block_size = 1024\n");
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

my @keys = ('a', 'ab', 'abc', 'a%', 'a_b', 'b', 'b ', 'ba', 'c', 'k', 'z', 'zz',
	"\x{e9}", 'x' x 70, map { sprintf('k%03d', $_) } 0 .. 199);
my @quals = ('q', 'q1', 'q2', 'r', '', 'zz');

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE wt (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('wt', 'cf');
	SELECT wide.create_family('wt', 'v', max_versions => 2);
	SELECT wide.create_family('wt', 'old', max_age => '30 days');
	SELECT wide.create_family('wt', 's', aggregate => 'sum');
	CREATE TABLE wp (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('wp', 'cf');
	SELECT wide.create_family('wp', 'g');
	CREATE TABLE hp (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts timestamptz, value int8);
	CREATE INDEX ON hp (row_key, family, qualifier, ts DESC);
};

# cells: three batches (a major compaction, a minor run, the write area)
for my $batch (0 .. 2)
{
	my (@wt, @wp);
	my %seen;
	for my $k (@keys)
	{
		next if rnd(3) == 0;
		for (1 .. 1 + rnd(5))
		{
			my $q = pick(@quals);
			my $days = rnd(60);
			push @wt, '(' . join(', ', lit($k), lit(pick('cf', 'v', 'old', 's')), lit($q),
				"now() - interval '$days days' - interval '" . rnd(5) . " seconds'", rnd(100)) . ')';
			my ($f, $ts) = (pick('cf', 'g'), rnd(6));
			next if $seen{"$k\0$f\0$q\0$ts"}++;
			push @wp, '(' . join(', ', lit($k), lit($f), lit($q),
				"'2030-01-01'::timestamptz + interval '$ts hours' + interval '$batch minutes'", rnd(100)) . ')';
		}
	}
	$setup .= "INSERT INTO wt VALUES " . join(",\n", @wt) . ";\n";
	my $vals = join(",\n", @wp);
	$setup .= "INSERT INTO wp VALUES $vals;\nINSERT INTO hp VALUES $vals;\n";
	# deletes of every kind, in both
	for (1 .. 3)
	{
		my ($k, $q) = (lit(pick(@keys)), lit(pick(@quals)));
		$setup .= "SELECT wide.delete_row('wt', $k); SELECT wide.delete_row('wp', $k); DELETE FROM hp WHERE row_key = $k;\n";
		$k = lit(pick(@keys));
		$setup .= "SELECT wide.delete_family('wt', $k, 'v'); SELECT wide.delete_family('wp', $k, 'g'); DELETE FROM hp WHERE row_key = $k AND family = 'g';\n";
		$k = lit(pick(@keys));
		$setup .= "SELECT wide.delete_cells('wt', $k, 'cf', $q); SELECT wide.delete_cells('wp', $k, 'cf', $q); DELETE FROM hp WHERE row_key = $k AND family = 'cf' AND qualifier = $q;\n";
		$k = lit(pick(@keys));
		$setup .= "SELECT wide.delete_cells('wp', $k, 'g', $q, '2030-01-01 01:00'::timestamptz, '2030-01-01 03:00'::timestamptz); "
		  . "DELETE FROM hp WHERE row_key = $k AND family = 'g' AND qualifier = $q AND ts >= '2030-01-01 01:00' AND ts < '2030-01-01 03:00';\n";
	}
	$setup .= "DELETE FROM wp WHERE ts = '2030-01-01 05:00'::timestamptz + interval '$batch minutes';"
	  . "DELETE FROM hp WHERE ts = '2030-01-01 05:00'::timestamptz + interval '$batch minutes';\n";
	$setup .= "SELECT FROM wide.compact('wt', true); SELECT FROM wide.compact('wp', true);\n" if $batch == 0;
	$setup .= "SELECT FROM wide.compact('wt'); SELECT FROM wide.compact('wp');\n" if $batch == 1;
}

# the comparison, in the server: a template run with the Wide Scan, without
# it, and on the heap table (h NULL: not compared with a heap)
$setup .= q{
CREATE FUNCTION rz_rows(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r record;
	acc text := '';
BEGIN
	FOR r IN EXECUTE q LOOP
		acc := acc || r::text || E'\n';
	END LOOP;
	RETURN acc;
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE;
END
$f$;

CREATE FUNCTION rz(q text, w text, h text, prep text, args text[]) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
	res text[] := '{}';
	cfg text;
	body text;
	one text;
	a text;
	backward bool := false;
	plan text;
BEGIN
	FOREACH cfg IN ARRAY ARRAY['on', 'off', 'heap'] LOOP
		CONTINUE WHEN cfg = 'heap' AND h IS NULL;
		PERFORM set_config('wide.enable_customscan', CASE cfg WHEN 'off' THEN 'off' ELSE 'on' END, true);
		body := replace(q, '{T}', CASE cfg WHEN 'heap' THEN h ELSE w END);
		IF prep = '' THEN
			one := rz_rows(body);
			IF cfg = 'on' THEN
				FOR plan IN EXECUTE 'EXPLAIN ' || body LOOP
					backward := backward OR plan LIKE '%Scan Direction: Backward%';
				END LOOP;
			END IF;
		ELSE
			PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
			EXECUTE format('PREPARE rzp(%s) AS %s', prep, body);
			one := '';
			FOREACH a IN ARRAY args LOOP
				one := one || '#' || rz_rows('EXECUTE rzp(' || a || ')');
				IF cfg = 'on' THEN
					FOR plan IN EXECUTE 'EXPLAIN EXECUTE rzp(' || a || ')' LOOP
						backward := backward OR plan LIKE '%Scan Direction: Backward%';
					END LOOP;
				END IF;
			END LOOP;
			DEALLOCATE rzp;
		END IF;
		res := res || one;
	END LOOP;
	IF res[1] = res[2] AND (h IS NULL OR res[2] = res[3]) THEN
		RETURN 'ok' || CASE WHEN backward THEN ' backward' ELSE '' END
			|| CASE WHEN res[1] = '' OR res[1] ~ '^#*$' THEN ' empty' ELSE '' END;
	END IF;
	RETURN format(E'MISMATCH\n-- Wide Scan on:\n%s\n-- Wide Scan off:\n%s\n-- heap:\n%s',
				  res[1], res[2], res[3]);
END
$f$;
};
utf8::upgrade($setup);
utf8::encode($setup);
$node->safe_psql('postgres', $setup);
is($node->safe_psql('postgres',
		"SET wide.enable_customscan = off; SELECT (SELECT count(*) FROM wp) = (SELECT count(*) FROM hp)"),
	't', 'wide and heap tables hold the same cells');

# ----------------------------------------------------------------
# Queries
# ----------------------------------------------------------------
sub key { return lit(pick(@keys, 'k', 'k1', 'k05', 'k1999', 'aa', '')); }

# a bound on row_key (alias a); $p: a parameter to use instead of a constant
sub key_pred
{
	my ($a, $p) = @_;
	my $c = rnd(12);
	my $v = $p // key();
	return "$a.row_key " . pick('<', '<=', '>', '>=') . " $v" if $c < 5;
	return "$a.row_key = $v" if $c < 6;
	return "$a.row_key BETWEEN $v AND " . key() if $c < 7;
	return "$a.row_key LIKE " . lit(pick('k0%', 'k1%', 'k19%', 'a%', 'b%', 'k%', 'zz%', 'k00_')) if $c < 9;
	return "$a.row_key = ANY(ARRAY[" . join(', ', map { key() } 0 .. rnd(5)) . "])" if $c < 11;
	return "$a.row_key IN (" . join(', ', map { key() } 0 .. rnd(3)) . ")";
}

sub where
{
	my ($a, $p) = @_;
	my @p = (key_pred($a, $p));
	push @p, key_pred($a) if rnd(2);
	push @p, pick("$a.qualifier <> 'q1'", "$a.family <> 'v'", "$a.value > 20") if rnd(4) == 0;
	# time windows (time pruning, in each window of a backward read)
	push @p, pick("$a.ts >= now() - interval '" . rnd(60) . " days'",
		"$a.ts < '2030-01-01 03:00'::timestamptz",
		"$a.ts BETWEEN '2030-01-01 01:00' AND '2030-01-01 04:00'",
		"$a.ts > now() - interval '30 days' AND $a.ts <= now() - interval '2 days'") if rnd(3) == 0;
	return join(' AND ', @p);
}

sub limit
{
	return pick('', ' LIMIT ' . (1 + rnd(30)), ' LIMIT 14', ' LIMIT ' . (1 + rnd(5)) . ' OFFSET ' . rnd(20));
}

my $full = 'row_key DESC, family DESC, qualifier DESC, ts';

# returns (template, params, args)
sub query
{
	my $c = rnd(10);
	return ("SELECT * FROM {T} a WHERE " . where('a') . " ORDER BY $full" . limit(), '', [])
	  if $c < 4;
	return ("SELECT row_key FROM {T} a WHERE " . where('a') . " ORDER BY row_key DESC" . limit(), '', [])
	  if $c < 5;
	return ("SELECT * FROM {T} a ORDER BY $full" . limit(), '', []) if $c < 6;
	if ($c < 8)
	{
		# generic plan: the bounds are parameters
		my @args = map { "'" . pick(@keys, 'k', 'k1') . "'" } 0 .. 2;
		return ("SELECT * FROM {T} a WHERE " . where('a', '$1') . " ORDER BY $full" . limit(),
			'text', \@args);
	}
	# rescans: the inner side of a nested loop, keyed by the outer row
	return ("SELECT o.k, x.* FROM (VALUES (" . key() . "), (" . key() . "), (" . key() . ")) o(k),"
		  . " LATERAL (SELECT a.row_key, a.family, a.qualifier, a.value FROM {T} a WHERE a.row_key <= o.k"
		  . " ORDER BY $full LIMIT " . (1 + rnd(10)) . ") x", '', []);
}

my (%stats, @bad);
for my $t (['wt', undef], ['wp', 'hp'])
{
	for my $i (1 .. $nqueries)
	{
		my ($q, $prep, $args) = query();
		my $sql = "SELECT rz(\$q\$$q\$q\$, '$t->[0]', " . (defined $t->[1] ? "'$t->[1]'" : 'NULL')
		  . ", '$prep', ARRAY[" . join(', ', map { "\$a\$$_\$a\$" } @$args) . "]::text[])";
		utf8::encode($sql);
		my $r = $node->safe_psql('postgres', $sql);
		$stats{$t->[0]}{backward}++ if $r =~ /backward/;
		$stats{$t->[0]}{empty}++ if $r =~ /empty/;
		push @bad, "seed $seed, $t->[0]: $q\n$r" unless $r =~ /^ok/;
	}
	diag sprintf("reverse fuzz %s: %d queries, %d with a backward scan, %d empty",
		$t->[0], $nqueries, $stats{$t->[0]}{backward} // 0, $stats{$t->[0]}{empty} // 0);
	ok(($stats{$t->[0]}{backward} // 0) > $nqueries / 2, "$t->[0]: most queries scan backward");
}
is(join("\n\n", @bad[0 .. ($#bad < 4 ? $#bad : 4)]), '', 'backward scans return what the plain plans return');

$node->stop;
done_testing();
