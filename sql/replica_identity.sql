--
-- replica_identity: the unique wide_key index on a cell's coordinates
-- (src/am/keyindex.c), the replica identity a wide table needs to apply
-- replicated DELETEs (docs/replication.md; the replication itself is
-- tested by test/t/212_cdc_wide_deletes.pl).  It stores nothing; a scan of
-- it is a read of the cells with equal coordinates.
--
CREATE TABLE ri (row_key text NOT NULL, family text NOT NULL, qualifier text NOT NULL,
                 ts int8 NOT NULL, value json) USING wide;
SELECT wide.create_family('ri', 'm');
SELECT wide.create_family('ri', 'n');

-- the one unique shape: all four coordinates, in order
CREATE INDEX ON ri USING wide_key (row_key, family, qualifier, ts);
CREATE UNIQUE INDEX ON ri USING wide_key (row_key, family, qualifier);
CREATE UNIQUE INDEX ON ri USING wide_key (row_key, family, ts, qualifier);
CREATE UNIQUE INDEX ON ri USING wide_key (family, row_key, qualifier, ts);
CREATE UNIQUE INDEX ON ri USING wide_key (row_key, family, qualifier, ts) WHERE ts > 0;
CREATE UNIQUE INDEX ON ri USING wide_key (row_key, family, qualifier, (ts + 1));
CREATE UNIQUE INDEX ON ri USING wide_key (row_key, family, qualifier, ts) INCLUDE (value);
-- equality of bytes only: a scan reads the row its key's bytes name, so a
-- case-insensitive index would miss 'A' when asked for 'a'
CREATE COLLATION ri_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE UNIQUE INDEX ON ri USING wide_key (row_key COLLATE ri_ci, family, qualifier, ts);
CREATE UNIQUE INDEX ON ri USING wide_key (row_key, family, qualifier COLLATE ri_ci, ts);
CREATE INDEX ON ri USING wide_key (row_key COLLATE ri_ci);
CREATE INDEX ri_c ON ri USING wide_key (row_key COLLATE "C");
DROP INDEX ri_c;
DROP COLLATION ri_ci;
CREATE UNIQUE INDEX ri_cell ON ri USING wide_key (row_key, family, qualifier, ts);
ALTER TABLE ri REPLICA IDENTITY USING INDEX ri_cell;
\d ri
-- it stores nothing
SELECT pg_relation_size('ri_cell') AS index_bytes;

-- PostgreSQL's own rules for a replica identity index: NOT NULL columns
CREATE TABLE rn (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
CREATE UNIQUE INDEX rn_cell ON rn USING wide_key (row_key, family, qualifier, ts);
ALTER TABLE rn REPLICA IDENTITY USING INDEX rn_cell;
-- a table of bytea keys and timestamptz ts
CREATE TABLE rb (row_key bytea NOT NULL, family text NOT NULL, qualifier bytea NOT NULL,
                 ts timestamptz NOT NULL, value float8) USING wide;
SELECT wide.create_family('rb', 'm');
CREATE UNIQUE INDEX rb_cell ON rb USING wide_key (row_key, family, qualifier, ts);
ALTER TABLE rb REPLICA IDENTITY USING INDEX rb_cell;
SELECT relname, relreplident FROM pg_class WHERE relname IN ('ri', 'rn', 'rb') ORDER BY 1;

-- writes work as without it; a write at the same coordinates replaces
INSERT INTO ri VALUES ('a', 'm', 'q', 1, '{"x": 1}'), ('a', 'm', 'q', 1, '{"x": 2}'),
                      ('a', 'm', 'q', 2, '[1, 2]'), ('a', 'n', 'q', 1, '"n"'),
                      ('b', 'm', 'q', 1, 'null');
COPY ri FROM stdin;
b	m	q	1	{"copied": true}
c	m	r	5	{}
\.
SELECT wide.set_cell('ri', 'c', 'n', 'r', '{"set": 1}'::json, 6);
SELECT * FROM ri ORDER BY row_key, family, qualifier, ts;
INSERT INTO rb VALUES ('\x00ff', 'm', '\x01', '2024-01-01 00:00:00+00', 'NaN'),
                      ('\x00ff', 'm', '\x01', '2024-01-01 00:00:01+00', '-0');

-- INSERT ... ON CONFLICT: PostgreSQL checks arbiters only in btrees
INSERT INTO ri VALUES ('a', 'm', 'q', 1, '{}') ON CONFLICT DO NOTHING;
INSERT INTO ri VALUES ('a', 'm', 'q', 1, '{}')
  ON CONFLICT (row_key, family, qualifier, ts) DO NOTHING;
WITH w AS (INSERT INTO ri VALUES ('a', 'm', 'q', 1, '{}') ON CONFLICT DO NOTHING RETURNING 1)
SELECT count(*) FROM w;
-- also through a partitioned table with such a partition
CREATE TABLE rp (row_key text COLLATE "C" NOT NULL, family text COLLATE "C" NOT NULL,
                 qualifier text COLLATE "C" NOT NULL, ts int8 NOT NULL, value text)
  PARTITION BY RANGE (row_key);
CREATE TABLE rp1 PARTITION OF rp FOR VALUES FROM ('a') TO ('m') USING wide;
SELECT wide.create_family('rp1', 'm');
CREATE UNIQUE INDEX rp1_cell ON rp1 USING wide_key (row_key, family, qualifier, ts);
INSERT INTO rp VALUES ('b', 'm', 'q', 1, 'x') ON CONFLICT DO NOTHING;
INSERT INTO rp VALUES ('b', 'm', 'q', 1, 'x');
SELECT * FROM rp;
DROP TABLE rp;

-- the planner reads a wide table through its own scan ...
EXPLAIN (COSTS OFF) SELECT * FROM ri WHERE row_key = 'a' AND family = 'm' AND qualifier = 'q' AND ts = 1;
-- ... even when it may not: an index scan would be a read of the cells with
-- equal keys (by the row key when it is given), which only a replication
-- worker needs, to find a DELETE's cell
SET wide.enable_customscan = off;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ri WHERE row_key = 'a' AND family = 'm' AND qualifier = 'q' AND ts = 1;
SELECT * FROM ri WHERE row_key = 'a' AND family = 'm' AND qualifier = 'q' AND ts = 1;
SELECT value FROM rb WHERE row_key = '\x00ff' AND family = 'm' AND qualifier = '\x01'
   AND ts = '2024-01-01 00:00:01+00';
DELETE FROM ri WHERE row_key = 'a' AND family = 'm' AND qualifier = 'q' AND ts = 2 RETURNING *;
RESET enable_seqscan;
RESET wide.enable_customscan;
SELECT * FROM ri ORDER BY row_key, family, qualifier, ts;
-- cells still cannot be locked
SELECT * FROM ri WHERE row_key = 'a' FOR UPDATE;

-- a scan of the index keeps the value of the cell it returned last only: a
-- replication worker applying a DELETE of many large cells in one
-- transaction must not hold all their values (here 100 cells of 100 kB;
-- the ring of coordinates itself is 4.7 MB)
CREATE TABLE rv (row_key text NOT NULL, family text NOT NULL, qualifier text NOT NULL,
                 ts int8 NOT NULL, value bytea) USING wide;
SELECT wide.create_family('rv', 'm');
CREATE UNIQUE INDEX rv_cell ON rv USING wide_key (row_key, family, qualifier, ts);
INSERT INTO rv SELECT 'k' || i, 'm', 'q', 1, convert_to(repeat(md5(i::text), 3200), 'UTF8')
  FROM generate_series(1, 100) i;
BEGIN;
SET LOCAL wide.enable_customscan = off;
SET LOCAL enable_seqscan = off;
SET LOCAL seq_page_cost = 10000;
SET LOCAL random_page_cost = 0;
EXPLAIN (COSTS OFF) SELECT sum(length(value)) FROM rv WHERE family = 'm';
SELECT sum(length(value)) FROM rv WHERE family = 'm';
SELECT total_bytes < 8000000 AS values_released FROM pg_backend_memory_contexts
 WHERE name = 'wide DELETE cells';
-- (and a DELETE ... RETURNING through it still returns each value)
DELETE FROM rv WHERE family = 'm' AND row_key IN ('k1', 'k2') RETURNING row_key, length(value);
COMMIT;
DROP TABLE rv;

-- CLUSTER by it (the order the cells are stored in anyway), VACUUM FULL
CLUSTER ri USING ri_cell;
VACUUM FULL ri;
-- VACUUM keeps relhasindex: a publisher sends the replica identity columns,
-- pg_dump dumps the indexes, of a table that has it only
VACUUM ri;
SELECT relhasindex FROM pg_class WHERE relname = 'ri';
REINDEX INDEX CONCURRENTLY ri_cell;
CREATE UNIQUE INDEX CONCURRENTLY ri_cell2 ON ri USING wide_key (row_key, family, qualifier, ts);
DROP INDEX ri_cell2;
SELECT count(*) FROM ri;
SELECT indexrelid::regclass, indisunique, indisreplident, indisclustered FROM pg_index
 WHERE indrelid = 'ri'::regclass;
-- only on wide tables
CREATE TABLE rh (row_key text, family text, qualifier text, ts int8, value int8);
CREATE UNIQUE INDEX ON rh USING wide_key (row_key, family, qualifier, ts);
DROP TABLE ri, rn, rb, rh;
