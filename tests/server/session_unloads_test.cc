// Unloads through a real Session (SessionUpdate.accept_unload_batches): an in-process
// WorldServer on a loopback port and the generated stub. A client that accepts unload batches
// gets a jump's unloads, chunks or LOD tiles, in a few events, each key once and before any
// load; one that does not gets one `unload` / `lod_unload` per key, as before.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "chunkforge/lod.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "support/lod_expected.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

using Session = grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>;
using Chunk = std::pair<int64_t, int64_t>;

constexpr int64_t kRadius = 16;         // the largest view: 1,089 chunks
constexpr double kFar = 64.0 * 100000;  // a jump of 100,000 chunks

class SessionUnloadsTest : public testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";  // no side port: the default, 8080, may be taken by another test
    options.threads = 2;
    options.cache_mb = 64;
    options.limits.max_radius = kRadius;
    server_ = std::make_unique<WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    stub_ = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override { server_->shutdown(std::chrono::seconds(2)); }

  std::unique_ptr<WorldServer> server_;
  std::unique_ptr<v1::WorldService::Stub> stub_;
};

// The chunks of the radius-16 view around chunk (0, 0).
std::set<Chunk> first_view() {
  std::set<Chunk> view;
  for (int64_t z = -kRadius; z <= kRadius; ++z) {
    for (int64_t x = -kRadius; x <= kRadius; ++x) view.insert({x, z});
  }
  return view;
}

// What a client saw of a jump: the chunks unloaded (each once), in how many events, and whether
// any unload came after a load.
struct Unloads {
  std::set<Chunk> chunks;
  int events = 0, batches = 0, loads = 0;
  bool after_a_load = false;

  void take(const v1::SessionEvent& event) {
    std::vector<Chunk> keys;
    if (event.has_unload()) keys.push_back({event.unload().x(), event.unload().z()});
    const v1::ChunkKeys& batch = event.unloads();
    for (int k = 0; k + 1 < batch.offsets_size(); k += 2) {
      keys.push_back({batch.origin().x() + batch.offsets(k), batch.origin().z() + batch.offsets(k + 1)});
    }
    events += keys.empty() ? 0 : 1;
    batches += event.has_unloads() ? 1 : 0;
    after_a_load = after_a_load || (!keys.empty() && loads > 0);
    for (const Chunk& key : keys) EXPECT_TRUE(chunks.insert(key).second) << "unloaded twice";
    loads += event.has_load() || event.has_loads() ? 1 : 0;
  }
};

// A session that says it holds the whole radius-16 view (so nothing is generated), then jumps
// far with view radius 0: every chunk of the view is owed an unload.
Unloads jump(v1::WorldService::Stub& stub, bool batches) {
  grpc::ClientContext context;
  std::unique_ptr<Session> session = stub.Session(&context);
  v1::SessionUpdate update;
  update.set_view_radius(kRadius);
  update.set_accept_unload_batches(batches);
  for (const auto& [x, z] : first_view()) {
    v1::ChunkCoord* held = update.add_held();
    held->set_x(x);
    held->set_z(z);
  }
  EXPECT_TRUE(session->Write(update));
  v1::SessionUpdate far;
  far.set_x(kFar);
  far.set_view_radius(0);
  EXPECT_TRUE(session->Write(far));
  session->WritesDone();
  Unloads seen;
  v1::SessionEvent event;
  while (session->Read(&event)) seen.take(event);
  EXPECT_TRUE(session->Finish().ok());
  EXPECT_EQ(seen.loads, 1) << "the far chunk";
  return seen;
}

TEST_F(SessionUnloadsTest, AJumpsUnloadsComeInAFewEventsToAClientThatAcceptsBatches) {
  const Unloads seen = jump(*stub_, /*batches=*/true);
  EXPECT_EQ(seen.chunks, first_view());
  EXPECT_EQ(seen.events, 3) << "1,089 keys, 512 an event";
  EXPECT_EQ(seen.batches, 3);
  EXPECT_FALSE(seen.after_a_load) << "unloads before loads";
}

TEST_F(SessionUnloadsTest, AClientThatDoesNotAcceptBatchesGetsOneUnloadPerChunk) {
  const Unloads seen = jump(*stub_, /*batches=*/false);
  EXPECT_EQ(seen.chunks, first_view());
  EXPECT_EQ(seen.events, 1089);
  EXPECT_EQ(seen.batches, 0);
  EXPECT_FALSE(seen.after_a_load);
}

// A client that makes its LOD tiles (keys, nothing made by the server) teleporting: what came
// after the teleport, by kind of event, and the tiles it held.
struct Teleport {
  std::set<LodKey> held;
  int events = 0, unload_events = 0, unloads = 0;
  int last_load_at = -1, first_unload_at = -1;

  void take(const v1::SessionEvent& event) {
    std::vector<LodKey> loaded = test::pristine_tile_keys(event.lod_pristine());
    std::vector<LodKey> unloaded = test::tile_keys_of(event.lod_unloads());
    if (event.has_lod_unload()) {
      const v1::LodTileKey& k = event.lod_unload();
      unloaded.push_back({static_cast<int>(k.level()), k.x(), k.z()});
    }
    EXPECT_FALSE(event.has_lod_tile()) << "nobody edited: every tile a key";
    for (const LodKey& key : loaded) held.insert(key);
    for (const LodKey& key : unloaded) EXPECT_EQ(held.erase(key), 1u) << "an unload of a tile not held";
    if (!loaded.empty()) last_load_at = events;
    if (!unloaded.empty() && first_unload_at < 0) first_unload_at = events;
    unload_events += unloaded.empty() ? 0 : 1;
    unloads += static_cast<int>(unloaded.size());
    ++events;
  }
};

v1::SessionUpdate tile_maker(double x, bool first, bool batches) {
  v1::SessionUpdate update;
  update.set_x(x);
  update.set_view_radius(0);
  update.set_lod_radius(1024);
  update.set_accept_unload_batches(batches);
  if (first) {
    v1::LocalGeneration& local = *update.mutable_local_generation();
    local.add_generator_versions(default_world().generator_version());
    local.set_fingerprint(default_world().fingerprint());
    local.set_generates_tiles(true);
  }
  return update;
}

std::set<LodKey> tiles_at(double x) {
  return test::expected_session_tiles(default_world().chunk_size(), x, 0, 0, 1024);
}

// The events of one teleport of a client that makes its tiles, once it holds its first view.
Teleport teleport(v1::WorldService::Stub& stub, bool batches) {
  grpc::ClientContext context;
  std::unique_ptr<Session> session = stub.Session(&context);
  EXPECT_TRUE(session->Write(tile_maker(0, true, batches)));
  Teleport seen;
  v1::SessionEvent event;
  while (seen.held != tiles_at(0) && session->Read(&event)) seen.take(event);
  EXPECT_EQ(seen.held, tiles_at(0));
  Teleport after;
  after.held = seen.held;
  EXPECT_TRUE(session->Write(tile_maker(kFar, false, batches)));
  session->WritesDone();
  while (session->Read(&event)) after.take(event);
  EXPECT_TRUE(session->Finish().ok());
  EXPECT_EQ(after.held, tiles_at(kFar));
  EXPECT_EQ(after.unloads, static_cast<int>(tiles_at(0).size())) << "no tile is in both views";
  EXPECT_GT(after.first_unload_at, after.last_load_at) << "the horizon never has a hole";
  return after;
}

TEST_F(SessionUnloadsTest, ATeleportingClientThatMakesItsTilesGetsItsTileUnloadsInOneEvent) {
  const Teleport after = teleport(*stub_, /*batches=*/true);
  std::printf("a teleport: %d events, %d of them unloads (%d keys)\n", after.events, after.unload_events,
              after.unloads);
  EXPECT_GT(after.unloads, 400);
  EXPECT_EQ(after.unload_events, 1) << after.unloads << " keys, 512 an event";
  // The far chunk's key, the new view's keys (128 an event) and the unloads: a handful.
  EXPECT_LE(after.events, 8);
}

TEST_F(SessionUnloadsTest, AClientThatMakesItsTilesWithoutBatchesGetsOneTileUnloadPerKey) {
  const Teleport after = teleport(*stub_, /*batches=*/false);
  std::printf("a teleport: %d events, %d of them unloads (%d keys)\n", after.events, after.unload_events,
              after.unloads);
  EXPECT_EQ(after.unload_events, after.unloads);
  EXPECT_GT(after.events, 400);
}

}  // namespace
}  // namespace chunkforge::server
