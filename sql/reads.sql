--
-- reads: read_row, read_rows (row sets, limit), row filters, bad input
--
\set SHOW_CONTEXT never
CREATE TABLE m (row_key text, family text, qualifier text, ts timestamptz,
                value float8) USING wide;
SELECT wide.create_family('m', 'cpu');
SELECT wide.create_family('m', 'mem');
-- 3 hosts x 3 minutes, 3 columns, 2 versions each
INSERT INTO m
SELECT 'host' || h || '#' || t, f, q,
       '2030-01-01'::timestamptz + t * interval '1 minute' + v * interval '1 second',
       h * 100 + t + v
  FROM generate_series(1, 3) h, generate_series(1, 3) t,
       (VALUES ('cpu', 'usr'), ('cpu', 'sys'), ('mem', 'used')) fq(f, q),
       generate_series(0, 1) v;

-- read_row: one row, every version, in (family, qualifier, ts desc) order
SELECT * FROM wide.read_row(NULL::m, 'host1#2');
SELECT count(*) FROM wide.read_row(NULL::m, 'host9#9');

-- row sets: prefix, start/end (half-open by default), keys, ranges; the
-- union, each row once, in key order
SELECT row_key, count(*) FROM wide.read_rows(NULL::m, prefix => 'host2') GROUP BY 1 ORDER BY 1;
SELECT DISTINCT row_key FROM wide.read_rows(NULL::m, start_key => 'host1#3', end_key => 'host2#2') ORDER BY 1;
SELECT DISTINCT row_key FROM wide.read_rows(NULL::m, start_key => 'host1#3', end_key => 'host2#2',
                                            start_inclusive => false, end_inclusive => true) ORDER BY 1;
SELECT DISTINCT row_key FROM wide.read_rows(NULL::m, start_key => 'host3#2') ORDER BY 1;
SELECT DISTINCT row_key FROM wide.read_rows(NULL::m, end_key => 'host1#2') ORDER BY 1;
SELECT row_key, count(*) FROM wide.read_rows(NULL::m, keys => ARRAY['host3#1', 'host1#1', 'nope', 'host1#1'],
                                             prefix => 'host2#', start_key => 'host1#1', end_key => 'host1#3')
 GROUP BY 1 ORDER BY 1;
SELECT DISTINCT row_key FROM wide.read_rows(NULL::m, ranges =>
  '[{"start_key_closed": "host2#2", "end_key_closed": "host3#1"},
    {"start_key_open": "host1#1", "end_key_open": "host1#3"},
    {"start_key_closed": "host2#3", "end_key_open": "host2#4"}]') ORDER BY 1;
-- the result comes in key order, each row once, across overlapping ranges
SELECT row_key, qualifier, value FROM wide.read_rows(NULL::m, prefix => 'host3#3');
SELECT string_agg(DISTINCT row_key, ' ') AS rows, count(*) AS cells,
       bool_and(ok) AS ordered
  FROM (SELECT row_key, row_key >= lag(row_key, 1, '') OVER () AS ok
          FROM wide.read_rows(NULL::m, keys => ARRAY['host2#1', 'host1#2'],
                              prefix => 'host1', start_key => 'host1#3', end_key => 'host2#2')) s;
-- limit counts rows, not cells
SELECT row_key, count(*) FROM wide.read_rows(NULL::m, "limit" => 2) GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM wide.read_rows(NULL::m, "limit" => 0);
-- a read sees its snapshot, own writes included; aborted never
BEGIN;
INSERT INTO m VALUES ('host1#1', 'cpu', 'usr', '2031-01-01', -1);
SELECT ts, value FROM wide.read_row(NULL::m, 'host1#1', '{"column_qualifier_regex_filter": "usr"}');
ROLLBACK;
SELECT ts, value FROM wide.read_row(NULL::m, 'host1#1', '{"column_qualifier_regex_filter": "usr"}');

-- filters
-- latest version of every column
SELECT * FROM wide.read_rows(NULL::m, prefix => 'host1#1', filter => '{"cells_per_column_limit_filter": 1}');
-- chain: each filter's output feeds the next
SELECT row_key, family, qualifier, value FROM wide.read_rows(NULL::m, prefix => 'host1',
  filter => '{"chain": [{"family_name_regex_filter": "cpu"},
                        {"column_qualifier_regex_filter": "s.*"},
                        {"cells_per_column_limit_filter": 1}]}');
-- regexes match the whole string
SELECT count(*) FROM wide.read_rows(NULL::m, filter => '{"family_name_regex_filter": "cp"}');
SELECT count(*) FROM wide.read_rows(NULL::m, filter => '{"family_name_regex_filter": "cp."}');
-- interleave: the union of the branches' outputs, in cell order, duplicates
-- kept; labels tell the branches apart
SELECT (cell).row_key, (cell).qualifier, (cell).value, labels
  FROM wide.read_rows_labeled(NULL::m, keys => ARRAY['host1#1'],
  filter => '{"interleave": [
    {"chain": [{"family_name_regex_filter": "mem"}, {"apply_label_transformer": "m"}]},
    {"chain": [{"column_qualifier_regex_filter": "u.*"}, {"cells_per_column_limit_filter": 1},
               {"apply_label_transformer": "u"}]}]}');
-- condition: rows with a value >= 300 give their first cell, others nothing
SELECT row_key, qualifier, value FROM wide.read_rows(NULL::m,
  filter => '{"condition": {"predicate_filter": {"value_range_filter": {"start_value_closed": 300}},
                            "true_filter": {"cells_per_row_limit_filter": 1},
                            "false_filter": {"block_all_filter": true}}}');
-- a condition without the branch taken gives nothing
SELECT count(*) FROM wide.read_rows(NULL::m,
  filter => '{"condition": {"predicate_filter": {"block_all_filter": true},
                            "true_filter": {"pass_all_filter": true}}}');
-- row key regex, timestamp range [start, end), strip value
SELECT * FROM wide.read_rows(NULL::m,
  filter => jsonb_build_object('chain', jsonb_build_array(
              '{"row_key_regex_filter": "host2#.*"}'::jsonb,
              jsonb_build_object('timestamp_range_filter', jsonb_build_object(
                'start_timestamp_micros', extract(epoch FROM '2030-01-01 00:03'::timestamptz) * 1000000,
                'end_timestamp_micros', extract(epoch FROM '2030-01-01 00:03:01'::timestamptz) * 1000000)),
              '{"strip_value_transformer": true}'::jsonb)));
-- column range, value range (typed: numbers compare as numbers), value regex
SELECT DISTINCT family, qualifier FROM wide.read_rows(NULL::m,
  filter => '{"column_range_filter": {"family_name": "cpu", "start_qualifier_open": "sys"}}');
SELECT DISTINCT family, qualifier FROM wide.read_rows(NULL::m,
  filter => '{"column_range_filter": {"family_name": "cpu", "end_qualifier_closed": "sys"}}');
SELECT DISTINCT value FROM wide.read_rows(NULL::m,
  filter => '{"value_range_filter": {"start_value_open": 203, "end_value_closed": "301"}}') ORDER BY 1;
SELECT DISTINCT value FROM wide.read_rows(NULL::m, filter => '{"value_regex_filter": "1.[24]"}') ORDER BY 1;
-- per-row offset and limit
SELECT qualifier, ts, value FROM wide.read_row(NULL::m, 'host1#1',
  '{"chain": [{"cells_per_row_offset_filter": 2}, {"cells_per_row_limit_filter": 3}]}');
-- row sample: some of the rows, each whole
SELECT count(*) % 6 AS whole_rows FROM wide.read_rows(NULL::m, filter => '{"row_sample_filter": 0.5}');
-- pass all and block all
SELECT count(*) FROM wide.read_rows(NULL::m, filter => '{"pass_all_filter": true}');
SELECT count(*) FROM wide.read_rows(NULL::m, filter => '{"block_all_filter": true}');
-- composes with SQL: the newest cpu value per host, by a lateral read
SELECT h.host, r.qualifier, r.value
  FROM (VALUES ('host1'), ('host3')) h(host),
       LATERAL wide.read_rows(NULL::m, prefix => h.host || '#',
                              filter => '{"chain": [{"family_name_regex_filter": "cpu"},
                                                    {"cells_per_column_limit_filter": 1}]}') r
 WHERE r.row_key = h.host || '#3';

-- reversed reads: rows last first, cells inside a row in their order
SELECT row_key, qualifier, ts, value FROM wide.read_rows(NULL::m, prefix => 'host1', reversed => true,
  filter => '{"cells_per_column_limit_filter": 1}');
SELECT string_agg(DISTINCT row_key, ' ') FROM wide.read_rows(NULL::m, reversed => true, "limit" => 2);
SELECT row_key FROM wide.read_rows(NULL::m, reversed => true, "limit" => 2,
  filter => '{"cells_per_row_limit_filter": 1}');
-- bad input: each a clear error before anything is read
SELECT * FROM wide.read_rows(NULL::m, filter => '[]');
SELECT * FROM wide.read_rows(NULL::m, filter => '"pass"');
SELECT * FROM wide.read_rows(NULL::m, filter => '{}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"pass_all_filter": true, "block_all_filter": true}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"no_such_filter": 1}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"chain": [1]}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"chain": {"pass_all_filter": true}}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"family_name_regex_filter": "("}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"chain": [{"pass_all_filter": true}, {"value_regex_filter": "[z-a]"}]}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"cells_per_row_limit_filter": -1}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"cells_per_column_limit_filter": 0}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"cells_per_row_offset_filter": 1.5}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"row_sample_filter": 1.5}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"timestamp_range_filter": {"start_timestamp_micros": 10, "end_timestamp_micros": 5}}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"timestamp_range_filter": {"start": 10}}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"column_range_filter": {"start_qualifier_closed": "a"}}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"value_range_filter": {"start_value_closed": "abc"}}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"condition": {"true_filter": {"pass_all_filter": true}}}');
SELECT * FROM wide.read_rows(NULL::m, filter => '{"sink": true}');
SELECT * FROM wide.read_rows(NULL::m, start_key => 'b', end_key => 'a');
SELECT * FROM wide.read_rows(NULL::m, ranges => '[{"start_key_closed": "b", "end_key_open": "a"}]');
SELECT * FROM wide.read_rows(NULL::m, ranges => '{"start_key_closed": "a"}');
SELECT * FROM wide.read_rows(NULL::m, ranges => '[{"start_key": "a"}]');
SELECT * FROM wide.read_rows(NULL::m, ranges => '[{"start_key_closed": "a", "start_key_open": "b"}]');
SELECT * FROM wide.read_rows(NULL::m, ranges => '[{"start_key_closed": 1}]');
SELECT * FROM wide.read_rows(NULL::m, "limit" => -1);
SELECT * FROM wide.read_rows(NULL::m, keys => ARRAY[NULL]);
SELECT * FROM wide.read_rows(NULL::m, keys => ARRAY[repeat('k', 5000)]);
SELECT * FROM wide.read_rows(NULL::pg_class);
SELECT * FROM wide.read_rows(NULL::int);
DROP TABLE m;

-- reversed equals forward, rows reversed, over runs, the write area, deletes
-- and overlapping ranges
CREATE TABLE rv (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('rv', 'f');
INSERT INTO rv SELECT 'r' || lpad((g % 700)::text, 4, '0'), 'f', 'q' || (g % 3), g, g
  FROM generate_series(1, 3000) g;
SELECT FROM wide.compact('rv');
INSERT INTO rv SELECT 'r' || lpad((g * 7 % 1000)::text, 4, '0'), 'f', 'q', g, -g
  FROM generate_series(1, 500) g;
SELECT wide.delete_row('rv', 'r0' || lpad(g::text, 3, '0')) FROM generate_series(10, 60) g \g /dev/null
CREATE FUNCTION rows_of(VARIADIC args text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE format('SELECT string_agg(row_key || '':'' || n, '','' ORDER BY o) FROM
                    (SELECT row_key, count(*) AS n, min(o) AS o FROM
                       (SELECT row_key, row_number() OVER () AS o FROM wide.read_rows(NULL::rv, %s)) s
                     GROUP BY row_key) t', array_to_string(args, ', ')) INTO r;
  RETURN r;
END $$;
CREATE FUNCTION rev_ok(VARIADIC args text[]) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE fwd text[]; rev text[];
BEGIN
  fwd := string_to_array(rows_of(VARIADIC args), ',');
  rev := string_to_array(rows_of(VARIADIC args || ARRAY['reversed => true']), ',');
  RETURN fwd IS NOT NULL AND fwd = ARRAY(SELECT rev[i] FROM generate_subscripts(rev, 1) i ORDER BY i DESC);
END $$;
SELECT rev_ok('prefix => ''r0''') AS whole_prefix,
       rev_ok('start_key => ''r0100''', 'end_key => ''r0200''') AS range,
       rev_ok('start_key => ''r0100''', 'end_key => ''r0200''', 'start_inclusive => false', 'end_inclusive => true') AS bounds,
       rev_ok('ranges => ''[{"start_key_closed": "r0300", "end_key_open": "r0450"}, {"start_key_open": "r0400", "end_key_closed": "r0600"}]''') AS overlapping,
       rev_ok('keys => ARRAY[''r0005'', ''r0999'', ''r0020'', ''r0500'']') AS keys,
       rev_ok('prefix => ''r'''::text, 'filter => ''{"cells_per_column_limit_filter": 1}''') AS filtered;
SELECT count(DISTINCT row_key) AS rows, count(*) AS cells FROM wide.read_rows(NULL::rv, reversed => true);
SELECT count(DISTINCT row_key) AS rows, count(*) AS cells FROM wide.read_rows(NULL::rv);
SELECT row_key FROM wide.read_rows(NULL::rv, reversed => true, "limit" => 3,
  filter => '{"cells_per_row_limit_filter": 1}');
SELECT row_key FROM wide.read_rows(NULL::rv, end_key => 'r0062', reversed => true, "limit" => 3,
  filter => '{"cells_per_row_limit_filter": 1}');
DROP TABLE rv;
DROP FUNCTION rev_ok, rows_of;

-- sample_row_keys: split keys in order, offsets growing, the last row the
-- whole table under an empty key
CREATE TABLE big (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('big', 'f');
INSERT INTO big SELECT 'k' || lpad(g::text, 7, '0'), 'f', 'q', 1, md5(g::text)
  FROM generate_series(1, 200000) g;
SELECT count(*) > 0 AS has_samples FROM wide.sample_row_keys('big');
SELECT FROM wide.compact('big', major => true);
SELECT count(*) > 2 AS several,
       bool_and(ok_key) AS keys_increase, bool_and(ok_off) AS offsets_increase
  FROM (SELECT row_key > lag(row_key, 1, '') OVER w OR row_key = '' AS ok_key,
               offset_bytes > lag(offset_bytes, 1, 0::bigint) OVER w AS ok_off
          FROM wide.sample_row_keys('big') WINDOW w AS ()) s;
SELECT row_key = '' AS last_is_empty,
       offset_bytes BETWEEN (SELECT stored_bytes FROM wide.stats('big')) / 2
                        AND (SELECT stored_bytes FROM wide.stats('big')) * 2 AS about_the_size
  FROM wide.sample_row_keys('big') ORDER BY offset_bytes DESC LIMIT 1;
-- the split keys cut the table into ranges that read every cell once
SELECT sum(n) AS cells FROM (
  SELECT (SELECT count(*) FROM wide.read_rows(NULL::big,
            start_key => CASE WHEN lo = '' THEN NULL ELSE convert_from(lo, 'UTF8') END,
            start_inclusive => false,
            end_key => CASE WHEN hi = '' THEN NULL ELSE convert_from(hi, 'UTF8') END,
            end_inclusive => true)) AS n
    FROM (SELECT lag(row_key, 1, ''::bytea) OVER (ORDER BY offset_bytes) AS lo, row_key AS hi
            FROM wide.sample_row_keys('big')) s) t;
DROP TABLE big;

-- SQL shortcuts build the same filters
SELECT wide.chain(wide.family_filter('cpu'), wide.qualifier_filter('s.*'), wide.latest(1)) =
       '{"chain": [{"family_name_regex_filter": "cpu"}, {"column_qualifier_regex_filter": "s.*"},
                   {"cells_per_column_limit_filter": 1}]}'::jsonb AS same;
SELECT wide.ts_range('2030-01-01 00:00:00+00', '2030-01-01 00:03:01+00');
SELECT wide.column_range('cf', 'a', 'c', end_inclusive => true), wide.value_range(end_value => '10');
SELECT wide.condition(wide.value_filter('queued'), wide.cells_per_row(1, 2));
SELECT wide.interleave(wide.chain(wide.row_key_filter('k.*'), wide.label('x')), wide.strip_value(),
                       wide.row_sample(0.5));
CREATE TABLE s (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('s', 'm');
INSERT INTO s SELECT 'h#' || g, 'm', q, '2030-01-01'::timestamptz + v * interval '1 minute', g * 10 + v
  FROM generate_series(1, 3) g, unnest(ARRAY['cpu', 'mem']) q, generate_series(0, 3) v;
SELECT row_key, qualifier, value
  FROM wide.read_rows(NULL::s, prefix => 'h#',
                      filter => wide.chain(wide.qualifier_filter('cpu'),
                                           wide.ts_range('2030-01-01', '2030-01-01 00:02'),
                                           wide.latest(1)));
DROP TABLE s;
