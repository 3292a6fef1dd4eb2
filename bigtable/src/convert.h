// convert.h -- Bigtable protobuf messages -> the JSON wide's SQL functions
// take (docs/bigtable-compatibility.md, "Bigtable's JSON mapping").
#pragma once

#include <string>

#include <grpcpp/grpcpp.h>

#include "google/bigtable/admin/v2/table.pb.h"
#include "google/bigtable/v2/data.pb.h"

namespace btv2 = google::bigtable::v2;
namespace btadmin = google::bigtable::admin::v2;

std::string json_string(const std::string &s);	// a JSON string literal
std::string base64(const std::string &bytes);
std::string hex(const std::string &bytes);

// a RowFilter as proto3 JSON; *labels set when it applies labels
grpc::Status filter_json(const btv2::RowFilter &f, std::string *out, bool *labels);
// Mutations as a JSON array for wide.mutate_row: in Bigtable's JSON mapping
// (lowerCamelCase, bytes in base64), which wide rewrites for the table's
// value column; or, with bytea_values, for a table whose value column is
// bytea, directly in the data API's snake_case form (values "\\x<hex>", keys
// and qualifiers plain strings or {"base64": ...}), which wide takes as it is
// (WideBigtableJson's rewrite was most of MutateRows' cost).  Both say the
// same; the checks, and so the errors, are the same.
grpc::Status mutations_json(const google::protobuf::RepeatedPtrField<btv2::Mutation> &ms,
							std::string *out, bool bytea_values = false);
// MutateRows' entries in wide.mutate_rows_bin's binary form (src/api/
// mutate_rows_bin.c): begin_mutations_bin starts a batch of that many
// entries, append_entry_bin appends one, after the checks and conversions
// of mutations_json (the same errors; nothing appended on one), which the
// batch carries field for field: the same cells as the JSON.
void begin_mutations_bin(std::string &out, uint32_t entries);
grpc::Status append_entry_bin(std::string &out, const std::string &row_key,
							  const google::protobuf::RepeatedPtrField<btv2::Mutation> &ms);
// appends a row key or qualifier in the data API's form: a JSON string when
// it is printable ASCII, else {"base64": "..."}
void append_key_json(std::string &out, const std::string &bytes);
void append_json_string(std::string &out, const std::string &s);
void append_hex(std::string &out, const std::string &bytes);
// a RowSet's ranges as read_rows' `ranges` JSON ("" when it has none)
std::string ranges_json(const btv2::RowSet &rows);
// a GcRule as create_family's gc_rule JSON ("" for no rule)
grpc::Status gc_rule_json(const btadmin::GcRule &rule, std::string *out);
// an aggregate value type -> create_family's aggregate ("" for none)
grpc::Status aggregate_name(const btadmin::Type &type, std::string *out);
void aggregate_type(const std::string &name, btadmin::Type *type);
