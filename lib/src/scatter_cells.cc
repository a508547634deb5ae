// How ScatterField fills a block when it is first needed (see scatter_field.h): its cells'
// densities (and, for noise_peaks, which cells are peaks), coarser cells in sparse blue-noise
// blocks, and each cell's candidates, drawn from hashes of the cell alone. Once per block; the
// lookups on the hot path (block, cell) stay in scatter_field.cc, where they inline.
#include <algorithm>
#include <cmath>
#include <limits>

#include "scatter_constants.h"
#include "scatter_field.h"

namespace chunkforge {

using namespace scatter;


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

namespace {

// Each cell's peak value (noise_peaks): its density times a per-cell random factor, ties
// broken by the hash itself; over the block and a border of `halo` cells.
using PeakValues = std::vector<std::pair<double, uint64_t>>;

// Cells of the border noise_peaks compares each cell with (+-halo); 0 for other methods.
int peak_halo(const ResourceLayer& l, int64_t n, int64_t size) {
  if (l.method != ScatterMethod::kNoisePeaks) return 0;
  return std::max(1, static_cast<int>(std::lround(l.peak_window * static_cast<double>(n) / (2.0 * static_cast<double>(size)))));
}

// `first_i`, `first_j`: the scatter cell at the block's lowest corner.
PeakValues peak_values(uint64_t seed, const ResourceLayer& l, int64_t first_i, int64_t first_j, int halo, int side,
                       const std::vector<double>& density) {
  PeakValues peak(density.size());
  for (int jj = 0; jj < side; ++jj) {
    for (int ii = 0; ii < side; ++ii) {
      const uint64_t r = hash(seed, kPeakSalt, l.salt.value, first_i - halo + ii, first_j - halo + jj);
      const size_t k = static_cast<size_t>(jj) * side + ii;
      peak[k] = {density[k] * (0.25 + 0.75 * unit_double(r)), r};
    }
  }
  return peak;
}

// Whether block cell (ii, jj) holds the largest peak value within +-halo cells.
bool is_local_peak(const PeakValues& peak, int side, int halo, int ii, int jj) {
  const auto& self = peak[static_cast<size_t>(jj + halo) * side + (ii + halo)];
  for (int dj = -halo; dj <= halo; ++dj) {
    for (int di = -halo; di <= halo; ++di) {
      if ((di != 0 || dj != 0) && peak[static_cast<size_t>(jj + halo + dj) * side + (ii + halo + di)] > self) {
        return false;
      }
    }
  }
  return true;
}

// The random draws of one cell's candidates. One hash per cell (two mixes over the layer's
// seed); each candidate k then costs one mix for its position and one for its arrival time
// (counter-based: never a stream across cells).
class CellDraws {
 public:
  CellDraws(uint64_t layer_seed, int64_t i, int64_t j, int span)
      : cell_hash_(mix64(mix64(layer_seed ^ (static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL)) ^
                         (static_cast<uint64_t>(j) * 0xc2b2ae3d27d4eb4fULL) ^ static_cast<uint64_t>(span))) {}
  // Candidate k's 64 random bits (position, arrival time).
  uint64_t bits(uint64_t k) const { return mix64(cell_hash_ + (k + 1) * 0x9e3779b97f4a7c15ULL); }
  // An 8-bit draw per candidate for thinning, in [0, 1): eight from one mix (1/256 is ample
  // resolution for a keep probability).
  double thinning(uint32_t k) const {
    return static_cast<double>((mix64(cell_hash_ ^ (kThinSalt.value + k / 8)) >> (8 * (k % 8))) & 0xff) / 256.0;
  }

 private:
  uint64_t cell_hash_;
};

}  // namespace

void ScatterField::materialize(uint32_t layer, int64_t bi, int64_t bj, Block& b) {
  const ResourceLayer& l = layers_.layer(layer);
  const int64_t n = l.cells_per_chunk, size = layers_.chunk_size();
  // noise_peaks compares each cell with a window of +-halo cells: evaluate the block plus a
  // border of halo, all in one batch. Other methods need the block alone.
  const int halo = peak_halo(l, n, size);
  const int side = kBlockSide + 2 * halo;
  // Scratch buffers reused across blocks (materialize never nests).
  std::vector<Coord>& xs = scratch_xs_;
  std::vector<Coord>& zs = scratch_zs_;
  std::vector<double>& density = scratch_density_;
  xs.resize(side);
  zs.resize(side);
  density.resize(static_cast<size_t>(side) * side);
  for (int k = 0; k < side; ++k) {
    // Cell centre: (2 * cell + 1) / 2 cells, exactly.
    xs[k] = grid_coord(bi * kBlockSide - halo + k, 1u << (kSubBits - 1), n, size);
    zs[k] = grid_coord(bj * kBlockSide - halo + k, 1u << (kSubBits - 1), n, size);
  }
  layers_.density_grid(layer, xs.data(), side, zs.data(), side, density.data());
  const PeakValues peak =
      halo > 0 ? peak_values(seed_, l, bi * kBlockSide, bj * kBlockSide, halo, side, density) : PeakValues{};

  // Sparse blocks of blue-noise layers use coarser cells (level 1: 2 x 2 scatter cells, level
  // 2: the whole block) when every density in the block allows it: cell diagonals stay below
  // the smallest spacing in the cell, so a cell still holds at most one point, and thinning
  // by the level's spacing keeps dart intensity proportional to 1 / r^2. Work then follows the
  // number of points rather than the area.
  double r_lo = std::numeric_limits<double>::infinity();
  for (int jj = 0; jj < kBlockSide; ++jj) {
    for (int ii = 0; ii < kBlockSide; ++ii) {
      r_lo = std::min(r_lo, l.spacing / density[static_cast<size_t>(jj + halo) * side + (ii + halo)]);
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
          c.r = std::min(c.r, l.spacing / density[static_cast<size_t>(jj + halo) * side + (ii + halo)]);
        }
      }
      c.density = l.spacing / c.r;
      c.peak = halo > 0 && is_local_peak(peak, side, halo, ci, cj);
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
  const CellDraws draws(layer_seed_[layer], c.i, c.j, c.span);
  auto bits = [&draws](uint64_t k) { return draws.bits(k); };
  auto draw = [&draws](uint32_t k) { return draws.thinning(k); };
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

}  // namespace chunkforge
