-- The row form (issue 26; src/am/rows*.c): a foreign table of the server
-- wide_rows shows one family of a wide table as rows.  Options and their
-- errors, the key codec of every part type, NULLs as absent cells, the
-- versions mode, writes (INSERT, COPY, UPDATE, DELETE) and what the cell
-- form sees of them, GC and aggregates, transactions, key conditions in
-- EXPLAIN, parameterized joins, privileges.
SET max_parallel_workers_per_gather = 0;
SET timezone = 'UTC';
CREATE TABLE rc (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('rc', 'cpu', max_versions => 1);
SELECT wide.create_family('rc', 'other');
CREATE TABLE not_wide (row_key text, family text, qualifier text, ts timestamptz, value float8);

-- options: the wrapper, the server and unknown options
CREATE SERVER wide_rows_2 FOREIGN DATA WRAPPER wide_rows OPTIONS (cells 'rc');
CREATE FOREIGN TABLE bad (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k', colour 'red');
CREATE FOREIGN TABLE bad (k int4, v float8 OPTIONS (colour 'red')) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
CREATE FOREIGN TABLE bad (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k', separator '##');
CREATE FOREIGN TABLE bad (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k', separator '');
CREATE FOREIGN TABLE bad (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k', separator '\');
CREATE FOREIGN TABLE bad (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family '', key 'k');
CREATE FOREIGN TABLE bad (k int4 OPTIONS (width '0'), v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
CREATE FOREIGN TABLE bad (k int4 OPTIONS (width '20'), v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
CREATE FOREIGN TABLE bad (k int4 OPTIONS (width '5x'), v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
CREATE FOREIGN TABLE bad (k timestamptz OPTIONS (unit 'min'), v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
CREATE FOREIGN TABLE bad (k timestamptz OPTIONS (reversed 'maybe'), v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
CREATE FOREIGN TABLE bad (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'f12345678901234567890123456789012345678901234567890123456789012345', key 'k');

-- options checked at first use (the table is created, its use fails)
CREATE FOREIGN TABLE bad1 (k int4, v float8) SERVER wide_rows OPTIONS (family 'cpu', key 'k');
SELECT * FROM bad1;
CREATE FOREIGN TABLE bad2 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', key 'k');
SELECT * FROM bad2;
CREATE FOREIGN TABLE bad3 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu');
INSERT INTO bad3 VALUES (1, 1);
CREATE FOREIGN TABLE bad4 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'no_such_table', family 'cpu', key 'k');
SELECT * FROM bad4;
CREATE FOREIGN TABLE bad5 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'not_wide', family 'cpu', key 'k');
SELECT * FROM bad5;
CREATE FOREIGN TABLE bad6 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'nope', key 'k');
SELECT * FROM bad6;
CREATE FOREIGN TABLE bad7 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k,missing');
SELECT * FROM bad7;
CREATE FOREIGN TABLE bad8 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k,k');
SELECT * FROM bad8;
CREATE FOREIGN TABLE bad9 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key ',');
SELECT * FROM bad9;
CREATE FOREIGN TABLE bad10 (k numeric, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
SELECT * FROM bad10;
CREATE FOREIGN TABLE bad11 (k text OPTIONS (width '4'), v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
SELECT * FROM bad11;
CREATE FOREIGN TABLE bad12 (k int4 OPTIONS (unit 'ms'), v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
SELECT * FROM bad12;
CREATE FOREIGN TABLE bad13 (k int4, v float8 OPTIONS (width '3')) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
SELECT * FROM bad13;
CREATE FOREIGN TABLE bad14 (k int4, v int8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
SELECT * FROM bad14;
CREATE FOREIGN TABLE bad15 (k int4, v float8, w float8 OPTIONS (qualifier 'v')) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k');
SELECT * FROM bad15;
CREATE FOREIGN TABLE bad16 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k', timestamp 'v');
SELECT * FROM bad16;
CREATE FOREIGN TABLE bad17 (k int4, v float8) SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'k', timestamp 'nope');
SELECT * FROM bad17;
CREATE FOREIGN TABLE bad18 (a int2, b int2, c int2, d int2, e int2, f int2, g int2, h int2, i int2, v float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'a,b,c,d,e,f,g,h,i');
SELECT * FROM bad18;
-- nothing was written by any of them
SELECT count(*) FROM rc;
DROP FOREIGN TABLE bad1, bad2, bad3, bad4, bad5, bad6, bad7, bad8, bad9, bad10,
  bad11, bad12, bad13, bad14, bad15, bad16, bad17, bad18;

-- the example: readings as rows
CREATE FOREIGN TABLE cpu (time timestamptz NOT NULL, tags_id int4 NOT NULL,
                          usage_user float8, usage_system float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'tags_id,time');
INSERT INTO cpu VALUES ('2020-01-01 00:00:00', 1, 10, 20),
                       ('2020-01-01 00:00:10', 1, 11, NULL),
                       ('2020-01-01 00:00:00', 2, NULL, 5),
                       ('2020-01-01 00:00:00', -3, 1, 1);
SELECT * FROM cpu;
-- a reading is a cell per non-NULL column, at the time of the key
SELECT row_key, family, qualifier, ts, value FROM rc;
-- a NULL column is no cell; an all-NULL row is refused, nothing written
INSERT INTO cpu VALUES ('2020-01-01 00:01:00', 7, NULL, NULL);
INSERT INTO cpu VALUES ('2020-01-01 00:01:00', 8, 1, 1), ('2020-01-01 00:01:00', 9, NULL, NULL);
INSERT INTO cpu VALUES ('2020-01-01 00:01:00', NULL, 1, 1);
INSERT INTO cpu (tags_id, usage_user) VALUES (8, 1);
-- a time key part holds whole seconds, from 1970, finite
INSERT INTO cpu VALUES ('2020-01-01 00:01:00.5', 8, 1, 1);
INSERT INTO cpu VALUES ('1969-12-31 23:59:59', 8, 1, 1);
INSERT INTO cpu VALUES ('infinity', 8, 1, 1);
INSERT INTO cpu VALUES ('5000-01-01', 8, 1, 1);
SELECT count(*) FROM rc;
-- INSERT of an existing key writes its columns over (NULL: leaves the column)
INSERT INTO cpu VALUES ('2020-01-01 00:00:00', 1, 99, NULL);
SELECT * FROM cpu WHERE tags_id = 1;
-- ON CONFLICT would be silently a write over: refused
INSERT INTO cpu VALUES ('2020-01-01 00:00:00', 1, 98, 98) ON CONFLICT DO NOTHING;
SELECT * FROM cpu WHERE tags_id = 1;
-- cells of other families, and qualifiers with no column, are not rows' columns
INSERT INTO rc VALUES ('09223372036854775809#1577836800', 'other', 'usage_user', '2020-01-01', 555),
                      ('09223372036854775809#1577836800', 'cpu', 'usage_idle', '2020-01-01', 666),
                      ('09223372036854775899#1577836800', 'cpu', 'usage_idle', '2020-01-01', 666);
SELECT * FROM cpu;
SELECT count(*) FROM cpu;
-- a cell written through the cell form with a row key not of the shape
INSERT INTO rc VALUES ('host_1#1577836800', 'cpu', 'usage_user', '2020-01-01', 1);
SELECT * FROM cpu;
SELECT count(*) FROM cpu WHERE tags_id = 1;
SELECT wide.delete_row('rc', 'host_1#1577836800');
INSERT INTO rc VALUES ('09223372036854775809#15778368', 'cpu', 'usage_user', '2020-01-01', 1);
SELECT count(*) FROM cpu;
SELECT wide.delete_row('rc', '09223372036854775809#15778368');
INSERT INTO rc VALUES ('09223372036854775809#1577836800#x', 'cpu', 'usage_user', '2020-01-01', 1);
SELECT count(*) FROM cpu;
SELECT wide.delete_row('rc', '09223372036854775809#1577836800#x');
SELECT count(*) FROM cpu;

-- text key parts: the separator and \ inside are escaped, as wide.key() does
CREATE FOREIGN TABLE hosts (host text, time timestamptz, v float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'other', key 'host,time');
INSERT INTO hosts VALUES ('a', '2020-01-01', 1), ('a#b', '2020-01-01', 2),
  ('a\', '2020-01-01', 3), ('a\#', '2020-01-01', 4), ('', '2020-01-01', 5),
  ('a#', '2020-01-01', 6), ('#', '2020-01-01', 7), ('ü ß', '2020-01-01', 8);
SELECT row_key, row_key = wide.key(split_part(row_key, '#', 1), '1577836800') AS plain, value
  FROM rc WHERE family = 'other' ORDER BY value;
SELECT host, length(host), v FROM hosts;
SELECT v FROM hosts WHERE host = 'a#b';
SELECT v FROM hosts WHERE host = 'a\';
SELECT v FROM hosts WHERE host IN ('a', 'a#', '#', '', 'zz') ORDER BY v;
SELECT v FROM hosts WHERE host = ANY (ARRAY['a\#', NULL]);
SELECT v FROM hosts WHERE host > 'a' ORDER BY v;
SELECT v FROM hosts WHERE host <> 'a' AND host NOT LIKE 'a%' ORDER BY v;
SELECT v FROM hosts WHERE host = 'A' COLLATE "C";
TRUNCATE rc;
-- another separator
CREATE FOREIGN TABLE piped (site varchar, host text, v float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'other', key 'site,host', separator '|');
INSERT INTO piped VALUES ('x|y', 'h#1', 1), ('x', 'y|h#1', 2), ('x\', 'h', 3);
SELECT row_key, value FROM rc ORDER BY value;
SELECT * FROM piped;
SELECT * FROM piped WHERE site = 'x';
SELECT * FROM piped WHERE site = 'x|y' AND host = 'h#1';
TRUNCATE rc;

-- integer key parts: no width (any bigint, offset by 2^63), or fixed width
CREATE FOREIGN TABLE ints (a int2 OPTIONS (width '3'), b int8, c int4 OPTIONS (width '10'), v float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'other', key 'a,b,c');
INSERT INTO ints VALUES (0, -9223372036854775808, 0, 1), (999, 9223372036854775807, 2147483647, 2),
  (5, -1, 7, 3), (5, 0, 7, 4), (5, 1, 7, 5), (12, 3, 8, 6);
INSERT INTO ints VALUES (-1, 0, 0, 0);
INSERT INTO ints VALUES (1000, 0, 0, 0);
INSERT INTO ints VALUES (1, 0, -5, 0);
SELECT row_key, value FROM rc ORDER BY row_key;
SELECT * FROM ints;
SELECT v FROM ints WHERE a = 5 AND b < 0;
SELECT v FROM ints WHERE a = 5 AND b >= 0;
SELECT v FROM ints WHERE a = 5 AND b > -1 AND b <= 0;
SELECT v FROM ints WHERE b > 9223372036854775806;
SELECT v FROM ints WHERE a = 999 AND b >= 9223372036854775807;
SELECT v FROM ints WHERE a = 0 AND b <= -9223372036854775808;
SELECT v FROM ints WHERE a = 0 AND b < -9223372036854775808;
SELECT v FROM ints WHERE a < 5;
SELECT v FROM ints WHERE a > 5 ORDER BY v;
SELECT v FROM ints WHERE a >= -100 AND a <= 4;
SELECT v FROM ints WHERE a = 5000;
SELECT v FROM ints WHERE a = -5;
SELECT v FROM ints WHERE a = 70000;
SELECT v FROM ints WHERE a IN (5, 12, 70000, -1) AND b IN (1, 3) ORDER BY v;
SELECT v FROM ints WHERE a = 5 AND b = 0 AND c = 7;
SELECT v FROM ints WHERE a = 5 AND b = 0 AND c = 7000000000;
TRUNCATE rc;

-- time key parts: s, ms, us, reversed, timestamp without time zone
CREATE FOREIGN TABLE times (h int2 OPTIONS (width '2'), t timestamptz OPTIONS (unit 'ms', reversed 'true'),
                            u timestamp OPTIONS (unit 'us'), v float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'other', key 'h,t,u');
INSERT INTO times VALUES (1, '2020-01-01 00:00:00.001', '2020-01-01 00:00:00.000001', 1),
  (1, '2020-01-01 00:00:00.002', '1970-01-01', 2), (1, '1970-01-01', '2020-01-01', 3),
  (1, '2286-11-20 17:46:39.999', '2020-01-01', 4);
INSERT INTO times VALUES (1, '2020-01-01 00:00:00.0015', '2020-01-01', 0);
INSERT INTO times VALUES (1, '2286-11-20 17:46:40', '2020-01-01', 0);
INSERT INTO times VALUES (1, '-infinity', '2020-01-01', 0);
SELECT row_key, ts, value FROM rc ORDER BY row_key;
-- newest first: the key's order
SELECT * FROM times;
SELECT v FROM times WHERE h = 1 AND t > '2020-01-01 00:00:00.001';
SELECT v FROM times WHERE h = 1 AND t >= '2020-01-01 00:00:00.001';
SELECT v FROM times WHERE h = 1 AND t > '2020-01-01 00:00:00.0015';
SELECT v FROM times WHERE h = 1 AND t < '2020-01-01 00:00:00.0015';
SELECT v FROM times WHERE h = 1 AND t <= '2020-01-01 00:00:00.001';
SELECT v FROM times WHERE h = 1 AND t = '2020-01-01 00:00:00.0015';
SELECT v FROM times WHERE h = 1 AND t < '-infinity';
SELECT v FROM times WHERE h = 1 AND t > '-infinity';
SELECT v FROM times WHERE h = 1 AND t < 'infinity';
SELECT v FROM times WHERE h = 1 AND t >= 'infinity';
SELECT v FROM times WHERE h = 1 AND t = '1970-01-01' AND u >= '2019-12-31 23:59:59.999999';
SELECT v FROM times WHERE h = 1 AND t = '2020-01-01 00:00:00.001' AND u = '2020-01-01 00:00:00.000001';
SELECT v FROM times WHERE h = 1 AND t = '2020-01-01 00:00:00.001' AND u > '2020-01-01 00:00:00.000001';
SELECT v FROM times WHERE h = 1 AND t < '1969-01-01';
SELECT v FROM times WHERE h = 1 AND t > '1969-01-01' ORDER BY v;
SELECT v FROM times WHERE h = 1 AND t >= '2020-01-01'::date;
SELECT v FROM times WHERE h = 1 AND t BETWEEN '2020-01-01' AND '2021-01-01' ORDER BY v;
TRUNCATE rc;

-- a bytea-valued wide table: columns of any type, stored in binary form
CREATE TABLE rb (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('rb', 'm', max_versions => 1);
CREATE FOREIGN TABLE mixed (id int4, i int8, f float8, t text, at timestamptz, b bytea, n numeric, flag bool)
  SERVER wide_rows OPTIONS (cells 'rb', family 'm', key 'id');
INSERT INTO mixed VALUES (1, 1, 1.5, 'one', '2020-01-01 00:00:00.000001', '\x00ff', 1.25, true),
  (2, -2, '-Infinity', '', '1970-01-01', '\x', -0.5, false),
  (3, 9223372036854775807, 'NaN', 'ü', NULL, NULL, NULL, NULL);
SELECT row_key, qualifier, ts IS NOT NULL AS has_ts, value FROM rb ORDER BY row_key, qualifier;
SELECT * FROM mixed;
SELECT id FROM mixed WHERE i > 0 AND f > 0 AND t = 'one' AND at < now() AND b = '\x00ff' AND n > 1 AND flag;
-- a cell written through the cell form that is not the column type's binary form
INSERT INTO rb VALUES ('09223372036854775812', 'm', 'i', now(), '\x0102');
SELECT * FROM mixed WHERE id = 4;
SELECT wide.delete_row('rb', '09223372036854775812');
INSERT INTO rb VALUES ('09223372036854775812', 'm', 'flag', now(), '\x07');
SELECT * FROM mixed WHERE id = 4;
SELECT wide.delete_row('rb', '09223372036854775812');
INSERT INTO rb VALUES ('09223372036854775812', 'm', 't', now(), '\xff');
SELECT * FROM mixed WHERE id = 4;
SELECT wide.delete_row('rb', '09223372036854775812');
INSERT INTO rb VALUES ('09223372036854775812', 'm', 'f', now(), '\x000000000000000001');
SELECT * FROM mixed WHERE id = 4;
SELECT wide.delete_row('rb', '09223372036854775812');
-- as Bigtable's clients write an int64: 8 big-endian bytes
INSERT INTO rb VALUES ('09223372036854775812', 'm', 'i', now(), int8send(42));
SELECT id, i FROM mixed WHERE id = 4;
DROP FOREIGN TABLE mixed;
DROP TABLE rb;

-- COPY writes the cells INSERT writes: every type, NULLs, text key parts
-- with the separator, a row that comes back later in the same COPY, across
-- COPY's batches of rows (64) and its runs (1MB of wide.bulk_memory)
CREATE TABLE rbi (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
CREATE TABLE rbc (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('rbi', 'm'), wide.create_family('rbc', 'm');
CREATE FOREIGN TABLE mi (host text, id int4, at timestamp OPTIONS (unit 's'), i int8, f float8,
  t text, b bytea, n numeric, flag bool, ts timestamptz)
  SERVER wide_rows OPTIONS (cells 'rbi', family 'm', key 'host,id,at');
CREATE FOREIGN TABLE mc (host text, id int4, at timestamp OPTIONS (unit 's'), i int8, f float8,
  t text, b bytea, n numeric, flag bool, ts timestamptz)
  SERVER wide_rows OPTIONS (cells 'rbc', family 'm', key 'host,id,at');
CREATE TEMP TABLE src AS
  SELECT g, 'h' || k % 7 || CASE WHEN k % 7 = 3 THEN '#x\y' ELSE '' END AS host,
         k % 13 AS id, timestamp '2020-01-01' + (k / 91) * interval '1 s' AS at,
         CASE WHEN g % 5 > 0 THEN g * 1000003::int8 END AS i,
         CASE WHEN g % 11 = 0 THEN 'NaN' WHEN g % 17 = 0 THEN '-Infinity' ELSE g / 8.0 END::float8 AS f,
         CASE WHEN g % 3 > 0 THEN 't,"' || g || 'ü' END AS t,
         CASE WHEN g % 4 > 0 THEN int4send(g) END AS b,
         CASE WHEN g % 6 > 0 THEN g / 7.0 END AS n,
         CASE WHEN g % 8 > 0 THEN g % 2 = 0 END AS flag,
         CASE WHEN g % 9 > 0 THEN timestamptz '2021-02-03 04:05:06.789+02' + g * interval '1 ms' END AS ts
    FROM generate_series(0, 3099) g, LATERAL (SELECT g % 3000 AS k) k;
COPY (SELECT host, id, at, i, f, t, b, n, flag, ts FROM src ORDER BY g)
  TO PROGRAM 'cat > rows_basic_copy.csv' (FORMAT csv);
-- time-major, with a row without values past the first batches and runs:
-- the error names its line, and what was written (and batched) is gone
COPY (SELECT host, id, at, i, f, t, b, n, flag, ts FROM src WHERE g <> 2499
      UNION ALL SELECT host, id, at, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM src WHERE g = 2499
      ORDER BY at, host, id) TO PROGRAM 'cat > rows_basic_copy_bad.csv' (FORMAT csv);
SET wide.bulk_memory = '1MB';
COPY mc FROM PROGRAM 'cat rows_basic_copy_bad.csv' (FORMAT csv);
SELECT count(*) AS cells_after_error FROM rbc;
INSERT INTO mi SELECT host, id, at, i, f, t, b, n, flag, ts FROM src ORDER BY g;
COPY mc FROM PROGRAM 'cat rows_basic_copy.csv' (FORMAT csv);
RESET wide.bulk_memory;
SELECT write_area_runs > 1 AS several_runs FROM wide.stats('rbc');
SELECT count(*) AS rows, count(i) AS i, count(t) AS t, count(b) AS b, count(ts) AS ts FROM mc;
SELECT count(*) AS differ FROM ((TABLE mi EXCEPT ALL TABLE mc) UNION ALL (TABLE mc EXCEPT ALL TABLE mi)) d;
SELECT count(*) AS cells_differ FROM (
  (SELECT row_key, family, qualifier, ts, value FROM rbi EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM rbc)
  UNION ALL
  (SELECT row_key, family, qualifier, ts, value FROM rbc EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM rbi)) d;
-- the rows written once are the source's; those written twice, the later values
SELECT count(*) AS not_as_written FROM (SELECT host, id, at, i, f, t, b, n, flag, ts FROM src WHERE g BETWEEN 100 AND 2999
  EXCEPT ALL SELECT * FROM mc) d;
SELECT count(*) AS later_values_lost FROM src s JOIN mc USING (host, id, at)
 WHERE s.g >= 3000 AND (s.i IS NOT NULL AND mc.i <> s.i OR mc.f <> s.f OR s.t IS NOT NULL AND mc.t <> s.t);
SELECT * FROM wide.verify('rbc');
COPY (SELECT) TO PROGRAM 'cat > /dev/null; rm -f rows_basic_copy.csv rows_basic_copy_bad.csv';
DROP FOREIGN TABLE mi, mc;
DROP TABLE rbi, rbc, src;

-- the versions mode: a timestamp column outside the key, a row per (key, time)
CREATE TABLE rv (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rv', 's', max_versions => 3);
CREATE FOREIGN TABLE series (sensor text, at timestamptz, temp float8, hum float8)
  SERVER wide_rows OPTIONS (cells 'rv', family 's', key 'sensor', timestamp 'at');
INSERT INTO series VALUES ('s1', '2020-01-01 00:00:00', 1, 10), ('s1', '2020-01-01 00:01:00', 2, NULL),
  ('s1', '2020-01-01 00:02:00.5', NULL, 30), ('s2', '2020-01-01 00:00:00', 4, 40);
INSERT INTO series VALUES ('s1', NULL, 1, 1);
SELECT row_key, qualifier, ts, value FROM rv;
SELECT * FROM series;
SELECT * FROM series WHERE sensor = 's1' AND at >= '2020-01-01 00:01:00' ORDER BY at;
-- more versions than max_versions: only the newest 3 per column show
INSERT INTO series VALUES ('s1', '2020-01-01 00:03:00', 5, NULL);
SELECT * FROM series WHERE sensor = 's1';
-- UPDATE and DELETE of one (key, time)
UPDATE series SET hum = 31 WHERE sensor = 's1' AND at = '2020-01-01 00:02:00.5';
UPDATE series SET temp = NULL WHERE sensor = 's2';
DELETE FROM series WHERE sensor = 's1' AND at = '2020-01-01 00:01:00' RETURNING *;
SELECT * FROM series;
SELECT row_key, qualifier, ts, value FROM rv;
UPDATE series SET at = now() WHERE sensor = 's1';
DROP FOREIGN TABLE series;
DROP TABLE rv;

-- COPY: a bad line is named, and nothing of the COPY is written
SELECT count(*) FROM rc;
COPY cpu FROM STDIN (FORMAT csv);
2020-01-01 00:00:00,1,10,20
2020-01-01 00:00:10,1,11,
2020-01-01 00:00:20.5,1,12,22
2020-01-01 00:00:30,1,13,23
\.
COPY cpu FROM STDIN (FORMAT csv);
2020-01-01 00:00:00,1,10,20
2020-01-01 00:00:10,1,,
\.
COPY cpu FROM STDIN (FORMAT csv);
2020-01-01 00:00:00,1,10,20
2020-01-01 00:00:10,,1,1
\.
SELECT count(*) FROM rc;
COPY cpu FROM STDIN (FORMAT csv);
2020-01-01 00:00:00,1,10,20
2020-01-01 00:00:10,1,11,
2020-01-01 00:00:00,2,,5
2020-01-01 00:00:10,2,6,6
2020-01-01 00:00:00,3,7,7
\.
SELECT * FROM cpu;
COPY (SELECT * FROM cpu WHERE tags_id = 2) TO STDOUT;
-- the cells a COPY writes are those an INSERT writes
SELECT row_key, qualifier, ts, value FROM rc;
-- INSERT ... SELECT from the row form itself sees the rows before it
INSERT INTO cpu SELECT time + interval '1 hour', tags_id, usage_user + 100, usage_system FROM cpu;
SELECT count(*), sum(usage_user) FROM cpu;
DELETE FROM cpu WHERE time >= '2020-01-01 01:00:00';
SELECT count(*) FROM cpu;

-- UPDATE: the changed columns; NULL deletes the cell; key columns refused
UPDATE cpu SET usage_system = usage_system + 1 WHERE tags_id = 1;
UPDATE cpu SET usage_user = NULL WHERE tags_id = 2 AND time = '2020-01-01 00:00:10';
UPDATE cpu SET tags_id = 4 WHERE tags_id = 3;
UPDATE cpu SET time = time WHERE tags_id = 3;
SELECT * FROM cpu;
SELECT row_key, qualifier, ts, value FROM rc WHERE row_key LIKE '09223372036854775810%';
UPDATE cpu SET usage_user = 1, usage_system = 2 WHERE tags_id = 3 RETURNING *;
-- a row whose last column is set NULL is gone
UPDATE cpu SET usage_system = NULL WHERE tags_id = 2 AND time = '2020-01-01 00:00:00';
SELECT * FROM cpu WHERE tags_id = 2;
-- DELETE writes a family tombstone: the cell form sees no cell of the row
DELETE FROM cpu WHERE tags_id = 1 AND time = '2020-01-01 00:00:10' RETURNING *;
SELECT row_key, qualifier, value FROM rc WHERE row_key LIKE '09223372036854775809%';
SELECT count(*) FROM rc WHERE row_key = '09223372036854775809#1577836810';
-- cells of another family in the same row key are not deleted
INSERT INTO rc VALUES ('09223372036854775809#1577836800', 'other', 'x', '2020-01-01', 1);
DELETE FROM cpu WHERE tags_id = 1;
SELECT row_key, family, qualifier, value FROM rc WHERE row_key LIKE '09223372036854775809%';
SELECT * FROM cpu;
-- row triggers see the old and new rows
CREATE TABLE trig_log (op text, r text);
CREATE FUNCTION trig_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO trig_log VALUES (TG_OP || ' ' || TG_WHEN, coalesce(OLD::text, '') || ' -> ' || coalesce(NEW::text, ''));
	RETURN coalesce(NEW, OLD);
END $$;
CREATE TRIGGER a AFTER INSERT OR UPDATE OR DELETE ON cpu FOR EACH ROW EXECUTE FUNCTION trig_log();
CREATE TRIGGER b BEFORE INSERT OR UPDATE OR DELETE ON cpu FOR EACH ROW EXECUTE FUNCTION trig_log();
INSERT INTO cpu VALUES ('2020-01-01 00:00:00', 5, 5, NULL);
UPDATE cpu SET usage_system = 6 WHERE tags_id = 5;
DELETE FROM cpu WHERE tags_id = 5 RETURNING *;
SELECT * FROM trig_log;
DROP TRIGGER a ON cpu;
DROP TRIGGER b ON cpu;
DROP TABLE trig_log;
DROP FUNCTION trig_log();
-- a DELETE that matches nothing writes nothing; reinsert after a delete
DELETE FROM cpu WHERE tags_id = 99;
INSERT INTO cpu VALUES ('2020-01-01 00:00:00', 1, 1, NULL);
SELECT * FROM cpu WHERE tags_id = 1;

-- transactions: a rollback leaves nothing; savepoints
BEGIN;
INSERT INTO cpu VALUES ('2020-01-02', 10, 1, 1);
SELECT count(*) FROM cpu WHERE tags_id = 10;
ROLLBACK;
SELECT count(*) FROM cpu WHERE tags_id = 10;
BEGIN;
INSERT INTO cpu VALUES ('2020-01-02', 10, 1, 1);
SAVEPOINT a;
INSERT INTO cpu VALUES ('2020-01-02', 11, 1, 1);
UPDATE cpu SET usage_user = 2 WHERE tags_id = 10;
DELETE FROM cpu WHERE tags_id = 1;
ROLLBACK TO SAVEPOINT a;
SAVEPOINT b;
INSERT INTO cpu VALUES ('2020-01-02', 12, 1, 1);
INSERT INTO cpu VALUES ('2020-01-02', 13, NULL, NULL);
ROLLBACK TO SAVEPOINT b;
UPDATE cpu SET usage_system = 3 WHERE tags_id = 10;
COMMIT;
SELECT * FROM cpu WHERE tags_id >= 10 OR tags_id = 1;
BEGIN;
COPY cpu FROM STDIN (FORMAT csv);
2020-01-03 00:00:00,20,1,1
\.
ROLLBACK;
SELECT count(*) FROM cpu WHERE tags_id = 20;
TRUNCATE rc;

-- an aggregate family through the row form: writes are inputs of the sum
CREATE TABLE ra (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('ra', 'n', aggregate => 'sum');
CREATE FOREIGN TABLE counters (page text, day timestamp OPTIONS (unit 's'), hits int8, bytes int8)
  SERVER wide_rows OPTIONS (cells 'ra', family 'n', key 'page,day');
INSERT INTO counters VALUES ('/a', '2020-01-01', 1, 100), ('/a', '2020-01-01', 2, NULL),
  ('/b', '2020-01-01', 5, 5);
COPY counters FROM STDIN;
/a	2020-01-01	10	1000
/a	2020-01-02	1	1
\.
INSERT INTO ra VALUES ('/b#1577836800', 'n', 'hits', '2020-01-01', 1000);
SELECT * FROM counters;
SELECT page, sum(hits) FROM counters GROUP BY page ORDER BY page;
UPDATE counters SET bytes = 1 WHERE page = '/b';
SELECT * FROM counters WHERE page = '/b';
DELETE FROM counters WHERE page = '/a' AND day = '2020-01-02';
SELECT * FROM counters;
-- an aggregate family needs the cells' time: a row form without one is refused
CREATE FOREIGN TABLE counters_now (page text, hits int8)
  SERVER wide_rows OPTIONS (cells 'ra', family 'n', key 'page');
INSERT INTO counters_now VALUES ('/c', 1);
SELECT * FROM counters_now;
-- a renamed value column would read another qualifier: refused unless its
-- qualifier is set; a key column named by the key option is refused
ALTER FOREIGN TABLE counters RENAME COLUMN bytes TO size;
ALTER FOREIGN TABLE counters RENAME COLUMN page TO path;
SELECT * FROM counters;
ALTER FOREIGN TABLE counters ALTER COLUMN bytes OPTIONS (ADD qualifier 'bytes');
ALTER FOREIGN TABLE counters RENAME COLUMN bytes TO size;
SELECT * FROM counters;
DROP FOREIGN TABLE counters, counters_now;
DROP TABLE ra;

-- GC seen through the row form: max_versions and max_age
CREATE TABLE rg (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rg', 'recent', max_age => '1 day');
SELECT wide.create_family('rg', 'two', max_versions => 2);
CREATE FOREIGN TABLE recent (k int4 OPTIONS (width '3'), t timestamptz, v float8)
  SERVER wide_rows OPTIONS (cells 'rg', family 'recent', key 'k,t');
INSERT INTO recent VALUES (1, '2020-01-01', 1), (2, date_trunc('second', now() - interval '1 hour'), 2),
  (3, date_trunc('second', now() - interval '2 days'), 3);
SELECT k, v FROM recent;
SELECT count(*) FROM rg;
-- the key's time is the cells' time: an old reading is past max_age at once
CREATE FOREIGN TABLE two (k text, at timestamptz, v float8)
  SERVER wide_rows OPTIONS (cells 'rg', family 'two', key 'k', timestamp 'at');
CREATE FOREIGN TABLE two_latest (k text, v float8)
  SERVER wide_rows OPTIONS (cells 'rg', family 'two', key 'k');
INSERT INTO two SELECT 'x', '2020-01-01'::timestamptz + i * interval '1 minute', i FROM generate_series(1, 5) i;
SELECT * FROM two;
SELECT * FROM two_latest;
-- without a time column, cells get the server's time
INSERT INTO two_latest VALUES ('y', 7);
SELECT k, v, at > now() - interval '1 hour' FROM two WHERE k = 'y';
DROP FOREIGN TABLE recent, two, two_latest;
DROP TABLE rg;

-- key conditions become key ranges (EXPLAIN shows which); the rest filters
CREATE TABLE tags (id int4 PRIMARY KEY, hostname text);
INSERT INTO tags SELECT i, 'host_' || i FROM generate_series(0, 19) i;
ANALYZE tags;
INSERT INTO cpu SELECT '2020-01-01'::timestamptz + (i / 20) * interval '10 s', i % 20, i, i % 7
  FROM generate_series(0, 1999) i;
ANALYZE cpu;
SELECT attname, n_distinct FROM pg_stats WHERE tablename = 'cpu' ORDER BY attname;
EXPLAIN (costs off) SELECT * FROM cpu WHERE tags_id = 3;
EXPLAIN (costs off) SELECT * FROM cpu WHERE tags_id IN (3, 5) AND time >= '2020-01-01 00:01:00';
EXPLAIN (costs off) SELECT * FROM cpu WHERE tags_id = ANY ('{1,2}') AND time > '2020-01-01' AND time < '2020-01-01 00:00:30';
EXPLAIN (costs off) SELECT * FROM cpu WHERE time > '2020-01-01 00:05:00';
EXPLAIN (costs off) SELECT * FROM cpu WHERE tags_id <> 3 AND usage_user > 10;
EXPLAIN (costs off) SELECT * FROM cpu WHERE tags_id = 3 ORDER BY time;
EXPLAIN (costs off) SELECT * FROM cpu WHERE tags_id = 3 ORDER BY time DESC LIMIT 1;
SELECT count(*), min(time), max(time), sum(usage_user) FROM cpu WHERE tags_id = 3;
SELECT count(*), sum(usage_user) FROM cpu WHERE tags_id IN (3, 5, 3, 100) AND time >= '2020-01-01 00:01:00';
SELECT count(*), sum(usage_user) FROM cpu WHERE tags_id = ANY ('{1,2}') AND time > '2020-01-01' AND time < '2020-01-01 00:00:30';
SELECT count(*), sum(usage_user) FROM cpu WHERE time > '2020-01-01 00:05:00' AND time <= '2020-01-01 00:05:10.5';
SELECT count(*) FROM cpu WHERE tags_id = 3 AND tags_id = 4;
SELECT count(*) FROM cpu WHERE tags_id = 3 AND time > '2020-01-01 00:05:00' AND time < '2020-01-01 00:04:00';
SELECT count(*) FROM cpu WHERE tags_id = NULL::int;
SELECT count(*) FROM cpu WHERE tags_id = 3 AND usage_system IS NULL;
-- a parameterized nested loop: a seek per outer row
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (costs off) SELECT t.hostname, count(*) FROM tags t JOIN cpu c ON c.tags_id = t.id
  WHERE t.hostname IN ('host_3', 'host_7') GROUP BY t.hostname;
SELECT t.hostname, count(*), sum(usage_user) FROM tags t JOIN cpu c ON c.tags_id = t.id
  WHERE t.hostname IN ('host_3', 'host_7') GROUP BY t.hostname ORDER BY 1;
EXPLAIN (costs off) SELECT t.id, l.* FROM tags t,
  LATERAL (SELECT time, usage_user FROM cpu c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) l
  WHERE t.id < 3;
SELECT t.id, l.* FROM tags t,
  LATERAL (SELECT time, usage_user FROM cpu c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) l
  WHERE t.id < 3 ORDER BY t.id;
SELECT count(*) FROM cpu c WHERE c.tags_id IN (SELECT id FROM tags WHERE hostname LIKE 'host_1%');
RESET enable_hashjoin;
RESET enable_mergejoin;
-- a prepared statement: the ranges are built at execution, for each value
PREPARE q(int, timestamptz) AS SELECT count(*) FROM cpu WHERE tags_id = $1 AND time >= $2;
EXECUTE q(3, '2020-01-01 00:08:00');
EXECUTE q(4, '2020-01-01 00:08:00');
EXECUTE q(4, NULL);
EXECUTE q(3, '2020-01-01 00:08:00');
EXECUTE q(4, '2020-01-01 00:08:00');
EXECUTE q(5, 'infinity');
EXECUTE q(5, '-infinity');
DEALLOCATE q;
-- reversed time: newest first, ranges mirrored
CREATE FOREIGN TABLE cpu_rev (tags_id int4 OPTIONS (width '4'), time timestamptz OPTIONS (reversed 'true'),
                              usage_user float8, usage_system float8)
  SERVER wide_rows OPTIONS (cells 'rc', family 'other', key 'tags_id,time');
INSERT INTO cpu_rev SELECT tags_id, time, usage_user, usage_system FROM cpu;
SELECT (SELECT count(*) FROM cpu) = (SELECT count(*) FROM cpu_rev) AS same_count;
EXPLAIN (costs off) SELECT * FROM cpu_rev WHERE tags_id = 3 AND time >= '2020-01-01 00:08:00' LIMIT 3;
SELECT time, usage_user FROM cpu_rev WHERE tags_id = 3 AND time >= '2020-01-01 00:08:00' LIMIT 3;
SELECT count(*), sum(usage_user) FROM cpu_rev WHERE tags_id IN (3, 4) AND time > '2020-01-01 00:01:00' AND time <= '2020-01-01 00:02:00';
SELECT count(*), sum(usage_user) FROM cpu WHERE tags_id IN (3, 4) AND time > '2020-01-01 00:01:00' AND time <= '2020-01-01 00:02:00';
-- the key's order: no Sort for ORDER BY of the parts after those equal to a value
EXPLAIN (costs off) SELECT * FROM cpu WHERE tags_id IN (3, 4) ORDER BY tags_id, time;
EXPLAIN (costs off) SELECT * FROM cpu_rev WHERE tags_id = 3 ORDER BY time DESC LIMIT 2;
SELECT time FROM cpu_rev WHERE tags_id = 3 ORDER BY time DESC LIMIT 2;
SELECT time, usage_user FROM cpu WHERE tags_id = 3 ORDER BY time LIMIT 2;
EXPLAIN (costs off) SELECT t.id, l.* FROM tags t,
  LATERAL (SELECT time, usage_user FROM cpu_rev c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) l
  WHERE t.id < 3;
SELECT t.id, l.* FROM tags t,
  LATERAL (SELECT time, usage_user FROM cpu_rev c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) l
  WHERE t.id < 3 ORDER BY t.id;

-- privileges: the row form is no way around the wide table's
DROP ROLE IF EXISTS regress_rows_reader, regress_rows_writer;
CREATE ROLE regress_rows_reader;
CREATE ROLE regress_rows_writer;
GRANT SELECT ON cpu TO regress_rows_reader;
GRANT SELECT, INSERT, UPDATE, DELETE ON cpu TO regress_rows_writer;
GRANT SELECT ON rc TO regress_rows_writer;
SET ROLE regress_rows_reader;
SELECT count(*) FROM cpu;
SELECT count(*) FROM cpu WHERE tags_id = 1;
ANALYZE cpu;
RESET ROLE;
GRANT SELECT ON rc TO regress_rows_reader;
REVOKE SELECT ON cpu FROM regress_rows_reader;
SET ROLE regress_rows_reader;
SELECT count(*) FROM cpu;
SELECT count(*) FROM rc WHERE row_key LIKE '09223372036854775811#%';
RESET ROLE;
GRANT SELECT ON cpu TO regress_rows_reader;
SET ROLE regress_rows_reader;
SELECT count(*) FROM cpu WHERE tags_id = 3;
INSERT INTO cpu VALUES ('2020-01-05', 3, 1, 1);
RESET ROLE;
SET ROLE regress_rows_writer;
INSERT INTO cpu VALUES ('2020-01-05', 3, 1, 1);
COPY cpu FROM STDIN (FORMAT csv);
2020-01-05 00:00:00,3,1,1
\.
UPDATE cpu SET usage_user = 0 WHERE tags_id = 3;
DELETE FROM cpu WHERE tags_id = 3;
RESET ROLE;
GRANT INSERT ON rc TO regress_rows_writer;
SET ROLE regress_rows_writer;
INSERT INTO cpu VALUES ('2020-01-05', 3, 1, 1);
UPDATE cpu SET usage_user = 0 WHERE tags_id = 3 AND time = '2020-01-05';
DELETE FROM cpu WHERE tags_id = 3 AND time = '2020-01-05';
RESET ROLE;
SELECT count(*) FROM cpu WHERE tags_id = 3;
-- row level security on the wide table: the row form refuses it
ALTER TABLE rc ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_three ON rc USING (row_key LIKE '09223372036854775811#%');
SET ROLE regress_rows_reader;
SELECT count(*) FROM rc;
SELECT count(*) FROM cpu;
RESET ROLE;
SET ROLE regress_rows_writer;
INSERT INTO cpu VALUES ('2020-01-06', 3, 1, 1);
RESET ROLE;
-- (a superuser is not subject to it)
SELECT count(*) FROM cpu WHERE tags_id = 3;
ALTER TABLE rc DISABLE ROW LEVEL SECURITY;
DROP POLICY only_three ON rc;
SELECT count(*) FROM cpu WHERE tags_id = 3;

DROP FOREIGN TABLE cpu, cpu_rev, hosts, piped, ints, times;
DROP TABLE rc, tags, not_wide;
DROP OWNED BY regress_rows_reader, regress_rows_writer;
DROP ROLE regress_rows_reader, regress_rows_writer;

-- operands PostgreSQL compares with a text key part: name, varchar, bpchar
-- (bpchar's trailing blanks go with its cast to text), casts; and a varchar
-- key column compared with bpchar (not a key condition: filtered)
CREATE TABLE rop_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rop_cells', 'm');
CREATE FOREIGN TABLE rop (host text, v float8) SERVER wide_rows OPTIONS (cells 'rop_cells', family 'm', key 'host');
CREATE FOREIGN TABLE ropv (host varchar(10), v float8) SERVER wide_rows OPTIONS (cells 'rop_cells', family 'm', key 'host');
INSERT INTO rop VALUES ('a', 1), ('a ', 2), ('b', 3), ('a#x', 4);
EXPLAIN (costs off) SELECT * FROM rop WHERE host = 'a'::name;
SELECT * FROM rop WHERE host = 'a'::name;
SELECT * FROM rop WHERE host = 'a '::varchar;
SELECT * FROM rop WHERE host = 'a '::bpchar;
SELECT * FROM rop WHERE host IN ('a'::name, 'a#x'::name) ORDER BY v;
SELECT * FROM rop WHERE host = ANY (ARRAY['b', 'a ']::varchar[]) ORDER BY v;
SELECT * FROM ropv WHERE host = 'a '::bpchar ORDER BY v;
SELECT * FROM ropv WHERE host = 'a#x' ORDER BY v;
DROP FOREIGN TABLE rop, ropv;
DROP TABLE rop_cells;

-- a value column compared with a constant (a leakproof operator) is tested
-- as soon as a row's cells are gathered: a row without the cell (NULL)
-- never passes, the constant may stand on either side, an OR or another
-- condition is checked on the rows returned, GROUP BY inside the scan too;
-- EXPLAIN ANALYZE counts the rows so removed
CREATE TABLE rpf_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rpf_cells', 'm');
CREATE FOREIGN TABLE rpf (host text, a float8, b float8) SERVER wide_rows OPTIONS (cells 'rpf_cells', family 'm', key 'host');
INSERT INTO rpf VALUES ('h1', 1, 10), ('h2', 5, NULL), ('h3', NULL, 30), ('h4', 9, 40), ('h5', 'NaN', -1);
SELECT host FROM rpf WHERE a > 2 ORDER BY host;
SELECT host FROM rpf WHERE 2 < a ORDER BY host;
SELECT host FROM rpf WHERE a > 2 AND b > 20 ORDER BY host;
SELECT host FROM rpf WHERE a > 0 AND b IS NULL ORDER BY host;
SELECT host FROM rpf WHERE a > 2 OR b > 20 ORDER BY host;
SELECT host FROM rpf WHERE a = 'NaN' ORDER BY host;
SELECT host FROM rpf WHERE a > 2 AND host > 'h2' ORDER BY host;
SELECT count(*), max(b), min(a) FROM rpf WHERE a >= 1;
SELECT host, count(*) FROM rpf WHERE b < 35 GROUP BY host ORDER BY host;
EXPLAIN (analyze, costs off, timing off, summary off) SELECT * FROM rpf WHERE a > 2;
EXPLAIN (analyze, costs off, timing off, summary off) SELECT count(*) FROM rpf WHERE 20 > b;
-- columns whose values no one uses only say that a row exists: e3 and e4
-- have no z, yet are rows; compacted into one run (read as stored) the
-- scan reads one cell of such columns per row (Cells Read: 5 of 6)
CREATE TABLE rpe_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rpe_cells', 'm');
CREATE FOREIGN TABLE rpe (host text, x float8, y float8, z float8) SERVER wide_rows OPTIONS (cells 'rpe_cells', family 'm', key 'host');
INSERT INTO rpe VALUES ('e1', 1, 2, 3), ('e2', NULL, NULL, 4), ('e3', 5, NULL, NULL), ('e4', NULL, 6, NULL);
SELECT host, z FROM rpe ORDER BY host;
SELECT count(*), count(z), max(z) FROM rpe;
SELECT FROM wide.compact('rpe_cells', major => true);
SELECT host, z FROM rpe ORDER BY host;
SELECT count(*), count(z), max(z) FROM rpe;
SELECT host, count(*), sum(y) FROM rpe GROUP BY host ORDER BY host;
EXPLAIN (analyze, costs off, timing off, summary off) SELECT host, z FROM rpe;
DROP FOREIGN TABLE rpe;
DROP TABLE rpe_cells;
DROP FOREIGN TABLE rpf;
DROP TABLE rpf_cells;
-- a backend keeps each row form's shape (am/rows_shape.c) until a relcache
-- invalidation of the form or of its wide table: every change below is seen
-- by the next statement of the same session
CREATE TABLE rsc_a (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rsc_a', 'm');
SELECT wide.create_family('rsc_a', 'n');
INSERT INTO rsc_a VALUES ('h1', 'm', 'v', now(), 1), ('h1', 'm', 'w', now(), 2),
  ('h1', 'n', 'v', now(), 3), ('h2', 'n', 'v', now(), 4);
CREATE FOREIGN TABLE rsc (host text, v float8) SERVER wide_rows OPTIONS (cells 'rsc_a', family 'm', key 'host');
SELECT * FROM rsc ORDER BY host;
-- the table's options
ALTER FOREIGN TABLE rsc OPTIONS (SET family 'n');
SELECT * FROM rsc ORDER BY host;
-- ... rolled back
BEGIN;
ALTER FOREIGN TABLE rsc OPTIONS (SET family 'm');
SELECT * FROM rsc ORDER BY host;
ROLLBACK;
SELECT * FROM rsc ORDER BY host;
-- a column's options, a column added, one dropped
ALTER FOREIGN TABLE rsc OPTIONS (SET family 'm');
ALTER FOREIGN TABLE rsc ALTER COLUMN v OPTIONS (ADD qualifier 'w');
SELECT * FROM rsc ORDER BY host;
ALTER FOREIGN TABLE rsc ADD COLUMN x float8 OPTIONS (qualifier 'v');
SELECT * FROM rsc ORDER BY host;
ALTER FOREIGN TABLE rsc DROP COLUMN v;
SELECT * FROM rsc ORDER BY host;
-- a DELETE after the change deletes by the new shape
ALTER FOREIGN TABLE rsc OPTIONS (SET family 'n');
DELETE FROM rsc WHERE host = 'h2';
SELECT * FROM rsc ORDER BY host;
-- the wide table: its family dropped, the table renamed, another of the name
SELECT wide.drop_family('rsc_a', 'n');
SELECT * FROM rsc ORDER BY host;
ALTER FOREIGN TABLE rsc OPTIONS (SET family 'm');
ALTER TABLE rsc_a RENAME TO rsc_b;
SELECT * FROM rsc ORDER BY host;
CREATE TABLE rsc_a (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rsc_a', 'm');
INSERT INTO rsc_a VALUES ('h9', 'm', 'v', now(), 9);
SELECT * FROM rsc ORDER BY host;
-- the cache holds no privilege: a role with SELECT on the form but not on
-- its wide table is refused after the shape was cached by another
CREATE ROLE regress_rsc;
GRANT SELECT ON rsc TO regress_rsc;
SET ROLE regress_rsc;
SELECT * FROM rsc ORDER BY host;
RESET ROLE;
GRANT SELECT ON rsc_a TO regress_rsc;
SET ROLE regress_rsc;
SELECT * FROM rsc ORDER BY host;
RESET ROLE;
REVOKE SELECT ON rsc_a FROM regress_rsc;
SET ROLE regress_rsc;
SELECT * FROM rsc ORDER BY host;
RESET ROLE;
REVOKE SELECT ON rsc FROM regress_rsc;
DROP ROLE regress_rsc;
-- a cells option found through the search path follows it: no invalidation
-- tells a change of search_path
CREATE SCHEMA rsc_s1;
CREATE SCHEMA rsc_s2;
CREATE TABLE rsc_s1.rsc_p (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
CREATE TABLE rsc_s2.rsc_p (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rsc_s1.rsc_p', 'm');
SELECT wide.create_family('rsc_s2.rsc_p', 'm');
INSERT INTO rsc_s1.rsc_p VALUES ('s1', 'm', 'v', now(), 1);
INSERT INTO rsc_s2.rsc_p VALUES ('s2', 'm', 'v', now(), 2);
CREATE FOREIGN TABLE rscp (host text, v float8) SERVER wide_rows OPTIONS (cells 'rsc_p', family 'm', key 'host');
SET search_path = rsc_s1, public;
SELECT * FROM rscp;
SET search_path = rsc_s2, public;
SELECT * FROM rscp;
RESET search_path;
SELECT * FROM rscp;
DROP FOREIGN TABLE rscp;
DROP SCHEMA rsc_s1 CASCADE;
DROP SCHEMA rsc_s2 CASCADE;
DROP FOREIGN TABLE rsc;
DROP TABLE rsc_a;
DROP TABLE rsc_b;
