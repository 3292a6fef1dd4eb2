-- The Wide Aggregate (src/am/scan_agg.c): count, sum, avg, min and max
-- computed in the scan, the same answers as PostgreSQL's Aggregate.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ag (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide;
SELECT wide.create_family('ag', 'm');
SELECT wide.create_family('ag', 'v', max_versions => 1);
-- nothing yet: count 0, the others NULL
SELECT count(*), count(value), sum(value), avg(value), min(value), max(value),
       min(ts), max(ts) FROM ag;
INSERT INTO ag SELECT 'r' || lpad((i % 50)::text, 3, '0'), 'm', 'q' || (i % 3),
       '2030-01-01'::timestamptz + i * interval '1 minute', (i * 7 % 101) / 4.0
  FROM generate_series(1, 600) i;
-- versions past max_versions: only the newest counts
INSERT INTO ag SELECT 'r001', 'v', 'q', '2030-01-01'::timestamptz + i * interval '1 s', i
  FROM generate_series(1, 5) i;
INSERT INTO ag VALUES ('r002', 'v', 'nan', '2030-01-02', 'NaN'),
                      ('r003', 'v', 'inf', '2030-01-02', 'Infinity'),
                      ('r004', 'v', 'zero', '2030-01-02', '-0');
DELETE FROM ag WHERE row_key = 'r010';
SELECT wide.delete_row('ag', 'r011');

-- pushed down: EXPLAIN shows the aggregates and, below, the scan
EXPLAIN (COSTS OFF)
SELECT count(*), avg(value), sum(value), min(value), max(value), min(ts), max(ts) FROM ag;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) * 2, avg(value) FROM ag;
EXPLAIN (COSTS OFF)
SELECT max(value) FROM ag WHERE row_key >= 'r020' AND row_key < 'r030' AND family = 'm'
  AND qualifier IN ('q1', 'q2') AND ts >= '2030-01-01 02:00';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM ag WHERE row_key LIKE 'r02%';

-- the same answers both ways
CREATE FUNCTION agg_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
	p text;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO p;
	EXECUTE q INTO a;
	SET LOCAL wide.enable_aggregate_pushdown = off;
	EXECUTE q INTO b;
	SET LOCAL wide.enable_aggregate_pushdown = on;
	RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT: ' || a || ' / ' || b END
		|| CASE WHEN p LIKE '%WideAggregate%' THEN ', pushed down' ELSE ', not pushed down' END
		|| ': ' || a;
END $$;
SELECT agg_check($$SELECT row(count(*), count(value), sum(value), avg(value), min(value), max(value), min(ts), max(ts))::text FROM ag$$);
SELECT agg_check($$SELECT row(count(*), sum(value), avg(value))::text FROM ag WHERE family = 'v'$$);
SELECT agg_check($$SELECT row(count(*), sum(value), min(value), max(value))::text FROM ag WHERE row_key BETWEEN 'r004' AND 'r012'$$);
SELECT agg_check($$SELECT row(count(*), max(ts))::text FROM ag WHERE row_key = ANY('{r001,r002,r010,r011,zz}')$$);
SELECT agg_check($$SELECT row(count(*), avg(value))::text FROM ag WHERE ts > now()$$);
-- not pushed down: a Filter, GROUP BY, HAVING, DISTINCT, FILTER, other aggregates
SELECT agg_check($$SELECT count(*)::text FROM ag WHERE value > 10$$);
SELECT agg_check($$SELECT string_agg(n::text, ',') FROM (SELECT count(*) n FROM ag GROUP BY qualifier ORDER BY 1) s$$);
SELECT agg_check($$SELECT count(*)::text FROM ag HAVING count(*) > 1$$);
SELECT agg_check($$SELECT count(DISTINCT qualifier)::text FROM ag$$);
SELECT agg_check($$SELECT (count(*) FILTER (WHERE qualifier = 'q1'))::text FROM ag$$);
SELECT agg_check($$SELECT row(stddev(value), max(row_key))::text FROM ag$$);
SELECT agg_check($$SELECT sum(value + 1)::text FROM ag$$);

-- int8 values and ts, aggregate families
CREATE TABLE agi (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('agi', 'n', aggregate => 'sum');
SELECT wide.create_family('agi', 'x', aggregate => 'max');
SELECT wide.create_family('agi', 'c');
INSERT INTO agi SELECT 'k' || (i % 10), 'n', 'q', i % 4, i FROM generate_series(1, 100) i;
INSERT INTO agi SELECT 'k' || (i % 10), 'x', 'q', i % 4, i * 3 FROM generate_series(1, 100) i;
INSERT INTO agi SELECT 'k' || i, 'c', 'q', 100 + i, -i * 1000 FROM generate_series(1, 20) i;
EXPLAIN (COSTS OFF) SELECT count(*), min(value), max(value), min(ts), max(ts) FROM agi;
SELECT agg_check($$SELECT row(count(*), min(value), max(value), min(ts), max(ts))::text FROM agi$$);
SELECT agg_check($$SELECT row(count(*), min(value), max(value))::text FROM agi WHERE family = 'n'$$);
-- sum and avg of int8 are numeric: not pushed down
SELECT agg_check($$SELECT row(sum(value), avg(value))::text FROM agi$$);

-- overflow: the same error both ways
CREATE TABLE agb (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('agb', 'm');
INSERT INTO agb VALUES ('a', 'm', 'q', '2030-01-01', 1e308), ('b', 'm', 'q', '2030-01-01', 1e308);
SELECT sum(value) FROM agb;
SELECT avg(value) FROM agb;
SET wide.enable_aggregate_pushdown = off;
SELECT sum(value) FROM agb;
SELECT avg(value) FROM agb;
RESET wide.enable_aggregate_pushdown;
-- a value past 1e100: avg reads the cells again, keeping float8_accum's
-- Sxx from the first (the child shows two loops)
INSERT INTO agb VALUES ('c', 'm', 'x', '2030-01-01', 1e150), ('d', 'm', 'x', '2030-01-01', 2),
                       ('e', 'm', 'x', '2030-01-01', -3.5);
SELECT agg_check($$SELECT row(count(*), avg(value), min(value))::text FROM agb WHERE qualifier = 'x'$$);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT avg(value) FROM agb WHERE qualifier = 'x';
-- Sxx overflows, Sx does not: float8_accum's error, both ways
INSERT INTO agb VALUES ('f', 'm', 'y', '2030-01-01', 1e200), ('g', 'm', 'y', '2030-01-01', -1e200);
SELECT avg(value) FROM agb WHERE qualifier = 'y';
SET wide.enable_aggregate_pushdown = off;
SELECT avg(value) FROM agb WHERE qualifier = 'y';
RESET wide.enable_aggregate_pushdown;

-- in parallel: partial aggregates in each process, finalized above Gather
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*), avg(value), min(ts) FROM ag WHERE row_key >= 'r005';
SELECT count(*), min(value), max(value), min(ts), max(ts), round(avg(value)::numeric, 6)
  FROM ag WHERE row_key >= 'r005' AND family = 'm';
SET wide.enable_aggregate_pushdown = off;
SELECT count(*), min(value), max(value), min(ts), max(ts), round(avg(value)::numeric, 6)
  FROM ag WHERE row_key >= 'r005' AND family = 'm';
RESET wide.enable_aggregate_pushdown;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- a rescan: the aggregate under a nested loop, once per outer row
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT o.k, (SELECT count(*) FROM ag WHERE row_key >= o.k) FROM (VALUES ('r040'), ('r045')) o(k);
SELECT o.k, (SELECT count(*) FROM ag WHERE row_key >= o.k) FROM (VALUES ('r040'), ('r045')) o(k);
DROP TABLE ag, agi, agb;
DROP FUNCTION agg_check(text);
