// The SDK's LOD tile view (chunkforge/client/lod_tile.h) over tiles the library builds
// (chunkforge::lod_tile): every accessor gives the message's values, sample_under finds the
// sample whose square holds a point, a ragged message shows nothing rather than reading past
// an array; and TileCover (client_sdk/src/tile_cover.h) judged against the views lod_view gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "chunkforge/client/lod_tile.h"
#include "chunkforge/encode.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/lod.pb.h"
#include "chunkforge/world.h"
#include "tile_cover.h"

namespace chunkforge::client {
namespace {

LodTile sdk_tile(const LodKey& key) {
  const chunkforge::LodKey lib_key{static_cast<int>(key.level), key.x, key.z};
  auto message = std::make_shared<v1::LodTile>(chunkforge::lod_tile(default_world(), lib_key));
  return LodTile(std::move(message), WorldInfo(describe_world(default_world())));
}

void expect_accessors_equal_message(const LodTile& tile) {
  const v1::LodTile& m = tile.message();
  const v1::TerrainGrid& grid = m.terrain();
  ASSERT_EQ(tile.samples(), grid.size());
  ASSERT_EQ(tile.samples(), 32u);
  EXPECT_EQ(tile.step(), grid.step());
  for (uint32_t j = 0; j < tile.samples(); ++j) {
    for (uint32_t i = 0; i < tile.samples(); ++i) {
      const int k = static_cast<int>(j * grid.size() + i);
      ASSERT_EQ(tile.height(i, j), grid.elevation(k)) << i << ',' << j;
      ASSERT_EQ(tile.biome(i, j), grid.biome(k));
      ASSERT_EQ(tile.material(i, j), grid.material(k));
    }
  }
  ASSERT_EQ(static_cast<int>(tile.layers().size()), m.resources_size());
  ASSERT_GT(m.resources_size(), 0);
  EXPECT_EQ(tile.cells(), m.resources(0).cells());
  for (const v1::LodLayerDensity& layer : m.resources()) {
    for (uint32_t cj = 0; cj < tile.cells(); ++cj) {
      for (uint32_t ci = 0; ci < tile.cells(); ++ci) {
        ASSERT_EQ(tile.expected_objects(layer.layer(), ci, cj), layer.expected_objects(cj * layer.cells() + ci));
      }
    }
  }
  EXPECT_EQ(tile.structures_planned(), m.structures_planned());
  const std::vector<Structure> structures = tile.structures();
  ASSERT_EQ(static_cast<int>(structures.size()), m.structures_size());
  for (size_t k = 0; k < structures.size(); ++k) {
    const v1::StructureInstance& s = m.structures(static_cast<int>(k));
    EXPECT_EQ(structures[k].id, s.id());
    EXPECT_EQ(structures[k].type, s.type());
    EXPECT_EQ(structures[k].x, s.x());
    EXPECT_EQ(structures[k].z, s.z());
    EXPECT_EQ(structures[k].size_x, s.size_x());
    EXPECT_FALSE(structures[k].type_name.empty());
  }
  EXPECT_EQ(tile.encoded_bytes(), canonical_bytes(m).size());
  EXPECT_EQ(tile.chunk_size(), m.chunk_size());
  EXPECT_EQ(tile.world_fingerprint(), m.world_fingerprint());
}

TEST(SdkLodTileTest, AccessorsGiveTheMessagesValues) {
  for (const LodKey key : {LodKey{0, 3, -2}, LodKey{4, 1, -3}, LodKey{7, -5, 2}, LodKey{10, 0, -1}}) {
    SCOPED_TRACE(testing::Message() << "level " << key.level << " (" << key.x << ", " << key.z << ")");
    const LodTile tile = sdk_tile(key);
    EXPECT_EQ(tile.key(), key);
    const int64_t side = key.chunks() * 64;
    EXPECT_EQ(tile.min_x(), key.x * side);
    EXPECT_EQ(tile.min_z(), key.z * side);
    EXPECT_EQ(tile.max_x(), (key.x + 1) * side);
    EXPECT_EQ(tile.max_z(), (key.z + 1) * side);
    EXPECT_EQ(int64_t{tile.step()} * tile.samples(), side);
    EXPECT_EQ(tile.sample_x(1) - tile.sample_x(0), tile.step());
    expect_accessors_equal_message(tile);
  }
  // Level 4 plans structures; this tile has some (docs/lod.md's table), so they were compared.
  EXPECT_TRUE(sdk_tile({4, 1, -3}).structures_planned());
  EXPECT_FALSE(sdk_tile({4, 1, -3}).structures().empty());
  EXPECT_FALSE(sdk_tile({7, -5, 2}).structures_planned());
}

TEST(SdkLodTileTest, UnknownLayersAndCellsGiveZero) {
  const LodTile tile = sdk_tile({2, -1, 1});
  const uint32_t past = tile.layers().back() + 1;
  EXPECT_EQ(tile.expected_objects(past, 0, 0), 0.0f);
  EXPECT_EQ(tile.expected_objects(tile.layers().front(), tile.cells(), 0), 0.0f);
  EXPECT_EQ(tile.expected_objects(tile.layers().front(), 0, tile.cells()), 0.0f);
}

// The sample under a point is the one whose step x step square holds it, and its height is
// the terrain's own there (the lattice's contract, docs/lod.md "Bit for bit").
TEST(SdkLodTileTest, SampleUnderAPointIsTheOneWhoseSquareHoldsIt) {
  std::mt19937_64 random(28);
  for (const LodKey key : {LodKey{0, -1, -1}, LodKey{3, 2, -4}, LodKey{9, -1, 0}}) {
    const LodTile tile = sdk_tile(key);
    std::uniform_real_distribution<double> x(static_cast<double>(tile.min_x()), static_cast<double>(tile.max_x()));
    std::uniform_real_distribution<double> z(static_cast<double>(tile.min_z()), static_cast<double>(tile.max_z()));
    for (int k = 0; k < 200; ++k) {
      const double px = x(random), pz = z(random);
      const std::optional<LodSample> s = tile.sample_under(px, pz);
      ASSERT_TRUE(s) << px << ", " << pz;
      EXPECT_LE(tile.sample_x(s->i), px);
      EXPECT_LT(px, tile.sample_x(s->i) + tile.step());
      EXPECT_LE(tile.sample_z(s->j), pz);
      EXPECT_LT(pz, tile.sample_z(s->j) + tile.step());
    }
    const double x0 = static_cast<double>(tile.min_x()), z0 = static_cast<double>(tile.min_z());
    EXPECT_EQ(tile.sample_under(x0, z0), (LodSample{0, 0}));
    EXPECT_EQ(tile.sample_under(static_cast<double>(tile.max_x()) - 0.5, static_cast<double>(tile.max_z()) - 0.5),
              (LodSample{31, 31}));
    EXPECT_FALSE(tile.sample_under(static_cast<double>(tile.max_x()), z0));
    EXPECT_FALSE(tile.sample_under(x0 - 0.25, z0));
    EXPECT_FALSE(tile.sample_under(x0, std::nan("")));
    const LodSample s = *tile.sample_under(x0 + 5.5 * tile.step(), z0 + 17.25 * tile.step());
    EXPECT_EQ(s, (LodSample{5, 17}));
    const TerrainPoint there = default_world().terrain().sample(Coord::from_double(tile.sample_x(s.i)),
                                                                Coord::from_double(tile.sample_z(s.j)));
    EXPECT_EQ(tile.height(s.i, s.j), static_cast<float>(there.elevation()));
    EXPECT_EQ(tile.material(s.i, s.j), there.material);
  }
}

TEST(SdkLodTileTest, RaggedArraysShowNoSamplesAndNoDensities) {
  v1::LodTile message = chunkforge::lod_tile(default_world(), {1, 0, 0});
  message.mutable_terrain()->mutable_biome()->RemoveLast();
  message.mutable_resources(1)->mutable_expected_objects()->RemoveLast();
  const LodTile tile(std::make_shared<v1::LodTile>(message), WorldInfo(describe_world(default_world())));
  EXPECT_EQ(tile.samples(), 0u);
  EXPECT_FALSE(tile.sample_under(static_cast<double>(tile.min_x()), static_cast<double>(tile.min_z())));
  EXPECT_EQ(tile.cells(), 0u);
  EXPECT_TRUE(tile.layers().empty());
  EXPECT_EQ(tile.expected_objects(message.resources(0).layer(), 0, 0), 0.0f);
}

std::vector<LodKey> view_keys(double x, double z, int64_t radius) {
  std::vector<LodKey> out;
  for (const chunkforge::LodKey& k : lod_view(64, x, z, radius))
    out.push_back({static_cast<uint32_t>(k.level), k.x, k.z});
  return out;
}

ChunkSquare intersection(const ChunkSquare& a, const ChunkSquare& b) {
  return {std::max(a.x0, b.x0), std::max(a.z0, b.z0), std::min(a.x1, b.x1), std::min(a.z1, b.z1)};
}

ChunkSquare around(int64_t cx, int64_t cz, int64_t r) { return {cx - r, cz - r, cx + r, cz + r}; }

// A session's stale tiles from a view at one place, the fresh ones a view at another: every
// stale tile is covered once the whole new view came, and a stale tile over the ground of a
// fresh tile still missing is not.
TEST(TileCoverTest, AWholeViewCoversEveryOlderTileAndAMissingTileUncoversItsGround) {
  const std::vector<LodKey> before = view_keys(5000, -7000, 256);
  const std::vector<LodKey> after = view_keys(5000 + 40 * 64, -7000 - 13 * 64, 256);
  const int64_t cx = chunk_at(5000 + 40 * 64, 0, 64).x, cz = chunk_at(0, -7000 - 13 * 64, 64).z;
  const ChunkSquare needed = around(cx, cz, 256), excluded = around(cx, cz, 4);
  TileCover cover;
  for (const LodKey& k : after) cover.add(k);
  for (const LodKey& k : before) EXPECT_TRUE(cover.covers(k, needed, excluded)) << k.level << ' ' << k.x << ' ' << k.z;

  size_t uncovered = 0;
  for (const LodKey& missing : {after.front(), after[after.size() / 2], after.back()}) {
    cover.remove(missing);
    const ChunkSquare hole = square_of(missing);
    for (const LodKey& k : before) {
      // A stale tile over needed ground of the hole stays.
      const ChunkSquare under = intersection(intersection(square_of(k), hole), needed);
      const bool over_hole = !under.empty() && !excluded.contains(under);
      EXPECT_EQ(cover.covers(k, needed, excluded), !over_hole) << k.level << ' ' << k.x << ' ' << k.z;
      uncovered += over_hole;
    }
    cover.add(missing);
  }
  EXPECT_GT(uncovered, 0u);
}

TEST(TileCoverTest, GroundNobodyNeedsIsCoveredAndRemovingUndoesAdding) {
  TileCover cover;
  const LodKey coarse{6, -1, 0};
  EXPECT_FALSE(cover.covers(coarse, around(0, 0, 100), around(0, 0, 2)));
  EXPECT_TRUE(cover.covers(coarse, ChunkSquare{}, around(0, 0, 2)));         // lod radius 0
  EXPECT_TRUE(cover.covers(coarse, around(0, 0, 100), around(-64, 0, 64)));  // inside the chunk view
  EXPECT_TRUE(cover.covers(coarse, around(200, 0, 10), around(0, 0, 2)));    // outside the square
  cover.add({8, -1, 0});                                                     // an ancestor covers it whole
  EXPECT_TRUE(cover.covers(coarse, around(0, 0, 100), around(0, 0, 2)));
  cover.remove({8, -1, 0});
  EXPECT_EQ(cover.size(), 0u);
  for (int64_t dz = 0; dz < 2; ++dz) {
    for (int64_t dx = 0; dx < 2; ++dx) cover.add({5, -2 + dx, dz});  // its four children
  }
  EXPECT_TRUE(cover.covers(coarse, around(0, 0, 100), around(0, 0, 2)));
  cover.remove({5, -1, 1});
  EXPECT_FALSE(cover.covers(coarse, around(0, 0, 100), around(0, 0, 2)));
  // The missing child's ground lies outside the needed square: covered again.
  EXPECT_TRUE(cover.covers(coarse, ChunkSquare{-64, 0, -1, 31}, around(0, 0, 2)));
}

}  // namespace
}  // namespace chunkforge::client
