--
-- ingest_statement: a statement's cells are held in backend memory and
-- written when it ends (engine/pending.c).  Everything a heap table shows
-- during and after the statement, the wide table shows too: each case runs
-- on a heap table "h" and the wide table "w" and compares.
--
\set SHOW_CONTEXT never
CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('w', 'f');
CREATE TABLE h (row_key text COLLATE "C", family text COLLATE "C",
                qualifier text COLLATE "C", ts int8, value text);

-- count the cells of a table, from inside a statement (a new snapshot)
CREATE FUNCTION cnt(t regclass) RETURNS bigint VOLATILE LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM %s', t) INTO n;
  RETURN n;
END $$;

-- a volatile function in the SELECT list sees the rows written before it
-- in the same statement, as with the heap
INSERT INTO h SELECT 'r' || i, 'f', 'q', 1, cnt('h')::text FROM generate_series(1, 5) i;
INSERT INTO w SELECT 'r' || i, 'f', 'q', 1, cnt('w')::text FROM generate_series(1, 5) i;
SELECT row_key, value FROM w
EXCEPT SELECT row_key, value FROM h;
SELECT string_agg(value, ',' ORDER BY row_key) FROM w;
-- the same through wide.read_rows and a large statement (a run, not the
-- write area)
CREATE FUNCTION cnt_rows(t regclass) RETURNS bigint VOLATILE LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  SELECT count(*) INTO n FROM wide.read_rows(NULL::w);
  RETURN n;
END $$;
TRUNCATE w;
INSERT INTO w SELECT 'big' || lpad(i::text, 6, '0'), 'f', 'q', 1, repeat('x', 100)
  FROM generate_series(1, 3000) i;
INSERT INTO w SELECT 'mid' || i, 'f', 'q', 1, cnt_rows('w')::text FROM generate_series(1, 3) i;
SELECT row_key, value FROM w WHERE row_key LIKE 'mid%' ORDER BY 1;
SELECT count(*) FROM w;

-- INSERT ... SELECT from the same table reads the table as it was
TRUNCATE w, h;
INSERT INTO w SELECT 'k' || i, 'f', 'q', 1, 'v' FROM generate_series(1, 2000) i;
INSERT INTO w SELECT row_key || '+', family, qualifier, ts, value FROM w;
INSERT INTO w SELECT row_key || '+', family, qualifier, ts, value FROM w;
SELECT count(*), count(*) FILTER (WHERE row_key LIKE '%++') FROM w;

-- last write wins inside one statement, small and large
TRUNCATE w;
INSERT INTO w VALUES ('dup', 'f', 'q', 1, 'a'), ('dup', 'f', 'q', 1, 'b'), ('dup', 'f', 'q', 1, 'c');
INSERT INTO w SELECT 'dup2', 'f', 'q', 1, i::text FROM generate_series(1, 20000) i;
SELECT row_key, value FROM w ORDER BY 1;
-- and a delete in the same statement removes what was written before it
SELECT wide.set_cell('w', 'd', 'f', 'q1', 'x', 5), wide.delete_row('w', 'd'),
       wide.set_cell('w', 'd', 'f', 'q2', 'y', 5);
SELECT row_key, qualifier, value FROM w WHERE row_key = 'd';

-- savepoints: a rolled-back subtransaction's cells are gone
TRUNCATE w;
BEGIN;
INSERT INTO w VALUES ('a', 'f', 'q', 1, 'kept');
SAVEPOINT s1;
INSERT INTO w SELECT 'sp' || i, 'f', 'q', 1, 'gone' FROM generate_series(1, 5000) i;
INSERT INTO w VALUES ('b', 'f', 'q', 1, 'gone');
ROLLBACK TO s1;
INSERT INTO w VALUES ('c', 'f', 'q', 1, 'kept');
SAVEPOINT s2;
INSERT INTO w SELECT 'rel' || i, 'f', 'q', 1, 'kept' FROM generate_series(1, 3) i;
RELEASE s2;
COMMIT;
SELECT row_key, value FROM w ORDER BY 1;
-- an exception block inside a statement: only the failed blocks' cells go
CREATE FUNCTION put_or_fail(k int) RETURNS int VOLATILE LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM wide.set_cell('w', 'x' || k, 'f', 'q', 'v', 1);
    IF k % 2 = 0 THEN
      RAISE EXCEPTION 'even';
    END IF;
  EXCEPTION WHEN raise_exception THEN
    RETURN 0;
  END;
  RETURN 1;
END $$;
TRUNCATE w;
INSERT INTO w SELECT 'y' || k, 'f', 'q', 1, put_or_fail(k)::text FROM generate_series(1, 6) k;
SELECT row_key, value FROM w ORDER BY 1;

-- an error in the middle of a statement leaves nothing, small or large,
-- even after the buffer was written once (wide.bulk_memory reached)
TRUNCATE w;
INSERT INTO w SELECT 'e' || i, CASE WHEN i = 3 THEN 'nosuch' ELSE 'f' END, 'q', 1, 'v'
  FROM generate_series(1, 5) i;
INSERT INTO w SELECT 'e' || i, CASE WHEN i = 9000 THEN 'nosuch' ELSE 'f' END, 'q', 1, 'v'
  FROM generate_series(1, 10000) i;
SET wide.bulk_memory = 1024;
INSERT INTO w SELECT 'e' || i, CASE WHEN i = 19000 THEN 'nosuch' ELSE 'f' END, 'q', 1, repeat('v', 200)
  FROM generate_series(1, 20000) i;
SELECT count(*) FROM w;
-- and the next statement works, several runs of one statement included
INSERT INTO w SELECT 'e' || lpad(i::text, 5, '0'), 'f', 'q', 1, repeat('v', 200)
  FROM generate_series(1, 20000) i;
RESET wide.bulk_memory;
SELECT count(*), min(row_key), max(row_key) FROM w;
SELECT write_area_runs > 1 AS several_runs FROM wide.stats('w');

-- a TRUNCATE in the same function after buffered writes removes them
CREATE FUNCTION put_then_truncate() RETURNS bigint VOLATILE LANGUAGE plpgsql AS $$
BEGIN
  PERFORM wide.set_cell('w', 't' || i, 'f', 'q', 'v', 1) FROM generate_series(1, 10) i;
  TRUNCATE w;
  PERFORM wide.set_cell('w', 'after', 'f', 'q', 'v', 1);
  RETURN cnt('w');
END $$;
SELECT put_then_truncate();
SELECT row_key FROM w;

-- an AFTER STATEMENT trigger sees the statement's rows
CREATE TABLE seen (n bigint);
CREATE FUNCTION note_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO seen SELECT count(*) FROM w;
  RETURN NULL;
END $$;
CREATE TRIGGER w_after AFTER INSERT ON w FOR EACH STATEMENT EXECUTE FUNCTION note_count();
TRUNCATE w;
INSERT INTO w SELECT 'tr' || i, 'f', 'q', 1, 'v' FROM generate_series(1, 300) i;
SELECT * FROM seen;
DROP TRIGGER w_after ON w;

-- INSERT ... SELECT into an aggregate family: small and large statements
-- fold the same inputs, also with a later add_to_cell
CREATE TABLE agg (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('agg', 'total', aggregate => 'sum');
SELECT wide.create_family('agg', 'top', aggregate => 'max');
INSERT INTO agg SELECT 'r' || (i % 3), 'total', 'q', 0, i FROM generate_series(1, 30) i;
INSERT INTO agg SELECT 'R' || (i % 3), 'total', 'q', 0, i FROM generate_series(1, 30000) i;
INSERT INTO agg SELECT 'R' || (i % 3), 'top', 'q', 0, i FROM generate_series(1, 30000) i;
SELECT wide.add_to_cell('agg', 'R0', 'total', 'q', 0, 1000000);
SELECT row_key, family, value FROM agg ORDER BY 1, 2;
SELECT FROM wide.compact('agg', major => true);
SELECT row_key, family, value FROM agg ORDER BY 1, 2;

-- mutate_rows called per row of a statement: one write at its end
TRUNCATE w;
SELECT sum(wide.mutate_rows('w', jsonb_build_array(jsonb_build_object(
         'row_key', 'm' || i,
         'mutations', jsonb_build_array(jsonb_build_object('set_cell',
            jsonb_build_object('family_name', 'f', 'column_qualifier', 'q', 'timestamp_micros', 1, 'value', 'v')))))))
  FROM generate_series(1, 5000) i;
SELECT count(*) FROM w;
SELECT wide.verify('w');
DROP TABLE w, h, agg, seen;
DROP FUNCTION cnt, cnt_rows, put_or_fail, put_then_truncate, note_count;

-- statement writes by a role that may only INSERT, under row-level
-- security: the policy is checked per row before the cell is held, a
-- violation discards everything the statement held, and what is written
-- at the statement's end is exactly what a heap table receives
CREATE TABLE ws (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('ws', 'f');
CREATE TABLE hs (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value text);
CREATE ROLE regress_ingest_writer;
GRANT INSERT ON ws, hs TO regress_ingest_writer;
ALTER TABLE ws ENABLE ROW LEVEL SECURITY;
ALTER TABLE hs ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_prefix ON ws FOR INSERT WITH CHECK (row_key LIKE 'writer#%');
CREATE POLICY own_prefix ON hs FOR INSERT WITH CHECK (row_key LIKE 'writer#%');
SET ROLE regress_ingest_writer;
-- small statements (the write area) and a large one (a run)
INSERT INTO ws VALUES ('writer#1', 'f', 'q', 1, 'a'), ('writer#2', 'f', 'q', 1, 'b');
INSERT INTO hs VALUES ('writer#1', 'f', 'q', 1, 'a'), ('writer#2', 'f', 'q', 1, 'b');
INSERT INTO ws SELECT 'writer#big' || lpad(i::text, 5, '0'), 'f', 'q', i, repeat('y', 50)
  FROM generate_series(1, 4000) i;
INSERT INTO hs SELECT 'writer#big' || lpad(i::text, 5, '0'), 'f', 'q', i, repeat('y', 50)
  FROM generate_series(1, 4000) i;
-- the last row violates the policy: nothing of the statement is written
INSERT INTO ws SELECT CASE WHEN i = 4000 THEN 'other#' ELSE 'writer#bad' END || i, 'f', 'q', i, 'z'
  FROM generate_series(1, 4000) i;
INSERT INTO hs SELECT CASE WHEN i = 4000 THEN 'other#' ELSE 'writer#bad' END || i, 'f', 'q', i, 'z'
  FROM generate_series(1, 4000) i;
INSERT INTO ws VALUES ('writer#3', 'f', 'q', 1, 'c'), ('other#3', 'f', 'q', 1, 'c');
-- the role cannot read what it wrote
SELECT count(*) FROM ws;
SELECT count(*) FROM wide.read_rows(NULL::ws);
RESET ROLE;
SELECT count(*) AS cells, count(DISTINCT row_key) AS rows FROM ws;
(SELECT row_key, ts, value FROM ws EXCEPT SELECT row_key, ts, value FROM hs)
UNION ALL
(SELECT row_key, ts, value FROM hs EXCEPT SELECT row_key, ts, value FROM ws);
SELECT wide.verify('ws');
DROP TABLE ws, hs;
DROP ROLE regress_ingest_writer;
