--
-- reverse_scan: ORDER BY row_key DESC [, family DESC, qualifier DESC, ts]
-- is a backward Wide Scan (engine/reverse.c): no Sort, only the end of the
-- range read, key bounds, IN lists and LIKE prefixes pushed down as for
-- forward scans, parameters and rescans working.
--
-- Issue 11 (reverse scans): the latest row of a key range was a key range
-- and a top-N Sort of all of it.
--
\set SHOW_CONTEXT never
SET wide.block_size = 1024;
CREATE TABLE rv (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('rv', 'm');
SELECT wide.create_family('rv', 'n', max_versions => 1);
-- 20 hosts x 50 minutes x 3 metrics, compacted into one run
INSERT INTO rv SELECT 'host' || h || '#' || (1000 + mi), 'm', 'metric' || q, mi, h * mi * q
  FROM generate_series(1, 20) h, generate_series(0, 49) mi, generate_series(1, 3) q;
SELECT FROM wide.compact('rv', true);
-- a newer run and the write area
INSERT INTO rv VALUES ('host7#1050', 'm', 'metric1', 50, 'run'),
                      ('host7#1051', 'n', 'x', 1, 'old');
SELECT FROM wide.compact('rv');
INSERT INTO rv VALUES ('host7#1051', 'n', 'x', 2, 'new'),
                      ('host7#1052', 'm', 'metric2', 52, 'wa');

-- the latest rows of a host: backward, no sort
EXPLAIN (COSTS OFF)
SELECT * FROM rv WHERE row_key >= 'host7#' AND row_key < 'host7$' ORDER BY row_key DESC LIMIT 4;
SELECT * FROM rv WHERE row_key >= 'host7#' AND row_key < 'host7$' ORDER BY row_key DESC, family DESC, qualifier DESC, ts LIMIT 6;
SELECT * FROM rv WHERE row_key LIKE 'host7#%' ORDER BY row_key DESC, family DESC, qualifier DESC, ts LIMIT 6;
-- two runs and the write area: one block of each run, whatever the range
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM rv WHERE row_key < 'host8' ORDER BY row_key DESC LIMIT 1;
-- a compacted range: the first window is the last row of one block
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM rv WHERE row_key LIKE 'host3#%' ORDER BY row_key DESC LIMIT 3;
SELECT row_key, qualifier, value FROM rv WHERE row_key LIKE 'host3#%' ORDER BY row_key DESC, family DESC, qualifier DESC LIMIT 3;
-- the full reverse order needs no sort either; a mixed one sorts only within rows
EXPLAIN (COSTS OFF)
SELECT * FROM rv WHERE row_key < 'host2' ORDER BY row_key DESC, family DESC, qualifier DESC, ts LIMIT 5;
EXPLAIN (COSTS OFF)
SELECT * FROM rv WHERE row_key < 'host2' ORDER BY row_key DESC, qualifier LIMIT 5;
SELECT row_key, qualifier FROM rv WHERE row_key < 'host2' ORDER BY row_key DESC, qualifier LIMIT 5;
-- IN lists: the keys backwards
EXPLAIN (COSTS OFF)
SELECT row_key, qualifier FROM rv WHERE row_key IN ('host1#1000', 'host9#1049', 'host10#1001', 'nope') ORDER BY row_key DESC;
SELECT row_key, qualifier FROM rv WHERE row_key IN ('host1#1000', 'host9#1049', 'host10#1001', 'nope') ORDER BY row_key DESC, family DESC, qualifier DESC;
-- the whole table, backwards, equals the forward order reversed
SELECT (SELECT array_agg(row(row_key, family, qualifier, ts, value)::text ORDER BY row_key DESC, family DESC, qualifier DESC, ts) FROM rv)
     = (SELECT array_agg(x ORDER BY n DESC) FROM
          (SELECT row(row_key, family, qualifier, ts, value)::text, row_number() OVER ()
             FROM (SELECT * FROM rv ORDER BY row_key, family, qualifier, ts DESC) o) s(x, n)) AS reversed;
SELECT count(*) FROM (SELECT * FROM rv ORDER BY row_key DESC) s;
-- deleted rows and columns are skipped, whichever window they fall in
SELECT wide.delete_row('rv', 'host7#1052');
SELECT wide.delete_cells('rv', 'host7#1051', 'n', 'x');
DELETE FROM rv WHERE row_key = 'host7#1049';
SELECT row_key, family, qualifier, value FROM rv WHERE row_key LIKE 'host7#%' ORDER BY row_key DESC, family DESC, qualifier DESC LIMIT 5;
-- parameters (a generic plan) and rescans (the inner side of a nested loop)
PREPARE latest(text) AS
  SELECT row_key, qualifier FROM rv WHERE row_key LIKE $1 || '#%' ORDER BY row_key DESC, family DESC, qualifier DESC LIMIT 2;
PREPARE latest_range(text, text) AS
  SELECT row_key, qualifier FROM rv WHERE row_key >= $1 AND row_key < $2 ORDER BY row_key DESC, family DESC, qualifier DESC LIMIT 2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE latest_range('host5#', 'host5$');
EXECUTE latest_range('host5#', 'host5$');
EXECUTE latest_range('host6#', 'host6$');
EXECUTE latest('host12');
RESET plan_cache_mode;
SELECT h, x.* FROM (VALUES ('host11'), ('host2'), ('nope')) v(h),
  LATERAL (SELECT row_key, qualifier FROM rv WHERE row_key >= h || '#' AND row_key < h || '$'
           ORDER BY row_key DESC, family DESC, qualifier DESC LIMIT 2) x;
-- a cursor read backwards and forwards (no backward fetch: materialized)
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT row_key, qualifier FROM rv WHERE row_key LIKE 'host4#%' ORDER BY row_key DESC LIMIT 4;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
COMMIT;
DROP TABLE rv;
-- The end of a prefix range often falls between two blocks (the host's
-- last row ends a block): the first window is still that last row, not the
-- whole block before it (it may open the next block to see that the range
-- ends there).  Small blocks, so that many hosts end one.
SET wide.block_size = 1024;
CREATE TABLE rb (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rb', 'm');
INSERT INTO rb SELECT 'h' || h || '#' || (1000 + r), 'm', 'q' || q, to_timestamp(r), h * r + q
  FROM generate_series(1, 60) h, generate_series(1, 20) r, generate_series(1, 3) q;
SELECT FROM wide.compact('rb', major => true);
CREATE FUNCTION rb_read(h int, OUT blocks int, OUT records int) LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
      SELECT * FROM rb WHERE row_key >= %L AND row_key < %L ORDER BY row_key DESC LIMIT 3',
      'h' || h || '#', 'h' || h || '$') LOOP
    IF l ~ 'Blocks Read' THEN blocks := substring(l from '\d+')::int; END IF;
    IF l ~ 'Records Merged' THEN records := substring(l from '\d+')::int; END IF;
  END LOOP;
END $$;
SELECT count(*) AS hosts, count(*) FILTER (WHERE blocks <= 2 AND records = 3) AS one_row_read
  FROM generate_series(1, 60) h, LATERAL rb_read(h);
-- and the answer is the host's last row
SELECT row_key, qualifier, value FROM rb WHERE row_key >= 'h17#' AND row_key < 'h17$' ORDER BY row_key DESC LIMIT 3;
-- "as of": an exclusive end at an existing row (the latest row before a
-- minute).  The first window is the row below it, not an empty window
-- (the row at the end counted as one of its rows) and then the whole
-- block before.
CREATE FUNCTION rb_asof(h int, r int, OUT blocks int, OUT records int) LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
      SELECT * FROM rb WHERE row_key >= %L AND row_key < %L ORDER BY row_key DESC LIMIT 3',
      'h' || h || '#', 'h' || h || '#' || (1000 + r)) LOOP
    IF l ~ 'Blocks Read' THEN blocks := substring(l from '\d+')::int; END IF;
    IF l ~ 'Records Merged' THEN records := substring(l from '\d+')::int; END IF;
  END LOOP;
END $$;
SELECT count(*) AS reads, count(*) FILTER (WHERE blocks <= 2 AND records = 3) AS one_row_read
  FROM generate_series(1, 60, 7) h, generate_series(2, 20) r, LATERAL rb_asof(h, r);
SELECT row_key, qualifier, value FROM rb WHERE row_key >= 'h17#' AND row_key < 'h17#1012' ORDER BY row_key DESC LIMIT 3;
DROP FUNCTION rb_read, rb_asof;
DROP TABLE rb;
RESET wide.block_size;
