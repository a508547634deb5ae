// The world for clients that generate (docs/client-generation.md): GetWorldInfo with
// include_definition gives the resolved world definition, from which a client makes the server's
// pristine chunks byte for byte; an operator who keeps it (--client-generation off, or the seed
// withheld) answers FAILED_PRECONDITION saying why.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "chunkforge/encode.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

// A server of the default world on loopback with the given disclosure flags.
class DisclosingServer {
 public:
  DisclosingServer(bool publish_seed, bool client_generation) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.threads = 1;
    options.publish_seed = publish_seed;
    options.client_generation = client_generation;
    server_ = std::make_unique<WorldServer>(default_world(), options);
    started_ = server_->start();
    stub_ = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
  }
  ~DisclosingServer() { server_->shutdown(std::chrono::seconds(1)); }

  bool started() const { return started_; }

  grpc::Status world_info(bool include_definition, v1::WorldInfo& info) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::GetWorldInfoRequest request;
    request.set_include_definition(include_definition);
    return stub_->GetWorldInfo(&context, request, &info);
  }

  grpc::Status chunk(int64_t x, int64_t z, v1::Chunk& out) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    return stub_->GetChunk(&context, request, &out);
  }

 private:
  std::unique_ptr<WorldServer> server_;
  bool started_ = false;
  std::unique_ptr<v1::WorldService::Stub> stub_;
};

TEST(ClientGenerationTest, TheDefinitionMakesTheServersChunksByteForByte) {
  DisclosingServer server(true, true);
  ASSERT_TRUE(server.started());
  v1::WorldInfo plain, full;
  ASSERT_TRUE(server.world_info(false, plain).ok());
  EXPECT_FALSE(plain.has_definition()) << "only a client that asks gets the definition";
  const grpc::Status status = server.world_info(true, full);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(full.has_definition());
  WorldResult local = World::create(full.definition());
  ASSERT_TRUE(local.ok()) << (local.errors.empty() ? "" : local.errors.front().to_string());
  EXPECT_EQ(local.world->fingerprint(), full.fingerprint());
  EXPECT_EQ(local.world->generator_version(), full.generator_version());
  EXPECT_EQ(local.world->seed(), full.seed());
  const Generator generator(*local.world);
  for (auto [x, z] : {std::pair{0, 0}, std::pair{-7, 3}, std::pair{40, -25}}) {
    v1::Chunk served;
    ASSERT_TRUE(server.chunk(x, z, served).ok());
    EXPECT_EQ(canonical_bytes(encode_chunk(*local.world, generator.generate({x, z}))), canonical_bytes(served))
        << "chunk " << x << "," << z;
  }
}

TEST(ClientGenerationTest, AServerThatKeepsItsDefinitionSaysWhy) {
  for (const auto& [publish_seed, client_generation] : {std::pair{true, false}, std::pair{false, true}}) {
    DisclosingServer server(publish_seed, client_generation);
    ASSERT_TRUE(server.started());
    v1::WorldInfo info;
    const grpc::Status status = server.world_info(true, info);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
    EXPECT_NE(status.error_message().find("--client-generation off"), std::string::npos) << status.error_message();
    ASSERT_TRUE(server.world_info(false, info).ok());
    EXPECT_FALSE(info.has_definition());
    EXPECT_EQ(info.seed() != 0, publish_seed);
  }
}

}  // namespace
}  // namespace chunkforge::server
