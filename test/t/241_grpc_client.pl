# wide-bigtable (docs/grpc.md) through a client library: npm's
# @google-cloud/bigtable with BIGTABLE_EMULATOR_HOST runs one scenario
# (test/grpc/client.js: CreateTable, MutateRow, MutateRows, ReadRows with
# row sets and filters, CheckAndMutateRow, ReadModifyWriteRow,
# SampleRowKeys, deletes, errors) against wide-bigtable; every answer must
# equal test/grpc/client.expected, which holds the Bigtable emulator's
# answers with wide's documented deviations (docs/grpc.md), and, where the
# emulator is installed, the emulator's own answers of this run.  Then the
# raw ReadRows chunks are checked against the rules of the cross-client
# read-rows acceptance cases (test/grpc/chunks.js) on reads that exercise
# them (split values, labels, reversed, row limits, many families), their
# cells against SQL's; a reader that stops reading leaves the server's
# memory bounded (flow control).  Skips where node, the npm package
# (npm install --prefix test/grpc, as .ci/run does) or the server is absent.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use IPC::Run qw(start run timeout);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = abs_path(dirname(__FILE__) . '/../..');
my $node = PostgreSQL::Test::Cluster->new('grpc_client');
my $bin = $node->config_data('--bindir') . '/wide-bigtable';
my $nodejs = `command -v node 2>/dev/null`;
chomp $nodejs;
my $modules = "$root/test/grpc/node_modules";
plan skip_all => "no wide-bigtable at $bin (built without gRPC)" unless -x $bin;
plan skip_all => 'no node on PATH (Debian: nodejs npm)' unless $nodejs;
plan skip_all => "no \@google-cloud/bigtable in $modules (npm install --prefix test/grpc)"
  unless -d "$modules/\@google-cloud/bigtable";
my $emulator = $ENV{CBTEMULATOR} || '/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator';

$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wide');

my ($out, $err) = ('', '');
my $dsn = 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres';
my $timer = timeout(600);
my $server = start([ $bin, '--host', '127.0.0.1', '--port', '0', '--dsn', $dsn, '--connections', '4' ],
	'>', \$out, '2>', \$err, $timer);
$server->pump until $out =~ /listening on [\w.]+:(\d+)/;
my $addr = "127.0.0.1:$1";
$timer->reset;
my ($emu, $emu_addr);
END
{
	$server->kill_kill if $server && $server->pumpable;
	$emu->kill_kill if $emu && $emu->pumpable;
}

# runs a script of test/grpc against ADDR; returns (exit status, stdout, stderr)
sub node_run
{
	my ($target, @args) = @_;
	my ($o, $e) = ('', '');
	local $ENV{BIGTABLE_EMULATOR_HOST} = $target;
	local $ENV{NODE_PATH} = $modules;
	local $ENV{METADATA_SERVER_DETECTION} = 'none';
	run([ $nodejs, @args ], '>', \$o, '2>', \$e, timeout(60));
	return ($? >> 8, $o, $e);
}

sub lines
{
	my %h;
	my @order;
	for (split /\n/, $_[0])
	{
		my ($k, $v) = split /\t/, $_, 2;
		push @order, $k;
		$h{$k} = $v;
	}
	return (\%h, \@order);
}

# --- the scenario
my ($rc, $o, $e) = node_run($addr, "$root/test/grpc/client.js", 'nodet');
is($rc, 0, 'the client library runs the scenario against wide-bigtable') or diag($e);
my ($wide, $order) = lines($o);
# kept for a look when a step differs
open(my $keep, '>', "$PostgreSQL::Test::Utils::tmp_check/client.wide") or die;
print $keep $o;
close $keep;
open(my $fh, '<', "$root/test/grpc/client.expected") or die "client.expected: $!";
my ($expected, $eorder) = lines(join('', <$fh>));
close $fh;
is(scalar(@$order), scalar(@$eorder), 'every step answered');
is($wide->{$_}, $expected->{$_}, "step $_") for @$eorder;

# the cells it left, from SQL: the table is gone (the scenario's last step)
is($node->safe_psql('postgres', q{SELECT to_regclass('nodet') IS NULL}), 't', 'DeleteTable dropped it in SQL');

SKIP:
{
	skip "no Bigtable emulator at $emulator", 1 unless -x $emulator;
	my ($eo, $ee) = ('', '');
	$emu = start([ $emulator, '-host', '127.0.0.1', '-port', '0' ], '>', \$eo, '2>', \$ee, timeout(600));
	$emu->pump until $eo =~ /running on [\w.]+:(\d+)/;
	$emu_addr = "127.0.0.1:$1";
	($rc, $o, $e) = node_run($emu_addr, "$root/test/grpc/client.js", 'nodet');
	my ($em) = lines($o);
	# what the emulator answers, after wide's deviations, is the expected file
	my %deviation = (
		# the emulator says INTERNAL for an unknown family; Bigtable and wide
		# NOT_FOUND
		err_family => [ '{"partial":[["row001",13]]}', '{"partial":[["row001",5]]}' ],
		err_partial => [ '{"partial":[["bad1",13]]}', '{"partial":[["bad1",5]]}' ],
		# an increment of a cell that is not 8 bytes: the emulator UNKNOWN,
		# wide INVALID_ARGUMENT
		rmw_bad_counter => [ '{"code":2}', '{"code":3}' ],
	);
	my @diff;
	for my $k (@$eorder)
	{
		my $want = $expected->{$k};
		my $got = $em->{$k} // '(none)';
		$got = $deviation{$k}[1] if $deviation{$k} && $got eq $deviation{$k}[0];
		push @diff, "$k: emulator $got, expected $want" if $got ne $want;
	}
	is(join("\n", @diff), '', 'the emulator answers the same, but for the documented deviations');
	$emu->kill_kill;
}

# --- raw chunks, checked as the acceptance cases check a client's reassembly
$node->safe_psql('postgres', q{
CREATE TABLE ch (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('ch', f) FROM unnest(ARRAY['a', 'b', 'c']) f;
INSERT INTO ch SELECT convert_to(lpad(i::text, 5, '0'), 'UTF8'), f, convert_to('q' || (i % 3 + j), 'UTF8'),
	1000 * v, convert_to(repeat('v', (i * 7 + j) % 40), 'UTF8')
FROM generate_series(1, 3000) i, unnest(ARRAY['a', 'b', 'c']) f, generate_series(0, 1) j, generate_series(1, 2) v
WHERE (i + j) % 3 <> 0 OR f <> 'b';
INSERT INTO ch VALUES ('\x0000ff', 'a', '', 5, ''), ('\xffff', 'c', '\x00', 7, '\x00');
-- values larger than a chunk: one alone, one between two small cells
INSERT INTO ch VALUES ('01000', 'a', 'big', 1, convert_to(repeat('0123456789', 300000), 'UTF8')),
	('01001', 'b', 'big', 1, convert_to(repeat('abcdefghij', 250000), 'UTF8')),
	('01001', 'b', 'big', 2, 'small'), ('01001', 'c', 'after', 1, 'x');
});

# sha256 and count of the cells of a read in SQL, in the chunker's format
sub sql_digest
{
	my ($args, $labeled) = @_;
	my $from = $labeled
	  ? "(SELECT (r.cell).*, array_to_string(r.labels, ',') AS l FROM wide.read_rows_labeled(NULL::ch$args) r) t"
	  : "(SELECT *, '' AS l FROM wide.read_rows(NULL::ch$args)) t";
	return $node->safe_psql('postgres', qq{SELECT count(*) || ' ' || encode(sha256(convert_to(coalesce(
		string_agg(encode(row_key, 'hex') || ' ' || family || ' ' || encode(qualifier, 'hex') || ' ' || ts
		  || ' ' || encode(value, 'hex') || ' ' || l || E'\\n', '' ORDER BY n), ''), 'UTF8')), 'hex')
		FROM (SELECT t.*, row_number() OVER () AS n FROM $from) s});
}

my @reads = (
	[ 'everything', '{}', '' ],
	[ 'reversed', '{"reversed":true}', ', reversed => true' ],
	[ 'a rows limit', '{"rowsLimit":"7"}', ', "limit" => 7' ],
	[ 'reversed with a limit over a split value', '{"reversed":true,"rowsLimit":"3000","rows":{"rowRanges":[{"endKeyClosed":"MDEwMDE="}]}}',
	  q{, reversed => true, "limit" => 3000, ranges => '[{"endKeyClosed": "MDEwMDE="}]'} ],
	[ 'keys and ranges', '{"rows":{"rowKeysHex":["0000ff","3030303130","ffff"],"rowRanges":[{"startKeyClosed":"MDA5OTg=","endKeyOpen":"MDEwMDI="}]}}',
	  q{, keys => ARRAY['\x0000ff', '\x3030303130', '\xffff']::bytea[], ranges => '[{"startKeyClosed": "MDA5OTg=", "endKeyOpen": "MDEwMDI="}]'} ],
	[ 'cells per column', '{"filter":{"cellsPerColumnLimitFilter":1}}', q{, filter => '{"cellsPerColumnLimitFilter": 1}'} ],
	[ 'labels', '{"filter":{"interleave":{"filters":[{"chain":{"filters":[{"familyNameRegexFilter":"a"},{"applyLabelTransformer":"fa"}]}},{"chain":{"filters":[{"familyNameRegexFilter":"c"},{"applyLabelTransformer":"fc"}]}}]}}}',
	  q{, filter => '{"interleave": {"filters": [{"chain": {"filters": [{"familyNameRegexFilter": "a"}, {"applyLabelTransformer": "fa"}]}}, {"chain": {"filters": [{"familyNameRegexFilter": "c"}, {"applyLabelTransformer": "fc"}]}}]}}'}, 1 ],
);
($rc, $o, $e) = node_run($addr, "$root/test/grpc/chunks.js", 'ch', map { $_->[1] } @reads);
my @got = grep { /^\{/ } split /\n/, $o;
for my $i (0 .. $#reads)
{
	my ($name, $req, $args, $labeled) = @{ $reads[$i] };
	my $got = $got[$i] // "(no answer) $e";
	unlike($got, qr/"error"/, "ReadRows $name: every chunk rule holds") or diag($got);
	my ($cells, $sha) = $got =~ /"cells":(\d+).*"sha256":"(\w+)"/ ? ($1, $2) : ('?', '?');
	is("$cells $sha", sql_digest($args, $labeled), "ReadRows $name: the cells SQL reads");
	note("$name: $got");
}

# --- flow control: a reader that stops reading after the first response
# holds the server back; its memory does not grow with the read
$node->safe_psql('postgres', q{
CREATE TABLE fc (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('fc', 'f');
INSERT INTO fc SELECT convert_to(lpad(i::text, 8, '0'), 'UTF8'), 'f', convert_to('q' || j, 'UTF8'), 1000,
	convert_to(repeat(md5(i::text || j), 4), 'UTF8')
FROM generate_series(1, 20000) i, generate_series(1, 25) j;
});
my $spid = $server->{KIDS}[0]{PID};
sub rss_kb
{
	open(my $st, '<', "/proc/$spid/status") or return 0;
	my ($kb) = join('', <$st>) =~ /VmRSS:\s+(\d+)/;
	return $kb;
}
my $before = rss_kb();
my ($fo, $fe) = ('', '');
my $reader;
{
	local $ENV{BIGTABLE_EMULATOR_HOST} = $addr;
	local $ENV{NODE_PATH} = $modules;
	local $ENV{METADATA_SERVER_DETECTION} = 'none';
	$reader = start([ $nodejs, "$root/test/grpc/chunks.js", 'fc', '{"pauseMs":6000}' ],
		'>', \$fo, '2>', \$fe, timeout(120));
}
$reader->pump until $fe =~ /paused/ || !$reader->pumpable;
sleep 3;	# the server writes what flow control lets it, then waits
my $paused = rss_kb();
$reader->finish;
like($fo, qr/"rows":20000,"cells":500000,/, 'the paused reader gets every cell after it resumes') or diag("$fo$fe");
my $after = rss_kb();
note("wide-bigtable VmRSS: $before KiB before, $paused KiB while the reader paused, $after KiB after (the read: 500,000 cells, ~80 MB)");
cmp_ok($paused - $before, '<', 24 * 1024, 'a paused reader does not make the server buffer the read (< 24 MiB more)');

$server->signal('TERM');
$server->finish;

done_testing();
