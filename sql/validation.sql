--
-- validation: NULL tables and keys, text that is not text
--
\set SHOW_CONTEXT never
CREATE TABLE vt (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('vt', 'cf');
CREATE TABLE vb (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('vb', 'cf');
CREATE TABLE vn (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('vn', 'n', aggregate => 'sum');

-- A NULL table: functions that change something (cells or families) fail
-- with 22004; inspection functions are strict and return NULL or nothing,
-- as pg_relation_size() does.
SELECT wide.set_cell(NULL, 'r', 'cf', 'q', 'v');
SELECT wide.delete_cells(NULL, 'r', 'cf', 'q');
SELECT wide.delete_family(NULL, 'r', 'cf');
SELECT wide.delete_row(NULL, 'r');
SELECT wide.mutate_row(NULL, 'r', '[]');
SELECT wide.mutate_rows(NULL, '[]');
SELECT wide.check_and_mutate_row(NULL, 'r');
SELECT wide.add_to_cell(NULL, 'r', 'n', 'c', 1, 1);
SELECT wide.merge_to_cell(NULL, 'r', 'n', 'c', 1, 1);
SELECT wide.create_family(NULL, 'f');
SELECT wide.alter_family(NULL, 'f');
SELECT wide.drop_family(NULL, 'f');
SELECT FROM wide.compact(NULL);
SELECT * FROM wide.stats(NULL);
SELECT * FROM wide.runs(NULL);
SELECT * FROM wide.verify(NULL);
SELECT * FROM wide.sample_row_keys(NULL);
SELECT * FROM wide.families(NULL);
SELECT wide.family_catalog_of(NULL);
-- a table that does not exist (any more)
SELECT wide.set_cell(1::oid::regclass, 'r', 'cf', 'q', 'v');
SELECT wide.delete_row(1::oid::regclass, 'r');
SELECT wide.stats(1::oid::regclass);
SELECT FROM wide.compact(1::oid::regclass);
SELECT wide.create_family(1::oid::regclass, 'f');
-- not a wide table
CREATE TABLE heap_t (a int);
SELECT wide.set_cell('heap_t', 'r', 'cf', 'q', 'v');
SELECT FROM wide.compact('heap_t');
SELECT wide.create_family('heap_t', 'f');
SELECT * FROM wide.families('heap_t');
DROP TABLE heap_t;
-- NULL keys and families fail too (delete_row and delete_family used to
-- ignore them silently)
SELECT wide.delete_row('vt', NULL);
SELECT wide.delete_family('vt', NULL, 'cf');
SELECT wide.delete_family('vt', 'r1', NULL);
SELECT wide.delete_cells('vt', 'r1', 'cf', NULL);

-- Text key columns take only text: bytes that are not valid in the database
-- encoding, or hold a NUL, would make a table pg_dump cannot restore.
SELECT wide.set_cell('vt', '\xff00fe'::bytea, 'cf', 'q', 'v');
SELECT wide.set_cell('vt', 'ok'::bytea, 'cf', '\x610062'::bytea, 'v');
SELECT wide.set_cell('vt', 'ok', '\xc3'::bytea, 'q', 'v');
SELECT wide.delete_cells('vt', '\x80'::bytea, 'cf', 'q');
SELECT wide.delete_cells('vt', 'ok', 'cf', '\x00'::bytea);
SELECT wide.delete_family('vt', '\xe282'::bytea, 'cf');
SELECT wide.delete_row('vt', '\x6100'::bytea);
SELECT wide.add_to_cell('vn', '\xff'::bytea, 'n', 'c', 1, 1);
SELECT wide.merge_to_cell('vn', 'ok', 'n', '\xff'::bytea, 1, 1);
SELECT wide.mutate_row('vt', '\xff'::bytea, '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "v"}}]');
SELECT wide.check_and_mutate_row('vt', '\xff'::bytea,
  on_no_match => '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "v"}}]');
-- a value appended to a text value must be text as well
SELECT wide.set_cell('vt', 'app', 'cf', 'q', 'abc', 1);
SELECT wide.read_modify_write_row(NULL::vt, 'app', 'cf', 'q', append => '\xff');
SELECT wide.read_modify_write_row(NULL::vt, 'app', 'cf', 'q', append => '\x00');
SELECT (wide.read_modify_write_row(NULL::vt, 'app', 'cf', 'q', append => convert_to('d€', 'UTF8'))).value
  WHERE getdatabaseencoding() = 'UTF8';
-- JSON cannot carry a NUL: the whole batch is refused before anything is written
SELECT wide.mutate_rows('vt', '[{"row_key": "fine", "mutations": [{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "v"}}]},
                               {"row_key": "bad\u0000", "mutations": [{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "v"}}]}]');
-- a refused batch writes nothing
BEGIN;
SELECT wide.set_cell('vt', 'fine2', 'cf', 'q', 'v');
SAVEPOINT s;
SELECT wide.mutate_row('vt', '\x8080'::bytea, '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "v"}}]');
ROLLBACK TO s;
COMMIT;
-- valid bytes for a text key are fine, as are any bytes for a bytea key
SELECT wide.set_cell('vt', convert_to('clé', 'UTF8'), 'cf', 'q', 'v', 1) WHERE getdatabaseencoding() = 'UTF8';
SELECT wide.set_cell('vb', '\xff00fe'::bytea, 'cf', '\x00'::bytea, '\x00'::bytea, 1);
SELECT wide.delete_row('vb', '\x00ff'::bytea);
SELECT wide.add_to_cell('vn', 'ctr'::bytea, 'n', 'c'::bytea, 1, 5);
SELECT row_key, family, qualifier, value FROM vt ORDER BY 1, 3;
SELECT row_key, family, qualifier, value FROM vb;
SELECT row_key, qualifier, value FROM vn;

DROP TABLE vt, vb, vn;
