-- A data block's stored row directory (format version 7, src/engine/rowdir.c):
-- points a quarter of wide.block_size apart, stored after the data block,
-- from which a point read of a block not read before steps on instead of
-- stepping over every record before its row.  Tables written with
-- wide.block_row_directory off hold blocks as format version 6 wrote them:
-- both read the same, a compaction merging runs of both keeps what each
-- block has, and wide.verify checks every directory against its block.
SET wide.block_size = 1024;
-- the same cells three times: with directories, without, and on the heap
CREATE TABLE rd_on (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
CREATE TABLE rd_off (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
CREATE TABLE rd_heap (row_key text, family text, qualifier text, ts timestamptz, value float8);
SELECT wide.create_family('rd_on', 'm'), wide.create_family('rd_off', 'm');
CREATE TEMP TABLE rd_src AS
  SELECT format('host%s#%s', h, lpad(r::text, 6, '0')) AS row_key, 'm' AS family,
         'q' || q AS qualifier, to_timestamp(1451606400 + r * 10) AS ts,
         ((h * 7 + r * q) % 100)::float8 AS value
    FROM generate_series(1, 4) h, generate_series(0, 1499) r, generate_series(1, 5) q;
INSERT INTO rd_on SELECT * FROM rd_src;
INSERT INTO rd_heap SELECT * FROM rd_src;
SET wide.block_row_directory = off;
INSERT INTO rd_off SELECT * FROM rd_src;
SELECT count(*) > 0 AS compacted FROM wide.compact('rd_off', major => true);
RESET wide.block_row_directory;
SELECT count(*) > 0 AS compacted FROM wide.compact('rd_on', major => true);
-- the directories take stored bytes (here, blocks of 1 kB, a point every
-- 256 bytes: far more than at the default 16 kB, docs/performance.md)
SELECT (SELECT sum(stored_bytes) FROM wide.runs('rd_on')) >
       (SELECT sum(stored_bytes) FROM wide.runs('rd_off')) AS on_larger;
-- point reads: a row each, then many in one scan (each read on from the
-- last), each against the heap
CREATE TEMP TABLE rd_keys AS
  SELECT format('host%s#%s', 1 + (k * 7) % 4, lpad(((k * 389) % 1500)::text, 6, '0')) AS row_key
    FROM generate_series(0, 59) k;
CREATE FUNCTION pg_temp.rd_rows(t regclass, k text) RETURNS TABLE (c bigint, s float8) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT count(*), sum(value) FROM %s WHERE row_key = $1', t) USING k;
END $$;
SELECT wide_internal.row_dir_seeks() AS seeks0 \gset
SELECT count(*) AS rows_differ
  FROM rd_keys, pg_temp.rd_rows('rd_on', row_key) w, pg_temp.rd_rows('rd_heap', row_key) h
 WHERE w IS DISTINCT FROM h;
SELECT wide_internal.row_dir_seeks() - :seeks0 > 0 AS directories_used;
SELECT wide_internal.row_dir_seeks() AS seeks0 \gset
SELECT count(*) AS rows_differ
  FROM rd_keys, pg_temp.rd_rows('rd_off', row_key) w, pg_temp.rd_rows('rd_heap', row_key) h
 WHERE w IS DISTINCT FROM h;
SELECT wide_internal.row_dir_seeks() - :seeks0 AS seeks_without_directories;
-- keys between rows and past the ends
SELECT count(*) AS rows_differ
  FROM (VALUES ('host1#'), ('host1#000100x'), ('host2#001499'), ('host4#001499'),
               ('host4#9'), ('host0'), ('host9')) k(row_key),
       pg_temp.rd_rows('rd_on', row_key) w, pg_temp.rd_rows('rd_heap', row_key) h
 WHERE w IS DISTINCT FROM h;
-- one scan of many ranges (row keys in a list): read on, block by block
SELECT count(*), sum(value) FROM rd_on WHERE row_key IN (SELECT row_key FROM rd_keys);
SELECT count(*), sum(value) FROM rd_heap WHERE row_key IN (SELECT row_key FROM rd_keys);
SELECT count(*) AS differ FROM (
  (SELECT * FROM rd_on WHERE row_key >= 'host2#000700' AND row_key < 'host2#000733'
   EXCEPT ALL SELECT * FROM rd_heap WHERE row_key >= 'host2#000700' AND row_key < 'host2#000733')
  UNION ALL
  (SELECT * FROM rd_heap WHERE row_key >= 'host2#000700' AND row_key < 'host2#000733'
   EXCEPT ALL SELECT * FROM rd_on WHERE row_key >= 'host2#000700' AND row_key < 'host2#000733')) x;
-- a merge of runs with and without directories (a load with the setting
-- off into the table with them): passed blocks keep theirs, new ones get one
SET wide.block_row_directory = off;
INSERT INTO rd_on SELECT format('host%s#%s', h, lpad(r::text, 6, '0')), 'm', 'q6',
       to_timestamp(1451606400 + r * 10), r::float8
  FROM generate_series(1, 4) h, generate_series(0, 1499, 50) r;
RESET wide.block_row_directory;
INSERT INTO rd_heap SELECT format('host%s#%s', h, lpad(r::text, 6, '0')), 'm', 'q6',
       to_timestamp(1451606400 + r * 10), r::float8
  FROM generate_series(1, 4) h, generate_series(0, 1499, 50) r;
SELECT count(*) > 0 AS compacted FROM wide.compact('rd_on', major => true);
SELECT count(*) AS rows_differ
  FROM rd_keys, pg_temp.rd_rows('rd_on', row_key) w, pg_temp.rd_rows('rd_heap', row_key) h
 WHERE w IS DISTINCT FROM h;
SELECT count(*) AS problems FROM wide.verify('rd_on');
SELECT count(*) AS problems FROM wide.verify('rd_off');
-- readings of a row form (the DELETE this is for): the same rows as the heap
CREATE TABLE rd_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rd_cells', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE rd_form (time timestamptz NOT NULL, tags_id int4 NOT NULL, a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'rd_cells', family 'cpu', key 'tags_id,time');
CREATE TABLE rd_fheap (time timestamptz NOT NULL, tags_id int4 NOT NULL, a float8, b float8);
INSERT INTO rd_fheap SELECT '2016-01-01'::timestamptz + s * interval '10 s', h, (h + s) % 100, (h * s) % 97
  FROM generate_series(0, 1999) s, generate_series(1, 3) h;
INSERT INTO rd_form SELECT * FROM rd_fheap;
SELECT count(*) > 0 AS compacted FROM wide.compact('rd_cells', major => true);
SELECT string_agg(quote_literal('2016-01-01'::timestamptz + s * interval '10 s'), ', ') AS times
  FROM generate_series(3, 1999, 37) s \gset
SELECT wide_internal.row_dir_seeks() AS seeks0 \gset
DELETE FROM rd_form WHERE tags_id = 2 AND time IN (:times);
DELETE FROM rd_fheap WHERE tags_id = 2 AND time IN (:times);
SELECT wide_internal.row_dir_seeks() - :seeks0 > 0 AS directories_used;
SELECT count(*) AS differ FROM ((SELECT * FROM rd_form EXCEPT ALL SELECT * FROM rd_fheap)
                                UNION ALL (SELECT * FROM rd_fheap EXCEPT ALL SELECT * FROM rd_form)) x;
RESET wide.block_size;
DROP TABLE rd_on, rd_off, rd_heap, rd_fheap, rd_cells CASCADE;
