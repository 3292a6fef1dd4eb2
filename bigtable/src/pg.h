// pg.h -- wide-bigtable's side of PostgreSQL: a pool of libpq connections
// shared by the gRPC threads, statements with bytea parameters, and
// SQLSTATE -> gRPC status mapping.  Also Bigtable resource names -> wide
// tables (docs/grpc.md, "Tables").
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <libpq-fe.h>

struct Config
{
	std::string dsn;			// libpq connection string ("" = PG* environment)
	std::string schema = "public";	// where Bigtable tables live
	std::string role;			// SET ROLE after connecting ("" = the login role)
	int max_connections = 8;
};

// A pool of connections; acquire() blocks while max_connections are leased.
// A connection that broke, or is left inside a transaction, is closed on
// release; an idle one whose server went away is replaced on acquire.
class Pool
{
public:
	explicit Pool(const Config &cfg) : cfg_(cfg) {}
	~Pool();
	PGconn *acquire(grpc::Status *err);
	void release(PGconn *conn);
	const Config &config() const { return cfg_; }

private:
	PGconn *connect(grpc::Status *err);
	Config cfg_;
	std::mutex mu_;
	std::condition_variable cv_;
	std::vector<PGconn *> idle_;
	int leased_ = 0;
};

// One leased connection, returned to the pool when it goes out of scope.
class Conn
{
public:
	explicit Conn(Pool &pool) : pool_(pool) { conn_ = pool.acquire(&status_); }
	~Conn() { if (conn_) pool_.release(conn_); }
	Conn(const Conn &) = delete;
	Conn &operator=(const Conn &) = delete;
	bool ok() const { return conn_ != nullptr; }
	const grpc::Status &status() const { return status_; }
	PGconn *get() const { return conn_; }
	const Config &config() const { return pool_.config(); }

private:
	Pool &pool_;
	PGconn *conn_ = nullptr;
	grpc::Status status_;
};

// The common start of a call on one table: the table id of its resource
// name (status() is INVALID_ARGUMENT for a bad name), then, once the
// request is checked, open(): a leased connection and the table's quoted
// schema.table.
class TableCall
{
public:
	TableCall(Pool &pool, const std::string &resource);
	const grpc::Status &status() const { return status_; }
	grpc::Status open();
	PGconn *get() const { return conn_ ? conn_->get() : nullptr; }
	const Config &config() const { return pool_.config(); }
	// the table id, and its quoted schema.table (after open())
	const std::string &id() const { return id_; }
	const std::string &qualified() const { return qualified_; }

private:
	Pool &pool_;
	grpc::Status status_;
	std::string id_, qualified_;
	std::unique_ptr<Conn> conn_;
};

// A PGresult freed at scope end.
class Result
{
public:
	explicit Result(PGresult *r = nullptr) : r_(r) {}
	~Result() { if (r_) PQclear(r_); }
	Result(const Result &) = delete;
	Result &operator=(const Result &) = delete;
	void reset(PGresult *r) { if (r_) PQclear(r_); r_ = r; }
	PGresult *release() { PGresult *r = r_; r_ = nullptr; return r; }
	PGresult *get() const { return r_; }

private:
	PGresult *r_;
};

// Statement parameters: text or binary (bytea) values, or NULL.
class Params
{
public:
	int text(const std::string &v) { return add(v, 0, false); }
	int bytes(const std::string &v) { return add(v, 1, false); }
	int null() { return add("", 0, true); }
	int count() const { return (int) vals_.size(); }
	// $n placeholder of the last added value
	std::string last() const { return "$" + std::to_string(vals_.size()); }
	PGresult *exec(PGconn *conn, const std::string &sql, int result_format) const;
	bool send(PGconn *conn, const std::string &sql, int result_format) const;

private:
	int add(const std::string &v, int fmt, bool isnull);
	void arrays(std::vector<const char *> &v, std::vector<int> &l) const;
	std::vector<std::string> vals_;
	std::vector<int> formats_;
	std::vector<bool> nulls_;
};

// OK for a command or tuples result, else the gRPC status its SQLSTATE
// maps to (UNAVAILABLE when the connection broke).
grpc::Status result_status(PGconn *conn, const PGresult *res);
// the gRPC code of a SQLSTATE
grpc::StatusCode sqlstate_code(const std::string &sqlstate);

// logs (rate-limited) that calls answer UNAVAILABLE, and why
void log_unavailable(const std::string &msg);

// Cancels the running query and reads its results to the end, so that
// the connection can serve the next statement.
void cancel_and_drain(PGconn *conn);

// "projects/P/instances/I/tables/T" -> T, validated as a Bigtable table id
grpc::Status parse_table_name(const std::string &name, std::string *table);
// "projects/P/instances/I" (a parent)
grpc::Status parse_instance_name(const std::string &name);
// the quoted schema.table of a table id
std::string qualified_table(PGconn *conn, const std::string &schema, const std::string &table);

// big-endian int64 of binary results
int64_t get_int64(const char *p);
// a PostgreSQL binary timestamp (microseconds since 2000) -> Unix microseconds
const int64_t PG_EPOCH_OFFSET_MICROS = 946684800000000LL;
