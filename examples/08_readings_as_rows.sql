-- Readings as rows (issue 26): the TSBS devops schema a plain-PostgreSQL
-- user writes -- cpu(time, tags_id, usage_*) and a tags table -- declared
-- once over a wide table, then the same SQL on it as on a heap table with
-- TSBS's two btrees: a reading is one tuple, conditions on tags_id and time
-- are key ranges, a join with tags seeks per host, GROUP BY runs inside the
-- scan.  Every answer is checked against the heap's.
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP FOREIGN TABLE IF EXISTS cpu_rows;
DROP TABLE IF EXISTS cpu_rows_cells, cpu_heap, tags;
RESET client_min_messages;

CREATE TABLE tags (id int PRIMARY KEY, hostname text);
INSERT INTO tags SELECT i, 'host_' || i FROM generate_series(0, 19) i;
CREATE TABLE cpu_heap (time timestamptz, tags_id int, usage_user float8, usage_system float8, usage_idle float8);
CREATE INDEX ON cpu_heap (tags_id, time DESC);
CREATE INDEX ON cpu_heap (time DESC);

-- the row form: its cells in a wide table, the key (tags_id, time)
CREATE TABLE cpu_rows_cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('cpu_rows_cells', 'cpu', max_versions => 1);
CREATE FOREIGN TABLE cpu_rows (time timestamptz NOT NULL, tags_id int OPTIONS (width '4') NOT NULL,
                               usage_user float8, usage_system float8, usage_idle float8)
  SERVER wide_rows OPTIONS (cells 'cpu_rows_cells', family 'cpu', key 'tags_id,time');

\echo -- a day of readings every 10 s from 20 hosts (172,800 readings), time-major as TSBS writes them
CREATE TEMP TABLE readings AS
SELECT '2016-01-01'::timestamptz + make_interval(secs => t * 10) AS time, h AS tags_id,
       (50 + 40 * sin(t / 500.0 + h))::int::float8 AS usage_user,
       (t * 7 + h * 13) % 100 AS usage_system,
       CASE WHEN t % 97 = 0 THEN NULL ELSE (t + h) % 100 END AS usage_idle
  FROM generate_series(0, 8639) t, generate_series(0, 19) h ORDER BY t, h;
INSERT INTO cpu_heap SELECT * FROM readings;
INSERT INTO cpu_rows SELECT * FROM readings;
ANALYZE cpu_heap;
ANALYZE cpu_rows;

\echo -- a reading is one row; a NULL is a cell that is not there
SELECT * FROM cpu_rows WHERE tags_id = 3 AND time < '2016-01-01 00:00:30';
SELECT row_key, qualifier, value FROM cpu_rows_cells
 WHERE row_key >= '0003#' AND row_key < '0003#1451606420' ORDER BY 1, 2;

\echo -- single-groupby: max cpu per minute of one host for an hour (a seek per host of the join)
EXPLAIN (costs off)
SELECT date_trunc('minute', time) AS minute, max(usage_user) FROM cpu_rows
 WHERE tags_id IN (SELECT id FROM tags WHERE hostname IN ('host_9')) AND time >= '2016-01-01 08:00' AND time < '2016-01-01 09:00'
 GROUP BY minute ORDER BY minute;
SELECT demo.expect('single-groupby answers that differ from the heap''s', count(*), 0::bigint)
  FROM ((SELECT date_trunc('minute', time) AS minute, max(usage_user) FROM cpu_rows
          WHERE tags_id IN (SELECT id FROM tags WHERE hostname IN ('host_9')) AND time >= '2016-01-01 08:00' AND time < '2016-01-01 09:00'
          GROUP BY minute
         EXCEPT
         SELECT date_trunc('minute', time) AS minute, max(usage_user) FROM cpu_heap
          WHERE tags_id IN (SELECT id FROM tags WHERE hostname IN ('host_9')) AND time >= '2016-01-01 08:00' AND time < '2016-01-01 09:00'
          GROUP BY minute)) d;

\echo -- double-groupby: mean cpu per host and hour over 12 hours (GROUP BY inside the scan, each host read only in the window)
EXPLAIN (costs off)
SELECT date_trunc('hour', time) AS hour, tags_id, avg(usage_user) FROM cpu_rows
 WHERE time >= '2016-01-01 06:00' AND time < '2016-01-01 18:00' GROUP BY 1, 2;
SELECT demo.expect('double-groupby groups that differ from the heap''s', count(*), 0::bigint)
  FROM (SELECT * FROM (SELECT date_trunc('hour', time) AS hour, tags_id, avg(usage_user) a, count(*) n FROM cpu_rows
                        WHERE time >= '2016-01-01 06:00' AND time < '2016-01-01 18:00' GROUP BY 1, 2) r
          FULL JOIN (SELECT date_trunc('hour', time) AS hour, tags_id, avg(usage_user) a, count(*) n FROM cpu_heap
                      WHERE time >= '2016-01-01 06:00' AND time < '2016-01-01 18:00' GROUP BY 1, 2) h
          USING (hour, tags_id)
         WHERE r.n IS DISTINCT FROM h.n OR abs(r.a - h.a) > 1e-9 OR r.a IS NULL OR h.a IS NULL) d;

\echo -- lastpoint: the latest reading of every host (a backward seek per host)
SELECT demo.expect('lastpoint rows that differ from the heap''s', count(*), 0::bigint)
  FROM ((SELECT t.hostname, b.* FROM tags t JOIN LATERAL
           (SELECT * FROM cpu_rows c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) b ON true
         EXCEPT
         SELECT t.hostname, b.* FROM tags t JOIN LATERAL
           (SELECT * FROM cpu_heap c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) b ON true)) d;

\echo -- high-cpu: readings above 85 on one host in 12 hours
SELECT demo.expect('high-cpu readings', (SELECT count(*) FROM cpu_rows WHERE usage_user > 85 AND tags_id = 5
                                          AND time >= '2016-01-01 06:00' AND time < '2016-01-01 18:00'),
                   (SELECT count(*) FROM cpu_heap WHERE usage_user > 85 AND tags_id = 5
                     AND time >= '2016-01-01 06:00' AND time < '2016-01-01 18:00'));

\echo -- a Grafana panel (docs/cookbook.md), as Grafana sends it for 08:00-09:00: host_9 usage_user, a point a minute
SELECT floor(extract(epoch from time)/60)*60 AS "time", avg(usage_user) AS "usage_user"
  FROM cpu_rows
 WHERE time BETWEEN '2016-01-01T08:00:00Z' AND '2016-01-01T09:00:00Z'
   AND tags_id IN (SELECT id FROM tags WHERE hostname IN ('host_9'))
 GROUP BY 1 ORDER BY 1 LIMIT 3;
CREATE TEMP VIEW panel AS
SELECT floor(extract(epoch from time)/60)*60 AS "time", avg(usage_user) AS "usage_user"
  FROM cpu_rows
 WHERE time BETWEEN '2016-01-01T08:00:00Z' AND '2016-01-01T09:00:00Z'
   AND tags_id IN (SELECT id FROM tags WHERE hostname IN ('host_9'))
 GROUP BY 1;
SELECT demo.expect('Grafana panel points', count(*), 61::bigint) FROM panel;
SELECT demo.expect('Grafana panel points that differ from the heap''s', count(*), 0::bigint)
  FROM (SELECT * FROM panel
        EXCEPT
        SELECT floor(extract(epoch from time)/60)*60, avg(usage_user) FROM cpu_heap
         WHERE time BETWEEN '2016-01-01T08:00:00Z' AND '2016-01-01T09:00:00Z' AND tags_id = 9
         GROUP BY 1) d;

\echo -- sizes after VACUUM: the cells of the row form against the heap and its btrees
VACUUM ANALYZE cpu_heap;
VACUUM ANALYZE cpu_rows_cells;
SELECT pg_size_pretty(pg_total_relation_size('cpu_heap')) AS heap,
       pg_size_pretty(pg_total_relation_size('cpu_rows_cells')) AS wide_rows;
