-- GROUP BY inside the row form's scan (src/am/rows_agg.c): the same
-- answers, bit for bit, as the plain plan (wide.enable_aggregate_pushdown
-- = off), for every aggregate it computes, NULLs, empty groups, special
-- floats and errors.
SET client_min_messages = warning;
CREATE TABLE ragg_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('ragg_cells', 'm', max_versions => 1);
CREATE FOREIGN TABLE ragg (time timestamptz NOT NULL, host int4 NOT NULL, a float8, b float8, c float8)
  SERVER wide_rows OPTIONS (cells 'ragg_cells', family 'm', key 'host,time');
SET TimeZone = 'UTC';
-- sparse readings: a NULL is an absent cell; a row with only c still counts
INSERT INTO ragg
SELECT '2024-01-01'::timestamptz + make_interval(secs => t * 10), h,
       CASE WHEN t % 7 = 0 THEN NULL ELSE ((t * 7919 + h * 104729) % 100003) / 1000.0 END,
       CASE WHEN t % 5 = 0 THEN NULL ELSE sin(t + h) * 1e3 END,
       (t % 3)::float8
  FROM generate_series(0, 1999) t, generate_series(1, 6) h;
-- special values in host 9
INSERT INTO ragg VALUES
  ('2024-01-01 00:00:00+00', 9, 'NaN', -0.0, 1), ('2024-01-01 00:00:10+00', 9, 1, 0.0, 1),
  ('2024-01-01 00:00:20+00', 9, 'Infinity', '-Infinity', 1), ('2024-01-01 00:00:30+00', 9, 2, 'NaN', 1);

CREATE FUNCTION ragg_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  pushed text;
  plain text;
  plan text;
BEGIN
  EXECUTE 'EXPLAIN (costs off) ' || q INTO plan;
  SET LOCAL wide.enable_aggregate_pushdown = on;
  EXECUTE format('SELECT string_agg(x::text, %L ORDER BY x::text) FROM (%s) x', E'\n', q) INTO pushed;
  SET LOCAL wide.enable_aggregate_pushdown = off;
  EXECUTE format('SELECT string_agg(x::text, %L ORDER BY x::text) FROM (%s) x', E'\n', q) INTO plain;
  RETURN CASE WHEN pushed IS NOT DISTINCT FROM plain THEN 'same' ELSE 'DIFFERENT' END
         || CASE WHEN plan LIKE 'Foreign Scan%' OR plan LIKE '%->  Foreign Scan' || chr(10) || '%Grouped%'
                 THEN ' (pushed)' ELSE ' (not pushed)' END;
END $$;
SET extra_float_digits = 3;

-- the plans
EXPLAIN (costs off) SELECT date_trunc('hour', time) hr, host, avg(a), max(b), count(*), count(a)
  FROM ragg WHERE time >= '2024-01-01 01:00+00' GROUP BY 1, 2 ORDER BY 1, 2;
EXPLAIN (costs off) SELECT max(a) FROM ragg WHERE host = 3;
-- not pushed: HAVING, DISTINCT, FILTER, ORDER BY in the aggregate, other aggregates
EXPLAIN (costs off) SELECT host, max(a) FROM ragg GROUP BY host HAVING max(a) > 1;
EXPLAIN (costs off) SELECT host, count(DISTINCT c) FROM ragg GROUP BY host;
EXPLAIN (costs off) SELECT host, sum(a) FILTER (WHERE b > 0) FROM ragg GROUP BY host;
EXPLAIN (costs off) SELECT host, stddev(a) FROM ragg GROUP BY host;

-- answers: pushed and plain, compared as text of every float's digits
SELECT ragg_check($q$SELECT date_trunc('hour', time) hr, host, avg(a), max(b), min(b), count(*), count(a), sum(a), sum(b), max(time), min(host) FROM ragg GROUP BY 1, 2$q$);
SELECT ragg_check($q$SELECT host, avg(b), sum(b), max(a), min(a) FROM ragg GROUP BY host$q$);
SELECT ragg_check($q$SELECT c, count(*), avg(a) FROM ragg WHERE b > 0 GROUP BY c$q$);
SELECT ragg_check($q$SELECT date_trunc('minute', time) m, max(a) FROM ragg WHERE host IN (2, 4) AND time >= '2024-01-01 00:10+00' AND time < '2024-01-01 00:20:05+00' GROUP BY m$q$);
SELECT ragg_check($q$SELECT max(a), min(b), count(*), avg(c), sum(c) FROM ragg$q$);
SELECT ragg_check($q$SELECT max(a), count(*), sum(a), avg(a) FROM ragg WHERE host = 77$q$);
SELECT ragg_check($q$SELECT host, max(a) * 2 + 1 AS x, count(*) FILTER (WHERE true) FROM ragg GROUP BY host$q$);
SELECT ragg_check($q$SELECT to_timestamp(floor(extract(epoch FROM time) / 300) * 300) b, host, max(b) FROM ragg GROUP BY 1, 2$q$);
-- the special values: NaN is largest, -0 and 0 as the plain plan keeps them
SELECT host, max(a), min(a), max(b), min(b), sum(a), avg(a), avg(b) FROM ragg WHERE host = 9 GROUP BY host;
SET wide.enable_aggregate_pushdown = off;
SELECT host, max(a), min(a), max(b), min(b), sum(a), avg(a), avg(b) FROM ragg WHERE host = 9 GROUP BY host;
RESET wide.enable_aggregate_pushdown;
-- an empty input: one row without GROUP BY, none with it
SELECT count(*), max(a), sum(a), avg(a) FROM ragg WHERE host = 100;
SELECT host, count(*) FROM ragg WHERE host = 100 GROUP BY host;
-- overflow fails as float8pl and float8_accum do
INSERT INTO ragg VALUES ('2024-01-02 00:00:00+00', 10, 1e308, 1e200, 0), ('2024-01-02 00:00:10+00', 10, 1e308, 1e200, 0);
SELECT sum(a) FROM ragg WHERE host = 10;
SELECT avg(a) FROM ragg WHERE host = 10;
SELECT avg(b) FROM ragg WHERE host = 10;
SET wide.enable_aggregate_pushdown = off;
SELECT sum(a) FROM ragg WHERE host = 10;
SELECT avg(a) FROM ragg WHERE host = 10;
SELECT avg(b) FROM ragg WHERE host = 10;
RESET wide.enable_aggregate_pushdown;
-- a prepared statement with a parameter, run again after rows change
PREPARE q(int) AS SELECT count(*), max(a) FROM ragg WHERE host = $1;
EXECUTE q(2);
DELETE FROM ragg WHERE host = 2 AND time < '2024-01-01 01:00+00';
EXECUTE q(2);
-- a rescan: the grouping scan on the inside of a nested loop
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT h, s.n FROM (VALUES (1), (3)) v(h), LATERAL (SELECT count(*) n FROM ragg WHERE host = v.h) s ORDER BY h;
RESET enable_hashjoin;
RESET enable_mergejoin;
DROP FOREIGN TABLE ragg;
DROP TABLE ragg_cells;
DROP FUNCTION ragg_check(text);
