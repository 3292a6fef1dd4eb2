# Compaction passing data blocks through unchanged (engine/blockpass.c):
# time-major loads leave runs whose blocks mostly interleave with no other
# run's; the merged result must hold exactly the cells a record-by-record
# merge writes (wide.compaction_pass_through = off, on a twin table), read
# as frozen; a kill just before the merged run is published loses nothing
# and leaves nothing behind that verify or VACUUM objects to.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('compactpass');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nmax_wal_size = 1GB\n"
	  # small blocks: index blocks of 128 data blocks fill, with passed ones
	  . "wide.block_size = 2048\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text,
	                ts int8, value float8) USING wide;
	SELECT wide.create_family('t', 'cpu', max_versions => 1);
	SELECT wide.create_family('t', 'f');
	CREATE TABLE twin (row_key text, family text, qualifier text,
	                   ts int8, value float8) USING wide;
	SELECT wide.create_family('twin', 'cpu', max_versions => 1);
	SELECT wide.create_family('twin', 'f');
});

# time-major: each load holds every host for a stretch of time, a reading
# is 4 cells; a few readings of family f get a second version later
for my $k (0 .. 4)
{
	for my $tbl ('t', 'twin')
	{
		$node->safe_psql('postgres', qq{
			INSERT INTO $tbl SELECT 'host_' || lpad(h::text, 3, '0') || '#' || (1000000 + $k * 500 + s),
			       'cpu', 'm' || q, 1000000 + $k * 500 + s, (h * 7 + s * 3 + q) % 101
			  FROM generate_series(1, 10) h, generate_series(0, 499) s, generate_series(1, 4) q;
			INSERT INTO $tbl SELECT 'host_' || lpad(h::text, 3, '0') || '#' || (1000000 + $k * 500),
			       'f', 'x', $k, $k FROM generate_series(1, 10, 3) h;
			SELECT FROM wide.compact('$tbl');
		});
	}
}

sub content
{
	my ($tbl) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT count(*), md5(string_agg(row_key || '/' || family || '/' || qualifier || '/' || ts || '/' || value,
		                     ',' ORDER BY row_key, family, qualifier, ts DESC)) FROM $tbl});
}

my $expect = content('t');
is(content('twin'), $expect, 'twin tables hold the same cells');
cmp_ok($node->safe_psql('postgres', "SELECT count(*) FROM wide.runs('t')"), '>=', 2,
	'the loads left several runs');

# killed just before the pass-through merge is published
my ($ret, $out, $err) = $node->psql('postgres',
	"SET wide.debug_crash = 'compact_pass'; SELECT FROM wide.compact('t', major => true)");
ok($node->log_contains(qr/wide.debug_crash: killing this backend at "compact_pass"/),
	'the backend was killed after passing blocks through, before publishing');
$node->poll_query_until('postgres', 'SELECT true') or die 'server did not restart';
is(content('t'), $expect, 'after the crash: every cell, unchanged');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'after the crash: verify finds nothing wrong');

# the merge itself, with and without passing blocks through
my $log_offset = -s $node->logfile;
$node->safe_psql('postgres',
	"SET log_min_messages = debug1; SELECT FROM wide.compact('t', major => true)");
my $log = slurp_file($node->logfile, $log_offset);
my ($passed, $merged) = $log =~ /compaction of \d+ runs passed (\d+) data blocks \(\d+ records\) through, merged (\d+)/;
ok(defined $passed && $passed > 128 && $passed > $merged,
	'most data blocks passed through (' . ($passed // 'none') . ' passed, ' . ($merged // '?') . ' merged)');
$node->safe_psql('postgres',
	"SET wide.compaction_pass_through = off; SELECT FROM wide.compact('twin', major => true)");
is(content('t'), $expect, 'passed through: the same cells');
is(content('twin'), $expect, 'merged record by record: the same cells');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM twin) a}), '0',
	'nothing in one that is not in the other');
is($node->safe_psql('postgres', "SELECT count(*), count(oldest_xid) FROM wide.runs('t')"), '1|0',
	'one run, frozen (no transaction id left to look up)');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'verify: order, filters and checksums of the passed blocks');
# point reads through the row filters of the new index blocks, and ranges
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM generate_series(1, 10, 3) h, generate_series(0, 2499, 97) s,
	  LATERAL (SELECT * FROM t WHERE row_key = 'host_' || lpad(h::text, 3, '0') || '#' || (1000000 + s)) c}),
	$node->safe_psql('postgres', q{
	SELECT count(*) FROM generate_series(1, 10, 3) h, generate_series(0, 2499, 97) s,
	  LATERAL (SELECT * FROM twin WHERE row_key = 'host_' || lpad(h::text, 3, '0') || '#' || (1000000 + s)) c}),
	'point reads find the same cells');

# a later write and merge over passed blocks: the newest version wins
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT 'host_' || lpad(h::text, 3, '0') || '#' || 1000001, 'cpu', 'm1', 1000001, -1
	  FROM generate_series(1, 10) h;
	INSERT INTO twin SELECT 'host_' || lpad(h::text, 3, '0') || '#' || 1000001, 'cpu', 'm1', 1000001, -1
	  FROM generate_series(1, 10) h;
	VACUUM t; VACUUM twin;
	SELECT FROM wide.compact('t', major => true);
	SET wide.compaction_pass_through = off;
	SELECT FROM wide.compact('twin', major => true);
});
is(content('t'), content('twin'), 'after overwriting some cells and merging again: the same cells');
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE value = -1"), '10',
	'the overwritten cells read their new value');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'verify after the second merge');

# Passing under an older snapshot (blockpass.c): a load committed after a
# reader took its snapshot is committed but not visible to every snapshot;
# its blocks pass with their xmins kept.  The reader keeps not seeing the
# load, the run keeps an xid to look up until a merge that every snapshot
# sees, and a kill mid-compaction while the snapshot is held loses nothing.
sub load
{
	my ($k) = @_;
	for my $tbl ('t', 'twin')
	{
		$node->safe_psql('postgres', qq{
			INSERT INTO $tbl SELECT 'host_' || lpad(h::text, 3, '0') || '#' || (1000000 + $k * 500 + s),
			       'cpu', 'm' || q, 1000000 + $k * 500 + s, (h * 5 + s + q) % 97
			  FROM generate_series(1, 10) h, generate_series(0, 499) s, generate_series(1, 4) q;
			SELECT FROM wide.compact('$tbl');
		});
	}
}
my $reader = $node->background_psql('postgres', on_error_stop => 0);
$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
my $seen = $reader->query_safe('SELECT count(*) FROM t');
load(5);
$log_offset = -s $node->logfile;
$node->safe_psql('postgres',
	"SET log_min_messages = debug1; SELECT FROM wide.compact('t', major => true)");
$log = slurp_file($node->logfile, $log_offset);
($passed) = $log =~ /compaction of \d+ runs passed (\d+) data blocks/;
ok(defined $passed && $passed > 128,
	'under an older snapshot, the committed load passed through (' . ($passed // 'none') . ' blocks)');
is($reader->query_safe('SELECT count(*) FROM t'), $seen,
	'the older snapshot does not see the load passed under it');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.runs('t') WHERE oldest_xid IS NOT NULL"), '1',
	'the merged run keeps the load\'s transaction ids while that snapshot is held');
is(content('t'), content('twin'), 'a new snapshot sees every cell');

# killed before publishing, the older snapshot still held
load(6);
$log_offset = -s $node->logfile;
($ret, $out, $err) = $node->psql('postgres',
	"SET wide.debug_crash = 'compact_pass'; SELECT FROM wide.compact('t', major => true)");
like(slurp_file($node->logfile, $log_offset), qr/killing this backend at "compact_pass"/,
	'the backend was killed after passing blocks through, the older snapshot held');
$node->poll_query_until('postgres', 'SELECT true') or die 'server did not restart';
eval { $reader->quit };
is(content('t'), content('twin'), 'after a kill mid-compaction under an older snapshot: every cell');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('t')"), '0',
	'after that kill: verify finds nothing wrong');
$node->safe_psql('postgres', "SELECT FROM wide.compact('t', major => true)");
is($node->safe_psql('postgres', "SELECT count(*), count(oldest_xid) FROM wide.runs('t')"), '1|0',
	'with the snapshot gone, the next merge freezes the run');
is(content('t'), content('twin'), 'and it holds the same cells');

$node->stop;
done_testing();
