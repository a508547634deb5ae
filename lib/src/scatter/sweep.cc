// A chunk's cells decided in arrival order (see field.h): the sweep that spares most of the
// lazy resolution's work inside a chunk.
//
// The lazy resolution decides a candidate after every earlier candidate within its reach, in
// whatever order cells are asked. Asked in rows, a cell's candidates find their neighbours
// ahead undecided, and deciding those first (a stack frame and a neighbour listing each) was
// most of a chunk's work. Asked in arrival order instead, every earlier candidate of the chunk
// is decided when a candidate comes up. If, moreover, every cell within the layer's largest
// spacing of the candidate's cell lies in the chunk (an *inner* cell), nothing undecided can
// block it: it is accepted iff no accepted earlier candidate lies within the spacing of the
// two, one scan of accepted cells. Cells nearer the border keep the lazy resolution for the
// cells outside the chunk, whose earlier candidates may be undecided.
//
// The order: arrival times are stratified (scatter/candidate.h: the top bits are the dart's
// round), so the chunk's candidates are taken round by round, each round sorted by time. A
// cell waits in the round of its next undecided candidate; a rejected candidate's cell moves
// on to a later round. Which order the cells are decided in never changes what is decided.
#include <algorithm>
#include <bit>
#include <tuple>

#include "abandon.h"
#include "scatter/constants.h"
#include "scatter/field.h"

namespace chunkforge {

using namespace scatter;

// Sorts in linear time: the times are uniform below the round's bits, so a counting sort on the
// next bits puts about one cell in each bucket, and an insertion pass finishes the order within
// buckets (std::sort cost a sixth of a chunk).
void ScatterField::sort_round(std::vector<Waiting>& round, std::vector<Waiting>& scratch,
                              std::vector<uint32_t>& counts) {
  const size_t n = round.size();
  if (n < 2) return;
  const int bits = static_cast<int>(std::bit_width(n - 1));  // 2^bits >= n buckets
  auto bucket = [&](const Waiting& w) { return static_cast<size_t>((w.t << (64 - kRoundShift)) >> (64 - bits)); };
  counts.assign((size_t{1} << bits) + 1, 0);
  for (const Waiting& w : round) ++counts[bucket(w) + 1];
  for (size_t b = 1; b < counts.size(); ++b) counts[b] += counts[b - 1];
  scratch.resize(n);
  for (const Waiting& w : round) scratch[counts[bucket(w)]++] = w;
  // Arrival order: time, then cell (earlier(); one layer, so no layer tie).
  auto before = [](const Waiting& x, const Waiting& y) {
    if (x.t != y.t) return x.t < y.t;
    return std::tie(x.cell->i, x.cell->j) < std::tie(y.cell->i, y.cell->j);
  };
  for (size_t k = 1; k < n; ++k) {
    const Waiting w = scratch[k];
    size_t at = k;
    for (; at > 0 && before(w, scratch[at - 1]); --at) scratch[at] = scratch[at - 1];
    scratch[at] = w;
  }
  round.swap(scratch);
}

bool ScatterField::sweeps(uint32_t layer) const {
  // Acceptance must depend on the layer alone: with version 1's rules another layer's
  // candidates can block, and those are not decided in this layer's order.
  return layer_[layer].method->spaced && (rules_.layers_sampled_apart || layers_.size() == 1);
}

void ScatterField::sweep_chunk(uint32_t layer, ChunkCoord chunk) {
  const Layer& ly = layer_[layer];
  const int64_t i0 = chunk.x * ly.n, j0 = chunk.z * ly.n;
  for (auto& round : rounds_) round.clear();
  // A rejection by an accepted earlier candidate is final whenever it is found: a cell rejects
  // its next candidates at once while the one that blocked the last still blocks them, and
  // waits for the turn of the first it cannot reject so (only an acceptance needs every earlier
  // candidate decided). A whole scan of the accepted cells around costs more than it saves here.
  auto wait = [&](Cell& c) {
    while (c.next < c.count) {
      const Candidate& a = candidate(layer, c, c.next);
      if (!blocked_by_last_blocker(layer, c, a)) {
        rounds_[a.k()].push_back(Waiting{a.t, &c});
        return;
      }
      settle(layer, c, true, true);
    }
  };
  for_each_cell_in_chunk(layer, chunk, [&](Cell& c) { wait(c); });
  // The chunk's cells are decided in arrival order from here: the lazy resolution may leave
  // them out of neighbour lists (field.h, swept_). Not after the sweep, nor if it is abandoned.
  struct Swept {
    int64_t& layer;
    ~Swept() { layer = -1; }
  } const swept{swept_layer_};
  if (rules_.own_spacing) {
    swept_layer_ = layer;
    swept_ = CellRect{i0, j0, i0 + ly.n, j0 + ly.n};
  }
  // An inner cell: its window of the layer's largest reach (ScatterRules::own_spacing: of its own
  // reach) lies in the chunk.
  auto inner = [&](const Cell& c) {
    const int64_t r = rules_.own_spacing ? c.reach : ly.max_reach;
    return c.i - r >= i0 && c.i + c.span - 1 + r < i0 + ly.n && c.j - r >= j0 && c.j + c.span - 1 + r < j0 + ly.n;
  };
  for (auto& round : rounds_) {
    sort_round(round, sort_scratch_, sort_counts_);
    for (const Waiting& w : round) {
      poll_abandon(abandon_);
      Cell& c = *w.cell;
      // Decided meanwhile by another's resolution (not expected: that decides only earlier
      // candidates, and the chunk's are decided up to here), it waits again for its next.
      if (c.next >= c.count || c.candidates[c.next].t != w.t) {
        wait(c);
        continue;
      }
      if (inner(c)) {
        settle(layer, c, blocked_by_any_accepted(layer, c, candidate(layer, c, c.next)), true);
      } else {
        decide_until(layer, c, c.next + 1u);
      }
      wait(c);  // a later round, if the cell is still undecided
    }
  }
}

bool ScatterField::blocked_by_any_accepted(uint32_t layer, Cell& c, const Candidate& a) {
  // Every accepted cell whose spacing reaches no farther than c's lies in c's window.
  if (blocked_by_accepted_nearby(layer, c, a)) return true;
  const Layer& ly = layer_[layer];
  // Constant spacing, or only c's own spacing counts (ScatterRules::own_spacing): that was all.
  if (rules_.own_spacing || ly.def->r_max() <= c.r) return false;
  // Beyond c's window, only accepted cells with a larger spacing than c's, which then reaches
  // across the gap. Blocks that do not exist hold nothing accepted.
  const Position p = position(layer, c, a);
  const int64_t i1 = c.i + c.span - 1, j1 = c.j + c.span - 1;
  for (int64_t bj = floor_div(c.j - ly.max_reach, kBlockSide); bj <= floor_div(j1 + ly.max_reach, kBlockSide); ++bj) {
    for (int64_t bi = floor_div(c.i - ly.max_reach, kBlockSide); bi <= floor_div(i1 + ly.max_reach, kBlockSide); ++bi) {
      Block* b = find_block(layer, bi, bj);
      if (b == nullptr || b->accepted_mask == 0 || b->r_max <= c.r) continue;
      const double bx0 = static_cast<double>(bi * kBlockSide - p.cx * ly.n) * ly.side;
      const double bz0 = static_cast<double>(bj * kBlockSide - p.cz * ly.n) * ly.side;
      const double rb = b->r_max + kPruneMargin;
      if (gap2(p.x, p.z, bx0, bz0, kBlockSide * ly.side) >= rb * rb) continue;
      for (uint32_t mask = b->accepted_mask; mask != 0; mask &= mask - 1) {
        Cell& other = b->cells[std::countr_zero(mask)];
        if (other.r > c.r && blocked_by(layer, c, a, other)) return true;
      }
    }
  }
  return false;
}

}  // namespace chunkforge
