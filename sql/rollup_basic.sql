--
-- Rollups merged on write (src/engine/rollup.c): every write to the source
-- family adds to aggregate cells of the rollup family at the write's bucket.
--
CREATE TABLE ru (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('ru', 'm');
SELECT wide.create_family('ru', 'tag');
-- data written before the rollup exists is backfilled by create_family
INSERT INTO ru VALUES ('h1', 'm', 'cpu', '2024-01-01 00:01:00+00', 10),
                      ('h1', 'm', 'cpu', '2024-01-01 00:02:00+00', 30);
SELECT wide.create_family('ru', 'm5', max_age => '36500 days',
  rollup => '{"source": "m", "bucket": "5 minutes", "functions": ["sum", "count", "min", "max"]}');
SELECT * FROM wide.rollups('ru');
SELECT * FROM wide.families('ru');
SELECT * FROM ru WHERE family = 'm5' ORDER BY row_key, qualifier, ts;

-- every write path: INSERT, set_cell, mutate_row, mutate_rows, COPY
INSERT INTO ru VALUES ('h1', 'm', 'cpu', '2024-01-01 00:03:00+00', 5),
                      ('h2', 'm', 'cpu', '2024-01-01 00:07:00+00', 7),
                      ('h2', 'tag', 'dc', '2024-01-01 00:07:00+00', 1);
SELECT wide.set_cell('ru', 'h1', 'm', 'cpu', 100, '2024-01-01 00:04:00+00'::timestamptz);
SELECT wide.mutate_row('ru', 'h2', '[{"set_cell": {"family_name": "m", "column_qualifier": "mem",
  "timestamp_micros": 1704068280000000, "value": 3}}]');
SELECT wide.mutate_rows('ru', '[{"row_key": "h3", "mutations": [{"set_cell": {"family_name": "m",
  "column_qualifier": "cpu", "timestamp_micros": 1704068280000000, "value": -4}}]}]');
COPY ru FROM stdin;
h2	m	cpu	2024-01-01 00:09:00+00	9
h2	m	cpu	2024-01-01 00:10:00+00	11
\.
-- aborted writes leave no input behind, nor does a rolled back savepoint
BEGIN;
INSERT INTO ru VALUES ('h1', 'm', 'cpu', '2024-01-01 00:04:30+00', 1000);
ROLLBACK;
BEGIN;
SAVEPOINT s;
SELECT wide.set_cell('ru', 'h1', 'm', 'cpu', 2000, '2024-01-01 00:04:40+00'::timestamptz);
ROLLBACK TO s;
INSERT INTO ru VALUES ('h1', 'm', 'cpu', '2024-01-01 00:04:50+00', 1);
COMMIT;
-- deletes of the source write no inputs
DELETE FROM ru WHERE family = 'm' AND row_key = 'h3';
SELECT * FROM ru WHERE family = 'm5' ORDER BY row_key, qualifier, ts;
-- the same after compaction folds the inputs
SELECT FROM wide.compact('ru', true);
SELECT * FROM ru WHERE family = 'm5' ORDER BY row_key, qualifier, ts;
SELECT * FROM wide.read_row(NULL::ru, 'h2', wide.family_filter('m5'));

-- the dashboard query: avg per bucket from two cells
SELECT row_key, ts AS bucket,
       sum(value) FILTER (WHERE qualifier = 'cpu:sum')::numeric /
       sum(value) FILTER (WHERE qualifier = 'cpu:count') AS avg_cpu
  FROM ru WHERE family = 'm5' AND qualifier IN ('cpu:sum', 'cpu:count')
 GROUP BY 1, 2 ORDER BY 1, 2;

-- rebuild recomputes a range from the source cells present (h3 was deleted)
SELECT wide.rebuild_rollup('ru', 'm5', 'h3', 'h4');
SELECT wide.rebuild_rollup('ru', 'm5');
SELECT * FROM ru WHERE family = 'm5' ORDER BY row_key, qualifier, ts;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT wide.rebuild_rollup('ru', 'm5');
ROLLBACK;
SELECT wide.rebuild_rollup('ru', 'm');

-- DDL: alter keeps the rollup; the source cannot be dropped under it
SELECT wide.alter_family('ru', 'm5', max_versions => 100);
SELECT * FROM wide.rollups('ru');
SELECT wide.drop_family('ru', 'm');
-- a second rollup of the same source, with other buckets
SELECT wide.create_family('ru', 'hourly', rollup => '{"source": "m", "bucket": "1 hour", "functions": ["count"]}');
INSERT INTO ru VALUES ('h9', 'm', 'cpu', '2024-01-01 01:59:59+00', 1);
SELECT * FROM ru WHERE family IN ('hourly', 'm5') AND row_key = 'h9' ORDER BY family, qualifier;
SELECT wide.drop_family('ru', 'hourly');
SELECT wide.drop_family('ru', 'm5');
SELECT wide.drop_family('ru', 'm');

-- errors
CREATE TABLE ru_bad (row_key text, family text, qualifier text, ts timestamptz, value text) USING wide;
SELECT wide.create_family('ru_bad', 'm');
SELECT wide.create_family('ru_bad', 'r', rollup => '{"source": "m", "bucket": "1 minute", "functions": ["sum"]}');
SELECT wide.create_family('ru', 'm');
SELECT wide.create_family('ru', 'a', aggregate => 'sum');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "nope", "bucket": "1 minute", "functions": ["sum"]}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "a", "bucket": "1 minute", "functions": ["sum"]}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "m", "bucket": "1 month", "functions": ["sum"]}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "m", "bucket": "soon", "functions": ["sum"]}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "m", "bucket": "1 minute", "functions": ["avg"]}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "m", "bucket": "1 minute", "functions": ["hll"]}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "m", "bucket": "1 minute"}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "m", "bucket": "1 minute", "functions": ["sum"], "x": 1}');
SELECT wide.create_family('ru', 'r', aggregate => 'sum', rollup => '{"source": "m", "bucket": "1 minute", "functions": ["sum"]}');
SELECT wide.create_family('ru', 'r', rollup => '{"source": "m", "bucket": "1 minute", "functions": ["sum"]}');
INSERT INTO ru VALUES ('x', 'r', 'cpu', now(), 1);
SELECT wide.add_to_cell('ru', 'x', 'r', 'cpu', now(), 1);
SELECT wide.add_to_cell('ru', 'x', 'r', 'cpu:sum', '2024-01-01 00:00:00+00'::timestamptz, 5);
SELECT wide.set_cell('ru', 'x', 'r', 'cpu:sum', 5);
SELECT row_key, qualifier, ts, value FROM ru WHERE family = 'r';

-- bytea values: sum, min and max of 8-byte big-endian integers, hll of any
-- bytes; int8 timestamps; bytea qualifiers
CREATE TABLE rb (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('rb', 'm');
INSERT INTO rb VALUES ('\x01', 'm', 'a', 1000, int8send(5)), ('\x01', 'm', 'a', 1500, int8send(7));
SELECT wide.create_family('rb', 'r', rollup => '{"source": "m", "bucket": "0.001 seconds", "functions": ["sum", "max", "hll", "count"]}');
INSERT INTO rb VALUES ('\x01', 'm', 'a', 2500, int8send(7)), ('\x01', 'm', 'a', 1700, int8send(9));
SELECT row_key, convert_from(qualifier, 'UTF8') AS q, ts,
       CASE WHEN convert_from(qualifier, 'UTF8') LIKE '%:hll' THEN wide.hll_count(value)
            ELSE ('x' || encode(value, 'hex'))::bit(64)::bigint END AS v
  FROM rb WHERE family = 'r' ORDER BY 2, 3;
SELECT wide.rebuild_rollup('rb', 'r');
SELECT row_key, convert_from(qualifier, 'UTF8') AS q, ts,
       CASE WHEN convert_from(qualifier, 'UTF8') LIKE '%:hll' THEN wide.hll_count(value)
            ELSE ('x' || encode(value, 'hex'))::bit(64)::bigint END AS v
  FROM rb WHERE family = 'r' ORDER BY 2, 3;
INSERT INTO rb VALUES ('\x01', 'm', 'a', 1000, '\x0102');

-- randomized: the rollup equals the GROUP BY of the raw data, through the
-- statement buffer (a large INSERT ... SELECT), single INSERTs, deletes
-- (rebuilt) and compaction
CREATE TABLE rr (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('rr', 'm');
SELECT wide.create_family('rr', 'm5', rollup => '{"source": "m", "bucket": "5 minutes", "functions": ["sum", "count", "min", "max"]}');
SELECT setseed(0.13);
CREATE TEMP TABLE rnd AS
  SELECT DISTINCT ON (k, q, t) k, q, t, v FROM (
    SELECT 'host' || (random() * 20)::int AS k,
           (ARRAY['cpu', 'mem', 'disk'])[1 + (random() * 2)::int] AS q,
           '2024-03-01 00:00:00+00'::timestamptz + ((random() * 86400)::int) * interval '1 second' AS t,
           (random() * 2000000 - 1000000)::int8 AS v
      FROM generate_series(1, 20000)) s;
INSERT INTO rr SELECT k, 'm', q, t, v FROM rnd;
CREATE FUNCTION pg_temp.rollup_diff(tbl regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format($q$
  WITH raw AS (
    SELECT row_key, qualifier, to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS b,
           sum(value)::int8 AS s, count(*) AS c, min(value) AS mn, max(value) AS mx
      FROM %1$s WHERE family = 'm' GROUP BY 1, 2, 3),
  roll AS (
    SELECT row_key, split_part(qualifier, ':', 1) AS qualifier, ts AS b,
           max(value) FILTER (WHERE qualifier LIKE '%%:sum') AS s,
           max(value) FILTER (WHERE qualifier LIKE '%%:count') AS c,
           max(value) FILTER (WHERE qualifier LIKE '%%:min') AS mn,
           max(value) FILTER (WHERE qualifier LIKE '%%:max') AS mx
      FROM %1$s WHERE family = 'm5' GROUP BY 1, 2, 3)
  SELECT (SELECT count(*) FROM (TABLE raw EXCEPT TABLE roll) d) +
         (SELECT count(*) FROM (TABLE roll EXCEPT TABLE raw) d)$q$, tbl) INTO n;
  RETURN n;
END $$;
SELECT count(*) > 15000 AS many, pg_temp.rollup_diff('rr') AS diff FROM rnd;
-- single-row writes into existing buckets
INSERT INTO rr SELECT 'host' || i % 20, 'm', 'cpu', '2024-03-01 00:00:00.5+00'::timestamptz + i * interval '37 seconds', i
  FROM generate_series(1, 200) i;
SELECT FROM wide.compact('rr', true);
SELECT pg_temp.rollup_diff('rr') AS diff;
-- deletes are not subtracted, until rebuilt
DELETE FROM rr WHERE family = 'm' AND row_key IN ('host3', 'host4') AND value > 0;
SELECT pg_temp.rollup_diff('rr') > 0 AS stale;
SELECT wide.rebuild_rollup('rr', 'm5', 'host3', 'host5') > 0 AS rebuilt;
SELECT pg_temp.rollup_diff('rr') AS diff;
SELECT FROM wide.compact('rr', true);
SELECT pg_temp.rollup_diff('rr') AS diff;
SELECT * FROM wide.verify('rr');

-- key_parts: 'hostN#millis' rows roll up under 'hostN'
CREATE TABLE rk (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('rk', 'm');
INSERT INTO rk SELECT 'host' || h || '#' || wide.millis(t), 'm', 'cpu', t, h * 100 + extract(minute FROM t)::int8
  FROM generate_series(1, 2) h,
       generate_series('2024-01-01 00:00:00+00'::timestamptz, '2024-01-01 00:09:00+00', '1 minute') t;
SELECT wide.create_family('rk', 'm5', rollup => '{"source": "m", "bucket": "5 minutes", "functions": ["sum", "count"], "key_parts": 1}');
INSERT INTO rk VALUES ('host1#1704067800000', 'm', 'cpu', '2024-01-01 00:10:00+00', 7);
SELECT * FROM wide.rollups('rk');
SELECT row_key, qualifier, ts, value FROM rk WHERE family = 'm5' ORDER BY 1, 2, 3;
SELECT wide.rebuild_rollup('rk', 'm5', 'host1', 'host1#');
SELECT row_key, qualifier, ts, value FROM rk WHERE family = 'm5' AND row_key = 'host1' ORDER BY 1, 2, 3;
SELECT wide.create_family('rk', 'bad', rollup => '{"source": "m", "bucket": "5 minutes", "functions": ["sum"], "key_parts": 0}');
SELECT wide.create_family('rk', 'bad', rollup => '{"source": "m", "bucket": "5 minutes", "functions": ["sum"], "key_parts": 1, "delimiter": "##"}');
INSERT INTO rk VALUES ('#1', 'm', 'cpu', '2024-01-01 00:10:00+00', 7);
-- wide.rollup_on_write = off (restoring a dump) writes the source cells alone
SET wide.rollup_on_write = off;
INSERT INTO rk VALUES ('host1#1704067860000', 'm', 'cpu', '2024-01-01 00:11:00+00', 1000);
RESET wide.rollup_on_write;
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
-- auto (the default): a session restoring a dump (pg_dump's and pg_restore's
-- row_security = off and check_function_bodies = off) writes source cells alone
SHOW wide.rollup_on_write;
SET row_security = off;
SET check_function_bodies = off;
INSERT INTO rk VALUES ('host1#1704067861000', 'm', 'cpu', '2024-01-01 00:11:01+00', 1000);
SELECT wide.set_cell('rk', 'host1#1704067862000', 'm', 'cpu', 1000, '2024-01-01 00:11:02+00');
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
-- on: rollups fire even then; the boolean spellings still work
SET wide.rollup_on_write = on;
INSERT INTO rk VALUES ('host1#1704067863000', 'm', 'cpu', '2024-01-01 00:11:03+00', 1000);
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
SET wide.rollup_on_write = false;
INSERT INTO rk VALUES ('host1#1704067864000', 'm', 'cpu', '2024-01-01 00:11:04+00', 1000);
SET wide.rollup_on_write = maybe;
RESET wide.rollup_on_write;
-- either setting alone is no restore
RESET row_security;
INSERT INTO rk VALUES ('host1#1704067865000', 'm', 'cpu', '2024-01-01 00:11:05+00', 1000);
RESET check_function_bodies;
SET row_security = off;
INSERT INTO rk VALUES ('host1#1704067866000', 'm', 'cpu', '2024-01-01 00:11:06+00', 1000);
RESET row_security;
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
-- pg_restore --enable-row-security: row_security stays on, the search_path
-- is empty; an empty search_path alone is no restore
SET check_function_bodies = off;
SELECT pg_catalog.set_config('search_path', '', false);
INSERT INTO public.rk VALUES ('host1#1704067866500', 'm', 'cpu', '2024-01-01 00:11:06.5+00', 1000);
SET search_path = '';
INSERT INTO public.rk VALUES ('host1#1704067866550', 'm', 'cpu', '2024-01-01 00:11:06.55+00', 1000);
RESET check_function_bodies;
INSERT INTO public.rk VALUES ('host1#1704067866600', 'm', 'cpu', '2024-01-01 00:11:06.6+00', 1000);
RESET search_path;
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
-- a data-loading restore of the rollup cells themselves, next to the source
SET row_security = off;
SET check_function_bodies = off;
COPY rk FROM stdin;
host1	m5	cpu:count	2024-01-01 00:10:00+00	10
host1#1704067867000	m	cpu	2024-01-01 00:11:07+00	1000
\.
RESET row_security;
RESET check_function_bodies;
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
-- a table rewrite copies the rollup cells, and does not add to them again
ALTER TABLE rk SET ACCESS METHOD heap;
ALTER TABLE rk SET ACCESS METHOD wide;
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
INSERT INTO rk VALUES ('host1#1704067920000', 'm', 'cpu', '2024-01-01 00:12:00+00', 1);
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
-- session_replication_role = replica (logical replication's apply, a
-- restore with --disable-triggers): the changes carry their rollup cells,
-- so rollups do not fire, as triggers do not
SET session_replication_role = replica;
INSERT INTO rk VALUES ('host1#1704067980000', 'm', 'cpu', '2024-01-01 00:13:00+00', 1);
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
RESET session_replication_role;
INSERT INTO rk VALUES ('host1#1704068040000', 'm', 'cpu', '2024-01-01 00:14:00+00', 1);
SELECT value FROM rk WHERE row_key = 'host1' AND qualifier = 'cpu:count' AND ts = '2024-01-01 00:10:00+00';
DROP TABLE ru, ru_bad, rb, rr, rk;
