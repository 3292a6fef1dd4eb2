-- Data-changing forms on a wide table: every trigger and rule declaration
-- is accepted (and then works) or refused when declared, never accepted and
-- failing at run time; DELETE with joins that return a cell twice, MERGE,
-- BEFORE ROW DELETE triggers and transition tables give heap's answers.
-- (test/t/062_dml_fuzz.pl compares random statements with a heap twin.)
\set VERBOSITY terse
SET max_parallel_workers_per_gather = 0;
CREATE TABLE df (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('df', 'cf');
CREATE TABLE df_log (n serial, msg text);
CREATE TABLE df_src (k text, n int);
INSERT INTO df_src VALUES ('a', 1), ('a', 2), ('b', 1);
CREATE FUNCTION df_trig() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO df_log(msg) VALUES (TG_NAME || ' ' || coalesce(OLD::text, NEW::text, ''));
  IF TG_LEVEL = 'ROW' THEN
    IF TG_OP = 'DELETE' THEN
      RETURN CASE WHEN OLD.value = 'keep' THEN NULL ELSE OLD END;
    END IF;
    RETURN NEW;
  END IF;
  RETURN NULL;
END $$;
CREATE FUNCTION df_old_table() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO df_log(msg) SELECT TG_NAME || ' ' || string_agg(o::text, ' ' ORDER BY o::text) FROM ot o;
  RETURN NULL;
END $$;
CREATE FUNCTION df_new_table() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO df_log(msg) SELECT TG_NAME || ' ' || string_agg(n::text, ' ' ORDER BY n::text) FROM nt n;
  RETURN NULL;
END $$;

-- triggers: every kind, accepted or refused
CREATE TRIGGER b_row_ins BEFORE INSERT ON df FOR EACH ROW EXECUTE FUNCTION df_trig();
CREATE TRIGGER b_row_del BEFORE DELETE ON df FOR EACH ROW EXECUTE FUNCTION df_trig();
CREATE TRIGGER b_row_upd BEFORE UPDATE ON df FOR EACH ROW EXECUTE FUNCTION df_trig();
CREATE TRIGGER b_st_ins BEFORE INSERT ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER b_st_del BEFORE DELETE ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER b_st_upd BEFORE UPDATE ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER b_st_trunc BEFORE TRUNCATE ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER a_st_ins AFTER INSERT ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER a_st_del AFTER DELETE ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER a_st_upd AFTER UPDATE ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER a_st_trunc AFTER TRUNCATE ON df FOR EACH STATEMENT EXECUTE FUNCTION df_trig();
CREATE TRIGGER a_st_old AFTER DELETE ON df REFERENCING OLD TABLE AS ot FOR EACH STATEMENT EXECUTE FUNCTION df_old_table();
CREATE TRIGGER a_st_new AFTER INSERT ON df REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION df_new_table();
-- refused: AFTER ... FOR EACH ROW of every event, constraint triggers
CREATE TRIGGER a_row_ins AFTER INSERT ON df FOR EACH ROW EXECUTE FUNCTION df_trig();
CREATE TRIGGER a_row_del AFTER DELETE ON df FOR EACH ROW EXECUTE FUNCTION df_trig();
CREATE TRIGGER a_row_upd AFTER UPDATE ON df FOR EACH ROW EXECUTE FUNCTION df_trig();
CREATE CONSTRAINT TRIGGER c_row AFTER INSERT ON df DEFERRABLE FOR EACH ROW EXECUTE FUNCTION df_trig();
-- (PostgreSQL itself: no row-level TRUNCATE triggers, no INSTEAD OF on tables)
CREATE TRIGGER b_row_trunc BEFORE TRUNCATE ON df FOR EACH ROW EXECUTE FUNCTION df_trig();
SELECT tgname FROM pg_trigger WHERE tgrelid = 'df'::regclass ORDER BY tgname;

INSERT INTO df VALUES ('a', 'cf', 'q', 1, 'v1'), ('a', 'cf', 'r', 1, 'keep'),
                      ('b', 'cf', 'q', 1, 'v2'), ('c', 'cf', 'q', 1, 'v3');
SELECT msg FROM df_log ORDER BY n;
TRUNCATE df_log;

-- DELETE ... USING with two join rows for each 'a' cell: each cell is
-- deleted, counted, returned and seen by the row trigger once (heap's
-- answer); the 'keep' cell is kept by its BEFORE ROW trigger
SET enable_hashjoin = off; SET enable_mergejoin = off;
BEGIN;
WITH d AS (DELETE FROM df USING df_src s WHERE df.row_key = s.k RETURNING df.*)
SELECT * FROM d ORDER BY 1, 2, 3, 4;
SELECT msg FROM df_log ORDER BY msg;
SELECT * FROM df ORDER BY 1, 2, 3, 4;
ROLLBACK;
SET enable_nestloop = off; SET enable_hashjoin = on;
BEGIN;
DELETE FROM df USING df_src s WHERE df.row_key = s.k;
SELECT * FROM df ORDER BY 1, 2, 3, 4;
ROLLBACK;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
-- two DELETEs of the table in one statement: a cell goes once
BEGIN;
WITH d1 AS (DELETE FROM df WHERE row_key < 'c' RETURNING *),
     d2 AS (DELETE FROM df WHERE qualifier = 'q' RETURNING *)
SELECT (SELECT count(*) FROM d1) + (SELECT count(*) FROM d2) AS deleted;
SELECT * FROM df ORDER BY 1, 2, 3, 4;
ROLLBACK;
TRUNCATE df_log;

-- a writable CTE: move a row to a new key
WITH d AS (DELETE FROM df WHERE row_key = 'c' RETURNING *)
INSERT INTO df SELECT 'c2', family, qualifier, ts, value FROM d RETURNING *;
SELECT msg FROM df_log ORDER BY n;
TRUNCATE df_log;

-- MERGE: WHEN MATCHED DELETE / DO NOTHING, WHEN NOT MATCHED INSERT
BEGIN;
MERGE INTO df USING (VALUES ('b', 1), ('zz', 1)) v(k, n) ON df.row_key = v.k AND df.ts = v.n
  WHEN MATCHED AND df.qualifier = 'q' THEN DELETE
  WHEN MATCHED THEN DO NOTHING
  WHEN NOT MATCHED THEN INSERT VALUES (v.k, 'cf', 'm', v.n, 'merged');
SELECT * FROM df ORDER BY 1, 2, 3, 4;
ROLLBACK;
-- two source rows for one target cell: heap's error
MERGE INTO df USING df_src s ON df.row_key = s.k AND df.qualifier = 'q' WHEN MATCHED THEN DELETE;
-- the same in a subtransaction, then COMMIT (the transaction is rolled back)
BEGIN;
SAVEPOINT s1;
MERGE INTO df USING df_src s ON df.row_key = s.k AND df.qualifier = 'q' WHEN MATCHED THEN DELETE;
ROLLBACK TO SAVEPOINT s1;
DELETE FROM df WHERE row_key = 'b';
COMMIT;
-- UPDATE is refused when it runs (MERGE's WHEN MATCHED UPDATE too)
UPDATE df SET value = 'x' WHERE row_key = 'a';
MERGE INTO df USING df_src s ON df.row_key = s.k AND s.n = 1 WHEN MATCHED THEN UPDATE SET value = 'x';
UPDATE df SET value = 'x' WHERE false;
SELECT * FROM df ORDER BY 1, 2, 3, 4;
SELECT msg FROM df_log ORDER BY n;
TRUNCATE df_log;

-- TRUNCATE fires the TRUNCATE triggers
BEGIN;
TRUNCATE df;
SELECT msg FROM df_log ORDER BY n;
ROLLBACK;
DROP TRIGGER b_row_ins ON df;
DROP TRIGGER b_row_del ON df;
DROP TRIGGER a_st_old ON df;
DROP TRIGGER a_st_new ON df;
DROP TRIGGER b_st_ins ON df;
DROP TRIGGER b_st_del ON df;
DROP TRIGGER a_st_ins ON df;
DROP TRIGGER a_st_del ON df;
TRUNCATE df_log;

-- rules: accepted, and they work
CREATE RULE r_ins AS ON INSERT TO df WHERE new.qualifier = 'log'
  DO INSTEAD INSERT INTO df_log(msg) VALUES ('rule ' || new.row_key);
CREATE RULE r_del AS ON DELETE TO df DO ALSO INSERT INTO df_log(msg) VALUES ('deleted ' || old.row_key);
-- an UPDATE of the table rewritten into an INSERT: last write wins
CREATE RULE r_upd AS ON UPDATE TO df DO INSTEAD INSERT INTO df VALUES (new.*);
CREATE RULE r_src AS ON INSERT TO df_src DO ALSO DELETE FROM df WHERE row_key = new.k;
INSERT INTO df VALUES ('l', 'cf', 'log', 1, 'x'), ('d', 'cf', 'q', 1, 'v4');
UPDATE df SET value = 'upd' WHERE row_key = 'd';
INSERT INTO df_src VALUES ('a', 9);
DELETE FROM df WHERE row_key = 'c2';
SELECT * FROM df ORDER BY 1, 2, 3, 4;
SELECT msg FROM df_log ORDER BY n;
-- refused: a rule that UPDATEs a wide table, an ON SELECT rule on one
CREATE RULE r_bad AS ON INSERT TO df_src DO ALSO UPDATE df SET value = new.k;
CREATE RULE r_bad2 AS ON DELETE TO df DO INSTEAD UPDATE df SET value = 'x' WHERE row_key = old.row_key;
CREATE TABLE df_empty (row_key text, family text, qualifier text, ts int8, value text) USING wide;
CREATE RULE "_RETURN" AS ON SELECT TO df_empty DO INSTEAD SELECT * FROM df;
SELECT relkind, amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE relname = 'df_empty';
SELECT rulename FROM pg_rules WHERE tablename IN ('df', 'df_src', 'df_empty') ORDER BY rulename;
DROP RULE r_ins ON df; DROP RULE r_del ON df; DROP RULE r_upd ON df; DROP RULE r_src ON df_src;
TRUNCATE df_log;

-- views: a simple updatable view WITH CHECK OPTION, and INSTEAD OF triggers
CREATE VIEW df_v AS SELECT * FROM df WHERE row_key < 'm' WITH CHECK OPTION;
INSERT INTO df_v VALUES ('e', 'cf', 'q', 1, 'v5') RETURNING *;
INSERT INTO df_v VALUES ('z', 'cf', 'q', 1, 'v6');
DELETE FROM df_v WHERE row_key = 'e' RETURNING *;
UPDATE df_v SET value = 'x' WHERE row_key = 'd';
CREATE VIEW df_v2 AS SELECT row_key, value FROM df WHERE family = 'cf';
CREATE FUNCTION df_v2_trig() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO df VALUES (NEW.row_key, 'cf', 'v2', 1, NEW.value);
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    -- an update is a write of the new value over the cell
    INSERT INTO df SELECT row_key, family, qualifier, ts, NEW.value FROM df
      WHERE row_key = OLD.row_key AND family = 'cf';
    RETURN NEW;
  END IF;
  DELETE FROM df WHERE row_key = OLD.row_key AND family = 'cf';
  RETURN OLD;
END $$;
CREATE TRIGGER df_v2_io INSTEAD OF INSERT OR UPDATE OR DELETE ON df_v2 FOR EACH ROW EXECUTE FUNCTION df_v2_trig();
INSERT INTO df_v2 VALUES ('f', 'v7');
UPDATE df_v2 SET value = 'v8' WHERE row_key = 'f';
DELETE FROM df_v2 WHERE row_key = 'd';
SELECT * FROM df ORDER BY 1, 2, 3, 4;

-- functions, DO blocks, savepoints
CREATE FUNCTION df_del(k text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE n int8;
BEGIN
  DELETE FROM df WHERE row_key = k;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
SELECT df_del('f');
DO $$
BEGIN
  INSERT INTO df VALUES ('g', 'cf', 'q', 1, 'v9');
  BEGIN
    DELETE FROM df WHERE row_key = 'a';
    PERFORM 1 / 0;
  EXCEPTION WHEN division_by_zero THEN
    NULL;
  END;
END $$;
BEGIN;
SAVEPOINT s;
DELETE FROM df WHERE row_key = 'g';
ROLLBACK TO SAVEPOINT s;
INSERT INTO df VALUES ('h', 'cf', 'q', 1, 'v10');
COMMIT;
SELECT * FROM df ORDER BY 1, 2, 3, 4;

DROP TABLE df, df_empty, df_log, df_src CASCADE;
DROP FUNCTION df_trig(), df_old_table(), df_new_table(), df_v2_trig(), df_del(text);
