// convert.cc -- protobuf -> wide's JSON (see convert.h).  Written by hand
// rather than with protobuf's JSON printer: proto3 JSON leaves out default
// values (timestamp 0, an empty value), which wide would read as "absent".
#include "convert.h"

#include <chrono>
#include <cmath>
#include <cstdio>

using grpc::Status;
using grpc::StatusCode;

void
append_json_string(std::string &o, const std::string &s)
{
	o += '"';
	for (unsigned char c : s)
	{
		switch (c)
		{
			case '"': o += "\\\""; break;
			case '\\': o += "\\\\"; break;
			case '\n': o += "\\n"; break;
			case '\r': o += "\\r"; break;
			case '\t': o += "\\t"; break;
			default:
				if (c < 0x20)
				{
					char b[8];
					snprintf(b, sizeof b, "\\u%04x", c);
					o += b;
				}
				else
					o += (char) c;
		}
	}
	o += '"';
}

std::string
json_string(const std::string &s)
{
	std::string o;
	append_json_string(o, s);
	return o;
}

std::string
base64(const std::string &in)
{
	static const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	std::string o;
	o.reserve((in.size() + 2) / 3 * 4);
	size_t i = 0;
	for (; i + 2 < in.size(); i += 3)
	{
		unsigned v = ((unsigned char) in[i] << 16) | ((unsigned char) in[i + 1] << 8) | (unsigned char) in[i + 2];
		o += t[v >> 18];
		o += t[(v >> 12) & 63];
		o += t[(v >> 6) & 63];
		o += t[v & 63];
	}
	if (i + 1 == in.size())
	{
		unsigned v = (unsigned char) in[i] << 16;
		o += t[v >> 18];
		o += t[(v >> 12) & 63];
		o += "==";
	}
	else if (i + 2 == in.size())
	{
		unsigned v = ((unsigned char) in[i] << 16) | ((unsigned char) in[i + 1] << 8);
		o += t[v >> 18];
		o += t[(v >> 12) & 63];
		o += t[(v >> 6) & 63];
		o += '=';
	}
	return o;
}

void
append_hex(std::string &o, const std::string &in)
{
	static const char *d = "0123456789abcdef";
	size_t at = o.size();
	o.resize(at + in.size() * 2);
	for (unsigned char c : in)
	{
		o[at++] = d[c >> 4];
		o[at++] = d[c & 15];
	}
}

std::string
hex(const std::string &in)
{
	std::string o;
	append_hex(o, in);
	return o;
}

// now, in microseconds since 1970, truncated to the millisecond
static int64_t
server_millis_micros()
{
	auto now = std::chrono::system_clock::now().time_since_epoch();
	return std::chrono::duration_cast<std::chrono::milliseconds>(now).count() * 1000;
}

static std::string
b64(const std::string &s)
{
	return "\"" + base64(s) + "\"";
}

static Status
invalid(const std::string &msg)
{
	return Status(StatusCode::INVALID_ARGUMENT, msg);
}

static Status
filter_rec(const btv2::RowFilter &f, std::string *o, bool *labels)
{
	using F = btv2::RowFilter;
	switch (f.filter_case())
	{
		case F::kChain:
		case F::kInterleave:
		{
			const auto &fs = f.has_chain() ? f.chain().filters() : f.interleave().filters();
			*o += f.has_chain() ? "{\"chain\":{\"filters\":[" : "{\"interleave\":{\"filters\":[";
			for (int i = 0; i < fs.size(); i++)
			{
				if (i > 0)
					*o += ",";
				Status st = filter_rec(fs[i], o, labels);
				if (!st.ok())
					return st;
			}
			*o += "]}}";
			return Status::OK;
		}
		case F::kCondition:
		{
			const auto &c = f.condition();
			*o += "{\"condition\":{";
			bool first = true;
			const btv2::RowFilter *parts[] = {c.has_predicate_filter() ? &c.predicate_filter() : nullptr,
											  c.has_true_filter() ? &c.true_filter() : nullptr,
											  c.has_false_filter() ? &c.false_filter() : nullptr};
			const char *names[] = {"predicateFilter", "trueFilter", "falseFilter"};
			for (int i = 0; i < 3; i++)
			{
				if (!parts[i])
					continue;
				*o += std::string(first ? "" : ",") + "\"" + names[i] + "\":";
				first = false;
				Status st = filter_rec(*parts[i], o, labels);
				if (!st.ok())
					return st;
			}
			*o += "}}";
			return Status::OK;
		}
		case F::kSink:
			return Status(StatusCode::UNIMPLEMENTED, "wide does not support the sink filter");
		case F::kPassAllFilter:
			*o += f.pass_all_filter() ? "{\"passAllFilter\":true}" : "{\"blockAllFilter\":true}";
			return Status::OK;
		case F::kBlockAllFilter:
			*o += f.block_all_filter() ? "{\"blockAllFilter\":true}" : "{\"passAllFilter\":true}";
			return Status::OK;
		case F::kRowKeyRegexFilter:
			*o += "{\"rowKeyRegexFilter\":" + b64(f.row_key_regex_filter()) + "}";
			return Status::OK;
		case F::kRowSampleFilter:
		{
			char b[64];
			snprintf(b, sizeof b, "%.17g", f.row_sample_filter());
			*o += std::string("{\"rowSampleFilter\":") + b + "}";
			return Status::OK;
		}
		case F::kFamilyNameRegexFilter:
			*o += "{\"familyNameRegexFilter\":" + json_string(f.family_name_regex_filter()) + "}";
			return Status::OK;
		case F::kColumnQualifierRegexFilter:
			*o += "{\"columnQualifierRegexFilter\":" + b64(f.column_qualifier_regex_filter()) + "}";
			return Status::OK;
		case F::kColumnRangeFilter:
		{
			const auto &r = f.column_range_filter();
			*o += "{\"columnRangeFilter\":{\"familyName\":" + json_string(r.family_name());
			if (r.has_start_qualifier_closed())
				*o += ",\"startQualifierClosed\":" + b64(r.start_qualifier_closed());
			else if (r.has_start_qualifier_open())
				*o += ",\"startQualifierOpen\":" + b64(r.start_qualifier_open());
			if (r.has_end_qualifier_closed())
				*o += ",\"endQualifierClosed\":" + b64(r.end_qualifier_closed());
			else if (r.has_end_qualifier_open())
				*o += ",\"endQualifierOpen\":" + b64(r.end_qualifier_open());
			*o += "}}";
			return Status::OK;
		}
		case F::kTimestampRangeFilter:
		{
			const auto &r = f.timestamp_range_filter();
			*o += "{\"timestampRangeFilter\":{\"startTimestampMicros\":" +
				std::to_string(r.start_timestamp_micros()) +
				",\"endTimestampMicros\":" + std::to_string(r.end_timestamp_micros()) + "}}";
			return Status::OK;
		}
		case F::kValueRegexFilter:
			*o += "{\"valueRegexFilter\":" + b64(f.value_regex_filter()) + "}";
			return Status::OK;
		case F::kValueRangeFilter:
		{
			const auto &r = f.value_range_filter();
			*o += "{\"valueRangeFilter\":{";
			bool start = true;
			if (r.has_start_value_closed())
				*o += "\"startValueClosed\":" + b64(r.start_value_closed());
			else if (r.has_start_value_open())
				*o += "\"startValueOpen\":" + b64(r.start_value_open());
			else
				start = false;
			if (r.has_end_value_closed())
				*o += std::string(start ? "," : "") + "\"endValueClosed\":" + b64(r.end_value_closed());
			else if (r.has_end_value_open())
				*o += std::string(start ? "," : "") + "\"endValueOpen\":" + b64(r.end_value_open());
			*o += "}}";
			return Status::OK;
		}
		case F::kCellsPerRowOffsetFilter:
			*o += "{\"cellsPerRowOffsetFilter\":" + std::to_string(f.cells_per_row_offset_filter()) + "}";
			return Status::OK;
		case F::kCellsPerRowLimitFilter:
			*o += "{\"cellsPerRowLimitFilter\":" + std::to_string(f.cells_per_row_limit_filter()) + "}";
			return Status::OK;
		case F::kCellsPerColumnLimitFilter:
			*o += "{\"cellsPerColumnLimitFilter\":" + std::to_string(f.cells_per_column_limit_filter()) + "}";
			return Status::OK;
		case F::kStripValueTransformer:
			if (!f.strip_value_transformer())
				return invalid("strip_value_transformer must be true");
			*o += "{\"stripValueTransformer\":true}";
			return Status::OK;
		case F::kApplyLabelTransformer:
			*labels = true;
			*o += "{\"applyLabelTransformer\":" + json_string(f.apply_label_transformer()) + "}";
			return Status::OK;
		case F::FILTER_NOT_SET:
			return invalid("a RowFilter sets none of its filters");
		default:
			return Status(StatusCode::UNIMPLEMENTED, "wide does not support this RowFilter (field " +
						  std::to_string((int) f.filter_case()) + ")");
	}
}

Status
filter_json(const btv2::RowFilter &f, std::string *out, bool *labels)
{
	out->clear();
	*labels = false;
	return filter_rec(f, out, labels);
}

// the int64 of a Value (int_value or an 8-byte big-endian raw_value)
static Status
value_int64(const btv2::Value &v, const char *what, int64_t *out)
{
	if (v.kind_case() == btv2::Value::kIntValue)
		*out = v.int_value();
	else if (v.kind_case() == btv2::Value::kRawTimestampMicros)
		*out = v.raw_timestamp_micros();
	else if (v.kind_case() == btv2::Value::kRawValue && v.raw_value().size() == 8)
	{
		uint64_t x = 0;
		for (unsigned char c : v.raw_value())
			x = (x << 8) | c;
		*out = (int64_t) x;
	}
	else
		return invalid(std::string(what) + " must be an int64 Value");
	return Status::OK;
}

// a float Value as the input of an AddToCell, in wide's JSON: a number
// with every bit of the double (17 significant digits), or, for NaN and
// the infinities, the text proto3 JSON writes, which a float8 sum, min or
// max takes as a value and a ddsketch family refuses (as in SQL)
static std::string
float_input(double d)
{
	char		buf[40];

	if (std::isnan(d))
		return "\"NaN\"";
	if (std::isinf(d))
		return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
	snprintf(buf, sizeof(buf), "%.17g", d);
	return buf;
}

static Status
value_bytes(const btv2::Value &v, const char *what, std::string *out)
{
	if (v.kind_case() == btv2::Value::kRawValue)
		*out = v.raw_value();
	else if (v.kind_case() == btv2::Value::kBytesValue)
		*out = v.bytes_value();
	else if (v.kind_case() == btv2::Value::kStringValue)
		*out = v.string_value();
	else
		return invalid(std::string(what) + " must be a bytes Value");
	return Status::OK;
}

void
append_key_json(std::string &o, const std::string &b)
{
	for (unsigned char c : b)
		if (c < 0x20 || c > 0x7e)
		{
			o += "{\"base64\":\"";
			o += base64(b);
			o += "\"}";
			return;
		}
	append_json_string(o, b);
}

// One Mutation's fields, checked and converted once for both encoders
// (mutations_json writes them as JSON, append_entry_bin as the binary
// batch), so the two say the same and fail alike.
struct MutationFields
{
	int			kind = 0;		// the binary batch's tag: 1 set_cell, 2 add_to_cell,
								// 3 merge_to_cell, 4 delete_from_column, 5 ..._family, 6 ..._row
	const std::string *family = nullptr;
	const std::string *qualifier = nullptr;	// into the message, or qual
	std::string qual;			// add/merge: the qualifier taken out of its Value
	int64_t		ts = 0;			// set/add/merge: the timestamp; delete: start of its range
	int64_t		to = 0;			// delete_from_column: end of its range (0: unbounded)
	bool		has_range = false;	// delete_from_column: a time range was given
	const std::string *bytes = nullptr;	// set: the value; add/merge: a raw input
	char		input = 0;		// add/merge: 'b' bytes, 'n' a number, 't' NaN or an infinity
	std::string number;			// 'n' and 't': the input's text
};

static Status
read_mutation(const btv2::Mutation &m, MutationFields *f)
{
	using M = btv2::Mutation;

	switch (m.mutation_case())
	{
		case M::kSetCell:
		{
			const auto &s = m.set_cell();
			// -1: the server's time, in milliseconds as Bigtable assigns it
			f->ts = s.timestamp_micros() == -1 ? server_millis_micros() : s.timestamp_micros();
			if (f->ts < -1)
				return invalid("timestamp_micros must be -1 or not negative");
			f->kind = 1;
			f->family = &s.family_name();
			f->qualifier = &s.column_qualifier();
			f->bytes = &s.value();
			return Status::OK;
		}
		case M::kAddToCell:
		case M::kMergeToCell:
		{
			bool add = m.has_add_to_cell();
			const auto &q = add ? m.add_to_cell().column_qualifier() : m.merge_to_cell().column_qualifier();
			const auto &ts = add ? m.add_to_cell().timestamp() : m.merge_to_cell().timestamp();
			const auto &in = add ? m.add_to_cell().input() : m.merge_to_cell().input();
			int64_t		n;
			Status		st = value_bytes(q, "column_qualifier", &f->qual);

			if (st.ok())
				st = value_int64(ts, "timestamp", &f->ts);
			if (!st.ok())
				return st;
			f->kind = add ? 2 : 3;
			f->family = add ? &m.add_to_cell().family_name() : &m.merge_to_cell().family_name();
			f->qualifier = &f->qual;
			if (in.kind_case() == btv2::Value::kRawValue && in.raw_value().size() != 8)
			{
				f->input = 'b';	// a sketch, for a bytea column
				f->bytes = &in.raw_value();
			}
			else if (in.kind_case() == btv2::Value::kFloatValue)
			{
				// wide's own, for float8 families: float_input's JSON is a
				// number, or the quoted text of NaN and the infinities
				std::string j = float_input(in.float_value());
				bool		text = j[0] == '"';

				f->input = text ? 't' : 'n';
				f->number = text ? j.substr(1, j.size() - 2) : j;
			}
			else if (value_int64(in, "input", &n).ok())
			{
				f->input = 'n';
				f->number = std::to_string(n);
			}
			else
				return invalid("input must be an int64 Value, a float Value (wide's extension, for float8 families) or raw bytes");
			return Status::OK;
		}
		case M::kDeleteFromColumn:
		{
			const auto &d = m.delete_from_column();
			f->kind = 4;
			f->family = &d.family_name();
			f->qualifier = &d.column_qualifier();
			if (d.has_time_range())
			{
				f->has_range = true;
				f->ts = d.time_range().start_timestamp_micros();
				f->to = d.time_range().end_timestamp_micros();
				if (f->to != 0 && f->to < f->ts)
					return invalid("delete_from_column: end_timestamp_micros before start_timestamp_micros");
			}
			return Status::OK;
		}
		case M::kDeleteFromFamily:
			f->kind = 5;
			f->family = &m.delete_from_family().family_name();
			return Status::OK;
		case M::kDeleteFromRow:
			f->kind = 6;
			return Status::OK;
		case M::MUTATION_NOT_SET:
			return invalid("a Mutation sets none of its mutations");
		default:
			return Status(StatusCode::UNIMPLEMENTED, "wide does not support this Mutation (field " +
						  std::to_string((int) m.mutation_case()) + ")");
	}
}

Status
mutations_json(const google::protobuf::RepeatedPtrField<btv2::Mutation> &ms, std::string *out,
			   bool snake)
{
	std::string o = "[";
	// the names and bytes of the two forms
	auto name = [snake](const char *camel, const char *snake_name) {
		return std::string("\"") + (snake ? snake_name : camel) + "\":";
	};
	auto qual = [snake](const std::string &q) {
		if (!snake)
			return b64(q);
		std::string o;
		append_key_json(o, q);
		return o;
	};
	if (ms.empty())
		return invalid("no mutations given");
	for (int i = 0; i < ms.size(); i++)
	{
		MutationFields f;
		Status		st = read_mutation(ms[i], &f);

		if (!st.ok())
			return st;
		if (i > 0)
			o += ",";
		switch (f.kind)
		{
			case 1:
				if (snake)
				{
					// the bulk of a bulk ingest: appended in place
					o += "{\"set_cell\":{\"family_name\":";
					append_json_string(o, *f.family);
					o += ",\"column_qualifier\":";
					append_key_json(o, *f.qualifier);
					o += ",\"timestamp_micros\":";
					o += std::to_string(f.ts);
					o += ",\"value\":\"\\\\x";
					append_hex(o, *f.bytes);
					o += "\"}}";
					break;
				}
				o += "{" + name("setCell", "set_cell") + "{" + name("familyName", "family_name") +
					json_string(*f.family) + "," + name("columnQualifier", "column_qualifier") +
					qual(*f.qualifier) + "," + name("timestampMicros", "timestamp_micros") +
					std::to_string(f.ts) + ",\"value\":" + b64(*f.bytes) + "}}";
				break;
			case 2:
			case 3:
				o += std::string(f.kind == 2 ? "{\"add_to_cell\":" : "{\"merge_to_cell\":") +
					"{\"family_name\":" + json_string(*f.family) +
					",\"column_qualifier\":{\"base64\":" + b64(*f.qualifier) + "}" +
					",\"timestamp_micros\":" + std::to_string(f.ts) + ",\"input\":";
				if (f.input == 'b')
					o += json_string("\\x" + hex(*f.bytes));
				else if (f.input == 't')
					o += "\"" + f.number + "\"";
				else
					o += f.number;
				o += "}}";
				break;
			case 4:
				o += "{" + name("deleteFromColumn", "delete_from_column") + "{" +
					name("familyName", "family_name") + json_string(*f.family) + "," +
					name("columnQualifier", "column_qualifier") + qual(*f.qualifier);
				if (f.has_range)
				{
					o += "," + name("timeRange", "time_range") + "{" +
						name("startTimestampMicros", "start_timestamp_micros") + std::to_string(f.ts);
					if (f.to != 0)
						o += "," + name("endTimestampMicros", "end_timestamp_micros") + std::to_string(f.to);
					o += "}";
				}
				o += "}}";
				break;
			case 5:
				o += "{" + name("deleteFromFamily", "delete_from_family") + "{" + name("familyName", "family_name") +
					json_string(*f.family) + "}}";
				break;
			case 6:
				o += "{" + name("deleteFromRow", "delete_from_row") + "{}}";
				break;
		}
	}
	*out = o + "]";
	return Status::OK;
}

// big-endian integers and length-prefixed bytes of the binary batch
static void
put_u32(std::string &o, uint32_t v)
{
	char b[4] = {(char) (v >> 24), (char) (v >> 16), (char) (v >> 8), (char) v};
	o.append(b, 4);
}

static void
put_i64(std::string &o, int64_t v)
{
	put_u32(o, (uint32_t) ((uint64_t) v >> 32));
	put_u32(o, (uint32_t) v);
}

static void
put_str(std::string &o, const std::string &s)
{
	put_u32(o, (uint32_t) s.size());
	o += s;
}

void
begin_mutations_bin(std::string &out, uint32_t entries)
{
	out.assign("WMR\x01", 4);
	put_u32(out, entries);
}

Status
append_entry_bin(std::string &out, const std::string &row_key,
				 const google::protobuf::RepeatedPtrField<btv2::Mutation> &ms)
{
	size_t		start = out.size();
	Status		st = Status::OK;

	if (ms.empty())
		return invalid("no mutations given");
	put_str(out, row_key);
	put_u32(out, (uint32_t) ms.size());
	for (int i = 0; i < ms.size() && st.ok(); i++)
	{
		MutationFields f;

		st = read_mutation(ms[i], &f);
		if (!st.ok())
			break;
		out += (char) f.kind;
		if (f.kind <= 5)
			put_str(out, *f.family);
		if (f.kind <= 4)
			put_str(out, *f.qualifier);
		if (f.kind == 1)
		{
			put_i64(out, f.ts);
			out += 'b';
			put_str(out, *f.bytes);
		}
		else if (f.kind <= 3)
		{
			put_i64(out, f.ts);
			out += f.input;
			put_str(out, f.input == 'b' ? *f.bytes : f.number);
		}
		else if (f.kind == 4)
		{
			put_i64(out, f.has_range ? f.ts : 0);
			put_i64(out, f.has_range ? f.to : 0);
		}
	}
	if (!st.ok())
		out.resize(start);
	return st;
}

std::string
ranges_json(const btv2::RowSet &rows)
{
	if (rows.row_ranges().empty())
		return "";
	std::string o = "[";
	for (int i = 0; i < rows.row_ranges().size(); i++)
	{
		const auto &r = rows.row_ranges(i);
		std::string parts;
		auto add = [&parts](const char *k, const std::string &v) {
			parts += std::string(parts.empty() ? "" : ",") + "\"" + k + "\":" + b64(v);
		};
		// an empty bound is no bound
		if (r.has_start_key_closed() && !r.start_key_closed().empty())
			add("startKeyClosed", r.start_key_closed());
		else if (r.has_start_key_open() && !r.start_key_open().empty())
			add("startKeyOpen", r.start_key_open());
		if (r.has_end_key_closed() && !r.end_key_closed().empty())
			add("endKeyClosed", r.end_key_closed());
		else if (r.has_end_key_open() && !r.end_key_open().empty())
			add("endKeyOpen", r.end_key_open());
		o += std::string(i ? "," : "") + "{" + parts + "}";
	}
	return o + "]";
}

static Status
gc_rec(const btadmin::GcRule &r, std::string *o, int depth)
{
	using G = btadmin::GcRule;
	if (depth > 8)
		return invalid("GC rule nested deeper than 8");
	switch (r.rule_case())
	{
		case G::kMaxNumVersions:
			if (r.max_num_versions() < 1)
				return invalid("max_num_versions must be at least 1");
			*o += "{\"max_num_versions\":" + std::to_string(r.max_num_versions()) + "}";
			return Status::OK;
		case G::kMaxAge:
		{
			const auto &d = r.max_age();
			if (d.seconds() < 0 || d.nanos() < 0 || (d.seconds() == 0 && d.nanos() == 0))
				return invalid("max_age must be positive");
			char b[64];
			snprintf(b, sizeof b, "%lld.%06ds", (long long) d.seconds(), d.nanos() / 1000);
			*o += std::string("{\"max_age\":\"") + b + "\"}";
			return Status::OK;
		}
		case G::kIntersection:
		case G::kUnion:
		{
			const auto &rules = r.has_union_() ? r.union_().rules() : r.intersection().rules();
			*o += r.has_union_() ? "{\"union\":[" : "{\"intersection\":[";
			for (int i = 0; i < rules.size(); i++)
			{
				if (i)
					*o += ",";
				Status st = gc_rec(rules[i], o, depth + 1);
				if (!st.ok())
					return st;
			}
			*o += "]}";
			return Status::OK;
		}
		default:
			return invalid("a GcRule sets none of its rules");
	}
}

Status
gc_rule_json(const btadmin::GcRule &rule, std::string *out)
{
	out->clear();
	if (rule.rule_case() == btadmin::GcRule::RULE_NOT_SET)
		return Status::OK;
	return gc_rec(rule, out, 1);
}

Status
aggregate_name(const btadmin::Type &type, std::string *out)
{
	out->clear();
	switch (type.kind_case())
	{
		case btadmin::Type::KIND_NOT_SET:
		case btadmin::Type::kBytesType:
			return Status::OK;
		case btadmin::Type::kAggregateType:
		{
			const auto &a = type.aggregate_type();
			switch (a.aggregator_case())
			{
				case btadmin::Type::Aggregate::kSum: *out = "sum"; break;
				case btadmin::Type::Aggregate::kMin: *out = "min"; break;
				case btadmin::Type::Aggregate::kMax: *out = "max"; break;
				case btadmin::Type::Aggregate::kHllppUniqueCount: *out = "hll"; break;
				default:
					return Status(StatusCode::UNIMPLEMENTED, "wide does not support this aggregate");
			}
			if (*out != "hll" && a.has_input_type() && !a.input_type().has_int64_type())
				return Status(StatusCode::UNIMPLEMENTED, "wide's sum, min and max take int64 inputs");
			return Status::OK;
		}
		default:
			return Status(StatusCode::UNIMPLEMENTED,
						  "wide families hold bytes or aggregates; other value types are not supported");
	}
}

void
aggregate_type(const std::string &name, btadmin::Type *type)
{
	if (name.empty())
		return;
	auto *a = type->mutable_aggregate_type();
	if (name == "hll")
	{
		a->mutable_input_type()->mutable_bytes_type();
		a->mutable_hllpp_unique_count();
		a->mutable_state_type()->mutable_bytes_type();
		return;
	}
	a->mutable_input_type()->mutable_int64_type();
	a->mutable_state_type()->mutable_int64_type();
	if (name == "sum")
		a->mutable_sum();
	else if (name == "min")
		a->mutable_min();
	else
		a->mutable_max();
}
