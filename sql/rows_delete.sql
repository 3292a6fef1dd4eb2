-- DELETE of the row form by tombstones of key ranges (issue 28; the FDW's
-- direct modify, src/am/rows_delete.c): a host's hour, an IN list, one
-- reading; row by row for other conditions, RETURNING, cells the
-- tombstones must not delete.  Every DELETE is run on a heap holding the
-- same readings and the two compared: the row count and the rows left.
SET max_parallel_workers_per_gather = 0;
SET timezone = 'UTC';
\set VERBOSITY terse
CREATE TABLE dc (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('dc', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE d (time timestamptz NOT NULL, tags_id int OPTIONS (width '4') NOT NULL,
                        usage_user float8, usage_system float8)
  SERVER wide_rows OPTIONS (cells 'dc', family 'cpu', key 'tags_id,time');
CREATE TABLE h (time timestamptz NOT NULL, tags_id int NOT NULL, usage_user float8, usage_system float8);
CREATE INDEX ON h (tags_id, time DESC);
INSERT INTO h SELECT '2016-01-01'::timestamptz + s * interval '10 s', t, (s * 7 + t) % 100,
                     CASE WHEN s % 3 = 0 THEN NULL ELSE (s + t) % 50 END
  FROM generate_series(0, 8639, 7) s, generate_series(1, 6) t;
INSERT INTO d SELECT * FROM h;
SELECT wide.compact('dc', major => true) IS NOT NULL AS compacted;
-- some readings still in the write area
INSERT INTO h VALUES ('2016-01-01 00:00:05', 2, 1, 1), ('2016-01-01 12:00:05', 3, 2, NULL);
INSERT INTO d VALUES ('2016-01-01 00:00:05', 2, 1, 1), ('2016-01-01 12:00:05', 3, 2, NULL);

CREATE FUNCTION same() RETURNS TABLE (heap bigint, rows bigint, differ bigint) LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM h), (SELECT count(*) FROM d),
         (SELECT count(*) FROM ((SELECT * FROM h EXCEPT ALL SELECT * FROM d)
                               UNION ALL (SELECT * FROM d EXCEPT ALL SELECT * FROM h)) x) $$;
SELECT * FROM same();
-- a DELETE on both: the row counts
CREATE FUNCTION del_both(cond text, OUT heap bigint, OUT rows bigint) LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM h WHERE ' || cond;
  GET DIAGNOSTICS heap = ROW_COUNT;
  EXECUTE 'DELETE FROM d WHERE ' || cond;
  GET DIAGNOSTICS rows = ROW_COUNT;
END $$;

-- the plans: a Foreign Delete, by tombstones when the conditions are key ranges
EXPLAIN (COSTS OFF) DELETE FROM d WHERE tags_id = 1 AND time >= '2016-01-01 01:00' AND time < '2016-01-01 02:00';
EXPLAIN (COSTS OFF) DELETE FROM d WHERE tags_id IN (1, 2);
EXPLAIN (COSTS OFF) DELETE FROM d WHERE tags_id = 1 AND time = '2016-01-01 01:00:00';
EXPLAIN (COSTS OFF) DELETE FROM d;
-- not key ranges: a value column, a time range without the host, two
-- equalities on a part, a range before an equality
EXPLAIN (COSTS OFF) DELETE FROM d WHERE tags_id = 1 AND usage_user > 50;
EXPLAIN (COSTS OFF) DELETE FROM d WHERE time >= '2016-01-01 01:00';
EXPLAIN (COSTS OFF) DELETE FROM d WHERE tags_id = 1 AND tags_id = 2;
EXPLAIN (COSTS OFF) DELETE FROM d WHERE tags_id > 1 AND time = '2016-01-01 01:00:00';

-- a host's hour, one reading, an IN list, a range of hosts: counts as the heap's
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  DELETE FROM d WHERE tags_id = 1 AND time >= '2016-01-01 01:00' AND time < '2016-01-01 02:00';
DELETE FROM h WHERE tags_id = 1 AND time >= '2016-01-01 01:00' AND time < '2016-01-01 02:00';
SELECT * FROM same();
SELECT * FROM del_both($$tags_id = 1 AND time >= '2016-01-01 02:00' AND time < '2016-01-01 03:00'$$);
SELECT * FROM same();
SELECT * FROM del_both($$tags_id = 2 AND time = '2016-01-01 00:00:05'$$);
SELECT * FROM del_both($$tags_id = 2 AND time = '2016-01-01 00:01:10'$$);
SELECT * FROM del_both($$tags_id = 2 AND time = '2016-01-01 00:01:11'$$);
SELECT * FROM del_both($$tags_id = 2 AND time = '2016-01-01 00:01:10.5'$$);
SELECT * FROM same();
-- readings (an IN list, one): by row, which costs less than row tombstones
-- (and takes no subtransaction for a loop of them)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  DELETE FROM d WHERE tags_id = 3 AND time IN ('2016-01-01 00:04:40', '2016-01-01 00:05:50');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  DELETE FROM d WHERE tags_id = 3 AND time = '2016-01-01 00:07:00';
DELETE FROM h WHERE tags_id = 3 AND time IN ('2016-01-01 00:04:40', '2016-01-01 00:05:50', '2016-01-01 00:07:00');
SELECT * FROM del_both($$tags_id = 3 AND time IN ('2016-01-01 12:00:05', '2016-01-01 00:02:20', '2016-01-01 00:03:30')$$);
SELECT * FROM del_both($$tags_id IN (4, 9, -1) AND time > '2016-01-01 20:00:00'$$);
SELECT * FROM del_both($$tags_id = 3 AND time > '2016-01-01 20:00:00.5' AND time <= '2016-01-01 21:00:00'$$);
SELECT * FROM same();
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM d WHERE tags_id >= 5 AND tags_id < 6;
DELETE FROM h WHERE tags_id >= 5 AND tags_id < 6;
SELECT * FROM same();
-- parameters (a generic plan)
SET plan_cache_mode = force_generic_plan;
CREATE FUNCTION both_params(k int, t timestamptz, OUT heap bigint, OUT rows bigint) LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM h WHERE tags_id = k AND time < t;
  GET DIAGNOSTICS heap = ROW_COUNT;
  DELETE FROM d WHERE tags_id = k AND time < t;
  GET DIAGNOSTICS rows = ROW_COUNT;
END $$;
SELECT * FROM both_params(6, '2016-01-01 03:00');
SELECT * FROM both_params(6, NULL);
SELECT * FROM both_params(6, '2016-01-01 03:30:00.5');
RESET plan_cache_mode;
SELECT * FROM same();
-- row by row: a value column's condition, RETURNING
SELECT * FROM del_both($$tags_id = 2 AND usage_user > 90$$);
DELETE FROM h WHERE tags_id = 2 AND time < '2016-01-01 00:05' RETURNING *;
DELETE FROM d WHERE tags_id = 2 AND time < '2016-01-01 00:05' RETURNING *;
WITH x AS (DELETE FROM d WHERE tags_id = 3 AND time < '2016-01-01 01:00' RETURNING usage_user)
  SELECT count(*), sum(usage_user) FROM x;
WITH x AS (DELETE FROM h WHERE tags_id = 3 AND time < '2016-01-01 01:00' RETURNING usage_user)
  SELECT count(*), sum(usage_user) FROM x;
SELECT * FROM same();
-- a volatile condition is tested once per row: each row deleted is returned
CREATE SEQUENCE rowdel_seq;
SELECT count(*) AS rows FROM d WHERE tags_id = 6;
WITH x AS (DELETE FROM d WHERE tags_id = 6 AND nextval('rowdel_seq') % 2 = 0 RETURNING tags_id)
  SELECT count(*) AS returned FROM x;
SELECT count(*) AS left, currval('rowdel_seq') AS tested FROM d WHERE tags_id = 6;
DELETE FROM h WHERE tags_id = 6;
DELETE FROM d WHERE tags_id = 6;
-- in a transaction: its own inserts are deleted, a rollback brings all back
BEGIN;
INSERT INTO d VALUES ('2016-01-02 00:00:00', 7, 1, 2), ('2016-01-02 00:00:10', 7, 3, NULL);
DELETE FROM d WHERE tags_id = 7;
SELECT count(*) FROM d WHERE tags_id = 7;
DELETE FROM d WHERE tags_id = 4;
DELETE FROM d;
SELECT count(*) FROM d;
ROLLBACK;
SELECT * FROM same();
-- wide.enable_range_delete = off: row by row
SET wide.enable_range_delete = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM d WHERE tags_id = 4 AND time < '2016-01-01 00:30';
RESET wide.enable_range_delete;
DELETE FROM h WHERE tags_id = 4 AND time < '2016-01-01 00:30';
SELECT * FROM same();

-- cells the tombstones must not delete: the DELETE goes row by row
SELECT wide.create_family('dc', 'other');
INSERT INTO dc VALUES ('0004#1451610000', 'other', 'note', '2016-01-01', 1);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM d WHERE tags_id = 4 AND time < '2016-01-01 06:00';
DELETE FROM h WHERE tags_id = 4 AND time < '2016-01-01 06:00';
SELECT row_key, family, qualifier FROM dc WHERE family = 'other';
-- a qualifier of the family that is no column: a row of it alone is no row
INSERT INTO dc VALUES ('0004#1451635200', 'cpu', 'not_a_column', '2016-01-01', 1);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM d WHERE tags_id = 4 AND time >= '2016-01-01 06:00';
DELETE FROM h WHERE tags_id = 4 AND time >= '2016-01-01 06:00';
SELECT row_key, family, qualifier FROM dc WHERE row_key LIKE '0004#%';
SELECT * FROM same();
-- a row key not of the form's shape in the range: an error, nothing deleted
INSERT INTO dc VALUES ('0001#x', 'cpu', 'usage_user', '2016-01-01', 1);
DELETE FROM d WHERE tags_id = 1;
DELETE FROM dc WHERE row_key = '0001#x';
SELECT * FROM same();

-- privileges: DELETE on the foreign table and on the wide table
CREATE ROLE regress_rowdel;
GRANT SELECT ON d, dc TO regress_rowdel;
SET ROLE regress_rowdel;
DELETE FROM d WHERE tags_id = 1;
RESET ROLE;
GRANT DELETE ON d TO regress_rowdel;
SET ROLE regress_rowdel;
DELETE FROM d WHERE tags_id = 1;
RESET ROLE;
GRANT DELETE ON dc TO regress_rowdel;
SET ROLE regress_rowdel;
DELETE FROM d WHERE tags_id = 1 AND time < '2016-01-01 00:10';
RESET ROLE;
DELETE FROM h WHERE tags_id = 1 AND time < '2016-01-01 00:10';
SELECT * FROM same();
-- row-level security on the wide table: refused
ALTER TABLE dc ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON dc USING (true);
SET ROLE regress_rowdel;
DELETE FROM d WHERE tags_id = 1;
RESET ROLE;
ALTER TABLE dc DISABLE ROW LEVEL SECURITY;
SELECT * FROM same();
-- a row trigger on the form: no direct modify, the trigger sees each row
CREATE FUNCTION rowdel_trig() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE NOTICE 'deleted % %', OLD.tags_id, OLD.time; RETURN OLD; END $$;
CREATE TRIGGER t BEFORE DELETE ON d FOR EACH ROW EXECUTE FUNCTION rowdel_trig();
EXPLAIN (COSTS OFF) DELETE FROM d WHERE tags_id = 1 AND time < '2016-01-01 00:20';
DELETE FROM d WHERE tags_id = 1 AND time < '2016-01-01 00:20';
DROP TRIGGER t ON d;
DELETE FROM h WHERE tags_id = 1 AND time < '2016-01-01 00:20';
SELECT * FROM same();
-- everything
DELETE FROM dc WHERE qualifier = 'not_a_column';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM d WHERE tags_id = 3;
DELETE FROM h WHERE tags_id = 3;
SELECT * FROM del_both('true');
SELECT * FROM same();
SELECT count(*) FROM dc WHERE family = 'cpu';

-- every key-part type: text, integer of any width, a reversed time in ms, a salt
CREATE TABLE kc (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('kc', 'm');
CREATE FOREIGN TABLE k (host text, n int8, at timestamptz OPTIONS (unit 'ms', width '13', reversed 'true'),
                        v float8)
  SERVER wide_rows OPTIONS (cells 'kc', family 'm', key 'host,n,at');
CREATE TABLE kh (host text, n int8, at timestamptz, v float8);
INSERT INTO kh SELECT 'h#' || (i % 3), i % 4 - 2, '2020-01-01'::timestamptz + i * interval '1.5 s', i
  FROM generate_series(1, 300) i;
INSERT INTO k SELECT * FROM kh;
CREATE FUNCTION ksame() RETURNS TABLE (heap bigint, rows bigint, differ bigint) LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM kh), (SELECT count(*) FROM k),
         (SELECT count(*) FROM ((SELECT * FROM kh EXCEPT ALL SELECT * FROM k)
                               UNION ALL (SELECT * FROM k EXCEPT ALL SELECT * FROM kh)) x) $$;
SELECT * FROM ksame();
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  DELETE FROM k WHERE host = 'h#1' AND n = -1 AND at >= '2020-01-01 00:01:00' AND at < '2020-01-01 00:02:00.5';
DELETE FROM kh WHERE host = 'h#1' AND n = -1 AND at >= '2020-01-01 00:01:00' AND at < '2020-01-01 00:02:00.5';
DELETE FROM k WHERE host = 'h#2' AND n IN (0, 1);
DELETE FROM kh WHERE host = 'h#2' AND n IN (0, 1);
DELETE FROM k WHERE host IN ('h#0', 'nobody');
DELETE FROM kh WHERE host IN ('h#0', 'nobody');
SELECT * FROM ksame();
CREATE FOREIGN TABLE ks (host text, at timestamptz, v float8)
  SERVER wide_rows OPTIONS (cells 'kc', family 's', key 'host,at', salt '4');
SELECT wide.create_family('kc', 's');
DELETE FROM kc WHERE family = 'm';
CREATE TABLE ksh (host text, at timestamptz, v float8);
INSERT INTO ksh SELECT 'h' || (i % 3), '2020-01-01'::timestamptz + i * interval '10 s', i
  FROM generate_series(1, 300) i;
INSERT INTO ks SELECT * FROM ksh;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  DELETE FROM ks WHERE host = 'h1' AND at < '2020-01-01 00:20';
DELETE FROM ksh WHERE host = 'h1' AND at < '2020-01-01 00:20';
DELETE FROM ks WHERE host = 'h2' AND at = '2020-01-01 00:00:20';
DELETE FROM ksh WHERE host = 'h2' AND at = '2020-01-01 00:00:20';
SELECT (SELECT count(*) FROM ksh) AS heap, (SELECT count(*) FROM ks) AS rows,
       (SELECT count(*) FROM (SELECT * FROM ksh EXCEPT SELECT * FROM ks) x) AS differ;

-- a form whose rows are a key and a time: row by row
CREATE FOREIGN TABLE series (sensor text, at timestamptz, v float8)
  SERVER wide_rows OPTIONS (cells 'kc', family 'm', key 'sensor', timestamp 'at');
INSERT INTO series VALUES ('s1', '2020-01-01', 1), ('s1', '2020-01-02', 2), ('s2', '2020-01-01', 3);
EXPLAIN (COSTS OFF) DELETE FROM series WHERE sensor = 's1';
DELETE FROM series WHERE sensor = 's1' AND at = '2020-01-01';
SELECT * FROM series ORDER BY 1, 2;

-- the count a block at a time (rows_delete.c check_rows): in a compacted
-- run, cells the tombstones must not delete -- a qualifier that is no
-- column, another family -- or that the rows cannot tell -- a second
-- version of a column -- are seen as the cell by cell count sees them
CREATE TABLE bc (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('bc', 'cpu');
SELECT wide.create_family('bc', 'other');
CREATE FOREIGN TABLE b (time timestamptz NOT NULL, tags_id int OPTIONS (width '4') NOT NULL,
                        usage_user float8, usage_system float8)
  SERVER wide_rows OPTIONS (cells 'bc', family 'cpu', key 'tags_id,time');
CREATE TABLE bh (time timestamptz NOT NULL, tags_id int NOT NULL, usage_user float8, usage_system float8);
INSERT INTO bh SELECT '2016-01-01'::timestamptz + s * interval '10 s', t, s % 100, (s + t) % 50
  FROM generate_series(0, 8639, 3) s, generate_series(1, 5) t;
INSERT INTO b SELECT * FROM bh;
INSERT INTO bc VALUES ('0002#1451606431', 'cpu', 'not_a_column', '2016-01-01', 1),
                      ('0003#1451610000', 'other', 'note', '2016-01-01', 1),
                      ('0004#1451610030', 'cpu', 'usage_user', '2015-12-31', 7);
SELECT wide.compact('bc', major => true) IS NOT NULL AS compacted;
CREATE FUNCTION bsame() RETURNS TABLE (heap bigint, rows bigint, differ bigint) LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM bh), (SELECT count(*) FROM b),
         (SELECT count(*) FROM ((SELECT * FROM bh EXCEPT ALL SELECT * FROM b)
                               UNION ALL (SELECT * FROM b EXCEPT ALL SELECT * FROM bh)) x) $$;
SELECT * FROM bsame();
-- plain rows: tombstones, the count exact
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM b WHERE tags_id = 1;
DELETE FROM bh WHERE tags_id = 1;
CREATE FUNCTION bdel(cond text, OUT heap bigint, OUT rows bigint) LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM bh WHERE ' || cond;
  GET DIAGNOSTICS heap = ROW_COUNT;
  EXECUTE 'DELETE FROM b WHERE ' || cond;
  GET DIAGNOSTICS rows = ROW_COUNT;
END $$;
SELECT * FROM bdel($$tags_id = 5 AND time >= '2016-01-01 03:00' AND time < '2016-01-01 20:00'$$);
SELECT * FROM bsame();
-- a row of a qualifier that is no column, another family's cell: row by
-- row, those cells kept
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM b WHERE tags_id = 2 AND time < '2016-01-01 01:00';
DELETE FROM bh WHERE tags_id = 2 AND time < '2016-01-01 01:00';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM b WHERE tags_id = 3;
DELETE FROM bh WHERE tags_id = 3;
SELECT row_key, family, qualifier FROM bc WHERE family = 'other' OR qualifier = 'not_a_column';
SELECT * FROM bsame();
-- a second version of a column: counted cell by cell, tombstones still
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM b WHERE tags_id = 4 AND time < '2016-01-01 12:00';
DELETE FROM bh WHERE tags_id = 4 AND time < '2016-01-01 12:00';
SELECT * FROM bsame();
INSERT INTO bc VALUES ('0004#1451649600', 'cpu', 'usage_system', '2015-12-31', 7);
SELECT wide.compact('bc', major => true) IS NOT NULL AS compacted;
SELECT * FROM bdel($$tags_id = 4 AND time >= '2016-01-01 12:00'$$);
SELECT * FROM bsame();
DROP FOREIGN TABLE b;
DROP TABLE bc, bh;
DROP FUNCTION bsame(), bdel(text);

-- range tombstones alone (nothing in the write area): VACUUM retires them
-- and their room in the metapage is free again, so the range DELETEs after
-- it are tombstones too (they went by row when the room stayed full)
CREATE TABLE vc (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('vc', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE v (time timestamptz NOT NULL, tags_id int OPTIONS (width '4') NOT NULL,
                        usage_user float8)
  SERVER wide_rows OPTIONS (cells 'vc', family 'cpu', key 'tags_id,time');
INSERT INTO v SELECT '2016-01-01'::timestamptz + s * interval '1 min', t, s
  FROM generate_series(0, 1999) s, generate_series(1, 24) t;
SELECT wide.compact('vc', major => true) IS NOT NULL AS compacted;
CREATE FUNCTION vdel(h int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text; how text := 'no line';
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM v WHERE tags_id = %s', h) LOOP
    IF l LIKE '%Deleted By:%' THEN how := regexp_replace(l, '^.*Deleted By: ', ''); END IF;
  END LOOP;
  RETURN how;
END $$;
SELECT vdel(h) AS how, count(*) FROM generate_series(1, 12) h GROUP BY 1;
-- a read of another host is not merged for them: the run read as stored,
-- its rows decoded in batches (the reader keeps only the tombstones that
-- overlap its range)
CREATE FUNCTION vbatched(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE l text; n bigint := 0;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l LIKE '%Rows Decoded in Batches:%' THEN n := regexp_replace(l, '^.*: ', '')::bigint; END IF;
  END LOOP;
  RETURN n;
END $$;
SELECT vbatched('SELECT * FROM v WHERE tags_id = 20') > 0 AS batched,
       (SELECT count(*) FROM v WHERE tags_id = 20) AS readings;
VACUUM vc;
SELECT vdel(h) AS how, count(*) FROM generate_series(13, 24) h GROUP BY 1;
SELECT count(*) FROM v;
DROP FOREIGN TABLE v;
DROP TABLE vc;
DROP FUNCTION vdel(int), vbatched(text);

DROP FOREIGN TABLE d, k, ks, series;
DROP TABLE dc, h, kc, kh, ksh;
DROP FUNCTION same(), ksame(), del_both(text), both_params(int, timestamptz), rowdel_trig();
DROP ROLE regress_rowdel;
DROP SEQUENCE rowdel_seq;

-- DELETEs of readings one by one, each its own transaction, against a heap
-- oracle: each statement's read state takes the write area from this
-- backend's copy (engine/wacache.c), which reads only the records appended
-- since the statement before -- a family tombstone per reading deleted,
-- 10 -- not the whole write area again (the 30 cells written after the
-- compaction, read once by the CREATE TABLE AS, and more each statement)
CREATE TABLE wc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
ALTER TABLE wc SET (autovacuum_enabled = off);
SELECT wide.create_family('wc', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE w (time timestamptz NOT NULL, tags_id int OPTIONS (width '4') NOT NULL,
                        usage_user float8)
  SERVER wide_rows OPTIONS (cells 'wc', family 'cpu', key 'tags_id,time');
INSERT INTO w SELECT '2016-01-01'::timestamptz + g * interval '10 s', t, g
  FROM generate_series(0, 99) g, generate_series(1, 5) t;
SELECT wide.compact('wc', major => true) IS NOT NULL AS compacted;
INSERT INTO w SELECT '2016-01-02'::timestamptz + g * interval '10 s', 6, g
  FROM generate_series(0, 29) g;
CREATE TABLE wh AS SELECT * FROM w;
SELECT wide_internal.write_area_reads() AS wreads0 \gset
DELETE FROM w WHERE tags_id = 1 AND time = '2016-01-01 00:00:00';
DELETE FROM w WHERE tags_id = 1 AND time = '2016-01-01 00:00:10';
DELETE FROM w WHERE tags_id = 2 AND time = '2016-01-01 00:00:10';
DELETE FROM w WHERE tags_id = 6 AND time = '2016-01-02 00:00:10';
DELETE FROM w WHERE tags_id = 6 AND time = '2016-01-02 00:00:20';
DELETE FROM w WHERE tags_id = 6 AND time IN ('2016-01-02 00:00:30', '2016-01-02 00:00:40', '2016-01-03');
DELETE FROM w WHERE tags_id = 3 AND time IN ('2016-01-01 00:00:30', '2016-01-01 00:00:40', '2016-01-01 00:00:50');
DELETE FROM w WHERE tags_id = 3 AND time = '2016-01-01 00:00:30';
DELETE FROM wh WHERE (tags_id = 1 AND time IN ('2016-01-01 00:00:00', '2016-01-01 00:00:10'))
  OR (tags_id = 2 AND time = '2016-01-01 00:00:10')
  OR (tags_id = 6 AND time IN ('2016-01-02 00:00:10', '2016-01-02 00:00:20', '2016-01-02 00:00:30', '2016-01-02 00:00:40'))
  OR (tags_id = 3 AND time IN ('2016-01-01 00:00:30', '2016-01-01 00:00:40', '2016-01-01 00:00:50'));
SELECT wide_internal.write_area_reads() - :wreads0 AS records_read;
SELECT (SELECT count(*) FROM (SELECT * FROM w EXCEPT ALL SELECT * FROM wh) x) AS only_wide,
       (SELECT count(*) FROM (SELECT * FROM wh EXCEPT ALL SELECT * FROM w) x) AS only_heap,
       (SELECT count(*) FROM w) AS readings;
DROP FOREIGN TABLE w;
DROP TABLE wc, wh;

-- a range tombstone's count is a metapage WAL record of its own only when
-- VACUUM could need it (WideRangeDelCountMatters): 1,000 of 200,000 cells
-- (the tenth of the runs' cells divided by the 19 tombstones the metapage
-- holds is 1,052) take one record, as 999 cells (below 1,000) always did;
-- 10,000 take two.  WAL bytes of each DELETE, the least of three (a
-- checkpoint's full page image or another process's record may come in
-- between), less what one cell more costs (with wal_level = logical each
-- deleted cell is logged: about 200 bytes, measured from 10,000 against
-- 1,000 cells; otherwise nothing); the count record is 56.
CREATE TABLE cc (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
ALTER TABLE cc SET (autovacuum_enabled = off);
SELECT wide.create_family('cc', 'm', max_versions => 1);
INSERT INTO cc SELECT 'k' || lpad(g::text, 6, '0'), 'm', 'v', '2016-01-01', g
  FROM generate_series(1, 200000) g;
SELECT wide.compact('cc', major => true) IS NOT NULL AS compacted;
CREATE TEMP TABLE walbytes (cells int, bytes numeric);
CREATE FUNCTION pg_temp.wal_of(lo int, n int) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  a pg_lsn := pg_current_wal_insert_lsn();
  d bigint;
BEGIN
  EXECUTE format('DELETE FROM cc WHERE row_key >= %L AND row_key < %L',
                 'k' || lpad(lo::text, 6, '0'), 'k' || lpad((lo + n)::text, 6, '0'));
  GET DIAGNOSTICS d = ROW_COUNT;
  IF d <> n THEN RAISE 'deleted % of %', d, n; END IF;
  RETURN pg_wal_lsn_diff(pg_current_wal_insert_lsn(), a);
END $$;
BEGIN;
INSERT INTO walbytes SELECT n, pg_temp.wal_of(lo, n)
  FROM (VALUES (10001, 999), (20001, 1000), (30001, 10000), (50001, 999),
               (60001, 1000), (70001, 10000), (90001, 999), (100001, 1000),
               (110001, 10000)) v(lo, n);
COMMIT;
WITH b AS (SELECT min(bytes) FILTER (WHERE cells = 999) AS b999,
                  min(bytes) FILTER (WHERE cells = 1000) AS b1000,
                  min(bytes) FILTER (WHERE cells = 10000) AS b10000 FROM walbytes)
SELECT (b1000 - b999) - (b10000 - b1000) / 9000.0 < 40 AS no_count_record FROM b;
SELECT count(*) AS cells_left FROM cc;
DROP TABLE cc, walbytes;

-- the readings of an IN list are read in key order by one reader
-- (WideReaderRestartAt, WideSegIterRestart): where the next reading is in
-- the plain run the last one was read from, the run's iterator goes on
-- from where that one ended -- in the same block, from the record after it
-- (which may be the next reading's first), else by a seek.  Against a heap
-- holding the same readings: adjacent readings, readings blocks apart,
-- missing ones, repeated and unordered ones, NULL columns, several hosts,
-- readings in the write area; then the same as DELETEs.
CREATE TABLE ic (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
ALTER TABLE ic SET (autovacuum_enabled = off);
SELECT wide.create_family('ic', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE i (time timestamptz NOT NULL, tags_id int OPTIONS (width '4') NOT NULL,
                        a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'ic', family 'cpu', key 'tags_id,time');
CREATE TABLE ih (time timestamptz NOT NULL, tags_id int NOT NULL, a float8, b float8);
INSERT INTO ih SELECT '2016-01-01'::timestamptz + s * interval '10 s', t, s % 97,
                      CASE WHEN s % 5 = 0 THEN NULL ELSE s END
  FROM generate_series(0, 2999) s, generate_series(1, 3) t;
INSERT INTO i SELECT * FROM ih;
SELECT wide.compact('ic', major => true) IS NOT NULL AS compacted;
-- the readings at these offsets (in 10 s) from 2016-01-01 as an IN list
CREATE FUNCTION pg_temp.at(VARIADIC s numeric[]) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(format('%L::timestamptz', '2016-01-01'::timestamptz + x * interval '10 s'), ', ')
    FROM unnest(s) x $$;
CREATE FUNCTION pg_temp.same_in(cond text, OUT heap bigint, OUT rows bigint, OUT differ bigint)
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'SELECT count(*) FROM ih WHERE ' || cond INTO heap;
  EXECUTE 'SELECT count(*) FROM i WHERE ' || cond INTO rows;
  EXECUTE format('SELECT count(*) FROM ((SELECT * FROM ih WHERE %1$s EXCEPT ALL SELECT * FROM i WHERE %1$s)
                  UNION ALL (SELECT * FROM i WHERE %1$s EXCEPT ALL SELECT * FROM ih WHERE %1$s)) x', cond)
    INTO differ;
END $$;
CREATE FUNCTION pg_temp.del_in(cond text, OUT heap bigint, OUT rows bigint, OUT differ bigint)
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM ih WHERE ' || cond;
  GET DIAGNOSTICS heap = ROW_COUNT;
  EXECUTE 'DELETE FROM i WHERE ' || cond;
  GET DIAGNOSTICS rows = ROW_COUNT;
  SELECT count(*) INTO differ FROM ((SELECT * FROM ih EXCEPT ALL SELECT * FROM i)
                                    UNION ALL (SELECT * FROM i EXCEPT ALL SELECT * FROM ih)) x;
END $$;
-- 40 readings every 70th: one reader reads on 39 times
SELECT 'tags_id = 2 AND time IN (' || string_agg(format('%L::timestamptz',
         '2016-01-01'::timestamptz + x * interval '700 s'), ', ') || ')' AS spread
  FROM generate_series(0, 39) x \gset
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(a), sum(b) FROM i WHERE :spread;
SELECT * FROM pg_temp.same_in(:'spread');
SELECT * FROM pg_temp.same_in('tags_id = 1 AND time IN (' || pg_temp.at(0, 1, 2, 3, 10, 11, 2998, 2999) || ')');
SELECT * FROM pg_temp.same_in('tags_id = 1 AND time IN (' || pg_temp.at(5, 4, 5, 1500, 3000, 4000, -1) || ')');
SELECT * FROM pg_temp.same_in('tags_id IN (1, 3) AND time IN (' || pg_temp.at(0, 699, 700, 1400, 2999) || ')');
SELECT * FROM pg_temp.same_in('tags_id = 3 AND time IN (' || pg_temp.at(5, 10, 15, 20) || ')');
-- write-area readings between (read by the merge, the others on)
INSERT INTO ih VALUES ('2016-01-01'::timestamptz + 7005 * interval '1 s', 2, -1, -1),
                      ('2016-01-01'::timestamptz + 14005 * interval '1 s', 2, -2, NULL);
INSERT INTO i VALUES ('2016-01-01'::timestamptz + 7005 * interval '1 s', 2, -1, -1),
                     ('2016-01-01'::timestamptz + 14005 * interval '1 s', 2, -2, NULL);
SELECT * FROM pg_temp.same_in('tags_id = 2 AND time IN (' || pg_temp.at(0, 700, 700.5, 701, 1400, 1400.5, 1401, 2100) || ')');
SELECT * FROM pg_temp.same_in(:'spread');
-- the same as DELETEs (by row)
SELECT * FROM pg_temp.del_in('tags_id = 1 AND time IN (' || pg_temp.at(0, 1, 2, 3, 10, 11, 2998, 2999) || ')');
SELECT * FROM pg_temp.del_in('tags_id = 1 AND time IN (' || pg_temp.at(1, 2, 4, 5, 6) || ')');
SELECT * FROM pg_temp.del_in('tags_id IN (1, 3) AND time IN (' || pg_temp.at(0, 699, 700, 1400, 2999) || ')');
SELECT * FROM pg_temp.del_in(:'spread');
SELECT * FROM pg_temp.del_in('tags_id = 2 AND time IN (' || pg_temp.at(0, 700, 700.5, 701, 1400, 1400.5, 1401, 2100) || ')');
-- a DELETE whose conditions are exactly key ranges does not test them
-- again on each row it reads (an IN list's array was built for each): the
-- IN list's values are computed once, for the ranges (and not by the
-- planner: readings are at most a row each, their estimate their number,
-- with no selectivity of each value to compute)
CREATE FUNCTION pg_temp.t(s int) RETURNS timestamptz STABLE LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('rowdel.calls', (current_setting('rowdel.calls')::int + 1)::text, false);
  RETURN '2016-01-01'::timestamptz + s * interval '10 s';
END $$;
SET rowdel.calls = 0;
DELETE FROM i WHERE tags_id = 3 AND time IN (pg_temp.t(100), pg_temp.t(101), pg_temp.t(102));
SELECT current_setting('rowdel.calls') AS calls;
DELETE FROM ih WHERE tags_id = 3 AND time IN ('2016-01-01 00:16:40', '2016-01-01 00:16:50', '2016-01-01 00:17:00');
CREATE FUNCTION pg_temp.plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SET rowdel.calls = 0;
SELECT pg_temp.plan_rows('SELECT * FROM i WHERE tags_id = 3 AND time IN (pg_temp.t(1), pg_temp.t(2), pg_temp.t(3), pg_temp.t(4))') AS four_readings,
       pg_temp.plan_rows('SELECT * FROM i WHERE tags_id IN (3, 4) AND time IN (pg_temp.t(1), pg_temp.t(2), pg_temp.t(3))') AS six_readings,
       current_setting('rowdel.calls') AS calls;
-- (a condition on a value column is still tested)
SET rowdel.calls = 0;
DELETE FROM i WHERE tags_id = 3 AND time IN (pg_temp.t(103), pg_temp.t(104)) AND a >= 0;
SELECT current_setting('rowdel.calls')::int > 2 AS tested_per_row;
DELETE FROM ih WHERE tags_id = 3 AND time IN ('2016-01-01 00:17:10', '2016-01-01 00:17:20') AND a >= 0;
SELECT count(*) AS readings,
       (SELECT count(*) FROM ((SELECT * FROM ih EXCEPT ALL SELECT * FROM i)
                              UNION ALL (SELECT * FROM i EXCEPT ALL SELECT * FROM ih)) x) AS differ
  FROM i;
DROP FOREIGN TABLE i;
DROP TABLE ic, ih;

-- a point read caches a data block only when it read it before
-- (blockcache.c: WideCacheAdmit): a block read once is decoded into memory
-- the reader reuses, not into new memory the cache keeps (a page fault per
-- 4 kB).  Blocks Cached: the blocks a scan put into the backend's cache.
CREATE TABLE bc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
ALTER TABLE bc SET (autovacuum_enabled = off);
SELECT wide.create_family('bc', 'm', max_versions => 1);
INSERT INTO bc SELECT format('k%s', lpad(r::text, 6, '0')), 'm', 'q' || q,
                      '2016-01-01'::timestamptz + r * interval '1 s', r * 10 + q
  FROM generate_series(1, 6000) r, generate_series(1, 5) q;
SELECT wide.compact('bc', major => true) IS NOT NULL AS compacted;
CREATE FUNCTION pg_temp.blocks(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Blocks (Read|Cached)' THEN RETURN NEXT btrim(l); END IF;
  END LOOP;
END $$;
-- read once: not cached; twice: cached; a row of the same block: a hit
SELECT pg_temp.blocks($$SELECT sum(value) FROM bc WHERE row_key = 'k003000'$$);
SELECT pg_temp.blocks($$SELECT sum(value) FROM bc WHERE row_key = 'k003000'$$);
SELECT pg_temp.blocks($$SELECT sum(value) FROM bc WHERE row_key = 'k003001'$$);
-- a range is cached at once, as before
SELECT pg_temp.blocks($$SELECT sum(value) FROM bc WHERE row_key >= 'k005000' AND row_key < 'k005002'$$);
SELECT count(*), sum(value) FROM bc WHERE row_key IN ('k003000', 'k003001', 'k005000', 'k000001', 'k006000', 'k006001');
DROP TABLE bc;

-- readings of an IN list at data block boundaries (blocks of about 1 kB:
-- every block's first and last row among them), missing ones and
-- write-area readings between, read twice (the second time from blocks
-- cached by the first), then deleted, against a heap
SET wide.block_size = 1024;
CREATE TABLE ic (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
ALTER TABLE ic SET (autovacuum_enabled = off);
SELECT wide.create_family('ic', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE i (time timestamptz NOT NULL, tags_id int OPTIONS (width '4') NOT NULL,
                        a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'ic', family 'cpu', key 'tags_id,time');
CREATE TABLE ih (time timestamptz NOT NULL, tags_id int NOT NULL, a float8, b float8);
INSERT INTO ih SELECT '2016-01-01'::timestamptz + s * interval '10 s', t, s % 97, s * 1.5
  FROM generate_series(0, 1999) s, generate_series(1, 2) t;
INSERT INTO i SELECT * FROM ih;
SELECT wide.compact('ic', major => true) IS NOT NULL AS compacted;
RESET wide.block_size;
SELECT (regexp_match(b, '\d+'))[1]::int > 40 AS many_blocks
  FROM pg_temp.blocks('SELECT count(*) FROM ic') b WHERE b LIKE 'Blocks Read%';
INSERT INTO ih VALUES ('2016-01-01'::timestamptz + 1005 * interval '1 s', 1, -1, -1);
INSERT INTO i VALUES ('2016-01-01'::timestamptz + 1005 * interval '1 s', 1, -1, -1);
-- readings 0-299 in 10 s steps and 300-1999 every 7th, with 100.5 (in the
-- write area), and some that do not exist (-1, 2000, 100.2)
SELECT 'tags_id = 1 AND time IN (' ||
       pg_temp.at(VARIADIC array_agg(x ORDER BY x DESC)) || ')' AS edges
  FROM (SELECT generate_series(0, 299)::numeric x UNION ALL SELECT generate_series(300, 1999, 7)
        UNION ALL VALUES (100.5), (-1), (2000), (100.2)) s \gset
SELECT * FROM pg_temp.same_in(:'edges');
SELECT * FROM pg_temp.same_in(:'edges');
SELECT * FROM pg_temp.del_in(:'edges');
SELECT * FROM pg_temp.same_in('tags_id IN (1, 2) AND time IN (' || pg_temp.at(0, 1, 299, 300, 301, 1999) || ')');
SELECT count(*) AS readings FROM i;
DROP FOREIGN TABLE i;
DROP TABLE ic, ih;
