--
-- mvcc: a transaction's cells are atomic and invisible until commit
--
\set SHOW_CONTEXT never
CREATE TABLE t (row_key text, family text, qualifier text, ts timestamptz,
                value int8) USING wide;
SELECT wide.create_family('t', 'f');

-- aborted writes are never seen
BEGIN;
INSERT INTO t VALUES ('aborted', 'f', 'q', '2030-01-01', 1);
SELECT count(*) FROM t;
ROLLBACK;
SELECT count(*) FROM t;

-- savepoints: the rolled back part disappears, the rest stays
BEGIN;
INSERT INTO t VALUES ('kept', 'f', 'q', '2030-01-01', 1);
SAVEPOINT s;
INSERT INTO t VALUES ('undone', 'f', 'q', '2030-01-01', 2);
INSERT INTO t VALUES ('kept', 'f', 'q', '2030-01-01', 99);
SELECT row_key, value FROM t;
ROLLBACK TO s;
SELECT row_key, value FROM t;
INSERT INTO t VALUES ('after', 'f', 'q', '2030-01-01', 3);
COMMIT;
SELECT row_key, value FROM t;

-- a failed statement inside a function's exception block is undone
DO $$
BEGIN
  INSERT INTO t VALUES ('in-block', 'f', 'q', '2030-01-01', 4);
  INSERT INTO t VALUES ('in-block', 'nope', 'q', '2030-01-01', 5);
EXCEPTION WHEN undefined_object THEN
  RAISE NOTICE 'caught: %', SQLERRM;
END $$;
SELECT count(*) FROM t WHERE row_key = 'in-block';

-- a transaction sees its own writes from earlier commands, and a cursor
-- keeps the snapshot it was opened with
BEGIN;
INSERT INTO t VALUES ('own', 'f', 'q', '2030-01-01', 6);
DECLARE c CURSOR FOR SELECT row_key, value FROM t WHERE row_key = 'own';
INSERT INTO t VALUES ('own', 'f', 'q', '2030-01-02', 7);
FETCH ALL FROM c;
SELECT row_key, value FROM t WHERE row_key = 'own';
COMMIT;

-- the later write of a cell wins, across subtransactions of one transaction
BEGIN;
INSERT INTO t VALUES ('order', 'f', 'q', '2030-01-01', 10);
SAVEPOINT a;
INSERT INTO t VALUES ('order', 'f', 'q', '2030-01-01', 11);
RELEASE a;
COMMIT;
SELECT value FROM t WHERE row_key = 'order';

-- many small transactions and one big one
DO $$
BEGIN
  FOR i IN 1..200 LOOP
    INSERT INTO t VALUES ('small#' || lpad(i::text, 3, '0'), 'f', 'q', '2030-01-01', i);
    COMMIT;
  END LOOP;
END $$;
INSERT INTO t SELECT 'big#' || lpad(i::text, 5, '0'), 'f', 'q', '2030-01-01', i
  FROM generate_series(1, 20000) i;
SELECT count(*), sum(value), min(row_key), max(row_key) FROM t
 WHERE row_key LIKE 'small#%' OR row_key LIKE 'big#%';

DROP TABLE t;
