--
-- publications_remote: a parent of tablets with a remote tablet is never
-- published, whether or not wide tables are decoded here (the same output
-- with and without wide preloaded): the cells of a remote tablet are
-- written on its node, and a subscriber would get the initial copy and then
-- only the local tablets' changes.  A remote tablet is a foreign-table
-- partition; a foreign data wrapper without handler is enough for the DDL
-- (test/t/225_remote_privileges.pl moves a tablet to a real node).
--
\set VERBOSITY default
-- (no WARNING about wal_level: it differs between the two runs)
SET client_min_messages = error;
CREATE FOREIGN DATA WRAPPER pr_fdw;
CREATE SERVER pr_node FOREIGN DATA WRAPPER pr_fdw;
CREATE SCHEMA pr;
CREATE TABLE pr.parent (row_key text COLLATE "C", family text COLLATE "C",
                        qualifier text COLLATE "C", ts int8, value int8)
  PARTITION BY RANGE (row_key);
CREATE TABLE pr.parent_1 PARTITION OF pr.parent FOR VALUES FROM (MINVALUE) TO ('m') USING wide;
CREATE FOREIGN TABLE pr.parent_2 PARTITION OF pr.parent FOR VALUES FROM ('m') TO (MAXVALUE)
  SERVER pr_node OPTIONS (schema_name 'pr', table_name 'parent_2');
CREATE TABLE h (a int PRIMARY KEY);

-- by name, with or without publish_via_partition_root, or added later
CREATE PUBLICATION prp FOR TABLE pr.parent WITH (publish_via_partition_root);
CREATE PUBLICATION prp FOR TABLE pr.parent;
CREATE PUBLICATION prp FOR TABLE h, pr.parent WITH (publish_via_partition_root = true);
CREATE PUBLICATION prp FOR TABLE h;
ALTER PUBLICATION prp ADD TABLE pr.parent;
ALTER PUBLICATION prp SET TABLE h, pr.parent;
-- by its schema, or FOR ALL TABLES
CREATE PUBLICATION prs FOR TABLES IN SCHEMA pr;
ALTER PUBLICATION prp ADD TABLES IN SCHEMA pr;
CREATE PUBLICATION pra FOR ALL TABLES;
-- what was refused left nothing behind
SELECT pubname, puballtables FROM pg_publication ORDER BY 1;
SELECT pubname, schemaname, tablename FROM pg_publication_tables ORDER BY 1, 2, 3;

-- a published parent gets no remote tablet: CREATE ... PARTITION OF, ATTACH
CREATE TABLE pr.pub (LIKE pr.parent) PARTITION BY RANGE (row_key);
ALTER PUBLICATION prp ADD TABLE pr.pub;
CREATE FOREIGN TABLE pr.pub_2 PARTITION OF pr.pub FOR VALUES FROM ('m') TO (MAXVALUE)
  SERVER pr_node OPTIONS (schema_name 'pr', table_name 'pub_2');
CREATE FOREIGN TABLE pr.pub_3 (row_key text COLLATE "C", family text COLLATE "C",
                               qualifier text COLLATE "C", ts int8, value int8)
  SERVER pr_node;
ALTER TABLE pr.pub ATTACH PARTITION pr.pub_3 FOR VALUES FROM ('m') TO (MAXVALUE);
SELECT count(*) FROM pg_inherits WHERE inhparent = 'pr.pub'::regclass;
-- nor is a tablet moved to a node (checked before the move starts)
SELECT wide_internal._refuse_published_remote('pr.pub');
SELECT wide_internal._refuse_published_remote('pr.parent');
-- once unpublished, it may
ALTER PUBLICATION prp DROP TABLE pr.pub;
ALTER TABLE pr.pub ATTACH PARTITION pr.pub_3 FOR VALUES FROM ('m') TO (MAXVALUE);
-- a FOR ALL TABLES publication covers every parent
DROP TABLE pr.parent;
DROP FOREIGN TABLE pr.pub_3;
CREATE PUBLICATION pra FOR ALL TABLES;
CREATE FOREIGN TABLE pr.pub_2 PARTITION OF pr.pub FOR VALUES FROM ('m') TO (MAXVALUE)
  SERVER pr_node OPTIONS (schema_name 'pr', table_name 'pub_2');
DROP PUBLICATION pra;
-- a partitioned table that is not a parent of tablets (not the columns of
-- a wide table) is PostgreSQL's business
CREATE TABLE other (a int, b text) PARTITION BY RANGE (a);
CREATE FOREIGN TABLE other_f PARTITION OF other FOR VALUES FROM (0) TO (10) SERVER pr_node;
ALTER PUBLICATION prp ADD TABLE other;
SELECT pubname, schemaname, tablename FROM pg_publication_tables ORDER BY 1, 2, 3;
DROP PUBLICATION prp;
RESET client_min_messages;
DROP TABLE other, h;
DROP SCHEMA pr CASCADE;
DROP SERVER pr_node;
DROP FOREIGN DATA WRAPPER pr_fdw;
