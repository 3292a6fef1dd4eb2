-- a compacted, frozen run of an aggregate table holds one record per cell
-- (run flag ONE_PER_CELL, format 6): it is read without the merger, each
-- record folded alone as the merger would (reader.c: fast_fold).  Every
-- read returns what it returned before compaction, through the merger.
SET timezone = 'UTC';
CREATE TABLE ai (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('ai', 's', aggregate => 'sum');
SELECT wide.create_family('ai', 'lo', aggregate => 'min');
SELECT wide.create_family('ai', 'hi', aggregate => 'max');
SELECT wide.create_family('ai', 'old', aggregate => 'sum', max_age => '30 days');
SELECT wide.create_family('ai', 'plain');
-- some cells of one input (an ADD), some of many (folded to a MERGE)
INSERT INTO ai SELECT 'r' || (i % 7), f, 'q' || (i % 3), '2026-01-01'::timestamptz + (i % 4) * interval '1 hour', i
  FROM generate_series(1, 60) i, unnest('{s,lo,hi,plain}'::text[]) f;
INSERT INTO ai SELECT 'r' || i, f, 'once', '2026-01-02', i * 10
  FROM generate_series(1, 5) i, unnest('{s,lo,hi}'::text[]) f;
INSERT INTO ai VALUES ('r1', 'old', 'q', now() - interval '40 days', 5), ('r1', 'old', 'q2', now(), 6);
CREATE TABLE af (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('af', 'fs', aggregate => 'sum');
SELECT wide.create_family('af', 'fl', aggregate => 'min');
INSERT INTO af SELECT 'r' || (i % 5), f, 'q', '2026-01-01', 1e16 * (i % 2) + 0.1 * i
  FROM generate_series(1, 40) i, unnest('{fs,fl}'::text[]) f;
INSERT INTO af VALUES ('single', 'fs', 'q', '2026-01-01', 0.3);
CREATE TABLE ab (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('ab', 'u', aggregate => 'hll');
SELECT wide.create_family('ab', 'p', aggregate => 'ddsketch');
SELECT wide.create_family('ab', 'm');
SELECT wide.create_family('ab', 'ru', rollup => '{"source": "m", "bucket": "1 minute",
  "functions": ["count", "ddsketch"], "key_parts": 1}');
INSERT INTO ab SELECT 'k' || (i % 4), 'u', 'v', '2026-01-01', int8send(i % 50) FROM generate_series(1, 400) i;
INSERT INTO ab SELECT 'k' || (i % 4), 'p', 'v', '2026-01-01', float8send(i * 1.5) FROM generate_series(1, 400) i;
INSERT INTO ab VALUES ('lone', 'p', 'v', '2026-01-01', float8send(42));
INSERT INTO ab SELECT 'h' || (i % 3) || '#' || i, 'm', 'lat', '2026-01-01'::timestamptz + i * interval '7 s',
       int8send(1000 + i * 13 % 997) FROM generate_series(1, 300) i;

-- the reads, through the merger (the write area, not frozen)
CREATE TEMP TABLE ri AS SELECT row_key, family, qualifier, ts, value FROM ai WHERE family <> 'old';
CREATE TEMP TABLE rf AS SELECT row_key, family, qualifier, ts, value FROM af;
CREATE TEMP TABLE rb AS SELECT row_key, family, qualifier, ts,
       CASE WHEN family = 'u' THEN wide.hll_count(value)::float8
            WHEN qualifier LIKE '%ddsketch' OR family = 'p' THEN wide.quantile(value, 0.9)
            ELSE length(value) END AS v FROM ab;
SELECT count(*), sum(value) FROM ai WHERE family = 'old';
SELECT (SELECT count(*) FROM ri) AS ri, (SELECT count(*) FROM rf) AS rf, (SELECT count(*) FROM rb) AS rb;

SELECT FROM wide.compact('ai', major => true);
SELECT FROM wide.compact('af', major => true);
SELECT FROM wide.compact('ab', major => true);
VACUUM (FREEZE) ai; VACUUM (FREEZE) af; VACUUM (FREEZE) ab;
SELECT count(*) AS runs FROM wide.runs('ai');
SELECT count(*) AS runs FROM wide.runs('ab');

-- the same reads, from the one frozen run
SELECT count(*) AS ai_differ FROM (
  (SELECT * FROM ri EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM ai WHERE family <> 'old')
  UNION ALL
  (SELECT row_key, family, qualifier, ts, value FROM ai WHERE family <> 'old' EXCEPT ALL SELECT * FROM ri)) d;
SELECT count(*) AS af_differ FROM (
  (SELECT * FROM rf EXCEPT ALL SELECT * FROM af) UNION ALL (SELECT * FROM af EXCEPT ALL SELECT * FROM rf)) d;
SELECT count(*) AS ab_differ FROM (
  (SELECT * FROM rb EXCEPT ALL
   SELECT row_key, family, qualifier, ts,
          CASE WHEN family = 'u' THEN wide.hll_count(value)::float8
               WHEN qualifier LIKE '%ddsketch' OR family = 'p' THEN wide.quantile(value, 0.9)
               ELSE length(value) END FROM ab)
  UNION ALL
  (SELECT row_key, family, qualifier, ts,
          CASE WHEN family = 'u' THEN wide.hll_count(value)::float8
               WHEN qualifier LIKE '%ddsketch' OR family = 'p' THEN wide.quantile(value, 0.9)
               ELSE length(value) END FROM ab
   EXCEPT ALL SELECT * FROM rb)) d;
-- a cell past its family's max_age is not read
SELECT count(*), sum(value) FROM ai WHERE family = 'old';
-- value predicates, key ranges, the row form's and aggregate's paths
SELECT row_key, qualifier, value FROM ai WHERE family = 's' AND value > 45 ORDER BY 1, 2;
SELECT (SELECT sum(value) FROM ai WHERE family = 's') = (SELECT sum(value) FROM ri WHERE family = 's') AS sums_equal,
       (SELECT count(*) FROM ai WHERE row_key >= 'r2' AND row_key < 'r4') =
       (SELECT count(*) FROM ri WHERE row_key >= 'r2' AND row_key < 'r4') AS range_equal;
SELECT row_key, value FROM af WHERE row_key = 'single';
SELECT row_key, wide.quantile(value, 0.5) FROM ab WHERE row_key = 'lone';
SELECT * FROM wide.verify('ai');
DROP TABLE ai, af, ab;
