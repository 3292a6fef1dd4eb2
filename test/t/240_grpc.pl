# wide-bigtable (docs/grpc.md) end to end: the server runs against a
# throwaway cluster and `cbt`, Google's Bigtable CLI, talks to it with
# BIGTABLE_EMULATOR_HOST: admin calls (createtable, createfamily, ls,
# setgcpolicy, deletefamily, deletetable), writes (set, addtocell,
# deletecolumn, deleterow, import = MutateRows), reads (read with ranges,
# prefixes, regexes, columns, counts, reversed; lookup; count), the cells
# also seen from SQL and SQL's cells seen by cbt, a value larger than a
# ReadRows chunk, bad input (unknown table and family: NOT_FOUND, nothing
# written, the server still serving), and a kill -9 of PostgreSQL during a
# MutateRows stream (no row half-applied, UNAVAILABLE while the database is
# down, the server reconnecting after).  Skips where cbt or the server is
# absent (a build without gRPC).
use strict;
use warnings;
use File::Temp qw(tempdir);
use IPC::Run qw(start run timeout);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('grpc');
my $bin = $node->config_data('--bindir') . '/wide-bigtable';
my $cbt = `command -v cbt 2>/dev/null`;
chomp $cbt;
plan skip_all => "no wide-bigtable at $bin (built without gRPC)" unless -x $bin;
plan skip_all => 'no cbt on PATH' unless $cbt;

$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wide');

my ($out, $err) = ('', '');
my $dsn = 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres';
my $timer = timeout(30);
my $server = start([ $bin, '--host', '127.0.0.1', '--port', '0', '--dsn', $dsn, '--connections', '4' ],
	'>', \$out, '2>', \$err, $timer);
$server->pump until $out =~ /listening on [\w.]+:(\d+)/;
my $addr = "127.0.0.1:$1";
$timer->reset;
# a test that dies (a bail-out) leaves no server behind
END { $server->kill_kill if $server && $server->pumpable; }

# -creds: without it cbt spends seconds asking gcloud for credentials the
# emulator protocol does not use
my $dir = tempdir(CLEANUP => 1);
open(my $cf, '>', "$dir/creds.json") or die;
print $cf "{}\n";
close $cf;
my @cbt = ($cbt, '-project', 'p', '-instance', 'i', '-creds', "$dir/creds.json");
pass("wide-bigtable listens on $addr");

# runs cbt; returns (exit status, stdout, stderr)
sub cbt
{
	my @args = @_;
	my ($o, $e) = ('', '');
	local $ENV{BIGTABLE_EMULATOR_HOST} = $addr;
	local $ENV{TZ} = 'UTC';
	run([ @cbt, '-timeout', '20s', @args ], '>', \$o, '2>', \$e);
	return ($? >> 8, $o, $e);
}

sub cbt_ok
{
	my ($name, @args) = @_;
	my ($rc, $o, $e) = cbt(@args);
	is($rc, 0, $name) or diag("cbt @args: $e");
	return $o;
}

# cbt read's output as "row fam:qual@ts=value" lines
sub cells
{
	my ($text) = @_;
	my (@cells, $row, $col, $ts);
	for my $line (split /\n/, $text)
	{
		next if $line =~ /^-+$/ || $line eq '';
		if ($line =~ /^(\S.*)$/) { $row = $1; next; }
		if ($line =~ /^  (\S+)\s+\@ (.*)$/) { ($col, $ts) = ($1, $2); next; }
		if ($line =~ /^    "(.*)"$/) { push @cells, "$row $col\@$ts=$1"; }
	}
	return join("\n", @cells);
}

# --- admin calls
cbt_ok('createtable with families, a GC rule and an aggregate',
	'createtable', 'tbl', 'families=f:maxversions=2,s:never:intsum');
cbt_ok('createfamily', 'createfamily', 'tbl', 'g');
like(cbt_ok('ls', 'ls'), qr/^tbl$/m, 'ls lists the table');
my $ls = cbt_ok('ls table', 'ls', 'tbl');
like($ls, qr/^f\s+versions\(\) > 2/m, 'ls shows the version rule');
like($ls, qr/^s\b/m, 'ls shows the aggregate family');
is($node->safe_psql('postgres', q{SELECT string_agg(family || ':' || coalesce(max_versions::text, '-') || ':' || coalesce(aggregate, '-'), ' ') FROM wide.families('tbl')}),
	'f:2:- g:-:- s:-:sum', 'the families as SQL sees them');
cbt_ok('setgcpolicy', 'setgcpolicy', 'tbl', 'g', 'maxage=1d', 'or', 'maxversions=3');
like(cbt_ok('ls table', 'ls', 'tbl'), qr/^g\s+\(versions\(\) > 3 \|\| age\(\) > 1d\)/m, 'the new policy reads back');

# --- writes and reads
cbt_ok('set', 'set', 'tbl', 'r1', 'f:a=one@1000', 'f:a=two@2000', 'f:a=three@3000', 'f:b=bee@1000');
cbt_ok('set', 'set', 'tbl', 'r2', 'f:x=ex@5000');
cbt_ok('set', 'set', 'tbl', 'r3', 'f:a=three@7000');
is(cells(cbt_ok('read', 'read', 'tbl')),
	"r1 f:a\@1970/01/01-00:00:00.003000=three\nr1 f:a\@1970/01/01-00:00:00.002000=two\nr1 f:b\@1970/01/01-00:00:00.001000=bee\n"
	  . "r2 f:x\@1970/01/01-00:00:00.005000=ex\nr3 f:a\@1970/01/01-00:00:00.007000=three",
	'read returns every row, versions beyond max_versions collected');
is($node->safe_psql('postgres', q{SELECT string_agg(convert_from(row_key, 'UTF8') || ' ' || family || ':' || convert_from(qualifier, 'UTF8') || '@' || ts || '=' || convert_from(value, 'UTF8'), ' ') FROM tbl}),
	'r1 f:a@3000=three r1 f:a@2000=two r1 f:b@1000=bee r2 f:x@5000=ex r3 f:a@7000=three',
	'SQL sees the same cells');
is(join(',', cbt_ok('read with start and end', 'read', 'tbl', 'start=r2', 'end=r3') =~ /^(r\d)$/mg), 'r2', 'start and end');
like(cbt_ok('read prefix', 'read', 'tbl', 'prefix=r3'), qr/\A-+\nr3\n/, 'prefix');
is(join(',', cbt_ok('read reversed', 'read', 'tbl', 'reversed=true', 'count=2') =~ /^(r\d)$/mg), 'r3,r2', 'reversed with a rows limit');
is(join(',', cbt_ok('read regex', 'read', 'tbl', 'regex=r[13]') =~ /^(r\d)$/mg), 'r1,r3', 'row key regex');
is(cells(cbt_ok('read columns', 'read', 'tbl', 'columns=f:b,f:x', 'cells-per-column=1')),
	"r1 f:b\@1970/01/01-00:00:00.001000=bee\nr2 f:x\@1970/01/01-00:00:00.005000=ex", 'columns and cells per column');
like(cbt_ok('lookup', 'lookup', 'tbl', 'r2'), qr/"ex"/, 'lookup reads one row');
like(cbt_ok('count', 'count', 'tbl'), qr/^3$/m, 'count');
$node->safe_psql('postgres', q{INSERT INTO tbl VALUES ('\x72345c78ff', 'f', '\x00', 42, 'from sql')});
like(cbt_ok('read a row SQL wrote', 'read', 'tbl', 'prefix=r4'), qr/from sql/, 'cbt reads what SQL wrote');

cbt_ok('addtocell', 'addtocell', 'tbl', 'r1', 's:n=5@1000');
cbt_ok('addtocell', 'addtocell', 'tbl', 'r1', 's:n=-2@1000');
is($node->safe_psql('postgres', q{SELECT encode(value, 'hex') FROM tbl WHERE family = 's'}),
	'0000000000000003', 'AddToCell sums into the aggregate family');
cbt_ok('deletecolumn', 'deletecolumn', 'tbl', 'r1', 'f', 'a');
cbt_ok('deleterow', 'deleterow', 'tbl', 'r2');
is(cells(cbt_ok('read', 'read', 'tbl', 'columns=f:.*,g:.*', 'end=r4')),
	"r1 f:b\@1970/01/01-00:00:00.001000=bee\nr3 f:a\@1970/01/01-00:00:00.007000=three",
	'deletecolumn and deleterow applied');

# a value of 3 MB: several chunks of one cell, reassembled by the client
$node->safe_psql('postgres', q{INSERT INTO tbl VALUES ('\x626967', 'f', '\x71', 1000, convert_to(repeat('0123456789', 300000), 'UTF8'))});
my $big = cbt_ok('lookup of a 3 MB value', 'lookup', 'tbl', 'big');
ok($big =~ /"(\d+)"/ && length($1) == 3000000 && $1 eq '0123456789' x 300000, 'the value arrives whole');

# --- bad input: the right status, nothing written, still serving
my ($rc, $o, $e) = cbt('read', 'nosuch');
ok($rc != 0 && $e =~ /NotFound/, 'reading an unknown table is NOT_FOUND') or diag($e);
($rc, $o, $e) = cbt('set', 'nosuch', 'r', 'f:a=1');
ok($rc != 0 && $e =~ /NotFound/, 'writing an unknown table is NOT_FOUND') or diag($e);
($rc, $o, $e) = cbt('set', 'tbl', 'r9', 'f:a=1@1000', 'nofam:a=1@1000');
ok($rc != 0 && $e =~ /NotFound/, 'an unknown family is NOT_FOUND') or diag($e);
is($node->safe_psql('postgres', q{SELECT count(*) FROM tbl WHERE row_key = 'r9'}), '0',
	'the failed MutateRow wrote none of its mutations');
($rc, $o, $e) = cbt('set', 'tbl', 'r9', 's:a=1@1000');
ok($rc != 0 && $e =~ /FailedPrecondition|InvalidArgument/, 'SetCell into an aggregate family is refused') or diag($e);
($rc, $o, $e) = cbt('createtable', 'tbl');
ok($rc != 0 && $e =~ /AlreadyExists/, 'creating an existing table is ALREADY_EXISTS') or diag($e);
($rc, $o, $e) = cbt('createtable', 'bad/name');
ok($rc != 0 && $e =~ /InvalidArgument/, 'a bad table id is INVALID_ARGUMENT') or diag($e);
like(cbt_ok('still serving', 'count', 'tbl'), qr/^4$/m, 'the server still serves');

cbt_ok('deletefamily', 'deletefamily', 'tbl', 'g');
unlike(cbt_ok('ls table', 'ls', 'tbl'), qr/^g\b/m, 'the family is gone');

# --- kill -9 of PostgreSQL during a MutateRows stream (cbt import)
cbt_ok('createtable', 'createtable', 'imp', 'families=f');
open(my $csv, '>', "$dir/rows.csv") or die;
print $csv ",f,,\n,a,b,c\n";
printf $csv "k%06d,%d,%d,%d\n", $_, $_, $_, $_ for 1 .. 200000;
close $csv;
my ($io, $ie) = ('', '');
my $import;
{
	local $ENV{BIGTABLE_EMULATOR_HOST} = $addr;
	$import = start([ @cbt, '-timeout', '20s', 'import', 'imp', "$dir/rows.csv", 'batch-size=500' ],
		'>', \$io, '2>', \$ie);
}
# kill once some rows are in
my $in = 0;
for (1 .. 300)
{
	$in = $node->safe_psql('postgres', q{SELECT count(*) FROM wide.read_rows(NULL::imp, "limit" => 1000)});
	last if $in >= 1000;
	select(undef, undef, undef, 0.05);
}
ok($in > 0, 'the import is writing');
my @pids = split /\n/, $node->safe_psql('postgres',
	'SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = \'client backend\'');
my $postmaster = $node->{_pid};
$node->kill9;
kill 'KILL', @pids;
for (my $n = 0; $n < 200 && kill(0, $postmaster, @pids); $n++)
{
	select(undef, undef, undef, 0.05);
}
# the client retries UNAVAILABLE until its deadline; the server says it
$err = '';
($rc, $o, $e) = cbt('-timeout', '3s', 'set', 'tbl', 'down', 'f:a=1@1000');
ok($rc != 0 && $e =~ /Unavailable|DeadlineExceeded/, 'with the database down, a write fails') or diag($e);
$server->pump_nb;
like($err, qr/UNAVAILABLE: (cannot connect to PostgreSQL|PostgreSQL connection lost)/, 'answering UNAVAILABLE');
$node->start;
$import->finish;
note('import: ' . (split /\n/, $ie)[-1]);
note('rows imported: ' . $node->safe_psql('postgres', 'SELECT count(DISTINCT row_key) FROM imp'));
is($node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT row_key FROM imp GROUP BY row_key HAVING count(*) <> 3) s}),
	'0', 'no imported row is half-applied');
like(cbt_ok('the server reconnects', 'count', 'tbl'), qr/^4$/m, 'the server reconnected after the restart');

cbt_ok('deletetable', 'deletetable', 'tbl');
unlike(cbt_ok('ls', 'ls'), qr/^tbl$/m, 'the table is gone');
is($node->safe_psql('postgres', q{SELECT to_regclass('tbl') IS NULL}), 't', 'dropped in SQL too');

my $pid = $server->{KIDS}[0]{PID};
$server->signal('TERM');
$server->finish;
ok(!kill(0, $pid), 'SIGTERM stops the server');
done_testing();
