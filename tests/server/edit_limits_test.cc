// What edits cannot grow or amplify (docs/edits.md, "Limits" and "Compaction"), on an in-process
// WorldServer over a real SQLite file (and, for compaction, a throwaway PostgreSQL cluster):
// the per-chunk bounds and a stock client that can still read the chunk at them, the largest
// valid batch within the request-size limit, the bound on the chunks a request names, stale
// versions refused before any generation, and a chunk's log read from its newest snapshot.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "chunkforge/chunk_edits.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "edit_server_fixture.h"
#include "support/postgres_cluster.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

// Runs once per store: "sqlite" or "postgres".
class EditLimitsTest : public EditServerTest {
 protected:
  // GetChunk through a stock channel (gRPC's default 4 MiB receive limit).
  grpc::Status chunk(int64_t x, int64_t z, v1::Chunk& out, uint32_t terrain_step = 0) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    if (terrain_step > 0) {
      request.mutable_options()->set_include_terrain(true);
      request.mutable_options()->set_terrain_step(terrain_step);
    }
    return stub_->GetChunk(&context, request, &out);
  }
};

v1::EditRequest adds(int64_t x, int64_t z, int count) {
  v1::EditRequest request;
  for (int i = 0; i < count; ++i) {
    v1::NewObject* a = op_at(request, x, z)->mutable_add_object();
    a->set_x(static_cast<float>(i % 64));
    a->set_z(static_cast<float>((i / 64) % 64));
  }
  return request;
}

v1::EditRequest states(int64_t x, int64_t z, const v1::EditResponse& added, size_t bytes) {
  v1::EditRequest request;
  for (uint64_t id : added.added_ids()) {
    v1::ObjectState* s = op_at(request, x, z)->mutable_set_state();
    s->set_id(id);
    s->set_state(std::string(bytes, 's'));
  }
  return request;
}

bool mentions(const grpc::Status& status, const std::string& text) {
  return status.error_message().find(text) != std::string::npos;
}

TEST_P(EditLimitsTest, TheLargestValidBatchFitsTheRequestLimit) {
  v1::EditResponse added;
  ASSERT_TRUE(edit(adds(-3, -3, kMaxEditOps), &added).ok());
  v1::EditRequest request = states(-3, -3, added, kMaxObjectStateBytes);
  for (int i = 0; i < kMaxEditOps; ++i) {
    v1::ChunkVersion* e = request.add_expect();
    e->mutable_chunk()->set_x(-3);
    e->mutable_chunk()->set_z(-3);
    e->set_version(1);
  }
  request.set_request_id(std::string(kMaxRequestIdBytes, 'r'));
  // Negative coordinates take ten bytes each: this is the largest batch but for far chunks.
  ASSERT_GT(request.ByteSizeLong(), size_t{80} << 10);  // the old limit refused 64 KiB and more
  ASSERT_LT(request.ByteSizeLong(), static_cast<size_t>(Limits{}.max_request_bytes));
  const grpc::Status status = edit(request);
  EXPECT_TRUE(status.ok()) << status.error_message();
  v1::Chunk c;
  ASSERT_TRUE(chunk(-3, -3, c).ok());
  EXPECT_EQ(c.object_states_size(), kMaxEditOps);
}

TEST_P(EditLimitsTest, AHotChunkIsBoundedAndAStockClientStillReadsItWithTerrain) {
  std::vector<v1::EditResponse> added(kMaxAddedObjects / kMaxEditOps);
  for (v1::EditResponse& a : added) ASSERT_TRUE(edit(adds(5, -5, kMaxEditOps), &a).ok());
  const grpc::Status more = edit(adds(5, -5, 1));
  EXPECT_EQ(more.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << more.error_message();
  EXPECT_TRUE(mentions(more, "chunk (5, -5)") && mentions(more, "4096 added objects, at most 4096"))
      << more.error_message();
  EXPECT_TRUE(edit(adds(6, -5, 1)).ok());  // the neighbour is not affected

  // States up to the chunk's bound (1024 objects of 256 bytes), then one byte more is refused.
  const size_t full = kMaxChunkStateBytes / (kMaxEditOps * kMaxObjectStateBytes);
  for (size_t k = 0; k < full; ++k) ASSERT_TRUE(edit(states(5, -5, added[k], kMaxObjectStateBytes)).ok());
  v1::EditResponse one;
  one.add_added_ids(added.back().added_ids(0));
  const grpc::Status over = edit(states(5, -5, one, 1));
  EXPECT_EQ(over.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << over.error_message();
  EXPECT_TRUE(mentions(over, "chunk (5, -5)") && mentions(over, "at most 262144")) << over.error_message();

  // At both bounds: a stock client reads it at the finest terrain step, and it would fit with
  // terrain at the largest grid the server allows (at most 14 bytes a sample) with a margin.
  v1::Chunk with_terrain, bare;
  const grpc::Status read = chunk(5, -5, with_terrain, 1);
  ASSERT_TRUE(read.ok()) << read.error_message();
  EXPECT_EQ(with_terrain.objects().id_size() >= static_cast<int>(kMaxAddedObjects), true);
  ASSERT_TRUE(chunk(5, -5, bare).ok());
  EXPECT_LE(bare.ByteSizeLong(), kMaxEditedChunkBytes);
  EXPECT_LT(bare.ByteSizeLong() + Limits{}.max_terrain_samples * 14, size_t{3} << 20);
}

TEST_P(EditLimitsTest, ARequestNamesABoundedNumberOfChunks) {
  v1::EditRequest request;
  for (int64_t x = 0; x <= static_cast<int64_t>(kMaxEditChunks); ++x) {
    op_at(request, 1000 + x, 1000)->set_remove_object(1);
  }
  const grpc::Status status = edit(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_TRUE(mentions(status, "at most 64 distinct chunks per request (got 65)")) << status.error_message();
}

// The index knows (0, 0) is at version 1: a request expecting 0 is refused before its far chunks
// are generated, which the generation count on /metrics shows.
TEST_P(EditLimitsTest, AStaleExpectIsRefusedBeforeAnyGeneration) {
  ASSERT_TRUE(edit(adds(0, 0, 1)).ok());
  const auto generations = [&] { return server_->metrics_page(); };
  const std::string before = generations();
  v1::EditRequest request;
  for (int64_t x = 0; x < 63; ++x) op_at(request, 5000 + x, 5000)->set_remove_object(7);
  v1::ChunkVersion* e = request.add_expect();
  e->mutable_chunk()->set_x(0);
  e->mutable_chunk()->set_z(0);
  e->set_version(0);
  const grpc::Status status = edit(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_TRUE(mentions(status, "expect[0]: chunk (0, 0) is at version 1, not 0")) << status.error_message();
  const auto count = [](const std::string& page) {
    const size_t at = page.find("chunkforge_generation_seconds_count ");
    return at == std::string::npos ? -1 : std::stoll(page.substr(at + 36));
  };
  EXPECT_EQ(count(generations()), count(before));
  EXPECT_GE(count(before), 0);
}

// 100 changes to one chunk: every 32nd version is a snapshot (a reset with the net edits), a
// read starts from the newest one, and the chunk is what the changes made, after a restart too.
TEST_P(EditLimitsTest, ALongLogIsReadFromItsNewestSnapshot) {
  std::set<uint64_t> ids;
  uint64_t removed = 0;
  for (int k = 0; k < 100; ++k) {
    v1::EditResponse response;
    ASSERT_TRUE(edit(adds(-7, 9, 2), &response).ok());
    ids.insert(response.added_ids().begin(), response.added_ids().end());
    if (k % 3 == 0) {  // one removed: the snapshot must not bring it back
      removed = *ids.begin();
      v1::EditRequest remove;
      op_at(remove, -7, 9)->set_remove_object(removed);
      ASSERT_TRUE(edit(remove).ok());
      ids.erase(removed);
    }
  }
  const auto check = [&](uint64_t version) {
    v1::Chunk c;
    ASSERT_TRUE(chunk(-7, 9, c).ok());
    EXPECT_EQ(c.edit_version(), version);
    const std::set<uint64_t> held(c.objects().id().begin(), c.objects().id().end());
    for (uint64_t id : ids) EXPECT_TRUE(held.count(id)) << id;
    EXPECT_FALSE(held.count(removed));
  };
  const uint64_t version = 100 + 34;
  check(version);
  EditStore& store = server_->edits()->store();
  const std::vector<StoredChange> log = server_->edits()->log({-7, 9}, version);
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.front().version, version - version % kSnapshotEvery);
  EXPECT_LE(log.size(), kSnapshotEvery);
  v1::ChunkChange snapshot;
  ASSERT_TRUE(snapshot.ParseFromString(log.front().change));
  EXPECT_TRUE(snapshot.reset());
  EXPECT_EQ(store.log({-7, 9}, 0).size(), version);  // every version is still stored
  stop();
  start();
  check(version);
}

INSTANTIATE_TEST_SUITE_P(Stores, EditLimitsTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
