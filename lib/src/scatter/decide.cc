// The resolution of arrival order (see field.h): viability, and the explicit-stack walk that
// decides a candidate after the earlier ones within its reach. The distance and blocking tests
// it runs are inline in field.h.
#include <algorithm>

#include "abandon.h"
#include "scatter/constants.h"
#include "scatter/field.h"
#include "scatter/geometry.h"

namespace chunkforge {

using namespace scatter;

bool ScatterField::viable(uint32_t layer, Cell& c, const Candidate& a) {
  const auto bit = static_cast<uint16_t>(1u << (&a - c.candidates));
  if ((c.viable_known & bit) != 0) return (c.viable_yes & bit) != 0;
  const ResourceLayer& l = *layer_[layer].def;
  bool ok = c.density >= l.threshold;
  if (ok && l.filtered()) ok = l.admits_at(terrain_, world_x(layer, c, a), world_z(layer, c, a));
  if (ok && structures_ != nullptr) {
    ok = !structures_->covers(world_x(layer, c, a), world_z(layer, c, a), l.footprint);
  }
  c.viable_known |= bit;
  if (ok) c.viable_yes |= bit;
  return ok;
}

void ScatterField::decide_next(uint32_t layer, Cell& start, bool nearby_checked) {
  // The stack lives in frames_ (kept between calls: no allocation per decision); `depth` is
  // its height.
  size_t depth = 0;
  auto push = [&](const Frame& f) {
    if (depth == frames_.size()) frames_.resize(depth + 1);
    frames_[depth++] = f;
  };
  push(Frame{layer, &start, nearby_checked});
  while (depth > 0) {
    // One step decides or defers one candidate: the finest grain of the scatter work.
    poll_abandon(abandon_);
    const size_t fi = depth - 1;
    Frame f = frames_[fi];
    Cell& c = *f.cell;
    const Candidate& a = candidate(f.layer, c, c.next);
    const bool spaced = layer_[f.layer].method->spaced;
    bool blocked = false, pushed = false;
    if (!f.listed) {
      f.neighbours_begin = neighbours_.size();
      f.listed = true;
      blocked = spaced && !f.nearby_checked && blocked_by_accepted_nearby(f.layer, c, a);
      if (!blocked) {
        list_neighbours(f.layer, c, a);
        // A conflict with an already accepted earlier candidate settles it without more work.
        for (size_t k = f.neighbours_begin; k < neighbours_.size() && !blocked; ++k) {
          blocked = blocks(f.layer, c, a, neighbours_[k].layer, *neighbours_[k].cell);
        }
        if (!blocked) earliest_first(f.neighbours_begin);
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
      push(Frame{neighbours_[f.cursor].layer, neighbours_[f.cursor].cell});
      continue;
    }
    settle(f.layer, c, blocked, spaced);
    neighbours_.resize(f.neighbours_begin);
    --depth;
  }
}

void ScatterField::earliest_first(size_t begin) {
  // An insertion sort: a list holds a few cells (about 2 in the default world).
  for (size_t k = begin + 1; k < neighbours_.size(); ++k) {
    const Neighbour nb = neighbours_[k];
    size_t at = k;
    for (; at > begin && nb.t < neighbours_[at - 1].t; --at) neighbours_[at] = neighbours_[at - 1];
    neighbours_[at] = nb;
  }
}

void ScatterField::settle(uint32_t layer, Cell& c, bool blocked, bool spaced) {
  if (blocked) {
    // If the same-layer blocker's disc covers the whole cell, it blocks every later candidate
    // of the cell too: reject them all at once. A blocker that did not cover the cell never
    // will (the disc stays, and the cell's later candidates only arrive later): try each once.
    bool covered = false;
    if (c.last_blocker != nullptr && !c.last_blocker_tried) {
      if (c.next + 1 < c.count) candidate(layer, c, c.next + 1);  // covers() reads it
      covered = covers(layer, *c.last_blocker, c);
      c.last_blocker_tried = true;
    }
    c.next = covered ? c.count : static_cast<uint8_t>(c.next + 1);
  } else {
    c.accepted = static_cast<int8_t>(c.next);
    c.block->accepted_mask |= static_cast<uint16_t>(1u << (&c - c.block->cells));
    if (swept_layer_ == static_cast<int64_t>(layer)) note_swept_acceptance(c);
    // Spaced methods: every later candidate of the cell lies within r_min of this one.
    c.next = spaced ? c.count : static_cast<uint8_t>(c.next + 1);
  }
}

bool ScatterField::is_object(uint32_t layer, Cell& c) {
  if (rules_.layers_sampled_apart) return exists(layer, c);
  return viable(layer, c, c.candidates[c.accepted]);
}

void ScatterField::decide_until(uint32_t layer, Cell& c, uint32_t end) {
  const bool spaced = layer_[layer].method->spaced;
  while (c.next < std::min<uint32_t>(end, c.count)) {
    // Most candidates of a spaced layer fall to an accepted neighbour: settle those without
    // the stack.
    if (spaced) {
      poll_abandon(abandon_);
      if (blocked_by_accepted_nearby(layer, c, candidate(layer, c, c.next))) {
        settle(layer, c, true, true);
        continue;
      }
    }
    decide_next(layer, c, spaced);
  }
}

bool ScatterField::exists(uint32_t layer, Cell& c) {
  if (c.exists >= 0) return c.exists == 1;
  // A candidate exists iff it is viable and none of its rivals exists. Rivals arrived earlier,
  // so the walk (depth first, one frame per candidate whose rivals are being asked) ends.
  auto open = [&](uint32_t l, Cell& cell) {
    if (!viable(l, cell, cell.candidates[cell.accepted])) {
      cell.exists = 0;
      return;
    }
    const size_t begin = rivals_.size();
    list_rivals(l, cell);
    existence_frames_.push_back(ExistenceFrame{l, &cell, begin, rivals_.size(), begin});
  };
  open(layer, c);
  while (!existence_frames_.empty()) {
    poll_abandon(abandon_);
    ExistenceFrame& f = existence_frames_.back();
    int8_t verdict = 1;
    bool opened = false;
    for (; f.cursor < f.rivals_end; ++f.cursor) {
      const Neighbour r = rivals_[f.cursor];
      const int8_t rival_exists = r.cell->exists;
      if (rival_exists == 1) {
        verdict = 0;
        break;
      }
      if (rival_exists < 0) {  // ask it first (this may grow the stack: f is not used after)
        open(r.layer, *r.cell);
        opened = true;
        break;
      }
    }
    if (opened) continue;
    f.cell->exists = verdict;
    rivals_.resize(f.rivals_begin);
    existence_frames_.pop_back();
  }
  return c.exists == 1;
}

}  // namespace chunkforge
