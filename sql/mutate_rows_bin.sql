--
-- mutate_rows_bin: wide.mutate_rows with its entries in a binary batch
-- (src/api/mutate_rows_bin.c, wide-bigtable's MutateRows).  The same
-- mutations through mutate_rows (JSON) and mutate_rows_bin give the same
-- cells; a malformed or truncated batch, a bad mutation anywhere in it or a
-- missing privilege writes nothing.
--
\set SHOW_CONTEXT never
-- an encoder of the binary form, in SQL
CREATE FUNCTION b_str(b bytea) RETURNS bytea LANGUAGE sql
  AS $$ SELECT int4send(length(b)) || b $$;
CREATE FUNCTION b_txt(s text) RETURNS bytea LANGUAGE sql
  AS $$ SELECT b_str(convert_to(s, 'UTF8')) $$;
-- set_cell (1), add_to_cell (2), merge_to_cell (3): form 'b', 't' or 'n'
CREATE FUNCTION b_put(kind int, fam text, q bytea, ts int8, form text, v bytea) RETURNS bytea
  LANGUAGE sql AS $$ SELECT set_byte('\x00', 0, kind) || b_txt(fam) || b_str(q) || int8send(ts)
                            || convert_to(form, 'UTF8') || b_str(v) $$;
CREATE FUNCTION b_set(fam text, q text, ts int8, v bytea) RETURNS bytea LANGUAGE sql
  AS $$ SELECT b_put(1, fam, convert_to(q, 'UTF8'), ts, 'b', v) $$;
CREATE FUNCTION b_delcol(fam text, q text, from_ts int8, to_ts int8) RETURNS bytea LANGUAGE sql
  AS $$ SELECT '\x04'::bytea || b_txt(fam) || b_txt(q) || int8send(from_ts) || int8send(to_ts) $$;
CREATE FUNCTION b_delfam(fam text) RETURNS bytea LANGUAGE sql
  AS $$ SELECT '\x05'::bytea || b_txt(fam) $$;
CREATE FUNCTION b_entry(k bytea, VARIADIC m bytea[]) RETURNS bytea LANGUAGE sql
  AS $$ SELECT b_str(k) || int4send(cardinality(m)) || string_agg(x, ''::bytea ORDER BY o)
        FROM unnest(m) WITH ORDINALITY u(x, o) $$;
CREATE FUNCTION b_batch(VARIADIC e bytea[]) RETURNS bytea LANGUAGE sql
  AS $$ SELECT '\x574d5201'::bytea || int4send(cardinality(e)) || string_agg(x, ''::bytea ORDER BY o)
        FROM unnest(e) WITH ORDINALITY u(x, o) $$;

CREATE TABLE j (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
CREATE TABLE b (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('j', 'cf'), wide.create_family('j', 'other'),
       wide.create_family('b', 'cf'), wide.create_family('b', 'other');

-- every kind of mutation of plain families, in order, as JSON and binary
SELECT wide.mutate_rows('j', '[
  {"row_key": "r1", "mutations": [
    {"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": 1000, "value": "\\x0001ff"}},
    {"set_cell": {"family_name": "cf", "column_qualifier": "a", "timestamp_micros": 2000, "value": "\\x"}},
    {"set_cell": {"family_name": "cf", "column_qualifier": "b", "timestamp_micros": 3000, "value": "\\x62"}},
    {"set_cell": {"family_name": "cf", "column_qualifier": "c", "timestamp_micros": 3000, "value": "\\x63"}},
    {"set_cell": {"family_name": "other", "column_qualifier": "x", "timestamp_micros": 5, "value": "\\x78"}},
    {"delete_from_column": {"family_name": "cf", "column_qualifier": "a",
                            "time_range": {"start_timestamp_micros": 1500, "end_timestamp_micros": 0}}},
    {"delete_from_column": {"family_name": "cf", "column_qualifier": "c",
                            "time_range": {"start_timestamp_micros": -1, "end_timestamp_micros": -1}}},
    {"delete_from_family": {"family_name": "other"}}]},
  {"row_key": {"base64": "AP8="}, "mutations": [
    {"set_cell": {"family_name": "cf", "column_qualifier": {"base64": "AAE="}, "timestamp_micros": 7, "value": "\\xdead"}}]},
  {"row_key": "gone", "mutations": [
    {"set_cell": {"family_name": "cf", "column_qualifier": "q", "timestamp_micros": 1, "value": "\\x71"}},
    {"delete_from_row": {}}]}
]');
SELECT wide.mutate_rows_bin('b', b_batch(
  b_entry('r1', b_set('cf', 'a', 1000, '\x0001ff'), b_set('cf', 'a', 2000, ''),
                b_set('cf', 'b', 3000, 'b'), b_set('cf', 'c', 3000, 'c'), b_set('other', 'x', 5, 'x'),
                b_delcol('cf', 'a', 1500, 0), b_delcol('cf', 'c', -1, -1), b_delfam('other')),
  b_entry('\x00ff', b_put(1, 'cf', '\x0001', 7, 'b', '\xdead')),
  b_entry('gone', b_set('cf', 'q', 1, 'q'), '\x06')));
SELECT * FROM b ORDER BY 1, 2, 3, 4;
SELECT count(*) AS differences FROM ((TABLE j EXCEPT TABLE b) UNION ALL (TABLE b EXCEPT TABLE j)) d;
-- -1: the server's time
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('now', b_set('cf', 'q', -1, 'v'))));
SELECT ts > 1700000000000000 AS recent FROM b WHERE row_key = 'now';

-- aggregate families: inputs as numbers, text and bytes, as the JSON's
CREATE TABLE ja (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
CREATE TABLE ba (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
CREATE TABLE jf (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
CREATE TABLE bf (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
CREATE TABLE jh (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
CREATE TABLE bh (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family(t, 's', aggregate => 'sum') FROM unnest(ARRAY['ja', 'ba', 'jf', 'bf']) t;
SELECT wide.create_family(t, 'u', aggregate => 'hll') FROM unnest(ARRAY['jh', 'bh']) t;
SELECT wide.mutate_rows('ja', '[{"row_key": "r", "mutations": [
  {"add_to_cell": {"family_name": "s", "column_qualifier": "c", "timestamp_micros": 0, "input": 5}},
  {"add_to_cell": {"family_name": "s", "column_qualifier": "c", "timestamp_micros": 0, "input": "7"}},
  {"merge_to_cell": {"family_name": "s", "column_qualifier": "c", "timestamp_micros": 0, "input": 100}}]}]');
SELECT wide.mutate_rows_bin('ba', b_batch(b_entry('r',
  b_put(2, 's', 'c', 0, 'n', '5'), b_put(2, 's', 'c', 0, 't', '7'), b_put(3, 's', 'c', 0, 'n', '100'))));
SELECT wide.mutate_rows('jf', '[{"row_key": "r", "mutations": [
  {"add_to_cell": {"family_name": "s", "column_qualifier": "c", "timestamp_micros": 0, "input": 0.10000000000000001}},
  {"add_to_cell": {"family_name": "s", "column_qualifier": "c", "timestamp_micros": 0, "input": 1e2}}]}]');
SELECT wide.mutate_rows_bin('bf', b_batch(b_entry('r',
  b_put(2, 's', 'c', 0, 'n', '0.10000000000000001'), b_put(2, 's', 'c', 0, 'n', '1e2'))));
SELECT wide.mutate_rows('jh', '[{"row_key": "r", "mutations": [
  {"add_to_cell": {"family_name": "u", "column_qualifier": "c", "timestamp_micros": 9, "input": 12}},
  {"add_to_cell": {"family_name": "u", "column_qualifier": "c", "timestamp_micros": 9, "input": "12"}},
  {"add_to_cell": {"family_name": "u", "column_qualifier": "c", "timestamp_micros": 9, "input": "\\x0102"}}]}]');
SELECT wide.mutate_rows_bin('bh', b_batch(b_entry('r',
  b_put(2, 'u', 'c', 9, 'n', '12'), b_put(2, 'u', 'c', 9, 't', '12'), b_put(2, 'u', 'c', 9, 'b', '\x0102'))));
SELECT (SELECT value FROM ba) AS sum, (SELECT value FROM bf) AS float_sum,
       (SELECT wide.hll_count(value) FROM bh) AS distinct;
SELECT count(*) AS differences FROM
  ((TABLE ja EXCEPT TABLE ba) UNION ALL (TABLE ba EXCEPT TABLE ja) UNION ALL
   (SELECT row_key, family, qualifier, ts, value::text::int8 FROM ((TABLE jf EXCEPT TABLE bf) UNION ALL (TABLE bf EXCEPT TABLE jf)) f) UNION ALL
   (SELECT row_key, family, qualifier, ts, length(value) FROM ((TABLE jh EXCEPT TABLE bh) UNION ALL (TABLE bh EXCEPT TABLE jh)) h)) d;
-- bad mutations fail as mutate_rows' do, naming where they are; nothing of the batch is written
SELECT wide.mutate_rows_bin('ba', b_batch(b_entry('x', b_put(2, 's', 'c', 0, 'n', '1')),
                                          b_entry('y', b_put(2, 's', 'c', -1, 'n', '1'))));
SELECT wide.mutate_rows_bin('ba', b_batch(b_entry('x', b_put(2, 's', 'c', 0, 'n', 'x1'))));
SELECT wide.mutate_rows_bin('ba', b_batch(b_entry('x', b_put(1, 's', 'c', 0, 'b', 'v'))));
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('x', b_set('cf', 'a', 1, 'v')),
                                         b_entry('y', b_set('cf', 'a', 1, 'v'), b_set('nope', 'a', 1, 'v'))));
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('x', b_set('cf', 'a', -5, 'v'))));
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('x', b_delcol('cf', 'a', 10, 5))));
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('', b_set('cf', 'a', 1, 'v'))));
SELECT wide.mutate_rows_bin('ba', b_batch(b_entry('\xff', b_put(2, 's', 'c', 0, 'n', '1'))));
SELECT count(*) FROM ba WHERE row_key <> 'r';
SELECT count(*) FROM b WHERE row_key IN ('x', 'y');

-- malformed batches: a clear error, nothing written
SELECT wide.mutate_rows_bin('b', NULL);
SELECT wide.mutate_rows_bin('b', '');
SELECT wide.mutate_rows_bin('b', '\x574d5202000000');
SELECT wide.mutate_rows_bin('b', '\x574d520100000000');
SELECT wide.mutate_rows_bin('b', '\x574d5201ffffffff');
-- the last byte cut, a byte too many, a length past the end, an unknown kind or form
SELECT wide.mutate_rows_bin('b', substr(x, 1, length(x) - 1))
  FROM b_batch(b_entry('x', b_set('cf', 'a', 1, 'v')), b_entry('y', b_set('cf', 'a', 1, 'v'))) x;
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('x', b_set('cf', 'a', 1, 'v'))) || '\x00');
SELECT wide.mutate_rows_bin('b', overlay(x placing '\x7fffffff' from 9))
  FROM b_batch(b_entry('x', b_set('cf', 'a', 1, 'v'))) x;
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('x', b_set('cf', 'a', 1, 'v'), '\x07')));
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('x', b_put(1, 'cf', 'a', 1, 'z', 'v'))));
SELECT wide.mutate_rows_bin('b', '\x574d5201' || int4send(1) || b_str('x') || int4send(0));
-- every prefix of a good batch fails cleanly; every one-byte change of it
-- either fails with a clear error or is a batch that applies (rolled back
-- here); none leaves a cell
CREATE TEMP TABLE outcome (state text);
DO $$
DECLARE
  x bytea := b_batch(b_entry('x', b_set('cf', 'a', 1, 'v'), b_delcol('cf', 'a', 0, 0)),
                     b_entry('y', b_put(1, 'cf', 'q', 2, 'b', 'w'), b_delfam('cf'), '\x06'));
  i int;
  st text;
BEGIN
  FOR i IN 0 .. length(x) - 1 LOOP
    BEGIN
      PERFORM wide.mutate_rows_bin('b', substr(x, 1, i));
      RAISE 'prefix of % bytes accepted', i;
    EXCEPTION WHEN invalid_binary_representation THEN
      INSERT INTO outcome VALUES ('prefix: ' || SQLSTATE);
    END;
  END LOOP;
  FOR i IN 0 .. length(x) - 1 LOOP
    BEGIN
      PERFORM wide.mutate_rows_bin('b', set_byte(x, i, get_byte(x, i) # 255));
      RAISE EXCEPTION USING ERRCODE = 'P0003';	-- roll back what it wrote
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE;
      INSERT INTO outcome VALUES ('changed: ' || CASE st WHEN 'P0003' THEN 'applied' ELSE st END);
    END;
  END LOOP;
END $$;
SELECT state, count(*) FROM outcome GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM b WHERE row_key IN ('x', 'y');

-- privileges: those of the mutations, as mutate_rows'
CREATE ROLE wide_bin_none;
CREATE ROLE wide_bin_insert;
GRANT INSERT ON b TO wide_bin_insert;
SET ROLE wide_bin_none;
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('p', b_set('cf', 'a', 1, 'v'))));
SET ROLE wide_bin_insert;
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('p', b_set('cf', 'a', 1, 'v'), '\x06')));
SELECT wide.mutate_rows_bin('b', b_batch(b_entry('p', b_set('cf', 'a', 1, 'v'))));
RESET ROLE;
SELECT row_key, qualifier, value FROM b WHERE row_key = 'p';
-- row-level security: refused, as for every wide function
CREATE TABLE rl (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('rl', 'cf');
ALTER TABLE rl ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine ON rl USING (true);
GRANT INSERT, SELECT ON rl TO wide_bin_insert;
SET ROLE wide_bin_insert;
SELECT wide.mutate_rows_bin('rl', b_batch(b_entry('p', b_set('cf', 'a', 1, 'v'))));
RESET ROLE;
SELECT count(*) FROM rl;

-- tablets: each entry to the tablet of its key, as mutate_rows
CREATE TABLE tp (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea)
  PARTITION BY RANGE (row_key);
CREATE TABLE tp_a PARTITION OF tp FOR VALUES FROM (MINVALUE) TO ('h') USING wide;
CREATE TABLE tp_h PARTITION OF tp FOR VALUES FROM ('h') TO (MAXVALUE) USING wide;
SELECT wide.create_family('tp', 'cf');
SELECT wide.mutate_rows_bin('tp', b_batch(b_entry('a', b_set('cf', 'q', 1, 'a')),
                                          b_entry('k', b_set('cf', 'q', 1, 'k')),
                                          b_entry('b', b_set('cf', 'q', 1, 'b'))));
SELECT tableoid::regclass, row_key, value FROM tp ORDER BY 2;

DROP TABLE j, b, ja, ba, jf, bf, jh, bh, tp, rl;
DROP ROLE wide_bin_none, wide_bin_insert;
