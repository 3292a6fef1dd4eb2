--
-- stats_counts: wide.stats counts every record the table stores -- in the
-- write area's lanes, in its runs (COPY, large statements) and in the runs
-- -- so once the writers have committed it agrees with a scan for a table
-- of distinct cells; versions, tombstones and aborted records count until
-- compaction removes them.
--
CREATE TABLE sc (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('sc', 'f');
-- COPY: a run of the write area
COPY sc FROM STDIN (FORMAT csv);
c1,f,q,1,a
c2,f,q,1,b
c3,f,q,1,c
\.
SELECT s.cells, (SELECT count(*) FROM sc) AS scanned, s.write_area_runs FROM wide.stats('sc') s;
-- single-row INSERTs: records in the lanes
INSERT INTO sc VALUES ('i1', 'f', 'q', 1, 'x');
INSERT INTO sc VALUES ('i2', 'f', 'q', 1, 'x');
SELECT s.cells, (SELECT count(*) FROM sc) AS scanned FROM wide.stats('sc') s;
-- a large INSERT ... SELECT
INSERT INTO sc SELECT 'k' || i, 'f', 'q', 1, 'v' FROM generate_series(1, 20000) i;
SELECT s.cells, (SELECT count(*) FROM sc) AS scanned FROM wide.stats('sc') s;
-- flushed and compacted: the same
SELECT FROM wide.compact('sc');
SELECT s.cells, (SELECT count(*) FROM sc) AS scanned FROM wide.stats('sc') s;
-- an overwritten cell counts twice until a major compaction
INSERT INTO sc VALUES ('i1', 'f', 'q', 1, 'y');
SELECT s.cells, (SELECT count(*) FROM sc) AS scanned FROM wide.stats('sc') s;
SELECT FROM wide.compact('sc', major => true);
SELECT s.cells, (SELECT count(*) FROM sc) AS scanned, s.write_area_pages, s.write_area_runs FROM wide.stats('sc') s;
DROP TABLE sc;
