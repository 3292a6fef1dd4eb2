--
-- rls: row-level security on wide tables
--
-- SQL SELECT, INSERT and DELETE apply the policies as on a heap table.  The
-- wide.* functions do not evaluate policies: where policies apply to the
-- caller they refuse (0A000), as COPY does; the owner, superusers and
-- BYPASSRLS roles are not subject to policies and may call them.
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_rls_alice, regress_rls_bob, regress_rls_owner;
RESET client_min_messages;
CREATE ROLE regress_rls_alice;
CREATE ROLE regress_rls_bob;
CREATE ROLE regress_rls_owner;
GRANT USAGE ON SCHEMA wide TO PUBLIC;	-- a no-op: the extension grants it

CREATE TABLE docs (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('docs', 'cf');
CREATE TABLE hdocs (row_key text, family text, qualifier text, ts int8, value text);
INSERT INTO docs VALUES
  ('regress_rls_alice', 'cf', 'a', 1, 'alice 1'), ('regress_rls_alice', 'cf', 'b', 1, 'alice 2'),
  ('regress_rls_bob', 'cf', 'a', 1, 'bob secret'), ('regress_rls_bob', 'cf', 'b', 1, 'bob 2'),
  ('shared', 'cf', 'a', 1, 'public');
INSERT INTO hdocs SELECT * FROM docs;
ALTER TABLE docs OWNER TO regress_rls_owner;
ALTER TABLE hdocs OWNER TO regress_rls_owner;
GRANT SELECT, INSERT, DELETE ON docs, hdocs TO regress_rls_alice, regress_rls_bob;
SET ROLE regress_rls_owner;
CREATE POLICY own_rows ON docs USING (row_key = current_user::text OR row_key = 'shared')
  WITH CHECK (row_key = current_user::text);
CREATE POLICY own_rows ON hdocs USING (row_key = current_user::text OR row_key = 'shared')
  WITH CHECK (row_key = current_user::text);
ALTER TABLE docs ENABLE ROW LEVEL SECURITY;
ALTER TABLE hdocs ENABLE ROW LEVEL SECURITY;
RESET ROLE;

-- a non-leakproof function that would print what it is given
CREATE FUNCTION leak(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
  RAISE NOTICE 'leak: %', $1;
  RETURN true;
END
$$;

-- the same statements on the wide table and on a heap copy, as alice
CREATE FUNCTION both_tables(stmt text) RETURNS TABLE (tbl text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  r text;
BEGIN
  FOREACH t IN ARRAY ARRAY['docs', 'hdocs'] LOOP
    BEGIN
      EXECUTE format('SELECT string_agg(x::text, '' '' ORDER BY x::text) FROM (%s) x',
                     replace(stmt, '$t', t)) INTO r;
    EXCEPTION WHEN OTHERS THEN
      r := 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
    END;
    tbl := t;
    result := r;
    RETURN NEXT;
  END LOOP;
END
$$;

-- does the plan read the wide table through its custom scan?
CREATE FUNCTION uses_wide_scan(stmt text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || stmt LOOP
    IF line ~ 'Custom Scan' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END
$$;

SET ROLE regress_rls_alice;
-- key conditions and the policy's own are seeks of the custom scan
SELECT uses_wide_scan($$SELECT value FROM docs WHERE row_key = 'regress_rls_bob'$$),
       uses_wide_scan($$SELECT value FROM docs WHERE row_key >= 'regress_rls_b' AND leak(value)$$),
       uses_wide_scan($$DELETE FROM docs WHERE row_key = 'regress_rls_bob'$$);
SELECT * FROM both_tables('SELECT row_key, qualifier, value FROM $t');
SELECT * FROM both_tables($$SELECT value FROM $t WHERE row_key = 'regress_rls_bob'$$);
SELECT * FROM both_tables($$SELECT value FROM $t WHERE row_key >= 'regress_rls_b' AND row_key < 'regress_rls_c'$$);
SELECT * FROM both_tables($$SELECT value FROM $t WHERE row_key = ANY ('{regress_rls_bob,shared}')$$);
SELECT * FROM both_tables($$SELECT value FROM $t WHERE row_key LIKE 'regress_rls_b%'$$);
SELECT * FROM both_tables($$SELECT value FROM $t WHERE row_key = 'regress_rls_bob' AND leak(value)$$);
SELECT * FROM both_tables($$SELECT value FROM $t WHERE leak(value) ORDER BY row_key DESC LIMIT 10$$);
SELECT * FROM both_tables($$SELECT count(*) FROM $t$$);
-- writes: WITH CHECK refuses another user's row; DELETE sees only visible rows
INSERT INTO docs VALUES ('regress_rls_bob', 'cf', 'x', 2, 'forged');
INSERT INTO hdocs VALUES ('regress_rls_bob', 'cf', 'x', 2, 'forged');
INSERT INTO docs VALUES ('regress_rls_alice', 'cf', 'x', 2, 'mine');
INSERT INTO hdocs VALUES ('regress_rls_alice', 'cf', 'x', 2, 'mine');
DELETE FROM docs WHERE row_key = 'regress_rls_bob';
DELETE FROM hdocs WHERE row_key = 'regress_rls_bob';
DELETE FROM docs WHERE qualifier = 'b';
DELETE FROM hdocs WHERE qualifier = 'b';
SELECT * FROM both_tables('SELECT row_key, qualifier, value FROM $t');
-- COPY TO applies the policies (COPY FROM is refused by PostgreSQL)
COPY docs TO stdout;
RESET ROLE;

-- the usual policy compares the key with current_user, a name
SET ROLE regress_rls_owner;
ALTER POLICY own_rows ON docs USING (row_key = current_user OR row_key = 'shared');
ALTER POLICY own_rows ON hdocs USING (row_key = current_user OR row_key = 'shared');
SET ROLE regress_rls_alice;
SELECT * FROM both_tables('SELECT row_key, qualifier, value FROM $t');
SELECT * FROM both_tables($$SELECT value FROM $t WHERE row_key = 'regress_rls_bob'$$);
SELECT * FROM both_tables($$SELECT value FROM $t WHERE row_key >= 'regress_rls_b' AND leak(value)$$);
SET ROLE regress_rls_owner;
ALTER POLICY own_rows ON docs USING (row_key = current_user::text OR row_key = 'shared');
ALTER POLICY own_rows ON hdocs USING (row_key = current_user::text OR row_key = 'shared');
SET ROLE regress_rls_alice;

-- every function that reads or writes cells refuses
SELECT count(*) FROM wide.read_rows(NULL::docs);
SELECT count(*) FROM wide.read_rows_labeled(NULL::docs);
SELECT count(*) FROM wide.read_row(NULL::docs, 'regress_rls_bob');
SELECT wide.check_and_mutate_row('docs', 'regress_rls_bob', '{"value_regex_filter": "secret"}');
SELECT wide.read_modify_write_row(NULL::docs, 'regress_rls_bob', 'cf', 'a', append => '!');
SELECT wide.set_cell('docs', 'regress_rls_bob', 'cf', 'a', 'overwritten', 1);
SELECT wide.set_cell('docs', 'regress_rls_alice', 'cf', 'a', 'even my own', 1);
SELECT wide.delete_row('docs', 'regress_rls_bob');
SELECT wide.delete_family('docs', 'regress_rls_bob', 'cf');
SELECT wide.delete_cells('docs', 'regress_rls_bob', 'cf', 'a');
SELECT wide.mutate_row('docs', 'regress_rls_bob', '[{"delete_from_row": {}}]');
SELECT wide.mutate_rows('docs', '[{"row_key": "regress_rls_bob", "mutations": [{"delete_from_row": {}}]}]');
SELECT count(*) FROM wide.sample_row_keys('docs');
SELECT count(*) FROM wide.runs('docs');
-- sizes and families are no secret
SELECT cells >= 0 FROM wide.stats('docs');
SELECT family FROM wide.families('docs');
-- with row_security off, a query policies would filter is an error
SET row_security = off;
SELECT count(*) FROM docs;
SELECT count(*) FROM wide.read_rows(NULL::docs);
RESET row_security;
RESET ROLE;

-- bob's cells are intact; alice's writes took only what she could see
SELECT row_key, qualifier, value FROM docs ORDER BY 1, 2, 3;
SELECT row_key, qualifier, value FROM hdocs ORDER BY 1, 2, 3;

-- the owner is not subject to the policies, and may use the functions
SET ROLE regress_rls_owner;
SELECT count(*) FROM wide.read_rows(NULL::docs);
SELECT wide.set_cell('docs', 'regress_rls_owner', 'cf', 'a', 'owner', 1);
SELECT count(*) FROM wide.runs('docs');
-- unless the table forces row-level security on its owner too
ALTER TABLE docs FORCE ROW LEVEL SECURITY;
SELECT count(*) FROM docs;
SELECT count(*) FROM wide.read_rows(NULL::docs);
SELECT wide.set_cell('docs', 'regress_rls_owner', 'cf', 'a', 'owner', 1);
-- maintenance is the owner's, policies or not
SELECT FROM wide.compact('docs');
SELECT count(*) FROM wide.verify('docs');
ALTER TABLE docs NO FORCE ROW LEVEL SECURITY;
RESET ROLE;

-- a superuser bypasses row-level security, as does a BYPASSRLS role
SELECT count(*) FROM wide.read_rows(NULL::docs);
ALTER ROLE regress_rls_bob BYPASSRLS;
SET ROLE regress_rls_bob;
SELECT count(*) FROM wide.read_rows(NULL::docs);
RESET ROLE;
-- and with row-level security disabled, the functions work for everyone
ALTER TABLE docs DISABLE ROW LEVEL SECURITY;
SET ROLE regress_rls_alice;
SELECT count(*) FROM wide.read_rows(NULL::docs);
RESET ROLE;

DROP TABLE docs, hdocs;
DROP FUNCTION leak(text);
DROP FUNCTION both_tables(text);
DROP FUNCTION uses_wide_scan(text);
DROP ROLE regress_rls_alice, regress_rls_bob, regress_rls_owner;
