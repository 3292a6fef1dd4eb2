# wide.drop_before on a parent of tablets (issue 29 item 1): a local tablet
# and one on another node.  The drop reaches every tablet in the caller's
# transaction (the remote one through the two-phase commit of remote.c),
# with the parent's rights: a table of tablets reads what one wide table
# given the same writes and drops reads, a rollback keeps every node's
# cells, an unknown family or a role without DELETE changes nothing, and a
# tablet that a split or move is copying refuses the drop (its catch-up
# copies rows written meanwhile; a drop writes none, so the new tablets
# would keep the dropped cells) -- the drop made after the operation reaches
# the new tablets.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use WideTablets;
use Test::More;

my @nodes;
for my $name ('dcoord', 'dn1')
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', "max_prepared_transactions = 10\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION wide');
	push @nodes, $node;
}
my ($coord, $n1) = @nodes;

my ($host, $port) = ($n1->host, $n1->port);
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER n1 FOREIGN DATA WRAPPER postgres_fdw
	  OPTIONS (host '$host', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER n1;
});
for my $t ('dist', 'single')
{
	my $part = $t eq 'dist' ? 'PARTITION BY RANGE (row_key)' : 'USING wide';
	$coord->safe_psql('postgres', qq{
		CREATE TABLE $t (row_key text COLLATE "C", family text COLLATE "C",
		                 qualifier text COLLATE "C", ts int8, value int8) $part;
		SELECT wide.create_family('$t', 'm');
		SELECT wide.create_family('$t', 'n');
	});
}
$coord->safe_psql('postgres',
	q{SELECT wide.create_tablets('dist', ARRAY['h'], ARRAY['local', 'n1'])});

# the same cells in both: rows on both sides of 'h', both families
for my $t ('dist', 'single')
{
	$coord->safe_psql('postgres', qq{
		INSERT INTO $t SELECT chr(97 + i % 20) || (i % 7), CASE WHEN i % 3 = 0 THEN 'n' ELSE 'm' END,
		       'q' || (i % 4), i, i
		  FROM generate_series(1, 2000) i;
	});
}
my $same = q{SELECT (SELECT count(*) FROM dist) || ' cells, '
	|| (SELECT count(*) FROM (SELECT * FROM dist EXCEPT ALL SELECT * FROM single) d) || ' wrong, '
	|| (SELECT count(*) FROM (SELECT * FROM single EXCEPT ALL SELECT * FROM dist) d) || ' missing'};
sub on_node
{
	return $n1->safe_psql('postgres', $_[0]);
}
is($coord->safe_psql('postgres', $same), '2000 cells, 0 wrong, 0 missing', 'loaded alike');
my $remote0 = on_node('SELECT count(*) FROM dist_2');
cmp_ok($remote0, '>', 500, "the node holds $remote0 of them");

# every family, then one family
$coord->safe_psql('postgres', q{SELECT wide.drop_before('dist', 500); SELECT wide.drop_before('single', 500)});
is($coord->safe_psql('postgres', $same), '1501 cells, 0 wrong, 0 missing', 'drop_before(parent, ts) drops in every tablet');
is(on_node('SELECT count(*) FROM dist_2 WHERE ts < 500'), '0', 'the node\'s tablet has none before the time left');
$coord->safe_psql('postgres', q{SELECT wide.drop_before('dist', 'n', 900); SELECT wide.drop_before('single', 'n', 900)});
is($coord->safe_psql('postgres', $same), '1368 cells, 0 wrong, 0 missing', 'drop_before(parent, family, ts) drops that family only');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE family = 'm' AND ts < 900}), '267',
	'the other family keeps its cells');
is(on_node('SELECT count(*) FROM pg_prepared_xacts'), '0', 'nothing left prepared on the node');

# a rollback keeps every node's cells; so does an error in the same transaction
$coord->safe_psql('postgres', q{BEGIN; SELECT wide.drop_before('dist', 5000); ROLLBACK});
my ($ret, $out, $err) = $coord->psql('postgres',
	q{BEGIN; SELECT wide.drop_before('dist', 5000); SELECT 1 / 0; COMMIT});
like($err, qr/division by zero/, 'a failing transaction');
is($coord->safe_psql('postgres', $same), '1368 cells, 0 wrong, 0 missing', 'rolled-back drops change nothing');

# an unknown family: refused by the first tablet, nothing dropped anywhere
($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.drop_before('dist', 'nosuch', 5000)});
like($err, qr/column family "nosuch" does not exist/, 'an unknown family is refused');
# the node's tablet is asked too: a family only the local tablet has
$coord->safe_psql('postgres', q{SELECT wide.create_family('dist_1', 'onlyhere')});
($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.drop_before('dist', 'onlyhere', 5000)});
like($err, qr/column family "onlyhere" does not exist in wide table "dist_2"/,
	'a family the node\'s tablet lacks is refused there');
is($coord->safe_psql('postgres', $same), '1368 cells, 0 wrong, 0 missing', 'and nothing was dropped');
is(on_node('SELECT count(*) FROM pg_prepared_xacts'), '0', 'nothing left prepared');
$coord->safe_psql('postgres', q{SELECT wide.drop_family('dist_1', 'onlyhere')});

# the parent's rights: DELETE on it, as SQL through the parent
$coord->safe_psql('postgres', q{
	CREATE ROLE reader LOGIN;
	GRANT SELECT ON dist TO reader;
	GRANT USAGE ON SCHEMA wide TO reader;
});
($ret, $out, $err) = $coord->psql('postgres', q{SET ROLE reader; SELECT wide.drop_before('dist', 5000)});
like($err, qr/permission denied/, 'a role without DELETE on the parent is refused');
is($coord->safe_psql('postgres', $same), '1368 cells, 0 wrong, 0 missing', 'and nothing was dropped');

# a split copying the local tablet: the drop is refused (its catch-up would
# not carry it to the new tablets); after the split it reaches them
$coord->safe_psql('postgres', 'SELECT wide_internal._tablet_ops_tables()');
my ($lin, $lout, $lerr) = ('', '', '');
my $timer = IPC::Run::timer($PostgreSQL::Test::Utils::timeout_default);
my $locker = IPC::Run::start([ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
	\$lin, \$lout, \$lerr, $timer);
sub locker
{
	my ($sql) = @_;
	$lout = '';
	$lin .= "$sql; SELECT 'done';\n";
	$timer->start($PostgreSQL::Test::Utils::timeout_default);
	$locker->pump until $lout =~ /done/ || $timer->is_expired;
	die "locker timed out: $lerr" if $timer->is_expired;
}
for my $op ([ q{CALL wide.split_tablet('dist', 'dist_1', 'd')}, 'split of the local tablet', 'dist_1' ],
	[ q{CALL wide.move_tablet('dist', 'dist_2', 'local')}, 'move of the node\'s tablet here', 'dist_2' ])
{
	my ($call, $what, $tablet) = @$op;
	locker('BEGIN; SELECT FROM wide.tablet_op_pause WHERE step = 2 FOR UPDATE');
	my ($in, $oout, $oerr) = ('', '', '');
	my $h = IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $coord->connstr('postgres'),
		'-c', $call ], \$in, \$oout, \$oerr);
	$coord->poll_query_until('postgres', op_paused_sql('wide\.(split|move)_tablet'))
	  or die 'the operation did not reach its pause';
	($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.drop_before('dist', 1200)});
	like($err, qr/cannot drop cells of tablet "$tablet" while a split or move copies it/,
		"during a $what the drop is refused");
	locker('COMMIT');
	$h->finish;
	is($oerr, '', "the $what finished");
	is($coord->safe_psql('postgres', $same), '1368 cells, 0 wrong, 0 missing',
		"after the $what the table reads as before");
}
$coord->safe_psql('postgres', q{SELECT wide.drop_before('dist', 1200); SELECT wide.drop_before('single', 1200)});
is($coord->safe_psql('postgres', $same), '801 cells, 0 wrong, 0 missing', 'a drop after the operations reaches the new tablets');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE ts < 1200}), '0', 'none before the time left');

# the new tablets' runs are freed by VACUUM once every snapshot sees the drop
$coord->safe_psql('postgres', q{SELECT wide.drop_before('dist', 3000)});
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist}), '0', 'everything dropped');
$locker->finish;
done_testing();
