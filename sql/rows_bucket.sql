-- GROUP BY date_trunc('unit', time) inside the row form's scan computes
-- date_trunc once per bucket, not once per row, where the unit has one
-- length (microseconds to day) and the time is a timestamp, or a
-- timestamptz in a session time zone of one fixed UTC offset; in any
-- other zone (daylight saving, a zone's history) it is computed per row.
-- Every answer is compared with a heap holding the same readings, in zones
-- of both kinds, across a daylight-saving change (2016-11-06 in New York);
-- "Buckets Computed" counts date_trunc's calls for such an expression.
SET timezone = 'UTC';
CREATE TABLE bkc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('bkc', 'm');
CREATE FOREIGN TABLE bkrow (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL,
                           a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'bkc', family 'm', key 'host,time');
-- 3 hosts x 1,000 readings at 37 s (about 10 h, over the change at 06:00
-- UTC), b missing from every 5th; host 3 from the epoch on, at 7 s
CREATE TABLE bkheap AS
  SELECT '2016-11-06 01:00:00+00'::timestamptz + make_interval(secs => t * 37) AS time,
         h AS host, (t * 7 % 101)::float8 AS a,
         CASE WHEN t % 5 = 0 THEN NULL ELSE (h * t % 89)::float8 / 8 END AS b
    FROM generate_series(0, 999) t, generate_series(1, 2) h
  UNION ALL
  SELECT '1970-01-01 00:00:00+00'::timestamptz + make_interval(secs => t * 7), 3,
         t::float8, NULL
    FROM generate_series(0, 999) t;
INSERT INTO bkrow SELECT * FROM bkheap ORDER BY time, host;
SELECT FROM wide.compact('bkc', major => true);

CREATE FUNCTION bk_same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE x text; y text;
BEGIN
  EXECUTE 'SELECT string_agg(r::text, '' '' ORDER BY r::text) FROM (' || q || ') r' INTO x;
  EXECUTE 'SELECT string_agg(r::text, '' '' ORDER BY r::text) FROM (' || replace(q, 'bkrow', 'bkheap') || ') r' INTO y;
  RETURN x IS NOT DISTINCT FROM y AND x IS NOT NULL;
END $$;
CREATE FUNCTION bk_counters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Rows Folded|Groups:|Buckets Computed|Aggregate' THEN
      RETURN NEXT regexp_replace(line, '^ *', '');
    END IF;
  END LOOP;
END $$;

-- the group of each unit, in zones of one offset and of several
CREATE TABLE bk_units(u text);
INSERT INTO bk_units VALUES ('hour'), ('HOURS'), ('minute'), ('second'), ('milliseconds'),
  ('microseconds'), ('day'), ('week'), ('month');
CREATE TABLE bk_zones(z text);
INSERT INTO bk_zones VALUES ('UTC'), ('UTC+5:30'), ('Asia/Kolkata'), ('America/New_York'),
  ('Europe/London'), ('Asia/Kathmandu');
CREATE FUNCTION bk_all_same() RETURNS TABLE(zone text, unit text, ok boolean) LANGUAGE plpgsql AS $$
BEGIN
  FOR zone IN SELECT z FROM bk_zones LOOP
    PERFORM set_config('timezone', zone, true);
    FOR unit IN SELECT u FROM bk_units LOOP
      ok := bk_same(format('SELECT date_trunc(%L, time) AS t, host, count(*), avg(a), max(b), min(time)
                           FROM bkrow GROUP BY 1, 2', unit));
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;
SELECT zone, unit FROM bk_all_same() WHERE NOT ok;
SELECT count(*) FROM bk_all_same() WHERE ok;

-- counters: UTC and a fixed offset compute a bucket once (hosts 1 and 2
-- span 11 hours, host 3's readings two), New York per row
SET timezone = 'UTC';
SELECT bk_counters('SELECT date_trunc(''hour'', time), host, avg(a) FROM bkrow GROUP BY 1, 2');
SELECT bk_same('SELECT date_trunc(''hour'', time), host, avg(a) FROM bkrow GROUP BY 1, 2');
SET timezone = 'UTC+5:30';
SELECT bk_counters('SELECT host, date_trunc(''minute'', time), max(a) FROM bkrow WHERE host = 3 GROUP BY 1, 2');
SELECT bk_same('SELECT host, date_trunc(''minute'', time), max(a) FROM bkrow WHERE host = 3 GROUP BY 1, 2');
SET timezone = 'America/New_York';
SELECT bk_counters('SELECT date_trunc(''hour'', time), host, avg(a) FROM bkrow GROUP BY 1, 2');
SELECT bk_same('SELECT date_trunc(''hour'', time), host, avg(a) FROM bkrow GROUP BY 1, 2');
-- a time window on the key, and a bucket with another grouping before it
SET timezone = 'UTC';
SELECT bk_counters('SELECT b, date_trunc(''hour'', time), count(*) FROM bkrow
                  WHERE time >= ''2016-11-06 03:10:00+00'' AND time < ''2016-11-06 05:00:00+00''
                  GROUP BY 1, 2');
SELECT bk_same('SELECT b, date_trunc(''hour'', time), count(*) FROM bkrow
              WHERE time >= ''2016-11-06 03:10:00+00'' AND time < ''2016-11-06 05:00:00+00''
              GROUP BY 1, 2');
-- timestamp (no zone): every zone keeps the memo
SET timezone = 'America/New_York';
SELECT bk_counters('SELECT date_trunc(''day'', time::timestamp), count(*) FROM bkrow GROUP BY 1');
SELECT bk_same('SELECT date_trunc(''day'', time::timestamp), count(*) FROM bkrow GROUP BY 1');
-- a week is not one length in every zone: per row
SET timezone = 'UTC';
SELECT bk_counters('SELECT date_trunc(''week'', time), count(*) FROM bkrow GROUP BY 1');
-- the zone changed by a function the query calls, from the 100th reading
-- of host 1 on: the memo follows the zone, as date_trunc per row does
CREATE FUNCTION bk_to_ny(t timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF t >= '2016-11-06 01:00:00+00'::timestamptz + interval '3700 s' THEN
    PERFORM set_config('timezone', 'America/New_York', true);
  END IF;
  RETURN true;
END $$;
BEGIN;
SET LOCAL timezone = 'UTC+0:30';
SELECT bk_counters($$SELECT date_trunc('hour', time) AS h, count(*) FROM bkrow
 WHERE host = 1 AND bk_to_ny(time) GROUP BY 1$$);
SET LOCAL timezone = 'UTC+0:30';
CREATE TEMP TABLE zr AS SELECT date_trunc('hour', time) AS h, count(*) FROM bkrow
 WHERE host = 1 AND bk_to_ny(time) GROUP BY 1;
SET LOCAL timezone = 'UTC+0:30';
CREATE TEMP TABLE zh AS SELECT date_trunc('hour', time) AS h, count(*) FROM bkheap
 WHERE host = 1 AND bk_to_ny(time) GROUP BY 1;
SET LOCAL timezone = 'UTC';
SELECT (SELECT count(*) FROM zr) AS groups,
       (SELECT array_agg(zr::text ORDER BY h) FROM zr) = (SELECT array_agg(zh::text ORDER BY h) FROM zh) AS same;
SELECT * FROM zr ORDER BY h LIMIT 4;
ROLLBACK;
DROP FUNCTION bk_all_same(), bk_same(text), bk_counters(text), bk_to_ny(timestamptz);
DROP TABLE bk_units, bk_zones, bkheap;
DROP FOREIGN TABLE bkrow;
DROP TABLE bkc;
