# Differential fuzzer for time pruning: random queries with conditions on
# ts (and read_rows with timestamp_range_filter) must return the same rows
# with the Wide Scan on (the window pushed down: runs, index blocks, data
# blocks and write-area records skipped), with it off (plain sequential
# scans, no pruning) and from a heap copy of the cells.
#
# The data is a time series written over time, so that later runs hold
# later timestamps and blocks have narrow ts ranges: rows host#bucket with
# cells near the bucket's time, newer versions of old columns written by
# later batches, cells far from their bucket.  Families cover every rule
# the merger applies across timestamps: plain, max_versions (newer versions
# above a window decide what is visible in it), max_age, max_versions with
# max_age (intersection), nested GC rules, a sum aggregate (inputs share the cell's ts), and
# overwrites (last write wins).  Every kind of tombstone is written in a
# later run than the cells it covers: DEL_ROW, DEL_FAMILY, DEL_CELLS ranges
# and SQL DELETE of single versions.  Cells sit in a major-compacted run,
# minor runs, a bulk-loaded run (COPY) and the write area.  Both ts types:
# int8 (table wt) and timestamptz (table wz).
#
# Conditions: =, <, <=, >, >=, BETWEEN, commuted, with constants (int2,
# int4, int8 literals; timestamptz literals, infinities), NULL, stable
# expressions on now(), initplan subqueries, prepared statements with
# generic plans, and LATERAL rescans with a window per outer row; mixed
# with key ranges and other conditions, ORDER BY/LIMIT and aggregates.
#
#   WIDE_FUZZ_SEED=<n>      the seed (default 20261124); printed
#   WIDE_FUZZ_QUERIES=<n>   queries per table (default 150)
#   WIDE_FUZZ_DUMP=<path>   write the setup and queries to <path>.*.sql
#
# Breaking the rule in engine/tsprune.c on purpose (skipping blocks with
# tombstones, or blocks newer than the window under max_versions) makes
# this test fail.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} || 20261124;
my $nqueries = $ENV{WIDE_FUZZ_QUERIES} || 150;
srand($seed);
diag "ts prune fuzz seed $seed, $nqueries queries per table";

my $node = PostgreSQL::Test::Cluster->new('tsprune');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 2048\nwide.block_size = 1024\n");
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

# ----------------------------------------------------------------
# Data: 4 hours of a time series, minute m at $base + m minutes.  max_age
# is 2 hours; no cell lies within 10 minutes of that boundary, so that no
# cell expires between the heap copy and the queries.
# ----------------------------------------------------------------
my $MIN = 60_000_000;
my $now = int(time()) * 1_000_000;
my $base = $now - 240 * $MIN;
my @hosts = map { "h$_" } 0 .. 9;
my @fams = ('p', 'v', 'a', 'i', 's', 'n');
my @quals = ('q0', 'q1', 'q2');

sub ts_of
{
	my ($m) = @_;
	my $t = $base + $m * $MIN + rnd($MIN);
	# keep clear of the max_age boundary (minute 120)
	$t += 20 * $MIN if $m >= 110 && $m < 130;
	return $t;
}

my @batches = map { [] } 0 .. 4;
my (@rows, @rows_of);
for my $bi (0 .. 4)
{
	# batch bi writes minutes [48 bi, 48 bi + 48)
	for my $h (@hosts)
	{
		for my $bucket (0 .. 5)
		{
			my $m0 = 48 * $bi + 8 * $bucket;
			my $key = sprintf('%s#%03d', $h, $m0);
			push @rows, $key;
			push @{ $rows_of[$bi] }, [ $key, $m0 ];
			for my $f (@fams)
			{
				for my $q (@quals)
				{
					next if rnd(3) == 0;
					for (0 .. rnd(3))
					{
						my $t = ts_of($m0 + rnd(8));
						$t = ts_of(rnd(240)) if rnd(30) == 0;    # far from its bucket
						push @{ $batches[$bi] }, [ $key, $f, $q, $t, rnd(1000) ];
						# aggregate inputs and overwrites at the same ts
						push @{ $batches[ $bi + rnd(5 - $bi) ] }, [ $key, $f, $q, $t, rnd(1000) ]
						  if rnd(4) == 0;
					}
				}
			}
		}
	}
	# newer versions of older rows' columns, written now
	if ($bi > 0)
	{
		for (1 .. 40)
		{
			my $key = pick(@rows);
			push @{ $batches[$bi] },
			  [ $key, pick('v', 'i', 'v', 'n', 'p', 's'), pick(@quals), ts_of(48 * $bi + rnd(48)), rnd(1000) ];
		}
	}
}

# deletes of every kind, written after batch b (so in a later run)
my @deletes = map { [] } 0 .. 4;
for my $bi (0 .. 3)
{
	for (1 .. 10)
	{
		# a row of this batch or an earlier one
		my ($key, $m0) = @{ pick(map { @{ $rows_of[$_] } } 0 .. $bi) };
		my $k = rnd(4);
		my ($f, $q) = (pick(@fams), pick(@quals));
		my ($t1, $t2) = sort { $a <=> $b } (ts_of($m0 - 2 + rnd(6)), ts_of($m0 + rnd(12)));
		push @{ $deletes[$bi] },
			$k == 0 ? [ 'row', $key ]
		  : $k == 1 ? [ 'family', $key, $f ]
		  : $k == 2 ? [ 'cells', $key, $f, $q, $t1, $t2 ]
		  :           [ 'sql', $key, $t1 ];
	}
}

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE wt (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	CREATE TABLE wz (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
};
# wz has no family that counts versions: it prunes blocks newer than a window too
for my $t ('wt', 'wz')
{
	$setup .= qq{
	SELECT wide.create_family('$t', 'p');
	SELECT wide.create_family('$t', 'a', max_age => '2 hours');
	SELECT wide.create_family('$t', 's', aggregate => 'sum');
	};
}
$setup .= q{
	SELECT wide.create_family('wt', 'v', max_versions => 2);
	SELECT wide.create_family('wt', 'i', max_versions => 1, max_age => '2 hours', gc => 'intersection');
	SELECT wide.create_family('wz', 'v');
	SELECT wide.create_family('wz', 'i', max_age => '2 hours');
	SELECT wide.create_family('wt', 'n', gc_rule => '{"intersection": [{"max_num_versions": 1},
		{"union": [{"max_age": "2 hours"}, {"max_num_versions": 2}]}]}');
	SELECT wide.create_family('wz', 'n', gc_rule => '{"union": [{"max_age": "2 hours"}, {"max_age": "3 days"}]}');
};

sub tz { return "to_timestamp($_[0] / 1000000.0)"; }

my $copyfile = $node->data_dir . '/batch3.copy';
for my $bi (0 .. 4)
{
	my @c = @{ $batches[$bi] };
	if ($bi == 3)
	{
		# a bulk load: a run of the write area
		open(my $fh, '>', $copyfile) or die;
		print $fh join("\t", @$_) . "\n" for @c;
		close $fh;
		$setup .= "COPY wt FROM '$copyfile';\n";
		$setup .= "CREATE TEMP TABLE c3 (LIKE wt); COPY c3 FROM '$copyfile';\n";
		$setup .= "COPY (SELECT row_key, family, qualifier, to_timestamp(ts / 1000000.0), value FROM c3) TO '$copyfile.z';\n";
		$setup .= "COPY wz FROM '$copyfile.z';\n";
	}
	else
	{
		for (my $i = 0; $i < @c; $i += 200)
		{
			my @part = @c[ $i .. ($i + 199 < $#c ? $i + 199 : $#c) ];
			$setup .= "INSERT INTO wt VALUES "
			  . join(",\n", map { '(' . join(', ', lit($_->[0]), lit($_->[1]), lit($_->[2]), $_->[3], $_->[4]) . ')' } @part)
			  . ";\n";
			$setup .= "INSERT INTO wz VALUES "
			  . join(",\n", map { '(' . join(', ', lit($_->[0]), lit($_->[1]), lit($_->[2]), tz($_->[3]), $_->[4]) . ')' } @part)
			  . ";\n";
		}
	}
	for my $d (@{ $deletes[$bi] })
	{
		my ($kind, $key, @a) = @$d;
		for my $t ('wt', 'wz')
		{
			my $ts = $t eq 'wt' ? sub { "$_[0]::int8" } : \&tz;
			$setup .= "SELECT wide.delete_row('$t', " . lit($key) . ");\n" if $kind eq 'row';
			$setup .= "SELECT wide.delete_family('$t', " . lit($key) . ", " . lit($a[0]) . ");\n"
			  if $kind eq 'family';
			$setup .= "SELECT wide.delete_cells('$t', " . lit($key) . ", " . lit($a[0]) . ", "
			  . lit($a[1]) . ", " . $ts->($a[2]) . ", " . $ts->($a[3]) . ");\n"
			  if $kind eq 'cells';
			$setup .= "SET wide.enable_customscan = off; DELETE FROM $t WHERE row_key = " . lit($key)
			  . " AND ts < " . $ts->($a[0]) . "; RESET wide.enable_customscan;\n"
			  if $kind eq 'sql';
		}
	}
	$setup .= "SELECT FROM wide.compact('wt', true); SELECT FROM wide.compact('wz', true);\n" if $bi == 0;
	$setup .= "SELECT FROM wide.compact('wt'); SELECT FROM wide.compact('wz');\n" if $bi == 1 || $bi == 2;
}

# heap copies of what the wide tables hold (read without pruning)
$setup .= q{
	SET wide.enable_customscan = off;
	CREATE TABLE ht AS SELECT * FROM wt;
	CREATE TABLE hz AS SELECT * FROM wz;
	RESET wide.enable_customscan;
	ALTER TABLE ht ALTER row_key TYPE text COLLATE "C", ALTER family TYPE text COLLATE "C",
		ALTER qualifier TYPE text COLLATE "C";
	ALTER TABLE hz ALTER row_key TYPE text COLLATE "C", ALTER family TYPE text COLLATE "C",
		ALTER qualifier TYPE text COLLATE "C";
	CREATE INDEX ON ht (row_key);
	CREATE INDEX ON hz (row_key);
	ANALYZE ht;
	ANALYZE hz;
};

# the comparison, in the server: a query three ways, or read_rows two ways
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
	RETURN 'ERROR ' || SQLSTATE || ' ' || SQLERRM;
END
$f$;

-- blocks skipped by ts in the plan of a query (run with EXPLAIN ANALYZE)
CREATE FUNCTION fz_skipped(q text) RETURNS int8 LANGUAGE plpgsql AS $f$
DECLARE
	line text;
	n int8 := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line ~ 'Skipped by ts: [0-9]+' THEN
			n := n + substring(line FROM 'Skipped by ts: ([0-9]+)')::int8;
		END IF;
	END LOOP;
	RETURN n;
EXCEPTION WHEN OTHERS THEN
	RETURN 0;
END
$f$;

-- q: the template over {T}; prep: parameter types ('' for a plain query);
-- args: EXECUTE argument lists
CREATE FUNCTION fz(q text, w text, h text, ordered bool, prep text, args text[])
RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	res text[] := '{}';
	cfg text;
	body text;
	one text;
	a text;
	skipped int8 := 0;
BEGIN
	FOREACH cfg IN ARRAY ARRAY['on', 'off', 'heap'] LOOP
		PERFORM set_config('wide.enable_customscan', CASE cfg WHEN 'off' THEN 'off' ELSE 'on' END, true);
		body := replace(q, '{T}', CASE cfg WHEN 'heap' THEN h ELSE w END);
		IF prep = '' THEN
			one := fz_rows(body, ordered);
			IF cfg = 'on' THEN
				skipped := fz_skipped(body);
			END IF;
		ELSE
			PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
			DEALLOCATE ALL;
			EXECUTE format('PREPARE fzp(%s) AS %s', prep, body);
			one := '';
			FOREACH a IN ARRAY args LOOP
				one := one || '#' || fz_rows('EXECUTE fzp(' || a || ')', ordered) || E'\n';
				IF cfg = 'on' THEN
					skipped := skipped + fz_skipped('EXECUTE fzp(' || a || ')');
				END IF;
			END LOOP;
			DEALLOCATE fzp;
		END IF;
		res := res || one;
	END LOOP;
	IF res[1] = res[3] AND res[2] = res[3] THEN
		RETURN 'ok ' || skipped || CASE WHEN res[3] LIKE '%ERROR%' THEN ' error'
			WHEN res[3] = '' OR res[3] ~ '^(#\n)+$' THEN ' empty' ELSE '' END;
	END IF;
	RETURN format(E'MISMATCH\n-- wide, Wide Scan on:\n%s\n-- wide, Wide Scan off:\n%s\n-- heap:\n%s',
				  res[1], res[2], res[3]);
END
$f$;

-- read_rows with a filter whose window prunes, and with the same filter
-- behind a family filter that passes everything (no window: no pruning)
CREATE FUNCTION fz_read(w text, args text, filter jsonb) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	pruned text;
	plain text;
BEGIN
	pruned := fz_rows(format('SELECT * FROM wide.read_rows(NULL::%s%s, filter => %L::jsonb)',
							 w, args, filter), true);
	plain := fz_rows(format('SELECT * FROM wide.read_rows(NULL::%s%s, filter => %L::jsonb)',
							w, args, wide.chain(wide.family_filter('.*'), filter)), true);
	IF pruned = plain THEN
		RETURN 'ok' || CASE WHEN plain = '' THEN ' empty' ELSE '' END;
	END IF;
	RETURN format(E'MISMATCH\n-- pruned:\n%s\n-- not pruned:\n%s', pruned, plain);
END
$f$;
};

if ($ENV{WIDE_FUZZ_DUMP})
{
	open(my $fh, '>', "$ENV{WIDE_FUZZ_DUMP}.setup.sql") or die;
	print $fh $setup;
	close $fh;
}
$node->safe_psql('postgres', $setup);
is($node->safe_psql('postgres',
		"SELECT (SELECT count(*) FROM wt) = (SELECT count(*) FROM ht) AND (SELECT count(*) FROM wz) = (SELECT count(*) FROM hz) AND (SELECT count(*) FROM ht) > 1000"),
	't', 'heap copies hold the wide tables\' cells');
my $shape = $node->safe_psql('postgres',
	"SELECT count(*) || ' runs, ' || sum(cells) || ' records' FROM wide.runs('wt')");
diag "wt: $shape";

# ----------------------------------------------------------------
# Query generator
# ----------------------------------------------------------------
my @cmp = ('=', '<', '<=', '>', '>=');
my $cur_table;    # 'wt' or 'wz'

# a timestamp at minute m, as the table's ts type
sub ts_lit
{
	my ($t) = @_;
	return $cur_table eq 'wt' ? "$t" : "'" . tz_text($t) . "'::timestamptz";
}

sub tz_text
{
	my ($us) = @_;
	my @g = gmtime(int($us / 1_000_000));
	return sprintf('%04d-%02d-%02d %02d:%02d:%02d.%06d+00', $g[5] + 1900, $g[4] + 1, $g[3], $g[2], $g[1], $g[0],
		$us % 1_000_000);
}

# a bound on ts
sub ts_bound
{
	my $c = rnd(20);
	my $m = rnd(250) - 5;
	my $t = $base + $m * $MIN + rnd($MIN);
	return ts_lit($t) if $c < 9;
	if ($c < 11)
	{
		# an existing timestamp, so that = matches
		return "(SELECT ts FROM {T} WHERE row_key = " . lit(pick(@rows)) . " ORDER BY qualifier, ts LIMIT 1)";
	}
	if ($c < 14)
	{
		my $ago = rnd(250);
		return $cur_table eq 'wt'
		  ? "((extract(epoch FROM now()) * 1000000)::int8 - $ago * 60000000::int8)"
		  : "(now() - interval '$ago minutes')";
	}
	if ($c < 15)
	{
		return $cur_table eq 'wt'
		  ? pick('0', '-1', '2147483647', '32767::int2', '(-32768)::int2', "${t}::int8", 'NULL::int8', 'NULL::int4',
			'9223372036854775807', '(-9223372036854775807 - 1)')
		  : pick("'infinity'::timestamptz", "'-infinity'::timestamptz", 'NULL::timestamptz', "'1970-01-01'::timestamptz",
			"'294276-12-31 23:59:59+00'::timestamptz", "'4713-01-01 BC'::timestamptz");
	}
	if ($c < 16)
	{
		return "(SELECT max(ts) FROM {T} WHERE family = 'p' AND row_key < " . lit(pick(@rows)) . ")";
	}
	return ts_lit($t);
}

sub ts_pred
{
	my ($a) = @_;
	my $c = rnd(12);
	return "$a.ts " . pick(@cmp) . ' ' . ts_bound() if $c < 6;
	return ts_bound() . ' ' . pick(@cmp) . " $a.ts" if $c < 8;
	return "$a.ts BETWEEN " . ts_bound() . ' AND ' . ts_bound() if $c < 10;
	return "($a.ts < " . ts_bound() . " OR $a.ts > " . ts_bound() . ")" if $c < 11;
	return "NOT ($a.ts " . pick(@cmp) . ' ' . ts_bound() . ")";
}

sub other_pred
{
	my ($a) = @_;
	my $c = rnd(8);
	return "$a.family = " . lit(pick(@fams)) if $c < 2;
	return "$a.row_key LIKE " . lit(pick(@hosts) . '#%') if $c < 4;
	return "$a.row_key " . pick('<', '>=') . ' ' . lit(pick(@rows)) if $c < 5;
	return "$a.row_key = " . lit(pick(@rows)) if $c < 6;
	return "$a.qualifier = " . lit(pick(@quals)) if $c < 7;
	return "$a.value > " . rnd(1000);
}

sub where
{
	my ($a) = @_;
	my @p = (ts_pred($a));
	push @p, ts_pred($a) if rnd(2);
	push @p, other_pred($a) if rnd(2);
	push @p, other_pred($a) if rnd(4) == 0;
	return join(' AND ', @p);
}

sub limit { return pick('', '', ' LIMIT ' . (1 + rnd(20))); }

# returns (template, ordered)
sub query
{
	my $c = rnd(10);
	return ("SELECT * FROM {T} a WHERE " . where('a'), 0) if $c < 4;
	return ("SELECT * FROM {T} a WHERE " . where('a') . " ORDER BY row_key, family, qualifier, ts DESC" . limit(), 1)
	  if $c < 6;
	return ("SELECT family, count(*), sum(value), min(ts), max(ts) FROM {T} a WHERE " . where('a')
		  . " GROUP BY family ORDER BY family", 1)
	  if $c < 7;
	if ($c < 8)
	{
		# rescans: a window per outer row
		my @v = map { '(' . lit(pick(@hosts) . '#') . ', ' . ts_lit($base + rnd(240) * $MIN) . ')' } 0 .. 2;
		return ("SELECT v.k, s.* FROM (VALUES " . join(', ', @v) . ") v(k, t), LATERAL (SELECT b.row_key, b.family,"
			  . " b.qualifier, b.ts, b.value FROM {T} b WHERE b.row_key LIKE v.k || '%' AND b.ts "
			  . pick('>=', '<', '>') . " v.t AND " . ts_pred('b')
			  . " ORDER BY b.row_key, b.family, b.qualifier, b.ts DESC LIMIT " . (1 + rnd(30)) . ") s", 0);
	}
	if ($c < 9)
	{
		return ("SELECT count(*), sum(value) FROM {T} a WHERE " . where('a'), 1);
	}
	return ("SELECT a.row_key, a.qualifier, a.ts FROM {T} a WHERE " . where('a')
		  . " AND EXISTS (SELECT 1 FROM {T} b WHERE b.row_key = a.row_key AND " . ts_pred('b') . ")", 0);
}

# (template, types, [argument lists], ordered)
sub prepared
{
	my $ty = $cur_table eq 'wt' ? pick('int8', 'int4', 'int8') : 'timestamptz';
	my $arg = sub {
		my $t = $base + (rnd(250) - 5) * $MIN;
		return $cur_table eq 'wt'
		  ? ($ty eq 'int4' ? pick('0', '2147483647', 'NULL') : pick("$t", "$t", 'NULL'))
		  : pick("'" . tz_text($t) . "'", "'" . tz_text($t) . "'", 'NULL', "'infinity'");
	};
	my ($o1, $o2) = (pick(@cmp), pick(@cmp));
	return ("SELECT * FROM {T} a WHERE a.ts $o1 \$1 AND \$2 $o2 a.ts" . (rnd(2) ? ' AND ' . other_pred('a') : ''),
		"$ty, $ty", [ map { $arg->() . ', ' . $arg->() } 1 .. 3 ], 0);
}

# a read_rows call: (key arguments, filter)
sub read_call
{
	my $ts_range = sub {
		my $from = $base + (rnd(250) - 5) * $MIN;
		my $to = rnd(5) ? $from + rnd(120) * $MIN : 0;
		return "{\"timestamp_range_filter\": {\"start_timestamp_micros\": $from, \"end_timestamp_micros\": $to}}";
	};
	my $c = rnd(6);
	my $f =
		$c < 2 ? $ts_range->()
	  : $c < 3 ? "{\"chain\": [" . $ts_range->() . ", {\"cells_per_column_limit_filter\": " . (1 + rnd(2)) . "}]}"
	  : $c < 4 ? "{\"chain\": [" . $ts_range->() . ", {\"cells_per_row_limit_filter\": " . (1 + rnd(4)) . "}]}"
	  : $c < 5 ? "{\"interleave\": [" . $ts_range->() . ", " . $ts_range->() . "]}"
	  :          "{\"chain\": [{\"chain\": [" . $ts_range->() . "]}, {\"family_name_regex_filter\": \"[pvs]\"}]}";
	my $k = rnd(5);
	my $args =
		$k == 0 ? ''
	  : $k == 1 ? ', prefix => ' . lit(pick(@hosts) . '#')
	  : $k == 2 ? ', start_key => ' . lit(pick(@rows)) . ', end_key => ' . lit(pick(@rows))
	  : $k == 3 ? ', keys => ARRAY[' . join(', ', map { lit(pick(@rows)) } 0 .. rnd(4)) . ']'
	  :           ', prefix => ' . lit(pick(@hosts)) . ', reversed => true';
	$args .= ', "limit" => ' . (1 + rnd(10)) if rnd(4) == 0;
	return ($args, $f);
}

# ----------------------------------------------------------------
# Run
# ----------------------------------------------------------------
sub dollar { my $s = shift; my $t = 'fzq'; $t .= 'x' while $s =~ /\$$t\$/; return "\$$t\$$s\$$t\$"; }

my @queries;
my $script = "\\pset format unaligned\n\\pset tuples_only on\n";
for my $i (1 .. $nqueries)
{
	for my $pair ([ 'wt', 'ht' ], [ 'wz', 'hz' ])
	{
		($cur_table) = @$pair;
		my $n = scalar @queries;
		my $k = rnd(10);
		if ($k < 7)
		{
			my ($q, $ord) = query();
			push @queries, "$q (table $cur_table)";
			$script .= "SELECT '#$n ' || fz(" . dollar($q) . ", '$pair->[0]', '$pair->[1]', "
			  . ($ord ? 'true' : 'false') . ", '', '{}');\n";
		}
		elsif ($k < 8)
		{
			my ($q, $types, $args) = prepared();
			push @queries, "$q (table $cur_table, prepared ($types) with " . join(' | ', @$args) . ')';
			$script .= "SELECT '#$n ' || fz(" . dollar($q) . ", '$pair->[0]', '$pair->[1]', false, '$types', ARRAY["
			  . join(', ', map { dollar($_) } @$args) . "]::text[]);\n";
		}
		else
		{
			my ($args, $f) = read_call();
			push @queries, "read_rows(NULL::$cur_table$args, filter => $f)";
			$script .= "SELECT '#$n ' || fz_read('$cur_table', " . dollar($args) . ", " . dollar($f) . ");\n";
		}
	}
}

if ($ENV{WIDE_FUZZ_DUMP})
{
	open(my $fh, '>', "$ENV{WIDE_FUZZ_DUMP}.queries.sql") or die;
	print $fh $script;
	close $fh;
}
my ($stdout, $stderr);
my $t0 = time;
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

my ($ok, $pruned, $bad, $errors, $empty) = (0, 0, 0, 0, 0);
for my $i (0 .. $#queries)
{
	my $r = $result{$i};
	if (!defined $r)
	{
		$bad++;
		diag "no result (server crash?) for query $i (seed $seed): $queries[$i]\n" . substr($stderr, -2000);
		last;
	}
	if ($r =~ /^ok/)
	{
		$ok++;
		$pruned++ if $r =~ /^ok [1-9]/;
		$errors++ if $r =~ /error/;
		$empty++ if $r =~ /empty/;
		next;
	}
	$bad++;
	diag "query $i (seed $seed): $queries[$i]\n$r" if $bad <= 5;
}
my $n = scalar @queries;
diag "ts prune fuzz: $n queries in ${secs}s, $ok agree ($pruned skipped blocks by ts, $empty with no rows, "
  . "$errors failing alike), $bad differ";
is($bad, 0, "$n random queries agree with pruning on, off and on a heap, seed $seed");
cmp_ok($pruned, '>', $n / 5, 'a good share of the queries skipped blocks by ts');

$node->stop;
done_testing();
