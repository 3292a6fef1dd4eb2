# Differential DML fuzzer: random data-changing statements on a wide table
# and on a heap twin holding the same cells must report the same command
# status (SQLSTATE and row count), return the same RETURNING rows, leave
# the same trigger side effects (a log table each) and the same contents,
# after every step.
#
# A step is one or more statements run at top level by psql, first on the
# wide side (w, its view wv, its log lw), then on the heap side (h, hv, lh);
# psql's SQLSTATE and ROW_COUNT after each statement and the rows it
# printed are compared (RETURNING rows as a sorted multiset), then the
# contents of both tables and logs.  Forms: INSERT (VALUES, SELECT from the
# table itself, rewriting existing cells: last write wins), DELETE with
# WHERE, USING joins with duplicate join rows, IN/EXISTS/NOT EXISTS
# subqueries, correlated subqueries, LATERAL; RETURNING on both; writable
# CTEs (WITH d AS (DELETE ... RETURNING) INSERT ..., two DELETEs of the
# table in one statement); MERGE (WHEN MATCHED DELETE / DO NOTHING, WHEN
# NOT MATCHED INSERT, duplicate source rows); statements in plpgsql and SQL
# functions and DO blocks (with EXCEPTION blocks); transactions with
# savepoints and ROLLBACK TO; an updatable view WITH CHECK OPTION;
# TRUNCATE.  The tables carry triggers of every kind wide accepts --
# BEFORE ROW INSERT (changing NEW, or skipping the row), BEFORE ROW DELETE
# (skipping some), BEFORE/AFTER STATEMENT INSERT/DELETE/UPDATE/TRUNCATE,
# AFTER STATEMENT with NEW TABLE / OLD TABLE transition tables -- and rules
# (ON INSERT DO INSTEAD/ALSO, ON DELETE DO ALSO/INSTEAD, conditional).
#
# Wide's semantics are modelled on the heap side: a write of existing
# coordinates replaces the cell (h has a unique key on the coordinates and
# a last BEFORE INSERT trigger that deletes the old cell, unseen by the
# logging triggers and rules); family mv has max_versions => 2, which hv
# models (only inserted into: what a DELETE uncovers there depends on
# compaction, issue 24 #10).
#
#   WIDE_DML_SEED=<n>    the seed (default 20261128); printed
#   WIDE_DML_STEPS=<n>   steps (default 1000)
#   WIDE_DML_DUMP=<file> write the psql script there
#   test/dml_fuzz.sh SEED N runs this file alone with those set
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_DML_SEED} || 20261128;
my $nsteps = $ENV{WIDE_DML_STEPS} || 1000;
srand($seed);
diag "dml fuzz seed $seed, $nsteps steps";

my $node = PostgreSQL::Test::Cluster->new('dmlfuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nwide.flush_threshold = 16\nwide.block_size = 1024\nmax_locks_per_transaction = 256\n");
$node->start;

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

my @keys = ('a', 'ab', 'abc', 'b', 'b%', 'c', 'k1', 'k2', 'k10', 'm', 'n', 'x_y', 'z', "\x{e9}");
my @quals = ('q', 'q1', 'q2', 'k1', '', 'ab', 'log', 'z');
my @fams = ('cf', 'cf', 'g', 'mv');
my @vals = ('v', 'w', 'skip', 'keep', 'x');

# ----------------------------------------------------------------
# Schema: wide table w, heap twin h, views, logs, triggers, rules
# ----------------------------------------------------------------
my $setup = q{
CREATE EXTENSION wide;
CREATE TABLE w (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('w', 'cf');
SELECT wide.create_family('w', 'g');
SELECT wide.create_family('w', 'mv', max_versions => 2);
CREATE TABLE h (row_key text COLLATE "C" NOT NULL, family text COLLATE "C" NOT NULL,
                qualifier text COLLATE "C" NOT NULL, ts int8 NOT NULL, value text COLLATE "C" NOT NULL,
                UNIQUE (row_key, family, qualifier, ts));
-- what a wide read of h would return: family mv keeps its 2 newest versions
CREATE VIEW hv AS SELECT row_key, family, qualifier, ts, value FROM
  (SELECT *, row_number() OVER (PARTITION BY row_key, family, qualifier ORDER BY ts DESC) AS n FROM h) s
  WHERE family <> 'mv' OR n <= 2;
CREATE TABLE lw (msg text COLLATE "C");
CREATE TABLE lh (msg text COLLATE "C");
-- a source table for joins and MERGE, with duplicate keys
CREATE TABLE src (k text COLLATE "C", q text COLLATE "C", n int);
INSERT INTO src VALUES ('a', 'q', 1), ('a', 'q', 2), ('b', 'q1', 1), ('k1', 'k1', 1), ('k1', 'q', 3),
  ('m', 'z', 1), ('zz', 'q', 1), ('x_y', '', 2);

-- the heap twin's model of "a write replaces the cell": runs last (name order)
CREATE FUNCTION fz_replace() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE was text;
BEGIN
  was := current_setting('fz.internal', true);
  PERFORM set_config('fz.internal', 'on', true);
  DELETE FROM h WHERE row_key = NEW.row_key AND family = NEW.family
    AND qualifier = NEW.qualifier AND ts = NEW.ts;
  PERFORM set_config('fz.internal', coalesce(was, 'off'), true);
  RETURN NEW;
END $$;
CREATE TRIGGER zzz_replace BEFORE INSERT ON h FOR EACH ROW EXECUTE FUNCTION fz_replace();
-- wide refuses an UPDATE that meets a cell (0A000), not one that meets none
CREATE FUNCTION fz_noupdate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'UPDATE is not supported' USING ERRCODE = 'feature_not_supported';
END $$;
CREATE TRIGGER aaa_noupdate BEFORE UPDATE ON h FOR EACH ROW EXECUTE FUNCTION fz_noupdate();

-- logging triggers: TG_ARGV[0] is the log table
CREATE FUNCTION fz_log() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  msg text := TG_NAME || ' ' || TG_WHEN || ' ' || TG_LEVEL || ' ' || TG_OP;
BEGIN
  IF current_setting('fz.internal', true) = 'on' THEN
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
  END IF;
  IF TG_LEVEL = 'ROW' THEN
    IF TG_OP = 'INSERT' THEN
      msg := msg || ' ' || NEW::text;
      IF NEW.value LIKE 'skip%' THEN
        EXECUTE format('INSERT INTO %I VALUES ($1)', TG_ARGV[0]) USING msg || ' skipped';
        RETURN NULL;
      END IF;
      IF NEW.qualifier = 'q2' THEN
        NEW.value := NEW.value || '+';
      END IF;
    ELSE
      msg := msg || ' ' || OLD::text;
      IF OLD.value LIKE 'keep%' AND TG_OP = 'DELETE' THEN
        EXECUTE format('INSERT INTO %I VALUES ($1)', TG_ARGV[0]) USING msg || ' kept';
        RETURN NULL;
      END IF;
    END IF;
  END IF;
  EXECUTE format('INSERT INTO %I VALUES ($1)', TG_ARGV[0]) USING msg;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE FUNCTION fz_log_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$INSERT INTO %I SELECT %L || ' ' || count(*) || ' ' || coalesce(string_agg(n::text, ',' ORDER BY n::text COLLATE "C"), '') FROM nt n$q$,
                 TG_ARGV[0], TG_NAME);
  RETURN NULL;
END $$;
CREATE FUNCTION fz_log_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('fz.internal', true) = 'on' THEN RETURN NULL; END IF;
  EXECUTE format($q$INSERT INTO %I SELECT %L || ' ' || count(*) || ' ' || coalesce(string_agg(o::text, ',' ORDER BY o::text COLLATE "C"), '') FROM ot o$q$,
                 TG_ARGV[0], TG_NAME);
  RETURN NULL;
END $$;

-- the state: contents and log, as one comparable text
CREATE FUNCTION fz_state(tbl text, lg text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE c text; l text;
BEGIN
  EXECUTE format('SELECT count(*) || '' '' || coalesce(md5(string_agg(t::text, E''\n'' ORDER BY t::text COLLATE "C")), '''') FROM %I t', tbl) INTO c;
  EXECUTE format('SELECT count(*) || '' '' || coalesce(md5(string_agg(msg, E''\n'' ORDER BY msg COLLATE "C")), '''') FROM %I', lg) INTO l;
  RETURN c || ' / ' || l;
END $$;
CREATE FUNCTION fz_dump(tbl text, lg text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT t::text FROM %I t ORDER BY t::text COLLATE "C"', tbl);
  RETURN QUERY EXECUTE format('SELECT ''log: '' || msg FROM %I ORDER BY msg COLLATE "C"', lg);
END $$;
};

# per side: {T} the table, {V} its view, {L} its log
# {R} reads it as wide does (h through hv, which applies mv's policy)
my %side = (W => { T => 'w', V => 'wv', L => 'lw', R => 'w' }, H => { T => 'h', V => 'hvw', L => 'lh', R => 'hv' });
sub inst
{
	my ($tmpl, $s) = @_;
	my $x = $tmpl;
	$x =~ s/\{(T|V|L|R)\}/$side{$s}{$1}/g;
	return $x;
}

# declared on both sides
my $both = q{
CREATE VIEW {V} AS SELECT * FROM {T} WHERE row_key < 'n' AND family <> 'mv' WITH CHECK OPTION;
CREATE FUNCTION {T}_del(k text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE n int8;
BEGIN
  DELETE FROM {T} WHERE row_key = k AND family <> 'mv';
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
CREATE FUNCTION {T}_sqldel(k text) RETURNS SETOF {T} LANGUAGE sql AS
  $$ DELETE FROM {T} WHERE row_key = k AND family <> 'mv' RETURNING * $$;
CREATE FUNCTION {T}_ins(k text, q text, v text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO {T} VALUES (k, 'cf', q, 7, v);
  INSERT INTO {T} VALUES (k, 'g', q, 7, v || '2');
END $$;
CREATE FUNCTION {T}_move(k text, k2 text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE n int8;
BEGIN
  WITH d AS (DELETE FROM {T} WHERE row_key = k AND family <> 'mv' RETURNING *)
    INSERT INTO {T} SELECT k2, family, qualifier, ts, value FROM d;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
};

# triggers: every kind wide accepts; a random subset, the same on both
my @triggers = (
	'CREATE TRIGGER t_bri BEFORE INSERT ON {T} FOR EACH ROW EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_brd BEFORE DELETE ON {T} FOR EACH ROW EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_bru BEFORE UPDATE ON {T} FOR EACH ROW EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_bsi BEFORE INSERT ON {T} FOR EACH STATEMENT EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_bsd BEFORE DELETE ON {T} FOR EACH STATEMENT EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_bsu BEFORE UPDATE ON {T} FOR EACH STATEMENT EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_bst BEFORE TRUNCATE ON {T} FOR EACH STATEMENT EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_asi AFTER INSERT ON {T} FOR EACH STATEMENT EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_asd AFTER DELETE ON {T} FOR EACH STATEMENT EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_ast AFTER TRUNCATE ON {T} FOR EACH STATEMENT EXECUTE FUNCTION fz_log({L})',
	'CREATE TRIGGER t_asin AFTER INSERT ON {T} REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION fz_log_new({L})',
	'CREATE TRIGGER t_asdo AFTER DELETE ON {T} REFERENCING OLD TABLE AS ot FOR EACH STATEMENT EXECUTE FUNCTION fz_log_old({L})',
);
my @rules = (
	# (rules do not see fz.internal's DELETE in h: it is conditional)
	"CREATE RULE r_ins_log AS ON INSERT TO {T} WHERE new.qualifier = 'log' DO INSTEAD INSERT INTO {L} VALUES ('rule ' || new.row_key || ' ' || new.value)",
	"CREATE RULE r_ins_also AS ON INSERT TO {T} WHERE new.family = 'g' AND new.ts = 5 DO ALSO INSERT INTO {L} VALUES ('also ' || new.row_key)",
	"CREATE RULE r_del_also AS ON DELETE TO {T} WHERE old.qualifier = 'k1' AND current_setting('fz.internal', true) IS DISTINCT FROM 'on' DO ALSO INSERT INTO {L} VALUES ('del ' || old.row_key || ' ' || old.ts)",
	"CREATE RULE r_del_instead AS ON DELETE TO {T} WHERE old.row_key = 'z' AND old.family = 'g' AND current_setting('fz.internal', true) IS DISTINCT FROM 'on' DO INSTEAD INSERT INTO {L} VALUES ('nodel ' || old.qualifier)",
);
my @decl = ($both);
for my $t (@triggers) { push @decl, $t if rnd(3); }
for my $r (@rules) { push @decl, $r if rnd(2); }
my $declared = join("\n", map { (my $x = $_) =~ s/^CREATE (TRIGGER|RULE) (\w+).*/$2/s; $x } @decl[1 .. $#decl]);
diag "triggers and rules: " . join(' ', split /\n/, $declared);
for my $s ('W', 'H')
{
	$setup .= join(";\n", map { inst($_, $s) } @decl) . ";\n";
}

# the initial cells, in both: some in segments, some in the write area
my %seen;
my @init;
for my $k (@keys)
{
	for (1 .. 2 + rnd(4))
	{
		my ($f, $q, $ts) = (pick(@fams), pick(@quals), rnd(5));
		next if $q eq 'log' || $seen{"$k\0$f\0$q\0$ts"}++;
		push @init, '(' . join(', ', lit($k), lit($f), lit($q), $ts, lit(pick('v', 'w', 'keep', 'x') . rnd(3))) . ')';
	}
}
my $half = int(@init / 2);
my $initial = 'INSERT INTO {T} VALUES ' . join(', ', @init[0 .. $half - 1]);
my $initial2 = 'INSERT INTO {T} VALUES ' . join(', ', @init[$half .. $#init]);
$setup .= 'SET fz.internal = on; ' . inst($initial, 'W') . '; ' . inst($initial, 'H') . ";\n";
$setup .= "SELECT FROM wide.compact('w', true);\n";
$setup .= inst($initial2, 'W') . '; ' . inst($initial2, 'H') . "; RESET fz.internal;\n";
$setup .= "TRUNCATE lw, lh;\n";

utf8::encode($setup);
$node->safe_psql('postgres', $setup);
is($node->safe_psql('postgres', "SELECT fz_state('w', 'lw') = fz_state('hv', 'lh')"), 't',
	'wide and heap start with the same cells');

# ----------------------------------------------------------------
# Statement generators (templates over {T}, {V}, {L})
# ----------------------------------------------------------------
my @cmp = ('=', '<>', '<', '<=', '>', '>=');

sub key_pred
{
	my ($a) = @_;
	my $c = rnd(8);
	return "$a.row_key " . pick(@cmp) . ' ' . lit(pick(@keys)) if $c < 3;
	return "$a.row_key LIKE " . lit(pick('a%', 'k%', 'b\\%%', '_', 'x\\_y', '%')) if $c < 4;
	return "$a.row_key IN (" . join(', ', map { lit(pick(@keys)) } 0 .. rnd(3)) . ')' if $c < 5;
	return "$a.row_key = ANY(ARRAY[" . join(', ', map { lit(pick(@keys)) } 0 .. rnd(3)) . '])' if $c < 6;
	return "$a.row_key BETWEEN " . lit(pick(@keys)) . ' AND ' . lit(pick(@keys)) if $c < 7;
	return "starts_with($a.row_key, " . lit(pick('a', 'k', 'b')) . ')';
}

sub other_pred
{
	my ($a) = @_;
	my $c = rnd(6);
	return "$a.family = " . lit(pick('cf', 'g')) if $c < 1;
	return "$a.qualifier " . pick(@cmp) . ' ' . lit(pick(@quals)) if $c < 3;
	return "$a.ts " . pick(@cmp) . ' ' . rnd(6) if $c < 4;
	return "$a.value LIKE " . lit(pick('v%', 'k%', '%1', 'x%', '%+')) if $c < 5;
	return "$a.qualifier IN (SELECT q FROM src WHERE n " . pick(@cmp) . ' ' . rnd(4) . ')';
}

sub pred
{
	my ($a, $d) = @_;
	$d //= 0;
	my $c = rnd(10);
	return key_pred($a) if $c < 4 || $d > 1;
	return other_pred($a) if $c < 7;
	return '(' . pred($a, $d + 1) . ' AND ' . pred($a, $d + 1) . ')' if $c < 8;
	return '(' . pred($a, $d + 1) . ' OR ' . pred($a, $d + 1) . ')' if $c < 9;
	return 'NOT (' . pred($a, $d + 1) . ')';
}

# a DELETE's condition: never on family mv (see the top)
sub dwhere { my ($a) = @_; return "$a.family <> 'mv' AND " . pred($a); }

sub returning
{
	# (a join's other columns: which duplicate join row comes first is open)
	my $a = defined $_[0] ? "$_[0]." : '';
	return pick('', '', $a eq '' ? ' RETURNING *' : " RETURNING ${a}*", " RETURNING ${a}row_key, ${a}qualifier, ${a}ts", " RETURNING ${a}value || '!', ${a}ts * 2");
}

sub a_cell
{
	my ($ts) = @_;
	return '(' . join(', ', lit(pick(@keys)), lit(pick('cf', 'g', 'mv')), lit(pick(@quals)),
		$ts // rnd(6), lit(pick(@vals) . rnd(3))) . ')';
}

# a VALUES list of distinct coordinates (one statement writing a cell twice
# is tried separately)
sub cells
{
	my ($ts) = @_;
	my %s;
	my @c;
	for (0 .. rnd(4))
	{
		my $c = a_cell($ts);
		my ($coords) = $c =~ /^\((.*), [^,]*\)$/;
		push @c, $c unless $s{$coords}++;
	}
	return join(', ', @c);
}

sub insert
{
	my $c = rnd(10);
	return "INSERT INTO {T} VALUES " . cells() . returning() if $c < 4;
	return "INSERT INTO {T} SELECT row_key || " . lit(pick('x', '2', '')) . ", family, qualifier, ts + " . rnd(3)
	  . ", value || '.' FROM {R} a WHERE " . pred('a') . returning() if $c < 6;
	return "INSERT INTO {T} (row_key, family, qualifier, ts, value) SELECT k, 'cf', q, n, 'src' FROM (SELECT DISTINCT k, q, n FROM src) s WHERE "
	  . pick('n > 1', 'k < \'m\'', 'true') . returning() if $c < 7;
	return "INSERT INTO {T} VALUES " . a_cell(9) . ", " . a_cell(9) . returning() if $c < 8;
	# write a cell twice in one statement: the last write wins
	if ($c < 9)
	{
		my ($k, $q) = (lit(pick(@keys)), lit(pick('q', 'q2', 'z')));
		return "INSERT INTO {T} VALUES ($k, 'cf', $q, 4, 'first'), ($k, 'cf', $q, 4, 'second')" . returning();
	}
	return "INSERT INTO {V} VALUES " . a_cell() . returning();
}

sub gen_delete
{
	my $c = rnd(16);
	return "DELETE FROM {T} a WHERE " . dwhere('a') . returning('a') if $c < 4;
	return "DELETE FROM {T} a USING src s WHERE a.row_key = s.k AND " . dwhere('a') . returning('a') if $c < 6;
	return "DELETE FROM {T} a USING src s WHERE a.qualifier = s.q AND s.n " . pick(@cmp) . ' ' . rnd(4)
	  . " AND a.family <> 'mv'" . returning('a') if $c < 7;
	return "DELETE FROM {T} a USING {R} b WHERE b.row_key = a.qualifier AND " . dwhere('a') . returning('a') if $c < 8;
	return "DELETE FROM {T} a WHERE a.family <> 'mv' AND a.row_key IN (SELECT k FROM src WHERE n " . pick(@cmp) . ' ' . rnd(4) . ')'
	  . returning('a') if $c < 9;
	return "DELETE FROM {T} a WHERE a.family <> 'mv' AND " . pick('', 'NOT ') . "EXISTS (SELECT 1 FROM src s WHERE s.k = a.row_key AND s.q = a.qualifier)"
	  . returning('a') if $c < 10;
	return "DELETE FROM {T} a WHERE a.family <> 'mv' AND a.ts = (SELECT max(b.ts) FROM {R} b WHERE b.row_key = a.row_key AND b.family <> 'mv')"
	  . returning('a') if $c < 11;
	return "DELETE FROM {T} a WHERE a.family <> 'mv' AND a.row_key IN (SELECT b.qualifier FROM {R} b WHERE " . pred('b') . ')'
	  . returning('a') if $c < 12;
	return "DELETE FROM {V} a WHERE " . pred('a') . returning('a') if $c < 13;
	return "DELETE FROM {T} a WHERE a.family <> 'mv' AND a.row_key = ANY(SELECT k FROM src, LATERAL (SELECT 1 FROM {R} c WHERE c.row_key = src.k LIMIT 1) l)"
	  . returning('a') if $c < 14;
	return "DELETE FROM ONLY {T} a WHERE " . dwhere('a') . " AND a.value NOT LIKE 'keep%'" . returning() if $c < 15;
	return "DELETE FROM {T} a WHERE " . dwhere('a') . " AND a.ts < 3";
}

sub cte
{
	my $c = rnd(5);
	# (the keys it writes are not ones it deletes: on the heap side, the
	# twin's replace trigger would delete a row the DELETE then meets)
	return "WITH d AS (DELETE FROM {T} a WHERE " . dwhere('a') . " AND a.row_key NOT LIKE '%m' RETURNING *) INSERT INTO {T} SELECT row_key || 'm', family, qualifier, ts, value FROM d"
	  . returning() if $c < 2;
	return "WITH d AS (DELETE FROM {T} a WHERE " . dwhere('a') . " RETURNING *) SELECT count(*), string_agg(row_key || qualifier, ',' ORDER BY row_key || qualifier COLLATE \"C\") FROM d"
	  if $c < 3;
	# two DELETEs of the table in one statement: a cell goes once
	return "WITH d1 AS (DELETE FROM {T} a WHERE " . dwhere('a') . " RETURNING *), d2 AS (DELETE FROM {T} b WHERE " . dwhere('b')
	  . " RETURNING *) SELECT (SELECT count(*) FROM d1) + (SELECT count(*) FROM d2)" if $c < 4;
	# (again, it does not delete what it writes: ts 11)
	return "WITH i AS (INSERT INTO {T} VALUES " . cells(11) . " RETURNING *) DELETE FROM {T} a USING i WHERE a.row_key = i.row_key AND a.family <> 'mv' AND a.ts <> 11"
	  . returning('a');
}

sub merge
{
	my $c = rnd(5);
	my $src = pick('src', '(SELECT DISTINCT ON (k) * FROM src ORDER BY k, n) ', "(SELECT * FROM src WHERE n = 1)");
	return "MERGE INTO {T} a USING $src s ON a.row_key = s.k AND a.qualifier = s.q AND a.family <> 'mv' WHEN MATCHED THEN DELETE" if $c < 2;
	return "MERGE INTO {T} a USING $src s ON a.row_key = s.k AND a.family = 'cf' AND a.qualifier = s.q AND a.ts = s.n"
	  . " WHEN MATCHED AND a.value LIKE " . lit(pick('v%', 'k%', 'w%')) . " THEN DELETE WHEN MATCHED THEN DO NOTHING"
	  . " WHEN NOT MATCHED THEN INSERT VALUES (s.k, 'cf', s.q, s.n, 'merged')" if $c < 4;
	return "MERGE INTO {T} a USING (VALUES " . join(', ', map { '(' . lit(pick(@keys)) . ', ' . rnd(5) . ')' } 0 .. rnd(3))
	  . ") s(k, n) ON a.row_key = s.k AND a.family = 'g' AND a.qualifier = 'q' AND a.ts = s.n WHEN NOT MATCHED THEN INSERT VALUES (s.k, 'g', 'q', s.n, 'mrg')";
}

sub func
{
	my $c = rnd(6);
	return "SELECT {T}_del(" . lit(pick(@keys)) . ")" if $c < 1;
	return "SELECT * FROM {T}_sqldel(" . lit(pick(@keys)) . ")" if $c < 2;
	return "SELECT {T}_ins(" . lit(pick(@keys)) . ", " . lit(pick('q', 'q2', 'log')) . ", " . lit(pick(@vals)) . ")" if $c < 3;
	return "SELECT {T}_move(" . lit(pick(@keys)) . ", " . lit(pick(@keys) . 'v') . ")" if $c < 4;
	return "DO \$\$ BEGIN " . insert_plain() . "; DELETE FROM {T} a WHERE " . dwhere('a') . "; END \$\$" if $c < 5;
	return "DO \$\$ BEGIN " . insert_plain() . "; BEGIN DELETE FROM {T} a WHERE " . dwhere('a') . "; INSERT INTO {T} VALUES "
	  . a_cell() . "; PERFORM 1/0; EXCEPTION WHEN division_by_zero THEN INSERT INTO {L} VALUES ('caught'); END; END \$\$";
}
sub insert_plain { return "INSERT INTO {T} VALUES " . cells(); }

# UPDATE: refused by wide when it meets a cell (the heap twin's first
# BEFORE UPDATE ROW trigger says the same)
sub update
{
	my $c = rnd(3);
	return "UPDATE {T} a SET value = a.value || 'u' WHERE " . dwhere('a') . returning('a') if $c < 1;
	return "UPDATE {V} a SET value = 'u' WHERE " . pred('a') if $c < 2;
	return "MERGE INTO {T} a USING (SELECT DISTINCT ON (k) * FROM src ORDER BY k, n) s ON a.row_key = s.k AND a.qualifier = s.q AND a.family <> 'mv'"
	  . " WHEN MATCHED THEN UPDATE SET value = 'mu'";
}

# COPY FROM STDIN, the rows inline; a step of its own (in a failed
# transaction psql would read the rows as SQL)
sub copy
{
	my %s;
	my @rows;
	for (0 .. rnd(6))
	{
		my @c = (pick(@keys), pick('cf', 'g', 'mv'), pick(@quals), rnd(6), pick(@vals) . rnd(3));
		push @rows, join("\t", @c) unless $s{"@c[0..3]"}++;
	}
	return "COPY {T} FROM STDIN;\n" . join("\n", @rows) . "\n\\.";
}

sub single
{
	my $c = rnd(21);
	return update() if $c == 20;
	return insert() if $c < 7;
	return gen_delete() if $c < 14;
	return cte() if $c < 16;
	return merge() if $c < 18;
	return func();
}

# a step: a list of statements
sub step
{
	my $c = rnd(20);
	return [ copy() ] if $c == 0;
	return [ single() ] if $c < 12;
	if ($c < 18)
	{
		my @s = ('BEGIN');
		my $sp = 0;
		for (0 .. rnd(5))
		{
			my $d = rnd(6);
			if ($d == 0) { push @s, 'SAVEPOINT sp'; $sp = 1; }
			elsif ($d == 1 && $sp) { push @s, 'ROLLBACK TO SAVEPOINT sp'; }
			elsif ($d == 2 && $sp) { push @s, 'RELEASE SAVEPOINT sp'; $sp = 0; }
			else { push @s, single(); }
		}
		push @s, pick('COMMIT', 'COMMIT', 'ROLLBACK');
		return \@s;
	}
	return [ 'TRUNCATE {T}', $initial ] if $c < 19;
	return [ "SELECT count(*) FROM wide.compact('w')" ];    # "SELECT 1" on the heap side
}

# ----------------------------------------------------------------
# Run: one psql script; psql's SQLSTATE and ROW_COUNT after each statement
# ----------------------------------------------------------------
# the rules are dropped half way: MERGE refuses a table with rules
my @steps = map { step() } 1 .. $nsteps;
my @dropped = map { /^CREATE RULE (\w+)/ ? ("DROP RULE $1 ON {T}") : () } @decl;
splice(@steps, int($nsteps / 2), 0, \@dropped) if @dropped;
my $script = "\\set QUIET on\n\\pset format unaligned\n\\pset tuples_only on\n\\set VERBOSITY terse\n";
my $nstmts = 0;
for my $i (0 .. $#steps)
{
	for my $s ('W', 'H')
	{
		$script .= "\\echo '\@\@ $i $s'\n";
		for my $st (@{ $steps[$i] })
		{
			my $x = inst($st, $s);
			$x = "SELECT count(*) FROM (SELECT 1) x" if $s eq 'H' && $x =~ /wide\.compact/;
			$script .= ($x =~ /\\\.$/ ? "$x\n" : "$x;\n") . "\\echo '\@s' :SQLSTATE :ROW_COUNT\n";
			$nstmts++ if $s eq 'W';
		}
	}
	$script .= "\\echo '\@\@ $i C'\nSELECT fz_state('w', 'lw') = fz_state('hv', 'lh');\n";
}
$script .= "\\echo '\@\@ end'\n";
utf8::encode($script);
if ($ENV{WIDE_DML_DUMP})
{
	open(my $fh, '>', $ENV{WIDE_DML_DUMP}) or die;
	print $fh $setup, $script;
	close $fh;
}

my ($stdout, $stderr) = ('', '');
my $t0 = time;
eval {
	$node->psql('postgres', $script, stdout => \$stdout, stderr => \$stderr, on_error_stop => 0);
};
my $secs = time - $t0;
utf8::decode($stdout);

# parse: per step and side, a list of [status, sorted rows]
my (%out, $cur);
for my $line (split /\n/, $stdout)
{
	if ($line =~ /^\@\@ (\d+|end) ?([WHC]?)$/)
	{
		$cur = $1 eq 'end' ? undef : "$1 $2";
		$out{$cur} = [ [ undef, [] ] ] if defined $cur;
		next;
	}
	next unless defined $cur;
	if ($line =~ /^\@s (\S+) (\S*)$/)
	{
		$out{$cur}[-1][0] = "$1 $2";
		push @{ $out{$cur} }, [ undef, [] ];
	}
	else
	{
		push @{ $out{$cur}[-1][1] }, $line;
	}
}

sub fmt
{
	my ($r) = @_;
	return join("\n", map {
		my ($st, $rows) = @$_;
		defined $st ? "  $st: " . join(' | ', sort @$rows) : ()
	} @$r);
}

my ($bad, $ok, $errors, $rowsret) = (0, 0, 0, 0);
my $firstbad;
my %states;
for my $i (0 .. $#steps)
{
	my ($w, $h, $c) = map { $out{"$i $_"} } ('W', 'H', 'C');
	if (!defined $c)
	{
		$bad++;
		diag "step $i: no result (server crash?)\n" . substr($stderr, -2000);
		last;
	}
	my ($fw, $fh) = (fmt($w), fmt($h));
	my $state = join('', @{ $c->[0][1] });
	if ($fw eq $fh && $state eq 't')
	{
		$ok++;
		for my $st ($fw =~ /^  (\w{5}) /mg)
		{
			$states{$st}++;
			$errors++ if $st ne '00000';
		}
		$rowsret += scalar(@{ $_->[1] }) for @$w;
		next;
	}
	$bad++;
	$firstbad //= $i;
	if ($bad <= 5)
	{
		diag "step $i (seed $seed) differs:\n  " . join(";\n  ", @{ $steps[$i] })
		  . "\n-- wide:\n$fw\n-- heap:\n$fh\n-- same contents and log after it: $state";
	}
}
if (defined $firstbad)
{
	# from the first bad step on, the rest follows; show the contents
	diag "contents after the run, wide then heap:\n"
	  . $node->safe_psql('postgres', "SELECT * FROM fz_dump('w', 'lw') EXCEPT ALL SELECT * FROM fz_dump('hv', 'lh')")
	  . "\n--\n"
	  . $node->safe_psql('postgres', "SELECT * FROM fz_dump('hv', 'lh') EXCEPT ALL SELECT * FROM fz_dump('w', 'lw')");
}
my $log = $node->safe_psql('postgres', "SELECT count(*) FROM lw");
diag "dml fuzz: $nsteps steps, $nstmts statements per side in ${secs}s; $ok agree ($errors statements failing alike, "
  . "$rowsret rows returned, $log log lines), $bad differ";
diag "statuses: " . join(', ', map { "$_ $states{$_}" } sort keys %states);
is($bad, 0, "$nsteps random DML steps agree on wide and heap, seed $seed");

# the log shows that the triggers and rules fired
cmp_ok($log, '>', 0, 'triggers and rules left side effects');
$node->stop;
done_testing();
