// A ViewSession reads the server's batches of unloads (SessionUpdate.accept_unload_batches) into
// exactly the callbacks it gives without them: against a real in-process server on a loopback
// port, a player with a chunk view and a LOD horizon jumps far, once with batches and once
// without, its tiles sent by the server or made by its local generator; the game sees the same
// on_unload and on_tile_unload calls, in the same order, after the same loads, and ends holding
// exactly the new view.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "chunkforge/client.h"
#include "chunkforge/client/local_generator.h"
#include "chunkforge/lod.h"
#include "chunkforge/world.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "tile_cover.h"
#include "view_session_testing.h"
#include "world_server.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;
using test::eventually;

constexpr uint32_t kViewRadius = 2, kLodRadius = 256;
constexpr std::chrono::seconds kWait{120};  // a view's tiles: well under a second here, far more under TSan
const Position kStart{5000, -7000};
const Position kFar{kStart.x + 600 * 64.0, kStart.z - 300 * 64.0};  // no tile of one view in the other

// lod_view's tiles that do not lie wholly inside the chunk view: what the horizon holds at `p`.
std::set<LodKey> horizon_at(Position p) {
  const ChunkCoord c = chunk_at(p.x, p.z, 64);
  const ChunkSquare chunks{c.x - kViewRadius, c.z - kViewRadius, c.x + kViewRadius, c.z + kViewRadius};
  std::set<LodKey> out;
  for (const chunkforge::LodKey& k : lod_view(64, p.x, p.z, kLodRadius)) {
    const LodKey key{static_cast<uint32_t>(k.level), k.x, k.z};
    if (!chunks.contains(square_of(key))) out.insert(key);
  }
  return out;
}

// What the game saw of the jump, through the callbacks.
struct Seen {
  std::mutex mutex;
  bool recording = false;
  std::vector<ChunkCoord> chunk_unloads;
  std::vector<LodKey> tile_unloads;
  std::set<LodKey> held, tile_loads;
  std::set<ChunkCoord> chunk_loads;
  bool unload_before_a_load = false;  // a tile of the old view unloaded before the new one was whole

  ViewCallbacks callbacks() {
    ViewCallbacks c;
    c.on_load = [this](const Chunk& chunk) {
      std::lock_guard lock(mutex);
      if (recording) chunk_loads.insert(chunk.coord());
    };
    c.on_unload = [this](ChunkCoord coord) {
      std::lock_guard lock(mutex);
      if (recording) chunk_unloads.push_back(coord);
    };
    c.on_tile = [this](const LodTile& tile) {
      std::lock_guard lock(mutex);
      held.insert(tile.key());
      if (!recording) return;
      tile_loads.insert(tile.key());
      unload_before_a_load = unload_before_a_load || !tile_unloads.empty();
    };
    c.on_tile_unload = [this](LodKey key) {
      std::lock_guard lock(mutex);
      EXPECT_EQ(held.erase(key), 1u) << "an unload of a tile not held";
      if (recording) tile_unloads.push_back(key);
    };
    return c;
  }
  bool holds(const std::set<LodKey>& tiles) {
    std::lock_guard lock(mutex);
    return held == tiles;
  }
};

class ViewUnloadsTest : public testing::TestWithParam<bool> {  // the tiles made here (local generation)
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.listen = "127.0.0.1:" + std::to_string(test::free_port());
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    options.limits.max_radius = 8;
    server_ = std::make_unique<server::WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    Result<Client> client = Client::connect(options.listen);
    ASSERT_TRUE(client) << client.status().to_string();
    client_.emplace(std::move(*client));
  }
  void TearDown() override {
    ViewSessionTesting::accept_unload_batches(true);
    server_->shutdown(100ms);
  }

  // The jump, seen by a game whose session asks for unload batches or not.
  void jump(bool batches, Seen& seen) {
    ViewSessionTesting::accept_unload_batches(batches);
    ViewOptions view;
    view.view_radius = kViewRadius;
    view.lod_radius = kLodRadius;
    if (GetParam()) {
      Result<std::shared_ptr<BaseGenerator>> generator = make_local_generator(*client_);
      ASSERT_TRUE(generator) << generator.status().to_string();
      view.generator = *generator;
    }
    Result<std::unique_ptr<ViewSession>> session = ViewSession::start(*client_, kStart, view, seen.callbacks());
    ASSERT_TRUE(session) << session.status().to_string();
    ViewSession& s = **session;
    ASSERT_TRUE(eventually([&] { return seen.holds(horizon_at(kStart)) && s.loaded().size() == 25; }, kWait));
    {
      std::lock_guard lock(seen.mutex);
      seen.recording = true;
    }
    s.set_position(kFar);
    ASSERT_TRUE(eventually([&] { return seen.holds(horizon_at(kFar)) && s.stats().loaded_chunks == 25; }, kWait));
    EXPECT_EQ(s.stats().generating_locally, GetParam());
    EXPECT_EQ(s.stats().tiles_refused, 0u);
    s.stop();
  }

  std::unique_ptr<server::WorldServer> server_;
  std::optional<Client> client_;
};

TEST_P(ViewUnloadsTest, AJumpGivesTheSameCallbacksWithAndWithoutUnloadBatches) {
  Seen batched, one_each;
  jump(true, batched);
  jump(false, one_each);
  std::lock_guard lock_batched(batched.mutex), lock_one_each(one_each.mutex);
  const std::set<LodKey> old_view = horizon_at(kStart);
  EXPECT_EQ(std::set<LodKey>(batched.tile_unloads.begin(), batched.tile_unloads.end()), old_view);
  EXPECT_EQ(batched.tile_unloads.size(), old_view.size()) << "each once";
  EXPECT_EQ(batched.tile_unloads, one_each.tile_unloads) << "the same keys in the same order";
  EXPECT_EQ(batched.tile_loads, horizon_at(kFar));
  EXPECT_EQ(batched.tile_loads, one_each.tile_loads);
  EXPECT_FALSE(batched.unload_before_a_load) << "the horizon never has a hole";
  EXPECT_FALSE(one_each.unload_before_a_load);
  EXPECT_EQ(batched.chunk_unloads.size(), 25u);
  EXPECT_EQ(batched.chunk_unloads, one_each.chunk_unloads);
  EXPECT_EQ(batched.chunk_loads, one_each.chunk_loads);
}

INSTANTIATE_TEST_SUITE_P(Tiles, ViewUnloadsTest, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& tiles) {
                           return tiles.param ? "MadeByTheClient" : "SentByTheServer";
                         });

}  // namespace
}  // namespace chunkforge::client
