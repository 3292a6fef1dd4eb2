# Quantile sketches across tablets, split and move (issue 29 item 2): a
# table split by row key into tablets, one of them moved to a data node
# and back, with a ddsketch family written by add_to_cell through the
# parent and a ddsketch rollup of readings INSERTed through the parent,
# while a client writes (a quarter of its transactions rolled back) and the
# tablets are split and moved.  Afterwards every sketch cell is, byte for
# byte, wide.ddsketch_agg of its committed inputs (the copy and the
# catch-up write sketches as they are, the copied readings do not add to
# the rollup again), and sketches merge across tablets and nodes: the
# union of every host's cells, read through the parent while a tablet is
# on the node, is the sketch of all committed inputs.  A coordinator and a
# data node (loopback unix sockets).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my @nodes;
for my $name ('coord', 'n1')
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', "max_prepared_transactions = 10\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION wide');
	push @nodes, $node;
}
my ($coord, $n1) = @nodes;

$coord->safe_psql('postgres', 'CREATE EXTENSION postgres_fdw');
my ($host, $port) = ($n1->host, $n1->port);
$coord->safe_psql('postgres', qq{
	CREATE SERVER n1 FOREIGN DATA WRAPPER postgres_fdw
	  OPTIONS (host '$host', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER n1;
});
$coord->safe_psql('postgres', q{
	CREATE TABLE lt (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts timestamptz, value bytea)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('lt', 'm');
	SELECT wide.create_family('lt', 'p', aggregate => 'ddsketch');
	SELECT wide.create_family('lt', 'r',
	  rollup => '{"source": "m", "bucket": "1 minute", "functions": ["count", "ddsketch"], "key_parts": 1}');
	SELECT wide.create_tablets('lt', ARRAY['host5'], ARRAY['local', 'local']);
	CREATE TABLE wlog (i int PRIMARY KEY, k text, x float8);
	CREATE TABLE stop (b boolean);
	-- before the writer: a few hundred inputs of every host
	INSERT INTO wlog SELECT -i, 'host' || (i % 9 + 1), round((exp(random() * 12) * (1 - 2 * (i % 7 = 0)::int))::numeric, 2)
	  FROM generate_series(1, 900) i;
	SELECT count(wide.add_to_cell('lt', k, 'p', 'lat', 0, x)) FROM wlog;
	INSERT INTO lt SELECT k || '#' || (1000000 - i), 'm', 'lat', to_timestamp(-i * 7), int8send(round(x)::int8)
	  FROM wlog;
	-- cells whose sketch is not the sketch of their committed inputs
	CREATE FUNCTION dds_diff() RETURNS bigint LANGUAGE sql AS $$
	  WITH l AS (SELECT k, wide.ddsketch_agg(x) AS s FROM wlog GROUP BY k),
	  raw AS (SELECT split_part(row_key, '#', 1) AS k, date_bin('1 minute', ts, 'epoch') AS b,
	                 wide.ddsketch_agg(('x' || encode(value, 'hex'))::bit(64)::bigint::float8) AS s,
	                 count(*) AS c
	            FROM lt WHERE family = 'm' GROUP BY 1, 2)
	  SELECT (SELECT count(*) FROM l FULL JOIN (SELECT * FROM lt WHERE family = 'p') c ON c.row_key = l.k
	           WHERE c.value IS DISTINCT FROM l.s) +
	         (SELECT count(*) FROM raw FULL JOIN (SELECT * FROM lt WHERE family = 'r' AND qualifier = 'lat:ddsketch') c
	              ON c.row_key = raw.k AND c.ts = raw.b
	           WHERE c.value IS DISTINCT FROM raw.s) +
	         (SELECT count(*) FROM raw FULL JOIN (SELECT * FROM lt WHERE family = 'r' AND qualifier = 'lat:count') c
	              ON c.row_key = raw.k AND c.ts = raw.b
	           WHERE c.value IS DISTINCT FROM int8send(raw.c)) $$;
});

# the writer: one input and one reading a transaction, every fourth one
# rolled back; the log in the same transaction
my $writer = q{DO $$
DECLARE
  i int := 0;
  k text;
  x float8;
BEGIN
  LOOP
    EXIT WHEN EXISTS (SELECT FROM stop);
    i := i + 1;
    k := 'host' || (i * 7 % 9 + 1);
    x := round((exp(random() * 12) * CASE WHEN random() < 0.05 THEN -1 ELSE 1 END)::numeric, 2);
    BEGIN
      PERFORM wide.add_to_cell('lt', k, 'p', 'lat', 0, x);
      INSERT INTO lt VALUES (k || '#' || (2000000 + i), 'm', 'lat', to_timestamp(i * 7), int8send(round(x)::int8));
      INSERT INTO wlog VALUES (i, k, x);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'write % failed: %', i, SQLERRM;
    END;
    IF i % 4 = 0 THEN ROLLBACK; ELSE COMMIT; END IF;
    PERFORM pg_sleep(0.002);
  END LOOP;
END $$;};
my ($win, $wout, $werr) = ('', '', '');
my $wh = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres'), '-c', $writer ],
	\$win, \$wout, \$werr);

sub tablet_of
{
	my ($key) = @_;
	return $coord->safe_psql('postgres', qq{SELECT tableoid::regclass FROM lt WHERE row_key = '$key' LIMIT 1});
}

sub wait_writes
{
	my ($n) = @_;
	$coord->poll_query_until('postgres', "SELECT count(*) >= $n FROM wlog WHERE i > 0") or die 'no writes';
}

wait_writes(30);
$coord->safe_psql('postgres', "CALL wide.split_tablet('lt', '" . tablet_of('host3') . "', 'host3')");
wait_writes(60);
$coord->safe_psql('postgres', "CALL wide.move_tablet('lt', '" . tablet_of('host7') . "', 'n1')");
wait_writes(90);
# merged across tablets and the node, read through the parent.  A read
# over nodes has a snapshot per node (docs/scale.md), so a writer that
# commits between the local snapshot and the node's would be seen on one
# side only: the lock on wlog waits for the writers that hold it, through
# their COMMIT PREPARED on the node, and holds back the next ones
is($coord->safe_psql('postgres', q{
	BEGIN;
	LOCK TABLE wlog IN SHARE MODE;
	SELECT (SELECT wide.ddsketch_union_agg(value) FROM lt WHERE family = 'p')
	     = (SELECT wide.ddsketch_agg(x) FROM wlog);
	COMMIT}), 't',
	'the union of every host\'s sketch across tablets and a node is the sketch of all inputs');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT date_bin('10 minutes', ts, 'epoch') AS b, wide.ddsketch_union_agg(value) AS s
	                        FROM lt WHERE family = 'r' AND qualifier = 'lat:ddsketch' GROUP BY 1) r
	  FULL JOIN (SELECT date_bin('10 minutes', ts, 'epoch') AS b,
	                    wide.ddsketch_agg(('x' || encode(value, 'hex'))::bit(64)::bigint::float8) AS s
	               FROM lt WHERE family = 'm' GROUP BY 1) m USING (b)
	 WHERE r.s IS DISTINCT FROM m.s}), '0',
	'rollup buckets of every host merged into 10-minute buckets across tablets are the sketches of their readings');
$coord->safe_psql('postgres', "CALL wide.split_tablet('lt', '" . tablet_of('host7') . "', 'host8')");
wait_writes(120);
$coord->safe_psql('postgres', "CALL wide.move_tablet('lt', '" . tablet_of('host7') . "', 'local')");
$coord->safe_psql('postgres', 'INSERT INTO stop VALUES (true)');
$wh->finish;
is($wh->result(0), 0, 'the writer ended') or diag($werr);
unlike($werr, qr/failed/, 'no write failed') or diag($werr);
is($coord->safe_psql('postgres', q{SELECT string_agg(step, ',' ORDER BY id) FROM wide.tablet_ops}),
	'done,done,done,done', 'two splits and two moves done');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'lt'::regclass}),
	'4', 'four tablets');
my $n = $coord->safe_psql('postgres', q{SELECT count(*) FROM wlog WHERE i > 0});
diag("$n inputs committed by the writer");
is($coord->safe_psql('postgres', 'SELECT dds_diff()'), '0',
	'every sketch cell and rollup cell is the sketch of its committed inputs, byte for byte');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT row_key, value FROM lt WHERE family = 'p') c,
	       unnest(ARRAY[0.5, 0.9, 0.99, 1]) q,
	       LATERAL (SELECT percentile_disc(q) WITHIN GROUP (ORDER BY x) AS e FROM wlog WHERE k = c.row_key) e
	 WHERE abs(wide.quantile(c.value, q) - e.e) > 0.01 * abs(e.e)}), '0',
	'every quantile within 1% of percentile_disc');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
	 WHERE inhparent = 'lt'::regclass AND c.relkind = 'f'}), '1', 'one tablet left on n1');

$_->stop for @nodes;
done_testing();
