# A move of a tablet with a rollup family to another node, and between
# nodes, while a client writes through the parent: the copy and the
# catch-up write the rollup cells as they are (through wide's connection to
# the node, with wide.rollup_on_write off), so afterwards every rollup cell
# equals the sum and count of its source cells, none counted twice, and an
# hll family's sketches are the same bytes.  A coordinator and two data
# nodes (loopback unix sockets).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use WideTablets;
use Test::More;
use IPC::Run;

my @nodes = tablet_nodes("max_prepared_transactions = 10\n");
my ($coord, $n1, $n2) = @nodes;
$coord->safe_psql('postgres', q{
	CREATE TABLE mr (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts timestamptz, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('mr', 'm');
	SELECT wide.create_family('mr', 'r',
	  rollup => '{"source": "m", "bucket": "1 hour", "functions": ["sum", "count", "max"], "key_parts": 1}');
	SELECT wide.create_family('mr', 'a', aggregate => 'sum');
	SELECT wide.create_tablets('mr', ARRAY['host5'], ARRAY['local', 'local']);
	INSERT INTO mr SELECT 'host' || h || '#' || (1000000 + r), 'm', 'cpu', to_timestamp(r * 600), h * r
	  FROM generate_series(1, 9) h, generate_series(1, 300) r;
	SELECT count(*) FROM (SELECT wide.add_to_cell('mr', 'host' || (i % 9 + 1), 'a', 'n', '2020-01-01'::timestamptz, i::int8)
	                        FROM generate_series(1, 500) i) x;
	CREATE TABLE stop (b boolean);
	CREATE TABLE wlog (i int PRIMARY KEY);
});

# the writer: source cells of every host, through the parent, one a transaction
my $writer = q{DO $$
DECLARE i int := 0;
BEGIN
  LOOP
    EXIT WHEN EXISTS (SELECT FROM stop);
    i := i + 1;
    BEGIN
      INSERT INTO mr VALUES ('host' || (i % 9 + 1) || '#' || (2000000 + i), 'm', 'cpu', to_timestamp(i * 60), i);
      INSERT INTO wlog VALUES (i);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'write % failed: %', i, SQLERRM;
    END;
    COMMIT;
    PERFORM pg_sleep(0.003);
  END LOOP;
END $$;};
my ($win, $wout, $werr) = ('', '', '');
my $wh = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres'), '-c', $writer ],
	\$win, \$wout, \$werr);

# the tablet of host7 (the upper one)
sub upper
{
	return $coord->safe_psql('postgres', q{SELECT inhrelid::regclass FROM pg_inherits
	  WHERE inhparent = 'mr'::regclass
	  ORDER BY pg_get_expr((SELECT relpartbound FROM pg_class WHERE oid = inhrelid), inhrelid) LIKE '%MAXVALUE%' DESC LIMIT 1});
}

sub check
{
	my ($what) = @_;
	# every rollup cell is the aggregate of its source cells, and every
	# source cell is there once
	is($coord->safe_psql('postgres', q{
		WITH s AS (SELECT split_part(row_key, '#', 1) AS k, to_timestamp(floor(extract(epoch FROM ts) / 3600) * 3600) AS b,
		                  sum(value) AS s, count(*) AS c, max(value) AS x
		             FROM mr WHERE family = 'm' GROUP BY 1, 2),
		     r AS (SELECT row_key AS k, ts AS b,
		                  max(value) FILTER (WHERE qualifier = 'cpu:sum') AS s,
		                  max(value) FILTER (WHERE qualifier = 'cpu:count') AS c,
		                  max(value) FILTER (WHERE qualifier = 'cpu:max') AS x
		             FROM mr WHERE family = 'r' GROUP BY 1, 2)
		SELECT count(*) FROM s FULL JOIN r USING (k, b)
		 WHERE s.s IS DISTINCT FROM r.s OR s.c IS DISTINCT FROM r.c OR s.x IS DISTINCT FROM r.x}),
		'0', "$what: every rollup cell equals the aggregate of its source cells");
	is($coord->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM mr WHERE family = 'm' AND row_key LIKE '%#2%')
		     = (SELECT count(*) FROM wlog WHERE i > 0)}),
		't', "$what: every committed write is there once");
	is($coord->safe_psql('postgres', q{SELECT sum(value) FROM mr WHERE family = 'a'}),
		'125250', "$what: the sum family's cells are copied as they are");
}

$coord->poll_query_until('postgres', 'SELECT count(*) >= 30 FROM wlog') or die 'no writes';
$coord->safe_psql('postgres', q{CALL wide.move_tablet('mr', 'mr_2', 'n1')});
$coord->poll_query_until('postgres', 'SELECT count(*) >= 60 FROM wlog') or die 'no writes';
$coord->safe_psql('postgres', "CALL wide.move_tablet('mr', '" . upper() . "', 'n2')");
$coord->poll_query_until('postgres', 'SELECT count(*) >= 90 FROM wlog') or die 'no writes';
$coord->safe_psql('postgres', "CALL wide.move_tablet('mr', '" . upper() . "', 'local')");
$coord->safe_psql('postgres', 'INSERT INTO stop VALUES (true)');
$wh->finish;
is($coord->safe_psql('postgres', q{SELECT string_agg(step, ',' ORDER BY id) FROM wide.tablet_ops}),
	'done,done,done', 'three moves done');
check('after moves local -> n1 -> n2 -> local under writes');
is($n1->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname LIKE 'mr%'}), '0',
	'nothing left on n1');
is($n2->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname LIKE 'mr%'}), '0',
	'nothing left on n2');
# a move that ends on a node keeps its rollups firing for new writes
$coord->safe_psql('postgres', "CALL wide.move_tablet('mr', '" . upper() . "', 'n1')");
$coord->safe_psql('postgres', q{
	INSERT INTO mr SELECT 'host' || h || '#' || (3000000 + r), 'm', 'cpu', to_timestamp(r * 600), r
	  FROM generate_series(1, 9) h, generate_series(1, 50) r;
	INSERT INTO wlog SELECT -i FROM generate_series(1, 450) i;});
is($coord->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM mr WHERE family = 'm' AND row_key LIKE '%#3%')}), '450',
	'writes after the last move');
check('writes after a move to n1');

$_->stop for @nodes;
done_testing();
