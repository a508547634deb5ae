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

// A rejection by an accepted earlier candidate is final whenever it is found: a cell rejects
// its next candidates at once while the one that blocked the last still blocks them, and waits
// for the turn of the first it cannot reject so (only an acceptance needs every earlier
// candidate decided). A whole scan of the accepted cells around costs more than it saves here.
// A member, not a lambda of sweep_chunk, which keeps that under 60 lines: GCC called the lambda
// out of line too, so the sweep runs the same code.
void ScatterField::wait_for_turn(uint32_t layer, Cell& c) {
  while (c.next < c.count) {
    const Candidate& a = candidate(layer, c, c.next);
    if (!blocked_by_last_blocker(layer, c, a)) {
      rounds_[a.k()].push_back(Waiting{a.t, &c});
      return;
    }
    settle(layer, c, true, true);
  }
}

void ScatterField::sweep_chunk(uint32_t layer, ChunkCoord chunk) {
  const Layer& ly = layer_[layer];
  const int64_t i0 = chunk.x * ly.n, j0 = chunk.z * ly.n;
  for (auto& round : rounds_) round.clear();
  if (rules_.own_spacing) {
    swept_ = CellRect{i0, j0, i0 + ly.n, j0 + ly.n};
    swept_accepted_.assign(static_cast<size_t>(ly.n * ly.n), SweptAccepted{});
  }
  for_each_cell_in_chunk(layer, chunk, [&](Cell& c) {
    // Accepted before this sweep (a neighbouring chunk's lazy resolution reached it).
    if (rules_.own_spacing && c.accepted >= 0) note_swept_acceptance(c);
    wait_for_turn(layer, c);
  });
  // The chunk's cells are decided in arrival order from here: the lazy resolution may leave
  // them out of neighbour lists (field.h, swept_), and settle() notes acceptances in
  // swept_accepted_. Not after the sweep, nor if it is abandoned.
  struct Swept {
    int64_t& layer;
    ~Swept() { layer = -1; }
  } const swept{swept_layer_};
  if (rules_.own_spacing) swept_layer_ = layer;
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
        wait_for_turn(layer, c);
        continue;
      }
      if (inner(c)) {
        const Candidate& a = candidate(layer, c, c.next);
        settle(layer, c, rules_.own_spacing ? blocked_in_swept_chunk(c, a) : blocked_by_any_accepted(layer, c, a),
               true);
      } else {
        decide_until(layer, c, c.next + 1u);
      }
      wait_for_turn(layer, c);  // a later round, if the cell is still undecided
    }
  }
}

void ScatterField::note_swept_acceptance(Cell& c) {
  const Candidate& b = c.candidates[c.accepted];
  // The scatter cell b lies in (a coarse cell spans several), relative to the chunk's corner.
  const int64_t n = swept_.i1 - swept_.i0;
  const int64_t si = c.i - swept_.i0 + (b.u >> kSubBits), sj = c.j - swept_.j0 + (b.v >> kSubBits);
  if (si < 0 || si >= n || sj < 0 || sj >= n) return;  // a coarse cell straddling the border
  swept_accepted_[static_cast<size_t>(sj * n + si)] =
      SweptAccepted{(c.i - swept_.i0) * kSub + b.u, (c.j - swept_.j0) * kSub + b.v, b.t, &c};
}

bool ScatterField::blocked_in_swept_chunk(Cell& c, const Candidate& a) {
  // Exactly blocks() under ScatterRules::own_spacing for each accepted candidate b in c's
  // window: b earlier than a (time, then cell) and within c.r by distance2()'s formula (the
  // same integer offsets). c's last blocker was tried when c was queued (wait_for_turn).
  // Which blocker is found first never changes the answer, but the nearest is the likeliest to
  // cover the cell (settle()), sparing its later candidates: scanned in rows, the sweep was 3 to 5 %
  // slower than ring by ring outwards.
  const int64_t n = swept_.i1 - swept_.i0;
  const int64_t ax = (c.i - swept_.i0) * kSub + a.u, az = (c.j - swept_.j0) * kSub + a.v;
  const double r2 = c.r * c.r, unit = layer_[static_cast<size_t>(swept_layer_)].unit;
  const int64_t ci = c.i - swept_.i0, cj = c.j - swept_.j0, last = c.span - 1;
  auto blocked_at = [&](int64_t i, int64_t j) {
    const SweptAccepted& b = swept_accepted_[static_cast<size_t>(j * n + i)];
    if (b.cell == nullptr) return false;
    const bool before = b.t != a.t ? b.t < a.t : std::tie(b.cell->i, b.cell->j) < std::tie(c.i, c.j);
    if (!before || same_layer_distance2(ax - b.x, az - b.z, unit) >= r2) return false;
    c.last_blocker = b.cell;
    c.last_blocker_tried = false;
    return true;
  };
  // c's own scatter cells hold none but c's candidates: rings around them, nearest first.
  for (int64_t d = 1; d <= c.reach; ++d) {
    const int64_t i0 = ci - d, i1 = ci + last + d, j0 = cj - d, j1 = cj + last + d;
    for (int64_t i = i0; i <= i1; ++i) {
      if (blocked_at(i, j0) || blocked_at(i, j1)) return true;
    }
    for (int64_t j = j0 + 1; j < j1; ++j) {
      if (blocked_at(i0, j) || blocked_at(i1, j)) return true;
    }
  }
  return false;
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
