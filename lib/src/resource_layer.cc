#include "chunkforge/resource_layer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "chunkforge/float_environment.h"
#include "chunkforge/v1/world.pb.h"
#include "detmath_impl.h"
#include "proto_convert.h"
#include "scatter/method.h"

namespace chunkforge {
namespace {

// The one conversion of the proto's open enum: every value the proto names, and its sentinels
// (never set by a parser). An unknown number is rejected by validation (FieldChecker checks
// enum values) before a definition gets here; if one slips through, it is a bug, not a world.
ScatterMethod to_method(v1::ResourceLayer::Method m) {
  switch (m) {
    case v1::ResourceLayer::blue_noise:
      return ScatterMethod::kBlueNoise;
    case v1::ResourceLayer::jittered_grid:
      return ScatterMethod::kJitteredGrid;
    case v1::ResourceLayer::noise_probability:
      return ScatterMethod::kNoiseProbability;
    case v1::ResourceLayer::noise_peaks:
      return ScatterMethod::kNoisePeaks;
    case v1::ResourceLayer::uniform:
      return ScatterMethod::kUniform;
    case v1::ResourceLayer_Method_ResourceLayer_Method_INT_MIN_SENTINEL_DO_NOT_USE_:
    case v1::ResourceLayer_Method_ResourceLayer_Method_INT_MAX_SENTINEL_DO_NOT_USE_:
      break;
  }
  throw std::invalid_argument("resource layer method " + std::to_string(static_cast<int>(m)) +
                              " is not a scatter method (the definition was not validated)");
}

}  // namespace

const char* to_string(ScatterMethod method) { return scatter::method_record(method).name; }

// The public entry points below hold a FloatEnvironmentGuard (float_environment.h).
ResourceLayers::ResourceLayers(const v1::WorldDefinition& def) : chunk_size_(def.chunk_size()) {
  const FloatEnvironmentGuard fp_guard;
  for (int id = 0; id < def.resources_size(); ++id) {
    const v1::ResourceLayer& r = def.resources(id);
    ResourceLayer l;
    l.id = static_cast<uint32_t>(id);
    l.name = r.name();
    l.method = to_method(r.method());
    l.salt = salt("resource." + r.name());
    l.dmin = r.density_range().min();
    l.dmax = r.density_range().max();
    l.threshold = r.density_threshold();
    l.sharpness = r.sharpness();
    l.spacing = r.spacing_scale();
    l.footprint = r.footprint_radius();
    if (r.has_correlate_with()) {
      for (int other = 0; other < def.resources_size(); ++other) {
        if (def.resources(other).name() == r.correlate_with().layer()) l.correlate_with = other;
      }
      l.correlate_weight = r.correlate_with().weight();
    }
    l.biomes = ids_by_name(def.biomes(), r.biomes());
    l.materials = ids_by_name(def.materials(), r.materials());
    l.terrain = terrain_bounds(r, &TerrainFieldSpec::resource);
    if (r.has_max_slope()) l.terrain.set(kSlope, Interval{.max = r.max_slope()});  // a maximum, not a Range
    l.jitter = r.jitter();
    l.peak_window = r.peak_window();
    l.variants = r.variants();
    l.cells_per_chunk = scatter::method_record(l.method).cells_per_chunk(l, chunk_size_);
    layers_.push_back(std::move(l));

    FractalSpec spec;
    spec.octaves = static_cast<int>(r.octaves());
    spec.frequency = r.sparsity();
    spec.amplitude = 0.5;  // noise in [-1, 1] -> [0, 1]
    spec.offset = 0.5;
    noise_.emplace_back(spec, def.seed(), salt("resource.density." + r.name()));
  }
}

// Inline (and always): density_grid calls it per sample, a scatter group's 64 or a chunk's
// thousand, where the call and pow's tests cost as much as the arithmetic.
[[gnu::always_inline]] inline double ResourceLayers::from_noise(const ResourceLayer& l, double own,
                                                                double other) const {
  double n = l.correlate_with >= 0 ? (1.0 - l.correlate_weight) * own + l.correlate_weight * other : own;
  n = std::clamp(n, 0.0, 1.0);
  return l.dmin + (l.dmax - l.dmin) * detmath::impl::pow(n, l.sharpness);
}

double ResourceLayers::density(uint32_t id, Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  const ResourceLayer& l = layers_[id];
  const double own = noise_[id].at(x, z);
  const double other = l.correlate_with >= 0 ? noise_[l.correlate_with].at(x, z) : 0.0;
  return from_noise(l, own, other);
}

void ResourceLayers::density_grid(uint32_t id, const Coord* xs, int nx, const Coord* zs, int nz, double* out) const {
  const ResourceLayer& l = layers_[id];
  const size_t count = static_cast<size_t>(nx) * nz;
  // A constant density (min = max) is dmin exactly: from_noise adds 0 times a finite power to it.
  // No noise then: 3 to 6 % of a constant layer's sampling (docs/resources.md).
  if (l.dmin == l.dmax) {
    std::fill_n(out, count, l.dmin);
    return;
  }
  const FloatEnvironmentGuard fp_guard;
  noise_[id].grid(xs, nx, zs, nz, out);
  std::vector<double> other;
  if (l.correlate_with >= 0) {
    other.resize(count);
    noise_[l.correlate_with].grid(xs, nx, zs, nz, other.data());
  }
  for (size_t k = 0; k < count; ++k) out[k] = from_noise(l, out[k], other.empty() ? 0.0 : other[k]);
}

}  // namespace chunkforge
