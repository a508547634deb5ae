// The terrain under a tile: batched lattices over its pixels, whatever the zoom.
#include "tile_terrain.h"

#include <algorithm>

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

// Samples `step` units apart over the tile's pixel lattice, one Terrain::lattice per square of
// kSquare samples a side (batched noise, the same bits as Terrain::sample), checking `abandon`
// between squares. Each sample fills `block` x `block` pixels.
void from_lattice(const World& world, const TileKey& key, int64_t step, int block, TileTerrain& out,
                  const std::atomic<bool>* abandon) {
  constexpr int kSquare = 64;  // 16 squares a tile: an abandoned render stops within a few ms
  const int samples = kTilePixels / block;
  const int side = std::min(kSquare, samples);
  for (int sj = 0; sj < samples; sj += side) {
    for (int si = 0; si < samples; si += side) {
      check(abandon);
      const TerrainGrid grid = world.terrain().lattice(Coord::from_parts(key.world_x0() + si * step, 0.0),
                                                       Coord::from_parts(key.world_z0() + sj * step, 0.0), step, side);
      for (int j = 0; j < side; ++j) {
        for (int i = 0; i < side; ++i) {
          const size_t k = grid.index(i, j);
          put(out, (si + i) * block, (sj + j) * block, block, grid.elevation()[k], grid.biome[k], grid.material[k]);
        }
      }
    }
  }
}

}  // namespace

TileTerrain sample_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon) {
  TileTerrain out;
  out.elevation.resize(kPixels);
  out.biome.resize(kPixels);
  out.material.resize(kPixels);
  // Pixels smaller than a unit: one unit's sample fills a block of 2^z x 2^z pixels.
  if (key.z > 0) {
    from_lattice(world, key, 1, 1 << key.z, out, abandon);
  } else {
    from_lattice(world, key, key.span() / kTilePixels, 1, out, abandon);
  }
  return out;
}

}  // namespace chunkforge::map
