# Tablets on other nodes: a coordinator and two data nodes (loopback unix
# sockets).  wide.create_tablets splits a parent over a local tablet and
# postgres_fdw tablets on the nodes; the same workload goes into the
# distributed table and into one local wide table, and every query gives
# the same answer.  Key ranges are pruned and shipped (the node runs its own
# Wide Scan), the fan-out is an async Append, family DDL reaches every node
# all or nothing (a node refusing, a node down, a local rollback, a
# savepoint), and wide.resolve_tablets finishes what a failed node kept
# prepared.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use WideTablets;
use Test::More;

my @nodes = tablet_nodes("max_prepared_transactions = 10\n");
my ($coord, $n1, $n2) = @nodes;

# set-up: the parent's families are copied to the remote tablets
$coord->safe_psql('postgres', q{
	CREATE TABLE dist (row_key text COLLATE "C", family text COLLATE "C",
	                   qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('dist', 'm', max_versions => 2);
	CREATE TABLE single (row_key text COLLATE "C", family text COLLATE "C",
	                     qualifier text COLLATE "C", ts int8, value int8) USING wide;
	SELECT wide.create_family('single', 'm', max_versions => 2);
});
is( $coord->safe_psql('postgres',
		q{SELECT string_agg(t::text, ',') FROM wide.create_tablets('dist', ARRAY['h', 'p'], ARRAY['local', 'n1', 'n2']) t}),
	'dist_1,dist_2,dist_3', 'create_tablets names the tablets');
is($coord->safe_psql('postgres', q{
	SELECT string_agg(c.relname || ':' || c.relkind::text || ':' || pg_get_expr(c.relpartbound, c.oid), ' ' ORDER BY c.relname)
	  FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid WHERE i.inhparent = 'dist'::regclass}),
	q{dist_1:r:FOR VALUES FROM (MINVALUE) TO ('h') dist_2:f:FOR VALUES FROM ('h') TO ('p') dist_3:f:FOR VALUES FROM ('p') TO (MAXVALUE)},
	'one local and two foreign partitions');
is($n1->safe_psql('postgres', q{SELECT a.amname || ' ' || string_agg(f.family || '/' || f.max_versions, ',')
	FROM pg_class c JOIN pg_am a ON a.oid = c.relam, wide.families('dist_2') f
	WHERE c.oid = 'dist_2'::regclass GROUP BY a.amname}),
	'wide m/2', 'the node holds a wide table with the parent\'s families');
is($n1->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}), '0',
	'nothing left prepared on the node');

# a setup that cannot be made is refused before anything is created
my ($ret, $out, $err) = $coord->psql('postgres', q{
	CREATE TABLE bad (row_key text COLLATE "C", family text COLLATE "C",
	                  qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_tablets('bad', ARRAY['h'], ARRAY['local', 'nosuch'])});
like($err, qr/node "nosuch" is not a server of postgres_fdw/, 'an unknown node is refused');
($ret, $out, $err) = $coord->psql('postgres',
	q{SELECT wide.create_tablets('bad', ARRAY['p', 'h'], ARRAY['local', 'n1', 'n2'])});
like($err, qr/split keys must be distinct and in ascending order/, 'unordered split keys are refused');

# the same workload into both: INSERT, COPY, more versions than kept
my $load = q{
	INSERT INTO %1$s SELECT chr(ascii('a') + i % 26) || lpad((i % 41)::text, 3, '0'),
	       'm', 'q' || (i % 3), i / 7, i
	  FROM generate_series(1, 3000) i;
	COPY %1$s FROM STDIN;
zz1	m	c	1	10
zz1	m	c	2	20
zz1	m	c	3	30
a	m	c	1	1
h	m	c	1	2
p	m	c	1	3
\.
};
for my $t ('dist', 'single')
{
	(my $sql = $load) =~ s/%1\$s/$t/g;
	$coord->safe_psql('postgres', $sql);
}
is($coord->safe_psql('postgres', q{SELECT string_agg(t || '=' || n, ',' ORDER BY t) FROM
	(SELECT tableoid::regclass::text t, count(*) n FROM dist GROUP BY 1) s}),
	$coord->safe_psql('postgres', q{SELECT 'dist_1=' || count(*) FILTER (WHERE row_key < 'h') ||
	  ',dist_2=' || count(*) FILTER (WHERE row_key >= 'h' AND row_key < 'p') ||
	  ',dist_3=' || count(*) FILTER (WHERE row_key >= 'p') FROM single}),
	'every cell is routed to its tablet');
is($n2->safe_psql('postgres', q{SELECT count(*) FROM dist_3 WHERE row_key = 'zz1'}), '2',
	'the node applies the family\'s max_versions');

my @queries = (
	'',
	q{WHERE row_key = 'k012'},
	q{WHERE row_key >= 'g' AND row_key < 'q'},
	q{WHERE row_key > 'o039' AND row_key <= 'p001'},
	q{WHERE row_key LIKE 'x%'},
	q{WHERE ts > 300},
	q{ORDER BY row_key LIMIT 50},
	q{ORDER BY row_key DESC LIMIT 50},
	q{WHERE row_key BETWEEN 'c' AND 'r' ORDER BY row_key, qualifier, ts DESC LIMIT 500},
);
for my $cond (@queries)
{
	my $q = q{SELECT count(*), md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ','
	                 ORDER BY row_key, family, qualifier, ts DESC)) FROM (SELECT * FROM %s %s) s};
	is($coord->safe_psql('postgres', sprintf($q, 'dist', $cond)),
		$coord->safe_psql('postgres', sprintf($q, 'single', $cond)),
		"same answer: $cond");
}
is($coord->safe_psql('postgres', q{SELECT family, qualifier, count(*), sum(value) FROM dist GROUP BY 1, 2 ORDER BY 1, 2}),
	$coord->safe_psql('postgres', q{SELECT family, qualifier, count(*), sum(value) FROM single GROUP BY 1, 2 ORDER BY 1, 2}),
	'same aggregates');

# plans: pruning, the key range shipped, the node's own Wide Scan, async fan-out
my $plan = $coord->safe_psql('postgres',
	q{EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM dist WHERE row_key >= 'i' AND row_key < 'k'});
like($plan, qr/Foreign Scan on public\.dist_2/, 'a key range in one remote tablet scans it');
unlike($plan, qr/dist_1|dist_3/, 'the other tablets are pruned');
like($plan, qr/Remote SQL: SELECT row_key, family, qualifier, ts, value FROM public\.dist_2 WHERE \(\(row_key >= 'i'\)\) AND \(\(row_key < 'k'\)\)/,
	'the row-key conditions are shipped');
like($n1->safe_psql('postgres',
	q{EXPLAIN (COSTS OFF) SELECT row_key, family, qualifier, ts, value FROM public.dist_2 WHERE ((row_key >= 'i')) AND ((row_key < 'k'))}),
	qr/Custom Scan \(WideScan\) on dist_2\s+Row Keys: row_key >= 'i'::text AND row_key < 'k'::text/,
	'the node runs that query as a key-range Wide Scan');
$plan = $coord->safe_psql('postgres', q{EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM dist});
like($plan, qr/Async Foreign Scan on public\.dist_2.*Async Foreign Scan on public\.dist_3/s,
	'the fan-out over the nodes is an async Append');
like($plan, qr/WideScan\) on public\.dist_1/, 'the local tablet is a Wide Scan');

# family DDL reaches every node
my $families = q{SELECT string_agg(family || '/' || coalesce(max_versions::text, '-'), ',' ORDER BY family) FROM wide.families('%s')};
sub families_everywhere
{
	return join ' ', $coord->safe_psql('postgres', sprintf($families, 'dist')),
	  $coord->safe_psql('postgres', sprintf($families, 'dist_1')),
	  $n1->safe_psql('postgres', sprintf($families, 'dist_2')),
	  $n2->safe_psql('postgres', sprintf($families, 'dist_3'));
}
$coord->safe_psql('postgres', q{
	SELECT wide.create_family('dist', 'n');
	SELECT wide.alter_family('dist', 'm', max_versions => 1);
	SELECT wide.create_family('single', 'n');
	SELECT wide.alter_family('single', 'm', max_versions => 1);
	SELECT wide.create_family('dist', 'gone');
	SELECT wide.drop_family('dist', 'gone');
});
is(families_everywhere(), join(' ', ('m/1,n/-') x 4), 'create, alter and drop_family on every tablet');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE row_key = 'zz1'}), '1',
	'the altered policy applies on the node');
is($n1->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}) .
	$n2->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}), '00',
	'nothing left prepared');
my $before = families_everywhere();

# a node refuses: nothing changes anywhere
$n2->safe_psql('postgres', q{SELECT wide.create_family('dist_3', 'x')});
($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.create_family('dist', 'x')});
like($err, qr/tablet public.dist_3 on node "n2" failed: column family "x" already exists/,
	'a refusing node is named with its tablet');
$n2->safe_psql('postgres', q{SELECT wide.drop_family('dist_3', 'x')});
is(families_everywhere(), $before, 'no node has the family after the refusal');

# a local rollback rolls the nodes back; a savepoint rolls back its part
$coord->safe_psql('postgres', q{BEGIN; SELECT wide.create_family('dist', 'z'); ROLLBACK;});
is(families_everywhere(), $before, 'a rolled-back family change leaves no node changed');
$coord->safe_psql('postgres', q{
	BEGIN;
	SAVEPOINT a;
	SELECT wide.create_family('dist', 's');
	ROLLBACK TO a;
	SELECT wide.create_family('dist', 't');
	COMMIT;
});
is(families_everywhere(), join(' ', ('m/1,n/-,t/-') x 4), 'savepoints: only the kept change on every node');
($ret, $out, $err) = $coord->psql('postgres',
	q{BEGIN; SELECT wide.drop_family('dist', 't'); PREPARE TRANSACTION 'p1'});
like($err, qr/cannot prepare a transaction that changed remote tablets/,
	'a local PREPARE TRANSACTION of remote changes is refused');
is(families_everywhere(), join(' ', ('m/1,n/-,t/-') x 4), 'and nothing changed');

# the data API on the parent runs on the key's tablet, here or on its node
# (in the remote transaction there, committed with the local one)
for my $t ('dist', 'single')
{
	$coord->safe_psql('postgres', qq{
		SELECT wide.set_cell('$t', 'k1', 'n', 'c', 5::int8, 1::int8);
		SELECT wide.set_cell('$t', 'a1', 'n', 'c', 6::int8, 1::int8);
		SELECT wide.mutate_row('$t', 'q7', '[{"set_cell": {"family_name": "n", "column_qualifier": "d", "timestamp_micros": 2, "value": 9}},
		                                       {"set_cell": {"family_name": "n", "column_qualifier": "e", "timestamp_micros": 2, "value": 8}}]');
		SELECT wide.delete_cells('$t', 'q7', 'n', 'e');
		SELECT wide.delete_row('$t', 'x005');
		SELECT wide.delete_family('$t', 'y006', 'm');
		BEGIN;
		SELECT wide.set_cell('$t', 'r1', 'n', 'c', 1::int8, 1::int8);
		ROLLBACK;
	});
}
# mutate_rows: each entry to its tablet, local or remote, in order
my $entries = q{'[{"row_key": "b2", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]},
                  {"row_key": "j2", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 2}}]},
                  {"row_key": "j3", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 3}}]},
                  {"row_key": "c2", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 4}},
                                                  {"set_cell": {"family_name": "n", "column_qualifier": "d", "timestamp_micros": 1, "value": 5}}]},
                  {"row_key": "s2", "mutations": [{"delete_from_row": {}}]}]'};
is($coord->safe_psql('postgres', "SELECT wide.mutate_rows('dist', $entries)"),
	$coord->safe_psql('postgres', "SELECT wide.mutate_rows('single', $entries)"),
	'mutate_rows over local and remote tablets counts the same cells');
($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.mutate_rows('dist', '[{"row_key": "b3", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]},
	{"row_key": "q3", "mutations": [{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]},
	{"row_key": "s3", "mutations": [{"set_cell": {"family_name": "nosuch", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]}]')});
like($err, qr/tablet dist_3 on node "n2" failed: .*nosuch/, 'a remote entry that fails names its tablet and node');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE row_key IN ('b3', 'q3', 's3')}), '0',
	'and no entry of the call is written on any node');
# mutate_rows_bin (its binary form, docs/sql.md): the same routing; a
# remote entry goes to its node as a one-entry batch
sub bin_str { return pack('N', length($_[0])) . $_[0]; }
sub bin_set { my ($k, $q, $v) = @_;	# an entry of one set_cell of family n, ts 1, an int8 in text form
	return bin_str($k) . pack('N', 1) . "\x01" . bin_str('n') . bin_str($q) . pack('N2', 0, 1) . 't' . bin_str($v); }
sub bin_batch { return "'\\x" . unpack('H*', "WMR\x01" . pack('N', scalar(@_)) . join('', @_)) . "'::bytea"; }
my $bin = bin_batch(bin_set('b4', 'c', '11'), bin_set('t4', 'c', '12'), bin_set('s4', 'c', '13'),
	bin_set('c4', 'c', '14'));
is($coord->safe_psql('postgres', "SELECT wide.mutate_rows_bin('dist', $bin)"),
	$coord->safe_psql('postgres', "SELECT wide.mutate_rows_bin('single', $bin)"),
	'mutate_rows_bin over local and remote tablets counts the same cells');
is($n2->safe_psql('postgres', q{SELECT string_agg(row_key || '/' || value, ',') FROM dist_3 WHERE row_key = 's4'}),
	's4/13', 'its remote entry is on the node');
($ret, $out, $err) = $coord->psql('postgres', "SELECT wide.mutate_rows_bin('dist', " .
	bin_batch(bin_set('b5', 'c', '1'), bin_set('q5', 'c', '1'), bin_set('s5', 'c', 'x')) . ")");
like($err, qr/tablet dist_3 on node "n2" failed: .*invalid input syntax/, 'a remote binary entry that fails names its tablet and node');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE row_key IN ('b5', 'q5', 's5')}), '0',
	'and no entry of the binary call is written on any node');
is($coord->safe_psql('postgres', q{SELECT wide.mutate_row('dist', 'm1', '[{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]')}),
	'1', 'a remote mutate_row returns the node\'s result');
$coord->safe_psql('postgres', q{SELECT wide.mutate_row('single', 'm1', '[{"set_cell": {"family_name": "n", "column_qualifier": "c", "timestamp_micros": 1, "value": 1}}]')});
is($coord->safe_psql('postgres', q{
	SELECT wide.check_and_mutate_row('dist', 'q7', '{"family_name_regex_filter": "n"}',
	  '[{"set_cell": {"family_name": "n", "column_qualifier": "f", "timestamp_micros": 1, "value": 3}}]'),
	       wide.check_and_mutate_row('dist', 'q8', '{"family_name_regex_filter": "n"}',
	  '[{"set_cell": {"family_name": "n", "column_qualifier": "f", "timestamp_micros": 1, "value": 3}}]')}),
	't|f', 'check_and_mutate_row runs on the node and returns its answer');
$coord->safe_psql('postgres', q{
	SELECT wide.check_and_mutate_row('single', 'q7', '{"family_name_regex_filter": "n"}',
	  '[{"set_cell": {"family_name": "n", "column_qualifier": "f", "timestamp_micros": 1, "value": 3}}]')});
is($n1->safe_psql('postgres', q{SELECT string_agg(row_key || '/' || qualifier || '/' || value, ',' ORDER BY row_key, qualifier) FROM dist_2 WHERE family = 'n'}),
	'j2/c/2,j3/c/3,k1/c/5,m1/c/1', 'the remote tablet holds its keys\' cells');
is($coord->safe_psql('postgres', q{SELECT value FROM wide.read_row(NULL::dist, 'a000') WHERE qualifier = 'q0'}),
	$coord->safe_psql('postgres', q{SELECT value FROM wide.read_row(NULL::single, 'a000') WHERE qualifier = 'q0'}),
	'read_row of a key in the local tablet');
# reads of the data API over remote tablets: the node's read, in key order
# across tablets, the row limit counting them all
for my $args ('', q{start_key => 'g', end_key => 'q'}, q{"limit" => 30},
	q{start_key => 'f', "limit" => 200}, q{reversed => true, "limit" => 25},
	q{reversed => true}, q{keys => ARRAY['a001', 'k012', 'z030', 'q7', 'nope']},
	q{prefix => 'q0'}, q{start_key => 'o', end_key => 'p001', end_inclusive => true},
	q{filter => '{"column_qualifier_regex_filter": "q1"}', "limit" => 50})
{
	my $q = q{SELECT count(*), md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ',' ORDER BY ord))
	            FROM wide.read_rows(NULL::%s%s) WITH ORDINALITY r(row_key, family, qualifier, ts, value, ord)};
	is($coord->safe_psql('postgres', sprintf($q, 'dist', $args ? ", $args" : '')),
		$coord->safe_psql('postgres', sprintf($q, 'single', $args ? ", $args" : '')),
		"read_rows($args) across local and remote tablets");
}
is($coord->safe_psql('postgres', q{SELECT string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ',') FROM wide.read_row(NULL::dist, 'q7')}),
	$coord->safe_psql('postgres', q{SELECT string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ',') FROM wide.read_row(NULL::single, 'q7')}),
	'read_row of a key in a remote tablet');
is($coord->safe_psql('postgres', q{SELECT count(*), min((cell).row_key), max((cell).row_key) FROM wide.read_rows_labeled(NULL::dist, start_key => 'g', "limit" => 40)}),
	$coord->safe_psql('postgres', q{SELECT count(*), min((cell).row_key), max((cell).row_key) FROM wide.read_rows_labeled(NULL::single, start_key => 'g', "limit" => 40)}),
	'read_rows_labeled across tablets');
is($coord->safe_psql('postgres', q{SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::dist, 'k1', 'n', 'c', increment => 10)}),
	'k1|c|15', 'read_modify_write_row runs on the node of a remote tablet');
is($n1->safe_psql('postgres', q{SELECT value FROM wide.read_row(NULL::dist_2, 'k1') WHERE family = 'n' ORDER BY ts DESC LIMIT 1}), '15',
	'and its write is there');
# (its timestamp is the time of the call: not comparable with the other table)
$coord->safe_psql('postgres', q{SELECT wide.delete_cells('dist', 'k1', 'n', 'c')});
$coord->safe_psql('postgres', q{SELECT wide.delete_cells('single', 'k1', 'n', 'c')});
# sample_row_keys: every tablet's samples in key order, the nodes' too
# (compact on the parent compacts the remote tablets on their nodes too)
my $st = q{SELECT write_area_pages > 0 OR runs > 1 FROM wide.stats('%s')};
is(join('', $coord->safe_psql('postgres', sprintf($st, 'dist_1')),
	$n1->safe_psql('postgres', sprintf($st, 'dist_2')),
	$n2->safe_psql('postgres', sprintf($st, 'dist_3'))), 'ttt', 'every tablet has cells to compact');
$coord->safe_psql('postgres', q{SELECT FROM wide.compact('dist', true)});
is(join('', $coord->safe_psql('postgres', sprintf($st, 'dist_1')),
	$n1->safe_psql('postgres', sprintf($st, 'dist_2')),
	$n2->safe_psql('postgres', sprintf($st, 'dist_3'))), 'fff',
	'compact on the parent compacted the local and the remote tablets');
# its summary row sums the tablets': a major compaction of three tablets of
# one run each reads and writes every cell once, the nodes' included
my $sc = q{SELECT cells FROM wide.stats('%s')};
my $tablet_cells = $coord->safe_psql('postgres', sprintf($sc, 'dist_1'))
  + $n1->safe_psql('postgres', sprintf($sc, 'dist_2'))
  + $n2->safe_psql('postgres', sprintf($sc, 'dist_3'));
is($coord->safe_psql('postgres', q{
	SELECT flushes || ' ' || compactions || ' ' || runs_in || ' ' || runs_out || ' ' || cells_in || ' ' || cells_out
	  FROM wide.compact('dist', true)}),
	"0 3 3 3 $tablet_cells $tablet_cells",
	'the summary of compact on the parent sums the local and the remote tablets\' counts');
my $q = q{SELECT count(*) - 1, max(offset_bytes) FROM wide.sample_row_keys('%s')};
my @parts = (split(/\|/, $coord->safe_psql('postgres', sprintf($q, 'dist_1'))),
	split(/\|/, $n1->safe_psql('postgres', sprintf($q, 'dist_2'))),
	split(/\|/, $n2->safe_psql('postgres', sprintf($q, 'dist_3'))));
is($coord->safe_psql('postgres', sprintf($q, 'dist')),
	($parts[0] + $parts[2] + $parts[4]) . '|' . ($parts[1] + $parts[3] + $parts[5]),
	'sample_row_keys of the parent has every tablet\'s samples and size, the nodes\' included');
is($coord->safe_psql('postgres', q{
	SELECT bool_and(offset_bytes > 0),
	       array_agg(row_key ORDER BY offset_bytes) = array_agg(row_key ORDER BY nullif(row_key, '\x') NULLS LAST),
	       (array_agg(row_key ORDER BY offset_bytes DESC))[1] = '\x'
	  FROM wide.sample_row_keys('dist')}),
	't|t|t', 'in key order, offsets growing, the empty key last');
is($n1->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}), '0',
	'nothing left prepared after the data API');

# a node down: family DDL fails naming it and changes nothing; queries
# that do not need it keep working
$before = families_everywhere();
$n2->stop;
($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.create_family('dist', 'y')});
like($err, qr/could not connect to node "n2" for tablet public.dist_3/, 'the node that is down is named');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist WHERE row_key < 'p'}),
	$coord->safe_psql('postgres', q{SELECT count(*) FROM single WHERE row_key < 'p'}),
	'a query that does not need the node works');
($ret, $out, $err) = $coord->psql('postgres', q{SELECT count(*) FROM dist WHERE row_key >= 'p'});
like($err, qr/could not connect to server "n2"/, 'a query that needs it fails naming it');
$n2->start;
is(families_everywhere(), $before, 'no node has the family of the failed change');
is($n1->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}), '0',
	'the other node kept nothing prepared');

# a node that failed between PREPARE and COMMIT PREPARED: the coordinator's
# commit log decides (one committed, one aborted transaction)
my $sysid = $coord->safe_psql('postgres', q{SELECT system_identifier FROM pg_control_system()});
my $committed = $coord->safe_psql('postgres', q{BEGIN; SELECT pg_current_xact_id(); COMMIT;});
my $aborted = $coord->safe_psql('postgres', q{BEGIN; SELECT pg_current_xact_id(); ROLLBACK;});
$n1->safe_psql('postgres', qq{
	BEGIN; SELECT wide.create_family('dist_2', 'c1'); PREPARE TRANSACTION 'wide_${sysid}_${committed}_1';
	BEGIN; CREATE TABLE leftover (i int); PREPARE TRANSACTION 'wide_${sysid}_${aborted}_1';
	BEGIN; CREATE TABLE other (i int); PREPARE TRANSACTION 'not_ours';
});
is($coord->safe_psql('postgres', q{SELECT string_agg(outcome, ',' ORDER BY outcome) FROM wide.resolve_tablets('n1')}),
	'committed,rolled back', 'resolve_tablets commits and rolls back as the coordinator decided');
is($n1->safe_psql('postgres', q{SELECT (SELECT string_agg(gid, ',') FROM pg_prepared_xacts),
	(SELECT count(*) FROM wide.families('dist_2') WHERE family = 'c1'), to_regclass('leftover') IS NULL}),
	'not_ours|1|t', 'the outcomes on the node; other prepared transactions untouched');
$n1->safe_psql('postgres', q{ROLLBACK PREPARED 'not_ours'});

# a node that cannot prepare (max_prepared_transactions = 0): a change
# fails at the local commit and is rolled back everywhere; reads, which
# prepare nothing, still work
$n1->append_conf('postgresql.conf', "max_prepared_transactions = 0\n");
$n1->restart;
$before = families_everywhere();
($ret, $out, $err) = $coord->psql('postgres', q{SELECT wide.create_family('dist', 'p0')});
like($err, qr/node "n1" failed: prepared transactions are disabled/, 'a node that cannot prepare is named');
is(families_everywhere(), $before, 'the change is on no node');
is($n2->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}), '0',
	'the other node rolled its prepared part back');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM wide.read_rows(NULL::dist, start_key => 'h', end_key => 'q')}),
	$coord->safe_psql('postgres', q{SELECT count(*) FROM wide.read_rows(NULL::single, start_key => 'h', end_key => 'q')}),
	'a read of the data API commits without preparing');

# after all of it, still the same answers
for my $cond (@queries[0 .. 2])
{
	my $q = q{SELECT count(*), md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ','
	                 ORDER BY row_key, family, qualifier, ts DESC)) FROM (SELECT * FROM %s %s) s};
	$coord->safe_psql('postgres', q{SELECT wide.alter_family('single', 'm', max_versions => 1)})
	  if $cond eq '';
	is($coord->safe_psql('postgres', sprintf($q, 'dist', $cond)),
		$coord->safe_psql('postgres', sprintf($q, 'single', $cond)),
		"same answer after the failures: $cond");
}

$_->stop for @nodes;
done_testing();
