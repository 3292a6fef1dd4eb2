--
-- txn_families: family DDL and maintenance inside transactions, and
-- tombstones across family incarnations (issue 9, defects 16 and 17)
--
\set SHOW_CONTEXT never

-- 17: a deleted cell stays deleted through a major compaction when a
-- dropped earlier incarnation of its family has cells in that column
CREATE FUNCTION incarnations(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('TRUNCATE %s', tbl);
  IF EXISTS (SELECT FROM wide.families(tbl) WHERE family = 'f') THEN
    PERFORM wide.drop_family(tbl, 'f');
  END IF;
  PERFORM wide.create_family(tbl, 'f');
  EXECUTE format($q$INSERT INTO %s VALUES ('r', 'f', 'q', 5, 'old'), ('r', 'f', 'q2', 5, 'old')$q$, tbl);
  PERFORM wide.compact(tbl);
  PERFORM wide.drop_family(tbl, 'f');
  PERFORM wide.create_family(tbl, 'f');
  EXECUTE format($q$INSERT INTO %s VALUES ('r', 'f', 'q', 4, 'new'), ('r', 'f', 'q2', 4, 'keep')$q$, tbl);
  PERFORM wide.compact(tbl);
END
$$;
CREATE TABLE inc (row_key text, family text, qualifier text, ts int8, value text) USING wide;

SELECT incarnations('inc');
SELECT wide.delete_cells('inc', 'r'::text, 'f'::text, 'q'::text);
SELECT * FROM inc;
SELECT FROM wide.compact('inc', true);
SELECT * FROM inc;

SELECT incarnations('inc');
SELECT wide.delete_cells('inc', 'r'::text, 'f'::text, 'q'::text, 4::int8, 5::int8);
SELECT FROM wide.compact('inc', true);
SELECT * FROM inc;

SELECT incarnations('inc');
SELECT wide.delete_family('inc', 'r'::text, 'f'::text);
SELECT FROM wide.compact('inc', true);
SELECT * FROM inc;

SELECT incarnations('inc');
DELETE FROM inc WHERE qualifier = 'q';
SELECT FROM wide.compact('inc', true);
SELECT * FROM inc;

SELECT incarnations('inc');
SELECT wide.mutate_row('inc', 'r'::text,
  '[{"delete_from_column": {"family_name": "f", "column_qualifier": "q"}}]');
SELECT FROM wide.compact('inc', true);
SELECT * FROM inc;
-- the dropped incarnation's cells are gone too
SELECT cells FROM wide.stats('inc');

-- 16: maintenance inside a transaction applies only the committed catalog
CREATE TABLE fam (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('fam', 'f');
SELECT wide.create_family('fam', 'g', max_versions => 3);
INSERT INTO fam SELECT 'r' || i, 'f', 'q', 1, 'v' FROM generate_series(1, 5) i;
INSERT INTO fam SELECT 'r1', 'g', 'q', i, 'v' || i FROM generate_series(1, 3) i;
SELECT FROM wide.compact('fam', true);

-- drop, compact (major and not), roll back: the cells are all there
BEGIN;
SELECT wide.drop_family('fam', 'f');
SELECT count(*) FROM fam;
SELECT FROM wide.compact('fam', true);
ROLLBACK;
SELECT family, count(*) FROM fam GROUP BY 1 ORDER BY 1;

BEGIN;
SELECT wide.drop_family('fam', 'f');
INSERT INTO fam VALUES ('r9', 'g', 'q', 1, 'v');   -- something to flush
SELECT FROM wide.compact('fam');
ROLLBACK;
SELECT family, count(*) FROM fam GROUP BY 1 ORDER BY 1;

-- the same in a subtransaction rolled back to its savepoint
BEGIN;
SAVEPOINT s;
SELECT wide.drop_family('fam', 'f');
SELECT wide.create_family('fam', 'f');
SELECT wide.alter_family('fam', 'g', max_versions => 1);
SELECT FROM wide.compact('fam', true);
SELECT family, count(*) FROM fam GROUP BY 1 ORDER BY 1;
ROLLBACK TO SAVEPOINT s;
SELECT family, count(*) FROM fam GROUP BY 1 ORDER BY 1;
SELECT FROM wide.compact('fam', true);
COMMIT;
SELECT family, count(*) FROM fam GROUP BY 1 ORDER BY 1;

-- a lowered max_versions, with writes that flush by themselves
SET wide.flush_threshold = 16;
BEGIN;
SELECT wide.alter_family('fam', 'g', max_versions => 1);
INSERT INTO fam SELECT 'r1', 'g', 'q', i, repeat('x', 2000) FROM generate_series(4, 300) i;
SELECT count(*) FROM fam WHERE family = 'g';
ROLLBACK;
RESET wide.flush_threshold;
SELECT count(*) FROM fam WHERE family = 'g';
SELECT FROM wide.compact('fam', true);
SELECT count(*) FROM fam WHERE family = 'g';

-- a family created in the transaction keeps its cells through compaction
BEGIN;
SELECT wide.create_family('fam', 'h');
INSERT INTO fam VALUES ('r1', 'h', 'q', 1, 'new');
SELECT FROM wide.compact('fam', true);
SELECT * FROM fam WHERE family = 'h';
COMMIT;
SELECT * FROM fam WHERE family = 'h';

-- a policy our transaction relaxed: compaction inside it collects nothing
-- the transaction can still read (only what both policies collect)
CREATE TABLE gc (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('gc', 'g', max_versions => 2);
INSERT INTO gc SELECT 'r', 'g', 'q', i, 'v' || i FROM generate_series(1, 5) i;
SELECT count(*) FROM gc;
BEGIN;
SELECT wide.alter_family('gc', 'g', max_versions => 4);
SELECT count(*) FROM gc;
SELECT FROM wide.compact('gc', true);
SELECT count(*) FROM gc;
COMMIT;
SELECT count(*) FROM gc;
SELECT FROM wide.compact('gc', true);
SELECT cells FROM wide.stats('gc');
DROP TABLE gc;

-- committed DDL is applied: a committed drop is collected
SELECT wide.drop_family('fam', 'f');
SELECT FROM wide.compact('fam', true);
SELECT cells FROM wide.stats('fam');
SELECT family, count(*) FROM fam GROUP BY 1 ORDER BY 1;

DROP TABLE inc, fam;
DROP FUNCTION incarnations(regclass);
