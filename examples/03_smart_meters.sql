-- Smart meters (the SENSOR example of the Bigtable schema guide): a row per
-- meter and day, keyed METER#DATE (10 + 8 digits: 0000987654#20170726), a
-- column per quarter hour named 0000 to 2345 (96 of them); and the nightly
-- batch that copies a day into a table SENSOR_YYYYMMDD of its own, for the
-- queries "all meters of one day".
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP TABLE IF EXISTS sensor, sensor_20170726;
RESET client_min_messages;

CREATE TABLE sensor (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('sensor', 'device', max_versions => 1);
SELECT wide.create_family('sensor', 'meter', max_versions => 1);

-- the generated consumption of meter m in quarter hour q of day dd (0 =
-- 2017-07-20), in kWh: a daily curve peaking at 13:30, plus noise
CREATE OR REPLACE FUNCTION demo.kwh(m int, q int, dd int) RETURNS float8
LANGUAGE sql IMMUTABLE
AS $$ SELECT round((0.1 + 0.3 * (1 + sin((q - 30) * pi() / 48)) + ((m * 31 + q * 17 + dd * 7) % 50) / 100.0)::numeric, 2)::float8 $$;

\echo -- loading SENSOR: 1,000 meters x 96 quarter hours a day for a week (672,000 readings), a day at a time
DO $$
DECLARE
  d date;
  n bigint;
  t0 timestamptz;
BEGIN
  FOR d IN SELECT generate_series(date '2017-07-20', date '2017-07-26', interval '1 day')::date LOOP
    t0 := clock_timestamp();
    INSERT INTO sensor
    SELECT k.key, 'meter', to_char(t, 'HH24MI'), t,
           demo.kwh(m, q, d - date '2017-07-20')
      FROM generate_series(1, 1000) m,
           LATERAL (SELECT wide.key(wide.sortable(m, 10), wide.bucket(d::timestamptz, 'day')) AS key OFFSET 0) k,
           generate_series(0, 95) q,
           LATERAL (SELECT d::timestamptz + q * interval '15 min' AS t) x;
    GET DIAGNOSTICS n = ROW_COUNT;
    INSERT INTO sensor
    SELECT wide.key(wide.sortable(m, 10), wide.bucket(d::timestamptz, 'day')), 'device', 'id', d, m
      FROM generate_series(1, 1000) m;
    RAISE NOTICE 'day %: % readings in % ms', d, n, round(extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
END
$$;

SELECT count(*) AS cells, count(DISTINCT row_key) AS rows FROM sensor;

-- one meter, one day: one row
SELECT count(*) AS cells, round(sum(value) FILTER (WHERE family = 'meter')::numeric, 2) AS kwh,
       max(value) FILTER (WHERE family = 'device') AS device_id
  FROM wide.read_row(NULL::sensor, '0000000042#20170726');
SELECT qualifier, value FROM wide.read_row(NULL::sensor, '0000000042#20170726',
                                           filter => wide.column_range('meter', '1800', '1900'));

-- one meter's week: one key range
SELECT wide.key_part(row_key, 2) AS day, round(sum(value)::numeric, 2) AS kwh
  FROM sensor
 WHERE row_key >= '0000000042#' AND row_key < wide.prefix_end('0000000042#') AND family = 'meter'
 GROUP BY 1 ORDER BY 1;

-- all meters of one day from SENSOR: a scan of the whole table
SELECT count(*) AS readings, round(sum(value)::numeric, 2) AS kwh
  FROM sensor WHERE row_key LIKE '%#20170726' AND family = 'meter';

\echo -- the nightly batch: copy 2017-07-26 into SENSOR_20170726
DO $$
DECLARE
  day text := wide.bucket('2017-07-26', 'day');
BEGIN
  EXECUTE format('CREATE TABLE %I (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide',
                 'sensor_' || day);
  PERFORM wide.create_family('sensor_' || day, f, max_versions => 1) FROM unnest(ARRAY['device', 'meter']) f;
  EXECUTE format('INSERT INTO %I SELECT * FROM sensor WHERE right(row_key, 9) = %L',
                 'sensor_' || day, '#' || day);
END
$$;

-- all meters of the day, from the day's table
SELECT count(*) AS readings, round(sum(value)::numeric, 2) AS kwh
  FROM sensor_20170726 WHERE family = 'meter';
-- the day's peak quarter hours over all meters
SELECT qualifier AS quarter, round(sum(value)::numeric, 2) AS kwh
  FROM sensor_20170726 WHERE family = 'meter'
 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3;
-- the day's largest consumers
SELECT split_part(row_key, '#', 1) AS meter, round(sum(value)::numeric, 2) AS kwh
  FROM sensor_20170726 WHERE family = 'meter'
 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3;

SELECT demo.expect('SENSOR cells', count(*), 679000::bigint) FROM sensor;
SELECT demo.expect('SENSOR rows', count(DISTINCT row_key), 7000::bigint) FROM sensor;
SELECT demo.expect('SENSOR_20170726 cells', count(*), 97000::bigint) FROM sensor_20170726;
SELECT demo.expect('meter 42 at 2017-07-26 18:00', value, demo.kwh(42, 72, 6))
  FROM wide.read_row(NULL::sensor, '0000000042#20170726') WHERE qualifier = '1800';
SELECT demo.expect('meter 42 on 2017-07-26, kWh', round(sum(value)::numeric, 2),
                   (SELECT round(sum(demo.kwh(42, q, 6))::numeric, 2) FROM generate_series(0, 95) q))
  FROM wide.read_row(NULL::sensor, '0000000042#20170726') WHERE family = 'meter';
SELECT demo.expect('the day, from SENSOR and from SENSOR_20170726',
                   (SELECT round(sum(value)::numeric, 2) FROM sensor WHERE row_key LIKE '%#20170726' AND family = 'meter'),
                   (SELECT round(sum(value)::numeric, 2) FROM sensor_20170726 WHERE family = 'meter'));
