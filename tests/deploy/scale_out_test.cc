// Scale-out without containers: Debian's nginx, with the shipped docker/nginx.conf moved to
// loopback, in front of three chunkforge-server processes sharing one PostgreSQL edit store (a
// throwaway cluster the test starts); nginx hashes GetChunk on the chunk-key metadata the SDK
// sends. Shows that a chunk key always lands on one replica, that every replica sends the same
// bytes, that losing a replica mid-run loses no request the client retries, and that an edit
// through nginx reaches the sessions of every replica.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/client.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "deploy/nginx_fleet.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;

using ScaleOutTest = fleet::NginxFleet;

TEST_F(ScaleOutTest, EachChunkKeyLandsOnOneReplicaAndEveryReplicaSendsTheSameBytes) {
  std::set<int> used;
  for (int64_t x = 0; x < 24; ++x) {
    const ChunkCoord coord{x, 7 - x};
    const std::vector<int64_t> before = calls();
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(balanced_->chunk(coord)) << x;
    const std::vector<int64_t> after = calls();
    int owners = 0;
    for (int r = 0; r < kReplicas; ++r) {
      const int64_t got = after[static_cast<size_t>(r)] - before[static_cast<size_t>(r)];
      EXPECT_TRUE(got == 0 || got == 4) << "chunk " << x << ": replica " << r << " got " << got << " of 4";
      if (got == 4) {
        ++owners;
        used.insert(r);
      }
    }
    EXPECT_EQ(owners, 1) << "chunk " << x;
  }
  EXPECT_EQ(used.size(), static_cast<size_t>(kReplicas)) << "24 keys should spread over all replicas";

  for (int64_t x = 0; x < 6; ++x) {
    const std::string through_nginx = balanced_->chunk({x, -x})->message().SerializeAsString();
    for (Client& replica : direct_) {
      EXPECT_EQ(replica.chunk({x, -x})->message().SerializeAsString(), through_nginx) << "chunk " << x;
    }
  }
}

TEST_F(ScaleOutTest, LosingAReplicaMidRunLosesNoRetriedRequest) {
  // Four clients keep requesting distinct chunks (cold: each takes a generation) while one
  // replica is killed under them, with calls in flight.
  constexpr int kClients = 4, kEach = 60;
  std::atomic<int> done{0}, ok{0};
  std::mutex mutex;
  std::vector<std::string> failures;
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int64_t k = 0; k < kEach; ++k) {
        Result<Chunk> chunk = balanced_->chunk({100 + k, 100 + c});
        ++done;
        if (chunk) {
          ++ok;
        } else {
          std::lock_guard lock(mutex);
          failures.push_back(chunk.status().to_string());
        }
      }
    });
  }
  while (done < kClients * kEach / 4) std::this_thread::sleep_for(1ms);
  replicas_[1]->stop(SIGKILL);  // no drain: its connections just break
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok, kClients * kEach) << (failures.empty() ? "" : failures.front());
  EXPECT_EQ(calls()[1], -1);  // it is gone; the survivors answered for its keys
}

std::unique_ptr<v1::WorldService::Stub> stub_at(int port) {
  return v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
}

TEST_F(ScaleOutTest, AnEditThroughNginxReachesTheSessionsOfEveryReplica) {
  // One player on each replica, directly, holding chunk (0, 0).
  struct Watcher {
    std::unique_ptr<v1::WorldService::Stub> stub;
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> session;
  };
  std::vector<std::unique_ptr<Watcher>> watchers;
  v1::SessionEvent event;
  for (int port : grpc_ports_) {
    auto w = std::make_unique<Watcher>();
    w->stub = stub_at(port);
    w->context.set_deadline(std::chrono::system_clock::now() + 30s);
    w->session = w->stub->Session(&w->context);
    v1::SessionUpdate update;
    update.set_x(32);
    update.set_z(32);
    update.set_view_radius(0);
    ASSERT_TRUE(w->session->Write(update));
    ASSERT_TRUE(w->session->Read(&event) && event.has_load());
    watchers.push_back(std::move(w));
  }
  const uint64_t felled = event.load().objects().id(0);

  grpc::ClientContext context;
  v1::EditRequest request;
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk();  // chunk (0, 0)
  op->set_remove_object(felled);
  v1::EditResponse response;
  const grpc::Status status = stub_at(nginx_port_)->Edit(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();

  for (size_t r = 0; r < watchers.size(); ++r) {
    ASSERT_TRUE(watchers[r]->session->Read(&event)) << "replica " << r;
    ASSERT_TRUE(event.has_change()) << "replica " << r;
    EXPECT_EQ(event.change().version(), 1u) << "replica " << r;
    EXPECT_EQ(event.change().edits(0).remove_object(), felled) << "replica " << r;
    const Result<Chunk> served = direct_[r].chunk({0, 0});
    ASSERT_TRUE(served);
    EXPECT_EQ(served->message().edit_version(), 1u) << "replica " << r;
    watchers[r]->context.TryCancel();
  }
}

}  // namespace
}  // namespace chunkforge::client
