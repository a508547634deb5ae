// Which cells can interact with a candidate (see field.h): the cells within reach of it, pruned
// block by block on densities alone, and the shortcuts that settle most rejections by an
// accepted candidate close by.
#include <algorithm>
#include <bit>
#include <cmath>

#include "scatter/constants.h"
#include "scatter/field.h"
#include "scatter/geometry.h"

namespace chunkforge {

using namespace scatter;

ScatterField::Position ScatterField::position(uint32_t layer, const Cell& c, const Candidate& a) const {
  const int64_t n = layer_[layer].n;
  Position p;
  p.cx = floor_div(c.i, n);
  p.cz = floor_div(c.j, n);
  p.x = local(layer, c.i, a.u, p.cx);
  p.z = local(layer, c.j, a.v, p.cz);
  return p;
}

namespace {
// Same layer: max(r(a), r(b)). Other layers: a fixed reach, passed as a_r.
struct SameLayerReach {
  double operator()(double a_r, double cell_r) const { return std::max(a_r, cell_r); }
};
struct FixedReach {
  double operator()(double a_r, double) const { return a_r; }
};
}  // namespace

template <typename Reach, typename Fn>
bool ScatterField::visit_cells(uint32_t layer, const Position& p, double reach, Reach cell_reach, double a_r,
                               double min_density, Fn&& fn, const CellRect* skip) {
  const int64_t n = layer_[layer].n;
  const double s = layer_[layer].side;
  auto index = [&](double v, int64_t chunk) { return chunk * n + floor_to_int(v / s); };
  const double r = reach + kPruneMargin;
  const int64_t i0 = index(p.x - r, p.cx), i1 = index(p.x + r, p.cx);
  const int64_t j0 = index(p.z - r, p.cz), j1 = index(p.z + r, p.cz);
  for (int64_t bj = floor_div(j0, kBlockSide); bj <= floor_div(j1, kBlockSide); ++bj) {
    for (int64_t bi = floor_div(i0, kBlockSide); bi <= floor_div(i1, kBlockSide); ++bi) {
      const bool partly_skipped = skip != nullptr && skip->overlaps(bi * kBlockSide, bj * kBlockSide, kBlockSide);
      if (partly_skipped && skip->holds(bi * kBlockSide, bj * kBlockSide, kBlockSide)) continue;
      // Densities alone decide the pruning; darts are drawn only for cells that pass it.
      Block& b = block(layer, bi, bj);
      const double bx0 = static_cast<double>(bi * kBlockSide - p.cx * n) * s;
      const double bz0 = static_cast<double>(bj * kBlockSide - p.cz * n) * s;
      // The block's largest reach bounds every cell in it.
      const double rb = cell_reach(a_r, b.r_max) + kPruneMargin;
      if (b.density_max < min_density || gap2(p.x, p.z, bx0, bz0, kBlockSide * s) >= rb * rb) continue;
      // Cells by rows, positions stepped from the block's corner (kPruneMargin covers the
      // rounding); a row out of the block's reach is out of every cell's.
      const int per_side = kBlockSide >> b.level;
      const double side = static_cast<double>(1 << b.level) * s;
      for (int cj = 0; cj < per_side; ++cj) {
        const double z0 = bz0 + cj * side;
        const double dz = gap(p.z, z0, z0 + side), dz2 = dz * dz;
        if (dz2 >= rb * rb) continue;
        for (int ci = 0; ci < per_side; ++ci) {
          Cell& cell = b.cells[cj * per_side + ci];
          const double rc = cell_reach(a_r, cell.r) + kPruneMargin;
          const double x0 = bx0 + ci * side;
          const double dx = gap(p.x, x0, x0 + side);
          if (cell.density < min_density || dx * dx + dz2 >= rc * rc) continue;
          if (partly_skipped && skip->overlaps(cell.i, cell.j, cell.span)) continue;
          if (!cell.drawn) draw_cell(layer, cell);
          if (cell.count == 0) continue;
          if (!fn(cell)) return false;
        }
      }
    }
  }
  return true;
}

bool ScatterField::covers(uint32_t layer, const Cell& blocker, const Cell& c) const {
  if (blocker.accepted < 0) return false;
  const Candidate& b = blocker.candidates[blocker.accepted];
  // c's candidates are in time order, so b earlier than the next undecided one is earlier than
  // all of them.
  if (c.next + 1 < c.count && !earlier(layer, blocker, b, layer, c, c.candidates[c.next + 1])) return false;
  // b relative to c's lowest corner, in sub-cell units (exact integers); c's candidates lie in
  // [0, extent)^2. disc_covers_square answers "yes" only if the exact test, distance2 < max(c.r,
  // blocker.r)^2, rejects each of them (geometry.h has the proof). So the shortcut removes only
  // what exact evaluation would remove, and which blocker it happens to try (the last one
  // found, which depends on what the memo held) never changes the output.
  const int64_t bx = (blocker.i - c.i) * kSub + b.u, bz = (blocker.j - c.j) * kSub + b.v;
  // (ScatterRules::own_spacing: the exact test compares with c.r alone, so the disc is c's.)
  return scatter::disc_covers_square(bx, bz, kSub * c.span, layer_[layer].unit, rules_.own_spacing ? c.r : blocker.r);
}

uint32_t ScatterField::window_mask(const Block& b, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  // Window bounds in scatter cells relative to the block's corner, clipped to the block, then
  // in the block's cells (which span 2^level scatter cells).
  auto first = [&](int64_t v) { return static_cast<int>(std::max<int64_t>(v, 0)) >> b.level; };
  auto last = [&](int64_t v) { return static_cast<int>(std::min<int64_t>(v, kBlockSide - 1)) >> b.level; };
  const int per_side = kBlockSide >> b.level;
  const int ci0 = first(i0), ci1 = last(i1), cj0 = first(j0), cj1 = last(j1);
  const uint32_t row = ((1u << (ci1 - ci0 + 1)) - 1) << ci0;
  uint32_t mask = 0;
  for (int cj = cj0; cj <= cj1; ++cj) mask |= row << (cj * per_side);
  return mask;
}

bool ScatterField::blocked_by(uint32_t layer, Cell& c, const Candidate& a, Cell& other) {
  if (!blocks(layer, c, a, layer, other)) return false;
  c.last_blocker = &other;
  c.last_blocker_tried = false;
  return true;
}

bool ScatterField::blocked_by_accepted_nearby(uint32_t layer, Cell& c, const Candidate& a) {
  // Most rejections are settled here by an accepted earlier candidate of the same layer close
  // by: first the cell that blocked the cell's previous candidate, then the accepted cells of
  // the blocks within r(a) (a bit mask per block), c's own block first (the nearest cells),
  // stopping at the first blocker. Blocks that do not exist yet hold nothing accepted and are
  // not created. Which blocker is found first never changes the answer.
  if (blocked_by_last_blocker(layer, c, a)) return true;
  // The window of scatter cells within r of the cell, and per block the bits of its cells that
  // overlap the window.
  const int64_t i0 = c.i - c.reach, i1 = c.i + c.span - 1 + c.reach;
  const int64_t j0 = c.j - c.reach, j1 = c.j + c.span - 1 + c.reach;
  auto blocked_in = [&](Block& b, int64_t bi, int64_t bj) {
    const uint32_t window =
        window_mask(b, i0 - bi * kBlockSide, i1 - bi * kBlockSide, j0 - bj * kBlockSide, j1 - bj * kBlockSide);
    for (uint32_t mask = b.accepted_mask & window; mask != 0; mask &= mask - 1) {
      Cell& other = b.cells[std::countr_zero(mask)];
      if (&other != &c && blocked_by(layer, c, a, other)) return true;
    }
    return false;
  };
  const int64_t own_bi = floor_div(c.i, kBlockSide), own_bj = floor_div(c.j, kBlockSide);
  if (c.block->accepted_mask != 0 && blocked_in(*c.block, own_bi, own_bj)) return true;
  const int64_t bi0 = floor_div(i0, kBlockSide), bi1 = floor_div(i1, kBlockSide);
  const int64_t bj0 = floor_div(j0, kBlockSide), bj1 = floor_div(j1, kBlockSide);
  for (int64_t bj = bj0; bj <= bj1; ++bj) {
    for (int64_t bi = bi0; bi <= bi1; ++bi) {
      if (bi == own_bi && bj == own_bj) continue;
      Block* b = find_block(layer, bi, bj);
      if (b != nullptr && b->accepted_mask != 0 && blocked_in(*b, bi, bj)) return true;
    }
  }
  return false;
}

void ScatterField::list_neighbours(uint32_t layer, Cell& c, const Candidate& a) {
  const ResourceLayer& l = *layer_[layer].def;
  const Position p = position(layer, c, a);
  // A decided cell (no undecided candidate left) matters only through its accepted candidate,
  // and not even then if it is of c's own layer with r <= c.r: blocked_by_accepted_nearby,
  // which the caller found false, has checked every such cell within c.r. Nor does a cell with
  // nothing accepted whose next candidate arrives after a: its candidates are in time order.
  auto add = [&](uint32_t lb) {
    return [this, lb, layer, &c, &a](Cell& n) {
      const bool decided = n.next >= n.count;
      const bool settled = decided && (n.accepted < 0 || (lb == layer && (rules_.own_spacing || n.r <= c.r)));
      if (&n == &c || settled) return true;
      uint64_t t = 0;
      if (!decided) {
        const Candidate& b = candidate(lb, n, n.next);
        if (n.accepted < 0 && !earlier(lb, n, b, layer, c, a)) return true;
        t = b.t;
      }
      neighbours_.push_back(Neighbour{lb, &n, t});
      return true;
    };
  };
  if (layer_[layer].method->spaced) {
    const double sampled_from = rules_.threshold_gates_sampling ? l.threshold : 0.0;
    if (rules_.own_spacing) {  // only the candidates within c's own spacing can block a
      const CellRect* skip = swept_layer_ == layer ? &swept_ : nullptr;
      visit_cells(layer, p, c.r, FixedReach{}, c.r, sampled_from, add(layer), skip);
    } else {
      visit_cells(layer, p, layer_[layer].r_reach, SameLayerReach{}, c.r, sampled_from, add(layer));
    }
  }
  if (rules_.layers_sampled_apart) return;  // other layers act on existence only: list_rivals
  for (uint32_t lb = 0; lb < layers_.size(); ++lb) {
    if (lb == layer) continue;
    const double reach = l.footprint + layer_[lb].def->footprint;
    // Cells below their layer's threshold hold no candidate that exists: none blocks c.
    visit_cells(lb, p, reach, FixedReach{}, reach, layer_[lb].def->threshold, add(lb));
  }
}

void ScatterField::list_rivals(uint32_t layer, Cell& c) {
  const Candidate& a = c.candidates[c.accepted];
  const Position p = position(layer, c, a);
  for (uint32_t lb = 0; lb < layers_.size(); ++lb) {
    if (lb == layer) continue;
    const double reach = layer_[layer].def->footprint + layer_[lb].def->footprint;
    visit_cells(lb, p, reach, FixedReach{}, reach, layer_[lb].def->threshold, [&](Cell& n) {
      // n is decided (in its own order) up to its last candidate before a within reach: only
      // such a candidate, accepted, is a rival. The ones after it never need deciding here.
      uint32_t end = n.next;
      for (uint32_t k = n.next; k < n.count; ++k) {
        const Candidate& b = candidate(lb, n, k);
        if (!earlier(lb, n, b, layer, c, a)) break;
        if (distance2(layer, c, a, lb, n, b) < reach * reach) end = k + 1;
      }
      decide_until(lb, n, end);
      if (n.accepted >= 0) {
        const Candidate& b = n.candidates[n.accepted];
        if (earlier(lb, n, b, layer, c, a) && distance2(layer, c, a, lb, n, b) < reach * reach) {
          rivals_.push_back(Neighbour{lb, &n});
        }
      }
      return true;
    });
  }
}

}  // namespace chunkforge
