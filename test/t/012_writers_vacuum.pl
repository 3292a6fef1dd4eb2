# VACUUM's sweep under concurrent plain writers (issue 9, defect 3).
#
# The sweep used to copy the free queue's SEGMENT entries under the
# metapage lock and read their header chains after releasing it; writers
# meanwhile used the entries up and reused the header pages, and VACUUM
# failed with "unexpected page" (2 of 94 runs in the issue).  Now the whole
# queue is read under the lock.
#
# Writers insert rows with blob-sized values through pgbench (so pages come
# from the free queue one at a time, using up freed segments fast) while
# another pgbench loops compactions (which queue whole segments) and
# VACUUMs.  No VACUUM may fail, and the table must be sound and complete
# afterwards.  On 748a655 with only the fix of defect 2 applied, VACUUM
# failed with "unexpected page" in 2 of 2 runs (on 748a655 itself, writes
# fail too: defect 2).  WIDE_STRESS_SECONDS (default 10) sets the length.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $seconds = $ENV{WIDE_STRESS_SECONDS} // 10;
# values of 2,560 bytes: each goes to a one-page blob, taken from the queue
$ENV{WIDE_VAL_REPEAT} //= 80;
$ENV{WIDE_ROWS_PER_TX} //= 2;
$ENV{WIDE_WRITERS} //= 4;

my $node = PostgreSQL::Test::Cluster->new('writevac');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wide.flush_threshold = 16
max_connections = 20
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('w', 'cf');
	CREATE SEQUENCE ids;
});

my $dir = $node->basedir;
open my $fh, '>', "$dir/write.sql" or die;
print $fh qq{INSERT INTO w SELECT 'k' || nextval('ids'), 'cf', 'q', 1, repeat(md5(random()::text), $ENV{WIDE_VAL_REPEAT}) FROM generate_series(1, $ENV{WIDE_ROWS_PER_TX});
};
close $fh;
open $fh, '>', "$dir/maint.sql" or die;
print $fh q{SELECT FROM wide.compact('w');
VACUUM w;
SELECT FROM wide.compact('w', true);
VACUUM w;
};
close $fh;

my @conn = ('-h', $node->host, '-p', $node->port, 'postgres');
my ($wout, $werr, $mout, $merr) = ('', '', '', '');
my $writers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', $ENV{WIDE_WRITERS}, '-T', $seconds, '-f', "$dir/write.sql", @conn ],
	'>', \$wout, '2>', \$werr);
my $maint = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '1', '-T', $seconds, '-f', "$dir/maint.sql", @conn ],
	'>', \$mout, '2>', \$merr);
$writers->finish;
$maint->finish;

my ($wdone) = $wout =~ /number of transactions actually processed: (\d+)/;
my ($mdone) = $mout =~ /number of transactions actually processed: (\d+)/;
note("writes: " . ($wdone // '?') . ", maintenance rounds: " . ($mdone // '?'));
ok($wdone && $wdone > 0, 'the writers ran') or diag($werr);
ok($mdone && $mdone > 0, 'compactions and VACUUMs ran') or diag($merr);
unlike($merr, qr/ERROR/, 'no compaction or VACUUM failed') or diag($merr);
unlike($werr, qr/ERROR/, 'no write failed') or diag($werr);

my $n = $node->safe_psql('postgres', q{SELECT last_value FROM ids});
is($node->safe_psql('postgres', 'SELECT count(*) FROM w'), $n, 'every row is there');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('w')"), '0',
	'wide.verify finds nothing');
my ($ret, $out, $err) = $node->psql('postgres', "SELECT FROM wide.compact('w', true); VACUUM w");
is($ret, 0, 'compaction and VACUUM work afterwards') or diag($err);

$node->stop;
done_testing();
