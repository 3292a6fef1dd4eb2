-- wide.drop_before and time-aware runs (engine/drops.c, engine/retention.c)
SET wide.time_window = '1d';
SET timezone = 'UTC';
CREATE TABLE dm (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('dm', 'm', max_age => '30 days');
SELECT wide.create_family('dm', 'k');
-- ten days of readings, 4 hosts x 24 hours a day, ending at the start of today
CREATE TEMP TABLE base AS SELECT date_trunc('day', now()) AS d0;
INSERT INTO dm SELECT 'h' || h || '#' || d, 'm', 'cpu',
       (SELECT d0 FROM base) - (d || ' days')::interval + (hr || ' hours')::interval, d * 100 + hr
  FROM generate_series(1, 10) d, generate_series(0, 23) hr, generate_series(1, 4) h;
INSERT INTO dm VALUES ('h1#meta', 'k', 'name', (SELECT d0 FROM base) - interval '20 days', 1);
SELECT FROM wide.compact('dm', major => true);
-- one run per day window, plus one for the family without max_age
SELECT count(*) AS runs, sum(cells) AS cells FROM wide.runs('dm');
SELECT count(*) FROM dm;
CREATE TEMP TABLE segs_before AS SELECT segment FROM wide.runs('dm');

-- a rollback keeps the cells
BEGIN;
SELECT wide.drop_before('dm', (SELECT d0 FROM base) - interval '7 days');
SELECT count(*) FROM dm;
ROLLBACK;
SELECT count(*) FROM dm;

-- committed: cells before day -7 are gone for every row and family
SELECT wide.drop_before('dm', (SELECT d0 FROM base) - interval '7 days');
SELECT count(*), min(ts) >= (SELECT d0 FROM base) - interval '7 days' AS all_newer FROM dm;
SELECT count(*) FROM wide.read_rows(NULL::dm, prefix => 'h1#');
-- a write after the drop, even with an older time, is kept (write order)
INSERT INTO dm VALUES ('h9#late', 'm', 'cpu', (SELECT d0 FROM base) - interval '9 days', 42);
SELECT row_key, value FROM dm WHERE row_key = 'h9#late';
-- VACUUM frees the runs that held only dropped cells, rewriting none of the
-- others (TRUNCATE false: giving the freed pages back to the file system
-- would move the runs at the end of this small table down, truncate.c)
VACUUM (TRUNCATE false) dm;
SELECT count(*) AS runs_left FROM wide.runs('dm');
SELECT count(*) AS rewritten FROM wide.runs('dm') r
 WHERE r.segment NOT IN (SELECT segment FROM segs_before) AND r.cells > 1;
SELECT count(*) FROM dm;

-- the family form drops one family only
SELECT wide.drop_before('dm', 'k', now());
SELECT family, count(*) FROM dm GROUP BY family ORDER BY family;

-- lowering max_age: whole windows past it go, nothing is rewritten (once
-- every family of the table expires by age: here after k is dropped)
SELECT wide.drop_family('dm', 'k');
DROP TABLE segs_before;
CREATE TEMP TABLE segs_before AS SELECT segment FROM wide.runs('dm');
-- (the age puts the cut at noon of day -4, whatever the time of day: with
-- '4 days', day -4's window would go after 23:00 and stay before)
SELECT now() - ((SELECT d0 FROM base) - interval '4 days' + interval '12 hours') AS age4 \gset
SELECT wide.alter_family('dm', 'm', max_age => :'age4'::interval);
SELECT count(*) FILTER (WHERE ts < (SELECT d0 FROM base) - interval '4 days') AS expired_seen,
       count(*) FILTER (WHERE ts >= (SELECT d0 FROM base) - interval '3 days') AS recent FROM dm;
VACUUM (TRUNCATE false) dm;
SELECT count(*) AS rewritten FROM wide.runs('dm') r
 WHERE r.segment NOT IN (SELECT segment FROM segs_before);
SELECT count(*) AS runs_left FROM wide.runs('dm');
SELECT count(*) FILTER (WHERE ts < (SELECT d0 FROM base) - interval '4 days') AS expired_seen,
       count(*) FILTER (WHERE ts >= (SELECT d0 FROM base) - interval '3 days') AS recent FROM dm;

-- a backfill into an old window rewrites only the new cells
DROP TABLE segs_before;
CREATE TEMP TABLE segs_before AS SELECT segment FROM wide.runs('dm');
INSERT INTO dm SELECT 'h' || h || '#b', 'm', 'cpu',
       (SELECT d0 FROM base) - interval '3 days' + (m || ' minutes')::interval, m
  FROM generate_series(0, 59) m, generate_series(1, 4) h;
VACUUM (TRUNCATE false) dm;
SELECT count(*) AS old_runs_kept FROM wide.runs('dm') WHERE segment IN (SELECT segment FROM segs_before);
SELECT (SELECT count(*) FROM segs_before) AS old_runs;
SELECT count(*) FILTER (WHERE ts < (SELECT d0 FROM base) - interval '4 days') AS expired_seen,
       count(*) FILTER (WHERE ts >= (SELECT d0 FROM base) - interval '3 days') AS recent FROM dm;
SELECT * FROM wide.verify('dm');

-- bad input: nothing is written
\set VERBOSITY terse
CREATE TABLE heap_t (a int);
SELECT wide.drop_before('heap_t', now());
SELECT wide.drop_before('dm', NULL::timestamptz);
SELECT wide.drop_before(NULL, now());
SELECT wide.drop_before('dm', NULL, now());
SELECT wide.drop_before('dm', 'nosuch', now());
SELECT wide.drop_before('dm', 'not a time');
SELECT count(*) FILTER (WHERE ts < (SELECT d0 FROM base) - interval '4 days') AS expired_seen,
       count(*) FILTER (WHERE ts >= (SELECT d0 FROM base) - interval '3 days') AS recent FROM dm;

-- privileges: DELETE, as wide.delete_cells
CREATE ROLE dm_reader;
CREATE ROLE dm_deleter;
GRANT USAGE ON SCHEMA wide TO dm_reader, dm_deleter;
GRANT SELECT ON dm TO dm_reader;
GRANT SELECT, DELETE ON dm TO dm_deleter;
SET ROLE dm_reader;
SELECT wide.drop_before('dm', now());
RESET ROLE;
SELECT count(*) > 0 AS kept FROM dm;
SELECT d0 - interval '2 days' AS cut FROM base \gset
SET ROLE dm_deleter;
SELECT wide.drop_before('dm', 'm', :'cut'::timestamptz);
RESET ROLE;
SELECT count(*) FILTER (WHERE ts < (SELECT d0 FROM base) - interval '4 days') AS expired_seen,
       count(*) FILTER (WHERE ts >= (SELECT d0 FROM base) - interval '3 days') AS recent FROM dm;
-- row-level security: refused, as the other functions
ALTER TABLE dm ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON dm USING (row_key LIKE 'h1%');
SET ROLE dm_deleter;
SELECT wide.drop_before('dm', now());
RESET ROLE;
ALTER TABLE dm DISABLE ROW LEVEL SECURITY;
\set VERBOSITY default

-- too many drops not yet applied: a clear error, until VACUUM applies them
CREATE TABLE dm2 (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('dm2', 'm');
INSERT INTO dm2 VALUES ('a', 'm', 'q', now() - interval '1 hour', 1);
BEGIN;
SELECT wide.drop_before('dm2', '2000-01-01'::timestamptz + (i || ' days')::interval) FROM generate_series(1, 8) i;
SELECT wide.drop_before('dm2', '2001-01-01'::timestamptz);
ROLLBACK;
SELECT wide.drop_before('dm2', '2001-01-01'::timestamptz);
SELECT count(*) FROM dm2;
-- drops alone, with no write after them: the write area holds nothing
-- they could delete, so VACUUM and a major compaction apply and forget
-- them (they used to wait for a write to flush, and stayed for ever)
VACUUM dm2;
SELECT wide.drop_before('dm2', '2000-01-01'::timestamptz + (i || ' days')::interval) FROM generate_series(1, 7) i;
VACUUM dm2;
SELECT FROM wide.compact('dm2', major => true);
VACUUM dm2;
SELECT wide.drop_before('dm2', '2001-06-01'::timestamptz + (i || ' days')::interval) FROM generate_series(1, 8) i;
SELECT count(*) FROM dm2;

-- a family kept for ever does not keep the runs alive once it is dropped
-- before their time: each family's cells are dead by its age or by a drop
-- (of it or of every family), so the runs go without rewriting
CREATE TABLE dk (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('dk', 'm', max_age => '30 days');
SELECT wide.create_family('dk', 'k');
INSERT INTO dk SELECT 'h' || h || '#' || d, 'm', 'cpu',
       (SELECT d0 FROM base) - (d || ' days')::interval + (hr || ' hours')::interval, d * 100 + hr
  FROM generate_series(1, 10) d, generate_series(0, 23) hr, generate_series(1, 4) h;
INSERT INTO dk VALUES ('h1#meta', 'k', 'name', (SELECT d0 FROM base) - interval '20 days', 1);
SELECT FROM wide.compact('dk', major => true);
DROP TABLE segs_before;
CREATE TEMP TABLE segs_before AS SELECT segment FROM wide.runs('dk');
SELECT count(*) AS runs FROM segs_before;
-- m dropped before day -7: the windows of m older than that go (each run
-- names its families: k's cell is in the rest run only)
SELECT wide.drop_before('dk', 'm', (SELECT d0 FROM base) - interval '7 days');
VACUUM (TRUNCATE false) dk;
SELECT count(*) AS runs_left FROM wide.runs('dk');
-- k dropped before day -5 too: the runs older than day -7 (and k's own) go
SELECT wide.drop_before('dk', 'k', (SELECT d0 FROM base) - interval '5 days');
VACUUM (TRUNCATE false) dk;
SELECT count(*) AS runs_left FROM wide.runs('dk');
SELECT count(*) AS rewritten FROM wide.runs('dk') WHERE segment NOT IN (SELECT segment FROM segs_before);
SELECT family, count(*), min(ts) >= (SELECT d0 FROM base) - interval '7 days' AS all_newer
  FROM dk GROUP BY family ORDER BY family;
-- by age: m expires after 4 days, k is dropped up to now: the windows
-- older than 4 days go, by m's age and k's drop together
SELECT wide.drop_before('dk', 'k', now());
SELECT now() - ((SELECT d0 FROM base) - interval '4 days' + interval '12 hours') AS age4 \gset
SELECT wide.alter_family('dk', 'm', max_age => :'age4'::interval);
VACUUM (TRUNCATE false) dk;
SELECT count(*) AS runs_left FROM wide.runs('dk');
SELECT count(*) AS rewritten FROM wide.runs('dk') WHERE segment NOT IN (SELECT segment FROM segs_before);
-- (day -4 keeps its hours from noon on: 12 of them, or 11 if the
-- seconds since the age was taken put hour 12 past the cut)
SELECT count(*) FILTER (WHERE ts >= (SELECT d0 FROM base) - interval '3 days') AS cells_of_3_days,
       count(*) FILTER (WHERE ts < (SELECT d0 FROM base) - interval '3 days') BETWEEN 44 AND 48 AS half_of_day_4,
       min(ts) >= (SELECT d0 FROM base) - interval '4 days' + interval '12 hours' AS all_newer FROM dk;
SELECT * FROM wide.verify('dk');

DROP TABLE dm, dm2, dk, heap_t;
REVOKE USAGE ON SCHEMA wide FROM dm_reader, dm_deleter;
DROP ROLE dm_reader;
DROP ROLE dm_deleter;
