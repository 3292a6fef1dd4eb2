/*
 * bench_client.cc -- the C++ side of bench/grpc.sh: the same requests as
 * test/grpc/bench.js, through the generated gRPC C++ stub of the Bigtable
 * v2 API (what Bigtable's C++, Go and Java clients sit on), so that the
 * client costs little next to the server and a server's rate is not the
 * Node client's.  Against the server at $BIGTABLE_EMULATOR_HOST:
 *
 *   bench_client read TABLE START END     ReadRows of [START, END), every
 *                                         response parsed: prints "cells
 *                                         seconds" (a cell is a chunk that
 *                                         ends one: value_size 0)
 *   bench_client mutate TABLE ROWS CELLS BATCH PARALLEL
 *                                         MutateRows of ROWS rows x CELLS
 *                                         cells (family f, qualifiers c0..,
 *                                         16-byte values, timestamp 1000),
 *                                         BATCH entries a request, PARALLEL
 *                                         requests in flight (a thread
 *                                         each): prints "cells seconds";
 *                                         fails unless every entry is OK
 *
 * With $BIGTABLE_TLS_CA (a PEM file) it speaks TLS to the server and checks
 * its certificate against that CA ($BIGTABLE_TLS_NAME: the name the
 * certificate must hold, default the host of the address); with
 * $BIGTABLE_TLS_CERT and $BIGTABLE_TLS_KEY it also shows a client
 * certificate.
 *
 * Built by bigtable/Makefile beside wide-bigtable; not installed.
 */
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "google/bigtable/v2/bigtable.grpc.pb.h"

namespace v2 = google::bigtable::v2;

static double
seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static int
read_rows(v2::Bigtable::Stub *stub, const std::string &table,
		  const std::string &start, const std::string &end)
{
	v2::ReadRowsRequest req;
	req.set_table_name(table);
	auto *range = req.mutable_rows()->add_row_ranges();
	range->set_start_key_closed(start);
	range->set_end_key_open(end);

	grpc::ClientContext ctx;
	auto t0 = std::chrono::steady_clock::now();
	std::unique_ptr<grpc::ClientReader<v2::ReadRowsResponse>> reader(stub->ReadRows(&ctx, req));
	v2::ReadRowsResponse resp;
	long		cells = 0;

	while (reader->Read(&resp))
		for (const auto &c : resp.chunks())
			if (c.value_size() == 0)
				cells++;
	grpc::Status st = reader->Finish();
	if (!st.ok())
	{
		fprintf(stderr, "ReadRows failed: %s\n", st.error_message().c_str());
		return 1;
	}
	printf("%ld %.4f\n", cells, seconds_since(t0));
	return 0;
}

static int
mutate_rows(v2::Bigtable::Stub *stub, const std::string &table, long rows,
			int cells, int batch, int parallel)
{
	std::atomic<long> next(0);
	std::atomic<long> bad(0);
	std::mutex	errlock;
	std::string error;
	const std::string value = "0123456789abcdef";
	std::vector<std::string> quals;

	for (int c = 0; c < cells; c++)
		quals.push_back("c" + std::to_string(c));

	auto worker = [&]() {
		for (;;)
		{
			long		from = next.fetch_add(batch);

			if (from >= rows)
				return;
			long		to = std::min(rows, from + batch);
			v2::MutateRowsRequest req;

			req.set_table_name(table);
			for (long r = from; r < to; r++)
			{
				char		key[16];
				auto	   *e = req.add_entries();

				snprintf(key, sizeof(key), "m%09ld", r);
				e->set_row_key(key);
				for (int c = 0; c < cells; c++)
				{
					auto	   *sc = e->add_mutations()->mutable_set_cell();

					sc->set_family_name("f");
					sc->set_column_qualifier(quals[c]);
					sc->set_timestamp_micros(1000);
					sc->set_value(value);
				}
			}
			grpc::ClientContext ctx;
			std::unique_ptr<grpc::ClientReader<v2::MutateRowsResponse>> reader(stub->MutateRows(&ctx, req));
			v2::MutateRowsResponse resp;
			long		ok = 0;

			while (reader->Read(&resp))
				for (const auto &e : resp.entries())
				{
					if (e.status().code() == 0)
						ok++;
					else
						bad++;
				}
			grpc::Status st = reader->Finish();
			if (!st.ok() || ok != to - from)
			{
				std::lock_guard<std::mutex> g(errlock);
				error = st.ok() ? "entries missing in the response" : st.error_message();
				bad++;
				return;
			}
		}
	};

	auto t0 = std::chrono::steady_clock::now();
	std::vector<std::thread> ts;
	for (int i = 0; i < parallel; i++)
		ts.emplace_back(worker);
	for (auto &t : ts)
		t.join();
	if (bad > 0)
	{
		fprintf(stderr, "MutateRows: %ld entries failed%s%s\n", bad.load(),
				error.empty() ? "" : ": ", error.c_str());
		return 1;
	}
	printf("%ld %.4f\n", rows * cells, seconds_since(t0));
	return 0;
}

static std::string
read_file(const char *path)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream ss;

	if (!f)
	{
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	ss << f.rdbuf();
	return ss.str();
}

int
main(int argc, char **argv)
{
	const char *addr = getenv("BIGTABLE_EMULATOR_HOST");

	if (addr == NULL || argc < 3)
	{
		fprintf(stderr, "usage: BIGTABLE_EMULATOR_HOST=host:port %s read TABLE START END | "
				"mutate TABLE ROWS CELLS BATCH PARALLEL\n", argv[0]);
		return 2;
	}
	grpc::ChannelArguments args;
	args.SetMaxReceiveMessageSize(-1);
	std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
	if (getenv("BIGTABLE_TLS_CA"))
	{
		grpc::SslCredentialsOptions o;

		o.pem_root_certs = read_file(getenv("BIGTABLE_TLS_CA"));
		if (getenv("BIGTABLE_TLS_CERT") && getenv("BIGTABLE_TLS_KEY"))
		{
			o.pem_cert_chain = read_file(getenv("BIGTABLE_TLS_CERT"));
			o.pem_private_key = read_file(getenv("BIGTABLE_TLS_KEY"));
		}
		if (getenv("BIGTABLE_TLS_NAME"))
			args.SetSslTargetNameOverride(getenv("BIGTABLE_TLS_NAME"));
		creds = grpc::SslCredentials(o);
	}
	auto channel = grpc::CreateCustomChannel(addr, creds, args);
	auto stub = v2::Bigtable::NewStub(channel);
	std::string table = std::string("projects/p/instances/i/tables/") + argv[2];

	if (strcmp(argv[1], "read") == 0 && argc == 5)
		return read_rows(stub.get(), table, argv[3], argv[4]);
	if (strcmp(argv[1], "mutate") == 0 && argc == 7)
		return mutate_rows(stub.get(), table, atol(argv[3]), atoi(argv[4]),
						   atoi(argv[5]), atoi(argv[6]));
	fprintf(stderr, "unknown command or wrong arguments: %s\n", argv[1]);
	return 2;
}
