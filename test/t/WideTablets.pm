# WideTablets.pm -- what the tablet TAP tests share.
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

our @EXPORT = qw(op_paused_sql);

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
