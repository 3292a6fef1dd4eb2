--
-- tablet_json: a split of a table with a json value column, with cells
-- added, replaced and deleted between its copy and its swap: the catch-up
-- matches cells by coordinates and values by binary image (EXCEPT needed
-- an equality operator on json)
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE FUNCTION tg_tablets(p regclass) RETURNS TABLE (tablet text, bound text, cells bigint)
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.oid, c.relname, pg_get_expr(c.relpartbound, c.oid) b
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = p ORDER BY pg_get_expr(c.relpartbound, c.oid) LIKE '%FROM (MINVALUE)%' DESC, pg_get_expr(c.relpartbound, c.oid) COLLATE "C" LOOP
    tablet := regexp_replace(r.relname, '_[0-9]+([a-z])$', '_N\1'); bound := r.b;
    EXECUTE format('SELECT count(*) FROM %s', r.oid::regclass) INTO cells;
    RETURN NEXT;
  END LOOP;
END $$;
CREATE FUNCTION tg_found(p regclass, k text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN  -- through the parent, pruned by a literal to the tablet that should hold k
  EXECUTE format('SELECT count(*) FROM %s WHERE row_key = %L', p, k) INTO n;
  RETURN n;
END $$;
SELECT wide._tablet_ops_tables();
CREATE FUNCTION tg_op() RETURNS bigint LANGUAGE sql AS $$ SELECT max(id) FROM wide.tablet_ops $$;
-- operation ids (in messages) from 1001 on, whatever ran before
SELECT setval(pg_get_serial_sequence('wide.tablet_ops', 'id'), 1000) > 0 AS ids;

-- 1. json values: cells added, replaced and deleted between the copy and
-- the swap are caught up (EXCEPT would need equality on json)
CREATE TABLE tj (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value json)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('tj', 'd');
SELECT count(*) FROM wide.create_tablets('tj', ARRAY['m'], ARRAY['local', 'local']);
CREATE TABLE tj_ref (row_key text, family text, qualifier text, ts int8, value json);
INSERT INTO tj SELECT chr(97 + i % 26) || i, 'd', 'q', 1, json_build_object('i', i, 'pad', repeat('x', i % 7))
  FROM generate_series(1, 400) i;
INSERT INTO tj_ref SELECT * FROM tj;
SELECT wide._tablet_op_begin('split', 'tj', 'tj_2', 't', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
INSERT INTO tj VALUES ('q_new', 'd', 'q', 1, '{"new": true}'), ('r17', 'd', 'q', 1, '{"i":  17}'),
                      ('s18', 'd', 'q', 2, '[1, 2]');
INSERT INTO tj_ref VALUES ('q_new', 'd', 'q', 1, '{"new": true}'), ('s18', 'd', 'q', 2, '[1, 2]');
UPDATE tj_ref SET value = '{"i":  17}' WHERE row_key = 'r17';
SELECT wide.delete_row('tj', 'x23');
DELETE FROM tj_ref WHERE row_key = 'x23';
CALL wide.resume_tablet_ops();
SELECT step, delta_cells FROM wide.tablet_ops WHERE id = tg_op();
SELECT (SELECT count(*) FROM (SELECT row_key, family, qualifier, ts, value::text FROM tj
                              EXCEPT SELECT row_key, family, qualifier, ts, value::text FROM tj_ref) d) +
       (SELECT count(*) FROM (SELECT row_key, family, qualifier, ts, value::text FROM tj_ref
                              EXCEPT SELECT row_key, family, qualifier, ts, value::text FROM tj) d) AS differences,
       (SELECT count(*) FROM tj) = (SELECT count(*) FROM tj_ref) AS same_count;
SELECT * FROM tg_tablets('tj');


-- a point value (no equality operator either): a replaced value is caught up
CREATE TABLE tpt (row_key text COLLATE "C", family text COLLATE "C",
                  qualifier text COLLATE "C", ts int8, value point)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('tpt', 'd');
SELECT count(*) FROM wide.create_tablets('tpt', '{}', ARRAY['local']);
INSERT INTO tpt SELECT 'k' || i, 'd', 'q', 1, point(i, -i) FROM generate_series(1, 50) i;
SELECT wide._tablet_op_begin('split', 'tpt', 'tpt_1', 'k3', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
INSERT INTO tpt VALUES ('k40', 'd', 'q', 1, point(0.5, 0.25)), ('k41', 'd', 'q', 7, point(1, 1));
CALL wide.resume_tablet_ops();
SELECT step, delta_cells FROM wide.tablet_ops WHERE id = tg_op();
SELECT regexp_replace(tableoid::regclass::text, '_[0-9]+([a-z])$', '_N\1') AS tablet, row_key, ts, value FROM tpt WHERE row_key IN ('k40', 'k41', 'k1') ORDER BY 2, 3;
SELECT * FROM tg_tablets('tpt');

SELECT count(*) AS open_ops FROM wide.tablet_ops WHERE step IN ('created', 'copied', 'swapped');
DROP TABLE tj, tj_ref, tpt;
DROP FUNCTION tg_op(), tg_tablets(regclass), tg_found(regclass, text);
