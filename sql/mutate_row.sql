--
-- mutate_row, mutate_rows: JSON batches of Bigtable mutations, all or nothing
--
\set SHOW_CONTEXT never
CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('t', 'cf');
SELECT wide.create_family('t', 'other');
CREATE TABLE c (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('c', 'n', aggregate => 'sum');
SELECT wide.create_family('c', 'plain');
CREATE TABLE v (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('v', 'u', aggregate => 'hll');

-- every kind of mutation, applied in order
SELECT wide.mutate_row('t', 'r1', '[
  {"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": 1000, "value": "a@1000"}},
  {"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": 2000, "value": "a@2000"}},
  {"set_cell": {"family_name": "cf", "column_qualifier": "b", "timestamp_micros": 1000, "value": "b"}},
  {"set_cell": {"family_name": "other", "column_qualifier": "x", "timestamp_micros": 5, "value": 42}}
]');
SELECT * FROM t;
SELECT wide.mutate_row('c', 'r1', '[
  {"add_to_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 0, "input": 5}},
  {"add_to_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 0, "input": "7"}},
  {"merge_to_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 0, "input": 100}},
  {"set_cell": {"family_name": "plain", "column_qualifier": "c", "timestamp_micros": 0, "value": 1}},
  {"delete_from_family": {"family_name": "n"}},
  {"add_to_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 0, "input": 3}}
]');
SELECT * FROM c;
-- a later mutation of the batch applies after an earlier one
SELECT wide.mutate_row('t', 'r1', '[
  {"set_cell": {"family_name": "cf", "column_qualifier": "c", "timestamp_micros": 1, "value": "gone"}},
  {"delete_from_column": {"family_name": "cf", "column_qualifier": "a",
                          "time_range": {"start_timestamp_micros": 1500, "end_timestamp_micros": 0}}},
  {"delete_from_column": {"family_name": "cf", "column_qualifier": "c"}},
  {"delete_from_family": {"family_name": "other"}},
  {"set_cell": {"family_name": "other", "column_qualifier": "y", "timestamp_micros": 6, "value": "after"}}
]');
SELECT * FROM t;
SELECT wide.mutate_row('t', 'r1', '[{"delete_from_row": {}},
  {"set_cell": {"family_name": "cf", "column_qualifier": "z", "timestamp_micros": 1, "value": "new"}}]');
SELECT * FROM t;
-- timestamps as strings; -1 or absent is the server's time
SELECT wide.mutate_row('v', 'r', '[{"add_to_cell": {"family_name": "u", "column_qualifier": "q",
                                      "timestamp_micros": "2030-01-01", "input": "alice"}},
                                   {"add_to_cell": {"family_name": "u", "column_qualifier": "q",
                                      "timestamp_micros": "2030-01-01", "input": 12}}]');
SELECT wide.hll_count(value) FROM v;
SELECT wide.mutate_row('t', 'now', '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "v"}},
                                     {"set_cell": {"family_name": "cf", "column_qualifier": "r", "timestamp_micros": -1, "value": "v"}}]');
SELECT qualifier, ts > 1700000000000000 AS recent FROM t WHERE row_key = 'now';

-- mutate_rows: many rows, one batch
SELECT wide.mutate_rows('t', '[
  {"row_key": "r2", "mutations": [{"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": 1, "value": "r2"}}]},
  {"row_key": "r3", "mutations": [{"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": 1, "value": "r3"}},
                                  {"set_cell": {"family_name": "cf", "column_qualifier": "b", "timestamp_micros": 1, "value": "r3b"}}]}
]');
SELECT * FROM t WHERE row_key IN ('r2', 'r3');
-- a sketch read back merges into another cell
SELECT wide.mutate_row('v', 'copy', jsonb_build_array(jsonb_build_object('merge_to_cell',
         jsonb_build_object('family_name', 'u', 'column_qualifier', 'q',
                            'timestamp_micros', '2030-01-01', 'input', value::text))))
  FROM v WHERE row_key = 'r';
SELECT row_key, wide.hll_count(value) FROM v;

-- errors: nothing of the batch is written
SELECT count(*) FROM t;
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {"family_name": "cf", "column_qualifier": "a", "value": "ok"}},
                                   {"set_cell": {"family_name": "nope", "column_qualifier": "a", "value": "x"}}]');
SELECT wide.mutate_row('c', 'e', '[{"set_cell": {"family_name": "plain", "column_qualifier": "a", "timestamp_micros": 0, "value": 1}},
                                   {"set_cell": {"family_name": "n", "column_qualifier": "a", "timestamp_micros": 0, "value": "1"}}]');
SELECT wide.mutate_row('c', 'e', '[{"add_to_cell": {"family_name": "plain", "column_qualifier": "a", "timestamp_micros": 0, "input": 1}}]');
SELECT wide.mutate_row('c', 'e', '[{"add_to_cell": {"family_name": "n", "column_qualifier": "a", "input": 1}}]');
SELECT wide.mutate_row('c', 'e', '[{"add_to_cell": {"family_name": "n", "column_qualifier": "a", "timestamp_micros": 0, "input": "x"}}]');
SELECT wide.mutate_row('c', 'e', '[{"set_cell": {"family_name": "plain", "column_qualifier": "a", "timestamp_micros": 0, "value": "x"}}]');
SELECT wide.mutate_row('v', 'e', '[{"merge_to_cell": {"family_name": "u", "column_qualifier": "a", "timestamp_micros": 0, "input": "\\x01"}}]');
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {"family_name": "cf", "column_qualifier": "a"}}]');
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {"family_name": "cf", "value": "x"}}]');
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {"family_name": "cf", "column_qualifier": "a", "value": "x", "colour": 1}}]');
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": 1.5, "value": "x"}}]');
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": -5, "value": "x"}}]');
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {"family_name": "cf", "column_qualifier": "a", "value": {"x": 1}}}]');
SELECT wide.mutate_row('t', 'e', '[{"delete_from_column": {"family_name": "cf", "column_qualifier": "a",
                                     "time_range": {"start_timestamp_micros": 10, "end_timestamp_micros": 5}}}]');
SELECT wide.mutate_row('t', 'e', '[{"set_cell": {}, "delete_from_row": {}}]');
SELECT wide.mutate_row('t', 'e', '[{"truncate": {}}]');
SELECT wide.mutate_row('t', 'e', '[]');
SELECT wide.mutate_row('t', 'e', '{"set_cell": {}}');
SELECT wide.mutate_row('t', 'e', '[1]');
SELECT wide.mutate_row('t', '', '[{"delete_from_row": {}}]');
SELECT wide.mutate_row('t', repeat('k', 5000), '[{"set_cell": {"family_name": "cf", "column_qualifier": "a", "value": "x"}}]');
SELECT wide.mutate_row('t', 'e', NULL);
SELECT wide.mutate_rows('t', '[{"row_key": "ok", "mutations": [{"delete_from_row": {}}]},
                               {"row_key": "e", "mutations": []}]');
SELECT wide.mutate_rows('t', '[{"mutations": [{"delete_from_row": {}}]}]');
SELECT wide.mutate_rows('t', '{"row_key": "e"}');
SELECT count(*) FROM t;
SELECT count(*) FROM t WHERE row_key = 'e';
SELECT count(*) FROM c WHERE row_key = 'e';
-- a mistyped mutation or field: the nearest valid name, nothing written
SELECT wide.mutate_row('t', 'typo', '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "v"}}, {"set_cel": {}}]');
SELECT wide.mutate_row('t', 'typo', '[{"set_cell": {"family_name": "cf", "column_qualifer": "q", "value": "v"}}]');
SELECT wide.mutate_row('t', 'typo', '[{"delete_from_colum": {"family_name": "cf", "column_qualifier": "q"}}]');
SELECT count(*) FROM t WHERE row_key = 'typo';
DROP TABLE t, c, v;
