-- Server metrics (the METRIC / CURRENT_METRIC example of the Bigtable
-- time-series guide): one row per host and reading, a column per metric.
CREATE TABLE metric (row_key text, family text, qualifier text,
                     ts timestamptz, value float8) USING wide;
SELECT wide.create_family('metric', 'm', max_age => '30 days');

-- 20 hosts x 20 metrics x one reading every 5 seconds for an hour
INSERT INTO metric
SELECT format('server%s.example.com#%s', h, extract(epoch FROM t)::int8 * 1000),
       'm', m, t, round((random() * 100)::numeric, 2)
  FROM generate_series(1, 20) h,
       generate_series(now() - interval '1 hour', now(), interval '5 seconds') t,
       unnest(ARRAY['cpu/cpu1_usr', 'cpu/cpu1_nice', 'cpu/cpu1_sys', 'cpu/cpu1_idle',
                    'cpu/cpu2_usr', 'cpu/cpu2_nice', 'cpu/cpu2_sys', 'cpu/cpu2_idle',
                    'mem/used', 'mem/free', 'mem/cached', 'mem/buffers',
                    'disk/sda_read', 'disk/sda_write', 'disk/sdb_read', 'disk/sdb_write',
                    'net/eth0_rx', 'net/eth0_tx', 'load/1m', 'load/5m']) m;

SELECT count(*) AS cells, count(DISTINCT row_key) AS rows FROM metric;

-- one host, the last 10 minutes of CPU user time
SELECT row_key, ts, value
  FROM metric
 WHERE row_key >= 'server7.example.com#' AND row_key < 'server7.example.com$'
   AND qualifier = 'cpu/cpu1_usr' AND ts > now() - interval '10 minutes'
 ORDER BY row_key DESC
 LIMIT 5;

-- the latest reading of every metric, kept in a second table keyed by host
-- whose family keeps one version per cell: a write replaces the cell
CREATE TABLE current_metric (row_key text, family text, qualifier text,
                             ts timestamptz, value float8) USING wide;
SELECT wide.create_family('current_metric', 'm', max_versions => 1);
INSERT INTO current_metric
SELECT split_part(row_key, '#', 1), family, qualifier, ts, value FROM metric;
SELECT row_key, qualifier, value FROM current_metric
 WHERE row_key = 'server7.example.com' AND qualifier LIKE 'cpu/%';
