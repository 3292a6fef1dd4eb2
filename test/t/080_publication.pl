# No silent loss through logical replication (issue 15, item 1): with
# wal_level = logical, a FOR ALL TABLES publication warns that it does not
# replicate wide tables, and a test_decoding slot shows why (a wide table's
# writes decode to nothing); a publication that names a wide table is
# refused; and a schema publication made by a backend that had not loaded
# wide (so no DDL check ran) makes every write to the wide table fail
# rather than be lost.  A subscriber of the FOR ALL TABLES publication gets
# the wide table's initial copy and none of its later changes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('publication');
$node->init(allows_streaming => 'logical');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE w (row_key text, family text, qualifier text,
	                ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('w', 'm');
	CREATE TABLE h (row_key text, family text, qualifier text,
	                ts timestamptz, value int8);
	CREATE SCHEMA s;
	CREATE TABLE s.w (row_key text, family text, qualifier text,
	                  ts timestamptz, value int8) USING wide;
	SELECT wide.create_family('s.w', 'm');
});

# FOR ALL TABLES: accepted, with a warning naming the wide tables, in a
# session that has loaded wide (here by reading a wide table)
my ($ret, $out, $err) = $node->psql('postgres',
	'SELECT count(*) FROM w; CREATE PUBLICATION pall FOR ALL TABLES');
is($ret, 0, 'FOR ALL TABLES publication is created');
like($err, qr/WARNING:  publication "pall" does not replicate wide tables "s.w", "w"/,
	'it warns, naming the wide tables');
unlike($err, qr/wal_level/, 'no wal_level warning at wal_level = logical');

# ... and a wide table created later warns too
($ret, $out, $err) = $node->psql('postgres', q{
	CREATE TABLE w2 (row_key text, family text, qualifier text,
	                 ts timestamptz, value int8) USING wide});
is($ret, 0, 'a wide table can still be created');
like($err, qr/WARNING:  publication "pall" does not replicate wide table "w2"/,
	'its creation warns');

# the warning is true: a decoding slot sees the heap table's insert only
$node->safe_psql('postgres',
	q{SELECT pg_create_logical_replication_slot('s', 'test_decoding')});
$node->safe_psql('postgres', q{
	INSERT INTO w VALUES ('a', 'm', 'q', '2026-01-01', 1);
	INSERT INTO h VALUES ('a', 'm', 'q', '2026-01-01', 1);
});
my $changes = $node->safe_psql('postgres',
	q{SELECT string_agg(data, E'\n') FROM pg_logical_slot_get_changes('s', NULL, NULL)});
like($changes, qr/table public\.h: INSERT/, 'the heap insert decodes');
unlike($changes, qr/table public\.w:/, 'the wide insert decodes to nothing');

# naming a wide table is refused, in a new session too
($ret, $out, $err) =
  $node->psql('postgres', 'CREATE PUBLICATION p FOR TABLE h, w');
isnt($ret, 0, 'FOR TABLE w is refused');
like($err, qr/ERROR:  cannot publish wide table "w"/, 'naming the table');

# a new session that never touched a wide table does not check a schema
# publication; the write check then refuses every write, so nothing is lost
($ret, $out, $err) =
  $node->psql('postgres', 'CREATE PUBLICATION ps FOR TABLES IN SCHEMA s');
is($ret, 0, 'schema publication from a backend without wide loaded');
($ret, $out, $err) = $node->psql('postgres',
	q{INSERT INTO s.w VALUES ('b', 'm', 'q', '2026-01-01', 2)});
like($err, qr/ERROR:  cannot write to wide table "s.w"/, 'writes to it fail');
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT wide.set_cell('s.w', 'b', 'm', 'q', 2::int8)});
like($err, qr/ERROR:  cannot write to wide table "s.w"/, 'API writes fail too');
$node->safe_psql('postgres', 'DROP PUBLICATION ps');
is( $node->safe_psql('postgres', q{
		INSERT INTO s.w VALUES ('b', 'm', 'q', '2026-01-01', 2);
		SELECT count(*) FROM s.w}),
	'1', 'writes work again once the table is unpublished');

# a new session that has not loaded wide creates FOR ALL TABLES silently
($ret, $out, $err) = $node->psql('postgres', q{
	DROP PUBLICATION pall; CREATE PUBLICATION pall FOR ALL TABLES});
is($err, '', 'no warning from a backend without wide loaded (documented)');

# with wide in session_preload_libraries both are caught at DDL time
$node->append_conf('postgresql.conf', q{session_preload_libraries = 'wide'});
$node->reload;
($ret, $out, $err) = $node->psql('postgres', q{
	DROP PUBLICATION pall; CREATE PUBLICATION pall FOR ALL TABLES});
like($err, qr/WARNING:  publication "pall" does not replicate wide tables "s.w", "w", "w2"/,
	'with session_preload_libraries FOR ALL TABLES warns');
($ret, $out, $err) =
  $node->psql('postgres', 'CREATE PUBLICATION ps FOR TABLES IN SCHEMA s');
isnt($ret, 0, 'with session_preload_libraries the schema publication is refused');
like($err, qr/ERROR:  cannot publish wide table "s.w"/, 'naming the table');

# a subscriber of FOR ALL TABLES (heap tables of the same names) gets the
# wide tables' initial copy, then none of their changes: the warning's point
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->start;
$sub->safe_psql('postgres', q{
	CREATE SCHEMA s;
	CREATE TABLE w (row_key text, family text, qualifier text,
	                ts timestamptz, value int8);
	CREATE TABLE w2 (LIKE w);
	CREATE TABLE h (LIKE w);
	CREATE TABLE s.w (LIKE w);
});
my $connstr = $node->connstr . ' dbname=postgres';
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION sub CONNECTION '$connstr' PUBLICATION pall");
$sub->wait_for_subscription_sync($node, 'sub');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM w'),
	'1', 'the initial copy includes the wide table');
$node->safe_psql('postgres', q{
	INSERT INTO w VALUES ('c', 'm', 'q', '2026-01-01', 3);
	INSERT INTO h VALUES ('c', 'm', 'q', '2026-01-01', 3);
});
$node->wait_for_catchup('sub');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM h'),
	'2', 'the heap table\'s later insert arrives');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM w'),
	'1', 'the wide table\'s later insert does not (as the warning says)');
# TRUNCATE is logged by PostgreSQL itself, whatever the access method: it
# does reach the subscriber
$node->safe_psql('postgres', 'TRUNCATE w');
$node->wait_for_catchup('sub');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM w'),
	'0', 'a TRUNCATE of the wide table does arrive');
$sub->stop;

$node->stop;
done_testing();
