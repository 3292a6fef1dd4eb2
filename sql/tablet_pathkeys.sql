--
-- tablet_pathkeys: a merge join of a LEFT JOIN with a parent of tablets,
-- the family in the ON clause.  A column equal to a constant below an outer
-- join is no redundant sort key, and the Wide Scan's order used to claim it
-- (row_key, family, ...); an ordered Append then sorted the tablet that is
-- not a wide table (here a heap partition; a remote tablet in
-- test/t/226_dist_stress.pl, which found it) by family, which its output does not
-- hold: "could not find pathkey item to sort".  A Wide Scan now keeps only
-- the sort keys a merge join or the query's order can use, as an index
-- scan does.
--
CREATE TABLE tp (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
CREATE TABLE tp_1 PARTITION OF tp FOR VALUES FROM (MINVALUE) TO ('m') USING wide;
CREATE TABLE tp_2 PARTITION OF tp FOR VALUES FROM ('m') TO (MAXVALUE);
SELECT wide.create_family('tp_1', 'f');
SELECT wide.create_family('tp_1', 'g');
INSERT INTO tp SELECT chr(97 + i % 26) || i, 'f', 'q', i, i FROM generate_series(1, 2000) i;
INSERT INTO tp SELECT chr(97 + i % 26) || i, 'g', 'q', i, i FROM generate_series(1, 2000, 7) i;
CREATE TABLE tpl (key text COLLATE "C" PRIMARY KEY);
INSERT INTO tpl SELECT chr(97 + i % 26) || i FROM generate_series(1, 3000) i;
ANALYZE tpl, tp_2;
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT count(*), count(tp.row_key) FROM tpl LEFT JOIN tp ON tp.row_key = tpl.key AND tp.family = 'f';
SELECT count(*), count(tp.row_key) FROM tpl LEFT JOIN tp ON tp.row_key = tpl.key AND tp.family = 'f';
SELECT count(*), count(tp.row_key) FROM tpl LEFT JOIN tp ON tp.row_key = tpl.key AND tp.family = 'g';
-- the keys per log row, as t/226 checks them
SELECT n, count(*) FROM (SELECT tpl.key, count(tp.row_key) n FROM tpl
                           LEFT JOIN tp ON tp.row_key = tpl.key AND tp.family = 'f'
                          GROUP BY tpl.key) x GROUP BY n ORDER BY n;
RESET enable_hashjoin;
RESET enable_nestloop;
-- the Wide Scan still gives the order a query asks for (no Sort over it)
EXPLAIN (COSTS OFF)
SELECT row_key, family FROM tp_1 WHERE family = 'f' ORDER BY row_key, family LIMIT 3;
SELECT row_key, family FROM tp_1 WHERE family = 'f' ORDER BY row_key, family LIMIT 3;
EXPLAIN (COSTS OFF)
SELECT row_key FROM tp_1 ORDER BY row_key DESC LIMIT 3;
SELECT row_key FROM tp_1 ORDER BY row_key DESC LIMIT 3;
DROP TABLE tp, tpl;

-- A forward path that add_path rejects is freed: its backward twin and its
-- partial twin are made from it before (a use after free crashed the
-- planner here, found by t/060 seed 20261123)
CREATE TABLE tpk_b (row_key bytea, family text, qualifier bytea, ts int8, value text) USING wide;
SELECT wide.create_family('tpk_b', 'f');
INSERT INTO tpk_b SELECT convert_to('k' || i, 'UTF8'), 'f', convert_to('q' || (i % 3), 'UTF8'), i, 'v'
  FROM generate_series(1, 2000) i;
INSERT INTO tpk_b VALUES (decode(repeat('78', 62), 'hex'), 'f', 'q', 1, 'x');
SELECT FROM wide.compact('tpk_b', major => true);
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT * FROM tpk_b a WHERE a.row_key <= NULL::bytea AND a.row_key = ANY(ARRAY[decode(repeat('78', 62), 'hex')])
 ORDER BY row_key DESC, family DESC, qualifier DESC, ts ASC;
SELECT count(*) FROM tpk_b a WHERE a.row_key = ANY(ARRAY[decode(repeat('78', 62), 'hex')]);
RESET enable_indexscan;
RESET enable_bitmapscan;
DROP TABLE tpk_b;
