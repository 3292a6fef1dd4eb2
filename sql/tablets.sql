--
-- tablets: a wide table split into tablets, PARTITION BY RANGE (row_key)
-- with wide partitions.  Scans of the parent use the Wide Scan of each
-- partition (pruned, in key order for ORDER BY row_key); family DDL on the
-- parent applies to every partition; the data API takes the parent and
-- routes by key.  Results are compared with a heap table holding the same
-- cells.
--
\set SHOW_CONTEXT never
CREATE TABLE tp (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
CREATE TABLE tp_a PARTITION OF tp FOR VALUES FROM (MINVALUE) TO ('h') USING wide;
CREATE TABLE tp_h PARTITION OF tp FOR VALUES FROM ('h') TO ('p') USING wide;
-- a tablet split again
CREATE TABLE tp_p PARTITION OF tp FOR VALUES FROM ('p') TO (MAXVALUE)
  PARTITION BY RANGE (row_key);
CREATE TABLE tp_p1 PARTITION OF tp_p FOR VALUES FROM ('p') TO ('t') USING wide;
CREATE TABLE tp_p2 PARTITION OF tp_p FOR VALUES FROM ('t') TO (MAXVALUE) USING wide;
CREATE TABLE th (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8);

-- families: on the parent, for every partition, all or nothing
SELECT wide.create_family('tp', 'm', max_versions => 2);
SELECT wide.create_family('tp', 'n');
SELECT c.relname, f.family, f.max_versions
  FROM pg_class c, wide.families(c.oid) f
 WHERE c.relname LIKE 'tp%' ORDER BY 1, 2;
-- a partition that already has the family: nothing changes anywhere
SELECT wide.create_family('tp_h', 'x');
SELECT wide.create_family('tp', 'x');
SELECT c.relname, count(*) FILTER (WHERE f.family = 'x') AS has_x
  FROM pg_class c, wide.families(c.oid) f
 WHERE c.relname LIKE 'tp%' GROUP BY 1 ORDER BY 1;
SELECT wide.drop_family('tp_h', 'x');
SELECT wide.alter_family('tp', 'm', max_versions => 3);
SELECT c.relname, f.max_versions FROM pg_class c, wide.families(c.oid) f
 WHERE c.relname LIKE 'tp%' AND f.family = 'm' ORDER BY 1;
-- a partition created later has the parent's families
CREATE TABLE tp_late PARTITION OF tp_p FOR VALUES FROM (MINVALUE) TO ('p') USING wide;
SELECT family, max_versions FROM wide.families('tp_late');
DROP TABLE tp_late;

-- cells through the parent, and the same in the heap
INSERT INTO tp SELECT k, 'm', 'q' || (i % 3), i / 10, i
  FROM generate_series(1, 600) i,
       LATERAL (SELECT chr(ascii('a') + i % 26) || lpad((i % 37)::text, 3, '0') AS k) s;
INSERT INTO th SELECT * FROM tp;
SELECT tableoid::regclass, count(*) FROM tp GROUP BY 1 ORDER BY 1;
SELECT tableoid::regclass, row_key FROM tp WHERE row_key IN ('a001', 'z034') ORDER BY 2;

-- scans: Wide Scans of the partitions, pruned, ordered
CREATE FUNCTION tp_check(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	w text;
	h text;
BEGIN
	EXECUTE 'SELECT md5(string_agg(concat_ws(''/'', row_key, qualifier, ts, value), '','' ORDER BY row_key, qualifier, ts DESC)) FROM (SELECT * FROM tp ' || cond || ') s' INTO w;
	EXECUTE 'SELECT md5(string_agg(concat_ws(''/'', row_key, qualifier, ts, value), '','' ORDER BY row_key, qualifier, ts DESC)) FROM (SELECT * FROM th ' || cond || ') s' INTO h;
	RETURN CASE WHEN w IS NOT DISTINCT FROM h THEN 'same' ELSE 'MISMATCH' END;
END
$$;
EXPLAIN (COSTS OFF) SELECT * FROM tp WHERE row_key = 'k012';
EXPLAIN (COSTS OFF) SELECT * FROM tp WHERE row_key >= 'g' AND row_key < 'q';
EXPLAIN (COSTS OFF) SELECT * FROM tp ORDER BY row_key LIMIT 5;
EXPLAIN (COSTS OFF) SELECT * FROM tp ORDER BY row_key DESC LIMIT 5;
SELECT row_key, qualifier, ts FROM tp ORDER BY row_key DESC, qualifier DESC LIMIT 3;
SELECT tp_check('WHERE row_key = ''k012''');
SELECT tp_check('WHERE row_key >= ''g'' AND row_key < ''q''');
SELECT tp_check('WHERE row_key LIKE ''h%''');
SELECT tp_check('WHERE starts_with(row_key, ''t0'')');
SELECT tp_check('ORDER BY row_key DESC LIMIT 40');
SELECT tp_check('WHERE ts > 50');
SELECT tp_check('');

-- the data API takes the parent and routes by key
SELECT wide.set_cell('tp', 'h100', 'n', 'c', 7, 1);
SELECT wide.mutate_row('tp', 'z999', '[{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 9}}]');
SELECT wide.mutate_rows('tp', '[{"row_key": "a1", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]},
                               {"row_key": "q1", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 2}}]},
                               {"row_key": "b1", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 3}}]}]');
SELECT tableoid::regclass, row_key, value FROM tp WHERE family = 'n' ORDER BY row_key;
SELECT wide.check_and_mutate_row('tp', 'q1', NULL,
  '[{"set_cell": {"family_name": "n", "column_qualifier": "d", "timestamp_micros": 1, "value": 20}}]');
SELECT row_key, qualifier, value FROM wide.read_row(NULL::tp, 'q1');
SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::tp, 'q1', 'n', 'd', increment => 5);
SELECT wide.delete_row('tp', 'a1');
SELECT wide.delete_cells('tp', 'b1', 'n', 'c');
SELECT count(*) FROM tp WHERE row_key IN ('a1', 'b1');
-- no tablet holds the key: refused, as an INSERT is, nothing written
CREATE TABLE tq (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
CREATE TABLE tq_1 PARTITION OF tq FOR VALUES FROM ('a') TO ('m') USING wide;
SELECT wide.create_family('tq', 'f');
SELECT wide.set_cell('tq', 'zz', 'f', 'c', 1, 1);
SELECT wide.mutate_rows('tq', '[{"row_key": "b", "mutations": [{"set_cell": {"family_name": "f", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]},
                               {"row_key": "zz", "mutations": [{"set_cell": {"family_name": "f", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]}]');
INSERT INTO tq VALUES ('zz', 'f', 'c', 1, 1);
SELECT count(*) FROM tq;
SELECT * FROM wide.read_row(NULL::tq, 'zz');

-- read_rows over the tablets, in key order, the limit counting them all
DELETE FROM th;
INSERT INTO th SELECT * FROM tp;
SELECT (SELECT md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ','))
          FROM wide.read_rows(NULL::tp)) =
       (SELECT md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ','
                              ORDER BY row_key, family, qualifier, ts DESC))
          FROM (SELECT *, row_number() OVER (PARTITION BY row_key, family, qualifier ORDER BY ts DESC) v
                  FROM th) s WHERE v <= 3 OR family <> 'm') AS read_rows_equal_heap;
SELECT count(DISTINCT row_key), min(row_key), max(row_key)
  FROM wide.read_rows(NULL::tp, start_key => 'g034', end_key => 'p002');
-- rows in the order read_rows returns them, against the heap's
CREATE FUNCTION rr_keys(start_key text, end_key text, lim int, rev bool) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(k, ',' ORDER BY n) FROM (
    SELECT row_key AS k, min(ord) AS n
      FROM wide.read_rows(NULL::tp, start_key => start_key, end_key => end_key,
                          "limit" => lim, reversed => rev) WITH ORDINALITY AS r(row_key, family, qualifier, ts, value, ord)
     GROUP BY row_key) s
$$;
CREATE FUNCTION heap_keys(start_key text, end_key text, lim int) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(k, ',' ORDER BY k)
    FROM (SELECT DISTINCT row_key AS k FROM th
           WHERE row_key >= start_key AND (end_key IS NULL OR row_key < end_key)
           ORDER BY 1 LIMIT lim) s
$$;
SELECT rr_keys('f', NULL, 30, false) = heap_keys('f', NULL, 30) AS forward_limit_30;
SELECT rr_keys('g030', 'q', 200, false) = heap_keys('g030', 'q', 200) AS forward_limit_200;
SELECT rr_keys('o', 'r', 4, true) AS reversed_limit_4,
       (SELECT string_agg(k, ',' ORDER BY k DESC) FROM
          (SELECT DISTINCT row_key AS k FROM th WHERE row_key >= 'o' AND row_key < 'r'
            ORDER BY 1 DESC LIMIT 4) s) AS heap;
SELECT rr_keys(NULL, NULL, 5, true) AS reversed_all_5;
SELECT string_agg(DISTINCT row_key, ',') FROM wide.read_rows(NULL::tp, prefix => 's00');
SELECT string_agg(DISTINCT row_key, ',') FROM wide.read_rows(NULL::tp, keys => ARRAY['a001', 'k012', 'z999', 'nope']);
DROP FUNCTION rr_keys, heap_keys;
-- sample_row_keys: every tablet's samples, offsets growing, the empty key last
SELECT count(*) > 0 AS some,
       bool_and(offset_bytes > 0) AS positive,
       (array_agg(row_key ORDER BY offset_bytes DESC))[1] = '\x' AS empty_last
  FROM wide.sample_row_keys('tp');
SELECT FROM wide.compact('tp', true);
SELECT tp_check('');

-- privileges and row-level security are the parent's
CREATE ROLE regress_tablet_reader;
GRANT SELECT ON tp TO regress_tablet_reader;
SET ROLE regress_tablet_reader;
SELECT count(*) FROM wide.read_rows(NULL::tp, prefix => 'k');
SELECT count(*) FROM wide.read_row(NULL::tp, 'k012');
SELECT count(*) FROM tp_a;
SELECT wide.set_cell('tp', 'h100', 'n', 'c', 7, 1);
RESET ROLE;
-- a read with limit 0 is checked too, as an SRF (WITH ORDINALITY) and as a
-- scan, on the parent and on a tablet
CREATE ROLE regress_tablet_nobody;
SET ROLE regress_tablet_nobody;
SELECT * FROM wide.read_rows(NULL::tp, "limit" => 0) WITH ORDINALITY;
SELECT * FROM wide.read_rows(NULL::tp_a, "limit" => 0) WITH ORDINALITY;
SELECT * FROM wide.read_rows(NULL::tp_a, "limit" => 0);
SELECT * FROM wide.read_rows_labeled(NULL::tp, "limit" => 0) WITH ORDINALITY;
RESET ROLE;
SELECT * FROM wide.read_rows(NULL::tp, "limit" => 0, filter => '{"no_such_filter": true}') WITH ORDINALITY;
DROP ROLE regress_tablet_nobody;
ALTER TABLE tp ENABLE ROW LEVEL SECURITY;
CREATE POLICY none ON tp USING (false);
SET ROLE regress_tablet_reader;
SELECT count(*) FROM wide.read_rows(NULL::tp);
RESET ROLE;
DROP POLICY none ON tp;
ALTER TABLE tp DISABLE ROW LEVEL SECURITY;

-- partitionings that are not tablets
CREATE TABLE tl (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY LIST (family);
CREATE TABLE tl_f PARTITION OF tl FOR VALUES IN ('f') USING wide;
SELECT wide.set_cell('tl', 'a', 'f', 'c', 1, 1);
SELECT * FROM wide.read_rows(NULL::tl);
CREATE TABLE td PARTITION OF tq DEFAULT USING wide;
SELECT * FROM wide.read_rows(NULL::tq);
SELECT count(*) FROM wide.read_row(NULL::tq, 'zz');

DROP TABLE tp, th, tq, tl;
DROP FUNCTION tp_check(text);
DROP ROLE regress_tablet_reader;
