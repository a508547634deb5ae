// File: tests/support/store_server.h
//
// An in-process world server on a loopback port with a real edit store, for the SDK's tests of
// clients that generate: SQLite in a temporary directory, or ("postgres") a PostgreSQL cluster
// the test starts. Anyone may edit (open_edits); client generation as asked. It restarts on the
// same store, on a new port or on a given one (a client's reconnection).
//
//   test::StoreServer store(GetParam(), "local_client");  // "sqlite" or "postgres"
//   ASSERT_EQ(store.start(), "");
//   auto client = Client::connect(store.target());
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "chunkforge/world.h"
#include "edits/edit_service.h"
#include "support/postgres_cluster.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::test {

// A loopback server's options for a client test: 2 generation threads, a 64 MB cache, no side
// port, no store.
inline server::ServerOptions client_test_options(bool client_generation, int port) {
  server::ServerOptions options;
  options.listen = "127.0.0.1:" + std::to_string(port);
  options.http = "";
  options.threads = 2;
  options.cache_mb = 64;
  options.client_generation = client_generation;
  return options;
}

class StoreServer {
 public:
  StoreServer(const std::string& store, const std::string& name) : dir_(unique_temp_dir(name)) {
    if (store == "postgres") postgres_ = std::make_unique<PostgresCluster>(name);
  }
  ~StoreServer() { stop(); }

  // Starts a server (stopping the one running): "" or why it could not.
  std::string start(bool client_generation = true, int port = 0) {
    stop();
    if (postgres_ && !postgres_->started()) return postgres_->failure();
    server::ServerOptions options = client_test_options(client_generation, port);
    options.store = server::open_store(postgres_ ? postgres_->patient_uri() : "sqlite:" + dir_ + "edits.db");
    if (std::string bound = server::bind_store(*options.store, default_world(), false); !bound.empty()) return bound;
    options.open_edits = true;
    server_ = std::make_unique<server::WorldServer>(default_world(), options);
    return server_->start() ? "" : "the server did not start on port " + std::to_string(port);
  }
  void stop() {
    if (server_) server_->shutdown(std::chrono::milliseconds(100));
    server_.reset();
  }

  server::WorldServer& server() { return *server_; }
  PostgresCluster* postgres() { return postgres_.get(); }  // null on SQLite
  int port() const { return server_->port(); }
  std::string target() const { return "127.0.0.1:" + std::to_string(port()); }

 private:
  std::string dir_;
  std::unique_ptr<PostgresCluster> postgres_;
  std::unique_ptr<server::WorldServer> server_;
};

}  // namespace chunkforge::test
