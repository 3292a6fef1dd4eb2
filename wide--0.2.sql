/* wide--0.1.sql: the wide extension, version 0.1 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION wide" to load this file. \quit

-- ----------------------------------------------------------------
-- The table access method
-- ----------------------------------------------------------------

CREATE FUNCTION wide.handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'wide_tableam_handler'
LANGUAGE C;

CREATE ACCESS METHOD wide TYPE TABLE HANDLER wide.handler;
COMMENT ON ACCESS METHOD wide IS 'wide-column store: cells sorted by row key, family, qualifier, ts';

-- The row key order of a wide table as an index, for CLUSTER, and its
-- unique coordinates, for a replica identity (it stores nothing and is
-- read as the table; src/am/keyindex.c):
--   CREATE INDEX ON t USING wide_key (row_key); CLUSTER t USING t_row_key_idx;
--   CREATE UNIQUE INDEX t_cell ON t USING wide_key (row_key, family, qualifier, ts);
CREATE FUNCTION wide.key_handler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME', 'wide_key_handler'
LANGUAGE C;

CREATE ACCESS METHOD wide_key TYPE INDEX HANDLER wide.key_handler;
COMMENT ON ACCESS METHOD wide_key IS 'the row key order of a wide table, for CLUSTER, and its unique cell coordinates, for a replica identity; stores nothing';

CREATE OPERATOR CLASS wide.row_key_text_ops
DEFAULT FOR TYPE text USING wide_key AS OPERATOR 3 =, STORAGE text;
CREATE OPERATOR CLASS wide.row_key_bytea_ops
DEFAULT FOR TYPE bytea USING wide_key AS OPERATOR 3 =, STORAGE bytea;
-- the timestamp of a cell, for UNIQUE (row_key, family, qualifier, ts): a
-- logical replication subscriber's replica identity (docs/replication.md)
CREATE OPERATOR CLASS wide.ts_int8_ops
DEFAULT FOR TYPE int8 USING wide_key AS OPERATOR 3 =, STORAGE int8;
CREATE OPERATOR CLASS wide.ts_timestamptz_ops
DEFAULT FOR TYPE timestamptz USING wide_key AS OPERATOR 3 =, STORAGE timestamptz;

-- ----------------------------------------------------------------
-- Privileges (docs/security.md)
--
-- Every function below that names a table checks the caller's privileges
-- on it (SELECT to read, INSERT to write, DELETE to delete, ownership for
-- family DDL and maintenance) and refuses tables whose row-level security
-- applies to the caller; none is SECURITY DEFINER.  So the schema is open
-- to all, as pg_catalog's functions are; REVOKE USAGE ON SCHEMA wide FROM
-- PUBLIC to keep the functions from roles that should not use them.
-- ----------------------------------------------------------------

GRANT USAGE ON SCHEMA wide TO PUBLIC;

-- The internal functions (named _*) live in schema wide_internal, out of
-- the way of \df wide.*; see "EXECUTE of the internal functions" at the
-- end for who may execute them (no one but the extension's owner and
-- superusers).  USAGE (name lookup, no EXECUTE) is granted: the public
-- functions in C look them up as the caller.
CREATE SCHEMA wide_internal;
GRANT USAGE ON SCHEMA wide_internal TO PUBLIC;

-- ----------------------------------------------------------------
-- Column families
--
-- The family catalog of a wide table is the default expression of its
-- "family" column (see src/engine/schema.c for why): these functions
-- rewrite it with ALTER TABLE, under the table's AccessExclusiveLock.
-- ----------------------------------------------------------------

CREATE FUNCTION wide.family_catalog(catalog jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'wide_family_catalog'
LANGUAGE C STRICT;
COMMENT ON FUNCTION wide.family_catalog(jsonb) IS
  'the family catalog of a wide table, kept as the default of its family column';

CREATE FUNCTION wide.family_catalog_of(tbl regclass)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'wide_family_catalog_of'
LANGUAGE C STRICT STABLE;

-- The checks and the new catalog document of a family change (op:
-- create, alter or drop; the arguments of wide.create_family and
-- friends), on the document doc that _lock_catalog returned; hint: the
-- hint of an unknown family's error (_family_hint).  Returns {"doc": the
-- new document, "check": {"families": {family: entry}}} where check is
-- there when the new family is a rollup with key_parts of a parent split
-- at its row keys: its tablets' bounds must not split the rollup's groups
-- (_check_rollup_boundary).  Pure: the family functions (C, api/entry.c)
-- lock, store and reach the partitions and nodes.
CREATE FUNCTION wide_internal._family_doc(op text, tbl regclass, doc jsonb, hint text, family text,
                                 max_versions int, max_age interval, gc text,
                                 aggregate text, gc_rule jsonb, rollup jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  old jsonb;
  id bigint;
  agg text := aggregate;
  entry jsonb;
  valtype regtype;
  r jsonb;
  a jsonb;
  b jsonb;
BEGIN
  IF op = 'create' THEN
    id := (doc->>'next_id')::bigint;
  ELSE
    old := doc->'families'->family;
    IF old IS NULL THEN
      RAISE EXCEPTION 'column family "%" does not exist in wide table %', family, tbl
        USING ERRCODE = 'undefined_object', HINT = hint;
    END IF;
    IF op = 'drop' THEN
      IF EXISTS (SELECT FROM jsonb_each(doc->'families') f
                 WHERE f.value->'rollup'->>'source' = family) THEN
        RAISE EXCEPTION 'column family "%" of wide table % has rollups', family, tbl
          USING ERRCODE = 'dependent_objects_still_exist',
                DETAIL = format('Rollup families of it: %s.',
                                (SELECT string_agg(f.key, ', ' ORDER BY f.key)
                                   FROM jsonb_each(doc->'families') f
                                  WHERE f.value->'rollup'->>'source' = family)),
                HINT = 'Drop the rollup families first: their cells stay readable without their source.';
      END IF;
      RETURN jsonb_build_object('doc', doc #- ARRAY['families', family]);
    END IF;
    id := (old->>'id')::bigint;
    agg := nullif(old->>'aggregate', 'rollup');
  END IF;

  -- the family's entry of the catalog, its options checked
  IF gc_rule IS NOT NULL THEN
    IF max_versions IS NOT NULL OR max_age IS NOT NULL OR gc IS DISTINCT FROM 'union' THEN
      RAISE EXCEPTION 'a family takes either gc_rule or max_versions, max_age and gc'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Write the whole policy as gc_rule, e.g. {"union": [{"max_num_versions": 3}, {"max_age": "86400s"}]}.';
    END IF;
    -- A nested GC rule in Bigtable's GcRule JSON (max_num_versions or
    -- maxNumVersions; max_age or maxAge as "86400s" or an interval; union
    -- and intersection as an array or {"rules": [...]}), checked and
    -- written in the catalog's form: {"max_num_versions": n}, {"max_age":
    -- text, "max_age_us": n}, {"union": [...]}, {"intersection": [...]}.
    -- Depth first, each rule checked before the rules under it.
    DECLARE
      todo jsonb := jsonb_build_array(jsonb_build_object('path', '[]'::jsonb, 'depth', 1, 'rule', gc_rule));
      item jsonb;
      path text[];
      depth int;
      rule jsonb;
      k text;
      v jsonb;
      age interval;
      norm jsonb;
    BEGIN
      WHILE jsonb_array_length(todo) > 0 LOOP
        item := todo->-1;
        todo := todo - (-1);
        path := ARRAY(SELECT jsonb_array_elements_text(item->'path'));
        depth := (item->>'depth')::int;
        rule := item->'rule';
        IF depth > 8 THEN
          RAISE EXCEPTION 'GC rule is nested too deep'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A GC rule may nest unions and intersections 8 deep.';
        END IF;
        IF jsonb_typeof(rule) IS DISTINCT FROM 'object' OR (SELECT count(*) FROM jsonb_object_keys(rule)) <> 1 THEN
          RAISE EXCEPTION 'invalid GC rule %', coalesce(rule::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A GC rule is an object with one key: max_num_versions, max_age, union or intersection.',
                  HINT = 'For example {"union": [{"max_num_versions": 3}, {"max_age": "86400s"}]}.';
        END IF;
        SELECT key, value INTO k, v FROM jsonb_each(rule);
        IF k IN ('max_num_versions', 'maxNumVersions') THEN
          IF jsonb_typeof(v) = 'string' AND v #>> '{}' ~ '^[0-9]+$' THEN
            v := to_jsonb((v #>> '{}')::numeric);
          END IF;
          IF jsonb_typeof(v) IS DISTINCT FROM 'number' OR v::numeric < 1 OR v::numeric > 2147483647
             OR v::numeric <> trunc(v::numeric) THEN
            RAISE EXCEPTION 'max_num_versions must be a whole number from 1 to 2147483647, not %', v
              USING ERRCODE = 'invalid_parameter_value';
          END IF;
          norm := jsonb_build_object('max_num_versions', v::numeric::int);
        ELSIF k IN ('max_age', 'maxAge') THEN
          age := NULL;
          BEGIN
            IF jsonb_typeof(v) = 'number' THEN
              age := make_interval(secs => v::numeric::float8);
            ELSIF jsonb_typeof(v) = 'string' AND v #>> '{}' ~ '^[0-9]+(\.[0-9]+)?s$' THEN
              age := make_interval(secs => rtrim(v #>> '{}', 's')::float8);
            ELSIF jsonb_typeof(v) = 'string' THEN
              age := (v #>> '{}')::interval;
            END IF;
          EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR interval_field_overflow THEN
            age := NULL;
          END;
          IF age IS NULL OR age <= interval '0' THEN
            RAISE EXCEPTION 'max_age must be a positive duration, not %', v
              USING ERRCODE = 'invalid_parameter_value',
                    HINT = 'Write it as Bigtable does ("86400s") or as an interval ("1 day").';
          END IF;
          norm := jsonb_build_object('max_age', age::text,
                                    'max_age_us', (extract(epoch FROM age) * 1000000)::bigint);
        ELSIF k IN ('union', 'intersection') THEN
          IF jsonb_typeof(v) = 'object' AND v ? 'rules' AND (SELECT count(*) FROM jsonb_object_keys(v)) = 1 THEN
            v := v->'rules';
          END IF;
          IF jsonb_typeof(v) IS DISTINCT FROM 'array' OR jsonb_array_length(v) = 0 THEN
            RAISE EXCEPTION '% must be a non-empty array of GC rules, not %', k, v
              USING ERRCODE = 'invalid_parameter_value';
          END IF;
          -- its rules replace the elements of v in place, first one first
          norm := jsonb_build_object(k, v);
          FOR i IN REVERSE jsonb_array_length(v) - 1 .. 0 LOOP
            todo := todo || jsonb_build_array(jsonb_build_object(
              'path', to_jsonb(path || ARRAY[k, i::text]), 'depth', depth + 1, 'rule', v->i));
          END LOOP;
        ELSE
          RAISE EXCEPTION 'unknown GC rule "%"', k
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'A GC rule is max_num_versions, max_age, union or intersection.';
        END IF;
        r := CASE WHEN cardinality(path) = 0 THEN norm ELSE jsonb_set(r, path, norm) END;
      END LOOP;
      IF (SELECT count(*) FROM jsonb_path_query(r, 'strict $.** ? (@.type() == "object")')) > 32 THEN
        RAISE EXCEPTION 'GC rule has too many parts'
          USING ERRCODE = 'invalid_parameter_value',
                DETAIL = 'A GC rule may have at most 32 rules, unions and intersections in all.';
      END IF;
    END;
    -- the flat policies stay flat: one rule, or one of each joined
    IF r ? 'max_num_versions' THEN
      max_versions := (r->>'max_num_versions')::int;
      r := NULL;
    ELSIF r ? 'max_age_us' THEN
      max_age := (r->>'max_age')::interval;
      r := NULL;
    ELSE
      a := r->(SELECT k FROM jsonb_object_keys(r) k)->0;
      b := r->(SELECT k FROM jsonb_object_keys(r) k)->1;
      IF jsonb_array_length(r->(SELECT k FROM jsonb_object_keys(r) k)) = 2 AND
         ((a ? 'max_num_versions' AND b ? 'max_age_us') OR (b ? 'max_num_versions' AND a ? 'max_age_us')) THEN
        max_versions := coalesce((a->>'max_num_versions')::int, (b->>'max_num_versions')::int);
        max_age := coalesce((a->>'max_age')::interval, (b->>'max_age')::interval);
        gc := CASE WHEN r ? 'union' THEN 'union' ELSE 'intersection' END;
        r := NULL;
      END IF;
    END IF;
  END IF;
  IF family IS NULL OR family !~ '^[-_.a-zA-Z0-9]+$' OR octet_length(family) > 64 THEN
    RAISE EXCEPTION 'invalid column family name "%"', family
      USING ERRCODE = 'invalid_name',
            DETAIL = 'A family name is 1 to 64 characters from [-_.a-zA-Z0-9].';
  END IF;
  IF max_versions IS NOT NULL AND max_versions < 1 THEN
    RAISE EXCEPTION 'max_versions must be at least 1, not %', max_versions
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Pass NULL for no version limit.';
  END IF;
  IF max_age IS NOT NULL AND max_age <= interval '0' THEN
    RAISE EXCEPTION 'max_age must be positive, not %', max_age
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Pass NULL for no age limit.';
  END IF;
  IF gc IS NULL OR gc NOT IN ('union', 'intersection') THEN
    RAISE EXCEPTION 'gc must be ''union'' or ''intersection'', not %', coalesce(quote_literal(gc), 'NULL')
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = 'union collects a cell when either rule says so; intersection when both do.';
  END IF;
  IF agg IS NOT NULL THEN
    IF agg NOT IN ('sum', 'min', 'max', 'hll', 'ddsketch') THEN
      RAISE EXCEPTION 'unknown aggregate "%"', agg
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Aggregate families are sum, min, max, hll or ddsketch.';
    END IF;
    SELECT a.atttypid INTO valtype FROM pg_attribute a
      WHERE a.attrelid = tbl AND a.attnum = 5;
    IF agg = 'hll' AND valtype <> 'bytea'::regtype THEN
      RAISE EXCEPTION 'hll family "%" needs a value column of type bytea', family
        USING ERRCODE = 'datatype_mismatch',
              DETAIL = format('The value column of %s has type %s.', tbl, valtype),
              HINT = 'An hll cell holds a HyperLogLog sketch; read its estimate with wide.hll_count(value).';
    END IF;
    IF agg = 'ddsketch' AND valtype <> 'bytea'::regtype THEN
      RAISE EXCEPTION 'ddsketch family "%" needs a value column of type bytea', family
        USING ERRCODE = 'datatype_mismatch',
              DETAIL = format('The value column of %s has type %s.', tbl, valtype),
              HINT = 'A ddsketch cell holds a quantile sketch of float8 inputs; read quantiles with wide.quantile(value, 0.99).';
    END IF;
    IF valtype NOT IN ('int8'::regtype, 'float8'::regtype, 'bytea'::regtype) THEN
      RAISE EXCEPTION 'aggregate family "%" needs a value column of type int8, float8 or bytea', family
        USING ERRCODE = 'datatype_mismatch',
              DETAIL = format('The value column of %s has type %s.', tbl, valtype),
              HINT = 'sum, min and max keep a 64-bit integer per cell, or a float8 one (a float8 sum exact in any order of writes).';
    END IF;
  END IF;
  entry := jsonb_strip_nulls(jsonb_build_object(
    'id', id,
    'max_versions', max_versions,
    'max_age', max_age::text,
    'max_age_us', (extract(epoch FROM max_age) * 1000000)::bigint,
    'gc', CASE WHEN r IS NULL THEN gc END,
    'gc_rule', r,
    'aggregate', agg));

  IF op = 'alter' THEN
    RETURN jsonb_build_object('doc', jsonb_set(doc, ARRAY['families', family],
      entry || CASE WHEN old ? 'rollup'
                    THEN jsonb_build_object('aggregate', 'rollup', 'rollup', old->'rollup')
                    ELSE '{}'::jsonb END));
  END IF;

  IF doc->'families' ? family THEN
    RAISE EXCEPTION 'column family "%" already exists in wide table %', family, tbl
      USING ERRCODE = 'duplicate_object',
            HINT = 'Change its garbage-collection policy with wide.alter_family().';
  END IF;
  IF rollup IS NOT NULL THEN
    IF aggregate IS NOT NULL THEN
      RAISE EXCEPTION 'a family takes either aggregate or rollup'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'A rollup family chooses its aggregate per qualifier: cpu:sum, cpu:count, cpu:min, cpu:max, cpu:hll.';
    END IF;
    -- the rollup definition, as the catalog keeps it
    DECLARE
      source text;
      src jsonb;
      bucket interval;
      fns text[];
      valtype regtype;
    BEGIN
      IF jsonb_typeof(rollup) <> 'object' OR
         EXISTS (SELECT FROM jsonb_object_keys(rollup) k
                  WHERE k NOT IN ('source', 'bucket', 'functions', 'key_parts', 'delimiter')) THEN
        RAISE EXCEPTION 'a rollup is an object with source, bucket, functions, and optionally key_parts and delimiter'
          USING ERRCODE = 'invalid_parameter_value',
                HINT = 'E.g. {"source": "m", "bucket": "5 minutes", "functions": ["sum", "count", "min", "max"]}.';
      END IF;
      source := rollup->>'source';
      src := doc->'families'->source;
      IF src IS NULL THEN
        RAISE EXCEPTION 'source family "%" of rollup "%" does not exist in wide table %',
                        source, family, tbl
          USING ERRCODE = 'undefined_object',
                HINT = 'Create the source family first; a rollup aggregates a family of the same table.';
      END IF;
      IF src ? 'aggregate' THEN
        RAISE EXCEPTION 'source family "%" of rollup "%" is an aggregate family', source, family
          USING ERRCODE = 'invalid_parameter_value',
                HINT = 'A rollup aggregates the values written to a plain family.';
      END IF;
      BEGIN
        bucket := (rollup->>'bucket')::interval;
      EXCEPTION WHEN others THEN
        bucket := NULL;
      END;
      IF bucket IS NULL OR bucket <= interval '0' OR extract(month FROM bucket) <> 0
         OR extract(year FROM bucket) <> 0 THEN
        RAISE EXCEPTION 'bucket of rollup "%" must be a positive interval of fixed length, not %',
                        family, coalesce(rollup->>'bucket', 'NULL')
          USING ERRCODE = 'invalid_parameter_value',
                DETAIL = 'Buckets start at multiples of their width since 1970-01-01 00:00 UTC; months and years vary in length.',
                HINT = 'E.g. "1 minute", "5 minutes", "1 hour", "1 day".';
      END IF;
      IF jsonb_typeof(rollup->'functions') IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'functions of rollup "%" must be an array', family
          USING ERRCODE = 'invalid_parameter_value',
                HINT = 'Functions are sum, count, min, max, hll and ddsketch.';
      END IF;
      SELECT array_agg(DISTINCT f ORDER BY f) INTO fns
        FROM jsonb_array_elements_text(rollup->'functions') f;
      IF fns IS NULL OR NOT fns <@ ARRAY['sum', 'count', 'min', 'max', 'hll', 'ddsketch'] THEN
        RAISE EXCEPTION 'functions of rollup "%" must be some of sum, count, min, max, hll and ddsketch, not %',
                        family, rollup->'functions'
          USING ERRCODE = 'invalid_parameter_value';
      END IF;
      SELECT a.atttypid INTO valtype FROM pg_attribute a WHERE a.attrelid = tbl AND a.attnum = 5;
      IF valtype NOT IN ('int8'::regtype, 'float8'::regtype, 'bytea'::regtype) THEN
        RAISE EXCEPTION 'rollup family "%" needs a value column of type int8, float8 or bytea', family
          USING ERRCODE = 'datatype_mismatch',
                DETAIL = format('The value column of %s has type %s.', tbl, valtype),
                HINT = 'Rollups keep 64-bit integers or float8 values (a float8 sum is exact whatever the order of writes, rounded once when read): store measurements as int8 or float8.';
      END IF;
      IF 'hll' = ANY (fns) AND valtype <> 'bytea'::regtype THEN
        RAISE EXCEPTION 'hll rollup "%" needs a value column of type bytea', family
          USING ERRCODE = 'datatype_mismatch',
                DETAIL = format('The value column of %s has type %s.', tbl, valtype);
      END IF;
      IF 'ddsketch' = ANY (fns) AND valtype <> 'bytea'::regtype THEN
        RAISE EXCEPTION 'ddsketch rollup "%" needs a value column of type bytea', family
          USING ERRCODE = 'datatype_mismatch',
                DETAIL = format('The value column of %s has type %s.', tbl, valtype),
                HINT = 'A ddsketch cell holds a quantile sketch; the readings are 8-byte big-endian integers, as sum takes them.';
      END IF;
      IF rollup ? 'key_parts' OR rollup ? 'delimiter' THEN
        IF jsonb_typeof(rollup->'key_parts') IS DISTINCT FROM 'number' OR
           (rollup->>'key_parts')::numeric NOT BETWEEN 1 AND 255 OR
           (rollup->>'key_parts')::numeric <> round((rollup->>'key_parts')::numeric) OR
           octet_length(coalesce(rollup->>'delimiter', '#')) <> 1 THEN
          RAISE EXCEPTION 'key_parts of rollup "%" must be an integer from 1 to 255, and its delimiter one byte', family
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'E.g. "key_parts": 1 keeps the rollup of ''host7#1700000000000'' under ''host7''.';
        END IF;
        IF (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attnum = 1) <> 'text'::regtype THEN
          RAISE EXCEPTION 'key_parts of rollup "%" needs a text row key', family
            USING ERRCODE = 'datatype_mismatch';
        END IF;
      END IF;
      entry := entry || jsonb_build_object('aggregate', 'rollup', 'rollup',
        jsonb_strip_nulls(jsonb_build_object('source', source, 'bucket', bucket::text,
                            'bucket_us', (extract(epoch FROM bucket) * 1000000)::bigint,
                            'functions', to_jsonb(fns),
                            'key_parts', (rollup->>'key_parts')::int,
                            'delimiter', CASE WHEN rollup ? 'key_parts'
                                              THEN coalesce(rollup->>'delimiter', '#') END)));
    END;
  END IF;
  doc := jsonb_set(doc, '{next_id}', to_jsonb(id + 1));
  doc := jsonb_set(doc, ARRAY['families', family], entry);
  RETURN jsonb_build_object('doc', doc, 'check',
    CASE WHEN entry->'rollup' ? 'key_parts' AND pg_get_partkeydef(tbl) IS NOT DISTINCT FROM
              format('RANGE (%I)', (SELECT attname FROM pg_attribute WHERE attrelid = tbl AND attnum = 1))
         THEN jsonb_build_object('families', jsonb_build_object(family, entry)) END);
END
$$;

-- Fail unless the current user owns the wide table (NULL: an error), as
-- the family functions check before they lock anything (WideCheckFamilyOwner);
-- for the tablet operations.
CREATE FUNCTION wide_internal._check_owner(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_check_owner'
LANGUAGE C STABLE;

-- The hint of an unknown family's error: the table's families, so that a
-- misspelled name is seen at once.
CREATE FUNCTION wide_internal._family_hint(doc jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN count(*) = 0 THEN 'The table has no column families yet.'
              ELSE 'Its column families: ' || string_agg(quote_ident(f), ', ' ORDER BY f) || '.' END
    FROM jsonb_object_keys(coalesce($1->'families', '{}')) f
$$;

-- Lock a wide table for a family change and return its catalog document
-- (the family functions have checked the caller owns it, before a lock is
-- queued).
CREATE FUNCTION wide_internal._lock_catalog(tbl regclass)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  -- fails cleanly on a table that is not wide
  PERFORM wide.family_catalog_of(tbl);
  EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', tbl);
  -- the new tables of a split or move got the families at its start
  IF to_regclass('wide.tablet_ops') IS NOT NULL THEN
    IF EXISTS (SELECT FROM wide.tablet_ops o WHERE o.step IN ('created', 'copied')
                  AND (o.parent = tbl OR to_regclass(o.tablet) = tbl)) THEN
      RAISE EXCEPTION 'a split or move of a tablet of % is unfinished', tbl
        USING ERRCODE = 'object_not_in_prerequisite_state',
              DETAIL = 'The families of the tablets cannot change until it is done.',
              HINT = 'Wait for it, or run CALL wide.resume_tablet_ops() if it failed.';
    END IF;
  END IF;
  RETURN coalesce(wide.family_catalog_of(tbl),
                  '{"version": 1, "next_id": 1, "families": {}}'::jsonb);
END
$$;

-- Statements on the node of a remote tablet, in a remote transaction
-- prepared at the local PRE_COMMIT and committed after it (remote.c).
-- They run the SQL they are given as the user mapping's node user, so
-- only the extension's owner (a superuser) and superusers may call them:
-- the tablet operations, which need them, are theirs anyway.
CREATE FUNCTION wide_internal._remote_exec(server text, tablet regclass, sql text)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_remote_exec'
LANGUAGE C;
REVOKE EXECUTE ON FUNCTION wide_internal._remote_exec(text, regclass, text) FROM PUBLIC;

-- The first column of a query's rows on a node.
CREATE FUNCTION wide_internal._remote_query(server text, sql text)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_remote_query'
LANGUAGE C;
REVOKE EXECUTE ON FUNCTION wide_internal._remote_query(text, text) FROM PUBLIC;

-- A move to a node of a tablet of a published parent is refused before it
-- starts: the node's writes would never reach the subscribers
-- (src/am/publication.c).
CREATE FUNCTION wide_internal._refuse_published_remote(parent regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_refuse_published_remote'
LANGUAGE C STRICT;
REVOKE EXECUTE ON FUNCTION wide_internal._refuse_published_remote(regclass) FROM PUBLIC;

-- The remote tablets among the partitions of a table (postgres_fdw foreign
-- tables): the node and the wide table there.
CREATE FUNCTION wide_internal._remote_tablets(tbl regclass)
RETURNS TABLE (tablet regclass, server text, remote text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT ft.ftrelid::regclass, s.srvname::text,
         format('%I.%I',
                coalesce((SELECT substr(o, 13) FROM unnest(ft.ftoptions) o WHERE o LIKE 'schema_name=%'),
                         n.nspname),
                coalesce((SELECT substr(o, 12) FROM unnest(ft.ftoptions) o WHERE o LIKE 'table_name=%'),
                         c.relname))
    FROM pg_inherits i
    JOIN pg_foreign_table ft ON ft.ftrelid = i.inhrelid
    JOIN pg_foreign_server s ON s.oid = ft.ftserver
    JOIN pg_class c ON c.oid = ft.ftrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE i.inhparent = tbl
   ORDER BY i.inhrelid;
$$;

-- Make doc the family catalog of a table the caller owns (families.c).
CREATE FUNCTION wide_internal._store_catalog(tbl regclass, doc jsonb)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_store_catalog'
LANGUAGE C;

-- The statement that does it on a node (tbl quoted, famcol its family
-- column): no internal function of the extension runs there.
CREATE FUNCTION wide_internal._store_catalog_sql(tbl text, famcol text, doc jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'wide_store_catalog_sql'
LANGUAGE C IMMUTABLE;

-- The family functions are in C (api/entry.c): they check the caller owns
-- the table, then run _lock_catalog, _family_doc and the others, which no
-- one else may execute.
CREATE FUNCTION wide.create_family(tbl regclass, family text,
                                   max_versions int DEFAULT NULL,
                                   max_age interval DEFAULT NULL,
                                   gc text DEFAULT 'union',
                                   aggregate text DEFAULT NULL,
                                   gc_rule jsonb DEFAULT NULL,
                                   rollup jsonb DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_create_family'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION wide.create_family(regclass, text, int, interval, text, text, jsonb, jsonb) IS
  'create a column family with a garbage-collection policy, an aggregate type, or as a rollup of another family';

CREATE FUNCTION wide.alter_family(tbl regclass, family text,
                                  max_versions int DEFAULT NULL,
                                  max_age interval DEFAULT NULL,
                                  gc text DEFAULT 'union',
                                  gc_rule jsonb DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_alter_family'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION wide.alter_family(regclass, text, int, interval, text, jsonb) IS
  'replace the garbage-collection policy of a column family';

CREATE FUNCTION wide.drop_family(tbl regclass, family text)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_drop_family'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION wide.drop_family(regclass, text) IS
  'drop a column family: its cells become unreadable at once and are removed by compaction';

CREATE FUNCTION wide.families(tbl regclass)
RETURNS TABLE (family text, max_versions int, max_age interval, gc text,
               aggregate text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT f.key COLLATE "C",
         (f.value->>'max_versions')::int,
         (f.value->>'max_age')::interval,
         CASE WHEN f.value ? 'gc_rule' THEN f.value->>'gc_rule'
              WHEN f.value ? 'max_versions' AND f.value ? 'max_age'
              THEN f.value->>'gc' END,
         f.value->>'aggregate'
  FROM jsonb_each(coalesce(wide.family_catalog_of(tbl)->'families', '{}'::jsonb)) AS f
  ORDER BY 1;
$$;
COMMENT ON FUNCTION wide.families(regclass) IS 'the column families of a wide table';

-- ----------------------------------------------------------------
-- Rollups merged on write (src/engine/rollup.c): a family declared as a
-- rollup of another gets, for every write to its source, one aggregate
-- input per function at (row key, '<qualifier>:<function>', bucket start).
-- ----------------------------------------------------------------

-- Add the source cells of rows [start_key, end_key) to a rollup family.
CREATE FUNCTION wide_internal._rollup_fill(tbl regclass, family text, start_key text, end_key text)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  r jsonb := wide.family_catalog_of(tbl)->'families'->family->'rollup';
  keytype regtype := (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attnum = 1);
  qualtype regtype := (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attnum = 3);
  tstype regtype := (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attnum = 4);
  valtype regtype := (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attnum = 5);
  b bigint := (r->>'bucket_us')::bigint;
  val text;
  bucket text;
  rkey text := CASE WHEN r ? 'key_parts'
                    THEN format('array_to_string((string_to_array(row_key, %L))[1:%s], %L)',
                                r->>'delimiter', r->>'key_parts', r->>'delimiter')
                    ELSE 'row_key' END;
  aggs text := '';
  vals text := '';
  fn text;
  n bigint := 0;
  nfns int := 0;
  -- a float8 sum adds every source value, as the writes did: it is kept
  -- exactly (src/engine/fsum.c), a sum computed here would not be
  fsum boolean := valtype = 'float8'::regtype AND r->'functions' ? 'sum';
  range_cond text;
  qualsuffix text := CASE WHEN qualtype = 'bytea'::regtype THEN $s$convert_to(':' || %s, 'UTF8')$s$
                          ELSE $s$':' || %s$s$ END;
BEGIN
  -- a bytea value is an 8-byte big-endian integer to sum, min and max
  val := CASE WHEN valtype = 'bytea'::regtype
              THEN $v$('x' || encode(value, 'hex'))::bit(64)::bigint$v$ ELSE 'value' END;
  bucket := CASE WHEN tstype = 'int8'::regtype THEN format('ts - ts %% %s', b)
                 ELSE format($t$ts - ((extract(epoch FROM ts) * 1000000)::bigint %% %s) * interval '1 microsecond'$t$, b) END;
  -- the range is of rollup row keys; a source key is never below its
  -- rollup key (a prefix of it), which bounds the scan from below
  range_cond := CASE WHEN start_key IS NULL THEN ''
         ELSE format('AND row_key >= %L::%s AND %s >= %L::%s', start_key, keytype, rkey, start_key, keytype) END ||
    CASE WHEN end_key IS NULL THEN '' ELSE format(' AND %s < %L::%s', rkey, end_key, keytype) END;
  FOR fn IN SELECT jsonb_array_elements_text(r->'functions') LOOP
    CONTINUE WHEN fsum AND fn = 'sum';
    nfns := nfns + 1;
    aggs := aggs || format(', %s AS %I',
      CASE fn WHEN 'sum' THEN format('sum(%s)::bigint', val)
              WHEN 'count' THEN 'count(*)'
              -- of two zeros, a float8 min keeps -0 and a max +0 (as the writes do)
              WHEN 'min' THEN CASE WHEN valtype = 'float8'::regtype
                THEN $m$CASE WHEN min(value) = 0 AND bool_or(float8send(value) = '\x8000000000000000') THEN '-0'::float8 ELSE min(value) END$m$
                ELSE format('min(%s)', val) END
              WHEN 'max' THEN CASE WHEN valtype = 'float8'::regtype
                THEN $m$CASE WHEN max(value) = 0 AND bool_or(float8send(value) = '\x0000000000000000') THEN '0'::float8 ELSE max(value) END$m$
                ELSE format('max(%s)', val) END
              WHEN 'ddsketch' THEN format('wide.ddsketch_agg((%s)::float8)', val)
              ELSE 'wide.hll_add_agg(value)' END, 'r_' || fn);
    vals := vals || format(', (%L, %s)', fn,
      CASE WHEN fn IN ('hll', 'ddsketch') THEN 'NULL::bigint' ELSE format('g.%I', 'r_' || fn) END);
  END LOOP;
  IF nfns > 0 THEN
    EXECUTE format($q$
      WITH g AS (
        SELECT %11$s AS row_key, qualifier, %1$s AS bucket%2$s
          FROM %3$s
         WHERE family = %4$L %5$s %6$s
         GROUP BY 1, 2, 3)
      INSERT INTO %3$s (row_key, family, qualifier, ts, value)
      SELECT g.row_key, %7$L, g.qualifier || %8$s, g.bucket, %9$s
        FROM g, LATERAL (VALUES %10$s) AS f(fn, v)$q$,
      bucket, aggs, tbl, r->>'source', range_cond, '',
      family,
      format(qualsuffix, 'f.fn'),
      CASE WHEN valtype = 'bytea'::regtype
           THEN format('CASE WHEN f.fn = ''hll'' THEN %s WHEN f.fn = ''ddsketch'' THEN %s ELSE int8send(f.v) END',
                       CASE WHEN r->'functions' ? 'hll' THEN 'g.r_hll' ELSE 'NULL' END,
                       CASE WHEN r->'functions' ? 'ddsketch' THEN 'g.r_ddsketch' ELSE 'NULL' END)
           ELSE 'f.v' END,
      substr(vals, 3), rkey);
    GET DIAGNOSTICS n = ROW_COUNT;
  END IF;
  IF fsum THEN
    EXECUTE format($q$
      INSERT INTO %3$s (row_key, family, qualifier, ts, value)
      SELECT %6$s, %5$L, qualifier || %7$s, %1$s, value
        FROM %3$s
       WHERE family = %4$L %2$s$q$,
      bucket, range_cond, tbl, r->>'source', family, rkey, format(qualsuffix, '''sum'''));
    -- the cells written: one sum per group (the other functions' rows
    -- count the groups)
    IF nfns > 0 THEN
      n := n + n / nfns;
    ELSE
      EXECUTE format($q$
        SELECT count(*) FROM (SELECT DISTINCT %5$s, qualifier, %1$s
                                FROM %3$s WHERE family = %4$L %2$s) d$q$,
        bucket, range_cond, tbl, r->>'source', rkey) INTO n;
    END IF;
  END IF;
  RETURN n;
END
$$;

-- The checks, lock and DELETE of wide.rebuild_rollup, which then runs
-- _rollup_fill (api/entry.c).
CREATE FUNCTION wide_internal._rebuild_rollup(tbl regclass, family text, start_key text, end_key text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  keytype regtype := (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attnum = 1);
BEGIN
  IF NOT coalesce(wide.family_catalog_of(tbl)->'families'->family ? 'rollup', false) THEN
    RAISE EXCEPTION 'column family "%" of wide table % is not a rollup', family, tbl
      USING ERRCODE = 'wrong_object_type',
            HINT = 'wide.rollups() lists the rollup families of a table.';
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'wide.rebuild_rollup() needs a READ COMMITTED transaction'
      USING ERRCODE = 'active_sql_transaction',
            DETAIL = 'It locks out writers and then reads every write committed before, which an older snapshot would not show.';
  END IF;
  -- writers wait (readers do not): the range is recomputed from every
  -- committed source cell, and no rollup input is deleted unseen
  EXECUTE format('LOCK TABLE %s IN SHARE MODE', tbl);
  EXECUTE format('DELETE FROM %s WHERE family = %L %s %s', tbl, family,
    CASE WHEN start_key IS NULL THEN '' ELSE format('AND row_key >= %L::%s', start_key, keytype) END,
    CASE WHEN end_key IS NULL THEN '' ELSE format('AND row_key < %L::%s', end_key, keytype) END);
END
$$;

CREATE FUNCTION wide.rebuild_rollup(tbl regclass, family text,
                                    start_key text DEFAULT NULL, end_key text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_rebuild_rollup'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION wide.rebuild_rollup(regclass, text, text, text) IS
  'recompute the cells of a rollup family for the rows [start_key, end_key) from its source cells (after deletes of source cells, which rollups do not subtract); returns the cells written';

CREATE FUNCTION wide.rollups(tbl regclass)
RETURNS TABLE (family text, source text, bucket interval, functions text[],
               key_parts int, delimiter text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT f.key COLLATE "C", f.value->'rollup'->>'source',
         (f.value->'rollup'->>'bucket')::interval,
         ARRAY(SELECT jsonb_array_elements_text(f.value->'rollup'->'functions')),
         (f.value->'rollup'->>'key_parts')::int, f.value->'rollup'->>'delimiter'
  FROM jsonb_each(coalesce(wide.family_catalog_of(tbl)->'families', '{}'::jsonb)) AS f
  WHERE f.value ? 'rollup'
  ORDER BY 1;
$$;
COMMENT ON FUNCTION wide.rollups(regclass) IS 'the rollup families of a wide table: source family, bucket width and functions';

-- ----------------------------------------------------------------
-- Maintenance and inspection
-- ----------------------------------------------------------------

-- Returns what it did (engine/summary.c): flushes and merges, runs merged
-- and written, bytes (pages) read and written, records read and written,
-- and the records dropped: deleted, superseded by a newer write, collected
-- by max_age, beyond max_versions, of aborted transactions, of dropped
-- families, tombstones with nothing left to delete, aggregate inputs
-- folded; then the time it took.
CREATE FUNCTION wide.compact(tbl regclass, major boolean DEFAULT false,
                             OUT flushes bigint, OUT compactions bigint,
                             OUT runs_in bigint, OUT runs_out bigint,
                             OUT bytes_read bigint, OUT bytes_written bigint,
                             OUT cells_in bigint, OUT cells_out bigint,
                             OUT cells_deleted bigint, OUT cells_superseded bigint,
                             OUT cells_expired bigint, OUT cells_past_max_versions bigint,
                             OUT cells_aborted bigint, OUT cells_of_dropped_families bigint,
                             OUT tombstones_dropped bigint, OUT cells_folded bigint,
                             OUT elapsed interval)
AS 'MODULE_PATHNAME', 'wide_compact'
LANGUAGE C STRICT;
COMMENT ON FUNCTION wide.compact(regclass, boolean) IS
  'flush the write area and merge runs (all of them with major => true); returns what it did';

CREATE FUNCTION wide.drop_before(tbl regclass, ts "any")
RETURNS void
AS 'MODULE_PATHNAME', 'wide_drop_before'
LANGUAGE C;
COMMENT ON FUNCTION wide.drop_before(regclass, "any") IS
  'delete every cell older than ts across all rows, in one step; VACUUM frees the runs it empties without rewriting them';

CREATE FUNCTION wide.drop_before(tbl regclass, family text, ts "any")
RETURNS void
AS 'MODULE_PATHNAME', 'wide_drop_before'
LANGUAGE C;
COMMENT ON FUNCTION wide.drop_before(regclass, text, "any") IS
  'delete every cell of a family older than ts across all rows, in one step';

-- Wide's phases of the VACUUM and COPY commands running now (am/progress.c
-- keeps them in progress parameters the heap's views do not use).
CREATE FUNCTION wide.progress(OUT pid int, OUT relation regclass, OUT command text,
                              OUT phase text, OUT compactions bigint,
                              OUT pages_truncated bigint)
RETURNS SETOF record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT p.pid, p.relid::regclass, c.command,
         (ARRAY['flushing the write area', 'compacting runs', 'merging runs to drop deletes',
                'rewriting runs to freeze', 'sweeping orphaned pages', 'giving the free tail back',
                'updating statistics', 'flushing the write area', 'sorting and writing the last run'])[p.param11],
         CASE c.command WHEN 'VACUUM' THEN p.param12 END,
         CASE c.command WHEN 'VACUUM' THEN p.param13 END
    FROM unnest(ARRAY['VACUUM', 'COPY']) c(command),
         LATERAL pg_stat_get_progress_info(c.command) p
   WHERE p.param11 > 0
     AND EXISTS (SELECT FROM pg_class r JOIN pg_am a ON a.oid = r.relam
                  WHERE r.oid = p.relid AND a.amname = 'wide')
$$;
COMMENT ON FUNCTION wide.progress() IS
  'the phase of each VACUUM and COPY of a wide table running now (also in pg_stat_progress_vacuum and pg_stat_progress_copy)';

CREATE FUNCTION wide.stats(tbl regclass,
                           OUT write_area_pages bigint, OUT runs int,
                           OUT cells bigint, OUT raw_bytes bigint,
                           OUT stored_bytes bigint, OUT compression_ratio float8,
                           OUT table_pages bigint, OUT free_pages bigint,
                           OUT flushes bigint, OUT compactions bigint,
                           OUT free_queue_entries int, OUT write_area_runs int)
AS 'MODULE_PATHNAME', 'wide_stats'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION wide.stats(regclass) IS
  'size and shape of a wide table: write area, runs, compression';

CREATE FUNCTION wide.block_cache(OUT shared boolean, OUT size_bytes bigint,
                                 OUT used_bytes bigint, OUT blocks bigint,
                                 OUT hits bigint, OUT misses bigint,
                                 OUT inserts bigint, OUT evictions bigint)
AS 'MODULE_PATHNAME', 'wide_block_cache'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION wide.block_cache() IS
  'the block cache shared by backends (wide in shared_preload_libraries): size and counters';

CREATE FUNCTION wide.runs(tbl regclass,
                          OUT run int, OUT segment bigint, OUT cells bigint,
                          OUT raw_bytes bigint, OUT stored_bytes bigint,
                          OUT has_tombstones boolean, OUT oldest_xid xid,
                          OUT first_key bytea, OUT last_key bytea)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_runs'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION wide.runs(regclass) IS
  'the runs (sorted segments) of a wide table, oldest first';

-- write-area records this backend read into its copy of a write area for
-- the counts of DELETEs (src/engine/wacache.c): each once a transaction
CREATE FUNCTION wide_internal.write_area_reads()
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_write_area_reads'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.write_area_reads() FROM PUBLIC;

-- seeks into data blocks this backend started from a point of a stored row
-- directory (src/engine/rowdir.c, format version 7)
CREATE FUNCTION wide_internal.row_dir_seeks()
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_row_dir_seeks'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.row_dir_seeks() FROM PUBLIC;

-- the engine's format round trips on random input (src/engine/selftest.c)
CREATE FUNCTION wide_internal.format_selftest(seed bigint, rounds int,
                                              OUT part text, OUT cases bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_selftest'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_selftest(bigint, int) FROM PUBLIC;

-- the on-disk format taken apart from raw bytes by the engine's code, for
-- the tests that inspect or damage stored pages (src/api/formatdecode.c,
-- docs/testing.md).  (Those that return no set are not STRICT, and give
-- NULL for a NULL argument themselves: the planner would fold a STRICT
-- call with a NULL argument to NULL without checking EXECUTE, and
-- privileges_catalog requires every call by others to be refused.)
CREATE FUNCTION wide_internal.format_pages(image bytea,
    OUT blkno bigint, OUT type text, OUT next bigint, OUT owner bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_pages'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_pages(bytea) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_page_fields(page bytea,
    OUT field text, OUT off int, OUT size int, OUT value numeric)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_page_fields'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_page_fields(bytea) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_records(page bytea,
    OUT item int, OUT lp_off int, OUT lp_len int, OUT lp_flags int,
    OUT field text, OUT off int, OUT size int, OUT value numeric)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_records'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_records(bytea) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_segments(image bytea,
    OUT root bigint, OUT segid bigint, OUT live boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_segments'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_segments(bytea) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_segment(image bytea, root bigint,
    OUT segid bigint, OUT typlen smallint, OUT ncells numeric,
    OUT stream_len bigint, OUT root_off bigint, OUT root_len bigint,
    OUT header_pages bigint[], OUT stream_pages bigint[],
    OUT page_data_off int, OUT page_capacity int, OUT nblobs int,
    OUT stream bytea)
RETURNS record
AS 'MODULE_PATHNAME', 'wide_format_segment'
LANGUAGE C VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_segment(bytea, bigint) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_stored_blocks(image bytea, root bigint,
    OUT kind text, OUT off bigint, OUT len bigint, OUT type int, OUT stored bytea)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_stored_blocks'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_stored_blocks(bytea, bigint) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_frame(stored bytea,
    OUT type int, OUT stored_crc bigint, OUT crc bigint, OUT body bytea,
    OUT ts_unit numeric, OUT val_div float8)
RETURNS record
AS 'MODULE_PATHNAME', 'wide_format_frame'
LANGUAGE C VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_frame(bytea) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_index(raw bytea, root boolean,
    OUT entry int, OUT off numeric, OUT len bigint, OUT ncells numeric,
    OUT flags int, OUT last_row bytea)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_index'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_index(bytea, boolean) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_crc32c(bytes bytea)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_format_crc32c'
LANGUAGE C VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_crc32c(bytea) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_varints(bytes bytea, pos int, n int,
    OUT value numeric, OUT next int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_format_varints'
LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_varints(bytea, int, int) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_encode_varints(vals bigint[])
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_format_encode_varints'
LANGUAGE C VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_encode_varints(bigint[]) FROM PUBLIC;

CREATE FUNCTION wide_internal.format_compress(raw bytea, level int)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_format_compress'
LANGUAGE C VOLATILE;
REVOKE EXECUTE ON FUNCTION wide_internal.format_compress(bytea, int) FROM PUBLIC;

CREATE FUNCTION wide.verify(tbl regclass, OUT object text, OUT problem text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_verify'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION wide.verify(regclass) IS
  'check a wide table (checksums, order, index and filters); no rows: sound';

-- ----------------------------------------------------------------
-- Mutations
--
-- Keys are text or bytea, timestamps timestamptz, timestamp, date or int8
-- microseconds since 1970; NULL ts means now.  A delete removes the cells
-- of its scope written before it, whatever their timestamps.
-- ----------------------------------------------------------------

CREATE FUNCTION wide.set_cell(tbl regclass, row_key "any", family "any",
                              qualifier "any", value "any", ts "any" DEFAULT NULL::timestamptz)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_set_cell'
LANGUAGE C;
COMMENT ON FUNCTION wide.set_cell(regclass, "any", "any", "any", "any", "any") IS
  'write a cell (SetCell): replaces the cell of the same coordinates';

CREATE FUNCTION wide.delete_cells(tbl regclass, row_key "any", family "any",
                                  qualifier "any",
                                  ts_from "any" DEFAULT NULL::timestamptz,
                                  ts_to "any" DEFAULT NULL::timestamptz)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_delete_cells'
LANGUAGE C;
COMMENT ON FUNCTION wide.delete_cells(regclass, "any", "any", "any", "any", "any") IS
  'delete the versions of a column with ts in [ts_from, ts_to) (DeleteFromColumn)';

CREATE FUNCTION wide.delete_family(tbl regclass, row_key "any", family "any")
RETURNS void
AS 'MODULE_PATHNAME', 'wide_delete_family'
LANGUAGE C;
COMMENT ON FUNCTION wide.delete_family(regclass, "any", "any") IS
  'delete the cells of one family in a row (DeleteFromFamily)';

CREATE FUNCTION wide.delete_row(tbl regclass, row_key "any")
RETURNS void
AS 'MODULE_PATHNAME', 'wide_delete_row'
LANGUAGE C;
COMMENT ON FUNCTION wide.delete_row(regclass, "any") IS
  'delete every cell of a row (DeleteFromRow)';

CREATE FUNCTION wide.mutate_row(tbl regclass, row_key "any", mutations jsonb)
RETURNS int
AS 'MODULE_PATHNAME', 'wide_mutate_row'
LANGUAGE C;
COMMENT ON FUNCTION wide.mutate_row(regclass, "any", jsonb) IS
  'apply a JSON array of Bigtable mutations to a row, all or nothing (MutateRow); returns their number';

CREATE FUNCTION wide.mutate_rows(tbl regclass, entries jsonb)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_mutate_rows'
LANGUAGE C;
COMMENT ON FUNCTION wide.mutate_rows(regclass, jsonb) IS
  'apply [{"row_key": k, "mutations": [...]}, ...], all or nothing (MutateRows); returns the number of mutations';

-- mutate_rows with its entries in a compact binary form (src/api/mutate_rows_bin.c,
-- docs/sql.md), for wide-bigtable's MutateRows: the same checks, privileges and records
CREATE FUNCTION wide.mutate_rows_bin(tbl regclass, batch bytea)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_mutate_rows_bin'
LANGUAGE C;
COMMENT ON FUNCTION wide.mutate_rows_bin(regclass, bytea) IS
  'wide.mutate_rows of a binary batch of entries (wide-bigtable''s MutateRows), all or nothing; returns the number of mutations';

CREATE FUNCTION wide.check_and_mutate_row(tbl regclass, row_key "any",
                                          predicate jsonb DEFAULT NULL,
                                          on_match jsonb DEFAULT NULL,
                                          on_no_match jsonb DEFAULT NULL)
RETURNS boolean
AS 'MODULE_PATHNAME', 'wide_check_and_mutate_row'
LANGUAGE C;
COMMENT ON FUNCTION wide.check_and_mutate_row(regclass, "any", jsonb, jsonb, jsonb) IS
  'under the row lock, apply on_match if the predicate filter outputs a cell of the row, else on_no_match (CheckAndMutateRow)';

CREATE FUNCTION wide.read_modify_write_row(tbl anyelement, row_key "any", family text,
                                           qualifier text, append bytea DEFAULT NULL,
                                           increment bigint DEFAULT NULL)
RETURNS anyelement
AS 'MODULE_PATHNAME', 'wide_read_modify_write_row'
LANGUAGE C;
COMMENT ON FUNCTION wide.read_modify_write_row(anyelement, "any", text, text, bytea, bigint) IS
  'under the row lock, append to or increment the newest cell of a column and return the new cell (ReadModifyWriteRow)';

-- ----------------------------------------------------------------
-- Aggregates
--
-- An aggregate cell (row, family, qualifier, ts) folds every input written
-- to it since its last delete: sum, min, max over int8 or float8, or a HyperLogLog
-- sketch (precision 14, about 0.8% standard error).  The timestamp is the
-- cell's bucket and is required.  INSERT and COPY into an aggregate family
-- are add_to_cell.
-- ----------------------------------------------------------------

CREATE FUNCTION wide.add_to_cell(tbl regclass, row_key "any", family "any",
                                 qualifier "any", ts "any", input "any")
RETURNS void
AS 'MODULE_PATHNAME', 'wide_add_to_cell'
LANGUAGE C;
COMMENT ON FUNCTION wide.add_to_cell(regclass, "any", "any", "any", "any", "any") IS
  'fold an input into an aggregate cell (AddToCell): int8 (float8 in a float8 table) for sum/min/max, any value for hll';

CREATE FUNCTION wide.merge_to_cell(tbl regclass, row_key "any", family "any",
                                   qualifier "any", ts "any", accumulator "any")
RETURNS void
AS 'MODULE_PATHNAME', 'wide_merge_to_cell'
LANGUAGE C;
COMMENT ON FUNCTION wide.merge_to_cell(regclass, "any", "any", "any", "any", "any") IS
  'fold an accumulator, as read back from a cell, into an aggregate cell (MergeToCell)';

CREATE FUNCTION wide.hll_count(sketch bytea)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_hll_count'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION wide.hll_count(bytea) IS
  'the estimated number of distinct inputs of a HyperLogLog sketch';

CREATE FUNCTION wide.hll_union(a bytea, b bytea)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_hll_union'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION wide.hll_union(bytea, bytea) IS
  'the HyperLogLog sketch of the union of two sketches'' inputs';

CREATE FUNCTION wide_internal._hll_add_trans(internal, anyelement)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_hll_add_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._hll_union_trans(internal, bytea)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_hll_union_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._hll_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_hll_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- parallel aggregation: states combine, and travel between processes, as sketches
CREATE FUNCTION wide_internal._hll_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_hll_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._hll_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_hll_serialize'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._hll_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_hll_deserialize'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE wide.hll_add_agg(anyelement) (
  SFUNC = wide_internal._hll_add_trans,
  STYPE = internal,
  FINALFUNC = wide_internal._hll_final,
  COMBINEFUNC = wide_internal._hll_combine,
  SERIALFUNC = wide_internal._hll_serialize,
  DESERIALFUNC = wide_internal._hll_deserialize,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE wide.hll_add_agg(anyelement) IS
  'the HyperLogLog sketch of a column''s values, hashed as hll families hash inputs';

CREATE AGGREGATE wide.hll_union_agg(bytea) (
  SFUNC = wide_internal._hll_union_trans,
  STYPE = internal,
  FINALFUNC = wide_internal._hll_final,
  COMBINEFUNC = wide_internal._hll_combine,
  SERIALFUNC = wide_internal._hll_serialize,
  DESERIALFUNC = wide_internal._hll_deserialize,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE wide.hll_union_agg(bytea) IS
  'the HyperLogLog sketch of the union of a column of sketches';

-- Quantile sketches (DDSketch, src/engine/ddsketch.c): a ddsketch family's
-- cell is the sketch of every float8 input written to it, with 1% relative
-- accuracy for every quantile; sketches merge bin by bin.
CREATE FUNCTION wide.quantile(sketch bytea, q float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'wide_quantile'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION wide.quantile(bytea, float8) IS
  'the q-quantile of a DDSketch''s inputs (what percentile_disc(q) returns), within 1%';

CREATE FUNCTION wide.quantiles(sketch bytea, qs float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'wide_quantiles'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION wide.quantiles(bytea, float8[]) IS
  'wide.quantile of each q';

CREATE FUNCTION wide.ddsketch_count(sketch bytea)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wide_ddsketch_count'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION wide.ddsketch_count(bytea) IS
  'the number of inputs of a DDSketch';

CREATE FUNCTION wide.ddsketch_union(a bytea, b bytea)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_ddsketch_union'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION wide.ddsketch_union(bytea, bytea) IS
  'the DDSketch of both sketches'' inputs';

CREATE FUNCTION wide_internal._ddsketch_add_trans(internal, float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_ddsketch_add_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._ddsketch_union_trans(internal, bytea)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_ddsketch_union_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._ddsketch_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_ddsketch_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._ddsketch_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_ddsketch_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._ddsketch_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_ddsketch_final'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide_internal._ddsketch_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_ddsketch_deserialize'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE wide.ddsketch_agg(float8) (
  SFUNC = wide_internal._ddsketch_add_trans,
  STYPE = internal,
  FINALFUNC = wide_internal._ddsketch_final,
  COMBINEFUNC = wide_internal._ddsketch_combine,
  SERIALFUNC = wide_internal._ddsketch_serialize,
  DESERIALFUNC = wide_internal._ddsketch_deserialize,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE wide.ddsketch_agg(float8) IS
  'the DDSketch of a column''s values, as a ddsketch family keeps them';

CREATE AGGREGATE wide.ddsketch_union_agg(bytea) (
  SFUNC = wide_internal._ddsketch_union_trans,
  STYPE = internal,
  FINALFUNC = wide_internal._ddsketch_final,
  COMBINEFUNC = wide_internal._ddsketch_combine,
  SERIALFUNC = wide_internal._ddsketch_serialize,
  DESERIALFUNC = wide_internal._ddsketch_deserialize,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE wide.ddsketch_union_agg(bytea) IS
  'the DDSketch of the union of a column of sketches';

-- ----------------------------------------------------------------
-- Reads (Bigtable ReadRows)
--
-- The table is named by a value of its row type (NULL::tablename), so that
-- cells come back as the table's own rows.  Row set: the union of keys,
-- start_key/end_key, prefix and ranges (JSON RowRange objects); none of
-- them: the whole table.  "limit" counts rows.  filter: a JSON RowFilter
-- (docs/sql.md).
-- ----------------------------------------------------------------

CREATE FUNCTION wide.read_rows(tbl anyelement,
                               keys "any" DEFAULT NULL,
                               start_key "any" DEFAULT NULL,
                               end_key "any" DEFAULT NULL,
                               start_inclusive boolean DEFAULT true,
                               end_inclusive boolean DEFAULT false,
                               prefix "any" DEFAULT NULL,
                               ranges jsonb DEFAULT NULL,
                               "limit" bigint DEFAULT NULL,
                               reversed boolean DEFAULT false,
                               filter jsonb DEFAULT NULL)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'wide_read_rows'
LANGUAGE C STABLE;
COMMENT ON FUNCTION wide.read_rows(anyelement, "any", "any", "any", boolean, boolean, "any", jsonb, bigint, boolean, jsonb) IS
  'the cells of a set of rows, in key order, through a row filter (ReadRows)';

CREATE FUNCTION wide.sample_row_keys(tbl regclass, OUT row_key bytea, OUT offset_bytes bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_sample_row_keys'
LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION wide.sample_row_keys(regclass) IS
  'row keys splitting the table into stretches of similar size, with approximate byte offsets (SampleRowKeys)';

CREATE FUNCTION wide.read_rows_labeled(tbl anyelement,
                                       keys "any" DEFAULT NULL,
                                       start_key "any" DEFAULT NULL,
                                       end_key "any" DEFAULT NULL,
                                       start_inclusive boolean DEFAULT true,
                                       end_inclusive boolean DEFAULT false,
                                       prefix "any" DEFAULT NULL,
                                       ranges jsonb DEFAULT NULL,
                                       "limit" bigint DEFAULT NULL,
                                       reversed boolean DEFAULT false,
                                       filter jsonb DEFAULT NULL,
                                       OUT cell anyelement, OUT labels text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_read_rows'
LANGUAGE C STABLE;
COMMENT ON FUNCTION wide.read_rows_labeled(anyelement, "any", "any", "any", boolean, boolean, "any", jsonb, bigint, boolean, jsonb) IS
  'read_rows, with the labels apply_label_transformer gave each cell';

CREATE FUNCTION wide.read_row(tbl anyelement, row_key "any", filter jsonb DEFAULT NULL)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'wide_read_row'
LANGUAGE C STABLE;
COMMENT ON FUNCTION wide.read_row(anyelement, "any", jsonb) IS
  'the cells of one row, through a row filter (ReadRows of one key)';

-- ----------------------------------------------------------------
-- Filter shortcuts: SQL functions that build the JSON row filters
-- ----------------------------------------------------------------

CREATE FUNCTION wide.chain(VARIADIC filters jsonb[])
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('chain', to_jsonb(filters)) $$;
COMMENT ON FUNCTION wide.chain(jsonb[]) IS 'row filter: each filter''s output feeds the next';

CREATE FUNCTION wide.interleave(VARIADIC filters jsonb[])
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('interleave', to_jsonb(filters)) $$;
COMMENT ON FUNCTION wide.interleave(jsonb[]) IS 'row filter: the union of the filters'' outputs';

CREATE FUNCTION wide.condition(predicate jsonb, true_filter jsonb DEFAULT NULL,
                               false_filter jsonb DEFAULT NULL)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('condition', jsonb_strip_nulls(jsonb_build_object(
       'predicate_filter', predicate, 'true_filter', true_filter, 'false_filter', false_filter))) $$;
COMMENT ON FUNCTION wide.condition(jsonb, jsonb, jsonb) IS
  'row filter: true_filter if the predicate outputs a cell of the row, else false_filter';

CREATE FUNCTION wide.family_filter(regex text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('family_name_regex_filter', regex) $$;

CREATE FUNCTION wide.qualifier_filter(regex text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('column_qualifier_regex_filter', regex) $$;

CREATE FUNCTION wide.row_key_filter(regex text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('row_key_regex_filter', regex) $$;

CREATE FUNCTION wide.value_filter(regex text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('value_regex_filter', regex) $$;

CREATE FUNCTION wide.column_range(family text, start_qualifier text DEFAULT NULL,
                                  end_qualifier text DEFAULT NULL,
                                  start_inclusive boolean DEFAULT true,
                                  end_inclusive boolean DEFAULT false)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('column_range_filter', jsonb_strip_nulls(jsonb_build_object(
       'family_name', family,
       CASE WHEN start_inclusive THEN 'start_qualifier_closed' ELSE 'start_qualifier_open' END, start_qualifier,
       CASE WHEN end_inclusive THEN 'end_qualifier_closed' ELSE 'end_qualifier_open' END, end_qualifier))) $$;

CREATE FUNCTION wide.value_range(start_value text DEFAULT NULL, end_value text DEFAULT NULL,
                                 start_inclusive boolean DEFAULT true,
                                 end_inclusive boolean DEFAULT false)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('value_range_filter', jsonb_strip_nulls(jsonb_build_object(
       CASE WHEN start_inclusive THEN 'start_value_closed' ELSE 'start_value_open' END, start_value,
       CASE WHEN end_inclusive THEN 'end_value_closed' ELSE 'end_value_open' END, end_value))) $$;

CREATE FUNCTION wide.ts_range(ts_from timestamptz DEFAULT NULL, ts_to timestamptz DEFAULT NULL)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('timestamp_range_filter', jsonb_strip_nulls(jsonb_build_object(
       'start_timestamp_micros', (extract(epoch FROM ts_from) * 1000000)::bigint,
       'end_timestamp_micros', (extract(epoch FROM ts_to) * 1000000)::bigint))) $$;
COMMENT ON FUNCTION wide.ts_range(timestamptz, timestamptz) IS
  'row filter: cells with ts in [ts_from, ts_to)';

CREATE FUNCTION wide.latest(n int DEFAULT 1)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('cells_per_column_limit_filter', n) $$;
COMMENT ON FUNCTION wide.latest(int) IS 'row filter: the newest n versions of each column';

CREATE FUNCTION wide.cells_per_row(n int, "offset" int DEFAULT 0)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN "offset" > 0
         THEN jsonb_build_object('chain', jsonb_build_array(
                jsonb_build_object('cells_per_row_offset_filter', "offset"),
                jsonb_build_object('cells_per_row_limit_filter', n)))
         ELSE jsonb_build_object('cells_per_row_limit_filter', n) END $$;

CREATE FUNCTION wide.strip_value()
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT '{"strip_value_transformer": true}'::jsonb $$;

CREATE FUNCTION wide.label(label text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('apply_label_transformer', label) $$;

CREATE FUNCTION wide.row_sample(probability float8)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('row_sample_filter', probability) $$;

-- ----------------------------------------------------------------
-- Time-series toolkit: row keys, timestamps and buckets as the guides
-- design them (docs/cookbook.md).  All IMMUTABLE, so in a WHERE clause
-- over constants they fold before planning and the key range is pushed
-- down like a literal.
-- ----------------------------------------------------------------

-- A row key from parts joined by '#'; a '#' or '\' inside a part is escaped
-- with '\', so wide.key_part splits it back exactly.
CREATE FUNCTION wide.key(VARIADIC parts text[])
RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF array_position(parts, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'a row key part is NULL'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF array_to_string(parts, '') !~ '[#\\]' THEN
    RETURN array_to_string(parts, '#');		-- nothing to escape
  END IF;
  RETURN array_to_string(ARRAY(SELECT replace(replace(p, '\', '\\'), '#', '\#')
                                 FROM unnest(parts) p), '#');
END
$$;
COMMENT ON FUNCTION wide.key(text[]) IS
  'a row key from parts joined by #, with # and \ inside a part escaped by \';

-- Part n (1-based) of a key built by wide.key, unescaped; NULL past the end.
CREATE FUNCTION wide.key_part(key text, n int)
RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  i int := 1;
  part int := 1;
  c text;
  out text := '';
  len int := length(key);
BEGIN
  IF n < 1 THEN
    RAISE EXCEPTION 'key part numbers start at 1, not %', n
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF strpos(key, '\') = 0 THEN
    -- nothing escaped: a split (string_to_array('') is no part at all)
    IF key = '' THEN
      RETURN CASE WHEN n = 1 THEN '' END;
    END IF;
    RETURN (string_to_array(key, '#'))[n];
  END IF;
  WHILE i <= len LOOP
    c := substr(key, i, 1);
    IF c = '\' AND i < len THEN
      IF part = n THEN out := out || substr(key, i + 1, 1); END IF;
      i := i + 2;
      CONTINUE;
    ELSIF c = '#' THEN
      IF part = n THEN RETURN out; END IF;
      part := part + 1;
    ELSIF part = n THEN
      out := out || c;
    END IF;
    i := i + 1;
  END LOOP;
  RETURN CASE WHEN part = n THEN out END;
END
$$;
COMMENT ON FUNCTION wide.key_part(text, int) IS
  'part n (from 1) of a key built by wide.key, unescaped; NULL past the last part';

-- A number as a fixed-width field that sorts bytewise as numbers sort:
-- zero-padded to width digits (non-negative numbers), or, with no width,
-- any bigint as 20 digits (offset by 2^63, so negatives sort first).
CREATE FUNCTION wide.sortable(n bigint, width int DEFAULT NULL)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF n IS NULL THEN RETURN NULL; END IF;
  IF width IS NULL THEN
    RETURN lpad((n::numeric + 9223372036854775808)::text, 20, '0');
  END IF;
  IF n < 0 OR length(n::text) > width THEN
    RAISE EXCEPTION '% does not fit in % digits', n, width
      USING ERRCODE = 'numeric_value_out_of_range',
            HINT = 'Give a larger width, or no width for any bigint as 20 digits.';
  END IF;
  RETURN lpad(n::text, width, '0');
END
$$;
COMMENT ON FUNCTION wide.sortable(bigint, int) IS
  'a number as a fixed-width key field that sorts bytewise in numeric order';

-- www.example.com -> com.example.www: the rows of one domain sort together.
CREATE FUNCTION wide.reverse_domain(domain text)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT array_to_string(ARRAY(SELECT p FROM unnest(string_to_array(domain, '.'))
                                    WITH ORDINALITY AS x(p, i) ORDER BY i DESC), '.') $$;
COMMENT ON FUNCTION wide.reverse_domain(text) IS
  'a domain name with its labels reversed (www.example.com -> com.example.www)';

-- Milliseconds since 1970 as 13 digits (years 1970-2286), the guides'
-- PREFIX#MILLIS keys; wide.millis_ts reads them back.
CREATE FUNCTION wide.millis(t timestamptz)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT wide.sortable(floor(extract(epoch FROM t) * 1000)::bigint, 13) $$;
CREATE FUNCTION wide.millis_ts(millis text)
RETURNS timestamptz LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT to_timestamp(millis::bigint / 1000.0) $$;

-- The key PREFIX#MILLIS of a time: WHERE row_key >= wide.time_key(p, t1)
-- AND row_key < wide.time_key(p, t2) is the key range of [t1, t2).
CREATE FUNCTION wide.time_key(prefix text, t timestamptz)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT prefix || '#' || wide.millis(t) $$;
COMMENT ON FUNCTION wide.time_key(text, timestamptz) IS
  'the row key PREFIX#MILLIS (13 digits) of a time, for key ranges of a time window';

-- Reversed timestamps (Long.MAX_VALUE - millis, 19 digits): the newest row
-- of a prefix sorts first, so "the latest n" is read_rows(prefix, limit n).
CREATE FUNCTION wide.reverse_millis(t timestamptz)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT lpad((9223372036854775807 - floor(extract(epoch FROM t) * 1000)::bigint)::text, 19, '0') $$;
CREATE FUNCTION wide.reverse_millis_ts(reversed text)
RETURNS timestamptz LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT to_timestamp((9223372036854775807 - reversed::bigint) / 1000.0) $$;
COMMENT ON FUNCTION wide.reverse_millis(timestamptz) IS
  'Long.MAX_VALUE - millis as 19 digits: newest-first keys';

-- Time buckets as the guides write them, in a time zone (default UTC):
-- hour 2017072614, day 20170726, week 2017week30 (ISO week), month 201707,
-- year 2017.
CREATE FUNCTION wide.bucket(t timestamptz, unit text, tz text DEFAULT 'UTC')
RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  l timestamp := t AT TIME ZONE tz;
  ymd text := lpad(extract(year FROM l)::text, 4, '0') || lpad(extract(month FROM l)::text, 2, '0')
              || lpad(extract(day FROM l)::text, 2, '0');
BEGIN
  IF unit NOT IN ('hour', 'day', 'week', 'month', 'year') THEN
    RAISE EXCEPTION 'unknown time bucket "%"', unit
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Buckets are hour, day, week, month and year.';
  END IF;
  RETURN CASE unit
    WHEN 'hour' THEN ymd || lpad(extract(hour FROM l)::text, 2, '0')
    WHEN 'day' THEN ymd
    WHEN 'week' THEN lpad(extract(isoyear FROM l)::text, 4, '0') || 'week'
                     || lpad(extract(week FROM l)::text, 2, '0')
    WHEN 'month' THEN substr(ymd, 1, 6)
    WHEN 'year' THEN substr(ymd, 1, 4)
  END;
END
$$;
COMMENT ON FUNCTION wide.bucket(timestamptz, text, text) IS
  'a time bucket as key text: hour 2017072614, day 20170726, week 2017week30, month 201707, year 2017';

-- The smart meter's qualifier: the quarter hour of the day, 00 to 95 (92
-- or 100 on days of a DST change in that time zone: the count of quarter
-- hours since local midnight, so none is written twice).
CREATE FUNCTION wide.quarter_hour(t timestamptz, tz text DEFAULT 'UTC')
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT lpad(floor(extract(epoch FROM t - (date_trunc('day', t AT TIME ZONE tz) AT TIME ZONE tz)) / 900)::int::text, 2, '0') $$;
COMMENT ON FUNCTION wide.quarter_hour(timestamptz, text) IS
  'the quarter hour of the local day, 00 to 95: the smart-meter qualifier';

-- Salting against hotspots: N-way salt prefix from a stable hash of the key
-- (md5, the same on every platform and version): 3#key for salt 3 of 10.
CREATE FUNCTION wide.salt(key text, buckets int)
RETURNS int LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF buckets < 1 THEN
    RAISE EXCEPTION 'buckets must be at least 1, not %', buckets
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN (('x' || substr(md5(key), 1, 8))::bit(32)::bigint % buckets)::int;
END
$$;
CREATE FUNCTION wide.salted_key(key text, buckets int)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT lpad(wide.salt(key, buckets)::text, length((buckets - 1)::text), '0') || '#' || key $$;
COMMENT ON FUNCTION wide.salted_key(text, int) IS
  'key prefixed with its salt (md5 of the key mod buckets): spreads sequential keys over buckets ranges';

-- The cells of the unsalted keys [start_key, end_key) (or with a prefix) of
-- a table salted into "buckets", in unsalted key order: one read_rows per
-- salt bucket, then a sort of what they return (cost: buckets range reads
-- plus sorting the result; the row_key column keeps the salted key).
CREATE FUNCTION wide.read_salted(tbl anyelement, buckets int,
                                 start_key text DEFAULT NULL, end_key text DEFAULT NULL,
                                 prefix text DEFAULT NULL, filter jsonb DEFAULT NULL)
RETURNS SETOF anyelement LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  w int := length((buckets - 1)::text);
  rel oid := (SELECT typrelid FROM pg_type WHERE oid = pg_typeof(tbl));
  col text[] := ARRAY(SELECT quote_ident(attname) FROM pg_attribute
                       WHERE attrelid = rel AND attnum BETWEEN 1 AND 4 ORDER BY attnum);
BEGIN
  IF buckets IS NULL OR buckets < 1 THEN
    RAISE EXCEPTION 'buckets must be at least 1'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF (start_key IS NOT NULL OR end_key IS NOT NULL) AND prefix IS NOT NULL THEN
    RAISE EXCEPTION 'read_salted takes a key range or a prefix, not both'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY EXECUTE format(
    $q$SELECT r.* FROM generate_series(0, $2 - 1) s,
      LATERAL wide.read_rows($1,
        start_key => CASE WHEN $5 IS NULL THEN lpad(s::text, $7, '0') || '#' || coalesce($3, '') END,
        end_key => CASE WHEN $5 IS NULL AND $4 IS NOT NULL THEN lpad(s::text, $7, '0') || '#' || $4
                        WHEN $5 IS NULL THEN lpad(s::text, $7, '0') || '$' END,
        prefix => CASE WHEN $5 IS NOT NULL THEN lpad(s::text, $7, '0') || '#' || $5 END,
        filter => $6) r
    ORDER BY substr(r.%s, $7 + 2), r.%s, r.%s, r.%s DESC$q$, col[1], col[2], col[3], col[4])
    USING tbl, buckets, start_key, end_key, prefix, filter, w;
END
$$;
COMMENT ON FUNCTION wide.read_salted(anyelement, int, text, text, text, jsonb) IS
  'read_rows over every salt bucket of a salted table, in unsalted key order';

-- Key ranges.  The exclusive upper bound of the keys with a prefix: the
-- prefix with its last character incremented (after dropping trailing
-- U+10FFFF, which has no successor), so that row_key >= p AND row_key <
-- wide.prefix_end(p) is exactly starts_with(row_key, p) in the bytewise
-- (COLLATE "C") key order.  Code points, not bytes, are incremented: the
-- result is valid text (UTF-8 order is code point order), the surrogates
-- are skipped.  NULL when there is no upper bound (an empty prefix).
CREATE FUNCTION wide.prefix_end(prefix text)
RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  p text := prefix;
  c int;
BEGIN
  WHILE p <> '' LOOP
    c := ascii(right(p, 1));
    p := left(p, -1);
    IF c < 1114111 THEN
      RETURN p || chr(CASE WHEN c = 55295 THEN 57344 ELSE c + 1 END);
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
COMMENT ON FUNCTION wide.prefix_end(text) IS
  'the exclusive upper bound of the keys starting with prefix (NULL: none), for row_key < wide.prefix_end(p) and end_key';

-- The keys PREFIX#MILLIS of [t1, t2) as read_rows ranges (one range per
-- prefix, in key order): read_rows(NULL::t, ranges => wide.time_range(...)).
-- In SQL, row_key >= wide.time_key(p, t1) AND row_key < wide.time_key(p, t2)
-- is the same range.
CREATE FUNCTION wide.time_range(prefix text, t1 timestamptz, t2 timestamptz)
RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT jsonb_build_array(jsonb_build_object('start_key_closed', wide.time_key(prefix, t1),
                                                  'end_key_open', wide.time_key(prefix, t2))) $$;
COMMENT ON FUNCTION wide.time_range(text, timestamptz, timestamptz) IS
  'the row range of PREFIX#MILLIS keys from t1 (included) to t2 (excluded), as read_rows ranges';
CREATE FUNCTION wide.time_ranges(prefixes text[], t1 timestamptz, t2 timestamptz)
RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT coalesce(jsonb_agg(jsonb_build_object('start_key_closed', wide.time_key(p, t1),
                                                   'end_key_open', wide.time_key(p, t2)) ORDER BY p COLLATE "C"),
                      '[]') FROM unnest(prefixes) p WHERE p IS NOT NULL $$;
COMMENT ON FUNCTION wide.time_ranges(text[], timestamptz, timestamptz) IS
  'the row ranges of PREFIX#MILLIS keys of several prefixes from t1 to t2, as read_rows ranges';

-- The key PREFIX#REVERSED_MILLIS of a time: the newest row of a prefix sorts
-- first.  The rows of [t1, t2) are row_key > wide.reverse_time_key(p, t2) AND
-- row_key <= wide.reverse_time_key(p, t1).
CREATE FUNCTION wide.reverse_time_key(prefix text, t timestamptz)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT prefix || '#' || wide.reverse_millis(t) $$;
COMMENT ON FUNCTION wide.reverse_time_key(text, timestamptz) IS
  'the row key PREFIX#(Long.MAX_VALUE - millis): newest-first keys';

-- The latest n rows PREFIX#... (all their cells, or those the filter keeps),
-- newest first.  Over reversed-timestamp keys (newest_first, the default) the
-- first n rows of the prefix; over PREFIX#MILLIS keys the last n, by a
-- reversed scan.  Either way it reads n rows, not the prefix.
CREATE FUNCTION wide.read_latest(tbl anyelement, prefix text, n bigint,
                                 filter jsonb DEFAULT NULL, newest_first boolean DEFAULT true)
RETURNS SETOF anyelement LANGUAGE sql STABLE
AS $$ SELECT * FROM wide.read_rows(tbl, prefix => prefix || '#', "limit" => n,
                                   reversed => NOT newest_first, filter => filter) $$;
COMMENT ON FUNCTION wide.read_latest(anyelement, text, bigint, jsonb, boolean) IS
  'the newest n rows PREFIX#... of newest-first (reverse_time_key) or oldest-first (time_key) keys';

-- Latest values (the CURRENT_METRIC pattern): the newest cell of every
-- column of the rows with a prefix, or of [start_key, end_key), or of the
-- whole table; a filter first narrows the cells (e.g. to some columns).
CREATE FUNCTION wide.read_current(tbl anyelement, prefix text DEFAULT NULL,
                                  start_key text DEFAULT NULL, end_key text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL)
RETURNS SETOF anyelement LANGUAGE sql STABLE
AS $$ SELECT * FROM wide.read_rows(tbl, start_key => start_key, end_key => end_key, prefix => prefix,
                                   filter => CASE WHEN filter IS NULL THEN wide.latest(1)
                                                  ELSE jsonb_build_object('chain', jsonb_build_array(filter, wide.latest(1))) END) $$;
COMMENT ON FUNCTION wide.read_current(anyelement, text, text, text, jsonb) IS
  'the newest cell of every column of a key range (the CURRENT_METRIC pattern)';

-- Tall to wide for SQL and BI tools: a view with one column per qualifier of
-- a family, typed as the table's value column, one row per (row_key, ts)
-- (per => 'ts') or per row_key with each column's newest value and the
-- newest ts (per => 'row').  INSERT into either view writes one cell per
-- non-NULL column at the row's ts (an INSTEAD OF trigger: the way back,
-- for loading; into a per-row view it sets current values).
-- (its work; wide.create_pivot_view, in C, passes the hint of an unknown
-- family's error: the table's families)
CREATE FUNCTION wide_internal._create_pivot_view(view_name text, tbl regclass, family text,
                                       qualifiers text[], per text, hint text)
RETURNS void LANGUAGE plpgsql
AS $$
DECLARE
  c name[] := ARRAY(SELECT attname FROM pg_attribute WHERE attrelid = tbl
                     AND attnum BETWEEN 1 AND 5 ORDER BY attnum);
  valtype text := (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
                    WHERE attrelid = tbl AND attnum = 5);
  cols text;
  ins text;
  fn text;
BEGIN
  PERFORM wide.family_catalog_of(tbl);		-- a wide table, or a clear error
  IF per NOT IN ('ts', 'row') THEN
    RAISE EXCEPTION 'per must be ''ts'' or ''row'', not %', quote_literal(per)
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF qualifiers IS NULL OR cardinality(qualifiers) = 0 OR array_position(qualifiers, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'a pivot view needs at least one qualifier, and no NULL'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT (wide.family_catalog_of(tbl)->'families') ? family THEN
    RAISE EXCEPTION 'column family "%" does not exist in wide table %', family, tbl
      USING ERRCODE = 'undefined_object', HINT = hint;
  END IF;
  SELECT string_agg(format('(array_agg(%I%s) FILTER (WHERE %I = %L))[1] AS %I',
                           c[5], CASE per WHEN 'row' THEN format(' ORDER BY %I DESC', c[4]) ELSE '' END,
                           c[3], q, q), ', ' ORDER BY i)
    INTO cols FROM unnest(qualifiers) WITH ORDINALITY AS x(q, i);
  IF per = 'ts' THEN
    EXECUTE format('CREATE VIEW %s AS SELECT %I, %I, %s FROM %s WHERE %I = %L GROUP BY %I, %I',
                   view_name, c[1], c[4], cols, tbl, c[2], family, c[1], c[4]);
  ELSE
    EXECUTE format('CREATE VIEW %s AS SELECT %I, max(%I) AS %I, %s FROM %s WHERE %I = %L GROUP BY %I',
                   view_name, c[1], c[4], c[4], cols, tbl, c[2], family, c[1]);
  END IF;
  -- both shapes load the same way: a cell per non-NULL column at the row's ts
  fn := view_name || '_pivot_insert';
  SELECT string_agg(format('(%L, NEW.%I::%s)', q, q, valtype), ', ')
    INTO ins FROM unnest(qualifiers) q;
  EXECUTE format($f$CREATE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      INSERT INTO %s SELECT NEW.%I, %L, x.q, NEW.%I, x.v FROM (VALUES %s) x(q, v) WHERE x.v IS NOT NULL;
      RETURN NEW;
    END $b$ $f$, fn, tbl, c[1], family, c[4], ins);
  EXECUTE format('CREATE TRIGGER pivot_insert INSTEAD OF INSERT ON %s FOR EACH ROW EXECUTE FUNCTION %s()',
                 view_name, fn);
END
$$;
CREATE FUNCTION wide.create_pivot_view(view_name text, tbl regclass, family text,
                                       qualifiers text[], per text DEFAULT 'ts')
RETURNS void
AS 'MODULE_PATHNAME', 'wide_create_pivot_view'
LANGUAGE C;
COMMENT ON FUNCTION wide.create_pivot_view(text, regclass, text, text[], text) IS
  'a view with one typed column per qualifier of a family: per (row_key, ts), or per row_key with the newest values';

-- Split a parent into tablets at split_keys, tablet i on nodes[i]: 'local'
-- (a wide partition here) or a postgres_fdw server (a wide table there,
-- with the parent's families, and a foreign-table partition here).  All or
-- nothing: the remote tables are created in transactions prepared and
-- committed with the local one.
-- The checks of wide.create_tablets(parent, split_keys, nodes) after the
-- ownership of parent (api/entry.c); returns the family catalog of parent,
-- which its split keys must not split the rollups of (_check_rollup_boundary).
CREATE FUNCTION wide_internal._create_tablets_check(parent regclass, split_keys text[], nodes text[])
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  n int := coalesce(array_length(nodes, 1), 0);
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = parent) <> 'p'
     OR pg_get_partkeydef(parent) IS DISTINCT FROM
        format('RANGE (%I)', (SELECT attname FROM pg_attribute WHERE attrelid = parent AND attnum = 1)) THEN
    RAISE EXCEPTION 'table % is not partitioned by RANGE (row_key)', parent
      USING ERRCODE = 'wrong_object_type',
            HINT = 'Create it with PARTITION BY RANGE (row_key) and the columns of a wide table.';
  END IF;
  IF EXISTS (SELECT FROM pg_inherits WHERE inhparent = parent) THEN
    RAISE EXCEPTION 'table % already has partitions', parent
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  IF n <> coalesce(array_length(split_keys, 1), 0) + 1 THEN
    RAISE EXCEPTION 'there must be one node more than split keys'
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('%s split keys make %s tablets, and %s nodes are given.',
                            coalesce(array_length(split_keys, 1), 0),
                            coalesce(array_length(split_keys, 1), 0) + 1, n);
  END IF;
  FOR i IN 2 .. n - 1 LOOP
    IF NOT (split_keys[i - 1] COLLATE "C" < split_keys[i] COLLATE "C") THEN
      RAISE EXCEPTION 'split keys must be distinct and in ascending order'
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
  END LOOP;
  IF array_position(split_keys, NULL) IS NOT NULL OR array_position(nodes, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'split keys and nodes cannot be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF EXISTS (SELECT FROM unnest(nodes) x WHERE x <> 'local')
     AND NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'postgres_fdw') THEN
    RAISE EXCEPTION 'remote tablets need the extension postgres_fdw'
      USING ERRCODE = 'feature_not_supported',
            HINT = 'Run CREATE EXTENSION postgres_fdw and CREATE SERVER for each node.';
  END IF;
  FOR i IN 1 .. n LOOP
    IF nodes[i] <> 'local' AND NOT EXISTS (
         SELECT FROM pg_foreign_server s JOIN pg_foreign_data_wrapper w ON w.oid = s.srvfdw
          WHERE s.srvname = nodes[i] AND w.fdwname = 'postgres_fdw') THEN
      RAISE EXCEPTION 'node "%" is not a server of postgres_fdw', nodes[i]
        USING ERRCODE = 'undefined_object',
              HINT = 'A node is ''local'' or the name of a foreign server created with CREATE SERVER ... FOREIGN DATA WRAPPER postgres_fdw.';
    END IF;
  END LOOP;

  RETURN wide.family_catalog_of(parent);
END
$$;

-- ... and its tablets, local and (their foreign tables) remote; the remote
-- tables are made on their nodes next (WideRemoteCreateTablet).
CREATE FUNCTION wide_internal._create_tablets_make(parent regclass, split_keys text[], nodes text[])
RETURNS regclass[]
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  nsp text;
  rel text;
  n int := coalesce(array_length(nodes, 1), 0);
  lo text;
  hi text;
  part text;
  i int;
  made regclass[] := '{}';
BEGIN
  SELECT c.relname, n2.nspname INTO rel, nsp
    FROM pg_class c JOIN pg_namespace n2 ON n2.oid = c.relnamespace WHERE c.oid = parent;

  FOR i IN 1 .. n LOOP
    lo := CASE WHEN i = 1 THEN 'MINVALUE' ELSE quote_literal(split_keys[i - 1]) END;
    hi := CASE WHEN i = n THEN 'MAXVALUE' ELSE quote_literal(split_keys[i]) END;
    part := format('%I.%I', nsp, rel || '_' || i);
    IF nodes[i] = 'local' THEN
      EXECUTE format('CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s) USING wide',
                     part, parent, lo, hi);
    ELSE
      EXECUTE format('CREATE FOREIGN TABLE %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s) SERVER %I OPTIONS (schema_name %L, table_name %L, async_capable ''true'')',
                     part, parent, lo, hi, nodes[i], nsp, rel || '_' || i);
    END IF;
    made := made || part::regclass;
  END LOOP;
  RETURN made;
END
$$;

CREATE FUNCTION wide.create_tablets(parent regclass, split_keys text[], nodes text[])
RETURNS SETOF regclass
AS 'MODULE_PATHNAME', 'wide_create_tablets'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION wide.create_tablets(regclass, text[], text[]) IS
  'split a parent PARTITION BY RANGE (row_key) into tablets at split keys, each local or on a postgres_fdw node';

-- Tablets for a parent from the samples of an existing wide table (of text
-- row keys): the split keys are the samples at even shares of its bytes
-- (wide.sample_row_keys), or, where it has too few samples, its distinct
-- row keys at even shares; one tablet per node.  Then, e.g.,
-- INSERT INTO parent SELECT * FROM the_table moves its cells in.
CREATE FUNCTION wide.create_tablets(parent regclass, nodes text[], sample_from regclass)
RETURNS SETOF regclass
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  n int := coalesce(cardinality(nodes), 0);
  total numeric;
  keys text[] := '{}';
  k text;
BEGIN
  IF (SELECT atttypid FROM pg_attribute WHERE attrelid = sample_from AND attnum = 1) <> 'text'::regtype THEN
    RAISE EXCEPTION 'table % does not have text row keys', sample_from
      USING ERRCODE = 'datatype_mismatch',
            HINT = 'Give the split keys: wide.create_tablets(parent, split_keys, nodes).';
  END IF;
  SELECT max(offset_bytes) INTO total FROM wide.sample_row_keys(sample_from);
  FOR i IN 1 .. n - 1 LOOP
    SELECT convert_from(s.row_key, getdatabaseencoding()) INTO k FROM wide.sample_row_keys(sample_from) s
     WHERE s.row_key <> '\x' AND s.offset_bytes >= total * i / n
     ORDER BY s.offset_bytes LIMIT 1;
    IF k IS NOT NULL AND (cardinality(keys) = 0 OR k COLLATE "C" > keys[cardinality(keys)] COLLATE "C") THEN
      keys := keys || k;
    END IF;
  END LOOP;
  IF cardinality(keys) <> greatest(n - 1, 0) THEN
    -- too few samples (a small table): even shares of its distinct row keys
    EXECUTE format('SELECT coalesce(array_agg(m ORDER BY m), ''{}'') FROM (SELECT t, min(k) AS m FROM
                      (SELECT k, ntile(%s) OVER (ORDER BY k) AS t FROM
                         (SELECT DISTINCT %I::text COLLATE "C" AS k FROM %s) d) x
                     WHERE t > 1 GROUP BY t) y',
                   n, (SELECT attname FROM pg_attribute WHERE attrelid = sample_from AND attnum = 1),
                   sample_from) INTO keys;
  END IF;
  IF cardinality(keys) <> greatest(n - 1, 0) THEN
    RAISE EXCEPTION 'table % has too few row keys for % tablets', sample_from, n
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('It gives %s distinct split keys.', cardinality(keys)),
            HINT = 'Give fewer nodes, or the split keys: wide.create_tablets(parent, split_keys, nodes).';
  END IF;
  RETURN QUERY SELECT * FROM wide.create_tablets(parent, keys, nodes);
END
$$;
COMMENT ON FUNCTION wide.create_tablets(regclass, text[], regclass) IS
  'split a parent into one tablet per node at even shares of the bytes of an existing wide table (its sample_row_keys)';


-- The decision records of distributed commits (remote.c): at the local
-- PRE_COMMIT of a transaction that wrote on nodes, one row per node's
-- prepared transaction is written in that same local transaction, before
-- the node prepares; so a record exists exactly when the local transaction
-- committed.  wide.resolve_tablets decides a node's leftovers by them, and
-- forgets the records of transactions no node holds prepared any more.
-- wide.remote_cluster names this coordinator in the GIDs it prepares: a
-- random id, made again when the system identifier or the WAL timeline
-- changes (a restored copy, a promoted standby), so that two coordinators
-- grown from one data directory never take each other's transactions for
-- their own; the ids this coordinator had before are kept (current false).
-- Made at the first distributed commit (remote.c calls this as the owner
-- of the extension), not by CREATE EXTENSION, for the reason given at
-- wide_internal._tablet_ops_tables.  Returns the GID prefix of the current
-- transaction: 'wide_<cluster id>_<full xid>_', the node's server oid
-- follows.  (wide_internal._remote_timeline: the WAL timeline this server writes.)
CREATE FUNCTION wide_internal._remote_timeline()
RETURNS int
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT ('x' || substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8))::bit(32)::int;
$$;
REVOKE EXECUTE ON FUNCTION wide_internal._remote_timeline() FROM PUBLIC;

CREATE FUNCTION wide_internal._remote_commit_record(servers oid[])
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
  sysid bigint := (SELECT system_identifier FROM pg_control_system());
  tli int := wide_internal._remote_timeline();
  cid text;
  prefix text;
BEGIN
  IF to_regclass('wide.remote_commits') IS NULL THEN
    PERFORM pg_advisory_xact_lock(2003395688);
    CREATE TABLE IF NOT EXISTS wide.remote_cluster (
      id text PRIMARY KEY,
      system_identifier bigint NOT NULL,
      timeline int NOT NULL,
      current boolean NOT NULL,
      made timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE wide.remote_cluster IS
      'the ids this coordinator names itself by in the transactions it prepares on nodes (current: the one in use)';
    CREATE TABLE IF NOT EXISTS wide.remote_commits (
      gid text NOT NULL,
      server oid NOT NULL,
      xid xid8 NOT NULL,
      committed timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE wide.remote_commits IS
      'the transactions prepared on nodes whose local transaction committed, until wide.resolve_tablets sees them finished';
    -- (a publication FOR ALL TABLES or of schema wide includes it: without
    -- a replica identity, PostgreSQL would refuse resolve_tablets' DELETE)
    ALTER TABLE wide.remote_commits REPLICA IDENTITY FULL;
    ALTER EXTENSION wide ADD TABLE wide.remote_cluster;
    ALTER EXTENSION wide ADD TABLE wide.remote_commits;
  END IF;
  SELECT c.id INTO cid FROM wide.remote_cluster c
   WHERE c.current AND c.system_identifier = sysid AND c.timeline = tli;
  IF cid IS NULL THEN
    PERFORM pg_advisory_xact_lock(2003395688);
    SELECT c.id INTO cid FROM wide.remote_cluster c
     WHERE c.current AND c.system_identifier = sysid AND c.timeline = tli;
    IF cid IS NULL THEN
      cid := replace(gen_random_uuid()::text, '-', '');
      UPDATE wide.remote_cluster SET current = false WHERE current;
      INSERT INTO wide.remote_cluster (id, system_identifier, timeline, current) VALUES (cid, sysid, tli, true);
    END IF;
  END IF;
  prefix := format('wide_%s_%s_', cid, pg_current_xact_id());
  INSERT INTO wide.remote_commits (gid, server, xid)
    SELECT prefix || s, s, pg_current_xact_id() FROM unnest(servers) s;
  RETURN prefix;
END
$$;
REVOKE EXECUTE ON FUNCTION wide_internal._remote_commit_record(oid[]) FROM PUBLIC;

-- Finish the transactions that this coordinator's commits left prepared
-- on a node (it failed between PREPARE and COMMIT PREPARED), by the
-- decision records: one with a record committed (its local transaction
-- committed); one of this coordinator's current id without a record is
-- rolled back once its local transaction is over (it did not commit: a
-- committed one has a record), also when the commit log no longer knows
-- it.  One of an id this coordinator had before (before a restore or a
-- promotion) without a record is left alone and reported 'undecided':
-- another coordinator grown from the same data directory may have made
-- it.  Transactions of other coordinators are not touched.  (GIDs of
-- version 0.2 before the records, 'wide_<system id>_<xid>_<server>', are
-- decided by the commit log while it knows them.)  Then the records of
-- transactions the node no longer holds prepared are forgotten.
CREATE FUNCTION wide.resolve_tablets(server text)
RETURNS TABLE (gid text, outcome text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  srv oid := (SELECT oid FROM pg_foreign_server s WHERE s.srvname = resolve_tablets.server);
  legacy text := format('wide_%s_', (SELECT system_identifier FROM pg_control_system()));
  cid text;
  ours text[] := '{}';
  known text[] := '{}';
  prepared text[];
  status text;
  xid text;
BEGIN
  IF srv IS NULL THEN
    RAISE EXCEPTION 'server "%" does not exist', server USING ERRCODE = 'undefined_object';
  END IF;
  IF to_regclass('wide.remote_commits') IS NOT NULL THEN
    -- the records first: one visible now was prepared before the list below
    SELECT coalesce(array_agg(c.gid), '{}') INTO known FROM wide.remote_commits c WHERE c.server = srv;
    -- the current id only if made here: a clone's is a former one
    SELECT c.id INTO cid FROM wide.remote_cluster c
     WHERE c.current AND c.system_identifier = (SELECT system_identifier FROM pg_control_system())
       AND c.timeline = wide_internal._remote_timeline();
    SELECT coalesce(array_agg(c.id), '{}') INTO ours FROM wide.remote_cluster c;
  END IF;
  SELECT coalesce(array_agg(x), '{}') INTO prepared FROM wide_internal._remote_query(server,
    'SELECT gid FROM pg_catalog.pg_prepared_xacts WHERE gid LIKE ''wide\_%'' AND database = current_database()') x;
  FOREACH gid IN ARRAY prepared LOOP
    outcome := NULL;
    xid := split_part(gid, '_', 3);
    IF xid !~ '^[0-9]+$' THEN
      CONTINUE;                 -- not prepared by wide
    ELSIF gid = ANY (known) OR (to_regclass('wide.remote_commits') IS NOT NULL AND
                                EXISTS (SELECT FROM wide.remote_commits c WHERE c.gid = resolve_tablets.gid)) THEN
      outcome := 'committed';
    ELSIF split_part(gid, '_', 2) = cid THEN
      status := pg_xact_status(xid::xid8);
      IF status = 'in progress' THEN
        outcome := 'in progress';
      ELSIF status = 'committed' THEN
        outcome := 'committed';   -- its record is not visible yet
      ELSE
        outcome := 'rolled back'; -- over, and no record: it did not commit
      END IF;
    ELSIF split_part(gid, '_', 2) = ANY (ours) THEN
      outcome := 'undecided';
    ELSIF gid LIKE legacy || '%' THEN
      BEGIN
        status := pg_xact_status(xid::xid8);
      EXCEPTION WHEN OTHERS THEN
        status := NULL;
      END;
      outcome := CASE status WHEN 'committed' THEN 'committed' WHEN 'aborted' THEN 'rolled back'
                 WHEN 'in progress' THEN 'in progress' ELSE 'undecided' END;
    ELSE
      CONTINUE;                 -- another coordinator's
    END IF;
    IF outcome IN ('committed', 'rolled back') THEN
      BEGIN
        PERFORM wide_internal._remote_query(server, format('%s PREPARED %L',
                  CASE outcome WHEN 'committed' THEN 'COMMIT' ELSE 'ROLLBACK' END, gid));
      EXCEPTION WHEN OTHERS THEN
        -- finished meanwhile by its own session, or busy there
        outcome := 'busy';
      END;
    END IF;
    IF outcome = 'undecided' THEN
      RAISE WARNING 'prepared transaction % on node "%" has no decision record here', gid, server
        USING DETAIL = 'It was prepared under an earlier id of this coordinator (before a restore or a promotion); another coordinator grown from the same data directory may have made it.',
              HINT = 'Commit or roll it back on the node by hand once you know its outcome.';
    END IF;
    RETURN NEXT;
  END LOOP;
  IF cardinality(known) > 0 THEN
    DELETE FROM wide.remote_commits c WHERE c.server = srv AND c.gid = ANY (known)
       AND NOT c.gid = ANY (prepared);
  END IF;
END
$$;
COMMENT ON FUNCTION wide.resolve_tablets(text) IS
  'commit or roll back the transactions a failed node kept prepared for this coordinator, as its decision records say';

-- Fail if a node holds a transaction prepared and not finished that locks
-- table tbl there (a write of a data API call whose COMMIT PREPARED
-- failed): a split or move must neither copy the table without it nor
-- drop it before it is decided.  A transaction of this coordinator that
-- is finishing is waited for (2 s), then wide.resolve_tablets decides
-- what it can.
CREATE FUNCTION wide_internal._tablet_check_in_doubt(node text, tbl text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  -- a prepared transaction's locks have no pid; its virtual transaction
  -- is the one that holds the lock on its xid
  q text := format($q$SELECT string_agg(DISTINCT p.gid, ', ') FROM pg_catalog.pg_prepared_xacts p
                      JOIN pg_catalog.pg_locks x ON x.locktype = 'transactionid' AND x.transactionid = p.transaction
                      JOIN pg_catalog.pg_locks l ON l.virtualtransaction = x.virtualtransaction AND l.pid IS NULL
                     WHERE x.pid IS NULL AND l.locktype = 'relation' AND l.relation = to_regclass(%L)
                       AND p.database = current_database()$q$, tbl);
  gids text;
  i int;
BEGIN
  FOR i IN 1 .. 21 LOOP
    SELECT x INTO gids FROM wide_internal._remote_query(node, q) x;
    EXIT WHEN gids IS NULL;
    IF i = 20 THEN
      PERFORM wide.resolve_tablets(node);
    ELSIF i < 20 THEN
      PERFORM pg_sleep(0.1);
    END IF;
  END LOOP;
  IF gids IS NOT NULL THEN
    RAISE EXCEPTION 'table % on node "%" is locked by prepared transactions not yet decided: %', tbl, node, gids
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'A split or move would miss or drop their writes.',
            HINT = format('Run SELECT * FROM wide.resolve_tablets(%L), or finish them on the node.', node);
  END IF;
END
$$;
REVOKE EXECUTE ON FUNCTION wide_internal._tablet_check_in_doubt(text, text) FROM PUBLIC;

-- ----------------------------------------------------------------
-- A table named by a string in a read
-- ----------------------------------------------------------------

-- The reads return rows of the table's own type, so they name the table
-- by a value of that type (NULL::t).  wide.read_rows('t') would otherwise
-- fail inside PostgreSQL ("could not determine polymorphic type because
-- input has type unknown"); these overloads take the string and say what
-- to write instead (api/entry.c).
CREATE FUNCTION wide.read_rows(tbl text,
                               keys text[] DEFAULT NULL,
                               start_key text DEFAULT NULL,
                               end_key text DEFAULT NULL,
                               start_inclusive boolean DEFAULT true,
                               end_inclusive boolean DEFAULT false,
                               prefix text DEFAULT NULL,
                               ranges jsonb DEFAULT NULL,
                               "limit" bigint DEFAULT NULL,
                               reversed boolean DEFAULT false,
                               filter jsonb DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_read_by_name'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION wide.read_rows(text, text[], text, text, boolean, boolean, text, jsonb, bigint, boolean, jsonb) IS
  'a read naming its table by a string: refused, saying to write NULL::tablename';

CREATE FUNCTION wide.read_rows_labeled(tbl text,
                                       keys text[] DEFAULT NULL,
                                       start_key text DEFAULT NULL,
                                       end_key text DEFAULT NULL,
                                       start_inclusive boolean DEFAULT true,
                                       end_inclusive boolean DEFAULT false,
                                       prefix text DEFAULT NULL,
                                       ranges jsonb DEFAULT NULL,
                                       "limit" bigint DEFAULT NULL,
                                       reversed boolean DEFAULT false,
                                       filter jsonb DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_read_by_name'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION wide.read_rows_labeled(text, text[], text, text, boolean, boolean, text, jsonb, bigint, boolean, jsonb) IS
  'a read naming its table by a string: refused, saying to write NULL::tablename';

CREATE FUNCTION wide.read_row(tbl text, row_key text, filter jsonb DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_read_by_name'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION wide.read_row(text, text, jsonb) IS
  'a read naming its table by a string: refused, saying to write NULL::tablename';

CREATE FUNCTION wide.read_modify_write_row(tbl text, row_key text, family text,
                                           qualifier text, append bytea DEFAULT NULL,
                                           increment bigint DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_read_by_name'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION wide.read_modify_write_row(text, text, text, text, bytea, bigint) IS
  'a read naming its table by a string: refused, saying to write NULL::tablename';

CREATE FUNCTION wide.read_salted(tbl text, buckets int,
                                 start_key text DEFAULT NULL, end_key text DEFAULT NULL,
                                 prefix text DEFAULT NULL, filter jsonb DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_read_by_name'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION wide.read_salted(text, int, text, text, text, jsonb) IS
  'a read naming its table by a string: refused, saying to write NULL::tablename';

CREATE FUNCTION wide.read_latest(tbl text, prefix text, n bigint,
                                 filter jsonb DEFAULT NULL, newest_first boolean DEFAULT true)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_read_by_name'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION wide.read_latest(text, text, bigint, jsonb, boolean) IS
  'a read naming its table by a string: refused, saying to write NULL::tablename';

CREATE FUNCTION wide.read_current(tbl text, prefix text DEFAULT NULL,
                                  start_key text DEFAULT NULL, end_key text DEFAULT NULL,
                                  filter jsonb DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'wide_read_by_name'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION wide.read_current(text, text, text, text, jsonb) IS
  'a read naming its table by a string: refused, saying to write NULL::tablename';

-- ----------------------------------------------------------------
-- Bytes everywhere: the reads with bytea keys, bounds and prefixes
-- ----------------------------------------------------------------

-- The reads in C take keys, bounds and prefixes of type "any" (text,
-- bytea, varchar, name, or an unknown literal), as mutate_row does, so a
-- key that is not valid text in the database encoding (a Bigtable row key
-- in a table with bytea row keys) can be named.  The SQL-language reads
-- with a required prefix have a bytea overload; read_current, whose key
-- arguments are all optional, cannot (a call with none would be
-- ambiguous): read_rows with wide.latest(1) is the same read.

CREATE FUNCTION wide.read_latest(tbl anyelement, prefix bytea, n bigint,
                                 filter jsonb DEFAULT NULL, newest_first boolean DEFAULT true)
RETURNS SETOF anyelement LANGUAGE sql STABLE
AS $$ SELECT * FROM wide.read_rows(tbl, prefix => prefix || '#', "limit" => n,
                                   reversed => NOT newest_first, filter => filter) $$;

COMMENT ON FUNCTION wide.read_latest(anyelement, bytea, bigint, jsonb, boolean) IS
  'read_latest, with bytea keys';

-- A qualifier in a bytea column may be any bytes.  read_modify_write_row
-- takes it as bytea too (the same C function reads either type), and
-- column_range builds its bounds as {"base64": ...}, which the filter
-- reads as bytes.  Their text forms are unchanged: a literal resolves to
-- text, as before.
CREATE FUNCTION wide.read_modify_write_row(tbl anyelement, row_key "any", family text,
                                           qualifier bytea, append bytea DEFAULT NULL,
                                           increment bigint DEFAULT NULL)
RETURNS anyelement
AS 'MODULE_PATHNAME', 'wide_read_modify_write_row'
LANGUAGE C;
COMMENT ON FUNCTION wide.read_modify_write_row(anyelement, "any", text, bytea, bytea, bigint) IS
  'read_modify_write_row, with a bytea qualifier';

CREATE FUNCTION wide.column_range(family text, start_qualifier bytea,
                                  end_qualifier bytea DEFAULT NULL,
                                  start_inclusive boolean DEFAULT true,
                                  end_inclusive boolean DEFAULT false)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT jsonb_build_object('column_range_filter', jsonb_strip_nulls(jsonb_build_object(
       'family_name', family,
       CASE WHEN start_inclusive THEN 'start_qualifier_closed' ELSE 'start_qualifier_open' END,
       CASE WHEN start_qualifier IS NOT NULL THEN jsonb_build_object('base64',
            pg_catalog.translate(pg_catalog.encode(start_qualifier, 'base64'), E'\n', '')) END,
       CASE WHEN end_inclusive THEN 'end_qualifier_closed' ELSE 'end_qualifier_open' END,
       CASE WHEN end_qualifier IS NOT NULL THEN jsonb_build_object('base64',
            pg_catalog.translate(pg_catalog.encode(end_qualifier, 'base64'), E'\n', '')) END))) $$;
COMMENT ON FUNCTION wide.column_range(text, bytea, bytea, boolean, boolean) IS
  'row filter: the columns of a family between two qualifiers, as bytes';


-- ----------------------------------------------------------------
-- Split and move of tablets (docs/scale.md)
-- ----------------------------------------------------------------

-- The journal of splits and moves, wide.tablet_ops: one row per
-- operation, its step committed with the work of the step.  'created': the
-- new tables exist (empty); 'copied': they hold a copy of the old tablet's
-- cells; 'swapped': they replaced it, whose table on its node is still to
-- be dropped; 'done'; 'rolled back': they were dropped.  An operation left
-- at 'created', 'copied' or 'swapped' (a failure, a killed server) is
-- rolled back or finished by wide.resume_tablet_ops().
-- And wide.tablet_op_changes: the row keys written to a tablet marked by a
-- split or move (a CHECK constraint wide_tablet_tracked), recorded with
-- the writer's transaction by every write path (am/tracking.c): the rows
-- its catch-up compares.
-- Both are made by the first split or move (here, and on a node for its
-- tablets), not by CREATE EXTENSION: a FOR ALL TABLES publication would
-- otherwise publish them, and a subscriber without wide could not
-- subscribe (where splits run, a subscriber needs wide, as with any
-- extension that has tables).
CREATE FUNCTION wide_internal._tablet_ops_tables()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
BEGIN
  IF to_regclass('wide.tablet_op_pause') IS NOT NULL THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(2003395687);
  IF to_regclass('wide.tablet_op_changes') IS NOT NULL THEN
    -- made by an earlier version: only the pause rows are missing
    CREATE TABLE IF NOT EXISTS wide.tablet_op_pause (step int PRIMARY KEY);
    INSERT INTO wide.tablet_op_pause VALUES (1), (2) ON CONFLICT DO NOTHING;
    IF NOT EXISTS (SELECT FROM pg_depend WHERE classid = 'pg_class'::regclass
                      AND objid = 'wide.tablet_op_pause'::regclass AND deptype = 'e') THEN
      ALTER EXTENSION wide ADD TABLE wide.tablet_op_pause;
    END IF;
    RETURN;
  END IF;
  CREATE TABLE IF NOT EXISTS wide.tablet_ops (
    id bigserial PRIMARY KEY,
    op text NOT NULL CHECK (op IN ('split', 'move')),
    parent regclass NOT NULL,
    tablet text NOT NULL,
    node text NOT NULL,
    new_tablets text[] NOT NULL,
    new_nodes text[] NOT NULL,
    bounds text[] NOT NULL,
    step text NOT NULL CHECK (step IN ('created', 'copied', 'swapped', 'done', 'rolled back')),
    started timestamptz NOT NULL DEFAULT now(),
    finished timestamptz,
    copied_cells bigint,
    delta_cells bigint,
    lock_ms float8,
    old_remote text,
    since text,
    pid int NOT NULL DEFAULT pg_backend_pid()
  );
  COMMENT ON TABLE wide.tablet_ops IS
    'journal of wide.split_tablet and wide.move_tablet: the step each reached';
  -- (family changes read it: they wait for no unfinished operation)
  GRANT SELECT ON wide.tablet_ops TO PUBLIC;
  CREATE TABLE IF NOT EXISTS wide.tablet_op_changes (
    tablet oid NOT NULL,
    row_key bytea NOT NULL,
    xid xid8 NOT NULL
  );
  COMMENT ON TABLE wide.tablet_op_changes IS
    'row keys written to tablets while a split or move copies them';
  -- (a publication FOR ALL TABLES or of schema wide includes it: without a
  -- replica identity, PostgreSQL would refuse every split's and move's DELETE)
  ALTER TABLE wide.tablet_op_changes REPLICA IDENTITY FULL;
  -- members of the extension, so that DROP EXTENSION drops them (pg_dump
  -- leaves them out: the next split or move makes them again)
  ALTER EXTENSION wide ADD TABLE wide.tablet_ops;
  ALTER EXTENSION wide ADD SEQUENCE wide.tablet_ops_id_seq;
  ALTER EXTENSION wide ADD TABLE wide.tablet_op_changes;
  -- a session holding a row here FOR UPDATE pauses operations before that
  -- step (_tablet_op_pause); no grant to PUBLIC: only the roles that may
  -- update it (its owner, superusers) can
  CREATE TABLE IF NOT EXISTS wide.tablet_op_pause (step int PRIMARY KEY);
  COMMENT ON TABLE wide.tablet_op_pause IS
    'a row locked FOR UPDATE pauses splits and moves before that step (1: the copy, 2: the catch-up)';
  INSERT INTO wide.tablet_op_pause VALUES (1), (2) ON CONFLICT DO NOTHING;
  ALTER EXTENSION wide ADD TABLE wide.tablet_op_pause;
END
$$;

-- The distinct row keys written to a tablet since it was marked (by
-- transactions that snapshot "since" does not see, if given), as text
-- literals of its row-key type.
CREATE FUNCTION wide_internal._tablet_changes(tablet regclass, since pg_snapshot DEFAULT NULL)
RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(DISTINCT CASE
           WHEN (SELECT atttypid FROM pg_attribute WHERE attrelid = _tablet_changes.tablet AND attnum = 1) = 'bytea'::regtype
           THEN c.row_key::text
           ELSE convert_from(c.row_key, current_setting('server_encoding')) END), '{}')
    FROM wide.tablet_op_changes c
   WHERE c.tablet = _tablet_changes.tablet
     AND (since IS NULL OR NOT pg_visible_in_snapshot(c.xid, since)));
END
$$;

-- Run an operation's DDL on a node (the mark, the unmark, the drop of the
-- old table) under a lock_timeout there, retrying a bounded number of
-- times.  Without it a move could wait for ever: its ALTER TABLE on the
-- node waits for a reader's postgres_fdw transaction, and the same
-- reader's wide.read_rows (another connection to the node) waits behind
-- the ALTER TABLE -- a cycle through one coordinator backend that no
-- server's deadlock detector sees.  The timeout lets the reader go on;
-- each attempt is rolled back to a savepoint on the node.  After the last
-- attempt the step fails cleanly (nothing of it is left; a journaled
-- operation is finished or rolled back by wide.resume_tablet_ops()).
CREATE FUNCTION wide_internal._remote_ddl(server text, tablet regclass, sql text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  attempts constant int := 10;
  msg text;
BEGIN
  FOR attempt IN 1 .. attempts LOOP
    BEGIN
      PERFORM wide_internal._remote_exec(server, tablet,
        'SET LOCAL lock_timeout = ''1s''; ' || sql || '; RESET lock_timeout');
      RETURN;
    EXCEPTION WHEN lock_not_available THEN
      GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
    END;
    PERFORM pg_sleep(0.1 * attempt);
  END LOOP;
  RAISE EXCEPTION '%', msg
    USING ERRCODE = 'lock_not_available',
          DETAIL = format('A tablet operation''s change on node "%s" waited for a lock %s times for 1 s; sessions there (a reader through postgres_fdw, whose statement may also wait for this change) held it.',
                          server, attempts),
          HINT = 'Retry the operation, or run CALL wide.resume_tablet_ops() if it had begun, when those sessions have ended.';
END
$$;

-- The SQL that marks a table for tracking (on), or unmarks it and forgets
-- its row keys (off).  The mark is the CHECK constraint wide_tablet_tracked
-- (am/tracking.c records the row keys written) and a trigger
-- wide_tablet_op_guard that refuses TRUNCATE, which bypasses the write
-- hooks: a TRUNCATE between the copy and the swap would be undone by the
-- swap.  The trigger's argument is the operation's id: the swap checks it
-- to find that the tablet is still the table that was copied.
CREATE FUNCTION wide_internal._tablet_track_sql(tbl text, track boolean, op_id bigint DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT format('SELECT wide_internal._tablet_ops_tables(); DELETE FROM wide.tablet_op_changes WHERE tablet = %L::regclass; DROP TRIGGER IF EXISTS wide_tablet_op_guard ON %s; ALTER TABLE %s DROP CONSTRAINT IF EXISTS wide_tablet_tracked',
                tbl, tbl, tbl)
         || CASE WHEN track THEN format(', ADD CONSTRAINT wide_tablet_tracked CHECK (true) NOT VALID; '
                                        'CREATE TRIGGER wide_tablet_op_guard BEFORE TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION wide_internal._tablet_op_guard(%L); '
                                        'ALTER TABLE %s ENABLE ALWAYS TRIGGER wide_tablet_op_guard',
                                        tbl, op_id, tbl) ELSE '' END;
$$;

-- The trigger of a tablet that a split or move has marked: TRUNCATE is
-- refused until the operation is done or rolled back.
CREATE FUNCTION wide_internal._tablet_op_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RAISE EXCEPTION 'cannot truncate %.% while a split or move of it is unfinished', TG_TABLE_SCHEMA, TG_TABLE_NAME
    USING ERRCODE = 'object_in_use',
          DETAIL = format('Tablet operation %s has copied or is copying its cells; its swap would bring truncated cells back.', TG_ARGV[0]),
          HINT = 'Wait for the operation to finish, or run CALL wide.resume_tablet_ops() if it failed; then truncate.';
END
$$;

-- Does the table carry the mark of operation op_id (the guard trigger with
-- its id)?  SQL to run where the table is.
CREATE FUNCTION wide_internal._tablet_marked_sql(tbl text, op_id bigint)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT format('SELECT EXISTS (SELECT FROM pg_catalog.pg_trigger WHERE tgrelid = %L::regclass AND tgname = ''wide_tablet_op_guard'' AND tgargs = pg_catalog.convert_to(%L, ''UTF8'') || pg_catalog.decode(''00'', ''hex''))::text',
                tbl, op_id);
$$;

-- A rollup with key_parts keeps the rollup of 'host7#1700000000000' under
-- 'host7': a tablet boundary must not fall between a rollup key and the
-- source keys it gathers, or the rollup cells and some of their sources
-- would sit in different tablets and a read through the parent would see
-- a part of the rollup.  Boundary b is inside such a group when some prefix
-- P of b holding key_parts - 1 delimiters is followed in b by a byte <= the
-- delimiter (then P < b <= P || delimiter || ..., a source key whose rollup
-- key is P).

-- The value of a range partition bound as pg_get_expr shows it ('k'::text,
-- or 'k'); NULL for MINVALUE and MAXVALUE.
CREATE FUNCTION wide_internal._bound_value(b text)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
AS $$
DECLARE
  v text;
BEGIN
  IF b IN ('MINVALUE', 'MAXVALUE') THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT (%s)::text', b) INTO v;
  RETURN v;
END
$$;

-- Fail if a tablet boundary b (a value, not SQL) splits the groups of a
-- rollup of doc (the first such family, by name, is named).
CREATE FUNCTION wide_internal._check_rollup_boundary(doc jsonb, b text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  fam text;
  f record;
  bb bytea := convert_to(b, getdatabaseencoding());
  d int;
  n int;
  seen int;
  c int;
BEGIN
  <<families>>
  FOR f IN SELECT key, value->'rollup' AS r FROM jsonb_each(doc->'families')
            WHERE value->'rollup' ? 'key_parts' ORDER BY key LOOP
    n := (f.r->>'key_parts')::int;
    d := get_byte(convert_to(coalesce(f.r->>'delimiter', '#'), getdatabaseencoding()), 0);
    seen := 0;
    FOR i IN 0 .. length(bb) - 1 LOOP
      c := get_byte(bb, i);
      IF seen = n - 1 AND c <= d THEN
        fam := f.key;
        EXIT families;
      END IF;
      IF c = d THEN
        seen := seen + 1;
      END IF;
      EXIT WHEN seen >= n;
    END LOOP;
  END LOOP;
  IF fam IS NOT NULL THEN
    RAISE EXCEPTION 'tablet boundary % falls inside a group of rollup family "%"', quote_literal(b), fam
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('Rollup "%s" keeps its cells under the first %s part(s) of the source key (delimiter %s); the cells of one rollup key and all of its source keys must be in one tablet.',
                            fam, doc->'families'->fam->'rollup'->>'key_parts',
                            quote_literal(doc->'families'->fam->'rollup'->>'delimiter')),
            HINT = 'Split at a rollup key, e.g. at ''host8'' rather than inside ''host7#...''.';
  END IF;
END
$$;


-- The SQL of the bounds of a range partition: {lower, upper}, each a
-- literal of the row-key type or MINVALUE / MAXVALUE.  The literals are
-- made from the values (quote_literal: E'...' where a backslash is in
-- them), not taken from pg_get_expr, whose text depends on the session's
-- standard_conforming_strings: they mean the same in any session, here or
-- on a node, now or when an operation is resumed.
CREATE FUNCTION wide_internal._tablet_bounds(tablet regclass)
RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
AS $f$
DECLARE
  b text := (SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE oid = tablet);
  keytype text := (SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = tablet AND attnum = 1);
  m text[];
  v text;
BEGIN
  m := regexp_match(b, $re$^FOR VALUES FROM \(('(?:[^']|'')*'(?:::[a-z]+)?|MINVALUE)\) TO \(('(?:[^']|'')*'(?:::[a-z]+)?|MAXVALUE)\)$$re$);
  IF m IS NULL THEN
    RAISE EXCEPTION 'table % is not a range partition of a tablet parent', tablet
      USING ERRCODE = 'wrong_object_type', DETAIL = format('Its bounds are %s.', b);
  END IF;
  FOR i IN 1 .. 2 LOOP
    IF m[i] NOT IN ('MINVALUE', 'MAXVALUE') THEN
      -- (read under the pinned standard_conforming_strings it was written with)
      EXECUTE format('SELECT (%s)::text', m[i]) INTO v;
      m[i] := format('%L::%s', v, keytype);
    END IF;
  END LOOP;
  RETURN m;
END
$f$;

-- The condition on the row key (the first column) of a range [lo, hi), the
-- bounds as SQL (MINVALUE / MAXVALUE: unbounded).
CREATE FUNCTION wide_internal._range_cond(col text, lo text, hi text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT format('%I IS NOT NULL', col)
         || CASE WHEN lo = 'MINVALUE' THEN '' ELSE format(' AND %I >= %s', col, lo) END
         || CASE WHEN hi = 'MAXVALUE' THEN '' ELSE format(' AND %I < %s', col, hi) END;
$$;
-- The rows that query q returns (each a VALUES list of SQL literals, as
-- wide_internal._row_literal makes them), written to dst -- a table on node --
-- through wide's own connection, about 1000 rows a statement, with
-- wide.rollup_on_write off: a move of a tablet with a rollup family to
-- another node writes its cells as they are, where an INSERT through
-- postgres_fdw would run the rollups on the node again.  Values travel as
-- text, dates in ISO and UTC.  Returns the rows written.
CREATE FUNCTION wide_internal._tablet_write_remote(node text, dst regclass, q text)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
AS $$
DECLARE
  line text;
  parts text[] := '{}';
  n bigint := 0;
BEGIN
  FOR line IN EXECUTE q LOOP
    parts := parts || line;
    IF cardinality(parts) >= 1000 THEN
      PERFORM wide_internal._remote_exec(node, dst,
        format('SET LOCAL wide.rollup_on_write = off; INSERT INTO %s VALUES %s', dst, array_to_string(parts, ', ')));
      n := n + cardinality(parts);
      parts := '{}';
    END IF;
  END LOOP;
  IF cardinality(parts) > 0 THEN
    PERFORM wide_internal._remote_exec(node, dst,
      format('SET LOCAL wide.rollup_on_write = off; INSERT INTO %s VALUES %s', dst, array_to_string(parts, ', ')));
    n := n + cardinality(parts);
  END IF;
  RETURN n;
END
$$;

-- A row of tbl as a VALUES list, an expression over its columns:
-- '(' || quote_nullable(c1::text) || ', ' || ... || ')'
CREATE FUNCTION wide_internal._row_literal(tbl regclass)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT $q$'(' || $q$ || string_agg(format('quote_nullable(%I::text)', attname), $q$ || ', ' || $q$ ORDER BY attnum) || $q$ || ')'$q$
    FROM pg_attribute WHERE attrelid = tbl AND attnum > 0 AND NOT attisdropped;
$$;

-- Does the table (a tablet parent) have a rollup family?
CREATE FUNCTION wide_internal._has_rollups(tbl regclass)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(jsonb_path_exists(wide.family_catalog_of(tbl), '$.families.* ? (@.aggregate == "rollup")'), false);
$$;


-- Make the cells of dst those of src WHERE cond, as of now: the cells of
-- dst that src does not hold (or holds with another value) are deleted,
-- then those of src that dst lacks are written; only in the rows of keys
-- (text literals of the row-key type) unless it is NULL.  Cells are matched
-- by their coordinates (row key, family, qualifier, timestamp), values by
-- the binary image of the row (*=): a value type needs no equality
-- operator (json, point, xml).  The number of cells changed.  Run where both tables are (a
-- node, or here through postgres_fdw), under a lock that stops writes to
-- src.
CREATE FUNCTION wide_internal._tablet_delta(src regclass, dst regclass, cond text, keys text[] DEFAULT NULL,
                                  via text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET wide.rollup_on_write = off
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
AS $$
DECLARE
  c text[];
  t text[];
  k text[];
  n bigint := 0;
  m bigint;
  conds text[];
  w text;
  -- the cells of %1$s (alias a) WHERE w that %2$s (alias b) lacks
  missing text;
  -- deletes on the node not yet sent
  dels text[] := '{}';
BEGIN
  SELECT array_agg(quote_ident(attname) ORDER BY attnum), array_agg(format_type(atttypid, atttypmod) ORDER BY attnum)
    INTO c, t FROM pg_attribute WHERE attrelid = dst AND attnum > 0 AND NOT attisdropped;
  IF keys IS NULL THEN
    conds := ARRAY[cond];
  ELSIF cardinality(keys) = 0 THEN
    conds := '{}';
  ELSE
    -- point reads of those rows (a Wide Scan of row_key = ANY, shipped to a node)
    conds := ARRAY[format('%s = ANY (%L::%s[]) AND %s', c[1], keys, t[1], cond)];
  END IF;
  missing := format('SELECT a.* FROM %%1$s a WHERE %%3$s AND NOT EXISTS (SELECT FROM %%2$s b WHERE %%4$s AND '
                    'b.%1$s = a.%1$s AND b.%2$s = a.%2$s AND b.%3$s = a.%3$s AND b.%4$s = a.%4$s AND b *= a)',
                    c[1], c[2], c[3], c[4]);
  FOREACH w IN ARRAY conds LOOP
    FOR k IN EXECUTE format('SELECT ARRAY[%1$s::text, %2$s::text, %3$s::text, %4$s::text] FROM (%5$s) d',
                            c[1], c[2], c[3], c[4], format(missing, dst, src, w, w))
    LOOP
      IF via IS NULL THEN
        EXECUTE format('DELETE FROM %s WHERE %s = %L::%s AND %s = %L::%s AND %s = %L::%s AND %s = %L::%s',
                       dst, c[1], k[1], t[1], c[2], k[2], t[2], c[3], k[3], t[3], c[4], k[4], t[4]);
      ELSE
        -- on the node, through wide's connection (_tablet_write_remote),
        -- 500 a round trip: one each made the catch-up of a move of a
        -- table with a rollup family (every write changes its rollup
        -- cells) take minutes under writes (t/226, 229_move_rollup_catchup)
        dels := dels || format('DELETE FROM %s WHERE %s = %L::%s AND %s = %L::%s AND %s = %L::%s AND %s = %L::%s',
                               dst, c[1], k[1], t[1], c[2], k[2], t[2], c[3], k[3], t[3], c[4], k[4], t[4]);
        IF cardinality(dels) >= 500 THEN
          PERFORM wide_internal._remote_exec(via, dst,
            'SET LOCAL wide.rollup_on_write = off; ' || array_to_string(dels, '; '));
          dels := '{}';
        END IF;
      END IF;
      n := n + 1;
    END LOOP;
    IF cardinality(dels) > 0 THEN
      PERFORM wide_internal._remote_exec(via, dst,
        'SET LOCAL wide.rollup_on_write = off; ' || array_to_string(dels, '; '));
      dels := '{}';
    END IF;
    IF via IS NULL THEN
      EXECUTE format('INSERT INTO %s %s', dst, format(missing, src, dst, w, w));
      GET DIAGNOSTICS m = ROW_COUNT;
    ELSE
      -- written on the node with rollups off, as the copy was; postgres_fdw
      -- only reads dst, so its session and wide's never wait for each
      -- other there
      m := wide_internal._tablet_write_remote(via, dst,
             format('SELECT %s FROM (%s) d', wide_internal._row_literal(src), format(missing, src, dst, w, w)));
    END IF;
    n := n + m;
  END LOOP;
  RETURN n;
END
$$;

-- Where a tablet of a parent is: {node, remote table} ('local': here).
CREATE FUNCTION wide_internal._tablet_node(parent regclass, tablet regclass)
RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  r record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_inherits WHERE inhrelid = tablet AND inhparent = parent) THEN
    RAISE EXCEPTION 'table % is not a tablet of %', tablet, parent
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Name a partition of the parent; the tablets are listed by SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = ''parent''::regclass.';
  END IF;
  SELECT * INTO r FROM wide_internal._remote_tablets(parent) x WHERE x.tablet = _tablet_node.tablet;
  IF FOUND THEN
    RETURN ARRAY[r.server, r.remote];
  END IF;
  IF (SELECT c.relkind <> 'r' OR a.amname IS DISTINCT FROM 'wide'
        FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam WHERE c.oid = tablet) THEN
    RAISE EXCEPTION 'tablet % is not a wide table', tablet
      USING ERRCODE = 'wrong_object_type',
            DETAIL = 'Split and move take a wide table or a postgres_fdw foreign table over one; a partition that is partitioned itself is not a tablet.';
  END IF;
  RETURN ARRAY['local', tablet::text];
END
$$;

-- The family catalog of a tablet, here or on its node.
CREATE FUNCTION wide_internal._tablet_catalog(node text[])
RETURNS jsonb
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
AS $$
  SELECT CASE WHEN node[1] = 'local' THEN wide.family_catalog_of(node[2]::regclass)
         ELSE (SELECT x::jsonb FROM wide_internal._remote_query(node[1],
                 format('SELECT wide.family_catalog_of(%L)::text', node[2])) x) END;
$$;

-- Pause a split or move before a step while another session holds the row
-- of that step in wide.tablet_op_pause FOR UPDATE: 1 before the copy, 2
-- before the catch-up and the swap (tests use it to stop an operation at a
-- known step).  Locking a row takes UPDATE on the table, which only its
-- owner and superusers have: no other role can stall an operation (a
-- fixed advisory lock, which any role may take, could).  An operation run
-- by a role without that privilege does not pause.
CREATE FUNCTION wide_internal._tablet_op_pause(step int)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF to_regclass('wide.tablet_op_pause') IS NOT NULL
     AND has_table_privilege('wide.tablet_op_pause', 'UPDATE') THEN
    PERFORM FROM wide.tablet_op_pause p WHERE p.step = _tablet_op_pause.step FOR KEY SHARE;
  END IF;
END
$$;

-- Step 1 of a split or move: check the call, create the new tables (a
-- remote one on its node, by two-phase commit with this transaction, and
-- a foreign table here), journal them.  Returns the operation's id.
CREATE FUNCTION wide_internal._tablet_op_begin(op text, parent regclass, tablet regclass,
                                      at_key text, to_node text)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
SET client_min_messages = warning
AS $$
DECLARE
  id bigint;
  here text[];
  b text[];
  at text;
  keycol text;
  keytype regtype;
  coll text := '';
  nsp text;
  rel text;
  cols text;
  local_cols text;
  doc jsonb;
  samples text[];
  names text[] := '{}';
  nodes text[];
  bounds text[];
  i int;
  ok boolean;
BEGIN
  PERFORM wide_internal._tablet_ops_tables();
  IF NOT has_table_privilege('wide.tablet_ops', 'INSERT, UPDATE') THEN
    RAISE EXCEPTION 'permission denied for the journal of tablet operations'
      USING ERRCODE = 'insufficient_privilege',
            DETAIL = 'Split and move write the journal wide.tablet_ops.',
            HINT = 'Run them as a superuser or as the owner of the extension wide.';
  END IF;
  PERFORM wide_internal._check_owner(parent);
  IF (SELECT relkind FROM pg_class WHERE oid = parent) <> 'p'
     OR pg_get_partkeydef(parent) IS DISTINCT FROM
        format('RANGE (%I)', (SELECT attname FROM pg_attribute WHERE attrelid = parent AND attnum = 1)) THEN
    RAISE EXCEPTION 'table % is not partitioned by RANGE (row_key)', parent
      USING ERRCODE = 'wrong_object_type';
  END IF;
  -- one operation at a time per parent (self-conflicting, lets reads and writes run)
  EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
  here := wide_internal._tablet_node(parent, tablet);
  IF here[1] <> 'local' THEN
    -- a write prepared there and not decided would be missed by the copy
    PERFORM wide_internal._tablet_check_in_doubt(here[1], here[2]);
  END IF;
  IF EXISTS (SELECT FROM wide.tablet_ops o WHERE o.parent = _tablet_op_begin.parent
                AND o.step IN ('created', 'copied')) THEN
    RAISE EXCEPTION 'a split or move of a tablet of % is unfinished', parent
      USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'Run CALL wide.resume_tablet_ops() to finish or roll it back.';
  END IF;
  IF op = 'move' AND to_node <> 'local' THEN
    PERFORM wide_internal._refuse_published_remote(parent);
  END IF;
  IF EXISTS (SELECT FROM pg_partitioned_table WHERE partrelid = parent AND partdefid <> 0) THEN
    RAISE EXCEPTION 'table % has a default partition', parent
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A new tablet would have to be checked against every row of the default partition.';
  END IF;
  b := wide_internal._tablet_bounds(tablet);
  SELECT a.attname, a.atttypid INTO keycol, keytype FROM pg_attribute a WHERE a.attrelid = parent AND a.attnum = 1;
  IF keytype = 'text'::regtype THEN
    coll := ' COLLATE "C"';
  END IF;
  doc := wide_internal._tablet_catalog(here);

  IF op = 'split' THEN
    IF at_key IS NULL THEN
      -- the middle: the median of the tablet's samples, or of its row keys
      IF here[1] = 'local' THEN
        SELECT array_agg(s.row_key ORDER BY s.offset_bytes)::text[] INTO samples
          FROM wide.sample_row_keys(tablet) s WHERE s.row_key <> '\x';
      ELSE
        -- (a text key's bytes are in the node's encoding: converted there)
        SELECT array_agg(x) INTO samples FROM wide_internal._remote_query(here[1],
          format('SELECT %s FROM wide.sample_row_keys(%L) WHERE row_key <> ''\x'' ORDER BY offset_bytes',
                 CASE WHEN keytype = 'text'::regtype THEN 'convert_to(convert_from(row_key, current_setting(''server_encoding'')), ''UTF8'')::text'
                      ELSE 'row_key::text' END, here[2])) x;
      END IF;
      IF coalesce(array_length(samples, 1), 0) > 0 THEN
        at := samples[(array_length(samples, 1) + 1) / 2];
        IF keytype = 'text'::regtype THEN
          at := convert_from(at::bytea, CASE WHEN here[1] = 'local' THEN getdatabaseencoding() ELSE 'UTF8' END);
        END IF;
      ELSIF here[1] = 'local' THEN
        EXECUTE format('SELECT k::text FROM (SELECT DISTINCT %1$I k FROM %2$s) d ORDER BY k OFFSET (SELECT count(DISTINCT %1$I) / 2 FROM %2$s) LIMIT 1',
                       keycol, tablet) INTO at;
      ELSE
        SELECT x INTO at FROM wide_internal._remote_query(here[1],
          format('SELECT k::text FROM (SELECT DISTINCT %1$I k FROM %2$s) d ORDER BY k OFFSET (SELECT count(DISTINCT %1$I) / 2 FROM %2$s) LIMIT 1',
                 keycol, here[2])) x;
      END IF;
      IF at IS NULL THEN
        RAISE EXCEPTION 'tablet % is empty: give the key to split it at', tablet
          USING ERRCODE = 'invalid_parameter_value';
      END IF;
    ELSE
      at := at_key;
    END IF;
    IF keytype = 'text'::regtype THEN
      PERFORM wide_internal._check_rollup_boundary(doc, at);
    END IF;
    at := format('%L::%s', at, keytype);
    IF b[1] <> 'MINVALUE' THEN
      EXECUTE format('SELECT %s%s = %s', at, coll, b[1]) INTO ok;
    END IF;
    IF b[1] <> 'MINVALUE' AND ok THEN
      RAISE EXCEPTION 'cannot split tablet % at its lower bound %', tablet, b[1]
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = 'Both tablets must hold some key range.';
    END IF;
    EXECUTE format('SELECT %s FROM (SELECT %s%s) x(k)', wide_internal._range_cond('k', b[1], b[2]), at, coll) INTO ok;
    IF NOT ok THEN
      RAISE EXCEPTION 'split key % is outside tablet %', coalesce(at_key, at), tablet
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = format('The tablet holds the keys from %s to %s.', b[1], b[2]);
    END IF;
    bounds := ARRAY[b[1], at, b[2]];
    nodes := ARRAY[here[1], here[1]];
  ELSE
    IF to_node IS NULL THEN
      RAISE EXCEPTION 'node cannot be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF to_node <> 'local' AND NOT EXISTS (
         SELECT FROM pg_foreign_server s JOIN pg_foreign_data_wrapper w ON w.oid = s.srvfdw
          WHERE s.srvname = to_node AND w.fdwname = 'postgres_fdw') THEN
      RAISE EXCEPTION 'node "%" is not a server of postgres_fdw', to_node
        USING ERRCODE = 'undefined_object',
              HINT = 'A node is ''local'' or the name of a foreign server created with CREATE SERVER ... FOREIGN DATA WRAPPER postgres_fdw.';
    END IF;
    IF to_node = here[1] THEN
      RAISE EXCEPTION 'tablet % is already on node "%"', tablet, to_node
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    bounds := b;
    nodes := ARRAY[to_node];
  END IF;

  -- The id names the new tables.  Under wal_level = minimal the sequence,
  -- made by the first operation in the transaction that takes its first
  -- id, is not WAL-logged then, and its later values (logged 32 ahead
  -- from that unlogged state) go back after a crash: an id the journal
  -- already holds is skipped, under a lock that the next taker waits
  -- for, and the sequence moved past it (setval is WAL-logged).
  id := nextval('wide.tablet_ops_id_seq');
  IF id <= (SELECT max(o.id) FROM wide.tablet_ops o) THEN
    PERFORM pg_advisory_xact_lock(2003395687);
    id := greatest(nextval('wide.tablet_ops_id_seq'), (SELECT max(o.id) + 1 FROM wide.tablet_ops o));
    PERFORM setval('wide.tablet_ops_id_seq', id);
  END IF;
  SELECT c.relname, n.nspname INTO rel, nsp
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
  SELECT string_agg(format('%I %s%s', a.attname, format_type(a.atttypid, a.atttypmod),
                           CASE WHEN a.attcollation <> 0
                                THEN ' COLLATE ' || (SELECT quote_ident(collname) FROM pg_collation WHERE oid = a.attcollation)
                                ELSE '' END), ', ' ORDER BY a.attnum)
             INTO cols FROM pg_attribute a WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped;
  -- what ATTACH PARTITION requires of a partition: the parent's NOT NULL
  -- columns and CHECK constraints (the table on a node has none of them,
  -- as create_tablets makes it: the foreign table here carries them)
  SELECT string_agg(format('%I %s%s', a.attname, format_type(a.atttypid, a.atttypmod),
                           CASE WHEN a.attcollation <> 0
                                THEN ' COLLATE ' || (SELECT quote_ident(collname) FROM pg_collation WHERE oid = a.attcollation)
                                ELSE '' END)
                    || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END, ', ' ORDER BY a.attnum)
    INTO local_cols FROM pg_attribute a WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped;
  local_cols := local_cols || coalesce((SELECT string_agg(format(', CONSTRAINT %I %s', c.conname, pg_get_constraintdef(c.oid)), '' ORDER BY c.conname)
                                          FROM pg_constraint c WHERE c.conrelid = parent AND c.contype = 'c'), '');
  FOR i IN 1 .. array_length(nodes, 1) LOOP
    names[i] := format('%I.%I', nsp, rel || '_' || id || CASE WHEN op = 'move' THEN 'm' ELSE chr(96 + i) END);
    IF to_regclass(names[i]) IS NOT NULL THEN
      RAISE EXCEPTION 'relation % already exists', names[i] USING ERRCODE = 'duplicate_table';
    END IF;
    IF nodes[i] = 'local' THEN
      -- the CHECK lets ATTACH PARTITION skip its scan; dropped after it
      EXECUTE format('CREATE TABLE %s (%s, CONSTRAINT wide_tablet_range CHECK (%s)) USING wide',
                     names[i], local_cols, wide_internal._range_cond(keycol, bounds[i], bounds[i + 1]));
      PERFORM wide_internal._store_catalog(names[i]::regclass, doc);
      -- the tablet's replica identity FULL (or the parent's, for a tablet
      -- coming from a node): the deletes of a published parent need it on
      -- every tablet (PostgreSQL refuses them without)
      IF EXISTS (SELECT FROM pg_class WHERE oid IN (tablet, parent) AND relkind IN ('r', 'p') AND relreplident = 'f') THEN
        EXECUTE format('ALTER TABLE %s REPLICA IDENTITY FULL', names[i]);
      END IF;
    ELSE
      EXECUTE format('CREATE FOREIGN TABLE %s (%s) SERVER %I OPTIONS (schema_name %L, table_name %L, async_capable ''true'', batch_size ''1000'', fetch_size ''10000'')',
                     names[i], local_cols, nodes[i], nsp, rel || '_' || id || CASE WHEN op = 'move' THEN 'm' ELSE chr(96 + i) END);
      PERFORM wide_internal._remote_exec(nodes[i], names[i]::regclass,
        format('CREATE SCHEMA IF NOT EXISTS %I; CREATE TABLE %s (%s) USING wide; %s',
               nsp, names[i], cols,
               wide_internal._store_catalog_sql(names[i],
                 (SELECT attname FROM pg_attribute WHERE attrelid = parent AND attnum = 2), doc)));
    END IF;
  END LOOP;
  -- from now on the rows written to the tablet are recorded (before the
  -- copy's snapshot: the catch-up compares those rows only)
  IF here[1] = 'local' THEN
    EXECUTE wide_internal._tablet_track_sql(tablet::text, true, id);
  ELSE
    PERFORM wide_internal._remote_ddl(here[1], tablet, wide_internal._tablet_track_sql(here[2], true, id));
  END IF;
  INSERT INTO wide.tablet_ops (id, op, parent, tablet, node, new_tablets, new_nodes, bounds, step)
    VALUES (id, op, parent, tablet::text, here[1], names, nodes, bounds, 'created');
  RETURN id;
END
$$;

-- Step 2: copy the old tablet's cells into the new tables, as of a
-- snapshot, while writes go on (a split of a remote tablet copies on its
-- node; a move copies through postgres_fdw).
CREATE FUNCTION wide_internal._tablet_op_copy(op_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
SET wide.rollup_on_write = off
AS $$
DECLARE
  o wide.tablet_ops;
  here text[];
  keycol text;
  cond text;
  n bigint;
  total bigint := 0;
  i int;
BEGIN
  SELECT * INTO o FROM wide.tablet_ops WHERE id = op_id FOR UPDATE;
  IF o.step <> 'created' THEN
    RAISE EXCEPTION 'tablet operation % is at step %, not created', op_id, o.step
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  here := wide_internal._tablet_node(o.parent, o.tablet::regclass);
  keycol := (SELECT attname FROM pg_attribute WHERE attrelid = o.parent AND attnum = 1);
  FOR i IN 1 .. array_length(o.new_tablets, 1) LOOP
    cond := wide_internal._range_cond(keycol, o.bounds[i], o.bounds[i + 1]);
    IF o.op = 'split' AND here[1] <> 'local' THEN
      PERFORM wide_internal._remote_exec(here[1], o.tablet::regclass,
        format('SET LOCAL wide.rollup_on_write = off; INSERT INTO %s SELECT * FROM %s WHERE %s',
               o.new_tablets[i], here[2], cond));
    ELSIF o.new_nodes[i] <> 'local' AND wide_internal._has_rollups(o.parent) THEN
      total := total + wide_internal._tablet_write_remote(o.new_nodes[i], o.new_tablets[i]::regclass,
                         format('SELECT %s FROM %s WHERE %s', wide_internal._row_literal(o.tablet::regclass), o.tablet, cond));
    ELSE
      EXECUTE format('INSERT INTO %s SELECT * FROM %s WHERE %s', o.new_tablets[i], o.tablet, cond);
      GET DIAGNOSTICS n = ROW_COUNT;
      total := total + n;
    END IF;
  END LOOP;
  UPDATE wide.tablet_ops SET step = 'copied',
         copied_cells = CASE WHEN o.op = 'split' AND here[1] <> 'local' THEN NULL ELSE total END
   WHERE id = op_id;
END
$$;

-- Steps 3a and 3b: bring each new table up to date with the rows of keys
-- (recorded since the mark, or, with "since", by the transactions that
-- snapshot does not see): on the tablet's node for a split of a remote
-- tablet (which reads the recorded rows there), else here, through wide's
-- connection for a new table on a node of a table with rollups
-- (_tablet_write_remote).  Returns the cells rewritten here.
CREATE FUNCTION wide_internal._tablet_op_deltas(op_id bigint, here text[], keys text[], since text)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
SET wide.rollup_on_write = off
AS $$
DECLARE
  o wide.tablet_ops;
  keycol text;
  cond text;
  rollups boolean;
  n bigint := 0;
  i int;
BEGIN
  SELECT * INTO o FROM wide.tablet_ops WHERE id = op_id;
  keycol := (SELECT attname FROM pg_attribute WHERE attrelid = o.parent AND attnum = 1);
  rollups := wide_internal._has_rollups(o.parent);
  FOR i IN 1 .. array_length(o.new_tablets, 1) LOOP
    cond := wide_internal._range_cond(keycol, o.bounds[i], o.bounds[i + 1]);
    IF o.op = 'split' AND here[1] <> 'local' THEN
      PERFORM wide_internal._remote_exec(here[1], o.tablet::regclass,
        format('SELECT wide_internal._tablet_delta(%L, %L, %L, wide_internal._tablet_changes(%L%s))',
               here[2], o.new_tablets[i], cond, here[2],
               CASE WHEN since IS NULL THEN '' ELSE format(', %L::pg_snapshot', since) END));
    ELSE
      n := n + wide_internal._tablet_delta(o.tablet::regclass, o.new_tablets[i]::regclass, cond, keys,
                                  CASE WHEN o.new_nodes[i] <> 'local' AND rollups
                                       THEN o.new_nodes[i] END);
    END IF;
  END LOOP;
  RETURN n;
END
$$;

-- Step 3a: a first catch-up, without a lock: the rows recorded until a
-- snapshot "since" (of the tablet's node) are brought up to date in the new
-- tables; "since" is journaled for step 3b.  Its own transaction: a move's
-- reads through postgres_fdw keep one snapshot per transaction, which
-- must not be the one of the second pass.
CREATE FUNCTION wide_internal._tablet_op_catchup(op_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
SET wide.rollup_on_write = off
AS $$
DECLARE
  o wide.tablet_ops;
  here text[];
  keys text[];
  snap text;
BEGIN
  SELECT * INTO o FROM wide.tablet_ops WHERE id = op_id FOR UPDATE;
  IF o.step <> 'copied' THEN
    RAISE EXCEPTION 'tablet operation % is at step %, not copied', op_id, o.step
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  here := wide_internal._tablet_node(o.parent, o.tablet::regclass);
  IF here[1] = 'local' THEN
    SELECT pg_current_snapshot()::text, wide_internal._tablet_changes(o.tablet::regclass) INTO snap, keys;
  ELSE
    -- the node's snapshot, before the rows are read there
    SELECT x INTO snap FROM wide_internal._remote_query(here[1], 'SELECT pg_current_snapshot()::text') x;
    IF o.op = 'move' THEN
      SELECT x::text[] INTO keys FROM wide_internal._remote_query(here[1],
        format('SELECT wide_internal._tablet_changes(%L)::text', here[2])) x;
    END IF;
  END IF;
  PERFORM wide_internal._tablet_op_deltas(op_id, here, keys, NULL);
  UPDATE wide.tablet_ops t SET since = snap WHERE t.id = op_id;
END
$$;

-- Step 3b: under a lock that stops writes (EXCLUSIVE on the parent and the
-- tablet: reads go on), bring the new tables up to date with the rows
-- written by the transactions that the first catch-up's snapshot does not
-- see (all the recorded rows if there was none), then swap: drop the old
-- tablet here and attach the new ones.  Returns the time the lock was
-- taken.
CREATE FUNCTION wide_internal._tablet_op_finish(op_id bigint)
RETURNS timestamptz
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
SET wide.rollup_on_write = off
AS $$
DECLARE
  o wide.tablet_ops;
  here text[];
  t0 timestamptz;
  keys text[];
  delta bigint;
  marked text;
  i int;
BEGIN
  SELECT * INTO o FROM wide.tablet_ops WHERE id = op_id FOR UPDATE;
  IF o.step <> 'copied' THEN
    RAISE EXCEPTION 'tablet operation % is at step %, not copied', op_id, o.step
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  -- writers lock the parent first (ROW EXCLUSIVE), then the tablet
  EXECUTE format('LOCK TABLE ONLY %s IN EXCLUSIVE MODE', o.parent);
  here := wide_internal._tablet_node(o.parent, o.tablet::regclass);
  IF here[1] = 'local' THEN
    EXECUTE format('LOCK TABLE %s IN EXCLUSIVE MODE', o.tablet);
  ELSE
    -- a write committed here whose COMMIT PREPARED failed on the node is
    -- decided before the catch-up (which then sees it), or the swap waits
    PERFORM wide_internal._tablet_check_in_doubt(here[1], here[2]);
  END IF;
  -- the tablet must be the table that was marked and copied (not one
  -- put in its place since, by DETACH and ATTACH or DROP and CREATE)
  IF here[1] = 'local' THEN
    EXECUTE wide_internal._tablet_marked_sql(o.tablet, op_id) INTO marked;
  ELSE
    SELECT x INTO marked FROM wide_internal._remote_query(here[1], wide_internal._tablet_marked_sql(here[2], op_id)) x;
  END IF;
  IF marked IS DISTINCT FROM 'true' THEN
    RAISE EXCEPTION 'table % is not the tablet that operation % copied', o.tablet, op_id
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'The tablet was detached, dropped or replaced after the operation began.',
            HINT = 'CALL wide.resume_tablet_ops() rolls the operation back.';
  END IF;
  t0 := clock_timestamp();
  IF here[1] = 'local' THEN
    keys := wide_internal._tablet_changes(o.tablet::regclass, o.since::pg_snapshot);
  ELSIF o.op = 'move' THEN
    SELECT x::text[] INTO keys FROM wide_internal._remote_query(here[1],
      format('SELECT wide_internal._tablet_changes(%L, %L::pg_snapshot)::text', here[2], o.since)) x;
  END IF;
  delta := wide_internal._tablet_op_deltas(op_id, here, keys, o.since);
  IF here[1] = 'local' THEN
    DELETE FROM wide.tablet_op_changes c WHERE c.tablet = o.tablet::regclass;
  END IF;
  -- the swap (the old table on a node is dropped in the next step: this
  -- transaction may hold postgres_fdw's lock on it)
  EXECUTE format('DROP %s %s', CASE WHEN here[1] = 'local' THEN 'TABLE' ELSE 'FOREIGN TABLE' END, o.tablet);
  FOR i IN 1 .. array_length(o.new_tablets, 1) LOOP
    EXECUTE format('ALTER TABLE %s ATTACH PARTITION %s FOR VALUES FROM (%s) TO (%s)',
                   o.parent, o.new_tablets[i], o.bounds[i], o.bounds[i + 1]);
    IF o.new_nodes[i] = 'local' THEN
      EXECUTE format('ALTER TABLE %s DROP CONSTRAINT wide_tablet_range', o.new_tablets[i]);
    END IF;
  END LOOP;
  UPDATE wide.tablet_ops SET step = CASE WHEN here[1] = 'local' THEN 'done' ELSE 'swapped' END,
         finished = clock_timestamp(), old_remote = here[2],
         delta_cells = CASE WHEN o.op = 'split' AND here[1] <> 'local' THEN NULL ELSE delta END
   WHERE id = op_id;
  RETURN t0;
END
$$;

-- Step 4 of an operation on a remote tablet: drop the old table on its node.
CREATE FUNCTION wide_internal._tablet_op_drop_old(op_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
AS $$
DECLARE
  o wide.tablet_ops;
BEGIN
  SELECT * INTO o FROM wide.tablet_ops WHERE id = op_id FOR UPDATE;
  IF o.step <> 'swapped' THEN
    RAISE EXCEPTION 'tablet operation % is at step %, not swapped', op_id, o.step
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  PERFORM wide_internal._tablet_check_in_doubt(o.node, o.old_remote);
  PERFORM wide_internal._remote_ddl(o.node, NULL,
    format('DELETE FROM wide.tablet_op_changes WHERE tablet = to_regclass(%L); DROP TABLE IF EXISTS %s',
           o.old_remote, o.old_remote));
  UPDATE wide.tablet_ops SET step = 'done' WHERE id = op_id;
END
$$;

-- Roll an operation at step 'created' or 'copied' back: drop its new
-- tables, here and on their nodes, and unmark the tablet.
CREATE FUNCTION wide_internal._tablet_op_rollback(op_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET bytea_output = hex
SET datestyle = 'ISO, YMD'
SET intervalstyle = postgres
SET timezone = 'UTC'
SET extra_float_digits = 3
SET client_min_messages = warning
AS $$
DECLARE
  o wide.tablet_ops;
  r record;
  i int;
BEGIN
  SELECT * INTO o FROM wide.tablet_ops WHERE id = op_id FOR UPDATE;
  IF o.step NOT IN ('created', 'copied') THEN
    RAISE EXCEPTION 'tablet operation % is at step %, not created or copied', op_id, o.step
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  FOR i IN 1 .. array_length(o.new_tablets, 1) LOOP
    IF o.new_nodes[i] <> 'local' THEN
      PERFORM wide_internal._remote_exec(o.new_nodes[i], NULL, format('DROP TABLE IF EXISTS %s', o.new_tablets[i]));
      EXECUTE format('DROP FOREIGN TABLE IF EXISTS %s', o.new_tablets[i]);
    ELSE
      EXECUTE format('DROP TABLE IF EXISTS %s', o.new_tablets[i]);
    END IF;
  END LOOP;
  -- the tablet stays: unmark it (wherever it is now: found by its guard)
  IF o.node = 'local' THEN
    FOR r IN SELECT t.tgrelid::regclass::text AS rel FROM pg_trigger t
              WHERE t.tgname = 'wide_tablet_op_guard' AND t.tgargs = convert_to(op_id::text, 'UTF8') || decode('00', 'hex') LOOP
      EXECUTE wide_internal._tablet_track_sql(r.rel, false);
    END LOOP;
    IF to_regclass(o.tablet) IS NOT NULL THEN
      EXECUTE wide_internal._tablet_track_sql(o.tablet, false);
    END IF;
  ELSIF EXISTS (SELECT FROM pg_inherits WHERE inhrelid = to_regclass(o.tablet) AND inhparent = o.parent) THEN
    PERFORM wide_internal._remote_ddl(o.node, o.tablet::regclass,
      wide_internal._tablet_track_sql((wide_internal._tablet_node(o.parent, o.tablet::regclass))[2], false));
  END IF;
  UPDATE wide.tablet_ops SET step = 'rolled back', finished = clock_timestamp() WHERE id = op_id;
END
$$;

-- Fail inside a transaction block: the steps of a split or move commit
-- one by one (a CALL that starts its transaction started with it).
CREATE FUNCTION wide_internal._tablet_op_top_level()
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF transaction_timestamp() <> statement_timestamp() THEN
    RAISE EXCEPTION 'a split or move of a tablet cannot run inside a transaction block'
      USING ERRCODE = 'active_sql_transaction',
            DETAIL = 'Each of its steps commits, so that the copy does not hold back writes and a failure can be resumed.',
            HINT = 'Run CALL on its own, outside BEGIN ... COMMIT.';
  END IF;
END
$$;

-- Run an operation's steps, each its own transaction.  (Procedures that
-- commit cannot have SET clauses: the names used are schema-qualified.)
CREATE PROCEDURE wide_internal._tablet_op_run(op_id bigint)
LANGUAGE plpgsql
AS $$
DECLARE
  t0 timestamptz;
BEGIN
  PERFORM wide_internal._tablet_op_pause(1);
  PERFORM wide_internal._tablet_op_copy(op_id);
  COMMIT;
  PERFORM wide_internal._tablet_op_pause(2);
  PERFORM wide_internal._tablet_op_catchup(op_id);
  COMMIT;
  t0 := wide_internal._tablet_op_finish(op_id);
  COMMIT;
  -- the lock was held until the commit above (the nodes' included)
  UPDATE wide.tablet_ops SET lock_ms = extract(epoch FROM clock_timestamp() - t0) * 1000 WHERE id = op_id;
  COMMIT;
  IF (SELECT step FROM wide.tablet_ops WHERE id = op_id) = 'swapped' THEN
    PERFORM wide_internal._tablet_op_drop_old(op_id);
    COMMIT;
  END IF;
END
$$;

-- Split a tablet at a key into two tablets on its node.
CREATE PROCEDURE wide.split_tablet(parent regclass, tablet regclass, at_key text DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
  op_id bigint;
BEGIN
  PERFORM wide_internal._tablet_op_top_level();
  op_id := wide_internal._tablet_op_begin('split', parent, tablet, at_key, NULL);
  COMMIT;
  CALL wide_internal._tablet_op_run(op_id);
END
$$;
COMMENT ON PROCEDURE wide.split_tablet(regclass, regclass, text) IS
  'split a tablet at a key (by default its middle) into two tablets on its node; writes pause only for the final swap';

-- Move a tablet to another node ('local' or a postgres_fdw server).
CREATE PROCEDURE wide.move_tablet(parent regclass, tablet regclass, node text)
LANGUAGE plpgsql
AS $$
DECLARE
  op_id bigint;
BEGIN
  PERFORM wide_internal._tablet_op_top_level();
  op_id := wide_internal._tablet_op_begin('move', parent, tablet, NULL, node);
  COMMIT;
  CALL wide_internal._tablet_op_run(op_id);
END
$$;
COMMENT ON PROCEDURE wide.move_tablet(regclass, regclass, text) IS
  'move a tablet to another node (''local'' or a postgres_fdw server); writes pause only for the final swap';

-- Finish or roll back the splits and moves that a failure or a killed
-- server left unfinished: first the nodes' prepared leftovers are
-- resolved, then an operation at 'created' is rolled back, one at
-- 'copied' finished (rolled back if its swap fails: a constraint added to
-- the parent, the tablet dropped or detached), one at 'swapped' has its
-- old table dropped on its
-- node, each in its own transaction; a NOTICE says what was done, a
-- WARNING what failed (it stays in the journal for the next call).
-- Operations still running in another session are left alone.
CREATE PROCEDURE wide.resume_tablet_ops()
LANGUAGE plpgsql
AS $$
DECLARE
  o record;
  s text;
  outcome text;
  err text;
BEGIN
  PERFORM wide_internal._tablet_op_top_level();
  IF to_regclass('wide.tablet_ops') IS NULL THEN
    RETURN;  -- no split or move ever ran
  END IF;
  FOR s IN SELECT DISTINCT x FROM wide.tablet_ops t, unnest(t.new_nodes || t.node) x
            WHERE x <> 'local' AND EXISTS (SELECT FROM pg_catalog.pg_foreign_server WHERE srvname = x) LOOP
    BEGIN
      PERFORM wide.resolve_tablets(s);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'could not resolve the prepared transactions of node "%": %', s, SQLERRM;
    END;
  END LOOP;
  COMMIT;
  FOR o IN SELECT t.id, t.op, t.tablet, t.step, t.pid, t.started FROM wide.tablet_ops t
            WHERE t.step IN ('created', 'copied', 'swapped') ORDER BY t.id LOOP
    IF EXISTS (SELECT FROM pg_catalog.pg_stat_activity a WHERE a.pid = o.pid AND a.state = 'active'
                  AND a.pid <> pg_catalog.pg_backend_pid() AND a.backend_start <= o.started) THEN
      RAISE NOTICE 'tablet operation % (% of %) is running', o.id, o.op, o.tablet;
      CONTINUE;
    END IF;
    BEGIN
      IF o.step = 'created' THEN
        PERFORM wide_internal._tablet_op_rollback(o.id);
        outcome := 'rolled back';
      ELSIF o.step = 'copied' THEN
        BEGIN
          PERFORM wide_internal._tablet_op_finish(o.id);
          outcome := 'finished';
        EXCEPTION WHEN OTHERS THEN
          -- a swap that cannot succeed (the parent has changed, the tablet
          -- is gone): the old tablet still holds every cell
          GET STACKED DIAGNOSTICS err = MESSAGE_TEXT;
          PERFORM wide_internal._tablet_op_rollback(o.id);
          outcome := format('rolled back, as its swap failed: %s', err);
        END;
      ELSE
        outcome := 'finished';
      END IF;
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'tablet operation % (% of %) failed: %', o.id, o.op, o.tablet, SQLERRM;
      CONTINUE;
    END;
    COMMIT;
    IF (SELECT t.step FROM wide.tablet_ops t WHERE t.id = o.id) = 'swapped' THEN
      BEGIN
        PERFORM wide_internal._tablet_op_drop_old(o.id);
      EXCEPTION WHEN OTHERS THEN
        RAISE WARNING 'tablet operation % (% of %) could not drop the old table: %', o.id, o.op, o.tablet, SQLERRM;
        CONTINUE;
      END;
      COMMIT;
    END IF;
    RAISE NOTICE 'tablet operation % (% of %): %', o.id, o.op, o.tablet, outcome;
  END LOOP;
END
$$;
COMMENT ON PROCEDURE wide.resume_tablet_ops() IS
  'finish (copied, swapped) or roll back (created) the splits and moves of tablets that a failure left unfinished';

-- ----------------------------------------------------------------
-- EXECUTE of the internal functions (docs/security.md)
--
-- No internal function (schema wide_internal) is executable by PUBLIC:
-- the public functions that need them are in C (api/entry.c), check the
-- caller's privileges on the table and call them without the EXECUTE
-- check of a call from SQL; the aggregates' support functions are checked
-- for the aggregates' owner; the steps of a split or move are for the
-- extension's owner and superusers (they write wide.tablet_ops).
-- sql/privileges_catalog.sql reads this from pg_proc and fails on any
-- internal function open to PUBLIC.
-- ----------------------------------------------------------------

REVOKE EXECUTE ON ALL ROUTINES IN SCHEMA wide_internal FROM PUBLIC;
REVOKE EXECUTE ON PROCEDURE wide_internal._tablet_op_run(bigint) FROM PUBLIC;

-- ----------------------------------------------------------------
-- The row form (src/am/rows_*.c, docs/sql.md "Readings as rows"): a
-- foreign table of server wide_rows shows the cells of one family of a
-- wide table as rows, a reading per tuple.  The wrapper checks the wide
-- table's privileges for the user at every read and write, so any role
-- may declare a row form; it reads only what the role may read.
-- ----------------------------------------------------------------

CREATE FUNCTION wide.rows_handler()
RETURNS fdw_handler
AS 'MODULE_PATHNAME', 'wide_rows_handler'
LANGUAGE C STRICT;

CREATE FUNCTION wide.rows_validator(text[], oid)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_rows_validator'
LANGUAGE C STRICT;

CREATE FOREIGN DATA WRAPPER wide_rows HANDLER wide.rows_handler VALIDATOR wide.rows_validator;

CREATE SERVER wide_rows FOREIGN DATA WRAPPER wide_rows;

GRANT USAGE ON FOREIGN SERVER wide_rows TO PUBLIC;

COMMENT ON SERVER wide_rows IS
  'the row form: CREATE FOREIGN TABLE ... SERVER wide_rows OPTIONS (cells ''tbl'', family ''f'', key ''col1,col2'')';
