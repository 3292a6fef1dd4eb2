-- One cost model (am/plan_cost.c): the Wide Scan, the Wide Read Rows scan
-- and the row form's foreign scan cost the same read alike.
SET client_min_messages = warning;
CREATE TABLE pc (row_key text, family text, qualifier text, ts timestamptz,
                 value float8) USING wide WITH (autovacuum_enabled = false);
SELECT wide.create_family('pc', 'cpu', max_versions => 1);
SELECT wide.create_family('pc', 'other');
-- a row form of two columns over the same cells: a row is two cells
CREATE FOREIGN TABLE pcr (host text, t int4, u float8, s float8)
  SERVER wide_rows OPTIONS (cells 'pc', family 'cpu', key 'host,t');
INSERT INTO pcr SELECT 'h' || lpad((i % 50)::text, 3, '0'), i / 50, i, i * 2
  FROM generate_series(1, 20000) i;
ANALYZE pc;
ANALYZE pcr;
SET max_parallel_workers_per_gather = 0;

-- the startup and total cost of a query's top plan node
CREATE FUNCTION pc_cost(q text, OUT startup numeric, OUT total numeric)
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	startup := round((plan -> 0 -> 'Plan' ->> 'Startup Cost')::numeric, 2);
	total := round((plan -> 0 -> 'Plan' ->> 'Total Cost')::numeric, 2);
END
$$;

-- a full read: the same cost by all three (0.99 of a sequential scan)
SELECT (SELECT pc_cost('SELECT * FROM pc')) =
       (SELECT pc_cost('SELECT * FROM wide.read_rows(NULL::pc)')) AS read_rows_full_same,
       (SELECT pc_cost('SELECT * FROM pc')) =
       (SELECT pc_cost('SELECT * FROM pcr')) AS rows_full_same;

-- a seek costs the same (a random page and 20 operators) as startup
SELECT (pc_cost($$SELECT * FROM pc WHERE row_key IN ('h010#1', 'h020#2')$$)).startup AS wide_scan_seek,
       (pc_cost($$SELECT * FROM wide.read_rows(NULL::pc, keys => ARRAY['h010#1', 'h020#2'])$$)).startup AS read_rows_seek,
       (pc_cost($$SELECT * FROM pcr WHERE host = 'h010'$$)).startup AS rows_seek;

-- a range costs less than the full read, the more so the shorter it is
SELECT (pc_cost($$SELECT * FROM wide.read_rows(NULL::pc, prefix => 'h01')$$)).total <
       (pc_cost('SELECT * FROM wide.read_rows(NULL::pc)')).total AS prefix_cheaper,
       (pc_cost($$SELECT * FROM pcr WHERE host = 'h010' AND t < 100$$)).total <
       (pc_cost($$SELECT * FROM pcr WHERE host = 'h010'$$)).total AS rows_range_cheaper;

-- the row form counts the wide table's pages: cells of another family
-- make its scan dearer (as many rows, more pages to read)
SELECT (pc_cost('SELECT * FROM pcr')).total AS before_pages \gset
INSERT INTO pc SELECT 'h' || lpad((i % 50)::text, 3, '0') || '#' || i, 'other', 'pad', now(), i
  FROM generate_series(1, 20000) i;
ANALYZE pcr;
SELECT reltuples FROM pg_class WHERE relname = 'pcr';
SELECT (pc_cost('SELECT * FROM pcr')).total > :before_pages AS rows_pages_counted;

DROP FOREIGN TABLE pcr;
DROP TABLE pc;
DROP FUNCTION pc_cost(text);
