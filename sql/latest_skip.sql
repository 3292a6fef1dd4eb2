-- Latest values without reading older versions: a read whose filter keeps
-- the first n cells of each column (wide.latest(n), read_current) steps
-- past the rest of each column instead of merging it.  Its answer must be
-- exactly the plain read's: checked against the same filter wrapped in an
-- interleave (which the reader does not recognise, so it reads every
-- version) and against DISTINCT ON over a heap copy, on data with several
-- runs and the write area, aborted and invisible newer versions,
-- tombstones of every kind, aggregates and GC policies.
SET wide.block_size = 1024;   -- columns span many data blocks
CREATE TABLE lt (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('lt', 'p');

-- the optimized read and the plain one ("same: <cells>" or DIFFERENT)
CREATE FUNCTION lt_check(f jsonb, pfx text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
  WITH a AS (SELECT * FROM wide.read_rows(NULL::lt, prefix => pfx, filter => f)),
       b AS (SELECT * FROM wide.read_rows(NULL::lt, prefix => pfx,
                                          filter => jsonb_build_object('interleave', jsonb_build_array(f))))
  SELECT CASE WHEN (SELECT count(*) FROM (TABLE a EXCEPT ALL TABLE b) x) = 0 AND
                   (SELECT count(*) FROM (TABLE b EXCEPT ALL TABLE a) y) = 0
              THEN 'same: ' || (SELECT count(*) FROM a) ELSE 'DIFFERENT' END $$;
-- read_current against the newest cell of each column of a heap copy
CREATE FUNCTION lt_oracle() RETURNS text LANGUAGE plpgsql AS $$
DECLARE d bigint; n bigint;
BEGIN
  CREATE TEMP TABLE lt_heap AS SELECT * FROM lt;
  WITH o AS (SELECT DISTINCT ON (row_key, family, qualifier) * FROM lt_heap
              ORDER BY row_key, family, qualifier, ts DESC),
       c AS (SELECT * FROM wide.read_current(NULL::lt))
  SELECT (SELECT count(*) FROM (TABLE o EXCEPT ALL TABLE c) x) +
         (SELECT count(*) FROM (TABLE c EXCEPT ALL TABLE o) y), (SELECT count(*) FROM c) INTO d, n;
  DROP TABLE lt_heap;
  RETURN CASE WHEN d = 0 THEN 'oracle: ' || n ELSE 'DIFFERENT from the heap: ' || d END;
END $$;
CREATE FUNCTION lt_checks() RETURNS SETOF text LANGUAGE sql AS $$
  SELECT lt_oracle()
  UNION ALL SELECT lt_check('{"cells_per_column_limit_filter": 1}')
  UNION ALL SELECT lt_check('{"cells_per_column_limit_filter": 2}')
  UNION ALL SELECT lt_check('{"cells_per_column_limit_filter": 1}', 'k3')
  UNION ALL SELECT lt_check(wide.chain(wide.family_filter('p|s'), wide.qualifier_filter('q[13]'), wide.latest(1)))
  UNION ALL SELECT lt_check('{"chain": [{"timestamp_range_filter": {"start_timestamp_micros": 100,
                                 "end_timestamp_micros": 150}}, {"cells_per_column_limit_filter": 1}]}')
  UNION ALL SELECT lt_check('{"chain": [{"value_range_filter": {"end_value_open": "5000"}},
                                        {"cells_per_column_limit_filter": 1}]}')
  UNION ALL SELECT lt_check(wide.chain(wide.latest(3), wide.latest(1)))
  UNION ALL SELECT lt_check('{"chain": [{"column_qualifier_regex_filter": "q[0-2]"},
                                        {"timestamp_range_filter": {"start_timestamp_micros": 3,
                                         "end_timestamp_micros": 2600}},
                                        {"cells_per_column_limit_filter": 2}]}')
  UNION ALL SELECT lt_check('{"chain": [{"timestamp_range_filter": {"start_timestamp_micros": 3}},
                                        {"timestamp_range_filter": {"end_timestamp_micros": 250}},
                                        {"cells_per_column_limit_filter": 1}]}') $$;

-- one run, one plain family: cells read straight from the run
INSERT INTO lt SELECT 'k' || r, 'p', 'q' || c, v, r * 100000 + c * 1000 + v
  FROM generate_series(0, 9) r, generate_series(0, 4) c, generate_series(1, 200) v;
SELECT FROM wide.compact('lt', true);
SELECT * FROM lt_checks();
SELECT row_key, qualifier, ts, value FROM wide.read_current(NULL::lt, prefix => 'k3');
-- (the plan's counters: every version but the newest of each column skipped)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_current(NULL::lt, prefix => 'k3');

-- more families: a merged read of several runs and the write area
SELECT wide.create_family('lt', 'v2', max_versions => 2);
SELECT wide.create_family('lt', 's', aggregate => 'sum');
SELECT wide.create_family('lt', 'age', max_age => '1 day');
INSERT INTO lt SELECT 'k' || r, 'p', 'q' || c, v, r * 100000 + c * 1000 + v
  FROM generate_series(0, 9) r, generate_series(0, 4) c, generate_series(201, 260) v;
INSERT INTO lt SELECT 'k' || r, 'v2', 'q' || c, v, v FROM generate_series(0, 9) r,
  generate_series(0, 2) c, generate_series(1, 5) v;
-- aggregate inputs: several per version, some in each run
INSERT INTO lt SELECT 'k' || r, 's', 'q' || c, v % 7, v FROM generate_series(0, 9) r,
  generate_series(0, 2) c, generate_series(1, 50) v;
SELECT FROM wide.compact('lt');
INSERT INTO lt SELECT 'k' || r, 's', 'q' || c, v % 7, v FROM generate_series(0, 9) r,
  generate_series(0, 2) c, generate_series(51, 80) v;
-- max age: old versions collected, recent ones not
INSERT INTO lt SELECT 'k' || r, 'age', 'q0', v, v FROM generate_series(0, 9) r, generate_series(1, 5) v;
INSERT INTO lt SELECT 'k' || r, 'age', 'q1', (extract(epoch FROM now()) * 1000000)::int8 - v * 1000000, v
  FROM generate_series(0, 9) r, generate_series(1, 5) v;
INSERT INTO lt SELECT 'k' || r, 'p', 'q' || c, v, -v FROM generate_series(0, 9) r,
  generate_series(0, 4) c, generate_series(261, 270) v;
SELECT * FROM lt_checks();

-- newer versions that are not visible: aborted, rolled back to a savepoint
BEGIN;
INSERT INTO lt SELECT 'k' || r, 'p', 'q' || c, 1000, 0 FROM generate_series(0, 9) r, generate_series(0, 4) c;
INSERT INTO lt SELECT 'k' || r, 's', 'q0', 1000, 1 FROM generate_series(0, 9) r;
INSERT INTO lt SELECT 'k' || r, 's', 'q1', 6, 1000 FROM generate_series(0, 9) r;
ROLLBACK;
BEGIN;
INSERT INTO lt VALUES ('k1', 'p', 'q1', 271, 271);
SAVEPOINT s;
INSERT INTO lt SELECT 'k' || r, 'p', 'q' || c, 2000, 0 FROM generate_series(0, 9) r, generate_series(0, 4) c;
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT * FROM lt_checks();
-- ... and a version written after a cursor's snapshot, in its transaction
BEGIN;
DECLARE cur CURSOR FOR SELECT row_key, qualifier, ts, value FROM wide.read_current(NULL::lt, prefix => 'k2')
  WHERE family = 'p';
INSERT INTO lt SELECT 'k2', 'p', 'q' || c, 3000, 3000 FROM generate_series(0, 4) c;
FETCH ALL FROM cur;
SELECT row_key, qualifier, ts, value FROM wide.read_current(NULL::lt, prefix => 'k2') WHERE family = 'p';
ROLLBACK;

-- tombstones of every kind: the newest version deleted falls back
SELECT wide.delete_cells('lt', 'k0', 'p', 'q0', 270::int8, 271::int8);   -- the newest version
SELECT wide.delete_cells('lt', 'k0', 'p', 'q1', 240::int8, 300::int8);   -- a range of the newest
SELECT wide.delete_cells('lt', 'k0', 'p', 'q2');                         -- the column
SELECT wide.delete_family('lt', 'k1', 'p');
SELECT wide.delete_row('lt', 'k2');
SELECT wide.set_cell('lt', 'k2', 'p', 'q3', 5::int8, 1::int8);          -- after the row delete
SELECT wide.set_cell('lt', 'k0', 'p', 'q2', 7::int8, 3::int8);          -- an older ts after the delete
DELETE FROM lt WHERE row_key = 'k4' AND family = 'p' AND ts > 250;       -- the newest versions
DELETE FROM lt WHERE row_key = 'k5' AND family = 's' AND ts = 6;         -- an aggregate's newest
SELECT * FROM lt_checks();
SELECT row_key, family, qualifier, ts, value FROM wide.read_current(NULL::lt, prefix => 'k0')
 WHERE family = 'p';
SELECT row_key, family, qualifier, ts, value FROM wide.read_current(NULL::lt, prefix => 'k5')
 WHERE family = 's';
-- flushed into a run of their own, then all merged into one
SELECT FROM wide.compact('lt');
SELECT * FROM lt_checks();
SELECT FROM wide.compact('lt', true);
SELECT * FROM lt_checks();
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_current(NULL::lt, prefix => 'k3');

-- filters the reader does not take for "first n cells of a column" still
-- read everything (no Records Skipped)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_rows(NULL::lt, prefix => 'k3',
  filter => '{"chain": [{"value_range_filter": {"end_value_open": "5000"}}, {"cells_per_column_limit_filter": 1}]}');
-- a reversed read is not skipped either, and is the same
SELECT count(*) FROM (
  (SELECT * FROM wide.read_rows(NULL::lt, reversed => true, filter => wide.latest(1))
   EXCEPT ALL SELECT * FROM wide.read_current(NULL::lt))
  UNION ALL
  (SELECT * FROM wide.read_current(NULL::lt)
   EXCEPT ALL SELECT * FROM wide.read_rows(NULL::lt, reversed => true, filter => wide.latest(1)))) d;

-- an aggregate column with exactly n versions: its n-th cell is made when
-- the next column's first record arrives, which is a cell of its own
CREATE TABLE la (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('la', 'a', aggregate => 'sum');
SELECT wide.create_family('la', 'b');
INSERT INTO la VALUES ('r', 'a', 'x', 1, 1), ('r', 'a', 'x', 2, 2), ('r', 'a', 'x', 2, 3),
  ('r', 'b', 'x', 1, 10), ('r', 'b', 'x', 2, 20), ('r', 'b', 'x', 3, 30),
  ('s', 'a', 'x', 5, 5), ('s', 'b', 'x', 1, 1), ('s', 'b', 'x', 2, 2);
SELECT FROM wide.compact('la');
INSERT INTO la VALUES ('r', 'a', 'y', 7, 7), ('r', 'a', 'y', 8, 8);
SELECT family, qualifier, ts, value FROM wide.read_rows(NULL::la, filter => wide.latest(2));
SELECT family, qualifier, ts, value FROM wide.read_rows(NULL::la, filter => wide.latest(1));
DROP TABLE la;

-- tall columns: the data blocks that hold only older versions of a
-- complete column are not read (Blocks Skipped; the index names each data
-- block's last column); with newer versions, deletes and aggregate inputs
-- in other runs and the write area, the answer stays the full read's
TRUNCATE lt;
INSERT INTO lt SELECT 'k' || r, 'p', 'q' || c, v, v FROM generate_series(0, 3) r,
  generate_series(0, 2) c, generate_series(1, 3000) v;
INSERT INTO lt SELECT 'k' || r, 's', 'q0', v % 100, 1 FROM generate_series(0, 3) r, generate_series(1, 3000) v;
SELECT FROM wide.compact('lt', true);
SELECT * FROM wide.verify('lt');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_current(NULL::lt, prefix => 'k1');
SELECT row_key, family, qualifier, ts, value FROM wide.read_current(NULL::lt, prefix => 'k1');
-- a qualifier filter, then a time range, then latest(1): skipped too, and
-- blocks outside the range are not read (Blocks Skipped by ts)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM wide.read_rows(NULL::lt, prefix => 'k1', filter => '{"chain": [
  {"column_qualifier_regex_filter": "q[12]"},
  {"timestamp_range_filter": {"start_timestamp_micros": 1000, "end_timestamp_micros": 2000}},
  {"cells_per_column_limit_filter": 1}]}');
SELECT * FROM lt_checks();
SELECT wide.delete_cells('lt', 'k1', 'p', 'q1', 2500::int8, 5000::int8);
INSERT INTO lt VALUES ('k2', 'p', 'q0', 4000, -1), ('k2', 's', 'q0', 99, 5), ('k3', 's', 'q0', 100, 5);
SELECT FROM wide.compact('lt');
INSERT INTO lt VALUES ('k2', 'p', 'q2', 4000, -2), ('k0', 's', 'q0', 99, 5);
DELETE FROM lt WHERE row_key = 'k0' AND family = 'p' AND qualifier = 'q2' AND ts >= 100;
BEGIN;
INSERT INTO lt VALUES ('k3', 'p', 'q0', 9000, 0), ('k3', 's', 'q0', 200, 1);
ROLLBACK;
SELECT row_key, family, qualifier, ts, value FROM wide.read_current(NULL::lt);
SELECT * FROM lt_checks();

DROP TABLE lt;
DROP FUNCTION lt_check(jsonb, text), lt_oracle(), lt_checks();
RESET wide.block_size;
