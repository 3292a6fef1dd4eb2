// admin.cc -- the table calls of google.bigtable.admin.v2.BigtableTableAdmin:
// CreateTable, ListTables, GetTable, DeleteTable, ModifyColumnFamilies and
// DropRowRange, as CREATE TABLE ... USING wide, wide.create_family /
// alter_family / drop_family, DROP TABLE, TRUNCATE and wide.delete_row.
// Every other admin RPC answers UNIMPLEMENTED.  docs/grpc.md, "Tables".
#include "services.h"

#include <cstdlib>

#include "convert.h"
#include "google/bigtable/admin/v2/bigtable_table_admin.grpc.pb.h"

using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;
using namespace google::bigtable::admin::v2;

static Status
unimplemented(const char *method)
{
	return Status(StatusCode::UNIMPLEMENTED,
				  std::string(method) + " is not implemented by wide-bigtable (docs/grpc.md)");
}

// The shape of a table CreateTable makes: Bigtable's bytes everywhere, and
// microsecond timestamps.
static const char *TABLE_COLUMNS =
	" (row_key bytea, family text COLLATE \"C\", qualifier bytea, ts int8, value bytea) USING wide";

// A small reader of the GC rule JSON wide.families() shows (the form
// gc_rule_json writes: max_num_versions, max_age as "<seconds>s" or an
// interval, union / intersection as arrays or {"rules": [...]}).
class GcReader
{
public:
	explicit GcReader(const std::string &s) : s_(s) {}
	bool rule(GcRule *out, int depth = 0)
	{
		if (depth > 16 || !eat('{'))
			return false;
		do
		{
			std::string key;
			if (!str(&key) || !eat(':'))
				return false;
			if (key == "max_num_versions" || key == "maxNumVersions")
				out->set_max_num_versions((int32_t) number());
			else if (key == "max_age_us")
			{
				int64_t us = number();
				out->mutable_max_age()->set_seconds(us / 1000000);
				out->mutable_max_age()->set_nanos((int32_t) (us % 1000000) * 1000);
			}
			else if (key == "max_age" || key == "maxAge")
			{
				std::string v;
				if (!str(&v))
					return false;
				if (!out->has_max_age() && !v.empty() && v.back() == 's')	// "86400s"
				{
					double secs = strtod(v.c_str(), nullptr);
					out->mutable_max_age()->set_seconds((int64_t) secs);
					out->mutable_max_age()->set_nanos((int32_t) ((secs - (int64_t) secs) * 1e9));
				}
			}
			else if (key == "union" || key == "intersection")
			{
				auto *rules = key == "union" ? out->mutable_union_()->mutable_rules()
											 : out->mutable_intersection()->mutable_rules();
				bool wrapped = peek('{');
				if (wrapped)
				{
					std::string k;
					if (!eat('{') || !str(&k) || !eat(':'))
						return false;
				}
				if (!eat('['))
					return false;
				if (!peek(']'))
					do
					{
						if (!rule(rules->Add(), depth + 1))
							return false;
					} while (eat(','));
				if (!eat(']') || (wrapped && !eat('}')))
					return false;
			}
			else
				return false;
		} while (eat(','));
		return eat('}');
	}

private:
	void ws() { while (i_ < s_.size() && isspace((unsigned char) s_[i_])) i_++; }
	bool peek(char c) { ws(); return i_ < s_.size() && s_[i_] == c; }
	bool eat(char c) { if (!peek(c)) return false; i_++; return true; }
	int64_t number()
	{
		ws();
		bool quoted = eat('"');
		char *end;
		int64_t v = strtoll(s_.c_str() + i_, &end, 10);
		i_ = end - s_.c_str();
		if (quoted)
			eat('"');
		return v;
	}
	bool str(std::string *o)
	{
		if (!eat('"'))
			return false;
		while (i_ < s_.size() && s_[i_] != '"')
			*o += s_[i_++];
		return eat('"');
	}
	const std::string &s_;
	size_t i_ = 0;
};

class AdminService final : public BigtableTableAdmin::Service
{
public:
	explicit AdminService(Pool &pool) : pool_(pool) {}

	Status CreateTable(ServerContext *, const CreateTableRequest *req, Table *resp) override
	{
		Status st = parse_instance_name(req->parent());
		TableCall c(pool_, req->parent() + "/tables/" + req->table_id());
		if (st.ok())
			st = c.status();
		if (!st.ok())
			return st;
		// check every family before anything is created
		std::vector<std::vector<std::string>> fams;	// id, gc json, aggregate
		for (const auto &f : req->table().column_families())
		{
			std::string gc, agg;
			st = check_family_id(f.first);
			if (st.ok())
				st = gc_rule_json(f.second.gc_rule(), &gc);
			if (st.ok())
				st = aggregate_name(f.second.value_type(), &agg);
			if (!st.ok())
				return st;
			fams.push_back({f.first, gc, agg});
		}
		if (!(st = c.open()).ok())
			return st;
		const std::string &tbl = c.qualified();
		st = exec(c.get(), "BEGIN");
		if (st.ok())
			st = exec(c.get(), "CREATE TABLE " + tbl + TABLE_COLUMNS);
		for (const auto &f : fams)
			if (st.ok())
				st = create_family(c.get(), tbl, f[0], f[1], f[2]);
		if (st.ok())
			st = exec(c.get(), "COMMIT");
		else
			exec(c.get(), "ROLLBACK");
		if (!st.ok())
			return st;
		return describe(c.get(), req->parent() + "/tables/" + c.id(), c.id(), Table::SCHEMA_VIEW, resp);
	}

	Status ListTables(ServerContext *, const ListTablesRequest *req, ListTablesResponse *resp) override
	{
		Status st = parse_instance_name(req->parent());
		if (!st.ok())
			return st;
		Conn c(pool_);
		if (!c.ok())
			return c.status();
		Params p;
		p.text(c.config().schema);
		Result r(p.exec(c.get(),
						"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
						" JOIN pg_am a ON a.oid = c.relam WHERE n.nspname = $1 AND a.amname = 'wide'"
						" AND c.relkind = 'r' ORDER BY c.relname COLLATE \"C\"", 0));
		st = result_status(c.get(), r.get());
		if (!st.ok())
			return st;
		for (int i = 0; i < PQntuples(r.get()); i++)
		{
			std::string t = PQgetvalue(r.get(), i, 0);
			std::string name = req->parent() + "/tables/" + t;
			if (req->view() == Table::VIEW_UNSPECIFIED || req->view() == Table::NAME_ONLY)
				resp->add_tables()->set_name(name);
			else if (!(st = describe(c.get(), name, t, req->view(), resp->add_tables())).ok())
				return st;
		}
		return Status::OK;
	}

	Status GetTable(ServerContext *, const GetTableRequest *req, Table *resp) override
	{
		TableCall c(pool_, req->name());
		Status st = c.status();
		if (!st.ok())
			return st;
		if (!(st = c.open()).ok())
			return st;
		return describe(c.get(), req->name(), c.id(), req->view(), resp);
	}

	Status DeleteTable(ServerContext *, const DeleteTableRequest *req, google::protobuf::Empty *) override
	{
		TableCall c(pool_, req->name());
		Status st = c.status();
		if (!st.ok())
			return st;
		if (!(st = c.open()).ok())
			return st;
		const std::string &tbl = c.qualified();
		st = exec(c.get(), "BEGIN");
		if (st.ok())
			st = check_wide(c.get(), c.id());
		if (st.ok())
			st = exec(c.get(), "DROP TABLE " + tbl);
		if (st.ok())
			st = exec(c.get(), "COMMIT");
		else
			exec(c.get(), "ROLLBACK");
		return st;
	}

	Status ModifyColumnFamilies(ServerContext *, const ModifyColumnFamiliesRequest *req, Table *resp) override
	{
		TableCall c(pool_, req->name());
		Status st = c.status();
		if (!st.ok())
			return st;
		if (req->modifications().empty())
			return Status(StatusCode::INVALID_ARGUMENT, "no modifications given");
		for (const auto &m : req->modifications())
		{
			st = check_family_id(m.id());
			if (st.ok() && m.mod_case() == ModifyColumnFamiliesRequest::Modification::MOD_NOT_SET)
				st = Status(StatusCode::INVALID_ARGUMENT, "a modification sets none of create, update, drop");
			if (!st.ok())
				return st;
		}
		if (!(st = c.open()).ok())
			return st;
		const std::string &tbl = c.qualified();
		st = exec(c.get(), "BEGIN");
		if (st.ok())
			st = check_wide(c.get(), c.id());
		for (const auto &m : req->modifications())
		{
			if (!st.ok())
				break;
			std::string gc, agg;
			if (m.has_create())
			{
				st = gc_rule_json(m.create().gc_rule(), &gc);
				if (st.ok())
					st = aggregate_name(m.create().value_type(), &agg);
				if (st.ok())
					st = create_family(c.get(), tbl, m.id(), gc, agg);
			}
			else if (m.has_update())
			{
				st = gc_rule_json(m.update().gc_rule(), &gc);
				if (st.ok())
				{
					Params p;
					p.text(tbl);
					p.text(m.id());
					gc.empty() ? p.null() : p.text(gc);
					Result r(p.exec(c.get(), "SELECT wide.alter_family($1::regclass, $2, gc_rule => $3::jsonb)", 0));
					st = result_status(c.get(), r.get());
				}
			}
			else
			{
				Params p;
				p.text(tbl);
				p.text(m.id());
				Result r(p.exec(c.get(), "SELECT wide.drop_family($1::regclass, $2)", 0));
				st = result_status(c.get(), r.get());
			}
		}
		if (st.ok())
			st = exec(c.get(), "COMMIT");
		else
			exec(c.get(), "ROLLBACK");
		if (!st.ok())
			return st;
		return describe(c.get(), req->name(), c.id(), Table::SCHEMA_VIEW, resp);
	}

	Status DropRowRange(ServerContext *, const DropRowRangeRequest *req, google::protobuf::Empty *) override
	{
		TableCall c(pool_, req->name());
		Status st = c.status();
		if (!st.ok())
			return st;
		if (req->target_case() == DropRowRangeRequest::TARGET_NOT_SET ||
			(req->has_delete_all_data_from_table() && !req->delete_all_data_from_table()))
			return Status(StatusCode::INVALID_ARGUMENT, "give row_key_prefix or delete_all_data_from_table");
		if (req->has_row_key_prefix() && req->row_key_prefix().empty())
			return Status(StatusCode::INVALID_ARGUMENT, "row_key_prefix must not be empty");
		if (!(st = c.open()).ok())
			return st;
		const std::string &tbl = c.qualified();
		st = check_wide(c.get(), c.id());
		if (!st.ok())
			return st;
		if (req->has_delete_all_data_from_table())
			return exec(c.get(), "TRUNCATE " + tbl);
		// one DeleteFromRow per row of the prefix, in one statement
		Params p;
		p.text(tbl);
		p.bytes(req->row_key_prefix());
		Result r(p.exec(c.get(),
						"SELECT count(wide.delete_row($1::regclass, k)) FROM (SELECT DISTINCT row_key AS k"
						" FROM wide.read_rows(NULL::" + tbl + ", prefix => $2::bytea,"
						" filter => '{\"cells_per_row_limit_filter\": 1}')) s", 0));
		return result_status(c.get(), r.get());
	}

#include "unimplemented_admin.inc"

private:
	static Status exec(PGconn *c, const std::string &sql)
	{
		Result r(PQexec(c, sql.c_str()));
		return result_status(c, r.get());
	}

	static Status check_family_id(const std::string &id)
	{
		bool ok = !id.empty() && id.size() <= 64;
		for (char ch : id)
			ok &= isalnum((unsigned char) ch) || ch == '-' || ch == '_' || ch == '.';
		if (!ok)
			return Status(StatusCode::INVALID_ARGUMENT,
						  "invalid column family id \"" + id + "\": 1 to 64 characters of [-_.a-zA-Z0-9]");
		return Status::OK;
	}

	static Status create_family(PGconn *c, const std::string &tbl, const std::string &id,
								const std::string &gc, const std::string &agg)
	{
		Params p;
		p.text(tbl);
		p.text(id);
		gc.empty() ? p.null() : p.text(gc);
		agg.empty() ? p.null() : p.text(agg);
		Result r(p.exec(c, "SELECT wide.create_family($1::regclass, $2, gc_rule => $3::jsonb, aggregate => $4)", 0));
		return result_status(c, r.get());
	}

	// NOT_FOUND unless the schema holds a wide table of that name
	Status check_wide(PGconn *c, const std::string &table)
	{
		Params p;
		p.text(pool_.config().schema);
		p.text(table);
		Result r(p.exec(c, "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
						" JOIN pg_am a ON a.oid = c.relam WHERE n.nspname = $1 AND c.relname = $2"
						" AND a.amname = 'wide'", 0));
		Status st = result_status(c, r.get());
		if (st.ok() && PQntuples(r.get()) == 0)
			return Status(StatusCode::NOT_FOUND, "table \"" + table + "\" not found");
		return st;
	}

	Status describe(PGconn *c, const std::string &name, const std::string &table, Table::View view, Table *out)
	{
		Status st = check_wide(c, table);
		if (!st.ok())
			return st;
		out->set_name(name);
		if (view == Table::NAME_ONLY)
			return Status::OK;
		out->set_granularity(Table::MILLIS);
		Params p;
		p.text(qualified_table(c, pool_.config().schema, table));
		Result r(p.exec(c, "SELECT family, max_versions, extract(epoch FROM max_age)::float8, gc, aggregate"
						" FROM wide.families($1::regclass)", 0));
		st = result_status(c, r.get());
		if (!st.ok())
			return st;
		for (int i = 0; i < PQntuples(r.get()); i++)
		{
			ColumnFamily cf;
			GcRule versions, age;
			if (!PQgetisnull(r.get(), i, 1))
				versions.set_max_num_versions(atoi(PQgetvalue(r.get(), i, 1)));
			if (!PQgetisnull(r.get(), i, 2))
			{
				double secs = strtod(PQgetvalue(r.get(), i, 2), nullptr);
				age.mutable_max_age()->set_seconds((int64_t) secs);
				age.mutable_max_age()->set_nanos((int32_t) ((secs - (int64_t) secs) * 1e9));
			}
			std::string gc = PQgetisnull(r.get(), i, 3) ? "" : PQgetvalue(r.get(), i, 3);
			if (!gc.empty() && gc[0] == '{')
			{
				GcRule parsed;
				if (GcReader(gc).rule(&parsed))
					*cf.mutable_gc_rule() = parsed;
			}
			else if (versions.has_max_num_versions() && age.has_max_age())
			{
				auto *rules = gc == "intersection" ? cf.mutable_gc_rule()->mutable_intersection()->mutable_rules()
												   : cf.mutable_gc_rule()->mutable_union_()->mutable_rules();
				*rules->Add() = versions;
				*rules->Add() = age;
			}
			else if (versions.has_max_num_versions())
				*cf.mutable_gc_rule() = versions;
			else if (age.has_max_age())
				*cf.mutable_gc_rule() = age;
			if (!PQgetisnull(r.get(), i, 4))
				aggregate_type(PQgetvalue(r.get(), i, 4), cf.mutable_value_type());
			(*out->mutable_column_families())[PQgetvalue(r.get(), i, 0)] = cf;
		}
		return Status::OK;
	}

	Pool &pool_;
};

std::unique_ptr<grpc::Service>
make_admin_service(Pool &pool)
{
	return std::unique_ptr<grpc::Service>(new AdminService(pool));
}
