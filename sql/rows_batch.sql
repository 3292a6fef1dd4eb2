-- The row form reads a plain run (one frozen run without tombstones) a
-- block at a time: the keys, then the values, into rows of 8-byte values
-- (WideReaderRowBatch), a scan filter tested on them before a row is
-- assembled.  Every answer is compared with a heap holding the same
-- readings; the batches must read the cells the record path reads (Cells
-- Read), with rows continued across blocks, older versions of a column,
-- qualifiers without a column, and another family's cells among them.
SET timezone = 'UTC';
CREATE TABLE bc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('bc', 'm');
SELECT wide.create_family('bc', 'o');
CREATE FOREIGN TABLE brow (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL,
                           a float8, b float8, c float8, d float8)
  SERVER wide_rows OPTIONS (cells 'bc', family 'm', key 'host,time');
-- 6 hosts x 800 readings at 10 s; b missing from every 7th, c from every 3rd
CREATE TABLE bheap AS
  SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 10) AS time, h AS host,
         (t * 7 % 101)::float8 AS a,
         CASE WHEN t % 7 = 0 THEN NULL ELSE (h * t % 89)::float8 END AS b,
         CASE WHEN t % 3 = 0 THEN NULL ELSE (t % 13)::float8 - 6 END AS c,
         (h + t)::float8 / 4 AS d
    FROM generate_series(0, 799) t, generate_series(1, 6) h;
INSERT INTO brow SELECT * FROM bheap ORDER BY time, host;
-- older versions of a (the newest is the row's), a qualifier the form has
-- no column for, and cells of another family, in some rows
INSERT INTO bc SELECT lpad(host::text, 3, '0') || '#' || extract(epoch FROM time)::bigint,
                      'm', 'a', '2019-06-01', -1
  FROM bheap WHERE extract(epoch FROM time)::bigint % 50 = 0;
INSERT INTO bc SELECT lpad(host::text, 3, '0') || '#' || extract(epoch FROM time)::bigint,
                      'm', 'a_extra', time, 7
  FROM bheap WHERE extract(epoch FROM time)::bigint % 30 = 0;
INSERT INTO bc SELECT lpad(host::text, 3, '0') || '#' || extract(epoch FROM time)::bigint,
                      'o', 'a', time, 5
  FROM bheap WHERE extract(epoch FROM time)::bigint % 40 = 0;
-- a row only the other family and the extra qualifier have: no reading
INSERT INTO bc VALUES ('003#1577836805', 'o', 'a', '2020-01-01', 1),
                      ('003#1577836805', 'm', 'a_extra', '2020-01-01', 1);
SELECT FROM wide.compact('bc', major => true);
SELECT count(*) AS runs FROM wide.runs('bc');

CREATE FUNCTION same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE x text; y text;
BEGIN
  EXECUTE 'SELECT string_agg(r::text, '' '') FROM (' || q || ') r' INTO x;
  EXECUTE 'SELECT string_agg(r::text, '' '') FROM (' || replace(q, 'brow', 'bheap') || ') r' INTO y;
  RETURN x IS NOT DISTINCT FROM y;
END $$;
-- the scan's counters under EXPLAIN (ANALYZE, VERBOSE)
CREATE FUNCTION counters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Cells Read|Rows Removed by Scan Filter|Decoded in Batches' THEN
      RETURN NEXT regexp_replace(line, '^ *', '');
    END IF;
  END LOOP;
END $$;

-- every column (the other family's cells are stepped over)
SELECT same('SELECT * FROM brow ORDER BY host, time');
-- some columns (of the others, a row's first cell only says it exists)
SELECT same('SELECT host, time, c FROM brow ORDER BY host, time');
SELECT same('SELECT count(*), count(b), count(c), sum(d) FROM brow');
-- a scan filter on the batch's values, with and without others
SELECT same('SELECT * FROM brow WHERE a > 90 ORDER BY host, time');
SELECT same('SELECT host, time, b FROM brow WHERE c < -4 ORDER BY host, time');
SELECT same('SELECT * FROM brow WHERE a > 50 AND b <= 10 ORDER BY host, time');
SELECT same('SELECT * FROM brow WHERE 95 < a OR c = 6 ORDER BY host, time');
-- a time window over every host (a skip scan: a window per host)
SELECT same($q$SELECT * FROM brow WHERE time >= '2020-01-01 00:30' AND time < '2020-01-01 01:45' ORDER BY host, time$q$);
SELECT same($q$SELECT * FROM brow WHERE a > 80 AND time >= '2020-01-01 00:30' AND time < '2020-01-01 01:45' ORDER BY host, time$q$);
SELECT same($q$SELECT host, time FROM brow WHERE host IN (2, 5) AND time < '2020-01-01 00:20' ORDER BY host, time$q$);
-- GROUP BY inside the scan
SELECT same($q$SELECT host, date_trunc('hour', time) AS h, avg(a), max(b), min(c), count(*) FROM brow GROUP BY 1, 2 ORDER BY 1, 2$q$);
SELECT same($q$SELECT date_trunc('hour', time) AS h, max(d) FROM brow WHERE time >= '2020-01-01 01:00' GROUP BY 1 ORDER BY 1$q$);

-- the cells read are those of the record path: every record of a, b, c, d
-- (older versions too); with c alone, c's, and of the others a row's first
-- (a's newest: a row's first cell says it exists)
SELECT * FROM counters('SELECT * FROM brow');
SELECT count(*) FROM bc WHERE family = 'm' AND qualifier IN ('a', 'b', 'c', 'd');
SELECT * FROM counters('SELECT host, time, c FROM brow');
SELECT (SELECT count(*) FROM bc WHERE family = 'm' AND qualifier = 'c') +
       (SELECT count(*) FROM bheap) AS cells;
SELECT * FROM counters('SELECT * FROM brow WHERE a > 90');
SELECT count(*) FROM bheap WHERE NOT a > 90;

-- rows written after the compaction: two runs, read merged (no batches)
INSERT INTO brow VALUES ('2020-01-01', 7, 1, 2, 3, 4);
INSERT INTO bheap VALUES ('2020-01-01', 7, 1, 2, 3, 4);
SELECT same('SELECT * FROM brow WHERE a > 90 ORDER BY host, time');
SELECT * FROM counters('SELECT * FROM brow WHERE a > 90');

-- a block of rows of one cell each: batches end after 1024 rows (their
-- memory is rows x columns) and the next goes on from the row after
CREATE TABLE nc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('nc', 'm');
CREATE FOREIGN TABLE nrow (id int4 OPTIONS (width '6') NOT NULL, x float8)
  SERVER wide_rows OPTIONS (cells 'nc', family 'm', key 'id');
INSERT INTO nrow SELECT i, i % 97 FROM generate_series(1, 20000) i;
SELECT FROM wide.compact('nc', major => true);
SELECT count(*), sum(x), count(*) FILTER (WHERE x > 90), min(id), max(id) FROM nrow;
SELECT count(*), sum(id) FROM nrow WHERE x > 90;
SELECT * FROM counters('SELECT * FROM nrow WHERE x > 90');
DROP FOREIGN TABLE nrow;
DROP TABLE nc;

DROP FUNCTION counters(text);
DROP FUNCTION same(text);
DROP FOREIGN TABLE brow;
DROP TABLE bc, bheap;
