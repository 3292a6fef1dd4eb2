-- compaction passing data blocks through unchanged (engine/blockpass.c):
-- the merged table holds exactly what a record-by-record merge writes
-- (wide.compaction_pass_through = off, on a twin), whatever the families'
-- policies, dropped families, values kept in blobs, and later writes.
CREATE TABLE cp (row_key text, family text, qualifier text, ts timestamptz,
                 value text) USING wide;
CREATE TABLE cp_twin (row_key text, family text, qualifier text, ts timestamptz,
                      value text) USING wide;
SELECT wide.create_family(t, 'f'), wide.create_family(t, 'v', max_versions => 1),
       wide.create_family(t, 'a', max_age => '1 day'), wide.create_family(t, 'gone')
  FROM unnest(ARRAY['cp', 'cp_twin']::regclass[]) t;

-- time-major loads: each holds every host for a stretch of time; some
-- values long enough to be kept in blobs
CREATE FUNCTION pg_temp.load(tbl regclass, k int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s
    SELECT 'host_' || lpad(h::text, 3, '0') || '#' || (1000 + %s * 100 + s),
           fam, 'm' || q, timestamptz '2030-01-01' + (%s * 100 + s) * interval '10 s',
           CASE WHEN (h + s + q) %% 97 = 0 THEN repeat(md5(h || ':' || s), 80)
                ELSE ((h * 7 + s * 3 + q) %% 101)::text END
      FROM generate_series(1, 40) h, generate_series(0, 99) s, generate_series(1, 3) q,
           unnest(ARRAY['f', 'v']) fam
    UNION ALL
    SELECT 'host_' || lpad(h::text, 3, '0') || '#' || (1000 + %s * 100),
           fam, 'x', timestamptz '2020-01-01' + h * interval '1 s', 'old ' || h
      FROM generate_series(1, 40, 3) h,
           unnest(CASE WHEN %s < 4 THEN ARRAY['a', 'gone'] ELSE ARRAY['a'] END) fam$q$,
    tbl, k, k, k, k);
END $$;
SELECT pg_temp.load('cp', 0), pg_temp.load('cp_twin', 0);
SELECT FROM wide.compact('cp') a, wide.compact('cp_twin') b;
SELECT pg_temp.load('cp', 1), pg_temp.load('cp_twin', 1);
SELECT FROM wide.compact('cp') a, wide.compact('cp_twin') b;
SELECT pg_temp.load('cp', 2), pg_temp.load('cp_twin', 2);
SELECT FROM wide.compact('cp') a, wide.compact('cp_twin') b;
-- a second version of some cells of v, in a later run
INSERT INTO cp SELECT 'host_' || lpad(h::text, 3, '0') || '#' || 1005, 'v', 'm1',
       timestamptz '2030-01-01' + 5 * interval '10 s', 'new' FROM generate_series(1, 40, 2) h;
INSERT INTO cp_twin SELECT 'host_' || lpad(h::text, 3, '0') || '#' || 1005, 'v', 'm1',
       timestamptz '2030-01-01' + 5 * interval '10 s', 'new' FROM generate_series(1, 40, 2) h;
SELECT FROM wide.compact('cp') a, wide.compact('cp_twin') b;
SELECT wide.drop_family('cp', 'gone'), wide.drop_family('cp_twin', 'gone');
SELECT count(*) AS runs FROM wide.runs('cp');

-- every run into one: passing blocks through, and not
SELECT FROM wide.compact('cp', major => true);
SET wide.compaction_pass_through = off;
SELECT FROM wide.compact('cp_twin', major => true);
RESET wide.compaction_pass_through;
SELECT (SELECT count(*) FROM cp) AS cells, (SELECT count(*) FROM cp_twin) AS twin_cells;
SELECT count(*) AS only_in_cp FROM (TABLE cp EXCEPT ALL TABLE cp_twin) x;
SELECT count(*) AS only_in_twin FROM (TABLE cp_twin EXCEPT ALL TABLE cp) x;
SELECT count(*) FILTER (WHERE length(value) > 2000) AS long_values,
       count(*) FILTER (WHERE family = 'a') AS collected_by_age,
       count(*) FILTER (WHERE value = 'new') AS newest_versions
  FROM cp;
SELECT run, oldest_xid FROM wide.runs('cp');
SELECT * FROM wide.verify('cp');
-- point reads through the new index blocks' row filters
SELECT count(*) FROM generate_series(1, 40, 3) h, generate_series(0, 399, 37) s,
  LATERAL (SELECT * FROM cp WHERE row_key = 'host_' || lpad(h::text, 3, '0') || '#' || (1000 + s)) c;
SELECT count(*) FROM generate_series(1, 40, 3) h, generate_series(0, 399, 37) s,
  LATERAL (SELECT * FROM cp_twin WHERE row_key = 'host_' || lpad(h::text, 3, '0') || '#' || (1000 + s)) c;

-- VACUUM frees what the merge did not keep (never a blob a passed block
-- owns); new writes reuse that space; merged again, passed blocks pass on
VACUUM cp;
VACUUM cp_twin;
SELECT pg_temp.load('cp', 4), pg_temp.load('cp_twin', 4);
SELECT FROM wide.compact('cp', major => true);
SET wide.compaction_pass_through = off;
SELECT FROM wide.compact('cp_twin', major => true);
RESET wide.compaction_pass_through;
SELECT count(*) AS only_in_cp FROM (TABLE cp EXCEPT ALL TABLE cp_twin) x;
SELECT count(*) AS only_in_twin FROM (TABLE cp_twin EXCEPT ALL TABLE cp) x;
SELECT count(*) FILTER (WHERE length(value) > 2000) AS long_values FROM cp;
SELECT * FROM wide.verify('cp');
DROP TABLE cp, cp_twin;

-- one transaction's runs with subtransactions: the resolver takes a
-- transaction it found committed before every snapshot as settled for its
-- next records (resolve.c, settled_xid); a rolled-back subtransaction's
-- records, among them and overwriting some, carry their own xid and go
CREATE TABLE sx (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
SELECT wide.create_family('sx', 'cpu', max_versions => 1);
SET wide.statement_run_size = 0;
BEGIN;
INSERT INTO sx SELECT 'h' || h || '#' || s, 'cpu', 'm', s, 1
  FROM generate_series(1, 20) h, generate_series(0, 999) s;
SAVEPOINT a;
INSERT INTO sx SELECT 'h' || h || '#' || s, 'cpu', 'm', s, 100
  FROM generate_series(1, 20) h, generate_series(1000, 1999) s;
INSERT INTO sx SELECT 'h' || h || '#' || s, 'cpu', 'm', s, 100
  FROM generate_series(1, 20) h, generate_series(0, 999, 7) s;
ROLLBACK TO a;
SAVEPOINT b;
INSERT INTO sx SELECT 'h' || h || '#' || s, 'cpu', 'm', s, 10
  FROM generate_series(1, 20) h, generate_series(2000, 2999) s;
RELEASE b;
INSERT INTO sx SELECT 'h' || h || '#' || s, 'cpu', 'm', s, 1000
  FROM generate_series(1, 20) h, generate_series(3000, 3099) s;
COMMIT;
RESET wide.statement_run_size;
SELECT count(*), sum(value) FROM sx;
VACUUM sx;
SELECT FROM wide.compact('sx', major => true);
SELECT count(*), sum(value), count(*) FILTER (WHERE value = 100) AS rolled_back FROM sx;
SELECT count(*) AS runs, count(oldest_xid) AS runs_with_xids FROM wide.runs('sx');
SELECT * FROM wide.verify('sx');
DROP TABLE sx;
