-- The time-series toolkit (docs/cookbook.md): keys, timestamps, buckets,
-- salting, pivot views.
SET timezone = 'UTC';
\set SHOW_CONTEXT never

-- keys: parts joined by #, # and \ escaped; key_part splits exactly
SELECT wide.key('NYSE', 'GOOG', '1426535612045');
SELECT wide.key('a#b', 'c\d', '', 'e');
SELECT n, wide.key_part(wide.key('a#b', 'c\d', '', 'e'), n) FROM generate_series(1, 5) n;
SELECT wide.key_part('plain', 1), wide.key_part('', 1), wide.key_part('trailing\', 1);
SELECT wide.key('only');
SELECT wide.key('a', NULL);
SELECT wide.key_part('a#b', 0);
-- every part round-trips, whatever it holds
SELECT bool_and(wide.key_part(wide.key(a, b, c), 1) = a AND wide.key_part(wide.key(a, b, c), 2) = b
                AND wide.key_part(wide.key(a, b, c), 3) = c AND wide.key_part(wide.key(a, b, c), 4) IS NULL)
  FROM (VALUES ('#', '\', '\#'), ('', '', ''), ('é#ü', '\\##', 'x'), ('a\', '#b', '\\')) v(a, b, c);
-- and keys sort by their first part first
SELECT wide.key('a', 'z') < wide.key('a#', 'a') AS first_part_first;

-- fixed-width numbers sort bytewise as numbers
SELECT wide.sortable(42, 6), wide.sortable(0, 1), wide.sortable(-9223372036854775808),
       wide.sortable(-1), wide.sortable(0), wide.sortable(9223372036854775807);
SELECT array_agg(n ORDER BY wide.sortable(n)) = array_agg(n ORDER BY n) AS sorts
  FROM unnest(ARRAY[-9223372036854775808, -100, -1, 0, 1, 99, 100, 9223372036854775807]::bigint[]) n;
SELECT wide.sortable(1000, 3);
SELECT wide.sortable(-5, 3);
SELECT wide.reverse_domain('www.example.com'), wide.reverse_domain('localhost'), wide.reverse_domain('');

-- PREFIX#MILLIS keys and the key range of a time window
SELECT wide.millis('2015-03-16 19:53:32.045+00'), wide.millis('1970-01-01 00:00:01+00');
SELECT wide.millis_ts(wide.millis('2015-03-16 19:53:32.045+00'));
SELECT wide.time_key('server1', '2015-03-16 19:00:00+00');
-- reversed timestamps: newer sorts first, and back
SELECT wide.reverse_millis('2015-03-16 19:53:32.045+00');
SELECT wide.reverse_millis('2016-01-01') < wide.reverse_millis('2015-01-01') AS newer_first;
SELECT wide.reverse_millis_ts(wide.reverse_millis('2015-03-16 19:53:32.045+00'));

-- buckets in the guides' forms, in a time zone; ISO weeks across years;
-- leap days
SELECT u, wide.bucket('2017-07-26 14:35:00+00', u) FROM unnest(ARRAY['hour', 'day', 'week', 'month', 'year']) u;
SELECT wide.bucket('2017-07-26 23:30:00+00', 'day', 'Europe/Berlin'), wide.bucket('2017-07-26 23:30:00+00', 'day');
SELECT wide.bucket('2021-01-03 12:00+00', 'week'), wide.bucket('2020-12-31 12:00+00', 'week'),
       wide.bucket('2024-12-30 12:00+00', 'week');
SELECT wide.bucket('2024-02-29 12:00+00', 'day'), wide.bucket('2024-02-29 23:59:59+00', 'hour');
SELECT wide.bucket(now(), 'fortnight');
-- quarter hours 00..95; on the day clocks go forward (Europe/Berlin,
-- 2021-03-28) the local day has 92 of them, going back (2021-10-31) 100
SELECT wide.quarter_hour('2021-06-01 00:00+00'), wide.quarter_hour('2021-06-01 00:14:59+00'),
       wide.quarter_hour('2021-06-01 23:59:59+00');
SELECT count(DISTINCT wide.quarter_hour(t, 'Europe/Berlin')), max(wide.quarter_hour(t, 'Europe/Berlin'))
  FROM generate_series('2021-03-27 23:00+00'::timestamptz, '2021-03-28 21:59+00', '15 min') t;
SELECT count(DISTINCT wide.quarter_hour(t, 'Europe/Berlin')), max(wide.quarter_hour(t, 'Europe/Berlin'))
  FROM generate_series('2021-10-30 22:00+00'::timestamptz, '2021-10-31 22:59+00', '15 min') t;

-- IMMUTABLE: a time window in WHERE folds to a key range before planning
CREATE TABLE m (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('m', 'm');
INSERT INTO m SELECT wide.time_key('server' || h, t), 'm', q, t, h + extract(minute FROM t) / 100
  FROM generate_series(1, 3) h, generate_series('2015-03-16 19:00+00'::timestamptz, '2015-03-16 20:59+00', '1 min') t,
       unnest(ARRAY['cpu', 'mem']) q;
EXPLAIN (COSTS OFF) SELECT * FROM m
  WHERE row_key >= wide.time_key('server2', '2015-03-16 20:00+00') AND row_key < wide.time_key('server2', '2015-03-16 20:05+00');
SELECT count(*) FROM m
  WHERE row_key >= wide.time_key('server2', '2015-03-16 20:00+00') AND row_key < wide.time_key('server2', '2015-03-16 20:05+00');

-- salting: the same key always gets the same bucket; read_salted reads all
-- buckets and returns the unsalted key order
SELECT wide.salted_key('server1#1426535612045', 10), wide.salted_key('server1#1426535612045', 10) =
       wide.salted_key('server1#1426535612045', 10) AS stable, wide.salted_key('k', 100);
CREATE TABLE s (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('s', 'c');
INSERT INTO s SELECT wide.salted_key('k' || lpad(i::text, 3, '0'), 4), 'c', 'n', 1, i FROM generate_series(1, 200) i;
SELECT count(DISTINCT split_part(row_key, '#', 1)) AS buckets_used FROM s;
SELECT array_agg(value ORDER BY o) = array_agg(value ORDER BY value) AS in_key_order, count(*)
  FROM wide.read_salted(NULL::s, 4) WITH ORDINALITY x(row_key, family, qualifier, ts, value, o);
SELECT value FROM wide.read_salted(NULL::s, 4, start_key => 'k010', end_key => 'k015');
SELECT value FROM wide.read_salted(NULL::s, 4, prefix => 'k19');
SELECT count(*) FROM wide.read_salted(NULL::s, 0);

-- pivot views: a family as typed columns, per (row_key, ts) and per row
SELECT wide.create_pivot_view('m_wide', 'm', 'm', ARRAY['cpu', 'mem', 'disk']);
SELECT * FROM m_wide WHERE row_key LIKE 'server1#%' ORDER BY row_key LIMIT 3;
SELECT wide.create_pivot_view('m_now', 'm', 'm', ARRAY['cpu', 'mem'], per => 'row');
INSERT INTO m VALUES (wide.time_key('server1', '2015-03-16 19:00+00'), 'm', 'cpu', '2015-03-16 19:00:30+00', 99);
SELECT * FROM m_now ORDER BY row_key LIMIT 2;
-- loading through the view writes one cell per non-NULL column
INSERT INTO m_wide VALUES ('server9#1', '2015-03-16 21:00+00', 1.5, NULL, 7);
SELECT row_key, qualifier, ts, value FROM m WHERE row_key = 'server9#1';
SELECT wide.create_pivot_view('bad', 'm', 'nope', ARRAY['cpu']);
SELECT wide.create_pivot_view('bad', 'm', 'm', ARRAY[]::text[]);
SELECT wide.create_pivot_view('bad', 'm', 'm', ARRAY['cpu'], per => 'day');
DROP VIEW m_wide, m_now;
DROP FUNCTION m_wide_pivot_insert(), m_now_pivot_insert();
DROP TABLE m, s;
