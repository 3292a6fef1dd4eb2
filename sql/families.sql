--
-- families: the family catalog, GC policies applied on read, aggregates
--
\set SHOW_CONTEXT never
CREATE TABLE metric (row_key text, family text, qualifier text,
                     ts timestamptz, value float8) USING wide;

-- no families yet: every write fails, nothing is written
INSERT INTO metric VALUES ('r', 'm', 'q', '2030-01-01', 1);
SELECT * FROM wide.families('metric');

SELECT wide.create_family('metric', 'm', max_versions => 3, max_age => '30 days');
SELECT wide.create_family('metric', 'raw');
SELECT wide.create_family(tbl => 'metric', family => 'both', max_versions => 1,
                          max_age => '1 hour', gc => 'intersection');
SELECT * FROM wide.families('metric');

-- bad definitions: clear errors, catalog unchanged
SELECT wide.create_family('metric', 'm');
SELECT wide.create_family('metric', 'bad name');
SELECT wide.create_family('metric', '');
SELECT wide.create_family('metric', repeat('x', 65));
SELECT wide.create_family('metric', 'f', max_versions => 0);
SELECT wide.create_family('metric', 'f', max_age => '-1 day');
SELECT wide.create_family('metric', 'f', gc => 'both');
SELECT wide.create_family('metric', 'f', aggregate => 'avg');
SELECT wide.create_family('metric', 'f', aggregate => 'hll');
SELECT wide.create_family('pg_class', 'f');
SELECT wide.create_family('no_such_table', 'f');
SELECT wide.alter_family('metric', 'nope', max_versions => 1);
SELECT wide.drop_family('metric', 'nope');
SELECT family FROM wide.families('metric');

-- aggregate families need a 64-bit integer or float8 value column
CREATE TABLE docs (row_key text, family text, qualifier text, ts timestamptz,
                   value text) USING wide;
SELECT wide.create_family('docs', 'n', aggregate => 'sum');
DROP TABLE docs;

-- GC on read: max_versions keeps the newest versions
INSERT INTO metric VALUES
  ('host1', 'raw', 'cpu', '2030-01-01 00:00', 1),
  ('host1', 'raw', 'cpu', '2030-01-01 00:01', 2),
  ('host1', 'm', 'cpu', '2030-01-01 00:00', 10),
  ('host1', 'm', 'cpu', '2030-01-01 00:01', 11),
  ('host1', 'm', 'cpu', '2030-01-01 00:02', 12),
  ('host1', 'm', 'cpu', '2030-01-01 00:03', 13),
  ('host1', 'm', 'mem', '2030-01-01 00:00', 20);
SELECT * FROM metric;

-- max_age: cells older than the age are gone at once (union with versions)
INSERT INTO metric VALUES ('host2', 'm', 'cpu', now() - interval '31 days', 1),
                          ('host2', 'm', 'cpu', now() - interval '29 days', 2);
SELECT row_key, qualifier, value FROM metric WHERE row_key = 'host2';

-- intersection: collected only when both rules agree
INSERT INTO metric VALUES ('host3', 'both', 'x', now() - interval '2 hours', 1),
                          ('host3', 'both', 'x', now() - interval '3 hours', 2),
                          ('host3', 'both', 'x', now() - interval '1 minute', 3),
                          ('host3', 'both', 'x', now() - interval '2 minutes', 4);
SELECT row_key, value FROM metric WHERE row_key = 'host3';

-- alter_family replaces the policy; reads follow at once
SELECT wide.alter_family('metric', 'm', max_versions => 1);
SELECT * FROM wide.families('metric') WHERE family = 'm';
SELECT row_key, qualifier, value FROM metric WHERE family = 'm';
SELECT wide.alter_family('metric', 'm');
SELECT row_key, qualifier, value FROM metric WHERE family = 'm';
SELECT wide.alter_family('metric', 'm', max_versions => -1);
SELECT * FROM wide.families('metric') WHERE family = 'm';

-- sum/min/max: every write merges into the cell of its timestamp (bucket)
CREATE TABLE counters (row_key text, family text, qualifier text,
                       ts timestamptz, value int8) USING wide;
SELECT wide.create_family('counters', 'sum', aggregate => 'sum');
SELECT wide.create_family('counters', 'lo', aggregate => 'min');
SELECT wide.create_family('counters', 'hi', aggregate => 'max');
INSERT INTO counters VALUES
  ('campaign#1', 'sum', 'donations', '2030-01-01', 10),
  ('campaign#1', 'sum', 'donations', '2030-01-01', 5),
  ('campaign#1', 'sum', 'donations', '2030-01-01', -3),
  ('campaign#1', 'sum', 'donations', '2030-01-02', 7),
  ('campaign#1', 'lo', 'donation', '2030-01-01', 10),
  ('campaign#1', 'lo', 'donation', '2030-01-01', -5),
  ('campaign#1', 'hi', 'donation', '2030-01-01', 10),
  ('campaign#1', 'hi', 'donation', '2030-01-01', 50);
INSERT INTO counters VALUES ('campaign#1', 'sum', 'donations', '2030-01-01', 100);
SELECT * FROM counters;
-- the sum wraps around on overflow, as Bigtable's does
INSERT INTO counters VALUES ('big', 'sum', 'n', '2030-01-01', 9223372036854775807),
                            ('big', 'sum', 'n', '2030-01-01', 1);
SELECT row_key, value FROM counters WHERE row_key = 'big';
-- a bytea value column carries the accumulator as 8 big-endian bytes
CREATE TABLE bcounters (row_key text, family text, qualifier text,
                        ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('bcounters', 'sum', aggregate => 'sum');
INSERT INTO bcounters VALUES ('r', 'sum', 'n', '2030-01-01', '\x0000000000000002'),
                             ('r', 'sum', 'n', '2030-01-01', '\x0000000000000003');
SELECT row_key, value FROM bcounters;
INSERT INTO bcounters VALUES ('r', 'sum', 'n', '2030-01-01', '\x01');
SELECT row_key, value FROM bcounters;
-- a family is aggregate or not for life; alter_family keeps its type
SELECT wide.alter_family('counters', 'sum', max_versions => 2);
SELECT * FROM wide.families('counters');

-- drop_family: its cells are unreadable at once; a new family of the same
-- name starts empty
SELECT count(*) FROM metric WHERE family = 'raw';
SELECT wide.drop_family('metric', 'raw');
SELECT count(*) FROM metric WHERE family = 'raw';
INSERT INTO metric VALUES ('host1', 'raw', 'cpu', '2030-01-01 00:05', 5);
SELECT wide.create_family('metric', 'raw');
SELECT count(*) FROM metric WHERE family = 'raw';
INSERT INTO metric VALUES ('host1', 'raw', 'cpu', '2030-01-01 00:05', 5);
SELECT row_key, family, qualifier, value FROM metric WHERE family = 'raw';

-- family DDL is transactional
BEGIN;
SELECT wide.drop_family('metric', 'raw');
SELECT count(*) FROM metric WHERE family = 'raw';
ROLLBACK;
SELECT count(*) FROM metric WHERE family = 'raw';

-- an INSERT that leaves the family out
INSERT INTO metric (row_key, qualifier, ts, value) VALUES ('x', 'q', now(), 1);

-- the catalog is the family column's default (dumped with the table)
SELECT pg_get_expr(adbin, adrelid) LIKE 'wide.family_catalog(%' AS is_catalog
  FROM pg_attrdef WHERE adrelid = 'metric'::regclass;

DROP TABLE metric, counters, bcounters;

-- a misspelled family: the write's error says which family was meant, and
-- the family functions list the families; a name far from every family
-- gets no guess
CREATE TABLE typo (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.alter_family('typo', 'hits', max_versions => 1);
SELECT wide.create_family('typo', 'hits');
SELECT wide.create_family('typo', 'errors');
INSERT INTO typo VALUES ('r', 'hitz', 'q', 1, 1);
INSERT INTO typo VALUES ('r', 'eror', 'q', 1, 1);
INSERT INTO typo VALUES ('r', 'latency', 'q', 1, 1);
SELECT wide.set_cell('typo', 'r', 'hts', 'q', 1, 1);
SELECT wide.drop_family('typo', 'hitz');
SELECT count(*) FROM typo;
DROP TABLE typo;
