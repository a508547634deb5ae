// ScatterField's lookups and decisions (see scatter_field.h): blocks and cells by coordinate,
// distances between candidates, which cells can block which, viability, the lazy resolution of
// arrival order, and a chunk's objects. How a block is filled is in scatter_cells.cc.
#include "scatter_field.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>

#include "abandon.h"
#include "chunkforge/hash.h"
#include "scatter_constants.h"
#include "scatter_geometry.h"

namespace chunkforge {

using namespace scatter;

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
    ok = l.terrain.contains(p.values) &&
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
