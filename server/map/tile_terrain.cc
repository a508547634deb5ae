// The terrain under a tile: chunk grids where the pixel spacing allows, point samples elsewhere.
#include "tile_terrain.h"

#include "chunkforge/chunk.h"
#include "chunkforge/coord.h"

namespace chunkforge::map {
namespace {

constexpr size_t kPixels = static_cast<size_t>(kTilePixels) * kTilePixels;

void check(const std::atomic<bool>* abandon) {
  if (abandon != nullptr && abandon->load(std::memory_order_relaxed)) throw GenerationAbandoned();
}

// Copies one sample into its block of `block` x `block` pixels.
void put(TileTerrain& out, int px, int py, int block, double elevation, uint32_t biome, uint32_t material) {
  for (int y = py; y < py + block; ++y) {
    for (int x = px; x < px + block; ++x) {
      const size_t k = TileTerrain::index(x, y);
      out.elevation[k] = elevation;
      out.biome[k] = biome;
      out.material[k] = material;
    }
  }
}

// Samples `step` units apart from the chunk grids overlapping the tile, each sample filling
// `block` x `block` pixels.
void from_chunk_grids(const World& world, const TileKey& key, int64_t step, int block, TileTerrain& out,
                      const std::atomic<bool>* abandon) {
  const int64_t cs = world.chunk_size(), span = key.span();
  const int64_t x0 = key.world_x0(), z0 = key.world_z0();
  for (int64_t cz = floor_div(z0, cs); cz <= floor_div(z0 + span - 1, cs); ++cz) {
    for (int64_t cx = floor_div(x0, cs); cx <= floor_div(x0 + span - 1, cs); ++cx) {
      check(abandon);
      const TerrainGrid grid = world.terrain().grid(cx, cz, step);
      for (int j = 0; j < grid.size; ++j) {
        const int64_t wz = cz * cs + j * step - z0;
        if (wz < 0 || wz >= span) continue;
        for (int i = 0; i < grid.size; ++i) {
          const int64_t wx = cx * cs + i * step - x0;
          if (wx < 0 || wx >= span) continue;
          const size_t k = grid.index(i, j);
          put(out, static_cast<int>(wx / step) * block, static_cast<int>(wz / step) * block, block, grid.elevation[k],
              grid.biome[k], grid.material[k]);
        }
      }
    }
  }
}

// One Terrain::sample per pixel, `step` whole units apart.
void from_points(const World& world, const TileKey& key, int64_t step, TileTerrain& out,
                 const std::atomic<bool>* abandon) {
  for (int y = 0; y < kTilePixels; ++y) {
    check(abandon);
    const Coord z = Coord::from_parts(key.world_z0() + y * step, 0.0);
    for (int x = 0; x < kTilePixels; ++x) {
      const TerrainPoint p = world.terrain().sample(Coord::from_parts(key.world_x0() + x * step, 0.0), z);
      put(out, x, y, 1, p.elevation, p.biome, p.material);
    }
  }
}

}  // namespace

TileTerrain sample_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon) {
  TileTerrain out;
  out.elevation.resize(kPixels);
  out.biome.resize(kPixels);
  out.material.resize(kPixels);
  const int64_t cs = world.chunk_size();
  if (key.z > 0) {  // pixels smaller than a unit: one unit's sample fills a block
    from_chunk_grids(world, key, 1, 1 << key.z, out, abandon);
    return out;
  }
  const int64_t step = key.span() / kTilePixels;
  // A grid costs (n + 2)^2 batched elevations for n^2 samples; a point sample costs 5 unbatched
  // ones. Grids win from two samples per chunk side on.
  if (cs % step == 0 && cs / step >= 2) {
    from_chunk_grids(world, key, step, 1, out, abandon);
  } else {
    from_points(world, key, step, out, abandon);
  }
  return out;
}

}  // namespace chunkforge::map
