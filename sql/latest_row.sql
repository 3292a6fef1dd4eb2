-- latest_row: the latest row of each key prefix (TSBS lastpoint: a LATERAL
-- ... ORDER BY time DESC LIMIT 1 per host, DISTINCT ON) reads that row, not
-- a block (issue 26 item 5).  The row form's backward scan ends a row
-- without asking for the next one (reverse.c: WideReverseRowDone), later
-- windows grow from a row, the window's reader starts where the window's
-- bound was found (segment_reader.c: the segment's hint), and seeks in a
-- block's row directory compare 8 bytes after the keys' common prefix
-- first (block.c): random keys and bounds, forwards and backwards, against
-- a heap model.
SET max_parallel_workers_per_gather = 0;
SET timezone = 'UTC';
SET wide.block_size = 1024;
SELECT setseed(0.26);

-- 30 hosts, host h with h * 7 readings of 2 metrics, in one run of many blocks
CREATE TABLE lr (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('lr', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE cpu (time timestamptz NOT NULL, tags_id int4 NOT NULL,
                          usage_user float8, usage_system float8)
  SERVER wide_rows OPTIONS (cells 'lr', family 'cpu', key 'tags_id,time');
CREATE TABLE hcpu (time timestamptz NOT NULL, tags_id int4 NOT NULL,
                   usage_user float8, usage_system float8);
CREATE TABLE tags (id int4 PRIMARY KEY, hostname text);
INSERT INTO tags SELECT h, 'host_' || h FROM generate_series(1, 31) h;
INSERT INTO hcpu SELECT '2020-01-01'::timestamptz + i * interval '10 s', h, h * 1000 + i,
                        CASE WHEN i % 3 = 0 THEN NULL ELSE i END
  FROM generate_series(1, 30) h, generate_series(1, h * 7) i;
INSERT INTO cpu SELECT * FROM hcpu;
SELECT FROM wide.compact('lr', true);

-- one row read a host: two cells each, none of the row before
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t.id, b.* FROM tags t CROSS JOIN LATERAL (
  SELECT * FROM cpu c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) b;

-- the same answers as the heap: LIMIT 1 and 3, DISTINCT ON, a host without rows
CREATE FUNCTION lastpoint_diff(n int) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (
    (SELECT t.id, b.* FROM tags t CROSS JOIN LATERAL (
       SELECT * FROM cpu c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT n) b
     EXCEPT ALL
     SELECT t.id, b.* FROM tags t CROSS JOIN LATERAL (
       SELECT * FROM hcpu c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT n) b)
    UNION ALL
    (SELECT t.id, b.* FROM tags t CROSS JOIN LATERAL (
       SELECT * FROM hcpu c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT n) b
     EXCEPT ALL
     SELECT t.id, b.* FROM tags t CROSS JOIN LATERAL (
       SELECT * FROM cpu c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT n) b)) d $$;
SELECT lastpoint_diff(1) AS diff1, lastpoint_diff(3) AS diff3, lastpoint_diff(20) AS diff20;
SELECT (SELECT array_agg(x ORDER BY x) FROM (SELECT DISTINCT ON (t.hostname) (t.hostname, b.*)::text AS x
          FROM tags t INNER JOIN LATERAL (SELECT * FROM cpu c WHERE c.tags_id = t.id
          ORDER BY time DESC LIMIT 1) AS b ON true ORDER BY t.hostname, b.time DESC) s)
     = (SELECT array_agg(x ORDER BY x) FROM (SELECT DISTINCT ON (t.hostname) (t.hostname, b.*)::text AS x
          FROM tags t INNER JOIN LATERAL (SELECT * FROM hcpu c WHERE c.tags_id = t.id
          ORDER BY time DESC LIMIT 1) AS b ON true ORDER BY t.hostname, b.time DESC) s) AS same_distinct_on;

-- a second run, the write area and deletes: the latest rows move
INSERT INTO hcpu SELECT '2020-01-02'::timestamptz + i * interval '10 s', h, -h, i
  FROM generate_series(2, 30, 4) h, generate_series(1, 3) i;
INSERT INTO cpu SELECT * FROM hcpu WHERE usage_user < 0;
SELECT FROM wide.compact('lr');
INSERT INTO hcpu SELECT '2020-01-03'::timestamptz, h, -2 * h, NULL FROM generate_series(3, 30, 5) h;
INSERT INTO cpu SELECT * FROM hcpu WHERE usage_user <= -2 AND time = '2020-01-03';
DELETE FROM hcpu WHERE (tags_id, time) IN (SELECT tags_id, max(time) FROM hcpu WHERE tags_id % 7 = 0 GROUP BY 1);
DELETE FROM cpu WHERE (tags_id, time) IN (SELECT tags_id, max(time) FROM cpu WHERE tags_id % 7 = 0 GROUP BY 1);
SELECT lastpoint_diff(1) AS diff1, lastpoint_diff(3) AS diff3, lastpoint_diff(20) AS diff20;
SELECT FROM wide.compact('lr', true);
SELECT lastpoint_diff(1) AS diff1, lastpoint_diff(3) AS diff3;

-- reversed reads with a limit: the last rows, and a few more to end them
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_rows(NULL::lr, prefix => '09223372036854775819#', reversed => true, "limit" => 1);

-- random keys over a small alphabet (keys that are prefixes of others, of
-- any length), random bounds: every seek of the directory against a model
CREATE TABLE kw (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('kw', 'f');
CREATE TABLE km (row_key text COLLATE "C" PRIMARY KEY);
INSERT INTO km SELECT DISTINCT k FROM (
  SELECT string_agg(substr('ab#', 1 + (random() * 2.99)::int, 1), '') AS k
    FROM generate_series(1, 3000) i, generate_series(1, 1 + (random() * 11)::int) j
   GROUP BY i) s;
INSERT INTO kw SELECT row_key, 'f', q, 1, length(row_key) FROM km, (VALUES ('x'), ('y')) v(q);
SELECT FROM wide.compact('kw', true);
CREATE FUNCTION probe_diffs(nprobes int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  p text;
  bad int := 0;
BEGIN
  FOR i IN 1 .. nprobes LOOP
    p := (SELECT string_agg(substr('ab#$', 1 + (random() * 3.99)::int, 1), '')
            FROM generate_series(1, 1 + (random() * 12)::int));
    -- each probe twice: the second seek uses the blocks' directories
    FOR rep IN 1 .. 2 LOOP
      IF (SELECT array_agg(row_key ORDER BY row_key) FROM (SELECT DISTINCT row_key FROM
            (SELECT row_key FROM kw WHERE row_key >= p ORDER BY row_key LIMIT 6) s) s)
         IS DISTINCT FROM
         (SELECT array_agg(row_key ORDER BY row_key) FROM (SELECT row_key FROM km WHERE row_key >= p
            ORDER BY row_key LIMIT 3) s)
      THEN bad := bad + 1; RAISE NOTICE 'forward from %', p; END IF;
      IF (SELECT array_agg(row_key ORDER BY row_key DESC) FROM (SELECT DISTINCT row_key FROM
            (SELECT row_key FROM kw WHERE row_key < p ORDER BY row_key DESC LIMIT 6) s) s)
         IS DISTINCT FROM
         (SELECT array_agg(row_key ORDER BY row_key DESC) FROM (SELECT row_key FROM km WHERE row_key < p
            ORDER BY row_key DESC LIMIT 3) s)
      THEN bad := bad + 1; RAISE NOTICE 'backward from %', p; END IF;
      IF (SELECT array_agg(row_key ORDER BY row_key DESC) FROM
            (SELECT row_key FROM wide.read_rows(NULL::kw, prefix => p, reversed => true, "limit" => 2)) s)
         IS DISTINCT FROM
         (SELECT array_agg(row_key ORDER BY row_key DESC) FROM (SELECT row_key, q FROM
            (SELECT row_key FROM km WHERE starts_with(row_key, p) ORDER BY row_key DESC LIMIT 2) s,
            (VALUES ('x'), ('y')) v(q)) s)
      THEN bad := bad + 1; RAISE NOTICE 'prefix %', p; END IF;
      IF (SELECT count(*) FROM kw WHERE row_key = p) <> 2 * (SELECT count(*) FROM km WHERE row_key = p)
      THEN bad := bad + 1; RAISE NOTICE 'point %', p; END IF;
    END LOOP;
  END LOOP;
  RETURN bad;
END $$;
SELECT probe_diffs(300) AS wrong_answers;
-- and every key of the model, as a bound
SELECT count(*) AS wrong_answers FROM km m
 WHERE (SELECT min(row_key) FROM (SELECT row_key FROM kw WHERE row_key > m.row_key ORDER BY row_key LIMIT 1) s)
       IS DISTINCT FROM (SELECT min(row_key) FROM km WHERE row_key > m.row_key)
    OR (SELECT max(row_key) FROM (SELECT row_key FROM kw WHERE row_key < m.row_key ORDER BY row_key DESC LIMIT 1) s)
       IS DISTINCT FROM (SELECT max(row_key) FROM km WHERE row_key < m.row_key);

DROP FOREIGN TABLE cpu;
DROP TABLE kw, km, lr, hcpu, tags;
DROP FUNCTION lastpoint_diff(int), probe_diffs(int);
