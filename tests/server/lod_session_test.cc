// LOD tiles through a real Session (docs/lod.md, "Sessions"): an in-process WorldServer on a
// loopback port and the generated stub. The tiles a session gets are exactly its LOD view less
// its chunk view, byte-identical to the library's; moving replaces them, unloads come after the
// new tiles, and sessions share the tiles they both need.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "chunkforge/lod.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "support/lod_expected.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

using Session = grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>;

LodKey key_of(const v1::LodTileKey& k) { return {static_cast<int>(k.level()), k.x(), k.z()}; }

// What a client holding tiles sees: the tiles by key, and when loads and unloads came.
struct HeldTiles {
  std::map<LodKey, std::string> tiles;
  int chunk_loads = 0, tile_loads = 0, unloads = 0;
  int last_load_at = -1, first_unload_at = -1, events = 0;

  void take(const v1::SessionEvent& event) {
    if (event.has_load()) ++chunk_loads;
    if (event.has_lod_tile()) {
      tiles[key_of(event.lod_tile().key())] = event.lod_tile().SerializeAsString();
      ++tile_loads;
      last_load_at = events;
    }
    if (event.has_lod_unload()) {
      EXPECT_EQ(tiles.erase(key_of(event.lod_unload())), 1u) << "an unload of a tile not held";
      ++unloads;
      if (first_unload_at < 0) first_unload_at = events;
    }
    ++events;
  }
  std::set<LodKey> keys() const {
    std::set<LodKey> out;
    for (const auto& [key, bytes] : tiles) out.insert(key);
    return out;
  }
};

class LodSessionTest : public testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";  // no side port: the default, 8080, may be taken by another test
    options.threads = 2;
    options.cache_mb = 64;
    options.limits.max_radius = 8;
    server_ = std::make_unique<WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    auto channel =
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials());
    stub_ = v1::WorldService::NewStub(channel);
  }
  void TearDown() override { server_->shutdown(std::chrono::seconds(2)); }

  static v1::SessionUpdate update(double x, double z, uint32_t view_radius, uint32_t lod_radius,
                                  uint32_t finest_level = 0) {
    v1::SessionUpdate u;
    u.set_lod_finest_level(finest_level);
    u.set_x(x);
    u.set_z(z);
    u.set_view_radius(view_radius);
    u.set_lod_radius(lod_radius);
    return u;
  }

  // lod_view less the tiles wholly inside the chunk view, as the server promises.
  static std::set<LodKey> expected(double x, double z, int64_t view_radius, int64_t lod_radius, int finest_level = 0) {
    return test::expected_session_tiles(default_world().chunk_size(), x, z, view_radius, lod_radius, finest_level);
  }

  static void read_until_held(Session& session, HeldTiles& held, const std::set<LodKey>& want) {
    v1::SessionEvent event;
    while (held.keys() != want && session.Read(&event)) held.take(event);
  }

  std::unique_ptr<WorldServer> server_;
  std::unique_ptr<v1::WorldService::Stub> stub_;
};

TEST_F(LodSessionTest, ASessionGetsItsLodViewLessItsChunksByteIdenticalToTheLibrary) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  ASSERT_TRUE(session->Write(update(5000, -7000, 3, 1024)));
  session->WritesDone();
  HeldTiles held;
  v1::SessionEvent event;
  while (session->Read(&event)) held.take(event);
  ASSERT_TRUE(session->Finish().ok());

  EXPECT_EQ(held.chunk_loads, 49);
  const std::set<LodKey> want = expected(5000, -7000, 3, 1024);
  EXPECT_GT(want.size(), 300u);
  EXPECT_EQ(held.keys(), want);
  EXPECT_EQ(held.tile_loads, static_cast<int>(want.size())) << "each tile once";
  EXPECT_EQ(held.unloads, 0);
  for (const auto& [key, bytes] : held.tiles) {
    ASSERT_EQ(bytes, lod_tile_bytes(default_world(), key)) << key.level << " " << key.x << " " << key.z;
  }
}

TEST_F(LodSessionTest, MovingFarBringsTheNewTilesBeforeUnloadingTheOld) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  ASSERT_TRUE(session->Write(update(100, 100, 2, 64)));
  HeldTiles held;
  read_until_held(*session, held, expected(100, 100, 2, 64));
  ASSERT_EQ(held.keys(), expected(100, 100, 2, 64));
  ASSERT_EQ(held.unloads, 0);

  HeldTiles after = held;  // the same client, counting from the move on
  after.last_load_at = after.first_unload_at = -1;
  after.events = 0;
  ASSERT_TRUE(session->Write(update(640000, -320000, 2, 64)));  // 10,000 chunks east
  session->WritesDone();
  v1::SessionEvent event;
  while (session->Read(&event)) after.take(event);
  ASSERT_TRUE(session->Finish().ok());

  EXPECT_EQ(after.keys(), expected(640000, -320000, 2, 64));
  EXPECT_EQ(after.unloads, static_cast<int>(held.tiles.size())) << "no old tile is shared with the new view";
  EXPECT_GT(after.first_unload_at, after.last_load_at) << "the horizon never has a hole";
}

TEST_F(LodSessionTest, AStepTurnsOverOnlyTheTilesWhoseRingsMoved) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  ASSERT_TRUE(session->Write(update(32, 32, 3, 256)));
  HeldTiles held;
  read_until_held(*session, held, expected(32, 32, 3, 256));
  const int loads_before = held.tile_loads;
  ASSERT_TRUE(session->Write(update(32 + 64, 32, 3, 256)));  // one chunk east
  read_until_held(*session, held, expected(96, 32, 3, 256));
  ASSERT_EQ(held.keys(), expected(96, 32, 3, 256));
  std::set<LodKey> moved;
  for (const LodKey& k : expected(96, 32, 3, 256)) {
    if (!expected(32, 32, 3, 256).count(k)) moved.insert(k);
  }
  EXPECT_EQ(held.tile_loads - loads_before, static_cast<int>(moved.size())) << "only the tiles new to the view";
  EXPECT_LT(moved.size(), held.tiles.size() / 2);
  session->WritesDone();
  v1::SessionEvent event;
  while (session->Read(&event)) held.take(event);
  EXPECT_TRUE(session->Finish().ok());
  EXPECT_EQ(held.keys(), expected(96, 32, 3, 256)) << "the old ring's tiles unloaded";
}

TEST_F(LodSessionTest, LodRadiusZeroSendsNoTilesAndUnloadsHeldOnes) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  ASSERT_TRUE(session->Write(update(0, 0, 1, 0)));
  ASSERT_TRUE(session->Write(update(0, 0, 1, 32)));
  HeldTiles held;
  read_until_held(*session, held, expected(0, 0, 1, 32));
  ASSERT_FALSE(held.tiles.empty());
  ASSERT_TRUE(session->Write(update(0, 0, 1, 0)));
  session->WritesDone();
  v1::SessionEvent event;
  while (session->Read(&event)) held.take(event);
  EXPECT_TRUE(session->Finish().ok());
  EXPECT_TRUE(held.tiles.empty());
  EXPECT_EQ(held.chunk_loads, 9);
}

TEST_F(LodSessionTest, ACoarserFinestLevelSendsNoFinerTiles) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  ASSERT_TRUE(session->Write(update(777, 4321, 4, 1024, 5)));
  HeldTiles held;
  read_until_held(*session, held, expected(777, 4321, 4, 1024, 5));
  ASSERT_EQ(held.keys(), expected(777, 4321, 4, 1024, 5));
  for (const LodKey& key : held.keys()) EXPECT_GE(key.level, 5);
  EXPECT_LT(held.keys().size(), expected(777, 4321, 4, 1024).size());
  ASSERT_TRUE(session->Write(update(777, 4321, 4, 1024, 0)));  // back to the finest: the near tiles split
  session->WritesDone();
  v1::SessionEvent event;
  while (session->Read(&event)) held.take(event);
  EXPECT_TRUE(session->Finish().ok());
  EXPECT_EQ(held.keys(), expected(777, 4321, 4, 1024));
}

// Each bad update ends its own session with INVALID_ARGUMENT naming the field.
TEST_F(LodSessionTest, ALodRadiusOrLevelPastTheLimitIsRefusedNamingTheField) {
  const std::pair<v1::SessionUpdate, std::string> cases[] = {
      {update(0, 0, 1, 1025), "lod_radius: must be in [0, 1024] (got 1025)"},
      {update(0, 0, 1, 16, 25), "lod_finest_level: must be in [0, 24] (got 25)"},
  };
  for (const auto& [bad, message] : cases) {
    grpc::ClientContext context;
    auto session = stub_->Session(&context);
    ASSERT_TRUE(session->Write(bad));
    session->WritesDone();
    v1::SessionEvent event;
    int events = 0;
    while (session->Read(&event)) ++events;
    const grpc::Status status = session->Finish();
    EXPECT_EQ(events, 0);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(), message);
  }
}

TEST_F(LodSessionTest, SessionsShareTheTilesTheyBothNeed) {
  constexpr int kSessions = 3;
  grpc::ClientContext contexts[kSessions];
  std::unique_ptr<Session> sessions[kSessions];
  for (int i = 0; i < kSessions; ++i) {
    sessions[i] = stub_->Session(&contexts[i]);
    ASSERT_TRUE(sessions[i]->Write(update(-3000, 9000, 2, 512)));
    sessions[i]->WritesDone();
  }
  for (int i = 0; i < kSessions; ++i) {
    HeldTiles held;
    v1::SessionEvent event;
    while (sessions[i]->Read(&event)) held.take(event);
    ASSERT_TRUE(sessions[i]->Finish().ok());
    EXPECT_EQ(held.keys(), expected(-3000, 9000, 2, 512));
  }
  const std::string made =
      "chunkforge_lod_tiles_made_total " + std::to_string(expected(-3000, 9000, 2, 512).size()) + "\n";
  EXPECT_NE(server_->metrics_page().find(made), std::string::npos) << "each tile made once: " << made;
}

}  // namespace
}  // namespace chunkforge::server
