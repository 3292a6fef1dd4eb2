-- A salted row form (OPTIONS (salt 'N')): row keys begin with a bucket,
-- md5 of the rest of the key mod N, as wide.salted_key() writes them, so
-- that readings arriving in time order spread over N key ranges.  Every
-- read is checked against a heap table holding the same readings.
SET timezone = 'UTC';
CREATE TABLE sc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('sc', 'm', max_versions => 1);
CREATE FOREIGN TABLE srows (host text NOT NULL, time timestamptz NOT NULL, v float8, w float8)
  SERVER wide_rows OPTIONS (cells 'sc', family 'm', key 'host,time', salt '8');
CREATE TABLE sheap (host text, time timestamptz, v float8, w float8);
INSERT INTO sheap SELECT 'h' || h, '2024-01-01'::timestamptz + make_interval(mins => t), t * 10 + h,
                         CASE WHEN t % 4 = 0 THEN NULL ELSE h END
  FROM generate_series(0, 299) t, generate_series(1, 12) h;
INSERT INTO srows SELECT * FROM sheap ORDER BY time, host;

-- the keys are wide.salted_key's, spread over every bucket
SELECT count(*) AS cells, count(*) FILTER (WHERE row_key = wide.salted_key(split_part(row_key, '#', 2) || '#' || split_part(row_key, '#', 3), 8)) AS salted,
       count(DISTINCT split_part(row_key, '#', 1)) AS buckets
  FROM sc;
SELECT row_key, qualifier, value FROM sc WHERE row_key LIKE '%#h3#1704067200';

-- a differential check of one query against the heap: rows in neither or both
CREATE FUNCTION differs(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((%s EXCEPT ALL %s) UNION ALL (%s EXCEPT ALL %s)) d',
                 q, replace(q, 'srows', 'sheap'), replace(q, 'srows', 'sheap'), q) INTO n;
  RETURN n;
END $$;
SELECT differs('SELECT * FROM srows') AS all_rows,
       differs($$SELECT * FROM srows WHERE host = 'h3'$$) AS one_host,
       differs($$SELECT * FROM srows WHERE host = 'h3' AND time = '2024-01-01 01:00'$$) AS one_row,
       differs($$SELECT * FROM srows WHERE host IN ('h1', 'h12', 'nope') AND time >= '2024-01-01 02:00' AND time < '2024-01-01 02:30'$$) AS hosts_window,
       differs($$SELECT * FROM srows WHERE time >= '2024-01-01 03:00' AND time < '2024-01-01 03:10'$$) AS all_hosts_window,
       differs($$SELECT * FROM srows WHERE host = ANY (ARRAY['h2', 'h5']) AND time = ANY (ARRAY['2024-01-01 00:07'::timestamptz, '2024-01-01 04:00'])$$) AS points,
       differs($$SELECT * FROM srows WHERE v > 2900$$) AS filter,
       differs($$SELECT host, date_trunc('hour', time), count(*), sum(v), max(w) FROM srows GROUP BY 1, 2$$) AS grouped,
       differs($$SELECT h.host, l.* FROM (VALUES ('h4'), ('h9')) h(host),
                 LATERAL (SELECT time, v FROM srows s WHERE s.host = h.host ORDER BY time DESC LIMIT 1) l$$) AS lastpoint;

-- seeks: one bucket for a whole key, every bucket otherwise, a skip scan per bucket and host
EXPLAIN (costs off) SELECT * FROM srows WHERE host = 'h3' AND time = '2024-01-01 01:00';
CREATE FUNCTION seeks(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; out text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Seeks|Cells Read' THEN out := out || btrim(line) || ' '; END IF;
  END LOOP;
  RETURN btrim(out);
END $$;
SELECT seeks($$SELECT * FROM srows WHERE host = 'h3' AND time = '2024-01-01 01:00'$$);
SELECT seeks($$SELECT * FROM srows WHERE host IN ('h3', 'h4') AND time IN ('2024-01-01 01:00', '2024-01-01 01:01')$$);
SELECT seeks($$SELECT * FROM srows WHERE host = 'h3' AND time >= '2024-01-01 01:00' AND time < '2024-01-01 01:10'$$);
SELECT seeks($$SELECT * FROM srows WHERE time >= '2024-01-01 01:00' AND time < '2024-01-01 01:10'$$);
-- no order is claimed: ORDER BY sorts
EXPLAIN (costs off) SELECT * FROM srows WHERE host = 'h3' ORDER BY time DESC LIMIT 1;

-- writes by key: UPDATE and DELETE find the bucket
UPDATE srows SET v = -1 WHERE host = 'h5' AND time < '2024-01-01 00:03';
UPDATE sheap SET v = -1 WHERE host = 'h5' AND time < '2024-01-01 00:03';
DELETE FROM srows WHERE host = 'h6' AND time >= '2024-01-01 04:00';
DELETE FROM sheap WHERE host = 'h6' AND time >= '2024-01-01 04:00';
SELECT FROM wide.compact('sc', major => true);
SELECT differs('SELECT * FROM srows') AS after_writes, (SELECT count(*) FROM srows) AS rows;

-- COPY (the bulk path) salts as INSERT does
COPY srows FROM stdin (FORMAT csv);
h20,2024-01-02 00:00:00+00,1,2
h20,2024-01-02 00:01:00+00,3,
h21,2024-01-02 00:00:00+00,,5
\.
INSERT INTO sheap VALUES ('h20', '2024-01-02 00:00', 1, 2), ('h20', '2024-01-02 00:01', 3, NULL), ('h21', '2024-01-02 00:00', NULL, 5);
SELECT row_key, qualifier, value, row_key = wide.salted_key(substr(row_key, 3), 8) AS salted
  FROM sc WHERE row_key LIKE '%#h2_#%' ORDER BY 1, 2;
SELECT differs('SELECT * FROM srows') AS after_copy;

-- the cell form reads the same cells by bucket
SELECT count(*) FROM wide.read_salted(NULL::sc, 8, prefix => 'h7#');
SELECT count(*) * 2 - count(w) FROM srows WHERE host = 'h7';

-- bad declarations, and a key whose bucket is not a bucket
CREATE FOREIGN TABLE bad (k text, v float8) SERVER wide_rows OPTIONS (cells 'sc', family 'm', key 'k', salt '1');
CREATE FOREIGN TABLE bad (k text, v float8) SERVER wide_rows OPTIONS (cells 'sc', family 'm', key 'k', salt 'x');
CREATE FOREIGN TABLE bad (k text, v float8) SERVER wide_rows OPTIONS (cells 'sc', family 'm', key 'k', salt '10001');
CREATE FOREIGN TABLE bad (a int2, b int2, c int2, d int2, e int2, f int2, g int2, h int2, v float8)
  SERVER wide_rows OPTIONS (cells 'sc', family 'm', key 'a,b,c,d,e,f,g,h', salt '4');
SELECT * FROM bad;
DROP FOREIGN TABLE bad;
INSERT INTO sc VALUES ('9#h1#1704067200', 'm', 'v', '2024-01-01', 1);
SELECT count(*) FROM srows;
DELETE FROM sc WHERE row_key = '9#h1#1704067200';
SELECT count(*) FROM srows;

DROP FOREIGN TABLE srows;
DROP TABLE sc, sheap;
DROP FUNCTION differs(text), seeks(text);
