# Random row filters through wide.read_rows (issue 9's filter fuzzer).
#
# Every filter type, nested at random (now and then thousands deep), with
# random arguments, some of them bad.  The server must never crash or
# raise an internal error (XX000): a bad filter gets a clean user error.
# Well-formed filters without row_sample_filter are also checked against
# an independent model: the same cells kept in Perl, filtered by this
# file's own evaluator of Bigtable's filter semantics (chain, interleave,
# condition, labels, strip, limits and offsets, ranges, whole-string
# regexes), with random row sets (keys, prefix), limits and reversed reads.
# check_and_mutate_row's predicate is checked against the same model.
#
# Fixed seed and count in CI; any other by environment:
#   WIDE_FUZZ_SEED=123 WIDE_FUZZ_COUNT=20000 prove ... test/t/071_filter_fuzz.pl
# The seed is printed; a failure prints the filter that caused it.
use strict;
use warnings;
no warnings 'recursion';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seed = $ENV{WIDE_FUZZ_SEED} // 20261123;
my $count = $ENV{WIDE_FUZZ_COUNT} // 2000;
srand($seed);
diag("filter fuzz: seed $seed, $count filters (WIDE_FUZZ_SEED, WIDE_FUZZ_COUNT)");

# ----------------------------------------------------------------
# the data: rows of cells, kept here as the model
# ----------------------------------------------------------------
my @families = ('f1', 'f2', 'g');
my @quals = ('', 'a', 'b', 'q1', 'q2', 'qq', 'x.y', 'ab');
my @tss = (0, 1, 5, 1000, 2000, '9223372036854775806', '9223372036854775807');
my @values = ('', 'v1', 'abc', 'xyz', '10', '9', 'ab', 'a.b', 'v');
my @rowkeys = ((map { sprintf('r%02d', $_) } 0 .. 13), 'a.b', 'x', 'r1');

my (%rows, %seen);
for my $k (@rowkeys)
{
	my $n = 1 + int(rand(10));
	for (1 .. $n)
	{
		my ($f, $q, $ts) = ($families[ rand @families ], $quals[ rand @quals ], $tss[ rand @tss ]);
		next if $seen{"$k\t$f\t$q\t$ts"}++;
		push @{ $rows{$k} }, { key => $k, fam => $f, qual => $q, ts => $ts, value => $values[ rand @values ] };
	}
}
# and one wide row: interleave buffers past the allocator's small chunks
for my $i (0 .. 299)
{
	push @{ $rows{wide} }, { key => 'wide', fam => $families[ $i % 2 ], qual => sprintf('c%03d', $i),
		ts => $tss[ $i % @tss ], value => $values[ $i % @values ] };
}
sub ts_cmp { my ($x, $y) = @_; return length($x) <=> length($y) || $x cmp $y; }  # non-negative integers
for my $k (keys %rows)
{
	@{ $rows{$k} } = sort {
		     $a->{fam} cmp $b->{fam}
		  || $a->{qual} cmp $b->{qual}
		  || ts_cmp($b->{ts}, $a->{ts})
	} @{ $rows{$k} };
}
my @keys_sorted = sort keys %rows;

my $node = PostgreSQL::Test::Cluster->new('filter_fuzz');
$node->init;
# a crash is reported with the filter that caused it, and the run goes on
$node->append_conf('postgresql.conf', 'restart_after_crash = on');
$node->start;
my $inserts = join(",\n", map {
	my $c = $_;
	sprintf("('%s', '%s', '%s', %s, '%s')", $c->{key}, $c->{fam}, $c->{qual}, $c->{ts}, $c->{value})
} map { @{ $rows{$_} } } @keys_sorted);
$node->safe_psql('postgres', qq{
	CREATE EXTENSION wide;
	CREATE TABLE t (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('t', 'f1');
	SELECT wide.create_family('t', 'f2');
	SELECT wide.create_family('t', 'g');
	INSERT INTO t VALUES $inserts;
	-- the same with numbers and bytes for values (crash checks only)
	CREATE TABLE tn (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
	SELECT wide.create_family('tn', 'f1');
	INSERT INTO tn SELECT 'r' || (i % 7), 'f1', 'q' || (i % 5), i, i * 37 - 500 FROM generate_series(1, 60) i;
	CREATE TABLE tb (row_key text, family text, qualifier text, ts int8, value bytea) USING wide;
	SELECT wide.create_family('tb', 'f1');
	INSERT INTO tb SELECT 'r' || (i % 7), 'f1', 'q' || (i % 5), i, decode(md5(i::text), 'hex') FROM generate_series(1, 60) i;
	SELECT FROM wide.compact('t', major => true);
	SELECT FROM wide.compact('tn');

	-- one read: 'OK ' and the cells, or 'ERR ' and the SQLSTATE
	CREATE FUNCTION try_read(tbl text, f text, lim bigint, rev boolean, ks text[], pfx text)
	RETURNS text LANGUAGE plpgsql AS \$\$
	DECLARE r text;
	BEGIN
	  IF tbl = 't' THEN
	    SELECT string_agg(concat_ws('~', (c).row_key, (c).family, (c).qualifier, (c).ts,
	                                coalesce((c).value, '<null>'), array_to_string(labels, ',')),
	                      ' ;; ' ORDER BY ord) INTO r
	      FROM wide.read_rows_labeled(NULL::t, keys => ks, prefix => pfx, "limit" => lim,
	                                  reversed => rev, filter => f::jsonb) WITH ORDINALITY x(c, labels, ord);
	  ELSIF tbl = 'tn' THEN
	    SELECT count(*)::text INTO r
	      FROM wide.read_rows_labeled(NULL::tn, keys => ks, prefix => pfx, "limit" => lim,
	                                  reversed => rev, filter => f::jsonb);
	  ELSIF tbl = 'tb' THEN
	    SELECT count(*)::text INTO r
	      FROM wide.read_rows(NULL::tb, keys => ks, prefix => pfx, "limit" => lim,
	                          reversed => rev, filter => f::jsonb);
	  ELSE
	    -- check_and_mutate_row's predicate on one row: did it match?
	    r := wide.check_and_mutate_row('t', ks[1], f::jsonb)::text;
	  END IF;
	  RETURN 'OK ' || coalesce(r, '');
	EXCEPTION WHEN OTHERS THEN
	  RETURN 'ERR ' || SQLSTATE || ' ' || replace(SQLERRM, E'\n', ' ');
	END \$\$;
});

# ----------------------------------------------------------------
# filters: Perl structures, written as JSON here
# ----------------------------------------------------------------
sub raw { my $s = shift; return bless \$s, 'RAW'; }

sub json_str
{
	my $s = shift;
	$s =~ s/(["\\])/\\$1/g;
	return "\"$s\"";
}

# the JSON text of a filter (pieces gathered, joined once: deep filters
# stay linear)
sub enc_into
{
	my ($v, $out) = @_;
	my $r = ref $v;
	if (!defined $v) { push @$out, 'null'; }
	elsif ($r eq 'RAW') { push @$out, $$v; }
	elsif ($r eq 'ARRAY')
	{
		push @$out, '[';
		for my $i (0 .. $#$v)
		{
			push @$out, ',' if $i > 0;
			enc_into($v->[$i], $out);
		}
		push @$out, ']';
	}
	elsif ($r eq 'HASH')
	{
		my $first = 1;
		push @$out, '{';
		for my $k (sort keys %$v)
		{
			push @$out, ',' if !$first;
			$first = 0;
			push @$out, json_str($k), ':';
			enc_into($v->{$k}, $out);
		}
		push @$out, '}';
	}
	else { push @$out, json_str($v); }
}

sub enc
{
	my @out;
	enc_into($_[0], \@out);
	return join('', @out);
}

my @regexes = ('f1', 'f.', 'g', '.*', 'q[0-9]', 'q1|q2', 'a', '', 'r0[0-4]', 'r.*', 'x.y',
	'x\\.y', 'v1', '[a-c]+', 'ab?c', '1.*', '(?:a|b)', 'q+', '.+', '\\d+', 'a.b', 'r1');
my @bounds = ('', 'a', 'ab', 'abc', 'b', 'q', 'q1', 'q2', 'v', 'v1', 'x.y', 'z', '1', '9');
my @bad_regexes = ('(', '[', 'a{2,1}', '*', '\\', '(?', 'a**', '[z-a]', '(?P<x>a', 'a{1001}', '\\8');
my $nondet;    # row_sample_filter makes a filter random

sub pick { return $_[ rand @_ ]; }

# a bad filter (or bad part of one): each is refused with a user error
sub bad_filter
{
	my @c = (
		sub { +{ nope => raw('true') } },
		sub { +{ pass_all_filter => raw('true'), block_all_filter => raw('true') } },
		sub { +{} },
		sub { pick(raw('[]'), raw('1'), 'x', raw('null'), raw('true')) },
		sub { +{ pick('pass_all_filter', 'block_all_filter', 'strip_value_transformer') => pick(raw('false'), raw('1'), 'true', raw('null')) } },
		sub { +{ pick('row_key_regex_filter', 'family_name_regex_filter', 'column_qualifier_regex_filter', 'value_regex_filter') => pick(@bad_regexes) } },
		sub { +{ value_regex_filter => pick(raw('5'), raw('[]'), raw('{}')) } },
		sub { +{ row_sample_filter => pick(raw('0'), raw('1'), raw('1.5'), raw('-0.1'), '0.5', raw('1e400'), raw('null')) } },
		sub { +{ pick('cells_per_row_offset_filter', 'cells_per_row_limit_filter', 'cells_per_column_limit_filter') => pick(raw('-1'), raw('1.5'), '3', raw('1e30'), raw('-9223372036854775809'), raw('[]')) } },
		sub { +{ cells_per_row_limit_filter => raw('0') } },
		sub { +{ timestamp_range_filter => pick({ start_timestamp_micros => raw('-1') }, { start_timestamp_micros => raw('10'), end_timestamp_micros => raw('5') }, { nope => raw('1') }, { end_timestamp_micros => 'x' }, { start_timestamp_micros => raw('1e20') }, raw('5'), raw('[]')) } },
		sub { +{ column_range_filter => pick({}, { family_name => raw('5') }, { family_name => 'f1', start_qualifier_closed => 'a', start_qualifier_open => 'b' }, { family_name => 'f1', end_qualifier_closed => 'a', end_qualifier_open => 'b' }, { family_name => 'f1', nope => 'x' }, { family_name => 'f1', start_qualifier_closed => raw('1') }, 'f1') } },
		sub { +{ value_range_filter => pick({ start_value_closed => 'a', start_value_open => 'b' }, { end_value_closed => raw('[]') }, { start_value_open => raw('null') }, { nope => 'x' }, raw('1')) } },
		sub { +{ apply_label_transformer => pick(raw('5'), raw('null'), raw('[]')) } },
		sub { +{ pick('chain', 'interleave') => pick(raw('{}'), raw('5'), 'x', [ raw('1') ], [ {} ], raw('null')) } },
		sub { +{ condition => pick({}, { predicate_filter => raw('1') }, { true_filter => { pass_all_filter => raw('true') } }, { predicate_filter => { pass_all_filter => raw('true') }, nope => raw('1') }, raw('[]')) } },
		sub { +{ sink => raw('true') } },
	);
	return pick(@c)->();
}

# a random filter; $$bad is set if any part is bad
sub gen
{
	my ($depth, $bad) = @_;
	if (rand() < 0.04)
	{
		$$bad = 1;
		return bad_filter();
	}
	my $r = rand();
	if ($depth > 0 && $r < 0.32)
	{
		my $kind = pick('chain', 'interleave', 'condition');
		if ($kind eq 'condition')
		{
			my %c = (pick('predicate_filter', 'predicate') => gen($depth - 1, $bad));
			$c{true_filter} = gen($depth - 1, $bad) if rand() < 0.7;
			$c{false_filter} = gen($depth - 1, $bad) if rand() < 0.5;
			return { condition => \%c };
		}
		my $n = int(rand($kind eq 'chain' ? 4 : 3.3));
		return { $kind => [ map { gen($depth - 1, $bad) } 1 .. $n ] };
	}
	my @leaf = (
		sub { +{ pass_all_filter => raw('true') } },
		sub { +{ block_all_filter => raw('true') } },
		sub { +{ strip_value_transformer => raw('true') } },
		sub { +{ apply_label_transformer => pick('l1', 'l2', 'x', '', 'a-b') } },
		sub { +{ row_key_regex_filter => pick(@regexes) } },
		sub { +{ family_name_regex_filter => pick(@regexes) } },
		sub { +{ column_qualifier_regex_filter => pick(@regexes) } },
		sub { +{ value_regex_filter => pick(@regexes) } },
		sub { $nondet = 1; +{ row_sample_filter => raw(pick('0.5', '0.01', '0.99')) } },
		sub { +{ cells_per_row_offset_filter => raw(pick(0, 1, 2, 5, 100, '9223372036854775807')) } },
		sub { +{ cells_per_row_limit_filter => raw(pick(1, 2, 3, 7, '9223372036854775807')) } },
		sub { +{ cells_per_column_limit_filter => raw(pick(1, 2, 3, '9223372036854775807')) } },
		sub {
			my %a;
			$a{start_timestamp_micros} = raw(pick(@tss, 6)) if rand() < 0.6;
			$a{end_timestamp_micros} = raw(pick(0, @tss, 6)) if rand() < 0.6;
			$a{end_timestamp_micros} = raw(0) if $a{start_timestamp_micros} && $a{end_timestamp_micros}
			  && ${ $a{end_timestamp_micros} } ne '0'
			  && ts_cmp(${ $a{end_timestamp_micros} }, ${ $a{start_timestamp_micros} }) < 0;
			+{ timestamp_range_filter => \%a };
		},
		sub {
			my %a = (family_name => pick(@families, 'h'));
			$a{ pick('start_qualifier_closed', 'start_qualifier_open') } = pick(@bounds) if rand() < 0.6;
			$a{ pick('end_qualifier_closed', 'end_qualifier_open') } = pick(@bounds) if rand() < 0.6;
			+{ column_range_filter => \%a };
		},
		sub {
			my %a;
			$a{ pick('start_value_closed', 'start_value_open') } = pick(@bounds) if rand() < 0.6;
			$a{ pick('end_value_closed', 'end_value_open') } = pick(@bounds) if rand() < 0.6;
			+{ value_range_filter => \%a };
		},
	);
	return pick(@leaf)->();
}

# now and then: thousands deep, by one of a few shapes
sub gen_deep
{
	my ($bad) = @_;
	my $d = pick(50, 300, 1000, 3000, 6000, 9000);
	$nondet = 1 if $d > 1000;	# checked for a clean outcome only (the model is slow)
	my $shape = pick('chain', 'interleave', 'predicate', 'true', 'label');
	my $f = gen(1, $bad);
	for (1 .. $d)
	{
		$f = { chain => [$f] } if $shape eq 'chain';
		$f = { interleave => [ { block_all_filter => raw('true') }, $f ] } if $shape eq 'interleave';
		$f = { condition => { predicate_filter => $f, true_filter => { pass_all_filter => raw('true') } } }
		  if $shape eq 'predicate';
		$f = { condition => { predicate_filter => { pass_all_filter => raw('true') }, true_filter => $f } }
		  if $shape eq 'true';
		$f = { chain => [ { apply_label_transformer => 'd' }, $f ] } if $shape eq 'label' && $_ <= 200;
	}
	return $f;
}

# ----------------------------------------------------------------
# the model: Bigtable's filter semantics over the cells above
# ----------------------------------------------------------------
sub whole_match { my ($re, $s) = @_; return $s =~ /\A(?:$re)\z/ ? 1 : 0; }

sub in_ts_range
{
	my ($r, $ts) = @_;
	my $from = $r->{start_timestamp_micros} ? ${ $r->{start_timestamp_micros} } : 0;
	my $to = $r->{end_timestamp_micros} ? ${ $r->{end_timestamp_micros} } : 0;
	return 0 if ts_cmp($ts, $from) < 0;
	return 1 if $to eq '0' || $to eq '9223372036854775807';
	return ts_cmp($ts, $to) < 0 ? 1 : 0;
}

sub in_range
{
	my ($r, $v, $prefix) = @_;
	my ($lo, $hi) = ("start_${prefix}_closed", "end_${prefix}_closed");
	my ($lo_open, $hi_open) = ("start_${prefix}_open", "end_${prefix}_open");
	return 0 if exists $r->{$lo} && ($v cmp $r->{$lo}) < 0;
	return 0 if exists $r->{$lo_open} && ($v cmp $r->{$lo_open}) <= 0;
	return 0 if exists $r->{$hi} && ($v cmp $r->{$hi}) > 0;
	return 0 if exists $r->{$hi_open} && ($v cmp $r->{$hi_open}) >= 0;
	return 1;
}

# entries: [cell index, strip, [labels]], never changed once made
sub model
{
	my ($f, $key, $cells, $in) = @_;
	return [] if !@$in;
	my ($name) = keys %$f;
	my $arg = $f->{$name};
	my @out;
	if ($name eq 'pass_all_filter') { return $in; }
	if ($name eq 'block_all_filter') { return []; }
	if ($name eq 'chain')
	{
		my $e = $in;
		$e = model($_, $key, $cells, $e) for @$arg;
		return $e;
	}
	if ($name eq 'interleave')
	{
		my @all;
		for my $sub (@$arg)
		{
			push @all, @{ model($sub, $key, $cells, $in) };
		}
		my $i = 0;
		my @tagged = map { [ $_, $i++ ] } @all;
		return [ map { $_->[0] } sort { $a->[0][0] <=> $b->[0][0] || $a->[1] <=> $b->[1] } @tagged ];
	}
	if ($name eq 'condition')
	{
		my $p = $arg->{predicate_filter} // $arg->{predicate};
		my $m = model($p, $key, $cells, $in);
		my $branch = @$m ? $arg->{true_filter} : $arg->{false_filter};
		return $branch ? model($branch, $key, $cells, $in) : [];
	}
	if ($name eq 'strip_value_transformer') { return [ map { [ $_->[0], 1, $_->[2] ] } @$in ]; }
	if ($name eq 'apply_label_transformer') { return [ map { [ $_->[0], $_->[1], [ @{ $_->[2] }, $arg ] ] } @$in ]; }
	if ($name eq 'row_key_regex_filter') { return whole_match($arg, $key) ? $in : []; }
	if ($name eq 'cells_per_row_offset_filter') { my $n = $$arg; return $n >= @$in ? [] : [ @$in[ $n .. $#$in ] ]; }
	if ($name eq 'cells_per_row_limit_filter') { my $n = $$arg; return $n >= @$in ? $in : [ @$in[ 0 .. $n - 1 ] ]; }
	if ($name eq 'cells_per_column_limit_filter')
	{
		my ($prev, $count) = (undef, 0);
		for my $e (@$in)
		{
			my $c = $cells->[ $e->[0] ];
			my $col = "$c->{fam}\t$c->{qual}";
			$count = 0 if !defined $prev || $prev ne $col;
			$prev = $col;
			push @out, $e if $count++ < ${$arg};
		}
		return \@out;
	}
	for my $e (@$in)
	{
		my $c = $cells->[ $e->[0] ];
		my $pass =
		    $name eq 'family_name_regex_filter' ? whole_match($arg, $c->{fam})
		  : $name eq 'column_qualifier_regex_filter' ? whole_match($arg, $c->{qual})
		  : $name eq 'value_regex_filter' ? whole_match($arg, $c->{value})
		  : $name eq 'timestamp_range_filter' ? in_ts_range($arg, $c->{ts})
		  : $name eq 'column_range_filter' ? ($c->{fam} eq $arg->{family_name} && in_range($arg, $c->{qual}, 'qualifier'))
		  : $name eq 'value_range_filter' ? in_range($arg, $c->{value}, 'value')
		  : die "model: unknown filter $name";
		push @out, $e if $pass;
	}
	return \@out;
}

# the expected result of a read, as try_read writes it
sub expect
{
	my ($f, $p) = @_;
	my @ks = @keys_sorted;
	if ($p->{keys} || defined $p->{prefix})
	{
		# the row set is the union of the keys and the prefix's rows
		my %want = map { $_ => 1 } @{ $p->{keys} // [] };
		@ks = grep {
			$want{$_} || (defined $p->{prefix} && substr($_, 0, length $p->{prefix}) eq $p->{prefix})
		} @ks;
	}
	@ks = reverse @ks if $p->{reversed};
	my (@lines, $nrows);
	$nrows = 0;
	for my $k (@ks)
	{
		last if defined $p->{limit} && $nrows >= $p->{limit};
		my $cells = $rows{$k};
		my $out = model($f, $k, $cells, [ map { [ $_, 0, [] ] } 0 .. $#$cells ]);
		next if !@$out;
		$nrows++;
		for my $e (@$out)
		{
			my $c = $cells->[ $e->[0] ];
			push @lines, join('~', $k, $c->{fam}, $c->{qual}, $c->{ts}, $e->[1] ? '' : $c->{value}, join(',', @{ $e->[2] }));
		}
	}
	return 'OK ' . join(' ;; ', @lines);
}

# ----------------------------------------------------------------
# the run
# ----------------------------------------------------------------
# user errors a bad filter may get; anything else is a failure
my %user_error = map { $_ => 1 } qw(22023 2201B 22003 22P02 54000 54001 22032 2200N 22030);

sub sql_lit
{
	my $s = shift;
	return 'NULL' if !defined $s;
	$s =~ s/'/''/g;
	return "'$s'";
}

my @cases;
for my $i (1 .. $count)
{
	my $bad = 0;
	$nondet = 0;
	my $deep = rand() < 0.03;
	my $f = $deep ? gen_deep(\$bad) : gen(int(rand(6)), \$bad);
	my $skip_model = $nondet;
	my %p = (tbl => 't');
	my $r = rand();
	if ($r < 0.1) { $p{tbl} = pick('tn', 'tb'); }
	elsif ($r < 0.2 && !$deep) { $p{tbl} = 'cam'; $p{keys} = [ pick(@keys_sorted, 'nope') ]; }
	else
	{
		$p{keys} = [ map { pick(@keys_sorted, 'nope', 'r99') } 1 .. 1 + int(rand(5)) ] if rand() < 0.15;
		$p{prefix} = pick('r0', 'r1', 'a', '') if rand() < 0.1;
		$p{reversed} = 1 if rand() < 0.15;
		$p{limit} = int(rand(5)) if rand() < 0.2;
	}
	push @cases, { id => $i, f => $f, json => enc($f), bad => $bad, deep => $deep, nondet => $skip_model, %p };
}

sub case_sql
{
	my $c = shift;
	return sprintf('(%d, %s, %s, %s::bigint, %s::boolean, %s::text[], %s::text)',
		$c->{id}, sql_lit($c->{tbl}), sql_lit($c->{json}), $c->{limit} // 'NULL',
		$c->{reversed} ? 'true' : 'false',
		$c->{keys} ? 'ARRAY[' . join(',', map { sql_lit($_) } @{ $c->{keys} }) . ']' : 'NULL',
		sql_lit($c->{prefix}));
}

# run cases in one query; id => result, or undef if the backend died
sub run_batch
{
	my @batch = @_;
	my $sql = 'SELECT id || \'|\' || try_read(tbl, f, lim, rev, ks, pfx) FROM (VALUES '
	  . join(",\n", map { case_sql($_) } @batch)
	  . ') v(id, tbl, f, lim, rev, ks, pfx) ORDER BY id';
	my ($ret, $out, $err) = $node->psql('postgres', $sql);
	return undef if $ret != 0;
	my %res;
	for my $line (split /\n/, $out)
	{
		my ($id, $r) = split /\|/, $line, 2;
		$res{$id} = $r;
	}
	return \%res;
}

my (%stats, @failures);
my $batchsize = 40;
for (my $i = 0; $i < @cases; $i += $batchsize)
{
	my @batch = @cases[ $i .. ($i + $batchsize - 1 > $#cases ? $#cases : $i + $batchsize - 1) ];
	my $res = run_batch(@batch);
	if (!defined $res)
	{
		# a backend died: find which filters did it, one at a time
		$node->poll_query_until('postgres', 'SELECT true');
		for my $c (@batch)
		{
			my $one = run_batch($c);
			if (!defined $one)
			{
				push @failures, "crash: table $c->{tbl}, filter $c->{json}";
				$node->poll_query_until('postgres', 'SELECT true');
				$stats{crash}++;
				next;
			}
			$res->{ $c->{id} } = $one->{ $c->{id} };
		}
	}
	for my $c (@batch)
	{
		my $r = $res->{ $c->{id} };
		next if !defined $r;
		if ($r =~ /^ERR (\S+)/)
		{
			my $state = $1;
			$stats{"error $state"}++;
			if ($state eq 'XX000' || !$user_error{$state})
			{
				push @failures, "$r: table $c->{tbl}, filter $c->{json}";
			}
			elsif (!$c->{bad} && !($state eq '54001' && $c->{deep})
				&& ($c->{tbl} eq 't' || $c->{tbl} eq 'cam'))
			{
				push @failures, "a well-formed filter failed: $r: table $c->{tbl}, filter $c->{json}";
			}
			next;
		}
		$stats{ok}++;
		if ($c->{bad} && !$c->{deep})
		{
			push @failures, "a bad filter was accepted: table $c->{tbl}, filter $c->{json}";
			next;
		}
		next if $c->{nondet} || ($c->{tbl} ne 't' && $c->{tbl} ne 'cam');
		my $want;
		if ($c->{tbl} eq 'cam')
		{
			my $k = $c->{keys}[0];
			my $cells = $rows{$k} // [];
			my $out = @$cells ? model($c->{f}, $k, $cells, [ map { [ $_, 0, [] ] } 0 .. $#$cells ]) : [];
			$want = 'OK ' . (@$out ? 'true' : 'false');
		}
		else
		{
			$want = expect($c->{f}, $c);
		}
		$stats{checked}++;
		if ($r ne $want)
		{
			push @failures, sprintf("model mismatch (%s): filter %s\n  got:  %s\n  want: %s",
				join(' ', map { "$_=" . (ref $c->{$_} ? join(',', @{ $c->{$_} }) : $c->{$_}) }
					grep { defined $c->{$_} } qw(tbl limit reversed keys prefix)),
				length($c->{json}) > 2000 ? substr($c->{json}, 0, 2000) . '...' : $c->{json}, $r, $want);
		}
	}
}

diag(join(', ', map { "$_: $stats{$_}" } sort keys %stats));
is(scalar(@failures), 0, "$count random filters: no crash, no internal error, results as the model's")
  or diag(join("\n", @failures[ 0 .. (@failures > 20 ? 19 : $#failures) ]));
cmp_ok($stats{checked} // 0, '>', $count / 3, 'most filters were checked against the model');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');
my $log = slurp_file($node->logfile);
my @died = $log =~ /^(.*(?:terminated by signal|PANIC).*)$/mg;
is(scalar(@died), 0, 'no backend died') or diag(join("\n", @died));

$node->stop;
done_testing();
