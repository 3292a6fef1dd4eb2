--
-- wide_ddl: creating wide tables, and what they refuse
--
\set VERBOSITY default

-- the five columns; text keys get the "C" collation (bytewise order)
CREATE TABLE metric (row_key text, family text, qualifier text,
                     ts timestamptz, value float8) USING wide;
\d metric
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.oid = 'metric'::regclass;

-- other accepted shapes: bytea keys, int8 timestamps, any value type
CREATE TABLE raw (row_key bytea, family text, qualifier bytea, ts int8,
                  value bytea) USING wide;
CREATE TABLE docs (row_key text, family text, qualifier text, ts timestamptz,
                   value jsonb) USING wide;
CREATE TABLE ids (row_key text COLLATE "C", family text, qualifier text,
                  ts timestamptz, value uuid) USING wide;
CREATE UNLOGGED TABLE scratch (row_key text, family text, qualifier text,
                               ts timestamptz, value text) USING wide;
CREATE TEMP TABLE tmp (row_key text, family text, qualifier text,
                       ts timestamptz, value int4) USING wide;

-- wrong shapes fail at CREATE TABLE, naming the column and the types
CREATE TABLE bad (row_key int, family text, qualifier text, ts timestamptz,
                  value int) USING wide;
CREATE TABLE bad (row_key text, family bytea, qualifier text, ts timestamptz,
                  value int) USING wide;
CREATE TABLE bad (row_key text, family text, qualifier int, ts timestamptz,
                  value int) USING wide;
CREATE TABLE bad (row_key text, family text, qualifier text, ts date,
                  value int) USING wide;
CREATE TABLE bad (row_key text, family text, qualifier text, ts timestamptz,
                  value cstring) USING wide;
CREATE TABLE bad (row_key text, family text, qualifier text, ts timestamptz)
  USING wide;
CREATE TABLE bad (row_key text, family text, qualifier text, ts timestamptz,
                  value int, extra int) USING wide;
CREATE TABLE bad (key text, family text, qualifier text, ts timestamptz,
                  value int) USING wide;
CREATE COLLATION not_c FROM "C";
CREATE TABLE bad (row_key text COLLATE not_c, family text, qualifier text,
                  ts timestamptz, value int) USING wide;
DROP COLLATION not_c;
CREATE TABLE bad (row_key text, family text, qualifier text, ts timestamptz,
                  value int) PARTITION BY RANGE (row_key) USING wide;
SELECT count(*) FROM pg_class WHERE relname = 'bad';

-- columns are fixed
ALTER TABLE metric ADD COLUMN extra int;
ALTER TABLE metric DROP COLUMN value;
ALTER TABLE metric ALTER COLUMN value TYPE text;
\d metric

-- the row key is the index
CREATE INDEX ON metric (row_key);
CREATE UNIQUE INDEX ON metric (row_key, family, qualifier, ts);
CREATE INDEX CONCURRENTLY ON metric (row_key);
SELECT count(*) FROM pg_index WHERE indrelid = 'metric'::regclass;

-- foreign keys and AFTER ROW triggers would fetch cells by item pointer
CREATE TABLE hosts (name text PRIMARY KEY);
ALTER TABLE metric ADD FOREIGN KEY (row_key) REFERENCES hosts (name);
CREATE FUNCTION pass() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER after_row AFTER INSERT ON metric FOR EACH ROW EXECUTE FUNCTION pass();
-- BEFORE ROW and statement-level triggers work
CREATE TRIGGER before_row BEFORE INSERT ON metric FOR EACH ROW EXECUTE FUNCTION pass();
CREATE TRIGGER after_stmt AFTER INSERT ON metric FOR EACH STATEMENT EXECUTE FUNCTION pass();

SELECT wide.create_family('metric', 'm');
INSERT INTO metric VALUES ('r1', 'm', 'q', '2030-01-01', 1);

-- not supported: each a clear error
UPDATE metric SET value = 2;
-- (without an index ON CONFLICT has no arbiter: a plain insert, which
-- replaces the cell)
INSERT INTO metric VALUES ('r1', 'm', 'q', '2030-01-01', 1)
  ON CONFLICT DO NOTHING;
SELECT * FROM metric FOR UPDATE;
SELECT * FROM metric TABLESAMPLE SYSTEM (10);
SELECT * FROM metric WHERE ctid = '(0,1)';
CLUSTER metric;
-- a scroll cursor works (the planner materializes the scan)
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT row_key, value FROM metric;
FETCH NEXT FROM c;
FETCH PRIOR FROM c;
FETCH NEXT FROM c;
ROLLBACK;

-- what works: plain statements over the cells
SELECT row_key, family, qualifier, ts, value FROM metric;
EXPLAIN (COSTS OFF) SELECT * FROM metric WHERE row_key = 'r1';
VACUUM metric;
ANALYZE metric;
SELECT relname, reltuples FROM pg_class WHERE oid = 'metric'::regclass;

-- TRUNCATE empties, also in the transaction that created the table
TRUNCATE metric;
SELECT count(*) FROM metric;
INSERT INTO metric VALUES ('r2', 'm', 'q', '2030-01-01', 2);
SELECT row_key, value FROM metric;
BEGIN;
CREATE TABLE t2 (row_key text, family text, qualifier text, ts timestamptz,
                 value int8) USING wide;
SELECT wide.create_family('t2', 'f');
INSERT INTO t2 VALUES ('a', 'f', 'q', '2030-01-01', 1);
TRUNCATE t2;
INSERT INTO t2 VALUES ('b', 'f', 'q', '2030-01-01', 2);
SELECT row_key, value FROM t2;
COMMIT;
SELECT row_key, value FROM t2;

-- DROP
DROP TABLE metric, raw, docs, ids, scratch, tmp, t2, hosts;
DROP FUNCTION pass();
