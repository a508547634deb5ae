// Client's chunk and region calls generating locally (Client::generate_locally,
// docs/client-generation.md, "Single chunks and regions"), against a real in-process server on
// a loopback port with a real store (SQLite; the walk also on a PostgreSQL cluster started by
// the test). Every chunk a generating client returns is compared, byte for byte, with what a
// plain client gets from GetChunk or StreamRegion of the same server:
// - a pristine chunk is made here and the server generates nothing;
// - a region given up early abandons the chunks being made ahead; one read to its end ends OK;
// - a walk of regions while chunks are edited: every chunk the server's, in the server's order,
//   edited ones hash-checked;
// - a corrupted base fails the hash and is fetched whole;
// - changes past the answer's bound are named, not sent, and those chunks fetched whole;
// - a generator of another world, and a server that keeps its definition: the calls fall back
//   to whole chunks and say why;
// - GetChunkEdits' own refusals: too many chunks, a coordinate past the world, a bad radius.
#include <gtest/gtest.h>

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "chunkforge/chunk_hash.h"
#include "chunkforge/client.h"
#include "chunkforge/client/local_generator.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "edits/edit_service.h"
#include "support/local_client.h"
#include "support/lying_generator.h"
#include "support/store_server.h"

namespace chunkforge::client {
namespace {

class LocalClientTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { start(); }

  void start(bool client_generation = true) {
    ASSERT_EQ(store_.start(client_generation), "");
    target_ = store_.target();
    plain_.emplace(connect());
    local_.emplace(connect());
  }

  Client connect() { return test::connect_client(target_); }
  std::shared_ptr<BaseGenerator> generator() { return test::local_generator(*plain_); }

  // The chunks of a region, in the order they came.
  static std::vector<std::string> region(Client& client, ChunkCoord centre, uint32_t radius,
                                         const ChunkOptions& options = {}) {
    std::vector<std::string> out;
    const Status status = client.stream_region(centre, radius, options, [&](const Chunk& chunk) {
      out.push_back(canonical_bytes(chunk.message()));
      return true;
    });
    EXPECT_TRUE(status.ok()) << status.to_string();
    return out;
  }

  static std::string bytes_of(Client& client, ChunkCoord c, const ChunkOptions& options = {}) {
    Result<Chunk> chunk = client.chunk(c, options);
    EXPECT_TRUE(chunk) << chunk.status().to_string();
    return chunk ? canonical_bytes(chunk->message()) : "";
  }

  void edit_some(ChunkCoord c, std::mt19937& random) {
    EditBatch batch;
    NewObject object;
    object.x = static_cast<float>(random() % 60 + 2);
    object.z = static_cast<float>(random() % 60 + 2);
    batch.add_object(c, object);
    const Result<Chunk> now = plain_->chunk(c);
    if (now && now->objects().size() > 1) batch.remove_object(c, now->objects()[0].id);
    Result<EditResult> result = plain_->edit(batch);
    ASSERT_TRUE(result) << result.status().to_string();
  }

  // GetChunkEdits by hand, for the server's own refusals.
  grpc::Status ask(const v1::GetChunkEditsRequest& request, v1::ChunkEdits& answer) {
    auto stub = v1::WorldService::NewStub(grpc::CreateChannel(target_, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    return stub->GetChunkEdits(&context, request, &answer);
  }
  v1::GetChunkEditsRequest request_of(const BaseGenerator& generator) {
    v1::GetChunkEditsRequest request;
    for (uint32_t v : generator.generator_versions()) request.mutable_local_generation()->add_generator_versions(v);
    request.mutable_local_generation()->set_fingerprint(generator.fingerprint());
    return request;
  }

  test::StoreServer store_{GetParam(), "local_client"};
  std::string target_;
  std::optional<Client> plain_, local_;  // plain_ gets every chunk from the server
};

TEST_P(LocalClientTest, APristineChunkIsMadeHereAndTheServerGeneratesNothing) {
  local_->generate_locally(generator());
  ChunkOptions options;
  options.include_terrain = true;
  options.terrain_step = 4;
  const std::string made = bytes_of(*local_, {5, -3}, options);
  EXPECT_EQ(store_.server().cache().stats().entries, 0u) << "the server generated a chunk for a generating client";
  EXPECT_EQ(made, bytes_of(*plain_, {5, -3}, options));
  const LocalGenerationStats stats = local_->local_generation();
  EXPECT_TRUE(stats.generating_locally) << stats.local_generation_refused;
  EXPECT_EQ(stats.chunks_generated, 1u);
  EXPECT_EQ(stats.chunks_downloaded, 0u);
}

// The walk runs on both stores; the rest on SQLite.
using LocalClientWalkTest = LocalClientTest;

TEST_P(LocalClientWalkTest, RegionsAndChunksWhileChunksAreEditedAreTheServers) {
  local_->generate_locally(generator());
  std::mt19937 random(5);
  ChunkOptions filtered;
  filtered.layers = {0};  // the edited chunks' hashes are checked on a second, whole chunk
  ChunkCoord at{0, 0};
  for (int step = 0; step < 6; ++step) {
    edit_some({at.x + 1, at.z}, random);
    edit_some({at.x - 1, at.z + 2}, random);
    EXPECT_EQ(region(*local_, at, 2), region(*plain_, at, 2)) << "step " << step;
    EXPECT_EQ(region(*local_, at, 1, filtered), region(*plain_, at, 1, filtered)) << "step " << step;
    EXPECT_EQ(bytes_of(*local_, {at.x + 1, at.z}), bytes_of(*plain_, {at.x + 1, at.z})) << "step " << step;
    at.x += static_cast<int64_t>(random() % 3) - 1;
    at.z += 1;
  }
  const LocalGenerationStats stats = local_->local_generation();
  EXPECT_TRUE(stats.generating_locally) << stats.local_generation_refused;
  EXPECT_GE(stats.edited_verified, 12u);
  EXPECT_EQ(stats.edited_mismatches, 0u);
  EXPECT_EQ(stats.chunks_downloaded, 0u);
}

TEST_P(LocalClientTest, ARegionGivenUpEarlyAbandonsTheChunksBeingMade) {
  local_->generate_locally(generator(), 4);
  int seen = 0;
  const Status status = local_->stream_region({40, 40}, 8, {}, [&](const Chunk&) { return ++seen < 5; });
  EXPECT_TRUE(status.ok()) << status.to_string();
  EXPECT_EQ(seen, 5);
  const uint64_t made = local_->local_generation().chunks_generated;
  EXPECT_GE(made, 5u);
  EXPECT_LE(made, 5u + 4u) << "at most the chunks already under way were finished";
  RegionStream stream = local_->open_region({-40, 40}, 2);
  for (int k = 0; k < 25; ++k) ASSERT_TRUE(stream.next()) << stream.status().to_string();
  EXPECT_FALSE(stream.next());
  EXPECT_TRUE(stream.status().ok()) << stream.status().to_string();
}

TEST_P(LocalClientTest, ACorruptedBaseFailsTheHashAndIsFetchedWhole) {
  std::mt19937 random(3);
  const ChunkCoord spoiled{2, 0};
  edit_some(spoiled, random);
  auto liar = std::make_shared<test::LyingGenerator>(generator());
  liar->spoiled = spoiled;
  local_->generate_locally(liar);
  EXPECT_EQ(bytes_of(*local_, spoiled), bytes_of(*plain_, spoiled));
  EXPECT_EQ(region(*local_, {1, 0}, 1), region(*plain_, {1, 0}, 1));
  const LocalGenerationStats stats = local_->local_generation();
  EXPECT_EQ(stats.edited_mismatches, 2u);
  EXPECT_EQ(stats.chunks_downloaded, 2u);
  EXPECT_EQ(stats.chunks_generated, 8u) << "the rest of the region is made here";
}

TEST_P(LocalClientTest, ChangesPastTheAnswersBoundAreFetchedWhole) {
  // One change a chunk, each setting every object's state once (so each is smaller than its
  // chunk and is sent as a change), until about 560 KB of changes: past the 512 KiB an answer
  // holds. The chunks past the bound are fetched whole, the others made here.
  const int radius = 5, side = 2 * radius + 1;
  size_t logged = 0;
  for (int dz = -radius; dz <= radius && logged < 560'000; ++dz) {
    for (int dx = -radius; dx <= radius && logged < 560'000; ++dx) {
      const Result<Chunk> chunk = plain_->chunk({dx, dz});
      ASSERT_TRUE(chunk) << chunk.status().to_string();
      const size_t objects = std::min<size_t>(chunk->objects().size(), 256);  // a batch's limit
      if (objects == 0) continue;
      EditBatch batch;
      for (size_t k = 0; k < objects; ++k)
        batch.set_state({dx, dz}, chunk->objects()[k].id, std::string(256, static_cast<char>('a' + k % 26)));
      ASSERT_TRUE(plain_->edit(batch));
      logged += objects * 256;
    }
  }
  ASSERT_GE(logged, 560'000u) << "the chunks hold too few objects for this test";
  local_->generate_locally(generator());
  EXPECT_EQ(region(*local_, {0, 0}, radius), region(*plain_, {0, 0}, radius));
  const LocalGenerationStats stats = local_->local_generation();
  EXPECT_GT(stats.chunks_downloaded, 0u) << "the chunks past the answer's bound";
  EXPECT_GT(stats.chunks_generated, 0u);
  EXPECT_EQ(stats.chunks_downloaded + stats.chunks_generated, static_cast<uint64_t>(side * side));
}

TEST_P(LocalClientTest, AChangeLargerThanItsChunkIsFetchedAsTheChunk) {
  // 256 states of one object in one change: about 68 KB of change for a chunk that keeps one.
  const ChunkCoord heavy{0, 0}, light{1, 0};
  const Result<Chunk> chunk = plain_->chunk(heavy);
  ASSERT_TRUE(chunk && chunk->objects().size() > 0);
  EditBatch batch;
  for (int k = 0; k < 256; ++k)
    batch.set_state(heavy, chunk->objects()[0].id, std::string(256, static_cast<char>('a' + k % 26)));
  ASSERT_TRUE(plain_->edit(batch));
  std::mt19937 random(9);
  edit_some(light, random);
  local_->generate_locally(generator());
  EXPECT_EQ(region(*local_, heavy, 1), region(*plain_, heavy, 1));
  const LocalGenerationStats stats = local_->local_generation();
  EXPECT_EQ(stats.chunks_downloaded, 1u) << "only the chunk its change outgrew";
  EXPECT_EQ(stats.chunks_generated, 8u);
}

TEST_P(LocalClientTest, AGeneratorOfAnotherWorldGetsWholeChunksAndSaysWhy) {
  auto liar = std::make_shared<test::LyingGenerator>(generator());
  liar->other_fingerprint = "0123456789abcdef";
  local_->generate_locally(liar);
  EXPECT_EQ(bytes_of(*local_, {3, 3}), bytes_of(*plain_, {3, 3}));
  EXPECT_EQ(region(*local_, {3, 3}, 1), region(*plain_, {3, 3}, 1));
  const LocalGenerationStats stats = local_->local_generation();
  EXPECT_FALSE(stats.generating_locally);
  EXPECT_NE(stats.local_generation_refused.find("0123456789abcdef"), std::string::npos)
      << stats.local_generation_refused;
  EXPECT_EQ(stats.chunks_generated, 0u);
}

TEST_P(LocalClientTest, AServerThatKeepsItsDefinitionGetsWholeChunks) {
  std::shared_ptr<BaseGenerator> made = generator();  // while the definition is shared
  start(/*client_generation=*/false);
  local_->generate_locally(made);
  EXPECT_EQ(region(*local_, {0, 0}, 1), region(*plain_, {0, 0}, 1));
  EXPECT_NE(local_->local_generation().local_generation_refused.find("--client-generation off"), std::string::npos)
      << local_->local_generation().local_generation_refused;
}

TEST_P(LocalClientTest, BadRequestsAreRefusedNamingTheField) {
  std::shared_ptr<BaseGenerator> made = generator();
  v1::ChunkEdits answer;
  v1::GetChunkEditsRequest many = request_of(*made);
  for (int k = 0; k < 33 * 33 + 1; ++k) many.add_coords()->set_x(k);
  grpc::Status status = ask(many, answer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("coords: at most 1089"), std::string::npos) << status.error_message();

  v1::GetChunkEditsRequest far = request_of(*made);
  far.add_coords()->set_x(int64_t{1} << 40);
  status = ask(far, answer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("coords[0].x"), std::string::npos) << status.error_message();

  v1::GetChunkEditsRequest wide = request_of(*made);
  wide.mutable_centre();
  wide.set_radius(17);
  status = ask(wide, answer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("radius: must be in [0, 16]"), std::string::npos) << status.error_message();

  v1::GetChunkEditsRequest stranger = request_of(*made);
  stranger.mutable_local_generation()->clear_generator_versions();
  stranger.add_coords();
  status = ask(stranger, answer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("generator version"), std::string::npos) << status.error_message();
  EXPECT_EQ(store_.server().cache().stats().entries, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, LocalClientTest, testing::Values("sqlite"));
INSTANTIATE_TEST_SUITE_P(Stores, LocalClientWalkTest, testing::Values("sqlite", "postgres"));

}  // namespace
}  // namespace chunkforge::client
