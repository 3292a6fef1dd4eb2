-- runs name the families they hold (format 6): a table with a family that
-- expires by age and one kept for ever frees the age family's window runs
-- by age, without rewriting anything, and keeps every cell of the other
SET wide.time_window = '1d';
SET timezone = 'UTC';
CREATE TEMP TABLE base AS SELECT date_trunc('day', now()) AS d0;
CREATE TABLE rf (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rf', 'raw', max_age => '30 days');
SELECT wide.create_family('rf', 'rollup');
-- ten days of raw readings (4 hosts x 24 hours), a rollup per host and day
INSERT INTO rf SELECT 'h' || h || '#' || d, 'raw', 'cpu',
       (SELECT d0 FROM base) - (d || ' days')::interval + (hr || ' hours')::interval, d * 100 + hr
  FROM generate_series(1, 10) d, generate_series(0, 23) hr, generate_series(1, 4) h;
INSERT INTO rf SELECT 'h' || h || '#' || d, 'rollup', 'cpu_avg',
       (SELECT d0 FROM base) - (d || ' days')::interval, d
  FROM generate_series(1, 10) d, generate_series(1, 4) h;
SELECT FROM wide.compact('rf', major => true);
-- a run per day window of raw, one for the rest (the rollups)
SELECT count(*) AS runs, sum(cells) AS cells FROM wide.runs('rf');
CREATE TEMP TABLE segs_before AS SELECT segment, cells FROM wide.runs('rf');
SELECT family, count(*) FROM rf GROUP BY family ORDER BY family;

-- lower max_age to 4 days and an hour: the 6 windows older than day -4
-- go whole, whatever the time of day (day -5's newest cell is at 23:00)
SELECT wide.alter_family('rf', 'raw', max_age => '4 days 1 hour');
SELECT pg_current_wal_insert_lsn() AS lsn0 \gset
VACUUM (TRUNCATE false) rf;
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'lsn0') AS vacuum_wal \gset
SELECT count(*) AS runs_left FROM wide.runs('rf');
-- none written: every run left is one of before
SELECT count(*) AS rewritten FROM wide.runs('rf') WHERE segment NOT IN (SELECT segment FROM segs_before);
-- the freed ones are the 6 oldest raw windows (24 x 4 cells each)
SELECT count(*) AS freed, sum(cells) AS cells_freed FROM segs_before
 WHERE segment NOT IN (SELECT segment FROM wide.runs('rf'));
-- VACUUM's WAL is the metapage's, not the data's (the 6 runs hold 576 cells)
SELECT :vacuum_wal < 6 * 8192 AS wal_small;
-- the rollups all stay; raw keeps its last 4 days (how much of day -4 is
-- seen depends on the time of day: count the days after it)
SELECT count(*) AS rollups, min(ts) = (SELECT d0 FROM base) - interval '10 days' AS oldest_kept
  FROM rf WHERE family = 'rollup';
SELECT count(*) FILTER (WHERE ts >= (SELECT d0 FROM base) - interval '3 days') AS raw_of_3_days,
       min(ts) >= now() - interval '4 days 1 hour' AS raw_all_newer
  FROM rf WHERE family = 'raw';
-- (read_rows too; day -4's raw cells are not counted: the time of day)
SELECT count(*) FILTER (WHERE family = 'rollup') AS rollups,
       count(*) FILTER (WHERE family = 'raw' AND ts >= (SELECT d0 FROM base) - interval '3 days') AS raw_of_3_days
  FROM wide.read_rows(NULL::rf, prefix => 'h1#');

-- a run holding both families is judged by both: raw expired, rollup kept
-- for ever, the run stays (and its rollup cell)
DROP TABLE segs_before;
SET wide.time_window = 0;
CREATE TABLE rf2 (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rf2', 'raw', max_age => '1 day');
SELECT wide.create_family('rf2', 'rollup');
INSERT INTO rf2 VALUES ('a', 'raw', 'q', now() - interval '5 days', 1),
                       ('a', 'rollup', 'q', now() - interval '5 days', 2);
SELECT runs_out FROM wide.compact('rf2');
SELECT count(*) AS runs FROM wide.runs('rf2');
SELECT family, value FROM rf2 ORDER BY family;
VACUUM (TRUNCATE false) rf2;
SELECT family, value FROM rf2 ORDER BY family;
SELECT count(*) AS runs FROM wide.runs('rf2');
SELECT * FROM wide.verify('rf');
SELECT * FROM wide.verify('rf2');
DROP TABLE rf, rf2;
