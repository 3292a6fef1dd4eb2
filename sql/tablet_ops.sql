--
-- tablet_ops: wide.split_tablet and wide.move_tablet on local tablets, the
-- journal wide.tablet_ops, wide.resume_tablet_ops after a step that did
-- not finish, and bad input refused with nothing half-done.  Remote
-- tablets, concurrent writers and killed nodes: test/t/221_split_move.pl.
--
\set SHOW_CONTEXT never
CREATE TABLE so (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('so', 'm');
SELECT wide.create_family('so', 's', aggregate => 'sum');
SELECT * FROM wide.create_tablets('so', ARRAY['m'], ARRAY['local', 'local']);
INSERT INTO so SELECT chr(97 + i % 26) || lpad(i::text, 4, '0'), 'm', 'q' || (i % 3), i % 5, i
  FROM generate_series(1, 3000) i;
INSERT INTO so VALUES ('b1', 's', 'n', 1, 5), ('b1', 's', 'n', 1, 6), ('x1', 's', 'n', 1, 7);
CREATE VIEW so_state AS
  SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound,
         (SELECT count(*) FROM so WHERE tableoid = c.oid) AS cells
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'so'::regclass ORDER BY bound;
CREATE VIEW so_sum AS
  SELECT count(*) AS cells, sum(value) AS total, md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ','
             ORDER BY row_key, family, qualifier, ts)) AS digest FROM so;
CREATE TABLE so_before AS SELECT * FROM so_sum;
SELECT * FROM so_state;

-- bad input: refused before anything is made
CALL wide.split_tablet('so', 'nosuch', 'c');
CALL wide.split_tablet('nosuch', 'so_1', 'c');
CREATE TABLE other (LIKE so) USING wide;
CALL wide.split_tablet('so', 'other', 'c');
CALL wide.split_tablet('other', 'other', 'c');
CALL wide.split_tablet('so', 'so_1', 'q');          -- outside [MINVALUE, m)
CALL wide.split_tablet('so', 'so_1', 'm');          -- its upper bound: outside
CALL wide.split_tablet('so', 'so_2', 'm');          -- its lower bound
CALL wide.split_tablet('so', 'so_2', 'a');          -- below it
CALL wide.move_tablet('so', 'so_1', 'local');       -- where it is
CALL wide.move_tablet('so', 'so_1', 'nowhere');
CALL wide.move_tablet('so', 'so_1', NULL);
BEGIN;
CALL wide.split_tablet('so', 'so_1', 'c');
ROLLBACK;
CREATE TABLE so_empty (LIKE so) PARTITION BY RANGE (row_key);
SELECT * FROM wide.create_tablets('so_empty', '{}', ARRAY['local']);
CALL wide.split_tablet('so_empty', 'so_empty_1');   -- no key to split at
-- a rollup keeping host7's cells under 'host7' (key_parts): no tablet
-- boundary may fall between 'host7' and 'host7#...'
CREATE TABLE so_roll (row_key text COLLATE "C", family text COLLATE "C",
                      qualifier text COLLATE "C", ts timestamptz, value int8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('so_roll', 'm');
SELECT wide.create_family('so_roll', 'r',
  rollup => '{"source": "m", "bucket": "1 hour", "functions": ["sum", "count"], "key_parts": 1}');
SELECT * FROM wide.create_tablets('so_roll', ARRAY['host7#5000'], ARRAY['local', 'local']);
SELECT * FROM wide.create_tablets('so_roll', ARRAY['host7!'], ARRAY['local', 'local']);
SELECT * FROM wide.create_tablets('so_roll', '{}', ARRAY['local']);
CALL wide.split_tablet('so_roll', 'so_roll_1', 'host7#5000');
-- nothing was made: no journal (made by the first operation), no new
-- table, the same tablets
SELECT count(*) FROM pg_class WHERE relnamespace = 'wide'::regnamespace AND relkind = 'r';
SELECT count(*) FROM pg_class WHERE relname ~ '^so_[0-9]';
SELECT * FROM so_state;

-- a split at a key: two new tablets replace the old one, every cell kept
CALL wide.split_tablet('so', 'so_2', 't');
SELECT * FROM so_state;
SELECT (SELECT row(s.*)::text FROM so_sum s) = (SELECT row(b.*)::text FROM so_before b) AS same_cells;
SELECT id, op, tablet, node, new_tablets, new_nodes, bounds, step, copied_cells, delta_cells,
       lock_ms > 0 AS locked FROM wide.tablet_ops ORDER BY id;
-- the new tablets have the families, and the CHECK used to attach is gone
SELECT family, aggregate FROM wide.families('so_1b') ORDER BY 1;
SELECT count(*) FROM pg_constraint WHERE conrelid IN ('so_1a'::regclass, 'so_1b'::regclass);
-- the default key: the middle of the tablet
CALL wide.split_tablet('so', 'so_1');
SELECT * FROM so_state;
SELECT (SELECT row(s.*)::text FROM so_sum s) = (SELECT row(b.*)::text FROM so_before b) AS same_cells;
SELECT * FROM wide.read_rows(NULL::so, keys => ARRAY['b1', 'x1']);
-- a split of a tablet that is gone, or of a new one at its bound
CALL wide.split_tablet('so', 'so_1', 'c');
CALL wide.split_tablet('so', 'so_1b', 't');

-- an operation that stopped after its first step (as after a failure):
-- family changes wait for it, another operation too; resume rolls it back
SELECT wide_internal._tablet_op_begin('split', 'so', 'so_1a', 'p', NULL);
SELECT id, tablet, new_tablets, step FROM wide.tablet_ops WHERE step <> 'done';
SELECT to_regclass('so_3a') IS NOT NULL AS made, to_regclass('so_3b') IS NOT NULL AS made;
SELECT wide.create_family('so', 'z');
SELECT wide.create_family('so_1a', 'z');
CALL wide.split_tablet('so', 'so_2b', 'w');
CALL wide.resume_tablet_ops();
SELECT id, step FROM wide.tablet_ops WHERE id = 3;
SELECT to_regclass('so_3a') IS NULL AS gone, to_regclass('so_3b') IS NULL AS gone;
-- the tablet is no longer marked for tracking its writes
SELECT count(*) FROM pg_constraint WHERE conname = 'wide_tablet_tracked';
SELECT * FROM so_state;

-- stopped after the copy, while cells were written, replaced, deleted and
-- added to: resume brings the copy up to date under the lock and swaps
INSERT INTO so VALUES ('o1', 's', 'n', 1, 5);
SELECT wide_internal._tablet_op_begin('split', 'so', 'so_1a', 'p', NULL);
SELECT wide_internal._tablet_op_copy(4);
SELECT step, copied_cells FROM wide.tablet_ops WHERE id = 4;
SELECT conrelid::regclass FROM pg_constraint WHERE conname = 'wide_tablet_tracked';
-- (so_1a holds [m, t): a new cell in each half, a replaced value, a cell
-- deleted, a row deleted, an aggregate added to; and one outside)
INSERT INTO so VALUES ('n_new', 'm', 'q', 1, 1), ('q_new', 'm', 'q', 1, 2), ('m0012', 'm', 'q0', 2, -12),
                      ('a_new', 'm', 'q', 1, 3);
DELETE FROM so WHERE row_key = 'n0013';
SELECT wide.delete_row('so', 'p0015');
SELECT wide.add_to_cell('so', 'o1', 's', 'n', 1, 100::int8);
CREATE TEMP TABLE so_expected AS SELECT * FROM so_sum;
-- the rows written since the tablet was marked: the catch-up compares those
SELECT wide_internal._tablet_changes('so_1a');
CALL wide.resume_tablet_ops();
SELECT step, delta_cells FROM wide.tablet_ops WHERE id = 4;
SELECT (SELECT row(s.*)::text FROM so_sum s) = (SELECT row(e.*)::text FROM so_expected e) AS same_cells;
SELECT tableoid::regclass, * FROM so WHERE row_key IN ('n_new', 'q_new', 'm0012', 'a_new', 'n0013', 'p0015', 'o1')
 ORDER BY row_key, family, qualifier, ts;
SELECT * FROM so_state;
-- nothing left behind: every table of so is a tablet, no row key recorded
SELECT count(*) FROM wide.tablet_op_changes;
SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class
 WHERE relname ~ '^so_[0-9]' AND relkind = 'r'
   AND oid NOT IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'so'::regclass);

-- rollup and hll families split exactly: the copy and the catch-up write
-- their cells as they are (wide.rollup_on_write off), so the copied source
-- cells do not add to the rollup again
INSERT INTO so_roll SELECT 'host' || h || '#' || (1000 * r), 'm', 'cpu', to_timestamp(r * 600), r
  FROM generate_series(5, 9) h, generate_series(1, 12) r;
CALL wide.split_tablet('so_roll', 'so_roll_1', 'host7');
SELECT tableoid::regclass, row_key, qualifier, ts, value FROM so_roll WHERE family = 'r'
 ORDER BY row_key, qualifier, ts;
SELECT tableoid::regclass, count(*) FROM so_roll WHERE family = 'm' GROUP BY 1 ORDER BY 1;
-- a group of a later rollup family must not be split either
CREATE TABLE so_roll2 (LIKE so_roll) PARTITION BY RANGE (row_key);
SELECT wide.create_family('so_roll2', 'm');
SELECT * FROM wide.create_tablets('so_roll2', ARRAY['host7#5000'], ARRAY['local', 'local']);
SELECT wide.create_family('so_roll2', 'r',
  rollup => '{"source": "m", "bucket": "1 hour", "functions": ["sum"], "key_parts": 1}');
SELECT family FROM wide.families('so_roll2') ORDER BY 1;
CREATE TABLE so_hll (row_key text COLLATE "C", family text COLLATE "C",
                     qualifier text COLLATE "C", ts timestamptz, value bytea)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('so_hll', 'h', aggregate => 'hll');
SELECT * FROM wide.create_tablets('so_hll', '{}', ARRAY['local']);
SELECT count(*) FROM (SELECT wide.add_to_cell('so_hll', 'k' || (i % 3), 'h', 'u', '2020-01-01'::timestamptz,
                                               convert_to('x' || i, 'UTF8'))
                        FROM generate_series(1, 300) i) a;
CREATE TABLE so_hll_before AS SELECT row_key, qualifier, md5(value) AS sketch FROM so_hll;
CALL wide.split_tablet('so_hll', 'so_hll_1', 'k1');
SELECT tableoid::regclass, row_key, wide.hll_count(value) FROM so_hll ORDER BY row_key;
SELECT (SELECT array_agg(row(row_key, qualifier, md5(value))::text ORDER BY row_key) FROM so_hll)
     = (SELECT array_agg(row(b.*)::text ORDER BY row_key) FROM so_hll_before b) AS same_sketches;

DROP TABLE so, other, so_empty, so_hll, so_hll_before, so_roll, so_roll2, so_before CASCADE;

-- the default key in a LATIN1 database: the middle sample's bytes are read
-- in the database's encoding (read as UTF-8, 'é' failed: invalid byte
-- sequence for encoding "UTF8": 0xe9)
\set regress_db :DBNAME
CREATE DATABASE regress_wide_latin1 TEMPLATE template0 ENCODING 'LATIN1'
  LC_COLLATE 'C' LC_CTYPE 'C';
\c regress_wide_latin1
SET client_encoding = 'UTF8';
\set SHOW_CONTEXT never
CREATE EXTENSION wide;
CREATE TABLE l1 (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('l1', 'm');
SELECT * FROM wide.create_tablets('l1', '{}', ARRAY['local']);
SET wide.block_size = 1024;      -- samples: one per 128 blocks
INSERT INTO l1 SELECT 'é' || lpad(i::text, 5, '0'), 'm', 'q', 1, i
  FROM generate_series(1, 30000) i;
SELECT wide.compact('l1_1', major => true) IS NOT NULL AS compacted;
SELECT count(*) > 0 AS has_samples FROM wide.sample_row_keys('l1_1') WHERE row_key <> '\x';
CALL wide.split_tablet('l1', 'l1_1');
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound,
       (SELECT count(*) FROM l1 WHERE tableoid = c.oid) AS cells
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'l1'::regclass ORDER BY bound;
SELECT count(*), sum(value) FROM l1;
\c :regress_db
DROP DATABASE regress_wide_latin1;
