--
-- delete_gc: a statement's result does not depend on whether compaction ran
-- (issue 24, defect 10).  In a family with a version limit, a delete of the
-- visible versions used to uncover the older versions the policy hid --
-- unless a compaction had collected them first.  Now a version hidden by
-- the policy is gone for good: a column delete also removes the versions
-- its family's policy hides at that moment (engine/uncover.c).
--
-- Each case loads 5 versions (values 1..5, 1 the newest, an hour apart)
-- of two columns of row r and one of row s, commits, compacts or not,
-- runs one delete form, and records the cells left (by value), then after
-- a compaction again.  The two runs of a case must agree.
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE gc_results (policy text, form text, pre text, before text, after text);
CREATE PROCEDURE gc_case(policy text, form text, pre text)
LANGUAGE plpgsql AS $$
DECLARE
  now_us int8 := (extract(epoch FROM clock_timestamp()) * 1000000)::int8;
  t1 int8 := now_us - 3600000000;   -- the newest version's timestamp
  b text;
  a text;
BEGIN
  DROP TABLE IF EXISTS d;
  CREATE TABLE d (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
  PERFORM wide.create_family('d', 'f', gc_rule => policy::jsonb);
  FOR k IN REVERSE 5..1 LOOP
    INSERT INTO d VALUES ('r', 'f', 'q', now_us - k * 3600000000, k),
                         ('r', 'f', 'p', now_us - k * 3600000000, 10 + k),
                         ('s', 'f', 'q', now_us - k * 3600000000, 20 + k);
    COMMIT;
  END LOOP;
  IF pre = 'compact' THEN
    PERFORM wide.compact('d', major => true);
    COMMIT;
  END IF;
  EXECUTE replace(replace(replace(form, 'T1', t1::text), 'T2', (t1 - 3600000000)::text), 'T3', (t1 + 1)::text);
  COMMIT;
  SELECT string_agg(row_key || qualifier || value, ' ' ORDER BY row_key, qualifier, ts DESC) INTO b FROM d;
  PERFORM wide.compact('d', major => true);
  COMMIT;
  SELECT string_agg(row_key || qualifier || value, ' ' ORDER BY row_key, qualifier, ts DESC) INTO a FROM d;
  INSERT INTO gc_results VALUES (policy, form, pre, coalesce(b, '-'), coalesce(a, '-'));
  COMMIT;
END $$;
CREATE TABLE policies (policy text);
INSERT INTO policies VALUES
  ('{"max_num_versions": 2}'),
  ('{"union": [{"max_num_versions": 2}, {"max_age": "3h30m"}]}'),
  ('{"intersection": [{"max_num_versions": 2}, {"max_age": "3h30m"}]}'),
  ('{"max_age": "3h30m"}'),
  ('{"union": [{"max_num_versions": 4}, {"intersection": [{"max_num_versions": 2}, {"max_age": "2h30m"}]}]}');
CREATE TABLE forms (form text);
INSERT INTO forms VALUES
  ('DELETE FROM d'),
  ('DELETE FROM d WHERE row_key = ''r'''),
  ('DELETE FROM d WHERE ts = T1'),
  ('DELETE FROM d WHERE qualifier = ''q'' AND value = 2'),
  ('DELETE FROM d WHERE value IN (1, 11, 22)'),
  ('DELETE FROM d USING (VALUES (1), (11), (12)) v(x) WHERE d.value = v.x'),
  ('WITH x AS (DELETE FROM d WHERE value IN (1, 21) RETURNING value) SELECT count(*) FROM x'),
  ('DO $x$ BEGIN BEGIN DELETE FROM d WHERE value = 1; RAISE EXCEPTION ''boom''; EXCEPTION WHEN others THEN NULL; END; DELETE FROM d WHERE value = 2; END $x$'),
  ('SELECT wide.delete_cells(''d'', ''r'', ''f'', ''q'', T1, T1 + 1)'),
  ('SELECT wide.delete_cells(''d'', ''r'', ''f'', ''q'', T2)'),
  ('SELECT wide.delete_cells(''d'', ''r'', ''f'', ''q'')'),
  ('SELECT wide.mutate_row(''d'', ''r'', ''[{"deleteFromColumn": {"familyName": "f", "columnQualifier": "cQ==", "timeRange": {"startTimestampMicros": "T1", "endTimestampMicros": "T3"}}}]'')'),
  ('SELECT wide.mutate_row(''d'', ''r'', ''[{"deleteFromColumn": {"familyName": "f", "columnQualifier": "cQ==", "timeRange": {"startTimestampMicros": "T2"}}}, {"setCell": {"familyName": "f", "columnQualifier": "cA==", "timestampMicros": "T1", "value": "AAAAAAAAAGM="}}]'')'),
  ('SELECT wide.delete_family(''d'', ''r'', ''f'')'),
  ('SELECT wide.delete_row(''d'', ''r'')'),
  ('SELECT wide.delete_cells(''d'', ''r'', ''f'', ''q'', T1, T1 + 1), wide.delete_cells(''d'', ''r'', ''f'', ''p'', T2, T2 + 1)'),
  ('SELECT wide.delete_cells(''d'', ''r'', ''f'', ''q'', 0, 1), wide.delete_cells(''d'', ''r'', ''f'', ''q'', T1, T1 + 1)');
DO $$
DECLARE
  c record;
BEGIN
  FOR c IN SELECT policy, form, pre FROM policies, forms, (VALUES ('none'), ('compact')) v(pre)
           ORDER BY 1, 2, 3 LOOP
    CALL gc_case(c.policy, c.form, c.pre);
  END LOOP;
END $$;
-- what each form leaves, the same whether compaction ran before it or not
-- and after a compaction
SELECT n.policy, n.form, n.before AS cells,
       n.before = n.after AND n.before = c.before AND c.before = c.after AS same
  FROM gc_results n JOIN gc_results c USING (policy, form)
 WHERE n.pre = 'none' AND c.pre = 'compact'
 ORDER BY 1, 2;
-- the cases that differ (none)
SELECT n.policy, n.form, n.before, n.after, c.before AS compacted_before, c.after AS compacted_after
  FROM gc_results n JOIN gc_results c USING (policy, form)
 WHERE n.pre = 'none' AND c.pre = 'compact'
   AND NOT (n.before = n.after AND n.before = c.before AND c.before = c.after)
 ORDER BY 1, 2;
DROP TABLE d, gc_results, policies, forms;
DROP PROCEDURE gc_case;
