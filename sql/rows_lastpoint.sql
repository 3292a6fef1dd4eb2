-- A backward scan of the row form run once per outer row (TSBS's lastpoint:
-- the newest reading of each host by LATERAL ... ORDER BY time DESC LIMIT
-- n) reads the table's state -- its runs and its write-area records --
-- once for all its rescans, not once per host ("Table States Read" under
-- EXPLAIN (ANALYZE, VERBOSE): the first scan's, then one kept for every
-- rescan), and one reverse reader restarted per host.  Answers are
-- compared with a heap holding the same readings: a compacted run, newer
-- readings still in the write area, a deleted newest reading, hosts
-- without readings, hosts visited in any order, and rows a volatile
-- function of the outer query writes between rescans (invisible to the
-- query, as in the heap).
SET timezone = 'UTC';
CREATE TABLE lpc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('lpc', 'm', max_versions => 1);
CREATE FOREIGN TABLE lprow (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL,
                            a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'lpc', family 'm', key 'host,time');
CREATE TABLE lpheap (time timestamptz NOT NULL, host int4 NOT NULL, a float8, b float8);
CREATE TABLE lphosts (id int4);
INSERT INTO lphosts SELECT generate_series(0, 12);
-- hosts 1..10, 300 readings at 60 s, b missing from every 4th
INSERT INTO lpheap
  SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 60), h, t * h, CASE WHEN t % 4 = 0 THEN NULL ELSE t END
    FROM generate_series(0, 299) t, generate_series(1, 10) h;
INSERT INTO lprow SELECT * FROM lpheap ORDER BY time, host;
SELECT FROM wide.compact('lpc', major => true);
-- newer readings in the write area (hosts 3 and 7, and host 11 only there)
INSERT INTO lpheap VALUES ('2020-01-02', 3, -3, NULL), ('2020-01-02 00:01', 3, -4, 4),
  ('2020-01-03', 7, -7, 7), ('2020-01-01 12:00', 11, 11, 11);
INSERT INTO lprow VALUES ('2020-01-02', 3, -3, NULL), ('2020-01-02 00:01', 3, -4, 4),
  ('2020-01-03', 7, -7, 7), ('2020-01-01 12:00', 11, 11, 11);
-- host 5's newest reading deleted (a row tombstone in the write area)
SELECT wide.delete_row('lpc', '005#' || extract(epoch FROM max(time))::bigint) FROM lpheap WHERE host = 5;
DELETE FROM lpheap WHERE host = 5 AND time = (SELECT max(time) FROM lpheap WHERE host = 5);

CREATE FUNCTION lp_same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE x text; y text;
BEGIN
  EXECUTE 'SELECT string_agg(r::text, '' '') FROM (' || q || ') r' INTO x;
  EXECUTE 'SELECT string_agg(r::text, '' '') FROM (' || replace(q, 'lprow', 'lpheap') || ') r' INTO y;
  RETURN x IS NOT DISTINCT FROM y AND x IS NOT NULL;
END $$;
CREATE FUNCTION lp_counters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Foreign Scan|Direction|Seeks|Cells Read|Table States|Last Rows' THEN
      RETURN NEXT regexp_replace(line, '^ *', '');
    END IF;
  END LOOP;
END $$;

-- lastpoint: the newest reading of every host
SELECT lp_counters('SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lprow c
                     WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id');
SELECT lp_same('SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lprow c
                 WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id');
SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lprow c
  WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b WHERE h.id IN (3, 5, 7, 11) ORDER BY h.id;
-- three per host, hosts backwards, and a time bound
SELECT lp_same('SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lprow c
                 WHERE c.host = h.id ORDER BY time DESC LIMIT 3) b ORDER BY h.id DESC, b.time DESC');
SELECT lp_same('SELECT h.id, b.* FROM (SELECT id FROM lphosts ORDER BY id DESC OFFSET 0) h
                 CROSS JOIN LATERAL (SELECT * FROM lprow c WHERE c.host = h.id
                 AND time < ''2020-01-01 04:00'' ORDER BY time DESC LIMIT 2) b');
-- every reading backwards, hosts in turn (the reader restarted mid-range and whole)
SELECT lp_same('SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lprow c
                 WHERE c.host = h.id ORDER BY time DESC) b');
-- rows a function of the outer query writes between rescans: not seen
CREATE FUNCTION lp_write(h int4, t text) RETURNS int4 LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO %I VALUES (''2021-01-01'', %s, 99, 99)', t, h + 1);
  RETURN h;
END $$;
BEGIN;
CREATE TEMP TABLE r1 AS SELECT h.id, b.* FROM (SELECT lp_write(id, 'lprow') AS id FROM lphosts OFFSET 0) h
  CROSS JOIN LATERAL (SELECT * FROM lprow c WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b;
CREATE TEMP TABLE r2 AS SELECT h.id, b.* FROM (SELECT lp_write(id, 'lpheap') AS id FROM lphosts OFFSET 0) h
  CROSS JOIN LATERAL (SELECT * FROM lpheap c WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b;
SELECT (SELECT string_agg(r1::text, ' ' ORDER BY id) FROM r1) =
       (SELECT string_agg(r2::text, ' ' ORDER BY id) FROM r2) AS same,
       (SELECT count(*) FROM r1 WHERE a = 99) AS unseen_writes_seen;
-- and the next statement sees them
SELECT lp_same('SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lprow c
                 WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id');
ROLLBACK;
-- a cursor moved backwards and forwards over the rescans
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT h.id, b.time FROM lphosts h CROSS JOIN LATERAL
  (SELECT * FROM lprow c WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id;
FETCH 3 FROM cur;
FETCH BACKWARD 2 FROM cur;
FETCH ALL FROM cur;
COMMIT;

-- The short path of a backward LIMIT 1 (reverse.c, reader.c:
-- WideReadStateLastRow): where one plain run alone holds a host's range
-- and no write-area record, range tombstone or aggregate is in the way,
-- the host's last row is read straight from its block ("Last Rows Read
-- Directly"); everywhere else the windows as before.  Small blocks (many
-- per host, some ending exactly at a host), every host's answer against
-- the heap after each change: a second run holding one host, a newer
-- version in the write area, a row tombstone, a NULL column, a range
-- DELETE (a range tombstone: no host read directly until a compaction),
-- versions kept by the family, and an empty table.
CREATE TABLE lqc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('lqc', 'm', max_versions => 1);
CREATE FOREIGN TABLE lqrow (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL,
                            a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'lqc', family 'm', key 'host,time');
CREATE TABLE lqheap (time timestamptz NOT NULL, host int4 NOT NULL, a float8, b float8);
CREATE FUNCTION lq_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE x text; y text; line text; direct text := '?';
BEGIN
  EXECUTE 'SELECT string_agg(r::text, '' '') FROM (' || q || ') r' INTO x;
  EXECUTE 'SELECT string_agg(r::text, '' '') FROM (' || replace(q, 'lqrow', 'lqheap') || ') r' INTO y;
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Last Rows Read Directly' THEN
      direct := regexp_replace(line, '^.*: ', '');
    END IF;
  END LOOP;
  RETURN CASE WHEN x IS NOT DISTINCT FROM y THEN 'same' ELSE 'DIFFERENT' END || ', direct ' || direct;
END $$;
CREATE VIEW lq AS SELECT 'SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lqrow c
  WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id' AS one,
  'SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lqrow c
  WHERE c.host = h.id ORDER BY time DESC LIMIT 3) b ORDER BY h.id, b.time DESC' AS three;
SELECT lq_check(one) AS empty_table FROM lq;
-- hosts 1..8, 100 + 7 * host readings at 60 s (hosts end inside blocks
-- and at their ends); host 6's newest has no b
INSERT INTO lqheap
  SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 60), h, t * h,
         CASE WHEN t % 4 = 0 OR (h = 6 AND t = 141) THEN NULL ELSE t END
    FROM generate_series(1, 8) h, generate_series(0, 99 + 7 * h) t;
INSERT INTO lqrow SELECT * FROM lqheap ORDER BY time, host;
SET wide.block_size = 1024;
SELECT FROM wide.compact('lqc', major => true);
SELECT lq_check(one) AS one_run, lq_check(three) AS three FROM lq;
SELECT host, time, a, b FROM lqrow WHERE host = 6 ORDER BY time DESC LIMIT 1;
-- the last row assembled from the block's cells as they are decoded
-- (rows_scan.c: direct_row) with some columns only: one column (host 6's
-- newest has no b), the key alone; and with a scan filter that rejects
-- some hosts' newest rows (hosts 3, 6 and 7: no b), so that the scan reads
-- on below the row it assembled
SELECT lq_check('SELECT h.id, b.b FROM lphosts h CROSS JOIN LATERAL (SELECT b, time FROM lqrow c
  WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id') AS column_b,
  lq_check('SELECT h.id, b.time FROM lphosts h CROSS JOIN LATERAL (SELECT time FROM lqrow c
  WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id') AS key_only,
  lq_check('SELECT h.id, b.* FROM lphosts h CROSS JOIN LATERAL (SELECT * FROM lqrow c
  WHERE c.host = h.id AND c.b > 100 ORDER BY time DESC LIMIT 1) b ORDER BY h.id') AS filtered;
SELECT host, time, b FROM lqrow WHERE host = 6 ORDER BY time DESC LIMIT 2;
-- a newer reading of host 2 in a second run (the first holds it too)
INSERT INTO lqheap VALUES ('2020-01-05', 2, -2, -2);
INSERT INTO lqrow VALUES ('2020-01-05', 2, -2, -2);
SELECT FROM wide.compact('lqc');
SELECT count(*) AS runs FROM wide.runs('lqc');
SELECT lq_check(one) AS two_runs, lq_check(three) AS three FROM lq;
-- a newer version of host 3's newest reading in the write area
UPDATE lqheap SET a = -3 WHERE host = 3 AND time = (SELECT max(time) FROM lqheap WHERE host = 3);
UPDATE lqrow SET a = -3 WHERE host = 3 AND time = (SELECT max(time) FROM lqheap WHERE host = 3);
SELECT lq_check(one) AS new_version, lq_check(three) AS three FROM lq;
-- host 4's newest reading deleted by a row tombstone
SELECT wide.delete_row('lqc', '004#' || extract(epoch FROM max(time))::bigint) FROM lqheap WHERE host = 4;
DELETE FROM lqheap WHERE host = 4 AND time = (SELECT max(time) FROM lqheap WHERE host = 4);
SELECT lq_check(one) AS row_tombstone, lq_check(three) AS three FROM lq;
-- host 5's last hour deleted by a range tombstone
EXPLAIN (COSTS OFF) DELETE FROM lqrow WHERE host = 5 AND time >= '2020-01-01 01:00';
DELETE FROM lqrow WHERE host = 5 AND time >= '2020-01-01 01:00';
DELETE FROM lqheap WHERE host = 5 AND time >= '2020-01-01 01:00';
SELECT lq_check(one) AS range_tombstone, lq_check(three) AS three FROM lq;
-- all of it compacted into one run again: every host read directly
SELECT FROM wide.compact('lqc', major => true);
SELECT lq_check(one) AS compacted, lq_check(three) AS three FROM lq;
-- versions the family keeps: a run with several records of a column
SELECT wide.create_family('lqc', 'v', max_versions => 3);
CREATE FOREIGN TABLE lqrowv (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL,
                             a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'lqc', family 'v', key 'host,time');
INSERT INTO lqrowv SELECT * FROM lqheap WHERE host IN (1, 2) ORDER BY time, host;
-- (a newer cell of host 1's newest a: a second version of the column)
INSERT INTO lqc SELECT row_key, family, qualifier, ts + interval '1 day', value + 1000
  FROM lqc WHERE family = 'v' AND qualifier = 'a' AND row_key LIKE '001#%'
  ORDER BY row_key DESC LIMIT 1;
SELECT FROM wide.compact('lqc', major => true);
SELECT h.id, b.* FROM (VALUES (1), (2)) h(id) CROSS JOIN LATERAL (SELECT * FROM lqrowv c
  WHERE c.host = h.id ORDER BY time DESC LIMIT 1) b ORDER BY h.id;
SELECT lq_check(one) AS versions_elsewhere FROM lq;
RESET wide.block_size;
DROP VIEW lq;
DROP FUNCTION lq_check(text);
DROP FOREIGN TABLE lqrow, lqrowv;
DROP TABLE lqheap, lqc;

-- two key conditions on the same other relation, kept as join clauses (an
-- anti join): one parameterized path for that relation (the planner
-- compared the relation sets as nodes: "unrecognized node type: 1")
SELECT h.id FROM lphosts h WHERE NOT EXISTS (SELECT 1 FROM lprow c
  WHERE c.host = h.id AND c.time = '2020-01-01'::timestamptz + h.id * interval '1 min') ORDER BY 1;
SELECT lp_same('SELECT h.id FROM lphosts h WHERE NOT EXISTS (SELECT 1 FROM lprow c
                 WHERE c.host = h.id AND c.time = ''2020-01-01''::timestamptz + h.id * interval ''1 min'') ORDER BY 1');

DROP FUNCTION lp_same(text), lp_counters(text), lp_write(int4, text);
DROP TABLE lphosts, lpheap;
DROP FOREIGN TABLE lprow;
DROP TABLE lpc;
