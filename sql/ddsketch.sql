-- Quantile sketches merged on write (issue 29 item 2): ddsketch families,
-- wide.quantile within 1% of percentile_disc for every q, merges exact in
-- any order (equal sketches are equal bytes), aborts never count.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS wide;
RESET client_min_messages;

-- the error bound, on uniform, skewed (log-uniform over 12 orders of
-- magnitude) and mixed-sign data with zeros, for every q
CREATE TABLE data (d text, x float8);
SELECT setseed(0.29);
INSERT INTO data SELECT 'uniform', random() * 1000 FROM generate_series(1, 5000);
INSERT INTO data SELECT 'skewed', exp(random() * 27.6 - 13.8) FROM generate_series(1, 5000);
INSERT INTO data SELECT 'mixed', CASE WHEN i % 10 = 0 THEN 0 ELSE (random() - 0.3) * exp(random() * 10) END
  FROM generate_series(1, 5000) i;
INSERT INTO data SELECT 'one', 42.5;
SELECT d, count(*) AS qs,
       bool_and(abs(est - exact) <= 0.01 * abs(exact)) AS within_1pct,
       max(abs(est - exact) / nullif(abs(exact), 0)) < 0.0101 AS max_rel_err_ok
  FROM (SELECT d, q, wide.quantile(s, q) AS est, exact
          FROM (SELECT d, wide.ddsketch_agg(x) AS s FROM data GROUP BY d) sk,
               LATERAL unnest(ARRAY[0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1]) q,
               LATERAL (SELECT percentile_disc(q) WITHIN GROUP (ORDER BY x) AS exact
                          FROM data WHERE data.d = sk.d) e) r
 GROUP BY d ORDER BY d;
SELECT wide.quantiles(wide.ddsketch_agg(x), '{0, 0.5, 1}'), wide.ddsketch_count(wide.ddsketch_agg(x))
  FROM data WHERE d = 'one';
SELECT wide.quantile(wide.ddsketch_agg(x), 0.5) AS empty FROM data WHERE false;

-- merging is associative and commutative: the same bytes in any grouping
WITH parts AS (SELECT ntile(3) OVER (ORDER BY random()) AS p, x FROM data WHERE d = 'mixed'),
     s AS (SELECT p, wide.ddsketch_agg(x) AS s FROM parts GROUP BY p),
     a AS (SELECT s FROM s WHERE p = 1), b AS (SELECT s FROM s WHERE p = 2), c AS (SELECT s FROM s WHERE p = 3)
SELECT wide.ddsketch_union(wide.ddsketch_union(a.s, b.s), c.s) = wide.ddsketch_union(a.s, wide.ddsketch_union(c.s, b.s)) AS assoc,
       wide.ddsketch_union(wide.ddsketch_union(a.s, b.s), c.s) = (SELECT wide.ddsketch_agg(x) FROM data WHERE d = 'mixed') AS union_is_sketch_of_all,
       (SELECT wide.ddsketch_union_agg(s ORDER BY p DESC) FROM s) = (SELECT wide.ddsketch_union_agg(s ORDER BY p) FROM s) AS order_free
  FROM a, b, c;

-- a ddsketch family: inputs by add_to_cell, INSERT (8 big-endian bytes of a
-- double, or a sketch: merged), mutate_row; aborted ones never count; the
-- cell equals the sketch of its committed inputs, before and after
-- compactions
CREATE TABLE lat (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('lat', 'p', aggregate => 'ddsketch');
SELECT family, aggregate FROM wide.families('lat');
CREATE TABLE log (k text, x float8);
DO $$
DECLARE
  i int;
  x float8;
BEGIN
  FOR i IN 1 .. 600 LOOP
    x := round((exp(random() * 8) * CASE WHEN i % 7 = 0 THEN -1 ELSE 1 END)::numeric, 3);
    IF i % 3 = 0 THEN
      INSERT INTO lat VALUES ('h' || i % 4, 'p', 'ms', 0, float8send(x));
    ELSE
      PERFORM wide.add_to_cell('lat', 'h' || i % 4, 'p', 'ms', 0, x);
    END IF;
    INSERT INTO log VALUES ('h' || i % 4, x);
    IF i % 150 = 0 THEN PERFORM wide.compact('lat'); END IF;
  END LOOP;
END $$;
BEGIN;
SELECT wide.add_to_cell('lat', 'h1', 'p', 'ms', 0, 1e9::float8);
ROLLBACK;
SELECT wide.mutate_row('lat', 'h2', '[{"add_to_cell": {"family_name": "p", "column_qualifier": "ms", "timestamp_micros": 0, "input": 2.5}}]');
INSERT INTO log VALUES ('h2', 2.5);
-- a sketch written to the family merges
INSERT INTO lat SELECT 'h3', 'p', 'ms', 0, wide.ddsketch_agg(x) FROM (VALUES (7.0::float8), (8.0)) v(x);
INSERT INTO log VALUES ('h3', 7), ('h3', 8);
SELECT wide.merge_to_cell('lat', 'h0', 'p', 'ms', 0, wide.ddsketch_agg(x)) FROM (VALUES (0::float8), (0)) v(x);
INSERT INTO log VALUES ('h0', 0), ('h0', 0);
CREATE FUNCTION lat_diff() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (SELECT k, wide.ddsketch_agg(x) AS s FROM log GROUP BY k) l
    FULL JOIN lat ON lat.row_key = l.k
   WHERE lat.value IS DISTINCT FROM l.s $$;
SELECT lat_diff() AS diff, (SELECT sum(wide.ddsketch_count(value)) FROM lat) AS inputs;
SELECT wide.compact('lat', true) IS NOT NULL AS compacted;
SELECT lat_diff() AS diff_after_compaction;
SELECT row_key, wide.ddsketch_count(value) AS n,
       abs(wide.quantile(value, 0.99) - e.p99) <= 0.01 * abs(e.p99) AS p99_within_1pct
  FROM lat, LATERAL (SELECT percentile_disc(0.99) WITHIN GROUP (ORDER BY x) AS p99
                       FROM log WHERE k = row_key) e
 ORDER BY 1;
-- percentiles of any set of cells: merge them
SELECT abs(wide.quantile(wide.ddsketch_union_agg(value), 0.5) -
           (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM log)) <=
       0.01 * abs((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM log)) AS median_of_all_ok
  FROM lat;
SELECT * FROM wide.verify('lat');

-- bad input: clear errors, nothing written
SELECT wide.add_to_cell('lat', 'bad', 'p', 'ms', 0, 'NaN'::float8);
SELECT wide.add_to_cell('lat', 'bad', 'p', 'ms', 0, 'Infinity'::float8);
INSERT INTO lat VALUES ('bad', 'p', 'ms', 0, '\x0102');
SELECT wide.merge_to_cell('lat', 'bad', 'p', 'ms', 0, '\x440101000105'::bytea);
SELECT wide.mutate_row('lat', 'bad', '[{"add_to_cell": {"family_name": "p", "column_qualifier": "ms", "timestamp_micros": 0, "input": 1}},
  {"merge_to_cell": {"family_name": "p", "column_qualifier": "ms", "timestamp_micros": 0, "input": "\\x00"}}]');
SELECT count(*) AS written FROM lat WHERE row_key = 'bad';
SELECT wide.quantile('\x4401010000'::bytea, 0.5);
SELECT wide.quantile((SELECT value FROM lat WHERE row_key = 'h1'), 1.5);
SELECT wide.ddsketch_agg(x) FROM (VALUES ('NaN'::float8)) v(x);
CREATE TABLE notbytea (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
SELECT wide.create_family('notbytea', 'p', aggregate => 'ddsketch');
SELECT wide.create_family('notbytea', 'p', aggregate => 'tdigest');

-- a ddsketch rollup (a bytea table: readings are 8-byte big-endian
-- integers, as its sum takes them): each bucket's sketch is the sketch of
-- its readings, byte for byte, through the backfill, live writes, an
-- abort, compactions and rebuild_rollup
CREATE TABLE rb (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('rb', 'm');
INSERT INTO rb SELECT 'h' || (i % 3) || '#' || i, 'm', 'lat', '2026-01-01'::timestamptz + i * interval '1 s',
       int8send((i * 7919 % 1000 - 100)::int8) FROM generate_series(1, 900) i;
SELECT wide.create_family('rb', 'p', rollup => '{"source": "m", "bucket": "5 minutes",
  "functions": ["count", "ddsketch"], "key_parts": 1}');
INSERT INTO rb SELECT 'h' || (i % 3) || '#' || i, 'm', 'lat', '2026-01-01'::timestamptz + i * interval '1 s',
       int8send((i * 7919 % 1000 - 100)::int8) FROM generate_series(901, 1800) i;
BEGIN;
INSERT INTO rb VALUES ('h1#x', 'm', 'lat', '2026-01-01 00:01:00+00', int8send(100000));
ROLLBACK;
SELECT wide.compact('rb') IS NOT NULL AS compacted;
CREATE FUNCTION rb_diff() RETURNS bigint LANGUAGE sql AS $$
  WITH raw AS (
    SELECT split_part(row_key, '#', 1) AS k, date_bin('5 minutes', ts, 'epoch') AS b,
           wide.ddsketch_agg(('x' || encode(value, 'hex'))::bit(64)::bigint::float8) AS s
      FROM rb WHERE family = 'm' GROUP BY 1, 2)
  SELECT count(*) FROM raw
    FULL JOIN (SELECT * FROM rb WHERE family = 'p' AND qualifier = 'lat:ddsketch') r
      ON r.row_key = raw.k AND r.ts = raw.b
   WHERE r.value IS DISTINCT FROM raw.s $$;
SELECT rb_diff() AS diff, (SELECT count(*) FROM rb WHERE family = 'p') AS rollup_cells;
SELECT bool_and(abs(wide.quantile(p.value, 0.99) - e.p99) <= 0.01 * abs(e.p99)) AS p99_within_1pct
  FROM rb p, LATERAL (SELECT percentile_disc(0.99) WITHIN GROUP (ORDER BY ('x' || encode(value, 'hex'))::bit(64)::bigint) AS p99
                        FROM rb r WHERE r.family = 'm' AND split_part(r.row_key, '#', 1) = p.row_key
                         AND date_bin('5 minutes', r.ts, 'epoch') = p.ts) e
 WHERE p.family = 'p' AND p.qualifier = 'lat:ddsketch';
DELETE FROM rb WHERE family = 'm' AND row_key LIKE 'h2#1%';
SELECT wide.rebuild_rollup('rb', 'p');
SELECT wide.compact('rb', true) IS NOT NULL AS compacted;
SELECT rb_diff() AS diff_after_rebuild;
SELECT * FROM wide.verify('rb');
CREATE TABLE rf (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
SELECT wide.create_family('rf', 'm');
SELECT wide.create_family('rf', 'p', rollup => '{"source": "m", "bucket": "1 second", "functions": ["ddsketch"]}');

-- Bigtable's JSON mapping: addToCell and mergeToCell with Value messages
-- (qualifier rawValue, timestamp rawTimestampMicros, input intValue or
-- rawValue), and wide's own floatValue input where Bigtable has no
-- aggregate of doubles; a sketch merges as a rawValue
CREATE TABLE bj (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('bj', 'p', aggregate => 'ddsketch');
SELECT wide.create_family('bj', 's', aggregate => 'sum');
SELECT wide.mutate_row('bj', 'r', format('[
  {"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
                 "timestamp": {"rawTimestampMicros": "1000"}, "input": {"floatValue": 2.5}}},
  {"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
                 "timestamp": {"rawTimestampMicros": 1000}, "input": {"intValue": "7"}}},
  {"addToCell": {"familyName": "p", "columnQualifier": "bXM=", "timestampMicros": "1000",
                 "input": {"floatValue": -0.125}}},
  {"mergeToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
                   "timestamp": {"rawTimestampMicros": "1000"}, "input": {"rawValue": "%s"}}},
  {"addToCell": {"familyName": "s", "columnQualifier": {"rawValue": "bg=="},
                 "timestamp": {"rawTimestampMicros": "1000"}, "input": {"intValue": "5"}}},
  {"addToCell": {"familyName": "s", "columnQualifier": {"rawValue": "bg=="},
                 "timestamp": {"rawTimestampMicros": "1000"}, "input": {"rawValue": "AAAAAAAAAAM="}}}]',
  encode(wide.ddsketch_agg(x), 'base64'))::jsonb)
  FROM (VALUES (1e6::float8), (3)) v(x);
SELECT family, qualifier, ts,
       CASE family WHEN 'p' THEN value = (SELECT wide.ddsketch_agg(x) FROM unnest('{2.5, 7, -0.125, 1e6, 3}'::float8[]) x) END AS sketch_ok,
       CASE family WHEN 's' THEN value END AS sum
  FROM bj ORDER BY 1;
SELECT wide.quantiles(value, '{0, 0.5, 1}') FROM bj WHERE family = 'p';
-- bad Values: clear errors, nothing written
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"floatValue": "NaN"}}}]');
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"floatValue": "-Infinity"}}}]');
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"rawValue": "AQI="}}}]');
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"stringValue": "1"}}}]');
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"floatValue": 1, "intValue": 1}}}]');
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"intValue": 1},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"floatValue": 1}}}]');
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"dateValue": "0"}, "input": {"floatValue": 1}}}]');
SELECT wide.mutate_row('bj', 'bad', '[{"addToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"floatValue": 1}}},
  {"mergeToCell": {"familyName": "p", "columnQualifier": {"rawValue": "bXM="},
  "timestamp": {"rawTimestampMicros": "0"}, "input": {"rawValue": "RAEBAAEF"}}}]');
SELECT wide.merge_to_cell('bj', 'bad', 'p', 'ms', 0, '\x4401010080000000'::bytea);
SELECT count(*) AS written FROM bj WHERE row_key = 'bad';

DROP TABLE data, lat, log, notbytea, rb, rf, bj;
DROP FUNCTION rb_diff();
DROP FUNCTION lat_diff();
