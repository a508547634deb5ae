// File: server/map/tile_terrain.h
//
// The prescriptive terrain under a tile, one sample per pixel (or per block of pixels when a
// pixel is smaller than a unit), computed from the terrain's pure functions: no chunk is
// generated, so a zoomed-out tile costs the same wherever it is.
//
//   TileTerrain t = sample_tile_terrain(world, key, &stop);
//   uint32_t material = t.material[t.index(x, y)];
//   visit_tile_terrain(world, key, &stop, [&](const TerrainGrid& g, int px, int py, int block) { ... });
//
// Sample (x, y) stands at the pixel's lowest corner, as in `chunkforge render`. Samples come
// from Terrain::lattice over the pixel lattice in squares (batched noise, the same bits as
// Terrain::sample), at any zoom: also where pixels lie whole chunks apart.
// In a world that changed after launch (`epochs`, whose newest is `world`), each sample is the
// land of its chunk's epoch as that epoch's chunks show it (Epochs::shown): older land as it
// was, the newest epoch's blended at its seams. An older epoch's biome and material ids are
// renumbered after the newest's (EpochIds), so that sample_colors colours every sample.
// Thread-safe (reads an immutable World). Throws GenerationAbandoned once `abandon` reads true.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "chunkforge/catalog_colors.h"
#include "chunkforge/epochs.h"
#include "chunkforge/world.h"
#include "tile_key.h"

namespace chunkforge::map {

struct TileTerrain {
  std::array<std::vector<double>, kTerrainFieldCount> values;  // by row of kTerrainFields
  std::vector<uint32_t> biome, material;
  static size_t index(int x, int y) { return static_cast<size_t>(y) * kTilePixels + x; }
  const std::vector<double>& elevation() const { return values[kElevation]; }
  // Every field at pixel k: what the resource filters test.
  TerrainValues at(size_t k) const {
    TerrainValues v;
    for (size_t f = 0; f < kTerrainFieldCount; ++f) v[f] = values[f][k];
    return v;
  }
};

// Where each older epoch's biome and material ids start among a tile's samples: after the
// newest epoch's catalogue, then epoch 0's, 1's, ... (by epoch, oldest first).
struct EpochIds {
  std::vector<uint32_t> biomes, materials;
};
EpochIds epoch_ids(const Epochs& epochs);
// The colours of every biome (or material) id a sample may hold: the world's catalogue, then in
// a world with epochs each older epoch's, as EpochIds numbers them.
std::vector<Rgb> sample_colors(const World& world, const Epochs* epochs, bool biomes);

// Throws GenerationAbandoned once `abandon` (may be null) reads true: a render's check between
// steps.
void throw_if_abandoned(const std::atomic<bool>* abandon);

TileTerrain sample_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                                const Epochs* epochs = nullptr);

// The same samples square by square, without the copy: `visit(grid, px, py, block)` for each
// lattice square, whose sample (i, j) covers the `block` x `block` pixels from
// (px + i * block, py + j * block). For layers that colour each pixel from its own sample alone.
using SquareVisitor = std::function<void(const TerrainGrid& grid, int px, int py, int block)>;
void visit_tile_terrain(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                        const SquareVisitor& visit, const Epochs* epochs = nullptr);

}  // namespace chunkforge::map
