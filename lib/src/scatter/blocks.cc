// ScatterField's blocks and cells (see field.h): the pools they live in, lookup by coordinate,
// and how a block is filled when first needed (with the other blocks of its 2 x 2 group): its
// cells' densities (and, for noise_peaks, which cells are peaks), coarser cells in sparse
// blocks, and each cell's candidates, drawn from hashes of the cell alone by the layer's method
// record.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "scatter/constants.h"
#include "scatter/field.h"
#include "scatter/spare_pools.h"

namespace chunkforge {

using namespace scatter;

ScatterField::ScatterField(const ResourceLayers& layers, const Terrain& terrain, uint64_t seed,
                           StructurePlanner* structures, ScatterRules rules)
    : layers_(layers),
      terrain_(terrain),
      seed_(seed),
      structures_(structures),
      rules_(rules),
      recent_(layers.size() * kRecentBlocks),
      tiles_(layers.size()) {
  const size_t count = layers.size();
  const double size = static_cast<double>(layers.chunk_size());
  for (uint32_t id = 0; id < count; ++id) {
    const ResourceLayer& l = layers.layer(id);
    const double n = static_cast<double>(l.cells_per_chunk);
    const MethodRecord& method = method_record(l.method);
    const double side = size / n;
    const bool gated = rules.threshold_gates_sampling && l.threshold > l.dmin;
    const double r_reach = (gated ? l.spacing / l.threshold : l.r_max()) + kPruneMargin;
    layer_.push_back(Layer{&l, &method, l.cells_per_chunk, side, size / (n * kSubD),
                           hash(seed, kDartSalt, l.salt.value), method.halo(l, l.cells_per_chunk, layers.chunk_size()),
                           r_reach, static_cast<int64_t>(std::ceil(r_reach / side))});
  }
  pair_scale_.resize(count * count);
  for (size_t a = 0; a < count; ++a) {
    for (size_t b = 0; b < count; ++b) {
      pair_scale_[a * count + b] = size / (static_cast<double>(layer_[a].n) * static_cast<double>(layer_[b].n) * kSubD);
    }
  }
}

constexpr size_t kBlockPool = 16;        // blocks per pool
constexpr size_t kCandidateSlab = 4096;  // candidates per slab (a block holds at most 192)

ScatterField::~ScatterField() {
  SparePools<Block>::keep(block_pools_);
  SparePools<Candidate>::keep(slabs_);
}

void ScatterField::forget(StructurePlanner* structures) {
  SparePools<Block>::keep(block_pools_);
  SparePools<Candidate>::keep(slabs_);
  block_pools_.clear();
  slabs_.clear();
  block_pool_used_ = slab_used_ = 0;
  index_.clear();
  std::fill(recent_.begin(), recent_.end(), RecentBlock{});
  // Empty between chunks; cleared anyway, as a new field's would be.
  neighbours_.clear();
  existence_frames_.clear();
  rivals_.clear();
  structures_ = structures;
  abandon_ = nullptr;
}

ScatterField::Block* ScatterField::new_block() {
  if (block_pools_.empty() || block_pool_used_ == kBlockPool) {
    block_pools_.push_back(SparePools<Block>::take(kBlockPool));
    block_pool_used_ = 0;
  }
  Block* b = &block_pools_.back()[block_pool_used_++];
  *b = Block{};  // a pool may come from an earlier field
  return b;
}

ScatterField::Candidate* ScatterField::candidate_storage(size_t count) {
  static_assert(kCandidateSlab >= kBlockCells * kDartsPerCell);
  if (slabs_.empty() || slab_used_ + count > kCandidateSlab) {
    // Not initialised: make_candidates writes every field before it is read.
    slabs_.push_back(SparePools<Candidate>::take(kCandidateSlab));
    slab_used_ = 0;
  }
  Candidate* out = slabs_.back().get() + slab_used_;
  slab_used_ += count;
  return out;
}

ScatterField::Block& ScatterField::new_or_indexed_block(uint32_t layer, int64_t bi, int64_t bj, RecentBlock& recent) {
  Block* b = index_.find(layer, bi, bj);
  if (b == nullptr) {
    // Blocks are made by groups of kGroupSide x kGroupSide, so none of this group exists yet.
    materialize_group(layer, floor_div(bi, kGroupSide), floor_div(bj, kGroupSide));
    b = index_.find(layer, bi, bj);
  }
  recent = RecentBlock{bi, bj, b};
  return *b;
}

namespace {

// Each cell's peak value (noise_peaks): its density times a per-cell random factor, ties
// broken by the hash itself; over the block and a border of `halo` cells.
using PeakValues = std::vector<std::pair<double, uint64_t>>;

// `first_i`, `first_j`: the scatter cell at the block's lowest corner.
void peak_values(uint64_t seed, const ResourceLayer& l, int64_t first_i, int64_t first_j, int halo, int side,
                 const std::vector<double>& density, PeakValues& peak) {
  peak.resize(density.size());
  for (int jj = 0; jj < side; ++jj) {
    for (int ii = 0; ii < side; ++ii) {
      const uint64_t r = hash(seed, kPeakSalt, l.salt.value, first_i - halo + ii, first_j - halo + jj);
      const size_t k = static_cast<size_t>(jj) * side + ii;
      peak[k] = {density[k] * (0.25 + 0.75 * unit_double(r)), r};
    }
  }
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

}  // namespace

void ScatterField::cell_centres(uint32_t layer, int64_t first, int count, std::vector<Coord>& out) const {
  out.resize(static_cast<size_t>(count));
  // Cell centre: (2 * cell + 1) / 2 cells, exactly.
  for (int k = 0; k < count; ++k) {
    out[k] = grid_coord(first + k, 1u << (kSubBits - 1), layer_[layer].n, layers_.chunk_size());
  }
}

void ScatterField::prefetch_densities(uint32_t layer, ChunkCoord chunk) {
  const Layer& ly = layer_[layer];
  constexpr int64_t kCells = kGroupSide * kBlockSide;
  // At most 128 x 128 cells (128 KiB); noise_peaks' halo takes the group's own batch. A stream's
  // next chunk is mostly in the memo already (its neighbours' lazy resolution made it).
  constexpr int64_t kMaxSide = 128;
  const int64_t i0 = chunk.x * ly.n, j0 = chunk.z * ly.n;
  if (ly.halo > 0 || find_block(layer, floor_div(i0, kBlockSide), floor_div(j0, kBlockSide)) != nullptr) return;
  DensityTile& tile = tiles_[layer];
  const int64_t gi0 = floor_div(i0, kCells), gi1 = floor_div(i0 + ly.n - 1, kCells);
  const int64_t gj0 = floor_div(j0, kCells), gj1 = floor_div(j0 + ly.n - 1, kCells);
  const int64_t nx = (gi1 - gi0 + 1) * kCells, nz = (gj1 - gj0 + 1) * kCells;
  if (nx > kMaxSide || nz > kMaxSide) return;
  tile.gi0 = gi0;
  tile.gi1 = gi1;
  tile.gj0 = gj0;
  tile.gj1 = gj1;
  tile.density.resize(static_cast<size_t>(nx * nz));
  cell_centres(layer, gi0 * kCells, static_cast<int>(nx), scratch_xs_);
  cell_centres(layer, gj0 * kCells, static_cast<int>(nz), scratch_zs_);
  layers_.density_grid(layer, scratch_xs_.data(), static_cast<int>(nx), scratch_zs_.data(), static_cast<int>(nz),
                       tile.density.data());
}

void ScatterField::materialize_group(uint32_t layer, int64_t gi, int64_t gj) {
  const Layer& ly = layer_[layer];
  const int halo = ly.halo;
  const int cells = kGroupSide * kBlockSide;
  const int side = cells + 2 * halo;
  const int64_t first_i = gi * cells, first_j = gj * cells;  // the group's lowest scatter cell
  const DensityTile& tile = tiles_[layer];
  const double* density = nullptr;  // the group's lowest cell's, in rows of `stride`
  size_t stride = 0;
  if (tile.holds(gi, gj)) {
    stride = tile.stride();
    density = tile.density.data() + static_cast<size_t>(gj - tile.gj0) * cells * stride +
              static_cast<size_t>(gi - tile.gi0) * cells;
  } else {
    // The group's densities in one batch (a noise grid costs much less per sample when
    // larger). A method with a halo (noise_peaks) compares each cell with +-halo cells: the
    // batch has that border too.
    cell_centres(layer, first_i - halo, side, scratch_xs_);
    cell_centres(layer, first_j - halo, side, scratch_zs_);
    scratch_density_.resize(static_cast<size_t>(side) * side);
    layers_.density_grid(layer, scratch_xs_.data(), side, scratch_zs_.data(), side, scratch_density_.data());
    if (halo > 0) peak_values(seed_, *ly.def, first_i, first_j, halo, side, scratch_density_, scratch_peaks_);
    stride = static_cast<size_t>(side);
    density = scratch_density_.data() + static_cast<size_t>(halo) * side + halo;
  }
  for (int oj = 0; oj < kGroupSide; ++oj) {
    for (int oi = 0; oi < kGroupSide; ++oi) {
      const int64_t bi = gi * kGroupSide + oi, bj = gj * kGroupSide + oj;
      Block* b = new_block();
      index_.insert(layer, bi, bj, b);
      const int ox = oi * kBlockSide, oz = oj * kBlockSide;
      fill_block(layer, bi, bj, ox, oz, density + static_cast<size_t>(oz) * stride + ox, stride, *b);
    }
  }
}

void ScatterField::fill_block(uint32_t layer, int64_t bi, int64_t bj, int ox, int oz, const double* density,
                              size_t stride, Block& b) {
  const Layer& ly = layer_[layer];
  const ResourceLayer& l = *ly.def;
  const int halo = ly.halo;
  const int side = kGroupSide * kBlockSide + 2 * halo;
  // r at each scatter cell of the block, and the smallest.
  double r_at[kBlockSide][kBlockSide];
  double r_lo = std::numeric_limits<double>::infinity();
  for (int jj = 0; jj < kBlockSide; ++jj) {
    const double* row = density + static_cast<size_t>(jj) * stride;
    for (int ii = 0; ii < kBlockSide; ++ii) {
      r_at[jj][ii] = l.spacing / row[ii];
      r_lo = std::min(r_lo, r_at[jj][ii]);
    }
  }
  // Sparse blocks of methods with coarse cells use coarser cells (level 1: 2 x 2 scatter
  // cells, level 2: the whole block) when every density in the block allows it: cell
  // diagonals stay below the smallest spacing in the cell, so a cell still holds at most one
  // point, and thinning by the level's spacing keeps dart intensity proportional to 1 / r^2.
  // Work then follows the number of points rather than the area.
  b.level = 0;
  if (ly.method->coarse_cells) {
    while (b.level < kMaxLevel && r_lo >= l.r_min() * static_cast<double>(2 << b.level)) ++b.level;
  }
  const int span = 1 << b.level, per_side = kBlockSide >> b.level;
  b.cell_count = per_side * per_side;
  for (int cj = 0; cj < per_side; ++cj) {
    for (int ci = 0; ci < per_side; ++ci) {
      Cell& c = b.cells[cj * per_side + ci];
      c.block = &b;
      c.span = static_cast<uint8_t>(span);
      c.i = bi * kBlockSide + ci * span;
      c.j = bj * kBlockSide + cj * span;
      // A coarse cell's spacing is the smallest of its scatter cells'.
      c.r = std::numeric_limits<double>::infinity();
      for (int jj = cj * span; jj < (cj + 1) * span; ++jj) {
        for (int ii = ci * span; ii < (ci + 1) * span; ++ii) c.r = std::min(c.r, r_at[jj][ii]);
      }
      c.density = l.spacing / c.r;
      // ScatterRules::own_spacing's window is all that can block a candidate: with the margin.
      const double reach_r = rules_.own_spacing ? c.r + kPruneMargin : c.r;
      if (ly.method->spaced) c.reach = static_cast<int>(-floor_to_int(-(reach_r / ly.side)));  // ceil, inline
      c.peak = halo > 0 && is_local_peak(scratch_peaks_, side, halo, ox + ci, oz + cj);
      b.r_max = std::max(b.r_max, c.r);
      b.density_max = std::max(b.density_max, c.density);
    }
  }
}

namespace {
// Bits set in a 16-bit mask, in a few inline operations: std::popcount is a call into libgcc
// here, the x86-64 baseline the library is built for having no POPCNT (0.8 % of a
// default-world chunk in `perf`).
constexpr uint32_t popcount16(uint32_t x) {
  x -= (x >> 1) & 0x5555u;
  x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
  x = (x + (x >> 4)) & 0x0f0fu;
  return (x + (x >> 8)) & 0x1fu;
}
static_assert([] {  // each bit alone, and the prefixes of every length
  for (uint32_t k = 0; k < 16; ++k) {
    if (popcount16(1u << k) != 1 || popcount16((2u << k) - 1) != k + 1) return false;
  }
  return popcount16(0) == 0 && popcount16(0xa5c3u) == 8;
}());
}  // namespace

void ScatterField::draw_cell(uint32_t layer, Cell& c) {
  const Layer& ly = layer_[layer];
  const bool sampled = !rules_.threshold_gates_sampling || c.density >= ly.def->threshold;
  c.unmade = 0;
  if (sampled) {  // a cell below its threshold holds no darts, and needs no draws
    const CellDraws draws(ly.seed, c.i, c.j, c.span);
    c.draws_hash = draws.hash();
    c.unmade = static_cast<uint16_t>(ly.method->kept(*ly.def, CellView{c.span, c.r, c.density, c.peak}, draws));
  }
  c.count = static_cast<uint8_t>(popcount16(c.unmade));
  c.candidates = c.count > 0 ? candidate_storage(c.count) : nullptr;
  c.drawn = true;
}

void ScatterField::make_candidates(uint32_t layer, Cell& c, uint32_t until) {
  const Layer& ly = layer_[layer];
  const CellDraws draws(c.draws_hash);
  const CellView view{c.span, c.r, c.density, c.peak};
  for (; c.made < until; ++c.made) {
    const uint32_t k = static_cast<uint32_t>(std::countr_zero(c.unmade));
    c.unmade &= c.unmade - 1;
    const uint64_t bits = draws.bits(k);
    Candidate& a = c.candidates[c.made];
    ly.method->place(*ly.def, view, bits, a.u, a.v);
    a.t = arrival_time(k, bits);
  }
}

}  // namespace chunkforge
