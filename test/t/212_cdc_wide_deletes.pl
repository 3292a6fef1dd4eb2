# Logical replication of wide tables (issue 15): a WIDE subscriber applies
# every delete kind.  Its tables have the unique wide_key index on the
# coordinates as REPLICA IDENTITY, so PostgreSQL's apply worker looks each
# DELETE's cell up by (row_key, family, qualifier, ts) and deletes it with a
# tombstone of that version (docs/replication.md).  A random workload of
# every mutation kind -- INSERT, COPY, set_cell, mutate_row, overwrites,
# add_to_cell, merge_to_cell, delete_row, delete_family, delete_cells of
# ranges and single versions, mutate_row delete_from_family and
# delete_from_column, SQL DELETE -- with aborts, savepoints and a restart of
# each side in the middle ends with the subscriber holding the publisher's
# cells, cell for cell; values without an equality operator (json) and
# with odd ones (float NaN, -0) are never compared.  A rollup family
# replicates without double counting.  A wide subscriber without the index
# refuses the DELETE with a clear error (never skips it) and applies it
# once the index exists.  Each applied DELETE is one index lookup (counted
# in pg_stat_user_indexes), not a scan of the table.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

my $pub = PostgreSQL::Test::Cluster->new('cdc_pub');
$pub->init(allows_streaming => 'logical');
$pub->append_conf('postgresql.conf', "shared_preload_libraries = 'wide'");
$pub->start;

my $sub = PostgreSQL::Test::Cluster->new('cdc_sub');
$sub->init;
$sub->append_conf('postgresql.conf', "wal_retrieve_retry_interval = '200ms'");
$sub->start;

# the tables: t (text values), j (json), f (float8), c (a sum family),
# r (a rollup family), big (the cost of a delete)
my %cols = (
	t => 'value text',
	j => 'value json',
	f => 'value float8',
	c => 'value int8',
	r => 'value int8',
	big => 'value text');
my %ts = (r => 'timestamptz');
sub create_tables
{
	my ($node, $db, $subscriber) = @_;
	my $sql = "CREATE EXTENSION wide;\n";
	for my $t (sort keys %cols)
	{
		# on the publisher, j's identity is the index too: its DELETEs
		# carry the coordinates as the key ('K') rather than the old row
		my $index = $subscriber || $t eq 'j';
		my $nn = $index ? ' NOT NULL' : '';
		my $tstype = $ts{$t} // 'int8';
		$sql .= "CREATE TABLE $t (row_key text$nn, family text$nn, qualifier text$nn, ts $tstype$nn, $cols{$t}) USING wide;\n";
		if ($index)
		{
			$sql .= "CREATE UNIQUE INDEX ${t}_cell ON $t USING wide_key (row_key, family, qualifier, ts);\n";
			$sql .= "ALTER TABLE $t REPLICA IDENTITY USING INDEX ${t}_cell;\n";
		}
		else
		{
			$sql .= "ALTER TABLE $t REPLICA IDENTITY FULL;\n";
		}
	}
	$sql .= q{
		SELECT wide.create_family('t', 'm');
		SELECT wide.create_family('t', 'n');
		SELECT wide.create_family('j', 'm');
		SELECT wide.create_family('f', 'm');
		SELECT wide.create_family('c', 's', aggregate => 'sum');
		SELECT wide.create_family('c', 'x', aggregate => 'max');
		SELECT wide.create_family('r', 'm');
		SELECT wide.create_family('r', 'm5', rollup => '{"source": "m", "bucket": "5 minutes", "functions": ["sum", "count", "min", "max"]}');
		SELECT wide.create_family('big', 'm');
	};
	$node->safe_psql($db, $sql);
}

create_tables($pub, 'postgres', 0);
$pub->safe_psql('postgres', q{
	INSERT INTO t VALUES ('before', 'm', 'q', 1, 'initial copy');
	INSERT INTO r VALUES ('h0', 'm', 'cpu', '2024-01-01 00:01:00+00', 10);
	INSERT INTO big SELECT 'b' || lpad((i / 10)::text, 6, '0'), 'm', 'q' || (i % 10), i, 'cell ' || i
	FROM generate_series(0, 99999) i;
	CREATE PUBLICATION p FOR TABLE t, j, f, c, r, big;
	CREATE TABLE n (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('n', 'm');
	ALTER TABLE n REPLICA IDENTITY FULL;
	CREATE PUBLICATION pn FOR TABLE n;
});

$sub->safe_psql('postgres', 'CREATE DATABASE dbw');
$sub->safe_psql('postgres', 'CREATE DATABASE dbn');
create_tables($sub, 'dbw', 1);
# a wide subscriber without the index
$sub->safe_psql('dbn', q{
	CREATE EXTENSION wide;
	CREATE TABLE n (row_key text NOT NULL, family text NOT NULL, qualifier text NOT NULL, ts int8 NOT NULL, value text) USING wide;
	SELECT wide.create_family('n', 'm');
});
my $conn = $pub->connstr() . ' dbname=postgres';
$sub->safe_psql('dbw', "CREATE SUBSCRIPTION sw CONNECTION '$conn' PUBLICATION p");
$sub->safe_psql('dbn', "CREATE SUBSCRIPTION sn CONNECTION '$conn' PUBLICATION pn");
$sub->wait_for_subscription_sync($pub, 'sw', 'dbw');
$sub->wait_for_subscription_sync($pub, 'sn', 'dbn');

sub cells
{
	my ($t) = @_;
	# json has no equality; float8's text tells -0 from 0
	my $v = ($t eq 'j' || $t eq 'f') ? 'value::text' : 'value';
	return "SELECT row_key, family, qualifier, ts, $v FROM $t ORDER BY 1, 2, 3, 4";
}

sub check_same
{
	my ($what) = @_;
	$pub->wait_for_catchup('sw');
	for my $t (sort keys %cols)
	{
		next if $t eq 'big';
		is($sub->safe_psql('dbw', cells($t)), $pub->safe_psql('postgres', cells($t)),
			"$what: table $t, the same cells");
	}
}

check_same('initial copy');

# VACUUM (autovacuum, too) on both sides must leave the tables known to have
# indexes: else the publisher sends no replica identity column and the
# subscriber refuses every DELETE (am/vacuum.c)
for my $t (sort keys %cols)
{
	$pub->safe_psql('postgres', "VACUUM $t");
	$sub->safe_psql('dbw', "VACUUM $t");
}
# (on the publisher only j has the index as its identity)
is($pub->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relhasindex AND relname = 'j'})
	. $sub->safe_psql('dbw', q{SELECT count(*) FROM pg_class WHERE relhasindex AND relname IN ('t', 'j')}),
	'12', 'VACUUM keeps relhasindex on both sides');

# a random workload of every mutation kind; coordinates repeat, so cells are
# overwritten, deleted and written again
srand(212);
my $next_ts = 100;
sub rts { return 100 + int(rand($next_ts - 100 + 1)); }
sub rkey { return 'r' . int(rand(12)); }
sub jvalue { my $i = shift; return rand() < 0.5 ? qq('{"a": $i, "b": [1, 2]}') : qq('  {"b":1,   "a": $i}'); }
my @fvalues = ("'NaN'", "'-0'", '0', "'Infinity'", "'-Infinity'", '1.5', '-2.25e-300');

sub random_mutation
{
	my $k = rkey();
	my $f = rand() < 0.5 ? 'm' : 'n';
	my $q = 'q' . int(rand(4));
	my $kind = int(rand(20));
	# writes: a new version, or an overwrite of an existing one
	my $ts = rand() < 0.3 ? rts() : $next_ts++;
	if ($kind == 0) { return "INSERT INTO t VALUES ('$k', '$f', '$q', $ts, 'v$ts');"; }
	if ($kind == 1) { return "SELECT wide.set_cell('t', '$k', '$f', '$q', 'set$ts', $ts);"; }
	if ($kind == 2)
	{
		my $ts2 = $next_ts++;
		return qq{SELECT wide.mutate_row('t', '$k', '[
		  {"set_cell": {"family_name": "$f", "column_qualifier": "$q", "timestamp_micros": $ts, "value": "mr$ts"}},
		  {"set_cell": {"family_name": "m", "column_qualifier": "x", "timestamp_micros": $ts2, "value": "x$ts2"}}]');};
	}
	if ($kind == 3) { return "INSERT INTO j VALUES ('$k', 'm', '$q', $ts, " . jvalue($ts) . ");"; }
	if ($kind == 4) { return "INSERT INTO f VALUES ('$k', 'm', '$q', $ts, " . $fvalues[int(rand(@fvalues))] . ");"; }
	if ($kind == 5)
	{
		return "SELECT wide.add_to_cell('c', '$k', 's', 'n', " . int(rand(3)) . ', ' . int(rand(100)) . ');';
	}
	if ($kind == 6)
	{
		return "SELECT wide.merge_to_cell('c', '$k', 'x', 'n', " . int(rand(3)) . ', ' . int(rand(100)) . ');';
	}
	if ($kind == 7)
	{
		# each source cell written once: a rollup counts writes
		my $min = int(rand(20));
		my $u = $next_ts++;
		return "INSERT INTO r VALUES ('h" . int(rand(3)) . "', 'm', 'cpu', '2024-01-01 00:00:00+00'::timestamptz + interval '$min minutes $u microseconds', " . int(rand(100)) . ');';
	}
	# deletes
	if ($kind == 8) { return "SELECT wide.delete_row('t', '$k');"; }
	if ($kind == 9) { return "SELECT wide.delete_family('t', '$k', '$f');"; }
	if ($kind == 10)
	{
		my $from = rts();
		my $to = $from + int(rand(60));
		return "SELECT wide.delete_cells('t', '$k', '$f', '$q', $from, $to);";
	}
	if ($kind == 11)
	{
		my $t1 = rts();
		return "SELECT wide.delete_cells('t', '$k', '$f', '$q', $t1, $t1 + 1);";
	}
	if ($kind == 12) { return "SELECT wide.delete_cells('t', '$k', '$f', '$q');"; }
	if ($kind == 13)
	{
		return "DELETE FROM t WHERE row_key = '$k' AND family = '$f' AND qualifier = '$q';";
	}
	if ($kind == 14)
	{
		my $from = rts();
		my $to = $from + int(rand(40)) + 1;
		return qq{SELECT wide.mutate_row('t', '$k', '[
		  {"set_cell": {"family_name": "$f", "column_qualifier": "$q", "timestamp_micros": $ts, "value": "late$ts"}},
		  {"delete_from_column": {"family_name": "$f", "column_qualifier": "$q", "time_range": {"start_timestamp_micros": $from, "end_timestamp_micros": $to}}},
		  {"delete_from_family": {"family_name": "n"}}]');};
	}
	if ($kind == 15)
	{
		return "DELETE FROM j WHERE row_key = '$k' AND ts % 3 <> 0;";
	}
	if ($kind == 16)
	{
		return "SELECT wide.delete_row('f', '$k');" if rand() < 0.3;
		return "DELETE FROM f WHERE row_key = '$k' AND (value = 'NaN' OR value = 0 OR ts % 2 = 0);";
	}
	if ($kind == 17)
	{
		# a delete of aggregate cells: the merged cell goes
		return rand() < 0.5 ? "SELECT wide.delete_family('c', '$k', 's');"
		  : "DELETE FROM c WHERE row_key = '$k' AND family = 'x' AND ts = " . int(rand(3)) . ';';
	}
	if ($kind == 18)
	{
		return "DELETE FROM t WHERE row_key = '$k' AND ts % 2 = 1;";
	}
	return "SELECT wide.delete_row('j', '$k');";
}

sub copy_rows
{
	my ($round) = @_;
	my $rows = join('', map {
		my $ts = $next_ts++;
		my $k = rkey();
		"$k\tm\tq" . int(rand(4)) . "\t$ts\tcopy$ts\n" } 1 .. 40);
	return "COPY t FROM stdin;\n$rows\\.\n";
}

for my $round (1 .. 4)
{
	my @m = map { random_mutation() } 1 .. 80;
	$pub->safe_psql('postgres', join("\n", 'BEGIN;', @m[0 .. 19], 'COMMIT;'));
	$pub->safe_psql('postgres', join("\n", 'BEGIN;', @m[20 .. 29], 'ROLLBACK;'));
	$pub->safe_psql('postgres', join("\n", 'BEGIN;', @m[30 .. 39],
		'SAVEPOINT a;', @m[40 .. 49], 'ROLLBACK TO a;', 'SAVEPOINT b;',
		@m[50 .. 59], 'RELEASE b;', 'COMMIT;'));
	$pub->safe_psql('postgres', join("\n", @m[60 .. 79]));
	$pub->safe_psql('postgres', copy_rows($round));
	$pub->safe_psql('postgres', "SELECT FROM wide.compact('t', major => $round = 3)");

	if ($round == 1)
	{
		# the subscriber stops in the middle of the stream
		$sub->stop('immediate');
		$pub->safe_psql('postgres', join("\n", map { random_mutation() } 1 .. 30));
		$sub->start;
	}
	elsif ($round == 2)
	{
		# and the publisher
		$pub->safe_psql('postgres', join("\n", map { random_mutation() } 1 .. 30));
		$pub->stop('immediate');
		$pub->start;
	}
	check_same("round $round");
}
cmp_ok($pub->safe_psql('postgres', 'SELECT count(*) FROM t'), '>', 100,
	'the workload left cells');
cmp_ok($pub->safe_psql('postgres', "SELECT count(*) FROM r WHERE family = 'm5'"), '>', 4,
	'and rollup cells');
cmp_ok($pub->safe_psql('postgres', q{SELECT count(*) FROM f WHERE value = 'NaN' OR value = 0}),
	'>', 0, 'and NaN or zero values');

# a rollup counts each source write once: the subscriber's rollup cells
# are the publisher's, and the sum of each bucket is the sum of the source
# cells in it (no overwrites in r)
my $rollup_sums = q{
	SELECT row_key, date_bin('5 minutes', ts, '1970-01-01 00:00:00+00'), sum(value), count(*)
	FROM r WHERE family = 'm' GROUP BY 1, 2 ORDER BY 1, 2};
my $rollup_cells = q{
	SELECT s.row_key, s.ts, s.value, c.value FROM r s JOIN r c USING (row_key, ts)
	WHERE s.family = 'm5' AND s.qualifier = 'cpu:sum' AND c.family = 'm5' AND c.qualifier = 'cpu:count'
	ORDER BY 1, 2};
is($sub->safe_psql('dbw', $rollup_cells), $pub->safe_psql('postgres', $rollup_cells),
	'rollup: the subscriber holds the publisher rollup cells');
is($sub->safe_psql('dbw', $rollup_cells), $pub->safe_psql('postgres', $rollup_sums),
	'rollup: no double count on the subscriber (sum and count of the source cells)');

# a wide subscriber without a replica identity index refuses a DELETE with
# a clear error, never skips it; with the index it applies it
$pub->safe_psql('postgres', q{
	INSERT INTO n VALUES ('a', 'm', 'q', 1, 'kept'), ('a', 'm', 'q', 2, 'deleted');
});
$pub->wait_for_catchup('sn');
$pub->safe_psql('postgres', q{
	DELETE FROM n WHERE ts = 2;
	INSERT INTO n VALUES ('a', 'm', 'q', 3, 'after the delete');
});
my $refused = 0;
for my $try (1 .. 100)
{
	$refused = slurp_file($sub->logfile) =~
	  /ERROR:  wide table "n" needs a replica identity index to apply a replicated UPDATE or DELETE/;
	last if $refused;
	sleep(0.2);
}
ok($refused, 'without the index: the DELETE is refused with a clear error');
is($sub->safe_psql('dbn', 'SELECT string_agg(value, \',\' ORDER BY ts) FROM n'),
	'kept,deleted', 'and nothing after it is applied');
$sub->safe_psql('dbn', q{
	CREATE UNIQUE INDEX n_cell ON n USING wide_key (row_key, family, qualifier, ts);
	ALTER TABLE n REPLICA IDENTITY USING INDEX n_cell;
});
$pub->wait_for_catchup('sn');
is($sub->safe_psql('dbn', 'SELECT string_agg(value, \',\' ORDER BY ts) FROM n'),
	'kept,after the delete', 'with the index: the DELETE is applied, then the rest');

# the cost of an applied DELETE: one lookup of the cell by its coordinates
# in the 100,000-cell table (a point read of its row), counted as one index
# scan returning one cell; the time is printed, not checked
my $idx = q{SELECT idx_scan || ',' || idx_tup_read FROM pg_stat_user_indexes WHERE indexrelname = 'big_cell'};
my ($scans0, $read0) = split /,/, $sub->safe_psql('dbw', $idx);
my $ndel = 1000;
my $start = time();
$pub->safe_psql('postgres', qq{
	DELETE FROM big WHERE row_key IN (SELECT 'b' || lpad((i * 97)::text, 6, '0') FROM generate_series(0, 99) i);
});
$pub->wait_for_catchup('sw');
my $elapsed = time() - $start;
diag(sprintf('applied %d deletes in a 100,000-cell wide table in %.2f s (%.2f ms each, publisher and apply)',
	$ndel, $elapsed, 1000 * $elapsed / $ndel));
is($sub->safe_psql('dbw', 'SELECT count(*) FROM big'), 100000 - $ndel,
	'big: the deletes were applied');
is($sub->safe_psql('dbw', cells('big')), $pub->safe_psql('postgres', cells('big')),
	'big: the same cells');
# the apply worker reports its statistics at a commit at least a second
# after its last report: commit something until the scans show
my $want = ($scans0 + $ndel) . ',' . ($read0 + $ndel);
my $got = '';
for my $try (1 .. 30)
{
	$got = $sub->safe_psql('dbw', $idx);
	last if $got eq $want;
	sleep(1);
	$pub->safe_psql('postgres', "INSERT INTO big VALUES ('z', 'm', 'q', $try, 'flush')");
	$pub->wait_for_catchup('sw');
}
is($got, $want, 'each applied DELETE is one index lookup returning one cell');
# (and the workload's deletes found their cells there)
my $found = $sub->safe_psql('dbw', q{
	SELECT string_agg(indexrelname || ':' || (idx_tup_read > 0), ',' ORDER BY 1)
	FROM pg_stat_user_indexes WHERE indexrelname IN ('t_cell', 'j_cell', 'f_cell', 'c_cell')});
is($found, 'c_cell:true,f_cell:true,j_cell:true,t_cell:true',
	'the random deletes found cells of each table on the subscriber');

my $log = slurp_file($sub->logfile);
# (restarts broke connections; table n's refused DELETE was expected)
my @errors = grep { !/could not (receive data from WAL stream|connect to the publisher)|replication origin with ID \d+ is already active for PID \d+|wide table "n" needs a replica identity index/ }
  ($log =~ /ERROR:  (.*)/g);
is(join("\n", @errors), '', 'no other apply error on the subscriber');

$sub->stop;
$pub->stop;
done_testing();
