--
-- filters: row filters at their limits (issue 9, defects 7, 12 and 13)
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
CREATE TABLE fw (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('fw', 'cf');
SELECT wide.create_family('fw', 'g');
INSERT INTO fw SELECT 'big', 'cf', 'q' || lpad(i::text, 4, '0'), 1, 'v' || i
  FROM generate_series(1, 2000) i;
INSERT INTO fw VALUES ('small', 'cf', 'a', 2, 'x'), ('small', 'cf', 'b', 1, 'y'),
                      ('small', 'g', 'a', 3, 'z');

-- defect 7: a branch of an interleave may output more cells than its input
-- (an interleave inside); the output grows as needed
SELECT count(*) FROM wide.read_rows(NULL::fw, keys => ARRAY['big'], filter =>
  '{"interleave": [{"interleave": [{"pass_all_filter": true}, {"pass_all_filter": true}]},
                   {"pass_all_filter": true}]}');
SELECT count(*) FROM wide.read_rows(NULL::fw, keys => ARRAY['big'], filter =>
  '{"chain": [{"interleave": [{"pass_all_filter": true}, {"pass_all_filter": true}]},
              {"interleave": [{"pass_all_filter": true}, {"pass_all_filter": true},
                              {"interleave": [{"pass_all_filter": true}, {"pass_all_filter": true}]}]}]}');
-- through a condition's branches too
SELECT count(*) FROM wide.read_rows(NULL::fw, keys => ARRAY['big'], filter =>
  '{"condition": {"predicate_filter": {"pass_all_filter": true},
                  "true_filter": {"interleave": [{"interleave": [{"pass_all_filter": true},
                                                                 {"pass_all_filter": true}]},
                                                 {"pass_all_filter": true}]}}}');
-- duplicates keep the order of their branches, labels the order they were applied
SELECT (cell).qualifier, (cell).ts, labels FROM wide.read_rows_labeled(NULL::fw, keys => ARRAY['small'], filter =>
  '{"chain": [{"apply_label_transformer": "a"},
              {"interleave": [{"chain": [{"apply_label_transformer": "b"}, {"apply_label_transformer": "c"}]},
                              {"interleave": [{"apply_label_transformer": "d"},
                                              {"family_name_regex_filter": "g"}]},
                              {"chain": [{"cells_per_row_offset_filter": 1}, {"apply_label_transformer": "e"}]}]}]}');
-- limits and offsets count duplicates; strip applies to one branch only
SELECT row_key, qualifier, value FROM wide.read_rows(NULL::fw, keys => ARRAY['small'], filter =>
  '{"chain": [{"interleave": [{"strip_value_transformer": true}, {"pass_all_filter": true}]},
              {"cells_per_row_offset_filter": 1}, {"cells_per_row_limit_filter": 4},
              {"cells_per_column_limit_filter": 1}]}');
-- an interleave that multiplies beyond the limit fails cleanly
SELECT count(*) FROM wide.read_rows(NULL::fw, keys => ARRAY['big'], filter => (
  SELECT jsonb_build_object('chain', jsonb_agg('{"interleave": [{"pass_all_filter": true},
                                                               {"pass_all_filter": true}]}'::jsonb))
    FROM generate_series(1, 12)));

-- defect 12: deep nesting is linear to parse and apply, and errors cleanly
-- where the stack ends (depths that fit max_stack_depth's default under
-- AddressSanitizer too: a 6,000 deep condition fits a normal build)
SELECT count(*) FROM wide.read_rows(NULL::fw, keys => ARRAY['big'], filter =>
  (repeat('{"condition": {"true_filter": {"pass_all_filter": true}, "predicate_filter": ', 2500)
   || '{"pass_all_filter": true}' || repeat('}}', 2500))::jsonb);
SELECT count(*) FROM wide.read_rows(NULL::fw, keys => ARRAY['big'], filter =>
  (repeat('{"chain": [', 2000) || '{"pass_all_filter": true}' || repeat(']}', 2000))::jsonb);
SELECT count(*) FROM wide.read_rows(NULL::fw, keys => ARRAY['big'], filter =>
  (repeat('{"condition": {"predicate_filter": ', 20000) || '{"pass_all_filter": true}'
   || repeat('}}', 20000))::jsonb);
-- errors deep down name their place
SELECT count(*) FROM wide.read_rows(NULL::fw, filter =>
  '{"chain": [{"pass_all_filter": true},
              {"condition": {"predicate": {"interleave": [{"block_all_filter": true},
                                                          {"cells_per_row_limit_filter": 0}]}}}]}');
SELECT count(*) FROM wide.read_rows(NULL::fw, filter =>
  '{"interleave": [{"pass_all_filter": true}, {"value_regex_filter": "("}]}');
-- check_and_mutate_row parses the same filters
SELECT wide.check_and_mutate_row('fw', 'small',
  '{"interleave": [{"interleave": [{"pass_all_filter": true}, {"pass_all_filter": true}]},
                   {"pass_all_filter": true}]}',
  on_match => '[{"set_cell": {"family_name": "g", "column_qualifier": "m", "timestamp_micros": 1, "value": "hit"}}]');
SELECT value FROM wide.read_row(NULL::fw, 'small', '{"column_qualifier_regex_filter": "m"}');

-- defect 13: the largest timestamp is a timestamp like any other
CREATE TABLE tsmax (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('tsmax', 'f');
INSERT INTO tsmax SELECT k, 'f', 'q', ts, k || '@' || ts
  FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e', 'f']) k,
       unnest(ARRAY[5, 9223372036854775806, 9223372036854775807]) ts;
-- an open-ended timestamp range includes it
SELECT value FROM wide.read_rows(NULL::tsmax, keys => ARRAY['a'],
  filter => '{"timestamp_range_filter": {"start_timestamp_micros": 6}}');
SELECT value FROM wide.read_rows(NULL::tsmax, keys => ARRAY['a'],
  filter => '{"timestamp_range_filter": {"start_timestamp_micros": 9223372036854775807, "end_timestamp_micros": 0}}');
SELECT value FROM wide.read_rows(NULL::tsmax, keys => ARRAY['a'],
  filter => '{"timestamp_range_filter": {"end_timestamp_micros": 9223372036854775806}}');
-- deletes without an end delete it
SELECT wide.delete_cells('tsmax', 'a', 'f', 'q');
SELECT wide.delete_cells('tsmax', 'b', 'f', 'q', ts_from => 6);
SELECT wide.mutate_row('tsmax', 'c', '[{"delete_from_column": {"family_name": "f", "column_qualifier": "q"}}]');
SELECT wide.mutate_row('tsmax', 'd', '[{"delete_from_column": {"family_name": "f", "column_qualifier": "q",
  "time_range": {"start_timestamp_micros": 9223372036854775806}}}]');
-- a bounded delete does not; SQL DELETE deletes exactly the version
SELECT wide.delete_cells('tsmax', 'e', 'f', 'q', ts_from => 0, ts_to => 9223372036854775806);
DELETE FROM tsmax WHERE row_key = 'f' AND ts = 9223372036854775807;
SELECT row_key, ts FROM tsmax ORDER BY 1, 2;
-- and so do flushes and compactions
SELECT FROM wide.compact('tsmax', major => true);
SELECT row_key, ts FROM tsmax ORDER BY 1, 2;
DROP TABLE tsmax;
-- Regexes are RE2 over bytes, whole-string, as in Bigtable: \C is any byte,
-- . one UTF-8 character (never \n), \x41 a byte, (?i) anywhere
CREATE TABLE rb (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('rb', 'f');
INSERT INTO rb VALUES ('\x61ff', 'f', 'q', 1, '\x00ff'),
  (convert_to('aé', 'UTF8'), 'f', 'AB', 1, 'Value'),
  ('b', 'f', '\x0a', 1, '\x0a');
SELECT row_key FROM wide.read_rows(NULL::rb, filter => '{"row_key_regex_filter": "a\\C"}');
SELECT row_key FROM wide.read_rows(NULL::rb, filter => '{"row_key_regex_filter": "a."}');
SELECT row_key FROM wide.read_rows(NULL::rb, filter => '{"row_key_regex_filter": "a\\C\\C"}');
SELECT row_key FROM wide.read_rows(NULL::rb, filter => '{"row_key_regex_filter": "a\\xff"}');
SELECT qualifier FROM wide.read_rows(NULL::rb, filter => '{"column_qualifier_regex_filter": "\\x41B"}');
SELECT qualifier FROM wide.read_rows(NULL::rb, filter => '{"column_qualifier_regex_filter": "."}');
SELECT qualifier FROM wide.read_rows(NULL::rb, filter => '{"column_qualifier_regex_filter": "(?s)."}');
SELECT value FROM wide.read_rows(NULL::rb, filter => '{"value_regex_filter": "V(?i)ALUE"}');
SELECT value FROM wide.read_rows(NULL::rb, filter => '{"value_regex_filter": "\\x00\\C"}');
SELECT count(*) FROM wide.read_rows(NULL::rb, filter => '{"value_regex_filter": "(?P<x>a"}');
DROP TABLE rb;

-- a mistyped name is refused with the nearest valid one, nothing read
\set VERBOSITY default
SELECT count(*) FROM wide.read_rows(NULL::fw, filter => '{"column_qualifer_regex_filter": "q"}');
SELECT count(*) FROM wide.read_rows(NULL::fw, filter => '{"chain": [{"pass_all_filter": true}, {"value_regex_filtr": "x"}]}');
SELECT count(*) FROM wide.read_rows(NULL::fw, filter => '{"intreleave": []}');
SELECT count(*) FROM wide.read_rows(NULL::fw, filter => '{"column_range_filter": {"family_name": "f", "start_qualifer_closed": "a"}}');
SELECT count(*) FROM wide.read_rows(NULL::fw, filter => '{"frobnicate": true}');
SELECT count(*) FROM wide.read_rows(NULL::fw, ranges => '[{"start_key_clsed": "a"}]');
DROP TABLE fw;
