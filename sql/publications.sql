--
-- publications: a wide table never ends up silently published
--
-- Without wide in shared_preload_libraries (as here), logical decoding
-- cannot read a wide table's writes (Generic WAL), so a
-- publication that would include one is refused; a FOR ALL TABLES
-- publication only warns.  CREATE PUBLICATION itself works at any
-- wal_level (it warns below logical).
--
-- On a server that preloads wide (the demo's, run-all's second pass) these
-- publications are accepted, so the test is skipped there (expected output
-- publications_1.out); cdc_decoding tests that case.
SELECT current_setting('shared_preload_libraries') ~ '(^|[ ,])"?wide"?($|[ ,])' AS preloaded \gset
\if :preloaded
\echo 'skipped: wide is preloaded on this server, and publishing wide tables is allowed'
\quit
\endif
\set VERBOSITY default
CREATE TABLE w (row_key text, family text, qualifier text, ts timestamptz,
                value int8) USING wide;
CREATE TABLE h (row_key text, family text, qualifier text, ts timestamptz,
                value int8);

-- naming a wide table: refused, with or without column lists and WHERE
CREATE PUBLICATION p FOR TABLE w;
CREATE PUBLICATION p FOR TABLE h, w;
CREATE PUBLICATION p FOR TABLE w (row_key, value);
CREATE PUBLICATION p FOR TABLE w WHERE (row_key > 'a');
CREATE PUBLICATION p FOR TABLE h;
ALTER PUBLICATION p ADD TABLE w;
ALTER PUBLICATION p SET TABLE h, w;
ALTER PUBLICATION p SET TABLE w WHERE (value > 0);
-- what was refused left p as it was
SELECT pubname, tablename FROM pg_publication_tables ORDER BY 1, 2;
ALTER PUBLICATION p SET TABLE h (row_key, value);

-- a partitioned table with a wide partition, published either way
CREATE TABLE pt (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts timestamptz,
                 value int8) PARTITION BY RANGE (row_key);
CREATE TABLE pt_heap PARTITION OF pt FOR VALUES FROM ('a') TO ('m');
CREATE TABLE pt_wide PARTITION OF pt FOR VALUES FROM ('m') TO (MAXVALUE)
  USING wide;
CREATE PUBLICATION pp FOR TABLE pt;
CREATE PUBLICATION pp FOR TABLE pt WITH (publish_via_partition_root = true);
ALTER PUBLICATION p ADD TABLE pt;
ALTER PUBLICATION p ADD TABLE ONLY pt;
-- a partition of its own
CREATE PUBLICATION pp FOR TABLE pt_wide;

-- a schema that holds wide tables: refused, naming them
CREATE SCHEMA s;
CREATE TABLE s.w1 (row_key text, family text, qualifier text, ts timestamptz,
                   value int8) USING wide;
CREATE TABLE s.w2 (row_key text, family text, qualifier text, ts timestamptz,
                   value int8) USING wide;
CREATE TABLE s.h1 (a int);
CREATE PUBLICATION ps FOR TABLES IN SCHEMA s;
CREATE PUBLICATION ps FOR TABLE h, TABLES IN SCHEMA s;
CREATE PUBLICATION pe;
ALTER PUBLICATION pe ADD TABLES IN SCHEMA s;
ALTER PUBLICATION pe SET TABLE h, TABLES IN SCHEMA s;
ALTER PUBLICATION pe ADD TABLES IN SCHEMA public;
-- temporary and unlogged wide tables are never published: no error
CREATE SCHEMA su;
CREATE UNLOGGED TABLE su.wu (row_key text, family text, qualifier text,
                             ts timestamptz, value int8) USING wide;
CREATE PUBLICATION psu FOR TABLES IN SCHEMA su;
DROP PUBLICATION psu;

-- objects that join a publication later are caught too
CREATE SCHEMA pub;
CREATE TABLE pub.h2 (row_key text, family text, qualifier text,
                     ts timestamptz, value int8);
CREATE PUBLICATION pn FOR TABLES IN SCHEMA pub;
CREATE TABLE pub.w3 (row_key text, family text, qualifier text,
                     ts timestamptz, value int8) USING wide;
CREATE TABLE pub.w3 USING wide AS SELECT * FROM h;
SELECT * INTO pub.w3 FROM h;   -- a heap table: fine
DROP TABLE pub.w3;
ALTER TABLE pub.h2 SET ACCESS METHOD wide;
ALTER TABLE w SET SCHEMA pub;
-- ... also inside a transaction block, at the statement
BEGIN;
CREATE TABLE pub.w4 (row_key text, family text, qualifier text,
                     ts timestamptz, value int8) USING wide;
ROLLBACK;
BEGIN;
SAVEPOINT a;
ALTER TABLE w SET SCHEMA pub;
ROLLBACK TO a;
ALTER TABLE w RENAME TO w_renamed;   -- unrelated DDL is not affected
ALTER TABLE w_renamed RENAME TO w;
COMMIT;
-- ... and under a published partitioned table
CREATE TABLE pt2 (row_key text COLLATE "C", family text COLLATE "C",
                  qualifier text COLLATE "C", ts timestamptz,
                  value int8) PARTITION BY RANGE (row_key);
CREATE TABLE pt2_heap PARTITION OF pt2 FOR VALUES FROM ('a') TO ('m');
ALTER PUBLICATION p ADD TABLE pt2;
CREATE TABLE pt2_wide PARTITION OF pt2 FOR VALUES FROM ('m') TO (MAXVALUE)
  USING wide;
CREATE TABLE w5 (row_key text, family text, qualifier text, ts timestamptz,
                 value int8) USING wide;
ALTER TABLE pt2 ATTACH PARTITION w5 FOR VALUES FROM ('m') TO (MAXVALUE);
-- ... and under a partitioned table in a published schema
CREATE TABLE pub.pt3 (row_key text COLLATE "C", family text COLLATE "C",
                      qualifier text COLLATE "C",
                      ts timestamptz, value int8) PARTITION BY LIST (family);
ALTER TABLE pub.pt3 ATTACH PARTITION w5 FOR VALUES IN ('f');
CREATE TABLE pt3_wide PARTITION OF pub.pt3 FOR VALUES IN ('g') USING wide;
SELECT pubname, schemaname, tablename FROM pg_publication_tables
 ORDER BY 1, 2, 3;

-- FOR ALL TABLES: a warning naming the wide tables; the DDL proceeds
DROP SCHEMA s CASCADE;
CREATE PUBLICATION pall FOR ALL TABLES;
CREATE TABLE w6 (row_key text, family text, qualifier text, ts timestamptz,
                 value int8) USING wide;
CREATE TABLE w7 USING wide AS SELECT * FROM h;
CREATE TABLE h7 (row_key text, family text, qualifier text, ts timestamptz,
                 value int8);
ALTER TABLE h7 SET ACCESS METHOD wide;
-- no warning for what does not make a new wide table
CREATE TEMP TABLE wt (row_key text, family text, qualifier text,
                      ts timestamptz, value int8) USING wide;
CREATE TABLE h8 (a int);
SELECT wide.create_family('w6', 'f');
INSERT INTO w6 VALUES ('r', 'f', 'q', '2026-01-01', 1);
TRUNCATE w6;
ALTER TABLE w6 RENAME TO w6r;
-- a schema publication beside it still refuses
CREATE TABLE pub.w8 (row_key text, family text, qualifier text,
                     ts timestamptz, value int8) USING wide;
DROP PUBLICATION pall;

-- a new session has not loaded wide: naming a wide table loads it, and so
-- the check (the relcache calls the access method's handler)
\c
CREATE PUBLICATION pf FOR TABLE w;
-- in a transaction block, the statement that loaded wide is checked at
-- COMMIT; what a rolled-back savepoint undid is not
\c
BEGIN;
ALTER PUBLICATION p ADD TABLE w;
SELECT 1;
COMMIT;
\c
BEGIN;
SAVEPOINT a;
ALTER PUBLICATION p ADD TABLE w;
ROLLBACK TO a;
COMMIT;
SELECT pubname, tablename FROM pg_publication_tables WHERE pubname = 'p'
 ORDER BY 1, 2;
-- but a schema publication is not checked until wide is loaded in the
-- session (shared_preload_libraries or session_preload_libraries closes
-- this gap; docs/sql.md)
\c
CREATE SCHEMA s9;
CREATE TABLE s9.w9 (row_key text, family text, qualifier text,
                    ts timestamptz, value int8) USING wide;
SELECT wide.create_family('s9.w9', 'f');
SELECT wide.create_family('pt_wide', 'f');
\c
CREATE PUBLICATION p9 FOR TABLES IN SCHEMA s9;
-- ... and then every write to the table fails, so nothing is lost silently
INSERT INTO s9.w9 VALUES ('r', 'f', 'q', '2026-01-01', 1);
COPY s9.w9 FROM stdin;
r	f	q	2026-01-01	1
\.
SELECT wide.set_cell('s9.w9', 'r', 'f', 'q', 1::int8);
DELETE FROM s9.w9;
SELECT count(*) FROM s9.w9;      -- reads are fine
-- the same for a partitioned table published with ONLY from a new session
\c
ALTER PUBLICATION p ADD TABLE ONLY pt;
INSERT INTO pt VALUES ('x', 'f', 'q', '2026-01-01', 1);
INSERT INTO pt VALUES ('b', 'f', 'q', '2026-01-01', 1);    -- heap partition
ALTER PUBLICATION p DROP TABLE pt;
INSERT INTO pt VALUES ('x', 'f', 'q', '2026-01-01', 1);
-- ... and for a wide partition attached from a new session
SELECT wide.create_family('w5', 'f');
\c
ALTER TABLE pt2 ATTACH PARTITION w5 FOR VALUES FROM ('m') TO (MAXVALUE);
SELECT wide.set_cell('w5', 'x', 'f', 'q', 1::int8);
ALTER TABLE pt2 DETACH PARTITION w5;
SELECT wide.set_cell('w5', 'x', 'f', 'q', 1::int8);
DROP PUBLICATION p9;
INSERT INTO s9.w9 VALUES ('r', 'f', 'q', '2026-01-01', 1);
-- with wide loaded, the same statement is refused at once
LOAD 'wide';
CREATE PUBLICATION p9 FOR TABLES IN SCHEMA s9;

DROP PUBLICATION p, pe, pn;
DROP SCHEMA pub, s9, su CASCADE;
DROP TABLE w, h, pt, pt2, w5, w6r, w7, h7, h8;
