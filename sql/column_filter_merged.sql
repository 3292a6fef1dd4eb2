-- Family and qualifier conditions read only the wanted columns' records,
-- also where runs are merged (aggregate families are never read as one
-- plain run): a rejected column's records are stepped over in their block
-- (Records Merged counts the wanted ones), and a version that is one
-- accumulator (MERGE) alone is returned as its bytes, unfolded.  Each
-- filtered read is compared with the same read filtered after the scan
-- (qualifier || '' is not pushed down), over a compacted run, a newer run
-- and the write area, with accumulators of one version in several runs.
SET wide.compaction_pass_through = on;
CREATE TABLE mf (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('mf', 's', aggregate => 'sum');
SELECT wide.create_family('mf', 'x', aggregate => 'max');
SELECT wide.create_family('mf', 'p');
INSERT INTO mf SELECT 'r' || (i % 3), f, 'q' || (i % 2), i % 5, i
  FROM generate_series(1, 60) i, unnest('{s,x,p}'::text[]) f;
SELECT FROM wide.compact('mf', true);
-- the compacted run: one MERGE per version of s and x
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM mf WHERE row_key IN ('r0', 'r1', 'r2') AND family = 's' AND qualifier = 'q1';
-- a newer run: accumulators of versions the old run has (two MERGEs of one
-- version, the newer one first), and inputs of new ones
SELECT wide.merge_to_cell('mf', 'r1', 's', 'q1', 1, 1000), wide.merge_to_cell('mf', 'r1', 'x', 'q1', 1, 7000);
SELECT wide.add_to_cell('mf', 'r1', 's', 'q1', 9, 5);
SELECT FROM wide.compact('mf');
-- the write area: an input and an accumulator of old versions, a tombstone
INSERT INTO mf VALUES ('r2', 's', 'q1', 3, 100000), ('r2', 'x', 'q0', 3, -1);
SELECT wide.merge_to_cell('mf', 'r0', 's', 'q0', 4, 20);
SELECT wide.delete_cells('mf', 'r0', 's', 'q1', 2, 3);
SELECT count(*) AS runs FROM wide.runs('mf');
CREATE TEMP TABLE want AS
SELECT f, q, (SELECT coalesce(string_agg(row_key || '/' || ts || '=' || value, ' ' ORDER BY row_key, ts), '')
                FROM mf WHERE family || '' = f AND qualifier || '' = q) AS cells
  FROM unnest('{s,x,p}'::text[]) f, unnest('{q0,q1}'::text[]) q;
SELECT f, q, cells FROM want ORDER BY 1, 2;
-- each column alone, by family and qualifier pushed down: the same cells
SELECT w.f, w.q, w.cells = (SELECT coalesce(string_agg(row_key || '/' || ts || '=' || value, ' ' ORDER BY row_key, ts), '')
                              FROM mf WHERE family = w.f AND qualifier = w.q) AS same
  FROM want w ORDER BY 1, 2;
-- both qualifiers of a family, a point read, a range
SELECT (SELECT string_agg(row_key || '/' || qualifier || '/' || ts || '=' || value, ' ' ORDER BY row_key, qualifier, ts)
          FROM mf WHERE family = 's' AND qualifier IN ('q0', 'q1'))
     = (SELECT string_agg(row_key || '/' || qualifier || '/' || ts || '=' || value, ' ' ORDER BY row_key, qualifier, ts)
          FROM mf WHERE family || '' = 's') AS same_both;
SELECT * FROM mf WHERE row_key = 'r1' AND family = 'x' AND qualifier = 'q1' ORDER BY ts;
SELECT * FROM mf WHERE row_key >= 'r1' AND family = 's' AND qualifier = 'q1' ORDER BY row_key, ts;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM mf WHERE row_key IN ('r0', 'r1', 'r2') AND family = 's' AND qualifier = 'q1';

-- sketches: a rollup's ddsketch cells read without its count cells, one
-- sketch per version as stored, and the versions of h1 at 10 and 20 s
-- folded from two runs (the second load's readings of 1000)
CREATE TABLE ms (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('ms', 'm');
SELECT wide.create_family('ms', 'p', rollup => '{"source": "m", "bucket": 10, "functions": ["count", "ddsketch"], "key_parts": 1}');
INSERT INTO ms SELECT 'h' || (i % 2) || '#' || i, 'm', 'lat', i * 1000000, int8send((i * 37 % 101)::int8)
  FROM generate_series(1, 200) i;
SELECT FROM wide.compact('ms', true);
INSERT INTO ms SELECT 'h1#x' || i, 'm', 'lat', i * 1000000, int8send(1000) FROM generate_series(5, 24) i;
SELECT FROM wide.compact('ms');
SELECT count(*) AS runs FROM wide.runs('ms');
SELECT row_key, ts, wide.quantile(value, 0.5) AS p50, wide.quantile(value, 0.99) AS p99,
       wide.ddsketch_count(value) AS n
  FROM ms WHERE row_key IN ('h0', 'h1') AND family = 'p' AND qualifier = 'lat:ddsketch' AND ts < 40000000
 ORDER BY 1, 2;
SELECT (SELECT array_agg(value ORDER BY row_key, ts) FROM ms WHERE family = 'p' AND qualifier = 'lat:ddsketch')
     = (SELECT array_agg(value ORDER BY row_key, ts) FROM ms WHERE family || '' = 'p' AND qualifier || '' = 'lat:ddsketch')
       AS same_sketches;
-- each cell is the sketch of its bucket's readings (folded or not)
SELECT count(*) AS buckets, bool_and(c.value = r.sk) AS exact
  FROM (SELECT row_key, ts, value FROM ms WHERE row_key IN ('h0', 'h1') AND family = 'p'
           AND qualifier = 'lat:ddsketch') c
  JOIN (SELECT split_part(row_key, '#', 1) AS h, ts / 10000000 * 10000000 AS b,
               wide.ddsketch_agg(('x' || encode(value, 'hex'))::bit(64)::int8::float8) AS sk
          FROM ms WHERE family = 'm' GROUP BY 1, 2) r ON r.h = c.row_key AND r.b = c.ts;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT wide.quantile(value, 0.99) FROM ms WHERE row_key IN ('h0', 'h1') AND family = 'p' AND qualifier = 'lat:ddsketch';
-- a malformed sketch is still refused by wide.quantile (it checks as it reads)
SELECT wide.quantile('\x44010100ff'::bytea, 0.5);
SELECT wide.quantile('\x4401010000020204'::bytea, 0.5);
DROP TABLE mf, ms;
