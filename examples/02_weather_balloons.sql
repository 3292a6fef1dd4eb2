-- Weather balloons (the time-bucket patterns of the Bigtable guide): one row
-- per balloon and hour; a new cell per reading in existing columns, with a
-- GC policy keeping the last readings.
CREATE TABLE balloon (row_key text, family text, qualifier text,
                      ts timestamptz, value float8) USING wide;
SELECT wide.create_family('balloon', 'm', max_versions => 12);

INSERT INTO balloon
SELECT format('us-west2#3698#%s', to_char(date_trunc('hour', t), 'YYYY-MM-DD-HH24MI')),
       'm', q, t, v
  FROM generate_series(timestamptz '2021-03-05 12:00+00', timestamptz '2021-03-05 13:59+00',
                       interval '1 minute') t,
       LATERAL (VALUES ('pressure', 94000 + extract(minute FROM t) * 10),
                       ('temperature', 9 + extract(minute FROM t) / 30),
                       ('humidity', 60 + extract(minute FROM t) / 6)) AS r(q, v);

-- each hour-row keeps the 12 newest readings of each measurement
SELECT row_key, qualifier, count(*) AS versions, round(avg(value)::numeric, 1) AS avg
  FROM balloon GROUP BY row_key, qualifier ORDER BY row_key, qualifier;

-- the newest pressure of the 12:00 hour
SELECT ts, value FROM balloon
 WHERE row_key = 'us-west2#3698#2021-03-05-1200' AND qualifier = 'pressure'
 LIMIT 1;
