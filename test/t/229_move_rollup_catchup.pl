# The catch-up of a move to a node of a table with a rollup family deletes,
# on the node through wide's connection, every copied cell the tablet no
# longer holds as it was -- with a rollup, every rollup cell a write added
# to during the copy.  It sent one statement a cell: t/226 saw such moves
# run for minutes under writes (and resume_tablet_ops after a kill, over
# 20 minutes).  Now 500 go in a round trip.  A move held before its
# catch-up while 1,000 writes change 2,000 rollup cells: the node receives
# a few DELETE batches, not thousands, and afterwards every rollup cell is
# the sum and count of its source cells.  A coordinator and a node.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use WideTablets;
use Test::More;
use IPC::Run;

my $coord = PostgreSQL::Test::Cluster->new('coord');
$coord->init;
$coord->append_conf('postgresql.conf', "max_prepared_transactions = 10\n");
$coord->start;
my $n1 = PostgreSQL::Test::Cluster->new('n1');
$n1->init;
$n1->append_conf('postgresql.conf', "max_prepared_transactions = 10\nlog_statement = 'all'\n");
$n1->start;
$_->safe_psql('postgres', 'CREATE EXTENSION wide') for ($coord, $n1);
my ($host, $port) = ($n1->host, $n1->port);
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER n1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER n1;
	CREATE TABLE mr (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('mr', 'm');
	SELECT wide.create_family('mr', 'r',
	  rollup => '{"source": "m", "bucket": "0.001 seconds", "functions": ["sum", "count"]}');
	SELECT wide.create_tablets('mr', ARRAY['m'], ARRAY['local', 'local']);
	INSERT INTO mr SELECT 'k' || (i % 50), 'm', 'q', i * 1000, i FROM generate_series(1, 1000) i;
	SELECT wide_internal._tablet_ops_tables();
});

# hold the move before its catch-up
my ($lin, $lout, $lerr) = ('', '', '');
my $locker = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ], \$lin, \$lout, \$lerr);
$lin .= "BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 2 FOR UPDATE; SELECT 'locked';\n";
$locker->pump until $lout =~ /locked/;
my ($in, $out, $err) = ('', '', '');
my $op = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres'), '-c',
	q{CALL wide.move_tablet('mr', 'mr_1', 'n1')} ], \$in, \$out, \$err);
$coord->poll_query_until('postgres',
	op_paused_sql('wide\.move_tablet'))
  or die 'the move did not reach its pause';
# 1,000 writes into the buckets copied: 2,000 rollup cells change
$coord->safe_psql('postgres', q{INSERT INTO mr SELECT 'k' || (i % 50), 'm', 'q', i * 1000 + 1, 1 FROM generate_series(1, 1000) i});
my $log_at = -s $n1->logfile;
$lin .= "COMMIT; SELECT 'unlocked';\n";
$locker->pump until $lout =~ /unlocked/;
$lin .= "\\q\n";
$locker->finish;
$op->finish;
is($err, '', 'the move finished');
is($coord->safe_psql('postgres', q{SELECT step FROM wide.tablet_ops ORDER BY id DESC LIMIT 1}), 'done', 'journaled done');
my $log = slurp_file($n1->logfile, $log_at);
my $batches = () = $log =~ /statement: SET LOCAL wide\.rollup_on_write = off; DELETE FROM/g;
my $deletes = () = $log =~ /DELETE FROM public\.mr_\d+m WHERE/g;
note("catch-up on the node: $deletes cells deleted in $batches statements");
cmp_ok($deletes, '>=', 1000, 'the catch-up replaced the rollup cells the writes changed');
cmp_ok($batches, '<=', 10, 'in a few round trips, not one a cell');
is($coord->safe_psql('postgres', q{
	WITH s AS (SELECT row_key, ts - ts % 1000 AS b, sum(value) su, count(*) c FROM mr WHERE family = 'm' GROUP BY 1, 2),
	     r AS (SELECT row_key, ts AS b, sum(value) FILTER (WHERE qualifier = 'q:sum') su,
	                  sum(value) FILTER (WHERE qualifier = 'q:count') c FROM mr WHERE family = 'r' GROUP BY 1, 2)
	SELECT count(*) FROM s FULL JOIN r USING (row_key, b) WHERE (s.su, s.c) IS DISTINCT FROM (r.su, r.c)}), '0',
	'every rollup cell is the sum and count of its source cells');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM mr WHERE family = 'm'}), '2000', 'every source cell');
done_testing();
