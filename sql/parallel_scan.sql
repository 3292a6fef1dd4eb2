--
-- parallel_scan: a partial Wide Scan under Gather and Gather Merge, its
-- stretches claimed by the leader and the workers, returns exactly what
-- the serial scan returns
--
-- Parallel settings are forced so that small tables get parallel plans;
-- wide.parallel_stretch_blocks = 1 and small blocks give many stretches.
--
\set SHOW_CONTEXT never
SET wide.block_size = 1024;
-- statements' cells through the write area page by page (not as sorted
-- runs): a larger table, whose scans the planner splits
SET wide.statement_run_size = '1GB';
CREATE TABLE ps (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('ps', 'a', max_versions => 2);
SELECT wide.create_family('ps', 'n', aggregate => 'sum');
-- three runs, the write area, deletes of every kind
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'a', 'q' || (i % 3), v, i * 10 + v
  FROM generate_series(1, 4000) i, generate_series(1, 3) v;
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'n', 'c', 0, i FROM generate_series(1, 4000, 3) i;
SELECT FROM wide.compact('ps', true);
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'a', 'q' || (i % 3), 7, -i FROM generate_series(1, 4000, 7) i;
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'n', 'c', 0, 1000 FROM generate_series(1, 4000, 5) i;
SELECT FROM wide.compact('ps');
DELETE FROM ps WHERE row_key LIKE 'k001%';
SELECT wide.delete_row('ps', 'k00500');
SELECT wide.delete_family('ps', 'k00600', 'n');
SELECT wide.delete_cells('ps', 'k00700', 'a', 'q1', 0, 3);
SELECT FROM wide.compact('ps');
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'a', 'q' || (i % 3), 8, i FROM generate_series(1, 4000, 11) i;
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'n', 'c', 0, 7 FROM generate_series(1, 4000, 2) i;
DELETE FROM ps WHERE row_key LIKE 'k002%' AND qualifier = 'q2';
SELECT count(*) > 1 AS several_runs FROM wide.runs('ps');
SELECT write_area_pages > 0 AS write_area FROM wide.stats('ps');

-- the serial answers
CREATE TABLE serial_answers AS
SELECT 'all' AS q, count(*) AS n, sum(value) AS s,
       md5(string_agg(row_key || family || qualifier || ts || ':' || value, ',' ORDER BY row_key, family, qualifier, ts DESC)) AS h
  FROM ps
UNION ALL
SELECT 'range', count(*), sum(value),
       md5(string_agg(row_key || family || qualifier || ts || ':' || value, ',' ORDER BY row_key, family, qualifier, ts DESC))
  FROM ps WHERE row_key >= 'k00990' AND row_key < 'k03000'
UNION ALL
SELECT 'prefix', count(*), sum(value),
       md5(string_agg(row_key || family || qualifier || ts || ':' || value, ',' ORDER BY row_key, family, qualifier, ts DESC))
  FROM ps WHERE row_key LIKE 'k03%';

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET wide.parallel_stretch_blocks = 1;

-- aggregates: Partial and Finalize
EXPLAIN (COSTS OFF) SELECT count(*), sum(value) FROM ps;
SELECT count(*), sum(value) FROM ps
  EXCEPT SELECT n, s FROM serial_answers WHERE q = 'all';
EXPLAIN (COSTS OFF) SELECT family, count(*) FROM ps GROUP BY family;
SELECT family, count(*), sum(value) FROM ps GROUP BY family ORDER BY family;
-- key ranges are divided too
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps WHERE row_key >= 'k00990' AND row_key < 'k03000';
SELECT count(*), sum(value) FROM ps WHERE row_key >= 'k00990' AND row_key < 'k03000'
  EXCEPT SELECT n, s FROM serial_answers WHERE q = 'range';
SELECT count(*), sum(value) FROM ps WHERE row_key LIKE 'k03%'
  EXCEPT SELECT n, s FROM serial_answers WHERE q = 'prefix';
-- Gather Merge keeps the scan's order: no Sort
EXPLAIN (COSTS OFF) SELECT * FROM ps ORDER BY row_key, family, qualifier, ts DESC;
SELECT md5(string_agg(row_key || family || qualifier || ts || ':' || value, ','))
  FROM (SELECT * FROM ps ORDER BY row_key, family, qualifier, ts DESC) x
  EXCEPT SELECT h FROM serial_answers WHERE q = 'all';
SELECT md5(string_agg(row_key || family || qualifier || ts || ':' || value, ','))
  FROM (SELECT * FROM ps WHERE row_key >= 'k00990' AND row_key < 'k03000'
        ORDER BY row_key, family, qualifier, ts DESC) x
  EXCEPT SELECT h FROM serial_answers WHERE q = 'range';
-- point reads and IN lists stay serial
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps WHERE row_key IN ('k00001', 'k00002');
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps WHERE row_key = 'k00001';
SELECT count(*) FROM ps WHERE row_key IN ('k00001', 'k00002');
-- an empty range
SELECT count(*) FROM ps WHERE row_key > 'z';
SELECT count(*) FROM ps WHERE row_key > 'k02' AND row_key < 'k01';

-- max_parallel_workers_per_gather is respected
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps;
SET max_parallel_workers_per_gather = 4;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps;
SET max_parallel_workers_per_gather = 2;

-- no worker launched: the leader alone reads every stretch
SET max_parallel_workers = 0;
SELECT count(*), sum(value) FROM ps
  EXCEPT SELECT n, s FROM serial_answers WHERE q = 'all';
RESET max_parallel_workers;

-- rescans: a Gather on the inner side of a nested loop
CREATE TABLE outer_keys (lo text, hi text);
INSERT INTO outer_keys VALUES ('k00000', 'k01000'), ('k01000', 'k02500'), ('k02500', 'k99999');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT o.lo, count(*), sum(p.value) FROM outer_keys o, ps p
 WHERE p.qualifier = 'q' || (length(o.lo) - 5) GROUP BY o.lo ORDER BY o.lo;
SELECT o.lo, count(*), sum(p.value) FROM outer_keys o, ps p
 WHERE p.qualifier = 'q' || (length(o.lo) - 5) GROUP BY o.lo ORDER BY o.lo;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
SET max_parallel_workers_per_gather = 0;
SELECT o.lo, count(*), sum(p.value) FROM outer_keys o, ps p
 WHERE p.qualifier = 'q' || (length(o.lo) - 5) GROUP BY o.lo ORDER BY o.lo;
SET max_parallel_workers_per_gather = 2;

-- the transaction's own uncommitted writes, in workers too
BEGIN;
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'a', 'new', 1, 1 FROM generate_series(1, 4000, 13) i;
SAVEPOINT s1;
INSERT INTO ps SELECT 'k' || lpad(i::text, 5, '0'), 'a', 'new', 2, 1 FROM generate_series(1, 4000, 17) i;
SELECT wide.delete_row('ps', 'k00013');
SELECT count(*), sum(value) FROM ps WHERE qualifier = 'new';
SET LOCAL max_parallel_workers_per_gather = 0;
SELECT count(*), sum(value) FROM ps WHERE qualifier = 'new';
ROLLBACK;

-- SERIALIZABLE: the same answer, a predicate lock taken
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*), sum(value) FROM ps
  EXCEPT SELECT n, s FROM serial_answers WHERE q = 'all';
SELECT count(*) > 0 AS relation_locked FROM pg_locks
 WHERE locktype = 'relation' AND mode = 'SIReadLock' AND relation = 'ps'::regclass;
COMMIT;

-- a cursor (never parallel) and a prepared statement
BEGIN;
DECLARE c CURSOR FOR SELECT row_key, value FROM ps WHERE row_key >= 'k03990';
FETCH 3 FROM c;
CLOSE c;
COMMIT;
SET plan_cache_mode = force_generic_plan;
PREPARE pq(text, text) AS SELECT count(*), sum(value) FROM ps WHERE row_key >= $1 AND row_key < $2;
EXPLAIN (COSTS OFF) EXECUTE pq('k00990', 'k03000');
EXECUTE pq('k00990', 'k03000');
EXECUTE pq('k00990', 'k03000');
SELECT n, s FROM serial_answers WHERE q = 'range';
DEALLOCATE pq;
RESET plan_cache_mode;

-- small tables get no parallel plan with the default costs
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps;

DROP TABLE ps, serial_answers, outer_keys;

-- A range held by one frozen run without tombstones, with nothing of it in
-- the write area, is read straight from the run (reader.c, run_is_plain):
-- it must still hide cells of dropped families, of an earlier incarnation
-- of a family, and past a family's max age.
CREATE TABLE pr (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('pr', 'keep');
SELECT wide.create_family('pr', 'gone');
SELECT wide.create_family('pr', 'again');
SELECT wide.create_family('pr', 'young', max_age => '10 seconds');
INSERT INTO pr SELECT 'r' || lpad(i::text, 4, '0'), f, 'q', '2030-01-01', i
  FROM generate_series(1, 500) i, unnest(ARRAY['keep', 'gone', 'again']) f;
-- 3 seconds younger than the max age when written, expired 4 seconds later
INSERT INTO pr SELECT 'r' || lpad(i::text, 4, '0'), 'young', 'q',
       statement_timestamp() - interval '7 seconds', i
  FROM generate_series(1, 500) i;
SELECT FROM wide.compact('pr', true);
SELECT wide.drop_family('pr', 'gone');
SELECT wide.drop_family('pr', 'again');
SELECT wide.create_family('pr', 'again');
SELECT count(*) AS runs, bool_or(has_tombstones) AS tombstones,
       bool_or(oldest_xid IS NOT NULL) AS unfrozen FROM wide.runs('pr');
SELECT write_area_pages FROM wide.stats('pr');
SELECT pg_sleep(4);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT family, count(*), sum(value) FROM pr GROUP BY family ORDER BY family;
SELECT count(*) FROM pr WHERE row_key >= 'r0100' AND row_key < 'r0200';
SET max_parallel_workers_per_gather = 0;
SELECT family, count(*), sum(value) FROM pr GROUP BY family ORDER BY family;
SET wide.enable_customscan = off;
SELECT family, count(*), sum(value) FROM pr GROUP BY family ORDER BY family;
RESET wide.enable_customscan;
DROP TABLE pr;

-- HyperLogLog aggregates combine partial states: Partial/Finalize plans
-- whose sketches equal the serial ones
CREATE TABLE ph (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('ph', 'u', aggregate => 'hll');
SELECT wide.create_family('ph', 'f');
INSERT INTO ph SELECT 'k' || lpad((i % 2000)::text, 5, '0'), 'f', 'q', i / 2000,
       ('visitor' || (i % 7919))::bytea FROM generate_series(1, 20000) i;
INSERT INTO ph SELECT 'k' || lpad((i % 300)::text, 5, '0'), 'u', 'q', 0,
       ('visitor' || (i % 5000))::bytea FROM generate_series(1, 20000) i;
SELECT FROM wide.compact('ph', true);
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT wide.hll_union_agg(value) FROM ph WHERE family = 'u';
SELECT wide.hll_count(wide.hll_add_agg(value)) AS nf, md5(wide.hll_add_agg(value)) AS hf
  FROM ph WHERE family = 'f' \gset
SELECT wide.hll_count(wide.hll_union_agg(value)) AS nu, md5(wide.hll_union_agg(value)) AS hu
  FROM ph WHERE family = 'u' \gset
SET max_parallel_workers_per_gather = 0;
SELECT :nf AS estimate, :'hf' = md5(wide.hll_add_agg(value)) AS same_sketch
  FROM ph WHERE family = 'f';
SELECT :nu AS estimate, :'hu' = md5(wide.hll_union_agg(value)) AS same_sketch
  FROM ph WHERE family = 'u';
DROP TABLE ph;
