// A ViewSession's LOD tiles (ViewOptions::lod_radius) against a real in-process server on a
// loopback port: the horizon it holds is exactly the tiles lod_view gives less those inside the
// chunk view, each byte for byte lod_tile_bytes; walking far and changing lod_radius leave the
// right set; the polled path delivers the same within its byte bound; an over-limit radius ends
// the session; a local-generation session gets tiles alike; across a server restart, with a
// move while the server is away, the tiles held stay until the new server's cover their ground;
// and an edit removing a structure replaces the tiles that showed it (a SQLite edit store).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "chunkforge/chunk_hash.h"
#include "chunkforge/client.h"
#include "chunkforge/client/local_generator.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/lod.pb.h"
#include "chunkforge/world.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/temp_dir.h"
#include "tile_cover.h"
#include "world_server.h"  // with the edit service's open_store and bind_store

namespace chunkforge::client {
namespace {

// How long a test waits for a view's tiles: some 0.1 to 0.3 s here, but tens of seconds under
// ThreadSanitizer on two loaded cores (CI saw a radius-1,024 view pass 20 s). A passing wait
// returns as soon as the tiles are held.
constexpr std::chrono::seconds kTileWait{120};

using namespace std::chrono_literals;
using test::eventually;

constexpr uint32_t kViewRadius = 2;
const Position kStart{5000, -7000};  // not at the origin, whose chunk every level aligns with

ChunkSquare around(Position p, int64_t radius) {
  const ChunkCoord c = chunk_at(p.x, p.z, 64);
  return {c.x - radius, c.z - radius, c.x + radius, c.z + radius};
}

// What the server owes: lod_view's tiles that do not lie wholly inside the chunk view.
std::set<LodKey> expected_tiles(Position p, int64_t lod_radius, int64_t view_radius = kViewRadius, int finest = -1) {
  std::set<LodKey> out;
  if (lod_radius == 0) return out;
  for (const chunkforge::LodKey& k : lod_view(64, p.x, p.z, lod_radius, {.finest_level = finest})) {
    const LodKey key{static_cast<uint32_t>(k.level), k.x, k.z};
    if (!around(p, view_radius).contains(square_of(key))) out.insert(key);
  }
  return out;
}

std::string library_bytes(const LodKey& key) {
  return lod_tile_bytes(default_world(), {static_cast<int>(key.level), key.x, key.z});
}

// The tiles the game holds, through the callbacks, with what went wrong along the way.
struct Horizon {
  std::mutex mutex;
  std::map<LodKey, std::string> held;  // canonical bytes
  std::map<LodKey, LodTile> tiles;     // the same, as the game reads them
  size_t loads = 0, unloads = 0, unloads_not_held = 0, holes = 0;
  std::vector<Status> errors;
  // When set: the ground the horizon must show (needed less excluded); an unload that leaves
  // some of it without a tile counts as a hole.
  std::optional<std::pair<ChunkSquare, ChunkSquare>> no_holes;

  ViewCallbacks callbacks() {
    ViewCallbacks c;
    c.on_tile = [this](const LodTile& tile) {
      std::lock_guard lock(mutex);
      ++loads;
      held.insert_or_assign(tile.key(), canonical_bytes(tile.message()));
      tiles.insert_or_assign(tile.key(), tile);
    };
    c.on_tile_unload = [this](LodKey key) {
      std::lock_guard lock(mutex);
      ++unloads;
      unloads_not_held += held.erase(key) == 0;
      tiles.erase(key);
      if (!no_holes) return;
      TileCover cover;
      for (const auto& entry : held) cover.add(entry.first);
      holes += !cover.covers(key, no_holes->first, no_holes->second);
    };
    c.on_error = [this](const Status& s) {
      std::lock_guard lock(mutex);
      errors.push_back(s);
    };
    return c;
  }
  std::set<LodKey> keys() {
    std::lock_guard lock(mutex);
    std::set<LodKey> out;
    for (const auto& entry : held) out.insert(entry.first);
    return out;
  }
  // Whether every tile held is the library's bytes.
  bool all_library_bytes() {
    std::lock_guard lock(mutex);
    for (const auto& [key, bytes] : held) {
      if (bytes != library_bytes(key)) return false;
    }
    return true;
  }
};

class ViewTilesTest : public testing::Test {
 protected:
  void SetUp() override {
    port_ = test::free_port();
    start_server();
    Result<Client> client = Client::connect("127.0.0.1:" + std::to_string(port_));
    ASSERT_TRUE(client) << client.status().to_string();
    client_.emplace(std::move(*client));
  }
  void TearDown() override {
    session_.reset();
    if (server_) server_->shutdown(100ms);
  }

  void start_server() {
    server::ServerOptions options;
    const std::string dir = test::unique_temp_dir("view_tiles");
    options.store = server::open_store("sqlite:" + dir + "edits.db");
    ASSERT_EQ(server::bind_store(*options.store, default_world(), false), "");
    options.open_edits = true;
    options.listen = "127.0.0.1:" + std::to_string(port_);
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    options.limits.max_radius = 8;
    server_ = std::make_unique<server::WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
  }

  void watch(uint32_t lod_radius, Position at = kStart, std::shared_ptr<BaseGenerator> generator = nullptr,
             uint32_t finest_level = 0) {
    ViewOptions view;
    view.view_radius = kViewRadius;
    view.lod_radius = lod_radius;
    view.lod_finest_level = finest_level;
    view.generator = std::move(generator);
    Result<std::unique_ptr<ViewSession>> session = ViewSession::start(*client_, at, view, horizon_.callbacks());
    ASSERT_TRUE(session) << session.status().to_string();
    session_ = std::move(*session);
  }

  // Whether the game and the session hold exactly `expected`.
  bool holds(const std::set<LodKey>& expected) {
    const std::vector<LodKey> keys = session_->tiles();
    return horizon_.keys() == expected && std::set<LodKey>(keys.begin(), keys.end()) == expected;
  }

  int port_ = 0;
  std::unique_ptr<server::WorldServer> server_;
  std::optional<Client> client_;
  Horizon horizon_;
  std::unique_ptr<ViewSession> session_;
};

TEST_F(ViewTilesTest, Radius1024GetsExactlyTheViewsTilesAsTheLibrarysBytes) {
  watch(1024);
  const std::set<LodKey> expected = expected_tiles(kStart, 1024);
  ASSERT_GT(expected.size(), 300u);
  ASSERT_TRUE(eventually([&] { return holds(expected); }, kTileWait));
  EXPECT_TRUE(horizon_.all_library_bytes());
  const ViewStats stats = session_->stats();
  size_t bytes = 0;
  for (const LodKey& key : expected) bytes += library_bytes(key).size();
  EXPECT_EQ(stats.tiles_loaded, expected.size());
  EXPECT_EQ(stats.held_tiles, expected.size());
  EXPECT_EQ(stats.held_tile_bytes, bytes);
  EXPECT_EQ(stats.tile_bytes_received, bytes);
  EXPECT_EQ(stats.tiles_unloaded, 0u);
  EXPECT_EQ(stats.loaded_chunks, 25u);
  std::lock_guard lock(horizon_.mutex);
  EXPECT_EQ(horizon_.loads, expected.size());
  EXPECT_TRUE(horizon_.errors.empty()) << horizon_.errors.front().to_string();
}

// Six moves of 150 chunks east and 40 south, settling only after the third and the last: the
// server unloads what left and loads what entered, and the set ends as the last view's.
TEST_F(ViewTilesTest, WalkingFarLeavesExactlyTheLastViewsTiles) {
  watch(256);
  ASSERT_TRUE(eventually([&] { return holds(expected_tiles(kStart, 256)); }, kTileWait));
  Position at = kStart;
  for (int step = 1; step <= 6; ++step) {
    at.x += 150 * 64;
    at.z -= 40 * 64;
    const uint64_t before = session_->stats().tiles_loaded;
    session_->set_position(at);
    ASSERT_TRUE(eventually([&] { return session_->stats().tiles_loaded > before; }));
    if (step % 3 == 0) {
      ASSERT_TRUE(eventually([&] { return holds(expected_tiles(at, 256)); }, kTileWait)) << "step " << step;
    }
  }
  EXPECT_TRUE(horizon_.all_library_bytes());
  const ViewStats stats = session_->stats();
  EXPECT_GT(stats.tiles_unloaded, 0u);
  EXPECT_EQ(stats.tiles_loaded - stats.tiles_unloaded, expected_tiles(at, 256).size());
  std::lock_guard lock(horizon_.mutex);
  EXPECT_EQ(horizon_.unloads_not_held, 0u);
  EXPECT_EQ(horizon_.loads - horizon_.unloads, horizon_.held.size());
}

TEST_F(ViewTilesTest, RadiusZeroGetsNoTilesAndSettingItToZeroUnloadsThemAll) {
  watch(0);
  ASSERT_TRUE(eventually([&] { return session_->stats().loaded_chunks == 25; }));
  // A position update later (a round trip on the same stream), still no tile came.
  session_->set_position({kStart.x + 64, kStart.z});
  ASSERT_TRUE(
      eventually([&] { return session_->stats().loaded_chunks == 25 && session_->stats().chunks_downloaded == 30; }));
  EXPECT_EQ(session_->stats().tiles_loaded, 0u);
  EXPECT_TRUE(session_->tiles().empty());

  const Position at{kStart.x + 64, kStart.z};
  session_->set_lod_radius(64);
  ASSERT_TRUE(eventually([&] { return holds(expected_tiles(at, 64)); }, kTileWait));
  EXPECT_TRUE(horizon_.all_library_bytes());
  session_->set_lod_radius(0);
  ASSERT_TRUE(eventually([&] { return holds({}); }, kTileWait));
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.tiles_unloaded, stats.tiles_loaded);
  EXPECT_EQ(stats.held_tile_bytes, 0u);
  EXPECT_EQ(stats.loaded_chunks, 25u);
}

// A finest level of 3: no tile finer than 8 x 8 chunks, far fewer of them; back to 0, the
// default rings, and the level-3 tiles near the player give way to finer ones.
TEST_F(ViewTilesTest, AFinestLevelCoarsensTheNearTilesAndMayChange) {
  watch(256, kStart, nullptr, 3);
  const std::set<LodKey> coarse = expected_tiles(kStart, 256, kViewRadius, 3);
  ASSERT_TRUE(eventually([&] { return holds(coarse); }, kTileWait));
  for (const LodKey& key : coarse) EXPECT_GE(key.level, 3u);
  const std::set<LodKey> fine = expected_tiles(kStart, 256);
  ASSERT_LT(coarse.size(), fine.size());
  session_->set_lod_finest_level(0);
  ASSERT_TRUE(eventually([&] { return holds(fine); }, kTileWait));
  EXPECT_TRUE(horizon_.all_library_bytes());
  std::lock_guard lock(horizon_.mutex);
  EXPECT_EQ(horizon_.unloads_not_held, 0u);
  EXPECT_EQ(horizon_.loads - horizon_.unloads, fine.size());
}

TEST_F(ViewTilesTest, ARadiusPastTheServersLimitEndsTheSession) {
  watch(1025);  // the server's default --max-lod-radius is 1024
  ASSERT_TRUE(eventually([&] { return !session_->running(); }));
  std::lock_guard lock(horizon_.mutex);
  ASSERT_FALSE(horizon_.errors.empty());
  EXPECT_EQ(horizon_.errors.back().code, StatusCode::invalid_argument) << horizon_.errors.back().to_string();
  EXPECT_NE(horizon_.errors.back().message.find("lod_radius"), std::string::npos) << horizon_.errors.back().message;
  EXPECT_NE(horizon_.errors.back().message.find("1025"), std::string::npos) << horizon_.errors.back().message;
}

// A session whose generator makes tiles gets the pristine ones as keys and makes them: the
// library's bytes, none downloaded; moving far, it ends holding exactly the new view.
TEST_F(ViewTilesTest, ASessionThatGeneratesLocallyMakesTheSameTiles) {
  Result<std::shared_ptr<BaseGenerator>> generator = make_local_generator(*client_);
  ASSERT_TRUE(generator) << generator.status().to_string();
  watch(128, kStart, *generator);
  const std::set<LodKey> first = expected_tiles(kStart, 128);
  ASSERT_TRUE(eventually([&] { return holds(first); }, kTileWait));
  ASSERT_TRUE(eventually([&] { return session_->stats().loaded_chunks == 25; }));
  EXPECT_TRUE(horizon_.all_library_bytes());
  ViewStats stats = session_->stats();
  EXPECT_TRUE(stats.generating_locally);
  EXPECT_EQ(stats.chunks_generated, 25u);
  EXPECT_EQ(stats.chunks_downloaded, 0u);
  EXPECT_EQ(stats.tiles_generated, first.size());
  EXPECT_EQ(stats.tile_bytes_received, 0u);

  const Position far{kStart.x + 300 * 64.0, kStart.z - 200 * 64.0};
  session_->set_position(far);
  const std::set<LodKey> second = expected_tiles(far, 128);
  ASSERT_TRUE(eventually([&] { return holds(second); }, kTileWait));
  EXPECT_TRUE(horizon_.all_library_bytes());
  stats = session_->stats();
  EXPECT_EQ(stats.tile_bytes_received, 0u);
  EXPECT_GE(stats.tiles_generated, first.size() + 1);
  EXPECT_EQ(stats.tiles_refused, 0u);
}

// The server restarts while the player moves 40 chunks east: the horizon stays up while it is
// away (less what lies wholly outside the new square), the new server sends its view again,
// identical tiles are not reported twice, and stale tiles go only once fresh ones cover their
// ground: the set ends as the new view's, without a hole on the way.
TEST_F(ViewTilesTest, AcrossARestartTheHorizonStaysAndEndsAsTheNewServersView) {
  watch(128);
  const std::set<LodKey> first = expected_tiles(kStart, 128);
  ASSERT_TRUE(eventually([&] { return holds(first); }, kTileWait));
  const uint64_t loaded_before = session_->stats().tiles_loaded;

  server_->shutdown(100ms);
  server_.reset();
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(horizon_.mutex);
    return !horizon_.errors.empty();
  }));
  EXPECT_TRUE(holds(first));  // the horizon stays while the server is away
  const Position moved{kStart.x + 40 * 64, kStart.z};
  {
    std::lock_guard lock(horizon_.mutex);
    horizon_.no_holes.emplace(around(moved, 128), around(moved, kViewRadius));
  }
  session_->set_position(moved);
  const std::set<LodKey> second = expected_tiles(moved, 128);
  size_t kept = 0;
  for (const LodKey& key : first) kept += second.contains(key);
  ASSERT_GT(kept, 0u);
  ASSERT_LT(kept, second.size());

  start_server();
  ASSERT_TRUE(eventually([&] { return holds(second); }, kTileWait));
  EXPECT_TRUE(horizon_.all_library_bytes());
  const ViewStats stats = session_->stats();
  EXPECT_GE(stats.reconnects, 1u);
  EXPECT_EQ(stats.tile_duplicates_ignored, kept);
  EXPECT_EQ(stats.tiles_loaded, loaded_before + second.size() - kept);
  std::lock_guard lock(horizon_.mutex);
  EXPECT_EQ(horizon_.holes, 0u);
  EXPECT_EQ(horizon_.unloads_not_held, 0u);
  EXPECT_EQ(horizon_.loads - horizon_.unloads, second.size());
}

// A polled session gets the same tiles as events, weighed in the queue's bound: with a 32 KiB
// queue left unpolled (and a one-chunk view, so that tiles fill it) the session holds the server
// back, and draining it brings every tile once.
TEST_F(ViewTilesTest, ThePolledPathDeliversTheSameTilesWithinItsBound) {
  constexpr size_t kBound = 32 << 10;
  ViewOptions view;
  view.view_radius = 0;
  view.lod_radius = 1024;
  view.event_queue_bytes = kBound;
  Result<std::unique_ptr<ViewSession>> started = ViewSession::start_polled(*client_, kStart, view);
  ASSERT_TRUE(started) << started.status().to_string();
  session_ = std::move(*started);
  ASSERT_TRUE(eventually([&] { return session_->stats().queued_bytes >= kBound; }));
  std::this_thread::sleep_for(200ms);  // time to overrun the bound, were it not kept
  // Past the bound by one server message at most: a tile (7 to 14 KB) or the chunk. 415 tiles
  // are 3.4 MB.
  EXPECT_LE(session_->stats().queued_bytes, kBound + (256u << 10));
  const std::set<LodKey> expected = expected_tiles(kStart, 1024, 0);
  EXPECT_LT(session_->stats().queued_events, expected.size());

  std::set<LodKey> held;
  size_t loads = 0, chunks = 0;
  ASSERT_TRUE(eventually([&] {
    for (const ViewEvent& e : session_->poll(16)) {
      if (e.kind == ViewEvent::Kind::load) ++chunks;
      if (e.kind == ViewEvent::Kind::tile_unload) held.erase(e.tile_key);
      if (e.kind != ViewEvent::Kind::tile) continue;
      ++loads;
      EXPECT_TRUE(e.tile && e.tile->key() == e.tile_key);
      EXPECT_GE(e.queued_bytes(), e.tile->encoded_bytes());
      EXPECT_EQ(canonical_bytes(e.tile->message()), library_bytes(e.tile_key));
      held.insert(e.tile_key);
    }
    return held == expected && chunks == 1;
  }));
  EXPECT_EQ(loads, expected.size());
  EXPECT_EQ(session_->stats().tiles_loaded, expected.size());
}

bool shows(const LodTile& tile, uint64_t structure) {
  for (const Structure& s : tile.structures()) {
    if (s.id == structure) return true;
  }
  return false;
}

// A structure removed by an edit: the server sends again the tiles that showed it, and the
// session replaces them (on_tile, tiles_replaced), which no longer show it; the other tiles stay.
TEST_F(ViewTilesTest, AnEditRemovingAStructureReplacesTheTilesThatShowedIt) {
  watch(64);
  const std::set<LodKey> expected = expected_tiles(kStart, 64);
  ASSERT_TRUE(eventually([&] { return holds(expected); }, kTileWait));
  std::optional<Structure> target;
  std::set<LodKey> showing;
  {
    std::lock_guard lock(horizon_.mutex);
    for (const auto& [key, tile] : horizon_.tiles) {
      if (!target && key.level >= 1 && !tile.structures().empty()) target = tile.structures().front();
    }
    ASSERT_TRUE(target) << "no structure within 64 chunks of the player";
    for (const auto& [key, tile] : horizon_.tiles) {
      if (shows(tile, target->id)) showing.insert(key);
    }
  }
  const uint64_t loads_before = session_->stats().tiles_loaded;
  EditBatch removal;
  removal.remove_structure(chunk_at(static_cast<double>(target->x), static_cast<double>(target->z), 64), target->id);
  Result<EditResult> done = client_->edit(removal);
  ASSERT_TRUE(done) << done.status().to_string();

  ASSERT_TRUE(eventually([&] { return session_->stats().tiles_replaced == showing.size(); }));
  EXPECT_EQ(session_->stats().tiles_loaded, loads_before + showing.size());
  EXPECT_TRUE(holds(expected));
  std::lock_guard lock(horizon_.mutex);
  for (const auto& [key, tile] : horizon_.tiles) EXPECT_FALSE(shows(tile, target->id)) << key.level;
  EXPECT_EQ(horizon_.loads, expected.size() + showing.size());
}

}  // namespace
}  // namespace chunkforge::client
