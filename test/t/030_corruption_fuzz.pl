# Corruption fuzzer: damage one page of a wide table at a time (random
# bytes, or targeted fields: lengths, counts, offsets, block links, page
# types; inside stored segment blocks with their CRC fixed up, so that the
# decoders behind the checksum are exercised too), then run every read,
# compaction, VACUUM and wide.verify().  Each must succeed or fail cleanly
# with ERRCODE_DATA_CORRUPTED (XX001) -- never crash the server -- and when
# a read fails, wide.verify() must report the damage.  The relation files
# are restored between cases, so each case is independent.
#
# Environment:
#	WIDE_FUZZ_SEED		random seed (default 20261123; printed)
#	WIDE_FUZZ_CASES		number of random cases (default 40)
#	WIDE_FUZZ_META		0: leave the metapage alone (default: damage its
#						counts, lane heads, runs and free queue too)
#	WIDE_FUZZ_KINDS		only these kinds of case, e.g. "meta,stored"
#	WIDE_FUZZ_VERBOSE	1: print every case and its outcome
#
# The cluster runs without data checksums (initdb's default), or PostgreSQL
# would reject most damaged pages before wide sees them.  Cases inside a
# stored block decompress and recompress blocks.  Pages, segments, stored
# blocks and fields are found by the engine's own decoders
# (wide_internal.format_*, on a decoder server: WideFormat.pm) in the
# pristine files; the damage is written at the offsets they give.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Copy;
use File::Path qw(rmtree);
use FindBin;
use lib $FindBin::RealBin;
use WideFormat;

# the server that decodes the files (WideFormat.pm), made before the seed
# is set so that the cases do not depend on it
decoder();
my $seed = $ENV{WIDE_FUZZ_SEED} // 20261123;
my $ncases = $ENV{WIDE_FUZZ_CASES} // 40;
my $with_meta = $ENV{WIDE_FUZZ_META} // 1;
srand($seed);
diag("corruption fuzzer: seed $seed, $ncases cases"
	  . ($with_meta ? ', metapage cases included' : ''));
# PostgreSQL's page header: line pointers start after it
my $HDR = 24;

my $node = PostgreSQL::Test::Cluster->new('fuzz');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
fsync = off
shared_buffers = 16MB
wide.block_size = 1024
restart_after_crash = off
statement_timeout = '10s'
});
$node->start;
is($node->safe_psql('postgres', 'SHOW data_checksums'), 'off',
	'the cluster has no page checksums: wide checks the pages itself');

# ----------------------------------------------------------------
# The tables: every page type of wide, and aggregates
# ----------------------------------------------------------------
my $csv = $node->basedir . '/bulk.csv';
open my $cf, '>', $csv or die;
printf $cf "bulk#%06d,f,q,%d,value-%d\n", $_, $_, $_ * 7 for 1 .. 20000;
close $cf;
# full-precision float8 readings under digit-step row keys (format 6: data
# blocks of type 3, Huffman coded values, keys' digit steps), loaded by one
# COPY: blocks of one xmin (index entry flag 0x08), never compacted
my $fcsv = $node->basedir . '/floats.csv';
open my $ff, '>', $fcsv or die;
for my $i (1 .. 3000)
{
	printf $ff "host_%06d,m,v,%d,%.17g\n", $i, 1000 + $_, 20 + sin($i * 7 + $_) * 13.37
	  for 1 .. 4;
}
close $ff;

$node->safe_psql('postgres', qq{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f');
	SELECT wide.create_family('t', 'g', max_versions => 2);
	-- many small cells: segments with several index blocks
	INSERT INTO t SELECT 'row#' || lpad(i::text, 6, '0'), 'f', 'q' || (i % 3), i, md5(i::text)
	  FROM generate_series(1, 30000) i;
	SELECT FROM wide.compact('t', true);
	-- a bulk load (a run in the write area), then deletes and a flush
	COPY t FROM '$csv' (FORMAT csv);
	INSERT INTO t SELECT 'row#' || lpad(i::text, 6, '0'), 'g', 'x', i, 'v2-' || i
	  FROM generate_series(1, 30000, 7) i;
	DELETE FROM t WHERE row_key LIKE 'row#0001%';
	SELECT wide.delete_cells('t', 'row#000200', 'f', 'q2');
	-- large values, each in a blob: a segment header of several pages
	INSERT INTO t SELECT 'big#' || lpad(i::text, 5, '0'), 'g', 'v', i, repeat(md5(i::text), 66)
	  FROM generate_series(1, 1100) i;
	SELECT FROM wide.compact('t');
	-- the write area: records in line, values in blobs, bodies in blobs
	-- (statements appended to it, not written as runs)
	SET wide.statement_run_size = '1GB';
	INSERT INTO t SELECT 'wa#' || lpad(i::text, 5, '0'), 'f', 'q', i, md5(i::text)
	  FROM generate_series(1, 3000) i;
	INSERT INTO t SELECT 'wab#' || i, 'f', 'q', i, repeat(md5(i::text), 70)
	  FROM generate_series(1, 6) i;
	INSERT INTO t SELECT 'wbb#' || i, 'f', repeat('Q', 2500) || i, i, 'x'
	  FROM generate_series(1, 3) i;
	SELECT wide.delete_row('t', 'row#000300');

	CREATE TABLE g (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('g', 'total', aggregate => 'sum');
	SELECT wide.create_family('g', 'top', aggregate => 'max');
	INSERT INTO g SELECT 'c#' || (i % 200), f, 'n', i % 4, i
	  FROM generate_series(1, 6000) i, unnest(ARRAY['total', 'top']) f;
	SELECT FROM wide.compact('g', true);
	INSERT INTO g SELECT 'c#' || (i % 200), 'total', 'n', i % 4, i FROM generate_series(1, 600) i;

	CREATE TABLE h (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
	SELECT wide.create_family('h', 'uniq', aggregate => 'hll');
	SELECT count(*) FROM (SELECT wide.add_to_cell('h', 'store#' || (v % 40), 'uniq', 'visitors',
	  v % 2, 'visitor-' || v) FROM generate_series(1, 40000) v) s;
	SELECT count(*) FROM (SELECT wide.add_to_cell('h', 'store#dense', 'uniq', 'visitors',
	  0, 'visitor-' || v) FROM generate_series(1, 20000) v) s;
	SELECT FROM wide.compact('h', true);
	SELECT count(*) FROM (SELECT wide.add_to_cell('h', 'store#' || (v % 40), 'uniq', 'visitors',
	  v % 2, 'visitor-' || v) FROM generate_series(1, 400) v) s;
	-- a dense sketch merged into the write area: its value is a blob
	SELECT wide.merge_to_cell('h', 'store#merged', 'uniq', 'visitors', 0, value)
	  FROM h WHERE row_key = 'store#dense';

	CREATE TABLE fl (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
	SELECT wide.create_family('fl', 'm');
	BEGIN;
	COPY fl FROM '$fcsv' (FORMAT csv);
	CREATE TABLE fl_xid AS SELECT pg_current_xact_id()::text::bigint AS xid;
	COMMIT;

	-- each statement of a case runs through this, so that one psql call
	-- reports them all
	CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS \$\$
	BEGIN
		EXECUTE q;
		RETURN 'ok';
	EXCEPTION WHEN OTHERS THEN
		RETURN SQLSTATE || ' ' || SQLERRM;
	END \$\$;
	CHECKPOINT;
});

# the COPY's transaction: the one xmin of table fl's data blocks
my $fl_xid = $node->safe_psql('postgres', 'SELECT xid FROM fl_xid');

my %reads = (
	t => [
		'SELECT count(*) FROM t',
		q{SELECT count(*), sum(length(value)) FROM t WHERE row_key >= 'row#012000' AND row_key < 'row#019000'},
		q{SELECT count(*) FROM t WHERE row_key = 'big#00500'},
		q{SELECT count(*) FROM wide.read_rows(NULL::t, start_key => 'bulk#', end_key => 'wbb#z',
			filter => '{"chain": [{"family_name_regex_filter": "f|g"}, {"cells_per_column_limit_filter": 1}]}')},
		q{SELECT count(*) FROM (SELECT * FROM wide.read_rows(NULL::t, reversed => true, "limit" => 2000)) s},
		q{SELECT count(*) FROM (SELECT * FROM t ORDER BY row_key DESC LIMIT 5000) s},
		q{SELECT FROM wide.compact('t', true)},
	],
	g => [
		'SELECT count(*), sum(value) FROM g',
		q{SELECT sum(value) FROM g WHERE row_key = 'c#17'},
		q{SELECT count(*) FROM wide.read_rows(NULL::g, reversed => true)},
		q{SELECT FROM wide.compact('g', true)},
	],
	h => [
		'SELECT sum(wide.hll_count(value)) FROM h',
		q{SELECT wide.hll_count(wide.hll_union_agg(value)) FROM h WHERE row_key >= 'store#1' AND row_key < 'store#2'},
		q{SELECT count(*) FROM wide.read_rows(NULL::h, reversed => true)},
		q{SELECT FROM wide.compact('h', true)},
	],
	fl => [
		'SELECT count(*), sum(value) FROM fl',
		q{SELECT count(*), max(value) FROM fl WHERE row_key >= 'host_001000' AND row_key < 'host_001500'},
		q{SELECT count(*) FROM wide.read_rows(NULL::fl, reversed => true, "limit" => 500)},
		q{SELECT FROM wide.compact('fl', true)},
	],
);

# every statement of the table's case, then VACUUM, then verify ($verify_first:
# verify before them too, its report returned instead: the reads compact)
my $verify_first;

sub run_reads
{
	my ($tbl) = @_;
	my @res;
	my $first;
	if ($verify_first)
	{
		my ($ret, $out, $err) = $node->psql('postgres',
			"SELECT count(*) || ' ' || coalesce(string_agg(object || ': ' || problem, '; '), '') FROM wide.verify('$tbl')");
		return (undef, "verify failed ($ret): $err") if $ret != 0;
		$first = $out;
	}
	my $sql = join(",\n", map { my $q = $_; $q =~ s/'/''/g; "try('$q')" } @{ $reads{$tbl} });
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT $sql", extra_params => [ '-A', '-t', '-F', "\t" ]);
	return (undef, "psql failed ($ret): $err") if $ret != 0;
	@res = split /\t/, $out;
	($ret, $out, $err) = $node->psql('postgres', "VACUUM $tbl", extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	if ($ret == 0) { push @res, 'ok' }
	elsif ($err =~ /ERROR:\s+(\w{5}):\s*(.*)/) { push @res, "$1 $2" }
	else { return (undef, "VACUUM failed ($ret): $err") }
	($ret, $out, $err) = $node->psql('postgres',
		"SELECT count(*) || ' ' || coalesce(string_agg(object || ': ' || problem, '; '), '') FROM wide.verify('$tbl')");
	return (undef, "verify failed ($ret): $err") if $ret != 0;
	return (\@res, $first // $out);
}

# ----------------------------------------------------------------
# Relation files and pages
# ----------------------------------------------------------------
my %file;
for my $tbl (qw(t g h fl))
{
	$file{$tbl} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$tbl')");
}
# the pristine images (before the checks below compact the tables)
$node->stop;
for my $tbl (qw(t g h fl))
{
	copy($file{$tbl}, "$file{$tbl}.orig") or die "copy: $!";
	die "table $tbl has more than one segment file" if -e "$file{$tbl}.1";
}
$node->start;
for my $tbl (qw(t g h fl))
{
	my ($res, $verify) = run_reads($tbl);
	ok($res && !grep({ $_ ne 'ok' } @$res), "table $tbl reads cleanly before damage")
	  or diag(explain($res), $verify);
	like($verify, qr/^0 /, "table $tbl verifies before damage");
}
$node->stop;
copy("$file{$_}.orig", $file{$_}) or die "copy back: $!" for qw(t g h fl);
# after a crash, the whole data directory is restored: recovery would
# replay what the case wrote onto the restored pages
my $pristine = $node->basedir . '/pristine';
system('cp', '-a', $node->data_dir, $pristine) == 0 or die "cp: $!";

my %image;
$image{$_} = read_file_raw("$file{$_}.orig") for qw(t g h fl);

sub page { my ($tbl, $blk) = @_; return substr($image{$tbl}, $blk * $BLCKSZ, $BLCKSZ); }

# the pristine files decoded by the engine's code, on a server of their own
my $dec = decoder();

# the fields of a page (wide_internal.format_page_fields): name -> [offset,
# size, value]
my %fieldcache;

sub fields
{
	my ($tbl, $blk) = @_;
	return $fieldcache{$tbl}{$blk} //= {
		map { $_->[0] => [ @$_[ 1 .. 3 ] ] } decode_rows($dec,
			'SELECT field, off, size, value FROM wide_internal.format_page_fields('
			  . file_sql("$file{$tbl}.orig", $blk * $BLCKSZ, $BLCKSZ) . ')')
	};
}

sub field_off { my ($tbl, $blk, $name) = @_; return fields($tbl, $blk)->{$name}[0]; }
sub field_value { my ($tbl, $blk, $name) = @_; return fields($tbl, $blk)->{$name}[2]; }

# the special space's next link, owner and page type
my %opq = map { $_ => field_off('t', 0, $_) } qw(next owner type);

my (%pages, %count, %type_of);
for my $tbl (qw(t g h fl))
{
	for my $r (decode_rows($dec, 'SELECT blkno, type FROM wide_internal.format_pages('
		. file_sql("$file{$tbl}.orig") . ') ORDER BY blkno'))
	{
		my ($blk, $type) = @$r;
		push @{ $pages{$tbl}{$type} }, $blk;
		$type_of{$tbl}{$blk} = $type;
		$count{$type}++;
	}
}
diag('pages: ' . join(', ', map { "$_ $count{$_}" } sort keys %count));
for my $type (qw(meta write blob segment segheader))
{
	ok($count{$type}, "the tables have $type pages");
}
ok(grep({ $_->{multi} && $_->{live} } segments('t')),
	'a segment has a header of several pages');

# ----------------------------------------------------------------
# Segments: header chains, streams and stored blocks (for the cases
# inside blocks)
# ----------------------------------------------------------------
my %segcache;

sub segments
{
	my ($tbl) = @_;
	return @{ $segcache{$tbl} } if $segcache{$tbl};
	my @segs;
	# the live segments (the metapage's runs and write-area runs), each
	# from the root of its header chain: id, header pages, stream pages,
	# where a page's contents start and how many bytes of stream it holds
	for my $r (decode_rows($dec, 'WITH i AS MATERIALIZED (SELECT '
		. file_sql("$file{$tbl}.orig") . ' AS b)
		SELECT r.root, s.segid, cardinality(s.header_pages), s.stream_pages,
		       s.page_data_off, s.page_capacity
		  FROM i, wide_internal.format_segments(i.b) r, wide_internal.format_segment(i.b, r.root) s
		 WHERE r.live ORDER BY r.root'))
	{
		my ($root, $segid, $nhdr, $pages, $off, $cap) = @$r;
		push @segs, { tbl => $tbl, root => $root, segid => $segid, multi => $nhdr > 1, live => 1,
			blocks => [ $pages =~ /(\d+)/g ], data_off => $off, cap => $cap };
	}
	$segcache{$tbl} = \@segs;
	return @segs;
}

# stored blocks of a segment: [kind, offset, length, stored bytes, frame
# type, body (decompressed; a packed block stays packed)]
sub stored_blocks
{
	my ($s, $tbl) = @_;
	return @{ $s->{stored} } if $s->{stored};
	my @b = map { [ @$_[ 0 .. 2 ], unhex($_->[3]), $_->[4], unhex($_->[5]) ] } decode_rows($dec,
		'WITH i AS MATERIALIZED (SELECT ' . file_sql("$file{$s->{tbl}}.orig") . " AS b)
		SELECT k.kind, k.off, k.len, k.stored, f.type, f.body
		  FROM i, wide_internal.format_stored_blocks(i.b, $s->{root}) WITH ORDINALITY k,
		       wide_internal.format_frame(k.stored) f
		 ORDER BY k.ordinality");
	$s->{stored} = \@b;
	return @b;
}

# ----------------------------------------------------------------
# Mutations: each returns a list of [block, offset, bytes] and a label
# ----------------------------------------------------------------
my @interesting = (0, 1, 2, 3, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000,
	0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff);

sub pick { return $_[ int(rand(@_)) ]; }

sub u32_value
{
	my ($tbl, $orig) = @_;
	my $nblocks = length($image{$tbl}) / $BLCKSZ;
	my $r = rand();
	return pick(@interesting) if $r < 0.4;
	return ($orig + pick(-2, -1, 1, 2)) & 0xffffffff if $r < 0.6;
	return pick($nblocks - 1, $nblocks, $nblocks + 1, int(rand($nblocks))) if $r < 0.85;
	return int(rand(2**32));
}

sub field
{
	my ($tbl, $blk, $off, $size, $label) = @_;
	my $p = page($tbl, $blk);
	my $orig = $size == 4 ? u32($p, $off) : $size == 2 ? unpack('v', substr($p, $off, 2))
	  : $size == 8 ? u64($p, $off) : ord(substr($p, $off, 1));
	my $v = u32_value($tbl, $orig);
	$v = $v & ((1 << (8 * $size)) - 1) if $size < 4;
	my $bytes = $size == 4 ? pack('V', $v) : $size == 2 ? pack('v', $v)
	  : $size == 8 ? pack('Q<', $v * (rand() < 0.3 ? 2**32 : 1)) : chr($v);
	return ([ [ $blk, $off, $bytes ] ], sprintf('%s %#x -> %#x', $label, $orig, $v));
}

sub random_bytes
{
	my ($tbl, $blk, $from, $to) = @_;
	my $n = 1 + int(rand(8));
	my $off = $from + int(rand($to - $from - $n));
	my $bytes = join('', map { chr(int(rand(256))) } 1 .. $n);
	return ([ [ $blk, $off, $bytes ] ], "$n random bytes at $off");
}

# the opaque special space: next, link, owner, flags, type
sub opaque_field
{
	my ($tbl, $blk) = @_;
	my $r = rand();
	if ($r < 0.15)
	{
		# another page type
		my $t = pick(0x5701 .. 0x5705, 0, 0xffff);
		return ([ [ $blk, $opq{type}, pack('v', $t) ] ], sprintf('page type -> %#x', $t));
	}
	if ($r < 0.4)
	{
		# a link to a page of the same type (a cycle, or a skip)
		my $type = $type_of{$tbl}{$blk};
		my $to = rand() < 0.5 ? $blk : pick(@{ $pages{$tbl}{$type} });
		return ([ [ $blk, $opq{next}, pack('V', $to) ] ], "next -> $to (a $type page)");
	}
	return field($tbl, $blk, pick($opq{next}, $opq{owner}), 4, 'opaque next/owner');
}

sub mutate_write
{
	my ($tbl, $blk) = @_;
	my $items = records($tbl, $blk);
	my $nitems = @$items;
	my $r = rand();
	return opaque_field($tbl, $blk) if $r < 0.15 || $nitems < 1;
	my $item = int(rand($nitems));
	my $it = $items->[$item];
	my $lp = $it->{f}{lp}[2];
	my ($off, $len) = ($it->{lp_off}, $it->{lp_len});
	if ($r < 0.3)
	{
		# the line pointer (PostgreSQL's: lp_off:15 lp_flags:2 lp_len:15)
		my $v = pick(($lp & ~0x7fff) | int(rand(0x8000)),
			($lp & 0x1ffff) | (int(rand(0x8000)) << 17), $lp ^ (1 << (15 + int(rand(2)))),
			int(rand(2**32)));
		return ([ [ $blk, $it->{f}{lp}[0], pack('V', $v) ] ],
			sprintf('item %d pointer %#x -> %#x', $item + 1, $lp, $v));
	}
	return random_bytes($tbl, $blk, $off, $off + $len) if $r < 0.45 && $len > 10;
	# a header field of the record, and its blob reference (three times as
	# likely) if it has one
	my $f = $it->{f};
	my @f = map { [ @{ $f->{$_} }[ 0, 1 ], $_ ] } qw(kind flags famlen keylen quallen vallen);
	if ($f->{'blob first'})
	{
		push @f, map { [ @{ $f->{$_} }[ 0, 1 ], $_ ] } ('blob first', 'blob length')
		  for 1 .. 3;
	}
	my $fd = pick(@f);
	return field($tbl, $blk, $fd->[0], $fd->[1], "item " . ($item + 1) . " $fd->[2]");
}

# the line pointers and records of a write-area page
# (wide_internal.format_records), by item (0 for the first): the line
# pointer's parts and the fields, name -> [offset in the page, size,
# value]; the record's only if it starts in the page's contents.  The
# pages of the current write-area generation are decoded in one query, the
# others when asked for.
my %reccache;

sub records
{
	my ($tbl, $blk) = @_;
	my $load = sub {
		my ($sql) = @_;
		for my $r (decode_rows($dec, $sql))
		{
			my ($b, $item, $lpo, $lpl, $lpf, $name, $off, $size, $value) = @$r;
			my $it = $reccache{$tbl}{$b}[ $item - 1 ] //=
			  { lp_off => $lpo, lp_len => $lpl, lp_flags => $lpf, f => {} };
			$it->{f}{$name} = [ $off, $size, $value ];
		}
	};
	my $cols = 'r.item, r.lp_off, r.lp_len, r.lp_flags, r.field, r.off, r.size, r.value';
	if (!$reccache{$tbl})
	{
		$reccache{$tbl} = {};
		$load->('WITH i AS MATERIALIZED (SELECT ' . file_sql("$file{$tbl}.orig") . " AS b)
			SELECT p.blkno, $cols
			  FROM i, wide_internal.format_pages(i.b) p,
			       wide_internal.format_records(substring(i.b from p.blkno::int * $BLCKSZ + 1 for $BLCKSZ)) r
			 WHERE p.type = 'write' AND p.owner = " . field_value($tbl, 0, 'generation'));
	}
	if (!$reccache{$tbl}{$blk})
	{
		$reccache{$tbl}{$blk} = [];
		$load->("SELECT $blk, $cols FROM wide_internal.format_records("
			  . file_sql("$file{$tbl}.orig", $blk * $BLCKSZ, $BLCKSZ) . ') r');
	}
	return $reccache{$tbl}{$blk};
}

# write-area pages holding records whose value or body is in a blob:
# [item, its record's fields]
sub blob_items
{
	my ($tbl, $blk) = @_;
	my $items = records($tbl, $blk);
	return map { [ $_, $items->[$_]{f} ] } grep { $items->[$_]{f}{'blob first'} } 0 .. $#$items;
}

# the first record of the current write area whose kind passes the test:
# (block, its fields)
sub live_record
{
	my ($tbl, $test) = @_;
	my $gen = field_value($tbl, 0, 'generation');
	for my $blk (@{ $pages{$tbl}{write} || [] })
	{
		next unless u32(page($tbl, $blk), $opq{owner}) == $gen;
		for my $it (@{ records($tbl, $blk) })
		{
			return ($blk, $it->{f}) if $it->{f}{kind} && $test->($it->{f}{kind}[2]);
		}
	}
	die "no such record in table $tbl";
}

sub mutate_wablob
{
	my ($tbl, $blk) = @_;
	my ($item, $f) = @{ pick(blob_items($tbl, $blk)) };
	my $fd = pick(map { [ @{ $f->{$_} }[ 0, 1 ], $_ ] }
		  ('vallen', 'blob first', 'blob length', 'flags', 'keylen', 'quallen'));
	return field($tbl, $blk, $fd->[0], $fd->[1], 'item ' . ($item + 1) . " $fd->[2]");
}

sub mutate_blob
{
	my ($tbl, $blk) = @_;
	my $r = rand();
	return opaque_field($tbl, $blk) if $r < 0.3;
	return field($tbl, $blk, 12, 2, 'pd_lower') if $r < 0.6;
	return random_bytes($tbl, $blk, $HDR, $opq{next});
}

sub mutate_segheader
{
	my ($tbl, $blk) = @_;
	my $f = fields($tbl, $blk);
	my $r = rand();
	return opaque_field($tbl, $blk) if $r < 0.15;
	if ($r < 0.75)
	{
		my $fd = pick(map { [ $f->{$_}[0], $f->{$_}[1], $_ ] } qw(magic segid nentries_here
			  nextents nblobs nheaders typlen root_len stream_len root_off ncells max_seq));
		return field($tbl, $blk, $fd->[0], $fd->[1], $fd->[2]);
	}
	my $n = $f->{nentries_here}[2];
	$n = 1 if $n < 1 || $n > 1000;
	my $e = int(rand($n));
	return field($tbl, $blk, $f->{ "entry $e " . pick('start', 'npages') }[0], 4, "entry $e");
}

# inside a stored block, with its CRC fixed
sub mutate_stored
{
	my ($tbl) = @_;
	my @segs = grep { $_->{live} } segments($tbl);
	return () unless @segs;
	my $s = pick(@segs);
	my @blocks = stored_blocks($s);
	my $b = pick(@blocks);
	my ($kind, $off, $len, $stored, $type, $raw) = @$b;
	my $r = rand();
	my ($new, $label);
	my $mangle = sub {
		my ($bytes) = @_;
		my $n = 1 + int(rand(3));
		for (1 .. $n)
		{
			my $at = int(rand(length($bytes)));
			my $v = rand() < 0.5 ? pick(0, 0x7f, 0x80, 0xff, 1, 2) : int(rand(256));
			substr($bytes, $at, 1) = chr($v);
		}
		return $bytes;
	};
	my $payload = substr($stored, 0, $len - 5);
	if ($type == 3 && $r < 0.5)
	{
		# a block of Huffman coded values (format 6): the values' section
		# follows the zstd frame as it is, and ends the decoded body too
		# (their common suffix); its table (shift, first, nsym, lengths)
		# or its bits
		my $tail = 0;
		$tail++ while $tail < length($raw) && $tail < length($payload)
		  && substr($raw, -1 - $tail, 1) eq substr($payload, -1 - $tail, 1);
		return () if $tail < 4;
		my $at = length($payload) - $tail;
		my $what = rand() < 0.5 ? int(rand(4)) : 4 + int(rand($tail - 4));
		my $v = rand() < 0.5 ? pick(0, 1, 0x0f, 0x10, 0x3f, 0x40, 0x41, 0xff) : int(rand(256));
		substr($payload, $at + $what, 1) = chr($v);
		$new = frame($dec, $payload, $type);
		$label = sprintf('values\' byte %d of %d after the frame -> %#x', $what, $tail, $v);
	}
	elsif ($r < 0.3 || $type == 0)
	{
		# the payload as stored (a zstd frame, or raw bytes)
		$new = frame($dec, $mangle->($payload), $type);
		$label = "stored bytes";
	}
	elsif ($r < 0.4)
	{
		my $t = pick(grep { $_ != $type } 0 .. 3);
		$new = frame($dec, $payload, $t);
		$label = "block type $type -> $t";
	}
	else
	{
		# the decompressed block, recompressed into the same length; a
		# packed one (types 2 and 3) stays packed (type 2: one frame), so
		# that its decoders (exponents, delta and Huffman values, digit-step
		# keys) meet the damage
		my $t = $type >= 2 ? 2 : 1;
		my $z = zstd_frame($dec, $mangle->($raw), 19);
		return () unless length($z) + 8 <= $len - 5;
		my $pad = $len - 5 - length($z) - 8;
		$new = frame($dec, $z . pack('VV', 0x184D2A50, $pad) . ("\0" x $pad), $t);
		$label = "decoded bytes (type $type as $t)";
	}
	return ([ stream_writes($s, $off, $new) ], "segment $s->{segid} $kind block at $off+$len: $label");
}

# writes that put bytes at an offset of a segment's stream
sub stream_writes
{
	my ($s, $off, $new) = @_;
	my $len = length($new);
	my @w;
	for (my $i = 0; $i < $len;)
	{
		my $so = $off + $i;
		my $pg = int($so / $s->{cap});
		my $in = $so % $s->{cap};
		my $n = $s->{cap} - $in;
		$n = $len - $i if $n > $len - $i;
		push @w, [ $s->{blocks}[$pg], $s->{data_off} + $in, substr($new, $i, $n) ];
		$i += $n;
	}
	return @w;
}

sub mutate_meta
{
	my ($tbl) = @_;
	# counts, lane heads, runs' roots, free queue entries (the metapage's
	# fields as format_page_fields gives them)
	my $m = fields($tbl, 0);
	my $nruns = $m->{nruns}[2] || 1;
	my $nfree = $m->{nfree}[2] || 1;
	my $run = 'run ' . int(rand($nruns));
	my $free = 'free ' . int(rand($nfree));
	my %f = (nlanes => 'nlanes', 'lane head' => 'lane ' . int(rand(4)) . ' head',
		generation => 'generation', nwaruns => 'nwaruns', nruns => 'nruns', nfree => 'nfree',
		'run segid' => "$run segid", 'run root' => "$run root",
		'run seq_base' => "$run seq_base", 'run ncells' => "$run ncells",
		'free kind' => "$free kind", 'free start' => "$free start",
		'free npages' => "$free npages", 'run flags' => "$run flags",
		'run families' => "$run families", 'run min_xmin' => "$run min_xmin");
	my $fd = pick(sort keys %f);
	return field($tbl, 0, @{ $m->{ $f{$fd} } }[ 0, 1 ], "metapage $fd");
}

sub mutate_segment_page
{
	my ($tbl, $blk) = @_;
	return rand() < 0.5 ? random_bytes($tbl, $blk, $HDR, $opq{next}) : opaque_field($tbl, $blk);
}

# (only pages of the current write area: freed ones may linger unread)
for my $tbl (qw(t g h fl))
{
	my $gen = field_value($tbl, 0, 'generation');
	$pages{$tbl}{wablob} = [ grep { u32(page($tbl, $_), $opq{owner}) == $gen && blob_items($tbl, $_) }
		  @{ $pages{$tbl}{write} || [] } ];
}
ok(scalar(@{ $pages{t}{wablob} }), 'the write area has records with values in blobs');

my %mutators = (write => \&mutate_write, blob => \&mutate_blob, wablob => \&mutate_wablob,
	segheader => \&mutate_segheader, segment => \&mutate_segment_page,
	meta => \&mutate_meta);

# ----------------------------------------------------------------
# The cases
# ----------------------------------------------------------------
my @kinds = (qw(write wablob blob segheader segheader segment stored stored stored));
push @kinds, 'meta' if $with_meta;
@kinds = split(/,/, $ENV{WIDE_FUZZ_KINDS}) if $ENV{WIDE_FUZZ_KINDS};
my (%ran, %bad, @failures);

sub apply
{
	my ($tbl, $writes) = @_;
	open my $fh, '+<:raw', $file{$tbl} or die "open: $!";
	for my $w (@$writes)
	{
		my ($blk, $off, $bytes) = @$w;
		seek($fh, $blk * $BLCKSZ + $off, 0);
		print $fh $bytes;
	}
	close $fh;
}

# run one case: damage, start, read, check, stop, restore.  Returns the
# statements' results and verify's report (for the targeted cases).
sub run_case
{
	my ($tbl, $kind, $writes, $desc) = @_;
	note($desc);
	apply($tbl, $writes);
	$node->start;
	my ($res, $verify) = run_reads($tbl);
	my $log = slurp_file($node->logfile);
	my $crashed = $log =~ /terminated by signal|server process .* was terminated/
	  || $node->psql('postgres', 'SELECT 1') != 0;
	my @unclean = $res ? grep { !/^(ok|XX001 )/ } @$res : ($verify);
	my $failed_reads = $res ? grep({ /^XX001 / } @$res) : 0;
	$ran{$kind}++;
	if ($crashed || @unclean || ($failed_reads && $verify =~ /^0 /))
	{
		$bad{$kind}++;
		my $why = $crashed ? 'CRASH ' . ($res ? '' : $verify)
		  : @unclean ? 'unclean error: ' . join(' | ', @unclean)
		  : 'reads failed but verify is silent: ' . join(' | ', @$res);
		push @failures, "$desc\n    $why";
		diag("FAIL $desc\n    $why");
	}
	elsif ($ENV{WIDE_FUZZ_VERBOSE})
	{
		diag("$desc\n    " . join(' | ', @$res) . "\n    verify: " . substr($verify, 0, 300));
	}
	# a clean shutdown too: a checkpoint that cannot write a buffer the case
	# dirtied fails
	if (!$node->stop('fast', fail_ok => 1)
		|| slurp_file($node->logfile) =~ /abnormal database system shutdown|PANIC:/)
	{
		if (!$crashed)
		{
			$bad{$kind}++;
			push @failures, "$desc\n    the server did not shut down cleanly";
			diag("FAIL $desc\n    the server did not shut down cleanly");
		}
		$crashed = 1;
	}
	if ($crashed)
	{
		$node->stop('immediate', fail_ok => 1);
		rmtree($node->data_dir);
		system('cp', '-a', $pristine, $node->data_dir) == 0 or die "cp: $!";
	}
	else
	{
		copy("$file{$tbl}.orig", $file{$tbl}) or die "copy back: $!";
	}
	# the server logs of all cases, for a post-mortem
	open my $all, '>>', $node->basedir . '/cases.log' or die;
	print $all "==== $desc\n", slurp_file($node->logfile);
	close $all;
	truncate($node->logfile, 0);
	return ($crashed ? undef : $res, $verify);
}

# ----------------------------------------------------------------
# Targeted cases: each crashed, hung or failed uncleanly before the
# checks it tests were added
# ----------------------------------------------------------------
sub targeted
{
	my ($name, $tbl, $writes, $expect) = @_;
	my $nfail = @failures;
	my ($res, $verify) = run_case($tbl, 'targeted', $writes, "targeted: $name");
	ok($res && @failures == $nfail && grep({ /^XX001 .*$expect/ } @$res),
		"$name: a clean error ($expect), verify reports it")
	  or diag(join(' | ', @{ $res || [] }), "\n", substr($verify, 0, 300));
}

{
	# a value in a blob whose record claims a longer value (issue 9)
	# (flag 0x04: WIDE_REC_VALUE_BLOB)
	my ($blk, $item, $f);
	for my $b (@{ $pages{t}{wablob} })
	{
		my @vb = grep { $_->[1]{flags}[2] & 0x04 } blob_items('t', $b);
		($blk, $item, $f) = ($b, @{ $vb[0] }) and last if @vb;
	}
	targeted('value-in-blob record longer than its blob', 't',
		[ [ $blk, $f->{vallen}[0], pack('V', 0x7fffffff) ] ], 'malformed record');
	# ... and both lengths huge: nothing is allocated for them
	targeted('value-in-blob record of 2 GB', 't',
		[ [ $blk, $f->{vallen}[0], pack('V', 0x7fffffff) ],
		  [ $blk, $f->{'blob length'}[0], pack('V', 0x7fffffff) ] ],
		'broken value');
	# a lane whose page links to itself
	targeted('write-area lane that loops', 't', [ [ $blk, $opq{next}, pack('V', $blk) ] ], 'loops');
	# a line pointer far outside the page
	targeted('record outside its page', 't',
		[ [ $blk, records('t', $blk)->[$item]{f}{lp}[0], pack('V', (0x7ff8) | (1 << 15) | (200 << 17)) ] ],
		'malformed record');
}
{
	# a free queue entry past the end of the table: an allocation zeroed
	# buffers there (far past it, the checkpointer could not write them and
	# recovery extended the table to reach them)
	my $nblocks = length($image{t}) / $BLCKSZ;
	my $free = field_off('t', 0, 'free 0 kind');
	if (field_value('t', 0, 'nfree') > 0)
	{
		targeted('free queue extent past the end of the table', 't',
			[ [ 0, $free, pack('VVV', 1, $nblocks + 5, 3) ] ], 'invalid metapage');
	}
	else
	{
		fail('table t has a free queue');
	}
}
{
	# aggregate inputs of the wrong length (were elog's XX000)
	for my $c ([ 'g', 'malformed accumulator' ], [ 'h', 'malformed HyperLogLog input' ])
	{
		my ($tbl, $expect) = @$c;
		my ($blk, $f) = live_record($tbl, sub { $_[0] == 5 });
		targeted("aggregate input of 5 bytes in table $tbl", $tbl,
			[ [ $blk, $f->{vallen}[0], pack('V', 5) ] ], $expect);
	}
	# a dense sketch in a write-area blob that is not a sketch any more
	# (verify did not read aggregate values held in blobs)
	my ($item) = map { blob_items('h', $_) } @{ $pages{h}{wablob} };
	ok($item, 'table h has a sketch in a write-area blob');
	my ($sblk) = grep { scalar(blob_items('h', $_)) } @{ $pages{h}{wablob} };
	my $first = $item->[1]{'blob first'}[2];
	targeted('write-area sketch in a blob without its header', 'h',
		[ [ $first, $HDR, 'X' ] ], 'malformed HyperLogLog');
	# a plain cell turned into an aggregate input (was elog's XX000)
	my ($blk, $f) = live_record('t', sub { $_[0] == 4 });
	targeted('plain cell that claims to be an aggregate input', 't',
		[ [ $blk, $f->{kind}[0], chr(5) ] ], 'malformed accumulator');
}
{
	# a segment header chain that loops, and counts no page can hold
	my ($s) = grep { $_->{multi} && $_->{live} } segments('t');
	targeted('segment header chain that loops', 't', [ [ $s->{root}, $opq{next}, pack('V', $s->{root}) ] ],
		'header chain');
	targeted('segment header with 2^31 extents', 't',
		[ [ $s->{root}, field_off('t', $s->{root}, 'nextents'), pack('V', 0x7fffffff) ] ],
		'bad header page');
}
{
	# every index block of a segment replaced by an empty one (a frame of
	# one raw zstd block, padded to the stored length with a skippable frame)
	my ($s) = grep { $_->{multi} && $_->{live} } segments('t');
	my @w;
	for my $b (grep { $_->[0] eq 'index' } stored_blocks($s))
	{
		my $z = "\x28\xb5\x2f\xfd\x20\x03\x19\x00\x00\x00\x00\x00";
		my $pad = $b->[2] - 5 - length($z) - 8;
		push @w, stream_writes($s, $b->[1], frame($dec, $z . pack('VV', 0x184D2A50, $pad) . ("\0" x $pad), 1));
	}
	targeted('index blocks without entries', 't', \@w, 'damaged');
	# a data block whose frame declares 1 GB
	my ($d) = grep { $_->[0] eq 'data' } stored_blocks($s);
	my $z = "\x28\xb5\x2f\xfd\xa0" . pack('V', 0x3fff0000) . "\x19\x00\x00\x00\x00\x00";
	my $pad = $d->[2] - 5 - length($z) - 8;
	targeted('data block declaring 1 GB', 't',
		[ stream_writes($s, $d->[1], frame($dec, $z . pack('VV', 0x184D2A50, $pad) . ("\0" x $pad), 1)) ],
		'bad compressed frame');
}

{
	# format 6, one xmin per data block: an index entry of table fl whose
	# flags (0x08: one xmin; 0x02: its last column follows, family m,
	# qualifier v; 0x10, format 7: a row directory's length follows the
	# xid) are followed by the COPY's xid, a varint
	my $varint = sub {
		my ($v) = @_;
		my $o = '';
		while ($v >= 0x80) { $o .= chr(($v & 0x7f) | 0x80); $v >>= 7; }
		return $o . chr($v);
	};
	my $xv = $varint->($fl_xid);
	my ($s) = grep { $_->{live} } segments('fl');
	my ($ib) = grep { $_->[0] eq 'index' && $_->[5] =~ /[\x08-\x0f\x18-\x1f]\x01m\x01v\Q$xv\E/ } stored_blocks($s);
	ok($ib, 'table fl has data blocks of one xmin (index entry flag 0x08)');
	my @types = map { $_->[4] } grep { $_->[0] eq 'data' } stored_blocks($s);
	ok(scalar(grep { $_ == 3 } @types), 'table fl has data blocks of type 3 (Huffman coded values)')
	  or diag("frame types: @types");
	# an index block changed, recompressed into its stored length
	my $restore = sub {
		my ($raw) = @_;
		my $z = zstd_frame($dec, $raw, 19);
		my $pad = $ib->[2] - 5 - length($z) - 8;
		die "index block does not fit" if $pad < 0;
		return [ stream_writes($s, $ib->[1], frame($dec, $z . pack('VV', 0x184D2A50, $pad) . ("\0" x $pad), 1)) ];
	};
	if ($ib)
	{
		my $raw = $ib->[5];
		$raw =~ /([\x08-\x0f\x18-\x1f])\x01m\x01v\Q$xv\E/;
		my ($fpos, $xpos) = ($-[1], $-[1] + 5);
		# the one xmin from the future (the largest varint of its length)
		my $future = $raw;
		substr($future, $xpos, length($xv)) = $varint->((1 << (7 * length($xv))) - 1);
		targeted('one-xmin data block whose xmin is in the future', 'fl', $restore->($future),
			'damaged|bad data block|malformed');
		# the flag cleared: the xmin and cmin read as the next entry
		my $noflag = $raw;
		substr($noflag, $fpos, 1) = chr(ord(substr($raw, $fpos, 1)) & ~0x08);
		targeted('one-xmin flag cleared', 'fl', $restore->($noflag), 'damaged|malformed|bad');
	}

	# a run's descriptor in the metapage, which readers trust: verify
	# compares its claims with the run's records (reads may succeed)
	my $verify_reports = sub {
		my ($name, $tbl, $writes, $expect) = @_;
		my $nfail = @failures;
		$verify_first = 1;
		my ($res, $verify) = run_case($tbl, 'targeted', $writes, "targeted: $name");
		$verify_first = 0;
		ok($res && @failures == $nfail && $verify =~ /$expect/, "$name: verify reports it")
		  or diag(join(' | ', @{ $res || [] }), "\n", substr($verify, 0, 400));
	};
	my $fm = fields('fl', 0);
	my $flags = $fm->{'warun 0 flags'};
	$verify_reports->('run family set without its family', 'fl',
		[ [ 0, $fm->{'warun 0 families'}[0], pack('V', 0x80000000) ] ],
		'family set');
	# an empty family set (a run holds a record, so a family): only runs[]
	# were checked, a write-area run's passed into a compaction's output,
	# whose publication failed with XX000
	targeted('write-area run of no family', 'fl',
		[ [ 0, $fm->{'warun 0 families'}[0], pack('V', 0) ] ], 'invalid metapage');
	$verify_reports->('run flagged one version', 'fl',
		[ [ 0, $flags->[0], pack('v', $flags->[2] | 0x0004) ] ], 'one version');
	$verify_reports->('run without its oldest xmin', 'fl',
		[ [ 0, $fm->{'warun 0 min_xmin'}[0], pack('V', 0) ] ], 'oldest xmin');
	$verify_reports->('run with a shorter smallest key', 'fl',
		[ [ 0, $fm->{'warun 0 lo_len'}[0], chr($fm->{'warun 0 lo_len'}[2] - 1) ] ], 'smallest row key');
	# table t: a run holding tombstones (DELETE, compacted) flagged without
	my $tm = fields('t', 0);
	my ($r) = grep { $tm->{"run $_ flags"}[2] & 0x0002 } 0 .. $tm->{nruns}[2] - 1;
	ok(defined $r, 'table t has a run with tombstones');
	$verify_reports->('run with tombstones flagged without', 't',
		[ [ 0, $tm->{"run $r flags"}[0], pack('v', $tm->{"run $r flags"}[2] & ~0x0002) ] ],
		'tombstones') if defined $r;

	# two rows out of order in a zstd data block of table t, with a valid
	# frame and CRC: a row stored as the row after row#...N (flags 0x3c, 9
	# bytes shared, 1 unshared: its last digit) gets a space for that
	# digit, so it sorts before the row before it.  verify takes records
	# that compare equal as in order (163436b: two writes may draw one
	# sequence number); one that sorts before the one before it, it must
	# still report.
	my ($ds) = grep { $_->{live} && $_->{multi} } segments('t');
	my ($db) = grep { $_->[0] eq 'data' && $_->[4] == 1 && $_->[5] =~ /\x3c\x09\x01[2-9]/ }
	  stored_blocks($ds);
	ok($db, 'table t has a zstd data block of consecutive rows');
	if ($db)
	{
		my $raw = $db->[5];
		$raw =~ /\x3c\x09\x01([2-9])/;
		substr($raw, $-[1], 1) = ' ';
		my $z = zstd_frame($dec, $raw, 19);
		my $pad = $db->[2] - 5 - length($z) - 8;
		die "data block does not fit" if $pad < 0;
		$verify_reports->('two rows out of order in a data block', 't',
			[ stream_writes($ds, $db->[1], frame($dec, $z . pack('VV', 0x184D2A50, $pad) . ("\0" x $pad), 1)) ],
			'records out of order');
	}
}

# ----------------------------------------------------------------
# Random cases
# ----------------------------------------------------------------
for my $case (1 .. $ncases)
{
	my $tbl = pick(qw(t t t g h fl fl));
	my $kind = pick(@kinds);
	my ($writes, $label);
	if ($kind eq 'stored')
	{
		($writes, $label) = mutate_stored($tbl);
		($kind, $writes) = ('segment', undef) unless $writes;
	}
	if (!$writes)
	{
		my @blks = $kind eq 'meta' ? (0) : @{ $pages{$tbl}{$kind} || [] };
		next unless @blks;
		my $blk = pick(@blks);
		($writes, $label) = $mutators{$kind}->($tbl, $blk);
		$label = "block $blk: $label";
	}
	run_case($tbl, $kind, $writes, "case $case ($kind, table $tbl): $label");
}

diag('cases by kind: ' . join(', ', map { "$_ $ran{$_}" . ($bad{$_} ? " ($bad{$_} failed)" : '') } sort keys %ran));
is(scalar(@failures), 0, 'every damaged page gives a clean error or a correct answer, and verify reports it')
  or diag(join("\n", @failures));

$node->start;
is($node->safe_psql('postgres', 'SELECT count(*) FROM g'), '400', 'the restored tables read again');
$node->stop;
done_testing();
