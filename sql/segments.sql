--
-- segments: flush, compaction, key-range reads, GC and deletes in segments
--
\set SHOW_CONTEXT never
CREATE TABLE t (row_key text, family text, qualifier text, ts timestamptz,
                value text) USING wide;
SELECT wide.create_family('t', 'a');
SELECT wide.create_family('t', 'v', max_versions => 2);
SELECT wide.create_family('t', 'old', max_age => '1 day');

-- bytewise order survives a flush: odd keys, some in segments, some not
INSERT INTO t VALUES ('b', 'a', 'q', '2030-01-01', 'lower b'),
  ('B', 'a', 'q', '2030-01-01', 'upper B'), ('a#2', 'a', 'q', '2030-01-01', 'a#2'),
  ('a#10', 'a', 'q', '2030-01-01', 'a#10'), ('a', 'a', 'q', '2030-01-01', 'a'),
  ('ä', 'a', 'q', '2030-01-01', 'a umlaut');
SELECT FROM wide.compact('t');
INSERT INTO t VALUES ('a1', 'a', 'q', '2030-01-01', 'a1'), ('~', 'a', 'q', '2030-01-01', 'tilde'),
  ('Z', 'a', 'q', '2030-01-01', 'upper Z'), (' ', 'a', 'q', '2030-01-01', 'space'),
  ('a', 'a', '', '2030-01-01', 'empty qualifier');
SELECT row_key, qualifier, value FROM t;
SELECT FROM wide.compact('t');
SELECT row_key, qualifier, value FROM t;
SELECT runs, cells FROM wide.stats('t');

-- a write to existing coordinates replaces the cell across runs
INSERT INTO t VALUES ('a', 'a', 'q', '2030-01-01', 'a rewritten');
SELECT value FROM t WHERE row_key = 'a' AND qualifier = 'q';
SELECT FROM wide.compact('t');
SELECT value FROM t WHERE row_key = 'a' AND qualifier = 'q';
SELECT FROM wide.compact('t', major => true);
SELECT value FROM t WHERE row_key = 'a' AND qualifier = 'q';
SELECT runs, cells FROM wide.stats('t');

-- GC at flush and compaction: collected cells are removed physically
INSERT INTO t SELECT 'gc', 'v', 'q', '2030-01-01'::timestamptz + i * interval '1 hour', 'v' || i
  FROM generate_series(1, 5) i;
INSERT INTO t VALUES ('gc', 'old', 'q', now() - interval '2 days', 'expired'),
                     ('gc', 'old', 'q', now() - interval '1 hour', 'fresh');
SELECT family, value FROM t WHERE row_key = 'gc';
SELECT cells AS before FROM wide.stats('t');
SELECT FROM wide.compact('t');
SELECT family, value FROM t WHERE row_key = 'gc';
SELECT sum(cells) AS stored_after FROM wide.runs('t');

-- deletes: applied across the write area and the runs, in write order;
-- tombstones stay until a compaction reaches the oldest run (keep minor
-- compactions from merging here)
SET wide.compaction_ratio = 1;
SELECT wide.set_cell('t', 'd', 'a', 'q', 'd1', '2030-01-01');
SELECT wide.set_cell('t', 'd', 'a', 'r', 'd2', '2030-01-01');
SELECT FROM wide.compact('t');
SELECT wide.delete_cells('t', 'd', 'a', 'q');
SELECT wide.set_cell('t', 'd', 'a', 'q', 'older ts, written later', '2020-01-01');
SELECT qualifier, value FROM t WHERE row_key = 'd';
SELECT FROM wide.compact('t');
SELECT qualifier, value FROM t WHERE row_key = 'd';
SELECT bool_or(has_tombstones) AS tombstones_kept FROM wide.runs('t');
RESET wide.compaction_ratio;
SELECT FROM wide.compact('t', major => true);
SELECT qualifier, value FROM t WHERE row_key = 'd';
SELECT bool_or(has_tombstones) AS tombstones_kept FROM wide.runs('t');

-- key-range reads: the same answers as a heap copy, without scanning
CREATE TABLE keys AS SELECT 'k#' || lpad(i::text, 4, '0') AS k FROM generate_series(1, 2000) i;
INSERT INTO t SELECT k, 'a', 'q' || j, '2030-01-01', k || '/' || j FROM keys, generate_series(1, 3) j;
SELECT FROM wide.compact('t');
INSERT INTO t SELECT k, 'a', 'q4', '2030-01-01', k || '/4' FROM keys WHERE k LIKE 'k#1%';
CREATE TABLE h AS SELECT * FROM t;
SELECT count(*) FROM h;
CREATE FUNCTION same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE n int;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((SELECT * FROM t WHERE %s EXCEPT ALL SELECT * FROM h WHERE %s)
                  UNION ALL (SELECT * FROM h WHERE %s EXCEPT ALL SELECT * FROM t WHERE %s)) d',
                 q, q, q, q) INTO n;
  RETURN n = 0;
END $$;
SELECT q, same(q) FROM (VALUES
  ('row_key = ''k#0042'''),
  ('row_key = ''nope'''),
  ('row_key >= ''k#0100'' AND row_key < ''k#0200'''),
  ('row_key > ''k#0100'' AND row_key <= ''k#0200'''),
  ('row_key BETWEEN ''k#1990'' AND ''k#9'''),
  ('row_key < ''a'''),
  ('row_key > ''k#1998'''),
  ('row_key LIKE ''k#12%'''),
  ('row_key LIKE ''k#1_3%'''),
  ('row_key LIKE ''%3'''),
  ('row_key IN (''k#0001'', ''k#1000'', ''k#1999'', ''zz'', ''k#0001'')'),
  ('row_key = ANY (ARRAY[''k#0005'', ''k#0006'']) AND row_key > ''k#0005'''),
  ('row_key >= ''k#0100'' AND row_key < ''k#0100'''),
  ('row_key = ''k#0042'' AND row_key = ''k#0043'''),
  ('row_key > ''k#05'' AND qualifier = ''q2'' AND value LIKE ''%5/2''')
) v(q);
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE row_key >= 'k#0100' AND row_key < 'k#0200';
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE row_key LIKE 'k#12%' ORDER BY row_key, family, qualifier, ts DESC;
EXPLAIN (COSTS OFF) SELECT * FROM t ORDER BY row_key LIMIT 5;
SELECT row_key, qualifier, value FROM t WHERE row_key LIKE 'k#12%' ORDER BY row_key, family, qualifier, ts DESC LIMIT 5;
-- a point read opens only the blocks that can hold the row: one per run
-- whose row filter lets it through
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM t WHERE row_key = 'k#0042';
PREPARE pt(text) AS SELECT value FROM t WHERE row_key = $1 AND qualifier = 'q1';
EXECUTE pt('k#0042');
EXECUTE pt('k#1999');
-- a NULL bound matches nothing
EXECUTE pt(NULL);

-- large values move with their cells through flush and compaction
INSERT INTO t VALUES ('big', 'a', 'q', '2030-01-01', repeat('x', 100000)),
                     ('big', 'a', 'r', '2030-01-01', repeat('y', 3000));
SELECT FROM wide.compact('t');
SELECT qualifier, length(value) FROM t WHERE row_key = 'big';
SELECT wide.delete_cells('t', 'big', 'a', 'r');
SELECT FROM wide.compact('t', major => true);
SELECT qualifier, length(value) FROM t WHERE row_key = 'big';

-- aggregates fold across runs
CREATE TABLE c (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('c', 'n', aggregate => 'sum');
INSERT INTO c SELECT 'hits', 'n', 'x', 1000, 1 FROM generate_series(1, 100);
SELECT FROM wide.compact('c');
INSERT INTO c SELECT 'hits', 'n', 'x', 1000, 1 FROM generate_series(1, 50);
SELECT value FROM c;
SELECT FROM wide.compact('c', major => true);
SELECT value FROM c;
SELECT cells FROM wide.stats('c');
SELECT wide.delete_row('c', 'hits');
INSERT INTO c VALUES ('hits', 'n', 'x', 1000, 7);
SELECT FROM wide.compact('c');
SELECT value FROM c;

-- the table checks out
SELECT * FROM wide.verify('t');
SELECT * FROM wide.verify('c');

-- ANALYZE counts the cells (VACUUM (FREEZE) is test/t/008_vacuum_freeze.pl:
-- whether relfrozenxid advances depends on the other sessions of the server)
ANALYZE t;
SELECT reltuples >= (SELECT count(*) FROM t) AS counted FROM pg_class WHERE oid = 't'::regclass;

DROP TABLE t, h, keys, c;
DROP FUNCTION same(text);

-- a cell of the empty qualifier right after a delete of its family, in a
-- run above an older one (so the tombstone stays in the run): the block
-- writer took '' for "the same qualifier" and wrote a block no reader
-- accepted ("bad data block")
CREATE TABLE eq (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('eq', 'f');
INSERT INTO eq VALUES ('r', 'f', '', 1, 1), ('s', 'f', 'q', 1, 1);
SELECT FROM wide.compact('eq');
SELECT wide.delete_family('eq', 'r', 'f');
INSERT INTO eq VALUES ('r', 'f', '', 2, 2), ('r', 'f', 'q', 2, 3);
SELECT FROM wide.compact('eq');
SELECT run, cells, has_tombstones FROM wide.runs('eq');
SELECT * FROM wide.read_row(NULL::eq, 'r');
SELECT * FROM eq WHERE row_key >= 'r';
SELECT * FROM wide.verify('eq');
DROP TABLE eq;
