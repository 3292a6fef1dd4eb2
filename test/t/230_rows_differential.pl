# Differential test of the row form (issue 26, src/am/rows*.c): the same
# readings in a heap table cpu_heap(time, tags_id, v1..v4) and in two row
# forms over wide tables -- cpu_rows (key tags_id,time: integers of any
# width, seconds) and cpu_rev (key tags_id of width 3, time in ms,
# reversed) and cpu_salt (cpu_rows' key salted into 5 buckets) -- and
# random queries over them: WHERE on tags_id (=, IN, ANY
# with NULLs, ranges, <>), on time (bounds between units, before 1970,
# infinities, NULL), on values; ORDER BY ... LIMIT (forward and backward
# scans), GROUP BY key parts and time buckets, joins with a small tags
# table (hashed and parameterized nested loops), LATERAL ... LIMIT 1,
# DISTINCT ON, IN (subquery), generic plans with parameters; GROUP BY
# inside the scan (wide.enable_aggregate_pushdown on, and off); parallel
# scans of rows (partial paths under Gather, costs that favour them).  Every query
# runs on the heap and on the row forms under several planner settings,
# and must return the same rows.  Between rounds, random INSERTs
# (overwriting columns), UPDATEs (NULL deletes a cell) and DELETEs go to
# all three, and the wide tables are compacted now and then, so queries
# read merged cells and tombstones from several layers.
#
#   WIDE_ROWS_FUZZ_SEED=<n>      the seed (default 20261128); printed
#   WIDE_ROWS_FUZZ_QUERIES=<n>   queries (default 120)
#
# A mismatch prints the seed, the query, its plan and every result.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes;

my $seed = $ENV{WIDE_ROWS_FUZZ_SEED} || 20261128;
my $nqueries = $ENV{WIDE_ROWS_FUZZ_QUERIES} || 120;
srand($seed);
diag "rows differential seed $seed, $nqueries queries";

my $node = PostgreSQL::Test::Cluster->new('rowsfuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\njit = off\nwide.flush_threshold = 16\nwide.block_size = 1024\ntimezone = 'UTC'\nwide.parallel_stretch_blocks = 1\n");
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }

my $nhosts = 20;
my $nsteps = 200;		# readings every 10 s from the base, with gaps
my $base = '2020-01-01 00:00:00+00';

# values are multiples of 1/4 below 1000: sums are exact in any order
sub val { return rnd(6) == 0 ? 'NULL' : (rnd(4000) / 4); }

sub reading
{
	my ($h, $s) = @_;
	my @v = map { val() } 1 .. 4;
	$v[ rnd(4) ] = rnd(4000) / 4 unless grep { $_ ne 'NULL' } @v;
	return "('$base'::timestamptz + interval '" . ($s * 10) . " s', $h, " . join(', ', @v) . ")";
}

my $setup = q{
	CREATE EXTENSION wide;
	CREATE TABLE cpu_heap (time timestamptz NOT NULL, tags_id int4 NOT NULL,
	                       v1 float8, v2 float8, v3 float8, v4 float8,
	                       PRIMARY KEY (tags_id, time));
	CREATE INDEX ON cpu_heap (time DESC);
	CREATE TABLE cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('cells', 'cpu', max_versions => 1);
	SELECT wide.create_family('cells', 'rev', max_versions => 1);
	SELECT wide.create_family('cells', 'salt', max_versions => 1);
	SELECT wide.create_family('cells', 'noise');
	CREATE FOREIGN TABLE cpu_rows (time timestamptz NOT NULL, tags_id int4 NOT NULL,
	                               v1 float8, v2 float8, v3 float8, v4 float8)
	  SERVER wide_rows OPTIONS (cells 'cells', family 'cpu', key 'tags_id,time');
	CREATE FOREIGN TABLE cpu_rev (tags_id int4 OPTIONS (width '3') NOT NULL,
	                              v4 float8, v3 float8 OPTIONS (qualifier 'third'), v2 float8, v1 float8,
	                              time timestamptz OPTIONS (unit 'ms', reversed 'true') NOT NULL)
	  SERVER wide_rows OPTIONS (cells 'cells', family 'rev', key 'tags_id,time');
	CREATE FOREIGN TABLE cpu_salt (time timestamptz NOT NULL, tags_id int4 NOT NULL,
	                               v1 float8, v2 float8, v3 float8, v4 float8)
	  SERVER wide_rows OPTIONS (cells 'cells', family 'salt', key 'tags_id,time', salt '5');
	CREATE TABLE tags (id int4 PRIMARY KEY, hostname text, region text);
};
$setup .= "INSERT INTO tags SELECT i, 'host_' || i, (ARRAY['eu', 'us', 'ap'])[1 + i % 3] FROM generate_series(-1, $nhosts + 2) i;\n";

# the readings, in three batches with compactions between: layers
my @all;
for my $h (0 .. $nhosts - 1)
{
	for my $s (0 .. $nsteps - 1)
	{
		push @all, [ $h, $s ] if rnd(10) < 8;
	}
}
# time-major, as TSBS writes them
@all = sort { $a->[1] <=> $b->[1] || $a->[0] <=> $b->[0] } @all;
my $nb = int(@all / 3) + 1;
for my $b (0 .. 2)
{
	my @batch = grep { defined } @all[ $b * $nb .. ($b + 1) * $nb - 1 ];
	next unless @batch;
	$setup .= "INSERT INTO cpu_heap VALUES " . join(",\n", map { reading(@$_) } @batch) . ";\n";
	$setup .= "SELECT FROM wide.compact('cells', " . ($b == 0 ? 'true' : 'false') . ");\n" if $b < 2;
}
# the row forms get what the heap has; cells of other families and
# qualifiers no column shows sit between them
$setup .= q{
	INSERT INTO cpu_rows SELECT * FROM cpu_heap WHERE tags_id % 2 = 0;
	INSERT INTO cells SELECT row_key, 'noise', qualifier, ts, value FROM cells WHERE family = 'cpu';
	INSERT INTO cells SELECT row_key, 'cpu', 'zz_other', ts, 1 FROM cells WHERE family = 'cpu' AND value < 100;
	SELECT FROM wide.compact('cells', true);
	INSERT INTO cpu_rows SELECT * FROM cpu_heap WHERE tags_id % 2 = 1;
	INSERT INTO cpu_rev SELECT tags_id, v4, v3, v2, v1, time FROM cpu_heap;
	INSERT INTO cpu_salt SELECT * FROM cpu_heap;
	-- (cpu_rev and half of cpu_rows stay in the write area until a round compacts)
	UPDATE cpu_rows SET v2 = v2 + 0.25 WHERE tags_id % 3 = 0 AND v1 > 500;
	UPDATE cpu_rev SET v2 = v2 + 0.25 WHERE tags_id % 3 = 0 AND v1 > 500;
	UPDATE cpu_salt SET v2 = v2 + 0.25 WHERE tags_id % 3 = 0 AND v1 > 500;
	UPDATE cpu_heap SET v2 = v2 + 0.25 WHERE tags_id % 3 = 0 AND v1 > 500;
	ANALYZE cpu_heap; ANALYZE cpu_rows; ANALYZE cpu_rev; ANALYZE cpu_salt; ANALYZE tags;
};

# the comparison, in the server: a template over {T}, run on the heap and
# on the row forms under several settings
$setup .= q{
CREATE FUNCTION fz_rows(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r record;
	acc text[] := '{}';
BEGIN
	FOR r IN EXECUTE q LOOP
		acc := acc || r::text;
	END LOOP;
	IF q !~ 'ORDER BY' OR q ~ 'ORDER BY[^)]*\)[^)]*$' THEN	-- no order to keep at the top
		SELECT coalesce(array_agg(x ORDER BY x COLLATE "C"), '{}') INTO acc FROM unnest(acc) x;
	END IF;
	RETURN array_to_string(acc, E'\n', '<null>');
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE || ' ' || SQLERRM;
END
$f$;

CREATE FUNCTION fz(q text, prep text, args text[]) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	cfgs text[] := ARRAY['heap', 'rows', 'rows nl nosort', 'rows par', 'rev', 'rev nl', 'salt', 'salt nl nosort', 'salt par nosort'];
	cfg text;
	res text[] := '{}';
	shown text := '';
	body text;
	one text;
	a text;
	plan text;
	i int;
BEGIN
	FOREACH cfg IN ARRAY cfgs LOOP
		PERFORM set_config('enable_hashjoin', CASE WHEN cfg ~ 'nl' THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('enable_mergejoin', CASE WHEN cfg ~ 'nl' THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('enable_sort', CASE WHEN cfg ~ 'nosort' THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('enable_hashagg', CASE WHEN cfg ~ 'nosort' THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('wide.enable_aggregate_pushdown', CASE WHEN cfg ~ 'nosort' THEN 'off' ELSE 'on' END, true);
		-- parallel scans of rows wherever the planner may take one
		PERFORM set_config('max_parallel_workers_per_gather', CASE WHEN cfg ~ 'par' THEN '2' ELSE '0' END, true);
		PERFORM set_config('parallel_setup_cost', CASE WHEN cfg ~ 'par' THEN '0' ELSE '1000' END, true);
		PERFORM set_config('parallel_tuple_cost', CASE WHEN cfg ~ 'par' THEN '0' ELSE '0.1' END, true);
		PERFORM set_config('min_parallel_table_scan_size', CASE WHEN cfg ~ 'par' THEN '0' ELSE '1024' END, true);
		body := replace(q, '{T}', CASE WHEN cfg = 'heap' THEN 'cpu_heap' WHEN cfg ~ 'rev' THEN 'cpu_rev'
		                                   WHEN cfg ~ 'salt' THEN 'cpu_salt' ELSE 'cpu_rows' END);
		IF prep = '' THEN
			one := fz_rows(body);
			IF cfg <> 'heap' THEN
				FOR plan IN EXECUTE 'EXPLAIN ' || body LOOP
					shown := shown || plan || E'\n';
				END LOOP;
			END IF;
		ELSE
			PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
			DEALLOCATE ALL;
			EXECUTE format('PREPARE fzp(%s) AS %s', prep, body);
			one := '';
			FOREACH a IN ARRAY args LOOP
				one := one || '#' || fz_rows('EXECUTE fzp(' || a || ')') || E'\n';
				IF cfg <> 'heap' THEN
					FOR plan IN EXECUTE 'EXPLAIN EXECUTE fzp(' || a || ')' LOOP
						shown := shown || plan || E'\n';
					END LOOP;
				END IF;
			END LOOP;
			DEALLOCATE fzp;
		END IF;
		res := res || one;
	END LOOP;
	FOR i IN 2 .. array_length(res, 1) LOOP
		IF res[i] IS DISTINCT FROM res[1] THEN
			RETURN format(E'MISMATCH in %s\n-- plans:\n%s-- heap:\n%s\n-- %s:\n%s',
						  cfgs[i], shown, res[1], cfgs[i], res[i]);
		END IF;
	END LOOP;
	RETURN 'ok'
		|| CASE WHEN shown ~ 'Row Keys: [^a]' THEN ' keys' ELSE '' END
		|| CASE WHEN shown ~ 'Row Keys: [^\n]*time' THEN ' timekeys' ELSE '' END
		|| CASE WHEN shown ~ 'Filter: [^\n]*tags_id = [a-z]+\.id' THEN ' param' ELSE '' END
		|| CASE WHEN shown ~ 'Direction: backward' THEN ' backward' ELSE '' END
		|| CASE WHEN shown ~ 'Aggregates: ' THEN ' grouped' ELSE '' END
		|| CASE WHEN shown ~ 'Parallel Foreign Scan' THEN ' parallel' ELSE '' END
		|| CASE WHEN res[1] ~ '^#?ERROR' THEN ' error' WHEN res[1] ~ '^(#\n)*$' THEN ' empty' ELSE '' END;
END
$f$;
};

$node->safe_psql('postgres', $setup);
my $same = q{SELECT count(*) FROM (SELECT * FROM cpu_heap EXCEPT ALL SELECT * FROM %s) d};
is($node->safe_psql('postgres', sprintf($same, 'cpu_rows')), '0', 'cpu_rows holds the heap\'s readings');
is($node->safe_psql('postgres', sprintf($same, '(SELECT time, tags_id, v1, v2, v3, v4 FROM cpu_rev) r')),
	'0', 'cpu_rev holds the heap\'s readings');
is($node->safe_psql('postgres', sprintf($same, 'cpu_salt')), '0', 'cpu_salt holds the heap\'s readings');
is($node->safe_psql('postgres', q{SELECT (SELECT count(*) FROM cpu_heap) = (SELECT count(*) FROM cpu_rows)}),
	't', 'as many rows');

# ----------------------------------------------------------------
# Queries
# ----------------------------------------------------------------

sub host { return pick(0 .. $nhosts - 1, 0 .. $nhosts - 1, -1, $nhosts, 1000, 70000); }

# a time: on a reading, between two seconds or milliseconds, or an edge
sub tconst
{
	my $c = rnd(16);
	my $s = rnd($nsteps * 10 + 20) - 10;
	return "'$base'::timestamptz + interval '" . (10 * rnd($nsteps + 2) - 10) . " s'" if $c < 6;
	return "'$base'::timestamptz + interval '$s s'" if $c < 9;
	return "'$base'::timestamptz + interval '$s.5 s'" if $c < 11;
	return "'$base'::timestamptz + interval '$s.0005 s'" if $c < 12;
	return "'$base'::timestamptz + interval '" . ($s - 1) . ".999999 s'" if $c < 13;
	return pick("'infinity'::timestamptz", "'-infinity'::timestamptz", "'1969-12-31 23:59:59+00'::timestamptz",
		'NULL::timestamptz', "'1970-01-01 00:00:00+00'::timestamptz");
}

sub tags_pred
{
	my $c = rnd(10);
	return "t.tags_id = " . host() if $c < 3;
	return "t.tags_id IN (" . join(', ', map { host() } 0 .. rnd(4)) . ")" if $c < 5;
	return "t.tags_id = ANY(ARRAY[" . join(', ', map { host() } 0 .. rnd(3)) . ", NULL]::int4[])" if $c < 6;
	return "t.tags_id " . pick('<', '<=', '>', '>=') . ' ' . host() if $c < 8;
	return "t.tags_id BETWEEN " . host() . " AND " . host() if $c < 9;
	return "t.tags_id <> " . host();
}

sub time_pred
{
	my $c = rnd(9);
	return "t.time " . pick('<', '<=', '>', '>=', '=') . ' ' . tconst() if $c < 4;
	return "t.time IN (" . join(', ', map { tconst() } 0 .. rnd(4)) . ")" if $c == 8;
	return "t.time >= " . tconst() . " AND t.time < " . tconst() if $c < 6;
	return "t.time BETWEEN " . tconst() . " AND " . tconst() if $c < 7;
	return "t.time " . pick('>', '<') . " '$base'::timestamptz + interval '" . rnd($nsteps * 10) . " s' - interval '1 ms'";
}

sub value_pred
{
	my $v = pick('v1', 'v2', 'v3', 'v4');
	my $c = rnd(6);
	return "t.$v > " . rnd(1000) if $c < 2;
	return "t.$v IS NULL" if $c < 3;
	return "t.$v IS NOT NULL" if $c < 4;
	return "(t.$v < " . rnd(500) . " OR t." . pick('v1', 'v2') . " > " . rnd(1000) . ")" if $c < 5;
	return "coalesce(t.$v, -1) = -1";
}

sub where
{
	my @p;
	push @p, tags_pred() if rnd(3);
	push @p, time_pred() if rnd(2);
	push @p, value_pred() if rnd(3) == 0;
	push @p, tags_pred() if rnd(8) == 0;
	# a pseudoconstant: a gating Result above the scan
	push @p, pick("current_setting('timezone') = 'UTC'", "current_setting('timezone') <> 'UTC'") if rnd(10) == 0;
	return @p ? ' WHERE ' . join(' AND ', @p) : '';
}

my $cols = 't.time, t.tags_id, t.v1, t.v2, t.v3, t.v4';
my @buckets = ("date_trunc('minute', t.time)", "date_bin('5 min', t.time, '$base')",
	"to_timestamp(floor(extract(epoch FROM t.time) / 300) * 300)", "date_trunc('hour', t.time)");

# returns (template, parameter types, argument lists)
sub query
{
	my $c = rnd(20);
	my $w = where();
	return ("SELECT $cols FROM {T} t$w", '', []) if $c < 3;
	return ("SELECT count(*), sum(t.v1), max(t.v2), min(t.v3), avg(t.v4), min(t.time), max(t.time) FROM {T} t$w", '', [])
	  if $c < 4;
	return ("SELECT t.tags_id, count(*), count(t.v2), sum(t.v1), max(t.v3), min(t.time) FROM {T} t$w GROUP BY t.tags_id", '', [])
	  if $c < 6;
	if ($c < 8)
	{
		my $b = pick(@buckets);
		my $g = rnd(2) ? "$b, t.tags_id" : $b;
		return ("SELECT $g, count(*), max(t.v1), sum(t.v2) FROM {T} t$w GROUP BY $g", '', []);
	}
	if ($c < 11)
	{
		my $o = pick('t.time DESC, t.tags_id', 't.time, t.tags_id', 't.tags_id, t.time', 't.tags_id DESC, t.time DESC',
			't.tags_id, t.time DESC');
		return ("SELECT $cols FROM {T} t$w ORDER BY $o LIMIT " . (1 + rnd(30)), '', []);
	}
	if ($c < 13)
	{
		my $g = rnd(2) ? " AND g.region = '" . pick('eu', 'us', 'ap') . "'" : '';
		my $x = rnd(2) ? ' AND ' . time_pred() : '';
		return ("SELECT g.hostname, count(*), sum(t.v1), max(t.time) FROM tags g JOIN {T} t ON t.tags_id = g.id$g$x"
			  . " GROUP BY g.hostname", '', []);
	}
	if ($c < 15)
	{
		my $x = rnd(2) ? ' AND ' . time_pred() : '';
		my $v = rnd(3) == 0 ? ' AND ' . value_pred() : '';
		my $d = pick('DESC', 'DESC', '');
		return ("SELECT g.id, l.* FROM tags g, LATERAL (SELECT t.time, t.v1, t.v2 FROM {T} t WHERE t.tags_id = g.id$x$v"
			  . " ORDER BY t.time $d LIMIT " . (1 + rnd(2)) . ") l", '', []);
	}
	if ($c < 16)
	{
		return ("SELECT DISTINCT ON (t.tags_id) $cols FROM {T} t$w ORDER BY t.tags_id, t.time DESC", '', []);
	}
	if ($c < 17)
	{
		my $x = rnd(2) ? ' AND ' . time_pred() : '';
		return ("SELECT count(*), sum(t.v3) FROM {T} t WHERE t.tags_id IN (SELECT id FROM tags WHERE region = '"
			  . pick('eu', 'us', 'ap') . "')$x", '', []);
	}
	if ($c < 18)
	{
		my $x = rnd(2) ? ' AND ' . time_pred() : '';
		return ("SELECT g.id, count(t.tags_id), sum(t.v2) FROM tags g LEFT JOIN {T} t ON t.tags_id = g.id$x GROUP BY g.id", '', []);
	}
	# generic plans: the ranges come from the parameters at execution
	my @args = map { join(', ', host(), tconst(), tconst()) } 0 .. 2;
	my $p = pick('t.tags_id = $1 AND t.time >= $2', 't.tags_id = $1 AND t.time > $2 AND t.time <= $3',
		't.tags_id IN ($1, $1 + 1) AND t.time < $3', 't.time >= $2 AND t.time < $3',
		't.tags_id >= $1 AND t.time = $2');
	return ("SELECT $cols FROM {T} t WHERE $p ORDER BY t.tags_id, t.time DESC LIMIT 20", 'int4, timestamptz, timestamptz', \@args);
}

# ----------------------------------------------------------------
# Writes to all three
# ----------------------------------------------------------------
sub writes
{
	my $s = '';
	for (1 .. 6)
	{
		my $c = rnd(5);
		my $w = where();
		$w = ' WHERE t.tags_id = ' . rnd($nhosts) if $w eq '';
		if ($c == 0)
		{
			$s .= "DELETE FROM %T t$w;\n";
		}
		elsif ($c == 1)
		{
			my $v = pick('v1', 'v2', 'v3', 'v4');
			$s .= "UPDATE %T t SET $v = " . pick("$v + 1", 'NULL', rnd(1000)) . "$w;\n";
		}
		elsif ($c == 2)
		{
			$s .= "UPDATE %T t SET v1 = v2, v2 = NULL, v4 = " . rnd(100) . "$w;\n";
		}
		else
		{
			# INSERT over existing readings: NULL leaves a column as it was
			my %k = map { (rnd($nhosts) . ',' . rnd($nsteps + 20)) => 1 } 0 .. rnd(20);
			my @r = map { reading(split /,/) } sort keys %k;
			$s .= "INSERT %I VALUES " . join(', ', @r) . "%U;\n";
		}
	}
	my $sql = '';
	for my $t ('cpu_heap', 'cpu_rows', 'cpu_rev', 'cpu_salt')
	{
		my $x = $s;
		$x =~ s/%T/$t/g;
		if ($t eq 'cpu_heap')
		{
			# a reading with no value is no row in a row form: after every statement
			$x =~ s/;\n/;\nDELETE FROM cpu_heap WHERE v1 IS NULL AND v2 IS NULL AND v3 IS NULL AND v4 IS NULL;\n/g;
			$x =~ s/%I/INTO cpu_heap AS h/g;
			$x =~ s/%U/ ON CONFLICT (tags_id, time) DO UPDATE SET v1 = coalesce(EXCLUDED.v1, h.v1),
			  v2 = coalesce(EXCLUDED.v2, h.v2), v3 = coalesce(EXCLUDED.v3, h.v3), v4 = coalesce(EXCLUDED.v4, h.v4)/g;
		}
		elsif ($t eq 'cpu_rev')
		{
			$x =~ s/%I/INTO cpu_rev (time, tags_id, v1, v2, v3, v4)/g;
			$x =~ s/%U//g;
		}
		else
		{
			$x =~ s/%I/INTO $t/g;
			$x =~ s/%U//g;
		}
		$sql .= $x;
	}
	return $sql;
}

my %seen;
my $bad = 0;
my $rounds = 4;
for my $i (1 .. $nqueries)
{
	if ($i % int($nqueries / $rounds) == 0)
	{
		my $w = writes();
		my ($ret, $out, $err) = $node->psql('postgres', "BEGIN;\n$w\nCOMMIT;");
		if ($ret != 0 || $err =~ /ERROR/)
		{
			fail("writes before query $i");
			diag "seed $seed:\n$w\n$err";
			last;
		}
		$node->safe_psql('postgres', "SELECT FROM wide.compact('cells', " . (rnd(2) ? 'true' : 'false') . ")") if rnd(2);
		my $diff = $node->safe_psql('postgres',
			sprintf($same, 'cpu_rows') . ' UNION ALL '
			  . sprintf($same, '(SELECT time, tags_id, v1, v2, v3, v4 FROM cpu_rev) r')
			  . ' UNION ALL SELECT abs((SELECT count(*) FROM cpu_heap) - (SELECT count(*) FROM cpu_rows))'
			  . ' UNION ALL SELECT abs((SELECT count(*) FROM cpu_heap) - (SELECT count(*) FROM cpu_rev))'
			  . ' UNION ALL ' . sprintf($same, 'cpu_salt')
			  . ' UNION ALL SELECT abs((SELECT count(*) FROM cpu_heap) - (SELECT count(*) FROM cpu_salt))');
		if ($diff ne "0\n0\n0\n0\n0\n0")
		{
			fail("the same readings after the writes before query $i");
			diag "seed $seed:\n$w\n$diff\n"
			  . $node->safe_psql('postgres', q{(SELECT 'heap', * FROM cpu_heap EXCEPT ALL SELECT 'heap', * FROM cpu_rows)
			  UNION ALL (SELECT 'rows', * FROM cpu_rows EXCEPT ALL SELECT 'rows', * FROM cpu_heap)});
			last;
		}
	}
	my ($q, $prep, $args) = query();
	my $sql = "SELECT fz(\$q\$$q\$q\$, '$prep', ARRAY[" . join(', ', map { "\$a\$$_\$a\$" } @$args) . "]::text[]);";
	my $t0 = Time::HiRes::time();
	my ($ret, $out, $err) = $node->psql('postgres', "BEGIN; $sql COMMIT;");
	diag sprintf("%.2f s: %s", Time::HiRes::time() - $t0, $q) if $ENV{WIDE_ROWS_FUZZ_TIMES};
	$out =~ s/^\s+|\s+$//g;
	if ($ret != 0 || $out !~ /^ok/)
	{
		$bad++;
		fail("query $i");
		diag "seed $seed, query $i: $q\n" . ($prep ? "($prep) with @$args\n" : '') . "$out\n$err";
		last if $bad >= 3;
		next;
	}
	$seen{$_}++ for split / /, $out;
}
is($bad, 0, "$nqueries random queries: heap = row forms, with and without pushdowns");
diag join(', ', map { "$_: $seen{$_}" } sort keys %seen);
# what the row forms were asked to do
cmp_ok($seen{keys} // 0, '>', $nqueries / 4, 'key conditions as ranges');
cmp_ok($seen{timekeys} // 0, '>', $nqueries / 10, 'time ranges on the key');
cmp_ok($seen{param} // 0, '>', $nqueries / 40, 'parameterized nested loops');
cmp_ok($seen{backward} // 0, '>', $nqueries / 40, 'backward scans');
cmp_ok($seen{grouped} // 0, '>', $nqueries / 20, 'GROUP BY inside the scan');
cmp_ok($seen{parallel} // 0, '>', $nqueries / 10, 'parallel scans of rows');

$node->stop;
done_testing();
