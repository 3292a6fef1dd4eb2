# wide-bigtable over TLS (docs/grpc.md): with --tls-cert and --tls-key it
# serves only TLS, a client that trusts its CA reads and writes, a client
# that speaks plaintext or trusts another CA is refused; with
# --tls-client-ca a client must also show a certificate that CA signed.
# Bad options are refused before the server starts.  The client is
# bigtable/bench_client (gRPC's C++ stub, built beside the server); the
# certificates are made here with openssl.  Skips where the server, the
# client or openssl is absent.
use strict;
use warnings;
use File::Basename;
use File::Temp qw(tempdir);
use IPC::Run qw(start run timeout);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = dirname(dirname(dirname(__FILE__)));
my $node = PostgreSQL::Test::Cluster->new('grpc_tls');
my $bin = $node->config_data('--bindir') . '/wide-bigtable';
my $client = "$root/bigtable/bench_client";
my $openssl = `command -v openssl 2>/dev/null`;
chomp $openssl;
plan skip_all => "no wide-bigtable at $bin (built without gRPC)" unless -x $bin;
plan skip_all => "no $client (built without gRPC)" unless -x $client;
plan skip_all => 'no openssl on PATH' unless $openssl;

# a CA, a server certificate for localhost and 127.0.0.1, a client
# certificate, and another CA that signed neither
my $dir = tempdir(CLEANUP => 1);
sub ossl
{
	my @args = @_;
	my ($o, $e) = ('', '');
	run([ $openssl, @args ], '>', \$o, '2>', \$e) or die "openssl @args: $e";
}
for my $ca ('ca', 'other_ca')
{
	ossl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', "/CN=wide test $ca",
		'-keyout', "$dir/$ca.key", '-out', "$dir/$ca.pem");
}
open(my $ext, '>', "$dir/server.ext") or die;
print $ext "subjectAltName = DNS:localhost, IP:127.0.0.1\n";
close $ext;
for my $who ('server', 'client')
{
	ossl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', "/CN=$who", '-keyout', "$dir/$who.key",
		'-out', "$dir/$who.csr");
	ossl('x509', '-req', '-in', "$dir/$who.csr", '-CA', "$dir/ca.pem", '-CAkey', "$dir/ca.key",
		'-CAcreateserial', '-days', '2', '-out', "$dir/$who.pem",
		$who eq 'server' ? ('-extfile', "$dir/server.ext") : ());
}
chmod 0644, glob("$dir/*");

$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key bytea, family text COLLATE "C", qualifier bytea, ts int8, value bytea) USING wide;
	SELECT wide.create_family('t', 'f');
	INSERT INTO t SELECT convert_to('r' || lpad(i::text, 4, '0'), 'UTF8'), 'f', convert_to('c' || j, 'UTF8'),
	       1000, 'v' FROM generate_series(0, 99) i, generate_series(0, 4) j;
});
my $dsn = 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres';

my $server;
END { $server->kill_kill if $server && $server->pumpable; }

# starts the server with extra options; returns its address
sub serve
{
	my @opts = @_;
	my ($out, $err) = ('', '');
	$server->kill_kill if $server && $server->pumpable;
	my $timer = timeout(30);
	$server = start([ $bin, '--host', '127.0.0.1', '--port', '0', '--dsn', $dsn, '--connections', '2', @opts ],
		'>', \$out, '2>', \$err, $timer);
	$server->pump until $out =~ /listening on [\w.]+:(\d+)/;
	$timer->reset;
	return "127.0.0.1:$1";
}

# the client against addr with the given TLS environment; (exit status, stdout, stderr)
sub client
{
	my ($addr, $env, @args) = @_;
	my ($o, $e) = ('', '');
	local $ENV{BIGTABLE_EMULATOR_HOST} = $addr;
	local $ENV{BIGTABLE_TLS_CA};
	local $ENV{BIGTABLE_TLS_CERT};
	local $ENV{BIGTABLE_TLS_KEY};
	local $ENV{BIGTABLE_TLS_NAME};
	$ENV{$_} = $env->{$_} for keys %$env;
	run([ 'timeout', '20', $client, @args ], '>', \$o, '2>', \$e);
	return ($? >> 8, $o, $e);
}

my %trusting = (BIGTABLE_TLS_CA => "$dir/ca.pem");
my %with_cert = (%trusting, BIGTABLE_TLS_CERT => "$dir/client.pem", BIGTABLE_TLS_KEY => "$dir/client.key");

# TLS, no client certificate asked
my $addr = serve('--tls-cert', "$dir/server.pem", '--tls-key', "$dir/server.key");
my ($rc, $out, $err) = client($addr, \%trusting, 'read', 't', 'r0000', 'r9999');
is($rc, 0, 'a client that trusts the CA reads over TLS') or diag($err);
like($out, qr/^500 /, 'it reads all 500 cells');
($rc, $out, $err) = client($addr, \%trusting, 'mutate', 't', 20, 5, 10, 2);
is($rc, 0, 'and writes over TLS (MutateRows)') or diag($err);
is($node->safe_psql('postgres', q{SELECT count(*) FROM t WHERE row_key < 'n'}), '100',
	'its 100 cells are in the table');
($rc, $out, $err) = client($addr, {}, 'read', 't', 'r0000', 'r9999');
isnt($rc, 0, 'a plaintext client is refused');
is($out, '', 'and reads nothing');
($rc, $out, $err) = client($addr, { BIGTABLE_TLS_CA => "$dir/other_ca.pem" }, 'read', 't', 'r0000', 'r9999');
isnt($rc, 0, 'a client that trusts another CA refuses the server');
($rc, $out, $err) = client($addr, { %trusting, BIGTABLE_TLS_NAME => 'elsewhere.example' },
	'read', 't', 'r0000', 'r9999');
isnt($rc, 0, 'a certificate for another name is refused');

# client certificates required
$addr = serve('--tls-cert', "$dir/server.pem", '--tls-key', "$dir/server.key",
	'--tls-client-ca', "$dir/ca.pem");
($rc, $out, $err) = client($addr, \%with_cert, 'read', 't', 'r0000', 'r9999');
is($rc, 0, 'with --tls-client-ca, a client with a certificate the CA signed reads') or diag($err);
like($out, qr/^500 /, 'all 500 cells');
($rc, $out, $err) = client($addr, \%trusting, 'read', 't', 'r0000', 'r9999');
isnt($rc, 0, 'a client without a certificate is refused');
($rc, $out, $err) = client($addr, { %trusting, BIGTABLE_TLS_CERT => "$dir/other_ca.pem",
		BIGTABLE_TLS_KEY => "$dir/other_ca.key" }, 'mutate', 't', 10, 5, 10, 1);
isnt($rc, 0, 'a client whose certificate another CA signed is refused');
is($node->safe_psql('postgres', q{SELECT count(*) FROM t}), '600', 'and it wrote nothing');
$server->kill_kill;

# bad options: refused before serving
for my $case ([ [ '--tls-cert', "$dir/server.pem" ], 2, qr/go together/, 'a certificate without its key' ],
	[ [ '--tls-key', "$dir/server.key" ], 2, qr/go together/, 'a key without its certificate' ],
	[ [ '--tls-client-ca', "$dir/ca.pem" ], 2, qr/go together/, 'a client CA without TLS' ],
	[ [ '--tls-cert', "$dir/missing.pem", '--tls-key', "$dir/server.key" ], 1, qr/cannot read the TLS certificate file/,
		'a certificate file that is not there' ])
{
	my ($opts, $want, $msg, $what) = @$case;
	my ($o, $e) = ('', '');
	run([ $bin, '--port', '0', '--dsn', $dsn, @$opts ], '>', \$o, '2>', \$e, timeout(20));
	is($? >> 8, $want, "$what: exit status $want");
	like($e, $msg, "$what: says why");
	unlike($o, qr/listening/, "$what: never listens");
}

$node->stop;
done_testing();
