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
DROP TABLE tm, tm_twin, rk;
