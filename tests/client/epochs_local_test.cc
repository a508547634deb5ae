// Clients that make every chunk of a world that changed after launch (docs/client-generation.md,
// "Worlds that changed"), with the real SDK against a real server on SQLite and PostgreSQL:
// players saw a square of the built-in world, a chunk on it was edited, and the store was
// upgraded to tests/lib/worlds/epoch_next.json. The SDK's generator holds both epochs; regions,
// single chunks and a session around the square are made here (older land, its seam, the edited
// chunk) byte for byte as GetChunk serves them, nothing downloaded. A generator or a client
// lacking an epoch is refused with the reason.
#include <gtest/gtest.h>

#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "chunkforge/chunk_hash.h"
#include "chunkforge/client.h"
#include "chunkforge/client/local_generator.h"
#include "chunkforge/v1/info.pb.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "support/eventually.h"
#include "support/local_client.h"
#include "support/store_server.h"
#include "support/view_copies.h"

namespace chunkforge::client {
namespace {

constexpr ChunkCoord kEdited{1, 1};  // on the square players saw, edited in epoch 0

class EpochsLocalTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_EQ(store_.start(), "");
    Client before = connect();
    for (int64_t z = -2; z <= 2; ++z) {
      for (int64_t x = -2; x <= 2; ++x) ASSERT_TRUE(before.chunk({x, z}));
    }
    EditBatch batch;
    batch.add_object(kEdited, NewObject{.x = 10.5f, .z = 20.25f});
    ASSERT_TRUE(before.edit(batch));
    ASSERT_TRUE(
        test::eventually([&] { return server::open_store(store_.location())->seen_land().chunks_seen() == 25; }));
    ASSERT_EQ(store_.upgrade("/tests/lib/worlds/epoch_next.json"), "");
    ASSERT_EQ(store_.start(), "");
    plain_.emplace(connect());
  }

  Client connect() { return test::connect_client(store_.target()); }
  std::shared_ptr<BaseGenerator> generator() { return test::local_generator(*plain_); }

  std::string served(ChunkCoord c, const ChunkOptions& options) {
    Result<Chunk> chunk = plain_->chunk(c, options);
    EXPECT_TRUE(chunk) << chunk.status().to_string();
    return chunk ? canonical_bytes(chunk->message()) : "";
  }

  // A session's first update, by hand, for the server's own refusals.
  std::string refusal(const v1::LocalGeneration& ask) {
    auto stub = v1::WorldService::NewStub(grpc::CreateChannel(store_.target(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    auto session = stub->Session(&context);
    v1::SessionUpdate update;
    update.set_view_radius(1);
    *update.mutable_local_generation() = ask;
    EXPECT_TRUE(session->Write(update));
    v1::SessionEvent event;
    EXPECT_TRUE(session->Read(&event));
    context.TryCancel();
    return event.local_generation().accepted() ? "" : event.local_generation().reason();
  }

  test::StoreServer store_{GetParam(), "epochs_local"};
  std::optional<Client> plain_;  // gets every chunk from the server
};

TEST_P(EpochsLocalTest, RegionsAndChunksOfOlderLandAndItsSeamAreMadeHere) {
  std::shared_ptr<BaseGenerator> generator = this->generator();
  ASSERT_EQ(generator->older_epochs().size(), 1u);
  Client local = connect();
  local.generate_locally(generator);
  ChunkOptions options;
  options.include_terrain = true;
  options.terrain_step = 8;
  std::vector<std::string> made;
  const ChunkCoord centre{3, 0};  // the square's east edge: older land, the seam, new land
  ASSERT_TRUE(local
                  .stream_region(centre, 4, options,
                                 [&](const Chunk& chunk) {
                                   made.push_back(canonical_bytes(chunk.message()));
                                   EXPECT_EQ(made.back(), served(chunk.coord(), options))
                                       << chunk.coord().x << ", " << chunk.coord().z;
                                   return true;
                                 })
                  .ok());
  EXPECT_EQ(made.size(), 81u);
  const Result<Chunk> edited = local.chunk(kEdited, options);
  ASSERT_TRUE(edited);
  EXPECT_TRUE(canonical_bytes(edited->message()) == served(kEdited, options));
  const LocalGenerationStats stats = local.local_generation();
  EXPECT_EQ(stats.chunks_generated, 82u);
  EXPECT_EQ(stats.chunks_downloaded, 0u);
  EXPECT_GE(stats.edited_verified, 2u);
}

TEST_P(EpochsLocalTest, ASessionAtTheSeenSquareMakesItAll) {
  // The same view twice: with every epoch, and with the newest world only (older land and seams
  // then come whole). The bytes each received are the figure docs/client-generation.md quotes.
  Result<WorldInfo> info = plain_->world_info_with_definition();
  ASSERT_TRUE(info);
  v1::WorldInfo newest_only = info->message();
  newest_only.clear_older_epochs();
  Result<std::shared_ptr<BaseGenerator>> newest = make_local_generator(newest_only);
  ASSERT_TRUE(newest);
  uint64_t bytes[2] = {0, 0};
  for (const bool every_epoch : {true, false}) {
    test::Copies copies;
    ViewOptions view;
    view.view_radius = 3;
    view.generator = every_epoch ? generator() : *newest;
    auto session = ViewSession::start(*plain_, {2 * 64 + 32, 32}, view, copies.callbacks());
    ASSERT_TRUE(session) << session.status().to_string();
    ASSERT_TRUE(test::eventually([&] { return copies.snapshot().size() == 49; }));
    for (const auto& [c, chunk] : copies.snapshot()) {
      EXPECT_TRUE(canonical_bytes(chunk.message()) == served(c, {})) << c.x << ", " << c.z;
    }
    const ViewStats stats = (*session)->stats();
    EXPECT_TRUE(stats.generating_locally) << stats.local_generation_refused;
    EXPECT_EQ(stats.chunks_generated, every_epoch ? 49u : 0u);
    EXPECT_EQ(stats.chunks_downloaded, every_epoch ? 0u : 49u);  // all within a seam's reach
    EXPECT_EQ(stats.edited_verified, every_epoch ? 1u : 0u);
    EXPECT_TRUE(copies.errors.empty()) << copies.errors.front();
    bytes[every_epoch ? 0 : 1] = stats.bytes_received;
  }
  std::printf("a radius-3 view at the seen square: %llu bytes holding every epoch, %llu with the newest only\n",
              static_cast<unsigned long long>(bytes[0]), static_cast<unsigned long long>(bytes[1]));
  EXPECT_LT(bytes[0] * 20, bytes[1]);
}

TEST_P(EpochsLocalTest, AGeneratorOrAClientWithoutAnEpochIsRefusedWithTheReason) {
  Result<WorldInfo> info = plain_->world_info_with_definition();
  ASSERT_TRUE(info);
  ASSERT_EQ(info->message().older_epochs_size(), 1);
  v1::WorldInfo unknown = info->message();
  unknown.mutable_older_epochs(0)->set_generator_version(99);
  const Result<std::shared_ptr<BaseGenerator>> refused = make_local_generator(unknown);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::failed_precondition);
  EXPECT_NE(refused.status().message.find("older_epochs[0].generator_version"), std::string::npos)
      << refused.status().message;

  std::shared_ptr<BaseGenerator> generator = this->generator();
  v1::LocalGeneration ask;
  ask.add_generator_versions(3);  // the newest epoch's only
  ask.set_fingerprint(generator->fingerprint());
  ask.set_older_epochs(generator->older_epochs().front());
  EXPECT_NE(refusal(ask).find("epoch 0's generator version 2 is not among the client's [3]"), std::string::npos)
      << refusal(ask);
  ask.add_generator_versions(2);
  EXPECT_EQ(refusal(ask), "");
  ask.set_older_epochs("0123456789abcdef");
  EXPECT_NE(refusal(ask).find("epoch 0 fingerprint \"0123456789abcdef\" is not the world's"), std::string::npos)
      << refusal(ask);
  ask.set_older_epochs("0123");
  EXPECT_NE(refusal(ask).find("older epochs are 4 characters"), std::string::npos) << refusal(ask);
  ask.clear_older_epochs();
  EXPECT_EQ(refusal(ask), "");  // the newest world only: older land comes whole
}

INSTANTIATE_TEST_SUITE_P(Stores, EpochsLocalTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace chunkforge::client
