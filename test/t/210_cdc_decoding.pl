# Logical decoding of wide tables (issue 15, part 2): with wide in
# shared_preload_libraries and wal_level = logical, test_decoding delivers
# every kind of write to a wide table -- INSERT (one row, a statement run),
# COPY, set_cell, add_to_cell, merge_to_cell, mutate_row(s), every delete
# kind, SQL DELETE -- as changes of the table's row type, in commit order;
# aborted transactions and rolled-back savepoints deliver nothing; flush
# and compaction deliver nothing; unlogged and temporary wide tables
# deliver nothing; an immediate shutdown of the publisher loses nothing
# that committed.  Publications of wide tables are accepted.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('cdc_decoding');
$node->init(allows_streaming => 'logical');
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'wide'");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8,
	                value text) USING wide;
	SELECT wide.create_family('t', 'm');
	SELECT wide.create_family('t', 'n');
	ALTER TABLE t REPLICA IDENTITY FULL;
	CREATE TABLE c (row_key text, family text, qualifier text,
	                ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('c', 's', aggregate => 'sum');
	ALTER TABLE c REPLICA IDENTITY FULL;
	CREATE TABLE h (row_key text, family text, qualifier text, ts int8,
	                value text);
	SELECT pg_create_logical_replication_slot('s', 'test_decoding');
});

# the changes decoded since the last call, one line each
sub changes
{
	return $node->safe_psql('postgres', q{
		SELECT string_agg(data, E'\n' ORDER BY ord)
		FROM (SELECT data, row_number() OVER () AS ord
		      FROM pg_logical_slot_get_changes('s', NULL, NULL,
		           'include-xids', '0', 'skip-empty-xacts', '1')) d});
}

# a publication of a wide table is accepted now
my ($ret, $out, $err) = $node->psql('postgres',
	'CREATE PUBLICATION p FOR TABLE t, c, h');
is($ret, 0, 'a publication of wide tables is accepted with the preload');
is($err, '', 'without a warning');

# INSERT, and the heap table's insert in the same transaction, in order
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO t VALUES ('a', 'm', 'q1', 10, 'v1'), ('b', 'm', 'q1', 10, 'v2');
	INSERT INTO h VALUES ('a', 'm', 'q1', 10, 'heap');
	INSERT INTO t VALUES ('a', 'n', 'q2', 20, 'v3');
	COMMIT;
});
is(changes(), q{BEGIN
table public.t: INSERT: row_key[text]:'a' family[text]:'m' qualifier[text]:'q1' ts[bigint]:10 value[text]:'v1'
table public.t: INSERT: row_key[text]:'b' family[text]:'m' qualifier[text]:'q1' ts[bigint]:10 value[text]:'v2'
table public.h: INSERT: row_key[text]:'a' family[text]:'m' qualifier[text]:'q1' ts[bigint]:10 value[text]:'heap'
table public.t: INSERT: row_key[text]:'a' family[text]:'n' qualifier[text]:'q2' ts[bigint]:20 value[text]:'v3'
COMMIT}, 'INSERT: each cell, in write order with the heap table\'s');

# set_cell, and a NULL ts: the server's time, decoded as written
$node->safe_psql('postgres', q{
	SELECT wide.set_cell('t', 'c', 'm', 'q1', 'v4', 30);
	INSERT INTO t VALUES ('d', 'm', 'q1', NULL, 'now');
});
my $got = changes();
like($got, qr/^BEGIN
table public.t: INSERT: row_key\[text\]:'c' family\[text\]:'m' qualifier\[text\]:'q1' ts\[bigint\]:30 value\[text\]:'v4'
COMMIT
BEGIN
table public.t: INSERT: row_key\[text\]:'d' family\[text\]:'m' qualifier\[text\]:'q1' ts\[bigint\]:(\d+) value\[text\]:'now'
COMMIT$/, 'set_cell; a NULL ts arrives as the time written');
my ($now_ts) = $got =~ /ts\[bigint\]:(\d+) value\[text\]:'now'/;
is($node->safe_psql('postgres', q{SELECT ts FROM t WHERE row_key = 'd'}),
	$now_ts, 'the same ts as stored');

# COPY: every row, in input order
$node->safe_psql('postgres', q{
	COPY t FROM stdin;
e	m	q1	40	c1
e	m	q2	40	c2
f	n	q1	41	c3
\.
});
is(changes(), q{BEGIN
table public.t: INSERT: row_key[text]:'e' family[text]:'m' qualifier[text]:'q1' ts[bigint]:40 value[text]:'c1'
table public.t: INSERT: row_key[text]:'e' family[text]:'m' qualifier[text]:'q2' ts[bigint]:40 value[text]:'c2'
table public.t: INSERT: row_key[text]:'f' family[text]:'n' qualifier[text]:'q1' ts[bigint]:41 value[text]:'c3'
COMMIT}, 'COPY: each row');

# add_to_cell and merge_to_cell: the input and the accumulator, which an
# INSERT into the family merges the same way
$node->safe_psql('postgres', q{
	SELECT wide.add_to_cell('c', 'r', 's', 'n', '2030-01-01', 5);
	SELECT wide.merge_to_cell('c', 'r', 's', 'n', '2030-01-01', 100);
	INSERT INTO c VALUES ('r', 's', 'n', '2030-01-01', 7);
});
is(changes(), q{BEGIN
table public.c: INSERT: row_key[text]:'r' family[text]:'s' qualifier[text]:'n' ts[timestamp with time zone]:'2030-01-01 00:00:00+00' value[bigint]:5
COMMIT
BEGIN
table public.c: INSERT: row_key[text]:'r' family[text]:'s' qualifier[text]:'n' ts[timestamp with time zone]:'2030-01-01 00:00:00+00' value[bigint]:100
COMMIT
BEGIN
table public.c: INSERT: row_key[text]:'r' family[text]:'s' qualifier[text]:'n' ts[timestamp with time zone]:'2030-01-01 00:00:00+00' value[bigint]:7
COMMIT}, 'add_to_cell, merge_to_cell, INSERT into an aggregate family');
is($node->safe_psql('postgres', 'SELECT value FROM c'), '112',
	'the cell merged them all');

# every delete kind: a DELETE of each cell it removes (one version: the
# cell named, whether there or not), then its exact scope in a message
# (test_decoding prints a message of a transaction without changes without
# its BEGIN and COMMIT)
$node->safe_psql('postgres', q{
	SELECT wide.delete_cells('t', 'e', 'm', 'q1', 40, 41);
	SELECT wide.delete_cells('t', 'e', 'm', 'q2', 0, 100);
	SELECT wide.delete_cells('t', 'e', 'm', 'q2');
	SELECT wide.delete_family('t', 'a', 'n');
	SELECT wide.delete_row('t', 'b');
	DELETE FROM t WHERE row_key = 'f';
});
is(changes(), q(BEGIN
table public.t: DELETE: row_key[text]:'e' family[text]:'m' qualifier[text]:'q1' ts[bigint]:40
message: transactional: 1 prefix: wide, sz: 122 content:{"delete": "cells", "table": "public.t", "row_key": "e", "family": "m", "qualifier": "q1", "ts_from": "40", "ts_to": "41"}
COMMIT
BEGIN
table public.t: DELETE: row_key[text]:'e' family[text]:'m' qualifier[text]:'q2' ts[bigint]:40
message: transactional: 1 prefix: wide, sz: 122 content:{"delete": "cells", "table": "public.t", "row_key": "e", "family": "m", "qualifier": "q2", "ts_from": "0", "ts_to": "100"}
COMMIT
message: transactional: 1 prefix: wide, sz: 121 content:{"delete": "cells", "table": "public.t", "row_key": "e", "family": "m", "qualifier": "q2", "ts_from": "0", "ts_to": null}
BEGIN
table public.t: DELETE: row_key[text]:'a' family[text]:'n' qualifier[text]:'q2' ts[bigint]:20
message: transactional: 1 prefix: wide, sz: 72 content:{"delete": "family", "table": "public.t", "row_key": "a", "family": "n"}
COMMIT
BEGIN
table public.t: DELETE: row_key[text]:'b' family[text]:'m' qualifier[text]:'q1' ts[bigint]:10
message: transactional: 1 prefix: wide, sz: 54 content:{"delete": "row", "table": "public.t", "row_key": "b"}
COMMIT
BEGIN
table public.t: DELETE: row_key[text]:'f' family[text]:'n' qualifier[text]:'q1' ts[bigint]:41
message: transactional: 1 prefix: wide, sz: 122 content:{"delete": "cells", "table": "public.t", "row_key": "f", "family": "n", "qualifier": "q1", "ts_from": "41", "ts_to": "42"}
COMMIT), 'every delete kind, SQL DELETE included');

# mutate_row and mutate_rows: each mutation, in order, in one transaction;
# a cell written and deleted in the same batch may get a second DELETE
$node->safe_psql('postgres', q{
	SELECT wide.mutate_row('t', 'g', '[
	  {"set_cell": {"family_name": "m", "column_qualifier": "x", "timestamp_micros": 1, "value": "g1"}},
	  {"delete_from_column": {"family_name": "m", "column_qualifier": "x", "time_range": {"start_timestamp_micros": 1, "end_timestamp_micros": 2}}},
	  {"delete_from_family": {"family_name": "n"}},
	  {"delete_from_row": {}},
	  {"set_cell": {"family_name": "m", "column_qualifier": "y", "timestamp_micros": 2, "value": "g2"}}
	]');
	SELECT wide.mutate_rows('t', '[{"row_key": "h1", "mutations": [
	  {"set_cell": {"family_name": "m", "column_qualifier": "x", "timestamp_micros": 3, "value": "h1"}}]},
	  {"row_key": "h2", "mutations": [
	  {"set_cell": {"family_name": "m", "column_qualifier": "x", "timestamp_micros": 4, "value": "h2"}}]}]');
});
is(changes(), q(BEGIN
table public.t: INSERT: row_key[text]:'g' family[text]:'m' qualifier[text]:'x' ts[bigint]:1 value[text]:'g1'
table public.t: DELETE: row_key[text]:'g' family[text]:'m' qualifier[text]:'x' ts[bigint]:1
message: transactional: 1 prefix: wide, sz: 119 content:{"delete": "cells", "table": "public.t", "row_key": "g", "family": "m", "qualifier": "x", "ts_from": "1", "ts_to": "2"}
message: transactional: 1 prefix: wide, sz: 72 content:{"delete": "family", "table": "public.t", "row_key": "g", "family": "n"}
table public.t: DELETE: row_key[text]:'g' family[text]:'m' qualifier[text]:'x' ts[bigint]:1
message: transactional: 1 prefix: wide, sz: 54 content:{"delete": "row", "table": "public.t", "row_key": "g"}
table public.t: INSERT: row_key[text]:'g' family[text]:'m' qualifier[text]:'y' ts[bigint]:2 value[text]:'g2'
COMMIT
BEGIN
table public.t: INSERT: row_key[text]:'h1' family[text]:'m' qualifier[text]:'x' ts[bigint]:3 value[text]:'h1'
table public.t: INSERT: row_key[text]:'h2' family[text]:'m' qualifier[text]:'x' ts[bigint]:4 value[text]:'h2'
COMMIT), 'mutate_row, mutate_rows');

# without REPLICA IDENTITY FULL a delete has no old tuple, as for heap
$node->safe_psql('postgres', q{
	ALTER TABLE t REPLICA IDENTITY DEFAULT;
	SELECT wide.delete_row('t', 'h2');
	ALTER TABLE t REPLICA IDENTITY FULL;
});
is(changes(), q(BEGIN
table public.t: DELETE: (no-tuple-data)
message: transactional: 1 prefix: wide, sz: 55 content:{"delete": "row", "table": "public.t", "row_key": "h2"}
COMMIT), 'REPLICA IDENTITY DEFAULT: a DELETE without its old tuple');

# aborts and savepoints
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO t VALUES ('x', 'm', 'q', 1, 'aborted');
	ROLLBACK;
	BEGIN;
	INSERT INTO t VALUES ('y', 'm', 'q', 1, 'kept1');
	SAVEPOINT a;
	INSERT INTO t VALUES ('y', 'm', 'q', 2, 'rolled back');
	SELECT wide.delete_row('t', 'y');
	ROLLBACK TO a;
	SAVEPOINT b;
	SELECT wide.set_cell('t', 'y', 'm', 'q', 'kept2', 3);
	RELEASE b;
	COMMIT;
});
is(changes(), q{BEGIN
table public.t: INSERT: row_key[text]:'y' family[text]:'m' qualifier[text]:'q' ts[bigint]:1 value[text]:'kept1'
table public.t: INSERT: row_key[text]:'y' family[text]:'m' qualifier[text]:'q' ts[bigint]:3 value[text]:'kept2'
COMMIT}, 'aborted transactions and rolled-back savepoints deliver nothing');

# a statement large enough to be written as a run, and a large COPY
$node->safe_psql('postgres', q{
	SET wide.statement_run_size = 0;
	SET wide.bulk_memory = 1024;
	INSERT INTO t SELECT 'big' || i, 'm', 'q', i, repeat('x', 200)
	FROM generate_series(1, 5000) i;
	COPY t FROM PROGRAM 'seq 1 5000 | sed "s/.*/copy&\tm\tq\t&\tv&/"';
});
is($node->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE data LIKE 'table public.t: INSERT: row_key[text]:''big%'),
	       count(*) FILTER (WHERE data LIKE 'table public.t: INSERT: row_key[text]:''copy%'),
	       count(*) FILTER (WHERE data LIKE 'BEGIN%')
	FROM pg_logical_slot_get_changes('s', NULL, NULL, 'skip-empty-xacts', '1')}),
	'5000|5000|2', 'a statement run and a COPY of 5000 rows each');

# flush and compaction move cells: no changes
$node->safe_psql('postgres', q{
	SELECT FROM wide.compact('t');
	SELECT FROM wide.compact('t', major => true);
	VACUUM t;
	SELECT FROM wide.compact('c', major => true);
});
is(changes(), '', 'flush and compaction decode to nothing');
is($node->safe_psql('postgres', q{SELECT value FROM c}), '112',
	'the aggregate is unchanged');

# a table created, and one truncated, in the writing transaction: the new
# relfilenode maps to the table under the historic snapshot
$node->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE n (row_key text, family text, qualifier text, ts int8,
	                value text) USING wide;
	SELECT wide.create_family('n', 'm');
	INSERT INTO n VALUES ('new', 'm', 'q', 1, 'in the creating transaction');
	COMMIT;
	BEGIN;
	TRUNCATE n;
	INSERT INTO n VALUES ('new', 'm', 'q', 2, 'after truncate');
	COMMIT;
});
is(changes(), q{BEGIN
table public.n: INSERT: row_key[text]:'new' family[text]:'m' qualifier[text]:'q' ts[bigint]:1 value[text]:'in the creating transaction'
COMMIT
BEGIN
table public.n: TRUNCATE: (no-flags)
table public.n: INSERT: row_key[text]:'new' family[text]:'m' qualifier[text]:'q' ts[bigint]:2 value[text]:'after truncate'
COMMIT}, 'a table created or truncated in the writing transaction');

# moving a heap table's rows into wide (SET ACCESS METHOD) and VACUUM FULL
# rewrite the table: nothing to decode, as for a heap rewrite
$node->safe_psql('postgres', q{
	CREATE TABLE mv (row_key text, family text, qualifier text, ts int8,
	                 value text);
	INSERT INTO mv VALUES ('a', 'm', 'q', 1, 'moved');
});
changes();
$node->safe_psql('postgres', q{
	ALTER TABLE mv SET ACCESS METHOD wide;
	VACUUM FULL mv;
	VACUUM FULL t;
});
is(changes(), '', 'SET ACCESS METHOD wide and VACUUM FULL decode to nothing');

# unlogged and temporary wide tables write no WAL, so nothing to decode
$node->safe_psql('postgres', q{
	CREATE UNLOGGED TABLE u (row_key text, family text, qualifier text,
	                         ts int8, value text) USING wide;
	SELECT wide.create_family('u', 'm');
	INSERT INTO u VALUES ('a', 'm', 'q', 1, 'u');
	CREATE TEMP TABLE tmp (row_key text, family text, qualifier text,
	                       ts int8, value text) USING wide;
	SELECT wide.create_family('tmp', 'm');
	INSERT INTO tmp VALUES ('a', 'm', 'q', 1, 'tmp');
});
is(changes(), '', 'unlogged and temporary tables decode to nothing');

# an immediate shutdown: what committed is decoded after the restart.  A
# slot's position is saved by checkpoints, so what was decoded since the
# last one is decoded again, as for heap tables: save it first.
$node->safe_psql('postgres', 'CHECKPOINT');
$node->safe_psql('postgres', q{
	INSERT INTO t VALUES ('z1', 'm', 'q', 1, 'before');
	SELECT wide.delete_row('t', 'z0');
});
$node->stop('immediate');
$node->start;
$node->safe_psql('postgres', q{INSERT INTO t VALUES ('z2', 'm', 'q', 1, 'after')});
is(changes(), q(BEGIN
table public.t: INSERT: row_key[text]:'z1' family[text]:'m' qualifier[text]:'q' ts[bigint]:1 value[text]:'before'
COMMIT
message: transactional: 1 prefix: wide, sz: 55 content:{"delete": "row", "table": "public.t", "row_key": "z0"}
BEGIN
table public.t: INSERT: row_key[text]:'z2' family[text]:'m' qualifier[text]:'q' ts[bigint]:1 value[text]:'after'
COMMIT), 'an immediate shutdown loses nothing committed');
is($node->safe_psql('postgres', q{SELECT value FROM t WHERE row_key LIKE 'z%' ORDER BY row_key}),
	"before\nafter", 'and the table recovered');

# pg_waldump names the records
my $lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$node->safe_psql('postgres', q{INSERT INTO t VALUES ('w', 'm', 'q', 1, 'dump')});
my $end = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my ($stdout, $stderr);
IPC::Run::run [ 'pg_waldump', '-p', $node->data_dir . '/pg_wal', '-s', $lsn,
	'-e', $end ], '>', \$stdout, '2>', \$stderr;
like($stdout, qr/rmgr: custom187 .*tx: +(\d+).*\n.*rmgr: Generic .*tx: +\g1/,
	'pg_waldump shows the record (as custom187: it has no description for custom resource managers)');

# without the preload (after a clean shutdown, so no record is replayed):
# publishing a wide table is refused, naming the requirement, and tables
# outside publications keep working
$node->safe_psql('postgres', q{SELECT pg_drop_replication_slot('s'); DROP PUBLICATION p});
$node->stop;
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
$node->start;
($ret, $out, $err) = $node->psql('postgres', 'CREATE PUBLICATION p2 FOR TABLE t');
isnt($ret, 0, 'without the preload a publication of a wide table is refused');
like($err, qr/only when the server loads wide by shared_preload_libraries.*\n.*HINT:  Add wide to shared_preload_libraries and restart the server/s,
	'the error names the requirement');
$node->safe_psql('postgres', q{INSERT INTO t VALUES ('nopreload', 'm', 'q', 1, 'works')});
is($node->safe_psql('postgres', q{SELECT value FROM t WHERE row_key = 'nopreload'}),
	'works', 'an unpublished wide table works without the preload');

$node->stop;
done_testing();
