# WideFormat -- wide's on-disk format (docs/format.md) as the TAP tests that
# inspect or damage stored blocks read and write it: pages, segment header
# chains and streams, varints, CRC-32C, block frames and index blocks.
# One copy for every test, so that a format change is made in one place.
#
# Stored blocks are decompressed and compressed with the zstd command line
# tool (a test that needs it checks have_zstd() and skips without it); its
# files go in the directory the caller names (a node's basedir).
package WideFormat;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(
  $BLCKSZ $PAGE_HDR $PAGE_CAP %PAGE_TYPE
  read_file_raw u32 u64 page_type varint_at varint crc32c frame
  have_zstd zstd_tool unframe index_entries segment_stream segment_of);

our $BLCKSZ = 8192;
our $PAGE_HDR = 24;								# MAXALIGN(SizeOfPageHeaderData)
our $PAGE_CAP = $BLCKSZ - $PAGE_HDR - 16;		# WIDE_PAGE_CAPACITY
our %PAGE_TYPE = (0x5701 => 'meta', 0x5702 => 'write', 0x5703 => 'blob',
	0x5704 => 'segment', 0x5705 => 'segheader');

# the page's next-page link and type, in its special space
my $NEXT_AT = 8176;
my $TYPE_AT = 8190;

sub read_file_raw
{
	my ($path) = @_;
	open my $fh, '<:raw', $path or die "open $path: $!";
	local $/;
	my $d = <$fh>;
	close $fh;
	return $d;
}

sub u32 { my ($s, $o) = @_; return unpack('V', substr($s, $o, 4)); }
sub u64 { my ($s, $o) = @_; return unpack('Q<', substr($s, $o, 8)); }
sub page_type { my ($p) = @_; return unpack('v', substr($p, $TYPE_AT, 2)); }

# varint_at(bytes, \pos): the varint at pos, pos moved past it
sub varint_at
{
	my ($s, $pos) = @_;
	my ($v, $shift) = (0, 0);
	while (1)
	{
		my $b = ord(substr($s, $$pos++, 1));
		$v |= ($b & 0x7f) << $shift;
		return $v unless $b & 0x80;
		$shift += 7;
	}
}

# the bytes of a varint
sub varint
{
	my ($v, $o) = (shift, '');
	while ($v >= 0x80)
	{
		$o .= chr(($v & 0x7f) | 0x80);
		$v >>= 7;
	}
	return $o . chr($v);
}

# CRC-32C, as src/port/pg_crc32c computes it
my @crctab;
for my $i (0 .. 255)
{
	my $c = $i;
	$c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8;
	$crctab[$i] = $c;
}

sub crc32c
{
	my ($s) = @_;
	my $crc = 0xffffffff;
	$crc = $crctab[ ($crc ^ $_) & 0xff ] ^ ($crc >> 8) for unpack('C*', $s);
	return $crc ^ 0xffffffff;
}

# a stored block: payload type:u8 crc:u32 (compress.c)
sub frame
{
	my ($payload, $type) = @_;
	my $body = $payload . chr($type);
	return $body . pack('V', crc32c($body));
}

sub have_zstd { return system('zstd --version >/dev/null 2>&1') == 0; }

# zstd_tool(dir, args, input): the zstd tool's output for input, or undef
# if it fails
sub zstd_tool
{
	my ($dir, $args, $in) = @_;
	open my $fh, '>:raw', "$dir/zin" or die "$dir/zin: $!";
	print $fh $in;
	close $fh;
	unlink "$dir/zout";
	return undef if system("zstd -q $args '$dir/zin' -o '$dir/zout' 2>/dev/null") != 0;
	return read_file_raw("$dir/zout");
}

# unframe(dir, stored): (type, payload) of a stored block, decompressed (a
# packed block, type 2, stays packed); the CRC is not checked
sub unframe
{
	my ($dir, $stored) = @_;
	my $type = ord(substr($stored, -5, 1));
	my $payload = substr($stored, 0, length($stored) - 5);
	return ($type, $type == 0 ? $payload : zstd_tool($dir, '-d', $payload));
}

# the [offset, length] entries of a decoded root or index block
sub index_entries
{
	my ($raw) = @_;
	my $pos = 0;
	my $n = varint_at($raw, \$pos);
	varint_at($raw, \$pos);
	my @e;
	for (1 .. $n)
	{
		varint_at($raw, \$pos);
		my $unshared = varint_at($raw, \$pos);
		$pos += $unshared;
		my $off = varint_at($raw, \$pos);
		my $len = varint_at($raw, \$pos);
		varint_at($raw, \$pos) for 1 .. 3;
		# flags; 0x02 (format version 3): the last record's family and qualifier
		my $flags = ord(substr($raw, $pos++, 1));
		if ($flags & 0x02)
		{
			$pos += 1 + ord(substr($raw, $pos, 1));
			$pos += varint_at($raw, \$pos);
		}
		# 0x08 (format version 6): the block's one xmin and cmin
		varint_at($raw, \$pos) for 1 .. ($flags & 0x08 ? 2 : 0);
		push @e, [ $off, $len ];
	}
	return @e;
}

# segment_stream(image, root): the segment whose header chain starts at
# page root of a relation file's image: {root, segid, nextents, root_len,
# stream_len, root_off, hops (header pages), extents [start, npages],
# pages (stream page i -> block), stream (its bytes)}
sub segment_stream
{
	my ($img, $root) = @_;
	my $page = sub { return substr($img, $_[0] * $BLCKSZ, $BLCKSZ); };
	my $p = $page->($root);
	my %s = (root => $root, segid => u32($p, $PAGE_HDR + 4),
		nextents => u32($p, $PAGE_HDR + 12), root_len => u32($p, $PAGE_HDR + 28),
		stream_len => u64($p, $PAGE_HDR + 32), root_off => u64($p, $PAGE_HDR + 40));
	my @entries;
	my $blk = $root;
	my $hops = 0;
	while ($blk != 0xffffffff && $hops++ < 100)
	{
		my $hp = $page->($blk);
		my $n = u32($hp, $PAGE_HDR + 8);
		push @entries, [ u32($hp, $PAGE_HDR + 64 + 8 * $_), u32($hp, $PAGE_HDR + 68 + 8 * $_) ]
		  for 0 .. $n - 1;
		$blk = u32($hp, $NEXT_AT);
	}
	$s{hops} = $hops;
	$s{extents} = [ @entries[ 0 .. $s{nextents} - 1 ] ];
	$s{pages} = [ map { my ($st, $np) = @$_; ($st .. $st + $np - 1) } @{ $s{extents} } ];
	$s{stream} = join('', map { substr($page->($_), $PAGE_HDR, $PAGE_CAP) } @{ $s{pages} });
	return \%s;
}

# segment_of(image, segid): segment_stream of the segment with that id (the
# header page of it that no other links to), or undef
sub segment_of
{
	my ($img, $segid) = @_;
	my (@hdr, %linked);
	for my $blk (0 .. length($img) / $BLCKSZ - 1)
	{
		my $p = substr($img, $blk * $BLCKSZ, $BLCKSZ);
		next unless page_type($p) == 0x5705 && u32($p, $PAGE_HDR + 4) == $segid;
		push @hdr, $blk;
		$linked{ u32($p, $NEXT_AT) } = 1;
	}
	my ($root) = grep { !$linked{$_} } @hdr;
	return defined $root ? segment_stream($img, $root) : undef;
}

1;
