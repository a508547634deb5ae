// Replicas sharing one PostgreSQL store (docs/edits.md, "Scale-out"): two in-process servers,
// each with its own connections to a throwaway cluster started by the test, as two replicas
// behind a load balancer would have. An edit through one reaches a session on the other (by
// LISTEN/NOTIFY), the other serves the edited bytes, and replicas racing for one object let
// exactly one player win. tests/deploy/scale_out_test.cc does the same with processes and nginx.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "chunkforge/encode.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "edits/edit_service.h"
#include "support/postgres_cluster.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

struct Replica {
  std::unique_ptr<WorldServer> server;
  std::unique_ptr<v1::WorldService::Stub> stub;
};

class EditReplicasTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(postgres_.started()) << postgres_.failure();
    for (Replica& r : replicas_) {
      ServerOptions options;
      options.listen = "127.0.0.1:0";
      options.http = "";
      options.threads = 2;
      options.cache_mb = 32;
      options.store = open_store(postgres_.patient_uri());
      ASSERT_EQ(bind_store(*options.store, default_world(), false), "");
      options.open_edits = true;
      r.server = std::make_unique<WorldServer>(default_world(), options);
      ASSERT_TRUE(r.server->start());
      r.stub = v1::WorldService::NewStub(
          grpc::CreateChannel("127.0.0.1:" + std::to_string(r.server->port()), grpc::InsecureChannelCredentials()));
    }
  }
  void TearDown() override {
    for (Replica& r : replicas_) {
      if (r.server) r.server->shutdown(std::chrono::seconds(2));
    }
  }

  v1::Chunk chunk(Replica& r, int64_t x, int64_t z) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    v1::Chunk out;
    EXPECT_TRUE(r.stub->GetChunk(&context, request, &out).ok());
    return out;
  }
  grpc::Status remove(Replica& r, int64_t x, int64_t z, uint64_t id) {
    grpc::ClientContext context;
    v1::EditRequest request;
    v1::EditOp* op = request.add_ops();
    op->mutable_chunk()->set_x(x);
    op->mutable_chunk()->set_z(z);
    op->set_remove_object(id);
    v1::EditResponse response;
    return r.stub->Edit(&context, request, &response);
  }

  test::PostgresCluster postgres_{"replicas"};
  Replica replicas_[2];
};

TEST_F(EditReplicasTest, AnEditThroughOneReplicaReachesASessionOnTheOther) {
  Replica& a = replicas_[0];
  Replica& b = replicas_[1];
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  auto session = b.stub->Session(&context);
  v1::SessionUpdate update;
  update.set_x(32);
  update.set_z(32);
  update.set_view_radius(1);
  ASSERT_TRUE(session->Write(update));
  v1::SessionEvent event;
  for (int loads = 0; loads < 9;) {
    ASSERT_TRUE(session->Read(&event));
    loads += event.has_load();
  }

  const v1::Chunk before = chunk(a, 0, 0);
  ASSERT_GT(before.objects().id_size(), 0);
  ASSERT_TRUE(remove(a, 0, 0, before.objects().id(0)).ok());

  ASSERT_TRUE(session->Read(&event));  // through the store's notification to replica b
  ASSERT_TRUE(event.has_change());
  EXPECT_EQ(event.change().chunk().x(), 0);
  EXPECT_EQ(event.change().chunk().z(), 0);
  EXPECT_EQ(event.change().version(), 1u);
  ASSERT_EQ(event.change().edits_size(), 1);
  EXPECT_EQ(event.change().edits(0).remove_object(), before.objects().id(0));

  // b knew of the change before its session was told, so b serves the edited chunk now.
  const v1::Chunk from_b = chunk(b, 0, 0);
  EXPECT_EQ(from_b.edit_version(), 1u);
  EXPECT_EQ(canonical_bytes(from_b), canonical_bytes(chunk(a, 0, 0)));
  EXPECT_EQ(event.change().chunk_hash(), chunk_hash(from_b));  // stored by a's writer, published by b's tail
  context.TryCancel();
}

TEST_F(EditReplicasTest, PlayersOnBothReplicasFellingOneTreeLetExactlyOneWin) {
  const v1::Chunk c = chunk(replicas_[0], 1, 2);
  ASSERT_GT(c.objects().id_size(), 0);
  const uint64_t tree = c.objects().id(0);
  std::atomic<int> won{0}, not_found{0};
  std::vector<std::thread> players;
  for (int p = 0; p < 12; ++p) {
    players.emplace_back([&, p] {
      const grpc::Status status = remove(replicas_[p % 2], 1, 2, tree);
      won += status.ok();
      not_found += status.error_code() == grpc::StatusCode::NOT_FOUND;
    });
  }
  for (std::thread& t : players) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(not_found.load(), 11);
  for (Replica& r : replicas_) {
    // The losing replica learns the version from its tail; poll for at most 5 s.
    uint64_t version = 0;
    for (int k = 0; k < 250 && (version = chunk(r, 1, 2).edit_version()) != 1; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(version, 1u);
  }
}

}  // namespace
}  // namespace chunkforge::server
