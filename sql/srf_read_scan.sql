--
-- srf_read_scan: wide.read_rows and wide.read_row in FROM are Wide Read
-- Rows custom scans (issue 11): the row set, filter and limit are inside
-- the scan and shown by EXPLAIN, LATERAL calls are rescanned with their
-- outer values, estimates come from the table's statistics, and every
-- result equals the Function Scan's (wide.enable_read_scan = off).
--
\set SHOW_CONTEXT never
CREATE TABLE rs (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('rs', 'a');
SELECT wide.create_family('rs', 'b', max_versions => 1);
-- 20 rows, 2 families, 2 qualifiers, 2 versions: 160 cells written
INSERT INTO rs
SELECT 'k' || lpad(r::text, 2, '0'), f, q, v, r || f || q || v
  FROM generate_series(1, 20) r, unnest(ARRAY['a', 'b']) f,
       unnest(ARRAY['x', 'y']) q, generate_series(1, 2) v;
SELECT FROM wide.compact('rs', true);
-- and some in the write area: a new version, a deleted row
INSERT INTO rs VALUES ('k05', 'a', 'x', 3, 'new'), ('k21', 'a', 'x', 1, 'wa');
SELECT wide.delete_row('rs', 'k07');
ANALYZE rs;

-- the same cells, in the same order, from the scan and the Function Scan
CREATE FUNCTION rs_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
BEGIN
	SET LOCAL wide.enable_read_scan = on;
	EXECUTE 'SELECT string_agg(t::text, '' '') FROM (' || q || ') t' INTO a;
	SET LOCAL wide.enable_read_scan = off;
	EXECUTE 'SELECT string_agg(t::text, '' '') FROM (' || q || ') t' INTO b;
	RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same: ' || coalesce(length(a), 0)
	            ELSE 'DIFFERENT: ' || coalesce(a, 'NULL') || ' <> ' || coalesce(b, 'NULL') END;
END $$;
-- the plan's estimated rows
CREATE FUNCTION rs_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;

-- EXPLAIN: the call is the scan, with its row set, filter, limit
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_row(NULL::rs, 'k03');
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_rows(NULL::rs, keys => ARRAY['k01', 'k09'],
  start_key => 'k10', end_key => 'k12', end_inclusive => true, prefix => 'k2',
  ranges => '[{"start_key_open": "k15"}]', "limit" => 5, reversed => true,
  filter => wide.family_filter('a'));
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_rows(NULL::rs);
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_rows(NULL::rs, start_key => 'k10', start_inclusive => false);
-- the rows come in order: ORDER BY needs no Sort
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_rows(NULL::rs, prefix => 'k1')
 ORDER BY row_key, family, qualifier, ts DESC;
EXPLAIN (COSTS OFF) SELECT row_key FROM wide.read_rows(NULL::rs, prefix => 'k1', reversed => true)
 ORDER BY row_key DESC LIMIT 1;
-- quals on the cells stay quals of the scan
EXPLAIN (COSTS OFF) SELECT value FROM wide.read_rows(NULL::rs, prefix => 'k1') WHERE qualifier = 'y';
-- what it read
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_rows(NULL::rs, start_key => 'k03', end_key => 'k05');
-- the latest row: a reversed read with a limit reads one window (the last row of
-- each run), and to end that row the next one (a window of a few rows, not a block)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_rows(NULL::rs, end_key => 'k20', reversed => true, "limit" => 1);

-- results
SELECT * FROM wide.read_row(NULL::rs, 'k05');
SELECT * FROM wide.read_rows(NULL::rs, prefix => 'k1', "limit" => 2, reversed => true,
                             filter => wide.chain(wide.family_filter('a'), wide.qualifier_filter('x')));
SELECT rs_check(q) FROM (VALUES
  ($$SELECT * FROM wide.read_rows(NULL::rs)$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, reversed => true)$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, keys => ARRAY['k07', 'k05', 'k21', 'nope', 'k05'])$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, start_key => 'k03', end_key => 'k08', "limit" => 3)$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, start_key => 'k03', end_key => 'k08',
      start_inclusive => false, end_inclusive => true, reversed => true)$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, prefix => 'k1', keys => ARRAY['k02'],
      ranges => '[{"start_key_closed": "k15", "end_key_open": "k18"}, {"start_key_open": "k19"}]')$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, prefix => 'k0', filter => wide.value_filter('.*2'))$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, prefix => 'k0', "limit" => 4,
      filter => wide.chain(wide.qualifier_filter('y'), wide.latest(1)))$$),
  ($$SELECT * FROM wide.read_rows(NULL::rs, "limit" => 0)$$),
  ($$SELECT qualifier, value FROM wide.read_rows(NULL::rs, prefix => 'k2') WHERE family = 'a'$$),
  ($$SELECT count(*), max(value) FROM wide.read_rows(NULL::rs, start_key => 'k04')$$),
  ($$SELECT * FROM wide.read_row(NULL::rs, 'k07')$$),
  ($$SELECT * FROM wide.read_row(NULL::rs, 'k21', filter => wide.strip_value())$$)) v(q);

-- read_rows_labeled: (cell, labels)
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_rows_labeled(NULL::rs, keys => ARRAY['k03']);
SELECT (cell).row_key, (cell).qualifier, (cell).value, labels
  FROM wide.read_rows_labeled(NULL::rs, prefix => 'k0', "limit" => 2,
    filter => wide.interleave(wide.chain(wide.family_filter('b'), wide.label('fb')),
                              wide.chain(wide.qualifier_filter('y'), wide.label('qy'))));
SELECT rs_check(q) FROM (VALUES
  ($$SELECT * FROM wide.read_rows_labeled(NULL::rs, reversed => true, "limit" => 3)$$),
  ($$SELECT * FROM wide.read_rows_labeled(NULL::rs, prefix => 'k1',
      filter => wide.chain(wide.qualifier_filter('x'), wide.label('x'), wide.strip_value()))$$),
  ($$SELECT labels, (cell).ts FROM wide.read_rows_labeled(NULL::rs, keys => ARRAY['k05'],
      filter => wide.interleave(wide.label('all'), wide.chain(wide.latest(1), wide.label('new'))))
     WHERE cardinality(labels) > 0$$)) v(q);

-- LATERAL: outer values are parameters; the scan reads again per outer row
EXPLAIN (COSTS OFF)
SELECT k, r.value FROM (VALUES ('k01'), ('k05'), ('k99')) v(k),
       LATERAL wide.read_row(NULL::rs, k, wide.family_filter('b')) r;
SELECT k, r.value FROM (VALUES ('k01'), ('k05'), ('k99')) v(k),
       LATERAL wide.read_row(NULL::rs, k, wide.family_filter('b')) r;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT n, r.row_key FROM generate_series(1, 3) n,
       LATERAL wide.read_rows(NULL::rs, start_key => 'k1' || n, "limit" => n::int8,
                              filter => wide.family_filter('b')) r
 WHERE r.qualifier = 'x';
SELECT n, r.row_key FROM generate_series(1, 3) n,
       LATERAL wide.read_rows(NULL::rs, start_key => 'k1' || n, "limit" => n::int8,
                              filter => wide.family_filter('b')) r
 WHERE r.qualifier = 'x';
SELECT rs_check($$SELECT n, r.* FROM generate_series(0, 5) n,
  LATERAL wide.read_rows(NULL::rs, prefix => 'k' || n, "limit" => 2, reversed => n % 2 = 0) r$$);
-- a rescan in the middle of a read (the inner side of a nested loop,
-- stopped by a LIMIT-like semi join)
SELECT k FROM (VALUES ('k02'), ('k07'), ('k11')) v(k)
 WHERE EXISTS (SELECT FROM wide.read_rows(NULL::rs, start_key => k) r WHERE r.qualifier = 'y');
-- prepared, with parameters
PREPARE rsp(text, int8) AS SELECT count(*) FROM wide.read_rows(NULL::rs, prefix => $1, "limit" => $2);
EXECUTE rsp('k1', 3);
EXECUTE rsp('k2', NULL);
DEALLOCATE rsp;

-- estimates: cells per row and the key histogram of ANALYZE, not 1,000
SELECT rs_rows($$SELECT * FROM wide.read_row(NULL::rs, 'k03')$$) AS one_row,
       rs_rows($$SELECT * FROM wide.read_rows(NULL::rs, keys => ARRAY['k01', 'k02'])$$) AS two_rows,
       rs_rows($$SELECT * FROM wide.read_rows(NULL::rs)$$) AS every_row,
       rs_rows($$SELECT * FROM wide.read_rows(NULL::rs, start_key => 'k10')$$) AS k10_on,
       rs_rows($$SELECT * FROM wide.read_rows(NULL::rs, prefix => 'k0')$$) AS k0x,
       rs_rows($$SELECT * FROM wide.read_rows(NULL::rs, prefix => 'k1', "limit" => 1)$$) AS limited;

-- calls that stay Function Scans, and still work
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_row(NULL::rs, 'k03') WITH ORDINALITY;
EXPLAIN (COSTS OFF) SELECT r FROM wide.read_row(NULL::rs, 'k03') r;
SELECT r FROM wide.read_row(NULL::rs, 'k03') r WHERE (r).family = 'b';
SELECT (wide.read_row(NULL::rs, 'k04')).value LIMIT 1;
SET wide.enable_read_scan = off;
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_row(NULL::rs, 'k03');
RESET wide.enable_read_scan;

-- errors, as from the function
SELECT * FROM wide.read_rows(NULL::rs, "limit" => -1);
SELECT * FROM wide.read_rows(NULL::rs, start_key => 'b', end_key => 'a');
SELECT * FROM wide.read_row(NULL::rs, NULL);
SELECT * FROM wide.read_rows(NULL::rs, keys => ARRAY['a', NULL]);
SELECT * FROM wide.read_rows(NULL::rs, filter => '{"nope": 1}');
SELECT * FROM wide.read_rows(NULL::rs, ranges => '{"start_key_closed": "a"}');
SELECT * FROM wide.read_rows(NULL::pg_class);
SELECT k, r.* FROM (VALUES ('b', 'a')) v(s, k),
       LATERAL wide.read_rows(NULL::rs, start_key => s, end_key => k) r;
-- privileges and row-level security, as for the function
CREATE ROLE regress_srf_user;
GRANT USAGE ON SCHEMA wide TO regress_srf_user;
SET ROLE regress_srf_user;
SELECT * FROM wide.read_row(NULL::rs, 'k03');
RESET ROLE;
GRANT SELECT ON rs TO regress_srf_user;
REVOKE EXECUTE ON FUNCTION wide.read_row(anyelement, "any", jsonb) FROM PUBLIC;
SET ROLE regress_srf_user;
SELECT count(*) FROM wide.read_row(NULL::rs, 'k03');
RESET ROLE;
GRANT EXECUTE ON FUNCTION wide.read_row(anyelement, "any", jsonb) TO PUBLIC;
SET ROLE regress_srf_user;
SELECT count(*) FROM wide.read_row(NULL::rs, 'k03');
RESET ROLE;
ALTER TABLE rs ENABLE ROW LEVEL SECURITY;
SET ROLE regress_srf_user;
SELECT count(*) FROM wide.read_rows(NULL::rs);
RESET ROLE;
ALTER TABLE rs DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON rs FROM regress_srf_user;
REVOKE USAGE ON SCHEMA wide FROM regress_srf_user;
DROP ROLE regress_srf_user;

-- a filter's time window skips blocks (time pruning), shown by ANALYZE
SET wide.block_size = 1024;
CREATE TABLE rst (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('rst', 'm');
INSERT INTO rst SELECT 'r' || lpad(i::text, 4, '0'), 'm', 'q',
       '2030-01-01'::timestamptz + i * interval '1 minute', i
  FROM generate_series(1, 2000) i;
SELECT FROM wide.compact('rst', major => true);
RESET wide.block_size;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM wide.read_rows(NULL::rst, filter => wide.ts_range('2030-01-01 01:00', '2030-01-01 01:10'));
SELECT rs_check($$SELECT * FROM wide.read_rows(NULL::rst, reversed => true,
  filter => wide.ts_range('2030-01-01 01:00', '2030-01-01 01:10'))$$);
DROP TABLE rst;

DROP FUNCTION rs_check(text);
DROP FUNCTION rs_rows(text);
DROP TABLE rs;
