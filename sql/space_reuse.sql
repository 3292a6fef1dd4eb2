--
-- space_reuse: freed pages are reused safely (issue 9, defect 2)
--
-- A freed segment whose header spans several pages (here: 3,000 blobs) is
-- a SEGMENT entry of the free queue, read from its header chain.  Its extra
-- header pages used to be handed out while the entry was still live; the
-- next use of the entry then followed the chain into a reused page, and
-- every later write, compaction and VACUUM failed.
--
\set SHOW_CONTEXT never
CREATE TABLE big (row_key text, family text, qualifier text, ts int8, value text) USING wide;
ALTER TABLE big SET (autovacuum_enabled = off);
SELECT wide.create_family('big', 'cf');
-- 3,000 rows of 10 kB incompressible values: one blob each
INSERT INTO big SELECT 'k' || i, 'cf', 'q', 1,
    (SELECT string_agg(md5(i::text || '-' || j), '') FROM generate_series(1, 320) j)
  FROM generate_series(1, 3000) i;
SELECT FROM wide.compact('big', true);
INSERT INTO big VALUES ('small', 'cf', 'q', 1, 'x');
-- frees the big segment, its header chain several pages long
SELECT FROM wide.compact('big', true);
-- reuse its pages: the write area takes them one at a time
INSERT INTO big SELECT 's' || i, 'cf', 'q', 1, 'v' FROM generate_series(1, 2000) i;
SELECT count(*), sum(length(value)) FROM big;
SELECT FROM wide.compact('big', true);
VACUUM big;
INSERT INTO big VALUES ('after', 'cf', 'q', 1, 'x');
SELECT FROM wide.compact('big', true);
SELECT count(*), sum(length(value)) FROM big;
SELECT count(*) AS problems FROM wide.verify('big');
DROP TABLE big;
