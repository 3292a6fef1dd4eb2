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
    IF line ~ 'Foreign Scan|Direction|Seeks|Cells Read|Table States' THEN
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
DROP FUNCTION lp_same(text), lp_counters(text), lp_write(int4, text);
DROP TABLE lphosts, lpheap;
DROP FOREIGN TABLE lprow;
DROP TABLE lpc;
