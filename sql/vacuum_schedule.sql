-- VACUUM after a time-major bulk load (issue 26 item 6): every record is
-- merged once.  A COPY that left 16 runs and 8 bulk runs in the write area
-- (the last one small) was merged three times over: the flush made room
-- for 9 runs by merging 3 (it needs 8), then the policy merged the newest
-- 15, then their output with the 8 older ones.  Now the flush makes the
-- room its sealed generation needs (none here), and the policy's step
-- takes at once the runs its next step would merge with its output
-- (engine/compaction.c): one merge of 24 runs.  The merged table reads as
-- one merged record by record, and the blocks' survey that reads their
-- key sections only (WideBlockSurvey) passes the same blocks as the one
-- that decodes every record.
SET wide.block_size = 1024;
SET wide.statement_run_size = 0;	-- (every load a run, the short one too)
-- (no autovacuum: the VACUUMs below are the merges shown)
CREATE TABLE vs (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide WITH (autovacuum_enabled = false);
CREATE TABLE vs_slow (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide WITH (autovacuum_enabled = false);
CREATE TABLE vs_twin (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide WITH (autovacuum_enabled = false);
SELECT wide.create_family(t, 'cpu', max_versions => 1)
  FROM unnest(ARRAY['vs', 'vs_slow', 'vs_twin']::regclass[]) t;
-- 24 loads, each every host for a stretch of time, in time order (as TSBS
-- writes its CSV), each one bulk run; the last one shorter
CREATE FUNCTION pg_temp.load(tbl regclass, k int, steps int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s
    SELECT 'host_' || h || '#' || (1451606400 + (%s * 20 + s) * 10),
           'cpu', 'usage_' || q, to_timestamp(1451606400 + (%s * 20 + s) * 10),
           (h * 7 + s * 3 + q) %% 101
      FROM generate_series(0, %s - 1) s, generate_series(1, 10) h,
           generate_series(1, 10) q
     ORDER BY s, h, q$q$, tbl, k, k, steps);
END $$;
SELECT count(pg_temp.load(t, k, CASE WHEN k = 23 THEN 4 ELSE 20 END))
  FROM unnest(ARRAY['vs', 'vs_slow', 'vs_twin']::regclass[]) t,
       generate_series(0, 23) k;
-- 16 runs (two flushes of 8 bulk runs), 8 bulk runs in the write area
SELECT count(*) AS runs, sum(cells) AS cells FROM wide.runs('vs');
SELECT count(*) AS runs, sum(cells) AS cells FROM wide.runs('vs_slow');
-- one merge of the 24 runs: blocks passed, and merged where a host's part
-- of a run is under a block (bulk runs cut parts of a block or more)
SET client_min_messages = debug1;
VACUUM vs;
RESET client_min_messages;
SELECT count(*) AS runs, sum(cells) AS cells FROM wide.runs('vs');
-- the survey that decodes every record: the same merge, the same run
SET wide.compaction_fast_survey = off;
SET client_min_messages = debug1;
VACUUM vs_slow;
RESET client_min_messages;
RESET wide.compaction_fast_survey;
SELECT a.cells = b.cells AS same_cells, a.raw_bytes = b.raw_bytes AS same_raw,
       a.stored_bytes = b.stored_bytes AS same_stored,
       a.first_key = b.first_key AND a.last_key = b.last_key AS same_keys
  FROM wide.runs('vs') a, wide.runs('vs_slow') b;
-- and what a merge record by record writes
SET wide.compaction_pass_through = off;
VACUUM vs_twin;
RESET wide.compaction_pass_through;
SELECT count(*) AS only_in_vs FROM (TABLE vs EXCEPT ALL TABLE vs_twin) x;
SELECT count(*) AS only_in_twin FROM (TABLE vs_twin EXCEPT ALL TABLE vs) x;
SELECT count(*) AS only_in_slow FROM (TABLE vs_slow EXCEPT ALL TABLE vs) x;
SELECT * FROM wide.verify('vs');
-- point reads and a range of one host, through the passed blocks
SELECT count(*), min(value), max(value) FROM vs WHERE row_key = 'host_7#1451607000';
SELECT count(*) FROM vs WHERE row_key >= 'host_3#' AND row_key < 'host_3$';
-- a block the survey refuses (a family whose GC collects its oldest
-- cells): merged record by record, in both surveys, and collected
CREATE TABLE vg (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide WITH (autovacuum_enabled = false);
SELECT wide.create_family('vg', 'cpu', max_versions => 1);
SELECT count(pg_temp.load('vg', k, 20)) FROM generate_series(0, 3) k;
SELECT wide.alter_family('vg', 'cpu', max_age => interval '1 day');
SET client_min_messages = debug1;
SELECT FROM wide.compact('vg', major => true);
RESET client_min_messages;
SELECT count(*) AS cells_left FROM vg;
DROP TABLE vs, vs_slow, vs_twin, vg;
RESET wide.statement_run_size;
RESET wide.block_size;
