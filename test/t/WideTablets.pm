# WideTablets.pm -- what the tablet TAP tests share.
#
# tablet_nodes($conf): three started nodes, coord, n1 and n2, each with
# wide created and postgresql.conf lines $conf (a string, or a sub given
# the node's name that returns them); the coordinator has postgres_fdw and
# a server with a user mapping for each of n1 and n2, named after them.
# Returns ($coord, $n1, $n2).
#
# op_paused_sql($ops): a query that is true once an operation whose text
# matches the regex $ops (e.g. 'wide\.(split|move)_tablet') waits for the
# session that holds a pause row of wide.tablet_op_pause FOR UPDATE: that
# session is idle in its transaction, and its last statement is the lock
# or the marker the tests print after it ('locked', 'done').  Waiting on
# any lock (the old test) also matched an operation that waited for a
# writer's or a reader's lock on the way to its pause, under load.
package WideTablets;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;

our @EXPORT = qw(op_paused_sql tablet_nodes);

sub tablet_nodes
{
	my ($conf) = @_;
	my @nodes;
	for my $name ('coord', 'n1', 'n2')
	{
		my $node = PostgreSQL::Test::Cluster->new($name);
		$node->init;
		$node->append_conf('postgresql.conf', ref $conf ? $conf->($name) : $conf);
		$node->start;
		$node->safe_psql('postgres', 'CREATE EXTENSION wide');
		push @nodes, $node;
	}
	my ($coord, $n1, $n2) = @nodes;
	$coord->safe_psql('postgres', 'CREATE EXTENSION postgres_fdw');
	for my $node ($n1, $n2)
	{
		my ($name, $host, $port) = ($node->name, $node->host, $node->port);
		$coord->safe_psql('postgres', qq{
			CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw
			  OPTIONS (host '$host', port '$port', dbname 'postgres');
			CREATE USER MAPPING FOR CURRENT_USER SERVER $name;
		});
	}
	return @nodes;
}

sub op_paused_sql
{
	my ($ops) = @_;
	return qq{SELECT EXISTS (SELECT FROM pg_stat_activity a
	                          WHERE a.query ~ '$ops'
	                            AND EXISTS (SELECT FROM pg_stat_activity b
	                                         WHERE b.pid = ANY (pg_blocking_pids(a.pid))
	                                           AND b.state = 'idle in transaction'
	                                           AND b.query ~ 'tablet_op_pause|^SELECT ''(locked|done)'''))};
}

1;
