// File: chunkforge/resource_layer.h
//
// A resource layer compiled from its world-definition entry: the resource article's density
// model and the grid its scatter method works on.
//
//   const ResourceLayers& layers = world.resources();
//   double d = layers.density(0, x, z);        // layer 0's density at (x, z)
//   double r = layers.layer(0).spacing / d;    // its minimum spacing there, world units
//
// Density: n = density noise in [0, 1] (frequency `sparsity`), optionally mixed with another
// layer's (correlate_with), d = dmin + (dmax - dmin) * n^sharpness.
// Thread safety: immutable; all methods const and thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "chunkforge/coord.h"
#include "chunkforge/hash.h"
#include "chunkforge/noise.h"
#include "chunkforge/terrain.h"

namespace chunkforge {

namespace v1 {
class WorldDefinition;
}

enum class ScatterMethod { kBlueNoise, kJitteredGrid, kNoiseProbability, kNoisePeaks, kUniform };

const char* to_string(ScatterMethod method);

// Every member is set by ResourceLayers from the resolved definition. Defaults of the knobs are
// declared in world.proto only (apply_defaults fills them in); the initialisers here are not
// defaults of a world, and are not repeated from there.
struct ResourceLayer {
  uint32_t id = 0;
  std::string name;
  ScatterMethod method = ScatterMethod::kBlueNoise;
  Salt salt{0};  // from the layer's name: reordering layers keeps each layer's points
  double dmin = 1, dmax = 1, threshold = 0, sharpness = 0;
  double spacing = 1;       // spacing_scale: minimum spacing at density 1, world units
  double footprint = 1;     // footprint radius, world units
  int correlate_with = -1;  // layer id, or -1
  double correlate_weight = 0;
  // Filters (empty lists: any).
  std::vector<uint32_t> biomes, materials;
  TerrainBounds terrain;   // elevation range, slope up to max_slope
  double jitter = 0;       // jittered_grid only
  double peak_window = 0;  // noise_peaks only
  uint32_t variants = 0;

  // The scatter grid: `cells_per_chunk` cells of side chunk_size / cells_per_chunk per chunk
  // side, so chunk membership is integer arithmetic.
  int cells_per_chunk = 1;

  double r_min() const { return spacing / dmax; }
  double r_max() const { return spacing / dmin; }
  bool filtered() const { return !biomes.empty() || !materials.empty() || terrain.bounded(); }
  // Whether terrain of these field values, biome and material passes the filters: what the
  // scatter engine asks of a candidate, and the map's density layer of a pixel.
  bool admits(const TerrainValues& values, uint32_t biome, uint32_t material) const {
    return terrain.contains(values) && (biomes.empty() || std::binary_search(biomes.begin(), biomes.end(), biome)) &&
           (materials.empty() || std::binary_search(materials.begin(), materials.end(), material));
  }
  // admits() of the terrain at (x, z), computing only what the filters read: a material filter
  // needs the whole sample, other filters only their bounded fields and the biome. The same
  // answer as admits(terrain.sample(x, z)), for a fraction of the noise (an elevation bound
  // alone reads one field where a sample reads every field and the elevation four more times).
  bool admits_at(const Terrain& t, Coord x, Coord z) const {
    if (!materials.empty()) {
      const TerrainPoint p = t.sample(x, z);
      return admits(p.values, p.biome, p.material);
    }
    return terrain.holds([&](size_t field) { return t.field(field, x, z); }) &&
           (biomes.empty() || std::binary_search(biomes.begin(), biomes.end(), t.biome(x, z)));
  }
};

class ResourceLayers {
 public:
  ResourceLayers() = default;
  // `resolved` must be valid with defaults applied.
  ResourceLayers(const v1::WorldDefinition& resolved);

  size_t size() const { return layers_.size(); }
  const ResourceLayer& layer(uint32_t id) const { return layers_[id]; }
  const std::vector<ResourceLayer>& all() const { return layers_; }
  int64_t chunk_size() const { return chunk_size_; }

  // Density of layer `id` at a point, in [dmin, dmax].
  double density(uint32_t id, Coord x, Coord z) const;
  // Densities over a separable grid: out[j * nx + i] = density(id, xs[i], zs[j]), same bits.
  void density_grid(uint32_t id, const Coord* xs, int nx, const Coord* zs, int nz, double* out) const;

 private:
  double from_noise(const ResourceLayer& l, double own, double other) const;

  int64_t chunk_size_ = 64;
  std::vector<ResourceLayer> layers_;
  std::vector<Fractal> noise_;  // per layer, normalised to [0, 1]
};

}  // namespace chunkforge
