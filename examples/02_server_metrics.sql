-- Server metrics (the METRIC / CURRENT_METRIC example of the Bigtable
-- schema guide): METRIC has a row per host and reading, keyed
-- HOSTNAME#MILLIS, a column per metric; CURRENT_METRIC, keyed HOSTNAME,
-- keeps each host's newest readings and is written with every reading.
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP TABLE IF EXISTS metric, current_metric;
RESET client_min_messages;

CREATE TABLE metric (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
CREATE TABLE current_metric (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('metric', 'm', max_versions => 1);
-- one version per cell: writing a host's reading replaces the older one
SELECT wide.create_family('current_metric', 'm', max_versions => 1);

\echo -- loading METRIC and CURRENT_METRIC: 50 hosts x 20 metrics, a reading every 5 s for an hour (720,000 cells), in 10-minute batches
DO $$
DECLARE
  b int;
  n bigint;
  t0 timestamptz;
BEGIN
  FOR b IN 0..5 LOOP
    t0 := clock_timestamp();
    WITH r AS (
      SELECT format('server%s.example.com', lpad(h::text, 2, '0')) AS host, m, i,
             timestamptz '2015-03-16 19:00:00+00' + i * interval '5 s' AS t,
             ((h * 13 + mi * 7 + i) % 1000) / 10.0::float8 AS v
        FROM generate_series(1, 50) h, generate_series(b * 120, b * 120 + 119) i,
             unnest(ARRAY['cpu/cpu1_usr', 'cpu/cpu1_nice', 'cpu/cpu1_sys', 'cpu/cpu1_idle',
                          'cpu/cpu2_usr', 'cpu/cpu2_nice', 'cpu/cpu2_sys', 'cpu/cpu2_idle',
                          'mem/used', 'mem/free', 'mem/cached', 'mem/buffers',
                          'disk/sda_read', 'disk/sda_write', 'disk/sdb_read', 'disk/sdb_write',
                          'net/eth0_rx', 'net/eth0_tx', 'load/1m', 'load/5m']) WITH ORDINALITY AS x(m, mi)),
    w AS (INSERT INTO metric SELECT wide.time_key(host, t), 'm', m, t, v FROM r RETURNING 1)
    INSERT INTO current_metric SELECT host, 'm', m, t, v FROM r;
    GET DIAGNOSTICS n = ROW_COUNT;
    RAISE NOTICE 'batch % (19:%0-19:%9): % readings into METRIC and CURRENT_METRIC in % ms', b + 1, b, b,
      n, round(extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
END
$$;

SELECT count(*) AS cells, count(DISTINCT row_key) AS rows FROM metric;

-- one host's CPU for five minutes: one key range of METRIC
EXPLAIN (COSTS OFF)
SELECT ts, value FROM metric
 WHERE row_key >= wide.time_key('server07.example.com', '2015-03-16 19:50+00')
   AND row_key <  wide.time_key('server07.example.com', '2015-03-16 19:55+00')
   AND qualifier = 'cpu/cpu1_usr';
SELECT ts, value FROM metric
 WHERE row_key >= wide.time_key('server07.example.com', '2015-03-16 19:50+00')
   AND row_key <  wide.time_key('server07.example.com', '2015-03-16 19:55+00')
   AND qualifier = 'cpu/cpu1_usr'
 ORDER BY ts LIMIT 5;

-- the same window for three hosts: three ranges in one read
SELECT wide.key_part(row_key, 1) AS host, count(*) AS readings, round(avg(value)::numeric, 2) AS avg_cpu
  FROM wide.read_rows(NULL::metric,
                      ranges => wide.time_ranges(ARRAY['server01.example.com', 'server02.example.com',
                                                       'server03.example.com'],
                                                 '2015-03-16 19:50+00', '2015-03-16 19:55+00'),
                      filter => wide.qualifier_filter('cpu/cpu1_usr'))
 GROUP BY 1 ORDER BY 1;

-- the busiest hosts of the last ten minutes (a time window over all hosts)
SELECT wide.key_part(row_key, 1) AS host, round(avg(value)::numeric, 2) AS avg_load
  FROM metric
 WHERE qualifier = 'load/1m' AND ts >= '2015-03-16 19:50+00'
 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3;

-- the newest readings of some hosts: a prefix of CURRENT_METRIC
SELECT row_key AS host, qualifier, ts, value FROM current_metric
 WHERE starts_with(row_key, 'server0') AND qualifier LIKE 'cpu/cpu1%'
 ORDER BY 1, 2 LIMIT 8;
-- of all hosts: a scan of CURRENT_METRIC.  It returns 1,000 cells, but until
-- a compaction applies the one-version policy to what is stored, the scan
-- still passes the 719,000 replaced versions (compare the timings)
SELECT count(*) AS cells, count(DISTINCT row_key) AS hosts, min(ts), max(ts) FROM current_metric;
SELECT cells AS stored_cells FROM wide.stats('current_metric');
SELECT cells_in, cells_out, cells_past_max_versions, elapsed FROM wide.compact('current_metric', major => true);
SELECT cells AS stored_cells FROM wide.stats('current_metric');
SELECT count(*) AS cells, count(DISTINCT row_key) AS hosts, min(ts), max(ts) FROM current_metric;
-- without CURRENT_METRIC: the newest METRIC row of each host, one reversed
-- read of one row per host
SELECT count(*) AS cells, count(DISTINCT wide.key_part(row_key, 1)) AS hosts, min(ts), max(ts)
  FROM generate_series(1, 50) h,
       LATERAL wide.read_latest(NULL::metric, format('server%s.example.com', lpad(h::text, 2, '0')), 1,
                                newest_first => false) r;

SELECT demo.expect('METRIC cells', count(*), 720000::bigint) FROM metric;
SELECT demo.expect('METRIC rows', count(DISTINCT row_key), 36000::bigint) FROM metric;
SELECT demo.expect('CURRENT_METRIC cells', count(*), 1000::bigint) FROM current_metric;
SELECT demo.expect('CURRENT_METRIC newest', max(ts), '2015-03-16 19:59:55+00'::timestamptz) FROM current_metric;
-- host 7, metric 1 (cpu/cpu1_usr), reading 600 (19:50:00): (91 + 7 + 600) % 1000 / 10
SELECT demo.expect('server07 cpu1_usr at 19:50', value, 69.8::float8)
  FROM wide.read_row(NULL::metric, wide.time_key('server07.example.com', '2015-03-16 19:50+00'))
 WHERE qualifier = 'cpu/cpu1_usr';
SELECT demo.expect('server07 readings 19:50-19:55', count(*), 60::bigint) FROM metric
 WHERE row_key >= wide.time_key('server07.example.com', '2015-03-16 19:50+00')
   AND row_key <  wide.time_key('server07.example.com', '2015-03-16 19:55+00')
   AND qualifier = 'cpu/cpu1_usr';
SELECT demo.expect('CURRENT_METRIC server07 cpu1_usr', value, ((91 + 7 + 719) % 1000) / 10.0::float8)
  FROM current_metric WHERE row_key = 'server07.example.com' AND qualifier = 'cpu/cpu1_usr';

\echo -- a Grafana panel (docs/cookbook.md), as Grafana sends it for 19:00-20:00: server01 cpu1_usr, a point a minute
SELECT floor(extract(epoch from ts)/60)*60 AS "time", avg(value) AS "cpu1_usr"
  FROM metric
 WHERE row_key >= wide.time_key('server01.example.com', '2015-03-16T19:00:00Z')
   AND row_key <  wide.time_key('server01.example.com', '2015-03-16T20:00:00Z')
   AND qualifier = 'cpu/cpu1_usr'
 GROUP BY 1 ORDER BY 1 LIMIT 3;
-- host 1, metric 1: reading i is ((13 + 7 + i) % 1000) / 10; 19:50 is readings 600-611
CREATE TEMP VIEW panel AS
SELECT floor(extract(epoch from ts)/60)*60 AS "time", avg(value) AS "cpu1_usr"
  FROM metric
 WHERE row_key >= wide.time_key('server01.example.com', '2015-03-16T19:00:00Z')
   AND row_key <  wide.time_key('server01.example.com', '2015-03-16T20:00:00Z')
   AND qualifier = 'cpu/cpu1_usr'
 GROUP BY 1;
SELECT demo.expect('Grafana panel points', count(*), 60::bigint) FROM panel;
SELECT demo.expect('Grafana panel at 19:50', round(cpu1_usr::numeric, 2), 62.55)
  FROM panel WHERE "time" = extract(epoch FROM timestamptz '2015-03-16 19:50+00');
