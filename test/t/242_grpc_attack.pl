# wide-bigtable (docs/grpc.md) attacked: bad input through npm's
# @google-cloud/bigtable stub and raw gRPC (test/grpc/bad.js: malformed
# messages, row keys over 4 KiB, empty mutations, a 20 MB value and a
# 40 MB MutateRows, filters nested 20, 45, 1000 and 10000 deep, a message over
# the server's limit, unknown tables and families): the right status,
# nothing written but the good entries, the server still serving.  A role
# with fewer privileges (--role): reads as SQL allows, writes
# PERMISSION_DENIED and nothing written; a table under row-level security
# refused whole.  MutateRows and ReadRows under a concurrent VACUUM.  And a
# kill -9 of PostgreSQL during a stream of MutateRows (test/grpc/ingest.js):
# every entry the server acknowledged is there, whole, no row half-applied,
# UNAVAILABLE while the database is down, and the same server serving the
# rest after the restart.  Skips where node, the npm package (npm install
# --prefix test/grpc, as .ci/run does) or the server is absent.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use IPC::Run qw(start run timeout);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = abs_path(dirname(__FILE__) . '/../..');
my $node = PostgreSQL::Test::Cluster->new('grpc_attack');
my $bin = $node->config_data('--bindir') . '/wide-bigtable';
my $nodejs = `command -v node 2>/dev/null`;
chomp $nodejs;
my $modules = "$root/test/grpc/node_modules";
plan skip_all => "no wide-bigtable at $bin (built without gRPC)" unless -x $bin;
plan skip_all => 'no node on PATH (Debian: nodejs npm)' unless $nodejs;
plan skip_all => "no \@google-cloud/bigtable in $modules (npm install --prefix test/grpc)"
  unless -d "$modules/\@google-cloud/bigtable";

$node->init;
$node->append_conf('postgresql.conf', "autovacuum_naptime = 1\ntrack_functions = all\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION wide;
CREATE TABLE bt (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('bt', 'f');
});

my $dsn = 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres';
my @servers;
END { $_->kill_kill for grep { $_->pumpable } @servers; }

# starts wide-bigtable with more arguments; returns (harness, address, \stderr)
sub server
{
	my ($out, $err) = ('', '');
	my $h = start([ $bin, '--host', '127.0.0.1', '--port', '0', '--dsn', $dsn, @_ ],
		'>', \$out, '2>', \$err, timeout(900));
	push @servers, $h;
	$h->pump until $out =~ /listening on [\w.]+:(\d+)/;
	return ($h, "127.0.0.1:$1", \$err);
}

sub node_run
{
	my ($target, @args) = @_;
	my ($o, $e) = ('', '');
	local $ENV{BIGTABLE_EMULATOR_HOST} = $target;
	local $ENV{NODE_PATH} = $modules;
	local $ENV{METADATA_SERVER_DETECTION} = 'none';
	run([ $nodejs, @args ], '>', \$o, '2>', \$e, timeout(120));
	return ($? >> 8, $o, $e);
}

my ($server, $addr, $serr) = server('--connections', '4');

# --- bad input
my ($rc, $o, $e) = node_run($addr, "$root/test/grpc/bad.js", 'bt');
is($rc, 0, 'bad.js ran') or diag($e);
my %got = map { split /\t/, $_, 2 } split /\n/, $o;
note("bad.js: $o");
# gRPC codes: 3 INVALID_ARGUMENT, 5 NOT_FOUND, 8 RESOURCE_EXHAUSTED,
# 13 INTERNAL (gRPC's own answer to bytes that are no message, as the
# emulator's)
my %want = (
	malformed_garbage => 13,
	malformed_truncated => 13,
	# table_name sent as a fixed32: an unknown field to protobuf, the
	# request without a table name
	malformed_wiretype => 3,
	empty_request => 3,
	huge_key_mutate => 3,
	huge_key_mutate_rows => '0,3,5,3,0',
	huge_key_check_and_mutate => 3,
	huge_key_rmw => 3,
	# no row has such a key: Bigtable's limit is 4 KiB
	huge_key_read => 3,
	empty_key_mutate => 3,
	no_mutations => 3,
	empty_mutation => 3,
	unknown_table => 5,
	bad_table_name => 3,
	unknown_family => 5,
	unknown_family_read => 'ok',
	negative_ts => 3,
	bad_regex => 3,
	negative_limit => 3,
	# 45 chains are 91 levels of messages, under protobuf's limit of 100;
	# deeper is no message to protobuf (INTERNAL, as the emulator answers 10000)
	nested_filter_20 => 'ok',
	nested_filter_45 => 'ok',
	nested_filter_1000 => 13,
	nested_filter_10000 => 13,
	value_20mb => 'ok',
	mutate_rows_40mb => '10 ok',
	over_max_message => 8,
	still_serving => 'ok',
);
is($got{$_} // '(none)', $want{$_}, "bad input: $_") for sort keys %want;
is($node->safe_psql('postgres', q{SELECT string_agg(DISTINCT convert_from(row_key, 'UTF8'), ' ' ORDER BY convert_from(row_key, 'UTF8')) FROM bt}),
	join(' ', sort('after', 'big1', 'good1', 'good4', map { "bulk$_" } 0 .. 9)),
	'nothing written but the good entries');
is($node->safe_psql('postgres', q{SELECT length(value) FROM bt WHERE row_key = 'big1'}), 20 << 20, 'the 20 MB value whole');
ok($server->pumpable, 'the server still runs');

# --- a role with fewer privileges
$node->safe_psql('postgres', q{
CREATE ROLE reader LOGIN;
GRANT USAGE ON SCHEMA wide TO reader;
GRANT SELECT ON bt TO reader;
CREATE TABLE sec (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('sec', 'f');
INSERT INTO sec VALUES ('alice', 'f', 'q', 1, 'a'), ('bob', 'f', 'q', 1, 'b');
GRANT SELECT, INSERT, DELETE ON sec TO reader;
ALTER TABLE sec ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON sec USING (row_key = 'alice');
});
my ($rserver, $raddr) = server('--connections', '2', '--role', 'reader');
($rc, $o, $e) = node_run($raddr, "$root/test/grpc/chunks.js", 'bt', '{"rows":{"rowKeysHex":["676f6f6431"]}}');
like($o, qr/"cells":1,/, 'the reader reads what SELECT allows') or diag("$o$e");
{
	local $ENV{BIGTABLE_EMULATOR_HOST} = $raddr;
	local $ENV{NODE_PATH} = $modules;
	local $ENV{METADATA_SERVER_DETECTION} = 'none';
	my $js = q{
const {Bigtable} = require('@google-cloud/bigtable');
const t = new Bigtable({projectId: 'p', metricsEnabled: false}).instance('i').table(process.argv[1]);
const g = {gaxOptions: {retry: {retryCodes: []}, maxRetries: 0}};
(async () => {
  const r = [];
  for (const f of [() => t.row('evil').save({f: {q: {value: 'x', timestamp: 1000}}}, g),
                   () => t.row('good1').delete(g),
                   () => t.getRows({decode: false})])
    try { const [x] = await f(); r.push(Array.isArray(x) ? 'rows ' + x.map(y => y.id).join(',') : 'ok'); }
    catch (e) { r.push(e.code !== undefined ? e.code : (e.errors ? e.errors.map(x => x.code).join(',') : String(e))); }
  console.log(r.join(' | '));
})();
};
	my ($o1, $e1) = ('', '');
	run([ $nodejs, '-e', $js, 'bt' ], '>', \$o1, '2>', \$e1, timeout(60));
	like($o1, qr/^7 \| 7 \| rows /, 'the reader: MutateRow and DeleteFromRow PERMISSION_DENIED, ReadRows served') or diag("$o1$e1");
	($o1, $e1) = ('', '');
	run([ $nodejs, '-e', $js, 'sec' ], '>', \$o1, '2>', \$e1, timeout(60));
	# wide's functions refuse a table whose policies apply to the caller
	# (docs/sql.md); nothing of bob's row leaks, nothing is written
	like($o1, qr/^12 \| 12 \| 12$/, 'a table under row-level security: refused whole (UNIMPLEMENTED)') or diag("$o1$e1");
}
is($node->safe_psql('postgres', q{SELECT count(*) FROM bt WHERE row_key IN ('evil', 'good1')}), '1', 'the reader wrote nothing');
is($node->safe_psql('postgres', q{SELECT string_agg(convert_from(row_key, 'UTF8'), ',') FROM sec}), 'alice,bob', 'nor into the RLS table');
$rserver->kill_kill;

# --- MutateRows applies a request's entries in one statement, and each
# entry alone when that fails (test/grpc/batch.js): AddToCells beside a
# failing entry count once, an entry that fails half-way writes nothing,
# any bytes arrive unchanged, a text value column takes its text
$node->safe_psql('postgres', q{
CREATE TABLE agg (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('agg', 'f');
SELECT wide.create_family('agg', 'a', aggregate => 'sum');
CREATE TABLE txt (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value text) USING wide;
SELECT wide.create_family('txt', 'f');
CREATE TABLE flt (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value float8) USING wide;
SELECT wide.create_family('flt', 's', aggregate => 'sum');
});
($rc, $o, $e) = node_run($addr, "$root/test/grpc/batch.js", 'agg', 'txt', 'flt');
is($o, "add_partial\t0,5,0\nhalf_entry\t0,9\nadd_many\t0\nbytes\t0,0\ntext_table\t0,3\nfloat_add\t0,0,0,0\n",
	'batched MutateRows: a status per entry') or diag($e);
# AddToCell's floatValue (wide's extension): the sum of the doubles as SQL
# computes it, bit for bit; NaN a value, as SQL's float8 sums take it
is($node->safe_psql('postgres', q{
SELECT string_agg(convert_from(row_key, 'UTF8') || '=' || (value = CASE convert_from(row_key, 'UTF8')
	WHEN 'f1' THEN 0.1::float8 + 0.2::float8 WHEN 'f2' THEN 'NaN'::float8
	ELSE -1e308::float8 + 2.5e-310::float8 END)::text, ' ' ORDER BY row_key)
FROM flt}), 'f1=true f2=true f3=true', 'AddToCell with floatValue: float8 sums exact to the bit, NaN a value');
is($node->safe_psql('postgres', q{
SELECT string_agg(convert_from(row_key, 'UTF8') || '=' || ('x' || encode(value, 'hex'))::bit(64)::bigint, ' ' ORDER BY row_key)
FROM agg WHERE family = 'a'}), 'k1=5 k3=7 k4=1 k6=500', 'each good AddToCell applied exactly once');
is($node->safe_psql('postgres', q{
SELECT string_agg(encode(row_key, 'hex') || ':' || encode(qualifier, 'hex') || ':' || ts || ':' || md5(value), ' ' ORDER BY row_key, qualifier)
FROM agg WHERE family = 'f'}),
	join(' ', "00ff225c:000afe:2000:e2c865db4162bed963bfaa9ef6ac18f0",
		"00ff225c:71756f7465226261636b5c:2000:d41d8cd98f00b204e9800998ecf8427e",
		"6b33:71:1000:415290769594460e2e485922904f345d",
		"6b3720225c:c3a9:3000:f1290186a5d0b1ceab27f4e77c0c5d68"),
	'keys, qualifiers and values of any bytes unchanged; nothing of the failed entries');
is($node->safe_psql('postgres', q{SELECT string_agg(convert_from(row_key, 'UTF8') || '=' || value, ' ') FROM txt}),
	't1=hello', 'a text value column: its text, the bad value refused alone');
# the path each took: a bytea value column's entries as one binary batch
# (wide.mutate_rows_bin, no JSON), another's as JSON (wide.mutate_rows)
ok($node->poll_query_until('postgres', q{SELECT count(*) = 2 FROM pg_stat_user_functions
	WHERE schemaname = 'wide' AND funcname IN ('mutate_rows_bin', 'mutate_rows') AND calls > 0}),
	'MutateRows sends a bytea value column\'s entries to mutate_rows_bin, a text one\'s to mutate_rows');

# --- MutateRows and ReadRows with VACUUM running on the table
$node->safe_psql('postgres', q{
CREATE TABLE vac (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('vac', 'f', gc_rule => '{"max_num_versions": 1}');
});
my $vacuumer = start([ 'bash', '-c', 'for i in $(seq 1 400); do psql -X -q -h "$0" -p "$1" -d postgres -c "VACUUM vac" || exit 1; sleep 0.05; done', $node->host, $node->port ],
	'>', \my $vo, '2>', \my $ve, timeout(120));
($rc, $o, $e) = node_run($addr, "$root/test/grpc/ingest.js", 'vac', 60, 100, 50);
like($o, qr/^done 60$/m, 'MutateRows under VACUUM: every batch OK') or diag("$o$e");
my $acked = () = $o =~ /^ack /mg;
is($acked, 6000, 'every entry acknowledged');
($rc, $o, $e) = node_run($addr, "$root/test/grpc/chunks.js", 'vac', '{}');
like($o, qr/"rows":6000,"cells":18000,/, 'ReadRows under VACUUM: every cell, the chunk rules hold') or diag("$o$e");
$vacuumer->kill_kill;
like($node->safe_psql('postgres', q{SELECT count(*) FROM vac}), qr/^18000$/, 'SQL sees the same');

# --- kill -9 of PostgreSQL during a MutateRows stream
$node->safe_psql('postgres', q{
CREATE TABLE imp (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('imp', 'f');
});
my ($io, $ie) = ('', '');
my $ingest;
{
	local $ENV{BIGTABLE_EMULATOR_HOST} = $addr;
	local $ENV{NODE_PATH} = $modules;
	local $ENV{METADATA_SERVER_DETECTION} = 'none';
	$ingest = start([ $nodejs, "$root/test/grpc/ingest.js", 'imp', 150, 200, 50 ], '>', \$io, '2>', \$ie, timeout(120));
}
my $in = 0;
for (1 .. 400)
{
	$in = $node->safe_psql('postgres', q{SELECT count(*) FROM wide.read_rows(NULL::imp, "limit" => 2000)});
	last if $in >= 2000;
	select(undef, undef, undef, 0.05);
}
ok($in > 0, 'the ingest is writing');
my @pids = split /\n/, $node->safe_psql('postgres',
	'SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = \'client backend\'');
my $postmaster = $node->{_pid};
$node->kill9;
kill 'KILL', @pids;
for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
{
	select(undef, undef, undef, 0.05);
}
# while the database is down the calls fail UNAVAILABLE
$ingest->pump until $io =~ /^error 14$/m || !$ingest->pumpable;
like($io, qr/^error 14$/m, 'UNAVAILABLE while the database is down');
$node->start;
$ingest->finish;
like($io, qr/^done 150$/m, 'the same server serves every batch after the restart') or diag($ie);
my @acked = $io =~ /^ack (\S+)$/mg;
note(scalar(@acked) . ' entries acknowledged, ' . (() = $io =~ /^error/mg) . ' failed calls');
my %ack = map { $_ => 1 } @acked;
my %rows = map { split / / } split /\n/, $node->safe_psql('postgres',
	q{SELECT convert_from(row_key, 'UTF8') || ' ' || count(*) || ':' || bool_and(convert_from(value, 'UTF8') = convert_from(row_key, 'UTF8') || convert_from(qualifier, 'UTF8'))
	  FROM imp GROUP BY row_key});
my @missing = grep { !$rows{$_} } sort keys %ack;
is(join(' ', @missing[0 .. ($#missing < 9 ? $#missing : 9)]), '', 'every acknowledged entry is there');
is(join(' ', grep { $rows{$_} ne '3:true' } sort keys %rows), '', 'every row whole: three cells, none half-applied');
is(scalar(keys %rows), 30000, 'and every row written once the database was back');

my $pid = $server->{KIDS}[0]{PID};
$server->signal('TERM');
$server->finish;
ok(!kill(0, $pid), 'SIGTERM stops the server');
done_testing();
