# Privileges at the edge of a node: a role with SELECT and INSERT on a
# parent of tablets, USAGE on the node's server and a user mapping to a
# node superuser (as a data API user on a remote tablet has) can reach the
# node only through what its privileges allow.  The functions that run SQL
# they are given on a node are not executable by it; every function of the
# extension it may execute (read from pg_proc) is called on the parent and
# on the remote tablet, and none deletes, creates or reads what the role
# could not with SQL on the parent.  The owner of the parent, not a
# superuser, still makes remote tablets and changes their families.  A
# role reaches a node only as its own mapping's user: not with a password
# it does not give (a password file its own server names), nor through
# the remote session another role opened in its transaction.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $coord = PostgreSQL::Test::Cluster->new('coord');
$coord->init(allows_streaming => 'logical');
$coord->append_conf('postgresql.conf',
	"max_prepared_transactions = 10\nshared_preload_libraries = 'wide'\n");
$coord->start;
my $n1 = PostgreSQL::Test::Cluster->new('n1');
$n1->init;
$n1->append_conf('postgresql.conf', "max_prepared_transactions = 10\n");
$n1->start;

# the node: a superuser that logs in with a password (postgres_fdw asks
# one of non-superusers' mappings)
$n1->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE ROLE node_su SUPERUSER LOGIN PASSWORD 'node_pw';
});
my $hba = slurp_file($n1->data_dir . '/pg_hba.conf');
open my $fh, '>', $n1->data_dir . '/pg_hba.conf' or die;
print $fh "local all node_su scram-sha-256\nhost all node_su 127.0.0.1/32 scram-sha-256\n" . $hba;
close $fh;
$n1->reload;

my ($host, $port) = ($n1->host, $n1->port);
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION wide;
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER n1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER n1;
	CREATE ROLE owner_r;
	CREATE ROLE alice;
	GRANT USAGE ON FOREIGN SERVER n1 TO owner_r, alice;
	CREATE USER MAPPING FOR owner_r SERVER n1 OPTIONS (user 'node_su', password 'node_pw');
	CREATE USER MAPPING FOR alice SERVER n1 OPTIONS (user 'node_su', password 'node_pw');
	GRANT CREATE ON SCHEMA public TO owner_r;
	CREATE TABLE dist (row_key text COLLATE "C", family text COLLATE "C",
	                   qualifier text COLLATE "C", ts int8, value int8)
	  PARTITION BY RANGE (row_key);
	ALTER TABLE dist OWNER TO owner_r;
});

# the owner, not a superuser, makes a remote tablet and changes families
$coord->safe_psql('postgres', q{
	SET ROLE owner_r;
	SELECT wide.create_family('dist', 'm', max_versions => 2);
	SELECT wide.create_tablets('dist', ARRAY['m'], ARRAY['local', 'n1']);
	SELECT wide.create_family('dist', 'x', max_age => '1 day');
	SELECT wide.alter_family('dist', 'x', max_versions => 3);
	INSERT INTO dist SELECT chr(ascii('a') + i % 26) || i, 'm', 'q', 1, i FROM generate_series(1, 200) i;
	GRANT SELECT, INSERT ON dist TO alice;
});
is($n1->safe_psql('postgres',
	q{SELECT string_agg(family || '/' || coalesce(max_versions::text, '-'), ',' ORDER BY family) FROM wide.families('public.dist_2')}),
	'm/2,x/3', 'the owner made the remote tablet and changed its families on the node');
my $remote_before = $n1->safe_psql('postgres', q{SELECT count(*) FROM public.dist_2 WHERE value BETWEEN 1 AND 200});
cmp_ok($remote_before, '>', 0, 'the remote tablet holds cells');
my $tables_q = q{SELECT string_agg(oid::regclass::text, ',' ORDER BY oid::regclass::text) FROM pg_class
	WHERE relkind IN ('r', 'p', 'f', 'v') AND relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)};
my $tables_before = $n1->safe_psql('postgres', $tables_q);

# the functions that run given SQL on a node are refused to alice
my @attacks = (
	[q{SELECT wide_internal._remote_exec('n1', 'dist_2', 'DELETE FROM public.dist_2')}, 'delete a tablet'],
	[q{SELECT wide_internal._remote_exec('n1', NULL, 'CREATE TABLE public.planted (x int)')}, 'create a table'],
	[q{SELECT * FROM wide_internal._remote_query('n1', 'SELECT rolpassword FROM pg_authid')}, 'read pg_authid'],
	[q{SELECT wide_internal._remote_exec('n1', NULL, $$COPY (SELECT 1) TO PROGRAM 'true'$$)}, 'COPY TO PROGRAM'],
	[q{SELECT wide.drop_family('dist_2', 'm')}, 'drop a family of the tablet'],
	[q{SELECT wide_internal._store_catalog('dist_2', '{}')}, 'store a catalog'],
	[q{SELECT wide.create_tablets('dist', ARRAY['z'], ARRAY['local', 'n1'])}, 'create tablets'],
	[q{SELECT wide.delete_row('dist', 'z26')}, 'delete_row on a remote key'],
	[q{SELECT wide.delete_cells('dist', 'z26', 'm', 'q')}, 'delete_cells on a remote key'],
	[q{SELECT wide.mutate_row('dist', 'z26', '[{"deleteFromRow": {}}]')}, 'mutate_row deleteFromRow'],
	[q{SELECT wide.mutate_rows('dist', '[{"row_key": "z26", "mutations": [{"delete_from_row": {}}]}]')}, 'mutate_rows deleteFromRow'],
	[q{SELECT wide.drop_family('dist', 'm')}, 'drop_family on the parent'],
	[q{SELECT FROM wide.compact('dist', true)}, 'compact'],
	[q{DELETE FROM dist}, 'DELETE'],
);
for my $a (@attacks)
{
	my ($ret, $out, $err) = $coord->psql('postgres', "SET ROLE alice; $a->[0]");
	like($err, qr/permission denied|must be owner/, "alice cannot $a->[1]");
}

# every function of the extension alice may execute, from pg_proc, on the
# parent and on the remote tablet, with NULL for its other arguments
my $calls = $coord->safe_psql('postgres', q{
	SELECT p.oid::regproc::text || '|' || p.prokind::text || '|' || p.pronargs
	  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')
	   AND p.pronargs > 0 AND p.proargtypes[0] IN ('regclass'::regtype, 'anyelement'::regtype)
	   AND has_function_privilege('alice', p.oid, 'EXECUTE')
	 ORDER BY 1});
my $n = 0;
for my $line (split /\n/, $calls)
{
	my ($fn, $kind, $nargs) = split /\|/, $line;
	for my $t ('dist', 'dist_2')
	{
		my $first = $fn =~ /read_|modify/ ? "NULL::$t" : "'$t'::regclass";
		for my $key (q{'z26'})
		{
			my $args = join(', ', $first, ($nargs > 1 ? $key : ()), ('NULL') x ($nargs > 2 ? $nargs - 2 : 0));
			my $sql = $kind eq 'p' ? "CALL $fn($args)" : "SELECT $fn($args)";
			$coord->psql('postgres', "SET ROLE alice; $sql");
			$n++;
		}
	}
}
cmp_ok($n, '>', 20, "$n calls of the functions alice may execute");
is($n1->safe_psql('postgres', q{SELECT count(*) FROM public.dist_2 WHERE value BETWEEN 1 AND 200}), $remote_before,
	'no cell of the remote tablet was deleted');
is($n1->safe_psql('postgres', $tables_q), $tables_before, 'no table was created on the node');
is($n1->safe_psql('postgres',
	q{SELECT string_agg(family, ',' ORDER BY family) FROM wide.families('public.dist_2')}),
	'm,x', 'the families on the node are unchanged');
is($n1->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}), '0', 'nothing left prepared on the node');

# what alice may do still works on the remote tablet
is($coord->safe_psql('postgres', q{SET ROLE alice;
	SELECT wide.set_cell('dist', 'z999', 'm', 'q', 7, 1);
	SELECT value FROM wide.read_row(NULL::dist, 'z999')}), "\n7", 'alice writes and reads a remote key');

# a node whose connection options alice controls: her own server of
# postgres_fdw names a password file holding node_su's password (as the
# server's ~/.pgpass may), and her mapping to node_su gives none.  libpq
# takes the password from the file, so checking only that one was used
# let her log in as a user whose password she does not know; as
# postgres_fdw does, wide refuses a non-superuser's mapping without one
my $passfile = $coord->basedir . '/pgpass';
open $fh, '>', $passfile or die;
print $fh "*:*:*:node_su:node_pw\n";
close $fh;
chmod 0600, $passfile;
$coord->safe_psql('postgres', qq{
	GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw TO alice;
	GRANT CREATE ON SCHEMA public TO alice;
	SET ROLE alice;
	CREATE SERVER evil FOREIGN DATA WRAPPER postgres_fdw
	  OPTIONS (host '$host', port '$port', dbname 'postgres', passfile '$passfile');
	CREATE USER MAPPING FOR alice SERVER evil OPTIONS (user 'node_su');
	CREATE TABLE mine (LIKE dist) PARTITION BY RANGE (row_key);
	SELECT wide.create_family('mine', 'm');
	CREATE TABLE mine_1 PARTITION OF mine FOR VALUES FROM (MINVALUE) TO ('m') USING wide;
	CREATE FOREIGN TABLE mine_2 PARTITION OF mine FOR VALUES FROM ('m') TO (MAXVALUE)
	  SERVER evil OPTIONS (table_name 'dist_2');
	CREATE TABLE mine2 (LIKE dist) PARTITION BY RANGE (row_key);
	SELECT wide.create_family('mine2', 'm');
});
my $remote_now = $n1->safe_psql('postgres', q{SELECT count(*) FROM public.dist_2});
for my $a ([q{SELECT wide.create_tablets('mine2', ARRAY['m'], ARRAY['local', 'evil'])}, 'create a tablet on it'],
	[q{SELECT wide.delete_row('mine', 'z26')}, 'delete a row of a table on it'],
	[q{SELECT wide.set_cell('mine', 'z26', 'm', 'q', 1, 0)}, 'write to a table on it'])
{
	my ($ret, $out, $err) = $coord->psql('postgres', "SET ROLE alice; $a->[0]");
	like($err, qr/password is required to reach node "evil"/,
		"alice cannot $a->[1] through a node whose password file she names");
}
is($n1->safe_psql('postgres', q{SELECT count(*) FROM public.dist_2}), $remote_now,
	'no cell of the remote tablet was deleted or written through it');
is($n1->safe_psql('postgres', $tables_q), $tables_before, 'no table was created on the node through it');

# the owner drops a family everywhere; a superuser may still run the
# functions that take SQL (the tablet operations use them)
$coord->safe_psql('postgres', q{SET ROLE owner_r; SELECT wide.drop_family('dist', 'x')});
is($n1->safe_psql('postgres',
	q{SELECT string_agg(family, ',' ORDER BY family) FROM wide.families('public.dist_2')}),
	'm', 'the owner dropped a family on the node');
is($coord->safe_psql('postgres', q{SELECT * FROM wide_internal._remote_query('n1', 'SELECT 1')}), '1',
	'a superuser runs a query on the node');

# a parent of tablets that is published gets no remote tablet (issue 24,
# defect 5): its node's writes would never reach the subscribers
$coord->safe_psql('postgres', q{
	CREATE TABLE pubm (LIKE dist) PARTITION BY RANGE (row_key);
	SELECT wide.create_family('pubm', 'm');
	SELECT wide.create_tablets('pubm', ARRAY['m'], ARRAY['local', 'local']);
	INSERT INTO pubm VALUES ('a', 'm', 'q', 1, 1), ('z', 'm', 'q', 1, 2);
	CREATE PUBLICATION pm FOR TABLE pubm WITH (publish_via_partition_root);
	CREATE TABLE pubc (LIKE dist) PARTITION BY RANGE (row_key);
	CREATE PUBLICATION pc FOR TABLE pubc;
});
my ($ret, $out, $err) = $coord->psql('postgres', q{CALL wide.move_tablet('pubm', 'pubm_2', 'n1')});
like($err, qr/cannot move a tablet of table "public.pubm" to a node: it is published/,
	'a tablet of a published parent is not moved to a node');
is($coord->safe_psql('postgres', q{SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relname LIKE 'pubm%'}),
	'pubm,pubm_1,pubm_2', 'the refused move made nothing here');
($ret, $out, $err) = $coord->psql('postgres',
	q{SELECT wide.create_tablets('pubc', ARRAY[]::text[], ARRAY['n1'])});
like($err, qr/cannot publish table "(public\.)?pubc": it has remote tablets/,
	'a published parent gets no remote tablet from create_tablets');
is($n1->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname LIKE 'pub%'}), '0',
	'nothing was made on the node');
($ret, $out, $err) = $coord->psql('postgres', q{CREATE PUBLICATION pd FOR TABLE dist WITH (publish_via_partition_root)});
like($err, qr/cannot publish table "(public\.)?dist": it has remote tablets/,
	'a parent with a remote tablet is not published');
$coord->safe_psql('postgres', q{DROP PUBLICATION pm; CALL wide.move_tablet('pubm', 'pubm_2', 'n1')});
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pubm}), '2', 'unpublished, the tablet moves');

# an owner mapped to a node user that is not a superuser: the node runs
# only public functions and statements on the table that user owns (no
# internal function of the extension is executable there by it)
$n1->safe_psql('postgres', q{
	CREATE ROLE node_user LOGIN PASSWORD 'node_pw2';
	GRANT CREATE ON SCHEMA public TO node_user;
	GRANT CREATE ON DATABASE postgres TO node_user;  -- (CREATE SCHEMA IF NOT EXISTS asks it)
});
$hba = slurp_file($n1->data_dir . '/pg_hba.conf');
open $fh, '>', $n1->data_dir . '/pg_hba.conf' or die;
print $fh "local all node_user scram-sha-256\nhost all node_user 127.0.0.1/32 scram-sha-256\n" . $hba;
close $fh;
$n1->reload;
$coord->safe_psql('postgres', q{
	CREATE ROLE owner2;
	GRANT USAGE ON FOREIGN SERVER n1 TO owner2;
	CREATE USER MAPPING FOR owner2 SERVER n1 OPTIONS (user 'node_user', password 'node_pw2');
	GRANT CREATE ON SCHEMA public TO owner2;
	CREATE TABLE dist2 (LIKE dist) PARTITION BY RANGE (row_key);
	ALTER TABLE dist2 OWNER TO owner2;
	SET ROLE owner2;
	SELECT wide.create_family('dist2', 'm', max_versions => 2);
	SELECT wide.create_tablets('dist2', ARRAY['m'], ARRAY['local', 'n1']);
	SELECT wide.create_family('dist2', 'x', max_age => '1 day');
	SELECT wide.alter_family('dist2', 'x', max_versions => 3);
	SELECT wide.create_family('dist2', 'r', rollup => '{"source": "m", "bucket": "1 hour", "functions": ["sum"]}');
	SELECT wide.drop_family('dist2', 'r');
	INSERT INTO dist2 VALUES ('a', 'm', 'q', 1, 1), ('z', 'm', 'q', 1, 2);
});
is($n1->safe_psql('postgres',
	q{SELECT pg_get_userbyid(relowner) || ':' || (SELECT string_agg(family || '/' || coalesce(max_versions::text, '-'), ',' ORDER BY family)
	    FROM wide.families(c.oid)) FROM pg_class c WHERE relname = 'dist2_2'}),
	'node_user:m/2,x/3', 'an owner mapped to a node user that is not a superuser made a remote tablet and changed its families');
is($coord->safe_psql('postgres', q{SET ROLE owner2; SELECT count(*) FROM dist2}), '2', 'and reads and writes it');

# one remote session per node and transaction, opened with the user
# mapping of the role that first reached the node: after a SECURITY
# DEFINER function of owner_r (mapped to node_su) wrote to its remote
# tablet, owner2 (mapped to node_user) read through that session, as
# node_su, a table of the node node_user may not read
$coord->safe_psql('postgres', q{
	CREATE FUNCTION api_write(k text) RETURNS void SECURITY DEFINER LANGUAGE sql
	  AS $$ SELECT wide.set_cell('dist', k, 'm', 'q', 5, 1) $$;
	ALTER FUNCTION api_write(text) OWNER TO owner_r;
	GRANT EXECUTE ON FUNCTION api_write(text) TO owner2;
	SET ROLE owner2;
	CREATE TABLE peek (row_key text COLLATE "C", family text COLLATE "C",
	                   qualifier text COLLATE "C", ts int8, value int8) PARTITION BY RANGE (row_key);
	SELECT wide.create_family('peek', 'm');
	CREATE TABLE peek_1 PARTITION OF peek FOR VALUES FROM (MINVALUE) TO ('m') USING wide;
	CREATE FOREIGN TABLE peek_2 PARTITION OF peek FOR VALUES FROM ('m') TO (MAXVALUE)
	  SERVER n1 OPTIONS (table_name 'dist_2');
});
($ret, $out, $err) = $coord->psql('postgres', q{SET ROLE owner2; SELECT count(*) FROM wide.read_rows(NULL::peek)});
like($err, qr/permission denied for table dist_2/, 'owner2 may not read the table of node_su through its own mapping');
($ret, $out, $err) = $coord->psql('postgres', q{SET ROLE owner2;
	BEGIN; SELECT api_write('z777'); SELECT count(*) FROM wide.read_rows(NULL::peek); COMMIT});
like($err, qr/cannot reach node "n1" as role "owner2"/,
	'nor through the session a SECURITY DEFINER function of another role opened in its transaction');
is($out, '', 'and read nothing');

done_testing();
