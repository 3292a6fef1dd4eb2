// data.cc -- google.bigtable.v2.Bigtable over wide's SQL functions:
// ReadRows (wide.read_rows streamed in single-row mode, cut into CellChunks
// written straight in protobuf's wire format),
// SampleRowKeys, MutateRow, MutateRows, CheckAndMutateRow,
// ReadModifyWriteRow and PingAndWarm.  docs/grpc.md describes the mapping.
#include "services.h"

#include <cstring>
#include <map>

#include "convert.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"

using grpc::ServerContext;
using grpc::ServerWriter;
using grpc::Status;
using grpc::StatusCode;
using namespace google::bigtable::v2;

// values longer than this are sent as several chunks (value_size set), and
// a response is sent at the end of the row that brings its chunks to this
// many bytes.  A response always ends at a row's end: the Go client (cbt)
// checks after each response that no row is left open.
static const size_t CHUNK_BYTES = 1 << 20;
// ReadRows asks whether the call was cancelled once every this many cells
static const uint64_t CANCEL_CHECK_CELLS = 4096;

static Status
unimplemented(const char *method)
{
	return Status(StatusCode::UNIMPLEMENTED,
				  std::string(method) + " is not implemented by wide-bigtable (docs/grpc.md)");
}

// SQL text of an optional argument: ", name => $n::type"
static std::string
arg(Params &p, const char *name, const std::string &value, const char *type, bool bytes = false)
{
	if (bytes)
		p.bytes(value);
	else
		p.text(value);
	return std::string(", ") + name + " => " + p.last() + "::" + type;
}

// the row key of a binary result column, and the Unix microseconds of ts
static int64_t
ts_micros(const PGresult *r, int col)
{
	const char *v = PQgetvalue(r, 0, col);
	int64_t t = get_int64(v);
	Oid type = PQftype(r, col);
	if (type == 1184 || type == 1114)	// timestamptz, timestamp
		t += PG_EPOCH_OFFSET_MICROS;
	return t;
}

// A ReadRowsResponse already in protobuf's wire format: what ReadRows
// writes (a split server-streaming method, so that its responses need not
// be messages; see DataService's constructor).
struct EncodedReadRowsResponse
{
	std::string bytes;
};

namespace grpc
{
template <>
class SerializationTraits<EncodedReadRowsResponse, void>
{
public:
	static Status Serialize(const EncodedReadRowsResponse &m, ByteBuffer *bb, bool *own_buffer)
	{
		Slice slice(m.bytes.data(), m.bytes.size());
		ByteBuffer b(&slice, 1);
		bb->Swap(&b);
		*own_buffer = true;
		return Status::OK;
	}
	static Status Deserialize(ByteBuffer *, EncodedReadRowsResponse *)
	{
		return Status(StatusCode::INTERNAL, "a ReadRowsResponse is never read");
	}
};
}								// namespace grpc

typedef grpc::ServerSplitStreamer<ReadRowsRequest, EncodedReadRowsResponse> ReadRowsStream;

// Turns the cells of one read, in order, into ReadRowsResponse chunks as the
// service sends them: a row's first chunk names the row, family and
// qualifier, later ones name the family and qualifier when they change, a
// value longer than CHUNK_BYTES is split (value_size on all but its last
// piece), and the row's last chunk commits it.  Responses end at row ends, so
// the memory held is one row's cells and about CHUNK_BYTES of others.  A cell
// is held back until the next one shows whether its row ends; it points into
// the caller's result, which the caller keeps until the next cell() (or
// finish()) returns, so that a cell is copied once, into its chunk.
//
// Chunks are written in protobuf's wire format (bigtable.proto's field
// numbers), as the generated code would serialize them: a proto3 field
// that holds its default (ts 0, an empty value, value_size 0) is left out,
// a wrapper (family_name, qualifier) is written even when empty.  Building
// messages and serializing them was three quarters of ReadRows' CPU
// (ByteSizeLong, a malloc per string field, the arena's destructors).
class Chunker
{
public:
	explicit Chunker(ReadRowsStream *w) : w_(w) { resp_.bytes.reserve(CHUNK_BYTES + 4096); }

	struct Cell
	{
		const char *row, *fam, *qual, *val;
		size_t rowlen, famlen, quallen, vallen;
		int64_t ts;
	};

	bool cell(const Cell &c, std::vector<std::string> labels)
	{
		if (have_pending_ && !emit(c.rowlen != p_.rowlen || memcmp(c.row, p_.row, c.rowlen) != 0))
			return false;
		p_ = c;
		p_labels_.swap(labels);
		have_pending_ = true;
		return true;
	}

	bool finish()
	{
		if (have_pending_ && !emit(true))
			return false;
		have_pending_ = false;
		return flush();
	}

private:
	// CellChunk's fields
	enum
	{
		ROW_KEY = 1, FAMILY_NAME = 2, QUALIFIER = 3, TIMESTAMP_MICROS = 4,
		LABELS = 5, VALUE = 6, VALUE_SIZE = 7, COMMIT_ROW = 9
	};
	enum
	{
		VARINT = 0, LEN = 2
	};

	static bool same(const std::string &a, const char *b, size_t blen)
	{
		return a.size() == blen && memcmp(a.data(), b, blen) == 0;
	}

	static void varint(std::string &o, uint64_t v)
	{
		while (v >= 0x80)
		{
			o.push_back((char) (v | 0x80));
			v >>= 7;
		}
		o.push_back((char) v);
	}

	static size_t varint_len(uint64_t v)
	{
		size_t n = 1;
		while (v >= 0x80)
		{
			v >>= 7;
			n++;
		}
		return n;
	}

	static void bytes_field(std::string &o, int field, const char *p, size_t len)
	{
		o.push_back((char) (field << 3 | LEN));
		varint(o, len);
		o.append(p, len);
	}

	// a StringValue or BytesValue: a message whose field 1 is the bytes
	static void wrapper_field(std::string &o, int field, const char *p, size_t len)
	{
		o.push_back((char) (field << 3 | LEN));
		if (len == 0)
		{
			o.push_back(0);
			return;
		}
		varint(o, 1 + varint_len(len) + len);
		bytes_field(o, 1, p, len);
	}

	// the chunk in body_ goes into the response as its field 1
	void end_chunk()
	{
		resp_.bytes.push_back((char) (1 << 3 | LEN));
		varint(resp_.bytes, body_.size());
		resp_.bytes.append(body_);
		body_.clear();
	}

	bool emit(bool commit)
	{
		std::string &c = body_;

		if (!in_row_)
		{
			bytes_field(c, ROW_KEY, p_.row, p_.rowlen);
			wrapper_field(c, FAMILY_NAME, p_.fam, p_.famlen);
			wrapper_field(c, QUALIFIER, p_.qual, p_.quallen);
		}
		else if (!same(fam_, p_.fam, p_.famlen))
		{
			wrapper_field(c, FAMILY_NAME, p_.fam, p_.famlen);
			wrapper_field(c, QUALIFIER, p_.qual, p_.quallen);
		}
		else if (!same(qual_, p_.qual, p_.quallen))
			wrapper_field(c, QUALIFIER, p_.qual, p_.quallen);
		in_row_ = true;
		fam_.assign(p_.fam, p_.famlen);
		qual_.assign(p_.qual, p_.quallen);
		if (p_.ts != 0)
		{
			c.push_back((char) (TIMESTAMP_MICROS << 3 | VARINT));
			varint(c, (uint64_t) p_.ts);
		}
		for (auto &l : p_labels_)
			bytes_field(c, LABELS, l.data(), l.size());
		bytes_ += p_.rowlen + p_.quallen + 32;
		size_t total = p_.vallen;
		size_t off = 0;
		do
		{
			size_t n = std::min(CHUNK_BYTES, total - off);
			if (n > 0)
				bytes_field(c, VALUE, p_.val + off, n);
			if (off + n < total)
			{
				c.push_back((char) (VALUE_SIZE << 3 | VARINT));
				varint(c, (uint64_t) (int64_t) (int32_t) total);
			}
			bytes_ += n;
			off += n;
			if (off < total)
				end_chunk();	// the value's next piece is a chunk of its own
		} while (off < total);
		if (commit)
		{
			c.push_back((char) (COMMIT_ROW << 3 | VARINT));
			c.push_back(1);
		}
		end_chunk();
		if (commit)
		{
			in_row_ = false;
			if (bytes_ >= CHUNK_BYTES)
				return flush();
		}
		return true;
	}

	bool flush()
	{
		if (resp_.bytes.empty())
			return true;
		bool ok = w_->Write(resp_);
		resp_.bytes.clear();
		bytes_ = 0;
		return ok;
	}

	ReadRowsStream *w_;
	EncodedReadRowsResponse resp_;
	std::string body_;
	size_t bytes_ = 0;
	bool in_row_ = false;
	std::string fam_, qual_;
	bool have_pending_ = false;
	Cell p_ = {};
	std::vector<std::string> p_labels_;
};

class DataService final : public Bigtable::Service
{
public:
	explicit DataService(Pool &pool) : pool_(pool)
	{
		// ReadRows as a split server-streaming method (one request read,
		// then any number of responses, as WithSplitStreamingMethod_ReadRows
		// makes it), so that its responses are written already encoded
		MarkMethodStreamed(0, new grpc::internal::SplitServerStreamingHandler<ReadRowsRequest, EncodedReadRowsResponse>(
			[this](ServerContext *ctx, ReadRowsStream *stream) {
				ReadRowsRequest req;
				if (!stream->Read(&req))
					return Status(StatusCode::INTERNAL, "no ReadRowsRequest");
				return ReadRowsEncoded(ctx, &req, stream);
			}));
	}

	Status ReadRows(ServerContext *, const ReadRowsRequest *, ServerWriter<ReadRowsResponse> *) override
	{
		return Status(StatusCode::INTERNAL, "ReadRows is served by ReadRowsEncoded");
	}

	Status ReadRowsEncoded(ServerContext *ctx, const ReadRowsRequest *req, ReadRowsStream *w)
	{
		TableCall c(pool_, req->table_name());
		Status st = c.status();
		if (!st.ok())
			return st;
		if (req->rows_limit() < 0)
			return Status(StatusCode::INVALID_ARGUMENT, "rows_limit must not be negative");
		Params p;
		std::string args;
		std::string filter;
		bool labels = false;
		bool empty_set = false;
		if (req->has_rows())
		{
			const RowSet &rs = req->rows();
			if (!rs.row_keys().empty())
			{
				// a bytea[] literal: {"\\x6162",...}
				std::string lit = "{";
				for (int i = 0; i < rs.row_keys_size(); i++)
					lit += std::string(i ? "," : "") + "\"\\\\x" + hex(rs.row_keys(i)) + "\"";
				args += arg(p, "keys", lit + "}", "bytea[]");
			}
			std::string ranges = ranges_json(rs);
			if (!ranges.empty())
				args += arg(p, "ranges", ranges, "jsonb");
			empty_set = rs.row_keys().empty() && rs.row_ranges().empty();
		}
		(void) empty_set;		// an empty RowSet reads the whole table, as Bigtable does
		if (req->rows_limit() > 0)
			args += arg(p, "\"limit\"", std::to_string(req->rows_limit()), "int8");
		if (req->reversed())
			args += ", reversed => true";
		if (req->has_filter())
		{
			st = filter_json(req->filter(), &filter, &labels);
			if (!st.ok())
				return st;
			args += arg(p, "filter", filter, "jsonb");
		}
		if (!(st = c.open()).ok())
			return st;
		const std::string &tbl = c.qualified();
		std::string sql = labels
			? "SELECT (r.cell).row_key, (r.cell).family, (r.cell).qualifier, (r.cell).ts, (r.cell).value,"
			  " array_to_string(r.labels, ',') FROM wide.read_rows_labeled(NULL::" + tbl + args + ") r"
			: "SELECT row_key, family, qualifier, ts, value FROM wide.read_rows(NULL::" + tbl + args + ")";
		if (!p.send(c.get(), sql, 1) || !PQsetSingleRowMode(c.get()))
			return result_status(c.get(), nullptr);
		Result held;	// declared before the Chunker, so it outlives it
		Chunker ch(w);
		Status result = Status::OK;
		bool stopped = false;
		uint64_t ncells = 0;
		while (PGresult *r = PQgetResult(c.get()))
		{
			Result res(r);
			if (stopped)
				continue;
			ExecStatusType es = PQresultStatus(r);
			if (es == PGRES_SINGLE_TUPLE)
			{
				std::vector<std::string> ls;
				if (labels && PQgetlength(r, 0, 5) > 0)
				{
					std::string all(PQgetvalue(r, 0, 5), PQgetlength(r, 0, 5));
					size_t s = 0;
					for (size_t i = 0; i <= all.size(); i++)
						if (i == all.size() || all[i] == ',')
						{
							ls.push_back(all.substr(s, i - s));
							s = i + 1;
						}
				}
				// IsCancelled() polls gRPC's completion queue (a futex wait
				// each call): half the server's CPU when asked per cell.  A
				// client that went away also fails the next Write.
				Chunker::Cell cell = {PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2),
									  PQgetvalue(r, 0, 4), (size_t) PQgetlength(r, 0, 0),
									  (size_t) PQgetlength(r, 0, 1), (size_t) PQgetlength(r, 0, 2),
									  (size_t) PQgetlength(r, 0, 4), ts_micros(r, 3)};
				if ((++ncells % CANCEL_CHECK_CELLS == 0 && ctx->IsCancelled()) ||
					!ch.cell(cell, std::move(ls)))
				{
					result = Status(StatusCode::CANCELLED, "the client went away");
					stopped = true;
					res.reset(nullptr);
					cancel_and_drain(c.get());
					break;
				}
				// the Chunker's pending cell points into this result
				held.reset(res.release());
			}
			else if (es != PGRES_TUPLES_OK)
			{
				result = result_status(c.get(), r);
				const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
				if (state && strcmp(state, "42704") == 0 && result.error_message().rfind("type ", 0) == 0)
					result = Status(StatusCode::NOT_FOUND, "table \"" + c.id() + "\" not found");
				stopped = true;
			}
		}
		if (result.ok() && !ch.finish())
			result = Status(StatusCode::CANCELLED, "the client went away");
		return result;
	}

	Status SampleRowKeys(ServerContext *, const SampleRowKeysRequest *req,
						 ServerWriter<SampleRowKeysResponse> *w) override
	{
		TableCall c(pool_, req->table_name());
		Status st = c.status();
		if (!st.ok())
			return st;
		if (!(st = c.open()).ok())
			return st;
		Params p;
		p.text(c.qualified());
		Result r(p.exec(c.get(), "SELECT row_key, offset_bytes FROM wide.sample_row_keys($1::regclass)", 1));
		st = result_status(c.get(), r.get());
		if (!st.ok())
			return st;
		for (int i = 0; i < PQntuples(r.get()); i++)
		{
			SampleRowKeysResponse resp;
			resp.set_row_key(std::string(PQgetvalue(r.get(), i, 0), PQgetlength(r.get(), i, 0)));
			resp.set_offset_bytes(get_int64(PQgetvalue(r.get(), i, 1)));
			if (!w->Write(resp))
				return Status(StatusCode::CANCELLED, "the client went away");
		}
		return Status::OK;
	}

	Status MutateRow(ServerContext *, const MutateRowRequest *req, MutateRowResponse *) override
	{
		std::string muts;
		TableCall c(pool_, req->table_name());
		Status st = c.status();
		if (st.ok())
			st = check_key(req->row_key());
		if (st.ok())
			st = mutations_json(req->mutations(), &muts);
		if (!st.ok())
			return st;
		if (!(st = c.open()).ok())
			return st;
		Params p;
		p.text(c.qualified());
		p.bytes(req->row_key());
		p.text(muts);
		Result r(p.exec(c.get(), "SELECT wide.mutate_row($1::regclass, $2::bytea, $3::jsonb)", 1));
		return result_status(c.get(), r.get());
	}

	Status MutateRows(ServerContext *, const MutateRowsRequest *req, ServerWriter<MutateRowsResponse> *w) override
	{
		TableCall c(pool_, req->table_name());
		Status st = c.status();
		if (!st.ok())
			return st;
		if (req->entries().empty())
			return Status(StatusCode::INVALID_ARGUMENT, "no entries given");
		// entries that cannot be converted fail alone, before anything runs;
		// the others into a binary batch (wide.mutate_rows_bin), each its
		// own slice of it
		int n = req->entries_size();
		std::vector<Status> bad(n);
		std::vector<std::pair<size_t, size_t>> slice(n);
		std::string body;
		uint32_t good = 0;
		for (int i = 0; i < n; i++)
		{
			const auto &e = req->entries(i);
			bad[i] = check_key(e.row_key());
			slice[i].first = body.size();
			if (bad[i].ok())
				bad[i] = append_entry_bin(body, e.row_key(), e.mutations());
			slice[i].second = body.size();
			good += bad[i].ok();
		}
		std::map<int, Status> failed;
		if (good > 0)
		{
			if (!(st = c.open()).ok())
				return st;
			// the binary batch needs a bytea value column (its values are
			// bytes) and wide.mutate_rows_bin (an extension not updated to
			// it has none); else the JSON of wide.mutate_rows: the data
			// API's own form for a bytea value column, else Bigtable's
			// mapping, which wide rewrites for the column's type
			Params tp;
			tp.text(c.qualified());
			Result tr(tp.exec(c.get(), "SELECT atttypid = 'bytea'::regtype, "
							  "to_regprocedure('wide.mutate_rows_bin(regclass,bytea)') IS NOT NULL "
							  "FROM pg_attribute "
							  "WHERE attrelid = $1::regclass AND attnum = 5 AND NOT attisdropped", 0));
			if (PQstatus(c.get()) != CONNECTION_OK)
				return result_status(c.get(), tr.get());
			bool bytea = PQresultStatus(tr.get()) == PGRES_TUPLES_OK && PQntuples(tr.get()) == 1 &&
				strcmp(PQgetvalue(tr.get(), 0, 0), "t") == 0;
			bool binary = bytea && strcmp(PQgetvalue(tr.get(), 0, 1), "t") == 0;
			std::vector<std::string> muts(binary ? 0 : n);
			if (!binary)
				for (int i = 0; i < n; i++)
					if (bad[i].ok())
						bad[i] = mutations_json(req->entries(i).mutations(), &muts[i], bytea);
			// First all good entries in one statement, all or nothing; if it
			// fails, nothing of it is written and each entry runs again
			// alone, in its own subtransaction, for its own status.
			Params p;
			p.text(c.qualified());
			const char *sql;
			if (binary)
			{
				std::string batch;
				begin_mutations_bin(batch, good);
				batch += body;
				p.bytes(batch);
				sql = "SELECT wide.mutate_rows_bin($1::regclass, $2::bytea)";
			}
			else
			{
				std::string all = "[";
				for (int i = 0; i < n; i++)
					if (bad[i].ok())
					{
						all += all.size() > 1 ? ",{\"row_key\":" : "{\"row_key\":";
						append_key_json(all, req->entries(i).row_key());
						all += ",\"mutations\":";
						all += muts[i];
						all += '}';
					}
				all += ']';
				p.text(all);
				sql = "SELECT wide.mutate_rows($1::regclass, $2::jsonb)";
			}
			Result r(p.exec(c.get(), sql, 0));
			if (PQresultStatus(r.get()) != PGRES_TUPLES_OK)
			{
				if (PQstatus(c.get()) != CONNECTION_OK)
					return result_status(c.get(), r.get());
				Params p1;
				p1.text(c.qualified());
				if (binary)
				{
					// a bytea[] of one-entry batches, NULL for the entries
					// that failed already (keeps the indexes)
					std::string one, entries = "{";
					for (int i = 0; i < n; i++)
					{
						entries += i ? "," : "";
						if (!bad[i].ok())
						{
							entries += "NULL";
							continue;
						}
						begin_mutations_bin(one, 1);
						one.append(body, slice[i].first, slice[i].second - slice[i].first);
						entries += "\"\\\\x" + hex(one) + "\"";
					}
					entries += "}";
					p1.text(entries);
					sql = "SELECT idx, state, message FROM "
						"pg_temp.wide_bigtable_mutate_rows_bin($1::regclass, $2::bytea[])";
				}
				else
				{
					std::string entries = "[";
					for (int i = 0; i < n; i++)
						entries += std::string(i ? "," : "") + "{\"k\":\"" +
							hex(bad[i].ok() ? req->entries(i).row_key() : "-") + "\",\"m\":" +
							(bad[i].ok() ? muts[i] : "[]") + "}";	// keeps the indexes
					entries += "]";
					p1.text(entries);
					sql = "SELECT idx, state, message FROM "
						"pg_temp.wide_bigtable_mutate_rows($1::regclass, $2::jsonb)";
				}
				r.reset(p1.exec(c.get(), sql, 0));
				st = result_status(c.get(), r.get());
				if (!st.ok())
					return st;
				for (int i = 0; i < PQntuples(r.get()); i++)
					failed[atoi(PQgetvalue(r.get(), i, 0))] =
						Status(sqlstate_code(PQgetvalue(r.get(), i, 1)), PQgetvalue(r.get(), i, 2));
			}
		}
		MutateRowsResponse resp;
		for (int i = 0; i < n; i++)
		{
			auto *e = resp.add_entries();
			e->set_index(i);
			const Status &s = !bad[i].ok() ? bad[i] : failed.count(i) ? failed[i] : Status::OK;
			e->mutable_status()->set_code((int) s.error_code());
			e->mutable_status()->set_message(s.error_message());
			if (resp.entries_size() >= 10000 || i + 1 == n)
			{
				if (!w->Write(resp))
					return Status(StatusCode::CANCELLED, "the client went away");
				resp.Clear();
			}
		}
		return Status::OK;
	}

	Status CheckAndMutateRow(ServerContext *, const CheckAndMutateRowRequest *req,
							 CheckAndMutateRowResponse *resp) override
	{
		std::string pred, on_true, on_false;
		bool labels;
		TableCall c(pool_, req->table_name());
		Status st = c.status();
		if (st.ok())
			st = check_key(req->row_key());
		if (st.ok() && req->has_predicate_filter())
			st = filter_json(req->predicate_filter(), &pred, &labels);
		if (st.ok() && !req->true_mutations().empty())
			st = mutations_json(req->true_mutations(), &on_true);
		if (st.ok() && !req->false_mutations().empty())
			st = mutations_json(req->false_mutations(), &on_false);
		if (!st.ok())
			return st;
		if (!(st = c.open()).ok())
			return st;
		Params p;
		p.text(c.qualified());
		p.bytes(req->row_key());
		pred.empty() ? p.null() : p.text(pred);
		on_true.empty() ? p.null() : p.text(on_true);
		on_false.empty() ? p.null() : p.text(on_false);
		Result r(p.exec(c.get(), "SELECT wide.check_and_mutate_row($1::regclass, $2::bytea, $3::jsonb, "
						"$4::jsonb, $5::jsonb)", 1));
		st = result_status(c.get(), r.get());
		if (st.ok())
			resp->set_predicate_matched(PQntuples(r.get()) == 1 && !PQgetisnull(r.get(), 0, 0) &&
										PQgetvalue(r.get(), 0, 0)[0] != 0);
		return st;
	}

	Status ReadModifyWriteRow(ServerContext *, const ReadModifyWriteRowRequest *req,
							  ReadModifyWriteRowResponse *resp) override
	{
		TableCall c(pool_, req->table_name());
		Status st = c.status();
		if (st.ok())
			st = check_key(req->row_key());
		if (st.ok() && req->rules().empty())
			st = Status(StatusCode::INVALID_ARGUMENT, "no rules given");
		for (const auto &rule : req->rules())
			if (st.ok() && rule.rule_case() == ReadModifyWriteRule::RULE_NOT_SET)
				st = Status(StatusCode::INVALID_ARGUMENT, "a rule sets neither append_value nor increment_amount");
		if (!st.ok())
			return st;
		if (!(st = c.open()).ok())
			return st;
		const std::string &tbl = c.qualified();
		Result r(PQexec(c.get(), "BEGIN"));
		st = result_status(c.get(), r.get());
		// family -> qualifier -> (ts, value): a later rule on a cell wins
		std::map<std::string, std::map<std::string, std::pair<int64_t, std::string>>> cells;
		for (const auto &rule : req->rules())
		{
			if (!st.ok())
				break;
			Params p;
			p.bytes(req->row_key());
			p.text(rule.family_name());
			p.bytes(rule.column_qualifier());
			std::string sql = "SELECT row_key, family, qualifier, ts, value FROM wide.read_modify_write_row(NULL::" +
				tbl + ", $1::bytea, $2::text, $3::bytea";
			if (rule.has_append_value())
				sql += arg(p, "append", rule.append_value(), "bytea", true);
			else
				sql += arg(p, "increment", std::to_string(rule.increment_amount()), "int8");
			r.reset(p.exec(c.get(), sql + ")", 1));
			st = result_status(c.get(), r.get());
			if (!st.ok() || PQntuples(r.get()) != 1)
				continue;
			std::string fam(PQgetvalue(r.get(), 0, 1), PQgetlength(r.get(), 0, 1));
			std::string qual(PQgetvalue(r.get(), 0, 2), PQgetlength(r.get(), 0, 2));
			std::string val(PQgetvalue(r.get(), 0, 4), PQgetlength(r.get(), 0, 4));
			int64_t ts = ts_micros(r.get(), 3);
			// wide's function stamps the new cell max(now, the old cell's ts) in
			// microseconds; Bigtable in milliseconds, one time for the whole
			// request.  The cell moves, in the same transaction, to the next
			// millisecond (not below the old cell, so still the newest), or to
			// the time an earlier rule of the request gave the same cell:
			// then it replaces that cell, and two rules on one cell leave one
			// cell, as on Bigtable.
			auto f = cells.find(fam);
			bool again = f != cells.end() && f->second.count(qual);
			int64_t to = again ? f->second[qual].first
							   : ts % 1000 == 0 ? ts : ts >= 0 ? ts + (1000 - ts % 1000) : ts - ts % 1000;
			if (to != ts)
				st = move_cell(c, req->row_key(), fam, qual, ts, to, val);
			cells[fam][qual] = {to, val};
		}
		r.reset(PQexec(c.get(), st.ok() ? "COMMIT" : "ROLLBACK"));
		if (st.ok())
			st = result_status(c.get(), r.get());
		if (!st.ok())
			return st;
		Row *row = resp->mutable_row();
		row->set_key(req->row_key());
		for (auto &f : cells)
		{
			Family *fam = row->add_families();
			fam->set_name(f.first);
			for (auto &q : f.second)
			{
				Column *col = fam->add_columns();
				col->set_qualifier(q.first);
				Cell *cell = col->add_cells();
				cell->set_timestamp_micros(q.second.first);
				cell->set_value(q.second.second);
			}
		}
		return Status::OK;
	}

	Status PingAndWarm(ServerContext *, const PingAndWarmRequest *req, PingAndWarmResponse *) override
	{
		Status st = parse_instance_name(req->name());
		if (!st.ok())
			return st;
		Conn c(pool_);
		if (!c.ok())
			return c.status();
		Result r(PQexec(c.get(), "SELECT 1"));
		return result_status(c.get(), r.get());
	}

#include "unimplemented_data.inc"

private:
	// moves the cell (row, fam, qual, from) to the time to: a DeleteFromColumn
	// of its microsecond and a SetCell, in one mutate_row
	static Status move_cell(TableCall &c, const std::string &row, const std::string &fam,
							const std::string &qual, int64_t from, int64_t to, const std::string &val)
	{
		google::protobuf::RepeatedPtrField<Mutation> ms;
		auto *d = ms.Add()->mutable_delete_from_column();
		d->set_family_name(fam);
		d->set_column_qualifier(qual);
		d->mutable_time_range()->set_start_timestamp_micros(from);
		d->mutable_time_range()->set_end_timestamp_micros(from + 1);
		auto *set = ms.Add()->mutable_set_cell();
		set->set_family_name(fam);
		set->set_column_qualifier(qual);
		set->set_timestamp_micros(to);
		set->set_value(val);
		std::string json;
		Status st = mutations_json(ms, &json);
		if (!st.ok())
			return st;
		Params p;
		p.text(c.qualified());
		p.bytes(row);
		p.text(json);
		Result r(p.exec(c.get(), "SELECT wide.mutate_row($1::regclass, $2::bytea, $3::jsonb)", 1));
		return result_status(c.get(), r.get());
	}

	static Status check_key(const std::string &key)
	{
		if (key.empty())
			return Status(StatusCode::INVALID_ARGUMENT, "row key must not be empty");
		if (key.size() > 4096)
			return Status(StatusCode::INVALID_ARGUMENT, "row key longer than 4096 bytes");
		return Status::OK;
	}

	Pool &pool_;
};

std::unique_ptr<grpc::Service>
make_data_service(Pool &pool)
{
	return std::unique_ptr<grpc::Service>(new DataService(pool));
}
