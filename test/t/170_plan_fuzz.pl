# Differential test of the Wide Scan's pushdowns of issue 11: key ranges
# from LIKE, ILIKE, starts_with and ^@ patterns (constant, computed,
# parameters of generic plans), family and qualifier = / IN sets dropped
# in the scan, and parameterized nested loops keyed by row_key.  Every
# random query runs three ways -- wide with wide.enable_customscan on,
# with it off (sequential scans checking every condition), and a heap copy
# of what the wide table holds -- and must return the same rows.
#
# The wide table has families with max_versions, max_age and a sum
# aggregate besides plain ones; its cells sit in several runs and in the
# write area, with row, family, column and cell-range deletes (and SQL
# DELETEs) in every layer, so the sets are checked on merged cells.
#
#   WIDE_PLAN_FUZZ_SEED=<n>      the seed (default 20261123); printed
#   WIDE_PLAN_FUZZ_QUERIES=<n>   queries (default 300)
#
# A mismatch prints the seed, the query and the three results.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WideFuzz;

my $seed = $ENV{WIDE_PLAN_FUZZ_SEED} || 20261123;
my $nqueries = $ENV{WIDE_PLAN_FUZZ_QUERIES} || 300;
srand($seed);
diag "plan fuzz seed $seed, $nqueries queries";

my $node = PostgreSQL::Test::Cluster->new('planfuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nwide.block_size = 1024\n");
$node->start;

# ----------------------------------------------------------------
# Data
# ----------------------------------------------------------------
my @keys = ('a', 'ab', 'abc', 'a%b', 'a_b', 'a\\b', 'A', 'AB', 'Ab', 'aB',
	'#1', '#10', '#2', '1#a', '12#b', '12#B', "\x{e9}", "\x{e9}a", "\x{c9}a", 'k', 'K',
	'z', 'zz', '~', 'x' x 70);
push @keys, map { (sprintf('host%d#%03d', $_ % 4, $_), sprintf('HOST%d#%03d', $_ % 4, $_)) } 1 .. 40;
my @fams = ('cf', 'g', 'v2', 'age', 'sum');
my @quals = ('q', 'q1', 'q2', 'Q', 'a', 'ab', 'z', "\x{e9}", 'a%b', '');

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('w', 'cf');
	SELECT wide.create_family('w', 'g');
	SELECT wide.create_family('w', 'v2', max_versions => 2);
	SELECT wide.create_family('w', 'age', max_age => '1 day');
	SELECT wide.create_family('w', 'sum', aggregate => 'sum');
};

# a timestamp: old ones fall out of family age, recent ones stay
sub ts
{
	my $c = rnd(3);
	return "'2030-01-01'::timestamptz + interval '" . rnd(5) . " min'" if $c == 0;
	return "now() - interval '" . (10 + rnd(3)) . " days'" if $c == 1;
	return "now() - interval '" . (1 + rnd(30)) . " min'";
}

sub writes
{
	my ($n) = @_;
	my $s = '';
	for (1 .. $n)
	{
		my ($k, $f, $q) = (lit(pick(@keys)), pick(@fams), lit(pick(@quals)));
		if ($f eq 'sum')
		{
			$s .= "SELECT wide.add_to_cell('w', $k, 'sum', $q, '2030-01-01'::timestamptz, " . rnd(100) . "::int8);\n";
		}
		else
		{
			$s .= "INSERT INTO w VALUES ($k, '$f', $q, " . ts() . ", " . rnd(1000) . ");\n";
		}
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
		my $c = rnd(5);
		$s .= "SELECT wide.delete_row('w', $k);\n" if $c == 0;
		$s .= "SELECT wide.delete_family('w', $k, '" . pick(@fams) . "');\n" if $c == 1;
		$s .= "SELECT wide.delete_cells('w', $k, '" . pick('cf', 'g', 'v2') . "', " . lit(pick(@quals)) . ");\n" if $c == 2;
		$s .= "SELECT wide.delete_cells('w', $k, '" . pick('cf', 'g', 'v2') . "', " . lit(pick(@quals))
		  . ", '2030-01-01'::timestamptz, '2030-01-01 00:02'::timestamptz);\n" if $c == 3;
		$s .= "DELETE FROM w WHERE qualifier = " . lit(pick(@quals)) . " AND value % 7 = 0;\n" if $c == 4;
	}
	return $s;
}

# three layers: a major compaction, a minor one, the write area
$setup .= writes(900) . deletes(10) . "SELECT FROM wide.compact('w', true);\n";
$setup .= writes(500) . deletes(10) . "SELECT FROM wide.compact('w');\n";
$setup .= writes(150) . deletes(6);

# the heap copy holds what the wide table returns; o is the outer side of joins
$setup .= q{
	SET wide.enable_customscan = off;
	CREATE TABLE h (row_key text COLLATE "C", family text COLLATE "C",
	                qualifier text COLLATE "C", ts timestamptz, value int8);
	INSERT INTO h SELECT * FROM w;
	CREATE INDEX ON h (row_key);
	RESET wide.enable_customscan;
	CREATE TABLE o (k text, f text, q text, lo text, hi text);
};
for (1 .. 12)
{
	my $k = pick(@keys, 'nope', 'host1#', 'a');
	$setup .= "INSERT INTO o VALUES (" . join(', ', lit($k), pick("'cf'", "'g'", "'v2'", 'NULL'),
		pick("'q'", "'q1'", 'NULL'), lit(substr($k, 0, 2)), lit(substr($k, 0, 2) . '~')) . ");\n";
}
$setup .= "INSERT INTO o VALUES (NULL, 'cf', 'q', NULL, 'b');\nANALYZE w; ANALYZE h; ANALYZE o;\n";

# the comparison, in the server: run a template three ways (WideFuzz.pm)
$setup .= differential_sql();

utf8::encode($setup);
$node->safe_psql('postgres', $setup);
is($node->safe_psql('postgres', "SELECT (SELECT count(*) FROM w) = (SELECT count(*) FROM h)"),
	't', 'the heap copy holds the wide table\'s cells');

# ----------------------------------------------------------------
# Queries
# ----------------------------------------------------------------

# a pattern: a literal prefix (with letters, digits, metacharacters,
# non-ASCII), then a tail; constant or computed
sub pattern
{
	my $k = pick(@keys, '', 'host', 'HoSt1#', '1', '12#', '#', 'x');
	$k = substr($k, 0, rnd(length($k) + 1)) if rnd(2);
	my $p = $k . pick('%', '%', '_%', '', '%1', '_', '\\%%', '%#0%');
	$p .= '%' if $p =~ /(?<!\\)(?:\\\\)*\\$/;
	my $l = lit($p);
	my $c = rnd(6);
	return $l if $c < 4;
	return "($l || '')" if $c < 5;
	return "$l COLLATE \"POSIX\"";
}

sub prefix_const
{
	my $k = pick(@keys, '', 'host', 'host1#', 'HOST', '12#', '#1');
	$k = substr($k, 0, rnd(length($k) + 1)) if rnd(2);
	return pick(lit($k), lit($k), "(" . lit($k) . " || '')", 'NULL::text');
}

sub key_pred
{
	my $c = rnd(12);
	return "t.row_key " . pick('LIKE', 'LIKE', 'ILIKE', 'ILIKE', 'NOT LIKE') . ' ' . pattern() if $c < 5;
	return "starts_with(t.row_key, " . prefix_const() . ")" if $c < 7;
	return "t.row_key ^@ " . prefix_const() if $c < 8;
	return "t.row_key " . pick('=', '<', '>=') . ' ' . lit(pick(@keys)) if $c < 10;
	return "t.row_key = ANY(ARRAY[" . join(', ', map { lit(pick(@keys)) } 0 .. rnd(4)) . "])";
}

sub col_values
{
	my ($col) = @_;
	my @v = $col eq 'family' ? (@fams, 'nope') : (@quals, 'nope');
	return map { pick(@v) } 0 .. rnd(3);
}

sub col_pred
{
	my $col = pick('family', 'qualifier');
	my $c = rnd(10);
	my @v = col_values($col);
	return "t.$col = " . lit($v[0]) if $c < 3;
	return lit($v[0]) . " = t.$col" if $c < 4;
	return "t.$col IN (" . join(', ', map { lit($_) } @v) . ")" if $c < 6;
	return "t.$col = ANY(ARRAY[" . join(', ', map { lit($_) } @v) . ", NULL])" if $c < 7;
	return "t.$col = " . lit($v[0]) . "::name" if $c < 8;
	return "t.$col = " . lit($v[0]) . " COLLATE \"POSIX\"" if $c < 9;
	return "t.$col " . pick('<>', '<', '>=') . ' ' . lit($v[0]);
}

sub other_pred
{
	my $c = rnd(4);
	return "t.value % 3 = " . rnd(3) if $c < 1;
	return "t.ts < now() - interval '1 day'" if $c < 2;
	return "length(t.qualifier) = " . rnd(3) if $c < 3;
	return "t.value > " . rnd(500);
}

sub pred
{
	my ($depth) = @_;
	$depth //= 0;
	my $c = rnd(12);
	return key_pred() if $c < 5;
	return col_pred() if $c < 9;
	return other_pred() if $c < 10 || $depth > 0;
	return '(' . pred($depth + 1) . ' OR ' . pred($depth + 1) . ')' if $c < 11;
	return 'NOT (' . pred($depth + 1) . ')';
}

sub where { return join(' AND ', map { pred() } 0 .. rnd(3)); }

my $cols = 't.row_key, t.family, t.qualifier, t.ts, t.value';

# returns (template, parameter types, argument lists)
sub query
{
	my $c = rnd(10);
	return ("SELECT $cols FROM {T} t WHERE " . where(), '', []) if $c < 4;
	return ("SELECT t.row_key, t.family, count(*), sum(t.value) FROM {T} t WHERE " . where()
		  . " GROUP BY 1, 2", '', []) if $c < 5;
	if ($c < 8)
	{
		# nested loops keyed by row_key, ranges from the outer row, LATERAL
		my $j = pick('t.row_key = o.k', 't.row_key = o.k', 'o.k = t.row_key',
			't.row_key >= o.lo AND t.row_key < o.hi', 't.row_key = o.k AND t.family = o.f',
			't.row_key = o.k AND t.qualifier = o.q', 'starts_with(t.row_key, o.lo)');
		my $w = rnd(2) ? ' AND ' . where() : '';
		return ("SELECT o.k, $cols FROM o JOIN {T} t ON $j$w", '', []) if rnd(3);
		return ("SELECT o.k, $cols FROM o LEFT JOIN {T} t ON $j$w", '', []) if rnd(2);
		return ("SELECT o.k, x.* FROM o, LATERAL (SELECT $cols FROM {T} t WHERE $j$w"
			  . " ORDER BY t.row_key, t.family, t.qualifier, t.ts DESC LIMIT 3) x", '', []);
	}
	# generic plans: patterns, prefixes, families and qualifiers as parameters
	my @args = map {
		join(', ', lit(pick('host1#%', 'HOST%', '%1', '12#%', 'a_%', '', 'ab%')),
			lit(pick('host', 'HOST2#', '', 'a')), lit(pick(@fams)),
			"ARRAY[" . join(', ', map { lit(pick(@quals)) } 0 .. rnd(3)) . "]")
	} 0 .. 2;
	my $p = pick('t.row_key LIKE $1', 't.row_key ILIKE $1', 'starts_with(t.row_key, $2)',
		't.row_key ^@ $2', 't.family = $3', 't.qualifier = ANY($4)',
		't.family = $3 AND t.qualifier = ANY($4)', 't.row_key ILIKE $1 AND t.family = $3');
	return ("SELECT $cols FROM {T} t WHERE $p", 'text, text, text, text[]', \@args);
}

my %seen = %{ differential_run($node, $seed, $nqueries, \&query, qr/JOIN|LATERAL/) };
# the pushdowns were exercised
cmp_ok($seen{keys} // 0, '>', $nqueries / 10, 'key ranges pushed down');
cmp_ok($seen{columns} // 0, '>', $nqueries / 10, 'family and qualifier sets pushed down');
cmp_ok($seen{param} // 0, '>', $nqueries / 40, 'parameterized nested loops');

$node->stop;
done_testing();
