--
-- range_delete: a DELETE of a range of row keys is one range tombstone,
-- and deletes exactly what a heap DELETE of the same cells deletes
--
\set SHOW_CONTEXT never
CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('w', 'f');
SELECT wide.create_family('w', 'g', max_versions => 2);
CREATE TABLE h (row_key text COLLATE "C", family text, qualifier text, ts int8, value int8);
CREATE INDEX ON h (row_key);
INSERT INTO h SELECT 'k' || lpad((g % 200)::text, 3, '0'),
                     CASE WHEN g % 3 = 0 THEN 'g' ELSE 'f' END, 'q' || (g % 5), g, g
  FROM generate_series(1, 4000) g;
-- (the heap holds what the wide table shows: at most 2 versions in g)
DELETE FROM h WHERE family = 'g' AND (row_key, qualifier, ts) NOT IN
  (SELECT row_key, qualifier, ts FROM (SELECT row_key, qualifier, ts,
          row_number() OVER (PARTITION BY row_key, qualifier ORDER BY ts DESC) AS n
     FROM h WHERE family = 'g') x WHERE n <= 2);
-- a part in runs, a part in the write area
INSERT INTO w SELECT * FROM h WHERE row_key < 'k100';
SELECT FROM wide.compact('w', major => true);
INSERT INTO w SELECT * FROM h WHERE row_key >= 'k100';
CREATE FUNCTION differ() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((SELECT * FROM w EXCEPT ALL SELECT * FROM h)
                        UNION ALL (SELECT * FROM h EXCEPT ALL SELECT * FROM w)) x $$;
SELECT count(*), differ() FROM w;

-- the plan: ModifyTable over a Wide Scan that is the whole delete
EXPLAIN (COSTS OFF) DELETE FROM w WHERE row_key >= 'k010' AND row_key < 'k020';
EXPLAIN (COSTS OFF) DELETE FROM w WHERE row_key LIKE 'k01%';
EXPLAIN (COSTS OFF) DELETE FROM w;
-- not for anything else: another condition, RETURNING, a join, a list
EXPLAIN (COSTS OFF) DELETE FROM w WHERE row_key >= 'k010' AND ts > 5;
EXPLAIN (COSTS OFF) DELETE FROM w WHERE row_key = 'k010' RETURNING ts;
EXPLAIN (COSTS OFF) DELETE FROM w WHERE row_key IN ('k010', 'k011');
EXPLAIN (COSTS OFF) DELETE FROM w USING h WHERE w.row_key = h.row_key AND h.ts = 1;

-- what it writes: nothing in the write area, no page
SELECT write_area_pages FROM wide.stats('w') \gset before_
SELECT pg_relation_size('w') AS size_before \gset
DELETE FROM w WHERE row_key >= 'k010' AND row_key < 'k020';
DELETE FROM h WHERE row_key >= 'k010' AND row_key < 'k020';
SELECT write_area_pages - :before_write_area_pages AS pages_written,
       pg_relation_size('w') - :size_before AS bytes_added FROM wide.stats('w');
SELECT count(*), differ() FROM w;
-- the same delete cell by cell, for comparison
SET wide.enable_range_delete = off;
DELETE FROM w WHERE row_key >= 'k020' AND row_key < 'k030';
DELETE FROM h WHERE row_key >= 'k020' AND row_key < 'k030';
SELECT write_area_pages - :before_write_area_pages > 0 AS pages_written FROM wide.stats('w');
RESET wide.enable_range_delete;
SELECT count(*), differ() FROM w;

-- deletes at random, compared with the heap's, statement by statement;
-- cells written again into a deleted range survive (written after it)
CREATE FUNCTION key(int) RETURNS text LANGUAGE sql AS $$ SELECT 'k' || lpad($1::text, 3, '0') $$;
CREATE FUNCTION delete_both(cond text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE nw bigint; nh bigint;
BEGIN
  EXECUTE 'DELETE FROM w WHERE ' || cond; GET DIAGNOSTICS nw = ROW_COUNT;
  EXECUTE 'DELETE FROM h WHERE ' || cond; GET DIAGNOSTICS nh = ROW_COUNT;
  IF nw <> nh THEN RAISE EXCEPTION 'DELETE % counted % cells, the heap %', cond, nw, nh; END IF;
  IF differ() <> 0 THEN RAISE EXCEPTION 'after DELETE %: % cells differ', cond, differ(); END IF;
  RETURN nw;
END $$;
CREATE FUNCTION insert_both(lo int, hi int, t int8) RETURNS void LANGUAGE sql AS $$
  INSERT INTO w SELECT key(g), 'f', 'again', t, g FROM generate_series(lo, hi) g;
  INSERT INTO h SELECT key(g), 'f', 'again', t, g FROM generate_series(lo, hi) g $$;
SELECT setseed(0.28);
DO $$
DECLARE a int; b int; cond text; total bigint := 0;
BEGIN
  FOR i IN 1..60 LOOP
    a := floor(random() * 200); b := a + floor(random() * 30);
    cond := CASE i % 10
      WHEN 0 THEN format('row_key >= %L AND row_key < %L', key(a), key(b))
      WHEN 1 THEN format('row_key > %L AND row_key <= %L', key(a), key(b))
      WHEN 2 THEN format('row_key = %L', key(a))
      WHEN 3 THEN format('row_key LIKE %L', 'k1' || (a % 10) || '%')
      WHEN 4 THEN format('starts_with(row_key, %L)', 'k0' || (a % 10))
      WHEN 5 THEN format('row_key BETWEEN %L AND %L', key(a), key(b))
      WHEN 6 THEN format('row_key IN (%L, %L, %L, %L)', key(a), key(b), key(a + 7), key(a))
      WHEN 7 THEN format('row_key = %L OR row_key > %L AND row_key < %L OR row_key = %L',
                         key(b), key(a), key(a + 3), key(a + 40))
      WHEN 8 THEN format('row_key = ANY(ARRAY[%L, %L]) AND row_key <= %L', key(a), key(b), key(a))
      ELSE format('row_key < %L AND row_key >= %L', key(b), key(a)) END;
    total := total + delete_both(cond);
    IF i % 3 = 0 THEN PERFORM insert_both(a, b, 100000 + i); END IF;
    IF i % 10 = 0 THEN PERFORM wide.compact('w'); END IF;
  END LOOP;
  RAISE NOTICE 'deleted % cells in all', total > 0;
END $$;
SELECT count(*) > 0 AS some_left, differ() FROM w;

-- single rows, IN lists and ORs: a row tombstone per key (a record in the
-- write area, no metapage room needed) and a range tombstone per range;
-- however many, none goes cell by cell
CREATE FUNCTION how(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text; r text := 'no line';
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM w WHERE ' || cond LOOP
    IF l LIKE '%Range Delete:%' THEN r := regexp_replace(l, '^.*Range Delete: ', ''); END IF;
  END LOOP;
  EXECUTE 'DELETE FROM h WHERE ' || cond;
  RETURN r;
END $$;
SELECT insert_both(150, 199, 200000);
VACUUM w;
SELECT write_area_pages AS wa FROM wide.stats('w') \gset
SELECT pg_relation_size('w') AS size_before \gset
BEGIN;
SELECT how(format('row_key = %L', key(g))) AS how, count(*)
  FROM generate_series(150, 199) g GROUP BY 1 ORDER BY 1;
SELECT how('row_key IN (''k000'', ''k003'', ''k005'', ''zzz'')');
SELECT how('row_key = ''k010'' OR row_key >= ''k011'' AND row_key < ''k015'' OR row_key LIKE ''k02%''');
SELECT how('row_key = ''k040'' OR row_key = ''k041''');
COMMIT;
SELECT differ();
-- 50 rows: a page of the write area at most
SELECT write_area_pages - :wa <= 1 AS at_most_a_page,
       pg_relation_size('w') - :size_before <= 8192 AS bytes_added_at_most_a_page
  FROM wide.stats('w');
-- a list of more than 256 keys goes cell by cell (each count would
-- read all the list's tombstones in the write area)
SELECT how(format('row_key IN (%s)', string_agg(quote_literal(key(g) || '-' || h), ', ')))
  FROM generate_series(0, 9) g, generate_series(1, 26) h;
SELECT how(format('row_key IN (%s)', string_agg(quote_literal(key(g) || '-' || h), ', ')))
  FROM generate_series(0, 9) g, generate_series(1, 25) h;
-- a savepoint rolled back takes them with it
BEGIN;
SAVEPOINT s;
DELETE FROM w WHERE row_key IN ('k100', 'k101');
DELETE FROM w WHERE row_key = 'k102';
SELECT count(*) FROM w WHERE row_key IN ('k100', 'k101', 'k102');
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT differ();
-- a prepared DELETE with a parameter, as a generic plan
SET plan_cache_mode = force_generic_plan;
PREPARE dw(text, text) AS DELETE FROM w WHERE row_key >= $1 AND row_key < $2;
PREPARE dh(text, text) AS DELETE FROM h WHERE row_key >= $1 AND row_key < $2;
EXPLAIN (COSTS OFF) EXECUTE dw('k100', 'k105');
EXECUTE dw('k100', 'k105');
EXECUTE dh('k100', 'k105');
EXECUTE dw('k105', 'k110');
EXECUTE dh('k105', 'k110');
RESET plan_cache_mode;
SELECT differ();

-- a savepoint rolled back takes its range delete with it
BEGIN;
SAVEPOINT s;
DELETE FROM w WHERE row_key >= 'k100';
SELECT count(*) FROM w WHERE row_key >= 'k100';
ROLLBACK TO SAVEPOINT s;
SELECT differ();
SELECT delete_both('row_key >= ''k150''') > 0 AS deleted;
COMMIT;
SELECT differ();

-- VACUUM drops the runs it hides, applies it to the others, retires it
VACUUM w;
SELECT differ();
SELECT delete_both('row_key < ''k050''') > 0 AS deleted;
SELECT FROM wide.compact('w');
SELECT differ();
VACUUM w;
SELECT differ(), write_area_pages FROM wide.stats('w');
SELECT * FROM wide.verify('w');

-- a small delete does not make VACUUM rewrite a large run: the range
-- tombstone stays, and readers apply it
CREATE TABLE big (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('big', 'f');
INSERT INTO big SELECT 'r' || lpad(g::text, 6, '0'), 'f', 'q', g, g FROM generate_series(1, 20000) g;
VACUUM big;
SELECT segment AS seg FROM wide.runs('big') \gset
DELETE FROM big WHERE row_key >= 'r000100' AND row_key < 'r000200';
VACUUM big;
SELECT segment = :seg AS same_run, (SELECT count(*) FROM big) AS cells FROM wide.runs('big');
-- a large one does: the run is rewritten without the deleted cells, once
-- every snapshot sees the delete (an autovacuum's ANALYZE of another table
-- may hold the horizon back for a while: wait for it, as VACUUM would not)
BEGIN;
DELETE FROM big WHERE row_key >= 'r010000';
SELECT pg_current_xact_id()::xid AS dxid \gset
COMMIT;
CREATE FUNCTION wait_horizon(x xid) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..1200 LOOP
    PERFORM pg_stat_clear_snapshot();
    IF NOT EXISTS (SELECT 1 FROM pg_stat_activity
                    WHERE pid <> pg_backend_pid()
                      AND (age(backend_xmin) >= age(x) OR age(backend_xid) >= age(x))) THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN false;
END $$;
SELECT wait_horizon(:'dxid');
VACUUM big;
SELECT segment = :seg AS same_run, cells FROM wide.runs('big');
SELECT count(*), min(row_key), max(row_key) FROM big;
DROP TABLE big;

-- a reverse scan, a point read, an aggregate pushed into the scan, a
-- parallel scan: all apply it
SELECT delete_both('row_key >= ''k120'' AND row_key < ''k140''') > 0 AS deleted;
SELECT (SELECT array_agg(row_key || ts ORDER BY row_key DESC, family DESC, qualifier DESC, ts) FROM w)
     = (SELECT array_agg(row_key || ts ORDER BY row_key DESC, family DESC, qualifier DESC, ts) FROM h) AS reverse_same;
SELECT count(*) FROM w WHERE row_key = 'k125';
SELECT (SELECT count(*) FROM w WHERE row_key >= 'k110' AND row_key < 'k150')
     = (SELECT count(*) FROM h WHERE row_key >= 'k110' AND row_key < 'k150') AS count_same;
SELECT count(*) FROM wide.read_rows(NULL::w, start_key => 'k110'::text, end_key => 'k150'::text);
SELECT count(*) FROM h WHERE row_key >= 'k110' AND row_key < 'k150';

-- everything: one tombstone; VACUUM leaves about nothing
SELECT delete_both('true') > 0 AS deleted;
EXPLAIN (COSTS OFF) DELETE FROM w WHERE true;
SELECT count(*) FROM w;
VACUUM w;
SELECT runs, cells FROM wide.stats('w');
INSERT INTO w VALUES ('k001', 'f', 'q', 1, 1);
SELECT row_key, value FROM w;

-- an empty range, a NULL bound: nothing
DELETE FROM w WHERE row_key > 'k5' AND row_key < 'k1';
DELETE FROM w WHERE row_key = NULL;
-- a key too long for the metapage: deleted cell by cell, exactly
INSERT INTO w VALUES (repeat('x', 2000), 'f', 'q', 1, 1), (repeat('x', 2000) || 'y', 'f', 'q', 1, 1);
DELETE FROM w WHERE row_key >= repeat('x', 2000) AND row_key < repeat('x', 2001);
SELECT count(*) FROM w;

-- aggregate families: the cells the per-cell path deletes (one per column)
CREATE TABLE c (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('c', 'n', aggregate => 'sum');
INSERT INTO c SELECT 'p' || (g % 4), 'n', 'views', 0, g FROM generate_series(1, 100) g;
DELETE FROM c WHERE row_key < 'p2';
SELECT row_key, value FROM c ORDER BY 1;
INSERT INTO c VALUES ('p1', 'n', 'views', 0, 1);
SELECT row_key, value FROM c ORDER BY 1;

-- a row trigger, row-level security: cell by cell
CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$;
CREATE TRIGGER t_note BEFORE DELETE ON c FOR EACH ROW EXECUTE FUNCTION note();
EXPLAIN (COSTS OFF) DELETE FROM c WHERE row_key = 'p2';
DROP TRIGGER t_note ON c;
EXPLAIN (COSTS OFF) DELETE FROM c WHERE row_key = 'p2';

-- through a partitioned table: each wide partition's scan deletes its part
CREATE TABLE pw (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8) PARTITION BY RANGE (row_key);
CREATE TABLE pw1 PARTITION OF pw FOR VALUES FROM (MINVALUE) TO ('k100') USING wide;
CREATE TABLE pw2 PARTITION OF pw FOR VALUES FROM ('k100') TO (MAXVALUE) USING wide;
SELECT wide.create_family('pw1', 'f'), wide.create_family('pw2', 'f');
CREATE TABLE ph (row_key text COLLATE "C", family text, qualifier text, ts int8, value int8);
INSERT INTO ph SELECT 'k' || lpad((g % 200)::text, 3, '0'), 'f', 'q' || (g % 5), g, g
  FROM generate_series(1, 2000) g;
INSERT INTO pw SELECT * FROM ph;
SELECT FROM wide.compact('pw1', major => true);
EXPLAIN (COSTS OFF) DELETE FROM pw WHERE row_key >= 'k050' AND row_key < 'k150';
CREATE FUNCTION pdelete_both(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE nw bigint; nh bigint; l text; how text := '';
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM pw WHERE ' || cond LOOP
    IF l LIKE '%Range Delete:%' THEN
      how := how || CASE WHEN l LIKE '%cell by cell%' THEN 'c' ELSE 't' END;
    END IF;
  END LOOP;
  EXECUTE 'DELETE FROM ph WHERE ' || cond; GET DIAGNOSTICS nh = ROW_COUNT;
  IF (SELECT count(*) FROM ((SELECT * FROM pw EXCEPT ALL SELECT * FROM ph)
        UNION ALL (SELECT * FROM ph EXCEPT ALL SELECT * FROM pw)) x) <> 0 THEN
    RAISE EXCEPTION 'after DELETE %: the partitions differ from the heap', cond;
  END IF;
  RETURN how;
END $$;
SELECT setseed(0.5);
SELECT pdelete_both(CASE g % 4
         WHEN 0 THEN format('row_key >= %L AND row_key < %L', key(a), key(a + 20))
         WHEN 1 THEN format('row_key = %L', key(a))
         WHEN 2 THEN format('row_key IN (%L, %L)', key(a), key(199 - a))
         ELSE format('row_key = %L OR row_key LIKE %L', key(a), 'k1' || (a % 10) || '%') END) AS how,
       count(*)
  FROM (SELECT g, floor(random() * 200)::int AS a FROM generate_series(1, 24) g) x
  GROUP BY 1 ORDER BY 1;
-- the count is the cells deleted in all partitions
INSERT INTO pw VALUES ('k010', 'f', 'x', 1, 1), ('k110', 'f', 'x', 1, 1);
INSERT INTO ph VALUES ('k010', 'f', 'x', 1, 1), ('k110', 'f', 'x', 1, 1);
DO $$
DECLARE nw bigint; nh bigint;
BEGIN
  DELETE FROM pw WHERE row_key IN ('k010', 'k110') OR row_key >= 'k190'; GET DIAGNOSTICS nw = ROW_COUNT;
  DELETE FROM ph WHERE row_key IN ('k010', 'k110') OR row_key >= 'k190'; GET DIAGNOSTICS nh = ROW_COUNT;
  RAISE NOTICE 'deleted %, the heap %', nw, nh;
END $$;
-- a partition with a row trigger goes cell by cell (no range delete
-- planned on it), the other not
CREATE TRIGGER t_note BEFORE DELETE ON pw2 FOR EACH ROW EXECUTE FUNCTION note();
INSERT INTO pw VALUES ('k020', 'f', 'x', 1, 1), ('k120', 'f', 'x', 1, 1);
INSERT INTO ph VALUES ('k020', 'f', 'x', 1, 1), ('k120', 'f', 'x', 1, 1);
SELECT pdelete_both('row_key IN (''k020'', ''k120'')');
DROP TRIGGER t_note ON pw2;
-- row-level security on the parent: not planned so
ALTER TABLE pw ENABLE ROW LEVEL SECURITY;
EXPLAIN (COSTS OFF) DELETE FROM pw WHERE row_key = 'k030';
ALTER TABLE pw DISABLE ROW LEVEL SECURITY;
SELECT count(*) FROM pw;
DROP TABLE pw, ph;
DROP FUNCTION pdelete_both(text);

-- a role that may not delete cannot
CREATE ROLE range_delete_reader;
GRANT SELECT ON c TO range_delete_reader;
SET ROLE range_delete_reader;
DELETE FROM c;
RESET ROLE;
SELECT count(*) FROM c;
DROP TABLE c;
DROP ROLE range_delete_reader;
DROP TABLE w;
DROP TABLE h;

-- single-row DELETEs (row tombstones), then VACUUM: the tombstones and the
-- cells they delete are merged away at once (vacuum.c, a small table), not
-- left until a major compaction: one run of the cells left, and the table
-- no larger than before the DELETEs
CREATE TABLE sr (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
ALTER TABLE sr SET (autovacuum_enabled = off);
SELECT wide.create_family('sr', 'm');
INSERT INTO sr SELECT 'k' || lpad(r::text, 5, '0'), 'm', 'q' || q, '2020-01-01', r
  FROM generate_series(1, 5000) r, generate_series(1, 10) q;
SELECT wide.compact('sr', major => true) IS NOT NULL AS compacted;
VACUUM sr;
CREATE TEMP TABLE sr_size AS SELECT pg_total_relation_size('sr') AS before;
DO $$ BEGIN FOR i IN 1..200 LOOP
  EXECUTE format('DELETE FROM sr WHERE row_key = %L', 'k' || lpad((i * 17)::text, 5, '0'));
END LOOP; END $$;
SELECT runs, cells FROM wide.stats('sr');
VACUUM sr;
SELECT runs, cells, pg_total_relation_size('sr') <= (SELECT before FROM sr_size) AS no_larger
  FROM wide.stats('sr');
SELECT count(*), count(DISTINCT row_key) FROM sr;
DROP TABLE sr, sr_size;

-- 300 single-row DELETEs in one transaction, each against a heap oracle:
-- each counts its row from this backend's copy of the write area
-- (engine/wacache.c), which reads the records appended since the last
-- count only -- 40 cells written before, then a row tombstone per DELETE --
-- not the whole write area again (300 x 40 to 340 records); the rows with
-- cells in the write area last, when the tombstones fill a second page
CREATE TABLE sq (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
ALTER TABLE sq SET (autovacuum_enabled = off);
SELECT wide.create_family('sq', 'm');
INSERT INTO sq SELECT 'k' || lpad(r::text, 4, '0'), 'm', 'q' || q, '2020-01-01', r
  FROM generate_series(1, 1000) r, generate_series(1, 4) q;
SELECT wide.compact('sq', major => true) IS NOT NULL AS compacted;
INSERT INTO sq SELECT 'k' || lpad((r * 7)::text, 4, '0'), 'm', 'q9', '2020-01-02', r
  FROM generate_series(1, 40) r;
CREATE TABLE sqh AS SELECT * FROM sq;
BEGIN;
SELECT wide_internal.write_area_reads() AS reads0 \gset
DO $$
DECLARE n bigint; m bigint; total bigint := 0;
BEGIN
  FOR i IN REVERSE 300..1 LOOP
    EXECUTE format('DELETE FROM sq WHERE row_key = %L', 'k' || lpad((i * 3)::text, 4, '0'));
    GET DIAGNOSTICS n = ROW_COUNT;
    EXECUTE format('DELETE FROM sqh WHERE row_key = %L', 'k' || lpad((i * 3)::text, 4, '0'));
    GET DIAGNOSTICS m = ROW_COUNT;
    IF n <> m THEN RAISE EXCEPTION 'DELETE % of row % against % in the heap', n, i * 3, m; END IF;
    total := total + n;
  END LOOP;
  RAISE NOTICE '% cells deleted', total;
END $$;
SELECT wide_internal.write_area_reads() - :reads0 AS records_read;
COMMIT;
SELECT (SELECT count(*) FROM (SELECT row_key, family, qualifier, ts, value FROM sq
                              EXCEPT ALL SELECT * FROM sqh) x) AS only_wide,
       (SELECT count(*) FROM (SELECT * FROM sqh
                              EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM sq) x) AS only_heap,
       (SELECT count(*) FROM sq) AS cells;
DROP TABLE sq, sqh;

-- the write-area copy where a table's storage changes under it, against
-- heaps, in one transaction: five tables counted in turn (four copies:
-- each count evicts one), a TRUNCATE of a table made in the transaction
-- between two counts of it (its relfilenode kept, a new metapage of
-- another epoch whose lane starts again at the same block: a copy keyed
-- without the epoch reads stale records), a subtransaction's writes
-- rolled back, a flush in the middle of a statement (wide.flush_threshold's
-- 16 pages)
BEGIN;
SET LOCAL wide.flush_threshold = 16;
SET LOCAL wide.statement_run_size = '1GB';	-- (statements go to the write area)
CREATE FUNCTION pg_temp.wa_check(t int, k text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE n bigint; m bigint;
BEGIN
  EXECUTE format('DELETE FROM wc%s WHERE row_key = %L', t, k);
  GET DIAGNOSTICS n = ROW_COUNT;
  EXECUTE format('DELETE FROM hc%s WHERE row_key = %L', t, k);
  GET DIAGNOSTICS m = ROW_COUNT;
  IF n <> m THEN RAISE EXCEPTION 'wc%: DELETE of % deleted %, the heap %', t, k, n, m; END IF;
END $$;
CREATE FUNCTION pg_temp.wa_write(t int, n int, tag text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO wc%s SELECT ''k'' || (g %% 40), ''m'', %L || g, 1, g FROM generate_series(1, %s) g', t, tag, n);
  EXECUTE format('INSERT INTO hc%s SELECT ''k'' || (g %% 40), ''m'', %L || g, 1, g FROM generate_series(1, %s) g', t, tag, n);
END $$;
DO $$
BEGIN
  FOR t IN 1..5 LOOP
    EXECUTE format('CREATE TABLE wc%s (row_key text, family text, qualifier text, ts int8, value int8) USING wide', t);
    EXECUTE format('SELECT wide.create_family(%L, ''m'')', 'wc' || t);
    EXECUTE format('CREATE TABLE hc%s (row_key text, family text, qualifier text, ts int8, value int8)', t);
    PERFORM pg_temp.wa_write(t, 200, 'a');
  END LOOP;
  FOR i IN 1..30 LOOP
    FOR t IN 1..5 LOOP
      PERFORM pg_temp.wa_check(t, 'k' || ((i * 7 + t) % 40));
      PERFORM pg_temp.wa_write(t, 3, 'b' || i || '_');
    END LOOP;
    IF i = 10 THEN
      PERFORM pg_temp.wa_check(3, 'k1');
      TRUNCATE wc3, hc3;
      PERFORM pg_temp.wa_write(3, 150, 'c');
      PERFORM pg_temp.wa_check(3, 'k2');
    ELSIF i = 15 THEN
      BEGIN
        PERFORM pg_temp.wa_write(2, 50, 'd');
        PERFORM pg_temp.wa_check(2, 'k5');
        RAISE EXCEPTION 'roll back';
      EXCEPTION WHEN raise_exception THEN NULL;
      END;
    ELSIF i = 20 THEN
      PERFORM pg_temp.wa_write(4, 6000, 'e');	-- (flushes)
    END IF;
  END LOOP;
END $$;
SELECT (SELECT flushes FROM wide.stats('wc4')) > 0 AS flushed,
       (SELECT count(*) FROM ((SELECT * FROM wc1 UNION ALL SELECT * FROM wc2 UNION ALL
         SELECT * FROM wc3 UNION ALL SELECT * FROM wc4 UNION ALL SELECT * FROM wc5)
         EXCEPT ALL (SELECT * FROM hc1 UNION ALL SELECT * FROM hc2 UNION ALL
         SELECT * FROM hc3 UNION ALL SELECT * FROM hc4 UNION ALL SELECT * FROM hc5)) x) AS only_wide,
       (SELECT count(*) FROM ((SELECT * FROM hc1 UNION ALL SELECT * FROM hc2 UNION ALL
         SELECT * FROM hc3 UNION ALL SELECT * FROM hc4 UNION ALL SELECT * FROM hc5)
         EXCEPT ALL (SELECT * FROM wc1 UNION ALL SELECT * FROM wc2 UNION ALL
         SELECT * FROM wc3 UNION ALL SELECT * FROM wc4 UNION ALL SELECT * FROM wc5)) x) AS only_heap,
       (SELECT count(*) FROM wc3) = (SELECT count(*) FROM hc3) AS truncated_alike;
ROLLBACK;

-- VACUUM (FREEZE) and a range tombstone left in the metapage (it deleted
-- too little of the run it overlaps for VACUUM to rewrite that run):
-- relfrozenxid must never pass the tombstone's xmin, or the clog under it
-- is truncated and, after a wraparound, the xid reads as in the future and
-- the deleted rows come back.  VACUUM freezes it (xmin 2) once every
-- snapshot sees it, so relfrozenxid still advances.
CREATE TABLE fz (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
ALTER TABLE fz SET (autovacuum_enabled = off);
SELECT wide.create_family('fz', 'f');
INSERT INTO fz SELECT 'k' || lpad(g::text, 5, '0'), 'f', 'q', 1, g
  FROM generate_series(1, 5000) g;
VACUUM (FREEZE) fz;
BEGIN;
DELETE FROM fz WHERE row_key >= 'k00010' AND row_key < 'k00020';
SELECT pg_current_xact_id()::text AS del_xid \gset
COMMIT;
VACUUM (FREEZE) fz;
CHECKPOINT;
-- the metapage: nrangedels, and the first tombstone's xmin (rangedels
-- follow rangedel_len; an entry starts with seq:u64 xmin:u32)
CREATE FUNCTION meta_u32(rel regclass, field text, plus int) RETURNS bigint LANGUAGE sql AS $$
  SELECT get_byte(m, o) + get_byte(m, o + 1) * 256 + get_byte(m, o + 2) * 65536
         + get_byte(m, o + 3)::bigint * 16777216
    FROM (SELECT pg_read_binary_file(pg_relation_filepath(rel), 0, 8192) AS m) i,
         LATERAL (SELECT f.off + plus AS o
                    FROM wide_internal.format_page_fields(i.m) f WHERE f.field = $2) x $$;
SELECT meta_u32('fz', 'nrangedels', 0) AS tombstones,
       meta_u32('fz', 'rangedel_len', 12) AS xmin_of_first,
       meta_u32('fz', 'rangedel_len', 12) <> :del_xid AS not_the_delete_xid,
       (SELECT relfrozenxid::text::bigint > :del_xid FROM pg_class WHERE oid = 'fz'::regclass)
         AS relfrozenxid_advanced
\gx
SELECT count(*) FROM fz;
DROP FUNCTION meta_u32;
DROP TABLE fz;

-- 1,000 single-row DELETEs in one transaction, against a heap oracle:
-- each a row tombstone numbered before its count, so none takes a
-- subtransaction (before: one each, an xid each, and the backend's
-- subtransaction cache overflowed past 64).  The xids the transaction
-- consumed: its own, not one per DELETE; the write area grew by row
-- tombstones (a few pages), not by a tombstone per cell.
CREATE TABLE sx (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
ALTER TABLE sx SET (autovacuum_enabled = off);
SELECT wide.create_family('sx', 'm');
INSERT INTO sx SELECT 'k' || lpad(r::text, 5, '0'), 'm', 'q' || q, '2020-01-01', r
  FROM generate_series(1, 3000) r, generate_series(1, 5) q;
SELECT wide.compact('sx', major => true) IS NOT NULL AS compacted;
-- a few rows with cells in the write area too, one a version of its own
INSERT INTO sx SELECT 'k' || lpad((r * 11)::text, 5, '0'), 'm', 'q1', '2020-01-02', -r
  FROM generate_series(1, 50) r;
-- 256 rows of 150-byte keys: their IN list's tombstones fill 7 new pages
INSERT INTO sx SELECT 'L' || repeat('x', 150) || lpad(r::text, 3, '0'), 'm', 'q' || q, '2020-01-01', r
  FROM generate_series(1, 256) r, generate_series(1, 2) q;
CREATE TABLE sxh AS SELECT * FROM sx;
CREATE INDEX ON sxh (row_key);
ANALYZE sxh;
SELECT write_area_pages AS wa0 FROM wide.stats('sx') \gset
SELECT txid_current() AS xid0 \gset
BEGIN;
DO $$
DECLARE n bigint; m bigint; total bigint := 0;
BEGIN
  FOR i IN 1..1000 LOOP
    EXECUTE format('DELETE FROM sx WHERE row_key = %L', 'k' || lpad((i * 3)::text, 5, '0'));
    GET DIAGNOSTICS n = ROW_COUNT;
    EXECUTE format('DELETE FROM sxh WHERE row_key = %L', 'k' || lpad((i * 3)::text, 5, '0'));
    GET DIAGNOSTICS m = ROW_COUNT;
    IF n <> m THEN RAISE EXCEPTION 'DELETE % of row % against % in the heap', n, i * 3, m; END IF;
    total := total + n;
  END LOOP;
  RAISE NOTICE '% cells deleted', total;
END $$;
-- an IN list and an OR of a row and a range in the same transaction
DELETE FROM sx WHERE row_key IN ('k00001', 'k00002', 'k00004', 'nope');
DELETE FROM sxh WHERE row_key IN ('k00001', 'k00002', 'k00004', 'nope');
DELETE FROM sx WHERE row_key = 'k00005' OR row_key >= 'k02990' AND row_key < 'k02995';
DELETE FROM sxh WHERE row_key = 'k00005' OR row_key >= 'k02990' AND row_key < 'k02995';
DO $$
DECLARE l text; cond text;
BEGIN
  SELECT format('row_key IN (%s)', string_agg(quote_literal('L' || repeat('x', 150) || lpad(r::text, 3, '0')), ', '))
    INTO cond FROM generate_series(1, 256) r;
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM sx WHERE ' || cond LOOP
    IF l LIKE '%Range Delete:%' THEN RAISE NOTICE '%', regexp_replace(l, '^.*Range Delete: ', ''); END IF;
  END LOOP;
  EXECUTE 'DELETE FROM sxh WHERE ' || cond;
END $$;
COMMIT;
SELECT txid_current() - :xid0 < 10 AS no_xid_per_delete,
       (SELECT write_area_pages - :wa0 BETWEEN 8 AND 20 FROM wide.stats('sx')) AS row_tombstones;
SELECT (SELECT count(*) FROM (SELECT row_key, family, qualifier, ts, value FROM sx
                              EXCEPT ALL SELECT * FROM sxh) x) AS only_wide,
       (SELECT count(*) FROM (SELECT * FROM sxh
                              EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM sx) x) AS only_heap,
       (SELECT count(*) FROM sx) AS cells;
VACUUM sx;
SELECT (SELECT count(*) FROM (SELECT row_key, family, qualifier, ts, value FROM sx
                              EXCEPT ALL SELECT * FROM sxh) x) AS only_wide_after_vacuum,
       (SELECT count(*) FROM sx) AS cells;
DROP TABLE sx, sxh;
-- the test-only pause point is a superuser's setting
CREATE ROLE range_delete_pauser;
SET ROLE range_delete_pauser;
SET wide.debug_pause = 'keysdel-numbered';
RESET ROLE;
DROP ROLE range_delete_pauser;
