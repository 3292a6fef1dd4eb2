# Splits and moves of tablets on nodes must not depend on any session
# setting, here or on a node, nor be undone by a TRUNCATE: one cluster
# whose database "postgres" is the coordinator and two other databases are
# its nodes (postgres_fdw servers) -- n1 (UTF8) and n2 (LATIN1), whose
# databases set every setting that changes how SQL text is read or values
# written (ALTER DATABASE ... SET standard_conforming_strings, bytea_output,
# DateStyle, IntervalStyle, TimeZone, extra_float_digits, search_path), n1
# one way and n2 the other.  Bounds and keys hold backslashes, quotes and é.  The
# coordinator's sessions set those settings too, differently when an
# operation is begun and when it is resumed.  After every split and move
# the cells are exactly those before (same count, same digest), each in
# the tablet whose range holds it.  Also: TRUNCATE of the parent during a
# move is refused on the node's tablet; a parent with NOT NULL and CHECK
# constraints moves to a node; json values written between a move's copy
# and its swap are caught up.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('edges');
$node->init(extra => [ '--encoding=UTF8', '--locale=C' ]);
$node->append_conf('postgresql.conf', "max_prepared_transactions = 10\n");
$node->start;
my ($host, $port) = ($node->host, $node->port);

$node->safe_psql('postgres', q{
	CREATE DATABASE n1;
	CREATE DATABASE n2 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
});
for my $db ('postgres', 'n1', 'n2')
{
	$node->safe_psql($db, 'CREATE EXTENSION wide; CREATE SCHEMA shadow');
}
# every setting that changes the reading of SQL text or the writing of values
my $settings = q{standard_conforming_strings = off, escape_string_warning = off,
	bytea_output = escape, DateStyle = 'SQL, DMY', IntervalStyle = sql_standard,
	TimeZone = 'Pacific/Chatham', extra_float_digits = -15, search_path = shadow, public};
my @node_settings = split /,\s*(?=[a-zA-Z_]+ =)/, $settings;
my @other = (q{standard_conforming_strings = on}, q{bytea_output = hex}, q{DateStyle = 'German'},
	q{IntervalStyle = iso_8601}, q{TimeZone = 'America/St_Johns'}, q{extra_float_digits = 0},
	q{search_path = shadow, public});
# n1 with the one set, n2 with the other: a session here differs from one of them
$node->safe_psql('postgres', "ALTER DATABASE n1 SET $_") for @node_settings;
$node->safe_psql('postgres', "ALTER DATABASE n2 SET $_") for @other;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER n1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port', dbname 'n1');
	CREATE SERVER n2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port', dbname 'n2');
	CREATE USER MAPPING FOR CURRENT_USER SERVER n1;
	CREATE USER MAPPING FOR CURRENT_USER SERVER n2;
	SELECT wide._tablet_ops_tables();
});
my $coord_settings = join('; ', map { "SET $_" } @node_settings) . ';';
my $other_settings = join('; ', map { "SET $_" } @other) . ';';

# keys: backslashes, quotes, é, around the bounds used below
my @keys = ('a', 'b', 'b\\', 'b\\\'', 'b\\x', 'c\'', 'c\\\'\\', 'd', 'd\'\\', 'd\'\\\\', 'e',
	'é', 'é\\', 'é\'', 'éa', 'ê\\x', 'z\\');
my $keys = join(', ', map { my $k = $_; $k =~ s/'/''/g; "'$k'" } @keys);
$node->safe_psql('postgres', qq{
	CREATE TABLE dist (row_key text COLLATE "C" NOT NULL, family text COLLATE "C",
	                   qualifier text COLLATE "C", ts timestamptz, value float8 NOT NULL,
	                   CONSTRAINT dist_value CHECK (value > -1))
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('dist', 'm');
	SELECT count(*) FROM wide.create_tablets('dist', ARRAY['b\\', 'é'], ARRAY['local', 'n1', 'n2']);
	SET TimeZone = UTC;
	INSERT INTO dist SELECT k, 'm', 'q' || i, '2020-02-29 23:30:00+00'::timestamptz + i * interval '1 day 1 hour',
	                        i / 7.0 FROM unnest(ARRAY[$keys]) k, generate_series(1, 5) i;
});

# the cells as text under fixed settings, and each cell found through the
# parent by a literal of its key (pruned to the tablet whose range holds it)
my $digest = q{SET standard_conforming_strings = on; SET DateStyle = ISO; SET TimeZone = UTC;
	SET extra_float_digits = 3;
	SELECT count(*) || ' ' || md5(string_agg(concat_ws('/', row_key, family, qualifier, ts, value), ','
	       ORDER BY row_key, family, qualifier, ts)) FROM dist};
my $placed = q{DO $$
DECLARE k text; n bigint; total bigint := 0;
BEGIN
  FOR k IN SELECT DISTINCT row_key FROM dist LOOP
    EXECUTE format('SELECT count(*) FROM dist WHERE row_key = %L', k) INTO n;
    total := total + n;
  END LOOP;
  IF total <> (SELECT count(*) FROM dist) THEN
    RAISE EXCEPTION 'only % of % cells found through their tablet', total, (SELECT count(*) FROM dist);
  END IF;
END $$; SELECT 'placed'};
my $before = $node->safe_psql('postgres', $digest);
like($before, qr/^85 /, '85 cells');

sub tablets
{
	return $node->safe_psql('postgres', q{
		SELECT string_agg(coalesce(s.srvname, 'local'), ' ' ORDER BY pg_get_expr(c.relpartbound, c.oid) LIKE '%(MINVALUE)%' DESC,
		                  pg_get_expr(c.relpartbound, c.oid) COLLATE "C")
		  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		  LEFT JOIN pg_foreign_table ft ON ft.ftrelid = c.oid LEFT JOIN pg_foreign_server s ON s.oid = ft.ftserver
		 WHERE i.inhparent = 'dist'::regclass});
}
sub tablet_at
{
	my ($key) = @_;
	$key =~ s/'/''/g;
	return $node->safe_psql('postgres', qq{SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'dist'::regclass AND c.oid = (SELECT tableoid FROM dist WHERE row_key = '$key' LIMIT 1)});
}
sub check
{
	my ($what, $layout) = @_;
	is($node->safe_psql('postgres', $digest), $before, "$what: the same cells");
	is($node->safe_psql('postgres', $placed), 'placed', "$what: each in the tablet whose range holds it");
	is(tablets(), $layout, "$what: the tablets") if defined $layout;
	is($node->safe_psql('postgres', q{SELECT count(*) FROM wide.tablet_ops WHERE step <> 'done'}), '0',
		"$what: the operation is done");
}

# a split on n1 (run there, the bound sent as SQL) at a key with a
# backslash and a quote, from a session whose settings differ from n1's
my $t = tablet_at('c\'');
$node->safe_psql('postgres', qq{$other_settings CALL wide.split_tablet('dist', '$t', E'c\\\\''\\\\')});
check('split on n1', 'local n1 n1 n2');

# a split on the LATIN1 node at a key with é and a backslash
$t = tablet_at('é');
$node->safe_psql('postgres', qq{$coord_settings CALL wide.split_tablet('dist', '$t', E'\\u00e9\\\\')});
check('split on n2 (LATIN1)', 'local n1 n1 n2 n2');

# moves: n1 -> n2 (LATIN1), n2 -> here, here -> n1
$t = tablet_at('d');
$node->safe_psql('postgres', qq{$coord_settings CALL wide.move_tablet('dist', '$t', 'n2')});
check('move n1 -> n2', 'local n1 n2 n2 n2');
$t = tablet_at('éa');
$node->safe_psql('postgres', qq{$other_settings CALL wide.move_tablet('dist', '$t', 'local')});
check('move n2 -> here', 'local n1 n2 n2 local');
$t = tablet_at('a');
$node->safe_psql('postgres', qq{$coord_settings CALL wide.move_tablet('dist', '$t', 'n1')});
check('move here -> n1', 'n1 n1 n2 n2 local');

# begun and copied under one set of settings, cells written, then resumed
# under another
$t = tablet_at('é');
$node->safe_psql('postgres', qq{$coord_settings
	SELECT wide._tablet_op_begin('move', 'dist', '$t', NULL, 'n1');
	SELECT wide._tablet_op_copy((SELECT max(id) FROM wide.tablet_ops));
	INSERT INTO dist VALUES (E'\\u00e9''', 'm', 'q9', '2021-01-01 00:00:00+00', 0.1),
	                        (E'\\u00e9''', 'm', 'q1', '2020-03-02 00:30:00+00', 2.5)});
$node->safe_psql('postgres', q{
	DELETE FROM dist WHERE row_key = E'\u00e9''' AND qualifier = 'q9';
	INSERT INTO dist VALUES (E'\u00e9''', 'm', 'q1', '2020-03-02 00:30:00+00', 1 / 7.0)});
# (the same cells as before again; the catch-up must have caught the writes)
my ($ret, $out, $err) = $node->psql('postgres', qq{$other_settings CALL wide.resume_tablet_ops()});
like($err, qr/move of public\.\S+\): finished/, 'resumed under other settings');
check('move n2 -> n1, resumed', 'n1 n1 n2 n1 local');

# TRUNCATE of the parent while a move of a tablet on a node is open: the
# node's tablet refuses it; the move then finishes with every cell
$t = tablet_at('d');
$node->safe_psql('postgres', qq{
	SELECT wide._tablet_op_begin('move', 'dist', '$t', NULL, 'local');
	SELECT wide._tablet_op_copy((SELECT max(id) FROM wide.tablet_ops))});
($ret, $out, $err) = $node->psql('postgres', 'TRUNCATE dist');
like($err, qr/cannot truncate .* while a split or move of it is unfinished/, 'TRUNCATE of the parent is refused during a move');
($ret, $out, $err) = $node->psql('postgres', "TRUNCATE $t");
like($err, qr/cannot truncate .* while a split or move of it is unfinished/, 'TRUNCATE of the remote tablet is refused');
($ret, $out, $err) = $node->psql('postgres', 'CALL wide.resume_tablet_ops()');
like($err, qr/finished/, 'the move finishes');
check('move n2 -> here after TRUNCATE', 'n1 n1 local n1 local');
is($node->safe_psql('n2', q{SELECT count(*) FROM pg_trigger WHERE tgname = 'wide_tablet_op_guard'}), '0',
	'no guard left on n2');

# json values written between a move's copy and its swap
$node->safe_psql('postgres', q{
	CREATE TABLE dj (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts int8, value json)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('dj', 'd');
	SELECT count(*) FROM wide.create_tablets('dj', ARRAY['m'], ARRAY['n1', 'local']);
	INSERT INTO dj SELECT chr(97 + i % 12) || i, 'd', 'q', 1, json_build_object('i', i) FROM generate_series(1, 300) i;
	SELECT wide._tablet_op_begin('move', 'dj', 'dj_1', NULL, 'n2');
	SELECT wide._tablet_op_copy((SELECT max(id) FROM wide.tablet_ops));
	INSERT INTO dj VALUES ('a_new', 'd', 'q', 1, '{"new": "\u00e9"}'), ('b1', 'd', 'q', 1, '[1,  2]');
	SELECT wide.delete_row('dj', 'c2');
});
($ret, $out, $err) = $node->psql('postgres', 'CALL wide.resume_tablet_ops()');
like($err, qr/finished/, 'the move of a json table finishes');
is($node->safe_psql('postgres', q{SELECT count(*) || ' ' || string_agg(value::text, ',' ORDER BY row_key)
	FROM dj WHERE row_key IN ('a_new', 'b1', 'c2', 'd3')}), '3 {"new": "\u00e9"},[1,  2],{"i" : 3}', 'json cells caught up');
is($node->safe_psql('postgres', 'SELECT count(*) FROM dj'), '300', 'json cells: 300');

# the data API on a remote tablet from a session with every setting
# changed: the arguments are sent as text, the results come back as text;
# a timestamp and a float8 must arrive and return exact (DateStyle
# 'SQL, DMY' wrote 02/03/2020, which the node read as February 3rd;
# extra_float_digits = -15 lost digits)
$node->safe_psql('postgres', q{
	CREATE TABLE da (row_key text COLLATE "C", family text COLLATE "C",
	                 qualifier text COLLATE "C", ts timestamptz, value float8)
	  PARTITION BY RANGE (row_key);
	SELECT wide.create_family('da', 'm');
	SELECT count(*) FROM wide.create_tablets('da', '{}', ARRAY['n1']);
});
$node->safe_psql('postgres', qq{$coord_settings
	SELECT wide.set_cell('da', 'k1'::text, 'm'::text, 'q'::text, 1 / 3::float8, '2020-03-02 00:30:00+00'::timestamptz)});
is($node->safe_psql('postgres', q{SELECT ts = '2020-03-02 00:30:00+00' AND value = 1 / 3::float8 FROM da}), 't',
	'a cell written through the data API from a session with other settings is exact on the node');
is($node->safe_psql('postgres', qq{$coord_settings
	SELECT ts = '2020-03-02 00:30:00+00'::timestamptz AND value = 1 / 3::float8 FROM wide.read_rows(NULL::da, keys => ARRAY['k1'])}),
	't', 'and read back exact through the data API in that session');

done_testing();
