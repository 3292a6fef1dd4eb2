--
-- tablets_create: wide.create_tablets splits a parent into tablets at
-- split keys; all-local tablets need no other extension, remote ones need
-- postgres_fdw and a server of it (test/t/220_remote_tablets.pl runs them).
--
\set SHOW_CONTEXT never
CREATE TABLE ct (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('ct', 'm', max_versions => 1);
SELECT * FROM wide.create_tablets('ct', ARRAY['g', 'r'], ARRAY['local', 'local', 'local']);
SELECT c.relname, a.amname, pg_get_expr(c.relpartbound, c.oid) AS bound
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_am a ON a.oid = c.relam
 WHERE i.inhparent = 'ct'::regclass ORDER BY 1;
SELECT family, max_versions FROM wide.families('ct_2');
INSERT INTO ct VALUES ('a', 'm', 'c', 1, 1), ('g', 'm', 'c', 1, 2), ('zz', 'm', 'c', 1, 3),
                      ('zz', 'm', 'c', 2, 4);
SELECT tableoid::regclass, row_key, value FROM ct ORDER BY row_key;
-- refused: partitions exist already, wrong counts, unordered keys, NULLs
SELECT wide.create_tablets('ct', ARRAY['g'], ARRAY['local', 'local']);
CREATE TABLE ct2 (LIKE ct) PARTITION BY RANGE (row_key);
SELECT wide.create_tablets('ct2', ARRAY['g'], ARRAY['local']);
SELECT wide.create_tablets('ct2', ARRAY['g', 'a'], ARRAY['local', 'local', 'local']);
SELECT wide.create_tablets('ct2', ARRAY['g', 'g'], ARRAY['local', 'local', 'local']);
SELECT wide.create_tablets('ct2', ARRAY[NULL], ARRAY['local', 'local']);
-- a remote node without postgres_fdw
SELECT wide.create_tablets('ct2', ARRAY['g'], ARRAY['local', 'node1']);
SELECT count(*) FROM pg_inherits WHERE inhparent = 'ct2'::regclass;
-- not partitioned by row_key
CREATE TABLE ct3 (LIKE ct) PARTITION BY RANGE (qualifier);
SELECT wide.create_tablets('ct3', ARRAY['g'], ARRAY['local', 'local']);
CREATE TABLE ct4 (LIKE ct) USING wide;
SELECT wide.create_tablets('ct4', ARRAY['g'], ARRAY['local', 'local']);
-- family changes on a parent without remote tablets are as before
SELECT wide.create_family('ct', 'n');
SELECT c.relname, string_agg(f.family, ',' ORDER BY f.family)
  FROM pg_class c, wide.families(c.oid) f WHERE c.relname LIKE 'ct\_%' GROUP BY 1 ORDER BY 1;
-- a node is a server of postgres_fdw
SELECT wide_internal._remote_exec('node1', NULL, 'SELECT 1');
-- tablets from the row keys of an existing table (too small for samples:
-- even shares of its distinct row keys), one per node; its cells then move in
CREATE TABLE ct_old (LIKE ct4) USING wide;
SELECT wide.create_family('ct_old', 'm');
INSERT INTO ct_old SELECT 'k' || lpad(i::text, 3, '0'), 'm', 'q', 0, i FROM generate_series(1, 300) i;
CREATE TABLE ct5 (LIKE ct) PARTITION BY RANGE (row_key);
SELECT wide.create_family('ct5', 'm');
SELECT wide.create_tablets('ct5', ARRAY['local', 'local', 'local'], sample_from => 'ct_old');
INSERT INTO ct5 SELECT * FROM ct_old;
SELECT tableoid::regclass, count(*), min(row_key), max(row_key) FROM ct5 GROUP BY 1 ORDER BY 1;
CREATE TABLE ct6 (LIKE ct) PARTITION BY RANGE (row_key);
SELECT wide.create_tablets('ct6', ARRAY['local', 'local'], sample_from => 'ct4');  -- empty
DROP TABLE ct, ct2, ct3, ct4, ct5, ct6, ct_old;
