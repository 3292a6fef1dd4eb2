-- Nested GC rules, as Bigtable's GcRule: unions and intersections of
-- max_num_versions and max_age, at any depth (up to 8, 32 parts).  A read
-- and a compaction collect exactly the same versions.
CREATE TABLE g (row_key text, family text, qualifier text, ts timestamptz, value text) USING wide;
-- collect beyond the newest version, if older than a day or beyond 3
SELECT wide.create_family('g', 'a', gc_rule => '{"intersection": [{"max_num_versions": 1},
  {"union": [{"max_age": "86400s"}, {"max_num_versions": 3}]}]}');
-- collect beyond the newest 4 if older than a day, and always beyond 5
-- (Bigtable's JSON: camelCase names, {"rules": [...]})
SELECT wide.create_family('g', 'b', gc_rule => '{"union": {"rules": [{"intersection": {"rules":
  [{"maxNumVersions": 4}, {"maxAge": "1 day"}]}}, {"maxNumVersions": 5}]}}');
-- a flat policy written as a rule stays flat
SELECT wide.create_family('g', 'c', gc_rule => '{"intersection": [{"max_age": "2 days"}, {"max_num_versions": 2}]}');
SELECT wide.create_family('g', 'd', gc_rule => '{"max_num_versions": 2}');
SELECT * FROM wide.families('g');

-- six versions of a column in each family: now - 1 min, 1 h, 2 h, 2 d, 3 d, 7 d
INSERT INTO g SELECT 'r', f, 'q', now() - a, f || ' ' || a::text
  FROM unnest(ARRAY['a', 'b', 'c', 'd']) f,
       unnest(ARRAY[interval '1 min', '1 hour', '2 hours', '2 days', '3 days', '7 days']) a;
SELECT family, value FROM g ORDER BY family, ts DESC;
SELECT FROM wide.compact('g', major => true);
SELECT family, value FROM g ORDER BY family, ts DESC;
SELECT family, count(*) FROM wide.read_rows(NULL::g) GROUP BY 1 ORDER BY 1;

-- alter_family takes a rule too, and flat arguments replace it
SELECT wide.alter_family('g', 'd', gc_rule => '{"union": [{"max_num_versions": 1}, {"intersection": [{"max_age": "1s"}, {"max_num_versions": 1}]}]}');
SELECT * FROM wide.families('g') WHERE family = 'd';
SELECT wide.alter_family('g', 'a', max_versions => 2);
SELECT * FROM wide.families('g') WHERE family = 'a';
SELECT family, count(*) FROM g GROUP BY 1 ORDER BY 1;

-- bad rules are refused, and the catalog is unchanged
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT wide.family_catalog_of('g') AS before \gset
SELECT wide.create_family('g', 'x', gc_rule => '{"max_num_versions": 0}');
SELECT wide.create_family('g', 'x', gc_rule => '{"max_age": "-5s"}');
SELECT wide.create_family('g', 'x', gc_rule => '{"max_age": "soon"}');
SELECT wide.create_family('g', 'x', gc_rule => '{"union": []}');
SELECT wide.create_family('g', 'x', gc_rule => '{"union": [{"max_num_versions": 1}], "intersection": []}');
SELECT wide.create_family('g', 'x', gc_rule => '{"max_versions": 1}');
SELECT wide.create_family('g', 'x', gc_rule => '[{"max_num_versions": 1}]');
SELECT wide.create_family('g', 'x', max_versions => 2, gc_rule => '{"max_num_versions": 1}');
SELECT wide.create_family('g', 'x', gc_rule => '{"union": [{"union": [{"union": [{"union": [{"union":
  [{"union": [{"union": [{"union": [{"union": [{"max_num_versions": 1}]}]}]}]}]}]}]}]}]}');
SELECT wide.create_family('g', 'x', gc_rule => jsonb_build_object('union',
  (SELECT jsonb_agg(jsonb_build_object('max_num_versions', i)) FROM generate_series(1, 40) i)));
SELECT wide.family_catalog_of('g') = :'before'::jsonb AS unchanged;
\set VERBOSITY terse

-- a catalog written by hand is checked when the table is opened
SELECT wide_internal._store_catalog('g', '{"version": 1, "next_id": 9, "families": {"a": {"id": 1, "gc_rule": {"union": [{"max_num_versions": -1}]}}}}');
SELECT count(*) FROM g;
DROP TABLE g;
