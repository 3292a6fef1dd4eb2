--
-- compact_summary: wide.compact returns what it did (issue 28 item 3), and
-- VACUUM VERBOSE says the same.  Every count is checked against what the
-- data makes it (each kind of dropped record made on purpose, in known
-- numbers), against wide.stats before and after, and against count(*).
--
SET client_min_messages = warning;
CREATE TABLE cs (row_key text, family text, qualifier text, ts int8, value int8)
  USING wide WITH (autovacuum_enabled = false);
SELECT wide.create_family('cs', 'v', max_versions => 2);
SELECT wide.create_family('cs', 'a', max_age => '1 day');
SELECT wide.create_family('cs', 'x');
SELECT wide.create_family('cs', 'z');
SELECT wide.create_family('cs', 's', aggregate => 'sum');
-- 10 columns of 5 versions: 30 past max_versions
INSERT INTO cs SELECT 'r' || i, 'v', 'q', k * 1000000, k FROM generate_series(1, 10) i, generate_series(1, 5) k;
-- 10 cells two days old (expired) and 10 of now
INSERT INTO cs SELECT 'r' || i, 'a', 'old', (extract(epoch FROM now() - interval '2 days') * 1000000)::int8, i FROM generate_series(1, 10) i;
INSERT INTO cs SELECT 'r' || i, 'a', 'new', (extract(epoch FROM now()) * 1000000)::int8, i FROM generate_series(1, 10) i;
-- 20 cells, 5 deleted (5 column tombstones, dropped at the bottom), 3 written again
INSERT INTO cs SELECT 'r' || i, 'x', 'q', 7, i FROM generate_series(1, 20) i;
DELETE FROM cs WHERE family = 'x' AND value <= 5;
INSERT INTO cs SELECT 'r' || i, 'x', 'q', 7, 100 + i FROM generate_series(18, 20) i;
-- 4 cells of an aborted transaction
BEGIN;
INSERT INTO cs SELECT 'r' || i, 'x', 'q', 9, i FROM generate_series(1, 4) i;
ROLLBACK;
-- 6 cells of a family dropped
INSERT INTO cs SELECT 'r' || i, 'z', 'q', 1, i FROM generate_series(1, 6) i;
SELECT wide.drop_family('cs', 'z');
-- 3 sums of 4 inputs each: 9 inputs folded into the others
INSERT INTO cs SELECT 'r' || i, 's', 'n', 1, k FROM generate_series(1, 3) i, generate_series(1, 4) k;

CREATE TABLE before AS SELECT * FROM wide.stats('cs');
CREATE TABLE summary AS SELECT * FROM wide.compact('cs', major => true);
CREATE TABLE after AS SELECT * FROM wide.stats('cs');
SELECT flushes, compactions, runs_in, runs_out, cells_deleted, cells_superseded,
       cells_expired, cells_past_max_versions, cells_aborted,
       cells_of_dropped_families, tombstones_dropped, cells_folded,
       elapsed >= '0'::interval AS elapsed_ok
  FROM summary;
-- what went in is what came out and what was dropped
SELECT cells_in - cells_out = cells_deleted + cells_superseded + cells_expired
       + cells_past_max_versions + cells_aborted + cells_of_dropped_families
       + tombstones_dropped + cells_folded AS balanced
  FROM summary;
-- the flush read every record written (wide.stats' cells before), the
-- major compaction read the flush's run and wrote what is left: the cells
-- a read returns, and wide.stats' cells after
SELECT s.cells_in = b.cells + s.cells_out - a.cells AS cells_in_ok,
       s.cells_out - a.cells = a.cells AS second_pass_dropped_nothing,
       a.cells = (SELECT count(*) FROM cs) AS cells_are_rows,
       a.runs = b.runs - s.runs_in + s.runs_out AS runs_ok,
       a.stored_bytes - b.stored_bytes + (a.write_area_pages - b.write_area_pages) * 8192
         = s.bytes_written - s.bytes_read AS bytes_ok,
       s.bytes_read > 0 AND s.bytes_written > 0 AS bytes_counted
  FROM summary s, before b, after a;
SELECT count(*), sum(value) FROM cs;

-- again: nothing to flush; a major compaction of the one run rewrites it
SELECT flushes, compactions, runs_in, runs_out, cells_in = cells_out AS same_cells,
       cells_in = (SELECT count(*) FROM cs) AS all_cells,
       bytes_read = (SELECT stored_bytes FROM after) AS read_the_run,
       cells_deleted + cells_superseded + cells_expired + cells_past_max_versions
       + cells_aborted + cells_of_dropped_families + tombstones_dropped AS dropped
  FROM wide.compact('cs', major => true);
-- and a minor one has nothing to do
SELECT flushes, compactions, runs_in, runs_out, cells_in, cells_out, bytes_read, bytes_written
  FROM wide.compact('cs');

-- runs merged by the policy: five flushes of 10 cells, then one compaction
-- of the five runs (wide.compact flushes first: the sixth run)
TRUNCATE cs;
DO $$
BEGIN
  FOR b IN 1..5 LOOP
    INSERT INTO cs SELECT 'b' || b || '.' || i, 'x', 'q', 1, i FROM generate_series(1, 10) i;
    PERFORM wide.compact('cs');
  END LOOP;
END $$;
SELECT runs FROM wide.stats('cs');
INSERT INTO cs SELECT 'c' || i, 'x', 'q', 1, i FROM generate_series(1, 10) i;
SELECT flushes, compactions, runs_in, runs_out, cells_in, cells_out
  FROM wide.compact('cs');
SELECT runs, cells FROM wide.stats('cs');

-- VACUUM VERBOSE says the same (the detail, with the time, is not shown)
INSERT INTO cs SELECT 'd' || i, 'x', 'q', 1, i FROM generate_series(1, 10) i;
DELETE FROM cs WHERE row_key LIKE 'b1.%';
\set VERBOSITY terse
SET client_min_messages = info;
VACUUM (VERBOSE, TRUNCATE false) cs;
RESET client_min_messages;
\set VERBOSITY default
SELECT count(*) FROM cs;

-- a parent of tablets: the sums over its tablets
CREATE TABLE cst (row_key text COLLATE "C", family text COLLATE "C",
                  qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
CREATE TABLE cst_a PARTITION OF cst FOR VALUES FROM (MINVALUE) TO ('m') USING wide;
CREATE TABLE cst_m PARTITION OF cst FOR VALUES FROM ('m') TO (MAXVALUE) USING wide;
SELECT wide.create_family('cst', 'v', max_versions => 1);
INSERT INTO cst SELECT k || i, 'v', 'q', t, t FROM unnest(ARRAY['a', 'x']) k, generate_series(1, 10) i, generate_series(1, 3) t;
INSERT INTO cst SELECT 'b' || i, 'v', 'q', 1, 1 FROM generate_series(1, 5) i;
SELECT flushes, compactions, runs_in, runs_out, cells_in, cells_out, cells_superseded, cells_past_max_versions
  FROM wide.compact('cst', major => true);
SELECT sum(cells) AS cells_left, (SELECT count(*) FROM cst) AS rows
  FROM unnest(ARRAY['cst_a', 'cst_m']::regclass[]) t, LATERAL wide.stats(t);
DROP TABLE cst;

-- a role that does not own the table gets no summary: nothing is done
CREATE ROLE cs_reader;
GRANT SELECT ON cs TO cs_reader;
SET ROLE cs_reader;
SELECT * FROM wide.compact('cs');
RESET ROLE;
DROP TABLE cs, before, summary, after;
DROP ROLE cs_reader;
