--
-- read_names: a read names its table by the table's row type (NULL::t);
-- a string or a regclass is refused with the exact call to write, and
-- the usual forms keep resolving to the reads
--
\set SHOW_CONTEXT never
CREATE TABLE rn (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('rn', 'f');
INSERT INTO rn VALUES ('a', 'f', 'q', 1, 1), ('b', 'f', 'q', 1, 2);
CREATE SCHEMA rn_s;
CREATE TABLE rn_s."Odd Name" (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
-- strings
SELECT * FROM wide.read_rows('rn');
SELECT * FROM wide.read_rows('rn', start_key => 'a', "limit" => 1);
SELECT * FROM wide.read_row('rn', 'a');
SELECT * FROM wide.read_rows_labeled('rn');
SELECT * FROM wide.read_modify_write_row('rn', 'a', 'f', 'q', increment => 1);
SELECT * FROM wide.read_salted('rn', 4, prefix => 'a');
SELECT * FROM wide.read_latest('rn', 'a', 1);
SELECT * FROM wide.read_current('rn', 'a');
SELECT * FROM wide.read_rows('rn_s."Odd Name"');
SELECT * FROM wide.read_rows('no_such_table');
SELECT * FROM wide.read_rows(NULL);
-- a regclass or a table's OID
SELECT * FROM wide.read_rows('rn'::regclass);
SELECT * FROM wide.read_row('rn'::regclass::oid, 'a');
-- the row type, as always
SELECT row_key, value FROM wide.read_rows(NULL::rn);
SELECT row_key, value FROM wide.read_rows(NULL::rn, start_key => 'b');
SELECT row_key, value FROM wide.read_row(NULL::rn, 'a');
SELECT row_key, value FROM wide.read_rows(tbl => NULL::rn, prefix => 'a');
SELECT count(*) FROM wide.read_rows(NULL::rn_s."Odd Name");
DROP TABLE rn, rn_s."Odd Name";
DROP SCHEMA rn_s;
