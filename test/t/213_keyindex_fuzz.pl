# Differential test of wide_key index scans (am/keyindex.c): random
# equality predicates on (row_key, family, qualifier, ts), planned as an
# Index Scan on the unique wide_key index (the settings that make the
# planner pick it: no Wide Scan, enable_seqscan off, seq_page_cost far above
# random_page_cost), must return exactly what the Wide Scan returns and, on
# a table of plain families, what a heap table with the same cells returns.
# Cells are written in rounds with row, family and column deletes and
# compactions between, so they lie in runs, the write area and tombstones;
# the second table's families have max_versions and max_age policies.
#
#   WIDE_FUZZ_SEED=<n>      the seed (a float in [-1, 1], default 0.42); printed
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} // 0.42;
diag "wide_key index fuzz seed $seed";

my $node = PostgreSQL::Test::Cluster->new('keyindexfuzz');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nwide.flush_threshold = 16\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wide');

my $body = <<'SQL';
DROP TABLE IF EXISTS w, h;
CREATE TABLE w (row_key text NOT NULL, family text NOT NULL, qualifier text NOT NULL, ts int8 NOT NULL, value text) USING wide;
CREATE TABLE h (row_key text, family text, qualifier text, ts int8, value text);
__FAMS__
CREATE UNIQUE INDEX w_cell ON w USING wide_key (row_key, family, qualifier, ts);
-- several rounds of writes, deletes and compactions
DO $$
DECLARE r int; i int; k text; f text; q text; t int8; v text;
BEGIN
  FOR r IN 1..4 LOOP
    FOR i IN 1..300 LOOP
      k := 'k' || (random()*40)::int; f := (ARRAY['a','b','c'])[1+(random()*2)::int];
      q := 'q' || (random()*5)::int; t := (random()*8)::int8;
      v := CASE WHEN random() < 0.05 THEN repeat('x', (random()*3000)::int) ELSE 'v'||i||'.'||r END;
      INSERT INTO w VALUES (k, f, q, t, v);
      DELETE FROM h WHERE row_key=k AND family=f AND qualifier=q AND ts=t;
      INSERT INTO h VALUES (k, f, q, t, v);
    END LOOP;
    FOR i IN 1..20 LOOP
      k := 'k' || (random()*40)::int; f := (ARRAY['a','b','c'])[1+(random()*2)::int]; q := 'q' || (random()*5)::int;
      IF random() < 0.3 THEN
        PERFORM wide.delete_row('w', k); DELETE FROM h WHERE row_key=k;
      ELSIF random() < 0.5 THEN
        PERFORM wide.delete_family('w', k, f); DELETE FROM h WHERE row_key=k AND family=f;
      ELSE
        DELETE FROM w WHERE row_key=k AND family=f AND qualifier=q;
        DELETE FROM h WHERE row_key=k AND family=f AND qualifier=q;
      END IF;
    END LOOP;
    IF r % 2 = 0 THEN PERFORM wide.compact('w'); END IF;
  END LOOP;
END $$;
SELECT count(*) AS wide_cells, (SELECT count(*) FROM h) AS heap_rows FROM w;
-- the differential: index scan on w vs seq scan on h
CREATE OR REPLACE FUNCTION pg_temp.q(tbl text, pred text, idx bool) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE res text; plan text := '';  l text;
BEGIN
  IF idx THEN
    PERFORM set_config('wide.enable_customscan','off',true); PERFORM set_config('enable_seqscan','off',true);
    PERFORM set_config('random_page_cost','0',true); PERFORM set_config('seq_page_cost','10000',true);
    FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT * FROM '||tbl||' WHERE '||pred LOOP plan := plan || l || E'\n'; END LOOP;
    IF plan NOT LIKE '%Index Scan using w_cell%' AND pred <> 'true' THEN RAISE WARNING 'no index scan for %: %', pred, plan; END IF;
  ELSE
    PERFORM set_config('wide.enable_customscan','on',true); PERFORM set_config('enable_seqscan','on',true);
    PERFORM set_config('random_page_cost','4',true); PERFORM set_config('seq_page_cost','1',true);
  END IF;
  EXECUTE 'SELECT string_agg(format(''%s|%s|%s|%s|%s'', row_key, family, qualifier, ts, md5(value)), '','' ORDER BY row_key, family, qualifier, ts) FROM '||tbl||' WHERE '||pred INTO res;
  RETURN coalesce(res, '');
END $f$;
DO $$
DECLARE i int; p text; a text; b text; c text; n int := 0; bad int := 0; parts text[];
  gc bool := __GC__;
BEGIN
  FOR i IN 1..400 LOOP
    parts := '{}';
    IF random() < 0.8 THEN parts := parts || format('row_key = %L', 'k'||(random()*42)::int); END IF;
    IF random() < 0.6 THEN parts := parts || format('family = %L', (ARRAY['a','b','c','d'])[1+(random()*3)::int]); END IF;
    IF random() < 0.6 THEN parts := parts || format('qualifier = %L', 'q'||(random()*6)::int); END IF;
    IF random() < 0.5 THEN parts := parts || format('ts = %s::int8', (random()*9)::int); END IF;
    IF random() < 0.1 THEN parts := parts || format('row_key = %L', 'k'||(random()*42)::int); END IF;
    IF random() < 0.1 THEN parts := parts || format('ts = %s::int8', (random()*9)::int); END IF;
    IF cardinality(parts) = 0 THEN parts := ARRAY['true']; END IF;
    p := array_to_string(parts, ' AND ');
    a := pg_temp.q('w', p, true); b := pg_temp.q('w', p, false); c := pg_temp.q('h', p, false);
    n := n + 1;
    IF a <> b OR (NOT gc AND b <> c) THEN bad := bad + 1; RAISE WARNING 'MISMATCH % : idx=% seq=% heap=%', p, left(a,300), left(b,300), left(c,300); END IF;
  END LOOP;
  RAISE NOTICE 'queries % mismatches %', n, bad;
END $$;
SQL

my %variants = (
	plain => [ 'false', q{
		SELECT wide.create_family('w', 'a');
		SELECT wide.create_family('w', 'b');
		SELECT wide.create_family('w', 'c');} ],
	gc => [ 'true', q{
		SELECT wide.create_family('w', 'a');
		SELECT wide.create_family('w', 'b', max_versions => 1);
		SELECT wide.create_family('w', 'c', max_versions => 2, max_age => '1 day', gc => 'intersection');} ]);
for my $v (sort keys %variants)
{
	my ($gc, $fams) = @{ $variants{$v} };
	my $sql = $body;
	$sql =~ s/__GC__/$gc/;
	$sql =~ s/__FAMS__/$fams/;
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT setseed($seed);\n$sql",
		on_error_stop => 1);
	is($ret, 0, "$v: the script ran") or diag($err);
	like($err, qr/queries 400 mismatches 0/, "$v: index scans return what the other scans return");
	unlike($err, qr/MISMATCH|no index scan/, "$v: every query used the index, none differed")
	  or diag(substr($err, 0, 3000));
}
$node->stop;
done_testing();
