-- Weather balloons (the Bigtable time-series guide): every pattern of the
-- guide on the same data.  Each balloon reports pressure, temperature,
-- humidity and altitude once a minute; 10 balloons for 3 days.
--   A  time buckets, a new column per event   LOCATION#BALLOON#METRIC#WEEK
--   B  time buckets, new cells in columns     LOCATION#BALLOON#WEEK
--   C  single-timestamp rows                  LOCATION#BALLOON#YYYY-MM-DD-HHMM
--   D  single-timestamp, serialized (JSON)    LOCATION#BALLOON#YYYY-MM-DD-HHMM
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP VIEW IF EXISTS balloon_row_wide;
DROP FUNCTION IF EXISTS balloon_row_wide_pivot_insert();
DROP TABLE IF EXISTS balloon_col, balloon_cell, balloon_row, balloon_json;
RESET client_min_messages;

-- the events, generated once (a temporary heap table)
CREATE TEMP TABLE events AS
SELECT CASE WHEN b % 2 = 0 THEN 'us-west2' ELSE 'asia-southeast1' END AS location, 3698 + b AS balloon,
       timestamptz '2021-03-05 00:00+00' + i * interval '1 minute' AS t,
       (94000 + (b * 37 + i * 13) % 2000)::float8 AS pressure,
       round(9 + ((b + i) % 40) / 10.0, 1)::float8 AS temperature,
       (60 + (b * 3 + i) % 10)::float8 AS humidity,
       (600 + (b * 11 + i * 7) % 50)::float8 AS altitude
  FROM generate_series(0, 9) b, generate_series(0, 3 * 1440 - 1) i;
ALTER TABLE events ADD week text, ADD minute text;
UPDATE events SET week = wide.bucket(t, 'week'), minute = to_char(t, 'YYYY-MM-DD-HH24MI');

\echo -- A: a new column per event (qualifier = the value, no value): 172,800 cells
CREATE TABLE balloon_col (row_key text, family text, qualifier text, ts timestamptz, value text) USING wide;
-- no version limit: the same value twice in a week is one column, two cells
SELECT wide.create_family('balloon_col', 'm');
INSERT INTO balloon_col
SELECT wide.key(location, balloon::text, m, week), 'm', v::text, t, ''
  FROM events, LATERAL (VALUES ('pressure', pressure), ('temperature', temperature),
                               ('humidity', humidity), ('altitude', altitude)) AS x(m, v);

\echo -- B: new cells in existing columns, a GC policy keeping a week of minutes: 172,800 cells
CREATE TABLE balloon_cell (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('balloon_cell', 'm', max_versions => 7 * 1440);
INSERT INTO balloon_cell
SELECT wide.key(location, balloon::text, week), 'm', m, t, v
  FROM events, LATERAL (VALUES ('pressure', pressure), ('temperature', temperature),
                               ('humidity', humidity), ('altitude', altitude)) AS x(m, v);

\echo -- C: a row per event: 172,800 cells
CREATE TABLE balloon_row (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('balloon_row', 'm', max_versions => 1);
INSERT INTO balloon_row
SELECT wide.key(location, balloon::text, minute), 'm', m, t, v
  FROM events, LATERAL (VALUES ('pressure', pressure), ('temperature', temperature),
                               ('humidity', humidity), ('altitude', altitude)) AS x(m, v);

SELECT wide.create_pivot_view('balloon_row_wide', 'balloon_row', 'm',
                              ARRAY['pressure', 'temperature', 'humidity', 'altitude']);

\echo -- D: a row per event, the measurements serialized as JSON: 43,200 cells
CREATE TABLE balloon_json (row_key text, family text, qualifier text, ts timestamptz, value text) USING wide;
SELECT wide.create_family('balloon_json', 'm', max_versions => 1);
INSERT INTO balloon_json
SELECT wide.key(location, balloon::text, minute), 'm', 'measurements_blob', t,
       json_build_object('pressure', pressure, 'temperature', temperature,
                         'humidity', humidity, 'altitude', altitude)::text
  FROM events;

-- what each pattern stores (cells, bytes after compaction)
SELECT t AS pattern, c.runs_in, c.cells_in, c.cells_out, c.bytes_written
  FROM unnest(ARRAY['balloon_col', 'balloon_cell', 'balloon_row', 'balloon_json']::regclass[]) t,
       LATERAL wide.compact(t, major => true) c;
SELECT t AS pattern, s.cells, s.raw_bytes, s.stored_bytes
  FROM unnest(ARRAY['balloon_col', 'balloon_cell', 'balloon_row', 'balloon_json']::regclass[]) t,
       LATERAL wide.stats(t) s;

-- A: balloon 3698's pressure of the week: one row, its qualifiers are the values
SELECT count(*) AS readings, count(DISTINCT qualifier) AS distinct_values,
       min(qualifier::float8), max(qualifier::float8)
  FROM wide.read_row(NULL::balloon_col, wide.key('us-west2', '3698', 'pressure', '2021week09'));

-- B: the newest reading of each measurement of the balloons of a location
-- (newest cell per column, older versions not returned)
SELECT row_key, qualifier, ts, value
  FROM wide.read_current(NULL::balloon_cell, prefix => 'us-west2#3698#');
-- B: daily averages of one balloon, from the versions of one row
SELECT ts::date AS day, qualifier, count(*) AS readings, round(avg(value)::numeric, 2) AS avg
  FROM wide.read_row(NULL::balloon_cell, wide.key('us-west2', '3698', '2021week09'))
 WHERE qualifier IN ('temperature', 'pressure')
 GROUP BY 1, 2 ORDER BY 1, 2;

-- C: one balloon's hour: a key prefix
SELECT count(*) AS cells, round(avg(value) FILTER (WHERE qualifier = 'temperature')::numeric, 2) AS avg_temp
  FROM wide.read_rows(NULL::balloon_row, prefix => 'us-west2#3698#2021-03-05-12');
-- C: the same rows as typed columns (a pivot view, one row per event)
SELECT row_key, pressure, temperature, humidity, altitude FROM balloon_row_wide
 WHERE starts_with(row_key, 'us-west2#3698#2021-03-05-12') ORDER BY row_key LIMIT 3;

-- D: the hour from the serialized rows: one cell per event, parsed on read
SELECT count(*) AS events, round(avg((value::jsonb->>'temperature')::numeric), 2) AS avg_temp
  FROM wide.read_rows(NULL::balloon_json, prefix => 'us-west2#3698#2021-03-05-12');

SELECT demo.expect('A cells', count(*), 172800::bigint) FROM balloon_col;
SELECT demo.expect('A rows (balloon x metric x week)', count(DISTINCT row_key), 40::bigint) FROM balloon_col;
SELECT demo.expect('B versions of one column', count(*), 4320::bigint)
  FROM wide.read_row(NULL::balloon_cell, wide.key('us-west2', '3698', '2021week09'))
 WHERE qualifier = 'pressure';
SELECT demo.expect('B newest temperature of 3698', value,
                   (SELECT temperature FROM events WHERE balloon = 3698 ORDER BY t DESC LIMIT 1))
  FROM wide.read_current(NULL::balloon_cell, prefix => 'us-west2#3698#') WHERE qualifier = 'temperature';
SELECT demo.expect('C cells of one hour', count(*), 240::bigint)
  FROM wide.read_rows(NULL::balloon_row, prefix => 'us-west2#3698#2021-03-05-12');
SELECT demo.expect('C and D agree on the hour''s temperature',
                   (SELECT round(avg(value)::numeric, 4) FROM wide.read_rows(NULL::balloon_row, prefix => 'us-west2#3698#2021-03-05-12')
                     WHERE qualifier = 'temperature'),
                   (SELECT round(avg((value::jsonb->>'temperature')::numeric), 4)
                      FROM wide.read_rows(NULL::balloon_json, prefix => 'us-west2#3698#2021-03-05-12')));
SELECT demo.expect('A, B and C agree on the pressure sum',
                   ARRAY[(SELECT sum(qualifier::float8) FROM balloon_col WHERE row_key LIKE '%#pressure#%'),
                         (SELECT sum(value) FROM balloon_cell WHERE qualifier = 'pressure')],
                   ARRAY[(SELECT sum(value) FROM balloon_row WHERE qualifier = 'pressure'),
                         (SELECT sum(pressure) FROM events)]);
