# A streaming standby holds the same cells as the primary, after each of
# several rounds of changes (inserts, large values, TRUNCATE, family DDL),
# and keeps them when promoted.
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

$standby->promote;
$standby->safe_psql('postgres',
	"INSERT INTO t VALUES ('promoted', 'f', 'q', '2030-01-01', '\\x02')");
is($standby->safe_psql('postgres', "SELECT count(*) FROM t WHERE row_key = 'promoted'"),
	'1', 'promoted standby takes writes');

$standby->stop;
$primary->stop;
done_testing();
