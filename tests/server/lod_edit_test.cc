// LOD tiles and edits (docs/lod.md, "Sessions"): a structure removed by an edit is gone from
// the tiles that showed it, in the sessions that hold them (sent again, replacing their copies)
// and for every session after, on a real SQLite file and a real PostgreSQL cluster. A client
// that makes tiles itself gets those tiles as bytes and the others as keys.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>

#include "chunkforge/coord.h"
#include "chunkforge/lod.h"
#include "chunkforge/world_extent.h"
#include "edit_server_fixture.h"
#include "support/lod_expected.h"

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
  // A session at the player; one that `makes_tiles` asks to generate locally, tiles too.
  std::unique_ptr<Session> open(grpc::ClientContext& context, bool makes_tiles = false) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    auto session = stub_->Session(&context);
    v1::SessionUpdate update;
    update.set_x(kX);
    update.set_z(kZ);
    update.set_lod_radius(kLodRadius);
    if (makes_tiles) {
      v1::LocalGeneration& local = *update.mutable_local_generation();
      local.add_generator_versions(default_world().generator_version());
      local.set_fingerprint(default_world().fingerprint());
      local.set_generates_tiles(true);
    }
    EXPECT_TRUE(session->Write(update));
    return session;
  }

  // Reads until the session holds every tile of its view (view radius 0: all but its own
  // chunk's). A tile sent as a key is made here, as a client that makes tiles would; sent_
  // counts those sent as bytes.
  void read_view(Session& session, std::map<LodKey, v1::LodTile>& tiles) {
    const auto size = static_cast<uint32_t>(default_world().chunk_size());
    const LodKey own{0, chunk_coordinate(kX, size), chunk_coordinate(kZ, size)};
    size_t want = 0;
    for (const LodKey& k : lod_view(size, kX, kZ, kLodRadius)) want += !(k == own);
    sent_ = 0;
    v1::SessionEvent event;
    while (tiles.size() < want && session.Read(&event)) {
      if (event.has_local_generation()) {
        EXPECT_TRUE(event.local_generation().accepted());
      }
      if (event.has_lod_tile()) tiles[key_of(event.lod_tile().key())] = event.lod_tile();
      sent_ += event.has_lod_tile() ? 1 : 0;
      for (const LodKey& k : test::pristine_tile_keys(event.lod_pristine())) tiles[k] = lod_tile(default_world(), k);
    }
    ASSERT_EQ(tiles.size(), want);
  }

  // Removes a structure the view's tiles show (from a tile of level 1 or coarser), through an
  // edit; `showing` gets the tiles that show it.
  void remove_a_shown_structure(const std::map<LodKey, v1::LodTile>& tiles, v1::StructureInstance& structure,
                                std::set<LodKey>& showing) {
    const v1::StructureInstance* target = nullptr;
    for (const auto& [key, tile] : tiles) {
      if (key.level >= 1 && tile.structures_size() > 0) target = &tile.structures(0);
    }
    ASSERT_NE(target, nullptr) << "no structure within 64 chunks of the player";
    structure = *target;
    for (const auto& [key, tile] : tiles) {
      if (shows(tile, structure.id())) showing.insert(key);
    }
    v1::EditRequest request;
    const int64_t size = default_world().chunk_size();
    op_at(request, floor_div(structure.x(), size), floor_div(structure.z(), size))
        ->set_remove_structure(structure.id());
    ASSERT_TRUE(edit(request).ok());
  }

  // Reads until every tile of `showing` came again as bytes, into `tiles`: each without the
  // removed structure, no other tile, and no keys (the view is whole).
  static void read_replacements(Session& session, const std::set<LodKey>& showing, uint64_t removed,
                                std::map<LodKey, v1::LodTile>& tiles) {
    std::set<LodKey> replaced;
    v1::SessionEvent event;
    while (replaced != showing && session.Read(&event)) {
      EXPECT_FALSE(event.has_lod_pristine()) << "the view is whole: only the edited tiles come";
      if (!event.has_lod_tile()) continue;
      const LodKey key = key_of(event.lod_tile().key());
      EXPECT_TRUE(showing.count(key)) << "only the tiles showing the structure are sent again";
      EXPECT_FALSE(shows(event.lod_tile(), removed));
      replaced.insert(key);
      tiles[key] = event.lod_tile();
    }
    EXPECT_EQ(replaced, showing);
  }

  static void finish(Session& session) {
    session.WritesDone();
    v1::SessionEvent event;
    while (session.Read(&event)) {
    }
    EXPECT_TRUE(session.Finish().ok());
  }

  size_t sent_ = 0;  // tiles the last read_view got as bytes
};

TEST_P(LodEditTest, ARemovedStructureLeavesTheTilesThatShowedIt) {
  grpc::ClientContext context;
  auto session = open(context);
  std::map<LodKey, v1::LodTile> tiles;
  read_view(*session, tiles);
  v1::StructureInstance structure;
  std::set<LodKey> showing;
  ASSERT_NO_FATAL_FAILURE(remove_a_shown_structure(tiles, structure, showing));

  read_replacements(*session, showing, structure.id(), tiles);
  finish(*session);

  grpc::ClientContext later_context;  // a session opened after the edit
  auto later = open(later_context);
  std::map<LodKey, v1::LodTile> later_tiles;
  read_view(*later, later_tiles);
  for (const auto& [key, tile] : later_tiles) {
    EXPECT_FALSE(shows(tile, structure.id())) << key.level << " " << key.x << " " << key.z;
    EXPECT_EQ(tile.SerializeAsString(), tiles[key].SerializeAsString()) << "the same tiles either way";
  }
  finish(*later);
}

// A client that makes tiles itself (LocalGeneration.generates_tiles) gets every tile of a fresh
// view as a key, then, once a structure is removed, the tiles that showed it as bytes (only
// those); a later such session gets those as bytes and the rest as keys, and what it makes of
// them is, byte for byte, what a session that makes nothing gets.
TEST_P(LodEditTest, AClientThatMakesTilesGetsOnlyTheEditedOnesAsBytes) {
  grpc::ClientContext context;
  auto session = open(context, /*makes_tiles=*/true);
  std::map<LodKey, v1::LodTile> tiles;
  read_view(*session, tiles);
  EXPECT_EQ(sent_, 0u) << "no edit yet: every tile a key";
  v1::StructureInstance structure;
  std::set<LodKey> showing;
  ASSERT_NO_FATAL_FAILURE(remove_a_shown_structure(tiles, structure, showing));

  read_replacements(*session, showing, structure.id(), tiles);
  finish(*session);

  grpc::ClientContext made_context, sent_context;
  auto made = open(made_context, /*makes_tiles=*/true);
  std::map<LodKey, v1::LodTile> made_tiles, sent_tiles;
  read_view(*made, made_tiles);
  EXPECT_EQ(sent_, showing.size()) << "the tiles showing the removed structure, and only those, as bytes";
  auto sent = open(sent_context);
  read_view(*sent, sent_tiles);
  ASSERT_EQ(made_tiles.size(), sent_tiles.size());
  for (const auto& [key, tile] : sent_tiles) {
    EXPECT_EQ(made_tiles[key].SerializeAsString(), tile.SerializeAsString())
        << key.level << " " << key.x << " " << key.z;
  }
  finish(*made);
  finish(*sent);
}

// Every 32nd version of a chunk is stored as a snapshot: a reset restating the chunk. One that
// stands for a change removing no structure (here 32 added objects) leaves the chunk's
// structures as they were, so no tile is made or sent again for it: after it, a structure's
// removal elsewhere sends exactly the tiles that showed that structure. (Every snapshot used to
// make the tiles over its chunk new, in every session holding them.)
TEST_P(LodEditTest, ASnapshotThatKeepsTheStructuresMakesNoTileNew) {
  grpc::ClientContext context;
  auto session = open(context);
  std::map<LodKey, v1::LodTile> tiles;
  read_view(*session, tiles);
  const int64_t size = default_world().chunk_size();
  const int64_t cx = chunk_coordinate(kX, static_cast<uint32_t>(size)) + 1;
  const int64_t cz = chunk_coordinate(kZ, static_cast<uint32_t>(size));
  for (int k = 0; k < 32; ++k) {
    v1::EditRequest request;
    v1::NewObject* added = op_at(request, cx, cz)->mutable_add_object();
    added->set_x(static_cast<float>(k));
    added->set_z(static_cast<float>(k));
    ASSERT_TRUE(edit(request).ok()) << k;
  }
  v1::StructureInstance structure;
  std::set<LodKey> showing;
  ASSERT_NO_FATAL_FAILURE(remove_a_shown_structure(tiles, structure, showing));
  ASSERT_FALSE(showing.count(LodKey{0, cx, cz})) << "pick a player whose nearest tile shows no structure";
  read_replacements(*session, showing, structure.id(), tiles);
  finish(*session);
}

INSTANTIATE_TEST_SUITE_P(Stores, LodEditTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
