# A damaged metapage (block 0) ends every operation in a clean
# ERRCODE_DATA_CORRUPTED error naming the table and block 0, never a crash
# (issue 9, defect 9: its counts used to be copied into fixed arrays
# unchecked, and SELECT count(*) crashed the server).
#
# Each case overwrites one field of the metapage while the server is
# stopped, runs a read, a write, a compaction and a VACUUM, checks that
# each fails cleanly and that the server stayed up, and puts the page back.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('metapage');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f');
	INSERT INTO t SELECT 'row#' || i, 'f', 'q', i, md5(i::text) FROM generate_series(1, 2000) i;
	SELECT FROM wide.compact('t');
	INSERT INTO t SELECT 'row#' || i, 'f', 'q', i, md5(i::text) FROM generate_series(2001, 4000) i;
	SELECT FROM wide.compact('t');
	SELECT FROM wide.compact('t', true);
	INSERT INTO t VALUES ('tail', 'f', 'q', 1, 'in the write area');
	CHECKPOINT;
});
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('t')");
$node->stop;

# offsets in block 0 (page header, then WideMetaPageData; see src/engine/format.h)
my %field = (
	nlanes => 36,
	lane0_head => 40,
	nwaruns => 112,
	nruns => 1208,
	run0_root => 1240 + 4,
	nfree => 4504,
	free0_kind => 4512,
	free0_start => 4512 + 4,
);

open my $fh, '<:raw', $file or die "open $file: $!";
my $orig;
read($fh, $orig, 8192) == 8192 or die "short read";
close $fh;

sub write_meta
{
	my ($page) = @_;
	open my $fh, '+<:raw', $file or die "open $file: $!";
	print $fh $page;
	close $fh;
}

my @cases = (
	[ nlanes => 1000 ],
	[ nlanes => 0 ],
	[ lane0_head => 0 ],
	[ nwaruns => 9 ],
	[ nwaruns => 0xffffffff ],
	[ nruns => 25 ],
	[ nruns => 100000 ],
	[ run0_root => 0 ],
	[ nfree => 101 ],
	[ nfree => 0x7fffffff ],
	[ free0_kind => 77 ],
	[ free0_start => 0 ],
);
my @ops = (
	'SELECT count(*) FROM t',
	"SELECT count(*) FROM t WHERE row_key = 'row#10'",
	"INSERT INTO t VALUES ('new', 'f', 'q', 1, 'x')",
	"COPY t FROM PROGRAM 'echo k,f,q,1,v' (FORMAT csv)",
	"SELECT FROM wide.compact('t', true)",
	'VACUUM t',
);

for my $case (@cases)
{
	my ($name, $value) = @$case;
	my $page = $orig;
	substr($page, $field{$name}, 4) = pack('V', $value);
	write_meta($page);
	$node->start;
	for my $op (@ops)
	{
		my ($ret, $out, $err) = $node->psql('postgres', $op,
			extra_params => [ '-v', 'VERBOSITY=verbose' ]);
		isnt($ret, 0, "$name = $value: $op fails");
		like($err, qr/XX001: wide table "t" has an invalid metapage.*\n.*DETAIL:  Block 0: /,
			"$name = $value: $op: ERRCODE_DATA_CORRUPTED naming the table and block 0");
	}
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$name = $value: the server is up");
	$node->stop;
	write_meta($orig);
}

# the page put back, everything works again
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '4001', 'the restored table reads');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'and verify finds nothing');
$node->stop;
done_testing();
