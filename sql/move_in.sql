--
-- move_in: existing tables move into wide (issue 12) by ALTER TABLE ...
-- SET ACCESS METHOD wide and CREATE TABLE ... USING wide AS, and back out
--
CREATE TABLE mh (row_key text, family text, qualifier text, ts timestamptz, value float8);
INSERT INTO mh SELECT 'host' || (i % 10), CASE WHEN i % 3 = 0 THEN 'n' ELSE 'm' END,
       'cpu' || (i % 4), '2030-01-01'::timestamptz + i * interval '1 minute', i
  FROM generate_series(1, 2000) i;
CREATE TABLE mh_copy AS SELECT * FROM mh;
-- what the table holds with at most 2 versions per column of family m
CREATE VIEW mh_expected AS
  SELECT row_key, family, qualifier, ts, value
    FROM (SELECT *, row_number() OVER (PARTITION BY row_key, family, qualifier
                                       ORDER BY ts DESC) AS rn
            FROM mh_copy) s
   WHERE family = 'n' OR rn <= 2;
CREATE FUNCTION mh_am(t regclass) RETURNS name LANGUAGE sql
  AS $$ SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = t $$;

-- the families first, on the heap table, with their policies
SELECT wide.create_family('mh', 'm', max_versions => 2);
SELECT wide.create_family('mh', 'n');
SELECT * FROM wide.families('mh');
-- a cell of a family the catalog does not have fails the move, which leaves
-- the heap table as it was
INSERT INTO mh VALUES ('host1', 'x', 'cpu0', '2030-01-01', 1);
ALTER TABLE mh SET ACCESS METHOD wide;
SELECT mh_am('mh'), count(*) FROM mh;
DELETE FROM mh WHERE family = 'x';
-- the key columns get COLLATE "C", as in CREATE TABLE ... USING wide
ALTER TABLE mh SET ACCESS METHOD wide;
SELECT mh_am('mh'), count(*) FROM mh;
SELECT attname, collname FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
 WHERE attrelid = 'mh'::regclass AND attnum > 0 ORDER BY attnum;
-- the policies apply: the same cells as the heap's newest two versions
SELECT count(*) AS differences
  FROM ((TABLE mh EXCEPT ALL TABLE mh_expected) UNION ALL (TABLE mh_expected EXCEPT ALL TABLE mh)) d;
SELECT FROM wide.compact('mh', major => true);
SELECT count(*) AS differences
  FROM ((TABLE mh EXCEPT ALL TABLE mh_expected) UNION ALL (TABLE mh_expected EXCEPT ALL TABLE mh)) d;
INSERT INTO mh VALUES ('host1', 'm', 'cpu1', '2040-01-01', -1);
SELECT ts, value FROM mh WHERE row_key = 'host1' AND qualifier = 'cpu1' AND family = 'm';
INSERT INTO mh VALUES ('host1', 'x', 'cpu0', '2030-01-01', 1);
EXPLAIN (COSTS OFF) SELECT * FROM mh WHERE row_key = 'host1';

-- back out to heap, and in again: the catalog stays with the table
ALTER TABLE mh SET ACCESS METHOD heap;
SELECT mh_am('mh'), count(*) FROM mh;
SELECT family, max_versions FROM wide.families('mh');
ALTER TABLE mh SET ACCESS METHOD wide;
SELECT mh_am('mh'), count(*) FROM mh;
SELECT * FROM wide.verify('mh');

-- a heap table without families: they are created from the data, in order
-- of first appearance, with no GC policy
CREATE TABLE ma (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts timestamptz, value float8);
INSERT INTO ma SELECT * FROM mh_copy ORDER BY ts DESC;
ALTER TABLE ma SET ACCESS METHOD wide;
SELECT mh_am('ma'), count(*) FROM ma;
SELECT * FROM wide.families('ma');
SELECT count(*) AS differences
  FROM ((TABLE ma EXCEPT ALL TABLE mh_copy) UNION ALL (TABLE mh_copy EXCEPT ALL TABLE ma)) d;
SELECT wide.alter_family('ma', 'm', max_versions => 2);
SELECT count(*) AS differences
  FROM ((TABLE ma EXCEPT ALL TABLE mh_expected) UNION ALL (TABLE mh_expected EXCEPT ALL TABLE ma)) d;
-- keys declared with another collation are refused, with what to write
CREATE TABLE mx (row_key text COLLATE "POSIX", family text, qualifier text, ts int8, value text);
ALTER TABLE mx SET ACCESS METHOD wide;
DROP TABLE mx;
-- a value that cannot be a family name fails the move; the table is intact
CREATE TABLE mb (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value text);
INSERT INTO mb VALUES ('r1', 'ok', 'q', 1, 'a'), ('r2', 'not a name', 'q', 1, 'b');
ALTER TABLE mb SET ACCESS METHOD wide;
SELECT mh_am('mb'), count(*) FROM mb;
SELECT * FROM wide.families('mb');

-- CREATE TABLE ... USING wide AS: the same, families from the data
CREATE TABLE mc USING wide AS SELECT * FROM mh_copy;
SELECT mh_am('mc'), count(*) FROM mc;
SELECT * FROM wide.families('mc');
SELECT count(*) AS differences
  FROM ((TABLE mc EXCEPT ALL TABLE mh_copy) UNION ALL (TABLE mh_copy EXCEPT ALL TABLE mc)) d;
INSERT INTO mc VALUES ('host1', 'x', 'cpu0', '2030-01-01', 1);
SELECT wide.create_family('mc', 'x');
INSERT INTO mc VALUES ('host1', 'x', 'cpu0', '2030-01-01', 1);
SELECT family, count(*) FROM mc GROUP BY family ORDER BY family;
CREATE TABLE mc_bad USING wide AS SELECT * FROM mb;
CREATE TABLE mc_empty USING wide AS SELECT * FROM mh_copy WITH NO DATA;
SELECT count(*) FROM mc_empty;
SELECT * FROM wide.families('mc_empty');
BEGIN;
CREATE TABLE mc_rolled_back USING wide AS SELECT * FROM mh_copy;
SELECT count(*) FROM wide.families('mc_rolled_back');
ROLLBACK;
SET default_table_access_method = wide;
SELECT * INTO mi FROM mh_copy WHERE row_key = 'host3';
RESET default_table_access_method;
SELECT mh_am('mi'), count(*) FROM mi;
SELECT * FROM wide.families('mi');

-- other rewrites of a wide table keep its families; a type change is
-- refused (the cells are stored in the old type's binary form)
ALTER TABLE mc ALTER COLUMN value TYPE numeric;
ALTER TABLE mc ALTER COLUMN row_key TYPE text COLLATE "C", SET UNLOGGED;
SELECT count(*), sum(value) FROM mc;
SELECT * FROM wide.families('mc');
SELECT relpersistence FROM pg_class WHERE relname = 'mc';

-- partitions: wide ones need a parent whose text keys use the "C"
-- collation, whether created as partitions or attached
CREATE TABLE mp (row_key text, family text, qualifier text, ts int8, value text)
  PARTITION BY RANGE (row_key);
CREATE TABLE mp1 PARTITION OF mp FOR VALUES FROM ('a') TO ('m') USING wide;
CREATE TABLE mp2 (row_key text, family text, qualifier text, ts int8, value text) USING wide;
ALTER TABLE mp ATTACH PARTITION mp2 FOR VALUES FROM ('m') TO ('z');
DROP TABLE mp, mp2;
CREATE TABLE mp (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value text)
  PARTITION BY RANGE (row_key);
CREATE TABLE mp1 PARTITION OF mp FOR VALUES FROM ('a') TO ('m') USING wide;
CREATE TABLE mp2 (row_key text, family text, qualifier text, ts int8, value text) USING wide;
ALTER TABLE mp ATTACH PARTITION mp2 FOR VALUES FROM ('m') TO ('z');
SELECT wide.create_family('mp1', 'f');
SELECT wide.create_family('mp2', 'f');
INSERT INTO mp VALUES ('b', 'f', 'q', 1, 'in mp1'), ('n', 'f', 'q', 1, 'in mp2');
SELECT tableoid::regclass, * FROM mp ORDER BY row_key;
DROP TABLE mp;

DROP TABLE mh, mh_copy, ma, mb, mc, mc_empty, mi CASCADE;
DROP FUNCTION mh_am(regclass);
