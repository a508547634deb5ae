// LOD tiles and edits (docs/lod.md, "Sessions"): a structure removed by an edit is gone from
// the tiles that showed it, in the sessions that hold them (sent again, replacing their copies)
// and for every session after, on a real SQLite file and a real PostgreSQL cluster.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>

#include "chunkforge/coord.h"
#include "chunkforge/lod.h"
#include "chunkforge/world_extent.h"
#include "edit_server_fixture.h"

namespace chunkforge::server {
namespace {

using Session = grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>;
constexpr double kX = 1000.5, kZ = -2000.5;  // the player
constexpr uint32_t kLodRadius = 64;

LodKey key_of(const v1::LodTileKey& k) { return {static_cast<int>(k.level()), k.x(), k.z()}; }

bool shows(const v1::LodTile& tile, uint64_t structure) {
  for (const v1::StructureInstance& s : tile.structures()) {
    if (s.id() == structure) return true;
  }
  return false;
}

class LodEditTest : public EditServerTest {
 protected:
  std::unique_ptr<Session> open(grpc::ClientContext& context) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    auto session = stub_->Session(&context);
    v1::SessionUpdate update;
    update.set_x(kX);
    update.set_z(kZ);
    update.set_lod_radius(kLodRadius);
    EXPECT_TRUE(session->Write(update));
    return session;
  }

  // Reads until the session holds every tile of its view (view radius 0: all but its own chunk's).
  static void read_view(Session& session, std::map<LodKey, v1::LodTile>& tiles) {
    const auto size = static_cast<uint32_t>(default_world().chunk_size());
    const LodKey own{0, chunk_coordinate(kX, size), chunk_coordinate(kZ, size)};
    size_t want = 0;
    for (const LodKey& k : lod_view(size, kX, kZ, kLodRadius)) want += !(k == own);
    v1::SessionEvent event;
    while (tiles.size() < want && session.Read(&event)) {
      if (event.has_lod_tile()) tiles[key_of(event.lod_tile().key())] = event.lod_tile();
    }
    ASSERT_EQ(tiles.size(), want);
  }
};

TEST_P(LodEditTest, ARemovedStructureLeavesTheTilesThatShowedIt) {
  grpc::ClientContext context;
  auto session = open(context);
  std::map<LodKey, v1::LodTile> tiles;
  read_view(*session, tiles);
  const v1::StructureInstance* target = nullptr;  // a structure the view's tiles show
  for (const auto& [key, tile] : tiles) {
    if (key.level >= 1 && tile.structures_size() > 0) target = &tile.structures(0);
  }
  ASSERT_NE(target, nullptr) << "no structure within 64 chunks of the player";
  const v1::StructureInstance structure = *target;
  std::set<LodKey> showing;
  for (const auto& [key, tile] : tiles) {
    if (shows(tile, structure.id())) showing.insert(key);
  }

  v1::EditRequest request;
  const int64_t size = default_world().chunk_size();
  op_at(request, floor_div(structure.x(), size), floor_div(structure.z(), size))->set_remove_structure(structure.id());
  ASSERT_TRUE(edit(request).ok());

  std::set<LodKey> replaced;
  v1::SessionEvent event;
  while (replaced != showing && session->Read(&event)) {
    if (!event.has_lod_tile()) continue;
    const LodKey key = key_of(event.lod_tile().key());
    EXPECT_TRUE(showing.count(key)) << "only the tiles showing the structure are sent again";
    EXPECT_FALSE(shows(event.lod_tile(), structure.id()));
    replaced.insert(key);
    tiles[key] = event.lod_tile();
  }
  EXPECT_EQ(replaced, showing);
  session->WritesDone();
  while (session->Read(&event)) {
  }
  EXPECT_TRUE(session->Finish().ok());

  grpc::ClientContext later_context;  // a session opened after the edit
  auto later = open(later_context);
  std::map<LodKey, v1::LodTile> later_tiles;
  read_view(*later, later_tiles);
  for (const auto& [key, tile] : later_tiles) {
    EXPECT_FALSE(shows(tile, structure.id())) << key.level << " " << key.x << " " << key.z;
    EXPECT_EQ(tile.SerializeAsString(), tiles[key].SerializeAsString()) << "the same tiles either way";
  }
  later->WritesDone();
  while (later->Read(&event)) {
  }
  EXPECT_TRUE(later->Finish().ok());
}

INSTANTIATE_TEST_SUITE_P(Stores, LodEditTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
