// What the edit tests share (edit_test.cc, edit_limits_test.cc): an in-process WorldServer on
// each kind of store, run once per store ("sqlite": a file in a temporary directory;
// "postgres": a throwaway PostgreSQL cluster started by the test), the generated stub as the
// client, and a batch of operations built chunk by chunk.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "edits/edit_service.h"
#include "support/postgres_cluster.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::server {

inline constexpr char kWriteToken[] = "write-secret";

class EditServerTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = test::unique_temp_dir("edits");
    if (GetParam() == "postgres") {
      postgres_ = std::make_unique<test::PostgresCluster>("edits");
      ASSERT_TRUE(postgres_->started()) << postgres_->failure();
      warm_up();
    }
    start();
  }
  void TearDown() override { stop(); }

  // The store's location: the same one at every start() of a test.
  std::string location() const {
    if (!restored_.empty()) return restored_;
    return postgres_ ? postgres_->patient_uri() : "sqlite:" + dir_ + "edits.db";
  }
  void start(std::string write_token = kWriteToken, std::string read_token = "") {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    options.store = open_store(location());
    ASSERT_EQ(bind_store(*options.store, default_world(), false), "");
    options.write_token = std::move(write_token);
    options.auth_token = std::move(read_token);
    server_ = std::make_unique<WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    stub_ = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
  }
  // A cluster just started, on a loaded machine (the tests run two at a time), may take longer
  // than the store's 2.5 s answer deadline to create the schema: what is tested is the store
  // on a cluster that answers, so the first open is tried a few times.
  void warm_up() {
    for (int attempt = 1;; ++attempt) {
      try {
        open_store(location());
        return;
      } catch (const StoreError&) {
        if (attempt == 5) throw;
      }
    }
  }
  void stop() {
    if (server_) server_->shutdown(std::chrono::seconds(2));
    server_.reset();
  }

  grpc::Status edit(const v1::EditRequest& request, v1::EditResponse* response = nullptr,
                    const std::string& token = kWriteToken) {
    grpc::ClientContext context;
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    v1::EditResponse ignored;
    return stub_->Edit(&context, request, response ? response : &ignored);
  }

  std::string dir_;
  std::unique_ptr<test::PostgresCluster> postgres_;
  std::string restored_;  // a store the test moved the server to
  std::unique_ptr<WorldServer> server_;
  std::unique_ptr<v1::WorldService::Stub> stub_;
};

// A new operation of `request` on chunk (x, z).
inline v1::EditOp* op_at(v1::EditRequest& request, int64_t x, int64_t z) {
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk()->set_x(x);
  op->mutable_chunk()->set_z(z);
  return op;
}

}  // namespace chunkforge::server
