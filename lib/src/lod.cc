// LOD tiles: a tile's lattice of terrain samples, the structures touching it from the planner
// and its resource layers' expected objects per cell, all sampled, nothing generated.
#include "chunkforge/lod.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "abandon.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/encode.h"
#include "chunkforge/float_environment.h"
#include "chunkforge/structures.h"
#include "chunkforge/world.h"
#include "chunkforge/world_extent.h"

namespace chunkforge {
namespace {

constexpr int kSamplesPerCell = kLodSamples / kLodDensityCells;
static_assert(kLodSamples % kLodDensityCells == 0, "a density cell holds whole samples");

// Objects per unit area of a layer at density d, where its spacing is r = spacing / d. For
// blue noise, the share of 1 / r^2 its darts fill, measured on the default world's layers
// (docs/lod.md, "Resources": the ratio of generated objects to this estimate). The other methods
// place about one object per r x r cell.
double objects_per_area(const ResourceLayer& layer, double d) {
  const double r = layer.spacing / d;
  const double share = layer.method == ScatterMethod::kBlueNoise ? 0.54 : 1.0;
  return share / (r * r);
}

// The world unit of the tile's lowest corner along one axis.
int64_t tile_origin(const LodKey& key, int64_t index, int64_t chunk_size) { return index * key.chunks() * chunk_size; }

// The lattice as the wire's TerrainGrid, converted as Chunk.terrain converts (encode.h).
void add_lattice(const TerrainGrid& grid, v1::TerrainGrid& out) {
  out.set_step(static_cast<uint32_t>(grid.step));
  out.set_size(static_cast<uint32_t>(grid.size));
  for (double e : grid.elevation()) out.add_elevation(static_cast<float>(e));
  for (uint32_t b : grid.biome) out.add_biome(b);
  for (uint32_t m : grid.material) out.add_material(m);
}

// Every kept structure touching the tile's chunks, once, by (z, x, id) of its origin.
void add_structures(const World& world, const LodKey& key, const std::atomic<bool>* abandon, v1::LodTile& tile) {
  StructurePlanner planner(world);
  planner.watch_abandon(abandon);
  tile.set_structures_planned(true);
  for (const StructureInstance& s : planner.in_area({key.x * key.chunks(), key.z * key.chunks()}, key.chunks())) {
    *tile.add_structures() = encode_structure(s);
  }
}

// One layer's expected objects per cell: each sample stands for the step x step square from
// it, counted where the density reaches the threshold and the terrain passes the filters.
void add_density(const World& world, const ResourceLayer& layer, const TerrainGrid& grid, const std::vector<Coord>& xs,
                 const std::vector<Coord>& zs, v1::LodTile& tile) {
  std::vector<double> density(static_cast<size_t>(kLodSamples) * kLodSamples);
  world.resources().density_grid(layer.id, xs.data(), kLodSamples, zs.data(), kLodSamples, density.data());
  std::vector<double> cells(static_cast<size_t>(kLodDensityCells) * kLodDensityCells, 0.0);
  const double area = static_cast<double>(grid.step) * static_cast<double>(grid.step);
  for (int j = 0; j < kLodSamples; ++j) {
    for (int i = 0; i < kLodSamples; ++i) {
      const size_t k = grid.index(i, j);
      if (density[k] < layer.threshold) continue;
      const TerrainPoint p = grid.at(i, j);
      if (!layer.admits(p.values, p.biome, p.material)) continue;
      cells[static_cast<size_t>(j / kSamplesPerCell) * kLodDensityCells + i / kSamplesPerCell] +=
          objects_per_area(layer, density[k]) * area;
    }
  }
  v1::LodLayerDensity& out = *tile.add_resources();
  out.set_layer(layer.id);
  out.set_cells(kLodDensityCells);
  for (double c : cells) out.add_expected_objects(static_cast<float>(c));
}

}  // namespace

int lod_finest_level(int64_t chunk_size) {
  int level = 0;
  while (((chunk_size << level) % kLodSamples) != 0) ++level;
  return level;
}

int64_t lod_step(int64_t chunk_size, int level) { return (chunk_size << level) / kLodSamples; }

std::string lod_key_error(int64_t chunk_size, const LodKey& key) {
  const int finest = lod_finest_level(chunk_size);
  if (key.level < finest || key.level > kLodMaxLevel) {
    return "level: must be in [" + std::to_string(finest) + ", " + std::to_string(kLodMaxLevel) + "] (got " +
           std::to_string(key.level) + ")";
  }
  const int64_t span = key.chunks() * chunk_size;
  const int64_t lo = -kWorldUnits / span, hi = kWorldUnits / span - 1;  // the tiles inside the world
  for (const auto& [name, v] : {std::pair{"x", key.x}, std::pair{"z", key.z}}) {
    if (v < lo || v > hi) {
      return std::string(name) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] at level " +
             std::to_string(key.level) + " (got " + std::to_string(v) + ")";
    }
  }
  return "";
}

v1::LodTile lod_tile(const World& world, const LodKey& key, const std::atomic<bool>* abandon) {
  const FloatEnvironmentGuard fp_guard;
  const int64_t chunk_size = world.chunk_size();
  if (const std::string error = lod_key_error(chunk_size, key); !error.empty()) throw std::invalid_argument(error);
  v1::LodTile tile;
  tile.mutable_key()->set_level(static_cast<uint32_t>(key.level));
  tile.mutable_key()->set_x(key.x);
  tile.mutable_key()->set_z(key.z);
  tile.set_chunk_size(static_cast<uint32_t>(chunk_size));
  tile.set_generator_version(world.generator_version());
  tile.set_world_fingerprint(world.fingerprint());
  const int64_t step = lod_step(chunk_size, key.level);
  const int64_t x0 = tile_origin(key, key.x, chunk_size), z0 = tile_origin(key, key.z, chunk_size);
  poll_abandon(abandon);
  const TerrainGrid grid = world.terrain().lattice(Coord{x0, 0.0}, Coord{z0, 0.0}, step, kLodSamples);
  add_lattice(grid, *tile.mutable_terrain());
  if (key.level <= kLodStructureMaxLevel) add_structures(world, key, abandon, tile);
  std::vector<Coord> xs(kLodSamples), zs(kLodSamples);
  for (int i = 0; i < kLodSamples; ++i) {
    xs[i] = Coord{x0 + i * step, 0.0};
    zs[i] = Coord{z0 + i * step, 0.0};
  }
  for (const ResourceLayer& layer : world.resources().all()) {
    poll_abandon(abandon);
    add_density(world, layer, grid, xs, zs, tile);
  }
  return tile;
}

std::string lod_tile_bytes(const World& world, const LodKey& key, const std::atomic<bool>* abandon) {
  return canonical_bytes(lod_tile(world, key, abandon));
}

}  // namespace chunkforge
