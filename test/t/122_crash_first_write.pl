# A crash while the first write to a wide table has not committed: the
# relation was extended for its metapage (a zeroed block is written at once)
# but the WAL record that initialised it was never flushed.  After recovery
# block 0 is all zeroes; the table is empty (as a relation with no blocks),
# reads and writes work, and it is not reported as damaged
# (engine/storage.c, WideReadMeta).  A zeroed metapage in front of pages
# that hold something is still damage.  (Found by a logical replication
# subscriber stopped in the middle of its first apply transaction,
# test/t/212_cdc_wide_deletes.pl.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(usleep);
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('first_write');
$node->init;
# no background WAL flushes: the uncommitted record stays in memory
$node->append_conf('postgresql.conf',
	"wal_writer_delay = '10s'\nwal_writer_flush_after = 0\nautovacuum = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('w', 'f');
	CHECKPOINT;
});
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('w')");
is(-s $file, 0, 'the table has no blocks');

# the first write, not committed when the server stops
my ($in, $out, $err) = ('', '', '');
my $h = IPC::Run::start(
	[ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
	\$in, \$out, \$err);
$in .= q{BEGIN; INSERT INTO w VALUES ('a', 'f', 'q', 1, 'lost'); SELECT 'written';
};
$h->pump until $out =~ /written/;
ok(-s $file >= 8192, 'the write extended the relation');
$node->stop('immediate');
$h->kill_kill;

$node->start;
is(-s $file >= 8192 ? 'zeroes' : 'none',
	'zeroes', 'after recovery the relation still has its block');
is($node->safe_psql('postgres', 'SELECT count(*) FROM w'), '0',
	'the table is empty');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('w')"), '0',
	'verify reports nothing');
$node->safe_psql('postgres', q{INSERT INTO w VALUES ('b', 'f', 'q', 2, 'kept')});
is($node->safe_psql('postgres', 'SELECT row_key || value FROM w'), 'bkept',
	'writes work');
is($node->safe_psql('postgres', "SELECT string_agg(object || ': ' || problem, '; ') FROM wide.verify('w')"), '',
	'and verify finds nothing wrong after them');
diag('blocks: ' . (-s $file) / 8192);
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', 'SELECT row_key || value FROM w'), 'bkept',
	'the committed write survives another crash');

# a zeroed metapage in front of pages that hold something is damage
$node->safe_psql('postgres', q{
	INSERT INTO w SELECT 'c' || i, 'f', 'q', 3, 'x' FROM generate_series(1, 1000) i;
	SELECT FROM wide.compact('w', major => true);
	CHECKPOINT;
});
$node->stop;
open my $fh, '+<:raw', $file or die "open $file: $!";
print $fh ("\0" x 8192);
close $fh;
$node->start;
my ($ret, $o, $e) = $node->psql('postgres', 'SELECT count(*) FROM w');
like($e, qr/invalid metapage/, 'a zeroed metapage before written pages is a clear error');

$node->stop;
done_testing();
