--
-- tablet_truncate: TRUNCATE of the parent or the tablet while a split is
-- open is refused; DETACH, a replacement table of the same name, or DROP
-- of the tablet make the swap fail and resume_tablet_ops roll it back.
-- A move between nodes: test/t/223_tablet_edges.pl
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
-- operation ids (in messages) from 3001 on, whatever ran before
SELECT setval(pg_get_serial_sequence('wide.tablet_ops', 'id'), 3000) > 0 AS ids;

-- 3. TRUNCATE between the copy and the swap is refused (of the parent and
-- of the tablet); the cells stay, and the operation finishes
CREATE TABLE tt (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('tt', 'm');
SELECT count(*) FROM wide.create_tablets('tt', ARRAY['m'], ARRAY['local', 'local']);
INSERT INTO tt SELECT chr(97 + i % 26) || i, 'm', 'q', 1, i FROM generate_series(1, 500) i;
SELECT wide._tablet_op_begin('split', 'tt', 'tt_2', 't', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
TRUNCATE tt;
TRUNCATE tt_2;
SELECT count(*) FROM tt;
CALL wide.resume_tablet_ops();
SELECT step FROM wide.tablet_ops WHERE id = tg_op();
SELECT * FROM tg_tablets('tt');
-- the guard goes with the operation
SELECT c.relname AS tt_new FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'tt'::regclass AND pg_get_expr(c.relpartbound, c.oid) LIKE '%TO (MAXVALUE)' \gset
TRUNCATE :"tt_new";
SELECT count(*) FROM pg_trigger WHERE tgname = 'wide_tablet_op_guard';
-- DETACH of the tablet after the copy: the operation cannot swap; resume
-- rolls it back and the detached table keeps its cells
SELECT wide._tablet_op_begin('split', 'tt', 'tt_1', 'f', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
ALTER TABLE tt DETACH PARTITION tt_1;
INSERT INTO tt_1 VALUES ('a_new', 'm', 'q', 1, 1);
CALL wide.resume_tablet_ops();
SELECT step FROM wide.tablet_ops WHERE id = tg_op();
SELECT count(*) FROM tt_1;
SELECT (SELECT count(*) FROM pg_constraint WHERE conname = 'wide_tablet_tracked') AS marks,
       (SELECT count(*) FROM pg_trigger WHERE tgname = 'wide_tablet_op_guard') AS guards;
-- a table of the same name attached in its place is not the one copied
ALTER TABLE tt ATTACH PARTITION tt_1 FOR VALUES FROM (MINVALUE) TO ('m');
SELECT wide._tablet_op_begin('split', 'tt', 'tt_1', 'f', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
ALTER TABLE tt DETACH PARTITION tt_1;
ALTER TABLE tt_1 RENAME TO tt_1_old;
CREATE TABLE tt_1 PARTITION OF tt FOR VALUES FROM (MINVALUE) TO ('m') USING wide;
SELECT wide._tablet_op_finish(tg_op()) IS NOT NULL AS swapped;
CALL wide.resume_tablet_ops();
SELECT step FROM wide.tablet_ops WHERE id = tg_op();
SELECT * FROM tg_tablets('tt');
SELECT (SELECT count(*) FROM pg_constraint WHERE conname = 'wide_tablet_tracked') AS marks,
       (SELECT count(*) FROM pg_trigger WHERE tgname = 'wide_tablet_op_guard') AS guards;
-- DROP of the tablet after the copy: rolled back as well
DROP TABLE tt_1;
ALTER TABLE tt_1_old RENAME TO tt_1;
ALTER TABLE tt ATTACH PARTITION tt_1 FOR VALUES FROM (MINVALUE) TO ('m');
SELECT wide._tablet_op_begin('split', 'tt', 'tt_1', 'f', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
DROP TABLE tt_1;
CALL wide.resume_tablet_ops();
SELECT step FROM wide.tablet_ops WHERE id = tg_op();
SELECT * FROM tg_tablets('tt');
SELECT count(*) AS leftovers FROM pg_class WHERE relname ~ '^tt_[0-9]+[a-z]$'
   AND oid NOT IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'tt'::regclass);

-- a rewrite of the parent after the copy (ALTER COLUMN ... TYPE): the new
-- tables keep the old type and cannot be attached; rolled back too
SELECT c.relname AS tt_mid FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'tt'::regclass AND pg_get_expr(c.relpartbound, c.oid) LIKE '%TO (''t'')' \gset
SELECT wide._tablet_op_begin('split', 'tt', :'tt_mid', 'p', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
ALTER TABLE tt ALTER COLUMN value TYPE numeric;
CALL wide.resume_tablet_ops();
SELECT step FROM wide.tablet_ops WHERE id = tg_op();
SELECT * FROM tg_tablets('tt');
SELECT count(*) AS leftovers FROM pg_class WHERE relname ~ '^tt_[0-9]+[a-z]$'
   AND oid NOT IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'tt'::regclass);

SELECT count(*) AS open_ops FROM wide.tablet_ops WHERE step IN ('created', 'copied', 'swapped');
DROP TABLE tt;
DROP FUNCTION tg_op(), tg_tablets(regclass), tg_found(regclass, text);
