// main.cc -- wide-bigtable: a gRPC server speaking Bigtable's data API and
// the table calls of its admin API, over a wide database (docs/grpc.md).
//
//   wide-bigtable [--host H] [--port N] [--dsn 'conninfo'] [--schema S]
//                 [--role R] [--connections N]
//                 [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]
//
// It connects with libpq (the PG* environment, or --dsn), serves plaintext
// like the Bigtable emulator -- or TLS with a certificate and key (PEM), and
// with --tls-client-ca only to clients whose certificate that CA signed --
// and prints "wide-bigtable listening on H:N" once it accepts calls (port 0
// picks a free port).  SIGINT or SIGTERM stop it.
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "services.h"

static int stop_pipe[2];

static void
on_stop_signal(int)
{
	int saved = errno;
	ssize_t n = write(stop_pipe[1], "x", 1);	/* a full pipe: a stop is pending */
	(void) n;
	errno = saved;
}

static void
usage(int code)
{
	fprintf(code ? stderr : stdout,
			"usage: wide-bigtable [--host HOST] [--port PORT] [--dsn CONNINFO] [--schema SCHEMA]\n"
			"                     [--role ROLE] [--connections N]\n"
			"                     [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]\n"
			"  --host          address to listen on (default localhost)\n"
			"  --port          port (default 8086; 0 picks a free one)\n"
			"  --dsn           libpq connection string (default: the PG* environment)\n"
			"  --schema        schema holding the Bigtable tables (default public)\n"
			"  --role          SET ROLE to this role on each connection\n"
			"  --connections   PostgreSQL connections at most (default 8)\n"
			"  --tls-cert      serve TLS with this certificate chain (PEM)...\n"
			"  --tls-key       ... and its private key (PEM)\n"
			"  --tls-client-ca accept only clients with a certificate this CA signed (PEM)\n");
	exit(code);
}

// the contents of a PEM file named on the command line
static std::string
read_pem(const std::string &path, const char *what)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream ss;

	if (!f)
	{
		fprintf(stderr, "wide-bigtable: cannot read the %s file \"%s\": %s\n", what, path.c_str(),
				strerror(errno));
		exit(1);
	}
	ss << f.rdbuf();
	return ss.str();
}

int
main(int argc, char **argv)
{
	Config cfg;
	std::string host = "localhost";
	int port = 8086;
	std::string tls_cert, tls_key, tls_client_ca;
	for (int i = 1; i < argc; i++)
	{
		std::string a = argv[i];
		auto val = [&](void) -> std::string {
			if (i + 1 >= argc)
			{
				fprintf(stderr, "wide-bigtable: %s needs a value\n", a.c_str());
				usage(2);
			}
			return argv[++i];
		};
		if (a == "--host")
			host = val();
		else if (a == "--port")
			port = atoi(val().c_str());
		else if (a == "--dsn")
			cfg.dsn = val();
		else if (a == "--schema")
			cfg.schema = val();
		else if (a == "--role")
			cfg.role = val();
		else if (a == "--connections")
			cfg.max_connections = atoi(val().c_str());
		else if (a == "--tls-cert")
			tls_cert = val();
		else if (a == "--tls-key")
			tls_key = val();
		else if (a == "--tls-client-ca")
			tls_client_ca = val();
		else if (a == "--help" || a == "-h")
			usage(0);
		else
		{
			fprintf(stderr, "wide-bigtable: unknown argument %s\n", a.c_str());
			usage(2);
		}
	}
	if (port < 0 || port > 65535 || cfg.max_connections < 1)
		usage(2);
	if (tls_cert.empty() != tls_key.empty() || (!tls_client_ca.empty() && tls_cert.empty()))
	{
		fprintf(stderr, "wide-bigtable: --tls-cert and --tls-key go together (and --tls-client-ca needs them)\n");
		usage(2);
	}
	std::shared_ptr<grpc::ServerCredentials> creds = grpc::InsecureServerCredentials();
	if (!tls_cert.empty())
	{
		grpc::SslServerCredentialsOptions o(tls_client_ca.empty()
											? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
											: GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
		o.pem_key_cert_pairs.push_back({read_pem(tls_key, "TLS key"), read_pem(tls_cert, "TLS certificate")});
		if (!tls_client_ca.empty())
			o.pem_root_certs = read_pem(tls_client_ca, "TLS client CA");
		creds = grpc::SslServerCredentials(o);
	}

	// SIGINT and SIGTERM wake the thread below, which shuts the server down
	// (whichever thread gets the signal: gRPC may start some before main)
	if (pipe(stop_pipe) != 0)
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	signal(SIGPIPE, SIG_IGN);

	Pool pool(cfg);
	{
		grpc::Status st;
		Conn c(pool);
		if (!c.ok())
			fprintf(stderr, "wide-bigtable: warning: %s (calls answer UNAVAILABLE until it succeeds)\n",
					c.status().error_message().c_str());
	}
	auto data = make_data_service(pool);
	auto admin = make_admin_service(pool);
	grpc::ServerBuilder b;
	int bound = 0;
	b.AddListeningPort(host + ":" + std::to_string(port), creds, &bound);
	b.SetMaxReceiveMessageSize(256 << 20);
	b.SetMaxSendMessageSize(256 << 20);
	b.RegisterService(data.get());
	b.RegisterService(admin.get());
	std::unique_ptr<grpc::Server> server = b.BuildAndStart();
	if (!server || bound == 0)
	{
		fprintf(stderr, "wide-bigtable: cannot listen on %s:%d\n", host.c_str(), port);
		return 1;
	}
	printf("wide-bigtable listening on %s:%d\n", host.c_str(), bound);
	fflush(stdout);

	std::thread stopper([&server]() {
		char c;
		while (read(stop_pipe[0], &c, 1) < 0 && errno == EINTR)
			;
		server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
	});
	server->Wait();
	stopper.join();
	return 0;
}
