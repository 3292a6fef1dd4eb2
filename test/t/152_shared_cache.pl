# The block cache shared by backends (src/engine/sharedcache.c), with wide in
# shared_preload_libraries and a cache small enough to evict all the time:
#
#   - wide.block_cache() reports it; a second connection reads the blocks
#     the first one decompressed (hits), and returns the same cells;
#   - 1 kB blocks fill the key table before the rings: inserts evict to get
#     an entry, and reads stay right;
#   - readers in several connections compare random ranges and rows with a
#     heap table written in the same transactions while a writer adds and
#     deletes cells, compaction rewrites runs, VACUUM and autovacuum free and
#     reuse their pages and a table is dropped and created again, every block of the
#     runs going in and out of the cache: no reader ever sees a difference;
#   - a role without SELECT is refused, and one under a policy reads its
#     rows only, though the table's blocks are shared;
#   - a backend killed with SIGKILL restarts the server: the cache starts
#     empty and reads are right;
#   - wide.shared_block_cache_size = 0, or wide not preloaded: no shared
#     cache, reads as before.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('shared_cache');
$node->init;
$node->append_conf('postgresql.conf', <<'CONF');
shared_preload_libraries = 'wide'
wide.shared_block_cache_size = 2MB
wide.flush_threshold = 32
restart_after_crash = on
autovacuum = off
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_insert_threshold = 100
CONF
$node->start;

is($node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	SELECT shared, size_bytes, blocks, hits FROM wide.block_cache()}),
	't|2097152|0|0', 'the shared cache is there, empty');

# t: 1 kB blocks (many small blocks: the key table fills before the rings);
# u: 16 kB blocks, as the default block size cuts blocks of short values
# (some over a partition's quarter: not shared)
$node->safe_psql('postgres', q{
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('t', 'f');
	CREATE TABLE u (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('u', 'f');
	CREATE TABLE m (tbl text, row_key text COLLATE "C", family text, qualifier text,
	                ts int8, value int8, PRIMARY KEY (tbl, row_key, family, qualifier, ts));
	SET wide.block_size = 1024;
	INSERT INTO t SELECT 'k' || lpad((i % 3000)::text, 5, '0'), 'f', 'q' || (i % 7), i, i * 3
	  FROM generate_series(1, 60000) i;
	SELECT FROM wide.compact('t', true);
	INSERT INTO t SELECT 'k' || lpad((i % 3000)::text, 5, '0'), 'f', 'q' || (i % 7), i, i * 5
	  FROM generate_series(60001, 70000) i;
	-- (full-precision values are cut at twice the block size: 16 kB here)
	SET wide.block_size = 8192;
	INSERT INTO u SELECT 'k' || lpad((i % 2000)::text, 5, '0'), 'f', 'q' || (i % 5), i,
	                     (random() * 1e9)::int8
	  FROM generate_series(1, 80000) i;
	SELECT FROM wide.compact('u', true);
	INSERT INTO m SELECT 't', * FROM t;
	INSERT INTO m SELECT 'u', * FROM u;
});

# the difference between a wide table and its model over a key range, in
# one statement (one snapshot)
sub diff_sql
{
	my ($tbl, $lo, $hi) = @_;
	return qq{SELECT count(*) FROM (
		(SELECT row_key, family, qualifier, ts, value FROM $tbl
		  WHERE row_key >= '$lo' AND row_key < '$hi'
		 EXCEPT ALL
		 SELECT row_key, family, qualifier, ts, value FROM m
		  WHERE tbl = '$tbl' AND row_key >= '$lo' AND row_key < '$hi')
		UNION ALL
		(SELECT row_key, family, qualifier, ts, value FROM m
		  WHERE tbl = '$tbl' AND row_key >= '$lo' AND row_key < '$hi'
		 EXCEPT ALL
		 SELECT row_key, family, qualifier, ts, value FROM $tbl
		  WHERE row_key >= '$lo' AND row_key < '$hi')) d};
}

sub both_sql
{
	my ($lo, $hi) = @_;
	return 'SELECT (' . diff_sql('t', $lo, $hi) . ') + (' . diff_sql('u', $lo, $hi) . ')';
}

is($node->safe_psql('postgres', both_sql('k', 'l')),
	'0', 'both tables equal their model');

# point reads in one connection fill the cache; another finds them
my $reads = q{
	SELECT sum(value), count(*) FROM generate_series(0, 2999, 7) i,
	  LATERAL wide.read_row(NULL::t, 'k' || lpad(i::text, 5, '0')) r};
my $first = $node->safe_psql('postgres', $reads);
my ($h0, $i0) = split /\|/, $node->safe_psql('postgres',
	'SELECT hits, inserts FROM wide.block_cache()');
ok($i0 > 0, "a first reader shares the blocks it decompressed ($i0)");
is($node->safe_psql('postgres', $reads), $first, 'a second connection reads the same cells');
my ($h1, $i1) = split /\|/, $node->safe_psql('postgres',
	'SELECT hits, inserts FROM wide.block_cache()');
ok($h1 > $h0, 'from the shared cache (' . ($h1 - $h0) . ' hits)');
is($node->safe_psql('postgres', q{
	SELECT sum(value), count(*) FROM m WHERE tbl = 't'
	  AND row_key IN (SELECT 'k' || lpad(i::text, 5, '0') FROM generate_series(0, 2999, 7) i)}),
	$first, 'which are the model\'s');

# a scan shares the blocks it reads until they make a quarter of the
# cache's size (segment_reader.c: WIDE_SCAN_CACHE_SHARE; its first
# WIDE_SCAN_CACHED_BLOCKS blocks in any case), as the heap's scans of a
# table smaller than a quarter of shared_buffers keep their pages: a range
# that fits is read from the cache the next time; a full scan of more stops
# sharing there, and the rest would push out the blocks point reads come
# back to
# (u2: a copy of u in one new run that nothing has read yet)
$node->safe_psql('postgres', q{
	CREATE TABLE u2 (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('u2', 'f');
	SET wide.block_size = 8192;
	INSERT INTO u2 SELECT * FROM u;
	SELECT FROM wide.compact('u2', true);
});
my $range_scan = q{
	SET max_parallel_workers_per_gather = 0;
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	SELECT count(*), sum(value) FROM u2 WHERE row_key >= 'k01000' AND row_key < 'k01800'};
my ($before, $hbefore) = split /\|/, $node->safe_psql('postgres', 'SELECT inserts, hits FROM wide.block_cache()');
my $plan = $node->safe_psql('postgres', $range_scan);
my ($nread) = $plan =~ /Blocks Read: (\d+)/;
my ($after, $hafter) = split /\|/, $node->safe_psql('postgres', 'SELECT inserts, hits FROM wide.block_cache()');
ok($nread > 16 && $after - $before >= $nread - 1,
	"a range scan of $nread blocks (under a quarter of the cache) shares "
	  . ($after - $before));
$node->safe_psql('postgres', $range_scan);
my ($again, $hagain) = split /\|/, $node->safe_psql('postgres', 'SELECT inserts, hits FROM wide.block_cache()');
ok($again == $after && $hagain - $hafter >= $nread - 1,
	'another connection reads them from the cache (' . ($hagain - $hafter) . ' hits, '
	  . ($again - $after) . ' inserts)');
$before = $again;
$plan = $node->safe_psql('postgres', q{
	SET max_parallel_workers_per_gather = 0;
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(value) FROM u2});
($nread) = $plan =~ /Blocks Read: (\d+)/;
my $grew = $node->safe_psql('postgres', 'SELECT inserts FROM wide.block_cache()') - $before;
my $used = $node->safe_psql('postgres', 'SELECT used_bytes FROM wide.block_cache()');
ok($nread > 40 && $grew >= 1 && $grew < 40, "a full scan of $nread blocks shares $grew more (cache: $used bytes used)");

# every range of t: the cache (2 MB) is smaller than the table's blocks
my $bad = 0;
for my $i (0 .. 29)
{
	my $lo = sprintf('k%05d', $i * 100);
	my $hi = sprintf('k%05d', $i * 100 + 100);
	$bad += $node->safe_psql('postgres', both_sql($lo, $hi));
}
is($bad, 0, 'range reads through a cache that evicts equal the model');
my ($ev, $ins, $blocks) = split /\|/, $node->safe_psql('postgres',
	'SELECT evictions, inserts, blocks FROM wide.block_cache()');
ok($ev > 0 && $blocks > 0, "the cache evicted ($ev of $ins inserts, $blocks blocks held)");

# ----------------------------------------------------------------
# Concurrency: readers against the model while everything moves
# ----------------------------------------------------------------
my $dir = PostgreSQL::Test::Utils::tempdir;
sub script
{
	my ($name, $text) = @_;
	open my $fh, '>', "$dir/$name.sql" or die $!;
	print $fh $text;
	close $fh;
	return "$dir/$name.sql";
}
# a difference makes the statement fail: pgbench counts it and exits 2
my $check = sub {
	my ($tbl, $n) = @_;
	my $d = diff_sql($tbl, "k' || lpad(:a::text, 5, '0') || '", "k' || lpad((:a + :w)::text, 5, '0') || '");
	return "\\set a random(0, $n)\n\\set w random(1, 40)\n"
	  . "SELECT 1 / (1 - sign(($d)));\n"
	  . "SELECT 1 / (1 - sign(count(*))) FROM (SELECT * FROM wide.read_row(NULL::$tbl, 'k' || lpad(:a::text, 5, '0'))"
	  . " EXCEPT ALL SELECT row_key, family, qualifier, ts, value FROM m WHERE tbl = '$tbl' AND row_key = 'k' || lpad(:a::text, 5, '0')) d;\n";
};
my $rt = script('read_t', $check->('t', 3000));
my $ru = script('read_u', $check->('u', 2000));
my $wr = script('write', q{
\set k random(0, 3000)
\set ts random(100000, 1000000000)
\set v random(1, 1000000)
BEGIN;
INSERT INTO t VALUES ('k' || lpad(:k::text, 5, '0'), 'f', 'q9', :ts, :v);
INSERT INTO m VALUES ('t', 'k' || lpad(:k::text, 5, '0'), 'f', 'q9', :ts, :v) ON CONFLICT (tbl, row_key, family, qualifier, ts) DO UPDATE SET value = EXCLUDED.value;
DELETE FROM t WHERE row_key = 'k' || lpad(((:k + 11) % 3000)::text, 5, '0') AND qualifier = 'q1';
DELETE FROM m WHERE tbl = 't' AND row_key = 'k' || lpad(((:k + 11) % 3000)::text, 5, '0') AND qualifier = 'q1';
COMMIT;
});
my $maint = script('maint', q{
\set r random(1, 3)
\if :r = 1
SELECT FROM wide.compact('t', true);
\elif :r = 2
SELECT FROM wide.compact('t');
\else
SELECT FROM wide.compact('u', true);
\endif
VACUUM t;
});
my $churn = script('churn', q{
DROP TABLE IF EXISTS v;
CREATE TABLE v (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('v', 'f');
INSERT INTO v SELECT 'k' || lpad((i % 500)::text, 5, '0'), 'f', 'q', i, i FROM generate_series(1, 5000) i;
SELECT FROM wide.compact('v', true);
SELECT 1 / (1 - sign(abs(sum(value) - 12502500))) FROM wide.read_rows(NULL::v, prefix => 'k');
});

# autovacuum joins the concurrent run only (before and after it, its reads
# of the wide tables would count in the cache's counters checked)
$node->safe_psql('postgres', 'ALTER SYSTEM SET autovacuum = on');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
my @runs;
for my $s ([$rt, 3], [$ru, 2], [$wr, 1], [$maint, 1], [$churn, 1])
{
	my ($file, $clients) = @$s;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'pgbench', '-n', '-c', $clients, '-T', 12, '-f', $file,
		  '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$out, '2>', \$err);
	push @runs, [ $file, $h, \$out, \$err ];
}
for my $r (@runs)
{
	my ($file, $h, $out, $err) = @$r;
	$h->finish;
	my ($tx) = $$out =~ /number of transactions actually processed: (\d+)/;
	my ($failed) = $$out =~ /number of failed transactions: (\d+)/;
	ok($h->result == 0 && ($tx // 0) > 0 && ($failed // 0) == 0,
		"$file: " . ($tx // 0) . " transactions, none failed")
	  or diag("$$out\n$$err");
}
$node->safe_psql('postgres', 'ALTER SYSTEM SET autovacuum = off');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
is($node->safe_psql('postgres', both_sql('k', 'l')),
	'0', 'the tables equal their model after the concurrent run');
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM wide.verify('t')) + (SELECT count(*) FROM wide.verify('u'))}),
	'0', 'wide.verify is silent');
my ($hits, $evictions) = split /\|/, $node->safe_psql('postgres',
	'SELECT hits, evictions FROM wide.block_cache()');
ok($hits > $h1 && $evictions > $ev, "the run hit ($hits) and evicted ($evictions)");

# ----------------------------------------------------------------
# The cache is below privileges and policies: a role reads nothing more of
# t for its blocks being shared (by the owner's reads just before)
# ----------------------------------------------------------------
$node->safe_psql('postgres', q{
	SELECT count(*) FROM t;
	CREATE ROLE nobody LOGIN;
	CREATE ROLE reader LOGIN;
	GRANT SELECT ON t TO reader;
	GRANT USAGE ON SCHEMA wide TO nobody, reader;
	ALTER TABLE t ENABLE ROW LEVEL SECURITY;
	CREATE POLICY low ON t TO reader USING (row_key < 'k00010');
});
my ($rc, $out, $err) = $node->psql('postgres',
	"SELECT count(*) FROM t WHERE row_key >= 'k00000'", extra_params => [ '-U', 'nobody' ]);
like($err, qr/permission denied for table t/, 'a role without SELECT is refused');
($rc, $out, $err) = $node->psql('postgres',
	"SELECT * FROM wide.read_row(NULL::t, 'k00001')", extra_params => [ '-U', 'nobody' ]);
like($err, qr/permission denied/, 'by read_row too');
is($node->safe_psql('postgres', "SELECT count(DISTINCT row_key) FROM t WHERE row_key >= 'k'",
		extra_params => [ '-U', 'reader' ]),
	'10', 'a role under a policy reads its rows only');
is($node->safe_psql('postgres', 'SELECT count(*) FROM wide.block_cache()',
		extra_params => [ '-U', 'nobody' ]),
	'1', 'any role may read the cache\'s counters (no data in them)');
$node->safe_psql('postgres', q{
	DROP POLICY low ON t;
	ALTER TABLE t DISABLE ROW LEVEL SECURITY;
});

# ----------------------------------------------------------------
# A crash restart starts with an empty cache
# ----------------------------------------------------------------
my ($sout, $serr) = ('', '');
my $sleeper = IPC::Run::start(
	[ 'psql', '-X', '-h', $node->host, '-p', $node->port, '-c',
	  'SELECT pg_sleep(60) /* victim */', 'postgres' ],
	'>', \$sout, '2>', \$serr);
$node->poll_query_until('postgres', q{
	SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%/* victim */'
	  AND pid <> pg_backend_pid()}, '1');
my $victim = $node->safe_psql('postgres', q{
	SELECT pid FROM pg_stat_activity WHERE query LIKE '%/* victim */'
	  AND pid <> pg_backend_pid()});
kill 'KILL', $victim;
$sleeper->finish;
$node->poll_query_until('postgres', 'SELECT true', 't');
is($node->safe_psql('postgres', 'SELECT inserts, hits FROM wide.block_cache()'), '0|0',
	'after a crash restart the cache is empty');
is($node->safe_psql('postgres', both_sql('k', 'l')),
	'0', 'and the tables equal their model');
is($node->safe_psql('postgres', $reads), $node->safe_psql('postgres', $reads),
	'reads through the refilled cache agree');

# ----------------------------------------------------------------
# Off: size 0, and not preloaded
# ----------------------------------------------------------------
$node->append_conf('postgresql.conf', "wide.shared_block_cache_size = 0\n");
$node->restart;
is($node->safe_psql('postgres', 'SELECT shared, size_bytes FROM wide.block_cache()'), 'f|0',
	'wide.shared_block_cache_size = 0: no shared cache');
is($node->safe_psql('postgres', diff_sql('t', 'k', 'l')), '0', 'reads are right without it');
$node->append_conf('postgresql.conf', "shared_preload_libraries = ''\n");
$node->restart;
is($node->safe_psql('postgres', 'SELECT shared, hits FROM wide.block_cache()'), 'f|0',
	'not preloaded: no shared cache');
is($node->safe_psql('postgres', diff_sql('u', 'k', 'l')), '0', 'reads are right');
$node->stop;
done_testing();
