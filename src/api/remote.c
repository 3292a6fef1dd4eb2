/*-------------------------------------------------------------------------
 *
 * remote.c
 *	  Statements on the nodes that hold remote tablets, all or nothing with
 *	  the local transaction (two-phase commit).
 *
 * A remote tablet is a postgres_fdw foreign table, a partition of a parent
 * of tablets, over a wide table on another node.  Rows go through
 * postgres_fdw; what it cannot do -- create the table there, change its
 * families -- is sent here as SQL over a connection of our own, opened
 * with the foreign server's options and the user's mapping, as
 * postgres_fdw opens its own (one per node and transaction: another role
 * of the transaction is refused it), and with the settings that change how SQL
 * text is read or values are written pinned (pin_settings: nothing sent
 * depends on the node's ALTER DATABASE ... SET):
 *
 *	wide_internal._remote_exec(server, tablet, sql)	runs sql on the node, in a
 *						remote transaction opened at the first call of the
 *						local transaction (savepoints follow subtransactions)
 *	wide_internal._remote_query(server, sql)		the first column of a query's rows,
 *						in its own remote transaction (no changes expected)
 *		(both run the SQL they are given: not executable by PUBLIC, only by
 *		the extension's owner and superusers, for the tablet operations)
 *	WideRemoteFamily(tablet, fn, ...)	a family change of a remote tablet's
 *						table on its node, for the tablet's owner
 *	WideRemoteCreateTablet(tablet, catalog)	its table on the node, made
 *						from the foreign table's columns, for its owner
 *	WideStoreCatalogSql(table, famcol, doc)	the statement that stores a
 *						family catalog, here or on a node
 *	WideRemoteCall(fcinfo, tablet)	a data API call on a key of a remote
 *						tablet: the same function on the node, on its table
 *	WideRemoteRows(...)	a read of the data API on the node, its rows into
 *						the caller's result
 *	WideRemoteMutateRows(...)	one entry of mutate_rows, on the node
 *	WideRemoteMutateRowsBin(...)	one entry of mutate_rows_bin, on the node
 *	WideRemoteSamples(...)	sample_row_keys of a remote tablet
 *	WideRemoteCompact(...)	wide.compact of a remote tablet, on its node
 *
 * At local PRE_COMMIT every remote transaction that wrote is prepared
 * (one that only read commits at once) as PREPARE TRANSACTION
 * 'wide_<cluster id>_<full xid>_<server oid>', after a decision record per
 * node is written in the local transaction (wide_internal._remote_commit_record,
 * as the extension's owner: wide.remote_commits; the cluster id is random,
 * made again at a new system identifier or timeline); any failure aborts
 * the local transaction, which rolls back the remote ones, prepared or
 * not.  After the local commit the prepared ones are committed.  If a node
 * fails in between, its transaction stays prepared; wide.resolve_tablets
 * commits it if its record exists and rolls it back only if it is of the
 * current cluster id, has no record and is over -- never from the commit
 * log alone, which forgets old xids.
 *
 * IDENTIFICATION
 *	  src/api/remote.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_extension.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/wait_event.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "engine/lsm.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_remote_exec);
PG_FUNCTION_INFO_V1(wide_remote_query);

/* one node's connection in the current local transaction */
typedef struct RemoteConn
{
	Oid			serverid;
	Oid			userid;			/* whose user mapping opened it */
	char	   *servername;
	PGconn	   *conn;
	int			depth;			/* local nesting level of its savepoints */
	bool		prepared;
	char		gid[96];
} RemoteConn;

Datum		WideRemoteResult;	/* of the last WideRemoteCall */
static List *remote_conns = NIL;	/* in TopMemoryContext */
static bool callbacks_registered = false;

/* fail with the node's error, naming the node (and the tablet) */
static void
remote_error(RemoteConn *rc, PGresult *res, const char *tablet)
{
	const char *sqlstate = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *rhint = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_HINT) : NULL;
	char	   *hint = rhint ? pstrdup(rhint) : NULL;
	char	   *msg = pstrdup(primary ? primary : PQerrorMessage(rc->conn));
	int			code = ERRCODE_CONNECTION_FAILURE;
	int			len = strlen(msg);

	while (len > 0 && msg[len - 1] == '\n')
		msg[--len] = '\0';
	if (sqlstate && strlen(sqlstate) == 5)
		code = MAKE_SQLSTATE(sqlstate[0], sqlstate[1], sqlstate[2],
							 sqlstate[3], sqlstate[4]);
	if (res)
		PQclear(res);
	if (tablet)
		ereport(ERROR,
				(errcode(code),
				 errmsg("tablet %s on node \"%s\" failed: %s",
						tablet, rc->servername, msg),
				 hint ? errhint("%s", hint) : 0));
	ereport(ERROR,
			(errcode(code),
			 errmsg("node \"%s\" failed: %s", rc->servername, msg),
			 hint ? errhint("%s", hint) : 0));
}

/*
 * exec_wait -- run a statement (several, for a string without parameters)
 * on a node and wait for its result as postgres_fdw waits for its own:
 * on the latch and the socket, so that a cancel or a termination of this
 * backend is not stuck behind a node that waits (e.g. for a lock).  On
 * one, the node's statement is cancelled, its result drained (the
 * connection stays usable for the ROLLBACK of the abort), and the
 * interrupt is served.  The last result, or the first error.
 */
static PGresult *
exec_wait(PGconn *conn, const char *sql, int nparams, const char *const *params)
{
	PGresult   *last = NULL;
	bool		cancelled = false;
	bool		sent;

	if (nparams > 0 || params != NULL)
		sent = PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);
	else
		sent = PQsendQuery(conn, sql);
	if (!sent)
		return PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
	for (;;)
	{
		PGresult   *r;

		while (PQisBusy(conn))
		{
			int			rc;

			/* no interrupts during an abort: they are held off there */
			if (!cancelled && INTERRUPTS_CAN_BE_PROCESSED() &&
				(QueryCancelPending || ProcDiePending))
			{
				PGcancel   *cancel = PQgetCancel(conn);
				char		errbuf[256];

				if (cancel)
				{
					PQcancel(cancel, errbuf, sizeof(errbuf));
					PQfreeCancel(cancel);
				}
				cancelled = true;
			}
			rc = WaitLatchOrSocket(MyLatch,
								   WL_LATCH_SET | WL_SOCKET_READABLE | WL_EXIT_ON_PM_DEATH,
								   PQsocket(conn), -1L, PG_WAIT_EXTENSION);
			if (rc & WL_LATCH_SET)
				ResetLatch(MyLatch);
			if ((rc & WL_SOCKET_READABLE) && !PQconsumeInput(conn))
			{
				if (last)
					PQclear(last);
				return PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
			}
		}
		r = PQgetResult(conn);
		if (r == NULL)
			break;
		if (last && PQresultStatus(last) == PGRES_FATAL_ERROR)
			PQclear(r);			/* keep the first error */
		else
		{
			if (last)
				PQclear(last);
			last = r;
		}
	}
	if (cancelled)
	{
		if (last)
			PQclear(last);
		CHECK_FOR_INTERRUPTS();
		return PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
	}
	return last ? last : PQmakeEmptyPGresult(conn, PGRES_COMMAND_OK);
}

/* run a command that returns no rows; false (result kept in *res) on error */
static bool
run(RemoteConn *rc, const char *sql, PGresult **res)
{
	PGresult   *r = exec_wait(rc->conn, sql, 0, NULL);

	if (PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK)
	{
		if (res)
			*res = r;
		else
			PQclear(r);
		return true;
	}
	if (res)
		*res = r;
	else
		PQclear(r);
	return false;
}

/* run a command, failing on error */
static void
run_or_fail(RemoteConn *rc, const char *sql, const char *tablet)
{
	PGresult   *res;

	if (!run(rc, sql, &res))
		remote_error(rc, res, tablet);
	PQclear(res);
}

/* is this one of the libpq connection options (not postgres_fdw's own)? */
static bool
libpq_option(const char *name, PQconninfoOption *defs)
{
	for (; defs->keyword; defs++)
		if (strcmp(defs->keyword, name) == 0)
			return true;
	return false;
}

/*
 * What is sent to a node is SQL text with literals in it, and what comes
 * back is text: neither may depend on the settings that the node's
 * database or role gives a session (ALTER DATABASE ... SET).  Pin those
 * that change how text is read or written, as postgres_fdw does for its
 * own sessions (client_encoding is a connection option).
 */
static void
pin_settings(PGconn *conn, ForeignServer *server)
{
	PGresult   *res = PQexec(conn,
							 "SET search_path = pg_catalog; SET standard_conforming_strings = on; "
							 "SET datestyle = ISO; SET intervalstyle = postgres; SET timezone = 'UTC'; "
							 "SET extra_float_digits = 3; SET bytea_output = hex");

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		char	   *msg = pstrdup(PQerrorMessage(conn));

		PQclear(res);
		PQfinish(conn);
		ereport(ERROR,
				(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
				 errmsg("could not set up the session on node \"%s\": %s", server->servername, msg)));
	}
	PQclear(res);
}

/*
 * Values go to a node and come back as text: here too they are written and
 * read under the settings pinned on the node's session, not the user's
 * (DateStyle 'SQL, DMY' would write 02/03/2020, which the node reads as
 * February 3rd; extra_float_digits < 1 loses digits).  As postgres_fdw's
 * set_transmission_modes; undo with AtEOXact_GUC(true, nestlevel).
 */
static int
pin_io_settings(void)
{
	int			nestlevel = NewGUCNestLevel();

	set_config_option("datestyle", "ISO", PGC_USERSET, PGC_S_SESSION,
					  GUC_ACTION_SAVE, true, 0, false);
	set_config_option("intervalstyle", "postgres", PGC_USERSET, PGC_S_SESSION,
					  GUC_ACTION_SAVE, true, 0, false);
	set_config_option("extra_float_digits", "3", PGC_USERSET, PGC_S_SESSION,
					  GUC_ACTION_SAVE, true, 0, false);
	set_config_option("bytea_output", "hex", PGC_USERSET, PGC_S_SESSION,
					  GUC_ACTION_SAVE, true, 0, false);
	return nestlevel;
}

/*
 * does the user mapping ask for a password (postgres_fdw's option
 * password_required, which only a superuser may set to false)?
 */
static bool
password_required(UserMapping *um)
{
	ListCell   *lc;

	foreach(lc, um->options)
	{
		DefElem    *d = lfirst(lc);

		if (strcmp(d->defname, "password_required") == 0)
			return defGetBoolean(d);
	}
	return true;
}

/* open a connection to a foreign server of postgres_fdw, as its user mapping says */
static PGconn *
connect_server(ForeignServer *server, const char *tablet)
{
	ForeignDataWrapper *fdw = GetForeignDataWrapper(server->fdwid);
	UserMapping *um;
	PQconninfoOption *defs;
	List	   *options;
	const char **keys;
	const char **vals;
	int			n = 0;
	ListCell   *lc;
	PGconn	   *conn;

	if (strcmp(fdw->fdwname, "postgres_fdw") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("node \"%s\" is not a server of postgres_fdw", server->servername),
				 errdetail("Remote tablets are reached through postgres_fdw.")));
	/* as for a foreign table of the server: USAGE, and a mapping */
	if (pg_foreign_server_aclcheck(server->serverid, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FOREIGN_SERVER, server->servername);
	um = GetUserMapping(GetUserId(), server->serverid);
	options = list_concat(list_copy(server->options), um->options);
	defs = PQconndefaults();
	keys = palloc0(sizeof(char *) * (list_length(options) + 4));
	vals = palloc0(sizeof(char *) * (list_length(options) + 4));
	foreach(lc, options)
	{
		DefElem    *d = lfirst(lc);

		if (!libpq_option(d->defname, defs))
			continue;
		keys[n] = d->defname;
		vals[n] = defGetString(d);
		n++;
	}
	PQconninfoFree(defs);

	/*
	 * As postgres_fdw (check_conn_params): a non-superuser's mapping must
	 * give a password, unless a superuser said it need not.  Checking after
	 * the connection only whether a password was used is not enough: libpq
	 * takes one the mapping does not give from a password file -- the
	 * server's own (~/.pgpass), or one a "passfile" option of the node
	 * names -- so the role would log in to the node as a user whose
	 * password it does not know.
	 */
	if (!superuser() && password_required(um))
	{
		bool		given = false;

		for (int i = 0; i < n; i++)
			given |= strcmp(keys[i], "password") == 0 && vals[i][0] != '\0';
		if (!given)
			ereport(ERROR,
					(errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
					 errmsg("password is required to reach node \"%s\"", server->servername),
					 errdetail("Non-superusers must give a password in the user mapping.")));
	}
	keys[n] = "fallback_application_name";
	vals[n++] = "wide";
	keys[n] = "client_encoding";
	vals[n++] = GetDatabaseEncodingName();
	keys[n] = NULL;
	vals[n] = NULL;

	conn = PQconnectdbParams(keys, vals, false);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		char	   *msg = pstrdup(conn ? PQerrorMessage(conn) : "out of memory");
		int			len = strlen(msg);

		while (len > 0 && msg[len - 1] == '\n')
			msg[--len] = '\0';
		if (conn)
			PQfinish(conn);
		ereport(ERROR,
				(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
				 errmsg("could not connect to node \"%s\"%s%s: %s",
						server->servername, tablet ? " for tablet " : "",
						tablet ? tablet : "", msg)));
	}

	/* as postgres_fdw: a non-superuser must authenticate with a password */
	if (!superuser() && password_required(um) && !PQconnectionUsedPassword(conn))
	{
		PQfinish(conn);
		ereport(ERROR,
				(errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
				 errmsg("password is required to reach node \"%s\"", server->servername),
				 errdetail("Non-superusers must give a password in the user mapping.")));
	}
	pin_settings(conn, server);
	return conn;
}

/* close every connection and forget them */
static void
forget_all(void)
{
	ListCell   *lc;

	foreach(lc, remote_conns)
	{
		RemoteConn *rc = lfirst(lc);

		if (rc->conn)
			PQfinish(rc->conn);
	}
	list_free_deep(remote_conns);
	remote_conns = NIL;
}

/* the owner of the extension wide */
static Oid
extension_owner(void)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			owner = BOOTSTRAP_SUPERUSERID;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("wide"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return owner;
}

/*
 * commit_record -- write the decision records of the nodes that wrote, in
 * the local transaction (wide_internal._remote_commit_record, run as the owner of
 * the extension: the records are not the user's to write), and return the
 * GID prefix of this transaction, 'wide_<cluster id>_<full xid>_'.
 */
static char *
commit_record(List *writers)
{
	Oid			save_userid;
	int			save_sec;
	Oid			extowner;
	Datum	   *oids = palloc(sizeof(Datum) * list_length(writers));
	ArrayType  *arr;
	Oid			argtypes[1] = {OIDARRAYOID};
	Datum		args[1];
	char	   *volatile prefix = NULL;
	ListCell   *lc;
	int			n = 0;
	bool		isnull;

	foreach(lc, writers)
		oids[n++] = ObjectIdGetDatum(((RemoteConn *) lfirst(lc))->serverid);
	arr = construct_array(oids, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT);
	args[0] = PointerGetDatum(arr);
	extowner = extension_owner();
	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(extowner, save_sec | SECURITY_LOCAL_USERID_CHANGE);
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_execute_with_args("SELECT wide_internal._remote_commit_record($1)", 1, argtypes,
								  args, NULL, false, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "could not record the decision of a distributed commit");
		prefix = MemoryContextStrdup(TopTransactionContext,
									 TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0],
																	  SPI_tuptable->tupdesc, 1,
																	  &isnull)));
		PopActiveSnapshot();
		SPI_finish();
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_userid, save_sec);
	}
	PG_END_TRY();
	if (strlen(prefix) + 12 > sizeof(((RemoteConn *) NULL)->gid))
		elog(ERROR, "GID prefix too long: %s", prefix);
	return prefix;
}

/* two-phase commit of the remote transactions around the local one */
static void
remote_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	if (remote_conns == NIL)
		return;
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			{
				List	   *writers = NIL;
				char	   *prefix;

				foreach(lc, remote_conns)
				{
					RemoteConn *rc = lfirst(lc);
					PGresult   *res;
					bool		wrote;

					/* a node that only read commits at once: nothing to prepare */
					if (!run(rc, "SELECT pg_catalog.pg_current_xact_id_if_assigned() IS NOT NULL", &res))
						remote_error(rc, res, NULL);
					wrote = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
					PQclear(res);
					if (!wrote)
						run_or_fail(rc, "COMMIT", NULL);
					else
						writers = lappend(writers, rc);
				}
				if (writers == NIL)
					break;
				/* the decision records, in this transaction, before any PREPARE */
				prefix = commit_record(writers);
				foreach(lc, writers)
				{
					RemoteConn *rc = lfirst(lc);
					char		sql[160];

					snprintf(rc->gid, sizeof(rc->gid), "%s%u", prefix, rc->serverid);
					snprintf(sql, sizeof(sql), "PREPARE TRANSACTION '%s'", rc->gid);
					run_or_fail(rc, sql, NULL);
					rc->prepared = true;
				}
				list_free(writers);
			}
			break;
		case XACT_EVENT_PRE_PREPARE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot prepare a transaction that changed remote tablets")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
			foreach(lc, remote_conns)
			{
				RemoteConn *rc = lfirst(lc);
				char		sql[160];

				if (rc->prepared)
					snprintf(sql, sizeof(sql), "%s PREPARED '%s'",
							 event == XACT_EVENT_COMMIT ? "COMMIT" : "ROLLBACK", rc->gid);
				else
					snprintf(sql, sizeof(sql), "ROLLBACK");
				if (PQstatus(rc->conn) != CONNECTION_OK || !run(rc, sql, NULL))
				{
					if (rc->prepared)
						ereport(WARNING,
								(errmsg("node \"%s\" did not finish prepared transaction %s: %s",
										rc->servername, rc->gid, PQerrorMessage(rc->conn)),
								 errhint("Run wide.resolve_tablets('%s') when it is back.",
										 rc->servername)));
				}
			}
			forget_all();
			break;
		default:
			break;
	}
}

/* remote savepoints follow the local subtransactions */
static void
remote_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();
	ListCell   *lc;

	if (event != SUBXACT_EVENT_PRE_COMMIT_SUB && event != SUBXACT_EVENT_ABORT_SUB)
		return;
	foreach(lc, remote_conns)
	{
		RemoteConn *rc = lfirst(lc);
		char		sql[96];

		if (rc->depth < level)
			continue;
		if (event == SUBXACT_EVENT_PRE_COMMIT_SUB)
		{
			snprintf(sql, sizeof(sql), "RELEASE SAVEPOINT s%d", level);
			run_or_fail(rc, sql, NULL);
		}
		else
		{
			snprintf(sql, sizeof(sql), "ROLLBACK TO SAVEPOINT s%d; RELEASE SAVEPOINT s%d",
					 level, level);
			if (PQstatus(rc->conn) != CONNECTION_OK || !run(rc, sql, NULL))
				ereport(WARNING,
						(errmsg("node \"%s\" could not roll back to a savepoint: %s",
								rc->servername, PQerrorMessage(rc->conn))));
		}
		rc->depth = level - 1;
	}
}

/* the connection to a server in this transaction, opened at first use */
static RemoteConn *
get_conn(const char *servername, const char *tablet)
{
	ForeignServer *server = GetForeignServerByName(servername, false);
	RemoteConn *rc = NULL;
	ListCell   *lc;
	int			level = GetCurrentTransactionNestLevel();

	if (!callbacks_registered)
	{
		RegisterXactCallback(remote_xact_callback, NULL);
		RegisterSubXactCallback(remote_subxact_callback, NULL);
		callbacks_registered = true;
	}
	foreach(lc, remote_conns)
	{
		RemoteConn *c = lfirst(lc);

		if (c->serverid != server->serverid)
			continue;
		/*
		 * The node knows the session as the user of the mapping that opened
		 * it: another role of this transaction (after a SECURITY DEFINER
		 * function, SET ROLE) would act there as that user.
		 */
		if (c->userid != GetUserId())
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot reach node \"%s\" as role \"%s\"", servername,
							GetUserNameFromId(GetUserId(), false)),
					 errdetail("This transaction reaches the node as role \"%s\", in one remote session opened with its user mapping.",
							   GetUserNameFromId(c->userid, false)),
					 errhint("Reach a node as one role per transaction.")));
		rc = c;
	}
	if (rc == NULL)
	{
		PGconn	   *conn = connect_server(server, tablet);
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		rc = palloc0(sizeof(RemoteConn));
		rc->serverid = server->serverid;
		rc->userid = GetUserId();
		rc->servername = pstrdup(server->servername);
		rc->conn = conn;
		rc->depth = 1;
		remote_conns = lappend(remote_conns, rc);
		MemoryContextSwitchTo(old);
		run_or_fail(rc, "BEGIN ISOLATION LEVEL READ COMMITTED", tablet);
	}
	while (rc->depth < level)
	{
		char		sql[64];

		rc->depth++;
		snprintf(sql, sizeof(sql), "SAVEPOINT s%d", rc->depth);
		run_or_fail(rc, sql, tablet);
	}
	return rc;
}

/*
 * wide_internal._remote_exec(server name, tablet regclass, sql text) -- run sql on
 * the node in this transaction's remote transaction there.
 */
Datum
wide_remote_exec(PG_FUNCTION_ARGS)
{
	char	   *server = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *tablet = PG_ARGISNULL(1) ? NULL :
		DatumGetCString(DirectFunctionCall1(regclassout, PG_GETARG_DATUM(1)));
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(2));
	RemoteConn *rc;

	rc = get_conn(server, tablet);
	run_or_fail(rc, sql, tablet);
	PG_RETURN_VOID();
}

/*
 * wide_internal._remote_query(server name, sql text) RETURNS SETOF text -- the first
 * column of the rows of a query run on the node, in its own connection.
 */
Datum
wide_remote_query(PG_FUNCTION_ARGS)
{
	char	   *servername = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ForeignServer *server;
	RemoteConn	rc;
	PGresult   *res;
	int			i;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	server = GetForeignServerByName(servername, false);
	memset(&rc, 0, sizeof(rc));
	rc.servername = server->servername;
	rc.conn = connect_server(server, NULL);
	PG_TRY();
	{
		if (!run(&rc, sql, &res))
			remote_error(&rc, res, NULL);
		for (i = 0; PQresultStatus(res) == PGRES_TUPLES_OK && i < PQntuples(res); i++)
		{
			Datum		value;
			bool		isnull = PQgetisnull(res, i, 0);

			value = isnull ? (Datum) 0 : CStringGetTextDatum(PQgetvalue(res, i, 0));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
		}
		PQclear(res);
	}
	PG_FINALLY();
	{
		PQfinish(rc.conn);
	}
	PG_END_TRY();
	return (Datum) 0;
}

/* the option of a foreign table, or NULL */
static char *
table_option(ForeignTable *ft, const char *name)
{
	ListCell   *lc;

	foreach(lc, ft->options)
	{
		DefElem    *d = lfirst(lc);

		if (strcmp(d->defname, name) == 0)
			return defGetString(d);
	}
	return NULL;
}

/*
 * the table of a remote tablet on its node, schema-qualified and quoted:
 * the options schema_name and table_name, by default the tablet's own
 */
static const char *
remote_table_name(ForeignTable *ft, Oid tablet)
{
	char	   *nsp = table_option(ft, "schema_name");
	char	   *rel = table_option(ft, "table_name");

	if (nsp == NULL)
		nsp = get_namespace_name(get_rel_namespace(tablet));
	if (rel == NULL)
		rel = get_rel_name(tablet);
	return quote_qualified_identifier(nsp, rel);
}

/*
 * remote_call_sql -- "schema.fn(args)" calling the function of fcinfo on
 * the node of a remote tablet, with the tablet's table there as the first
 * argument; argument "override" (if >= 0) is given as "overvalue" instead
 * (NULL: SQL NULL).  The parameters' text values go to *params.
 */
static char *
remote_call_sql(FunctionCallInfo fcinfo, Oid tablet, const char ***params,
				int *nparams, int override, const char *overvalue, Oid *rettype,
				char **servername)
{
	ForeignTable *ft = GetForeignTable(tablet);
	ForeignServer *server = GetForeignServer(ft->serverid);
	const char *remote = remote_table_name(ft, tablet);
	HeapTuple	proctup;
	Form_pg_proc proc;
	StringInfoData sql;
	int			nestlevel;
	int			i;

	*servername = server->servername;

	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	if (!HeapTupleIsValid(proctup))
		elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
	proc = (Form_pg_proc) GETSTRUCT(proctup);
	*rettype = proc->prorettype;
	initStringInfo(&sql);
	appendStringInfo(&sql, "%s(",
					 quote_qualified_identifier(get_namespace_name(proc->pronamespace),
												NameStr(proc->proname)));
	*params = palloc0(sizeof(char *) * (fcinfo->nargs + 1));
	*nparams = 0;
	nestlevel = pin_io_settings();
	for (i = 0; i < fcinfo->nargs; i++)
	{
		Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, i);
		Oid			type = argtype;

		if (i > 0)
			appendStringInfoString(&sql, ", ");
		if (i == 0)
		{
			/* the tablet's table there, by name or by row type */
			if (proc->proargtypes.values[0] == REGCLASSOID)
				appendStringInfo(&sql, "%s::pg_catalog.regclass", quote_literal_cstr(remote));
			else
				appendStringInfo(&sql, "NULL::%s", remote);
			continue;
		}
		if (!OidIsValid(type))
			type = proc->proargtypes.values[i];
		if (type == UNKNOWNOID)
			type = TEXTOID;
		if (i == override ? overvalue == NULL : fcinfo->args[i].isnull)
		{
			appendStringInfo(&sql, "NULL::%s", format_type_be_qualified(type));
			continue;
		}
		if (i == override)
			(*params)[(*nparams)++] = overvalue;
		else
		{
			Oid			outfn;
			bool		varlena;

			getTypeOutputInfo(argtype == UNKNOWNOID ? UNKNOWNOID : type, &outfn, &varlena);
			(*params)[(*nparams)++] = OidOutputFunctionCall(outfn, fcinfo->args[i].value);
		}
		appendStringInfo(&sql, "$%d::%s", *nparams, format_type_be_qualified(type));
	}
	AtEOXact_GUC(true, nestlevel);
	appendStringInfoString(&sql, ")");
	ReleaseSysCache(proctup);
	return sql.data;
}

/*
 * WideRemoteCall -- run the called wide.* function (one that returns no set)
 * on the node of a remote tablet, with the tablet's table there in place
 * of the parent, in this transaction's remote transaction on that node;
 * its result is the result here.
 */
Datum
WideRemoteCall(FunctionCallInfo fcinfo, Oid tablet)
{
	const char **params;
	int			nparams;
	Oid			rettype;
	char	   *servername;
	char	   *tabletname = get_rel_name(tablet);
	char	   *call = remote_call_sql(fcinfo, tablet, &params, &nparams, -1, NULL,
									   &rettype, &servername);
	RemoteConn *rc;
	PGresult   *res;
	Datum		result = (Datum) 0;

	rc = get_conn(servername, tabletname);
	res = exec_wait(rc->conn, psprintf("SELECT %s", call), nparams, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		remote_error(rc, res, tabletname);
	fcinfo->isnull = PQntuples(res) != 1 || PQgetisnull(res, 0, 0);
	if (!fcinfo->isnull && rettype != VOIDOID)
	{
		Oid			infn;
		Oid			ioparam;
		int			nestlevel;

		/* a row of the table (read_modify_write_row): the parent's row type */
		if (IsPolymorphicType(rettype))
			rettype = get_fn_expr_rettype(fcinfo->flinfo);
		getTypeInputInfo(rettype, &infn, &ioparam);
		nestlevel = pin_io_settings();
		result = OidInputFunctionCall(infn, PQgetvalue(res, 0, 0), ioparam, -1);
		AtEOXact_GUC(true, nestlevel);
	}
	if (rettype == VOIDOID)
		fcinfo->isnull = false;
	PQclear(res);
	return result;
}

/*
 * WideRemoteRows -- a read of the data API (read_rows, read_rows_labeled,
 * read_row) run on the node of a remote tablet: its rows go into the
 * result tuplestore of fcinfo, in the node's order.  "limitarg" (or -1) is
 * the argument of the row limit, replaced by "limit" when that is >= 0;
 * "keycol" names the row-key column.  Returns the number of rows (distinct
 * row keys in a row) read.
 */
int64
WideRemoteRows(FunctionCallInfo fcinfo, Oid tablet, int limitarg, int64 limit,
			   const char *keycol, bool labeled)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char **params;
	int			nparams;
	Oid			rettype;
	char	   *servername;
	char	   *tabletname = get_rel_name(tablet);
	char	   *call;
	char	   *sql;
	RemoteConn *rc;
	PGresult   *res;
	AttInMetadata *meta;
	int			natts = rsinfo->setDesc->natts;
	char	  **values;
	int64		rows = 0;
	char	   *lastkey = NULL;
	int			nestlevel;
	int			i,
				j;

	call = remote_call_sql(fcinfo, tablet, &params, &nparams, limitarg,
						   limit >= 0 ? psprintf(INT64_FORMAT, limit) : NULL,
						   &rettype, &servername);
	if (labeled)
		sql = psprintf("SELECT r.*, (r.cell).%s::text FROM %s r", quote_identifier(keycol), call);
	else
		sql = psprintf("SELECT r.*, r.%s::text FROM %s r", quote_identifier(keycol), call);
	rc = get_conn(servername, tabletname);
	res = exec_wait(rc->conn, sql, nparams, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		remote_error(rc, res, tabletname);
	if (PQnfields(res) != natts + 1)
	{
		PQclear(res);
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("tablet %s on node \"%s\" returned rows of another shape",
						tabletname, servername)));
	}
	meta = TupleDescGetAttInMetadata(rsinfo->setDesc);
	values = palloc(sizeof(char *) * natts);
	nestlevel = pin_io_settings();
	for (i = 0; i < PQntuples(res); i++)
	{
		HeapTuple	tup;
		char	   *key = PQgetvalue(res, i, natts);

		for (j = 0; j < natts; j++)
			values[j] = PQgetisnull(res, i, j) ? NULL : PQgetvalue(res, i, j);
		tup = BuildTupleFromCStrings(meta, values);
		tuplestore_puttuple(rsinfo->setResult, tup);
		heap_freetuple(tup);
		if (lastkey == NULL || strcmp(lastkey, key) != 0)
			rows++;
		lastkey = key;
	}
	AtEOXact_GUC(true, nestlevel);
	PQclear(res);
	return rows;
}

/*
 * run "sql", a query whose $1 is the tablet's table on its node (put into
 * params[0]; the caller fills the others), on the node of a remote tablet
 * in this transaction's remote transaction; fails with the node's error
 * unless it returns rows.  The connection goes to *rc.
 */
static PGresult *
remote_table_query(Oid tablet, const char *sql, int nparams,
				   const char **params, RemoteConn **rc)
{
	ForeignTable *ft = GetForeignTable(tablet);
	ForeignServer *server = GetForeignServer(ft->serverid);
	char	   *tabletname = get_rel_name(tablet);
	PGresult   *res;

	params[0] = remote_table_name(ft, tablet);
	*rc = get_conn(server->servername, tabletname);
	res = exec_wait((*rc)->conn, sql, nparams, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		remote_error(*rc, res, tabletname);
	return res;
}

/* run "sql" (a mutate_rows call on $1, the tablet's table, and $2) on the node of a remote tablet */
static int64
remote_mutate(Oid tablet, const char *sql, const char *arg)
{
	const char *params[2];
	RemoteConn *rc;
	PGresult   *res;
	int64		n;

	params[1] = arg;
	res = remote_table_query(tablet, sql, 2, params, &rc);
	if (PQntuples(res) != 1)
		remote_error(rc, res, get_rel_name(tablet));
	n = strtoi64(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return n;
}

/*
 * WideRemoteMutateRows -- one entry of mutate_rows ({"row_key": ...,
 * "mutations": [...]}) applied by mutate_rows on the node of a remote
 * tablet, in this transaction's remote transaction; the cells it wrote.
 */
int64
WideRemoteMutateRows(Oid tablet, Jsonb *entry)
{
	return remote_mutate(tablet, "SELECT wide.mutate_rows($1::pg_catalog.regclass, $2::pg_catalog.jsonb)",
						 psprintf("[%s]", JsonbToCString(NULL, &entry->root, VARSIZE(entry))));
}

/*
 * WideRemoteMutateRowsBin -- the same for a binary batch of one entry
 * (mutate_rows_bin.c), sent as bytea's text form.
 */
int64
WideRemoteMutateRowsBin(Oid tablet, const char *batch, int len)
{
	char	   *hex = palloc(2 * (Size) len + 3);

	hex[0] = '\\';
	hex[1] = 'x';
	hex[2 + hex_encode(batch, len, hex + 2)] = '\0';
	return remote_mutate(tablet, "SELECT wide.mutate_rows_bin($1::pg_catalog.regclass, $2::pg_catalog.bytea)",
						 hex);
}

/*
 * WideRemoteSamples -- sample_row_keys of a remote tablet, run on its node:
 * its samples into the caller's result with offsets past "*total", which
 * grows by the tablet's size (the node's last, empty-key row).
 */
void
WideRemoteSamples(Oid tablet, ReturnSetInfo *rsinfo, int64 *total)
{
	const char *params[1];
	RemoteConn *rc;
	PGresult   *res;
	int64		base = *total;
	int			i;

	res = remote_table_query(tablet, "SELECT row_key, offset_bytes FROM wide.sample_row_keys($1::pg_catalog.regclass)",
							 1, params, &rc);
	for (i = 0; i < PQntuples(res); i++)
	{
		int64		off = base + strtoi64(PQgetvalue(res, i, 1), NULL, 10);
		Datum		values[2];
		bool		nulls[2] = {false, false};

		*total = Max(*total, off);
		if (i == PQntuples(res) - 1)
			break;				/* the node's end of table */
		values[0] = DirectFunctionCall1(byteain, CStringGetDatum(PQgetvalue(res, i, 0)));
		values[1] = Int64GetDatum(off);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PQclear(res);
}

/*
 * WideRemoteCompact -- wide.compact of a remote tablet, run on its node on
 * the wide table there, in this transaction's remote transaction (the
 * node's own owner check applies to the mapped user); its summary's counts
 * into *counts.
 */
void
WideRemoteCompact(Oid tablet, bool major, WideMaintCounts *counts)
{
	const char *params[2];
	RemoteConn *rc;
	PGresult   *res;
	int64		v[16];
	int			i;

	params[1] = major ? "true" : "false";
	res = remote_table_query(tablet,
							 "SELECT * FROM wide.compact($1::pg_catalog.regclass, $2::pg_catalog.bool)",
							 2, params, &rc);
	if (PQntuples(res) == 1 && PQnfields(res) == 1)
	{
		/* a node of wide 0.1: compact returns void, no counts */
		PQclear(res);
		return;
	}
	if (PQntuples(res) != 1 || PQnfields(res) != lengthof(v) + 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("unexpected result of wide.compact on the node of tablet \"%s\"",
						get_rel_name(tablet))));
	/* the columns in the order of wide.compact's row (maintenance.c) */
	for (i = 0; i < lengthof(v); i++)
		v[i] = PQgetisnull(res, 0, i) ? 0 :
			DatumGetInt64(DirectFunctionCall1(int8in,
											  CStringGetDatum(PQgetvalue(res, 0, i))));
	PQclear(res);
	counts->flushes = v[0];
	counts->compactions = v[1];
	counts->runs_in = v[2];
	counts->runs_out = v[3];
	counts->bytes_read = v[4];
	counts->bytes_written = v[5];
	counts->cells_in = v[6];
	counts->cells_out = v[7];
	counts->resolved.covered = v[8];
	counts->resolved.superseded = v[9];
	counts->resolved.expired = v[10];
	counts->resolved.collected = v[11] + v[10];
	counts->resolved.aborted = v[12];
	counts->resolved.dropped_family = v[13];
	counts->resolved.tombstones_dropped = v[14];
	counts->resolved.folded = v[15];
}

/*
 * owned_remote_tablet -- a remote tablet: a foreign table that is a
 * partition, owned by the current user (or a role it is a member of).  Its
 * node and its table there go to *server and *remote.  The functions below
 * reach a node on behalf of the family and tablet functions open to PUBLIC
 * (api/entry.c), so they check what those check, on the tablet itself, and
 * run only statements they build.
 */
static void
owned_remote_tablet(Oid tablet, ForeignServer **server, char **remote)
{
	ForeignTable *ft;

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(tablet)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", tablet)));
	if (!pg_class_ownercheck(tablet, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER,
					   get_relkind_objtype(get_rel_relkind(tablet)),
					   get_rel_name(tablet));
	if (get_rel_relkind(tablet) != RELKIND_FOREIGN_TABLE ||
		!get_rel_relispartition(tablet))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a remote tablet", get_rel_name(tablet)),
				 errdetail("A remote tablet is a foreign table that is a partition of a parent of tablets.")));
	ft = GetForeignTable(tablet);
	*server = GetForeignServer(ft->serverid);
	*remote = (char *) remote_table_name(ft, tablet);
}

/* run a statement with parameters in this transaction's remote transaction */
static void
remote_exec_params(ForeignServer *server, Oid tablet, const char *sql,
				   int nparams, const char *const *params)
{
	char	   *tabletname = DatumGetCString(DirectFunctionCall1(regclassout,
																 ObjectIdGetDatum(tablet)));
	RemoteConn *rc = get_conn(server->servername, tabletname);
	PGresult   *res = exec_wait(rc->conn, sql, nparams, params);

	if (PQresultStatus(res) != PGRES_TUPLES_OK &&
		PQresultStatus(res) != PGRES_COMMAND_OK)
		remote_error(rc, res, tabletname);
	PQclear(res);
}

/*
 * remote_family -- family change "fn" (create_family, alter_family or
 * drop_family) of the wide table of a remote tablet, run on its node with
 * "args" (the arguments after the table, as text, NULL for NULL) as
 * parameters.  Only for the owner of the tablet; the node checks the
 * mapped user's ownership again.
 */
static void
remote_family(Oid tablet, const char *fn, int nargs, const char *const *args)
{
	static const struct
	{
		const char *fn;
		const char *const types[8];
	}			fns[] = {
		{"create_family", {"text", "int4", "interval", "text", "text", "jsonb", "jsonb", NULL}},
		{"alter_family", {"text", "int4", "interval", "text", "jsonb", NULL}},
		{"drop_family", {"text", NULL}},
	};
	ForeignServer *server;
	char	   *remote;
	const char **params;
	StringInfoData sql;
	int			f,
				i;

	owned_remote_tablet(tablet, &server, &remote);
	for (f = 0; f < (int) lengthof(fns); f++)
		if (strcmp(fns[f].fn, fn) == 0)
			break;
	if (f == lengthof(fns))
		elog(ERROR, "\"%s\" is not a family function", fn);
	for (i = 0; fns[f].types[i] != NULL; i++)
		;
	if (nargs != i)
		elog(ERROR, "wide.%s takes %d arguments after the table, not %d", fn, i, nargs);
	params = palloc0(sizeof(char *) * (nargs + 1));
	params[0] = remote;
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT wide.%s($1::pg_catalog.regclass", fn);
	for (i = 0; i < nargs; i++)
	{
		params[i + 1] = args[i];
		appendStringInfo(&sql, ", $%d::pg_catalog.%s", i + 2, fns[f].types[i]);
	}
	appendStringInfoString(&sql, ")");

	/*
	 * The family change takes the node table's AccessExclusiveLock: wait for
	 * it 1 s at most (WideRemoteFamily retries), as tablet operations' DDL
	 * does (_remote_ddl): a reader's transaction on the node may hold the
	 * table while its next statement waits behind this one, a cycle through
	 * the coordinator that no server's deadlock detector sees.  SET LOCAL is
	 * undone with the savepoint of a failed attempt.
	 */
	remote_exec_params(server, tablet, "SET LOCAL lock_timeout = '1s'", 0, NULL);
	remote_exec_params(server, tablet, sql.data, nargs + 1, params);
	remote_exec_params(server, tablet, "RESET lock_timeout", 0, NULL);
}

/*
 * WideRemoteFamily -- a family change (as remote_family) on a remote
 * tablet.  It waits 1 s at most for the node table's lock and is tried up
 * to 10 times, each attempt in a subtransaction (rolled back to a
 * savepoint on the node), as a tablet operation's DDL is (_remote_ddl):
 * without it a family change once waited for ever in the distributed
 * stress test (t/226, both switches).
 */
void
WideRemoteFamily(Oid tablet, const char *fn, int nargs, const char *const *args)
{
	const int	attempts = 10;

	/* set in the PG_TRY block, read after it */
	char	   *volatile msg = NULL;
	volatile bool done = false;
	volatile int attempt;

	for (attempt = 1; attempt <= attempts && !done; attempt++)
	{
		MemoryContext cxt = CurrentMemoryContext;
		ResourceOwner owner = CurrentResourceOwner;

		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(cxt);
		PG_TRY();
		{
			remote_family(tablet, fn, nargs, args);
			ReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(cxt);
			CurrentResourceOwner = owner;
			done = true;
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			FlushErrorState();
			RollbackAndReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(cxt);
			CurrentResourceOwner = owner;
			if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
				ReThrowError(edata);
			msg = edata->message;
		}
		PG_END_TRY();
		if (!done)
			DirectFunctionCall1(pg_sleep, Float8GetDatum(0.1 * attempt));
	}
	if (!done)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("%s", msg),
				 errdetail("The family change of tablet %s waited for a lock on its node %d times for 1 s; sessions there held it.",
						   DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(tablet))),
						   attempts),
				 errhint("Retry when those sessions have ended.")));
}

/*
 * WideStoreCatalogSql -- the statement that makes doc (jsonb as text) the
 * family catalog of a table (qualified and quoted) whose family column is
 * famcol (doc NULL: no catalog).  Its literal reads the same whatever standard_conforming_strings
 * is (quote_literal writes E'' where a backslash is in it).
 */
char *
WideStoreCatalogSql(const char *table, const char *famcol, const char *doc)
{
	return psprintf("ALTER TABLE ONLY %s ALTER COLUMN %s SET DEFAULT wide.family_catalog(%s::pg_catalog.jsonb)",
					table, quote_identifier(famcol), doc ? quote_literal_cstr(doc) : "NULL");
}

/*
 * WideRemoteCreateTablet -- make the wide table of a remote tablet on its
 * node: its schema if missing, a wide table with the foreign table's
 * columns, and the family catalog (if not NULL).  Only for the owner of the
 * tablet.
 */
void
WideRemoteCreateTablet(Oid tablet, Jsonb *catalog)
{
	ForeignServer *server;
	char	   *remote;
	ForeignTable *ft;
	char	   *nsp;
	char	   *famcol = NULL;
	Relation	rel;
	TupleDesc	desc;
	StringInfoData sql;
	int			i;
	bool		first = true;

	owned_remote_tablet(tablet, &server, &remote);
	ft = GetForeignTable(tablet);
	nsp = table_option(ft, "schema_name");
	if (nsp == NULL)
		nsp = get_namespace_name(get_rel_namespace(tablet));
	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE SCHEMA IF NOT EXISTS %s; CREATE TABLE %s (",
					 quote_identifier(nsp), remote);
	rel = relation_open(tablet, AccessShareLock);
	desc = RelationGetDescr(rel);
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (att->attnum == 2)
			famcol = pstrdup(NameStr(att->attname));
		appendStringInfo(&sql, "%s%s %s", first ? "" : ", ",
						 quote_identifier(NameStr(att->attname)),
						 format_type_extended(att->atttypid, att->atttypmod,
											  FORMAT_TYPE_TYPEMOD_GIVEN |
											  FORMAT_TYPE_FORCE_QUALIFY));
		if (OidIsValid(att->attcollation))
		{
			HeapTuple	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(att->attcollation));
			Form_pg_collation coll;

			if (!HeapTupleIsValid(tup))
				elog(ERROR, "cache lookup failed for collation %u", att->attcollation);
			coll = (Form_pg_collation) GETSTRUCT(tup);
			appendStringInfo(&sql, " COLLATE %s",
							 quote_qualified_identifier(get_namespace_name(coll->collnamespace),
														NameStr(coll->collname)));
			ReleaseSysCache(tup);
		}
		first = false;
	}
	relation_close(rel, AccessShareLock);
	appendStringInfoString(&sql, ") USING wide");
	remote_exec_params(server, tablet, sql.data, 0, NULL);

	/*
	 * The catalog as the family functions store it (WideStoreCatalogSql): a
	 * statement the node's user may run on the table it owns, with no
	 * internal function of the extension there.
	 */
	if (catalog != NULL && famcol != NULL)
		remote_exec_params(server, tablet,
						   WideStoreCatalogSql(remote, famcol,
											   JsonbToCString(NULL, &catalog->root, -1)),
						   0, NULL);
}
