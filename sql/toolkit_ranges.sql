-- The toolkit's key-range helpers (docs/cookbook.md): prefix_end,
-- time_range(s), reverse_time_key, read_latest, read_current; and the
-- edge cases of the key helpers they build on.
SET timezone = 'UTC';
\set SHOW_CONTEXT never

-- prefix_end: the last character incremented, as code points; none past
-- U+10FFFF; the surrogates skipped; NULL for no bound
SELECT wide.prefix_end('abc'), wide.prefix_end('a#'), wide.prefix_end('server1#'), wide.prefix_end('z');
SELECT wide.prefix_end(''), wide.prefix_end(chr(1114111)), wide.prefix_end('ab' || chr(1114111) || chr(1114111));
SELECT wide.prefix_end('é') = 'ê' AS two_bytes, wide.prefix_end(chr(55295)) = chr(57344) AS past_surrogates,
       wide.prefix_end(chr(127)) = chr(128) AS ascii_to_two_bytes, wide.prefix_end(chr(65535)) = chr(65536) AS bmp_to_four_bytes;
SELECT wide.prefix_end(NULL);
-- control characters and byte-like keys (text keys hold no NUL): 0x01 -> 0x02
SELECT wide.prefix_end(chr(1)) = chr(2) AS ctl, wide.prefix_end(E'a\t') = E'a\n' AS tab,
       wide.prefix_end(chr(55295) || chr(1114111)) = chr(57344) AS carry_past_surrogates;
SELECT wide.key(E'line\nbreak', chr(1), E'\\#') = E'line\nbreak#\x01#\\\\\\#' AS escaped,
       wide.key_part(wide.key(E'line\nbreak', chr(1), E'\\#'), 3) = E'\\#' AS split_back;
-- for every prefix, [p, prefix_end(p)) holds exactly the strings starting
-- with p, in the bytewise key order
CREATE TABLE k (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('k', 'f');
INSERT INTO k SELECT x, 'f', 'q', 1, i FROM unnest(ARRAY['', 'a', 'a#', 'a#b', 'a$', 'ab', 'b', 'é', 'éa', 'ê',
  'z' || chr(1114111), 'z' || chr(1114111) || 'x', chr(55295) || 'x', chr(57344), '~', chr(127), chr(128)]) WITH ORDINALITY u(x, i)
  WHERE x <> '';
SELECT p, count(*) FILTER (WHERE row_key >= p AND (wide.prefix_end(p) IS NULL OR row_key < wide.prefix_end(p))) AS in_range,
       count(*) FILTER (WHERE starts_with(row_key, p)) AS with_prefix
  FROM unnest(ARRAY['', 'a', 'a#', 'é', 'z', 'z' || chr(1114111), chr(55295), chr(127)]) p, k
 GROUP BY p ORDER BY p COLLATE "C";
-- IMMUTABLE: folded into the pushed-down key range
EXPLAIN (COSTS OFF) SELECT * FROM k WHERE row_key >= 'a#' AND row_key < wide.prefix_end('a#');
SELECT row_key FROM k WHERE row_key >= 'a#' AND row_key < wide.prefix_end('a#');
SELECT row_key FROM wide.read_rows(NULL::k, start_key => 'a', end_key => wide.prefix_end('a'));

-- time ranges of PREFIX#MILLIS keys, as read_rows ranges; negative (before
-- 1970) times do not fit 13 digits
SELECT wide.time_range('server1', '2015-03-16 19:00+00', '2015-03-16 20:00+00');
SELECT wide.time_ranges(ARRAY['b', NULL, 'a'], '2015-03-16 19:00+00', '2015-03-16 20:00+00');
SELECT wide.time_ranges(ARRAY[]::text[], '2015-03-16 19:00+00', '2015-03-16 20:00+00');
SELECT wide.time_range('p', '1969-12-31 23:59:59+00', '1970-01-01');
-- times in other zones are the same instants
SELECT wide.time_key('p', '2015-03-16 20:00:00+01') = wide.time_key('p', '2015-03-16 19:00:00+00') AS same_instant;
-- leap day and the last millisecond of a year
SELECT wide.millis('2024-02-29 23:59:59.999+00'), wide.millis_ts(wide.millis('2024-02-29 23:59:59.999+00'));
SELECT wide.millis('2286-11-20 17:46:39.999+00'), wide.millis('2286-11-20 17:46:40+00');

-- reversed keys: the latest n rows of a prefix, newest first
CREATE TABLE r (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('r', 'm');
INSERT INTO r SELECT wide.reverse_time_key('s' || s, t), 'm', q, t, s * 1000 + extract(hour FROM t)
  FROM generate_series(1, 3) s, generate_series('2024-02-28 22:00+00'::timestamptz, '2024-02-29 02:00+00', '1 hour') t,
       unnest(ARRAY['a', 'b']) q;
SELECT row_key, qualifier, ts, value FROM wide.read_latest(NULL::r, 's2', 2);
SELECT wide.reverse_millis_ts(split_part(row_key, '#', 2)) = ts AS key_is_ts, ts
  FROM wide.read_latest(NULL::r, 's3', 3, filter => wide.qualifier_filter('a'));
-- a window of reversed keys: [t1, t2) is (reverse_time_key(t2), reverse_time_key(t1)]
SELECT ts FROM r WHERE row_key > wide.reverse_time_key('s1', '2024-02-29 00:00+00')
                   AND row_key <= wide.reverse_time_key('s1', '2024-02-28 23:00+00') AND qualifier = 'a';
-- the prefix is a whole key part: s1 does not read s10
INSERT INTO r VALUES (wide.reverse_time_key('s10', '2030-01-01'), 'm', 'a', '2030-01-01', 10);
SELECT count(*) FROM wide.read_latest(NULL::r, 's1', 100);
-- forward keys: the latest rows by a reversed scan
CREATE TABLE f (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('f', 'm');
INSERT INTO f SELECT wide.time_key('h', t), 'm', 'v', t, extract(hour FROM t)
  FROM generate_series('2024-02-28 22:00+00'::timestamptz, '2024-02-29 02:00+00', '1 hour') t;
SELECT row_key, ts FROM wide.read_latest(NULL::f, 'h', 2, newest_first => false);
SELECT count(*) FROM wide.read_latest(NULL::f, 'h', 0, newest_first => false);
SELECT count(*) FROM wide.read_latest(NULL::f, 'nope', 5);
SELECT * FROM wide.read_latest(NULL::f, 'h', -1);

-- latest values: the newest cell of each column, with versions and deletes
CREATE TABLE c (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('c', 'm');
SELECT wide.create_family('c', 'n', max_versions => 1);
INSERT INTO c SELECT 'host' || h, f, q, '2024-03-31 00:00+00'::timestamptz + v * interval '30 min', h * 100 + v
  FROM generate_series(1, 3) h, unnest(ARRAY['m', 'n']) f, unnest(ARRAY['cpu', 'mem']) q, generate_series(1, 6) v;
SELECT row_key, family, qualifier, ts, value FROM wide.read_current(NULL::c, prefix => 'host2');
SELECT count(*) FROM wide.read_current(NULL::c);
SELECT row_key, qualifier, value FROM wide.read_current(NULL::c, start_key => 'host2', end_key => 'host3',
                                                        filter => wide.family_filter('m'));
-- the filter applies first: the newest cell of each column below 205
SELECT row_key, family, qualifier, value FROM wide.read_current(NULL::c, prefix => 'host2',
                                                                filter => wide.value_range(NULL, '205'));
-- deleting the newest cell makes the one before it current
DELETE FROM c WHERE row_key = 'host1' AND family = 'm' AND qualifier = 'cpu' AND value = 106;
SELECT qualifier, value FROM wide.read_current(NULL::c, prefix => 'host1', filter => wide.family_filter('m'));
-- a prefix and a range are a row set: their union
SELECT count(*) FROM wide.read_current(NULL::c, prefix => 'host1', start_key => 'host3');
-- the current values as a per-row pivot view; inserting into it sets them
SELECT wide.create_pivot_view('c_now', 'c', 'n', ARRAY['cpu', 'mem'], per => 'row');
SELECT * FROM c_now ORDER BY row_key;
INSERT INTO c_now VALUES ('host2', '2024-03-31 04:00+00', 2.5, NULL), ('host4', '2024-03-31 04:00+00', 4, 4.5);
SELECT * FROM c_now ORDER BY row_key;
SELECT row_key, family, qualifier, ts, value FROM wide.read_current(NULL::c, prefix => 'host2', filter => wide.family_filter('n'));
DROP VIEW c_now;
DROP FUNCTION c_now_pivot_insert();

-- key helpers with unusual parts: empty, delimiter, backslash, high code
-- points; numbers at the ends of bigint
SELECT wide.key('', ''), wide.key_part(wide.key('', ''), 1), wide.key_part(wide.key('', ''), 2), wide.key_part(wide.key('', ''), 3);
SELECT wide.key('#'), wide.key_part(wide.key('#'), 1), wide.key('\'), wide.key_part(wide.key('\'), 1);
SELECT wide.key_part('a#b#', 3), wide.key_part('a#b#', 4), wide.key_part('#', 1), wide.key_part('#', 2);
SELECT wide.key(chr(1114111), 'é') = chr(1114111) || '#é' AS high_code_points,
       wide.key_part(chr(1114111) || '#é', 2) = 'é' AS split_back;
SELECT wide.sortable(-9223372036854775808), wide.sortable(9223372036854775807),
       wide.sortable(9223372036854775807, 19);
SELECT wide.sortable(0, 0);
SELECT wide.sortable(9223372036854775807, 18);
SELECT wide.salted_key('', 3), wide.salted_key('k', 1), wide.salted_key('k', 10000);
SELECT wide.salted_key('k', 0);

-- buckets across DST in a zone: the local hour repeats, the day is local
SELECT t, wide.bucket(t, 'hour', 'Europe/Berlin') AS hour, wide.bucket(t, 'day', 'America/New_York') AS ny_day
  FROM (VALUES ('2021-10-31 00:30+00'::timestamptz), ('2021-10-31 01:30+00'), ('2021-03-28 00:30+00'),
               ('2021-03-28 01:30+00'), ('2021-11-07 04:30+00')) v(t);
SELECT wide.bucket('2020-02-29 12:00+00', 'week'), wide.bucket('2020-12-31 12:00+00', 'week'),
       wide.bucket('2021-01-01 12:00+00', 'week'), wide.bucket('2000-02-29 23:30+00', 'day', 'Asia/Tokyo');
SELECT wide.bucket('2024-02-29 12:00+00', 'day', 'Mars/Olympus');

DROP TABLE k, r, f, c;
