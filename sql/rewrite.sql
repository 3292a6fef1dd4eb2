--
-- rewrite: ALTER TABLE ... SET ACCESS METHOD out of and into wide
-- (issue 9, defect 15: the rewrite fetches in a per-tuple memory context)
--
CREATE TABLE rw (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('rw', 'f');
-- 10,000 cells in one statement, every 100th value large enough for a blob,
-- part flushed into segments, part in the write area
SET wide.flush_threshold = 64;
INSERT INTO rw SELECT 'r' || i, 'f', 'q' || (i % 7), i,
       CASE WHEN i % 100 = 0 THEN repeat(md5(i::text), 200) ELSE 'v' || i END
  FROM generate_series(1, 10000) i;
RESET wide.flush_threshold;
INSERT INTO rw VALUES ('r1', 'f', 'q1', 1, 'replaced');
CREATE TABLE rw_copy AS SELECT * FROM rw;

ALTER TABLE rw SET ACCESS METHOD heap;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'rw';
SELECT count(*), sum(length(value)) FROM rw;
SELECT count(*) FROM ((TABLE rw EXCEPT TABLE rw_copy) UNION ALL (TABLE rw_copy EXCEPT TABLE rw)) d;

-- (moving back into wide works by ALTER TABLE too, see move_in; here by
-- creating a wide table and INSERT ... SELECT)
CREATE TABLE rw2 (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('rw2', 'f');
INSERT INTO rw2 SELECT * FROM rw;
SELECT count(*) FROM ((TABLE rw2 EXCEPT TABLE rw_copy) UNION ALL (TABLE rw_copy EXCEPT TABLE rw2)) d;

DROP TABLE rw, rw2, rw_copy;
