# Differential SQL fuzzer: random queries over wide tables and heap copies
# of the same cells must return the same rows (or fail with the same
# SQLSTATE), with the Wide Scan on (key ranges pushed down) and off (plain
# sequential scans).
#
# Each query is a template over {T} (the table); the server-side function
# fz() runs it three ways -- wide with wide.enable_customscan on, wide with
# it off, heap -- and returns "ok" or the differing results.  Queries cover
# every comparison operator on row_key with text, name, varchar, bpchar and
# bytea operands, LIKE/ILIKE/starts_with with constant and computed
# patterns, ANY/ALL with constant and computed arrays (with NULLs),
# subqueries, correlated subqueries and LATERAL (rescans), joins with
# nested loops forced, ORDER BY ASC/DESC, LIMIT/OFFSET, GROUP BY, and
# prepared statements run with generic plans.
#
# The keys are chosen to be tricky: prefixes of each other, LIKE
# metacharacters ('%', '_', '\'), trailing spaces (bpchar), high-bit UTF-8,
# keys longer than a name (63 bytes), the current user's name; bytea keys
# with 0x00 and 0xFF bytes.  Cells sit in segments, in the write area, and
# some are deleted.
#
#   WIDE_FUZZ_SEED=<n>      the seed (default 20261123); printed
#   WIDE_FUZZ_QUERIES=<n>   queries per table (default 350)
#   test/sql_fuzz.sh SEED N runs this file alone with those set
#
# A mismatch prints the seed, the query and both results.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} || 20261123;
my $nqueries = $ENV{WIDE_FUZZ_QUERIES} || 350;
srand($seed);
note "WIDE_FUZZ_SEED=$seed WIDE_FUZZ_QUERIES=$nqueries";
diag "sql fuzz seed $seed, $nqueries queries per table";

my $node = PostgreSQL::Test::Cluster->new('sqlfuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nwide.block_size = 1024\nmax_locks_per_transaction = 256\n");
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

# ----------------------------------------------------------------
# Data
# ----------------------------------------------------------------
my @keys = (
	'a', 'ab', 'abc', 'abd', 'abc%', 'a%b', 'a%', 'a_b', 'a_', 'axb', 'a\\b',
	'a\\', 'a\\\\b', '%', '_', '%%', 'A', 'AB', 'b', 'ba', 'b ', 'b  ', ' b',
	'c', "c\x7f", 'cz', "\x{e9}", "\x{e9}a", "\x{65e5}\x{672c}", "\x{1f600}",
	'z', 'zz', '~', 'postgres', 'postgre', 'postgresql', 'x' x 62, 'x' x 63,
	'x' x 64, 'x' x 70, 'Ab', 'aB', 'k01', 'k02', 'k1', 'k10', 'k2', 'k20',
	'k3', 'q', 'q1', 'cf');
my @quals = ('q', 'q1', 'q2', 'Q', '', 'a', 'ab', 'abc', 'b', 'k1', 'k2',
	'postgres', "\x{e9}", 'a%b', 'z');
my @fams = ('cf', 'g');

my (%cells, @cells);
# filler rows, so that segments have many blocks
for my $k (@keys, map { sprintf('m%03d', $_) } 1 .. 150)
{
	for (1 .. 1 + rnd(6))
	{
		my ($f, $q, $ts) = (pick(@fams), pick(@quals), rnd(4));
		next if $cells{"$k\0$f\0$q\0$ts"}++;
		push @cells, [ $k, $f, $q, $ts, pick('v', 'w', 'abc', 'ABC', 'x%y', '') . rnd(10) ];
	}
}

# bytea versions of the keys, plus raw bytes
sub hexlit { return "'\\x" . unpack('H*', $_[0]) . "'::bytea"; }
my @bkeys = map { my $s = $_; utf8::encode($s); $s } @keys;
push @bkeys, "\xff", "\xff\x00", "\x00", "\x00\x01", "a\xff", "a\xff\xff", "a\x00", "\x80";
my (%bcells, @bcells);
for my $k (@bkeys)
{
	for (1 .. 1 + rnd(4))
	{
		my ($f, $q, $ts) = (pick(@fams), pick('q', 'q1', "\x00", "\xff", 'ab'), rnd(4));
		next if $bcells{"$k\0$f\0$q\0$ts"}++;
		push @bcells, [ $k, $f, $q, $ts, rnd(100) ];
	}
}

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE wt (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('wt', 'cf');
	SELECT wide.create_family('wt', 'g');
	CREATE TABLE ht (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts int8, value text);
	CREATE TABLE wb (row_key bytea, family text, qualifier bytea, ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('wb', 'cf');
	SELECT wide.create_family('wb', 'g');
	CREATE TABLE hb (row_key bytea, family text COLLATE "C", qualifier bytea, ts timestamptz, value int8);
	CREATE INDEX ON ht (row_key);
	CREATE INDEX ON hb (row_key);
};

# three batches: a major compaction, a minor one, the write area
my @batches = ([], [], []);
push @{ $batches[ rnd(3) ] }, $_ for @cells;
my @bbatches = ([], [], []);
push @{ $bbatches[ rnd(3) ] }, $_ for @bcells;
for my $i (0 .. 2)
{
	if (@{ $batches[$i] })
	{
		my $vals = join(",\n", map {
			'(' . join(', ', lit($_->[0]), lit($_->[1]), lit($_->[2]), $_->[3], lit($_->[4])) . ')'
		} @{ $batches[$i] });
		$setup .= "INSERT INTO wt VALUES $vals;\nINSERT INTO ht VALUES $vals;\n";
	}
	if (@{ $bbatches[$i] })
	{
		my $vals = join(",\n", map {
			'(' . join(', ', hexlit($_->[0]), lit($_->[1]), hexlit($_->[2]),
				"to_timestamp($_->[3])", $_->[4]) . ')'
		} @{ $bbatches[$i] });
		$setup .= "INSERT INTO wb VALUES $vals;\nINSERT INTO hb VALUES $vals;\n";
	}
	$setup .= "SELECT FROM wide.compact('wt', true); SELECT FROM wide.compact('wb', true);\n" if $i == 0;
	$setup .= "SELECT FROM wide.compact('wt'); SELECT FROM wide.compact('wb');\n" if $i == 1;
}
# some deletes, in both
for (1 .. 4)
{
	my $k = pick(@keys);
	$setup .= "DELETE FROM wt WHERE row_key = " . lit($k) . "; DELETE FROM ht WHERE row_key = " . lit($k) . ";\n";
	my $q = pick(@quals);
	$setup .= "DELETE FROM wt WHERE qualifier = " . lit($q) . " AND ts = 1; DELETE FROM ht WHERE qualifier = " . lit($q) . " AND ts = 1;\n";
}

# the comparison, in the server: run a template three ways
$setup .= q{
CREATE FUNCTION fz_rows(q text, ordered bool) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r record;
	acc text[] := '{}';
BEGIN
	FOR r IN EXECUTE q LOOP
		acc := acc || r::text;
	END LOOP;
	IF NOT ordered THEN
		SELECT coalesce(array_agg(x ORDER BY x COLLATE "C"), '{}') INTO acc FROM unnest(acc) x;
	END IF;
	RETURN array_to_string(acc, E'\n', '<null>');
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE;
END
$f$;

-- q: the template; w, h: the wide and heap table; settings: name=value,...
-- prep: parameter types ('' for a plain query); args: EXECUTE argument lists
CREATE FUNCTION fz(q text, w text, h text, ordered bool, settings text,
                   prep text, args text[]) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	res text[] := '{}';
	cfg text;
	tbl text;
	body text;
	one text;
	s text;
	a text;
	pushed bool := false;
	plan text;
	-- (missing before the setting existed: then only on and heap compare)
	has_guc bool := current_setting('wide.enable_customscan', true) IS NOT NULL;
BEGIN
	FOREACH s IN ARRAY coalesce(string_to_array(nullif(settings, ''), ','), '{}') LOOP
		PERFORM set_config(split_part(s, '=', 1), split_part(s, '=', 2), true);
	END LOOP;
	FOREACH cfg IN ARRAY ARRAY['on', 'off', 'heap'] LOOP
		tbl := CASE cfg WHEN 'heap' THEN h ELSE w END;
		IF has_guc THEN
			PERFORM set_config('wide.enable_customscan', CASE cfg WHEN 'off' THEN 'off' ELSE 'on' END, true);
		ELSIF cfg = 'off' THEN
			tbl := h;
		END IF;
		body := replace(q, '{T}', tbl);
		IF prep = '' THEN
			one := fz_rows(body, ordered);
			IF cfg = 'on' THEN
				BEGIN
					FOR plan IN EXECUTE 'EXPLAIN ' || body LOOP
						pushed := pushed OR plan LIKE '%Row Keys: row_key%';
					END LOOP;
				EXCEPTION WHEN OTHERS THEN
					NULL;
				END;
			END IF;
		ELSE
			PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
			DEALLOCATE ALL;
			one := NULL;
			BEGIN
				EXECUTE format('PREPARE fzp(%s) AS %s', prep, body);
			EXCEPTION WHEN OTHERS THEN
				one := 'ERROR ' || SQLSTATE;
			END;
			IF one IS NULL THEN
				one := '';
				FOREACH a IN ARRAY args LOOP
					one := one || '#' || fz_rows('EXECUTE fzp(' || a || ')', ordered) || E'\n';
					IF cfg = 'on' THEN
						BEGIN
							FOR plan IN EXECUTE 'EXPLAIN EXECUTE fzp(' || a || ')' LOOP
								pushed := pushed OR plan LIKE '%Row Keys: row_key%';
							END LOOP;
						EXCEPTION WHEN OTHERS THEN
							NULL;
						END;
					END IF;
				END LOOP;
				DEALLOCATE fzp;
			END IF;
		END IF;
		res := res || one;
	END LOOP;
	IF res[1] = res[3] AND res[2] = res[3] THEN
		RETURN 'ok' || CASE WHEN pushed THEN ' pushed' ELSE '' END
			|| CASE WHEN res[3] LIKE 'ERROR%' OR res[3] LIKE '#ERROR%' THEN ' error'
			        WHEN res[3] = '' OR res[3] ~ '^(#\n)+$' THEN ' empty' ELSE '' END;
	END IF;
	RETURN format(E'MISMATCH\n-- wide, Wide Scan on:\n%s\n-- wide, Wide Scan off:\n%s\n-- heap:\n%s',
				  res[1], res[2], res[3]);
END
$f$;
};

if ($ENV{WIDE_FUZZ_DUMP})
{
	open(my $fh, '>:utf8', "$ENV{WIDE_FUZZ_DUMP}.setup.sql") or die;
	print $fh $setup;
	close $fh;
}
$node->safe_psql('postgres', $setup);
is($node->safe_psql('postgres',
		"SELECT (SELECT count(*) FROM wt) = (SELECT count(*) FROM ht) AND (SELECT count(*) FROM wb) = (SELECT count(*) FROM hb)"),
	't', 'wide and heap tables hold the same cells');

# ----------------------------------------------------------------
# Query generator, text keys
# ----------------------------------------------------------------

# a constant key operand of some type that compares with text
sub key_const
{
	my $k = pick(@keys, @keys, @quals, 'k', 'a  ', 'zzz', 'x' x 63 . 'y');
	my $l = lit($k);
	my $c = rnd(16);
	return $l if $c < 4;
	return "${l}::name" if $c < 7;
	return "${l}::varchar" if $c < 8;
	return "${l}::bpchar" if $c < 10;
	return "${l}::char(3)" if $c < 11;
	return "CAST($l AS text)" if $c < 12;
	return 'current_user' if $c < 13;
	return pick("upper($l)", "lower($l)", "($l || 'b')", "substr($l, 1, 2)",
		"nullif($l, 'a')", 'NULL::text', 'NULL::name',
		"(SELECT min(qualifier) FROM {T} WHERE qualifier > $l)",
		"(SELECT max(row_key) FROM {T} WHERE row_key < $l)",
		"current_setting('fz.key')", "$l COLLATE \"C\"", "$l COLLATE \"POSIX\"")
	  if $c < 15;
	return "'$k'::text::name::text";
}

# a pattern ending in an escape character fails (22025) on the rows it is
# tested on, which depend on the plan: SQL leaves that order open
sub like_safe
{
	my $p = shift;
	$p .= '%' if $p =~ /(?<!\\)(?:\\\\)*\\$/;
	return $p;
}

# a LIKE pattern, constant or computed
sub like_pattern
{
	my $k = pick(@keys, 'a', 'ab', 'k', 'x' x 62);
	$k = substr($k, 0, 1 + rnd(length($k))) if rnd(2);
	my $tail = pick('%', '%', '_%', '', '%b', '_', '\\%', '%%');
	my $p = lit(like_safe($k . $tail));
	my $c = rnd(8);
	return $p if $c < 4;
	return "${p}::name" if $c < 5;
	return "($p || '')" if $c < 6;
	return "(SELECT min(qualifier) FROM {T} WHERE qualifier > 'a') || '%'" if $c < 7;
	return "$p COLLATE \"POSIX\"";
}

# a constant or computed array of keys
sub key_array
{
	my @e = map { pick(@keys, 'nope') } 0 .. rnd(4);
	push @e, undef if rnd(4) == 0;
	my $elems = join(',', map { defined $_ ? lit($_) : 'NULL' } @e);
	my $c = rnd(9);
	return "ARRAY[$elems]::text[]" if $c < 2;
	return "ARRAY[$elems]::name[]" if $c < 3;
	return "ARRAY[$elems]::varchar[]" if $c < 4;
	return "string_to_array(" . lit(join(',', grep { defined && !/,/ } @e)) . ", ',')" if $c < 5;
	return "string_to_array(current_setting('fz.keys'), ',')" if $c < 6;
	return pick("ARRAY(SELECT qualifier FROM {T} WHERE family = 'g')",
		"(SELECT array_agg(qualifier) FROM {T} WHERE family = 'g')::text[]") if $c < 7;
	return "ARRAY[]::text[]" if $c < 8;
	return "ARRAY[current_user, " . lit(pick(@keys)) . "]";
}

my @cmp = ('=', '<>', '<', '<=', '>', '>=');

# a condition on row_key (alias a)
sub key_pred
{
	my ($a) = @_;
	my $c = rnd(24);
	my $col = "$a.row_key";
	return "$col " . pick(@cmp) . ' ' . key_const() if $c < 8;
	return key_const() . ' ' . pick(@cmp) . " $col" if $c < 10;
	return "$col " . pick('LIKE', 'LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE') . ' ' . like_pattern() if $c < 14;
	return "$col LIKE " . lit(pick('a#%%', 'a#_b', 'ab%', '#%%')) . " ESCAPE '#'" if $c < 15;
	return "starts_with($col, " . key_const() . ")" if $c < 16;
	return "$col ^@ " . lit(pick(@keys, 'a', 'k')) if $c < 17;
	return "$col = ANY(" . key_array() . ")" if $c < 20;
	return "$col <> ALL(" . key_array() . ")" if $c < 21;
	return "$col " . pick('IN', 'NOT IN') . " (" . join(', ', map { lit(pick(@keys)) } 0 .. rnd(3)) . ")" if $c < 22;
	return "$col BETWEEN " . key_const() . " AND " . key_const() if $c < 23;
	return "$col IN (SELECT qualifier FROM {T} WHERE family = 'g')";
}

# a condition on another column
sub other_pred
{
	my ($a) = @_;
	my $c = rnd(8);
	return "$a.family = " . lit(pick(@fams)) if $c < 2;
	return "$a.qualifier " . pick(@cmp) . ' ' . lit(pick(@quals)) if $c < 4;
	return "$a.ts " . pick(@cmp) . ' ' . rnd(4) if $c < 5;
	return "$a.value LIKE " . lit(pick('v%', '%1', 'A%', 'x\\%%')) if $c < 6;
	return "length(upper($a.qualifier || repeat('zyxw', 500))) > 0" if $c < 7;
	return "length($a.row_key) " . pick(@cmp) . ' ' . rnd(5);
}

sub pred
{
	my ($a, $depth) = @_;
	$depth //= 0;
	my $c = rnd(10);
	return key_pred($a) if $c < 5 || $depth > 1;
	return other_pred($a) if $c < 6;
	return '(' . pred($a, $depth + 1) . ' AND ' . pred($a, $depth + 1) . ')' if $c < 8;
	return '(' . pred($a, $depth + 1) . ' OR ' . pred($a, $depth + 1) . ')' if $c < 9;
	return 'NOT (' . pred($a, $depth + 1) . ')';
}

sub where
{
	my ($a) = @_;
	my @p = map { pred($a) } 0 .. rnd(3);
	return join(' AND ', @p);
}

sub dir { return pick('', ' ASC', ' DESC'); }

# an ORDER BY of the whole cell key; often the Wide Scan's own order (no sort)
sub key_order
{
	return 'row_key, family, qualifier, ts DESC' if rnd(2);
	return join(', ', 'row_key' . dir(), 'family' . dir(), 'qualifier' . dir(), 'ts' . dir());
}
sub limit { return pick('', '', ' LIMIT ' . rnd(10), ' LIMIT ' . (1 + rnd(5)) . ' OFFSET ' . rnd(4)); }

# returns (template, ordered)
sub text_query
{
	my $c = rnd(13);
	if ($c == 11)
	{
		# a join on row_key: merge joins use the Wide Scan's order
		return ("SELECT a.row_key, a.qualifier, b.qualifier, b.ts FROM {T} a JOIN {T} b USING (row_key) WHERE "
			  . where('a') . ' AND ' . pred('b'), 0);
	}
	if ($c == 12)
	{
		return ("SELECT DISTINCT row_key FROM {T} a WHERE " . where('a') . " ORDER BY row_key" . limit(), 1)
		  if rnd(2);
		return ("SELECT row_key, qualifier, row_number() OVER (ORDER BY row_key, family, qualifier, ts DESC)"
			  . " FROM {T} a WHERE " . where('a'), 0);
	}
	if ($c < 2)
	{
		return ("SELECT * FROM {T} a WHERE " . where('a'), 0);
	}
	if ($c < 4)
	{
		my $ord = key_order();
		return ("SELECT * FROM {T} a WHERE " . where('a') . " ORDER BY $ord" . limit(), 1);
	}
	if ($c < 5)
	{
		my $d = dir();
		return ("SELECT row_key FROM {T} a WHERE " . where('a') . " ORDER BY row_key$d" . limit(), 1);
	}
	if ($c < 6)
	{
		my ($d1, $d2) = (dir(), dir());
		return ("SELECT row_key, count(*), max(ts), min(value) FROM {T} a WHERE " . where('a')
			  . " GROUP BY row_key" . pick('', ' HAVING count(*) > 1')
			  . " ORDER BY row_key$d1" . limit(), 1);
	}
	if ($c < 7)
	{
		return ("SELECT count(*), min(row_key), max(row_key), count(DISTINCT qualifier) FROM {T} a WHERE "
			  . where('a'), 1);
	}
	if ($c < 8)
	{
		return ("SELECT a.row_key, a.qualifier, b.family, b.ts FROM {T} a JOIN {T} b ON b.row_key = a.qualifier WHERE "
			  . where('a') . ' AND ' . pred('b'), 0);
	}
	if ($c < 9)
	{
		# correlated subquery: a rescan per outer row
		return ("SELECT v.k, (SELECT count(*) FROM {T} t WHERE t.row_key = ANY(string_to_array(v.k, ','))"
			  . " AND length(upper(t.qualifier || repeat('zyxw', 500))) > 0 AND " . pred('t') . ")"
			  . " FROM (VALUES ('a,ab,abc'), ('k1'), ('postgres,z,b  '), (''), ('x,a%b,a_b')) v(k)", 0);
	}
	if ($c < 10)
	{
		# LATERAL with LIMIT (not pulled up): parameterised rescans
		return ("SELECT v.k, s.* FROM (SELECT DISTINCT qualifier AS k FROM {T} WHERE family = 'g') v,"
			  . " LATERAL (SELECT t.row_key, t.ts FROM {T} t WHERE t.row_key " . pick('=', '>=', '<', 'LIKE')
			  . " v.k AND " . pred('t') . " ORDER BY t.row_key, t.family, t.qualifier, t.ts LIMIT 3) s", 0);
	}
	return ("SELECT row_key, qualifier FROM {T} a WHERE EXISTS (SELECT 1 FROM {T} b WHERE b.row_key = a.qualifier AND "
		  . pred('b') . ") AND " . pred('a'), 0);
}

# prepared statements: (template, types, [argument lists], ordered)
sub text_prepared
{
	my $ty = pick('text', 'text', 'name', 'varchar', 'bpchar');
	my $arg = sub { my $k = pick(@keys, 'k', 'a  '); return lit($k) . "::$ty"; };
	my $c = rnd(5);
	if ($c < 3)
	{
		my ($o1, $o2) = (pick(@cmp), pick(@cmp));
		return ("SELECT * FROM {T} a WHERE row_key $o1 \$1 AND (row_key $o2 \$2 OR " . pred('a') . ")",
			"$ty, $ty", [ map { $arg->() . ', ' . $arg->() } 1 .. 3 ], 0);
	}
	if ($c < 4)
	{
		return ("SELECT * FROM {T} a WHERE row_key LIKE \$1 AND " . pred('a'), 'text',
			[ map { no_subquery(\&like_pattern) } 1 .. 3 ], 0);
	}
	return ("SELECT row_key, ts FROM {T} a WHERE row_key = ANY(\$1) ORDER BY row_key DESC, family, qualifier, ts",
		"${ty}[]", [ map { no_subquery(\&key_array) } 1 .. 3 ], 1);
}

# an EXECUTE argument: anything but a subquery
sub no_subquery
{
	my ($gen) = @_;
	for (;;)
	{
		my $e = $gen->();
		return $e unless $e =~ /\{T\}/;
	}
}

# ----------------------------------------------------------------
# Query generator, bytea keys
# ----------------------------------------------------------------
sub bkey_const
{
	my $k = pick(@bkeys, 'a', "a\xff");
	my $c = rnd(6);
	return hexlit($k) if $c < 3;
	return "convert_to(" . lit(pick(@keys)) . ", 'UTF8')" if $c < 4;
	return "decode(" . lit(unpack('H*', $k)) . ", 'hex')" if $c < 5;
	return pick('NULL::bytea', "(SELECT row_key FROM {T} ORDER BY row_key DESC LIMIT 1)", "''::bytea",
		"(SELECT qualifier FROM {T} WHERE qualifier > '\\x61' ORDER BY 1 LIMIT 1)");
}

sub bpred
{
	my ($a) = @_;
	my $c = rnd(12);
	my $col = "$a.row_key";
	return "$col " . pick(@cmp) . ' ' . bkey_const() if $c < 5;
	return bkey_const() . ' ' . pick(@cmp) . " $col" if $c < 6;
	if ($c < 8)
	{
		my $k = pick(@bkeys);
		$k = substr($k, 0, 1 + rnd(length($k)));
		return "$col " . pick('LIKE', 'NOT LIKE') . ' ' . hexlit(like_safe($k . pick('%', '_%', '', '\\%')));
	}
	return "$col = ANY(ARRAY[" . join(', ', map { bkey_const() } 0 .. rnd(3)) . "])" if $c < 10;
	return "$a.qualifier " . pick(@cmp) . ' ' . hexlit(pick('q', "\x00", "\xff")) if $c < 11;
	return "$a.ts " . pick(@cmp) . " to_timestamp(" . rnd(4) . ")";
}

sub bwhere
{
	my ($a) = @_;
	my @p = map { rnd(5) ? bpred($a) : '(' . bpred($a) . ' OR ' . bpred($a) . ')' } 0 .. rnd(3);
	return join(' AND ', @p);
}

sub bytea_query
{
	my $c = rnd(5);
	return ("SELECT * FROM {T} a WHERE " . bwhere('a'), 0) if $c < 2;
	if ($c < 4)
	{
		my $ord = key_order();
		return ("SELECT * FROM {T} a WHERE " . bwhere('a') . " ORDER BY $ord" . limit(), 1);
	}
	return ("SELECT a.row_key, count(*) FROM {T} a JOIN {T} b ON b.row_key = a.qualifier WHERE "
		  . bwhere('a') . " GROUP BY a.row_key", 0);
}

# prepared statements on bytea keys: (template, types, [argument lists], ordered)
sub bytea_prepared
{
	my $arg = sub { return no_subquery(\&bkey_const); };
	if (rnd(2))
	{
		my ($o1, $o2) = (pick(@cmp), pick(@cmp));
		return ("SELECT * FROM {T} a WHERE row_key $o1 \$1 AND row_key $o2 \$2 AND " . bpred('a'),
			'bytea, bytea', [ map { $arg->() . ', ' . $arg->() } 1 .. 3 ], 0);
	}
	return ("SELECT row_key, qualifier FROM {T} a WHERE row_key = ANY(\$1) ORDER BY row_key, family, qualifier, ts DESC",
		'bytea[]', [ map { 'ARRAY[' . join(', ', map { $arg->() } 0 .. rnd(3)) . ']' } 1 .. 3 ], 1);
}

# ----------------------------------------------------------------
# Run
# ----------------------------------------------------------------
my @settings = ('', '', '', 'enable_hashjoin=off,enable_mergejoin=off',
	'enable_hashjoin=off,enable_nestloop=off',
	'enable_sort=off', 'enable_indexscan=off,enable_bitmapscan=off',
	'enable_hashagg=off');
my @queries;
for my $i (1 .. $nqueries)
{
	my $set = pick(@settings);
	# one query on each pair of tables: text keys, then bytea keys
	for my $kind ([ 'wt', 'ht', \&text_prepared, \&text_query ],
		[ 'wb', 'hb', \&bytea_prepared, \&bytea_query ])
	{
		my ($wide, $heap, $prepared, $plain) = @$kind;
		if (rnd(8) == 0)
		{
			my ($q, $types, $args, $ord) = $prepared->();
			push @queries, [ $q, $wide, $heap, $ord, $set, $types, $args ];
		}
		else
		{
			my ($q, $ord) = $plain->();
			push @queries, [ $q, $wide, $heap, $ord, $set, '', [] ];
		}
	}
}

sub dollar { my $s = shift; my $t = 'fzq'; $t .= 'x' while $s =~ /\$$t\$/; return "\$$t\$$s\$$t\$"; }

my $script = "LOAD 'wide';\nSET fz.keys = 'a,ab,postgres,k1,b  ,x%y';\nSET fz.key = 'ab';\n\\pset format unaligned\n\\pset tuples_only on\n";
for my $i (0 .. $#queries)
{
	my ($q, $w, $h, $ord, $set, $types, $args) = @{ $queries[$i] };
	my $arr = 'ARRAY[' . join(', ', map { dollar($_) } @$args) . ']::text[]';
	$script .= "SELECT '#$i ' || fz(" . dollar($q) . ", '$w', '$h', " . ($ord ? 'true' : 'false')
	  . ", '$set', '$types', $arr);\n";
}

utf8::encode($script);
if ($ENV{WIDE_FUZZ_DUMP})
{
	open(my $fh, '>', "$ENV{WIDE_FUZZ_DUMP}.queries.sql") or die;
	print $fh $script;
	close $fh;
}
my ($stdout, $stderr);
my $t0 = time;
# (a crash makes psql exit early and IPC::Run fail to feed it the rest)
eval {
	$node->psql('postgres', $script, stdout => \$stdout, stderr => \$stderr, on_error_stop => 0);
};
$stdout //= '';
$stderr //= '';
my $secs = time - $t0;

my (%result, $cur);
for my $line (split /\n/, $stdout)
{
	if ($line =~ /^#(\d+) (.*)$/)
	{
		$cur = $1;
		$result{$cur} = $2;
	}
	elsif (defined $cur)
	{
		$result{$cur} .= "\n$line";
	}
}

my ($ok, $pushed, $bad, $errors, $empty) = (0, 0, 0, 0, 0);
for my $i (0 .. $#queries)
{
	my $r = $result{$i};
	my $q = $queries[$i];
	my $desc = "query $i (seed $seed): $q->[0]\n  table $q->[1], settings '$q->[4]'"
	  . ($q->[5] ne '' ? ", prepared ($q->[5]) with " . join(' | ', @{ $q->[6] }) : '');
	if (!defined $r)
	{
		$bad++;
		diag "no result (server crash?) for $desc\n" . substr($stderr, -2000);
		last;
	}
	if ($r =~ /^ok/)
	{
		$ok++;
		$pushed++ if $r =~ /pushed/;
		$errors++ if $r =~ /error/;
		$empty++ if $r =~ /empty/;
		next;
	}
	$bad++;
	diag "$desc\n$r" if $bad <= 10;
}
my $n = scalar @queries;
diag "sql fuzz: $n queries in ${secs}s, $ok agree ($pushed with keys pushed down, $empty with no rows, $errors failing alike), $bad differ";
is($bad, 0, "$n random queries agree on wide (Wide Scan on and off) and heap, seed $seed");
cmp_ok($pushed, '>', $n / 5, 'a good share of the queries pushed keys down');

# ----------------------------------------------------------------
# DELETE through the Wide Scan (and without it): the same cells must go
# ----------------------------------------------------------------
$node->safe_psql('postgres', q{
CREATE FUNCTION fz_delete(cond text, w text, h text, scan text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	nw text;
	nh text;
	n int8;
	cw text;
	ch text;
BEGIN
	PERFORM set_config('wide.enable_customscan', scan, true);
	BEGIN
		EXECUTE 'DELETE FROM ' || w || ' a WHERE ' || replace(cond, '{T}', w);
		GET DIAGNOSTICS n = ROW_COUNT;
		nw := n;
	EXCEPTION WHEN OTHERS THEN
		nw := 'ERROR ' || SQLSTATE;
	END;
	BEGIN
		EXECUTE 'DELETE FROM ' || h || ' a WHERE ' || replace(cond, '{T}', h);
		GET DIAGNOSTICS n = ROW_COUNT;
		nh := n;
	EXCEPTION WHEN OTHERS THEN
		nh := 'ERROR ' || SQLSTATE;
	END;
	EXECUTE format('SELECT md5(string_agg(t::text, '','' ORDER BY t::text COLLATE "C")) FROM %s t', w) INTO cw;
	EXECUTE format('SELECT md5(string_agg(t::text, '','' ORDER BY t::text COLLATE "C")) FROM %s t', h) INTO ch;
	IF nw = nh AND cw IS NOT DISTINCT FROM ch THEN
		RETURN CASE WHEN nw LIKE 'ERROR%' THEN nw ELSE 'ok ' || nw END;
	END IF;
	RETURN format('MISMATCH: wide deleted %s, heap %s; contents %s', nw, nh,
				  CASE WHEN cw IS NOT DISTINCT FROM ch THEN 'agree' ELSE 'differ' END);
END
$f$;
});
my ($ndeletes, $nderrors) = (0, 0);
my @dbad;
for my $i (1 .. 30)
{
	# two conditions, so that not every DELETE empties the table
	my ($cond, $w, $h) = $i % 3
	  ? (key_pred('a') . ' AND ' . key_pred('a'), 'wt', 'ht')
	  : (bpred('a') . ' AND ' . bpred('a'), 'wb', 'hb');
	my $scan = rnd(4) ? 'on' : 'off';
	my $sql = "SET fz.keys = 'a,ab,postgres,k1,b  ,x%y'; SET fz.key = 'ab'; SELECT fz_delete("
	  . dollar($cond) . ", '$w', '$h', '$scan')";
	utf8::encode($sql);
	my $r = $node->safe_psql('postgres', $sql);
	$ndeletes += $1 if $r =~ /^ok (\d+)/;
	$nderrors++ if $r =~ /^ERROR/;
	push @dbad, "DELETE FROM $w a WHERE $cond (Wide Scan $scan): $r" unless $r =~ /^ok/ || $r =~ /^ERROR/;
}
diag "sql fuzz: 30 DELETEs removed $ndeletes cells ($nderrors failed alike)";
is(join("\n", @dbad), '', 'random DELETEs remove the same cells from wide and heap');

$node->stop;
done_testing();
