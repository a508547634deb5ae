#include "scatter_field.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>

#include "abandon.h"
#include "chunkforge/hash.h"
#include "scatter_geometry.h"

namespace chunkforge {
namespace {

constexpr int kSubBits = 24;
constexpr int64_t kSub = int64_t{1} << kSubBits;  // sub-cell units per cell side
constexpr double kSubD = static_cast<double>(kSub);
// K: with stratified arrival rounds we measured rho 0.742 at K = 16, 0.737 at 12, 0.730 at 8
// (tests/bench, constant density); 12 keeps rho above the 0.73 bar for 15 % less work.
// At most 16: the round is 4 bits of t.
constexpr int kDartsPerCell = 12;
// Slack for the floating-point pruning of cells; exact decisions use distance2().
constexpr double kPruneMargin = 1e-6;

constexpr Salt kDartSalt = salt("resource.dart");
constexpr Salt kTimeSalt = salt("resource.time");
constexpr Salt kThinSalt = salt("resource.thinning");
constexpr Salt kPeakSalt = salt("resource.peak");
constexpr Salt kAttributeSalt = salt("resource.attributes");
constexpr Salt kIdSalt = salt("resource.id");

// Distance from v to the interval [lo, hi].
double gap(double v, double lo, double hi) { return v < lo ? lo - v : (v > hi ? v - hi : 0.0); }
// Squared distance from (x, z) to the square [x0, x0 + side] x [z0, z0 + side].
double gap2(double x, double z, double x0, double z0, double side) {
  const double dx = gap(x, x0, x0 + side), dz = gap(z, z0, z0 + side);
  return dx * dx + dz * dz;
}

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

ScatterField::ScatterField(const ResourceLayers& layers, const Terrain& terrain, uint64_t seed,
                           StructurePlanner* structures)
    : layers_(layers), terrain_(terrain), seed_(seed), structures_(structures), recent_(layers.size() * kRecentBlocks) {
  const size_t n = layers.size();
  pair_scale_.resize(n * n);
  for (size_t layer = 0; layer < n; ++layer) {
    layer_seed_.push_back(hash(seed, kDartSalt, layers.layer(static_cast<uint32_t>(layer)).salt.value));
    unit_.push_back(static_cast<double>(layers.chunk_size()) /
                    (static_cast<double>(layers.layer(static_cast<uint32_t>(layer)).cells_per_chunk) * kSubD));
  }
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) {
      pair_scale_[a * n + b] =
          static_cast<double>(layers.chunk_size()) /
          (static_cast<double>(layers.layer(static_cast<uint32_t>(a)).cells_per_chunk) *
           layers.layer(static_cast<uint32_t>(b)).cells_per_chunk * kSubD);
    }
  }
}

ScatterField::Block& ScatterField::block(uint32_t layer, int64_t bi, int64_t bj, bool with_candidates) {
  Block& b = block_densities(layer, bi, bj);
  if (with_candidates && !b.has_candidates) add_candidates(layer, b);
  return b;
}

ScatterField::Block* ScatterField::find_block(uint32_t layer, int64_t bi, int64_t bj) {
  RecentBlock& recent = recent_[layer * kRecentBlocks + static_cast<size_t>((bi & 15) | ((bj & 15) << 4))];
  if (recent.block != nullptr && recent.bi == bi && recent.bj == bj) return recent.block;
  auto it = blocks_.find(BlockKey{layer, bi, bj});
  return it == blocks_.end() ? nullptr : it->second;
}

ScatterField::Block& ScatterField::block_densities(uint32_t layer, int64_t bi, int64_t bj) {
  // A small direct-mapped cache in front of the map: neighbour scans revisit the same few
  // blocks over and over.
  // Indexed by the low bits of the block coordinates: a 16 x 16-block window around any point
  // maps without collisions.
  RecentBlock& recent = recent_[layer * kRecentBlocks + static_cast<size_t>((bi & 15) | ((bj & 15) << 4))];
  if (recent.block != nullptr && recent.bi == bi && recent.bj == bj) return *recent.block;
  auto [it, inserted] = blocks_.try_emplace(BlockKey{layer, bi, bj});
  if (inserted) {
    it->second = &block_store_.emplace_back();
    materialize(layer, bi, bj, *it->second);
  }
  recent = RecentBlock{bi, bj, it->second};
  return *it->second;
}

ScatterField::Cell& ScatterField::cell(uint32_t layer, int64_t i, int64_t j) {
  const int64_t bi = floor_div(i, kBlockSide), bj = floor_div(j, kBlockSide);
  Block& b = block(layer, bi, bj);
  const int per_side = kBlockSide >> b.level;
  return b.cells[((j - bj * kBlockSide) >> b.level) * per_side + ((i - bi * kBlockSide) >> b.level)];
}

ScatterField::Candidate* ScatterField::store_candidates(const std::vector<Candidate>& candidates) {
  // Slabs of fixed size: candidates never move once stored, and there is no allocation per
  // block.
  constexpr size_t kSlab = 16384;
  if (slabs_.empty() || slab_used_ + candidates.size() > kSlab) {
    slabs_.push_back(std::make_unique<Candidate[]>(std::max(kSlab, candidates.size())));
    slab_used_ = 0;
  }
  Candidate* out = slabs_.back().get() + slab_used_;
  std::copy(candidates.begin(), candidates.end(), out);
  slab_used_ += candidates.size();
  return out;
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
  // Scratch buffers reused across blocks (materialize never nests).
  std::vector<Coord>& xs = scratch_xs_;
  std::vector<Coord>& zs = scratch_zs_;
  std::vector<double>& density = scratch_density_;
  xs.resize(side);
  zs.resize(side);
  density.resize(static_cast<size_t>(side) * side);
  for (int k = 0; k < side; ++k) {
    // Cell centre: (2 * cell + 1) / 2 cells, exactly.
    xs[k] = grid_coord(bi * kBlockSide - h + k, 1u << (kSubBits - 1), n, size);
    zs[k] = grid_coord(bj * kBlockSide - h + k, 1u << (kSubBits - 1), n, size);
  }
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

  // Sparse blocks of blue-noise layers use coarser cells (level 1: 2 x 2 scatter cells, level
  // 2: the whole block) when every density in the block allows it: cell diagonals stay below
  // the smallest spacing in the cell, so a cell still holds at most one point, and thinning
  // by the level's spacing keeps dart intensity proportional to 1 / r^2. Work then follows the
  // number of points rather than the area.
  double r_lo = std::numeric_limits<double>::infinity();
  for (int jj = 0; jj < kBlockSide; ++jj) {
    for (int ii = 0; ii < kBlockSide; ++ii) {
      r_lo = std::min(r_lo, l.spacing / density[static_cast<size_t>(jj + h) * side + (ii + h)]);
    }
  }
  b.level = 0;
  if (l.method == ScatterMethod::kBlueNoise) {
    while (b.level < kMaxLevel && r_lo >= l.r_min() * static_cast<double>(2 << b.level)) ++b.level;
  }
  const int span = 1 << b.level, per_side = kBlockSide >> b.level;
  b.cell_count = per_side * per_side;
  for (int cj = 0; cj < per_side; ++cj) {
    for (int ci = 0; ci < per_side; ++ci) {
      Cell& c = b.cells[cj * per_side + ci];
      c.block = &b;
      c.span = span;
      c.i = bi * kBlockSide + ci * span;
      c.j = bj * kBlockSide + cj * span;
      // A coarse cell's spacing is the smallest of its scatter cells'.
      c.r = std::numeric_limits<double>::infinity();
      for (int jj = cj * span; jj < (cj + 1) * span; ++jj) {
        for (int ii = ci * span; ii < (ci + 1) * span; ++ii) {
          c.r = std::min(c.r, l.spacing / density[static_cast<size_t>(jj + h) * side + (ii + h)]);
        }
      }
      c.density = l.spacing / c.r;
      c.peak = h > 0 && is_peak(ci, cj);
      b.r_max = std::max(b.r_max, c.r);
    }
  }
}

void ScatterField::add_candidates(uint32_t layer, Block& b) {
  const size_t count = static_cast<size_t>(b.cell_count);
  uint32_t begin[kBlockCells];
  std::vector<Candidate>& scratch = scratch_candidates_;
  scratch.clear();
  for (size_t k = 0; k < count; ++k) {
    begin[k] = static_cast<uint32_t>(scratch.size());
    make_candidates(layer, b.cells[k], b.cells[k].peak, scratch);
  }
  Candidate* stored = store_candidates(scratch);
  for (size_t k = 0; k < count; ++k) {
    const uint32_t end = k + 1 < count ? begin[k + 1] : static_cast<uint32_t>(scratch.size());
    b.cells[k].candidates = stored + begin[k];
    b.cells[k].count = end - begin[k];
  }
  b.has_candidates = true;
}

void ScatterField::make_candidates(uint32_t layer, const Cell& c, bool is_peak,
                                   std::vector<Candidate>& out) const {
  const ResourceLayer& l = layers_.layer(layer);
  // One hash per cell (two mixes over the layer's seed); each candidate k then costs one mix
  // for its position and one for its arrival time (counter-based: never a stream across cells).
  const uint64_t cell_hash = mix64(mix64(layer_seed_[layer] ^ (static_cast<uint64_t>(c.i) * 0x9e3779b97f4a7c15ULL)) ^
                                   (static_cast<uint64_t>(c.j) * 0xc2b2ae3d27d4eb4fULL) ^
                                   static_cast<uint64_t>(c.span));
  auto bits = [cell_hash](uint64_t k) { return mix64(cell_hash + (k + 1) * 0x9e3779b97f4a7c15ULL); };
  // Arrival times are stratified: candidate k of every cell arrives in round k (the top four
  // bits), in random order within the round. A cell's candidates are thus already in time
  // order, and the process is still sequential dart throwing in one global order.
  auto add = [&](uint32_t k, uint32_t u, uint32_t v) {
    const uint64_t t = (static_cast<uint64_t>(k) << 60) | (mix64(bits(k) ^ kTimeSalt.value) >> 4);
    out.push_back(Candidate{t, u, v, k, -1});
  };
  const uint32_t kMask = static_cast<uint32_t>(kSub - 1);
  // Uniform in the cell, which spans `span` scatter cells: 26 bits per axis cover span <= 4.
  const uint32_t cell_mask = static_cast<uint32_t>(kSub * c.span - 1);
  auto add_uniform = [&](uint32_t k) {
    const uint64_t h = bits(k);
    add(k, static_cast<uint32_t>(h) & cell_mask, static_cast<uint32_t>(h >> 26) & cell_mask);
  };
  // An 8-bit draw per candidate for thinning: eight from one mix (1/256 is ample resolution
  // for a keep probability).
  auto draw = [cell_hash](uint32_t k) {
    return static_cast<double>((mix64(cell_hash ^ (kThinSalt.value + k / 8)) >> (8 * (k % 8))) & 0xff) / 256.0;
  };
  switch (l.method) {
    case ScatterMethod::kBlueNoise: {
      // Thinning by (r_level / r)^2 makes dart intensity follow 1 / r^2 (r_level: the spacing
      // the cell's size is made for, r_min times its span).
      const double ratio = l.r_min() * c.span / c.r, keep = ratio * ratio;
      for (uint32_t k = 0; k < kDartsPerCell; ++k) {
        if (draw(k) < keep) add_uniform(k);
      }
      break;
    }
    case ScatterMethod::kJitteredGrid: {
      const double ratio = l.r_min() / c.r;
      if (draw(0) < ratio * ratio) {
        const uint64_t h = bits(0);
        auto jittered = [&](uint64_t b) {
          const double offset = (static_cast<double>(b & kMask) * 2.0 - kSubD) * l.jitter;
          return static_cast<uint32_t>((kSub / 2) + static_cast<int64_t>(std::floor(offset)));
        };
        add(0, jittered(h), jittered(h >> 24));
      }
      break;
    }
    case ScatterMethod::kNoiseProbability:
      if (draw(0) < c.density / l.dmax) add_uniform(0);
      break;
    case ScatterMethod::kUniform: {
      // White noise at the mean density: the density field is deliberately ignored.
      const double mean = (l.dmin + l.dmax) / (2.0 * l.dmax);
      if (draw(0) < mean * mean) add_uniform(0);
      break;
    }
    case ScatterMethod::kNoisePeaks:
      if (is_peak) add(0, static_cast<uint32_t>(kSub / 2), static_cast<uint32_t>(kSub / 2));
      break;
  }
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

double ScatterField::distance2(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb,
                               const Cell& cb, const Candidate& b) const {
  // Positions in each layer's sub-cell units relative to a's chunk; cross-multiplying by the
  // other layer's cells per chunk puts both on one integer scale. The difference does not
  // depend on the reference chunk, so neither does the result.
  if (la == lb) {  // one grid: the plain sub-cell difference (covers() relies on this formula)
    return scatter::same_layer_distance2((ca.i - cb.i) * kSub + a.u - b.u, (ca.j - cb.j) * kSub + a.v - b.v,
                                         unit_[la]);
  }
  const int64_t na = layers_.layer(la).cells_per_chunk, nb = layers_.layer(lb).cells_per_chunk;
  const int64_t cx = floor_div(ca.i, na), cz = floor_div(ca.j, na);
  const int64_t dx = local_sub(la, ca.i, a.u, cx) * nb - local_sub(lb, cb.i, b.u, cx) * na;
  const int64_t dz = local_sub(la, ca.j, a.v, cz) * nb - local_sub(lb, cb.j, b.v, cz) * na;
  const double scale = pair_scale_[la * layers_.size() + lb];
  const double x = static_cast<double>(dx) * scale, z = static_cast<double>(dz) * scale;
  return x * x + z * z;
}

bool ScatterField::could_block(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb,
                               Cell& cb, Candidate& b) {
  if (la == lb) {
    const double r = std::max(ca.r, cb.r);
    return distance2(la, ca, a, lb, cb, b) < r * r;
  }
  const double reach = layers_.layer(la).footprint + layers_.layer(lb).footprint;
  // A candidate that is not viable never exists, so it never blocks another layer: checking
  // that first spares deciding it (and its own dependencies).
  return distance2(la, ca, a, lb, cb, b) < reach * reach && viable(lb, cb, b);
}

bool ScatterField::blocks(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb) {
  if (cb.accepted < 0) return false;
  Candidate& b = cb.candidates[cb.accepted];
  return earlier(lb, cb, b, la, ca, a) && could_block(la, ca, a, lb, cb, b);
}

bool ScatterField::viable(uint32_t layer, Cell& c, Candidate& a) {
  if (a.viable >= 0) return a.viable == 1;
  const ResourceLayer& l = layers_.layer(layer);
  bool ok = c.density >= l.threshold;
  if (ok && l.filtered()) {
    const TerrainPoint p = terrain_.sample(world_x(layer, c, a), world_z(layer, c, a));
    ok = l.elevation.contains(p.elevation) && p.slope <= l.max_slope &&
         (l.biomes.empty() || std::binary_search(l.biomes.begin(), l.biomes.end(), p.biome)) &&
         (l.materials.empty() || std::binary_search(l.materials.begin(), l.materials.end(), p.material));
  }
  if (ok && structures_ != nullptr) {
    ok = !structures_->covers(world_x(layer, c, a), world_z(layer, c, a), l.footprint);
  }
  a.viable = ok ? 1 : 0;
  return ok;
}

ScatterField::Position ScatterField::position(uint32_t layer, const Cell& c, const Candidate& a) const {
  const int64_t n = layers_.layer(layer).cells_per_chunk;
  Position p;
  p.cx = floor_div(c.i, n);
  p.cz = floor_div(c.j, n);
  p.x = local(layer, c.i, a.u, p.cx);
  p.z = local(layer, c.j, a.v, p.cz);
  return p;
}

template <typename Fn>
bool ScatterField::visit_cells(uint32_t layer, const Position& p, double reach,
                               double (*cell_reach)(double, double), double a_r, Fn&& fn) {
  const int64_t n = layers_.layer(layer).cells_per_chunk;
  const double s = static_cast<double>(layers_.chunk_size()) / static_cast<double>(n);
  auto index = [&](double v, int64_t chunk) { return chunk * n + static_cast<int64_t>(std::floor(v / s)); };
  const double r = reach + kPruneMargin;
  const int64_t i0 = index(p.x - r, p.cx), i1 = index(p.x + r, p.cx);
  const int64_t j0 = index(p.z - r, p.cz), j1 = index(p.z + r, p.cz);
  for (int64_t bj = floor_div(j0, kBlockSide); bj <= floor_div(j1, kBlockSide); ++bj) {
    for (int64_t bi = floor_div(i0, kBlockSide); bi <= floor_div(i1, kBlockSide); ++bi) {
      // Densities alone decide the pruning; candidates only for blocks that pass it.
      Block& b = block(layer, bi, bj, /*with_candidates=*/false);
      const double bx0 = static_cast<double>(bi * kBlockSide - p.cx * n) * s;
      const double bz0 = static_cast<double>(bj * kBlockSide - p.cz * n) * s;
      // The block's largest reach bounds every cell in it.
      const double rb = cell_reach(a_r, b.r_max) + kPruneMargin;
      if (gap2(p.x, p.z, bx0, bz0, kBlockSide * s) >= rb * rb) continue;
      if (!b.has_candidates) add_candidates(layer, b);
      for (int k = 0; k < b.cell_count; ++k) {
        Cell& cell = b.cells[k];
        if (cell.count == 0) continue;
        const double rc = cell_reach(a_r, cell.r) + kPruneMargin;
        const double x0 = static_cast<double>(cell.i - p.cx * n) * s, z0 = static_cast<double>(cell.j - p.cz * n) * s;
        if (gap2(p.x, p.z, x0, z0, cell.span * s) >= rc * rc) continue;
        if (!fn(cell)) return false;
      }
    }
  }
  return true;
}

namespace {
// Same layer: max(r(a), r(b)). Other layers: a fixed reach, passed as a_r.
double same_layer_reach(double a_r, double cell_r) { return std::max(a_r, cell_r); }
double fixed_reach(double a_r, double) { return a_r; }
}  // namespace

bool ScatterField::covers(uint32_t layer, const Cell& blocker, const Cell& c) const {
  if (blocker.accepted < 0) return false;
  const Candidate& b = blocker.candidates[blocker.accepted];
  // c's candidates are in time order, so b earlier than the next undecided one is earlier than
  // all of them.
  if (c.next + 1 < c.count && !earlier(layer, blocker, b, layer, c, c.candidates[c.next + 1])) return false;
  // b relative to c's lowest corner, in sub-cell units (exact integers); c's candidates lie in
  // [0, extent)^2. disc_covers_square answers "yes" only if the exact test, distance2 < max(c.r,
  // blocker.r)^2, rejects each of them (scatter_geometry.h has the proof). So the shortcut
  // removes only what exact evaluation would remove, and which blocker it happens to try (the
  // last one found, which depends on what the memo held) never changes the output.
  const int64_t bx = (blocker.i - c.i) * kSub + b.u, bz = (blocker.j - c.j) * kSub + b.v;
  return scatter::disc_covers_square(bx, bz, kSub * c.span, unit_[layer], blocker.r);
}

bool ScatterField::blocked_by_accepted_nearby(uint32_t layer, Cell& c, const Candidate& a) {
  // Most rejections are settled here by an accepted earlier candidate of the same layer close
  // by: first the cell that blocked the cell's previous candidate, then the accepted cells of
  // the blocks within r(a) (a bit mask per block), stopping at the first blocker. Blocks that
  // do not exist yet hold nothing accepted and are not created.
  if (c.last_blocker != nullptr && blocks(layer, c, a, layer, *c.last_blocker)) return true;
  const int64_t n = layers_.layer(layer).cells_per_chunk;
  const double s = static_cast<double>(layers_.chunk_size()) / static_cast<double>(n);
  const int64_t reach = static_cast<int64_t>(std::ceil(c.r / s));  // in cells
  const int64_t last = c.span - 1;  // a coarse cell spans several scatter cells
  for (int64_t bj = floor_div(c.j - reach, kBlockSide); bj <= floor_div(c.j + last + reach, kBlockSide); ++bj) {
    for (int64_t bi = floor_div(c.i - reach, kBlockSide); bi <= floor_div(c.i + last + reach, kBlockSide); ++bi) {
      Block* b = find_block(layer, bi, bj);
      if (b == nullptr) continue;
      for (uint32_t mask = b->accepted_mask; mask != 0; mask &= mask - 1) {
        Cell& other = b->cells[std::countr_zero(mask)];
        if (&other != &c && blocks(layer, c, a, layer, other)) {
          c.last_blocker = &other;
          return true;
        }
      }
    }
  }
  return false;
}

void ScatterField::list_neighbours(uint32_t layer, Cell& c, const Candidate& a) {
  const ResourceLayer& l = layers_.layer(layer);
  const Position p = position(layer, c, a);
  auto add = [&](uint32_t lb) {
    return [this, lb, &c](Cell& n) {
      if (&n != &c) neighbours_.push_back(Neighbour{lb, &n});
      return true;
    };
  };
  if (l.method == ScatterMethod::kBlueNoise) {
    visit_cells(layer, p, l.r_max(), same_layer_reach, c.r, add(layer));
  }
  for (uint32_t lb = 0; lb < layers_.size(); ++lb) {
    if (lb == layer) continue;
    const double reach = l.footprint + layers_.layer(lb).footprint;
    visit_cells(lb, p, reach, fixed_reach, reach, add(lb));
  }
}

void ScatterField::decide_next(uint32_t layer, Cell& start) {
  frames_.push_back(Frame{layer, &start});
  while (!frames_.empty()) {
    // One step decides or defers one candidate: the finest grain of the scatter work.
    poll_abandon(abandon_);
    const size_t fi = frames_.size() - 1;
    Frame f = frames_[fi];
    Cell& c = *f.cell;
    const Candidate& a = c.candidates[c.next];
    bool blocked = false, pushed = false;
    if (!f.listed) {
      f.neighbours_begin = neighbours_.size();
      f.listed = true;
      blocked = layers_.layer(f.layer).method == ScatterMethod::kBlueNoise &&
                blocked_by_accepted_nearby(f.layer, c, a);
      if (!blocked) {
        list_neighbours(f.layer, c, a);
        // A conflict with an already accepted earlier candidate settles it without more work.
        for (size_t k = f.neighbours_begin; k < neighbours_.size() && !blocked; ++k) {
          blocked = blocks(f.layer, c, a, neighbours_[k].layer, *neighbours_[k].cell);
        }
      }
      f.neighbours_end = neighbours_.size();
      f.cursor = f.neighbours_begin;
    }
    for (; !blocked && f.cursor < f.neighbours_end; ++f.cursor) {
      const Neighbour nb = neighbours_[f.cursor];
      Cell& n = *nb.cell;
      // Earlier candidates of n that could block a must be decided first, in n's order.
      for (uint32_t k = n.next; k < n.count; ++k) {
        Candidate& b = n.candidates[k];
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
      // If the same-layer blocker's disc covers the whole cell, it blocks every later
      // candidate of the cell too: reject them all at once.
      const bool covered = c.last_blocker != nullptr && covers(f.layer, *c.last_blocker, c);
      c.next = covered ? c.count : c.next + 1;
    } else {
      c.accepted = static_cast<int32_t>(c.next);
      c.block->accepted_mask |= static_cast<uint16_t>(1u << (&c - c.block->cells));
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
    poll_abandon(abandon_);
    const ResourceLayer& l = layers_.layer(layer);
    const int64_t n = l.cells_per_chunk;
    const int64_t i0 = chunk.x * n, j0 = chunk.z * n;
    for (int64_t j = j0; j < j0 + n; ++j) {
      for (int64_t i = i0; i < i0 + n; ++i) {
        // Coarse cells cover several positions (and may straddle the chunk's border): visit
        // each cell once, at its first position inside the chunk.
        Cell& c = cell(layer, i, j);
        if (i != std::max(c.i, i0) || j != std::max(c.j, j0)) continue;
        decide_all(layer, c);
        if (c.accepted < 0) continue;
        Candidate& a = c.candidates[c.accepted];
        const int64_t sub_x = local_sub(layer, c.i, a.u, chunk.x), sub_z = local_sub(layer, c.j, a.v, chunk.z);
        if (sub_x < 0 || sub_z < 0 || sub_x >= n * kSub || sub_z >= n * kSub) continue;  // anchored elsewhere
        if (!viable(layer, c, a)) continue;
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
        found.push_back(Keyed{sub_z, sub_x, o});
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
