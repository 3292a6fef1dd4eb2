-- a bulk load's runs cut their data blocks where the row key's leading
-- part changes (engine/segment_writer.c, WideSegmentWriterCutAtPrefix), so
-- that the merge of time-major runs (every host in every run) passes every
-- data block through (engine/blockpass.c) and merges no record one by one;
-- the merged table is what a record-by-record merge writes.
SET wide.block_size = 1024;
CREATE TABLE tm (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
CREATE TABLE tm_twin (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide;
SELECT wide.create_family(t, 'cpu', max_versions => 1)
  FROM unnest(ARRAY['tm', 'tm_twin']::regclass[]) t;
-- three loads, each every host for a stretch of time, in time order (as
-- TSBS writes its CSV); each is written as one run
CREATE FUNCTION pg_temp.load(tbl regclass, k int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s
    SELECT 'host_' || h || '#' || (1451606400 + (%s * 40 + s) * 10),
           'cpu', 'usage_' || q, to_timestamp(1451606400 + (%s * 40 + s) * 10),
           (h * 7 + s * 3 + q) %% 101
      FROM generate_series(0, 39) s, generate_series(1, 25) h, generate_series(1, 10) q
     ORDER BY s, h, q$q$, tbl, k, k);
END $$;
SELECT pg_temp.load('tm', k), pg_temp.load('tm_twin', k) FROM generate_series(0, 2) k;
-- the merge: every block passed, no record merged one by one
SET client_min_messages = debug1;
SELECT FROM wide.compact('tm', major => true);
RESET client_min_messages;
SET wide.compaction_pass_through = off;
SELECT FROM wide.compact('tm_twin', major => true);
RESET wide.compaction_pass_through;
SELECT count(*) AS runs FROM wide.runs('tm');
SELECT (SELECT count(*) FROM tm) AS cells, (SELECT count(*) FROM tm_twin) AS twin_cells;
SELECT count(*) AS only_in_tm FROM (TABLE tm EXCEPT ALL TABLE tm_twin) x;
SELECT count(*) AS only_in_twin FROM (TABLE tm_twin EXCEPT ALL TABLE tm) x;
SELECT * FROM wide.verify('tm');
-- point reads and a range of one host, through the passed blocks
SELECT count(*), min(value), max(value) FROM tm WHERE row_key = 'host_7#1451607000';
SELECT count(*) FROM tm WHERE row_key >= 'host_12#' AND row_key < 'host_12$';
-- keys without a common leading part (random): blocks cut by size only,
-- as before; a bulk load of them reads back whole
CREATE TABLE rk (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('rk', 'f');
INSERT INTO rk SELECT md5(i::text), 'f', 'q', timestamptz '2030-01-01', i
  FROM generate_series(1, 20000) i;
SELECT count(*), sum(value) FROM rk;
SELECT * FROM wide.verify('rk');
-- a load whose hosts' stretches are short (each host's rows of a load fill
-- about a block and a third): cut at every host they would leave a nearly
-- empty block each, for good (passed blocks are never joined), so they are
-- not cut, and the merge joins what it would leave short
-- (engine/segment_writer.c, WideSegmentWriterJoin): the table has about as
-- many blocks as one merged record by record, and the same cells
CREATE TABLE ss (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
CREATE TABLE ss_twin (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide;
SELECT wide.create_family(t, 'cpu', max_versions => 1)
  FROM unnest(ARRAY['ss', 'ss_twin']::regclass[]) t;
CREATE FUNCTION pg_temp.load_short(tbl regclass, k int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s
    SELECT 'host_' || h || '#' || (1451606400 + (%s * 8 + s) * 10),
           'cpu', 'usage_' || q, to_timestamp(1451606400 + (%s * 8 + s) * 10),
           (h * 7 + s * 3 + q) %% 101
      FROM generate_series(0, 7) s, generate_series(1, 40) h, generate_series(1, 10) q
     ORDER BY s, h, q$q$, tbl, k, k);
END $$;
-- the data blocks a full scan reads
CREATE FUNCTION pg_temp.blocks(tbl regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
BEGIN
  SET LOCAL max_parallel_workers_per_gather = 0;
  EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) '
                 'SELECT count(*) FROM %s', tbl) INTO plan;
  RETURN jsonb_path_query_first(plan, 'strict $.**."Blocks Read"');
END $$;
SELECT pg_temp.load_short('ss', k), pg_temp.load_short('ss_twin', k)
  FROM generate_series(0, 5) k;
-- (and a load that aborts, which the merge drops)
BEGIN;
SELECT pg_temp.load_short('ss', k), pg_temp.load_short('ss_twin', k)
  FROM generate_series(6, 7) k;
ROLLBACK;
SELECT FROM wide.compact('ss', major => true);
SET wide.compaction_pass_through = off;
SELECT FROM wide.compact('ss_twin', major => true);
RESET wide.compaction_pass_through;
SELECT pg_temp.blocks('ss') <= ceil(pg_temp.blocks('ss_twin') * 1.03) AS few_blocks;
SELECT (SELECT count(*) FROM ss) AS cells, (SELECT count(*) FROM ss_twin) AS twin_cells;
SELECT count(*) AS only_in_ss FROM (TABLE ss EXCEPT ALL TABLE ss_twin) x;
SELECT count(*) AS only_in_twin FROM (TABLE ss_twin EXCEPT ALL TABLE ss) x;
SELECT * FROM wide.verify('ss');
SELECT count(*), sum(value) FROM ss WHERE row_key >= 'host_12#' AND row_key < 'host_12$';
-- parts a little over two blocks (full-precision floats, 29 readings of a
-- host in each load): the writer knows how much of a part is left, so the
-- part's last few rows join its second block instead of making a sliver of
-- a third that the cut at the next host would leave; every block of the
-- merge passes (with the cut made from four blocks up, 100 of 165 were
-- merged one record at a time)
CREATE TABLE tj (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
CREATE TABLE tj_twin (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide;
SELECT wide.create_family(t, 'cpu', max_versions => 1)
  FROM unnest(ARRAY['tj', 'tj_twin']::regclass[]) t;
CREATE FUNCTION pg_temp.load_floats(tbl regclass, k int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s
    SELECT 'host_' || h || '#' || (1451606400 + (%s * 29 + s) * 10),
           'cpu', 'usage_' || q, to_timestamp(1451606400 + (%s * 29 + s) * 10),
           sin(h * 7 + s * 3 + q * 0.1)
      FROM generate_series(0, 28) s, generate_series(1, 25) h, generate_series(1, 10) q
     ORDER BY s, h, q$q$, tbl, k, k);
END $$;
SELECT pg_temp.load_floats('tj', k), pg_temp.load_floats('tj_twin', k)
  FROM generate_series(0, 2) k;
SET client_min_messages = debug1;
SELECT FROM wide.compact('tj', major => true);
RESET client_min_messages;
SET wide.compaction_pass_through = off;
SELECT FROM wide.compact('tj_twin', major => true);
RESET wide.compaction_pass_through;
-- rows written among host_12's: its blocks no longer pass, and are merged
-- with their values (a block that may pass is read without them first)
INSERT INTO tj SELECT 'host_12#' || (1451606405 + s * 10), 'cpu', 'usage_1',
    to_timestamp(1451606405 + s * 10), cos(s) FROM generate_series(0, 86) s;
INSERT INTO tj_twin SELECT 'host_12#' || (1451606405 + s * 10), 'cpu', 'usage_1',
    to_timestamp(1451606405 + s * 10), cos(s) FROM generate_series(0, 86) s;
SET client_min_messages = debug1;
SELECT FROM wide.compact('tj', major => true);
RESET client_min_messages;
SET wide.compaction_pass_through = off;
SELECT FROM wide.compact('tj_twin', major => true);
RESET wide.compaction_pass_through;
SELECT count(*) AS only_in_tj FROM (TABLE tj EXCEPT ALL TABLE tj_twin) x;
SELECT count(*) AS only_in_twin FROM (TABLE tj_twin EXCEPT ALL TABLE tj) x;
SELECT * FROM wide.verify('tj');
SELECT count(*), round(sum(value)::numeric, 6) FROM tj WHERE row_key >= 'host_12#' AND row_key < 'host_12$';
DROP TABLE tm, tm_twin, rk, ss, ss_twin, tj, tj_twin;
