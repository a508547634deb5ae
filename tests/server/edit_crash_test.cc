// Crash durability of edits (docs/edits.md, "Durability"): the server binary on a --data
// directory is killed with SIGKILL while a client streams edits, ten times over. After every
// restart each acknowledged edit is there, and no batch is half applied: every batch adds one
// object to each of two chunks, so the two always hold equally many added objects.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <set>
#include <thread>

#include "chunkforge/v1/service.grpc.pb.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace chunkforge {
namespace {

constexpr char kToken[] = "crash-test-token";

std::unique_ptr<v1::WorldService::Stub> connect(int port) {
  return v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
}

std::set<uint64_t> ids_of(v1::WorldService::Stub& stub, int64_t x, int64_t z) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::GetChunkRequest request;
  request.mutable_coord()->set_x(x);
  request.mutable_coord()->set_z(z);
  v1::Chunk chunk;
  EXPECT_TRUE(stub.GetChunk(&context, request, &chunk).ok());
  return {chunk.objects().id().begin(), chunk.objects().id().end()};
}

// One batch: an object added to chunk (round, 0) and one to (round, 1).
v1::EditRequest pair_batch(int round, int k) {
  v1::EditRequest request;
  for (int64_t z : {0, 1}) {
    v1::EditOp* op = request.add_ops();
    op->mutable_chunk()->set_x(round);
    op->mutable_chunk()->set_z(z);
    op->mutable_add_object()->set_x(static_cast<float>(k % 64));
    op->mutable_add_object()->set_z(static_cast<float>((k / 64) % 64));
  }
  request.set_request_id("round" + std::to_string(round) + "/" + std::to_string(k));
  return request;
}

class EditCrashTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::unique_temp_dir("edit_crash");
    std::ofstream(dir_ + "token") << kToken;
  }
  test::Process start(int& port) {
    test::Process p = test::spawn(
        CHUNKFORGE_SERVER,
        {"--listen", "127.0.0.1:0", "--http", "", "--data", dir_ + "data", "--write-token-file", dir_ + "token"},
        dir_ + "server.log");
    port = test::wait_until_serving(p);
    return p;
  }
  std::string dir_;
};

TEST_F(EditCrashTest, EveryAcknowledgedEditSurvivesKillNine) {
  constexpr int kRounds = 10;
  std::vector<std::set<uint64_t>> base(kRounds * 2);             // generated ids per chunk
  std::vector<std::vector<uint64_t>> acknowledged(kRounds * 2);  // added ids the server confirmed
  for (int round = 0; round < kRounds; ++round) {
    int port = 0;
    test::Process server = start(port);
    ASSERT_GT(port, 0) << test::read_text(dir_ + "server.log");
    auto stub = connect(port);
    // Everything acknowledged in earlier rounds is there; no batch half applied.
    for (int r = 0; r < round; ++r) {
      const std::set<uint64_t> a = ids_of(*stub, r, 0), b = ids_of(*stub, r, 1);
      for (int z : {0, 1}) {
        for (uint64_t id : acknowledged[r * 2 + z]) EXPECT_TRUE((z == 0 ? a : b).count(id)) << "round " << r;
      }
      EXPECT_EQ(a.size() - base[r * 2].size(), b.size() - base[r * 2 + 1].size()) << "round " << r;
    }
    base[round * 2] = ids_of(*stub, round, 0);
    base[round * 2 + 1] = ids_of(*stub, round, 1);
    std::atomic<bool> go{true};
    std::thread client([&] {
      for (int k = 0; go; ++k) {
        grpc::ClientContext context;
        context.AddMetadata("authorization", std::string("Bearer ") + kToken);
        v1::EditResponse response;
        if (!stub->Edit(&context, pair_batch(round, k), &response).ok()) continue;
        acknowledged[round * 2].push_back(response.added_ids(0));
        acknowledged[round * 2 + 1].push_back(response.added_ids(1));
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    kill(server.pid, SIGKILL);
    test::wait_for(server, std::chrono::seconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // calls in flight fail
    go = false;
    client.join();
    EXPECT_GT(acknowledged[round * 2].size(), 0u) << "round " << round << ": no edit was acknowledged";
  }
}

}  // namespace
}  // namespace chunkforge
