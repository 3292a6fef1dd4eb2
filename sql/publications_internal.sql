--
-- publications_internal: wide's own bookkeeping tables (the journal of
-- splits and moves, the rows they track, the decision records of
-- distributed commits) are ordinary tables of schema wide, so a
-- publication FOR ALL TABLES or FOR TABLES IN SCHEMA wide includes them,
-- and PostgreSQL refuses a DELETE from a published table that has no
-- replica identity.  Every split and move on a server with such a
-- publication failed at its end ("cannot delete from table
-- "tablet_op_changes" ..."), and resolve_tablets on a coordinator with
-- one could not forget a decided transaction ("remote_commits"); found by
-- test/t/226_dist_stress.pl.  Each has a replica identity now.
--
\set SHOW_CONTEXT never
-- (no WARNING about wal_level: it differs between the two runs)
SET client_min_messages = error;
SELECT wide_internal._tablet_ops_tables();
SELECT wide_internal._remote_commit_record('{}') LIKE 'wide\_%' AS made;
-- every table of wide's schemas can be deleted from while published
SELECT c.oid::regclass AS tbl,
       c.relreplident IN ('f', 'i') OR EXISTS (SELECT FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary) AS identity
  FROM pg_class c
 WHERE c.relnamespace IN ('wide'::regnamespace, 'wide_internal'::regnamespace) AND c.relkind IN ('r', 'p')
 ORDER BY c.relname COLLATE "C";
CREATE PUBLICATION pub_wide FOR TABLES IN SCHEMA wide;
-- a split of a local tablet: the rows it tracked are deleted at its end
CREATE TABLE pi (row_key text COLLATE "C", family text COLLATE "C",
                 qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
SELECT wide.create_family('pi', 'm');
SELECT * FROM wide.create_tablets('pi', ARRAY['m'], ARRAY['local', 'local']);
INSERT INTO pi SELECT chr(97 + i % 26) || i, 'm', 'q', i, i FROM generate_series(1, 500) i;
-- (a tablet's REPLICA IDENTITY FULL goes to the tablets a split makes: a
-- published parent's deletes need it on every tablet; t/226 found the new
-- tablets without it, and rebuild_rollup refused by PostgreSQL)
ALTER TABLE pi_1 REPLICA IDENTITY FULL;
CALL wide.split_tablet('pi', 'pi_1', 'f');
SELECT pg_get_expr(c.relpartbound, c.oid) AS bound, c.relreplident FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'pi'::regclass ORDER BY pg_get_expr(c.relpartbound, c.oid) COLLATE "C";
-- (or the parent's, e.g. for a tablet that comes home from a node)
ALTER TABLE pi REPLICA IDENTITY FULL;
CALL wide.split_tablet('pi', 'pi_2', 's');
SELECT pg_get_expr(c.relpartbound, c.oid) AS bound, c.relreplident FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'pi'::regclass ORDER BY pg_get_expr(c.relpartbound, c.oid) COLLATE "C";
SELECT op, step FROM wide.tablet_ops WHERE parent = 'pi'::regclass ORDER BY id;
SELECT count(*), sum(value) FROM pi;
SELECT count(*) FROM wide.tablet_op_changes;
-- the decision records: resolve_tablets deletes those of finished transactions
BEGIN;
INSERT INTO wide.remote_commits (gid, server, xid) VALUES ('wide_test_1_1', 0, '1');
DELETE FROM wide.remote_commits WHERE gid = 'wide_test_1_1';
COMMIT;
DROP PUBLICATION pub_wide;
RESET client_min_messages;
DROP TABLE pi;
