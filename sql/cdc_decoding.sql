-- Logical decoding of wide tables (test_decoding), one block per write
-- kind.  It needs wide in shared_preload_libraries and wal_level =
-- logical; on a server without them (PostgreSQL's default) it is skipped
-- with a notice, so that `make installcheck` passes against any server;
-- expected output: cdc_decoding.out when it runs, cdc_decoding_1.out when
-- skipped.  test/run-all.sh runs it in its second pass, with both set.
SELECT current_setting('wal_level') = 'logical' AND
       'wide' = ANY(string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))
       AS can_decode \gset
\if :can_decode

CREATE TABLE cd (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('cd', 'm');
SELECT wide.create_family('cd', 'n');
ALTER TABLE cd REPLICA IDENTITY FULL;
CREATE TABLE cs (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('cs', 's', aggregate => 'sum');
ALTER TABLE cs REPLICA IDENTITY FULL;
SELECT 'init' FROM pg_create_logical_replication_slot('regress_cdc', 'test_decoding');
CREATE FUNCTION cdc_changes() RETURNS SETOF text LANGUAGE sql AS $$
  SELECT data FROM pg_logical_slot_get_changes('regress_cdc', NULL, NULL,
                                               'include-xids', '0', 'skip-empty-xacts', '1')
$$;

-- INSERT, multi-row and INSERT ... SELECT (a statement's cells)
INSERT INTO cd VALUES ('a', 'm', 'q1', 10, 'v1');
INSERT INTO cd VALUES ('b', 'm', 'q1', 10, 'v2'), ('b', 'n', 'q2', 20, 'v3');
INSERT INTO cd SELECT 'c' || i, 'm', 'q', i, 'x' FROM generate_series(1, 3) i;
SELECT * FROM cdc_changes();
-- COPY
COPY cd FROM stdin;
d	m	q	1	copied
e	n	q	2	copied too
\.
SELECT * FROM cdc_changes();
-- the data API: set_cell, mutate_row, mutate_rows, check_and_mutate_row
SELECT wide.set_cell('cd', 'f', 'm', 'q', 'api', 5);
SELECT wide.mutate_row('cd', 'g', '[{"set_cell": {"family_name": "m", "column_qualifier": "q", "timestamp_micros": 6, "value": "mr"}}]');
SELECT wide.mutate_rows('cd', '[{"row_key": "h", "mutations": [{"set_cell": {"family_name": "m", "column_qualifier": "q", "timestamp_micros": 7, "value": "mrs"}}]}]');
SELECT wide.check_and_mutate_row('cd', 'a', NULL,
  '[{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 8, "value": "cm"}}]');
SELECT * FROM cdc_changes();
-- aggregates: add_to_cell inputs and merge_to_cell accumulators
SELECT wide.add_to_cell('cs', 'k', 's', 'total', 1, 5);
INSERT INTO cs VALUES ('k', 's', 'total', 1, 7);
SELECT wide.merge_to_cell('cs', 'k', 's', 'total', 1, 100);
SELECT * FROM cdc_changes();
-- sketch inputs, of families and of rollups, go out as one-input sketches
-- (an hll hash or a ddsketch double would be taken for a value again)
CREATE TABLE ck (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('ck', 'm');
SELECT wide.create_family('ck', 'u', aggregate => 'hll');
SELECT wide.create_family('ck', 'd', aggregate => 'ddsketch');
SELECT wide.create_family('ck', 'r', rollup => '{"source": "m", "bucket": "1 second", "functions": ["hll", "ddsketch"]}');
ALTER TABLE ck REPLICA IDENTITY FULL;
SELECT wide.add_to_cell('ck', 'k', 'u', 'q', 1, 'x'), wide.add_to_cell('ck', 'k', 'd', 'q', 1, 2.5);
INSERT INTO ck VALUES ('k', 'm', 'q', 1, int8send(42));
SELECT count(*) FILTER (WHERE strpos(data, 'value[bytea]:''\x48010e01') > 0) AS hll_sketches,
       count(*) FILTER (WHERE strpos(data, 'value[bytea]:''\x44010100') > 0) AS ddsketches,
       count(*) FILTER (WHERE data LIKE 'table public.ck: INSERT%') AS inserts
  FROM cdc_changes() c(data);
-- deletes: each kind, as a DELETE naming its scope (and a message)
SELECT wide.delete_cells('cd', 'a', 'm', 'q1', 10, 11);
SELECT wide.delete_cells('cd', 'b', 'm', 'q1');
SELECT wide.delete_family('cd', 'b', 'n');
SELECT wide.delete_row('cd', 'c1');
DELETE FROM cd WHERE row_key = 'c2';
SELECT * FROM cdc_changes();
-- wide.drop_before: one transactional message with its scope (every family,
-- or one), no DELETE per cell; a rolled-back drop sends nothing
SELECT wide.drop_before('cd', 3);
SELECT wide.drop_before('cd', 'n', 15);
SELECT wide.drop_before('cs', 2);
BEGIN;
SELECT wide.drop_before('cd', 'm', 100);
ROLLBACK;
SELECT * FROM cdc_changes();
SELECT row_key, family, qualifier, ts FROM cd ORDER BY 1, 2, 3, 4;
-- aborts and savepoints: only what committed
BEGIN;
INSERT INTO cd VALUES ('x', 'm', 'q', 1, 'kept');
SAVEPOINT s;
INSERT INTO cd VALUES ('y', 'm', 'q', 1, 'rolled back');
ROLLBACK TO SAVEPOINT s;
COMMIT;
BEGIN;
INSERT INTO cd VALUES ('z', 'm', 'q', 1, 'aborted');
ROLLBACK;
SELECT * FROM cdc_changes();
-- flush and compaction move cells: no changes
SELECT FROM wide.compact('cd', true);
VACUUM cd;
SELECT count(*) AS changes_of_maintenance FROM cdc_changes();
-- the replica identity: the unique wide_key index on the coordinates (its
-- DELETE carries them); none (the DELETE has no old tuple)
CREATE TABLE ci (row_key text NOT NULL, family text NOT NULL, qualifier text NOT NULL,
                 ts int8 NOT NULL, value text) USING wide;
SELECT wide.create_family('ci', 'm');
CREATE UNIQUE INDEX ci_cell ON ci USING wide_key (row_key, family, qualifier, ts);
ALTER TABLE ci REPLICA IDENTITY USING INDEX ci_cell;
INSERT INTO ci VALUES ('a', 'm', 'q', 1, 'v');
DELETE FROM ci WHERE row_key = 'a';
ALTER TABLE ci REPLICA IDENTITY DEFAULT;
INSERT INTO ci VALUES ('a', 'm', 'q', 2, 'v');
DELETE FROM ci WHERE row_key = 'a';
SELECT * FROM cdc_changes();

SELECT pg_drop_replication_slot('regress_cdc');
DROP FUNCTION cdc_changes();
DROP TABLE cd, cs, ci, ck;

\else
\echo skipped: logical decoding of wide tables needs wal_level = logical and shared_preload_libraries = 'wide'
\endif
