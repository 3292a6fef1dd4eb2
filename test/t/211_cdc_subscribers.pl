# Logical replication of wide tables (issue 15, part 2): a publisher with
# wide in shared_preload_libraries publishes wide tables through pgoutput;
# a subscriber with a wide target and one with a heap target receive the
# same cells after a random workload of INSERTs, COPY, set_cell,
# mutate_row(s), add_to_cell, merge_to_cell, aborts and savepoints, with a
# restart of each side in the middle.  Deletes arrive as a DELETE of each
# cell they removed (docs/replication.md): a heap subscriber keyed on the
# coordinates applies every kind, and so does a wide subscriber whose
# replica identity is the unique wide_key index on the coordinates
# (test/t/212_cdc_wide_deletes.pl tests it further).  A table outside the
# publication writes no changes that a subscriber sees, and keeps working.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pub = PostgreSQL::Test::Cluster->new('cdc_pub');
$pub->init(allows_streaming => 'logical');
$pub->append_conf('postgresql.conf', "shared_preload_libraries = 'wide'");
$pub->start;

my $sub = PostgreSQL::Test::Cluster->new('cdc_sub');
$sub->init;
$sub->start;

my $cols = 'row_key text, family text, qualifier text, ts int8, value text';
my $ccols = 'row_key text, family text, qualifier text, ts int8, value int8';
my $vcols = 'row_key text, family text, qualifier text, ts int8, value bytea';
$pub->safe_psql('postgres', qq{
	CREATE EXTENSION wide;
	CREATE TABLE t ($cols) USING wide;
	SELECT wide.create_family('t', 'm');
	SELECT wide.create_family('t', 'n');
	ALTER TABLE t REPLICA IDENTITY FULL;
	CREATE TABLE c ($ccols) USING wide;
	SELECT wide.create_family('c', 's', aggregate => 'sum');
	CREATE TABLE v ($vcols) USING wide;
	SELECT wide.create_family('v', 'u', aggregate => 'hll');
	SELECT wide.create_family('v', 'p', aggregate => 'ddsketch');
	CREATE TABLE other ($cols) USING wide;
	SELECT wide.create_family('other', 'm');
	INSERT INTO t VALUES ('before', 'm', 'q', 1, 'initial copy');
	CREATE PUBLICATION p FOR TABLE t, c, v;
});

# a wide target, and a heap target keyed on the coordinates (the aggregate
# family's heap target keeps every input: its cell is their sum)
$sub->safe_psql('postgres', 'CREATE DATABASE dbw');
$sub->safe_psql('postgres', 'CREATE DATABASE dbh');
my $nncols = 'row_key text NOT NULL, family text NOT NULL, qualifier text NOT NULL, ts int8 NOT NULL, value text';
$sub->safe_psql('dbw', qq{
	CREATE EXTENSION wide;
	CREATE TABLE t ($nncols) USING wide;
	CREATE UNIQUE INDEX t_cell ON t USING wide_key (row_key, family, qualifier, ts);
	ALTER TABLE t REPLICA IDENTITY USING INDEX t_cell;
	SELECT wide.create_family('t', 'm');
	SELECT wide.create_family('t', 'n');
	CREATE TABLE c ($ccols) USING wide;
	SELECT wide.create_family('c', 's', aggregate => 'sum');
	CREATE TABLE v ($vcols) USING wide;
	SELECT wide.create_family('v', 'u', aggregate => 'hll');
	SELECT wide.create_family('v', 'p', aggregate => 'ddsketch');
});
$sub->safe_psql('dbh', qq{
	CREATE TABLE t ($cols, PRIMARY KEY (row_key, family, qualifier, ts));
	CREATE TABLE c ($ccols);
	CREATE TABLE v ($vcols);
});
my $conn = $pub->connstr() . ' dbname=postgres';
$sub->safe_psql('dbw', "CREATE SUBSCRIPTION sw CONNECTION '$conn' PUBLICATION p");
$sub->safe_psql('dbh', "CREATE SUBSCRIPTION sh CONNECTION '$conn' PUBLICATION p");
$sub->wait_for_subscription_sync($pub, 'sw', 'dbw');
$sub->wait_for_subscription_sync($pub, 'sh', 'dbh');

my $cells_t = 'SELECT row_key, family, qualifier, ts, value FROM t ORDER BY 1, 2, 3, 4';
my $cells_c = 'SELECT row_key, family, qualifier, ts, value FROM c ORDER BY 1, 2, 3, 4';
my $sum_c = 'SELECT row_key, family, qualifier, ts, sum(value) FROM c GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4';

# both subscribers hold the publisher's cells
sub check_same
{
	my ($what) = @_;
	$pub->wait_for_catchup('sw');
	$pub->wait_for_catchup('sh');
	my $want = $pub->safe_psql('postgres', $cells_t);
	is($sub->safe_psql('dbw', $cells_t), $want, "$what: wide subscriber, same cells");
	is($sub->safe_psql('dbh', $cells_t), $want, "$what: heap subscriber, same cells");
	my $agg = $pub->safe_psql('postgres', $cells_c);
	is($sub->safe_psql('dbw', $cells_c), $agg, "$what: wide subscriber, same aggregates");
	is($sub->safe_psql('dbh', $sum_c), $agg, "$what: heap subscriber, same sums of inputs");
}

check_same('initial copy');

# a random workload: each coordinate written once (a heap target keyed on
# the coordinates would refuse an overwrite, docs/replication.md)
srand(15);
my $next_ts = 100;
sub random_batch
{
	my @sql;
	for my $i (1 .. 40)
	{
		my $k = 'r' . int(rand(30));
		my $f = rand() < 0.5 ? 'm' : 'n';
		my $q = 'q' . int(rand(5));
		my $ts = $next_ts++;
		my $v = "v$ts";
		my $kind = int(rand(8));
		if ($kind <= 2)
		{
			push @sql, "INSERT INTO t VALUES ('$k', '$f', '$q', $ts, '$v');";
		}
		elsif ($kind == 3)
		{
			push @sql, "SELECT wide.set_cell('t', '$k', '$f', '$q', '$v', $ts);";
		}
		elsif ($kind == 4)
		{
			my $ts2 = $next_ts++;
			push @sql, qq{SELECT wide.mutate_row('t', '$k', '[
			  {"set_cell": {"family_name": "$f", "column_qualifier": "$q", "timestamp_micros": $ts, "value": "$v"}},
			  {"set_cell": {"family_name": "m", "column_qualifier": "x", "timestamp_micros": $ts2, "value": "x$ts2"}}]');};
		}
		elsif ($kind == 5)
		{
			my $bucket = int(rand(3));
			push @sql, "SELECT wide.add_to_cell('c', '$k', 's', 'n', $bucket, " . int(rand(100)) . ");";
		}
		elsif ($kind == 6)
		{
			my $bucket = int(rand(3));
			push @sql, "SELECT wide.merge_to_cell('c', '$k', 's', 'n', $bucket, " . int(rand(100)) . ");";
		}
		else
		{
			push @sql, "INSERT INTO c VALUES ('$k', 's', 'n', 9, " . int(rand(100)) . ");";
		}
	}
	return @sql;
}

for my $round (1 .. 3)
{
	my @sql = random_batch();
	# committed, aborted, and with rolled-back savepoints
	$pub->safe_psql('postgres', join("\n", 'BEGIN;', @sql[0 .. 9], 'COMMIT;'));
	$pub->safe_psql('postgres', join("\n", 'BEGIN;', @sql[10 .. 19], 'ROLLBACK;'));
	$pub->safe_psql('postgres', join("\n", 'BEGIN;', @sql[20 .. 24],
		'SAVEPOINT a;', @sql[25 .. 29], 'ROLLBACK TO a;', 'SAVEPOINT b;',
		@sql[30 .. 34], 'RELEASE b;', 'COMMIT;'));
	$pub->safe_psql('postgres', join("\n", @sql[35 .. 39]));
	# COPY
	my $copy = join('', map { my $ts = $next_ts++; "copy$round\tm\tq$_\t$ts\tc$ts\n" } 1 .. 50);
	$pub->safe_psql('postgres', "COPY t FROM stdin;\n$copy\\.\n");
	# flush and compaction in between change nothing
	$pub->safe_psql('postgres', "SELECT FROM wide.compact('t', major => $round = 2)");
	check_same("round $round");

	# a restart of either side in the middle loses nothing
	if ($round == 1)
	{
		$pub->safe_psql('postgres', "INSERT INTO t VALUES ('restart', 'm', 'pub', 1, 'x')");
		$pub->stop('immediate');
		$pub->start;
	}
	elsif ($round == 2)
	{
		$sub->stop('immediate');
		$pub->safe_psql('postgres', "INSERT INTO t VALUES ('restart', 'm', 'sub', 1, 'y')");
		$sub->start;
	}
}
check_same('after the restarts');
cmp_ok($pub->safe_psql('postgres', 'SELECT count(*) FROM t'), '>', 200,
	'the workload wrote cells');
cmp_ok($pub->safe_psql('postgres', 'SELECT count(*) FROM c'), '>', 10,
	'and aggregate cells');

# hll: an input arrives as a sketch of that input, which the wide
# subscriber merges into the same sketch
$pub->safe_psql('postgres', q{
	SELECT wide.add_to_cell('v', 'r' || (i % 3), 'u', 'visitors', 0, 'user' || i)
	FROM generate_series(1, 300) i;
	INSERT INTO v SELECT 'r1', 'u', 'visitors', 0, convert_to('direct' || i, 'UTF8') FROM generate_series(1, 50) i;
	SELECT wide.merge_to_cell('v', 'r2', 'u', 'visitors', 0,
	       (SELECT value FROM v WHERE row_key = 'r0'));
});
$pub->wait_for_catchup('sw');
$pub->wait_for_catchup('sh');
my $hll = 'SELECT row_key, md5(value) FROM v ORDER BY 1';
is($sub->safe_psql('dbw', $hll), $pub->safe_psql('postgres', $hll),
	'hll: the wide subscriber holds the same sketches');
is($sub->safe_psql('dbh', q{SELECT count(*) FROM v WHERE family = 'u'}), '351',
	'hll: the heap subscriber holds each input as a sketch');

# ddsketch: the same, quantile sketches merged on the wide subscriber
$pub->safe_psql('postgres', q{
	SELECT wide.add_to_cell('v', 'r' || (i % 3), 'p', 'lat', 0, (i * 37 % 1000 - 100) / 7.0)
	FROM generate_series(1, 300) i;
	SELECT wide.merge_to_cell('v', 'r2', 'p', 'lat', 0,
	       (SELECT value FROM v WHERE row_key = 'r0' AND family = 'p'));
});
$pub->wait_for_catchup('sw');
$pub->wait_for_catchup('sh');
my $dds = q{SELECT row_key, md5(value) FROM v WHERE family = 'p' ORDER BY 1};
is($sub->safe_psql('dbw', $dds), $pub->safe_psql('postgres', $dds),
	'ddsketch: the wide subscriber holds the same sketches');
is($sub->safe_psql('dbh', q{SELECT count(*), bool_and(substr(value, 1, 1) = '\x44') FROM v WHERE family = 'p'}),
	'301|t', 'ddsketch: the heap subscriber holds each input as a sketch');

# a wide table outside the publication: writes work, nothing is sent
$pub->safe_psql('postgres', q{
	INSERT INTO other VALUES ('o', 'm', 'q', 1, 'unpublished');
	SELECT wide.delete_row('other', 'o');
	INSERT INTO other VALUES ('o', 'm', 'q', 2, 'still here');
});
is($pub->safe_psql('postgres', 'SELECT value FROM other'), 'still here',
	'a table outside the publication keeps working');
check_same('unpublished writes');
# deletes: a heap subscriber keyed on the coordinates and a wide one with
# the index apply every kind (each arrives as a DELETE of each cell it
# removed, docs/replication.md)
$pub->safe_psql('postgres', q{
	INSERT INTO t VALUES ('del', 'm', 'a', 1, 'one version'),
	                     ('del', 'm', 'b', 1, 'a row delete');
	DELETE FROM t WHERE row_key = 'del' AND qualifier = 'a';
	SELECT wide.delete_row('t', 'del');
});
$pub->wait_for_catchup('sw');
$pub->wait_for_catchup('sh');
is($pub->safe_psql('postgres', q{SELECT count(*) FROM t WHERE row_key = 'del'}),
	'0', 'publisher: both deleted');
is($sub->safe_psql('dbh', q{SELECT count(*) FROM t WHERE row_key = 'del'}),
	'0', 'heap subscriber: both deleted');
is($sub->safe_psql('dbw', q{SELECT count(*) FROM t WHERE row_key = 'del'}),
	'0', 'wide subscriber: both deleted');

# random deletes of every kind, in transactions, savepoints and aborts:
# both subscribers hold the publisher's cells
my @del;
for my $i (1 .. 60)
{
	my $k = 'r' . int(rand(30));
	my $f = rand() < 0.5 ? 'm' : 'n';
	my $q = 'q' . int(rand(5));
	my $kind = int(rand(5));
	if ($kind == 0)
	{
		push @del, "SELECT wide.delete_row('t', '$k');";
	}
	elsif ($kind == 1)
	{
		push @del, "SELECT wide.delete_family('t', '$k', '$f');";
	}
	elsif ($kind == 2)
	{
		my $from = 100 + int(rand($next_ts - 100));
		my $to = $from + int(rand(200));
		push @del, "SELECT wide.delete_cells('t', '$k', '$f', '$q', $from, $to);";
	}
	elsif ($kind == 3)
	{
		push @del, "DELETE FROM t WHERE row_key = '$k' AND family = '$f' AND qualifier = '$q';";
	}
	else
	{
		my $ts = $next_ts++;
		push @del, qq{SELECT wide.mutate_row('t', '$k', '[
		  {"set_cell": {"family_name": "$f", "column_qualifier": "$q", "timestamp_micros": $ts, "value": "late"}},
		  {"delete_from_family": {"family_name": "$f"}}]');};
	}
}
my $before = $pub->safe_psql('postgres', 'SELECT count(*) FROM t');
$pub->safe_psql('postgres', join("\n", 'BEGIN;', @del[0 .. 19], 'COMMIT;'));
$pub->safe_psql('postgres', join("\n", 'BEGIN;', @del[20 .. 29], 'ROLLBACK;'));
$pub->safe_psql('postgres', join("\n", 'BEGIN;', @del[30 .. 39], 'SAVEPOINT a;',
	@del[40 .. 49], 'ROLLBACK TO a;', @del[50 .. 59], 'COMMIT;'));
$pub->wait_for_catchup('sh');
$pub->wait_for_catchup('sw');
my $left = $pub->safe_psql('postgres', $cells_t);
is($sub->safe_psql('dbh', $cells_t), $left,
	'random deletes: the heap subscriber holds the same cells');
is($sub->safe_psql('dbw', $cells_t), $left,
	'random deletes: the wide subscriber holds the same cells');
cmp_ok(scalar(split /\n/, $left), '<', $before, 'they deleted cells');

my $log = slurp_file($sub->logfile);
# (the publisher's restart broke the connections, and an apply worker
# started again may find its origin still held by the one that is exiting,
# and is retried; nothing else failed)
unlike($log, qr/ERROR:  (?!could not (receive data from WAL stream|connect to the publisher)|replication origin with ID \d+ is already active for PID \d+)/,
	'no apply error on the subscriber');

$sub->stop;
$pub->stop;
done_testing();
