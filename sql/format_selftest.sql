-- The engine's formats from inside (src/engine/selftest.c): data blocks of
-- random records written, framed for storage, loaded and read back field by
-- field; row directory seeks and skips against a linear search; damaged
-- blocks decoded without reading past their end; index blocks and their
-- row filters; the survey of blocks a compaction may pass.  A mismatch is an
-- ERROR naming the seed and round.  (Not shown for a given seed: the row
-- directory's seeks, whose count depends on where the blocks' directory
-- points fall, so on the lengths of the records' xmins, drawn below the
-- next transaction id; the last query checks there are some.)
SELECT * FROM wide_internal.format_selftest(1, 150) WHERE part <> 'row directory seeks';
SELECT * FROM wide_internal.format_selftest(20261128, 150) WHERE part <> 'row directory seeks';
-- a seed of its own each run: any failure names the seed that reproduces it
SELECT count(*) AS parts, bool_and(cases > 0) AS all_checked
  FROM wide_internal.format_selftest((random() * 1e15)::bigint, 100)
 WHERE part <> 'damaged blocks' OR cases > 0;
-- bad input
SELECT * FROM wide_internal.format_selftest(1, -1);
-- not for PUBLIC: an internal function
CREATE ROLE wide_selftest_role;
SET ROLE wide_selftest_role;
SELECT * FROM wide_internal.format_selftest(1, 1);
RESET ROLE;
DROP ROLE wide_selftest_role;
