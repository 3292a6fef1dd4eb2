// services.h -- the gRPC services wide-bigtable serves (data.cc, admin.cc).
#pragma once

#include <memory>

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/service_type.h>

#include "pg.h"

// google.bigtable.v2.Bigtable
std::unique_ptr<grpc::Service> make_data_service(Pool &pool);
// google.bigtable.admin.v2.BigtableTableAdmin (its table calls)
std::unique_ptr<grpc::Service> make_admin_service(Pool &pool);
