--
-- delete: SQL DELETE writes a tombstone for each cell it deletes
--
\set SHOW_CONTEXT never
CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('t', 'f');
SELECT wide.create_family('t', 'g');
INSERT INTO t SELECT 'r' || (g % 10), CASE WHEN g % 4 = 0 THEN 'g' ELSE 'f' END,
                     'q' || (g % 3), g, 'v' || g
  FROM generate_series(1, 100) g;
SELECT count(*) FROM t;
-- by row key (a point read), by a condition on other columns, RETURNING
DELETE FROM t WHERE row_key = 'r1';
SELECT count(*) FROM t WHERE row_key = 'r1';
DELETE FROM t WHERE row_key = 'r2' AND family = 'g' RETURNING row_key, family, qualifier, ts, value;
SELECT family, count(*) FROM t WHERE row_key = 'r2' GROUP BY 1 ORDER BY 1;
DELETE FROM t WHERE value LIKE 'v9%';
SELECT count(*) FROM t;
-- the scan goes by key range; only the matching versions go
EXPLAIN (COSTS OFF) DELETE FROM t WHERE row_key = 'r3' AND ts > 50;
DELETE FROM t WHERE row_key = 'r3' AND ts > 50;
SELECT qualifier, ts FROM t WHERE row_key = 'r3';
-- transactional: a rollback brings everything back
BEGIN;
DELETE FROM t;
SELECT count(*) FROM t;
ROLLBACK;
SELECT count(*) FROM t;
-- cells in segments are deleted alike
SELECT FROM wide.compact('t', major => true);
DELETE FROM t WHERE row_key IN ('r4', 'r5') AND qualifier = 'q0';
SELECT row_key, qualifier, count(*) FROM t WHERE row_key IN ('r4', 'r5') GROUP BY 1, 2 ORDER BY 1, 2;
-- a subquery and a join choose the cells
DELETE FROM t WHERE row_key IN (SELECT row_key FROM t WHERE qualifier = 'q2' AND ts < 20);
SELECT DISTINCT row_key FROM t ORDER BY 1;
CREATE TEMP TABLE doomed (k text);
INSERT INTO doomed VALUES ('r6'), ('r7');
DELETE FROM t USING doomed WHERE t.row_key = doomed.k;
SELECT DISTINCT row_key FROM t ORDER BY 1;
-- a delete removes what was written before it: the same version written
-- again after it is a new cell (Bigtable's semantics)
SELECT ts, family AS fam, qualifier AS q FROM t WHERE row_key = 'r9' ORDER BY ts LIMIT 1 \gset
DELETE FROM t WHERE row_key = 'r9' AND ts = :ts;
SELECT count(*) FROM t WHERE row_key = 'r9' AND ts = :ts;
INSERT INTO t VALUES ('r9', :'fam', :'q', :ts, 'written again');
SELECT family, qualifier, value FROM t WHERE row_key = 'r9' AND ts = :ts;
SELECT * FROM wide.verify('t');
-- aggregate cells: a DELETE resets them
CREATE TABLE c (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('c', 'n', aggregate => 'sum');
INSERT INTO c VALUES ('page', 'n', 'views', 0, 5), ('page', 'n', 'views', 0, 7);
DELETE FROM c RETURNING value;
INSERT INTO c VALUES ('page', 'n', 'views', 0, 1);
SELECT value FROM c;
-- UPDATE is refused: a cell's coordinates are its identity, and writing
-- them again replaces it
UPDATE t SET value = 'x';
-- the cells a DELETE remembers take memory as they come: a DELETE of a few
-- cells does not allocate room for 65,536 (a 4.7 MB ring, zeroed in every
-- transaction that deleted); one of many still finds each cell, in a
-- DELETE ... RETURNING inside a WITH too
CREATE TABLE d (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('d', 'm');
INSERT INTO d SELECT 'r' || (i % 50), 'm', 'q' || i, i, i FROM generate_series(1, 3000) i;
BEGIN;
DELETE FROM d WHERE row_key = 'r7';
SELECT total_bytes < 65536 AS small FROM pg_backend_memory_contexts WHERE name = 'wide DELETE cells';
WITH x AS (DELETE FROM d WHERE row_key >= 'r2' RETURNING value) SELECT count(*), sum(value) FROM x;
SELECT count(*), count(DISTINCT row_key) FROM d;
COMMIT;
SELECT count(*) FROM d;
-- a DELETE in a data-modifying CTE (the statement is a SELECT or an
-- INSERT): its scans remember the cells too (it failed with "scanned too
-- long before")
CREATE TABLE dlog (v int8);
WITH x AS (DELETE FROM d WHERE row_key = 'r1' RETURNING value) INSERT INTO dlog SELECT value FROM x;
SELECT count(*), sum(v) FROM dlog;
SELECT count(*) FROM d WHERE row_key = 'r1';
DROP TABLE t, c, d, dlog;
