# Damaged pages are reported, never crash the server or return wrong
# cells: wide.verify() names the damage, reads that touch it fail with
# ERRCODE_DATA_CORRUPTED, reads elsewhere work.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('corrupt');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f');
	INSERT INTO t SELECT 'row#' || lpad(i::text, 6, '0'), 'f', 'q', i, md5(i::text)
	  FROM generate_series(1, 50000) i;
	SELECT FROM wide.compact('t', major => true);
	CHECKPOINT;
});
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'verify: a sound table has no problems');
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('t')");
my $live = $node->safe_psql('postgres', "SELECT segment FROM wide.runs('t')");
$node->stop;

# pages of a given type: the last two bytes of a wide page hold its type;
# with $owner, only those of that segment (the u32 before the type; pages
# of a segment a compaction freed keep their type until they are reused)
sub pages_of_type
{
	my ($type, $owner) = @_;
	open my $fh, '<:raw', $file or die "open $file: $!";
	my (@found, $page);
	my $blk = 0;
	while (read($fh, $page, 8192) == 8192)
	{
		push @found, $blk
		  if unpack('v', substr($page, 8190, 2)) == $type
		  && (!defined $owner || unpack('V', substr($page, 8184, 4)) == $owner);
		$blk++;
	}
	close $fh;
	return @found;
}

sub damage
{
	my ($blk, $offset, $len) = @_;
	open my $fh, '+<:raw', $file or die "open $file: $!";
	seek($fh, $blk * 8192 + $offset, 0);
	my $bytes;
	read($fh, $bytes, $len);
	seek($fh, $blk * 8192 + $offset, 0);
	print $fh ($bytes ^ ("\xff" x $len));
	close $fh;
}

my @seg = pages_of_type(0x5704, $live);
ok(@seg > 10, 'the table has segment pages');
my $victim = $seg[ int(@seg / 2) ];
damage($victim, 3000, 64);
$node->start;

my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM t',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'a full scan over the damage fails');
like($err, qr/XX001/, 'with ERRCODE_DATA_CORRUPTED');
like($err, qr/segment \d+ is damaged: checksum mismatch/, 'naming the segment and the damage');
# point reads touch one block: those away from the damage work, the others
# fail cleanly
my ($fine, $clean) = (0, 0);
for my $i (map { $_ * 4999 + 1 } 0 .. 9)
{
	my $key = sprintf('row#%06d', $i);
	my ($r, $o, $e) = $node->psql('postgres', "SELECT count(*) FROM t WHERE row_key = '$key'",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	$fine++ if $r == 0 && $o eq '1';
	$clean++ if $r != 0 && $e =~ /XX001/;
}
cmp_ok($fine, '>=', 8, "point reads away from the damage work ($fine of 10)");
is($fine + $clean, 10, 'the others fail with ERRCODE_DATA_CORRUPTED');
my $report = $node->safe_psql('postgres', "SELECT object || ': ' || problem FROM wide.verify('t')");
like($report, qr/run 1 \(segment \d+\): .*checksum mismatch/, 'verify reports the damaged segment');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');

# a damaged metapage
$node->stop;
damage(0, 24, 4);
$node->start;
($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM t');
like($err, qr/invalid metapage/, 'a damaged metapage is a clear error');
like($node->safe_psql('postgres', "SELECT problem FROM wide.verify('t')"),
	qr/not a wide metapage/, 'verify reports the damaged metapage');

$node->stop;
done_testing();
