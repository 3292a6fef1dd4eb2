-- Privileges and row level security on every read path of the row form:
-- the plain scan, the salted form (one bucket, every bucket), parallel
-- scans (rows and groups, leader not participating, so workers read), the
-- latest groups (ORDER BY a time bucket DESC LIMIT n) and the lastpoint
-- seek.  A role must have SELECT on the row form (its columns, as
-- PostgreSQL checks them) and on the wide table; a wide table with row
-- level security is refused; each path answers a role with both exactly
-- as it answers the owner.
SET timezone = 'UTC';
SET wide.block_size = 1024;
CREATE TABLE rpc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('rpc', 'm', max_versions => 1);
SELECT wide.create_family('rpc', 's', max_versions => 1);
CREATE FOREIGN TABLE rprow (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL, a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'rpc', family 'm', key 'host,time');
CREATE FOREIGN TABLE rpsalt (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL, a float8, b float8)
  SERVER wide_rows OPTIONS (cells 'rpc', family 's', key 'host,time', salt '3');
INSERT INTO rprow SELECT '2020-01-01'::timestamptz + make_interval(mins => t), h, t * 7 % 1000, h
  FROM generate_series(0, 719) t, generate_series(0, 19) h ORDER BY 1, 2;
INSERT INTO rpsalt SELECT * FROM rprow;
SELECT FROM wide.compact('rpc', major => true);
ANALYZE rprow; ANALYZE rpsalt;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET wide.parallel_stretch_blocks = 1;
SET enable_hashagg = off;

CREATE TABLE paths (name text, q text);
INSERT INTO paths VALUES
  ('plain', 'SELECT count(*) || '' '' || sum(a) FROM (SELECT * FROM rprow WHERE host = 3) s'),
  ('salted one bucket', $$SELECT count(*) || ' ' || sum(a) FROM (SELECT * FROM rpsalt WHERE host = 3 AND time < '2020-01-01 01:00') s$$),
  ('salted all buckets', $$SELECT count(*) || ' ' || sum(a) FROM (SELECT * FROM rpsalt WHERE time >= '2020-01-01 02:00' AND time < '2020-01-01 02:10') s$$),
  ('parallel rows', 'SELECT count(*) || '' '' || sum(a) FROM (SELECT a FROM rprow WHERE b >= 0 OFFSET 0) s'),
  ('parallel salted rows', 'SELECT count(*) || '' '' || sum(a) FROM (SELECT a FROM rpsalt WHERE b >= 0 OFFSET 0) s'),
  ('parallel groups', 'SELECT string_agg(s::text, '','' ORDER BY host) FROM (SELECT host, count(*), sum(a), avg(b), min(time), max(a) FROM rprow GROUP BY host) s'),
  ('parallel salted groups', 'SELECT string_agg(s::text, '','' ORDER BY host) FROM (SELECT host, count(*), sum(a), avg(b), min(time), max(a) FROM rpsalt GROUP BY host) s'),
  ('latest groups', $$SELECT string_agg(m || '=' || x, ',' ORDER BY m) FROM (SELECT date_trunc('hour', time) m, max(a) x FROM rprow WHERE time < '2020-01-01 04:00' GROUP BY m ORDER BY m DESC LIMIT 2) s$$),
  ('latest salted groups', $$SELECT string_agg(m || '=' || x, ',' ORDER BY m) FROM (SELECT date_trunc('hour', time) m, max(a) x FROM rpsalt WHERE time < '2020-01-01 04:00' GROUP BY m ORDER BY m DESC LIMIT 2) s$$),
  ('lastpoint', $$SELECT string_agg(h || '@' || l.time, ',' ORDER BY h) FROM generate_series(1, 3) h, LATERAL (SELECT time FROM rprow WHERE host = h ORDER BY time DESC LIMIT 1) l$$);

-- the plan node each path is (so a change of plan shows here, not as a
-- privilege check passing for another path)
CREATE FUNCTION plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; out text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'Foreign Scan|Gather|Top Groups|Seeks' THEN out := out || btrim(regexp_replace(line, '^[ >-]*', '')) || '; '; END IF;
  END LOOP;
  RETURN out;
END $$;
-- the answer, or the error, of a query as a role
CREATE FUNCTION as_role(r text, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE res text;
BEGIN
  EXECUTE format('SET LOCAL ROLE %I', r);
  SET LOCAL parallel_leader_participation = off;
  EXECUTE q INTO res;
  RESET ROLE;
  RETURN res;
EXCEPTION WHEN OTHERS THEN
  RETURN 'ERROR ' || SQLSTATE || ' ' || SQLERRM;
END $$;
-- did workers read, as the role? (the leader does not: it only gathers)
CREATE FUNCTION workers_as_role(r text, q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text; n int := 0;
BEGIN
  EXECUTE format('SET LOCAL ROLE %I', r);
  SET LOCAL parallel_leader_participation = off;
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Workers Launched' THEN n := n + substring(line from '(\d+)$')::int; END IF;
  END LOOP;
  RESET ROLE;
  RETURN n > 0;
END $$;
CREATE TABLE owner_answers AS SELECT name, as_role(current_user, q) AS answer FROM paths;
SELECT p.name, plan_of(p.q), o.answer NOT LIKE 'ERROR%' AS answered FROM paths p JOIN owner_answers o USING (name) ORDER BY p.name;

DROP ROLE IF EXISTS regress_rp_rows, regress_rp_both, regress_rp_cols, regress_rp_fcols;
CREATE ROLE regress_rp_rows;    -- the row forms only
CREATE ROLE regress_rp_both;    -- the row forms and the wide table
CREATE ROLE regress_rp_cols;    -- the row forms and some columns of the wide table
CREATE ROLE regress_rp_fcols;   -- the wide table and some columns of the row forms
GRANT SELECT ON rprow, rpsalt TO regress_rp_rows, regress_rp_both, regress_rp_cols;
GRANT SELECT ON rpc TO regress_rp_both, regress_rp_fcols;
GRANT SELECT (row_key, value) ON rpc TO regress_rp_cols;
GRANT SELECT (time, host, a) ON rprow, rpsalt TO regress_rp_fcols;

-- every path: the owner's answer with both privileges (from workers on the
-- parallel paths), refused otherwise (the role with some columns of the
-- row forms where a query reads column b: the rows queries)
SELECT p.name,
       as_role('regress_rp_both', p.q) = o.answer AS both_same,
       CASE WHEN p.name LIKE 'parallel%' THEN workers_as_role('regress_rp_both', p.q) END AS by_workers,
       as_role('regress_rp_rows', p.q) AS rows_only,
       as_role('regress_rp_cols', p.q) AS wide_columns,
       CASE WHEN as_role('regress_rp_fcols', p.q) = o.answer THEN 'same' ELSE as_role('regress_rp_fcols', p.q) END AS row_form_columns
  FROM paths p JOIN owner_answers o USING (name) ORDER BY p.name;

-- row level security on the wide table: every path refused, workers included
ALTER TABLE rpc ENABLE ROW LEVEL SECURITY;
CREATE POLICY rp_some ON rpc USING (row_key LIKE '%003#%');
SELECT p.name, as_role('regress_rp_both', p.q) AS with_rls
  FROM paths p ORDER BY p.name;
-- (a superuser is not subject to it, as with the wide table itself)
SELECT p.name, as_role(current_user, p.q) = o.answer AS owner_same
  FROM paths p JOIN owner_answers o USING (name) ORDER BY p.name;
DROP POLICY rp_some ON rpc;
ALTER TABLE rpc DISABLE ROW LEVEL SECURITY;

DROP FOREIGN TABLE rprow, rpsalt;
DROP TABLE rpc, paths, owner_answers;
DROP FUNCTION plan_of(text), as_role(text, text), workers_as_role(text, text);
DROP ROLE regress_rp_rows, regress_rp_both, regress_rp_cols, regress_rp_fcols;
