--
-- privileges_catalog: EXECUTE on every function of the extension, read
-- from pg_proc (members of the extension, pg_depend deptype 'e'), not from
-- a list: no internal function that runs SQL it is given may be executable
-- by PUBLIC or by ordinary roles, and every internal function that is must
-- have a reason (a PUBLIC function calls it).  Then the internal functions
-- open to PUBLIC are called on a table by roles without the privileges
-- they would need, and must refuse (test/t/225_remote_privileges.pl does
-- the same against remote tablets on a node).
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

-- the internal functions open to PUBLIC, each with the PUBLIC functions
-- of the extension that call it (by name in their body): an internal
-- function open to PUBLIC that nothing open calls is a stray grant
WITH RECURSIVE opened(oid) AS (
  SELECT oid FROM ext_fn WHERE NOT internal AND public_exec
  UNION
  SELECT c.oid FROM ext_fn c JOIN ext_fn caller ON caller.prosrc ~ ('[.]' || c.proname || '\(')
    JOIN opened o ON o.oid = caller.oid
   WHERE c.internal AND c.public_exec)
SELECT f.fn,
       CASE WHEN f.oid IN (SELECT oid FROM opened) THEN 'called by: ' ||
            (SELECT string_agg(DISTINCT c.proname, ', ') FROM ext_fn c
              WHERE c.public_exec AND c.prosrc ~ ('[.]' || f.proname || '\('))
            ELSE 'UNEXPECTED: nothing open to PUBLIC calls it' END AS why
  FROM ext_fn f WHERE f.internal AND f.public_exec ORDER BY f.fn;

\pset format aligned
-- the roles get no internal function beyond those open to PUBLIC
SELECT r.rolname, count(*) FILTER (WHERE has_function_privilege(r.oid, f.oid, 'EXECUTE')) AS may_execute,
       count(*) FILTER (WHERE f.internal AND has_function_privilege(r.oid, f.oid, 'EXECUTE')
                          AND NOT f.public_exec) AS internal_beyond_public
  FROM pg_roles r, ext_fn f WHERE r.rolname LIKE 'regress\_pc\_%' GROUP BY 1 ORDER BY 1;

-- the node functions are refused to a role with SELECT and INSERT (before
-- any node is looked up)
SET ROLE regress_pc_si;
SELECT wide_internal._remote_exec('nosuch', NULL, 'DELETE FROM pc');
SELECT * FROM wide_internal._remote_query('nosuch', 'SELECT rolpassword FROM pg_authid');
SELECT wide_internal._remote_family('pc', 'drop_family', ARRAY['m']);
SELECT wide_internal._remote_create_tablet('pc', NULL);
RESET ROLE;

-- every internal function open to PUBLIC that takes a table first, called
-- on pc by roles that do not own it, with NULL for its other arguments:
-- each refuses (42501) or does nothing, and pc is unchanged
CREATE FUNCTION pc_try(fn regprocedure, nargs int, kind "char") RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  args text := '''pc''::regclass' || repeat(', NULL', nargs - 1);
BEGIN
  IF kind = 'p' THEN
    EXECUTE format('CALL %s(%s)', fn::oid::regproc, args);
  ELSE
    EXECUTE format('SELECT %s(%s)', fn::oid::regproc, args);
  END IF;
  RETURN 'ran';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
GRANT EXECUTE ON FUNCTION pc_try TO PUBLIC;
CREATE TEMP TABLE pc_before AS
  SELECT (SELECT string_agg(pc::text, ',' ORDER BY row_key) FROM pc) AS cells,
         wide.family_catalog_of('pc')::text AS catalog;
GRANT SELECT ON pc_before TO PUBLIC;
CREATE TEMP TABLE pc_calls AS
  SELECT f.fn, f.prokind, cardinality(f.proargtypes::oid[]) AS nargs FROM ext_fn f
   WHERE f.internal AND f.public_exec AND f.proargtypes[0] = 'regclass'::regtype;
GRANT SELECT ON pc_calls TO PUBLIC;
\pset format unaligned
SET ROLE regress_pc_si;
SELECT fn, pc_try(fn::regprocedure, nargs, prokind) FROM pc_calls ORDER BY fn;
RESET ROLE;
SET ROLE regress_pc_none;
SELECT fn, pc_try(fn::regprocedure, nargs, prokind) FROM pc_calls ORDER BY fn;
RESET ROLE;
\pset format aligned
SELECT (SELECT string_agg(pc::text, ',' ORDER BY row_key) FROM pc) = cells AS cells_unchanged,
       wide.family_catalog_of('pc')::text = catalog AS catalog_unchanged
  FROM pc_before;

-- the owner, not a superuser, still changes the families of its table
-- (the family functions run the open internal functions as the caller),
-- and makes tablets of its parent
CREATE TABLE pcp (LIKE pc) PARTITION BY RANGE (row_key);
ALTER TABLE pcp OWNER TO regress_pc_owner;
GRANT CREATE ON SCHEMA public TO regress_pc_owner;
GRANT SELECT, INSERT ON pcp TO regress_pc_si;
SET ROLE regress_pc_owner;
SELECT wide.create_family('pc', 'n', max_versions => 2);
SELECT wide.alter_family('pc', 'n', max_versions => 3);
SELECT wide.drop_family('pc', 'n');
SELECT wide.create_tablets('pcp', ARRAY['k'], ARRAY['local', 'local']);
SELECT wide.create_family('pcp', 'n');
RESET ROLE;
SET ROLE regress_pc_si;
SELECT wide.create_family('pcp', 'o');
SELECT wide_internal._remote_families('pcp', 'drop_family', ARRAY['n']);
RESET ROLE;
SELECT c.relname, string_agg(f.family, ',' ORDER BY f.family)
  FROM pg_class c, wide.families(c.oid) f WHERE c.relname LIKE 'pcp%' GROUP BY 1 ORDER BY 1;
REVOKE CREATE ON SCHEMA public FROM regress_pc_owner;

DROP FUNCTION pc_try;
DROP TABLE pc, pcp;
DROP ROLE regress_pc_none, regress_pc_select, regress_pc_insert, regress_pc_si, regress_pc_owner;
