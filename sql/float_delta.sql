-- delta coded float8 values (blockpack.c, values' with exp 254): full
-- precision random walks in a tall-and-narrow layout and as versions of one
-- column, every special bit pattern (signed zeros, infinities, NaNs with
-- payloads and signs, subnormals), random bit patterns, integers in float8
-- beside a NaN, and short decimals beside a full-precision value; written
-- by INSERT, by text COPY and by binary COPY (which takes any 64 bits as a
-- float8), with deletes between them, compacted, and read back bit for bit
-- (float8send) like a heap copy, by scans and by point reads
SELECT setseed(0.26);
CREATE TABLE fd_heap (row_key text, family text, qualifier text, ts timestamptz,
                      value float8);
-- 30 hosts x 300 readings x 6 metrics, random walks at full precision
INSERT INTO fd_heap
  SELECT format('host_%s#%s', lpad(h::text, 2, '0'), 1451606400 + r * 10), 'cpu',
         'usage_' || m, to_timestamp(1451606400 + r * 10),
         50 + sum(random() - 0.5) OVER (PARTITION BY h, m ORDER BY r)
    FROM generate_series(1, 30) h, generate_series(1, 300) r, generate_series(1, 6) m;
-- versions of one column (family ver keeps them all)
INSERT INTO fd_heap
  SELECT 'sensor_' || s, 'ver', 'temp', to_timestamp(1451606400 + r),
         20 + sum(random() - 0.5) OVER (PARTITION BY s ORDER BY r) / 7
    FROM generate_series(1, 3) s, generate_series(1, 1500) r;
-- short decimals, and in some rows one full-precision value among them
INSERT INTO fd_heap
  SELECT format('mixed#%s', lpad(r::text, 4, '0')), 'cpu', 'm' || m, to_timestamp(1451606400 + r),
         CASE WHEN r % 97 = 0 AND m = 2 THEN pi() * r
              ELSE round((50 + 30 * sin(r / 50.0 + m))::numeric, 2)::float8 END
    FROM generate_series(1, 2000) r, generate_series(1, 4) m;

-- any 64 bits: int8 written by binary COPY, read back as float8
CREATE TABLE fd_bits (row_key text, family text, qualifier text, ts timestamptz,
                      value int8);
CREATE TEMP TABLE patterns AS
  SELECT i, ('x' || h)::bit(64)::int8 AS b
    FROM unnest(ARRAY['0000000000000000', '8000000000000000', '7ff0000000000000',
                      'fff0000000000000', '7ff8000000000000', 'fff8000000000000',
                      '7ff0000000000001', '7ff4000000000000', '7fffffffffffffff',
                      'ffffffffffffffff', '7ff8deadbeef0001', 'fff00000000000ff',
                      '0000000000000001', '800fffffffffffff', '000fffffffffffff',
                      '8000000000000001', '0010000000000000', '7fefffffffffffff',
                      'ffefffffffffffff', '3ff0000000000000', 'bff0000000000000',
                      '4059000000000000', '3ff0000000000001', '3fefffffffffffff'])
         WITH ORDINALITY AS p(h, i);
-- each pattern after each other in one column (differences of every sign
-- and size, 2^63 among them), in order, reversed, and at random
INSERT INTO fd_bits
  SELECT format('special#%s', lpad(n::text, 4, '0')), 'cpu', q, to_timestamp(1451606400 + n), b
    FROM (SELECT row_number() OVER () AS n, p1.b AS b1, p2.b AS b2
            FROM patterns p1, patterns p2, generate_series(1, 2)) s,
         LATERAL (VALUES ('a', b1), ('b', b2), ('c', CASE WHEN n % 2 = 0 THEN b1 ELSE b2 END)) v(q, b);
INSERT INTO fd_bits
  SELECT format('special#%s', lpad(n::text, 4, '0')), 'cpu', 'r',
         to_timestamp(1451606400 + n), (SELECT b FROM patterns ORDER BY random() LIMIT 1 OFFSET n % 1)
    FROM generate_series(1, 1152) n;
-- random bits, and random bits plus small steps
INSERT INTO fd_bits
  SELECT format('random#%s', lpad(n::text, 4, '0')), 'cpu', q, to_timestamp(1451606400 + n),
         CASE q WHEN 'x' THEN (floor(random() * 4294967296)::int8 << 32) |
                              floor(random() * 4294967296)::int8
                ELSE -4611686018427387904 + n * 3 END
    FROM generate_series(1, 1500) n, unnest(ARRAY['x', 'y']) q;
-- integers as float8 (many trailing zeros) with a NaN in every block
INSERT INTO fd_bits
  SELECT format('count#%s', lpad(n::text, 4, '0')), 'cpu', 'n',
         to_timestamp(1451606400 + n),
         CASE WHEN n % 200 = 0 THEN x'7ff8000000000000'::bit(64)::int8
              ELSE ('x' || encode(float8send((n * 1024)::float8), 'hex'))::bit(64)::int8 END
    FROM generate_series(1, 3000) n;
-- and random walks beside them, so that their blocks are delta coded too
INSERT INTO fd_bits
  SELECT row_key, 'cpu', 'w' || m, min(ts),
         ('x' || encode(float8send(50 + sum(random() - 0.5) OVER (PARTITION BY m ORDER BY row_key)), 'hex'))::bit(64)::int8
    FROM fd_bits, generate_series(1, 6) m
   WHERE row_key NOT LIKE 'count#%'
   GROUP BY row_key, m;
SELECT count(*) FROM fd_bits;
SELECT current_setting('data_directory') || '/float_delta_bits.bin' AS bits_file,
       current_setting('data_directory') || '/float_delta_ver.csv' AS ver_file \gset
COPY fd_bits TO :'bits_file' (FORMAT binary);
COPY fd_heap FROM :'bits_file' (FORMAT binary);
SELECT count(*) FILTER (WHERE value::text = 'NaN') AS nans,
       count(DISTINCT float8send(value)) FILTER (WHERE value::text = 'NaN') AS nan_patterns,
       count(*) FILTER (WHERE float8send(value) = '\x8000000000000000') AS negzeros
  FROM fd_heap;

CREATE TABLE fd_wide (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide;
SELECT wide.create_family('fd_wide', 'cpu');
SELECT wide.create_family('fd_wide', 'ver', max_versions => 100000);
-- the walks by INSERT, the versions by text COPY, the bits by binary COPY
INSERT INTO fd_wide SELECT * FROM fd_heap WHERE family = 'cpu' AND row_key NOT LIKE 'special#%'
                                           AND row_key NOT LIKE 'random#%' AND row_key NOT LIKE 'count#%';
COPY (SELECT * FROM fd_heap WHERE family = 'ver') TO :'ver_file' (FORMAT csv);
COPY fd_wide FROM :'ver_file' (FORMAT csv);
COPY fd_wide FROM :'bits_file' (FORMAT binary);
-- tombstones among the cells of the blocks
DELETE FROM fd_wide WHERE row_key LIKE 'host_03#%' AND qualifier = 'usage_2';
DELETE FROM fd_heap WHERE row_key LIKE 'host_03#%' AND qualifier = 'usage_2';
DELETE FROM fd_wide WHERE row_key = 'special#0100';
DELETE FROM fd_heap WHERE row_key = 'special#0100';

CREATE FUNCTION fd_diff() RETURNS TABLE (missing bigint, extra bigint, cells bigint)
LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM (SELECT row_key, family, qualifier, ts, float8send(value) FROM fd_heap
                                EXCEPT ALL
                                SELECT row_key, family, qualifier, ts, float8send(value) FROM fd_wide) d),
         (SELECT count(*) FROM (SELECT row_key, family, qualifier, ts, float8send(value) FROM fd_wide
                                EXCEPT ALL
                                SELECT row_key, family, qualifier, ts, float8send(value) FROM fd_heap) d),
         (SELECT count(*) FROM fd_wide)
$$;
SELECT * FROM fd_diff();
SELECT FROM wide.compact('fd_wide');
SELECT * FROM fd_diff();
SELECT FROM wide.compact('fd_wide', major => true);
SELECT runs FROM wide.stats('fd_wide');
SELECT * FROM fd_diff();
-- point reads land inside blocks (row directory seeks)
SELECT count(*) AS mismatches
  FROM fd_heap h, LATERAL (SELECT float8send(w.value) AS v FROM fd_wide w
                            WHERE w.row_key = h.row_key AND w.qualifier = h.qualifier
                              AND w.ts = h.ts) w
 WHERE h.row_key IN ('special#0007', 'special#0577', 'random#0999', 'count#0200',
                     'host_17#1451607400', 'mixed#0970')
   AND w.v IS DISTINCT FROM float8send(h.value);
SELECT count(*) FROM fd_wide WHERE row_key IN ('special#0007', 'special#0577', 'random#0999',
                                               'count#0200', 'host_17#1451607400', 'mixed#0970');
SELECT * FROM wide.verify('fd_wide');

-- the walks alone are stored in fewer bytes than their raw float8s
CREATE TABLE fd_walk (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide;
SELECT wide.create_family('fd_walk', 'cpu');
INSERT INTO fd_walk SELECT * FROM fd_heap WHERE row_key LIKE 'host_%';
SELECT FROM wide.compact('fd_walk', major => true);
-- 8.2 bytes per cell without the delta coding, 7.2 with it (format version
-- 4), 6.4 with Huffman coded residuals and row keys as digit steps (6)
SELECT stored_bytes::float8 / cells < 6.8 AS dense FROM wide.stats('fd_walk');
SELECT count(*) FROM (SELECT row_key, qualifier, ts, float8send(value) FROM fd_walk
                      EXCEPT ALL
                      SELECT row_key, qualifier, ts, float8send(value) FROM fd_heap
                       WHERE row_key LIKE 'host_%') d;

-- format version 6: readings as rows (key tags_id,time: row keys stepping
-- by ten seconds), six full-precision walks and four columns of special
-- values: the special patterns above in turn, alternating signs, equal
-- runs, subnormals; written through the row form, compacted, read back bit
-- for bit through the row form
CREATE TEMP TABLE fd_walks AS
  SELECT h, r, array_agg(w ORDER BY m) AS w
    FROM (SELECT h, r, m, 50 + sum(random() - 0.5) OVER (PARTITION BY h, m ORDER BY r) AS w
            FROM generate_series(1, 4) h, generate_series(1, 900) r, generate_series(1, 6) m) x
   GROUP BY h, r;
CREATE TEMP TABLE fd_special AS
  SELECT row_number() OVER (ORDER BY row_key, qualifier) AS n, value
    FROM fd_heap WHERE row_key LIKE 'special#%';
CREATE TABLE fd_rows_heap AS
  SELECT to_timestamp(1451606400 + f.r * 10) AS time, f.h AS tags_id,
         f.w[1] AS w1, f.w[2] AS w2, f.w[3] AS w3, f.w[4] AS w4, f.w[5] AS w5, f.w[6] AS w6,
         s.value AS sp,
         CASE WHEN f.r % 2 = 0 THEN -f.w[1] ELSE f.w[1] END AS alt,
         e.w[2] AS eq,
         4.9e-324 * ((f.r * 7919 + f.h) % 1000003) AS sub
    FROM fd_walks f
    JOIN fd_walks e ON e.h = f.h AND e.r = f.r - f.r % 7 + 1
    JOIN fd_special s ON s.n = 1 + (f.r * 4 + f.h) % (SELECT count(*) FROM fd_special);
SELECT count(*), count(*) FILTER (WHERE sp::text = 'NaN') AS nans,
       count(*) FILTER (WHERE float8send(sp) = '\x8000000000000000') AS negzeros,
       count(*) FILTER (WHERE sub > 0 AND sub < 2.2250738585072014e-308) AS subnormals
  FROM fd_rows_heap;
CREATE TABLE fd_rows_cells (row_key text, family text, qualifier text, ts timestamptz,
                            value float8) USING wide;
SELECT wide.create_family('fd_rows_cells', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE fd_rows (time timestamptz NOT NULL, tags_id int4 NOT NULL,
                              w1 float8, w2 float8, w3 float8, w4 float8, w5 float8,
                              w6 float8, sp float8, alt float8, eq float8, sub float8)
  SERVER wide_rows OPTIONS (cells 'fd_rows_cells', family 'cpu', key 'tags_id,time');
INSERT INTO fd_rows SELECT * FROM fd_rows_heap;
SELECT FROM wide.compact('fd_rows_cells', major => true);
CREATE FUNCTION fd_rows_diff() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*)
    FROM fd_rows_heap h FULL JOIN fd_rows r USING (tags_id, time)
   WHERE ROW(float8send(h.w1), float8send(h.w2), float8send(h.w3), float8send(h.w4),
             float8send(h.w5), float8send(h.w6), float8send(h.sp), float8send(h.alt),
             float8send(h.eq), float8send(h.sub))
         IS DISTINCT FROM
         ROW(float8send(r.w1), float8send(r.w2), float8send(r.w3), float8send(r.w4),
             float8send(r.w5), float8send(r.w6), float8send(r.sp), float8send(r.alt),
             float8send(r.eq), float8send(r.sub))
$$;
SELECT fd_rows_diff() AS mismatches, (SELECT count(*) FROM fd_rows) AS readings;
-- and after a major compaction of the compacted run
SELECT FROM wide.compact('fd_rows_cells', major => true);
SELECT fd_rows_diff() AS mismatches;
SELECT * FROM wide.verify('fd_rows_cells');
-- (6.1 bytes a cell; 7.1 in format version 5)
SELECT stored_bytes::float8 / cells < 6.6 AS dense FROM wide.stats('fd_rows_cells');
DROP FUNCTION fd_rows_diff();
DROP FOREIGN TABLE fd_rows;
DROP TABLE fd_rows_cells, fd_rows_heap;
DROP TABLE fd_wide, fd_walk, fd_heap, fd_bits;
DROP FUNCTION fd_diff();
