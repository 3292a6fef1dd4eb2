# WideFuzz.pm -- what the differential fuzz TAP tests share.
#
# rnd($n), pick(@list), lit($s): a random integer in [0, n), a random
# element, an SQL string literal (rand(): the test's srand seeds them).
#
# differential_sql(): SQL that creates fz_rows(q), a query's rows as sorted
# text (or 'ERROR sqlstate'), and fz(q, prep, args), which runs the
# template q over {T} three ways -- the wide table w with
# wide.enable_customscan on, with it off, and the heap copy h -- as it is
# (prep '') or as a generic plan prepared with the parameter types prep and
# executed with each argument list of args.  It returns 'ok' followed by
# tags of what the plans showed (keys, columns, param, list, backward,
# filter) and of the heap's answer (error, empty), or MISMATCH with the
# plan and the three results.
#
# differential_run($node, $seed, $nqueries, $query, $join_re): runs
# $nqueries queries from $query->() (template, parameter types, argument
# lists) through fz, half of those matching $join_re with hash and merge
# joins off; a failure prints the seed, the query and the results (at most
# five).  Passes one test for the whole, returns the tags seen (tag ->
# count).
package WideFuzz;

use strict;
use warnings;
use Exporter 'import';
use Test::More;

our @EXPORT = qw(rnd pick lit differential_sql differential_run);

sub rnd { return int(rand($_[0])); }
sub pick { return $_[ rnd(scalar @_) ]; }
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }

sub differential_sql
{
	return q{CREATE FUNCTION fz_rows(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r record;
	acc text[] := '{}';
BEGIN
	FOR r IN EXECUTE q LOOP
		acc := acc || r::text;
	END LOOP;
	SELECT coalesce(array_agg(x ORDER BY x COLLATE "C"), '{}') INTO acc FROM unnest(acc) x;
	RETURN array_to_string(acc, E'\n', '<null>');
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE;
END
$f$;

-- q: the template over {T}; prep: parameter types or ''; args: EXECUTE lists
CREATE FUNCTION fz(q text, prep text, args text[]) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	res text[] := '{}';
	cfg text;
	body text;
	one text;
	a text;
	plan text;
	shown text := '';
BEGIN
	FOREACH cfg IN ARRAY ARRAY['on', 'off', 'heap'] LOOP
		PERFORM set_config('wide.enable_customscan', CASE cfg WHEN 'off' THEN 'off' ELSE 'on' END, true);
		body := replace(q, '{T}', CASE cfg WHEN 'heap' THEN 'h' ELSE 'w' END);
		IF prep = '' THEN
			one := fz_rows(body);
			IF cfg = 'on' THEN
				FOR plan IN EXECUTE 'EXPLAIN ' || body LOOP
					shown := shown || plan || E'\n';
				END LOOP;
			END IF;
		ELSE
			PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
			DEALLOCATE ALL;
			EXECUTE format('PREPARE fzp(%s) AS %s', prep, body);
			one := '';
			FOREACH a IN ARRAY args LOOP
				one := one || '#' || fz_rows('EXECUTE fzp(' || a || ')') || E'\n';
				IF cfg = 'on' THEN
					FOR plan IN EXECUTE 'EXPLAIN EXECUTE fzp(' || a || ')' LOOP
						shown := shown || plan || E'\n';
					END LOOP;
				END IF;
			END LOOP;
			DEALLOCATE fzp;
		END IF;
		res := res || one;
	END LOOP;
	IF res[1] = res[3] AND res[2] = res[3] THEN
		RETURN 'ok'
			|| CASE WHEN shown ~ 'Row Keys: [^a]' THEN ' keys' ELSE '' END
			|| CASE WHEN shown ~ '(Families|Qualifiers):' THEN ' columns' ELSE '' END
			|| CASE WHEN shown ~ 'Row Keys: [^\n]*(row_key [=<>^]+|ANY|1\) =) \(?o\.' THEN ' param' ELSE '' END
			|| CASE WHEN shown ~ 'Row Keys: [^\n]*( OR |split_part)' THEN ' list' ELSE '' END
			|| CASE WHEN shown ~ 'Scan Direction: Backward' THEN ' backward' ELSE '' END
			|| CASE WHEN shown ~ 'Filter:' THEN ' filter' ELSE '' END
			|| CASE WHEN res[3] ~ '^#?ERROR' THEN ' error' WHEN res[3] ~ '^(#\n)*$' THEN ' empty' ELSE '' END;
	END IF;
	RETURN format(E'MISMATCH\n-- plan:\n%s-- wide, Wide Scan on:\n%s\n-- wide, Wide Scan off:\n%s\n-- heap:\n%s',
				  shown, res[1], res[2], res[3]);
END
$f$;
};
}

sub differential_run
{
	my ($node, $seed, $nqueries, $query, $join_re) = @_;
	my %seen;
	my $bad = 0;
	for my $i (1 .. $nqueries)
	{
		my ($q, $prep, $args) = $query->();
		my $set = '';
		$set = 'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; '
		  if $q =~ $join_re && rnd(2);
		my $sql = "BEGIN; $set SELECT fz(" . lit($q) . ", " . lit($prep) . ", ARRAY["
		  . join(', ', map { lit($_) } @$args) . "]::text[]); COMMIT;";
		utf8::encode($sql);
		my ($ret, $out, $err) = $node->psql('postgres', $sql);
		$out =~ s/^\s+|\s+$//g;
		if ($ret != 0 || $out !~ /^ok/)
		{
			$bad++;
			fail("query $i");
			diag "seed $seed, query $i: $set$q\n" . ($prep ? "($prep) with @$args\n" : '') . "$out\n$err";
			last if $bad >= 5;
			next;
		}
		$seen{$_}++ for split / /, $out;
	}
	is($bad, 0, "$nqueries random queries: Wide Scan on = off = heap");
	diag join(', ', map { "$_: $seen{$_}" } sort keys %seen);
	return \%seen;
}

1;
