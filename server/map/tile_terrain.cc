// The terrain under a tile: batched lattices over its pixels, whatever the zoom.
#include "tile_terrain.h"

#include <algorithm>
#include <optional>

#include "chunkforge/catalog_colors.h"
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

}  // namespace

EpochIds epoch_ids(const Epochs& epochs) {
  EpochIds out;
  const auto& newest = epochs.world(epochs.newest()).definition();
  uint32_t biomes = static_cast<uint32_t>(newest.biomes_size());
  uint32_t materials = static_cast<uint32_t>(newest.materials_size());
  for (uint32_t e = 0; e < epochs.newest(); ++e) {
    out.biomes.push_back(biomes);
    out.materials.push_back(materials);
    biomes += static_cast<uint32_t>(epochs.world(e).definition().biomes_size());
    materials += static_cast<uint32_t>(epochs.world(e).definition().materials_size());
  }
  return out;
}

std::vector<Rgb> sample_colors(const World& world, const Epochs* epochs, bool biomes) {
  const auto colors = [biomes](const World& w) {
    return biomes ? catalog_colors(w.definition().biomes()) : catalog_colors(w.definition().materials());
  };
  std::vector<Rgb> out = colors(world);
  for (uint32_t e = 0; epochs != nullptr && e < epochs->newest(); ++e) {
    const std::vector<Rgb> more = colors(epochs->world(e));
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

namespace {

// In a world with epochs, each sample is the land of its chunk's epoch as shown (the land a
// chunk of it shows): the newest epoch's (blended at its seams) everywhere, then the samples in
// chunks of older epochs taken from their epochs' land. A square away from older land costs what
// it does in a world without epochs, plus a lookup in the seen-land record.
TerrainGrid epoch_lattice(const Epochs& epochs, int64_t x0, int64_t z0, int64_t step, int side) {
  const Coord cx = Coord::from_parts(x0, 0.0), cz = Coord::from_parts(z0, 0.0);
  TerrainGrid grid = epochs.shown(epochs.newest()).terrain().lattice(cx, cz, step, side);
  const int64_t cs = epochs.world(0).chunk_size();
  const int64_t far = (side - 1) * step;
  if (!epochs.seen().any_before({floor_div(x0, cs), floor_div(z0, cs)},
                                {floor_div(x0 + far, cs), floor_div(z0 + far, cs)}, epochs.newest())) {
    return grid;
  }
  std::vector<std::optional<TerrainGrid>> older(epochs.newest());
  const EpochIds ids = epoch_ids(epochs);
  for (int j = 0; j < side; ++j) {
    for (int i = 0; i < side; ++i) {
      const uint32_t e = epochs.epoch_of({floor_div(x0 + i * step, cs), floor_div(z0 + j * step, cs)});
      if (e == epochs.newest()) continue;
      if (!older[e]) older[e] = epochs.shown(e).terrain().lattice(cx, cz, step, side);
      const size_t k = grid.index(i, j);
      for (size_t f = 0; f < kTerrainFieldCount; ++f) grid.values[f][k] = older[e]->values[f][k];
      grid.biome[k] = ids.biomes[e] + older[e]->biome[k];
      grid.material[k] = ids.materials[e] + older[e]->material[k];
    }
  }
  return grid;
}

// Samples `step` units apart over the tile's pixel lattice, one Terrain::lattice per square of
// kSquare samples a side (batched noise, the same bits as Terrain::sample), checking `abandon`
// between squares. Each sample covers `block` x `block` pixels.
void visit_lattice(const World& world, const TileKey& key, int64_t step, int block, const std::atomic<bool>* abandon,
                   const SquareVisitor& visit, const Epochs* epochs) {
  constexpr int kSquare = 64;  // 16 squares a tile: an abandoned render stops within a few ms
  const int samples = kTilePixels / block;
  const int side = std::min(kSquare, samples);
  for (int sj = 0; sj < samples; sj += side) {
    for (int si = 0; si < samples; si += side) {
      throw_if_abandoned(abandon);
      const int64_t x0 = key.world_x0() + si * step, z0 = key.world_z0() + sj * step;
      if (epochs != nullptr) {
        visit(epoch_lattice(*epochs, x0, z0, step, side), si * block, sj * block, block);
        continue;
      }
      const TerrainGrid grid =
          world.terrain().lattice(Coord::from_parts(x0, 0.0), Coord::from_parts(z0, 0.0), step, side);
      visit(grid, si * block, sj * block, block);
    }
  }
}

}  // namespace

TileTerrain sample_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                                const Epochs* epochs) {
  TileTerrain out;
  for (std::vector<double>& field : out.values) field.resize(kPixels);
  out.biome.resize(kPixels);
  out.material.resize(kPixels);
  visit_tile_terrain(
      world, key, abandon,
      [&out](const TerrainGrid& grid, int px, int py, int block) {
        for (int j = 0; j < grid.size; ++j) {
          for (int i = 0; i < grid.size; ++i) put(out, px + i * block, py + j * block, block, grid, grid.index(i, j));
        }
      },
      epochs);
  return out;
}

void visit_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                        const SquareVisitor& visit, const Epochs* epochs) {
  // Pixels smaller than a unit: one unit's sample fills a block of 2^z x 2^z pixels.
  if (key.z > 0) {
    visit_lattice(world, key, 1, 1 << key.z, abandon, visit, epochs);
  } else {
    visit_lattice(world, key, key.span() / kTilePixels, 1, abandon, visit, epochs);
  }
}

}  // namespace chunkforge::map
