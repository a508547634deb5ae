#include "chunkforge/terrain.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>

#include "chunkforge/world.h"

namespace chunkforge {
namespace {

bool same_bits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

void expect_grid_matches_samples(const Terrain& terrain, int64_t cx, int64_t cz, int64_t step, int64_t chunk_size) {
  const TerrainGrid g = terrain.grid(cx, cz, step);
  ASSERT_EQ(g.size, chunk_size / step);
  for (int j = 0; j < g.size; ++j) {
    for (int i = 0; i < g.size; ++i) {
      const Coord x{cx * chunk_size + i * step, 0.0}, z{cz * chunk_size + j * step, 0.0};
      const TerrainPoint p = terrain.sample(x, z);
      const TerrainPoint q = g.at(i, j);
      ASSERT_TRUE(same_bits(p.elevation(), q.elevation()))
          << cx << "," << cz << " step " << step << " at " << i << "," << j;
      for (size_t f = 0; f < kTerrainFieldCount; ++f)
        ASSERT_TRUE(same_bits(p.values[f], q.values[f])) << kTerrainFields[f].name;
      ASSERT_TRUE(same_bits(p.slope(), q.slope())) << "step " << step << " at " << i << "," << j;
      ASSERT_EQ(p.biome, q.biome);
      ASSERT_EQ(p.material, q.material);
    }
  }
}

TEST(TerrainTest, GridEqualsPointSamplesAtEveryStep) {
  const World& world = default_world();
  for (int64_t step : {1, 2, 4, 8}) {
    expect_grid_matches_samples(world.terrain(), 0, 0, step, world.chunk_size());
    expect_grid_matches_samples(world.terrain(), -3, 7, step, world.chunk_size());
  }
  // Far away: 2^40 units.
  const int64_t far = (int64_t{1} << 40) / world.chunk_size();
  expect_grid_matches_samples(world.terrain(), far, -far, 4, world.chunk_size());
}

// A world with materials that have detail noise, every biome and material rule kind: the
// grid's classification (detail noises batched) gives every sample sample()'s answers.
TEST(TerrainTest, EverythingWorldGridEqualsPointSamples) {
  const WorldResult r = load_world_file(CHUNKFORGE_SOURCE_DIR "/tests/lib/worlds/golden_everything.json");
  ASSERT_TRUE(r.ok());
  const World& world = *r.world;
  for (int64_t step : {1, 2, 8}) {
    expect_grid_matches_samples(world.terrain(), 0, 0, step, world.chunk_size());
    expect_grid_matches_samples(world.terrain(), 5, -9, step, world.chunk_size());
  }
}

// A lattice off the chunk grid (a map tile's pixels): odd corners, steps that do not divide the
// chunk size, and steps wider than a chunk, each sample equal to sample() bit for bit.
TEST(TerrainTest, LatticeAnywhereEqualsPointSamples) {
  const Terrain& terrain = default_world().terrain();
  const int64_t far = int64_t{1} << 40;
  struct Case {
    int64_t x0, z0, step;
    int size;
  } cases[] = {{-37, 11, 1, 9}, {5, -1000, 3, 12}, {-4096, 777, 64, 10}, {far - 100000, -far, 256, 6}};
  for (const Case& c : cases) {
    const TerrainGrid g = terrain.lattice(Coord{c.x0, 0.0}, Coord{c.z0, 0.0}, c.step, c.size);
    ASSERT_EQ(g.size, c.size);
    for (int j = 0; j < g.size; ++j) {
      for (int i = 0; i < g.size; ++i) {
        const TerrainPoint p = terrain.sample(Coord{c.x0 + i * c.step, 0.0}, Coord{c.z0 + j * c.step, 0.0});
        const TerrainPoint q = g.at(i, j);
        ASSERT_TRUE(same_bits(p.elevation(), q.elevation())) << "step " << c.step << " at " << i << "," << j;
        for (size_t f = 0; f < kTerrainFieldCount; ++f)
          ASSERT_TRUE(same_bits(p.values[f], q.values[f])) << kTerrainFields[f].name;
        ASSERT_TRUE(same_bits(p.slope(), q.slope())) << "step " << c.step << " at " << i << "," << j;
        ASSERT_EQ(p.biome, q.biome);
        ASSERT_EQ(p.material, q.material);
      }
    }
  }
}

TEST(TerrainTest, CoarseGridsAreSubsetsOfFineGrids) {
  const Terrain& t = default_world().terrain();
  const TerrainGrid fine = t.grid(5, -2, 1), coarse = t.grid(5, -2, 4);
  for (int j = 0; j < coarse.size; ++j) {
    for (int i = 0; i < coarse.size; ++i) {
      EXPECT_TRUE(same_bits(coarse.at(i, j).elevation(), fine.at(4 * i, 4 * j).elevation()));
      EXPECT_EQ(coarse.at(i, j).material, fine.at(4 * i, 4 * j).material);
    }
  }
}

TEST(TerrainTest, DensityIsElevationMinusYOutsideCaves) {
  const Terrain& t = default_world().terrain();
  int carved = 0, checked = 0;
  for (int i = 0; i < 400; ++i) {
    const Coord x = Coord::from_double(i * 13.7), z = Coord::from_double(i * -5.3);
    const double e = t.elevation(x, z);
    // Above the surface the density is exactly elevation - y (caves only remove ground).
    EXPECT_EQ(t.density(x, e + 3.0, z), e - (e + 3.0));
    for (double depth : {2.0, 10.0, 30.0}) {
      const double d = t.density(x, e - depth, z);
      EXPECT_LE(d, depth + 1e-9);
      ++checked;
      carved += d < depth - 1e-9;
    }
  }
  // The default world has caves: some underground points are carved, most are not.
  EXPECT_GT(carved, 0);
  EXPECT_LT(carved, checked / 2);
}

TEST(TerrainTest, SlopeIsTheCentralDifference) {
  const Terrain& t = default_world().terrain();
  const Coord x = Coord::from_double(321.5), z = Coord::from_double(-77.25);
  const double dx = (t.elevation(x.plus(int64_t{1}), z) - t.elevation(x.plus(int64_t{-1}), z)) / 2;
  const double dz = (t.elevation(x, z.plus(int64_t{1})) - t.elevation(x, z.plus(int64_t{-1}))) / 2;
  EXPECT_DOUBLE_EQ(t.slope(x, z), std::sqrt(dx * dx + dz * dz));
}

TEST(TerrainTest, DefaultWorldHasWaterLandAndSeveralBiomes) {
  const World& world = default_world();
  std::vector<int> biomes(world.definition().biomes_size()), materials(world.definition().materials_size());
  for (int64_t cx = -20; cx < 20; cx += 2) {
    for (int64_t cz = -20; cz < 20; cz += 2) {
      const TerrainGrid g = world.terrain().grid(cx, cz, 16);
      for (size_t k = 0; k < g.biome.size(); ++k) {
        ++biomes[g.biome[k]];
        ++materials[g.material[k]];
      }
    }
  }
  int biomes_seen = 0;
  for (int n : biomes) biomes_seen += n > 0;
  EXPECT_GE(biomes_seen, 5);
  EXPECT_GT(materials[0], 0) << "water";
  EXPECT_GT(materials[world.definition().materials_size() - 1], 0) << "grass";
}

TEST(TerrainTest, SameGridFromConcurrentThreads) {
  const Terrain& t = default_world().terrain();
  const TerrainGrid expected = t.grid(2, 3, 1);
  std::vector<TerrainGrid> results(4);
  std::vector<std::thread> threads;
  threads.reserve(results.size());
  for (TerrainGrid& result : results) {
    threads.emplace_back([&] { result = t.grid(2, 3, 1); });
  }
  for (std::thread& th : threads) th.join();
  for (const TerrainGrid& g : results) {
    EXPECT_EQ(std::memcmp(g.elevation().data(), expected.elevation().data(), g.elevation().size() * sizeof(double)), 0);
    EXPECT_EQ(g.material, expected.material);
  }
}

}  // namespace
}  // namespace chunkforge
