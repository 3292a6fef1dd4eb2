-- A rollup merged on write (what neither Bigtable nor a heap table has): a
-- day of one reading a minute from 20 hosts, and a family that keeps the
-- 5-minute sum, count, min and max of every host's cpu current as the
-- readings are written.  The dashboard (average per 5 minutes per host over
-- the day) then reads 2 cells per bucket instead of 5 readings.
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP TABLE IF EXISTS rollup_metric;
RESET client_min_messages;

CREATE TABLE rollup_metric (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('rollup_metric', 'm', max_age => '36500 days');
SELECT wide.create_family('rollup_metric', 'm5', max_age => '36500 days',
  rollup => '{"source": "m", "bucket": "5 minutes",
              "functions": ["sum", "count", "min", "max"], "key_parts": 1}');

-- reading of host h at minute t: cpu in milli-percent (int8: sums are exact)
CREATE OR REPLACE VIEW demo.reading AS
SELECT 'host' || h AS host, t,
       (50000 + 20000 * sin(extract(epoch FROM t) / 3600 + h))::int8 AS cpu
  FROM generate_series(1, 20) h,
       generate_series(timestamptz '2030-03-01', timestamptz '2030-03-01 23:59', interval '1 minute') t;

\echo -- 28,800 readings (20 hosts x 1,440 minutes), each also added to its 5-minute rollup cells
INSERT INTO rollup_metric SELECT host || '#' || wide.millis(t), 'm', 'cpu', t, cpu FROM demo.reading;

SELECT family, count(*) AS cells FROM rollup_metric GROUP BY 1 ORDER BY 1;
\echo -- the dashboard from the rollup: host2, the first buckets of the day
SELECT row_key AS host, ts AS bucket,
       round(sum(value) FILTER (WHERE qualifier = 'cpu:sum')::numeric /
             sum(value) FILTER (WHERE qualifier = 'cpu:count') / 1000, 2) AS avg_cpu,
       round(max(value) FILTER (WHERE qualifier = 'cpu:max') / 1000.0, 2) AS max_cpu
  FROM rollup_metric WHERE row_key = 'host2' AND family = 'm5'
 GROUP BY 1, 2 ORDER BY 2 LIMIT 3;
\echo -- the same from the raw readings
SELECT split_part(row_key, '#', 1) AS host, date_bin('5 minutes', ts, 'epoch') AS bucket,
       round(avg(value) / 1000, 2) AS avg_cpu, round(max(value) / 1000.0, 2) AS max_cpu
  FROM rollup_metric WHERE row_key >= 'host2#' AND row_key < 'host2$' AND family = 'm'
 GROUP BY 1, 2 ORDER BY 2 LIMIT 3;

\echo -- deletes are not subtracted, as in Bigtable aggregates: rebuild the rollup of host3
DELETE FROM rollup_metric WHERE family = 'm' AND row_key >= 'host3#' AND row_key < 'host3$'
   AND ts >= '2030-03-01 12:00';
SELECT wide.rebuild_rollup('rollup_metric', 'm5', 'host3', 'host4');

-- every bucket of every host equals the GROUP BY of the readings
SELECT demo.expect('rollup cells (20 hosts x 288 buckets x 4, host3 half)',
                   count(*), (20 * 288 * 4 - 144 * 4)::bigint)
  FROM rollup_metric WHERE family = 'm5';
SELECT demo.expect('buckets whose rollup differs from the GROUP BY of the readings', count(*), 0::bigint)
  FROM (SELECT split_part(row_key, '#', 1) AS host, date_bin('5 minutes', ts, 'epoch') AS bucket,
               sum(value) AS s, count(*) AS n, min(value) AS lo, max(value) AS hi
          FROM rollup_metric WHERE family = 'm' GROUP BY 1, 2) r
  FULL JOIN (SELECT row_key AS host, ts AS bucket,
                    max(value) FILTER (WHERE qualifier = 'cpu:sum') AS s,
                    max(value) FILTER (WHERE qualifier = 'cpu:count') AS n,
                    max(value) FILTER (WHERE qualifier = 'cpu:min') AS lo,
                    max(value) FILTER (WHERE qualifier = 'cpu:max') AS hi
               FROM rollup_metric WHERE family = 'm5' GROUP BY 1, 2) u USING (host, bucket)
 WHERE (r.s, r.n, r.lo, r.hi) IS DISTINCT FROM (u.s, u.n, u.lo, u.hi);
SELECT demo.expect('host2 readings in the 00:00 bucket', value, 5::bigint)
  FROM rollup_metric WHERE row_key = 'host2' AND family = 'm5' AND qualifier = 'cpu:count'
   AND ts = '2030-03-01 00:00';
