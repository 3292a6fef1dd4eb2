-- float8 sum, min and max aggregate families and rollups (issue 28 item 5):
-- the sum is exact whatever the order of folding (src/engine/fsum.c),
-- rounded once when read; rollups over float8 readings equal the GROUP BY
-- of the raw readings with the sum taken exactly.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS wide;
RESET client_min_messages;

-- the exact value of a double, as numeric (numeric's float8 cast keeps 15
-- digits only): m * 2^e, 2^-k written as 5^k * 10^-k
CREATE FUNCTION exact(x float8) RETURNS numeric LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT (CASE WHEN b < 0 THEN -1 ELSE 1 END) * m *
         CASE WHEN e >= 0 THEN 2::numeric ^ e
              ELSE (5::numeric ^ (-e)) * ('1e' || e)::numeric END
    FROM (SELECT b,
                 CASE WHEN (b >> 52) & 2047 = 0 THEN b & 4503599627370495
                      ELSE (b & 4503599627370495) + 4503599627370496 END AS m,
                 CASE WHEN (b >> 52) & 2047 = 0 THEN -1074
                      ELSE ((b >> 52) & 2047)::int - 1075 END AS e
            FROM (SELECT ('x' || encode(float8send(x), 'hex'))::bit(64)::bigint AS b) s) t $$;
SELECT exact(0.1) = 0.1000000000000000055511151231257827021181583404541015625 AS exact_ok,
       exact(-3.5) = -3.5 AS neg_ok, exact(5e-324) * 2::numeric ^ 1074 = 1 AS subnormal_ok;

CREATE TABLE f (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
SELECT wide.create_family('f', 's', aggregate => 'sum');
SELECT wide.create_family('f', 'lo', aggregate => 'min');
SELECT wide.create_family('f', 'hi', aggregate => 'max');
SELECT family, aggregate FROM wide.families('f') ORDER BY 1;

-- 1e16, 1, -1e16 and 0.1 in every order, some cells compacted between
-- writes: every cell reads the correctly rounded exact sum, 1.1
CREATE TABLE orders (o int, x float8[]);
INSERT INTO orders SELECT row_number() OVER (), p FROM (VALUES
  (ARRAY[1e16, 1, -1e16, 0.1]), (ARRAY[1, 1e16, -1e16, 0.1]), (ARRAY[-1e16, 0.1, 1, 1e16]),
  (ARRAY[0.1, 1e16, 1, -1e16]), (ARRAY[1e16, -1e16, 1, 0.1]), (ARRAY[1, 0.1, 1e16, -1e16])) v(p);
-- PostgreSQL's float sum depends on the order
SELECT o, (SELECT sum(v ORDER BY i) FROM unnest(x) WITH ORDINALITY u(v, i)) AS pg_sum FROM orders ORDER BY o;
DO $$
DECLARE
  r record;
  i int;
BEGIN
  FOR r IN SELECT * FROM orders LOOP
    FOR i IN 1 .. 4 LOOP
      PERFORM wide.add_to_cell('f', 'o' || r.o, 's', 'x', 0, r.x[i]);
      -- a minor compaction folds what is frozen so far (in odd cells)
      IF r.o % 2 = 1 AND i = 2 THEN PERFORM wide.compact('f'); END IF;
    END LOOP;
  END LOOP;
END $$;
SELECT row_key, value, value = round(1.1000000000000000055511151231257827021181583404541015625, 30)::float8 AS exact
  FROM f WHERE family = 's' ORDER BY 1;
SELECT wide.compact('f', true) IS NOT NULL AS compacted;
SELECT count(DISTINCT float8send(value)) AS distinct_sums, min(value) FROM f WHERE family = 's';

-- aborted inputs never count, before or after compactions
BEGIN;
SELECT wide.add_to_cell('f', 'o1', 's', 'x', 0, 1e10::float8);
SELECT value FROM f WHERE row_key = 'o1' AND family = 's';
ROLLBACK;
BEGIN;
INSERT INTO f VALUES ('o2', 's', 'x', 0, 1e10);
SAVEPOINT a;
INSERT INTO f VALUES ('o2', 's', 'x', 0, 5);
ROLLBACK TO a;
COMMIT;
SELECT wide.compact('f', true) IS NOT NULL AS compacted;
SELECT row_key, value FROM f WHERE family = 's' AND row_key IN ('o1', 'o2') ORDER BY 1;

-- subnormals, the range's ends, cancellation
INSERT INTO f VALUES ('t', 's', 'tiny', 0, 5e-324), ('t', 's', 'tiny', 0, 5e-324),
  ('t', 's', 'tiny', 0, 1), ('t', 's', 'tiny', 0, -1);
INSERT INTO f VALUES ('t', 's', 'big', 0, 1.7e308), ('t', 's', 'big', 0, 1.7e308);
SELECT qualifier, value FROM f WHERE row_key = 't' ORDER BY 2;
SELECT wide.compact('f', true) IS NOT NULL AS compacted;
-- beyond the largest double it reads as Infinity, and comes back exactly
INSERT INTO f VALUES ('t', 's', 'big', 0, -1.7e308);
SELECT qualifier, value, value = CASE qualifier WHEN 'big' THEN 1.7e308 ELSE 2 * 5e-324 END AS exact
  FROM f WHERE row_key = 't' ORDER BY 2;

-- NaN and infinities as PostgreSQL's addition has them; -0 and +0
INSERT INTO f SELECT 'sp', 's', q, 0, v FROM (VALUES
  ('inf', 'Infinity'::float8), ('inf', 5), ('both', 'Infinity'), ('both', '-Infinity'),
  ('nan', 'NaN'), ('nan', 1), ('ninf', '-Infinity'), ('ninf', -1e300), ('zero', '-0'), ('zero', '-0')) v(q, v);
INSERT INTO f SELECT 'sp', fam, 'z', 0, v FROM (VALUES ('lo', '0'::float8), ('lo', '-0'), ('hi', '-0'), ('hi', '0'),
  ('lo', 'NaN'), ('hi', 'NaN'), ('lo', 7), ('hi', -7)) v(fam, v);
INSERT INTO f SELECT 'sp', fam, 'z0', 0, v FROM (VALUES ('hi', '-0'::float8), ('hi', '0'), ('hi', '-0'),
  ('lo', '0'), ('lo', '0')) v(fam, v);
SELECT family, qualifier, value, float8send(value) FROM f WHERE row_key = 'sp' ORDER BY 1, 2;
SELECT wide.compact('f', true) IS NOT NULL AS compacted;
SELECT family, qualifier, value, float8send(value) FROM f WHERE row_key = 'sp' ORDER BY 1, 2;

-- input forms: integers, numeric, text, float4; merge_to_cell; JSON mutations
SELECT wide.add_to_cell('f', 'in', 's', 'a', 0, 2), wide.add_to_cell('f', 'in', 's', 'a', 0, 0.25::numeric),
       wide.add_to_cell('f', 'in', 's', 'a', 0, '1e-3'::text), wide.add_to_cell('f', 'in', 's', 'a', 0, 0.5::float4),
       wide.merge_to_cell('f', 'in', 's', 'a', 0, 100::float8);
SELECT wide.mutate_row('f', 'in', '[{"add_to_cell": {"family_name": "s", "column_qualifier": "a", "timestamp_micros": 0, "input": 1.5}},
  {"add_to_cell": {"family_name": "hi", "column_qualifier": "a", "timestamp_micros": 0, "input": "-2.5"}},
  {"merge_to_cell": {"family_name": "lo", "column_qualifier": "a", "timestamp_micros": 0, "input": 3.25}}]');
SELECT family, qualifier, value FROM f WHERE row_key = 'in' ORDER BY 1;

-- bad inputs: clear errors, nothing written
SELECT wide.add_to_cell('f', 'bad', 's', 'a', 0, 'abc'::text);
INSERT INTO f VALUES ('bad', 's', 'a', 0, 1), ('bad', 's', 'a', 0, 'x');
SELECT wide.mutate_row('f', 'bad', '[{"add_to_cell": {"family_name": "s", "column_qualifier": "a", "timestamp_micros": 0, "input": 1}},
  {"add_to_cell": {"family_name": "s", "column_qualifier": "a", "timestamp_micros": 0, "input": "1e999"}}]');
SELECT count(*) AS written FROM f WHERE row_key = 'bad';
-- a text table still cannot have sum families
CREATE TABLE ft (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('ft', 's', aggregate => 'sum');
DROP TABLE ft;

-- the aggregate pushdown reads float sums (not 8-byte values in storage)
SET wide.enable_aggregate_pushdown = on;
SELECT sum(value), min(value), max(value), count(*) FROM f WHERE family = 's' AND row_key LIKE 'o%';
SET wide.enable_aggregate_pushdown = off;
SELECT sum(value), min(value), max(value), count(*) FROM f WHERE family = 's' AND row_key LIKE 'o%';
RESET wide.enable_aggregate_pushdown;
SELECT * FROM wide.verify('f');

-- ----------------------------------------------------------------
-- Rollups over float8 readings
-- ----------------------------------------------------------------
CREATE TABLE m (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('m', 'r');
-- readings before the rollup exists: the backfill adds each of them
INSERT INTO m SELECT 'h' || (i % 4) || '#' || i, 'r', 'cpu', '2026-01-01'::timestamptz + i * interval '7 s',
       ((i * 7919) % 10007) / 100.0 + (i % 3) * 0.1 FROM generate_series(1, 300) i;
SELECT wide.create_family('m', 'm5', rollup => '{"source": "r", "bucket": "5 minutes",
  "functions": ["sum", "count", "min", "max"], "key_parts": 1}');
SELECT wide.create_family('m', 's1', rollup => '{"source": "r", "bucket": "1 hour", "functions": ["sum"]}');
SELECT * FROM wide.rollups('m') ORDER BY 1;
-- readings after it: rollups written with them, some rolled back
INSERT INTO m SELECT 'h' || (i % 4) || '#' || i, 'r', 'cpu', '2026-01-01'::timestamptz + i * interval '7 s',
       ((i * 7919) % 10007) / 100.0 + (i % 3) * 0.1 FROM generate_series(301, 600) i;
BEGIN;
INSERT INTO m SELECT 'h1#' || i, 'r', 'cpu', '2026-01-01'::timestamptz + i * interval '7 s', 1e6
  FROM generate_series(601, 700) i;
ROLLBACK;
SELECT wide.compact('m') IS NOT NULL AS compacted;
INSERT INTO m SELECT 'h' || (i % 4) || '#' || i, 'r', 'mem', '2026-01-01'::timestamptz + i * interval '7 s',
       1e15 + i * 0.3 FROM generate_series(1, 400) i;
SELECT wide.set_cell('m', 'h3#9999', 'r', 'mem', -1e15, '2026-01-01 00:10:00+00');
SELECT wide.mutate_rows('m', '[{"row_key": "h2#9998", "mutations": [{"set_cell": {"family_name": "r",
  "column_qualifier": "cpu", "timestamp_micros": 1767225900000000, "value": 0.7}}]}]');
-- readings in eighths: every partial sum is exact, in any order
INSERT INTO m SELECT 'h' || (i % 4) || '#' || i, 'r', 'disk', '2026-01-01'::timestamptz + i * interval '7 s',
       ((i * 7919) % 10007) / 8.0 FROM generate_series(1, 300) i;

-- rows of the exact GROUP BY minus the rollup, and of the rollup minus it
CREATE FUNCTION rollup_diff() RETURNS bigint LANGUAGE sql AS $$
  WITH raw AS (
    SELECT split_part(row_key, '#', 1) AS k, qualifier, date_bin('5 minutes', ts, 'epoch') AS b,
           sum(exact(value))::float8 AS s, count(*)::float8 AS c, min(value) AS mn, max(value) AS mx
      FROM m WHERE family = 'r' GROUP BY 1, 2, 3),
  roll AS (
    SELECT row_key AS k, split_part(qualifier, ':', 1) AS qualifier, ts AS b,
           max(value) FILTER (WHERE qualifier LIKE '%:sum') AS s,
           max(value) FILTER (WHERE qualifier LIKE '%:count') AS c,
           max(value) FILTER (WHERE qualifier LIKE '%:min') AS mn,
           max(value) FILTER (WHERE qualifier LIKE '%:max') AS mx
      FROM m WHERE family = 'm5' GROUP BY 1, 2, 3),
  raw1 AS (
    SELECT row_key AS k, qualifier, date_bin('1 hour', ts, 'epoch') AS b, sum(exact(value))::float8 AS s
      FROM m WHERE family = 'r' GROUP BY 1, 2, 3),
  roll1 AS (
    SELECT row_key AS k, split_part(qualifier, ':', 1), ts, value FROM m WHERE family = 's1')
  SELECT (SELECT count(*) FROM (TABLE raw EXCEPT TABLE roll) d) +
         (SELECT count(*) FROM (TABLE roll EXCEPT TABLE raw) d) +
         (SELECT count(*) FROM (TABLE raw1 EXCEPT TABLE roll1) d) +
         (SELECT count(*) FROM (TABLE roll1 EXCEPT TABLE raw1) d) $$;
SELECT rollup_diff() AS diff, (SELECT count(*) FROM m WHERE family = 'm5') AS rollup_cells;
-- PostgreSQL's own float sum rounds at every addition: within about 1e-16
-- of the sum per reading of the exact sum, equal to it in most buckets of
-- cpu and mem readings but not all; readings in eighths have exact sums,
-- where it equals the rollup's
SELECT qualifier, count(*) AS buckets,
       count(*) FILTER (WHERE pg = ex) AS pg_equal,
       bool_and(abs(pg - ex) <= 1e-15 * greatest(abs(ex), 1) * n) AS pg_close
  FROM (SELECT qualifier, date_bin('5 minutes', ts, 'epoch') AS b, split_part(row_key, '#', 1),
               sum(value) AS pg, sum(exact(value))::float8 AS ex, count(*) AS n
          FROM m WHERE family = 'r' GROUP BY 1, 2, 3) g GROUP BY 1 ORDER BY 1;
SELECT count(*) AS disk_buckets, count(*) FILTER (WHERE g.s = x.value) AS equal_to_pg_sum
  FROM (SELECT split_part(row_key, '#', 1) AS k, date_bin('5 minutes', ts, 'epoch') AS b, sum(value) AS s
          FROM m WHERE family = 'r' AND qualifier = 'disk' GROUP BY 1, 2) g
  LEFT JOIN m x ON x.family = 'm5' AND x.row_key = g.k AND x.qualifier = 'disk:sum' AND x.ts = g.b;
SELECT wide.compact('m', true) IS NOT NULL AS compacted;
SELECT rollup_diff() AS diff_after_major_compaction;
-- an average through sum and count
SELECT row_key, ts, round((sum(value) FILTER (WHERE qualifier = 'cpu:sum') /
                           sum(value) FILTER (WHERE qualifier = 'cpu:count'))::numeric, 6) AS avg_cpu,
       (SELECT round(avg(value)::numeric, 6) FROM m r WHERE r.family = 'r' AND r.qualifier = 'cpu'
           AND split_part(r.row_key, '#', 1) = x.row_key AND date_bin('5 minutes', r.ts, 'epoch') = x.ts) AS raw_avg
  FROM m x WHERE family = 'm5' AND row_key = 'h1' AND qualifier IN ('cpu:sum', 'cpu:count')
 GROUP BY 1, 2 ORDER BY 2 LIMIT 3;
-- a count cell takes integers only
SELECT wide.add_to_cell('m', 'h1', 'm5', 'cpu:count', '2026-01-01', 1.5);
-- deletes are not subtracted; a rebuild adds every reading again
DELETE FROM m WHERE family = 'r' AND row_key LIKE 'h2#1%';
SELECT rollup_diff() > 0 AS differs_after_delete;
SELECT wide.rebuild_rollup('m', 'm5') AS m5_cells, wide.rebuild_rollup('m', 's1') AS s1_cells;
SELECT rollup_diff() AS diff_after_rebuild;
SELECT wide.compact('m', true) IS NOT NULL AS compacted;
SELECT rollup_diff() AS diff_after_compaction;
SELECT * FROM wide.verify('m');

-- the value column decides: an int8 table's rollups are unchanged
CREATE TABLE mi (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('mi', 'r');
SELECT wide.create_family('mi', 'm5', rollup => '{"source": "r", "bucket": "1 second", "functions": ["sum", "min"]}');
INSERT INTO mi VALUES ('a', 'r', 'q', 1, 9007199254740993), ('a', 'r', 'q', 2, 1);
SELECT qualifier, value FROM mi WHERE family = 'm5' ORDER BY 1;
-- and a text table refuses a rollup with the new message
CREATE TABLE mt (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('mt', 'r');
SELECT wide.create_family('mt', 'm5', rollup => '{"source": "r", "bucket": "1 second", "functions": ["sum"]}');

DROP TABLE f, m, mi, mt, orders;
DROP FUNCTION rollup_diff();
DROP FUNCTION exact(float8);
