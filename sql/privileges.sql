--
-- privileges: what each wide.* function needs of the calling role
--
-- Every call below is tried by every role in a subtransaction that is then
-- rolled back (so all roles see the same table); a cell says "ok", "-" for
-- insufficient_privilege (42501), or the SQLSTATE of any other error.
-- Roles: none, sel(ect), ins(ert), del(ete) and all three on the table;
-- SELECT and INSERT granted on every column (cols) or SELECT on row_key
-- only (col1); members of pg_read_all_data and pg_write_all_data
-- (all_data); the owner.
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_wide_none, regress_wide_select, regress_wide_insert,
  regress_wide_delete, regress_wide_sid, regress_wide_owner, regress_wide_cols,
  regress_wide_col1, regress_wide_all_data;
RESET client_min_messages;
CREATE ROLE regress_wide_none;
CREATE ROLE regress_wide_select;
CREATE ROLE regress_wide_insert;
CREATE ROLE regress_wide_delete;
CREATE ROLE regress_wide_sid;		-- SELECT, INSERT and DELETE, not the owner
CREATE ROLE regress_wide_owner;
CREATE ROLE regress_wide_cols;		-- SELECT and INSERT on every column
CREATE ROLE regress_wide_col1;		-- SELECT on row_key only
CREATE ROLE regress_wide_all_data IN ROLE pg_read_all_data, pg_write_all_data;
-- the schema is open to all (the functions check the tables); the GRANT is
-- a no-op, there so that this test runs on versions before the grant
SELECT has_schema_privilege('regress_wide_none', 'wide', 'USAGE');
GRANT USAGE ON SCHEMA wide TO PUBLIC;

CREATE TABLE pt (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
SELECT wide.create_family('pt', 'cf');
SELECT wide.create_family('pt', 'gone');
SELECT wide.create_family('pt', 'n', aggregate => 'sum');
INSERT INTO pt VALUES ('r1', 'cf', 'q', 1, 'secret'), ('r2', 'cf', 'q', 1, 'two'),
  ('r1', 'n', 'c', 1, '\x0000000000000005');
ALTER TABLE pt OWNER TO regress_wide_owner;
GRANT SELECT ON pt TO regress_wide_select, regress_wide_sid;
GRANT INSERT ON pt TO regress_wide_insert, regress_wide_sid;
GRANT DELETE ON pt TO regress_wide_delete, regress_wide_sid;
GRANT SELECT (row_key, family, qualifier, ts, value),
      INSERT (row_key, family, qualifier, ts, value) ON pt TO regress_wide_cols;
GRANT SELECT (row_key) ON pt TO regress_wide_col1;

-- try a statement as a role; roll back whatever it did
CREATE FUNCTION priv_try(r text, stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  st text;
BEGIN
  BEGIN
    EXECUTE format('SET LOCAL ROLE %I', r);
    EXECUTE stmt;
    RAISE SQLSTATE 'WOK00';
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE;
  END;
  RETURN CASE st WHEN 'WOK00' THEN 'ok' WHEN '42501' THEN '-' ELSE st END;
END
$$;

CREATE TABLE priv_calls (n serial, label text, stmt text,
  rowtype boolean GENERATED ALWAYS AS (stmt ~ 'NULL::pt' OR stmt !~ 'wide\.') STORED);
INSERT INTO priv_calls (label, stmt) VALUES
  -- plain SQL, for comparison
  ('SQL SELECT', $$SELECT count(*) FROM pt$$),
  ('SQL SELECT row_key', $$SELECT count(row_key) FROM pt$$),
  ('SQL INSERT', $$INSERT INTO pt VALUES ('r3', 'cf', 'q', 1, 'x')$$),
  ('SQL DELETE', $$DELETE FROM pt$$),
  ('SQL DELETE WHERE', $$DELETE FROM pt WHERE row_key = 'r1'$$),
  -- reads
  ('read_rows', $$SELECT count(*) FROM wide.read_rows(NULL::pt)$$),
  ('read_rows_labeled', $$SELECT count(*) FROM wide.read_rows_labeled(NULL::pt, keys => '{r1}')$$),
  ('read_row', $$SELECT count(*) FROM wide.read_row(NULL::pt, 'r1')$$),
  ('sample_row_keys', $$SELECT count(*) FROM wide.sample_row_keys('pt')$$),
  ('families', $$SELECT count(*) FROM wide.families('pt')$$),
  ('family_catalog_of', $$SELECT wide.family_catalog_of('pt')$$),
  ('stats', $$SELECT wide.stats('pt')$$),
  ('runs', $$SELECT count(*) FROM wide.runs('pt')$$),
  -- writes
  ('set_cell', $$SELECT wide.set_cell('pt', 'r1', 'cf', 'q', 'new'::bytea, 2)$$),
  ('add_to_cell', $$SELECT wide.add_to_cell('pt', 'r1', 'n', 'c', 1, 1)$$),
  ('merge_to_cell', $$SELECT wide.merge_to_cell('pt', 'r1', 'n', 'c', 1, 1)$$),
  ('mutate_row set', $$SELECT wide.mutate_row('pt', 'r1', '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "\\x01"}}]')$$),
  ('mutate_row add', $$SELECT wide.mutate_row('pt', 'r1', '[{"add_to_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "input": 1}}]')$$),
  ('mutate_row delete', $$SELECT wide.mutate_row('pt', 'r1', '[{"delete_from_row": {}}]')$$),
  ('mutate_row set+delete', $$SELECT wide.mutate_row('pt', 'r1', '[{"delete_from_family": {"family_name": "cf"}}, {"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "\\x01"}}]')$$),
  ('mutate_rows set', $$SELECT wide.mutate_rows('pt', '[{"row_key": "r1", "mutations": [{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "\\x01"}}]}]')$$),
  ('mutate_rows delete', $$SELECT wide.mutate_rows('pt', '[{"row_key": "r1", "mutations": [{"delete_from_column": {"family_name": "cf", "column_qualifier": "q"}}]}]')$$),
  ('check_and_mutate no-op', $$SELECT wide.check_and_mutate_row('pt', 'r1')$$),
  ('check_and_mutate set', $$SELECT wide.check_and_mutate_row('pt', 'r1', '{"value_regex_filter": "secret"}', on_match => '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "\\x01"}}]')$$),
  ('check_and_mutate set|del', $$SELECT wide.check_and_mutate_row('pt', 'r1', '{"value_regex_filter": "secret"}', on_match => '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "value": "\\x01"}}]', on_no_match => '[{"delete_from_row": {}}]')$$),
  ('check_and_mutate delete', $$SELECT wide.check_and_mutate_row('pt', 'r1', on_no_match => '[{"delete_from_row": {}}]')$$),
  ('read_modify_write', $$SELECT wide.read_modify_write_row(NULL::pt, 'r1', 'cf', 'q', append => '\x21')$$),
  ('delete_cells', $$SELECT wide.delete_cells('pt', 'r1', 'cf', 'q')$$),
  ('delete_family', $$SELECT wide.delete_family('pt', 'r1', 'cf')$$),
  ('delete_row', $$SELECT wide.delete_row('pt', 'r1')$$),
  -- family DDL and maintenance
  ('create_family', $$SELECT wide.create_family('pt', 'new')$$),
  ('alter_family', $$SELECT wide.alter_family('pt', 'cf', max_versions => 3)$$),
  ('drop_family', $$SELECT wide.drop_family('pt', 'gone')$$),
  ('compact', $$SELECT wide.compact('pt')$$),
  ('compact major', $$SELECT wide.compact('pt', true)$$),
  ('verify', $$SELECT count(*) FROM wide.verify('pt')$$);

SELECT label,
       priv_try('regress_wide_none', stmt) AS "none",
       priv_try('regress_wide_select', stmt) AS "sel",
       priv_try('regress_wide_insert', stmt) AS "ins",
       priv_try('regress_wide_delete', stmt) AS "del",
       priv_try('regress_wide_sid', stmt) AS "sel+ins+del",
       priv_try('regress_wide_cols', stmt) AS "cols",
       priv_try('regress_wide_col1', stmt) AS "col1",
       priv_try('regress_wide_all_data', stmt) AS "all_data",
       priv_try('regress_wide_owner', stmt) AS "owner"
FROM priv_calls ORDER BY n;

-- nothing above changed the table
SELECT row_key, family, qualifier, ts, value FROM pt;
SELECT * FROM wide.families('pt');

-- What an unprivileged role could see before: the predicate of an
-- INSERT-only role's check_and_mutate_row told whether a value matched, and
-- read_modify_write_row returned the cell.
SET ROLE regress_wide_insert;
SELECT wide.check_and_mutate_row('pt', 'r1', '{"value_regex_filter": "secret"}',
  on_match => '[{"add_to_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "input": 0}}]');
SELECT wide.read_modify_write_row(NULL::pt, 'r1', 'cf', 'q', append => '');
RESET ROLE;

-- the internal helpers are not executable by other roles
SET ROLE regress_wide_sid;
SELECT wide_internal._lock_catalog('pt');
SELECT wide_internal._store_catalog('pt', '{}');
RESET ROLE;

-- the objects above are used and dropped by the next test, prepared.sql
