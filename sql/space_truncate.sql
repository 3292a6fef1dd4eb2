--
-- space_truncate: VACUUM gives the free end of the table back to the file
-- system (issue 10).  Before, the file never shrank: one big INSERT left it
-- at the write area's peak, and a table whose cells were all deleted and
-- compacted away kept every page.
--
\set SHOW_CONTEXT never
CREATE TABLE st (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
ALTER TABLE st SET (autovacuum_enabled = off);
SELECT wide.create_family('st', 'cf');
CREATE TABLE st_heap (row_key text, family text, qualifier text, ts int8, value int8);
-- one statement-sized INSERT through the write area (page by page, not as
-- a sorted run): the write area peaks at many times the data
SET wide.statement_run_size = '1GB';
INSERT INTO st_heap SELECT 'host' || (i % 50) || '#' || lpad((i / 50)::text, 8, '0'), 'cf',
    'cpu', i, ('x' || substr(md5(i::text), 1, 6))::bit(24)::int
  FROM generate_series(1, 150000) i;
INSERT INTO st SELECT * FROM st_heap;
SELECT pg_relation_size('st') > 4 * 1024 * 1024 AS large_before_vacuum;
VACUUM st;
-- the file is now about the stored bytes (the runs' pages)
SELECT pg_total_relation_size('st') <= 1.3 * stored_bytes + 4 * 8192 AS file_about_stored_bytes,
       free_pages < table_pages / 4 AS little_free
  FROM wide.stats('st');
SELECT (SELECT count(*) FROM st) AS cells,
       (SELECT count(*) FROM (SELECT * FROM st EXCEPT ALL SELECT * FROM st_heap) d) AS wrong,
       (SELECT count(*) FROM (SELECT * FROM st_heap EXCEPT ALL SELECT * FROM st) d) AS missing;
SELECT count(*) AS problems FROM wide.verify('st');
-- a second load lands in the pages the first one freed, VACUUM packs again
INSERT INTO st SELECT row_key, family, 'mem', ts, value FROM st_heap;
INSERT INTO st_heap SELECT row_key, family, 'mem', ts, value FROM st_heap WHERE qualifier = 'cpu';
VACUUM st;
SELECT pg_total_relation_size('st') <= 1.3 * stored_bytes + 4 * 8192 AS file_about_stored_bytes
  FROM wide.stats('st');
SELECT (SELECT count(*) FROM st) AS cells,
       (SELECT count(*) FROM (SELECT * FROM st EXCEPT ALL SELECT * FROM st_heap) d) AS wrong,
       (SELECT count(*) FROM (SELECT * FROM st_heap EXCEPT ALL SELECT * FROM st) d) AS missing;
-- (TRUNCATE false) and vacuum_truncate = false keep the file as it is
DELETE FROM st WHERE qualifier = 'mem';
SELECT FROM wide.compact('st', major => true);
SELECT pg_relation_size('st') AS before \gset
VACUUM (TRUNCATE false) st;
SELECT pg_relation_size('st') = :before AS kept_with_truncate_false;
ALTER TABLE st SET (vacuum_truncate = false);
VACUUM st;
SELECT pg_relation_size('st') = :before AS kept_with_reloption;
ALTER TABLE st RESET (vacuum_truncate);
VACUUM st;
SELECT pg_relation_size('st') < :before AS shrunk;
SELECT count(*) AS cells FROM st;
-- delete everything, compact(major), VACUUM: at most 64 kB left
DELETE FROM st;
SELECT FROM wide.compact('st', major => true);
VACUUM st;
SELECT pg_total_relation_size('st') <= 64 * 1024 AS at_most_64_kb;
SELECT count(*) AS cells FROM st;
SELECT count(*) AS problems FROM wide.verify('st');
-- and the table grows again from there
INSERT INTO st VALUES ('a', 'cf', 'q', 1, 42);
SELECT FROM wide.compact('st', major => true);
VACUUM st;
SELECT * FROM st;
SELECT count(*) AS problems FROM wide.verify('st');
DROP TABLE st, st_heap;
-- values in blobs written last sit at the end of the table: VACUUM moves
-- them down with their run
CREATE TABLE sb (row_key text, family text, qualifier text, ts int8, value text) USING wide;
ALTER TABLE sb SET (autovacuum_enabled = off);
SELECT wide.create_family('sb', 'cf');
INSERT INTO sb SELECT 'small' || i, 'cf', 'q', 1, 'v' FROM generate_series(1, 30000) i;
INSERT INTO sb SELECT 'k' || lpad(i::text, 6, '0'), 'cf', 'q' || j, 1,
    (SELECT string_agg(md5(i::text || '-' || j || '-' || k), '') FROM generate_series(1, 100) k)
  FROM generate_series(1, 200) i, generate_series(1, 3) j;
VACUUM sb;
-- 600 blobs of one page each, the run's own pages, a few spare
SELECT pg_relation_size('sb') <= 8192 * (600 + stored_bytes / 8192 + 8) AS packed
  FROM wide.stats('sb');
SELECT count(*), sum(length(value)), count(DISTINCT md5(value)) FROM sb;
SELECT count(*) AS problems FROM wide.verify('sb');
DROP TABLE sb;
-- delete everything and VACUUM, no compaction asked for: the tombstones
-- are half the records, so VACUUM merges down to the oldest run itself
CREATE TABLE sd (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
ALTER TABLE sd SET (autovacuum_enabled = off);
SELECT wide.create_family('sd', 'cf');
INSERT INTO sd SELECT 'r' || (i % 97) || '#' || i, 'cf', 'q', i, i FROM generate_series(1, 100000) i;
VACUUM sd;
INSERT INTO sd SELECT 's' || i, 'cf', 'q', i, i FROM generate_series(1, 20000) i;
VACUUM sd;
SELECT pg_total_relation_size('sd') > 256 * 1024 AS loaded;
DELETE FROM sd;
VACUUM sd;
SELECT pg_total_relation_size('sd') <= 64 * 1024 AS at_most_64_kb, runs, cells FROM wide.stats('sd');
-- a few deletes of a small table (its runs under 64 MB) are merged away by
-- VACUUM at once, tombstones and cells: one run of 48,888 cells (before
-- issue 28 they stayed until a major compaction: 2 runs, 51,112 records)
INSERT INTO sd SELECT 'r' || i, 'cf', 'q', i, i FROM generate_series(1, 50000) i;
VACUUM sd;
SET wide.enable_range_delete = off;  -- (one tombstone per cell)
DELETE FROM sd WHERE row_key < 'r11';
RESET wide.enable_range_delete;
VACUUM sd;
SELECT runs, cells FROM wide.stats('sd');
SELECT count(*) FROM sd;
DROP TABLE sd;
