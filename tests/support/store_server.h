// File: tests/support/store_server.h
//
// An in-process world server on a loopback port with a real edit store, for the SDK's tests of
// clients that generate: SQLite in a temporary directory, or ("postgres") a PostgreSQL cluster
// the test starts. Anyone may edit (open_edits); client generation as asked. It restarts on the
// same store, on a new port or on a given one (a client's reconnection), and after upgrade() on
// the store's next epoch (docs/world-definition.md, "Upgrading a live world").
//
//   test::StoreServer store(GetParam(), "local_client");  // "sqlite" or "postgres"
//   ASSERT_EQ(store.start(), "");
//   auto client = Client::connect(store.target());
#pragma once

#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "chunkforge/world.h"
#include "edits/edit_service.h"
#include "support/postgres_cluster.h"
#include "support/temp_dir.h"
#include "world_epochs.h"
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
    options.store = server::open_store(location());
    if (std::string bound = server::bind_store(*options.store, world_.world, false); !bound.empty()) return bound;
    server::EpochsLoad epochs = server::load_epochs(*options.store, world_.world);
    if (!epochs.error.empty()) return epochs.error;
    options.epochs = epochs.epochs;
    options.open_edits = true;
    server_ = std::make_unique<server::WorldServer>(world_.world, options);
    return server_->start() ? "" : "the server did not start on port " + std::to_string(port);
  }
  void stop() {
    if (server_) server_->shutdown(std::chrono::milliseconds(100));
    server_.reset();
  }

  // Stops the server and adds the world file at `path` (from the source tree) to the store as
  // its next epoch, as `chunkforge world upgrade` does; the next start() serves it. "" or why not.
  std::string upgrade(const std::string& path) {
    stop();
    WorldResult next = load_world_file(std::string(CHUNKFORGE_SOURCE_DIR) + path);
    if (!next.ok()) return "cannot read " + path;
    std::ifstream in(std::string(CHUNKFORGE_SOURCE_DIR) + path);
    server::WorldFile file{std::string(std::istreambuf_iterator<char>(in), {}), std::move(*next.world)};
    std::string why = server::add_epoch(*server::open_store(location()), world_, file);
    if (why.empty()) world_ = std::move(file);
    return why;
  }

  server::WorldServer& server() { return *server_; }
  // The store, as open_store takes it.
  std::string location() const { return postgres_ ? postgres_->patient_uri() : "sqlite:" + dir_ + "edits.db"; }
  PostgresCluster* postgres() { return postgres_.get(); }  // null on SQLite
  int port() const { return server_->port(); }
  std::string target() const { return "127.0.0.1:" + std::to_string(port()); }

 private:
  // The built-in world's file, as docs/worlds/default.json holds it.
  static server::WorldFile default_file() {
    std::ifstream in(std::string(CHUNKFORGE_SOURCE_DIR) + "/docs/worlds/default.json");
    return {std::string(std::istreambuf_iterator<char>(in), {}), default_world()};
  }

  std::string dir_;
  server::WorldFile world_ = default_file();  // the world the store runs
  std::unique_ptr<PostgresCluster> postgres_;
  std::unique_ptr<server::WorldServer> server_;
};

}  // namespace chunkforge::test
