--
-- bytes_json: the JSON arguments accept Bigtable's JSON mapping (proto3
-- JSON: lowerCamelCase names, base64 bytes, int64 as strings, chain and
-- interleave as {"filters": [...]}) next to the data API's snake_case forms
--
\set SHOW_CONTEXT never
CREATE TABLE bj (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('bj', 'f');
CREATE TABLE bi (row_key bytea, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('bi', 'n');
-- mutations: setCell with base64 qualifier and value, int64 as a string
SELECT wide.mutate_row('bj', 'r1', '[{"setCell": {"familyName": "f", "columnQualifier": "cTE=",
  "timestampMicros": "1000", "value": "AP+A"}}]');
SELECT wide.mutate_rows('bj', '[{"rowKey": "cjI=", "mutations": [{"setCell": {"familyName": "f",
  "columnQualifier": "cTI=", "timestampMicros": "2000", "value": "aGVsbG8="}}]},
  {"rowKey": "cjM=", "mutations": [{"setCell": {"familyName": "f", "columnQualifier": "cTE=",
  "timestampMicros": 3000, "value": ""}}]}]');
-- the same mutation in both forms, mixed in one array
SELECT wide.mutate_row('bj', 'r4', '[{"setCell": {"familyName": "f", "columnQualifier": "cQ==", "timestampMicros": "1", "value": "dg=="}},
                                     {"set_cell": {"family_name": "f", "column_qualifier": "q", "timestamp_micros": 2, "value": "\\x76"}}]');
SELECT row_key, qualifier, ts, value FROM bj ORDER BY 1, 2, 3;
-- int64 values are Bigtable's 8-byte big-endian integers
SELECT wide.mutate_row('bi', '\x61ff'::bytea, '[{"setCell": {"familyName": "n", "columnQualifier": "Yw==",
  "timestampMicros": "1000", "value": "AAAAAAAAAAc="}}]');
SELECT row_key, qualifier, value FROM bi;
-- deletes
SELECT wide.mutate_row('bj', 'r4', '[{"deleteFromColumn": {"familyName": "f", "columnQualifier": "cQ==",
  "timeRange": {"startTimestampMicros": "2", "endTimestampMicros": "3"}}}]');
SELECT row_key, qualifier, ts FROM bj WHERE row_key = 'r4';
-- filters: base64 regexes and ranges, chain as {"filters": [...]}
SELECT row_key, qualifier FROM wide.read_rows(NULL::bj,
  filter => '{"chain": {"filters": [{"rowKeyRegexFilter": "clsxMl0="}, {"columnQualifierRegexFilter": "cTE="}]}}');
SELECT row_key, qualifier FROM wide.read_rows(NULL::bj,
  filter => '{"interleave": {"filters": [{"rowKeyRegexFilter": "cjE="}, {"valueRegexFilter": "aGVsLio="}]}}');
SELECT row_key, qualifier FROM wide.read_rows(NULL::bj,
  filter => '{"columnRangeFilter": {"familyName": "f", "startQualifierClosed": "cTI=", "endQualifierOpen": "cTM="}}');
SELECT row_key, ts FROM wide.read_rows(NULL::bj,
  filter => '{"timestampRangeFilter": {"startTimestampMicros": "1500", "endTimestampMicros": "2500"}}');
SELECT row_key, value FROM wide.read_rows(NULL::bj,
  filter => '{"valueRangeFilter": {"startValueClosed": "aA==", "endValueOpen": "aQ=="}}');
SELECT row_key, qualifier, value FROM wide.read_rows(NULL::bj,
  filter => '{"chain": {"filters": [{"cellsPerRowLimitFilter": 1}, {"stripValueTransformer": true}]}}');
-- row ranges
SELECT DISTINCT row_key FROM wide.read_rows(NULL::bj, ranges => '[{"startKeyClosed": "cjI=", "endKeyOpen": "cjQ="}]') ORDER BY 1;
-- keys that are not text: read (ranges) and written (mutate_rows) by their bytes
SELECT DISTINCT row_key FROM wide.read_rows(NULL::bi, ranges => '[{"startKeyClosed": "Yf8="}]');
SELECT wide.mutate_rows('bi', '[{"rowKey": "/wA=", "mutations": [{"setCell": {"familyName": "n",
  "columnQualifier": "Yw==", "timestampMicros": "1000", "value": "AAAAAAAAAAE="}}]}]');
SELECT row_key, value FROM wide.read_rows(NULL::bi, ranges => '[{"startKeyOpen": "Yf8=", "endKeyClosed": "/wA="}]');
SELECT row_key, value FROM bi ORDER BY 1;
-- ... but a text table's keys must be text
SELECT wide.mutate_rows('bj', '[{"rowKey": "/w==", "mutations": [{"setCell": {"familyName": "f",
  "columnQualifier": "Yw==", "value": ""}}]}]');
-- conditional mutations
SELECT wide.check_and_mutate_row('bj', 'r1', '{"columnQualifierRegexFilter": "cTE="}',
  '[{"setCell": {"familyName": "f", "columnQualifier": "bWF0Y2hlZA==", "timestampMicros": "1", "value": "eQ=="}}]');
SELECT qualifier, value FROM bj WHERE row_key = 'r1' ORDER BY 1;
-- bad input: a clear error, nothing written
SELECT wide.mutate_row('bj', 'r9', '[{"setCell": {"familyName": "f", "columnQualifier": "not base64!", "value": ""}}]');
SELECT wide.mutate_row('bj', 'r9', '[{"setCell": {"familyName": "f", "columnQualifier": "/w==", "value": ""}}]');
SELECT wide.mutate_row('bj', 'r9', '[{"setCell": {"familyName": "f", "columnQualifier": 5, "value": ""}}]');
SELECT * FROM wide.read_rows(NULL::bj, filter => '{"rowKeyRegexFilter": "/w=="}');
SELECT * FROM wide.read_rows(NULL::bj, ranges => '[{"startKeyClosed": "/w=="}]');
SELECT count(*) FROM bj WHERE row_key = 'r9';
DROP TABLE bj, bi;
