--
-- truncate_reset: a table reset in place (TRUNCATE of a table created or
-- already truncated in the same transaction keeps its relfilenode) must not
-- be read through the block caches' entries for its old contents (issue 24,
-- defect 1).  Before, segment ids restarted and a bulk-loaded run's blocks
-- were keyed by its sequence numbers relative to the run, so the same
-- session read the old values after COMMIT, and a compaction wrote them
-- back.
--
\set SHOW_CONTEXT never
-- CREATE + TRUNCATE in one transaction, compaction between
BEGIN;
CREATE TABLE tr (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tr', 'cf');
INSERT INTO tr SELECT 'r' || lpad(i::text, 6, '0'), 'cf', 'qa', 1, i FROM generate_series(1, 20000) i;
SELECT FROM wide.compact('tr', major => true);
SELECT qualifier, count(*), sum(value) FROM tr GROUP BY 1 ORDER BY 1;
TRUNCATE tr;
INSERT INTO tr SELECT 'r' || lpad(i::text, 6, '0'), 'cf', 'qb', 1, -i FROM generate_series(1, 20000) i;
SELECT FROM wide.compact('tr', major => true);
COMMIT;
SELECT qualifier, count(*), sum(value) FROM tr GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM wide.verify('tr');
-- the reload pattern on an existing table: TRUNCATE; COPY; compact; read;
-- TRUNCATE; COPY; compact
CREATE TABLE tr2 (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tr2', 'cf');
INSERT INTO tr2 VALUES ('x', 'cf', 'q0', 1, 0);
BEGIN;
TRUNCATE tr2;
COPY tr2 FROM PROGRAM 'seq 1 20000 | awk ''{printf "r%06d\tcf\tqa\t1\t%d\n", $1, $1}''';
SELECT FROM wide.compact('tr2', major => true);
SELECT qualifier, count(*), sum(value) FROM tr2 GROUP BY 1 ORDER BY 1;
TRUNCATE tr2;
COPY tr2 FROM PROGRAM 'seq 1 20000 | awk ''{printf "r%06d\tcf\tqb\t1\t-%d\n", $1, $1}''';
SELECT FROM wide.compact('tr2', major => true);
COMMIT;
SELECT qualifier, count(*), sum(value) FROM tr2 GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM wide.verify('tr2');
-- without compaction: the same session reads what it wrote after COMMIT
CREATE TABLE tr3 (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tr3', 'cf');
BEGIN;
TRUNCATE tr3;
INSERT INTO tr3 SELECT 'r' || lpad(i::text, 6, '0'), 'cf', 'qa', 1, i FROM generate_series(1, 20000) i;
SELECT FROM wide.compact('tr3', major => true);
SELECT qualifier, count(*), sum(value) FROM tr3 GROUP BY 1 ORDER BY 1;
TRUNCATE tr3;
INSERT INTO tr3 SELECT 'r' || lpad(i::text, 6, '0'), 'cf', 'qb', 1, -i FROM generate_series(1, 20000) i;
COMMIT;
SELECT qualifier, count(*), sum(value) FROM tr3 GROUP BY 1 ORDER BY 1;
SELECT FROM wide.compact('tr3', major => true);
SELECT qualifier, count(*), sum(value) FROM tr3 GROUP BY 1 ORDER BY 1;
-- three resets in one transaction, each read back at once
BEGIN;
CREATE TABLE tr4 (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tr4', 'cf');
INSERT INTO tr4 SELECT 'r' || i, 'cf', 'q1', 1, i FROM generate_series(1, 5000) i;
SELECT sum(value) FROM tr4;
TRUNCATE tr4;
INSERT INTO tr4 SELECT 'r' || i, 'cf', 'q2', 1, 2 * i FROM generate_series(1, 5000) i;
SELECT sum(value) FROM tr4;
TRUNCATE tr4;
INSERT INTO tr4 SELECT 'r' || i, 'cf', 'q3', 1, 3 * i FROM generate_series(1, 5000) i;
SELECT qualifier, sum(value) FROM tr4 GROUP BY 1;
COMMIT;
SELECT qualifier, sum(value) FROM tr4 GROUP BY 1;
-- a TRUNCATE in a subtransaction gets a new relfilenode; rolled back, the
-- table reads its contents before it again, and a reset after that is read
-- right too
BEGIN;
CREATE TABLE tr5 (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tr5', 'cf');
INSERT INTO tr5 SELECT 'r' || i, 'cf', 'q1', 1, i FROM generate_series(1, 5000) i;
SELECT sum(value) FROM tr5;
SAVEPOINT s;
TRUNCATE tr5;
INSERT INTO tr5 SELECT 'r' || i, 'cf', 'q2', 1, 2 * i FROM generate_series(1, 5000) i;
SELECT FROM wide.compact('tr5', major => true);
SELECT qualifier, sum(value) FROM tr5 GROUP BY 1;
ROLLBACK TO SAVEPOINT s;
SELECT qualifier, sum(value) FROM tr5 GROUP BY 1;
TRUNCATE tr5;
INSERT INTO tr5 SELECT 'r' || i, 'cf', 'q3', 1, 3 * i FROM generate_series(1, 5000) i;
SELECT qualifier, sum(value) FROM tr5 GROUP BY 1;
COMMIT;
SELECT qualifier, sum(value) FROM tr5 GROUP BY 1;
-- VACUUM FULL writes a new relfilenode; the table reads the same
VACUUM FULL tr5;
SELECT qualifier, sum(value) FROM tr5 GROUP BY 1;
-- a temporary table, reset in place, is read right (its blocks stay in the
-- backend's cache, never in the shared one)
BEGIN;
CREATE TEMP TABLE tr6 (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tr6', 'cf');
INSERT INTO tr6 SELECT 'r' || i, 'cf', 'q1', 1, i FROM generate_series(1, 5000) i;
SELECT FROM wide.compact('tr6', major => true);
SELECT qualifier, sum(value) FROM tr6 GROUP BY 1;
TRUNCATE tr6;
INSERT INTO tr6 SELECT 'r' || i, 'cf', 'q2', 1, 2 * i FROM generate_series(1, 5000) i;
SELECT FROM wide.compact('tr6', major => true);
COMMIT;
SELECT qualifier, sum(value) FROM tr6 GROUP BY 1;
DROP TABLE tr, tr2, tr3, tr4, tr5, tr6;
