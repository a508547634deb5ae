// The resolution of arrival order (see field.h): distances between candidates, which earlier
// candidates can block which, viability, and the explicit-stack walk that decides a candidate
// after the earlier ones within its reach.
#include <algorithm>

#include "abandon.h"
#include "scatter/constants.h"
#include "scatter/field.h"
#include "scatter/geometry.h"

namespace chunkforge {

using namespace scatter;

double ScatterField::distance2(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb,
                               const Cell& cb, const Candidate& b) const {
  // Positions in each layer's sub-cell units relative to a's chunk; cross-multiplying by the
  // other layer's cells per chunk puts both on one integer scale. The difference does not
  // depend on the reference chunk, so neither does the result.
  if (la == lb) {  // one grid: the plain sub-cell difference (covers() relies on this formula)
    return scatter::same_layer_distance2((ca.i - cb.i) * kSub + a.u - b.u, (ca.j - cb.j) * kSub + a.v - b.v,
                                         layer_[la].unit);
  }
  const int64_t na = layer_[la].n, nb = layer_[lb].n;
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
  const double reach = layer_[la].def->footprint + layer_[lb].def->footprint;
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
  const ResourceLayer& l = *layer_[layer].def;
  bool ok = c.density >= l.threshold;
  if (ok && l.filtered()) {
    const TerrainPoint p = terrain_.sample(world_x(layer, c, a), world_z(layer, c, a));
    ok = l.admits(p.values, p.biome, p.material);
  }
  if (ok && structures_ != nullptr) {
    ok = !structures_->covers(world_x(layer, c, a), world_z(layer, c, a), l.footprint);
  }
  a.viable = ok ? 1 : 0;
  return ok;
}

void ScatterField::decide_next(uint32_t layer, Cell& start) {
  frames_.push_back(Frame{layer, &start});
  while (!frames_.empty()) {
    // One step decides or defers one candidate: the finest grain of the scatter work.
    poll_abandon(abandon_);
    const size_t fi = frames_.size() - 1;
    Frame f = frames_[fi];
    Cell& c = *f.cell;
    const Candidate& a = candidate(f.layer, c, c.next);
    const bool spaced = layer_[f.layer].method->spaced;
    bool blocked = false, pushed = false;
    if (!f.listed) {
      f.neighbours_begin = neighbours_.size();
      f.listed = true;
      blocked = spaced && blocked_by_accepted_nearby(f.layer, c, a);
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
        Candidate& b = candidate(nb.layer, n, k);
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
    settle(f.layer, c, blocked, spaced);
    neighbours_.resize(f.neighbours_begin);
    frames_.pop_back();
  }
}

void ScatterField::settle(uint32_t layer, Cell& c, bool blocked, bool spaced) {
  if (blocked) {
    // If the same-layer blocker's disc covers the whole cell, it blocks every later candidate
    // of the cell too: reject them all at once.
    bool covered = false;
    if (c.last_blocker != nullptr) {
      if (c.next + 1 < c.count) candidate(layer, c, c.next + 1);  // covers() reads it
      covered = covers(layer, *c.last_blocker, c);
    }
    c.next = covered ? c.count : c.next + 1;
  } else {
    c.accepted = static_cast<int32_t>(c.next);
    c.block->accepted_mask |= static_cast<uint16_t>(1u << (&c - c.block->cells));
    // Spaced methods: every later candidate of the cell lies within r_min of this one.
    c.next = spaced ? c.count : c.next + 1;
  }
}

void ScatterField::decide_all(uint32_t layer, Cell& c) {
  while (c.next < c.count) decide_next(layer, c);
}

}  // namespace chunkforge
