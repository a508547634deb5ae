#include "chunkforge/terrain.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "chunkforge/float_environment.h"
#include "chunkforge/v1/world.pb.h"
#include "proto_convert.h"

namespace chunkforge {
namespace {

// Central difference over +-1 world unit; shared by sample() and grid() so both agree.
double slope_from(double x_minus, double x_plus, double z_minus, double z_plus) {
  const double dx = (x_plus - x_minus) * 0.5;
  const double dz = (z_plus - z_minus) * 0.5;
  return std::sqrt(dx * dx + dz * dz);
}

}  // namespace

TerrainPoint TerrainGrid::at(int i, int j) const {
  const size_t k = index(i, j);
  return TerrainPoint{elevation[k], temperature[k], moisture[k], slope[k], biome[k], material[k]};
}

Terrain::Terrain(const v1::WorldDefinition& def)
    : chunk_size_(def.chunk_size()),
      elevation_(to_fractal(def.terrain().elevation(), def.seed(), salt("terrain.elevation"))),
      temperature_(
          to_fractal(def.terrain().temperature(), def.seed(), salt("terrain.temperature"))),
      moisture_(to_fractal(def.terrain().moisture(), def.seed(), salt("terrain.moisture"))) {
  const FloatEnvironmentGuard fp_guard;  // the Fractals guard their own construction
  if (def.terrain().has_caves()) {
    const v1::Caves& c = def.terrain().caves();
    caves_ = Caves{to_fractal(c.noise(), def.seed(), salt("terrain.caves")), c.threshold(),
                   c.strength()};
  }
  for (const v1::Biome& b : def.biomes()) {
    biomes_.push_back(BiomeRule{to_interval(b.elevation()), to_interval(b.temperature()),
                                to_interval(b.moisture())});
  }
  for (const v1::Material& m : def.materials()) {
    MaterialRule rule{to_interval(m.elevation()), to_interval(m.temperature()),
                      to_interval(m.moisture()), to_interval(m.slope()),
                      ids_by_name(def.biomes(), m.biomes()), std::nullopt, to_interval(m.noise_range())};
    if (m.has_noise()) {
      // Salted by name, so adding or reordering materials leaves the others' noise alone.
      rule.noise = to_fractal(m.noise(), def.seed(), salt("terrain.material." + m.name()));
    }
    materials_.push_back(std::move(rule));
  }
}

uint32_t Terrain::classify_biome(double elevation, double temperature, double moisture) const {
  for (uint32_t id = 0; id < biomes_.size(); ++id) {
    const BiomeRule& b = biomes_[id];
    if (b.elevation.contains(elevation) && b.temperature.contains(temperature) &&
        b.moisture.contains(moisture)) {
      return id;
    }
  }
  return static_cast<uint32_t>(biomes_.size() - 1);  // validation makes the last one match all
}

template <typename DetailNoise>
uint32_t Terrain::classify_material(const TerrainPoint& p, const DetailNoise& detail_noise) const {
  for (uint32_t id = 0; id < materials_.size(); ++id) {
    const MaterialRule& m = materials_[id];
    if (!m.elevation.contains(p.elevation) || !m.temperature.contains(p.temperature) ||
        !m.moisture.contains(p.moisture) || !m.slope.contains(p.slope)) {
      continue;
    }
    if (!m.biomes.empty() && !std::binary_search(m.biomes.begin(), m.biomes.end(), p.biome)) {
      continue;
    }
    // The detail noise is evaluated last and only when everything else matched: it is the
    // most expensive condition.
    if (m.noise && !m.noise_range.contains(detail_noise(id))) continue;
    return id;
  }
  return static_cast<uint32_t>(materials_.size() - 1);
}

// Each public sampling function holds a FloatEnvironmentGuard (float_environment.h): nested in
// another entry point it costs one MXCSR read.
double Terrain::elevation(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  return elevation_.at(x, z);
}

double Terrain::slope(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  return slope_from(elevation(x.plus(int64_t{-1}), z), elevation(x.plus(int64_t{1}), z),
                    elevation(x, z.plus(int64_t{-1})), elevation(x, z.plus(int64_t{1})));
}

TerrainPoint Terrain::sample(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  TerrainPoint p;
  p.elevation = elevation(x, z);
  p.temperature = temperature_.at(x, z);
  p.moisture = moisture_.at(x, z);
  p.slope = slope(x, z);
  p.biome = classify_biome(p.elevation, p.temperature, p.moisture);
  p.material = classify_material(p, [&](uint32_t id) { return materials_[id].noise->at(x, z); });
  return p;
}

uint32_t Terrain::biome(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  return classify_biome(elevation(x, z), temperature_.at(x, z), moisture_.at(x, z));
}

double Terrain::density(Coord x, double y, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  double d = elevation(x, z) - y;
  // Caves carve solid ground only: in the air the density stays the height above the surface.
  if (caves_ && d > 0) {
    const double c = caves_->noise.at(x, Coord::from_double(y), z);
    if (c > caves_->threshold) d = std::min(d, (caves_->threshold - c) * caves_->strength);
  }
  return d;
}

TerrainGrid Terrain::grid(int64_t cx, int64_t cz, int64_t step) const {
  return lattice(Coord{cx * chunk_size_, 0.0}, Coord{cz * chunk_size_, 0.0}, step, static_cast<int>(chunk_size_ / step));
}

TerrainGrid Terrain::lattice(Coord x0, Coord z0, int64_t step, int size) const {
  const FloatEnvironmentGuard fp_guard;
  TerrainGrid g;
  g.size = size;
  g.step = step;
  const int n = g.size;
  const size_t count = static_cast<size_t>(n) * n;
  g.elevation.resize(count);
  g.temperature.resize(count);
  g.moisture.resize(count);
  g.slope.resize(count);
  temperature_.grid(x0, z0, step, n, n, g.temperature.data());
  moisture_.grid(x0, z0, step, n, n, g.moisture.data());

  if (step == 1) {
    // One grid with a one-sample border gives every centre and every slope neighbour.
    const int m = n + 2;
    std::vector<double> e(static_cast<size_t>(m) * m);
    elevation_.grid(x0.plus(int64_t{-1}), z0.plus(int64_t{-1}), 1, m, m, e.data());
    auto at = [&](int i, int j) { return e[static_cast<size_t>(j + 1) * m + (i + 1)]; };
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        g.elevation[g.index(i, j)] = at(i, j);
        g.slope[g.index(i, j)] = slope_from(at(i - 1, j), at(i + 1, j), at(i, j - 1), at(i, j + 1));
      }
    }
  } else {
    // Coarse grids: the centres plus four grids shifted by one unit for the slope.
    std::vector<double> xm(count), xp(count), zm(count), zp(count);
    elevation_.grid(x0, z0, step, n, n, g.elevation.data());
    elevation_.grid(x0.plus(int64_t{-1}), z0, step, n, n, xm.data());
    elevation_.grid(x0.plus(int64_t{1}), z0, step, n, n, xp.data());
    elevation_.grid(x0, z0.plus(int64_t{-1}), step, n, n, zm.data());
    elevation_.grid(x0, z0.plus(int64_t{1}), step, n, n, zp.data());
    for (size_t k = 0; k < count; ++k) g.slope[k] = slope_from(xm[k], xp[k], zm[k], zp[k]);
  }

  // Detail noises batched over the whole grid: cheaper than point by point where they are
  // needed, and the same bits (Fractal::grid == Fractal::at).
  std::vector<std::vector<double>> detail(materials_.size());
  for (size_t id = 0; id < materials_.size(); ++id) {
    if (!materials_[id].noise) continue;
    detail[id].resize(count);
    materials_[id].noise->grid(x0, z0, step, n, n, detail[id].data());
  }
  g.biome.resize(count);
  g.material.resize(count);
  for (size_t k = 0; k < count; ++k) {
    TerrainPoint p{g.elevation[k], g.temperature[k], g.moisture[k], g.slope[k], 0, 0};
    g.biome[k] = p.biome = classify_biome(p.elevation, p.temperature, p.moisture);
    g.material[k] = classify_material(p, [&](uint32_t id) { return detail[id][k]; });
  }
  return g;
}

}  // namespace chunkforge
