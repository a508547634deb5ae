// Terrain sampling: the noise fields of kTerrainFields at a point or over a lattice, slope
// derived from elevation, and the biome and material rules applied to them.
#include "chunkforge/terrain.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "chunkforge/float_environment.h"
#include "chunkforge/v1/world.pb.h"
#include "proto_convert.h"

namespace chunkforge {
namespace {

// Slope is the one field derived from others (terrain_fields_test checks that every other row
// has a noise of its own; a static_assert cannot: GCC's UBSan build does not fold the member
// pointers' comparison with null).
constexpr bool has_own_noise(size_t field) { return kTerrainFields[field].noise != nullptr; }

// Central difference over +-1 world unit; shared by sample() and grid() so both agree.
double slope_from(double x_minus, double x_plus, double z_minus, double z_plus) {
  const double dx = (x_plus - x_minus) * 0.5;
  const double dz = (z_plus - z_minus) * 0.5;
  return std::sqrt(dx * dx + dz * dz);
}

}  // namespace

TerrainPoint TerrainGrid::at(int i, int j) const {
  const size_t k = index(i, j);
  TerrainPoint p;
  for (size_t f = 0; f < kTerrainFieldCount; ++f) p.values[f] = values[f][k];
  p.biome = biome[k];
  p.material = material[k];
  return p;
}

Terrain::Terrain(const v1::WorldDefinition& def) : chunk_size_(def.chunk_size()) {
  const FloatEnvironmentGuard fp_guard;  // the Fractals guard their own construction
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    if (!has_own_noise(f)) continue;
    const std::string salt_name = "terrain." + std::string(kTerrainFields[f].name);
    noise_[f] = to_fractal((def.terrain().*kTerrainFields[f].noise)(), def.seed(), salt(salt_name));
  }
  if (def.terrain().has_caves()) {
    const v1::Caves& c = def.terrain().caves();
    caves_ = Caves{to_fractal(c.noise(), def.seed(), salt("terrain.caves")), c.threshold(), c.strength()};
  }
  for (const v1::Biome& b : def.biomes()) biomes_.push_back(terrain_bounds(b, &TerrainFieldSpec::biome));
  for (const v1::Material& m : def.materials()) {
    MaterialRule rule{terrain_bounds(m, &TerrainFieldSpec::material), ids_by_name(def.biomes(), m.biomes()),
                      std::nullopt, to_interval(m.noise_range())};
    if (m.has_noise()) {
      // Salted by name, so adding or reordering materials leaves the others' noise alone.
      rule.noise = to_fractal(m.noise(), def.seed(), salt("terrain.material." + m.name()));
    }
    materials_.push_back(std::move(rule));
  }
}

uint32_t Terrain::classify_biome(const TerrainValues& values) const {
  for (uint32_t id = 0; id < biomes_.size(); ++id) {
    if (biomes_[id].contains(values)) return id;
  }
  return static_cast<uint32_t>(biomes_.size() - 1);  // validation makes the last one match all
}

template <typename DetailNoise>
uint32_t Terrain::classify_material(const TerrainPoint& p, const DetailNoise& detail_noise) const {
  for (uint32_t id = 0; id < materials_.size(); ++id) {
    const MaterialRule& m = materials_[id];
    if (!m.fields.contains(p.values)) continue;
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

Terrain Terrain::blended(std::shared_ptr<const ElevationBlend> blend) const {
  Terrain t = *this;
  t.blend_ = std::move(blend);
  return t;
}

double Terrain::elevation_at(Coord x, Coord z) const {
  const double own = noise_[kElevation].at(x, z);
  return blend_ ? blend_->at(x, z, own) : own;
}

void Terrain::elevation_cross(Coord x, Coord z, double e[5]) const {
  noise_[kElevation].cross(x, z, e);
  if (!blend_) return;
  e[0] = blend_->at(x, z, e[0]);
  e[1] = blend_->at(x.plus(int64_t{-1}), z, e[1]);
  e[2] = blend_->at(x.plus(int64_t{1}), z, e[2]);
  e[3] = blend_->at(x, z.plus(int64_t{-1}), e[3]);
  e[4] = blend_->at(x, z.plus(int64_t{1}), e[4]);
}

void Terrain::elevation_grid(Coord x0, Coord z0, int64_t step, int nx, int nz, double* out) const {
  noise_[kElevation].grid(x0, z0, step, nx, nz, out);
  if (blend_) blend_->lattice(x0, z0, step, nx, nz, out);
}

// Each public sampling function holds a FloatEnvironmentGuard (float_environment.h): nested in
// another entry point it costs one MXCSR read.
double Terrain::elevation(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  return elevation_at(x, z);
}

double Terrain::slope(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  double e[5];  // Fractal::cross: the centre, then x - 1, x + 1, z - 1, z + 1
  elevation_cross(x, z, e);
  return slope_from(e[1], e[2], e[3], e[4]);
}

double Terrain::field(size_t f, Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  if (f == kElevation) return elevation_at(x, z);
  return has_own_noise(f) ? noise_[f].at(x, z) : slope(x, z);
}

TerrainPoint Terrain::sample(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  TerrainPoint p;
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    if (has_own_noise(f) && f != kElevation) p.values[f] = noise_[f].at(x, z);
  }
  // The elevation and the four around it for the slope, sharing their lattice corners.
  double e[5];
  elevation_cross(x, z, e);
  p.values[kElevation] = e[0];
  p.values[kSlope] = slope_from(e[1], e[2], e[3], e[4]);
  p.biome = classify_biome(p.values);
  p.material = classify_material(p, [&](uint32_t id) { return materials_[id].noise->at(x, z); });
  return p;
}

uint32_t Terrain::biome(Coord x, Coord z) const {
  const FloatEnvironmentGuard fp_guard;
  TerrainValues values{};  // slope stays 0: biome rules cannot test it
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    if (kTerrainFields[f].biome != nullptr) values[f] = f == kElevation ? elevation_at(x, z) : noise_[f].at(x, z);
  }
  return classify_biome(values);
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
  return lattice(Coord{cx * chunk_size_, 0.0}, Coord{cz * chunk_size_, 0.0}, step,
                 static_cast<int>(chunk_size_ / step));
}

TerrainGrid Terrain::lattice(Coord x0, Coord z0, int64_t step, int size) const {
  const FloatEnvironmentGuard fp_guard;
  TerrainGrid g;
  g.size = size;
  g.step = step;
  const size_t count = static_cast<size_t>(size) * size;
  for (std::vector<double>& v : g.values) v.resize(count);
  fill_noise_fields(x0, z0, step, g);
  fill_elevation_and_slope(x0, z0, step, g);
  classify_grid(x0, z0, step, g);
  return g;
}

void Terrain::fill_noise_fields(Coord x0, Coord z0, int64_t step, TerrainGrid& g) const {
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    // Each field through its own batched (vector) grid: the same bits as Fractal::at.
    if (has_own_noise(f) && f != kElevation) noise_[f].grid(x0, z0, step, g.size, g.size, g.values[f].data());
  }
}

void Terrain::fill_elevation_and_slope(Coord x0, Coord z0, int64_t step, TerrainGrid& g) const {
  std::vector<double>& centre = g.values[kElevation];
  std::vector<double>& slope = g.values[kSlope];
  const int n = g.size;
  if (step == 1) {
    // One grid with a one-sample border gives every centre and every slope neighbour.
    const int m = n + 2;
    std::vector<double> e(static_cast<size_t>(m) * m);
    elevation_grid(x0.plus(int64_t{-1}), z0.plus(int64_t{-1}), 1, m, m, e.data());
    auto at = [&](int i, int j) { return e[static_cast<size_t>(j + 1) * m + (i + 1)]; };
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        centre[g.index(i, j)] = at(i, j);
        slope[g.index(i, j)] = slope_from(at(i - 1, j), at(i + 1, j), at(i, j - 1), at(i, j + 1));
      }
    }
    return;
  }
  // Coarse grids: the centres plus four grids shifted by one unit for the slope.
  const size_t count = centre.size();
  std::vector<double> xm(count), xp(count), zm(count), zp(count);
  elevation_grid(x0, z0, step, n, n, centre.data());
  elevation_grid(x0.plus(int64_t{-1}), z0, step, n, n, xm.data());
  elevation_grid(x0.plus(int64_t{1}), z0, step, n, n, xp.data());
  elevation_grid(x0, z0.plus(int64_t{-1}), step, n, n, zm.data());
  elevation_grid(x0, z0.plus(int64_t{1}), step, n, n, zp.data());
  for (size_t k = 0; k < count; ++k) slope[k] = slope_from(xm[k], xp[k], zm[k], zp[k]);
}

void Terrain::classify_grid(Coord x0, Coord z0, int64_t step, TerrainGrid& g) const {
  // Detail noises batched over the whole grid: cheaper than point by point where they are
  // needed, and the same bits (Fractal::grid == Fractal::at).
  const size_t count = g.values[kElevation].size();
  std::vector<std::vector<double>> detail(materials_.size());
  for (size_t id = 0; id < materials_.size(); ++id) {
    if (!materials_[id].noise) continue;
    detail[id].resize(count);
    materials_[id].noise->grid(x0, z0, step, g.size, g.size, detail[id].data());
  }
  g.biome.resize(count);
  g.material.resize(count);
  TerrainPoint p;
  for (size_t k = 0; k < count; ++k) {
    for (size_t f = 0; f < kTerrainFieldCount; ++f) p.values[f] = g.values[f][k];
    g.biome[k] = p.biome = classify_biome(p.values);
    g.material[k] = classify_material(p, [&](uint32_t id) { return detail[id][k]; });
  }
}

}  // namespace chunkforge
