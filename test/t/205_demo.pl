# The demo's workloads (examples/NN_*.sql, what examples/demo.sh runs) in a
# temporary cluster: each file must run without an error -- its own checks
# (demo.expect) raise on a wrong count or value -- and print every check it
# makes as "ok: ...".  Then the answers are checked once more from here,
# on the tables the examples leave behind.  Re-running an example on the
# same database is safe: every table an example creates is dropped (IF
# EXISTS) before, which is checked in the text of each; the examples that
# create anything else (functions, views, foreign tables, tables named at
# run time) run a second time.  A new example
# joins by being there (examples/NN_name.sql); each demo.expect or
# demo.expect_between call in it must be a top-level SELECT printing one
# "ok:" line, which is how its checks are counted.
use strict;
use warnings;
use File::Basename;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = dirname(dirname(dirname(__FILE__)));
my @files = sort glob("$root/examples/[0-9][0-9]_*.sql");
ok(@files >= 7, 'the examples are there');

my $node = PostgreSQL::Test::Cluster->new('demo');
$node->init;
$node->append_conf('postgresql.conf', "shared_buffers = 128MB\nmax_wal_size = 2GB\n");
$node->start;

# run one example as demo.sh does; returns its output
sub run_example
{
	my ($file) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', undef,
		extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $file ]);
	is($ret, 0, basename($file) . ' runs without an error')
	  or diag($err);
	return $out;
}

sub text_of
{
	my ($f) = @_;
	open(my $fh, '<', $f) or die "$f: $!";
	local $/;
	return <$fh>;
}

# each table an example creates by name is dropped before, in the same file
for my $f (@files)
{
	my $text = text_of($f);
	my %dropped;
	my @missing;
	while ($text =~ /^\s*(DROP TABLE IF EXISTS ([^;]+);|CREATE TABLE (\w+))/mg)
	{
		if (defined $2)
		{
			$dropped{$_} = 1 for map { s/^\s+|\s+$//gr } split /,/, $2 =~ s/\s+CASCADE\s*$//ir;
		}
		else
		{
			push @missing, $3 unless $dropped{$3};
		}
	}
	is("@missing", '', basename($f) . ': every table it creates is dropped (IF EXISTS) before');
}

for my $pass (1, 2)
{
	for my $f (@files)
	{
		my $text = text_of($f);
		next if $pass == 2
		  && $text !~ /CREATE (?:OR REPLACE|FOREIGN|SCHEMA|EXTENSION|FUNCTION|VIEW)|EXECUTE format\('CREATE/;
		my $out = run_example($f);
		my $want = () = $text =~ /demo\.expect(?:_between)?\(/g;
		my $got = () = $out =~ /^ ?ok: /mg;
		$want = 0 if basename($f) eq '00_setup.sql';
		is($got, $want, basename($f) . " pass $pass: all $want checks say ok");
	}
}

# the answers, from here
my %q = (
	'SELECT count(*) FROM quote' => 576000,
	'SELECT count(*) FROM trade' => 72000,
	q{SELECT count(*) FROM quote WHERE row_key >= 'NASDAQ#ZXZZT#1426535580000' AND row_key < 'NASDAQ#ZXZZT#1426535640000'} => 480,
	'SELECT count(*) FROM metric' => 720000,
	'SELECT count(*) FROM current_metric' => 1000,
	q{SELECT value FROM current_metric WHERE row_key = 'server07.example.com' AND qualifier = 'cpu/cpu1_usr'} => 81.7,
	'SELECT count(*) FROM sensor' => 679000,
	'SELECT count(*) FROM sensor_20170726' => 97000,
	q{SELECT count(*) FROM wide.read_row(NULL::sensor, '0000000042#20170726')} => 97,
	'SELECT count(*) FROM balloon_col' => 172800,
	'SELECT count(*) FROM balloon_json' => 43200,
	q{SELECT count(*) FROM wide.read_current(NULL::balloon_cell, prefix => 'us-west2#')} => 20,
	'SELECT count(*) FROM hot_trade_salted' => 200000,
	q{SELECT count(DISTINCT split_part(row_key, '#', 1)) FROM hot_trade_salted} => 8,
	q{SELECT sum(value) FROM donations WHERE family = 'total'} => 31350000,
	q{SELECT sum(value) FROM donations WHERE family = 'count'} => 300000,
	q{SELECT wide.hll_count(wide.hll_union_agg(value)) BETWEEN 38800 AND 41200 FROM donors} => 't',
);
for my $sql (sort keys %q)
{
	is($node->safe_psql('postgres', $sql), $q{$sql}, $sql);
}

$node->stop;
done_testing();
