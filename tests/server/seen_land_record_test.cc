// The seen-land record on each kind of store (docs/world-definition.md, "Epochs";
// server/edits/seen_recorder.h): the store's maps merge by OR with the earliest epoch keeping
// a chunk, a real server records the chunks it sends (and two servers on one store both do),
// and a store that is down holds the recorder to its bound.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "edit_server_fixture.h"
#include "edits/seen_recorder.h"
#include "support/eventually.h"
#include "support/server_process.h"
#include "world_epochs.h"

namespace chunkforge::server {
namespace {

class SeenLandRecordTest : public EditServerTest {
 protected:
  static bool fetch(v1::WorldService::Stub& stub, int64_t x, int64_t z) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    v1::Chunk out;
    return stub.GetChunk(&context, request, &out).ok();
  }
  // Whether the store (read afresh, as another process would) holds every chunk in epoch 0.
  bool stored(std::initializer_list<ChunkCoord> chunks) {
    const SeenLand seen = open_store(location())->seen_land();
    for (const ChunkCoord c : chunks) {
      if (seen.epoch_of(c) != 0u) return false;
    }
    return true;
  }
};

TEST_P(SeenLandRecordTest, TheStoresMapsMergeByOrAndTheEarliestEpochKeepsAChunk) {
  std::unique_ptr<EditStore> store = open_store(location());
  SeenLand::Bits a{}, b{}, c{};
  a[0] = 0b0011;             // chunks (0, 0) and (1, 0)
  b[0] = 0b0110;             // (1, 0) again and (2, 0): one OR later
  c[0] = 0b1100;             // (2, 0) and (3, 0), recorded in epoch 1 by another replica
  c[3] = uint64_t{1} << 63;  // (15, 15): the top bit survives the signed column
  store->write([&](EditStore::Transaction& tx) { tx.merge_seen(-1, 2, 0, a); });
  store->write([&](EditStore::Transaction& tx) {
    tx.merge_seen(-1, 2, 0, b);
    tx.merge_seen(-1, 2, 1, c);
  });
  const SeenLand seen = store->seen_land();
  EXPECT_EQ(seen.epoch_of({-16, 32}), 0u);
  EXPECT_EQ(seen.epoch_of({-15, 32}), 0u);
  EXPECT_EQ(seen.epoch_of({-14, 32}), 0u);  // seen in epoch 0 first
  EXPECT_EQ(seen.epoch_of({-13, 32}), 1u);
  EXPECT_EQ(seen.epoch_of({-1, 47}), 1u);
  EXPECT_FALSE(seen.epoch_of({-12, 32}).has_value());
  EXPECT_EQ(seen.chunks_seen(), 5u);
}

TEST_P(SeenLandRecordTest, ChunksTwoServersSendAreRecordedInTheStore) {
  ASSERT_TRUE(fetch(*stub_, 3, 4));
  ASSERT_TRUE(fetch(*stub_, -20, 7));
  // A second server on the same store (a replica) sends its own players' chunks.
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http = "";
  options.threads = 2;
  options.store = open_store(location());
  WorldServer replica(default_world(), options);
  ASSERT_TRUE(replica.start());
  auto replica_stub = v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(replica.port()), grpc::InsecureChannelCredentials()));
  ASSERT_TRUE(fetch(*replica_stub, 100, -100));
  EXPECT_TRUE(test::eventually([&] { return stored({{3, 4}, {-20, 7}, {100, -100}}); }));
  EXPECT_FALSE(open_store(location())->seen_land().epoch_of({3, 5}).has_value());  // never sent
  EXPECT_EQ(server_->edits()->seen().counts().chunks_noted, 2u);
  replica.shutdown(std::chrono::seconds(2));

  // Sent just before a shutdown: the last flush records it.
  ASSERT_TRUE(fetch(*stub_, 9, 9));
  stop();
  EXPECT_TRUE(stored({{9, 9}}));
}

// A store that stopped answering: the recorder holds at most its bound of regions and counts the
// rest as lost.
TEST_P(SeenLandRecordTest, AStoreDownHoldsTheRecorderToItsBound) {
  stop();
  std::unique_ptr<EditStore> down = open_store(location());
  down->abort();
  SeenRecorder recorder(
      *down, 0, SeenRecorder::Limits{.max_known_regions = 64, .max_pending_regions = 8, .new_region_burst = 2000});
  for (int64_t k = 0; k < 1000; ++k) recorder.note({k * 16, 0}, 1);  // a region each
  recorder.note({1, 0}, 1);                                          // a region that waits: held
  EXPECT_FALSE(recorder.flush());
  const SeenRecorder::Counts counts = recorder.counts();
  EXPECT_EQ(counts.pending_regions, 8u);
  EXPECT_EQ(counts.chunks_lost, 992u);
  EXPECT_EQ(counts.flush_failures, 1u);
  EXPECT_EQ(counts.chunks_noted, 1001u);
}

// `chunkforge world upgrade --dry-run` on the land a server recorded: what the next epoch would
// keep and make, counted and drawn; with the wrong --from it changes nothing and says why.
TEST_P(SeenLandRecordTest, AnUpgradesDryRunCountsAndDrawsWhatItWouldKeep) {
  for (int64_t z = 0; z <= 2; ++z) {
    for (int64_t x = 0; x <= 2; ++x) ASSERT_TRUE(fetch(*stub_, x, z));
  }
  stop();  // the last flush
  const std::string worlds = std::string(" --from ") + CHUNKFORGE_SOURCE_DIR + "/docs/worlds/default.json --to " +
                             CHUNKFORGE_SOURCE_DIR + "/tests/lib/worlds/epoch_next.json";
  const std::string upgrade = std::string(CHUNKFORGE_CLI) + " world upgrade -1 -1 6 1 --store " + location() + worlds;
  const test::CommandResult r = test::run_command(upgrade + " --dry-run --out " + dir_ + "upgrade.png");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("seen land in the store: 9 chunks"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("in the rectangle (24 chunks): 6 kept, 18 new at the seam"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(128 x 48 px)"), std::string::npos) << r.output;

  const test::CommandResult huge =
      test::run_command(std::string(CHUNKFORGE_CLI) + " world upgrade -100000 -100000 100000 100000 --store " +
                        location() + worlds + " --dry-run");
  EXPECT_EQ(huge.exit_code, 2) << huge.output;
  EXPECT_NE(huge.output.find("more than 16777216 chunks"), std::string::npos) << huge.output;

  // --from must be the store's world: nothing is added otherwise.
  const test::CommandResult swapped =
      test::run_command(std::string(CHUNKFORGE_CLI) + " world upgrade -1 -1 6 1 --store " + location() + " --to " +
                        CHUNKFORGE_SOURCE_DIR + "/docs/worlds/default.json --from " + CHUNKFORGE_SOURCE_DIR +
                        "/tests/lib/worlds/epoch_next.json");
  EXPECT_EQ(swapped.exit_code, 2) << swapped.output;
  EXPECT_NE(swapped.output.find("runs the world with fingerprint"), std::string::npos) << swapped.output;
  EXPECT_EQ(open_store(location())->meta(kWorldEpochsKey), std::nullopt);
}

// Each client's share of new regions: one that teleports far every call is refused past its
// burst and refill, while another client's notes, and notes in regions already brought in,
// are taken; what was taken reaches the store.
TEST_P(SeenLandRecordTest, AClientPastItsShareOfNewRegionsIsRefused) {
  std::unique_ptr<EditStore> store = open_store(location());
  SeenRecorder recorder(*store, 0, SeenRecorder::Limits{.new_regions_per_second = 1, .new_region_burst = 10});
  constexpr uint64_t kTeleporter = 7, kWalker = 8;
  for (int64_t k = 0; k < 100; ++k) recorder.note({k * 16, 1000}, kTeleporter);  // a new region each
  for (int64_t x = 0; x < 16; ++x) recorder.note({x, 1000}, kTeleporter);        // its first region
  recorder.note({0, -1000}, kWalker);
  const SeenRecorder::Counts counts = recorder.counts();
  EXPECT_GE(counts.chunks_refused, 89u);  // 100 regions, a burst of 10 (and at most a refill or so)
  EXPECT_LE(counts.chunks_refused, 90u);
  EXPECT_EQ(counts.chunks_noted, 100 - counts.chunks_refused + 15 + 1);
  ASSERT_TRUE(recorder.flush());
  const SeenLand seen = store->seen_land();
  EXPECT_EQ(seen.epoch_of({0, -1000}), 0u);
  EXPECT_EQ(seen.epoch_of({15, 1000}), 0u);
  EXPECT_FALSE(seen.epoch_of({99 * 16, 1000}).has_value());
}

INSTANTIATE_TEST_SUITE_P(Stores, SeenLandRecordTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace chunkforge::server
