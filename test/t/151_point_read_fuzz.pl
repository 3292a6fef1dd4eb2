# Randomized differential test of point reads and range starts inside data
# blocks (issue 11): a read whose range starts inside a data block finds its
# first row either by stepping over the rows before it (a block read for the
# first time: block.c WideBlockIterSkipRows) or through the block's cached
# row directory (a block read before: WideBlockRowsBuild, WideBlockRowsSeek).
# Both must return exactly what a heap table holding the same visible cells
# returns, bit for bit (float8 compared as text with extra_float_digits = 3).
#
# First, the reproduction of a bug it found: a cell of the empty qualifier
# right after a delete of its family, in a run over an older one, was
# written into a block no reader accepted (block.c WideBlockAdd).
#
# The data: five tables whose values are float8 (values of 0 to 3
# decimals, so that blocks are packed with a decimal exponent; others with
# many decimals, and -0, NaN, infinities, subnormals, so that some are not),
# int8 (with sum and max aggregate families), int4, text (short, longer
# than a one-byte header, and over 2 kB: blobs), and float8 with bytea keys
# (zero bytes, 0xff); 1 kB blocks and a small write area, so that there are
# many blocks and runs: a major compaction, minor ones, runs of whole
# statements (statement_run_size = 0) and write-area pages; versions
# (max_versions 2), deletes of every kind (cells, cells in a ts range,
# family, row, DELETE statements), aborted transactions and savepoints, a
# transaction left open during the reads (its cells invisible, and the
# cells committed after it started keep their xmin in segments); rows of
# one cell, rows spanning several blocks, keys longer than a block, keys
# sharing long prefixes and keys that are prefixes of others; timestamps in
# microseconds, in milliseconds (a block's unit), at 1970 and in 2200.  The
# model is kept in Perl (last write wins, deletes, aggregates) and loaded
# into the heap, not copied from the wide table.
#
# The reads: for every key and for keys between them, before the first and
# after the last, read_row, read_rows (start inclusive and exclusive, end
# inclusive, ranges with open and closed ends, prefixes, several keys, row
# limits, reversed), WHERE row_key = / >= / > / BETWEEN / = ANY with LIMIT,
# ORDER BY row_key DESC LIMIT, and LATERAL rescans; each with
# wide.block_cache_size = 0 (blocks read as if for the first time: the skip
# path) and four times with the default cache (a cached block's row
# directory is built once the block has been sought a few times: twice
# since eb3f361, before it once; then it is used from the cache); then
# again while pgbench compacts (minor and major), vacuums and rewrites cells
# with the values they have, and after it (its major compactions leave full
# blocks: the stored blocks are counted by type to check that some were
# packed, by the engine's decoders wide_internal.format_*).  Finally a byte
# inside a data block of a copy of a table is damaged: point reads into
# that block fail with the clear checksum ("bad data block") error, the
# others return the right rows, and wide.verify reports it.  Wide is preloaded with a 4 MB shared block
# cache (sharedcache.c): blocks read with the cache size 0 come from it
# once another read shared them.
#
# Fixed seed and count in CI; any other by environment:
#   WIDE_FUZZ_SEED=123 WIDE_FUZZ_FORMS=16 prove ... test/t/151_point_read_fuzz.pl
# (WIDE_FUZZ_FORMS: query forms per key, of 16; default 6.  WIDE_FUZZ_DUMP:
# a file to write the writes to, to replay them by hand)
use strict;
use warnings;
use File::Copy;
use POSIX qw(floor);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WideFormat;

# a server that decodes the files (WideFormat.pm; made before the seed is
# set, so that the cases do not depend on it)
my $dec = decoder();

my $seed = $ENV{WIDE_FUZZ_SEED} // 20261127;
my $nforms = $ENV{WIDE_FUZZ_FORMS} // 6;
srand($seed);
diag("point read fuzz: seed $seed, $nforms query forms per key (WIDE_FUZZ_SEED, WIDE_FUZZ_FORMS)");

my $node = PostgreSQL::Test::Cluster->new('point_read_fuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nwide.block_size = 1024\n"
	  . "wide.compaction_ratio = 1.0\ntimezone = 'UTC'\nextra_float_digits = 3\n"
	  . "shared_preload_libraries = 'wide'\nwide.shared_block_cache_size = 4MB\n");
$node->start;

# WIDE_FUZZ_DUMP=<path>: the writes are also written to <path> (to replay)
sub dump_sql
{
	return unless $ENV{WIDE_FUZZ_DUMP};
	open my $fh, '>>', $ENV{WIDE_FUZZ_DUMP} or die "$ENV{WIDE_FUZZ_DUMP}: $!";
	print $fh "-- session $_[0]\n$_[1]\n";
	close $fh;
}

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

# A cell of the empty qualifier right after a delete of its family, in one
# run above an older one (so the tombstone stays): the block writer took the
# empty qualifier for "no new qualifier" and wrote a block that no reader
# accepts ("bad data block"; every read and compaction over it failed).
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE x (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('x', 'f');
	INSERT INTO x VALUES ('r', 'f', '', 1, 1), ('s', 'f', 'q', 1, 1);
	SELECT FROM wide.compact('x');
	SELECT wide.delete_family('x', 'r', 'f');
	INSERT INTO x VALUES ('r', 'f', '', 2, 2), ('r', 'f', 'q', 2, 3);
	SELECT FROM wide.compact('x');
});
is($node->safe_psql('postgres', q{
	SELECT string_agg(format('%s/%s/%s', qualifier, ts, value), ' ') FROM wide.read_row(NULL::x, 'r')}),
	'/2/2 q/2/3', 'the empty qualifier after a family delete reads back');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('x')"), '0',
	'and its block is sound');

# ----------------------------------------------------------------
# Keys
# ----------------------------------------------------------------
my $longp = 'sensor/' . ('building-0001/' x 8);
my @keys = (
	(map { sprintf('k%04d', 3 * $_) } 0 .. 59),
	'p', 'pa', 'pab', 'pabc', 'pabcd', 'p' . ('x' x 300),
	'r1', 'r10', 'r100', 'r1000', 'r11',
	(map { $longp . sprintf('dev-%02d', $_) } 0 .. 19),
	'L' . ('y' x 1500) . 'a', 'L' . ('y' x 1500) . 'b',
	"\x{e9}", "\x{e9}a", 'z', 'zz', 'Z',
	'w1', 'w2', 'w3');
my %wide_row = map { $_ => 1 } ('w1', 'w2', 'w3');

# the bytea table's keys: the same as bytes, and keys with zero bytes and
# 0xff (a zero byte ends no key; 0xff sorts after every UTF-8 byte)
my @bkeys = ((map { my $b = $_; utf8::encode($b); $b } @keys),
	"k0003\x00", "k0003\x00\x00", "k0003\x00a", "\x00", "\x00\x00\x01", "\xfe\xff",
	"\xff", "\xff\x00", "k\xff", 'k0006' . ("\x00" x 40) . 'z');

# keys that name no row: between rows, prefixes of rows, before and after
sub absent_of
{
	my ($keys, @extra) = @_;
	my %is_key = map { $_ => 1 } @$keys;
	my %absent;
	for my $k (@$keys)
	{
		$absent{ $k . '0' } = 1;
		$absent{ $k . '~' } = 1;
		$absent{ substr($k, 0, length($k) - 1) } = 1 if length($k) > 1;
		$absent{ substr($k, 0, length($k) - 1) . chr(ord(substr($k, -1)) + 1) } = 1
		  if ord(substr($k, -1)) < 0xff;
	}
	$absent{$_} = 1 for @extra;
	return [ grep { !$is_key{$_} && $_ ne '' } sort keys %absent ];
}
my @common = ('0', 'A', 'L', 'L' . ('y' x 1500), 'L' . ('y' x 1500) . 'aa',
	'k', 'k0', 'r', 'sensor/', $longp);
my @absent = @{ absent_of(\@keys, @common, "\x{ff}\x{ff}", "\x{e9}\x{e9}") };
my @babsent = @{ absent_of(\@bkeys, @common, "\x00\x00", "k0003\x00\x00\x00", "\xff\xff") };

# ----------------------------------------------------------------
# Values and timestamps
# ----------------------------------------------------------------
my %types = (tf => 'float8', ti => 'int8', t4 => 'int4', tt => 'text', tb => 'float8');
my %fams = (tf => [ 'a', 'v' ], ti => [ 'a', 'v', 's', 'm' ], t4 => [ 'a', 'v' ],
	tt => [ 'a', 'v' ], tb => [ 'a', 'v' ]);
my %keys_of = ((map { $_ => \@keys } qw(tf ti t4 tt)), tb => \@bkeys);
my %absent_of = ((map { $_ => \@absent } qw(tf ti t4 tt)), tb => \@babsent);
sub keytype { return $_[0] eq 'tb' ? 'bytea' : 'text'; }

# a qualifier literal of table t (tb: bytea qualifiers too)
sub qlit
{
	my ($t, $q) = @_;
	return "'\\x" . unpack('H*', $q) . "'::bytea" if $t eq 'tb';
	return lit($q);
}

# a row key literal of table t
sub klit
{
	my ($t, $k) = @_;
	return "'\\x" . unpack('H*', $k) . "'::bytea" if $t eq 'tb';
	return lit($k);
}
my %agg = (s => 'sum', m => 'max');

# a value literal of the table's type; $style: a row's kind of values
sub value
{
	my ($tbl, $style) = @_;
	if ($tbl eq 'tf' || $tbl eq 'tb')
	{
		if ($style == 0)
		{
			my $d = rnd(4);
			return sprintf('%.*f', $d, rand(2000) - 1000);
		}
		return sprintf('%.17g', rand(1000) - 500) if $style == 1;
		return pick("'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '1e300', '5e-324',
			'0.1', '-2.5', sprintf('%.17g', rand()), '12345678901234567');
	}
	if ($tbl eq 'ti')
	{
		return rnd(1000) - 500 if $style == 0;
		return pick('9223372036854775807', '-9223372036854775808', '0',
			sprintf('%d', rnd(2**31) * rnd(2**31)));
	}
	if ($tbl eq 't4')
	{
		return rnd(1000) - 500 if $style == 0;
		return pick('2147483647', '-2147483648', '0', rnd(2**31) - 2**30);
	}
	my $r = rand();
	return lit(join('', map { chr(97 + rnd(26)) } 1 .. rnd(30))) if $style == 0 || $r < 0.5;
	return lit(join('', map { chr(48 + rnd(60)) } 1 .. 100 + rnd(200))) if $r < 0.85;
	return lit(join('', map { chr(48 + rnd(60)) } 1 .. 2100 + rnd(3000)));
}

# timestamps in microseconds since 1970, by a row's style: milliseconds,
# microseconds, or anywhere from 1970 to 2200
my $base = 1_767_225_600_000_000;	# 2026-01-01
sub ts_of
{
	my ($style) = @_;
	return $base + rnd(1_000_000) * 1000 if $style == 0;	# milliseconds
	return $base + rnd(1_000_000_000) if $style == 1;
	# (cells before 1970 are refused)
	return pick(7_258_118_400_000_000 + rnd(1_000_000_000),	# 2200
		rnd(1000), rnd(1_000_000_000_000), $base + rnd(1_000_000_000));
}

sub tslit
{
	my ($us) = @_;
	my $s = floor($us / 1_000_000);
	my $f = $us - $s * 1_000_000;
	my @g = gmtime($s);
	return sprintf("'%04d-%02d-%02d %02d:%02d:%02d.%06d+00'",
		$g[5] + 1900, $g[4] + 1, $g[3], $g[2], $g[1], $g[0], $f);
}

# ----------------------------------------------------------------
# Setup: the tables and their families
# ----------------------------------------------------------------
my $setup = '';
for my $t (sort keys %types)
{
	$setup .= "CREATE TABLE $t (row_key " . keytype($t) . ", family text, qualifier " . keytype($t) . ", ts timestamptz, value $types{$t}) USING wide;\n";
	for my $f (@{ $fams{$t} })
	{
		$setup .= "SELECT wide.create_family('$t', '$f'"
		  . ($f eq 'v' ? ', max_versions => 2' : '')
		  . ($agg{$f} ? ", aggregate => '$agg{$f}'" : '') . ");\n";
	}
}
dump_sql('main', $setup);
$node->safe_psql('postgres', $setup);

# ----------------------------------------------------------------
# Writes, applied to the wide tables and to the model:
# model{t}{row}{family}{qualifier}{ts} = value literal
# ----------------------------------------------------------------
my %model;
# a row's kind of values and timestamps: by stretches of keys, so that
# whole blocks hold only values of few decimals (packed with an exponent)
# or only millisecond timestamps (packed with a unit), next to blocks that
# mix them
sub style_of
{
	my ($k, $shift) = @_;
	return ((substr($k, 1) + $shift) / 60) % 3 if $k =~ /^k\d+\z/;
	return rnd(3);
}
my %row_style = map { $_ => style_of($_, 0) } @keys, @bkeys;
my %ts_style = map { $_ => style_of($_, 90) } @keys, @bkeys;
my $aggts = $base;			# aggregate cells: one ts per column

sub qual_of
{
	my ($t, $k) = @_;
	return sprintf('c%03d', rnd(150)) if $wide_row{$k};
	return pick('q0', "q0\x00", "q0\x00\x00", "\x00", "\xff", 'metric/cpu/core-0' . rnd(10), '')
	  if $t eq 'tb' && rand() < 0.5;
	return pick('q0', 'q1', 'q2', 'q3', 'metric/cpu/core-0' . rnd(10), 'metric/cpu/core-1' . rnd(10), '');
}

# a batch of cell writes to table t: (wide statements, model changes)
sub put_cells
{
	my ($t, $k, $n, $apply) = @_;
	my @rows;
	for (1 .. $n)
	{
		my $f = pick(@{ $fams{$t} });
		my $q = qual_of($t, $k);
		if ($agg{$f})
		{
			my $v = rnd(100) - 30;
			push @rows, '(' . join(', ', klit($t, $k), lit($f), qlit($t, $q), tslit($aggts), $v) . ')';
			next unless $apply;
			my $c = \$model{$t}{$k}{$f}{$q}{$aggts};
			$$c = !defined $$c ? $v : $f eq 's' ? $$c + $v : ($v > $$c ? $v : $$c);
			next;
		}
		my $ts = ts_of($ts_style{$k});
		my $v = value($t, $row_style{$k});
		push @rows, '(' . join(', ', klit($t, $k), lit($f), qlit($t, $q), tslit($ts), $v) . ')';
		$model{$t}{$k}{$f}{$q}{$ts} = $v if $apply;
	}
	return "INSERT INTO $t VALUES " . join(",\n  ", @rows) . ";\n";
}

# a delete of some kind: (statement, applied to the model)
sub delete_op
{
	my ($t) = @_;
	my $k = pick(@{ $keys_of{$t} });
	my $r = rand();
	my $m = $model{$t}{$k};
	if ($r < 0.25)
	{
		my $f = pick(@{ $fams{$t} });
		my @q = $m && $m->{$f} ? sort keys %{ $m->{$f} } : ();
		my $q = @q && rand() < 0.8 ? pick(@q) : qual_of($t, $k);
		delete $m->{$f}{$q} if $m && $m->{$f};
		return "SELECT wide.delete_cells('$t', " . klit($t, $k) . ", '$f', " . qlit($t, $q) . ");\n";
	}
	if ($r < 0.45)
	{
		# a ts range [t1, t2) of a plain family
		my @q = $m && $m->{a} ? sort keys %{ $m->{a} } : ();
		my $q = @q ? pick(@q) : qual_of($t, $k);
		my @ts = $m && $m->{a}{$q} ? sort { $a <=> $b } keys %{ $m->{a}{$q} } : ();
		@ts = (ts_of(1)) unless @ts;
		my $t1 = pick(@ts) - rnd(2);
		$t1 = 0 if $t1 < 0;
		my $t2 = pick(@ts) + rnd(2);
		($t1, $t2) = ($t2, $t1) if $t2 < $t1;
		if ($m && $m->{a}{$q})
		{
			delete $m->{a}{$q}{$_} for grep { $_ >= $t1 && $_ < $t2 } keys %{ $m->{a}{$q} };
		}
		return "SELECT wide.delete_cells('$t', " . klit($t, $k) . ", 'a', " . qlit($t, $q) . ", "
		  . tslit($t1) . ", " . tslit($t2) . ");\n";
	}
	if ($r < 0.6)
	{
		my $f = pick(@{ $fams{$t} });
		delete $m->{$f} if $m;
		return "SELECT wide.delete_family('$t', " . klit($t, $k) . ", '$f');\n";
	}
	if ($r < 0.7)
	{
		delete $model{$t}{$k};
		return "SELECT wide.delete_row('$t', " . klit($t, $k) . ");\n";
	}
	# DELETE statements, of versions of the plain family (a family with
	# max_versions would let DELETE's tombstones of the visible versions
	# bring back collected ones: not what this test is about)
	my @q = $m && $m->{a} ? sort keys %{ $m->{a} } : ();
	if (!@q)
	{
		delete $m->{a} if $m;
		return "DELETE FROM $t WHERE row_key = " . klit($t, $k) . " AND family = 'a';\n";
	}
	my $q = pick(@q);
	my @ts = sort { $a <=> $b } keys %{ $m->{a}{$q} };
	my $t0 = @ts ? pick(@ts) : ts_of(1);
	if (rand() < 0.5)
	{
		delete $m->{a}{$q}{$t0};
		return "DELETE FROM $t WHERE row_key = " . klit($t, $k) . " AND family = 'a' AND qualifier = "
		  . qlit($t, $q) . " AND ts = " . tslit($t0) . ";\n";
	}
	delete $m->{a}{$q}{$_} for grep { $_ < $t0 } @ts;
	return "DELETE FROM $t WHERE row_key = " . klit($t, $k) . " AND family = 'a' AND qualifier = "
	  . qlit($t, $q) . " AND ts < " . tslit($t0) . ";\n";
}

# cells nobody sees: an aborted transaction and a rolled back savepoint
sub aborted_ops
{
	my ($t) = @_;
	my $sql = "BEGIN;\n" . put_cells($t, pick(@{ $keys_of{$t} }), 1 + rnd(20), 0)
	  . "SELECT wide.delete_row('$t', " . klit($t, pick(@{ $keys_of{$t} })) . ");\nROLLBACK;\n";
	$sql .= "BEGIN;\nSAVEPOINT s;\n" . put_cells($t, pick(@{ $keys_of{$t} }), 1 + rnd(5), 0)
	  . "SELECT wide.delete_family('$t', " . klit($t, pick(@{ $keys_of{$t} })) . ", 'a');\n"
	  . "ROLLBACK TO SAVEPOINT s;\n" . put_cells($t, pick(@{ $keys_of{$t} }), 1 + rnd(3), 1) . "COMMIT;\n";
	return $sql;
}

# the transaction left open: it started before the last batches (their
# cells keep their xmin through flushes and compactions) and holds
# uncommitted cells, a whole statement's run and write-area records
my $open = $node->background_psql('postgres');

for my $batch (0 .. 3)
{
	if ($batch == 2)
	{
		$open->query_safe("BEGIN; SELECT txid_current();");
		for my $t (sort keys %types)
		{
			my $sql = "SET wide.statement_run_size = 0;\n";
			$sql .= put_cells($t, pick(@{ $keys_of{$t} }), 20, 0) for 1 .. 10;
			$sql .= "SELECT wide.delete_row('$t', " . klit($t, pick(@{ $keys_of{$t} })) . ");\n";
			utf8::encode($sql);
			dump_sql('open', $sql);
			$open->query_safe($sql);
		}
	}
	for my $t (sort keys %types)
	{
		my $sql = '';
		# a big batch written as runs of whole statements
		$sql .= "SET wide.statement_run_size = 0;\n" if $batch == 1 || $batch == 3;
		for my $k (@{ $keys_of{$t} })
		{
			# the last batch: runs of the write area, then write-area pages
			$sql .= "RESET wide.statement_run_size;\n" if $batch == 3 && $k eq 'p';
			next if rand() < 0.3 && !$wide_row{$k};
			my $n = $wide_row{$k} ? 40 + rnd(60) : rand() < 0.5 ? 1 : 1 + rnd(6);
			$sql .= put_cells($t, $k, $n, 1);
			$sql .= delete_op($t) if rand() < 0.15;
		}
		$sql .= aborted_ops($t);
		$sql .= "RESET wide.statement_run_size;\n";
		$sql .= "SELECT FROM wide.compact('$t', true);\n" if $batch == 0;
		$sql .= "SELECT FROM wide.compact('$t');\n" if $batch == 1 || $batch == 2;
		utf8::encode($sql);
		dump_sql('main', $sql);
		$node->safe_psql('postgres', $sql);
	}
}

# the heap: the model's visible cells (max_versions 2 in family v)
my $heap = '';
for my $t (sort keys %types)
{
	$heap .= "CREATE TABLE h_$t (row_key " . keytype($t) . ($t eq 'tb' ? '' : ' COLLATE "C"') . ", family text COLLATE \"C\",
		qualifier " . keytype($t) . ($t eq 'tb' ? '' : ' COLLATE "C"') . ", ts timestamptz, value $types{$t});\n";
	my @rows;
	for my $k (sort keys %{ $model{$t} })
	{
		for my $f (sort keys %{ $model{$t}{$k} })
		{
			for my $q (sort keys %{ $model{$t}{$k}{$f} })
			{
				my @ts = sort { $b <=> $a } keys %{ $model{$t}{$k}{$f}{$q} };
				splice(@ts, 2) if $f eq 'v' && @ts > 2;
				push @rows, '(' . join(', ', klit($t, $k), lit($f), qlit($t, $q), tslit($_),
					$model{$t}{$k}{$f}{$q}{$_}) . ')' for @ts;
			}
		}
	}
	$heap .= "INSERT INTO h_$t VALUES " . join(",\n", @rows) . ";\n" if @rows;
	$heap .= "CREATE INDEX ON h_$t (row_key, family, qualifier, ts DESC);\nANALYZE h_$t;\n";
}
utf8::encode($heap);
$node->safe_psql('postgres', $heap);

for my $t (sort keys %types)
{
	my $q = "SELECT count(*) FROM $t";
	my ($n, $runs, $wapages, $waruns) = split /\|/, $node->safe_psql('postgres',
		"SELECT (SELECT count(*) FROM h_$t), runs, write_area_pages, write_area_runs FROM wide.stats('$t')");
	diag("$t: $n cells, $runs runs, $waruns runs in the write area, $wapages write area pages");
	cmp_ok($runs + $waruns, '>=', 3, "$t has several runs");
	cmp_ok($wapages, '>=', 1, "$t has cells in write area pages");
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM ((SELECT * FROM $t EXCEPT ALL SELECT * FROM h_$t) UNION ALL
			  (SELECT * FROM h_$t EXCEPT ALL SELECT * FROM $t)) d"),
		'0', "$t: a full scan shows the model's cells");
}

# The stored data blocks of a table's runs by type (0 raw, 1 zstd, 2 packed),
# read from its file (after a CHECKPOINT) by the engine's decoders on the
# decoder server: the live segments' stored blocks, and for a packed one
# the value divisor its header gives (> 0 a decimal exponent, -1 delta
# coded, 0 neither).
sub block_types
{
	my ($t) = @_;
	$node->safe_psql('postgres', 'CHECKPOINT');
	my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$t')");
	my $segs = join(',', 0, split /\n/, $node->safe_psql('postgres', "SELECT segment FROM wide.runs('$t')"));
	my %n;
	for my $r (decode_rows($dec, 'WITH i AS MATERIALIZED (SELECT ' . file_sql($file) . " AS b)
		SELECT k.type, f.val_div FROM i, wide_internal.format_segments(i.b) r,
		       wide_internal.format_stored_blocks(i.b, r.root) k, wide_internal.format_frame(k.stored) f
		 WHERE r.segid IN ($segs) AND k.kind = 'data'"))
	{
		my ($type, $div) = @$r;
		$n{$type}++;
		# (type 3: packed, its values' after the frame, format version 6)
		next unless $type == 2 || $type == 3;
		$n{'2 with an exponent'}++ if $div > 0;
		$n{'2 delta coded'}++ if $div < 0;
	}
	return \%n;
}

# the stored data blocks of the float8 tables, by type (diag only: a run
# of a few cells is mostly stored raw, zstd saving too little)
sub census
{
	my ($when) = @_;
	my %sum;
	for my $t ('tf', 'tb', 'ti')
	{
		my $n = block_types($t);
		diag("$t $when: stored data blocks by type: " . join(', ', map { "$_: $n->{$_}" } sort keys %$n));
		$sum{"$t $_"} += $n->{$_} for keys %$n;
	}
	return \%sum;
}
census('before the reads');

# ----------------------------------------------------------------
# Queries: (wide query, heap query) for each key
# ----------------------------------------------------------------
my $full = 'row_key, family, qualifier, ts DESC';
my $rfull = 'row_key DESC, family DESC, qualifier DESC, ts';

# the heap's cells of the first (last) $limit rows matching $pred
sub heap_rows
{
	my ($t, $pred, $limit, $rev) = @_;
	my $dir = $rev ? 'DESC' : '';
	my $order = $rev ? "row_key DESC, family, qualifier, ts DESC" : $full;
	return "SELECT * FROM h_$t WHERE $pred ORDER BY $order" unless defined $limit;
	return "SELECT * FROM h_$t WHERE $pred AND row_key IN
	  (SELECT DISTINCT row_key FROM h_$t WHERE $pred ORDER BY row_key $dir LIMIT $limit)
	  ORDER BY $order";
}

my @forms = (
	sub {    # read_row
		my ($t, $k) = @_;
		return ("SELECT * FROM wide.read_row(NULL::$t, $k)", heap_rows($t, "row_key = $k"));
	},
	sub {
		my ($t, $k) = @_;
		return ("SELECT * FROM $t WHERE row_key = $k ORDER BY $full",
			heap_rows($t, "row_key = $k"));
	},
	sub {
		my ($t, $k) = @_;
		my $n = 1 + rnd(8);
		return ("SELECT * FROM $t WHERE row_key >= $k ORDER BY $full LIMIT $n",
			"SELECT * FROM h_$t WHERE row_key >= $k ORDER BY $full LIMIT $n");
	},
	sub {
		my ($t, $k) = @_;
		my $n = 1 + rnd(8);
		return ("SELECT * FROM $t WHERE row_key > $k ORDER BY $full LIMIT $n",
			"SELECT * FROM h_$t WHERE row_key > $k ORDER BY $full LIMIT $n");
	},
	sub {
		my ($t, $k, $k2) = @_;
		return ("SELECT * FROM $t WHERE row_key BETWEEN $k AND $k2 ORDER BY $full",
			"SELECT * FROM h_$t WHERE row_key BETWEEN $k AND $k2 ORDER BY $full");
	},
	sub {
		my ($t, $k) = @_;
		my $n = 1 + rnd(3);
		return ("SELECT * FROM wide.read_rows(NULL::$t, start_key => $k, \"limit\" => $n)",
			heap_rows($t, "row_key >= $k", $n));
	},
	sub {
		my ($t, $k) = @_;
		my $n = 1 + rnd(2);
		return ("SELECT * FROM wide.read_rows(NULL::$t, start_key => $k, start_inclusive => false, \"limit\" => $n)",
			heap_rows($t, "row_key > $k", $n));
	},
	sub {
		my ($t, $k, $k2) = @_;
		return ("SELECT * FROM wide.read_rows(NULL::$t, start_key => $k, end_key => $k2, end_inclusive => true)",
			heap_rows($t, "row_key >= $k AND row_key <= $k2"));
	},
	sub {
		my ($t, $k, $k2, $ks, $k2s) = @_;
		# (JSON ranges name text keys; the bytea table reads a key range)
		return ("SELECT * FROM wide.read_rows(NULL::$t, start_key => $k, end_key => $k2)",
			heap_rows($t, "row_key >= $k AND row_key < $k2")) if $t eq 'tb';
		my ($so, $eo) = (rand() < 0.5, rand() < 0.5);
		my $j = sprintf('[{"%s": "%s", "%s": "%s"}]',
			$so ? 'start_key_open' : 'start_key_closed', $ks,
			$eo ? 'end_key_open' : 'end_key_closed', $k2s);
		return ("SELECT * FROM wide.read_rows(NULL::$t, ranges => " . lit($j) . ")",
			heap_rows($t, "row_key " . ($so ? '>' : '>=') . " $k AND row_key " . ($eo ? '<' : '<=') . " $k2"));
	},
	sub {
		my ($t, $k) = @_;
		my $pred = $t eq 'tb' ? "substr(row_key, 1, length($k)) = $k" : "starts_with(row_key, $k)";
		return ("SELECT * FROM wide.read_rows(NULL::$t, prefix => $k, \"limit\" => 3)",
			heap_rows($t, $pred, 3));
	},
	sub {
		my ($t, $k) = @_;
		my $n = 1 + rnd(6);
		my $op = pick('<=', '<');
		return ("SELECT * FROM $t WHERE row_key $op $k ORDER BY $rfull LIMIT $n",
			"SELECT * FROM h_$t WHERE row_key $op $k ORDER BY $rfull LIMIT $n");
	},
	sub {
		my ($t, $k) = @_;
		my $n = 1 + rnd(3);
		return ("SELECT * FROM wide.read_rows(NULL::$t, end_key => $k, end_inclusive => true, reversed => true, \"limit\" => $n)",
			heap_rows($t, "row_key <= $k", $n, 1));
	},
	sub {    # several point reads in one call (keys: neighbours and one far)
		my ($t, $k, $k2, $ks, $k2s, $k3) = @_;
		return ("SELECT * FROM wide.read_rows(NULL::$t, keys => ARRAY[$k, $k2, $k3])",
			heap_rows($t, "row_key IN ($k, $k2, $k3)"));
	},
	sub {
		my ($t, $k, $k2, $ks, $k2s, $k3) = @_;
		my $n = 1 + rnd(12);
		return ("SELECT * FROM $t WHERE row_key = ANY (ARRAY[$k3, $k, $k2]) ORDER BY $full LIMIT $n",
			"SELECT * FROM h_$t WHERE row_key = ANY (ARRAY[$k3, $k, $k2]) ORDER BY $full LIMIT $n");
	},
	sub {    # rescans: a point read per outer row, into the same blocks
		my ($t, $k, $k2, $ks, $k2s, $k3) = @_;
		my $v = "(VALUES (1, $k), (2, $k2), (3, $k), (4, $k3), (5, $k2)) o(n, k)";
		return ("SELECT o.n, x.* FROM $v, LATERAL (SELECT * FROM $t WHERE row_key = o.k OFFSET 0) x ORDER BY o.n, x.$full",
			"SELECT o.n, x.* FROM $v, LATERAL (SELECT * FROM h_$t WHERE row_key = o.k OFFSET 0) x ORDER BY o.n, x.$full");
	},
	sub {
		my ($t, $k, $k2, $ks, $k2s, $k3) = @_;
		my $v = "(VALUES (1, $k), (2, $k3), (3, $k2)) o(n, k)";
		return ("SELECT o.n, x.* FROM $v, LATERAL wide.read_row(NULL::$t, o.k) x",
			"SELECT o.n, x.* FROM $v, LATERAL (SELECT * FROM h_$t WHERE row_key = o.k ORDER BY $full) x");
	},
);

my (@qs, %qcount);
for my $t (sort keys %types)
{
	my @sorted = sort(@{ $keys_of{$t} }, @{ $absent_of{$t} });
	my %pos;
	@pos{@sorted} = (0 .. $#sorted);
	for my $k (@{ $keys_of{$t} }, grep { rand() < 0.6 } @{ $absent_of{$t} })
	{
		my $k2s = $sorted[ $pos{$k} + rnd(4) ] // $k;
		my $k3 = pick(@sorted);
		my @f = (0, 1, map { 2 + rnd(@forms - 2) } 1 .. $nforms - 2);
		for my $fi (@f)
		{
			my ($w, $h) = $forms[$fi]->($t, klit($t, $k), klit($t, $k2s), $k, $k2s, klit($t, $k3));
			push @qs, [ $t, $fi, $w, $h ];
			$qcount{$fi}++;
		}
	}
	diag("$t: " . scalar(@{ $keys_of{$t} }) . " keys and " . scalar(@{ $absent_of{$t} }) . " keys between them");
}
diag(scalar(@qs) . " queries; by form: " . join(', ', map { "$_: $qcount{$_}" } sort { $a <=> $b } keys %qcount));

# the queries and their answers on the heap, in the server
my $load = q{
CREATE TABLE qs (id int PRIMARY KEY, tbl text, form int, wq text, hq text, expect text);
CREATE FUNCTION pr_res(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r record;
	acc text := '';
BEGIN
	FOR r IN EXECUTE q LOOP
		acc := acc || r::text || E'\n';
	END LOOP;
	RETURN acc;
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END
$f$;
-- the queries of tables tbls whose answers differ from the heap's, each run reps times
CREATE FUNCTION pr_check(tbls text[], reps int) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	q record;
	res text;
BEGIN
	FOR q IN SELECT * FROM qs WHERE tbl = ANY (tbls) ORDER BY id LOOP
		FOR i IN 1 .. reps LOOP
			res := pr_res(q.wq);
			IF res IS DISTINCT FROM q.expect THEN
				RETURN NEXT format(E'query %s (run %s of %s, block_cache_size %s):\n%s\n-- wide:\n%s-- heap (%s):\n%s',
					q.id, i, reps, current_setting('wide.block_cache_size'), q.wq, res, q.hq, q.expect);
			END IF;
		END LOOP;
	END LOOP;
END
$f$;
};
my @vals;
for my $i (0 .. $#qs)
{
	my ($t, $fi, $w, $h) = @{ $qs[$i] };
	push @vals, "($i, '$t', $fi, \$q\$$w\$q\$, \$q\$$h\$q\$)";
}
$load .= "INSERT INTO qs (id, tbl, form, wq, hq) VALUES " . join(",\n", @vals) . ";\n";
$load .= "UPDATE qs SET expect = pr_res(hq);\n";
utf8::encode($load);
$node->safe_psql('postgres', $load);
is($node->safe_psql('postgres', "SELECT count(*) FROM qs WHERE expect LIKE 'ERROR%'"),
	'0', 'the heap answers every query');
my $nonempty = $node->safe_psql('postgres', "SELECT count(*) FROM qs WHERE expect <> ''");
cmp_ok($nonempty, '>=', @qs / 2, "most answers hold cells ($nonempty of " . scalar(@qs) . ")");

# the plans (for the log): how many range queries sort the Wide Scan's output
my ($custom, $sorts) = split /\|/, $node->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE p ~ 'Custom Scan'), count(*) FILTER (WHERE p ~ 'Sort')
	FROM (SELECT pr_res('EXPLAIN (COSTS OFF) ' || wq) p FROM qs WHERE wq ~ '^SELECT \* FROM t. WHERE') s
});
diag("plans: $custom with a Wide Scan, $sorts with a Sort");

sub check
{
	my ($label, $settings, $tbls, $reps) = @_;
	my $out = $node->safe_psql('postgres',
		"$settings SELECT * FROM pr_check('{" . join(',', @$tbls) . "}', $reps);");
	my @bad = split /\nquery /, $out;
	is(scalar(@bad), 0, "$label: every answer equals the heap's");
	diag(substr(join("\n\nquery ", @bad), 0, 6000)) if @bad;
}

my $t0 = time();
check('cold blocks (skip path)', 'SET wide.block_cache_size = 0;', [ sort keys %types ], 1);
check('cached blocks (row directory path)', '', [ sort keys %types ], 4);
diag('reads took ' . (time() - $t0) . ' s');

# ----------------------------------------------------------------
# The same reads while another session compacts, vacuums and rewrites
# cells with their values (what is visible never changes)
# ----------------------------------------------------------------
# (VACUUM without truncation: the open transaction's locks would make every
# truncation wait for its lock timeout)
my @scripts;
for my $t (sort keys %types)
{
	my $script = $node->basedir . "/churn_$t.sql";
	open my $fh, '>', $script or die "$script: $!";
	print $fh "SELECT FROM wide.compact('$t');\nVACUUM (TRUNCATE false) $t;\n"
	  . "INSERT INTO $t SELECT * FROM h_$t WHERE family = 'a' AND random() < 0.1;\n"
	  . "BEGIN;\nINSERT INTO $t SELECT row_key || '~~', family, qualifier, ts, value FROM h_$t WHERE family = 'a' AND random() < 0.05;\n"
	  . "DELETE FROM $t WHERE row_key IN (SELECT row_key || '~~' FROM h_$t);\nCOMMIT;\n"
	  . "SELECT FROM wide.compact('$t', true);\nVACUUM (TRUNCATE false) $t;\n";
	close $fh;
	push @scripts, '-f', $script;
}
my ($bout, $berr) = ('', '');
my $churn = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '1', '-T', '10', @scripts,
	  '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \$bout, '2>', \$berr);
my $end = time() + 9;
my $rounds = 0;
do
{
	check("under compaction and VACUUM, round $rounds, cold", 'SET wide.block_cache_size = 0;',
		[ sort keys %types ], 1);
	check("under compaction and VACUUM, round $rounds, cached", '', [ sort keys %types ], 2);
	$rounds++;
} while (time() < $end);
$churn->finish;
my ($ntx) = $bout =~ /number of transactions actually processed: (\d+)/;
diag("$rounds rounds of reads while the other session ran " . ($ntx // 0) . " rounds of compactions");
cmp_ok($ntx // 0, '>=', 4, 'the other session compacted and vacuumed meanwhile')
  or diag("pgbench: $bout\n$berr");
# the churn's last major compactions packed full blocks: read them again
{
	my $n = census('after the churn');
	my $sum = sub { my $s = 0; $s += $n->{$_} // 0 for @_; return $s; };
	# read as they are: packed with an exponent; from raw bytes: stored
	# unpacked, or delta coded (unpacked when loaded)
	ok($sum->('tf 2 with an exponent', 'ti 2 with an exponent') > 0
		  && $sum->('tf 1', 'tf 0', 'tf 2 delta coded', 'ti 2 delta coded') > 0,
		'some data blocks are read packed, some unpacked');
	ok($sum->('tf 2 with an exponent', 'tb 2 with an exponent') > 0,
		'some blocks hold float8 values packed with an exponent');
	ok($sum->('tf 2 delta coded', 'tb 2 delta coded', 'ti 2 delta coded') > 0,
		'some blocks hold 8-byte values delta coded');
}
check('after the churn, cold', 'SET wide.block_cache_size = 0;', [ sort keys %types ], 1);
check('after the churn, cached', '', [ sort keys %types ], 4);

$open->query_safe('ROLLBACK');
$open->quit;

# ----------------------------------------------------------------
# A damaged data block: a copy of tf, one run, one byte flipped inside its
# first stream page (data blocks: the stream starts with up to 128 of them)
# ----------------------------------------------------------------
$node->safe_psql('postgres', q{
	CREATE TABLE tc (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
	SELECT wide.create_family('tc', 'a');
	SELECT wide.create_family('tc', 'v', max_versions => 2);
	INSERT INTO tc SELECT * FROM h_tf;
	SELECT FROM wide.compact('tc', true);
	CHECKPOINT;
});
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('tc')"), '0',
	'the copy is sound');
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('tc')");
my $segid = $node->safe_psql('postgres', "SELECT segment FROM wide.runs('tc')");
$node->stop;

# the segment (its stream's pages in order, where a page's contents start
# and how many bytes of the stream each holds), as the decoder reads it
my %seg;
{
	my ($r) = decode_rows($dec, 'WITH i AS MATERIALIZED (SELECT ' . file_sql($file) . " AS b)
		SELECT s.stream_pages, s.page_data_off, s.page_capacity
		  FROM i, wide_internal.format_segments(i.b) r, wide_internal.format_segment(i.b, r.root) s
		 WHERE r.segid = $segid");
	%seg = (pages => [ $r->[0] =~ /(\d+)/g ], data_off => $r->[1], cap => $r->[2]);
}
my @stream = @{ $seg{pages} };
cmp_ok(scalar(@stream), '>=', 2, 'the copy has several stream pages');
copy($file, "$file.orig") or die "copy $file: $!";
{
	open my $fh, '+<:raw', $file or die "open $file: $!";
	my $pos = $stream[0] * $BLCKSZ + 4000;
	my $byte;
	seek($fh, $pos, 0);
	read($fh, $byte, 1);
	seek($fh, $pos, 0);
	print $fh chr(ord($byte) ^ 0x5a);
	close $fh;
}
$node->start;

# every key, cold and cached: the model's rows or the clear error
my $rows = '';
for my $k (@keys)
{
	my $l = lit($k);
	$rows .= "($l, \$q\$SELECT * FROM wide.read_row(NULL::tc, $l)\$q\$, \$q\$SELECT * FROM h_tf WHERE row_key = $l ORDER BY $full\$q\$),\n";
	$rows .= "($l, \$q\$SELECT * FROM tc WHERE row_key >= $l ORDER BY $full LIMIT 3\$q\$, \$q\$SELECT * FROM h_tf WHERE row_key >= $l ORDER BY $full LIMIT 3\$q\$),\n";
}
$rows =~ s/,\n$//;
my $cq = "CREATE TABLE cq (k text, wq text, hq text);\nINSERT INTO cq VALUES $rows;\n";
utf8::encode($cq);
$node->safe_psql('postgres', $cq);
my $dmg = q{
	SELECT count(*) FILTER (WHERE r = e),
	       count(*) FILTER (WHERE r ~ '^ERROR XX001: .*(bad data block|checksum mismatch)'),
	       count(*) FILTER (WHERE r <> e AND r !~ '^ERROR XX001: .*(bad data block|checksum mismatch)'),
	       min(r) FILTER (WHERE r ~ '^ERROR'),
	       string_agg(format(E'%s\n-- got: %s\n-- heap: %s', wq, r, e), E'\n')
	         FILTER (WHERE r <> e AND r !~ '^ERROR XX001: .*(bad data block|checksum mismatch)')
	FROM (SELECT wq, pr_res(wq) r, pr_res(hq) e FROM cq, generate_series(1, REPS)) s
};
for my $mode ([ 'cold', 'SET wide.block_cache_size = 0;', 1 ], [ 'cached', '', 4 ])
{
	my ($same, $clean, $wrong, $err, $detail) = split /\|/,
	  $node->safe_psql('postgres', $mode->[1] . ($dmg =~ s/REPS/$mode->[2]/r)), 5;
	diag("damaged block, $mode->[0]: $same right, $clean clear errors ($err)");
	is($wrong, '0', "damaged block, $mode->[0]: no wrong answer, no other error")
	  or diag($detail);
	cmp_ok($clean, '>=', 1, "damaged block, $mode->[0]: reads into the block fail with XX001");
	cmp_ok($same, '>=', $clean, "damaged block, $mode->[0]: reads elsewhere work");
}
like($node->safe_psql('postgres', "SELECT object || ': ' || problem FROM wide.verify('tc')"),
	qr/segment \d+.*(checksum mismatch|bad data block)/, 'verify reports the damaged block');
is($node->safe_psql('postgres', "SELECT count(*) FROM wide.read_row(NULL::tf, 'k0000')")
	  eq $node->safe_psql('postgres', "SELECT count(*) FROM h_tf WHERE row_key = 'k0000'"),
	1, 'the other tables read as before');

# ----------------------------------------------------------------
# Damage inside a data block's decoded bytes (recompressed, the CRC fixed
# up): no checksum sees it, so a read may return what the bytes now say,
# but stepping over rows, building the row directory and seeking in it must
# not crash, loop or read outside the block: every read ends with rows or
# an XX001 error, and the server stays up.  WIDE_FUZZ_DAMAGE: how many
# (default 8).
# ----------------------------------------------------------------
# write_block(file, stream, off, len, type, raw): store the decoded bytes
# raw as the stored block at offset off of the stream, of the same stored
# length len: compressed, padded with a skippable frame, CRC fixed up (a
# block stored raw stays raw if raw has its length, else becomes a zstd
# frame, type 1); false if it does not fit
sub write_block
{
	my ($file, $s, $off, $len, $type, $raw) = @_;
	my $body = $raw;
	if ($type != 0 || length($raw) != $len - 5)
	{
		$type = 1 if $type == 0;
		my $z = zstd_frame($dec, $raw, 19);
		return 0 if length($z) + 8 > $len - 5;
		my $pad = $len - 5 - length($z) - 8;
		$body = $z . pack('VV', 0x184D2A50, $pad) . ("\0" x $pad);
	}
	$body = frame($dec, $body, $type);
	die "stored length changed" unless length($body) == $len;
	# into the stream's pages
	open my $fh, '+<:raw', $file or die "$file: $!";
	for my $i (0 .. $len - 1)
	{
		my $so = $off + $i;
		seek($fh, $s->{pages}[ int($so / $s->{cap}) ] * $BLCKSZ + $s->{data_off} + $so % $s->{cap}, 0);
		print $fh substr($body, $i, 1);
	}
	close $fh;
	return 1;
}

{
	my $ndamage = $ENV{WIDE_FUZZ_DAMAGE} // 8;
	my ($trials, $bad, %outcome) = (0, 0);
	# the data blocks of the pristine copy: offset, length, frame type and
	# body (decompressed; a packed block stays packed)
	my @data = map { [ $_->[0], $_->[1], $_->[2], unhex($_->[3]) ] } decode_rows($dec,
		'WITH i AS MATERIALIZED (SELECT ' . file_sql("$file.orig") . " AS b)
		SELECT k.off, k.len, f.type, f.body
		  FROM i, wide_internal.format_segments(i.b) r,
		       wide_internal.format_stored_blocks(i.b, r.root) WITH ORDINALITY k,
		       wide_internal.format_frame(k.stored) f
		 WHERE r.segid = $segid AND k.kind = 'data' ORDER BY k.ordinality");
	for my $trial (1 .. $ndamage)
	{
		$node->stop;
		copy("$file.orig", $file) or die "copy back: $!";
		my ($off, $len, $type, $raw) = @{ pick(@data) };
		my $s = \%seg;
		# one to three bytes past the block's header, often 0, 1, 0x7f, 0x80, 0xff
		my $what = '';
		for (1 .. 1 + rnd(3))
		{
			my $at = 5 + rnd(length($raw) - 5);
			my $v = rand() < 0.5 ? pick(0, 1, 2, 0x7f, 0x80, 0xff) : rnd(256);
			$what .= sprintf(' %d: %02x -> %02x', $at, ord(substr($raw, $at, 1)), $v);
			substr($raw, $at, 1) = chr($v);
		}
		next unless write_block($file, $s, $off, $len, $type, $raw);
		$node->start;
		$trials++;
		for my $mode ([ 'cold', 'SET wide.block_cache_size = 0;', 1 ], [ 'cached', '', 4 ])
		{
			my ($same, $clean, $wrong, $err, $detail) = split /\|/,
			  $node->safe_psql('postgres', $mode->[1] . ($dmg =~ s/REPS/$mode->[2]/r)), 5;
			my $other = $node->safe_psql('postgres', $mode->[1] . q{
				SELECT string_agg(DISTINCT r, E'\n') FROM (SELECT pr_res(wq) r FROM cq) s
				WHERE r ~ '^ERROR' AND r !~ '^ERROR XX001'});
			$outcome{"$mode->[0] right"} += $same;
			$outcome{"$mode->[0] XX001"} += $clean;
			$outcome{"$mode->[0] other rows"} += $wrong;
			if ($other ne '')
			{
				$bad++;
				diag("damage at$what of the data block at $off ($mode->[0]): $other");
			}
		}
		# (a changed value or timestamp is no damage verify can see)
		my ($r, $o, $e) = $node->psql('postgres', "SELECT count(*) FROM wide.verify('tc')");
		$outcome{'verify reports'}++ if $r == 0 && $o ne '0';
		if ($r != 0)
		{
			$bad++;
			diag("damage at$what of the data block at $off: verify: '$o' $e");
		}
	}
	diag("$trials blocks damaged: " . join(', ', map { "$_ $outcome{$_}" } sort keys %outcome));
	is($bad, 0, 'damage inside decoded blocks: reads end with rows or XX001, verify ends');
}
# ----------------------------------------------------------------
# A block as builds before ef1f32a wrote it: the empty qualifier right
# after a DEL_FAMILY without NEW_QUAL.  This build writes the flag, so the
# test takes it out of the decoded block (the flag bit and the qualifier's
# two zero bytes, the key section's length with them); readers must take
# the record as one of the empty qualifier, verify must find nothing, and
# a compaction must rewrite it by the rule.
# ----------------------------------------------------------------
{
	$node->safe_psql('postgres', q{
		CREATE TABLE eo (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
		SELECT wide.create_family('eo', 'f');
		INSERT INTO eo VALUES ('r', 'f', '', 1, 1), ('s', 'f', 'q', 1, 1);
		SELECT FROM wide.compact('eo');
		SELECT wide.delete_family('eo', 'r', 'f');
		INSERT INTO eo VALUES ('r', 'f', '', 2, 2), ('r', 'f', 'q', 2, 3);
		-- (more cells after it: a block zstd shrinks, with room to pad; their
		-- values delta coded leave less of it, hence long qualifiers)
		INSERT INTO eo SELECT 'r', 'f', 'qualifier ' || lpad(i::text, 3, '0'), 2, i
		  FROM generate_series(1, 1000) i;
		SELECT FROM wide.compact('eo');
		CHECKPOINT;
	});
	my $want = $node->safe_psql('postgres', 'SELECT * FROM eo ORDER BY 1, 2, 3, 4');
	my $efile = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('eo')");
	my $eseg = $node->safe_psql('postgres', 'SELECT segment FROM wide.runs(\'eo\') WHERE has_tombstones');
	$node->stop;
	# the first data block of the segment; its header and records walked
	# with the engine's varint decoder (format_varints) on the decoder
	# server
	my ($r) = decode_rows($dec, 'WITH i AS MATERIALIZED (SELECT ' . file_sql($efile) . " AS b)
		SELECT k.off, k.len, f.type, f.body, s.stream_pages, s.page_data_off, s.page_capacity
		  FROM i, wide_internal.format_segments(i.b) r, wide_internal.format_segment(i.b, r.root) s,
		       wide_internal.format_stored_blocks(i.b, r.root) WITH ORDINALITY k,
		       wide_internal.format_frame(k.stored) f
		 WHERE r.segid = $eseg AND k.kind = 'data' ORDER BY k.ordinality LIMIT 1");
	my ($off, $len, $type, $rawhex) = @$r;
	my $s = { pages => [ $r->[4] =~ /(\d+)/g ], data_off => $r->[5], cap => $r->[6] };
	my $raw = unhex($rawhex);

	# the header: [rawlen unit exp] (packed) ncells arena keylen tslen
	# auxlen; then the records of the key section, for the flag byte of the
	# empty qualifier (shared 0, unshared 0) of a PUT right after a
	# DEL_FAMILY.  Returns pos (after the header)|at (-1: none)|head...
	my ($pos, $at, @head) = split /\|/, $dec->safe_psql('postgres', q{
		CREATE FUNCTION pg_temp.walk(raw bytea, packed boolean) RETURNS text
		LANGUAGE plpgsql AS $$
		DECLARE
		  head bigint[] := '{}';
		  pos int := 0;
		  k int;
		  v record;
		  flags int;
		  flagpos int;
		  prevkind int := -1;
		  at int;
		BEGIN
		  IF packed THEN
		    FOR v IN SELECT * FROM wide_internal.format_varints(raw, pos, 2) LOOP
		      head := head || v.value::bigint;
		      pos := v.next;
		    END LOOP;
		    head := head || get_byte(raw, pos)::bigint;
		    pos := pos + 1;
		  END IF;
		  FOR v IN SELECT * FROM wide_internal.format_varints(raw, pos, 5) LOOP
		    head := head || v.value::bigint;
		    pos := v.next;
		  END LOOP;
		  k := pos;
		  FOR i IN 1 .. head[CASE WHEN packed THEN 4 ELSE 1 END] LOOP
		    flagpos := k;
		    flags := get_byte(raw, k);
		    k := k + 1;
		    IF flags & 8 <> 0 THEN
		      -- the row key: shared, unshared, suffix
		      SELECT next INTO k FROM wide_internal.format_varints(raw, k, 1);
		      SELECT next + value::int INTO k FROM wide_internal.format_varints(raw, k, 1);
		    END IF;
		    IF flags & 16 <> 0 THEN
		      -- the family: famlen:u8 family famid
		      k := k + 1 + get_byte(raw, k);
		      SELECT next INTO k FROM wide_internal.format_varints(raw, k, 1);
		    END IF;
		    IF flags & 32 <> 0 THEN
		      -- the qualifier: shared, unshared, suffix
		      IF prevkind = 2 AND flags & 7 = 4 AND flags & 24 = 0
		         AND substring(raw from k + 1 for 2) = '\x0000'::bytea THEN
		        at := flagpos;
		      END IF;
		      SELECT next INTO k FROM wide_internal.format_varints(raw, k, 1);
		      SELECT next + value::int INTO k FROM wide_internal.format_varints(raw, k, 1);
		    END IF;
		    prevkind := flags & 7;
		  END LOOP;
		  RETURN array_to_string(ARRAY[pos, coalesce(at, -1)]::text[] || head::text[], '|');
		END
		$$;
		SELECT pg_temp.walk(} . bytea_sql($raw) . ", $type = 2)");
	$at = undef if $at < 0;
	ok(defined $at, 'the empty qualifier after the DEL_FAMILY is found in the block');
	# the old writer's record: no NEW_QUAL, no qualifier bytes
	substr($raw, $at, 3) = chr(ord(substr($raw, $at, 1)) & ~0x20);
	$head[0] -= 2 if $type == 2;    # the raw block's length
	$head[ $type == 2 ? 5 : 2 ] -= 2;
	my $varints = sub {
		return unhex($dec->safe_psql('postgres',
			'SELECT wide_internal.format_encode_varints(ARRAY[' . join(',', @_) . ']::bigint[])'));
	};
	my $newhead = $type == 2
	  ? $varints->(@head[ 0, 1 ]) . chr($head[2]) . $varints->(@head[ 3 .. 7 ])
	  : $varints->(@head);
	$raw = $newhead . substr($raw, $pos);
	ok(write_block($efile, $s, $off, $len, $type, $raw), 'the block is written the old way');
	$node->start;
	is($node->safe_psql('postgres', 'SELECT * FROM eo ORDER BY 1, 2, 3, 4'), $want,
		'a block written the old way reads as the empty qualifier');
	is($node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('eo')"), '0',
		'verify finds nothing wrong in it');
	$node->safe_psql('postgres', "SELECT FROM wide.compact('eo', major => true)");
	is($node->safe_psql('postgres', 'SELECT * FROM eo ORDER BY 1, 2, 3, 4') . '|'
		  . $node->safe_psql('postgres', "SELECT count(*) FROM wide.verify('eo')"),
		"$want|0", 'a major compaction rewrites it by the rule');
}
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');
unlike(slurp_file($node->logfile), qr/terminated by signal|PANIC/, 'no backend crashed');

$node->stop;
done_testing();
