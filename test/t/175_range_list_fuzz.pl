# Differential test of the Wide Scan's lists of key ranges (issue 26,
# "many ranges from SQL"): ORs of key ranges, equalities, IN lists and
# LIKE/starts_with prefixes (overlapping, touching, nested, with NULL
# bounds, mixed with other conditions), split_part(row_key, '#', 1) = / IN /
# = ANY (constants and parameters of generic plans, values holding the
# separator, keys without it), row_key = ANY(subquery), and nested loops
# with a small table keyed by split_part or by name || '#' ranges; forward
# and backward.  Every random query runs three ways -- wide with
# wide.enable_customscan on, with it off, and a heap copy -- and must return
# the same rows.  (A merge of ranges that drops a touching end, or an
# intersection that keeps a range too long, fails here within the first
# hundred queries.)
#
#   WIDE_RANGE_FUZZ_SEED=<n>      the seed (default 20261128); printed
#   WIDE_RANGE_FUZZ_QUERIES=<n>   queries (default 300)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WideFuzz;

my $seed = $ENV{WIDE_RANGE_FUZZ_SEED} || 20261128;
my $nqueries = $ENV{WIDE_RANGE_FUZZ_QUERIES} || 300;
srand($seed);
diag "range list fuzz seed $seed, $nqueries queries";

my $node = PostgreSQL::Test::Cluster->new('rangefuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nwide.block_size = 1024\n");
$node->start;

# ----------------------------------------------------------------
# Data: host_N#10MM keys, and keys that test the edges of the ranges
# ----------------------------------------------------------------
my @hosts = map { "host_$_" } 0 .. 5;
my @keys;
for my $h (@hosts)
{
	push @keys, sprintf('%s#%d', $h, 1000 + $_) for 0 .. 11;
}
push @keys, 'host_1', 'host_1x#1', 'host_1#', 'host_1$', 'host_1#$', 'host_10#1000',
  'host_2#1005#x', 'a#b#c', 'a', '#x', 'host_', 'host_3#', 'z';
my @parts = (@hosts, 'host_1x', 'host_10', 'a', 'a#b', '', 'host_', 'nope', 'host_1#');

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('w', 'cf');
	SELECT wide.create_family('w', 'v2', max_versions => 2);
};

sub writes
{
	my ($n) = @_;
	my $s = '';
	for (1 .. $n)
	{
		$s .= "INSERT INTO w VALUES (" . lit(pick(@keys)) . ", '" . pick('cf', 'v2') . "', '"
		  . pick('q1', 'q2') . "', '2030-01-01'::timestamptz + interval '" . rnd(5) . " min', "
		  . rnd(1000) . ");\n";
	}
	return $s;
}

sub deletes
{
	my ($n) = @_;
	my $s = '';
	for (1 .. $n)
	{
		my $k = lit(pick(@keys));
		$s .= pick("SELECT wide.delete_row('w', $k);\n",
			"SELECT wide.delete_cells('w', $k, 'cf', 'q1');\n",
			"DELETE FROM w WHERE row_key = $k AND value % 3 = 0;\n");
	}
	return $s;
}

# three layers: a major compaction, a minor one, the write area
$setup .= writes(700) . deletes(8) . "SELECT FROM wide.compact('w', true);\n";
$setup .= writes(300) . deletes(6) . "SELECT FROM wide.compact('w');\n";
$setup .= writes(100) . deletes(4);

# the heap copy; o is the small table of the joins
$setup .= q{
	SET wide.enable_customscan = off;
	CREATE TABLE h (row_key text COLLATE "C", family text COLLATE "C",
	                qualifier text COLLATE "C", ts timestamptz, value int8);
	INSERT INTO h SELECT * FROM w;
	CREATE INDEX ON h (row_key);
	RESET wide.enable_customscan;
	CREATE TABLE o (name text, lo text, hi text);
};
for (1 .. 4)
{
	my $p = pick(@parts, @hosts);
	my $k = pick(@keys);
	$setup .= "INSERT INTO o VALUES (" . join(', ', lit($p), lit($k), lit(pick(@keys))) . ");\n";
}
$setup .= "INSERT INTO o VALUES (NULL, NULL, 'host_2');\nANALYZE w; ANALYZE h; ANALYZE o;\n";

# the comparison, in the server: run a template three ways (WideFuzz.pm)
$setup .= differential_sql();


utf8::encode($setup);
$node->safe_psql('postgres', $setup);
is($node->safe_psql('postgres', "SELECT (SELECT count(*) FROM w) = (SELECT count(*) FROM h)"),
	't', 'the heap copy holds the wide table\'s cells');

# ----------------------------------------------------------------
# Queries
# ----------------------------------------------------------------

# a key near the data: one of them, a prefix of one, or one just past it;
# often one used just before, so that ranges of a query touch and overlap
my @recent;
sub key
{
	return pick(@recent) if @recent && rnd(5) < 2;
	my $k = pick(@keys, @hosts, 'host_1#10', 'host_2#100');
	my $c = rnd(6);
	$k = substr($k, 0, 1 + rnd(length($k))) if $c == 0;
	$k .= pick('0', "\x{1}", '#') if $c == 1;
	push @recent, lit($k);
	shift @recent if @recent > 3;
	return lit($k);
}

sub part { return lit(pick(@parts)); }

# one condition that bounds row_key (or, rarely, does not)
sub key_cond
{
	my $c = rnd(20);
	return "t.row_key " . pick('>=', '>', '<', '<=') . ' ' . key() if $c < 3;
	if ($c < 8)
	{
		# a range, a third of them empty or one key wide
		my ($a, $b) = (key(), key());
		($a, $b) = ($b, $a) if rnd(3) && $a gt $b;
		return "t.row_key " . pick('>=', '>') . " $a AND t.row_key " . pick('<', '<=') . " $b";
	}
	return "t.row_key = " . key() if $c < 10;
	return "t.row_key = ANY(ARRAY[" . join(', ', map { key() } 0 .. rnd(4)) . "])" if $c < 11;
	return "t.row_key IN (" . join(', ', map { key() } 0 .. rnd(3)) . ")" if $c < 12;
	my $pre = pick(@keys, @hosts, 'host_1#', 'host_', 'a#');
	$pre = substr($pre, 0, 1 + rnd(length($pre)));
	return "t.row_key LIKE " . lit($pre . pick('%', '%', '_%', '%0')) if $c < 13;
	return "starts_with(t.row_key, " . lit($pre) . ")" if $c < 14;
	return "t.row_key ^@ " . lit($pre) if $c < 15;
	return "split_part(t.row_key, '#', 1) = " . part() if $c < 17;
	# (more than 64 constants: the ranges are built when the scan starts)
	return "split_part(t.row_key, '#', 1) IN (" . join(', ', map { part() } 0 .. (rnd(4) ? rnd(4) : 64 + rnd(8))) . ")"
	  if $c < 18;
	return "t.row_key = NULL" if $c < 19;
	return pick("t.value > " . rnd(1000), "t.family = 'cf'", "split_part(t.row_key, '#', 2) = '1003'");
}

# an OR of 1 to 6 arms, an arm sometimes with a condition on another column
sub or_cond
{
	my @arms = map {
		my $a = key_cond();
		$a = "($a AND " . pick("t.value % 2 = 0", "t.qualifier = 'q1'", key_cond()) . ")" if !rnd(5);
		$a = "($a)" if $a =~ / AND /;
		$a
	} 0 .. rnd(6);
	# arms that meet at a key of the data: touching ends, included or not
	if (!rnd(3))
	{
		my $k = lit(pick(@keys));
		push @arms, "t.row_key " . pick('<', '<=') . " $k",
		  "(t.row_key " . pick('>', '>=') . " $k AND t.row_key < " . key() . ")";
	}
	# nested: an arm that is itself an OR
	$arms[0] = '(' . key_cond() . ' OR ' . key_cond() . ')' if !rnd(6);
	return '(' . join(' OR ', @arms) . ')';
}

sub where
{
	my @c = (or_cond());
	push @c, pick(or_cond(), key_cond(), "t.value > " . rnd(1000), "t.family = 'v2'",
		"t.row_key ILIKE " . lit(pick('HOST_1%', 'host_%', 'HoSt_2#10%', 'a%', 'HOST_1#%'))) if rnd(2);
	return join(' AND ', @c);
}

my $cols = 't.row_key, t.family, t.qualifier, t.ts, t.value';

# returns (template, parameter types, argument lists)
sub query
{
	my $c = rnd(20);
	return ("SELECT $cols FROM {T} t WHERE " . where(), '', []) if $c < 8;
	return ("SELECT $cols FROM {T} t WHERE " . where()
		  . " ORDER BY t.row_key DESC, t.family DESC, t.qualifier DESC, t.ts LIMIT " . (1 + rnd(20)), '', [])
	  if $c < 10;
	return ("SELECT count(*), sum(t.value) FROM {T} t WHERE " . where(), '', []) if $c < 11;
	if ($c < 13)
	{
		return ("SELECT $cols FROM {T} t WHERE t.row_key = ANY(SELECT o.lo FROM o)", '', [])
		  if rnd(3) == 0;
		return ("SELECT $cols FROM {T} t WHERE split_part(t.row_key, '#', 1) IN (SELECT o.name FROM o)"
			  . (rnd(2) ? " AND " . or_cond() : ''), '', []);
	}
	if ($c < 16)
	{
		my $j = pick("split_part(t.row_key, '#', 1) = o.name",
			"t.row_key >= o.name || '#' AND t.row_key < o.name || '\$'",
			"t.row_key >= o.lo AND t.row_key <= o.hi",
			"split_part(t.row_key, '#', 1) = o.name AND " . or_cond());
		my $w = rnd(3) ? '' : ' AND ' . or_cond();
		return ("SELECT o.name, $cols FROM o JOIN {T} t ON $j$w", '', []) if rnd(3);
		return ("SELECT o.name, $cols FROM o LEFT JOIN {T} t ON $j$w", '', []) if rnd(2);
		return ("SELECT o.name, x.* FROM o, LATERAL (SELECT $cols FROM {T} t WHERE $j$w"
			  . " ORDER BY t.row_key DESC, t.family DESC, t.qualifier DESC, t.ts LIMIT 3) x", '', []);
	}
	# generic plans: arrays of first parts, range bounds as parameters
	my @args = map {
		join(', ', "ARRAY[" . join(', ', map { part() } 0 .. rnd(4)) . (rnd(4) ? '' : ', NULL') . "]",
			pick(key(), 'NULL'), key(), part())
	} 0 .. 2;
	my $p = pick("split_part(t.row_key, '#', 1) = ANY(\$1)",
		"(t.row_key >= \$2 AND t.row_key < \$3) OR split_part(t.row_key, '#', 1) = \$4",
		"split_part(t.row_key, '#', 1) = \$4 AND " . or_cond(),
		"(t.row_key = \$2 OR t.row_key = \$3 OR t.row_key = ANY(\$1))",
		"split_part(t.row_key, '#', 1) = ANY(\$1) AND (t.row_key < \$3 OR t.row_key = \$2)");
	return ("SELECT $cols FROM {T} t WHERE $p", 'text[], text, text, text', \@args);
}

my %seen = %{ differential_run($node, $seed, $nqueries, \&query, qr/JOIN|LATERAL| IN \(SELECT|ANY\(SELECT/) };
# the lists of ranges were exercised, forward, backward and as join seeks
cmp_ok($seen{list} // 0, '>', $nqueries / 3, 'lists of ranges pushed down');
cmp_ok($seen{backward} // 0, '>', $nqueries / 40, 'read backward');
cmp_ok($seen{param} // 0, '>', $nqueries / 40, 'parameterized nested loops');

$node->stop;
done_testing();
