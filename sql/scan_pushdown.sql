--
-- scan_pushdown: which row_key conditions the Wide Scan turns into key
-- ranges, and that every one of them returns what a heap table returns
--
-- Defect 6 (issue 9): a text-name operator of the btree text family was
-- pushed down and the 64-byte name read as a text datum (crash or wrong
-- rows).  Defect 8: row_key = ANY(<computed array>) kept its keys in
-- per-tuple memory, which the scan resets (crash).
--
\set SHOW_CONTEXT never
CREATE TABLE pk (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('pk', 'cf');
CREATE TABLE pkh (row_key text COLLATE "C", family text COLLATE "C",
                  qualifier text COLLATE "C", ts int8, value text);
INSERT INTO pkh
SELECT k, 'cf', q, 1, k || '/' || q
  FROM unnest(ARRAY['a', 'a ', 'a  ', 'ab', 'abc', 'a%', 'a_', 'a\', 'b', 'b  ',
                    'k1', 'k2', 'k3', 'k10', 'regress_pk_user', 'regress_pk_use',
                    repeat('x', 63), repeat('x', 64), repeat('x', 70), 'é', 'z']) k,
       unnest(ARRAY['q1', 'q2']) q;
INSERT INTO pk SELECT * FROM pkh;
SELECT FROM wide.compact('pk', true);
INSERT INTO pk VALUES ('k2', 'cf', 'q3', 1, 'k2/q3'), ('b', 'cf', 'q3', 1, 'b/q3');
INSERT INTO pkh VALUES ('k2', 'cf', 'q3', 1, 'k2/q3'), ('b', 'cf', 'q3', 1, 'b/q3');

-- the same rows from the wide table (with the Wide Scan) and from the heap
CREATE FUNCTION pk_check(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	w text;
	h text;
BEGIN
	EXECUTE 'SELECT string_agg(value, '','' ORDER BY value COLLATE "C") FROM pk WHERE ' || cond INTO w;
	EXECUTE 'SELECT string_agg(value, '','' ORDER BY value COLLATE "C") FROM pkh WHERE ' || cond INTO h;
	IF w IS DISTINCT FROM h THEN
		RETURN format('MISMATCH wide: %s heap: %s', w, h);
	END IF;
	RETURN coalesce(w, '(none)');
END
$$;

-- name (defect 6): converted exactly, pushed down
CREATE ROLE regress_pk_user;
GRANT SELECT ON pk TO regress_pk_user;
SET ROLE regress_pk_user;
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key = current_user;
SELECT row_key, qualifier FROM pk WHERE row_key = current_user;
SELECT row_key, qualifier FROM pk WHERE current_user = row_key;
RESET ROLE;
-- the usual row-level security policy
ALTER TABLE pk ENABLE ROW LEVEL SECURITY;
CREATE POLICY pk_own ON pk USING (row_key = current_user);
SET ROLE regress_pk_user;
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key >= 'a';
SELECT row_key, qualifier FROM pk WHERE row_key >= 'a';
SELECT row_key, qualifier FROM pk WHERE row_key = 'k1';
RESET ROLE;
ALTER TABLE pk DISABLE ROW LEVEL SECURITY;
DROP POLICY pk_own ON pk;
SELECT pk_check('row_key = ''k1''::name');
SELECT pk_check('row_key = ''regress_pk_user''::name');
SELECT pk_check('row_key > ''k1''::name AND row_key <= ''k3''::name');
SELECT pk_check('''k2''::name >= row_key AND row_key >= ''k1''::name');
SELECT pk_check('row_key < ''a%''::name');
-- a name is cut to 63 bytes: the 64- and 70-byte keys are not equal to it
SELECT pk_check('row_key = ' || quote_literal(repeat('x', 70)) || '::name');
SELECT pk_check('row_key >= ' || quote_literal(repeat('x', 70)) || '::name');
SELECT pk_check('row_key = ANY(ARRAY[''a'', ''k1'', NULL, ''zz'']::name[])');
SELECT pk_check('row_key = ANY(ARRAY[current_user, ''b''])');
SELECT pk_check('row_key = NULL::name');
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key = ANY(ARRAY['a', 'b']::name[]);

-- varchar is relabelled to text; bpchar is cast to text (trailing spaces
-- stripped) or compared as bpchar (row_key cast, not pushed down)
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key = 'a  '::varchar;
SELECT pk_check('row_key = ''a  ''::varchar');
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key = 'a  '::bpchar;
SELECT pk_check('row_key = ''a  ''::bpchar');
SELECT pk_check('row_key = ''b ''::char(5)');
SELECT pk_check('row_key::bpchar = ''b''::bpchar');
SELECT pk_check('row_key < ''a  ''::bpchar');
SELECT pk_check('row_key = ANY(ARRAY[''a  '', ''b'']::bpchar[])');
SELECT pk_check('row_key = ANY(ARRAY[''a  '', ''b'']::varchar[])');

-- LIKE: a constant prefix is exact; other patterns are rechecked
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key LIKE 'a%';
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key LIKE 'a_%';
SELECT pk_check('row_key LIKE ''a%''');
SELECT pk_check('row_key LIKE ''a\%%''');
SELECT pk_check('row_key LIKE ''a\\%''');
SELECT pk_check('row_key LIKE ''a_''');
SELECT pk_check('row_key LIKE ''a#%'' ESCAPE ''#''');
SELECT pk_check('row_key LIKE ''a''::name');
SELECT pk_check('row_key LIKE (SELECT min(row_key) FROM pkh WHERE row_key > ''j'') || ''%''');
SELECT pk_check('row_key ILIKE ''A%''');
SELECT pk_check('starts_with(row_key, ''k1'')');
SELECT pk_check('row_key ^@ ''a''::name');
SELECT pk_check('row_key LIKE ''x%'' AND row_key LIKE ''%x''');

-- under another collation a comparison is only a filter
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key < 'b' COLLATE "POSIX";
SELECT pk_check('row_key < ''b'' COLLATE "POSIX"');

-- generic plans of prepared statements: parameters of every type
SET plan_cache_mode = force_generic_plan;
PREPARE pn(name) AS SELECT row_key, qualifier FROM pk WHERE row_key = $1;
EXPLAIN (COSTS OFF) EXECUTE pn('k1');
EXECUTE pn('k1');
EXECUTE pn('regress_pk_user');
PREPARE pb(bpchar, varchar) AS SELECT row_key, qualifier FROM pk WHERE row_key >= $1 AND row_key < $2;
EXECUTE pb('b  ', 'k2');
PREPARE pa(name[]) AS SELECT row_key, qualifier FROM pk WHERE row_key = ANY($1);
EXECUTE pa(ARRAY['a ', 'k3', NULL]);
EXECUTE pa(NULL);
PREPARE pl(text) AS SELECT row_key, qualifier FROM pk WHERE row_key LIKE $1;
EXECUTE pl('k1%');
EXECUTE pl('a\%');
RESET plan_cache_mode;

-- defect 8: computed arrays whose keys must outlive per-tuple memory, with
-- a qual that allocates on every row
SET my.keys = 'k1,k2,b,a%,nope';
EXPLAIN (COSTS OFF) SELECT count(*) FROM pk
 WHERE row_key = ANY(string_to_array(current_setting('my.keys'), ','))
   AND length(upper(qualifier || repeat('zyxw', length(value) * 100))) > 0;
SELECT row_key, qualifier FROM pk
 WHERE row_key = ANY(string_to_array(current_setting('my.keys'), ','))
   AND length(upper(qualifier || repeat('zyxw', length(value) * 100))) > 0;
SELECT pk_check('row_key = ANY(string_to_array(current_setting(''my.keys''), '','')) AND row_key = ANY(ARRAY[''b'', ''k2'', ''k3''])');
-- rescans: a correlated array per outer row (a nested loop's inner side)
SELECT v.k, (SELECT string_agg(row_key || '/' || qualifier, ',' ORDER BY row_key, qualifier) FROM pk
              WHERE row_key = ANY(string_to_array(v.k, ','))
                AND length(upper(qualifier || repeat('zyxw', length(value) * 100))) > 0)
  FROM (VALUES ('k1,k2'), ('b'), (''), ('a%,k3,nope'), (NULL)) v(k);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT v.k, s.row_key, s.qualifier
  FROM (VALUES ('k1,k2'), ('b'), ('k3')) v(k),
       LATERAL (SELECT row_key, qualifier FROM pk
                 WHERE row_key = ANY(string_to_array(v.k, ','))
                   AND length(upper(qualifier || repeat('zyxw', length(value) * 100))) > 0
                 ORDER BY row_key DESC, qualifier LIMIT 3) s
 ORDER BY 1, 2, 3;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- starts_with, ^@, LIKE and ILIKE with every type PostgreSQL compares
-- with text: name, varchar and bpchar operands and casts of row_key
SELECT pk_check('starts_with(row_key, ''a''::name)');
SELECT pk_check('starts_with(row_key, ''a ''::bpchar)');
SELECT pk_check('starts_with(row_key, ''a ''::varchar)');
SELECT pk_check('row_key ^@ ''k1''::name');
SELECT pk_check('row_key ^@ ''a ''::char(3)');
SELECT pk_check('row_key LIKE ''a%''::name');
SELECT pk_check('row_key LIKE ''a\%''::varchar');
SELECT pk_check('row_key LIKE ''a %''::bpchar');
SELECT pk_check('row_key ILIKE ''A%''::name');
SELECT pk_check('row_key ILIKE ''K1%''::bpchar');
SELECT pk_check('row_key ILIKE ''REGRESS_PK_%''::varchar');
SELECT pk_check('row_key::name LIKE ''k%''');
SELECT pk_check('row_key::name ILIKE ''K%''');
SELECT pk_check('row_key::bpchar LIKE ''a%''');
SELECT pk_check('row_key::bpchar = ''a''::bpchar');
SELECT pk_check('row_key::varchar ILIKE ''AB%''');
SELECT pk_check('row_key::name ^@ ''x''');
SELECT pk_check('starts_with(row_key::name, ''regress'')');
SELECT pk_check('row_key NOT LIKE ''a%''::name AND row_key < ''b''');
SELECT pk_check('row_key ILIKE ANY(ARRAY[''A_'', ''K%'']::name[])');
SELECT pk_check('row_key LIKE ''%''::name AND row_key < ''ac''');
SELECT pk_check('row_key ILIKE NULL::name');
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE starts_with(row_key, 'a'::name);
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key ILIKE 'K1%'::bpchar;
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key::name LIKE 'k%';

-- wide.enable_customscan = off: plain sequential scans
SET wide.enable_customscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM pk WHERE row_key = 'k1';
SELECT pk_check('row_key = current_user::text OR row_key = ''k1''::name');
RESET wide.enable_customscan;

DROP FUNCTION pk_check(text);
DROP TABLE pk, pkh;
DROP ROLE regress_pk_user;
