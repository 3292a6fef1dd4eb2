# WideFormat -- what the TAP tests that inspect or damage stored pages need
# besides the format itself: a server that decodes (decoder()), its rows,
# bytes to and from SQL, and file I/O.  The format is decoded by the
# engine's own C code through the wide_internal.format_* functions
# (src/api/formatdecode.c; docs/testing.md), which read a relation file
# with pg_read_binary_file: a test decodes the pristine file, stops its
# server, damages the file at the offsets the decoder gave, and restarts.
package WideFormat;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;

our @EXPORT = qw($BLCKSZ read_file_raw u32 u64 decoder decode_rows file_sql bytea_sql
  unhex frame zstd_frame);

# PostgreSQL's page size (the decoders check that an image is whole pages)
our $BLCKSZ = 8192;

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

# decoder(): a server of its own with the extension, to decode files of a
# test's server while that one is stopped (started once per test)
my $decoder;

sub decoder
{
	return $decoder if $decoder;
	$decoder = PostgreSQL::Test::Cluster->new('decoder');
	$decoder->init;
	$decoder->append_conf('postgresql.conf', "autovacuum = off\nfsync = off\n");
	$decoder->start;
	$decoder->safe_psql('postgres', 'CREATE EXTENSION wide');
	return $decoder;
}

# the SQL of a file's bytes (or of len bytes from off), read by the
# server (an absolute path)
sub file_sql
{
	my ($path, $off, $len) = @_;
	$path =~ s/'/''/g;
	return defined $off ? "pg_read_binary_file('$path', $off, $len)" : "pg_read_binary_file('$path')";
}

# the SQL of some bytes
sub bytea_sql { return "'\\x" . unpack('H*', $_[0]) . "'::bytea"; }

# the bytes of a bytea's text output (\x...)
sub unhex { my ($h) = @_; $h =~ s/^\\x//; return pack('H*', $h); }

# decode_rows(node, sql): the rows of a query, each an array of its columns
sub decode_rows
{
	my ($node, $sql) = @_;
	my $out = $node->safe_psql('postgres', $sql);
	return map { [ split /\|/, $_, -1 ] } grep { $_ ne '' } split /\n/, $out;
}

# frame(node, payload, type): a stored block: payload type:u8 and the
# CRC-32C of both (format_crc32c), little-endian
sub frame
{
	my ($node, $payload, $type) = @_;
	my $body = $payload . chr($type);
	my $crc = $node->safe_psql('postgres',
		'SELECT wide_internal.format_crc32c(' . bytea_sql($body) . ')');
	return $body . pack('V', $crc);
}

# zstd_frame(node, raw, level): raw as a zstd frame (format_compress)
sub zstd_frame
{
	my ($node, $raw, $level) = @_;
	return unhex($node->safe_psql('postgres',
		'SELECT wide_internal.format_compress(' . bytea_sql($raw) . ", $level)"));
}

1;
