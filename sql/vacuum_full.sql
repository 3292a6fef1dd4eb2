--
-- vacuum_full: VACUUM FULL rewrites a wide table into new storage as one
-- major compaction (issue 10); CLUSTER does the same through a wide_key
-- index (cluster_key)
--
CREATE TABLE vf (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('vf', 'm', max_versions => 2);
SELECT wide.create_family('vf', 'keep');
SELECT wide.create_family('vf', 'gone');
SELECT wide.create_family('vf', 's', aggregate => 'sum');
SET wide.flush_threshold = 64;
-- versions beyond the policy, a family to drop, aggregate inputs
INSERT INTO vf SELECT 'r' || lpad((i % 100)::text, 3, '0'), 'm', 'q' || (i % 7),
       '2020-01-01'::timestamptz + i * interval '1 minute', i
  FROM generate_series(1, 20000) i;
INSERT INTO vf SELECT 'r' || lpad(i::text, 3, '0'), 'keep', 'k', '2020-01-01', i
  FROM generate_series(1, 100) i;
INSERT INTO vf SELECT 'r' || lpad(i::text, 3, '0'), 'gone', 'g', '2020-01-01', i
  FROM generate_series(1, 100) i;
INSERT INTO vf SELECT 'r' || lpad((20 + i % 10)::text, 3, '0'), 's', 'c', '2020-01-01', i
  FROM generate_series(1, 3000) i;
SELECT FROM wide.compact('vf');
-- more in the write area, deletes of every kind, an aborted transaction
INSERT INTO vf SELECT 'r' || lpad((i % 100)::text, 3, '0'), 'm', 'q' || (i % 7),
       '2021-01-01'::timestamptz + i * interval '1 minute', i
  FROM generate_series(1, 500) i;
-- (row tombstones: an SQL DELETE of the newest versions could bring back
-- older ones that compaction has not collected yet, depending on timing)
SELECT count(wide.mutate_row('vf'::regclass, 'r00' || i, '[{"delete_from_row": {}}]'))
  FROM generate_series(0, 9) i;
DELETE FROM vf WHERE family = 'keep' AND row_key < 'r050';
SELECT wide.mutate_row('vf'::regclass, 'r060', '[{"delete_from_row": {}}]');
SELECT wide.mutate_row('vf'::regclass, 'r061', '[{"delete_from_family": {"family_name": "m"}}]');
BEGIN;
INSERT INTO vf SELECT 'r' || lpad(i::text, 3, '0'), 'keep', 'aborted', '2020-01-01', i
  FROM generate_series(1, 100) i;
ROLLBACK;
SELECT wide.drop_family('vf', 'gone');
RESET wide.flush_threshold;

CREATE TABLE vf_heap AS SELECT * FROM vf;
SELECT count(*) FROM vf;
SELECT pg_total_relation_size('vf') AS size_before \gset
SELECT relfilenode AS node_before FROM pg_class WHERE relname = 'vf' \gset

VACUUM FULL vf;

-- the same cells, in new storage, one run, nothing in the write area
SELECT relfilenode <> :node_before AS new_storage FROM pg_class WHERE relname = 'vf';
SELECT count(*) FROM vf;
SELECT count(*) AS differences
  FROM ((TABLE vf EXCEPT ALL TABLE vf_heap) UNION ALL (TABLE vf_heap EXCEPT ALL TABLE vf)) d;
SELECT runs, write_area_pages, write_area_runs, free_pages FROM wide.stats('vf');
SELECT * FROM wide.verify('vf');
-- much smaller: no versions beyond the policy, no deleted or dropped cells
SELECT pg_total_relation_size('vf') * 4 < :size_before AS shrank;
-- the families and their policies still apply
INSERT INTO vf VALUES ('r099', 'm', 'q1', '2030-01-01', -1);
SELECT qualifier, ts, value FROM vf WHERE row_key = 'r099' AND qualifier = 'q1';
SELECT wide.add_to_cell('vf'::regclass, 'r021', 's', 'c', '2020-01-01', 1000000);
SELECT row_key, value FROM vf WHERE family = 's' ORDER BY row_key;
-- and another VACUUM FULL keeps them
VACUUM (FULL, FREEZE) vf;
SELECT count(*) FROM vf;
SELECT * FROM wide.verify('vf');

-- values kept in blobs are copied into the new storage
CREATE TABLE vfb (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('vfb', 'f');
INSERT INTO vfb SELECT int4send(i), 'f', 'q', i, decode(repeat(md5(i::text), 100 * i), 'hex')
  FROM generate_series(1, 9) i;
-- a long qualifier: the whole record in a blob of the write area
INSERT INTO vfb VALUES ('\x01', 'f', decode(repeat('ab', 5000), 'hex'), 1, decode(repeat('cd', 3000), 'hex'));
INSERT INTO vfb VALUES ('\x02', 'f', decode(repeat('ab', 5000), 'hex'), 1, 'short');
SELECT FROM wide.compact('vfb');
INSERT INTO vfb SELECT int4send(i + 100), 'f', 'q', i, decode(repeat(md5(i::text), 100 * i), 'hex')
  FROM generate_series(1, 9) i;
DELETE FROM vfb WHERE row_key = int4send(5);
CREATE TABLE vfb_heap AS SELECT * FROM vfb;
VACUUM FULL vfb;
SELECT count(*), sum(length(value)), sum(length(qualifier)) FROM vfb;
SELECT count(*) AS differences
  FROM ((TABLE vfb EXCEPT ALL TABLE vfb_heap) UNION ALL (TABLE vfb_heap EXCEPT ALL TABLE vfb)) d;
SELECT * FROM wide.verify('vfb');

-- everything deleted: nothing left at all
DELETE FROM vfb;
VACUUM FULL vfb;
SELECT pg_total_relation_size('vfb') AS size_after_delete_all, count(*) FROM vfb;
INSERT INTO vfb VALUES ('\x03', 'f', 'q', 1, 'again');
SELECT row_key, value FROM vfb;

-- an empty table, an unlogged one, a temporary one
CREATE TABLE vfe (row_key text, family text, qualifier text, ts int8, value text) USING wide;
VACUUM FULL vfe;
SELECT count(*) FROM vfe;
CREATE UNLOGGED TABLE vfu (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('vfu', 'f');
INSERT INTO vfu SELECT 'r' || i, 'f', 'q', i, 'v' || i FROM generate_series(1, 1000) i;
DELETE FROM vfu WHERE ts > 10;
VACUUM FULL vfu;
SELECT count(*), min(value), max(value) FROM vfu;
CREATE TEMP TABLE vft (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('vft', 'f');
INSERT INTO vft SELECT 'r' || i, 'f', 'q', i, 'v' || i FROM generate_series(1, 1000) i;
DELETE FROM vft WHERE ts > 10;
VACUUM FULL vft;
SELECT count(*), min(value), max(value) FROM vft;

-- CLUSTER needs an index: without a wide_key index (cluster_key tests it)
-- PostgreSQL refuses it; other indexes are refused with a hint naming
-- wide_key; REINDEX finds nothing to do
CLUSTER vf;
CREATE INDEX ON vf (row_key);
REINDEX TABLE vf;
-- VACUUM FULL is a statement of its own, as for the heap
BEGIN;
VACUUM FULL vf;
ROLLBACK;

-- ALTER TABLE SET TABLESPACE copies the pages as they are
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_wide_vf LOCATION '';
CREATE TABLE vf_heap2 AS SELECT * FROM vf;
ALTER TABLE vf SET TABLESPACE regress_wide_vf;
SELECT count(*) AS differences
  FROM ((TABLE vf EXCEPT ALL TABLE vf_heap2) UNION ALL (TABLE vf_heap2 EXCEPT ALL TABLE vf)) d;
INSERT INTO vf VALUES ('r099', 'm', 'q2', '2030-01-01', -2);
VACUUM FULL vf;
SELECT qualifier, ts, value FROM vf WHERE row_key = 'r099' AND ts = '2030-01-01' ORDER BY qualifier;
ALTER TABLE vf SET TABLESPACE pg_default;
SELECT count(*) FROM vf;
SELECT * FROM wide.verify('vf');
DROP TABLESPACE regress_wide_vf;
RESET allow_in_place_tablespaces;

DROP TABLE vf, vf_heap, vf_heap2, vfb, vfb_heap, vfe, vfu, vft;
