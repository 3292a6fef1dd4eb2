--
-- cluster_key: CLUSTER on a wide table (issue 10) through a wide_key index,
-- the table's own row key order: it stores nothing, is never scanned, and
-- CLUSTER rewrites the table as VACUUM FULL does (one major compaction into
-- new storage)
--
CREATE TABLE ck (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('ck', 'm', max_versions => 2);
SELECT wide.create_family('ck', 'gone');
SELECT wide.create_family('ck', 's', aggregate => 'sum');
SET wide.flush_threshold = 64;
INSERT INTO ck SELECT 'r' || lpad((i % 100)::text, 3, '0'), 'm', 'q' || (i % 7),
       '2020-01-01'::timestamptz + i * interval '1 minute', i
  FROM generate_series(1, 20000) i;
INSERT INTO ck SELECT 'r' || lpad(i::text, 3, '0'), 'gone', 'g', '2020-01-01', i
  FROM generate_series(1, 100) i;
INSERT INTO ck SELECT 'r' || lpad((20 + i % 10)::text, 3, '0'), 's', 'c', '2020-01-01', i
  FROM generate_series(1, 3000) i;
SELECT FROM wide.compact('ck');
INSERT INTO ck SELECT 'r' || lpad((i % 100)::text, 3, '0'), 'm', 'q' || (i % 7),
       '2021-01-01'::timestamptz + i * interval '1 minute', i
  FROM generate_series(1, 500) i;
SELECT count(wide.mutate_row('ck'::regclass, 'r00' || i, '[{"delete_from_row": {}}]'))
  FROM generate_series(0, 9) i;
SELECT wide.drop_family('ck', 'gone');
RESET wide.flush_threshold;

-- any other index is refused, and the hint names wide_key
CREATE INDEX ON ck (row_key);
CREATE INDEX ON ck USING hash (row_key);
-- a wide_key index is the row key and nothing else
CREATE INDEX ON ck USING wide_key (qualifier);
CREATE INDEX ON ck USING wide_key (lower(row_key));
CREATE INDEX ON ck USING wide_key (row_key) WHERE ts > '2020-01-01';
CREATE INDEX ON ck USING wide_key (row_key, family);
CREATE INDEX ON ck USING wide_key (row_key DESC);
CREATE UNIQUE INDEX ON ck USING wide_key (row_key);
CREATE INDEX ON ck USING wide_key (row_key) INCLUDE (value);
CREATE INDEX ON ck USING wide_key (row_key) WITH (fillfactor = 50);
CREATE INDEX ON ck USING wide_key (row_key wide.row_key_bytea_ops);
-- only on wide tables
CREATE TABLE ck_heap_plain (row_key text, x int);
CREATE INDEX ON ck_heap_plain USING wide_key (row_key);
DROP TABLE ck_heap_plain;
-- no CLUSTER before there is an index
CLUSTER ck;

CREATE INDEX ck_key ON ck USING wide_key (row_key);
SELECT indexdef FROM pg_indexes WHERE tablename = 'ck';
-- it stores nothing
SELECT pg_relation_size('ck_key') AS index_bytes;
-- and the planner never scans it
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ck WHERE row_key = 'r050';
EXPLAIN (COSTS OFF) SELECT row_key FROM ck ORDER BY row_key LIMIT 1;
RESET enable_seqscan;
SELECT amvalidate(oid), opcname FROM pg_opclass
 WHERE opcmethod = (SELECT oid FROM pg_am WHERE amname = 'wide_key') ORDER BY opcname;

CREATE TABLE ck_heap AS SELECT * FROM ck;
SELECT count(*) FROM ck;
SELECT pg_total_relation_size('ck') AS size_before \gset
SELECT relfilenode AS node_before FROM pg_class WHERE relname = 'ck' \gset

CLUSTER ck USING ck_key;

-- the same cells in new storage, one run, nothing in the write area
SELECT relfilenode <> :node_before AS new_storage FROM pg_class WHERE relname = 'ck';
SELECT count(*) AS differences
  FROM ((TABLE ck EXCEPT ALL TABLE ck_heap) UNION ALL (TABLE ck_heap EXCEPT ALL TABLE ck)) d;
SELECT runs, write_area_pages, write_area_runs, free_pages FROM wide.stats('ck');
SELECT * FROM wide.verify('ck');
-- the space is returned: the file is much smaller
SELECT pg_total_relation_size('ck') * 4 < :size_before AS shrank;
-- the index is marked, so CLUSTER without USING (and a database-wide
-- CLUSTER) rewrites it again
SELECT indisclustered FROM pg_index WHERE indexrelid = 'ck_key'::regclass;
INSERT INTO ck VALUES ('r099', 'm', 'q1', '2030-01-01', -1);
COPY ck FROM stdin;
r098	m	q1	2030-01-01 00:00:00	-2
\.
SELECT relfilenode AS node_before FROM pg_class WHERE relname = 'ck' \gset
CLUSTER ck;
SELECT relfilenode <> :node_before AS new_storage FROM pg_class WHERE relname = 'ck';
SELECT row_key, qualifier, value FROM ck WHERE ts = '2030-01-01' ORDER BY row_key;
CLUSTER;
SELECT count(*) FROM ck;
SELECT * FROM wide.verify('ck');
-- INSERT ... ON CONFLICT DO NOTHING goes the speculative way when the table
-- has an index; nothing can conflict with a wide_key index, so it inserts
-- as without one; a conflict target needs a unique index
INSERT INTO ck VALUES ('r097', 'm', 'q9', '2030-01-01', 7) ON CONFLICT DO NOTHING;
INSERT INTO ck VALUES ('r097', 'm', 'q9', '2030-01-01', 8) ON CONFLICT DO NOTHING;
SELECT qualifier, value FROM ck WHERE row_key = 'r097' AND qualifier = 'q9';
INSERT INTO ck VALUES ('r097', 'm', 'q9', '2030-01-01', 9) ON CONFLICT (row_key) DO NOTHING;
DELETE FROM ck WHERE row_key = 'r097' AND qualifier = 'q9';
-- VACUUM FULL and ANALYZE with the index present
VACUUM (FULL, ANALYZE) ck;
ANALYZE ck;
SELECT count(*) FROM ck;

-- CLUSTER in a transaction block (VACUUM FULL cannot be): the transaction's
-- own cells and deletes before and after it, then rollback or commit
BEGIN;
DELETE FROM ck WHERE row_key = 'r099';
INSERT INTO ck VALUES ('r100', 'm', 'q', '2030-01-01', 100);
SAVEPOINT s;
INSERT INTO ck VALUES ('r101', 'm', 'q', '2030-01-01', 101);
ROLLBACK TO s;
CLUSTER ck;
SELECT row_key, count(*) FROM ck WHERE row_key >= 'r098' GROUP BY 1 ORDER BY 1;
INSERT INTO ck VALUES ('r102', 'm', 'q', '2030-01-01', 102);
SELECT row_key, count(*) FROM ck WHERE row_key >= 'r098' GROUP BY 1 ORDER BY 1;
ROLLBACK;
SELECT row_key, count(*) FROM ck WHERE row_key >= 'r098' GROUP BY 1 ORDER BY 1;
BEGIN;
INSERT INTO ck VALUES ('r100', 'm', 'q', '2030-01-01', 100);
CLUSTER ck;
INSERT INTO ck VALUES ('r102', 'm', 'q', '2030-01-01', 102);
COMMIT;
SELECT row_key, count(*) FROM ck WHERE row_key >= 'r098' GROUP BY 1 ORDER BY 1;
SELECT * FROM wide.verify('ck');
-- not while this session reads the table
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM ck;
FETCH c;
CLUSTER ck;
ROLLBACK;

-- REINDEX, concurrent builds, DROP INDEX
REINDEX INDEX ck_key;
REINDEX TABLE ck;
REINDEX INDEX CONCURRENTLY ck_key;
CREATE INDEX CONCURRENTLY ck_key2 ON ck USING wide_key (row_key);
SELECT indexrelid::regclass, indisvalid, indisclustered FROM pg_index
 WHERE indrelid = 'ck'::regclass ORDER BY indexrelid::regclass::text;
-- the mark moves to the index CLUSTER names, and goes with it
CLUSTER ck USING ck_key2;
DROP INDEX ck_key2;
CLUSTER ck;
CLUSTER ck USING ck_key;
SELECT count(*) AS differences
  FROM ((SELECT * FROM ck WHERE row_key < 'r098' EXCEPT ALL SELECT * FROM ck_heap WHERE row_key < 'r098')
        UNION ALL (SELECT * FROM ck_heap WHERE row_key < 'r098' EXCEPT ALL SELECT * FROM ck WHERE row_key < 'r098')) d;

-- privileges: only the owner may CLUSTER or index, as for any table; a
-- database-wide CLUSTER skips the tables the user does not own
CREATE ROLE regress_wide_ck;
GRANT SELECT, INSERT ON ck TO regress_wide_ck;
SELECT relfilenode AS node_before FROM pg_class WHERE relname = 'ck' \gset
SET ROLE regress_wide_ck;
CLUSTER ck USING ck_key;
CLUSTER ck;
CLUSTER;
CREATE INDEX ON ck USING wide_key (row_key);
REINDEX INDEX ck_key;
RESET ROLE;
SELECT relfilenode = :node_before AS same_storage FROM pg_class WHERE relname = 'ck';
REVOKE ALL ON ck FROM regress_wide_ck;
DROP ROLE regress_wide_ck;

-- ALTER TABLE SET ACCESS METHOD heap fails clearly, before copying, with
-- the index present (which stays), and works without it
CREATE TABLE ck_small (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('ck_small', 'f');
INSERT INTO ck_small SELECT 'r' || i, 'f', 'q', i, 'v' || i FROM generate_series(1, 10) i;
CREATE INDEX ck_small_key ON ck_small USING wide_key (row_key);
ALTER TABLE ck_small SET ACCESS METHOD heap;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE relname = 'ck_small';
SELECT indexdef FROM pg_indexes WHERE tablename = 'ck_small';
CLUSTER ck_small USING ck_small_key;
SELECT count(*), min(value) FROM ck_small;
DROP INDEX ck_small_key;
ALTER TABLE ck_small SET ACCESS METHOD heap;
SELECT amname, (SELECT count(*) FROM ck_small) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE relname = 'ck_small';

-- bytea row keys, values in blobs, unlogged and temporary tables
CREATE TABLE ckb (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('ckb', 'f');
CREATE INDEX ckb_key ON ckb USING wide_key (row_key);
INSERT INTO ckb SELECT int4send(i), 'f', 'q', i, decode(repeat(md5(i::text), 100 * i), 'hex')
  FROM generate_series(1, 9) i;
DELETE FROM ckb WHERE row_key = int4send(5);
CREATE TABLE ckb_heap AS SELECT * FROM ckb;
CLUSTER ckb USING ckb_key;
SELECT count(*) AS differences
  FROM ((TABLE ckb EXCEPT ALL TABLE ckb_heap) UNION ALL (TABLE ckb_heap EXCEPT ALL TABLE ckb)) d;
DELETE FROM ckb;
CLUSTER ckb;
SELECT pg_relation_size('ckb') AS size_after_delete_all, count(*) FROM ckb;
CREATE UNLOGGED TABLE cku (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('cku', 'f');
CREATE INDEX cku_key ON cku USING wide_key (row_key);
INSERT INTO cku SELECT 'r' || i, 'f', 'q', i, 'v' || i FROM generate_series(1, 1000) i;
DELETE FROM cku WHERE ts > 10;
CLUSTER cku USING cku_key;
SELECT count(*), min(value), max(value) FROM cku;
CREATE TEMP TABLE ckt (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('ckt', 'f');
CREATE INDEX ckt_key ON ckt USING wide_key (row_key);
INSERT INTO ckt SELECT 'r' || i, 'f', 'q', i, 'v' || i FROM generate_series(1, 1000) i;
DELETE FROM ckt WHERE ts > 10;
CLUSTER ckt USING ckt_key;
SELECT count(*), min(value), max(value) FROM ckt;

-- partitioned: the index on the parent is one on each wide partition, and
-- CLUSTER of the parent rewrites each
CREATE TABLE ckp (row_key text COLLATE "C", family text COLLATE "C",
                  qualifier text COLLATE "C", ts int8, value int8) PARTITION BY RANGE (row_key);
CREATE TABLE ckp1 PARTITION OF ckp FOR VALUES FROM ('a') TO ('m') USING wide;
CREATE TABLE ckp2 PARTITION OF ckp FOR VALUES FROM ('m') TO ('z') USING wide;
SELECT wide.create_family('ckp1', 'f'), wide.create_family('ckp2', 'f');
INSERT INTO ckp SELECT chr(97 + i % 25) || i, 'f', 'q', i, i FROM generate_series(1, 2000) i;
DELETE FROM ckp WHERE value % 2 = 0;
CREATE INDEX ckp_key ON ckp USING wide_key (row_key);
SELECT relfilenode AS p1_before FROM pg_class WHERE relname = 'ckp1' \gset
CLUSTER ckp USING ckp_key;
SELECT relfilenode <> :p1_before AS new_storage FROM pg_class WHERE relname = 'ckp1';
SELECT count(*), sum(value) FROM ckp;
-- a partition that is not wide cannot take the index
CREATE TABLE ckp3 PARTITION OF ckp FOR VALUES FROM ('z') TO ('zz');

DROP TABLE ck, ck_heap, ck_small, ckb, ckb_heap, cku, ckt, ckp;
