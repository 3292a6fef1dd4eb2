# A wide table always survives pg_dump and restore, with its privileges and
# policies: text keys given as bytes must be valid text (issue 9, defect 5:
# wide.set_cell('t', '\xff00fe'::bytea, ...) used to write a key that made
# the restore fail and lose the whole table), and grants, row-level security
# policies and the schema's USAGE grant come back with the table.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dumpsec');
$node->init(extra => [ '--encoding=UTF8', '--locale=C' ]);
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE ROLE regress_owner;
	CREATE ROLE regress_alice;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'cf');
	CREATE TABLE n (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('n', 'c', aggregate => 'sum');
});

# every path that takes key bytes refuses what is not text
my @bad = (
	q{SELECT wide.set_cell('t', '\xff00fe'::bytea, 'cf', 'q', 'v', 1)},
	q{SELECT wide.set_cell('t', 'k', 'cf', '\x6100'::bytea, 'v', 1)},
	q{SELECT wide.mutate_row('t', '\xc328'::bytea, '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "timestamp_micros": 1, "value": "v"}}]')},
	q{SELECT wide.check_and_mutate_row('t', '\xe2'::bytea, on_no_match => '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "timestamp_micros": 1, "value": "v"}}]')},
	q{SELECT wide.add_to_cell('n', '\x80'::bytea, 'c', 'q', 1, 1)},
	q{SELECT wide.merge_to_cell('n', 'k', 'c', '\xfe'::bytea, 1, 1)},
	q{SELECT wide.delete_cells('t', '\x00'::bytea, 'cf', 'q')},
	q{SELECT wide.read_modify_write_row(NULL::t, 'k', 'cf', 'q', append => '\xff')});
for my $sql (@bad)
{
	my ($ret, $out, $err) = $node->psql('postgres', $sql);
	ok($ret != 0 && $err =~ /is not valid text in encoding "UTF8"/, "refused: $sql")
	  or diag("ret $ret, stderr: $err");
}

# valid text given as bytes is fine
$node->safe_psql('postgres', q{
	SELECT wide.set_cell('t', convert_to('clé', 'UTF8'), 'cf', convert_to('ß', 'UTF8'), 'v', 1);
	SELECT wide.mutate_row('t', convert_to('日本', 'UTF8'), '[{"set_cell": {"family_name": "cf", "column_qualifier": "q", "timestamp_micros": 1, "value": "v"}}]');
	SELECT wide.add_to_cell('n', convert_to('ключ', 'UTF8'), 'c', 'q', 1, 7);
	INSERT INTO t SELECT 'r' || i, 'cf', 'q', 1, 'value ' || i FROM generate_series(1, 500) i;
	SELECT wide.read_modify_write_row(NULL::t, 'r1', 'cf', 'q', append => convert_to(' €', 'UTF8'));
	ALTER TABLE t OWNER TO regress_owner;
	GRANT SELECT, INSERT ON t TO regress_alice;
	CREATE POLICY mine ON t USING (row_key = 'r1');
	ALTER TABLE t ENABLE ROW LEVEL SECURITY;
});

my $q = q{SELECT count(*), md5(string_agg(row_key || family || qualifier || ts || value, ',' ORDER BY row_key, qualifier, ts, value)) FROM %s};
my $before_t = $node->safe_psql('postgres', sprintf($q, 't'));
my $before_n = $node->safe_psql('postgres', sprintf($q, 'n'));
my $acl = q{SELECT relowner::regrole, relacl, relrowsecurity,
	(SELECT string_agg(polname || ':' || pg_get_expr(polqual, polrelid), ',') FROM pg_policy WHERE polrelid = 't'::regclass)
	FROM pg_class WHERE oid = 't'::regclass};
my $before_acl = $node->safe_psql('postgres', $acl);
my $as_alice = q{SET ROLE regress_alice; SELECT string_agg(DISTINCT row_key, ',') FROM t};
is($node->safe_psql('postgres', $as_alice), 'r1', 'alice sees her one row through the policy');

my $dump = $node->basedir . '/sec.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dump ],
	'pg_restore, no errors');

is($node->safe_psql('restored', sprintf($q, 't')), $before_t, 'text-key cells restored');
is($node->safe_psql('restored', sprintf($q, 'n')), $before_n, 'aggregate cells restored');
is($node->safe_psql('restored', $acl), $before_acl, 'owner, grants and policy restored');
is($node->safe_psql('restored', $as_alice), 'r1', 'the policy applies after restore');
is($node->safe_psql('restored', q{SELECT has_schema_privilege('regress_alice', 'wide', 'USAGE')}),
	't', 'the schema stays usable by all');
my ($ret, $out, $err) = $node->psql('restored',
	q{SET ROLE regress_alice; SELECT count(*) FROM wide.read_rows(NULL::t)});
like($err, qr/not supported with row-level security/, 'the functions still refuse under RLS');

$node->stop;
done_testing();
