# Reads and filters do not leak (issue 9, defect 12).  Each case measures
# the backend that runs it, in the same query or session, without timing:
#  - compiled regexes (malloc'd by PostgreSQL's regex library): VmRSS
#    before and after thousands of filtered reads;
#  - read_row in a LATERAL join: the backend's memory contexts
#    (pg_backend_memory_contexts) at the first and the last call;
#  - point reads of many keys and deeply nested filters: the backend's
#    peak resident size (VmHWM) over the query.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('filter_memory');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION wide;
	CREATE TABLE m (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('m', 'cf');
	INSERT INTO m SELECT 'k' || (i % 1000), 'cf', 'q' || (i / 1000), 1, repeat('x', 100)
	  FROM generate_series(1, 5000) i;
	SELECT FROM wide.compact('m', major => true);
	CREATE TABLE big (row_key text, family text, qualifier text, ts int8, value text) USING wide;
	SELECT wide.create_family('big', 'cf');
	INSERT INTO big SELECT 'row', 'cf', 'q' || i, 1, 'v' FROM generate_series(1, 2000) i;
	SELECT FROM wide.compact('big', major => true);
	CREATE FUNCTION status(field text) RETURNS bigint LANGUAGE sql AS
	  $$SELECT substring(pg_read_file('/proc/self/status') from field || ':\s+(\d+)')::bigint$$;
	CREATE FUNCTION ctx_bytes() RETURNS bigint LANGUAGE sql AS
	  $$SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts$$;
});

# regexes: 3,000 filtered reads of three regexes each, in one session,
# after a warm-up run of the same
my $regex_reads = q{
	SELECT count(*) FROM generate_series(1, 3000) g,
	  LATERAL wide.read_row(NULL::m, 'k' || (g % 1000),
	    '{"chain": [{"family_name_regex_filter": "c[a-z]"}, {"column_qualifier_regex_filter": "q.*"},
	                {"value_regex_filter": "x+"}]}') x;
};
my $rss = $node->safe_psql('postgres', qq{
	$regex_reads
	SELECT status('VmRSS');
	$regex_reads
	SELECT status('VmRSS');
});
my (undef, $rss1, undef, $rss2) = split /\n/, $rss;
my $grew = $rss2 - $rss1;
cmp_ok($grew, '<', 8 * 1024, "3,000 reads with regex filters: resident size grew $grew kB");

# check_and_mutate_row parses filters too (its own memory context)
$rss = $node->safe_psql('postgres', q{
	SELECT count(wide.check_and_mutate_row('m', 'k1', '{"value_regex_filter": "y+"}')) FROM generate_series(1, 500);
	SELECT status('VmRSS');
	SELECT count(wide.check_and_mutate_row('m', 'k1', '{"value_regex_filter": "y+"}')) FROM generate_series(1, 3000);
	SELECT status('VmRSS');
});
(undef, $rss1, undef, $rss2) = split /\n/, $rss;
$grew = $rss2 - $rss1;
cmp_ok($grew, '<', 8 * 1024, "3,000 check_and_mutate_row with a regex: resident size grew $grew kB");

# a LATERAL join of read_row: memory at the last call as at the first
for my $filter ('NULL', q{'{"pass_all_filter": true}'})
{
	my $growth = $node->safe_psql('postgres', qq{
		SELECT max(b) - min(b) FROM (
		  SELECT g, x.row_key, ctx_bytes() b
		    FROM generate_series(1, 3000) g,
		         LATERAL wide.read_row(NULL::m, 'k' || (g % 1000), $filter) x) s;
	});
	cmp_ok($growth, '<', 2 * 1024 * 1024,
		"3,000 read_row calls in a LATERAL join (filter $filter): memory contexts grew $growth bytes");
}

# point reads: 60,000 keys in one call (a new session: its own peak)
for my $filter ('NULL', q{'{"cells_per_row_limit_filter": 2}'})
{
	my $peak = $node->safe_psql('postgres', qq{
		SELECT status('VmHWM');
		SELECT count(*) FROM wide.read_rows(NULL::m,
		  keys => (SELECT array_agg('k' || (i % 1200)) FROM generate_series(1, 60000) i),
		  filter => $filter);
		SELECT status('VmHWM');
	});
	my ($hwm1, $count, $hwm2) = split /\n/, $peak;
	cmp_ok($count, '>', 0, 'the point reads found rows');
	cmp_ok($hwm2 - $hwm1, '<', 48 * 1024,
		"read_rows of 60,000 keys (filter $filter): peak resident size grew " . ($hwm2 - $hwm1) . " kB");
}

# a 2,500 deep condition (100 kB of JSON) parses and applies in little
# memory (it was quadratic: 450 MB; 2,500 fits the stack of an
# AddressSanitizer build too)
my $deep = $node->safe_psql('postgres', q{
	SELECT status('VmHWM');
	SELECT count(*) FROM wide.read_rows(NULL::big, filter =>
	  (repeat('{"condition": {"true_filter": {"pass_all_filter": true}, "predicate_filter": ', 2500)
	   || '{"pass_all_filter": true}' || repeat('}}', 2500))::jsonb);
	SELECT status('VmHWM');
});
my ($hwm1, $count, $hwm2) = split /\n/, $deep;
is($count, 2000, 'the deep condition passes the row');
cmp_ok($hwm2 - $hwm1, '<', 64 * 1024,
	"a 2,500 deep condition: peak resident size grew " . ($hwm2 - $hwm1) . " kB");

# deeper than the stack allows: a clean error, and the server is fine
my ($ret, $out, $err) = $node->psql('postgres', q{
	SELECT count(*) FROM wide.read_rows(NULL::big, filter =>
	  (repeat('{"chain": [{"interleave": [', 30000) || '{"pass_all_filter": true}'
	   || repeat(']}]}', 30000))::jsonb);
}, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/54001/, 'nesting deeper than the stack allows fails with 54001');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');

$node->stop;
done_testing();
