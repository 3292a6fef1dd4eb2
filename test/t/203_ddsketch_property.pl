# A property test of the quantile sketches (issue 29): on random data sets
# of random sizes and shapes -- uniform, log-uniform over the whole range
# of doubles, heavy-tailed, normal with negatives, ties and zeros, values
# next to DBL_MAX and next to the least normal double -- every quantile of
# wide.ddsketch_agg is within 1% (relative) of percentile_disc, for a grid
# of q and random q (values next to DBL_MAX were 1.9% off before the top
# bin's value was computed as one exp);
# and merging is associative and commutative: the sketches of a random
# partition of the data folded left, right, as a random tree, by
# ddsketch_union_agg in a random order, and by merge_to_cell into a
# ddsketch family's cell in a random order with compactions in between,
# are all the same bytes as the sketch of the whole.
#
# The seed is random (WIDE_DDS_SEED sets it) and printed, so a failure can
# be replayed; WIDE_DDS_TRIALS (default 120) sets the number of data sets.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_DDS_SEED} // int(rand(1_000_000));
my $trials = $ENV{WIDE_DDS_TRIALS} // 120;
diag("WIDE_DDS_SEED=$seed WIDE_DDS_TRIALS=$trials");

my $node = PostgreSQL::Test::Cluster->new('ddsprop');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nwide.flush_threshold = 16\n");
$node->start;

$node->safe_psql('postgres', qq{
	CREATE EXTENSION wide;
	SELECT setseed(($seed % 2000000) / 1000000.0 - 1);
	CREATE TABLE trial (t int PRIMARY KEY, shape int, n int, k int);
	INSERT INTO trial SELECT t, t % 9, 1 + floor(random() * random() * 3000)::int, 1 + floor(random() * 7)::int
	  FROM generate_series(1, $trials) t;
	CREATE TABLE d (t int, p int, x float8);
	INSERT INTO d
	SELECT t, floor(random() * k)::int,
	       CASE shape
	         WHEN 0 THEN random() * 1000
	         WHEN 1 THEN exp(random() * 1400 - 700)
	         WHEN 2 THEN 1 / (1 - random()) ^ 2
	         WHEN 3 THEN sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) * 50 + 20
	         WHEN 4 THEN CASE WHEN random() < 0.3 THEN 0 ELSE 42.25 END
	         WHEN 5 THEN 1.7976931348623157e308 * (0.5 + random() / 2)
	         WHEN 6 THEN 2.2250738585072014e-308 * (1 + random() * 100000)
	         WHEN 7 THEN floor(random() * 21) - 10
	         ELSE -exp(random() * 20) * CASE WHEN random() < 0.02 THEN 1000 ELSE 1 END
	       END
	  FROM trial, LATERAL generate_series(1, n) i;
	CREATE INDEX ON d (t);
	ANALYZE d;
});

is($node->safe_psql('postgres', q{SELECT count(*) FROM d WHERE x = 'Infinity' OR x = '-Infinity' OR x = 'NaN'}),
	'0', 'the generated data is finite');

# the error bound: every q of a grid and 20 random ones, every data set
my $bound = $node->safe_psql('postgres', q{
	WITH s AS (SELECT t, wide.ddsketch_agg(x) AS s FROM d GROUP BY t),
	     qs AS (SELECT unnest(ARRAY[0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1]::float8[]) AS q
	            UNION ALL SELECT random() FROM generate_series(1, 20)),
	     r AS (SELECT s.t, qs.q, wide.quantile(s.s, qs.q) AS est,
	                  (SELECT percentile_disc(qs.q) WITHIN GROUP (ORDER BY x) FROM d WHERE d.t = s.t) AS exact
	             FROM s, qs)
	SELECT count(*), count(*) FILTER (WHERE NOT (abs(est - exact) <= 0.01 * abs(exact))),
	       coalesce(string_agg(format('trial %s (shape %s) q %s: %s for %s', r.t, shape, q, est, exact), '; ')
	                  FILTER (WHERE NOT (abs(est - exact) <= 0.01 * abs(exact))), ''),
	       max(abs(est - exact) / nullif(abs(exact), 0))
	  FROM r JOIN trial USING (t)});
my ($checked, $outside, $which, $maxerr) = split /\|/, $bound;
diag("$checked quantiles checked, largest relative error $maxerr");
cmp_ok($checked, '>=', 33 * $trials, 'every data set, every q');
is($outside, '0', 'every quantile within 1% of percentile_disc') or diag(substr($which, 0, 2000));
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT t, wide.ddsketch_count(wide.ddsketch_agg(x)) AS c, count(*) AS n FROM d GROUP BY t) c
	 WHERE c <> n}), '0', 'the count of every sketch is its number of inputs');

# associativity and commutativity: every grouping gives the same bytes
$node->safe_psql('postgres', q{
	CREATE FUNCTION fold_left(s bytea[]) RETURNS bytea LANGUAGE plpgsql AS $$
	DECLARE r bytea := s[1];
	BEGIN
	  FOR i IN 2 .. coalesce(array_length(s, 1), 1) LOOP r := wide.ddsketch_union(r, s[i]); END LOOP;
	  RETURN r;
	END $$;
	CREATE FUNCTION fold_right(s bytea[]) RETURNS bytea LANGUAGE plpgsql AS $$
	DECLARE r bytea := s[array_length(s, 1)];
	BEGIN
	  FOR i IN REVERSE array_length(s, 1) - 1 .. 1 LOOP r := wide.ddsketch_union(s[i], r); END LOOP;
	  RETURN r;
	END $$;
	-- a random binary tree over s[lo:hi], children in a random order
	CREATE FUNCTION fold_tree(s bytea[], lo int, hi int) RETURNS bytea LANGUAGE plpgsql AS $$
	DECLARE m int;
	BEGIN
	  IF lo = hi THEN RETURN s[lo]; END IF;
	  m := lo + floor(random() * (hi - lo))::int;
	  IF random() < 0.5 THEN
	    RETURN wide.ddsketch_union(fold_tree(s, lo, m), fold_tree(s, m + 1, hi));
	  END IF;
	  RETURN wide.ddsketch_union(fold_tree(s, m + 1, hi), fold_tree(s, lo, m));
	END $$;
	CREATE TABLE part AS SELECT t, p, wide.ddsketch_agg(x) AS s FROM d GROUP BY t, p;
	CREATE TABLE whole AS SELECT t, wide.ddsketch_agg(x) AS s FROM d GROUP BY t;
	CREATE TABLE folds AS
	SELECT t, fold_left(array_agg(s ORDER BY p)) AS l, fold_right(array_agg(s ORDER BY p)) AS r,
	       fold_tree(array_agg(s ORDER BY random()), 1, count(*)::int) AS tr,
	       wide.ddsketch_union_agg(s ORDER BY random()) AS u, count(*) AS parts
	  FROM part GROUP BY t;
});
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM whole w JOIN folds f USING (t)
	 WHERE f.l IS DISTINCT FROM w.s OR f.r IS DISTINCT FROM w.s OR f.tr IS DISTINCT FROM w.s
	    OR f.u IS DISTINCT FROM w.s}), '0',
	'left, right, random-tree and union_agg folds of a random partition are the sketch of the whole');
cmp_ok($node->safe_psql('postgres', q{SELECT count(*) FROM folds WHERE parts > 2}), '>', $trials / 3,
	'partitions into three parts or more were folded');

# the same through a family: merge_to_cell of the parts in a random order,
# half of them before a compaction, the rest after, some of them aborted
# and written again; a quarter of the trials' parts also go through
# add_to_cell of each value
$node->safe_psql('postgres', q{
	CREATE TABLE f (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
	SELECT wide.create_family('f', 'p', aggregate => 'ddsketch');
	CREATE TABLE todo AS SELECT row_number() OVER (ORDER BY random()) AS i, t, p, s FROM part;
});
my $parts = $node->safe_psql('postgres', 'SELECT count(*) FROM todo');
$node->safe_psql('postgres', qq{
	DO \$\$
	DECLARE r record;
	BEGIN
	  FOR r IN SELECT * FROM todo ORDER BY i LOOP
	    IF r.i % 5 = 0 THEN
	      BEGIN
	        PERFORM wide.merge_to_cell('f', 't' || r.t, 'p', 'q', 0, r.s);
	        RAISE EXCEPTION 'abort';
	      EXCEPTION WHEN raise_exception THEN NULL;
	      END;
	    END IF;
	    IF r.t % 4 = 0 THEN
	      PERFORM wide.add_to_cell('f', 't' || r.t, 'p', 'q', 0, x) FROM d WHERE d.t = r.t AND d.p = r.p;
	    ELSE
	      PERFORM wide.merge_to_cell('f', 't' || r.t, 'p', 'q', 0, r.s);
	    END IF;
	    IF r.i = $parts / 2 THEN PERFORM wide.compact('f'); END IF;
	  END LOOP;
	END \$\$;
});
my $cells = q{SELECT count(*) FROM whole w FULL JOIN f ON f.row_key = 't' || w.t WHERE f.value IS DISTINCT FROM w.s};
is($node->safe_psql('postgres', $cells), '0',
	'every cell, merged in a random order across a compaction and aborts, is the sketch of the whole');
$node->safe_psql('postgres', q{SELECT wide.compact('f', true)});
is($node->safe_psql('postgres', $cells), '0', 'and after a major compaction');
$node->restart;
is($node->safe_psql('postgres', $cells), '0', 'and after a restart');

$node->stop;
done_testing();
