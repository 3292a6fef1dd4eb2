--
-- privileges_catalog: EXECUTE on every function of the extension, read
-- from pg_proc (members of the extension, pg_depend deptype 'e'), not from
-- a list: no internal function may be executable by PUBLIC or by ordinary
-- roles.  Then every internal function is called on a table by roles
-- without privileges, and must refuse; the public functions that need
-- internal ones still work for the table's owner (not a superuser) and
-- refuse others as before (test/t/225_remote_privileges.pl does the same
-- against remote tablets on a node).
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_pc_none;
DROP ROLE IF EXISTS regress_pc_select;
DROP ROLE IF EXISTS regress_pc_insert;
DROP ROLE IF EXISTS regress_pc_si;
DROP ROLE IF EXISTS regress_pc_owner;
CREATE ROLE regress_pc_none;
CREATE ROLE regress_pc_select;
CREATE ROLE regress_pc_insert;
CREATE ROLE regress_pc_si;
CREATE ROLE regress_pc_owner;
RESET client_min_messages;
CREATE TABLE pc (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('pc', 'm');
INSERT INTO pc VALUES ('r1', 'm', 'q', 1, 10), ('r2', 'm', 'q', 1, 20);
ALTER TABLE pc OWNER TO regress_pc_owner;
GRANT SELECT ON pc TO regress_pc_select, regress_pc_si;
GRANT INSERT ON pc TO regress_pc_insert, regress_pc_si;

-- the functions and procedures of the extension; internal: in a schema
-- other than wide, or named _*
CREATE TEMP VIEW ext_fn AS
SELECT p.oid, p.oid::regprocedure::text AS fn, p.proname, p.prokind, p.prolang, p.prosrc,
       (n.nspname <> 'wide' OR p.proname LIKE '\_%') AS internal,
       (p.proacl IS NULL OR EXISTS (SELECT FROM aclexplode(p.proacl) a
                                     WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE')) AS public_exec,
       p.proargtypes
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide');
SELECT internal, public_exec, count(*) FROM ext_fn GROUP BY 1, 2 ORDER BY 1, 2;
-- (function names unaligned, so that a change of schema changes only them)
\pset format unaligned

-- never open: the C functions that run the SQL they are given on a node
SELECT fn, public_exec FROM ext_fn
 WHERE prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')
   AND prosrc IN ('wide_remote_exec', 'wide_remote_query') ORDER BY fn;

-- the internal functions open to PUBLIC: none (the public functions that
-- need internal ones call them from C, api/entry.c, after checking the
-- caller's privileges on the table); any row here is a stray grant
SELECT fn FROM ext_fn WHERE internal AND public_exec ORDER BY fn;

\pset format aligned
-- the roles may execute no internal function
SELECT r.rolname, count(*) FILTER (WHERE has_function_privilege(r.oid, f.oid, 'EXECUTE')) AS may_execute,
       count(*) FILTER (WHERE f.internal AND has_function_privilege(r.oid, f.oid, 'EXECUTE')) AS internal
  FROM pg_roles r, ext_fn f WHERE r.rolname LIKE 'regress\_pc\_%' GROUP BY 1 ORDER BY 1;

-- every internal function (but the aggregates' support functions, which
-- take internal), called on pc by a role with SELECT and INSERT and by
-- one with no privilege, with NULL for its other arguments: each is
-- refused before it runs, and pc is unchanged
CREATE FUNCTION pc_try(fn regprocedure, argtypes oidvector, kind "char") RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  args text := (SELECT string_agg(CASE WHEN i = 1 AND t = 'regclass'::regtype THEN '''pc''::regclass'
                                       ELSE format('NULL::%s', t::regtype) END, ', ' ORDER BY i)
                  FROM unnest(argtypes::oid[]) WITH ORDINALITY AS x(t, i));
BEGIN
  IF kind = 'p' THEN
    EXECUTE format('CALL %s(%s)', fn::oid::regproc, coalesce(args, ''));
  ELSE
    EXECUTE format('SELECT %s(%s)', fn::oid::regproc, coalesce(args, ''));
  END IF;
  RETURN 'ran';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || regexp_replace(SQLERRM, 'function \S+', 'function F');
END
$$;
GRANT EXECUTE ON FUNCTION pc_try TO PUBLIC;
CREATE TEMP TABLE pc_before AS
  SELECT (SELECT string_agg(pc::text, ',' ORDER BY row_key) FROM pc) AS cells,
         wide.family_catalog_of('pc')::text AS catalog;
GRANT SELECT ON pc_before TO PUBLIC;
CREATE TEMP TABLE pc_calls AS
  SELECT f.fn, f.prokind, f.proargtypes FROM ext_fn f
   WHERE f.internal AND NOT 'internal'::regtype = ANY (f.proargtypes::oid[]);
GRANT SELECT ON pc_calls TO PUBLIC;
SELECT count(*) > 40 AS many FROM pc_calls;
SET ROLE regress_pc_si;
SELECT pc_try(fn::regprocedure, proargtypes, prokind) AS outcome, count(*) FROM pc_calls GROUP BY 1;
RESET ROLE;
SET ROLE regress_pc_none;
SELECT pc_try(fn::regprocedure, proargtypes, prokind) AS outcome, count(*) FROM pc_calls GROUP BY 1;
RESET ROLE;
SELECT (SELECT string_agg(pc::text, ',' ORDER BY row_key) FROM pc) = cells AS cells_unchanged,
       wide.family_catalog_of('pc')::text = catalog AS catalog_unchanged
  FROM pc_before;

-- the public functions that call internal ones refuse other roles as
-- before: ownership for family changes and tablets, the table's
-- privileges for the rest
SET ROLE regress_pc_si;
SELECT wide.create_family('pc', 'x');
SELECT wide.alter_family('pc', 'm', max_versions => 1);
SELECT wide.drop_family('pc', 'm');
SELECT wide.rebuild_rollup('pc', 'm');
SELECT wide.create_pivot_view('pc_view', 'pc', 'm', ARRAY['q']);
RESET ROLE;
SET ROLE regress_pc_none;
SELECT wide.create_family('pc', 'x');
SELECT wide.rebuild_rollup('pc', 'm');
SELECT wide.create_pivot_view('pc_view', 'pc', 'm', ARRAY['q']);
SELECT * FROM wide.read_rows('pc');
SELECT wide.bucket(now(), 'fortnight');
CALL wide.split_tablet('pc', 'pc');
RESET ROLE;

-- the owner, not a superuser, still changes the families of its table,
-- rollups included, makes pivot views and tablets of its parent (the C
-- functions run the internal ones as the caller, with no EXECUTE check)
CREATE TABLE pcp (LIKE pc) PARTITION BY RANGE (row_key);
ALTER TABLE pcp OWNER TO regress_pc_owner;
GRANT CREATE ON SCHEMA public TO regress_pc_owner;
GRANT SELECT, INSERT ON pcp TO regress_pc_si;
SET ROLE regress_pc_owner;
SELECT wide.create_family('pc', 'n', max_versions => 2);
SELECT wide.alter_family('pc', 'n', max_versions => 3);
SELECT wide.alter_family('pc', 'n', gc_rule => '{"union": [{"max_num_versions": 2}, {"intersection": [{"max_age": "1 day"}, {"max_num_versions": 1}]}]}');
SELECT family, max_versions, max_age, gc FROM wide.families('pc') ORDER BY 1;
SELECT wide.alter_family('pc', 'nosuch', max_versions => 3);
SELECT wide.drop_family('pc', 'n');
SELECT wide.create_family('pc', 'r', rollup => '{"source": "m", "bucket": "1 hour", "functions": ["sum", "count"]}');
SELECT row_key, qualifier, value FROM pc WHERE family = 'r' ORDER BY 1, 2;
SELECT wide.rebuild_rollup('pc', 'r');
SELECT wide.create_pivot_view('pc_view', 'pc', 'm', ARRAY['q']);
SELECT * FROM pc_view ORDER BY 1;
SELECT wide.create_pivot_view('pc_view2', 'pc', 'nosuch', ARRAY['q']);
DROP VIEW pc_view;
DROP FUNCTION pc_view_pivot_insert();
SELECT wide.create_tablets('pcp', ARRAY['k'], ARRAY['local', 'local']);
SELECT wide.create_family('pcp', 'n');
SELECT wide.create_family('pcp', 'm');
-- a rollup whose groups a tablet bound would split is refused
SELECT wide.create_family('pcp', 'kr', rollup => '{"source": "m", "bucket": "1 hour", "functions": ["sum"], "key_parts": 1, "delimiter": "~"}');
SELECT wide.create_family('pcp', 'kr', rollup => '{"source": "m", "bucket": "1 hour", "functions": ["sum"], "key_parts": 1}');
RESET ROLE;
SET ROLE regress_pc_si;
SELECT wide.create_family('pcp', 'o');
SELECT wide.drop_family('pcp', 'n');
SELECT wide.create_tablets('pcp', ARRAY['z'], ARRAY['local', 'local']);
RESET ROLE;
SELECT c.relname, string_agg(f.family, ',' ORDER BY f.family)
  FROM pg_class c, wide.families(c.oid) f WHERE c.relname LIKE 'pcp%' GROUP BY 1 ORDER BY 1;
REVOKE CREATE ON SCHEMA public FROM regress_pc_owner;

DROP FUNCTION pc_try;
DROP TABLE pc, pcp;
DROP ROLE regress_pc_none, regress_pc_select, regress_pc_insert, regress_pc_si, regress_pc_owner;
