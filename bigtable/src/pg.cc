// pg.cc -- the connection pool, statements and error mapping (see pg.h).
#include "pg.h"

#include <poll.h>

#include <cstdio>
#include <cstring>
#include <ctime>

// MutateRows applies each entry in its own subtransaction and reports the
// SQLSTATE of those that fail (entries in JSON, or as one-entry binary
// batches of wide.mutate_rows_bin): one round trip per request, each entry
// atomic and failing alone, as in Bigtable (docs/grpc.md).
static const char *MUTATE_ROWS_FUNCTION = R"SQL(
CREATE FUNCTION pg_temp.wide_bigtable_mutate_rows(tbl regclass, entries jsonb,
    OUT idx int, OUT state text, OUT message text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  e jsonb;
  i int := 0;
BEGIN
  FOR e IN SELECT value FROM jsonb_array_elements(entries) LOOP
    BEGIN
      PERFORM wide.mutate_row(tbl, decode(e->>'k', 'hex'), e->'m');
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
      idx := i;
      RETURN NEXT;
    END;
    i := i + 1;
  END LOOP;
END $$;
CREATE FUNCTION pg_temp.wide_bigtable_mutate_rows_bin(tbl regclass, entries bytea[],
    OUT idx int, OUT state text, OUT message text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  e bytea;
  i int := 0;
BEGIN
  FOREACH e IN ARRAY entries LOOP
    IF e IS NOT NULL THEN
      BEGIN
        PERFORM wide.mutate_rows_bin(tbl, e);
      EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
        idx := i;
        RETURN NEXT;
      END;
    END IF;
    i := i + 1;
  END LOOP;
END $$)SQL";

// Calls answer UNAVAILABLE while the database is away; say so on stderr,
// at most once a second.
void
log_unavailable(const std::string &msg)
{
	static std::mutex mu;
	static time_t last;
	std::lock_guard<std::mutex> lock(mu);
	time_t now = time(nullptr);
	if (now == last)
		return;
	last = now;
	fprintf(stderr, "wide-bigtable: UNAVAILABLE: %s\n", msg.c_str());
}

Pool::~Pool()
{
	for (PGconn *c : idle_)
		PQfinish(c);
}

PGconn *
Pool::connect(grpc::Status *err)
{
	const char *keys[] = {"dbname", "fallback_application_name", nullptr};
	const char *vals[] = {cfg_.dsn.empty() ? nullptr : cfg_.dsn.c_str(), "wide-bigtable", nullptr};
	PGconn *c = PQconnectdbParams(keys, vals, 1);

	if (PQstatus(c) != CONNECTION_OK)
	{
		std::string msg = PQerrorMessage(c);
		while (!msg.empty() && msg.back() == '\n')
			msg.pop_back();
		*err = grpc::Status(grpc::StatusCode::UNAVAILABLE, "cannot connect to PostgreSQL: " + msg);
		log_unavailable(err->error_message());
		PQfinish(c);
		return nullptr;
	}
	std::string setup;
	if (!cfg_.role.empty())
	{
		char *q = PQescapeIdentifier(c, cfg_.role.c_str(), cfg_.role.size());
		setup = std::string("SET ROLE ") + q + ";";
		PQfreemem(q);
	}
	setup += MUTATE_ROWS_FUNCTION;
	Result r(PQexec(c, setup.c_str()));
	grpc::Status st = result_status(c, r.get());
	if (!st.ok())
	{
		*err = grpc::Status(st.error_code() == grpc::StatusCode::UNAVAILABLE ? st.error_code()
							: grpc::StatusCode::PERMISSION_DENIED,
							"cannot set up the PostgreSQL session: " + st.error_message());
		PQfinish(c);
		return nullptr;
	}
	return c;
}

// An idle connection has nothing to read; if its socket is readable the
// server closed it (a restart, a terminated backend) or sent an error.
static bool
idle_connection_alive(PGconn *c)
{
	if (PQstatus(c) != CONNECTION_OK)
		return false;
	struct pollfd p = {PQsocket(c), POLLIN, 0};
	if (poll(&p, 1, 0) == 0)
		return true;
	if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK)
		return false;
	PGresult *r;
	bool clean = true;
	while (!PQisBusy(c) && (r = PQgetResult(c)) != nullptr)
	{
		clean = false;
		PQclear(r);
	}
	return clean && PQstatus(c) == CONNECTION_OK;
}

PGconn *
Pool::acquire(grpc::Status *err)
{
	PGconn *c = nullptr;
	{
		std::unique_lock<std::mutex> lock(mu_);
		cv_.wait(lock, [this] { return leased_ < cfg_.max_connections; });
		leased_++;
		while (!idle_.empty())
		{
			c = idle_.back();
			idle_.pop_back();
			if (idle_connection_alive(c))
				break;
			PQfinish(c);
			c = nullptr;
		}
	}
	if (c == nullptr)
		c = connect(err);
	if (c == nullptr)
	{
		std::lock_guard<std::mutex> lock(mu_);
		leased_--;
		cv_.notify_one();
	}
	return c;
}

void
Pool::release(PGconn *c)
{
	bool keep = PQstatus(c) == CONNECTION_OK && PQtransactionStatus(c) == PQTRANS_IDLE;
	if (!keep)
		PQfinish(c);
	std::lock_guard<std::mutex> lock(mu_);
	if (keep)
		idle_.push_back(c);
	leased_--;
	cv_.notify_one();
}

int
Params::add(const std::string &v, int fmt, bool isnull)
{
	vals_.push_back(v);
	formats_.push_back(fmt);
	nulls_.push_back(isnull);
	return (int) vals_.size();
}

void
Params::arrays(std::vector<const char *> &v, std::vector<int> &l) const
{
	for (size_t i = 0; i < vals_.size(); i++)
	{
		v.push_back(nulls_[i] ? nullptr : vals_[i].data());
		l.push_back((int) vals_[i].size());
	}
}

PGresult *
Params::exec(PGconn *conn, const std::string &sql, int result_format) const
{
	std::vector<const char *> v;
	std::vector<int> l;
	arrays(v, l);
	return PQexecParams(conn, sql.c_str(), count(), nullptr, v.data(), l.data(),
						formats_.data(), result_format);
}

bool
Params::send(PGconn *conn, const std::string &sql, int result_format) const
{
	std::vector<const char *> v;
	std::vector<int> l;
	arrays(v, l);
	return PQsendQueryParams(conn, sql.c_str(), count(), nullptr, v.data(), l.data(),
							 formats_.data(), result_format) == 1;
}

grpc::StatusCode
sqlstate_code(const std::string &s)
{
	using C = grpc::StatusCode;
	if (s.size() != 5)
		return C::INTERNAL;
	std::string cls = s.substr(0, 2);
	if (s == "42P01" || s == "42704" || s == "3F000")
		return C::NOT_FOUND;			// table, family (or schema) unknown
	if (s == "42P07" || s == "42710")
		return C::ALREADY_EXISTS;
	if (s == "42501" || cls == "28")
		return C::PERMISSION_DENIED;
	if (s == "0A000")
		return C::UNIMPLEMENTED;
	if (s == "40001" || s == "40P01" || s == "55P03")
		return C::ABORTED;
	if (s == "57014")
		return C::CANCELLED;
	if (cls == "08" || s == "57P01" || s == "57P02" || s == "57P03" || s == "25006")
		return C::UNAVAILABLE;
	if (cls == "53")
		return C::RESOURCE_EXHAUSTED;
	if (s == "42809" || s == "55000" || s == "55006")
		return C::FAILED_PRECONDITION;
	if (cls == "22" || cls == "23" || cls == "42" || cls == "54" || cls == "2F" || cls == "P0")
		return C::INVALID_ARGUMENT;
	return C::INTERNAL;
}

grpc::Status
result_status(PGconn *conn, const PGresult *res)
{
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_SINGLE_TUPLE)
		return grpc::Status::OK;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
	std::string msg;
	if (res && PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY))
	{
		msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
		if (const char *d = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL))
			msg += std::string(" (") + d + ")";
	}
	else
	{
		msg = PQerrorMessage(conn);
		while (!msg.empty() && msg.back() == '\n')
			msg.pop_back();
	}
	if (PQstatus(conn) != CONNECTION_OK || state == nullptr)
	{
		log_unavailable("PostgreSQL connection lost: " + msg);
		return grpc::Status(grpc::StatusCode::UNAVAILABLE, "PostgreSQL connection lost: " + msg);
	}
	return grpc::Status(sqlstate_code(state), msg);
}

void
cancel_and_drain(PGconn *conn)
{
	if (PGcancel *c = PQgetCancel(conn))
	{
		char buf[256];
		PQcancel(c, buf, sizeof buf);
		PQfreeCancel(c);
	}
	while (PGresult *r = PQgetResult(conn))
		PQclear(r);
}

static bool
valid_id(const std::string &id, size_t maxlen)
{
	if (id.empty() || id.size() > maxlen)
		return false;
	for (size_t i = 0; i < id.size(); i++)
	{
		char c = id[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			(i > 0 && (c == '-' || c == '.'));
		if (!ok)
			return false;
	}
	return true;
}

// splits "projects/P/instances/I[/tables/T]"
static bool
split_name(const std::string &name, std::vector<std::string> *parts)
{
	size_t start = 0;
	while (true)
	{
		size_t slash = name.find('/', start);
		parts->push_back(name.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
		if (slash == std::string::npos)
			break;
		start = slash + 1;
	}
	return parts->size() >= 4 && (*parts)[0] == "projects" && (*parts)[2] == "instances" &&
		!(*parts)[1].empty() && !(*parts)[3].empty();
}

grpc::Status
parse_instance_name(const std::string &name)
{
	std::vector<std::string> p;
	if (!split_name(name, &p) || p.size() != 4)
		return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
							"invalid instance name \"" + name + "\": expected projects/<project>/instances/<instance>");
	return grpc::Status::OK;
}

grpc::Status
parse_table_name(const std::string &name, std::string *table)
{
	std::vector<std::string> p;
	if (!split_name(name, &p) || p.size() != 6 || p[4] != "tables")
		return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
							"invalid table name \"" + name + "\": expected projects/<project>/instances/<instance>/tables/<table>");
	if (!valid_id(p[5], 50))
		return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
							"invalid table id \"" + p[5] + "\": 1 to 50 characters of [-_.a-zA-Z0-9], not starting with - or .");
	*table = p[5];
	return grpc::Status::OK;
}

std::string
qualified_table(PGconn *conn, const std::string &schema, const std::string &table)
{
	char *s = PQescapeIdentifier(conn, schema.c_str(), schema.size());
	char *t = PQescapeIdentifier(conn, table.c_str(), table.size());
	std::string q = std::string(s) + "." + t;
	PQfreemem(s);
	PQfreemem(t);
	return q;
}

TableCall::TableCall(Pool &pool, const std::string &resource) : pool_(pool)
{
	status_ = parse_table_name(resource, &id_);
}

grpc::Status
TableCall::open()
{
	if (!status_.ok())
		return status_;
	conn_.reset(new Conn(pool_));
	if (!conn_->ok())
	{
		status_ = conn_->status();
		conn_.reset();
		return status_;
	}
	qualified_ = qualified_table(conn_->get(), pool_.config().schema, id_);
	return status_;
}

int64_t
get_int64(const char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | (unsigned char) p[i];
	return (int64_t) v;
}
