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
