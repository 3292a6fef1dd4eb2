--
-- analyze_sample: ANALYZE of a dense table reads a sample of each sampled
-- block's stretch (am/tableam.c), not every cell, and still estimates the
-- count and the columns' statistics
--
CREATE TABLE an (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
SELECT wide.create_family('an', 'cpu', max_versions => 1);
-- 2,000 readings of 10 metrics, time-major, hosts interleaved
COPY an FROM PROGRAM 'awk ''BEGIN { for (t = 0; t < 100; t++) for (h = 0; h < 20; h++) for (q = 0; q < 10; q++)
    printf "host_%d#%d,cpu,m%d,%d,%d\n", h, 1451606400 + 10 * t, q, t, (h * 7 + q * 3 + t) % 50 }''' (FORMAT csv);
-- a target of 1: 300 rows from the table's few blocks, thousands of cells each
SET default_statistics_target = 1;
ANALYZE an;
SELECT reltuples = 20000 AS counted, relpages < 20 AS dense FROM pg_class WHERE relname = 'an';
SELECT attname, n_distinct, most_common_vals IS NOT NULL OR histogram_bounds IS NOT NULL AS described
  FROM pg_stats WHERE tablename = 'an' AND attname IN ('family', 'qualifier') ORDER BY attname;
SELECT attname, null_frac, histogram_bounds IS NOT NULL AS histogram
  FROM pg_stats WHERE tablename = 'an' AND attname IN ('row_key', 'ts', 'value') ORDER BY attname;
-- stretches read from several runs, with the write area, and after deletes
INSERT INTO an VALUES ('host_0#1451606400', 'cpu', 'm0', 0, 99), ('host_99#0', 'cpu', 'm0', 0, 1);
DELETE FROM an WHERE row_key = 'host_3#1451606400';
ANALYZE an;
SELECT reltuples BETWEEN 19000 AND 21000 AS estimated FROM pg_class WHERE relname = 'an';
SELECT count(*) FROM pg_stats WHERE tablename = 'an';
-- the full read when blocks hold few cells (the default target)
RESET default_statistics_target;
ANALYZE an;
SELECT reltuples FROM pg_class WHERE relname = 'an';
DROP TABLE an;
-- the row form (rows_scan.c): a table of many more rows than the sample is
-- sampled by the starts of stretches of its cells table, not read whole
CREATE TABLE rc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rc', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE rcpu (time timestamptz NOT NULL, tags_id int4 NOT NULL,
    m0 float8, m1 float8, m2 float8, m3 float8, m4 float8,
    m5 float8, m6 float8, m7 float8, m8 float8, m9 float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'tags_id,time');
INSERT INTO rcpu SELECT '2016-01-01'::timestamptz + t * interval '10 s', h,
    t, h, t % 7, h % 3, t + h, 5, 6, 7, 8, (t * h) % 11
  FROM generate_series(0, 99) t, generate_series(0, 19) h;
VACUUM rc;
SET default_statistics_target = 1;
ANALYZE VERBOSE rcpu;
SELECT reltuples FROM pg_class WHERE relname = 'rcpu';
SELECT attname, n_distinct IS NOT NULL AND (most_common_vals IS NOT NULL OR histogram_bounds IS NOT NULL) AS described
  FROM pg_stats WHERE tablename = 'rcpu' ORDER BY attname;
-- the count is of records: a delete counts until a compaction drops it,
-- which VACUUM of a table this small does at once (am/vacuum.c), row by
-- row as after a range tombstone: the deleted rows no longer count
SET wide.enable_range_delete = off;
DELETE FROM rcpu WHERE tags_id > 9;
RESET wide.enable_range_delete;
VACUUM rc;
ANALYZE rcpu;
SELECT reltuples > 1000 AS records_counted FROM pg_class WHERE relname = 'rcpu';
SELECT count(*) FROM rcpu;
-- a few rows more than the sample holds: read whole, counted exactly
DELETE FROM rcpu WHERE tags_id > 1;
SELECT FROM wide.compact('rc', major => true);
ANALYZE VERBOSE rcpu;
SELECT reltuples FROM pg_class WHERE relname = 'rcpu';
-- another family in the cells table: read whole (its records are not all the form's)
SELECT wide.create_family('rc', 'mem');
INSERT INTO rcpu SELECT '2016-01-02'::timestamptz + t * interval '10 s', h, t
  FROM generate_series(0, 99) t, generate_series(0, 19) h;
VACUUM rc;
ANALYZE VERBOSE rcpu;
SELECT reltuples FROM pg_class WHERE relname = 'rcpu';
RESET default_statistics_target;
DROP FOREIGN TABLE rcpu;
DROP TABLE rc;
