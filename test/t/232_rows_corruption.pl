# Damage under the row form: bytes of a wide table's pages are flipped
# (segment pages and headers without page checksums, write-area pages with
# them; random offsets and lengths), then every read path of the row form runs -- a full scan, key
# ranges, a skip scan over all hosts, GROUP BY inside the scan, a backward
# seek per host (lastpoint), a join that seeks per outer row, the latest
# groups (GROUP BY a time bucket ORDER BY it DESC LIMIT n), ANALYZE -- and
# each must return exactly the answer of the undamaged table or fail with
# ERRCODE_DATA_CORRUPTED (XX001): never a wrong answer, never a crash; and
# when one fails, wide.verify() must report the damage.  The relation file
# is restored between cases.
#
# Environment: WIDE_FUZZ_SEED (default 232), WIDE_FUZZ_CASES (default 24).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Copy;
use FindBin;
use lib $FindBin::RealBin;
use WideFormat;

# PostgreSQL's page header: the damage goes after it
my $PAGE_HDR = 24;

# the server that decodes the files (WideFormat.pm), made before the seed
# is set so that the cases do not depend on it
decoder();
my $seed = $ENV{WIDE_FUZZ_SEED} // 232;
my $cases = $ENV{WIDE_FUZZ_CASES} // 24;
srand($seed);
note("seed $seed, $cases cases");

my $setup_sql = q{
	CREATE EXTENSION wide;
	CREATE TABLE cells (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('cells', 'm', max_versions => 1);
	CREATE FOREIGN TABLE m (time timestamptz NOT NULL, host int4 OPTIONS (width '3') NOT NULL,
	                        a float8, b float8, c float8)
	  SERVER wide_rows OPTIONS (cells 'cells', family 'm', key 'host,time');
	CREATE TABLE hosts (id int4);
	INSERT INTO hosts SELECT generate_series(0, 39, 3);
	-- time-major, as readings arrive: compacted into runs, then a few in
	-- the write area
	INSERT INTO m SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 10), h,
	                     50 + 40 * sin(t / 50.0 + h), t % 7, CASE WHEN t % 5 = 0 THEN NULL ELSE h * 1.5 END
	  FROM generate_series(0, 1199) t, generate_series(0, 39) h ORDER BY t, h;
	SELECT FROM wide.compact('cells', major => true);
	-- (a full-precision a: format 6's Huffman coded blocks, stored type 3;
	-- then one statement's run: data blocks of one xmin, index flag 0x08)
	INSERT INTO m SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 10), h,
	                     50 + 40 * cos(t / 50.0 + h), t % 7, h * 0.25
	  FROM generate_series(1205, 1404) t, generate_series(0, 39) h ORDER BY t, h;
	INSERT INTO m SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 10), h, t, -1, NULL
	  FROM generate_series(1200, 1204) t, generate_series(0, 39) h;
	INSERT INTO m SELECT '2020-01-01'::timestamptz + make_interval(secs => t * 10), h, t, -1, NULL
	  FROM generate_series(1405, 1409) t, generate_series(0, 39) h;
	CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE r text;
	BEGIN
		EXECUTE q INTO r;
		RETURN coalesce(r, 'null');
	EXCEPTION WHEN OTHERS THEN
		RETURN 'ERROR ' || SQLSTATE;
	END $$;
	CHECKPOINT;
};

my @reads = (
	q{SELECT count(*) || ' ' || sum(a) || ' ' || sum(b) || ' ' || count(c) FROM m},
	q{SELECT count(*) || ' ' || sum(a) FROM m WHERE host BETWEEN 10 AND 12 AND time < '2020-01-01 02:00'},
	q{SELECT count(*) || ' ' || max(a) || ' ' || min(b) FROM m WHERE time >= '2020-01-01 01:00' AND time < '2020-01-01 01:30'},
	q{SELECT string_agg(host || ':' || n || ':' || s, ',' ORDER BY host) FROM
	    (SELECT host, count(*) n, sum(a) s FROM m WHERE time >= '2020-01-01 00:30' GROUP BY host) g},
	q{SELECT string_agg(h.id || '@' || l.time || '=' || l.a, ',' ORDER BY h.id) FROM hosts h,
	    LATERAL (SELECT time, a FROM m WHERE host = h.id ORDER BY time DESC LIMIT 1) l},
	q{SELECT count(*) || ' ' || sum(a) FROM m WHERE host IN (SELECT id FROM hosts) AND a > 60},
	q{SELECT count(*) || ' ' || sum(a) FROM (SELECT * FROM m ORDER BY host DESC, time DESC LIMIT 3000) s},
	# the latest groups (Top Groups: windows folded back from the bound):
	# a few minutes, and hours that reach back over most of the runs
	q{SELECT string_agg(g || '=' || n || ':' || s, ',' ORDER BY g) FROM
	    (SELECT date_trunc('minute', time) g, count(*) n, sum(a) s FROM m
	      WHERE time < '2020-01-01 02:30' GROUP BY g ORDER BY g DESC LIMIT 5) t},
	q{SELECT string_agg(g || '=' || n || ':' || x, ',' ORDER BY g) FROM
	    (SELECT date_trunc('hour', time) g, count(*) n, max(b) x FROM m
	      WHERE time < '2020-01-02' GROUP BY g ORDER BY g DESC LIMIT 3) t},
);
# the latest groups' reads above must take that path, or they test nothing
my @top_reads = (7, 8);

sub run_reads
{
	my ($node) = @_;
	my $sql = join(",\n", map { my $q = $_; $q =~ s/'/''/g; "try('$q')" } @reads);
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT $sql", extra_params => [ '-A', '-t', '-F', "\t" ]);
	return undef if $ret != 0;
	my @res = split /\t/, $out;
	($ret, $out, $err) = $node->psql('postgres', 'ANALYZE m', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	push @res, $ret == 0 ? 'analyzed' : ($err =~ /ERROR:\s+(\w{5})/ ? "ERROR $1" : "ERROR ?");
	return \@res;
}

# damage $ncases times pages of the given kinds of $node's table, run the
# reads after each; with $verify, a failed read must be damage
# wide.verify() reports
sub fuzz
{
	my ($node, $label, $kinds, $ncases, $verify) = @_;
	$node->start;
	$node->safe_psql('postgres', $setup_sql);
	my $good = run_reads($node);
	ok($good && @$good == @reads + 1 && !grep({ /^ERROR/ } @$good), "$label: the row form reads cleanly before damage")
	  or diag(explain($good));
	is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('cells')"), '0', "$label: verify: sound");
	for my $i (@top_reads)
	{
		(my $inner = $reads[$i]) =~ s/^.*?FROM\s*\((.*)\) t$/$1/s;
		like($node->safe_psql('postgres', "EXPLAIN (COSTS OFF) $inner"), qr/Top Groups/,
			"$label: read $i is the latest groups path");
	}
	my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('cells')");
	$node->stop;
	copy($file, "$file.orig") or die "copy: $!";
	die "more than one segment file" if -e "$file.1";
	my $image = read_file_raw("$file.orig");

	# pages by type (wide_internal.format_pages, on a decoder server): the
	# damage goes where the row form's cells are
	my %pages;
	push @{ $pages{ $_->[1] } }, $_->[0] for decode_rows(decoder(),
		'SELECT blkno, type FROM wide_internal.format_pages(' . file_sql("$file.orig")
		  . ') WHERE blkno > 0 ORDER BY blkno');
	note("$label: " . join(', ', map { "$_: " . scalar(@{ $pages{$_} }) } sort keys %pages));
	# format 6's blocks among what is damaged: Huffman coded values stored
	# as type 3, and blocks of one xmin (the statement's run)
	my ($t3, $one) = split /\|/, decoder()->safe_psql('postgres', 'WITH i AS MATERIALIZED (SELECT '
		. file_sql("$file.orig") . " AS b),
		  s AS (SELECT k.* FROM i, wide_internal.format_segments(i.b) r,
		               wide_internal.format_stored_blocks(i.b, r.root) k WHERE r.live)
		SELECT (SELECT count(*) FROM s, wide_internal.format_frame(s.stored) f
		         WHERE s.kind = 'data' AND f.type = 3),
		       (SELECT count(*) FROM s, wide_internal.format_frame(s.stored) f,
		               wide_internal.format_index(f.body, false) e
		         WHERE s.kind = 'index' AND e.flags & 8 = 8)");
	ok($t3 > 0 && $one > 0, "$label: the table has type 3 blocks ($t3) and blocks of one xmin ($one)");
	my @kinds = grep { $pages{$_} && @{ $pages{$_} } } @$kinds;
	is(scalar(@kinds), scalar(@$kinds), "$label: the table has pages of every kind to damage");

	my ($wrong, $crashed, $silent, $failed, $clean, $top_failed) = (0, 0, 0, 0, 0, 0);
	for my $case (1 .. $ncases)
	{
		my $kind = $kinds[ int(rand(@kinds)) ];
		my $blk = $pages{$kind}[ int(rand(@{ $pages{$kind} })) ];
		my $len = 1 + int(rand(rand() < 0.5 ? 4 : 200));
		my $off = $PAGE_HDR + int(rand($BLCKSZ - $PAGE_HDR - $len));
		my $bytes = substr($image, $blk * $BLCKSZ + $off, $len);
		my $mask = join('', map { chr(1 + int(rand(255))) } 1 .. $len);
		my $damaged = $image;
		substr($damaged, $blk * $BLCKSZ + $off, $len) = $bytes ^ $mask;
		open my $fh, '>:raw', $file or die "open $file: $!";
		print $fh $damaged;
		close $fh;

		$node->start;
		my $res = run_reads($node);
		my $what = "$label case $case: $kind page $blk, $len bytes at $off";
		if (!defined $res)
		{
			$crashed++;
			diag("$what: psql failed");
			last;
		}
		my $any_error = 0;
		for my $i (0 .. $#$res)
		{
			if ($res->[$i] =~ /^ERROR (\w+)/)
			{
				$any_error = 1;
				if ($1 ne 'XX001') { $wrong++; diag("$what: read $i failed with $1") }
			}
			elsif ($res->[$i] ne $good->[$i])
			{
				$wrong++;
				diag("$what: read $i answered '$res->[$i]', not '$good->[$i]'");
			}
		}
		$top_failed++ if grep { $res->[$_] =~ /^ERROR XX001/ } @top_reads;
		if (!$any_error) { $clean++ }
		else
		{
			$failed++;
			if ($verify && $node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('cells')") eq '0')
			{
				$silent++;
				diag("$what: reads failed, verify silent");
			}
		}
		# a clean stop: nothing to replay onto the restored file
		$node->stop('fast');
		copy("$file.orig", $file) or die "copy back: $!";
	}
	note("$label: $ncases cases: $clean read cleanly, $failed failed with XX001");
	is($crashed, 0, "$label: no case crashed the server");
	is($wrong, 0, "$label: no read answered wrongly or failed other than with XX001");
	is($silent, 0, "$label: every failed read was damage wide.verify reports") if $verify;
	cmp_ok($failed, '>', 0, "$label: some damage reached the row form (the test can fail)");
	cmp_ok($top_failed, '>', 0, "$label: some damage reached the latest groups ($top_failed cases)") if $verify;
}

# wide's own checks: a run's stored blocks carry a CRC-32C, its headers
# are checked for structure (the cluster has no page checksums, so that
# wide's checks are what find the damage)
my $node = PostgreSQL::Test::Cluster->new('rows_corrupt');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\ntimezone = 'UTC'\n");
fuzz($node, 'runs', [qw(segment segheader)], $cases, 1);

# a write-area record is checked for structure only: a flipped bit in a
# value reads as another value, as on a heap page; PostgreSQL's page
# checksums cover those pages as they cover the heap's
my $sums = PostgreSQL::Test::Cluster->new('rows_corrupt_sums');
$sums->init(extra => ['--data-checksums']);
$sums->append_conf('postgresql.conf', "autovacuum = off\ntimezone = 'UTC'\n");
fuzz($sums, 'write area, page checksums', [qw(write)], 6, 0);
done_testing();
