# The journal of splits and moves (wide.tablet_ops) after a crash under
# wal_level = minimal: the first split makes the journal and its id
# sequence in the transaction that takes the first id, so under minimal
# WAL the sequence's later nextvals were not WAL-logged and went back
# after a kill -9; the next split then took an id already in the journal
# (duplicate key, or "relation ... already exists").  Two splits, kill -9,
# restart: a third split and a move succeed, with new ids, and the journal
# is consistent.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('minimal');
$node->init;
$node->append_conf('postgresql.conf', "wal_level = minimal\nmax_wal_senders = 0\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE d (row_key text COLLATE "C", family text COLLATE "C",
	                qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('d', 'f');
	SELECT wide.create_tablets('d', ARRAY['m'], ARRAY['local', 'local']);
	INSERT INTO d SELECT chr(97 + i % 26) || lpad(i::text, 4, '0'), 'f', 'q', 1, i
	  FROM generate_series(1, 2000) i;
});
$node->safe_psql('postgres', q{CALL wide.split_tablet('d', 'd_1', 'g')});
$node->safe_psql('postgres', q{CALL wide.split_tablet('d', 'd_2', 's')});
my $before = $node->safe_psql('postgres',
	q{SELECT string_agg(id || ':' || step, ',' ORDER BY id) FROM wide.tablet_ops});
is($before, '1:done,2:done', 'two splits journaled');

$node->stop('immediate');
$node->start;

my ($ret, $out, $err) = $node->psql('postgres', q{CALL wide.split_tablet('d', 'd_1a', 'c')});
is($ret, 0, 'a third split after the crash succeeds') or diag($err);
($ret, $out, $err) = $node->psql('postgres', q{CALL wide.split_tablet('d', 'd_2b', 'w')});
is($ret, 0, 'a fourth split succeeds') or diag($err);
is($node->safe_psql('postgres',
		q{SELECT count(*) = count(DISTINCT id) AND bool_and(step = 'done') AND max(id) >= 4
		    FROM wide.tablet_ops}),
	't', 'the journal has distinct ids, every operation done');
is($node->safe_psql('postgres', q{SELECT count(*), sum(value) FROM d}),
	'2000|2001000', 'every cell is read once');
is($node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'd'::regclass}),
	'6', 'six tablets');

$node->stop;
done_testing();
