--
-- range_lists: many key ranges from SQL (issue 26, item 4): an OR of key
-- ranges, split_part(row_key, sep, 1) = / IN / = ANY, row_key = ANY of a
-- subquery and joins with a small table become seeks, not a full scan
-- with a Filter.
--
-- Before: an OR was "Row Keys: all" with a Filter, and so was split_part.
--
CREATE TABLE rl (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
SELECT wide.create_family('rl', 'cpu', max_versions => 1);
INSERT INTO rl
SELECT 'host_' || h || '#' || (1000 + s), 'cpu', 'q' || q, s, h * 1000 + s + q
  FROM generate_series(0, 19) h, generate_series(0, 59) s, generate_series(1, 2) q;
-- keys without the separator, and first parts that only begin alike
INSERT INTO rl VALUES ('host_1', 'cpu', 'q1', 1, 1), ('host_1x#1', 'cpu', 'q1', 1, 2),
  ('host_1#', 'cpu', 'q1', 1, 3), ('host_1$', 'cpu', 'q1', 1, 4), ('a#b#c', 'cpu', 'q1', 1, 5);
SELECT FROM wide.compact('rl', true);
INSERT INTO rl VALUES ('host_7#9999', 'cpu', 'q1', 1, 6);
ANALYZE rl;
CREATE TABLE rl_hosts (name text);
INSERT INTO rl_hosts VALUES ('host_1'), ('host_7'), ('a#b'), (NULL);
ANALYZE rl_hosts;

-- the same answers without the Wide Scan
CREATE FUNCTION rl_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
BEGIN
	EXECUTE 'SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (' || q || ') x' INTO a;
	PERFORM set_config('wide.enable_customscan', 'off', true);
	EXECUTE 'SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (' || q || ') x' INTO b;
	PERFORM set_config('wide.enable_customscan', 'on', true);
	RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT: ' || a || ' / ' || b END;
END
$$;

-- an OR of two hosts' time ranges: two seeks, no Filter
EXPLAIN (COSTS OFF) SELECT * FROM rl
 WHERE (row_key >= 'host_1#1010' AND row_key < 'host_1#1020')
    OR (row_key >= 'host_7#1010' AND row_key < 'host_7#1020');
SELECT count(*), min(row_key), max(row_key) FROM rl
 WHERE (row_key >= 'host_1#1010' AND row_key < 'host_1#1020')
    OR (row_key >= 'host_7#1010' AND row_key < 'host_7#1020');
-- (the plan before, kept by wide.enable_range_lists = off)
SET wide.enable_range_lists = off;
EXPLAIN (COSTS OFF) SELECT * FROM rl
 WHERE (row_key >= 'host_1#1010' AND row_key < 'host_1#1020')
    OR (row_key >= 'host_7#1010' AND row_key < 'host_7#1020');
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) IN ('host_7', 'host_1');
RESET wide.enable_range_lists;
-- overlapping and touching arms are merged: every row once, in key order
SELECT row_key, count(*) FROM rl
 WHERE (row_key >= 'host_2#1010' AND row_key < 'host_2#1013')
    OR (row_key >= 'host_2#1011' AND row_key <= 'host_2#1014')
    OR (row_key > 'host_2#1014' AND row_key < 'host_2#1016')
    OR row_key = 'host_2#1012' OR row_key = ANY(ARRAY['host_2#1020', 'host_2#1013'])
 GROUP BY row_key ORDER BY row_key;
-- backward, for ORDER BY row_key DESC
EXPLAIN (COSTS OFF) SELECT row_key FROM rl
 WHERE row_key = 'host_3#1001' OR (row_key > 'host_4#1057' AND row_key < 'host_5#')
 ORDER BY row_key DESC LIMIT 3;
SELECT DISTINCT row_key FROM rl
 WHERE row_key = 'host_3#1001' OR (row_key > 'host_4#1057' AND row_key < 'host_5#')
 ORDER BY row_key DESC LIMIT 3;
-- with the other bounds of the AND, and the row_key checks of an arm
-- mixed with others: the ranges hold, the Filter stays
EXPLAIN (COSTS OFF) SELECT * FROM rl
 WHERE ((row_key >= 'host_1#1010' AND value > 1015) OR row_key ^@ 'host_7#')
   AND row_key < 'host_7#1003';
SELECT rl_check($$SELECT * FROM rl
 WHERE ((row_key >= 'host_1#1010' AND value > 1015) OR row_key ^@ 'host_7#')
   AND row_key < 'host_7#1003'$$);
-- an OR of LIKE and starts_with prefixes (the LIKE with a wildcard: the
-- range of its literal prefix, the Filter kept)
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE row_key LIKE 'host\_1#%' OR starts_with(row_key, 'host_7#');
SELECT count(*) FROM rl WHERE row_key LIKE 'host\_1#%' OR starts_with(row_key, 'host_7#');
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE row_key LIKE 'host_1#%' OR row_key ^@ 'host_7#';
SELECT rl_check($$SELECT row_key FROM rl WHERE row_key LIKE 'host_1#%' OR row_key ^@ 'host_7#'$$);
-- an arm that bounds nothing: every key, a full scan with the Filter
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE row_key = 'host_1#1001' OR value = 5;
SELECT count(*) FROM rl WHERE row_key = 'host_1#1001' OR value = 5;
-- an arm with NULL holds no key
SELECT count(*) FROM rl WHERE row_key = NULL OR row_key = 'host_1#1001';

-- split_part(row_key, '#', 1): exact ranges, the key itself and its
-- prefix with the separator; a value holding the separator is no key's
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = 'host_1';
SELECT row_key, value FROM rl WHERE split_part(row_key, '#', 1) = 'host_1' AND ts < 3 ORDER BY 1, 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) IN ('host_7', 'host_1', 'a#b');
SELECT rl_check($$SELECT row_key FROM rl WHERE split_part(row_key, '#', 1) IN ('host_7', 'host_1', 'a#b')$$);
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = 'a#b';
SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = 'a#b';
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE 'host_3' = split_part(row_key, '#', 1) AND row_key > 'host_3#1050';
SELECT count(*) FROM rl WHERE 'host_3' = split_part(row_key, '#', 1) AND row_key > 'host_3#1050';
-- another field, a longer separator: a Filter
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE split_part(row_key, '#', 2) = '1001';
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE split_part(row_key, '_1', 1) = 'host';
-- (equality under any deterministic collation is bytewise)
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = 'host_1' COLLATE "POSIX";
SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = 'host_1' COLLATE "POSIX";
-- an OR of split_part lists and ranges
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl
 WHERE split_part(row_key, '#', 1) IN ('host_3', 'host_4') OR row_key < 'host_0#1002'
    OR split_part(row_key, '#', 1) = 'host_3';
SELECT rl_check($$SELECT row_key FROM rl
 WHERE split_part(row_key, '#', 1) IN ('host_3', 'host_4') OR row_key < 'host_0#1002'
    OR split_part(row_key, '#', 1) = 'host_3'$$);
-- a long constant list: its ranges are built when the scan starts
CREATE FUNCTION rl_keys(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line ~ 'Row Keys' THEN
			RETURN left(trim(line), 50);
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;
SELECT rl_keys(format($$SELECT row_key FROM rl WHERE split_part(row_key, '#', 1) = ANY(%L::text[])$$,
       (SELECT '{' || string_agg('host_' || i, ',') || ',a#b}' FROM generate_series(0, 79) i)));
SELECT rl_check(format($$SELECT row_key FROM rl WHERE split_part(row_key, '#', 1) = ANY(%L::text[])$$,
       (SELECT '{' || string_agg('host_' || i, ',') || ',a#b,host_1x}' FROM generate_series(4, 79) i)));
-- parameters: the ranges are built when the scan starts
SET plan_cache_mode = force_generic_plan;
PREPARE rl_p(text[]) AS SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = ANY($1);
EXPLAIN (COSTS OFF) EXECUTE rl_p('{host_1,host_7}');
EXECUTE rl_p('{host_1,host_7}');
EXECUTE rl_p('{host_1,a#b,NULL,host_1}');
EXECUTE rl_p('{}');
PREPARE rl_q(text, text) AS SELECT count(*) FROM rl
 WHERE (row_key >= $1 AND row_key < $2) OR split_part(row_key, '#', 1) = 'host_9';
EXPLAIN (COSTS OFF) EXECUTE rl_q('host_1#1010', 'host_1#1020');
EXECUTE rl_q('host_1#1010', 'host_1#1020');
EXECUTE rl_q(NULL, 'host_1#1020');
PREPARE rl_s(text) AS SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = $1;
EXECUTE rl_s('host_1');
EXECUTE rl_s('host_1#');
EXECUTE rl_s(NULL);
RESET plan_cache_mode;

-- row_key = ANY(subquery), and joins with a small table: a seek per outer row
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl
 WHERE row_key = ANY(SELECT name || '#1001' FROM rl_hosts);
SELECT count(*) FROM rl WHERE row_key = ANY(SELECT name || '#1001' FROM rl_hosts);
EXPLAIN (COSTS OFF) SELECT h.name, count(*) FROM rl_hosts h JOIN rl
  ON rl.row_key >= h.name || '#' AND rl.row_key < h.name || '$' GROUP BY 1;
SELECT h.name, count(*) FROM rl_hosts h JOIN rl
  ON rl.row_key >= h.name || '#' AND rl.row_key < h.name || '$' GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT h.name, count(*) FROM rl_hosts h JOIN rl
  ON split_part(rl.row_key, '#', 1) = h.name GROUP BY 1;
SELECT h.name, count(*) FROM rl_hosts h JOIN rl
  ON split_part(rl.row_key, '#', 1) = h.name GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM rl
 WHERE split_part(row_key, '#', 1) IN (SELECT name FROM rl_hosts);
SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) IN (SELECT name FROM rl_hosts);
SELECT rl_check($$SELECT h.name, rl.row_key FROM rl_hosts h LEFT JOIN rl
  ON split_part(rl.row_key, '#', 1) = h.name AND rl.ts < 2$$);

-- the group count of GROUP BY split_part(row_key, '#', 1): PostgreSQL
-- takes row_key's distinct count (1,206 here for 22 groups) unless the
-- expression has statistics of its own
CREATE FUNCTION rl_rows(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	EXECUTE 'EXPLAIN ' || q INTO line;
	RETURN substring(line FROM 'rows=([0-9]+)')::int;
END
$$;
SELECT rl_rows($$SELECT split_part(row_key, '#', 1), count(*) FROM rl GROUP BY 1$$) > 1000 AS row_key_distinct;
CREATE STATISTICS rl_host ON (split_part(row_key, '#', 1)) FROM rl;
ANALYZE rl;
SELECT rl_rows($$SELECT split_part(row_key, '#', 1), count(*) FROM rl GROUP BY 1$$) AS groups;
SELECT rl_rows($$SELECT count(*) FROM rl WHERE split_part(row_key, '#', 1) = 'host_3'$$) = 1 AS one_row,
       rl_rows($$SELECT * FROM rl WHERE split_part(row_key, '#', 1) = 'host_3'$$) BETWEEN 100 AND 140 AS host_rows;

DROP TABLE rl, rl_hosts;
DROP FUNCTION rl_check(text), rl_rows(text), rl_keys(text);
