# Runs of format 5 and older do not name their families (issue 29): a run
# without the WIDE_RUN_FAMILIES flag may hold any family, whatever its
# descriptor's old padding holds.  A table whose metapage is made to look as
# format 5 wrote it (version 5, the flag cleared, zeroes -- "no family" --
# where the set would be) reads and expires as before: lowering the age
# family's max_age frees no run that may hold the family kept for ever, and
# every cell of that family stays; after a major compaction rewrites the
# runs in format 6, the age family's windows are freed without rewriting.
# A damaged metapage whose run claims no family is refused.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('runfam');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nwide.time_window = 86400\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('t', 'raw', max_age => '30 days');
	SELECT wide.create_family('t', 'rollup');
	INSERT INTO t SELECT 'h' || h || '#' || d, 'raw', 'cpu',
	       date_trunc('day', now()) - (d || ' days')::interval + (hr || ' hours')::interval, d * 100 + hr
	  FROM generate_series(1, 10) d, generate_series(0, 23) hr, generate_series(1, 4) h;
	INSERT INTO t SELECT 'h' || h || '#' || d, 'rollup', 'avg',
	       date_trunc('day', now()) - (d || ' days')::interval, d
	  FROM generate_series(1, 10) d, generate_series(1, 4) h;
	SELECT FROM wide.compact('t', major => true);
});
my $nruns = $node->safe_psql('postgres', "SELECT count(*) FROM wide.runs('t')");
is($nruns, '11', 'ten day windows and the rest');

# the metapage as format 5 wrote it
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('t')");
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
open(my $fh, '+<:raw', $file) or die "open $file: $!";
my $meta = 24;				# page header
my ($runs, $nruns_off, $runsz, $flags, $families) = (1216, 1184, 136, 64, 132);
seek($fh, $meta + 4, 0);
print $fh pack('L', 5);		# version
seek($fh, $meta + $nruns_off, 0);
read($fh, my $n, 4);
$n = unpack('L', $n);
is($n, $nruns, 'the run count where format.h puts it');
for my $i (0 .. $n - 1)
{
	my $at = $meta + $runs + $i * $runsz;
	seek($fh, $at + $flags, 0);
	read($fh, my $f, 2);
	$f = unpack('S', $f);
	ok($f & 0x20, "run $i was written with its family set");
	seek($fh, $at + $flags, 0);
	print $fh pack('S', $f & ~0x20);
	seek($fh, $at + $families, 0);
	print $fh pack('L', 0);
}
close($fh);
$node->start;

my $counts = q{SELECT string_agg(family || ' ' || n, ', ' ORDER BY family)
                 FROM (SELECT family, count(*) n FROM t GROUP BY family) s};
is($node->safe_psql('postgres', $counts), 'raw 960, rollup 40', 'format 5 runs read');
$node->safe_psql('postgres', q{
	SELECT wide.alter_family('t', 'raw', max_age => '4 days');
	VACUUM (TRUNCATE false) t});
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE family = 'rollup'"), '40',
	'format 5 runs may hold any family: no rollup is lost');
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE family = 'raw' AND ts < now() - interval '4 days'"),
	'0', 'expired cells are not read');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0', 'verify');

# rewritten in format 6: the next expiry frees windows unread
$node->safe_psql('postgres', "SELECT FROM wide.compact('t', major => true)");
my $segs = $node->safe_psql('postgres', "SELECT string_agg(segment::text, ',') FROM wide.runs('t')");
$node->safe_psql('postgres', q{
	SELECT wide.alter_family('t', 'raw', max_age => '2 days');
	VACUUM (TRUNCATE false) t});
my $left = $node->safe_psql('postgres',
	"SELECT count(*) FILTER (WHERE segment NOT IN ($segs)) || ' new, ' || count(*) FROM wide.runs('t')");
like($left, qr/^0 new, /, "format 6: nothing written ($left)");
my ($nleft) = $left =~ /, (\d+)$/;
cmp_ok($nleft, '<', scalar(split /,/, $segs), '... and the expired windows freed');
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE family = 'rollup'"), '40',
	'every rollup stays');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0', 'verify');
my $v;
$node->safe_psql('postgres', 'CHECKPOINT');
open($fh, '<:raw', $file) or die;
seek($fh, $meta + 4, 0);
read($fh, $v, 4);
close($fh);
is(unpack('L', $v), 7, 'the metapage is this build\'s format (7) now');

# damage: a run that claims to hold no family is refused, not freed
$node->stop;
open($fh, '+<:raw', $file) or die "open $file: $!";
seek($fh, $meta + $runs + $families, 0);
read($fh, my $saved, 4);
seek($fh, $meta + $runs + $families, 0);
print $fh pack('L', 0);
close($fh);
$node->start;
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM t');
like($err, qr/run 1 holds no family/, 'an empty family set is reported as damage');
($ret, $out, $err) = $node->psql('postgres', 'VACUUM t');
isnt($ret, 0, '... and VACUUM frees nothing past it');
$node->stop;
open($fh, '+<:raw', $file) or die "open $file: $!";
seek($fh, $meta + $runs + $families, 0);
print $fh $saved;
close($fh);
$node->start;
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE family = 'rollup'"), '40',
	'restored: every rollup reads back');
done_testing();
