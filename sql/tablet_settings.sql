--
-- tablet_settings: bounds holding backslashes and quotes (text and bytea
-- row keys) under any session settings, in the session that starts an
-- operation and in the one that resumes it.  The node's settings and a
-- node in another encoding: test/t/223_tablet_edges.pl
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
-- operation ids (in messages) from 4001 on, whatever ran before
SELECT setval(pg_get_serial_sequence('wide.tablet_ops', 'id'), 4000) > 0 AS ids;

-- 4. bounds with backslashes and quotes, whatever the settings of the
-- session that starts an operation and of the one that resumes it
CREATE TABLE ts (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts timestamptz, value float8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('ts', 'm');
SELECT count(*) FROM wide.create_tablets('ts', ARRAY[E'b\\x', E'd''\\'], ARRAY['local', 'local', 'local']);
INSERT INTO ts SELECT k, 'm', 'q', '2020-01-01 00:00:00+00'::timestamptz + i * interval '1 hour', 0.1 * i
  FROM unnest(ARRAY['a', E'b\\', E'b\\x', E'b\\x\\', 'b\x', 'c''', E'c\\''', E'd''', E'd''\\', E'd''\\\\', 'e', E'z\\', 'é', E'é\\''']) k,
       generate_series(1, 3) i;
CREATE TABLE ts_ref AS SELECT row_key, ts, value FROM ts;
SELECT * FROM tg_tablets('ts');
SET standard_conforming_strings = off;
SET escape_string_warning = off;
CALL wide.split_tablet('ts', 'ts_2', E'c\\''');
RESET standard_conforming_strings;
SELECT * FROM tg_tablets('ts');
SELECT count(*) FROM ts;
-- begun under one set of settings, resumed under another
SET standard_conforming_strings = off;
SET bytea_output = escape;
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = sql_standard;
SET TimeZone = 'Asia/Kathmandu';
SET extra_float_digits = -15;
CREATE SCHEMA tg_shadow;
SET search_path = tg_shadow, public;
SELECT wide._tablet_op_begin('split', 'ts', 'ts_3', E'd''\\\\', NULL) > 0 AS begun;
SELECT wide._tablet_op_copy(tg_op());
INSERT INTO ts VALUES (E'd''\\\\', 'm', 'q', '2021-06-01 12:34:56.789+00', 1.0 / 3),
                      (E'd''\\', 'm', 'q', '2020-01-01 00:00:00+00', 77.7);
RESET ALL;
SET client_min_messages = warning;
INSERT INTO ts_ref VALUES (E'd''\\\\', '2021-06-01 12:34:56.789+00', 1.0 / 3);
INSERT INTO ts_ref VALUES (E'd''\\', '2020-01-01 00:00:00+00', 77.7);
SET standard_conforming_strings = on;
SET DateStyle = 'German';
SET IntervalStyle = iso_8601;
SET TimeZone = 'America/St_Johns';
SET extra_float_digits = 0;
CALL wide.resume_tablet_ops();
RESET ALL;
SET client_min_messages = warning;
SELECT step FROM wide.tablet_ops WHERE id = tg_op();
SELECT * FROM tg_tablets('ts');
SELECT (SELECT count(*) FROM (SELECT row_key, ts, value FROM ts EXCEPT SELECT * FROM ts_ref) d) +
       (SELECT count(*) FROM (SELECT * FROM ts_ref EXCEPT SELECT row_key, ts, value FROM ts) d) AS differences;
-- every cell in the tablet whose range holds it
SELECT sum(tg_found('ts', k)) = (SELECT count(*) FROM ts) AS all_found
  FROM (SELECT DISTINCT row_key FROM ts) d(k);

-- a bytea row key, bounds with a backslash, a quote and high bytes
CREATE TABLE tb (row_key bytea, family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('tb', 'm');
SELECT count(*) FROM wide.create_tablets('tb', '{}', ARRAY['local']);
INSERT INTO tb SELECT decode(lpad(to_hex(i), 4, '0'), 'hex'), 'm', 'q', 1, i FROM generate_series(0, 65535, 97) i;
SET bytea_output = escape;
SET standard_conforming_strings = off;
CALL wide.split_tablet('tb', 'tb_1', E'\\x5c27');
SELECT c.relname AS tb_upper FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'tb'::regclass ORDER BY c.relname DESC LIMIT 1 \gset
CALL wide.split_tablet('tb', :'tb_upper', E'\\xe9ff');
RESET ALL;
SET client_min_messages = warning;
SELECT * FROM tg_tablets('tb');
SELECT count(*) FROM tb;
SELECT sum(tg_found('tb', k::text)) = (SELECT count(*) FROM tb) AS all_found
  FROM (SELECT DISTINCT row_key FROM tb) d(k);

SELECT count(*) AS open_ops FROM wide.tablet_ops WHERE step IN ('created', 'copied', 'swapped');
DROP TABLE ts, ts_ref, tb;
DROP SCHEMA tg_shadow;
DROP FUNCTION tg_op(), tg_tablets(regclass), tg_found(regclass, text);
