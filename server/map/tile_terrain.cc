// The terrain under a tile: batched lattices over its pixels, whatever the zoom.
#include "tile_terrain.h"

#include <algorithm>

#include "chunkforge/chunk.h"
#include "chunkforge/coord.h"

namespace chunkforge::map {
void throw_if_abandoned(const std::atomic<bool>* abandon) {
  if (abandon != nullptr && abandon->load(std::memory_order_relaxed)) throw GenerationAbandoned();
}

namespace {

constexpr size_t kPixels = static_cast<size_t>(kTilePixels) * kTilePixels;

// Copies one sample into its block of `block` x `block` pixels.
void put(TileTerrain& out, int px, int py, int block, const TerrainGrid& grid, size_t from) {
  for (int y = py; y < py + block; ++y) {
    for (int x = px; x < px + block; ++x) {
      const size_t k = TileTerrain::index(x, y);
      for (size_t f = 0; f < kTerrainFieldCount; ++f) out.values[f][k] = grid.values[f][from];
      out.biome[k] = grid.biome[from];
      out.material[k] = grid.material[from];
    }
  }
}

// Samples `step` units apart over the tile's pixel lattice, one Terrain::lattice per square of
// kSquare samples a side (batched noise, the same bits as Terrain::sample), checking `abandon`
// between squares. Each sample covers `block` x `block` pixels.
void visit_lattice(const World& world, const TileKey& key, int64_t step, int block, const std::atomic<bool>* abandon,
                   const SquareVisitor& visit) {
  constexpr int kSquare = 64;  // 16 squares a tile: an abandoned render stops within a few ms
  const int samples = kTilePixels / block;
  const int side = std::min(kSquare, samples);
  for (int sj = 0; sj < samples; sj += side) {
    for (int si = 0; si < samples; si += side) {
      throw_if_abandoned(abandon);
      const TerrainGrid grid = world.terrain().lattice(Coord::from_parts(key.world_x0() + si * step, 0.0),
                                                       Coord::from_parts(key.world_z0() + sj * step, 0.0), step, side);
      visit(grid, si * block, sj * block, block);
    }
  }
}

}  // namespace

TileTerrain sample_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon) {
  TileTerrain out;
  for (std::vector<double>& field : out.values) field.resize(kPixels);
  out.biome.resize(kPixels);
  out.material.resize(kPixels);
  visit_tile_terrain(world, key, abandon, [&out](const TerrainGrid& grid, int px, int py, int block) {
    for (int j = 0; j < grid.size; ++j) {
      for (int i = 0; i < grid.size; ++i) put(out, px + i * block, py + j * block, block, grid, grid.index(i, j));
    }
  });
  return out;
}

void visit_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                        const SquareVisitor& visit) {
  // Pixels smaller than a unit: one unit's sample fills a block of 2^z x 2^z pixels.
  if (key.z > 0) {
    visit_lattice(world, key, 1, 1 << key.z, abandon, visit);
  } else {
    visit_lattice(world, key, key.span() / kTilePixels, 1, abandon, visit);
  }
}

}  // namespace chunkforge::map
