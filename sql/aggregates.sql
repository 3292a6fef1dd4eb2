--
-- aggregates: add_to_cell, merge_to_cell, sum/min/max/hll, buckets, deletes,
-- GC, type errors, HyperLogLog sketches
--
\set SHOW_CONTEXT never
CREATE TABLE donations (row_key text, family text, qualifier text,
                        ts timestamptz, value int8) USING wide;
SELECT wide.create_family('donations', 'total', aggregate => 'sum');
SELECT wide.create_family('donations', 'smallest', aggregate => 'min');
SELECT wide.create_family('donations', 'largest', aggregate => 'max');
SELECT wide.create_family('donations', 'note');

-- every input with the same ts (the day's bucket) lands in one cell; a new
-- ts starts a new cell; negative inputs count
SELECT wide.add_to_cell('donations', 'charity#1', 'total', 'campaign7',
                        date_trunc('day', '2030-03-01 10:17'::timestamptz), 25);
SELECT wide.add_to_cell('donations', 'charity#1', 'total', 'campaign7',
                        date_trunc('day', '2030-03-01 18:40'::timestamptz), 100);
SELECT wide.add_to_cell('donations', 'charity#1', 'total', 'campaign7',
                        date_trunc('day', '2030-03-01 23:59'::timestamptz), -20);
SELECT wide.add_to_cell('donations', 'charity#1', 'total', 'campaign7',
                        date_trunc('day', '2030-03-02 00:01'::timestamptz), 5);
SELECT wide.add_to_cell('donations', 'charity#1', 'smallest', 'campaign7', '2030-03-01', 25);
SELECT wide.add_to_cell('donations', 'charity#1', 'smallest', 'campaign7', '2030-03-01', -20);
SELECT wide.add_to_cell('donations', 'charity#1', 'largest', 'campaign7', '2030-03-01', 25);
SELECT wide.add_to_cell('donations', 'charity#1', 'largest', 'campaign7', '2030-03-01', 100);
-- INSERT (and COPY) into an aggregate family is AddToCell
INSERT INTO donations VALUES ('charity#1', 'total', 'campaign7', '2030-03-01', 1000),
                             ('charity#1', 'largest', 'campaign7', '2030-03-01', 7);
SELECT * FROM donations;
-- integer types, text and 8-byte bytea inputs are int8
SELECT wide.add_to_cell('donations', 'charity#2', 'total', 'c', '2030-03-01', 1::int2);
SELECT wide.add_to_cell('donations', 'charity#2', 'total', 'c', '2030-03-01', 2::int4);
SELECT wide.add_to_cell('donations', 'charity#2', 'total', 'c', '2030-03-01', '3'::text);
SELECT wide.add_to_cell('donations', 'charity#2', 'total', 'c', '2030-03-01', '\x0000000000000004'::bytea);
SELECT wide.add_to_cell('donations', 'charity#2', 'total', 'c', 1900000000000000, 5);
SELECT row_key, ts, value FROM donations WHERE row_key = 'charity#2';

-- merge_to_cell folds an accumulator as read back; the copy recipe of the
-- Bigtable guide: [DeleteCell(B), MergeToCell(B, value of A)]
SELECT wide.delete_cells('donations', 'charity#3', 'total', 'c');
SELECT wide.merge_to_cell('donations', 'charity#3', 'total', 'c', '2030-03-01', value)
  FROM donations WHERE row_key = 'charity#1' AND family = 'total' AND ts = '2030-03-01';
SELECT wide.merge_to_cell('donations', 'charity#3', 'smallest', 'c', '2030-03-01', value)
  FROM donations WHERE row_key = 'charity#1' AND family = 'smallest';
SELECT row_key, family, value FROM donations WHERE row_key = 'charity#3';
SELECT wide.merge_to_cell('donations', 'charity#3', 'total', 'c', '2030-03-01', 1);
SELECT row_key, family, value FROM donations WHERE row_key = 'charity#3' AND family = 'total';

-- the sum wraps around on overflow (two's complement), as Bigtable's does
SELECT wide.add_to_cell('donations', 'wrap', 'total', 'n', '2030-03-01', 9223372036854775807);
SELECT wide.add_to_cell('donations', 'wrap', 'total', 'n', '2030-03-01', 2);
SELECT value FROM donations WHERE row_key = 'wrap';
SELECT wide.add_to_cell('donations', 'wrap', 'total', 'n', '2030-03-01', -3);
SELECT value FROM donations WHERE row_key = 'wrap';

-- aborted inputs never count; a rolled-back savepoint's neither
BEGIN;
SELECT wide.add_to_cell('donations', 'tx', 'total', 'n', '2030-03-01', 1);
ROLLBACK;
BEGIN;
SELECT wide.add_to_cell('donations', 'tx', 'total', 'n', '2030-03-01', 10);
SAVEPOINT s;
SELECT wide.add_to_cell('donations', 'tx', 'total', 'n', '2030-03-01', 100);
ROLLBACK TO s;
SELECT value FROM donations WHERE row_key = 'tx';
COMMIT;
SELECT value FROM donations WHERE row_key = 'tx';

-- deletes reset the accumulator: inputs after the delete start from zero
SELECT wide.delete_cells('donations', 'charity#1', 'total', 'campaign7');
SELECT wide.add_to_cell('donations', 'charity#1', 'total', 'campaign7', '2030-03-01', 3);
SELECT wide.delete_family('donations', 'charity#1', 'smallest');
SELECT wide.add_to_cell('donations', 'charity#1', 'smallest', 'campaign7', '2030-03-01', 50);
SELECT * FROM donations WHERE row_key = 'charity#1';
SELECT wide.delete_row('donations', 'charity#1');
SELECT wide.add_to_cell('donations', 'charity#1', 'largest', 'campaign7', '2030-03-01', -1);
SELECT * FROM donations WHERE row_key = 'charity#1';
-- a time-range delete resets only the buckets it covers
SELECT wide.add_to_cell('donations', 'days', 'total', 'n', '2030-03-01', 1);
SELECT wide.add_to_cell('donations', 'days', 'total', 'n', '2030-03-02', 2);
SELECT wide.add_to_cell('donations', 'days', 'total', 'n', '2030-03-03', 3);
SELECT wide.delete_cells('donations', 'days', 'total', 'n', '2030-03-02', '2030-03-03');
SELECT wide.add_to_cell('donations', 'days', 'total', 'n', '2030-03-02', 20);
SELECT ts, value FROM donations WHERE row_key = 'days';

-- flush and compaction fold the inputs; the cells read the same
SELECT count(*) AS cells, sum(value) AS total FROM donations;
SELECT FROM wide.compact('donations');
SELECT count(*) AS cells, sum(value) AS total FROM donations;
SELECT wide.add_to_cell('donations', 'days', 'total', 'n', '2030-03-02', 200);
SELECT FROM wide.compact('donations', major => true);
SELECT count(*) AS cells, sum(value) AS total FROM donations;
SELECT ts, value FROM donations WHERE row_key = 'days';
SELECT count(*) AS runs, sum(cells) AS records FROM wide.runs('donations');
SELECT * FROM wide.verify('donations');

-- GC policies apply to aggregate cells like any cell: the newest buckets stay
SELECT wide.create_family('donations', 'recent', max_versions => 2, aggregate => 'sum');
SELECT count(*) FROM (
  SELECT wide.add_to_cell('donations', 'gc', 'recent', 'n', d, 1)
    FROM generate_series('2030-03-01'::timestamptz, '2030-03-05', '1 day') d,
         generate_series(1, 3)) s;
SELECT ts, value FROM donations WHERE row_key = 'gc';
SELECT FROM wide.compact('donations', major => true);
SELECT ts, value FROM donations WHERE row_key = 'gc';
-- an input to a collected bucket is collected too (it is still not among
-- the newest two); a newer bucket pushes the oldest out
SELECT wide.add_to_cell('donations', 'gc', 'recent', 'n', '2030-03-01', 1);
SELECT wide.add_to_cell('donations', 'gc', 'recent', 'n', '2030-03-06', 1);
SELECT ts, value FROM donations WHERE row_key = 'gc';

-- errors, each writing nothing
SELECT count(*) FROM donations;
SELECT wide.add_to_cell('donations', 'e', 'note', 'n', '2030-03-01', 1);
SELECT wide.merge_to_cell('donations', 'e', 'note', 'n', '2030-03-01', 1);
SELECT wide.set_cell('donations', 'e', 'total', 'n', 1, '2030-03-01');
SELECT wide.add_to_cell('donations', 'e', 'total', 'n', NULL, 1);
INSERT INTO donations VALUES ('e', 'total', 'n', NULL, 1);
SELECT wide.add_to_cell('donations', 'e', 'total', 'n', '2030-03-01', NULL);
SELECT wide.add_to_cell('donations', 'e', 'total', 'n', '2030-03-01', 'ten');
SELECT wide.add_to_cell('donations', 'e', 'total', 'n', '2030-03-01', 2.5);
SELECT wide.add_to_cell('donations', 'e', 'total', 'n', '2030-03-01', '\x01'::bytea);
SELECT wide.add_to_cell('donations', 'e', 'total', 'n', '2030-03-01', 99999999999999999999);
SELECT wide.add_to_cell('donations', 'e', 'nope', 'n', '2030-03-01', 1);
SELECT wide.add_to_cell('donations', '', 'total', 'n', '2030-03-01', 1);
SELECT wide.add_to_cell('donations', 'e', 'total', 'n', -1, 1);
SELECT wide.add_to_cell('pg_class', 'e', 'total', 'n', '2030-03-01', 1);
-- a bad row in a multi-row INSERT writes none of them
INSERT INTO donations VALUES ('e', 'total', 'n', '2030-03-01', 1),
                             ('e', 'total', 'n', NULL, 1);
SELECT count(*) FROM donations;
SELECT count(*) FROM donations WHERE row_key = 'e';

-- ----------------------------------------------------------------
-- HyperLogLog: distinct visitors per store per day
-- ----------------------------------------------------------------
CREATE TABLE visits (row_key text, family text, qualifier text,
                     ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('visits', 'uniq', aggregate => 'hll');
SELECT wide.create_family('visits', 'n', aggregate => 'sum');
-- 1000 visits from 300 distinct visitors, on two days
SELECT count(*) FROM (
  SELECT wide.add_to_cell('visits', 'store#1', 'uniq', 'visitors',
                          date_trunc('day', '2030-03-01'::timestamptz) + (g % 2) * interval '1 day',
                          'visitor-' || (g % 300))
    FROM generate_series(1, 1000) g) s;
SELECT count(*) FROM (
  SELECT wide.add_to_cell('visits', 'store#1', 'n', 'visits', '2030-03-01', 1)
    FROM generate_series(1, 1000) g) s;
SELECT family, ts, wide.hll_count(value) AS distinct_visitors, length(value) AS bytes
  FROM visits WHERE family = 'uniq';
SELECT family, value FROM visits WHERE family = 'n';
-- the week: merge the days' sketches
SELECT wide.hll_count(wide.hll_union_agg(value)) FROM visits WHERE family = 'uniq';
-- a cell holds the same sketch as hll_add_agg of the same inputs
SELECT value = (SELECT wide.hll_add_agg('visitor-' || (g % 300))
                  FROM generate_series(1, 1000) g WHERE g % 2 = 0) AS same_sketch
  FROM visits WHERE family = 'uniq' AND ts = '2030-03-01';
-- text and bytea of the same bytes are the same input; integers hash as int8
SELECT wide.hll_add_agg(x) = wide.hll_add_agg(convert_to(x, 'UTF8')) AS text_is_bytes
  FROM (VALUES ('a'), ('b')) v(x);
SELECT wide.hll_add_agg(x::int2) = wide.hll_add_agg(x::int8) AS ints_alike
  FROM generate_series(1, 50) x;
-- INSERT into an hll family adds the value's bytes
INSERT INTO visits SELECT 'store#2', 'uniq', 'visitors', '2030-03-01', convert_to('visitor-' || g, 'UTF8')
  FROM generate_series(1, 5000) g;
SELECT wide.hll_count(value) BETWEEN 4900 AND 5100 AS about_5000, length(value) AS bytes
  FROM visits WHERE row_key = 'store#2';
-- merging two sketches gives exactly the sketch of the union (sparse and
-- dense alike), and merging is idempotent
SELECT wide.hll_union(a, b) = u AS union_exact, wide.hll_union(a, a) = a AS idempotent
  FROM (SELECT wide.hll_add_agg(g) FILTER (WHERE g <= 600) AS a,
               wide.hll_add_agg(g) FILTER (WHERE g > 400) AS b,
               wide.hll_add_agg(g) AS u
          FROM generate_series(1, 1000) g) s;
SELECT wide.hll_union(a, b) = u AS union_exact, length(a) AS a_bytes
  FROM (SELECT wide.hll_add_agg(g) FILTER (WHERE g <= 60000) AS a,
               wide.hll_add_agg(g) FILTER (WHERE g > 40000) AS b,
               wide.hll_add_agg(g) AS u
          FROM generate_series(1, 100000) g) s;
-- merge_to_cell round trip: copy store#2's sketch into store#3
SELECT wide.merge_to_cell('visits', 'store#3', 'uniq', 'visitors', '2030-03-01', value)
  FROM visits WHERE row_key = 'store#2';
SELECT (SELECT value FROM visits WHERE row_key = 'store#3') =
       (SELECT value FROM visits WHERE row_key = 'store#2') AS copied;
-- INSERT of a value that is a sketch merges it (so that what SELECT and
-- pg_dump read back restores the same cell); other values are inputs
INSERT INTO visits SELECT 'store#5', family, qualifier, ts, value FROM visits
 WHERE row_key = 'store#2';
SELECT (SELECT value FROM visits WHERE row_key = 'store#5') =
       (SELECT value FROM visits WHERE row_key = 'store#2') AS restored;
-- an empty sketch counts zero; no rows give NULL
SELECT wide.hll_count(wide.hll_add_agg(NULL::text)), length(wide.hll_add_agg(NULL::text));
SELECT wide.hll_add_agg(g) IS NULL FROM generate_series(1, 0) g;
SELECT wide.merge_to_cell('visits', 'store#4', 'uniq', 'v', '2030-03-01', wide.hll_add_agg(NULL::text));
SELECT wide.hll_count(value) FROM visits WHERE row_key = 'store#4';
-- sketches survive flush and compaction unchanged
CREATE TEMP TABLE before AS SELECT row_key, family, qualifier, ts, value FROM visits;
SELECT FROM wide.compact('visits', major => true);
SELECT count(*) AS cells, count(*) FILTER (WHERE b.value IS DISTINCT FROM v.value) AS changed
  FROM before b FULL JOIN visits v USING (row_key, family, qualifier, ts);
-- deletes reset a sketch
SELECT wide.delete_cells('visits', 'store#1', 'uniq', 'visitors');
SELECT wide.add_to_cell('visits', 'store#1', 'uniq', 'visitors', '2030-03-01', 'visitor-1');
SELECT ts, wide.hll_count(value) FROM visits WHERE row_key = 'store#1' AND family = 'uniq';
-- bad sketches and inputs
SELECT wide.hll_count('\x00'::bytea);
SELECT wide.hll_count('\x48010e0300'::bytea);
SELECT wide.hll_count('\x48010e01000001ff'::bytea);
SELECT wide.hll_count('\x48010e010000010100000101'::bytea);
SELECT wide.merge_to_cell('visits', 'x', 'uniq', 'v', '2030-03-01', 'abc'::text);
SELECT wide.merge_to_cell('visits', 'x', 'uniq', 'v', '2030-03-01', '\x1234'::bytea);
SELECT count(*) FROM visits WHERE row_key = 'x';
-- hll needs a bytea value column
SELECT wide.create_family('donations', 'u', aggregate => 'hll');
DROP TABLE visits, donations;
