--
-- bytes_qualifiers: on a table with bytea row keys and qualifiers, every
-- path takes and returns any bytes (0x00, 0xff, invalid UTF-8) exactly:
-- SQL, the data API's functions, their JSON in both forms (Bigtable's
-- base64, and {"base64": ...} in the snake_case form), filters and
-- read_modify_write_row.  A table with text keys and qualifiers still
-- refuses bytes that are not text, with a clear error, writing nothing.
--
\set SHOW_CONTEXT never
CREATE TABLE bq (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('bq', 'f');
SELECT wide.create_family('bq', 'n', aggregate => 'sum');
CREATE TABLE tq (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('tq', 'f');

-- SQL and set_cell
INSERT INTO bq VALUES ('\x00'::bytea, 'f', '\xff'::bytea, 1, '\x01');
SELECT wide.set_cell('bq', '\xff'::bytea, 'f', '\x00'::bytea, '\x02'::bytea, 2);
-- Bigtable's JSON: base64 qualifier 0xff (not valid text), key 0x72
SELECT wide.mutate_row('bq', '\x72'::bytea, '[{"setCell": {"familyName": "f",
  "columnQualifier": "/w==", "timestampMicros": "1000", "value": "OQ=="}}]');
-- key 0x00ff, qualifier 0x00, and 0xc328 (invalid UTF-8)
SELECT wide.mutate_rows('bq', '[{"rowKey": "AP8=", "mutations": [
  {"setCell": {"familyName": "f", "columnQualifier": "AA==", "timestampMicros": "3", "value": "Aw=="}},
  {"setCell": {"familyName": "f", "columnQualifier": "wyg=", "timestampMicros": "4", "value": "BA=="}}]}]');
-- the snake_case form: {"base64": ...} for a qualifier that is not text
SELECT wide.mutate_row('bq', '\xc3'::bytea, '[{"set_cell": {"family_name": "f",
  "column_qualifier": {"base64": "gA=="}, "timestamp_micros": 5, "value": "\\x05"}}]');
-- aggregates
SELECT wide.add_to_cell('bq', '\xfe00'::bytea, 'n', '\xff00'::bytea, 10, 7::int8);
SELECT wide.mutate_row('bq', '\xfe00'::bytea, '[{"addToCell": {"familyName": "n",
  "columnQualifier": "/wA=", "timestampMicros": "10", "input": "5"}}]');
SELECT row_key, family, qualifier, ts, value FROM bq ORDER BY 1, 2, 3, 4;

-- reads: column ranges in every form, read_row
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq,
  filter => '{"columnRangeFilter": {"familyName": "f", "startQualifierClosed": "/w==", "endQualifierClosed": "/w=="}}');
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq,
  filter => '{"column_range_filter": {"family_name": "f", "start_qualifier_open": {"base64": "AA=="}, "end_qualifier_open": {"base64": "/w=="}}}');
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq, filter => wide.column_range('f', '\x00'::bytea, '\xc328'::bytea, true, true));
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq, filter => wide.column_range('f', '\xc328'::bytea));
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq, filter => wide.column_range('f', NULL, '\x01'::bytea));
SELECT qualifier, value FROM wide.read_row(NULL::bq, '\x00ff'::bytea);
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq, keys => ARRAY['\x00'::bytea, '\xff'::bytea]);
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq, start_key => '\x00ff'::bytea, end_key => '\xc3'::bytea);
SELECT row_key, qualifier FROM wide.read_rows(NULL::bq, ranges => '[{"start_key_open": {"base64": "AA=="}, "end_key_closed": {"base64": "cg=="}}]');
-- the text forms of column_range still work
SELECT wide.column_range('f', 'a', 'b');
SELECT wide.column_range('f');

-- read_modify_write_row: a bytea qualifier
SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::bq, '\x72'::bytea, 'f', '\xff'::bytea, append => '\xaa');
SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::bq, '\x00'::bytea, 'f', '\x00c3'::bytea, append => '\xbb');
SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::bq, '\x00'::bytea, 'f', 'plain', append => '\xcc');

-- check_and_mutate_row: predicate and mutations with bytes
SELECT wide.check_and_mutate_row('bq', '\x72'::bytea,
  predicate => '{"columnRangeFilter": {"familyName": "f", "startQualifierClosed": "/w==", "endQualifierClosed": "/w=="}}',
  on_match => '[{"setCell": {"familyName": "f", "columnQualifier": "/v8=", "timestampMicros": "6", "value": "Bg=="}}]');
SELECT wide.check_and_mutate_row('bq', '\x72'::bytea,
  predicate => '{"column_range_filter": {"family_name": "f", "start_qualifier_closed": {"base64": "AAA="}, "end_qualifier_closed": {"base64": "AAA="}}}',
  on_no_match => '[{"delete_from_column": {"family_name": "f", "column_qualifier": {"base64": "/v8="}}}]');

-- deletes
SELECT wide.delete_cells('bq', '\x00ff'::bytea, 'f', '\xc328'::bytea);
SELECT wide.mutate_row('bq', '\x00ff'::bytea, '[{"deleteFromColumn": {"familyName": "f", "columnQualifier": "AA=="}}]');
SELECT wide.delete_family('bq', '\xff'::bytea, 'f');
SELECT wide.delete_row('bq', '\xc3'::bytea);
SELECT row_key, family, qualifier, ts < 1000000, value FROM bq ORDER BY 1, 2, 3, 5;

-- a text table refuses bytes that are not text, and writes nothing
SELECT wide.mutate_row('tq', 'r', '[{"setCell": {"familyName": "f",
  "columnQualifier": "/w==", "timestampMicros": "1000", "value": "OQ=="}}]');
SELECT wide.mutate_row('tq', 'r', '[{"set_cell": {"family_name": "f",
  "column_qualifier": {"base64": "AA=="}, "timestamp_micros": 1, "value": "\\x01"}}]');
SELECT wide.mutate_row('tq', 'r', '[{"set_cell": {"family_name": "f", "column_qualifier": "ok", "timestamp_micros": 1, "value": "\\x01"}},
  {"setCell": {"familyName": "f", "columnQualifier": "wyg=", "timestampMicros": "1000", "value": "OQ=="}}]');
SELECT * FROM wide.read_modify_write_row(NULL::tq, 'r', 'f', '\xff'::bytea, append => '\xaa');
SELECT wide.set_cell('tq', 'r', 'f', '\x00'::bytea, '\x01'::bytea);
SELECT count(*) FROM tq;
-- text qualifiers pass as before, in every form
SELECT wide.mutate_row('tq', 'r', '[{"setCell": {"familyName": "f", "columnQualifier": "cQ==", "timestampMicros": "1", "value": "AQ=="}}]');
SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::tq, 'r', 'f', 'q', append => '\x02');
SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::tq, 'r', 'f', 'q'::bytea, append => '\x03');
SELECT row_key, qualifier, value FROM wide.read_rows(NULL::tq, filter => wide.column_range('f', 'q', 'q', true, true));
DROP TABLE bq, tq;
