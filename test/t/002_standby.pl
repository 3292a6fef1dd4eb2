# A streaming standby holds the same cells as the primary, after each of
# several rounds of changes (inserts, large values, TRUNCATE, family DDL),
# and keeps them when promoted.  One standby session reads a row form
# (readings appended, deleted, flushed, truncated on the primary) against a
# heap of the same readings in each round: its copy of the write area
# (engine/wacache.c), kept from round to round, is brought up to date with
# what replay appended, dropped at a flush or TRUNCATE.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts timestamptz, value bytea) USING wide;
	SELECT wide.create_family('t', 'f');
	SELECT wide.create_family('t', 'v', max_versions => 3);
	CREATE TABLE n (row_key text, family text, qualifier text,
	                ts int8, value int8) USING wide;
	SELECT wide.create_family('n', 'sum', aggregate => 'sum');
	CREATE TABLE rc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('rc', 'cpu', max_versions => 1);
	CREATE FOREIGN TABLE rcf (tags_id int4 NOT NULL, time timestamptz NOT NULL, v1 float8, v2 float8)
	  SERVER wide_rows OPTIONS (cells 'rc', family 'cpu', key 'tags_id,time');
	CREATE TABLE rch (tags_id int4 NOT NULL, time timestamptz NOT NULL, v1 float8, v2 float8);
});

$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

my $query = q{
	SELECT count(*), md5(string_agg(row_key || '/' || family || '/' || qualifier
	                                || '/' || ts || '/' || md5(value), ','))
	  FROM t;
};
my $nquery = q{SELECT count(*), sum(value), string_agg(row_key || '=' || value, ',') FROM n};

sub compare
{
	my ($what) = @_;
	$primary->wait_for_catchup($standby);
	my $p = $primary->safe_psql('postgres', $query);
	my $s = $standby->safe_psql('postgres', $query);
	is($s, $p, "standby has the same cells: $what");
	is($standby->safe_psql('postgres', $nquery),
		$primary->safe_psql('postgres', $nquery),
		"standby has the same counters: $what");
}

compare('empty tables');

# the row form against its heap, in one statement (one snapshot)
my $rows_differ = q{
	SELECT (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM (SELECT tags_id, count(*), sum(v1), sum(v2) FROM rcf GROUP BY 1) x)
	       IS DISTINCT FROM
	       (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM (SELECT tags_id, count(*), sum(v1), sum(v2) FROM rch GROUP BY 1) x)
};
my $reader = $standby->background_psql('postgres');

for my $round (1 .. 5)
{
	$primary->safe_psql('postgres', qq{
		INSERT INTO t SELECT 'r$round#' || lpad(i::text, 5, '0'), 'f', 'q' || (i % 7),
		       '2030-01-01'::timestamptz + i * interval '1 second',
		       convert_to(md5(i::text), 'UTF8')
		  FROM generate_series(1, 5000 * $round) i;
		INSERT INTO t SELECT 'big$round', 'f', 'q' || i, '2030-01-01',
		       convert_to(repeat(md5(i::text), 1000), 'UTF8')
		  FROM generate_series(1, 5) i;
		INSERT INTO t SELECT 'ver', 'v', 'q', '2030-01-01'::timestamptz + i * interval '1 day',
		       convert_to(i::text, 'UTF8') FROM generate_series(1, 10) i;
		INSERT INTO n SELECT 'c' || (i % 10), 'sum', 'hits', 1000, 1
		  FROM generate_series(1, 1000) i;
	});
	compare("round $round inserts");

	# readings, some deleted again; a flush in round 2, a TRUNCATE in 4
	my $rows = qq{
		INSERT INTO rcf SELECT h, '2020-01-01'::timestamptz + ($round * 1000 + s) * interval '10 s', s, h * s
		  FROM generate_series(1, 10) h, generate_series(1, 100) s;
		DELETE FROM rcf WHERE tags_id = $round AND time < '2020-01-01'::timestamptz + ($round * 1000 + 50) * interval '10 s';
		DELETE FROM rcf WHERE tags_id = 7 AND time = '2020-01-01'::timestamptz + ($round * 1000 + 7) * interval '10 s';
	};
	(my $heap = $rows) =~ s/rcf/rch/g;
	$primary->safe_psql('postgres', "BEGIN; $rows $heap COMMIT;");
	$primary->safe_psql('postgres', q{SELECT FROM wide.compact('rc')}) if $round == 2;
	$primary->safe_psql('postgres', q{TRUNCATE rc, rch}) if $round == 4;
	$primary->wait_for_catchup($standby);
	is($reader->query_safe($rows_differ), 'f', "a standby session reads the row form right: round $round");

	if ($round == 3)
	{
		$primary->safe_psql('postgres', q{TRUNCATE t});
		compare('after TRUNCATE');
	}
	if ($round == 4)
	{
		$primary->safe_psql('postgres', q{
			SELECT wide.drop_family('t', 'v');
			SELECT wide.create_family('t', 'v', max_versions => 1);
		});
		compare('after family drop and create');
	}
}

# concurrent sessions append to different write-area lanes
$primary->pgbench('-n -c 4 -t 300', 0, [qr{processed: 1200/1200}], [qr{^$}],
	'concurrent single-cell inserts',
	{ 'ins' => q{INSERT INTO t VALUES ('pgb#' || (random() * 1e9)::int8, 'f', 'q', now(), '\x01');} });
compare('after concurrent inserts');

cmp_ok($reader->query_safe('SELECT wide_internal.write_area_reads()'), '>', 0,
	'the standby session read the write area into its copy');
$reader->quit;

$standby->promote;
$standby->safe_psql('postgres',
	"INSERT INTO t VALUES ('promoted', 'f', 'q', '2030-01-01', '\\x02')");
is($standby->safe_psql('postgres', "SELECT count(*) FROM t WHERE row_key = 'promoted'"),
	'1', 'promoted standby takes writes');

$standby->stop;
$primary->stop;
done_testing();
