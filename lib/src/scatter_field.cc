#include "scatter_field.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "chunkforge/hash.h"

namespace chunkforge {
namespace {

constexpr int kSubBits = 24;
constexpr int64_t kSub = int64_t{1} << kSubBits;  // sub-cell units per cell side
constexpr double kSubD = static_cast<double>(kSub);
constexpr int kDartsPerCell = 16;  // K: DESIGN.md measured rho 0.743 at 16 (0.730 at 8)
// Slack for the floating-point pruning of cells; exact decisions use distance2().
constexpr double kPruneMargin = 1e-6;

constexpr Salt kDartSalt = salt("resource.dart");
constexpr Salt kTimeSalt = salt("resource.time");
constexpr Salt kPeakSalt = salt("resource.peak");
constexpr Salt kAttributeSalt = salt("resource.attributes");
constexpr Salt kIdSalt = salt("resource.id");

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Distance from v to the interval [lo, hi].
double gap(double v, double lo, double hi) { return v < lo ? lo - v : (v > hi ? v - hi : 0.0); }
double distance_of(double dx, double dz) { return std::sqrt(dx * dx + dz * dz); }

// Exact coordinate of sub-cell position (cell * 2^24 + sub) * size / (n * 2^24).
Coord grid_coord(int64_t cell, uint32_t sub, int64_t n, int64_t size) {
  const int64_t scaled = cell * size;  // |cell| < 2^47 for the supported world
  const int64_t whole = floor_div(scaled, n);
  const int64_t rest = scaled - whole * n;  // in [0, n)
  const double frac = (static_cast<double>(rest) * kSubD + static_cast<double>(sub) * static_cast<double>(size)) /
                      (static_cast<double>(n) * kSubD);
  return Coord::from_parts(whole, frac);
}

}  // namespace

size_t ScatterField::BlockKeyHash::operator()(const BlockKey& k) const {
  return static_cast<size_t>(hash(0, Salt{0}, k.layer, k.bi, k.bj));
}

ScatterField::ScatterField(const ResourceLayers& layers, const Terrain& terrain, uint64_t seed)
    : layers_(layers), terrain_(terrain), seed_(seed) {
  const size_t n = layers.size();
  pair_scale_.resize(n * n);
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) {
      pair_scale_[a * n + b] =
          static_cast<double>(layers.chunk_size()) /
          (static_cast<double>(layers.layer(static_cast<uint32_t>(a)).cells_per_chunk) *
           layers.layer(static_cast<uint32_t>(b)).cells_per_chunk * kSubD);
    }
  }
}

ScatterField::Block& ScatterField::block(uint32_t layer, int64_t bi, int64_t bj) {
  auto [it, inserted] = blocks_.try_emplace(BlockKey{layer, bi, bj});
  if (inserted) {
    it->second = std::make_unique<Block>();
    materialize(layer, bi, bj, *it->second);
  }
  return *it->second;
}

ScatterField::Cell& ScatterField::cell(uint32_t layer, int64_t i, int64_t j) {
  const int64_t bi = floor_div(i, kBlockSide), bj = floor_div(j, kBlockSide);
  Block& b = block(layer, bi, bj);
  return b.cells[(j - bj * kBlockSide) * kBlockSide + (i - bi * kBlockSide)];
}

void ScatterField::materialize(uint32_t layer, int64_t bi, int64_t bj, Block& b) {
  const ResourceLayer& l = layers_.layer(layer);
  const int64_t n = l.cells_per_chunk, size = layers_.chunk_size();
  // noise_peaks compares each cell with a window of +-h cells: evaluate the block plus a
  // border of h, all in one batch. Other methods need the block alone.
  const int h = l.method == ScatterMethod::kNoisePeaks
                    ? std::max(1, static_cast<int>(std::lround(l.peak_window * static_cast<double>(n) / (2.0 * static_cast<double>(size)))))
                    : 0;
  const int side = kBlockSide + 2 * h;
  std::vector<Coord> xs(side), zs(side);
  for (int k = 0; k < side; ++k) {
    // Cell centre: (2 * cell + 1) / 2 cells, exactly.
    xs[k] = grid_coord(bi * kBlockSide - h + k, 1u << (kSubBits - 1), n, size);
    zs[k] = grid_coord(bj * kBlockSide - h + k, 1u << (kSubBits - 1), n, size);
  }
  std::vector<double> density(static_cast<size_t>(side) * side);
  layers_.density_grid(layer, xs.data(), side, zs.data(), side, density.data());

  // Peak value: density times a per-cell random factor, ties broken by the hash itself.
  std::vector<std::pair<double, uint64_t>> peak;
  if (h > 0) {
    peak.resize(density.size());
    for (int jj = 0; jj < side; ++jj) {
      for (int ii = 0; ii < side; ++ii) {
        const uint64_t r = hash(seed_, kPeakSalt, l.salt.value, bi * kBlockSide - h + ii,
                                bj * kBlockSide - h + jj);
        const size_t k = static_cast<size_t>(jj) * side + ii;
        peak[k] = {density[k] * (0.25 + 0.75 * unit_double(r)), r};
      }
    }
  }
  auto is_peak = [&](int ii, int jj) {
    const auto& self = peak[static_cast<size_t>(jj + h) * side + (ii + h)];
    for (int dj = -h; dj <= h; ++dj) {
      for (int di = -h; di <= h; ++di) {
        if ((di != 0 || dj != 0) && peak[static_cast<size_t>(jj + h + dj) * side + (ii + h + di)] > self) {
          return false;
        }
      }
    }
    return true;
  };

  std::vector<uint32_t> begin(kBlockCells);
  for (int jj = 0; jj < kBlockSide; ++jj) {
    for (int ii = 0; ii < kBlockSide; ++ii) {
      Cell& c = b.cells[jj * kBlockSide + ii];
      c.i = bi * kBlockSide + ii;
      c.j = bj * kBlockSide + jj;
      c.density = density[static_cast<size_t>(jj + h) * side + (ii + h)];
      c.r = l.spacing / c.density;
      b.r_max = std::max(b.r_max, c.r);
      begin[jj * kBlockSide + ii] = static_cast<uint32_t>(b.candidates.size());
      make_candidates(layer, c, h > 0 && is_peak(ii, jj), b.candidates);
    }
  }
  // Pointers only once the vector has stopped growing.
  for (size_t k = 0; k < kBlockCells; ++k) {
    const uint32_t end = k + 1 < kBlockCells ? begin[k + 1] : static_cast<uint32_t>(b.candidates.size());
    b.cells[k].candidates = b.candidates.data() + begin[k];
    b.cells[k].count = end - begin[k];
  }
}

void ScatterField::make_candidates(uint32_t layer, const Cell& c, bool is_peak,
                                   std::vector<Candidate>& out) const {
  const ResourceLayer& l = layers_.layer(layer);
  const size_t first = out.size();
  auto add = [&](uint32_t k, uint32_t u, uint32_t v) {
    out.push_back(Candidate{hash(seed_, kTimeSalt, l.salt.value, c.i, c.j, k), u, v, k, -1});
  };
  // Low 48 bits of a dart hash: the position; top 16 bits: the thinning draw.
  auto keep = [](uint64_t h, double probability) {
    return static_cast<double>(h >> 48) < probability * 65536.0;
  };
  const uint32_t kMask = static_cast<uint32_t>(kSub - 1);
  switch (l.method) {
    case ScatterMethod::kBlueNoise: {
      // Thinning by (r_min / r)^2 makes dart intensity follow 1 / r^2.
      const double ratio = l.r_min() / c.r;
      for (uint32_t k = 0; k < kDartsPerCell; ++k) {
        const uint64_t h = hash(seed_, kDartSalt, l.salt.value, c.i, c.j, k);
        if (keep(h, ratio * ratio)) add(k, static_cast<uint32_t>(h) & kMask, static_cast<uint32_t>(h >> 24) & kMask);
      }
      break;
    }
    case ScatterMethod::kJitteredGrid: {
      const uint64_t h = hash(seed_, kDartSalt, l.salt.value, c.i, c.j, 0);
      const double ratio = l.r_min() / c.r;
      auto jittered = [&](uint64_t bits) {
        const double offset = (static_cast<double>(bits & kMask) * 2.0 - kSubD) * l.jitter;
        return static_cast<uint32_t>((kSub / 2) + static_cast<int64_t>(std::floor(offset)));
      };
      if (keep(h, ratio * ratio)) add(0, jittered(h), jittered(h >> 24));
      break;
    }
    case ScatterMethod::kNoiseProbability: {
      const uint64_t h = hash(seed_, kDartSalt, l.salt.value, c.i, c.j, 0);
      if (keep(h, c.density / l.dmax)) add(0, static_cast<uint32_t>(h) & kMask, static_cast<uint32_t>(h >> 24) & kMask);
      break;
    }
    case ScatterMethod::kUniform: {
      // White noise at the mean density: the density field is deliberately ignored.
      const uint64_t h = hash(seed_, kDartSalt, l.salt.value, c.i, c.j, 0);
      const double mean = (l.dmin + l.dmax) / (2.0 * l.dmax);
      if (keep(h, mean * mean)) add(0, static_cast<uint32_t>(h) & kMask, static_cast<uint32_t>(h >> 24) & kMask);
      break;
    }
    case ScatterMethod::kNoisePeaks:
      if (is_peak) add(0, static_cast<uint32_t>(kSub / 2), static_cast<uint32_t>(kSub / 2));
      break;
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [](const Candidate& a, const Candidate& b) { return std::tie(a.t, a.k) < std::tie(b.t, b.k); });
}

double ScatterField::local(uint32_t layer, int64_t cell, uint32_t sub, int64_t chunk) const {
  const int64_t n = layers_.layer(layer).cells_per_chunk;
  return static_cast<double>(local_sub(layer, cell, sub, chunk)) * static_cast<double>(layers_.chunk_size()) /
         (static_cast<double>(n) * kSubD);
}

int64_t ScatterField::local_sub(uint32_t layer, int64_t cell, uint32_t sub, int64_t chunk) const {
  return (cell - chunk * layers_.layer(layer).cells_per_chunk) * kSub + sub;
}

Coord ScatterField::world_x(uint32_t layer, const Cell& c, const Candidate& a) const {
  return grid_coord(c.i, a.u, layers_.layer(layer).cells_per_chunk, layers_.chunk_size());
}

Coord ScatterField::world_z(uint32_t layer, const Cell& c, const Candidate& a) const {
  return grid_coord(c.j, a.v, layers_.layer(layer).cells_per_chunk, layers_.chunk_size());
}

bool ScatterField::earlier(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, const Cell& cb,
                           const Candidate& b) const {
  return std::tie(a.t, la, ca.i, ca.j, a.k) < std::tie(b.t, lb, cb.i, cb.j, b.k);
}

double ScatterField::distance2(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb,
                               const Cell& cb, const Candidate& b) const {
  // Positions in each layer's sub-cell units relative to a's chunk; cross-multiplying by the
  // other layer's cells per chunk puts both on one integer scale. The difference does not
  // depend on the reference chunk, so neither does the result.
  const int64_t na = layers_.layer(la).cells_per_chunk, nb = layers_.layer(lb).cells_per_chunk;
  const int64_t cx = floor_div(ca.i, na), cz = floor_div(ca.j, na);
  const int64_t dx = local_sub(la, ca.i, a.u, cx) * nb - local_sub(lb, cb.i, b.u, cx) * na;
  const int64_t dz = local_sub(la, ca.j, a.v, cz) * nb - local_sub(lb, cb.j, b.v, cz) * na;
  const double scale = pair_scale_[la * layers_.size() + lb];
  const double x = static_cast<double>(dx) * scale, z = static_cast<double>(dz) * scale;
  return x * x + z * z;
}

bool ScatterField::could_block(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb,
                               const Cell& cb, const Candidate& b) const {
  if (la == lb) {
    const double r = std::max(ca.r, cb.r);
    return distance2(la, ca, a, lb, cb, b) < r * r;
  }
  // Below its threshold a candidate never exists, so it never blocks another layer.
  if (cb.density < layers_.layer(lb).threshold) return false;
  const double reach = layers_.layer(la).footprint + layers_.layer(lb).footprint;
  return distance2(la, ca, a, lb, cb, b) < reach * reach;
}

bool ScatterField::blocks(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb) {
  if (cb.accepted < 0) return false;
  Candidate& b = cb.candidates[cb.accepted];
  if (!earlier(lb, cb, b, la, ca, a) || !could_block(la, ca, a, lb, cb, b)) return false;
  return la == lb || exists(lb, cb, b);
}

bool ScatterField::exists(uint32_t layer, Cell& c, Candidate& a) {
  if (a.exists >= 0) return a.exists == 1;
  const ResourceLayer& l = layers_.layer(layer);
  bool ok = c.density >= l.threshold;
  if (ok && l.filtered()) {
    const TerrainPoint p = terrain_.sample(world_x(layer, c, a), world_z(layer, c, a));
    ok = l.elevation.contains(p.elevation) && p.slope <= l.max_slope &&
         (l.biomes.empty() || std::binary_search(l.biomes.begin(), l.biomes.end(), p.biome)) &&
         (l.materials.empty() || std::binary_search(l.materials.begin(), l.materials.end(), p.material));
  }
  a.exists = ok ? 1 : 0;
  return ok;
}

void ScatterField::list_neighbours(uint32_t layer, const Cell& c, const Candidate& a) {
  const ResourceLayer& l = layers_.layer(layer);
  const int64_t na = l.cells_per_chunk;
  const double size = static_cast<double>(layers_.chunk_size());
  const int64_t cx = floor_div(c.i, na), cz = floor_div(c.j, na);
  const double ax = local(layer, c.i, a.u, cx), az = local(layer, c.j, a.v, cz);

  // Cells of layer `lb` whose square lies within `reach` of a (reach(cell) may shrink it).
  auto scan = [&](uint32_t lb, double reach, auto&& accept_cell) {
    const int64_t nb = layers_.layer(lb).cells_per_chunk;
    const double s = size / static_cast<double>(nb);
    const int64_t i0 = cx * nb + static_cast<int64_t>(std::floor((ax - reach) / s)) - 1;
    const int64_t i1 = cx * nb + static_cast<int64_t>(std::floor((ax + reach) / s)) + 1;
    const int64_t j0 = cz * nb + static_cast<int64_t>(std::floor((az - reach) / s)) - 1;
    const int64_t j1 = cz * nb + static_cast<int64_t>(std::floor((az + reach) / s)) + 1;
    for (int64_t bj = floor_div(j0, kBlockSide); bj <= floor_div(j1, kBlockSide); ++bj) {
      for (int64_t bi = floor_div(i0, kBlockSide); bi <= floor_div(i1, kBlockSide); ++bi) {
        Block& b = block(lb, bi, bj);
        const double bx0 = static_cast<double>(bi * kBlockSide - cx * nb) * s;
        const double bz0 = static_cast<double>(bj * kBlockSide - cz * nb) * s;
        const double block_gap = distance_of(gap(ax, bx0, bx0 + kBlockSide * s), gap(az, bz0, bz0 + kBlockSide * s));
        if (!accept_cell(block_gap, b.r_max)) continue;
        for (Cell& n : b.cells) {
          if (&n == &c || n.count == 0) continue;
          const double x0 = static_cast<double>(n.i - cx * nb) * s, z0 = static_cast<double>(n.j - cz * nb) * s;
          if (accept_cell(distance_of(gap(ax, x0, x0 + s), gap(az, z0, z0 + s)), n.r)) {
            neighbours_.push_back(Neighbour{lb, &n});
          }
        }
      }
    }
  };

  if (l.method == ScatterMethod::kBlueNoise) {
    // Same layer: conflict within max(r(a), r(b)); no r exceeds the layer's r_max.
    scan(layer, l.r_max(), [&](double g, double r) { return g < std::max(c.r, r) + kPruneMargin; });
  }
  for (uint32_t lb = 0; lb < layers_.size(); ++lb) {
    if (lb == layer) continue;
    const double reach = l.footprint + layers_.layer(lb).footprint;
    scan(lb, reach, [&](double g, double) { return g < reach + kPruneMargin; });
  }
}

void ScatterField::decide_next(uint32_t layer, Cell& start) {
  frames_.push_back(Frame{layer, &start});
  while (!frames_.empty()) {
    const size_t fi = frames_.size() - 1;
    Frame f = frames_[fi];
    Cell& c = *f.cell;
    const Candidate& a = c.candidates[c.next];
    bool blocked = false, pushed = false;
    if (!f.listed) {
      f.neighbours_begin = neighbours_.size();
      list_neighbours(f.layer, c, a);
      f.neighbours_end = f.cursor = neighbours_.size();
      f.cursor = f.neighbours_begin;
      f.listed = true;
      // A conflict with an already accepted earlier candidate settles it without more work.
      for (size_t k = f.neighbours_begin; k < f.neighbours_end && !blocked; ++k) {
        blocked = blocks(f.layer, c, a, neighbours_[k].layer, *neighbours_[k].cell);
      }
    }
    for (; !blocked && f.cursor < f.neighbours_end; ++f.cursor) {
      const Neighbour nb = neighbours_[f.cursor];
      Cell& n = *nb.cell;
      // Earlier candidates of n that could block a must be decided first, in n's order.
      for (uint32_t k = n.next; k < n.count; ++k) {
        const Candidate& b = n.candidates[k];
        if (!earlier(nb.layer, n, b, f.layer, c, a)) break;
        if (could_block(f.layer, c, a, nb.layer, n, b)) {
          pushed = true;
          break;
        }
      }
      if (pushed) break;
      blocked = blocks(f.layer, c, a, nb.layer, n);
    }
    if (pushed) {
      frames_[fi] = f;
      frames_.push_back(Frame{neighbours_[f.cursor].layer, neighbours_[f.cursor].cell});
      continue;
    }
    if (blocked) {
      ++c.next;
    } else {
      c.accepted = static_cast<int32_t>(c.next);
      // Blue noise: every later candidate of the cell lies within r_min of this one.
      c.next = layers_.layer(f.layer).method == ScatterMethod::kBlueNoise ? c.count : c.next + 1;
    }
    neighbours_.resize(f.neighbours_begin);
    frames_.pop_back();
  }
}

void ScatterField::decide_all(uint32_t layer, Cell& c) {
  while (c.next < c.count) decide_next(layer, c);
}

std::vector<ResourceObject> ScatterField::objects_in_chunk(ChunkCoord chunk) {
  struct Keyed {
    int64_t z, x;
    ResourceObject object;
  };
  std::vector<Keyed> found;
  for (uint32_t layer = 0; layer < layers_.size(); ++layer) {
    const ResourceLayer& l = layers_.layer(layer);
    const int64_t n = l.cells_per_chunk;
    for (int64_t j = chunk.z * n; j < (chunk.z + 1) * n; ++j) {
      for (int64_t i = chunk.x * n; i < (chunk.x + 1) * n; ++i) {
        Cell& c = cell(layer, i, j);
        decide_all(layer, c);
        if (c.accepted < 0) continue;
        Candidate& a = c.candidates[c.accepted];
        if (!exists(layer, c, a)) continue;
        const uint64_t attributes = hash(seed_, kAttributeSalt, l.salt.value, c.i, c.j, a.k);
        ResourceObject o;
        o.layer = layer;
        o.x = local(layer, c.i, a.u, chunk.x);
        o.z = local(layer, c.j, a.v, chunk.z);
        o.y = terrain_.elevation(world_x(layer, c, a), world_z(layer, c, a));
        o.yaw = unit_double(attributes) * 360.0;
        o.variant = static_cast<uint32_t>((attributes & 0xffffffffu) % l.variants);
        o.id = hash(seed_, kIdSalt, l.salt.value, c.i, c.j, a.k);
        o.density = c.density;
        found.push_back(Keyed{local_sub(layer, c.j, a.v, chunk.z), local_sub(layer, c.i, a.u, chunk.x), o});
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const Keyed& a, const Keyed& b) {
    return std::tie(a.object.layer, a.z, a.x, a.object.id) < std::tie(b.object.layer, b.z, b.x, b.object.id);
  });
  std::vector<ResourceObject> objects;
  objects.reserve(found.size());
  for (Keyed& k : found) objects.push_back(k.object);
  return objects;
}

}  // namespace chunkforge
