-- Parallel scans of a row form: the leader cuts the scan's key ranges into
-- stretches (here many small ones: small blocks, one block a stretch), the
-- participants read their share of each stretch they claim.  A time
-- window over all hosts is a skip scan whose windows begin inside
-- stretches; whole key ranges, IN lists and a salted form too.  Every
-- answer is compared with a heap table holding the same readings.
SET timezone = 'UTC';
SET wide.block_size = 1024;
CREATE TABLE pc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('pc', 'm', max_versions => 1);
SELECT wide.create_family('pc', 's', max_versions => 1);
CREATE FOREIGN TABLE prow (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL, a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'pc', family 'm', key 'host,time');
CREATE FOREIGN TABLE psalt (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL, a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'pc', family 's', key 'host,time', salt '3');
CREATE TABLE pheap AS
  SELECT '2020-01-01'::timestamptz + make_interval(mins => t) AS time, h AS host,
         (t * 7 % 1000)::float8 AS a, CASE WHEN t % 3 = 0 THEN NULL ELSE h::float8 END AS b
    FROM generate_series(0, 719) t, generate_series(0, 19) h;
INSERT INTO prow SELECT * FROM pheap ORDER BY time, host;
INSERT INTO psalt SELECT * FROM pheap ORDER BY time, host;
SELECT FROM wide.compact('pc', major => true);
-- some rows left in the write area
INSERT INTO prow SELECT time + interval '1 day', host, a, b FROM pheap WHERE time < '2020-01-01 00:30' AND host % 4 = 0;
INSERT INTO psalt SELECT time + interval '1 day', host, a, b FROM pheap WHERE time < '2020-01-01 00:30' AND host % 4 = 0;
INSERT INTO pheap SELECT time + interval '1 day', host, a, b FROM pheap WHERE time < '2020-01-01 00:30' AND host % 4 = 0;
ANALYZE pheap; ANALYZE prow; ANALYZE psalt;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET wide.parallel_stretch_blocks = 1;
SET wide.enable_aggregate_pushdown = off;
SET enable_hashagg = off;

-- rows in one and not the other (both ways)
CREATE FUNCTION differs(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((%s EXCEPT ALL %s) UNION ALL (%s EXCEPT ALL %s)) d',
                 q, replace(q, 'prow', 'pheap'), replace(q, 'prow', 'pheap'), q) INTO n;
  RETURN n;
END $$;
-- rows the scan returned that its own key conditions exclude (a skip scan
-- reads each host's window only: none)
CREATE FUNCTION outside(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE line text; n bigint := 0;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Rows Removed by Filter' THEN n := n + substring(line from '(\d+)$')::bigint; END IF;
  END LOOP;
  RETURN n;
END $$;
CREATE FUNCTION parallel(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'Parallel Foreign Scan' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;

EXPLAIN (costs off) SELECT host, count(*), sum(a) FROM prow WHERE time >= '2020-01-01 05:00' AND time < '2020-01-01 06:40' GROUP BY host;
SELECT q, parallel(q), differs(q), differs(replace(q, 'prow', 'psalt')) AS salted
  FROM unnest(ARRAY[
    'SELECT * FROM prow',
    $$SELECT host, count(*), sum(a), max(b) FROM prow WHERE time >= '2020-01-01 05:00' AND time < '2020-01-01 06:40' GROUP BY host$$,
    $$SELECT * FROM prow WHERE time >= '2020-01-01 11:00' AND time < '2020-01-01 11:05'$$,
    $$SELECT * FROM prow WHERE time >= '2020-01-01 00:00:30'$$,
    $$SELECT * FROM prow WHERE host IN (2, 3, 17) AND time < '2020-01-01 09:00'$$,
    $$SELECT * FROM prow WHERE host BETWEEN 5 AND 9 AND b > 6$$,
    $$SELECT host, count(*) FROM prow WHERE a > 900 GROUP BY host$$]) q;
SELECT outside($$SELECT host, count(*), sum(a), max(b) FROM prow WHERE time >= '2020-01-01 05:00' AND time < '2020-01-01 06:40' GROUP BY host$$),
       outside($$SELECT host, count(*), sum(a), max(b) FROM psalt WHERE time >= '2020-01-01 05:00' AND time < '2020-01-01 06:40' GROUP BY host$$),
       outside($$SELECT count(*) FROM prow WHERE time >= '2020-01-01 11:00' AND time < '2020-01-01 11:05'$$);

-- GROUP BY inside a parallel scan: each participant's groups with partial
-- aggregates (avg's state {N, Sx, Sxx}), combined above Gather
SET wide.enable_aggregate_pushdown = on;
EXPLAIN (costs off) SELECT host, count(*), sum(a), avg(b), min(time), max(a) FROM prow GROUP BY host;
SELECT q, parallel(q), differs(q), differs(replace(q, 'prow', 'psalt')) AS salted
  FROM unnest(ARRAY[
    'SELECT host, count(*), sum(a), avg(b), min(time), max(a) FROM prow GROUP BY host',
    $$SELECT date_trunc('hour', time), count(b), avg(a) FROM prow WHERE time >= '2020-01-01 05:00' GROUP BY 1$$,
    'SELECT count(*), avg(a), sum(b), max(time) FROM prow']) q;

DROP FOREIGN TABLE prow, psalt;
DROP TABLE pc, pheap;
DROP FUNCTION differs(text), parallel(text), outside(text);
