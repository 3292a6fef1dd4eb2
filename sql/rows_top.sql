-- The latest groups (TSBS's groupby-orderby-limit): GROUP BY the time of a
-- row form, or date_trunc of it, ORDER BY it DESC LIMIT n, with the time
-- bounded from above.  The scan folds a window before the bound, widened
-- until n groups are whole, instead of every row before it (EXPLAIN: Top
-- Groups, and under ANALYZE the windows folded).  Every answer is compared,
-- in order, with a heap holding the same readings.
SET timezone = 'UTC';
CREATE TABLE tc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('tc', 'm', max_versions => 1);
SELECT wide.create_family('tc', 's', max_versions => 1);
CREATE FOREIGN TABLE trow (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL, a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'tc', family 'm', key 'host,time');
CREATE FOREIGN TABLE tsalt (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL, a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'tc', family 's', key 'host,time', salt '4');
-- a reading every 30 s from 12 hosts, 2020-01-01 00:00 to 12:00, but none
-- between 06:00 and 09:00, and a few on 2020-01-03
CREATE TABLE theap AS
  SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 30) AS time, h AS host,
         (t * 7 % 1000)::float8 AS a, CASE WHEN t % 5 = 0 THEN NULL ELSE (h * t % 97)::float8 END AS b
    FROM generate_series(0, 1439) t, generate_series(1, 12) h
   WHERE t NOT BETWEEN 720 AND 1079
  UNION ALL
  SELECT '2020-01-03 10:00'::timestamptz + make_interval(mins => t), h, t, h
    FROM generate_series(0, 2) t, generate_series(1, 3) h;
INSERT INTO trow SELECT * FROM theap ORDER BY time, host;
INSERT INTO tsalt SELECT * FROM theap ORDER BY time, host;
SELECT FROM wide.compact('tc', major => true);
ANALYZE trow; ANALYZE tsalt; ANALYZE theap;

-- the same rows, in the same order, as the heap's
CREATE FUNCTION same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a text; b text;
BEGIN
  EXECUTE 'SELECT string_agg(x::text, '' '') FROM (' || q || ') x' INTO a;
  EXECUTE 'SELECT string_agg(x::text, '' '') FROM (' || replace(q, 'trow', 'theap') || ') x' INTO b;
  RETURN a IS NOT DISTINCT FROM b;
END $$;
CREATE FUNCTION windows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; out text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Top Groups|Windows|Rows Folded' THEN out := out || btrim(line) || ' '; END IF;
  END LOOP;
  RETURN btrim(out);
END $$;

EXPLAIN (costs off)
SELECT date_trunc('minute', time) AS minute, max(a) FROM trow
 WHERE time < '2020-01-01 05:34:56' GROUP BY minute ORDER BY minute DESC LIMIT 5;
SELECT date_trunc('minute', time) AS minute, max(a) FROM trow
 WHERE time < '2020-01-01 05:34:56' GROUP BY minute ORDER BY minute DESC LIMIT 5;

SELECT q, same(q), windows(q), same(replace(q, 'trow', 'tsalt')) AS salted
  FROM unnest(ARRAY[
    -- one window
    $$SELECT date_trunc('minute', time) AS m, max(a) FROM trow WHERE time < '2020-01-01 05:34:56' GROUP BY m ORDER BY m DESC LIMIT 5$$,
    -- the gap: widened until five minutes are whole
    $$SELECT date_trunc('minute', time) AS m, count(*), sum(b) FROM trow WHERE time < '2020-01-01 07:30' GROUP BY m ORDER BY m DESC LIMIT 5$$,
    -- hours, days: wider windows; fewer groups than the limit: every row
    $$SELECT date_trunc('hour', time) AS h, count(*), avg(a), min(b) FROM trow WHERE time <= '2020-01-01 10:00' GROUP BY h ORDER BY h DESC LIMIT 4$$,
    $$SELECT date_trunc('day', time) AS d, count(*), max(time) FROM trow WHERE time < '2020-01-04' GROUP BY d ORDER BY d DESC LIMIT 5$$,
    -- the time itself, with another condition, and an OFFSET
    $$SELECT time, count(*), sum(a) FROM trow WHERE time < '2020-01-01 00:10' AND host < 3 GROUP BY time ORDER BY time DESC LIMIT 7$$,
    $$SELECT date_trunc('minute', time) AS m, min(a) FROM trow WHERE time < '2020-01-01 12:00' GROUP BY m ORDER BY m DESC LIMIT 2 OFFSET 3$$,
    -- nothing below the bound; the bound above the data
    $$SELECT date_trunc('minute', time) AS m, min(a) FROM trow WHERE time < '2019-06-01' GROUP BY m ORDER BY m DESC LIMIT 3$$,
    $$SELECT date_trunc('minute', time) AS m, count(*) FROM trow WHERE time < '2021-01-01' GROUP BY m ORDER BY m DESC LIMIT 3$$]) q;

-- a parameter as the bound (a generic plan), and a rescan per outer row
SET plan_cache_mode = force_generic_plan;
PREPARE latest(timestamptz) AS
  SELECT date_trunc('minute', time) AS m, count(*), max(a) FROM trow WHERE time < $1 GROUP BY m ORDER BY m DESC LIMIT 3;
EXPLAIN (costs off) EXECUTE latest('2020-01-01 03:00');
EXECUTE latest('2020-01-01 03:00');
EXECUTE latest('2020-01-01 08:00');
RESET plan_cache_mode;
SELECT h, (SELECT string_agg(m::text || '=' || n, ', ') FROM
            (SELECT date_trunc('hour', time) AS m, count(*) AS n FROM trow
              WHERE host = h AND time < '2020-01-01 10:30' GROUP BY m ORDER BY m DESC LIMIT 2) s) AS latest
  FROM generate_series(1, 4) h;

DROP FOREIGN TABLE trow, tsalt;
DROP TABLE tc, theap;
DROP FUNCTION same(text), windows(text);
