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

-- Validate family options; returns the family's entry of the catalog.
CREATE FUNCTION wide._family_entry(tbl regclass, family text, id bigint,
                                   max_versions int, max_age interval,
                                   gc text, aggregate text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  valtype regtype;
BEGIN
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
  IF aggregate IS NOT NULL THEN
    IF aggregate NOT IN ('sum', 'min', 'max', 'hll') THEN
      RAISE EXCEPTION 'unknown aggregate "%"', aggregate
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Aggregate families are sum, min, max or hll.';
    END IF;
    SELECT a.atttypid INTO valtype FROM pg_attribute a
      WHERE a.attrelid = tbl AND a.attnum = 5;
    IF aggregate = 'hll' AND valtype <> 'bytea'::regtype THEN
      RAISE EXCEPTION 'hll family "%" needs a value column of type bytea', family
        USING ERRCODE = 'datatype_mismatch',
              DETAIL = format('The value column of %s has type %s.', tbl, valtype),
              HINT = 'An hll cell holds a HyperLogLog sketch; read its estimate with wide.hll_count(value).';
    END IF;
    IF valtype NOT IN ('int8'::regtype, 'bytea'::regtype) THEN
      RAISE EXCEPTION 'aggregate family "%" needs a value column of type int8 or bytea', family
        USING ERRCODE = 'datatype_mismatch',
              DETAIL = format('The value column of %s has type %s.', tbl, valtype),
              HINT = 'sum, min and max keep a 64-bit integer per cell.';
    END IF;
  END IF;
  RETURN jsonb_strip_nulls(jsonb_build_object(
    'id', id,
    'max_versions', max_versions,
    'max_age', max_age::text,
    'max_age_us', (extract(epoch FROM max_age) * 1000000)::bigint,
    'gc', gc,
    'aggregate', aggregate));
END
$$;

-- Fail unless the current user owns the wide table (NULL: an error); the
-- family functions call it before they lock anything.
CREATE FUNCTION wide._check_owner(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_check_owner'
LANGUAGE C STABLE;

-- Lock a wide table for a family change and return its catalog document.
CREATE FUNCTION wide._lock_catalog(tbl regclass)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  -- only the owner, checked before a lock is queued; fails cleanly on a
  -- table that is not wide
  PERFORM wide._check_owner(tbl);
  PERFORM wide.family_catalog_of(tbl);
  EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', tbl);
  RETURN coalesce(wide.family_catalog_of(tbl),
                  '{"version": 1, "next_id": 1, "families": {}}'::jsonb);
END
$$;

CREATE FUNCTION wide._store_catalog(tbl regclass, doc jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM wide._check_owner(tbl);
  EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT wide.family_catalog(%L::jsonb)',
                 tbl,
                 (SELECT attname FROM pg_attribute WHERE attrelid = tbl AND attnum = 2),
                 doc::text);
END
$$;

CREATE FUNCTION wide.create_family(tbl regclass, family text,
                                   max_versions int DEFAULT NULL,
                                   max_age interval DEFAULT NULL,
                                   gc text DEFAULT 'union',
                                   aggregate text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  doc jsonb := wide._lock_catalog(tbl);
  id bigint := (doc->>'next_id')::bigint;
  entry jsonb := wide._family_entry(tbl, family, id, max_versions, max_age, gc, aggregate);
BEGIN
  IF doc->'families' ? family THEN
    RAISE EXCEPTION 'column family "%" already exists in wide table %', family, tbl
      USING ERRCODE = 'duplicate_object',
            HINT = 'Change its garbage-collection policy with wide.alter_family().';
  END IF;
  doc := jsonb_set(doc, '{next_id}', to_jsonb(id + 1));
  doc := jsonb_set(doc, ARRAY['families', family], entry);
  PERFORM wide._store_catalog(tbl, doc);
END
$$;
COMMENT ON FUNCTION wide.create_family(regclass, text, int, interval, text, text) IS
  'create a column family with a garbage-collection policy or an aggregate type';

CREATE FUNCTION wide.alter_family(tbl regclass, family text,
                                  max_versions int DEFAULT NULL,
                                  max_age interval DEFAULT NULL,
                                  gc text DEFAULT 'union')
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  doc jsonb := wide._lock_catalog(tbl);
  old jsonb := doc->'families'->family;
BEGIN
  IF old IS NULL THEN
    RAISE EXCEPTION 'column family "%" does not exist in wide table %', family, tbl
      USING ERRCODE = 'undefined_object';
  END IF;
  doc := jsonb_set(doc, ARRAY['families', family],
                   wide._family_entry(tbl, family, (old->>'id')::bigint,
                                      max_versions, max_age, gc, old->>'aggregate'));
  PERFORM wide._store_catalog(tbl, doc);
END
$$;
COMMENT ON FUNCTION wide.alter_family(regclass, text, int, interval, text) IS
  'replace the garbage-collection policy of a column family';

CREATE FUNCTION wide.drop_family(tbl regclass, family text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  doc jsonb := wide._lock_catalog(tbl);
BEGIN
  IF NOT doc->'families' ? family THEN
    RAISE EXCEPTION 'column family "%" does not exist in wide table %', family, tbl
      USING ERRCODE = 'undefined_object';
  END IF;
  doc := doc #- ARRAY['families', family];
  PERFORM wide._store_catalog(tbl, doc);
END
$$;
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
         CASE WHEN f.value ? 'max_versions' AND f.value ? 'max_age'
              THEN f.value->>'gc' END,
         f.value->>'aggregate'
  FROM jsonb_each(coalesce(wide.family_catalog_of(tbl)->'families', '{}'::jsonb)) AS f
  ORDER BY 1;
$$;
COMMENT ON FUNCTION wide.families(regclass) IS 'the column families of a wide table';

-- ----------------------------------------------------------------
-- Maintenance and inspection
-- ----------------------------------------------------------------

CREATE FUNCTION wide.compact(tbl regclass, major boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'wide_compact'
LANGUAGE C STRICT;
COMMENT ON FUNCTION wide.compact(regclass, boolean) IS
  'flush the write area and merge runs (all of them with major => true)';

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

CREATE FUNCTION wide.check_and_mutate_row(tbl regclass, row_key "any",
                                          predicate jsonb DEFAULT NULL,
                                          on_match jsonb DEFAULT NULL,
                                          on_no_match jsonb DEFAULT NULL)
RETURNS boolean
AS 'MODULE_PATHNAME', 'wide_check_and_mutate_row'
LANGUAGE C;
COMMENT ON FUNCTION wide.check_and_mutate_row(regclass, "any", jsonb, jsonb, jsonb) IS
  'under the row lock, apply on_match if the predicate filter outputs a cell of the row, else on_no_match (CheckAndMutateRow)';

CREATE FUNCTION wide.read_modify_write_row(tbl anyelement, row_key text, family text,
                                           qualifier text, append bytea DEFAULT NULL,
                                           increment bigint DEFAULT NULL)
RETURNS anyelement
AS 'MODULE_PATHNAME', 'wide_read_modify_write_row'
LANGUAGE C;
COMMENT ON FUNCTION wide.read_modify_write_row(anyelement, text, text, text, bytea, bigint) IS
  'under the row lock, append to or increment the newest cell of a column and return the new cell (ReadModifyWriteRow)';

-- ----------------------------------------------------------------
-- Aggregates
--
-- An aggregate cell (row, family, qualifier, ts) folds every input written
-- to it since its last delete: sum, min, max over int8, or a HyperLogLog
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
  'fold an input into an aggregate cell (AddToCell): int8 for sum/min/max, any value for hll';

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

CREATE FUNCTION wide._hll_add_trans(internal, anyelement)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_hll_add_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide._hll_union_trans(internal, bytea)
RETURNS internal
AS 'MODULE_PATHNAME', 'wide_hll_union_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wide._hll_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'wide_hll_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE wide.hll_add_agg(anyelement) (
  SFUNC = wide._hll_add_trans,
  STYPE = internal,
  FINALFUNC = wide._hll_final
);
COMMENT ON AGGREGATE wide.hll_add_agg(anyelement) IS
  'the HyperLogLog sketch of a column''s values, hashed as hll families hash inputs';

CREATE AGGREGATE wide.hll_union_agg(bytea) (
  SFUNC = wide._hll_union_trans,
  STYPE = internal,
  FINALFUNC = wide._hll_final
);
COMMENT ON AGGREGATE wide.hll_union_agg(bytea) IS
  'the HyperLogLog sketch of the union of a column of sketches';

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
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'wide_read_rows'
LANGUAGE C STABLE;
COMMENT ON FUNCTION wide.read_rows(anyelement, text[], text, text, boolean, boolean, text, jsonb, bigint, boolean, jsonb) IS
  'the cells of a set of rows, in key order, through a row filter (ReadRows)';

CREATE FUNCTION wide.sample_row_keys(tbl regclass, OUT row_key bytea, OUT offset_bytes bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_sample_row_keys'
LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION wide.sample_row_keys(regclass) IS
  'row keys splitting the table into stretches of similar size, with approximate byte offsets (SampleRowKeys)';

CREATE FUNCTION wide.read_rows_labeled(tbl anyelement,
                                       keys text[] DEFAULT NULL,
                                       start_key text DEFAULT NULL,
                                       end_key text DEFAULT NULL,
                                       start_inclusive boolean DEFAULT true,
                                       end_inclusive boolean DEFAULT false,
                                       prefix text DEFAULT NULL,
                                       ranges jsonb DEFAULT NULL,
                                       "limit" bigint DEFAULT NULL,
                                       reversed boolean DEFAULT false,
                                       filter jsonb DEFAULT NULL,
                                       OUT cell anyelement, OUT labels text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wide_read_rows'
LANGUAGE C STABLE;
COMMENT ON FUNCTION wide.read_rows_labeled(anyelement, text[], text, text, boolean, boolean, text, jsonb, bigint, boolean, jsonb) IS
  'read_rows, with the labels apply_label_transformer gave each cell';

CREATE FUNCTION wide.read_row(tbl anyelement, row_key text, filter jsonb DEFAULT NULL)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'wide_read_row'
LANGUAGE C STABLE;
COMMENT ON FUNCTION wide.read_row(anyelement, text, jsonb) IS
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
