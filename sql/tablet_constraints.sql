--
-- tablet_constraints: a split or move of a parent with NOT NULL and CHECK
-- constraints: the new tablets get them; a swap that cannot succeed (a
-- constraint added after the copy) is rolled back by resume_tablet_ops
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
-- operation ids (in messages) from 2001 on, whatever ran before
SELECT setval(pg_get_serial_sequence('wide.tablet_ops', 'id'), 2000) > 0 AS ids;

-- 2. NOT NULL and CHECK constraints of the parent: the new tablets have
-- them, and still refuse what the parent refuses
CREATE TABLE tc (row_key text COLLATE "C" NOT NULL, family text COLLATE "C" NOT NULL,
                 qualifier text COLLATE "C", ts int8 NOT NULL CHECK (ts >= 0), value int8 NOT NULL,
                 CONSTRAINT tc_small CHECK (value < 1000000))
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('tc', 'm');
SELECT count(*) FROM wide.create_tablets('tc', ARRAY['m'], ARRAY['local', 'local']);
INSERT INTO tc SELECT chr(97 + i % 26) || i, 'm', 'q', i % 3, i FROM generate_series(1, 300) i;
CALL wide.split_tablet('tc', 'tc_2', 't');
SELECT op, step FROM wide.tablet_ops WHERE id = tg_op();
SELECT * FROM tg_tablets('tc');
SELECT regexp_replace(conrelid::regclass::text, '_[0-9]+([a-z])$', '_N\1') AS tablet, conname, pg_get_constraintdef(oid) FROM pg_constraint
 WHERE conrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'tc'::regclass)
 ORDER BY 1, 2;
SELECT regexp_replace(attrelid::regclass::text, '_[0-9]+([a-z])$', '_N\1') AS tablet, string_agg(attname, ',' ORDER BY attnum) AS not_null FROM pg_attribute
 WHERE attrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'tc'::regclass) AND attnotnull AND attnum > 0
 GROUP BY 1 ORDER BY 1;
CREATE FUNCTION tg_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE c text; col text;
BEGIN
  EXECUTE q;
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS c = CONSTRAINT_NAME, col = COLUMN_NAME;
  RETURN SQLSTATE || ' ' || coalesce(nullif(c, ''), col);
END $$;
SELECT tg_try($$INSERT INTO tc VALUES ('u1', 'm', 'q', -1, 1)$$),
       tg_try($$INSERT INTO tc VALUES ('u1', 'm', 'q', 1, NULL)$$),
       tg_try($$INSERT INTO tc VALUES ('u1', 'm', 'q', 1, 1000000)$$),
       tg_try($$INSERT INTO tc VALUES ('u1', 'm', 'q', 1, 1)$$);
DELETE FROM tc WHERE row_key = 'u1';
-- a constraint added to the parent after the copy: the swap cannot attach
-- the new tables; resume rolls the split back, leaving nothing behind
SELECT wide._tablet_op_begin('split', 'tc', 'tc_1', 'f', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
ALTER TABLE tc ADD CONSTRAINT tc_later CHECK (value > 0);
CALL wide.resume_tablet_ops();
SELECT step FROM wide.tablet_ops WHERE id = tg_op();
SELECT * FROM tg_tablets('tc');
SELECT count(*) AS leftovers FROM pg_class WHERE relname ~ '^tc_[0-9]+[a-z]$'
   AND oid NOT IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'tc'::regclass);
SELECT count(*) AS marks FROM pg_constraint WHERE conname = 'wide_tablet_tracked';
-- and the parent takes further operations
CALL wide.split_tablet('tc', 'tc_1', 'f');
SELECT * FROM tg_tablets('tc');
SELECT count(*) FROM tc;

SELECT count(*) AS open_ops FROM wide.tablet_ops WHERE step IN ('created', 'copied', 'swapped');
DROP TABLE tc;
DROP FUNCTION tg_try(text);
DROP FUNCTION tg_op(), tg_tablets(regclass), tg_found(regclass, text);
