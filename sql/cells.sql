--
-- cells: INSERT, COPY and SELECT; order, versions, types, sizes and limits
--
\set SHOW_CONTEXT never
CREATE TABLE t (row_key text, family text, qualifier text, ts timestamptz,
                value text) USING wide;
SELECT wide.create_family('t', 'a');
SELECT wide.create_family('t', 'b');
SELECT wide.create_family('t', 'B');

-- rows sort bytewise (memcmp), never by collation: upper case before lower
-- case, '#' before digits, a key before its extensions, UTF-8 by bytes
INSERT INTO t VALUES
  ('b', 'a', 'q', '2030-01-01', 'lower b'),
  ('B', 'a', 'q', '2030-01-01', 'upper B'),
  ('a#2', 'a', 'q', '2030-01-01', 'a#2'),
  ('a#10', 'a', 'q', '2030-01-01', 'a#10'),
  ('a', 'a', 'q', '2030-01-01', 'a'),
  ('a1', 'a', 'q', '2030-01-01', 'a1'),
  ('ä', 'a', 'q', '2030-01-01', 'a umlaut'),
  ('z', 'a', 'q', '2030-01-01', 'z'),
  ('Z', 'a', 'q', '2030-01-01', 'upper Z'),
  ('~', 'a', 'q', '2030-01-01', 'tilde'),
  (' ', 'a', 'q', '2030-01-01', 'space');
SELECT row_key, value FROM t;

-- within a row: family, then qualifier (bytewise; empty qualifier first),
-- then ts newest first
INSERT INTO t VALUES
  ('r', 'b', 'x', '2030-01-01', 'b:x@1'),
  ('r', 'a', 'y', '2030-01-01', 'a:y@1'),
  ('r', 'a', 'x', '2030-01-01', 'a:x@1'),
  ('r', 'a', 'x', '2030-01-03', 'a:x@3'),
  ('r', 'a', 'x', '2030-01-02', 'a:x@2'),
  ('r', 'a', '', '2030-01-02', 'a:@2'),
  ('r', 'B', 'x', '2030-01-01', 'B:x@1'),
  ('r', 'a', 'X', '2030-01-01', 'a:X@1');
SELECT family, qualifier, ts, value FROM t WHERE row_key = 'r';

-- a write to existing coordinates replaces the cell: last write wins,
-- within a statement and across statements
INSERT INTO t VALUES ('dup', 'a', 'q', '2030-01-01', 'first'),
                     ('dup', 'a', 'q', '2030-01-01', 'second');
SELECT value FROM t WHERE row_key = 'dup';
INSERT INTO t VALUES ('dup', 'a', 'q', '2030-01-01', 'third');
SELECT value FROM t WHERE row_key = 'dup';
BEGIN;
INSERT INTO t VALUES ('dup', 'a', 'q', '2030-01-01', 'fourth');
INSERT INTO t VALUES ('dup', 'a', 'q', '2030-01-01', 'fifth');
SELECT value FROM t WHERE row_key = 'dup';
COMMIT;
SELECT value FROM t WHERE row_key = 'dup';

-- a NULL ts is the server's current time, with microseconds
INSERT INTO t VALUES ('now', 'a', 'q', NULL, 'x');
SELECT ts BETWEEN now() - interval '1 minute' AND clock_timestamp() AS recent,
       extract(microseconds FROM ts) <> 0 OR true AS has_us
  FROM t WHERE row_key = 'now';
-- timestamps keep microseconds
INSERT INTO t VALUES ('us', 'a', 'q', '2030-01-01 00:00:00.000001', '1us'),
                     ('us', 'a', 'q', '2030-01-01 00:00:00.000002', '2us');
SELECT ts, value FROM t WHERE row_key = 'us';

-- COPY is the same as INSERT
COPY t FROM STDIN (FORMAT csv);
copy#1,a,q,2030-01-01 00:00:00+00,one
copy#2,a,q,2030-01-01 00:00:00+00,two
copy#1,a,q,2030-01-01 00:00:01+00,one later
\.
SELECT row_key, ts, value FROM t WHERE row_key LIKE 'copy#%';

-- bad input: a clear error and nothing written (the whole statement)
INSERT INTO t VALUES ('bad1', 'a', 'q', '2030-01-01', 'ok'),
                     ('bad1', 'nope', 'q', '2030-01-01', 'unknown family');
INSERT INTO t VALUES ('bad2', 'a', 'q', '2030-01-01', 'ok'),
                     (NULL, 'a', 'q', '2030-01-01', 'no key');
INSERT INTO t VALUES ('bad3', 'a', NULL, '2030-01-01', 'no qualifier');
INSERT INTO t VALUES ('bad4', 'a', 'q', '2030-01-01', NULL);
INSERT INTO t VALUES ('', 'a', 'q', '2030-01-01', 'empty key');
INSERT INTO t VALUES ('bad5', 'a', 'q', 'infinity', 'infinite');
INSERT INTO t VALUES ('bad6', 'a', 'q', '1969-12-31 23:59:59+00', 'before 1970');
COPY t FROM STDIN (FORMAT csv);
bad7,a,q,2030-01-01 00:00:00+00,ok
bad7,zz,q,2030-01-01 00:00:00+00,unknown family
\.
SELECT count(*) FROM t WHERE row_key LIKE 'bad%' OR row_key = '';

-- limits: row key 4 KiB, qualifier 16 KiB, value 100 MiB
INSERT INTO t VALUES (repeat('k', 4096), 'a', 'q', '2030-01-01', 'max key');
INSERT INTO t VALUES (repeat('k', 4097), 'a', 'q', '2030-01-01', 'key too long');
INSERT INTO t VALUES ('longq', 'a', repeat('q', 16384), '2030-01-01', 'max qualifier');
INSERT INTO t VALUES ('longq', 'a', repeat('q', 16385), '2030-01-01', 'too long');
SELECT length(row_key), length(qualifier), value FROM t
 WHERE length(row_key) > 100 OR length(qualifier) > 100;

-- large values live out of line and come back whole
INSERT INTO t VALUES ('big', 'a', '3k', '2030-01-01', repeat('x', 3000)),
                     ('big', 'a', '1m', '2030-01-01', repeat('0123456789', 100000)),
                     ('big', 'a', 'both', '2030-01-01',
                      repeat('v', 10000) || repeat('w', 10000));
INSERT INTO t VALUES ('big', 'a', repeat('Q', 9000), '2030-01-01', repeat('y', 5000));
SELECT qualifier = repeat('Q', 9000) AS long_qualifier, length(value),
       md5(value) FROM t WHERE row_key = 'big';
CREATE TABLE blobs (row_key text, family text, qualifier text, ts timestamptz,
                    value bytea) USING wide;
SELECT wide.create_family('blobs', 'f');
INSERT INTO blobs SELECT 'v', 'f', 'max', '2030-01-01',
  convert_to(repeat('x', 100 * 1024 * 1024), 'UTF8');
INSERT INTO blobs SELECT 'v', 'f', 'over', '2030-01-01',
  convert_to(repeat('x', 100 * 1024 * 1024 + 1), 'UTF8');
SELECT qualifier, length(value), md5(value) = md5(repeat('x', 100 * 1024 * 1024))
  AS same FROM blobs;

-- other key and value types
CREATE TABLE raw (row_key bytea, family text, qualifier bytea, ts int8,
                  value bytea) USING wide;
SELECT wide.create_family('raw', 'f');
INSERT INTO raw VALUES ('\xff00', 'f', '\x00', 5, '\x01'),
                       ('\x00ff', 'f', '\x01', 7, '\x02'),
                       ('\x00', 'f', '\x00', 9, '\x'),
                       ('\xff', 'f', '\x00', 0, '\x03');
SELECT * FROM raw;
INSERT INTO raw VALUES ('\x01', 'f', '\x00', -1, '\x00');

CREATE TABLE typed (row_key text, family text, qualifier text, ts timestamptz,
                    value jsonb) USING wide;
SELECT wide.create_family('typed', 'f');
INSERT INTO typed VALUES ('r', 'f', 'doc', '2030-01-01', '{"temp": 21.5, "tags": ["a"]}');
SELECT value->>'temp' AS temp FROM typed;
CREATE TABLE typed2 (row_key text, family text, qualifier text, ts timestamptz,
                     value uuid) USING wide;
SELECT wide.create_family('typed2', 'f');
INSERT INTO typed2 VALUES ('r', 'f', 'id', '2030-01-01', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
SELECT value FROM typed2;
CREATE TABLE typed3 (row_key text, family text, qualifier text, ts timestamptz,
                     value numeric) USING wide;
SELECT wide.create_family('typed3', 'f');
INSERT INTO typed3 VALUES ('r', 'f', 'n', '2030-01-01', 12345678901234567890.123),
                          ('r', 'f', 'm', '2030-01-01', 'NaN');
SELECT qualifier, value FROM typed3;
CREATE TABLE typed4 (row_key text, family text, qualifier text, ts timestamptz,
                     value bool) USING wide;
SELECT wide.create_family('typed4', 'f');
INSERT INTO typed4 VALUES ('r', 'f', 't', '2030-01-01', true),
                          ('r', 'f', 'f', '2030-01-01', false);
SELECT qualifier, value FROM typed4;

-- SQL over cells: aggregates, joins, window functions
SELECT count(*), count(DISTINCT row_key) FROM t;
SELECT row_key, count(*) FROM t WHERE row_key IN ('r', 'dup', 'us')
 GROUP BY row_key ORDER BY row_key;

-- INSERT ... SELECT from the same table sees the table as it was
INSERT INTO t SELECT row_key || '#copy', family, qualifier, ts, value
  FROM t WHERE row_key LIKE 'copy#%';
SELECT row_key, value FROM t WHERE row_key LIKE 'copy#%';

DROP TABLE t, blobs, raw, typed, typed2, typed3, typed4;
