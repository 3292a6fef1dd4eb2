--
-- bytes_reads: every read takes bytea keys, bounds and prefixes, so keys
-- that are not valid text in the database encoding can be read back, in
-- key order, with the same results as the text forms where both apply
--
\set SHOW_CONTEXT never
CREATE TABLE bk (row_key bytea, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('bk', 'f');
-- keys with bytes that are not UTF-8 (0xff, 0x80), a NUL, and plain ASCII
INSERT INTO bk VALUES ('\x61ff'::bytea, 'f', 'q', 1, '\x01'), ('\x6180'::bytea, 'f', 'q', 1, '\x02'),
  ('\x61'::bytea, 'f', 'q', 1, '\x03'), ('\x6100'::bytea, 'f', 'q', 1, '\x04'),
  ('\x62'::bytea, 'f', 'q', 1, '\x05'), ('\xff'::bytea, 'f', 'q', 1, '\x06'),
  ('\x6123ff'::bytea, 'f', 'q', 1, '\x08');
SELECT wide.mutate_row('bk', '\xfffe'::bytea,
  '[{"set_cell": {"family_name": "f", "column_qualifier": "q", "timestamp_micros": 1, "value": "\\x07"}}]');
SELECT row_key, value FROM wide.read_rows(NULL::bk);
SELECT row_key, value FROM wide.read_row(NULL::bk, '\x61ff'::bytea);
SELECT row_key FROM wide.read_rows(NULL::bk, start_key => '\x6180'::bytea, end_key => '\x62'::bytea);
SELECT row_key FROM wide.read_rows(NULL::bk, start_key => '\x6180'::bytea, end_key => '\x62'::bytea,
                                   start_inclusive => false, end_inclusive => true);
SELECT row_key FROM wide.read_rows(NULL::bk, prefix => '\xff'::bytea);
SELECT row_key FROM wide.read_rows(NULL::bk, prefix => '\x61'::bytea, reversed => true, "limit" => 2);
SELECT row_key FROM wide.read_rows(NULL::bk, keys => ARRAY['\x61ff', '\xfffe', '\x00']::bytea[]);
SELECT row_key FROM wide.read_rows_labeled(NULL::bk, keys => ARRAY['\x6100']::bytea[]) r, LATERAL (SELECT (r.cell).row_key) k;
SELECT (cell).row_key, labels FROM wide.read_rows_labeled(NULL::bk, prefix => '\x62'::bytea);
SELECT row_key, value FROM wide.read_modify_write_row(NULL::bk, '\x61ff'::bytea, 'f', 'q', append => '\xaa');
SELECT row_key, value FROM wide.read_rows(NULL::bk, prefix => '\x61'::bytea, filter => wide.latest(1));
SELECT row_key, value FROM wide.read_latest(NULL::bk, '\x61'::bytea, 2);
-- the streaming scan and the set-returning function agree
EXPLAIN (COSTS OFF) SELECT * FROM wide.read_rows(NULL::bk, prefix => '\x61'::bytea);
SET wide.enable_read_scan = off;
SELECT row_key FROM wide.read_rows(NULL::bk, prefix => '\x61'::bytea);
RESET wide.enable_read_scan;
SELECT row_key FROM wide.read_rows(NULL::bk, prefix => '\x61'::bytea);

-- a text table read through bytea bounds: the same rows as the text forms
CREATE TABLE tk (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tk', 'f');
INSERT INTO tk SELECT 'k' || i, 'f', 'q', 1, i FROM generate_series(1, 20) i;
SELECT (SELECT string_agg(row_key, ',') FROM wide.read_rows(NULL::tk, start_key => 'k1', end_key => 'k2')) =
       (SELECT string_agg(row_key, ',') FROM wide.read_rows(NULL::tk, start_key => 'k1'::bytea, end_key => 'k2'::bytea)) AS same_range,
       (SELECT string_agg(row_key, ',') FROM wide.read_rows(NULL::tk, prefix => 'k1')) =
       (SELECT string_agg(row_key, ',') FROM wide.read_rows(NULL::tk, prefix => 'k1'::bytea)) AS same_prefix;
-- keys of any string type, mixed as they come; unknown literals are text
SELECT count(*) FROM wide.read_rows(NULL::tk, start_key => 'k1', end_key => 'k2');
SELECT count(*) FROM wide.read_rows(NULL::tk, start_key => NULL, prefix => NULL);
SELECT count(*) FROM wide.read_row(NULL::tk, 'k7');
SELECT count(*) FROM wide.read_rows(NULL::tk, start_key => 'k1'::text, end_key => 'k2'::bytea);
SELECT count(*) FROM wide.read_rows(NULL::tk, start_key => 'k1'::varchar, end_key => 'k2'::name);
SELECT count(*) FROM wide.read_rows(NULL::tk, keys => '{k1,k2,k3}');
SELECT count(*) FROM wide.read_rows(NULL::tk, keys => ARRAY['k1', 'k2']::varchar[]);
-- anything else is refused clearly
SELECT count(*) FROM wide.read_rows(NULL::tk, start_key => 7);
SELECT count(*) FROM wide.read_rows(NULL::tk, keys => 'k1'::text);
SELECT count(*) FROM wide.read_rows(NULL::tk, prefix => ARRAY['k1']);
SELECT count(*) FROM wide.read_row(NULL::tk, 1.5);
PREPARE rr(bytea) AS SELECT count(*) FROM wide.read_rows(NULL::tk, prefix => $1);
EXECUTE rr('k1');
PREPARE rr2(text) AS SELECT count(*) FROM wide.read_row(NULL::tk, $1);
EXECUTE rr2('k7');
-- a text table's keys must be text: a bytea key that is not is refused by writes
SELECT wide.set_cell('tk', '\x6bff'::bytea, 'f', 'q', 1, 1);
SELECT count(*) FROM tk;
DROP TABLE bk, tk;
-- reversed reads of keys with a zero byte before others (the pending row's
-- key was copied as a C string: cut at the zero, read past the copy)
CREATE TABLE bz (row_key bytea, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('bz', 'f');
INSERT INTO bz VALUES ('\x00'::bytea, 'f', 'q', 1, 1), ('\x000001'::bytea, 'f', 'q', 1, 2),
  ('\x0000ffff'::bytea, 'f', 'q', 1, 3), ('\x6b00'::bytea, 'f', 'q', 1, 4),
  ('\x6b000061'::bytea, 'f', 'q', 1, 5), ('\x6b0000'::bytea, 'f', 'q', 1, 6);
SELECT row_key, value FROM wide.read_rows(NULL::bz, reversed => true);
SELECT row_key, value FROM wide.read_rows(NULL::bz, end_key => '\x6b0000'::bytea, reversed => true, "limit" => 2);
DROP TABLE bz;
