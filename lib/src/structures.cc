// Structures planned across chunk borders: origins per cell and level, their assignment, checks
// and priorities, and the queries by chunk, area, point and type (chunkforge/structures.h).
#include "chunkforge/structures.h"

#include <algorithm>
#include <cmath>

#include "abandon.h"
#include "chunkforge/float_environment.h"
#include "chunkforge/v1/world.pb.h"
#include "chunkforge/world.h"
#include "proto_convert.h"

namespace chunkforge {
namespace {

constexpr Salt kOriginSalt = salt("structure.origin");
constexpr Salt kCountSalt = salt("structure.count");
constexpr Salt kPrioritySalt = salt("structure.priority");
constexpr Salt kAssignSalt = salt("structure.assign");
constexpr Salt kRotationSalt = salt("structure.rotation");
constexpr Salt kDepthSalt = salt("structure.depth");
constexpr Salt kFalloffSalt = salt("structure.falloff");

// Mean number of origins per chunk-sized cell at each level: fewer for larger structures.
double origins_per_cell(int level) { return 1.5 / static_cast<double>(int64_t{1} << level); }

using Matrix = std::array<std::array<int, 3>, 3>;

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix m{};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 3; ++k) m[r][c] += a[r][k] * b[k][c];
    }
  }
  return m;
}

// The eight rotations: index = yaw_quarters * 2 + tilted.
const std::array<Matrix, 8>& rotation_table() {
  static const std::array<Matrix, 8> table = [] {
    const Matrix identity{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    const Matrix yaw{{{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}}};   // 90 degrees about y
    const Matrix tilt{{{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}};  // 90 degrees about x
    std::array<Matrix, 8> t{};
    Matrix y = identity;
    for (int q = 0; q < 4; ++q) {
      t[q * 2] = y;
      t[q * 2 + 1] = multiply(y, tilt);
      y = multiply(yaw, y);
    }
    return t;
  }();
  return table;
}

// Rotated extents and the rotated box's lowest corner (relative to the unrotated origin).
struct Box {
  double extent[3];
  double low[3];
};

Box rotated_box(const Rotation& r, double sx, double sy, double sz) {
  const Matrix& m = r.matrix();
  const double size[3] = {sx, sy, sz};
  Box b{};
  for (int a = 0; a < 3; ++a) {
    for (int k = 0; k < 3; ++k) {
      const double v = m[a][k] * size[k];
      b.extent[a] += std::abs(v);
      b.low[a] += std::min(0.0, v);
    }
  }
  return b;
}

double interpolate(const std::vector<std::pair<double, double>>& curve, double x) {
  if (curve.empty()) return 1.0;
  if (x <= curve.front().first) return curve.front().second;
  for (size_t k = 1; k < curve.size(); ++k) {
    if (x <= curve[k].first) {
      const auto [x0, y0] = curve[k - 1];
      const auto [x1, y1] = curve[k];
      return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    }
  }
  return curve.back().second;
}

bool allowed(const std::vector<uint32_t>& ids, uint32_t id) {
  return ids.empty() || std::binary_search(ids.begin(), ids.end(), id);
}

}  // namespace

const std::array<std::array<int, 3>, 3>& Rotation::matrix() const {
  return rotation_table()[static_cast<size_t>(yaw_quarters) * 2 + (tilted ? 1 : 0)];
}

// The public entry points below hold a FloatEnvironmentGuard (float_environment.h).
StructureTypes::StructureTypes(const v1::WorldDefinition& def) {
  const FloatEnvironmentGuard fp_guard;
  const double chunk = def.chunk_size();
  for (int id = 0; id < def.structures_size(); ++id) {
    const v1::Structure& s = def.structures(id);
    StructureType t;
    t.id = static_cast<uint32_t>(id);
    t.name = s.name();
    t.size_x = s.size_x();
    t.size_z = s.size_z();
    t.height = s.height();
    t.frequency = s.frequency();
    t.biomes = ids_by_name(def.biomes(), s.biomes());
    for (const v1::Check& c : s.checks()) {
      t.checks.push_back(StructureCheck{c.offset().x(), c.offset().y(), c.offset().z(), to_interval(c.density()),
                                        terrain_bounds(c, &TerrainFieldSpec::check),
                                        ids_by_name(def.materials(), c.materials()),
                                        ids_by_name(def.biomes(), c.biomes())});
    }
    for (uint32_t yaw : s.yaw_degrees()) t.yaw_quarters.push_back(static_cast<int>(yaw / 90));
    t.allow_tilt = s.allow_tilt();
    t.depth = to_interval(s.depth());
    for (const v1::CurvePoint& p : s.surface_falloff()) t.falloff.emplace_back(p.x(), p.y());
    t.padding = s.padding();
    // LoD: the widest horizontal extent over every allowed rotation.
    double widest = 0;
    for (int q : t.yaw_quarters) {
      for (bool tilted : {false, true}) {
        if (tilted && !t.allow_tilt) continue;
        const Box b = rotated_box(Rotation{q, tilted}, t.size_x, t.height, t.size_z);
        widest = std::max({widest, b.extent[0], b.extent[2]});
      }
    }
    t.lod = std::max(0, static_cast<int>(std::ceil(widest / chunk)) - 1);
    max_lod_ = std::max(max_lod_, t.lod);
    max_padding_ = std::max(max_padding_, t.padding);
    types_.push_back(std::move(t));
  }
  offered_.resize(static_cast<size_t>(max_lod_) + 1);
  assignment_bound_.assign(static_cast<size_t>(max_lod_) + 1, 0.0);
  for (int level = 0; level <= max_lod_; ++level) {
    for (const StructureType& t : types_) {
      if (t.lod <= level) offered_[level].push_back(t.id);
    }
    std::stable_sort(offered_[level].begin(), offered_[level].end(),
                     [&](uint32_t a, uint32_t b) { return types_[a].lod > types_[b].lod; });
    // StructurePlanner::plan's walk for each biome, with the same additions in the same order.
    for (uint32_t biome = 0; biome < static_cast<uint32_t>(def.biomes_size()); ++biome) {
      double prefix = 0;
      for (uint32_t id : offered_[level]) {
        if (!allowed(types_[id].biomes, biome)) continue;
        prefix += types_[id].frequency;
        assignment_bound_[level] = std::max(assignment_bound_[level], prefix);
      }
    }
  }
}

WorldPoint place(const StructureInstance& s, const StructureType& type, double x, double y, double z) {
  const FloatEnvironmentGuard fp_guard;
  const Matrix& m = s.rotation.matrix();
  const Box b = rotated_box(s.rotation, type.size_x, type.height, type.size_z);
  const double p[3] = {x, y, z};
  double out[3];
  for (int a = 0; a < 3; ++a) {
    out[a] = -b.low[a];
    for (int k = 0; k < 3; ++k) out[a] += m[a][k] * p[k];
  }
  return WorldPoint{Coord::from_parts(s.x, out[0]), s.y + out[1], Coord::from_parts(s.z, out[2])};
}

StructurePlanner::StructurePlanner(const World& world)
    : world_(world), types_(world.structures()), size_(world.chunk_size()) {}

std::vector<StructurePlanner::Origin>* StructurePlanner::Window::find(int level, int64_t i, int64_t j) {
  const int64_t di = i - i0, dj = j - j0;
  if (di < 0 || dj < 0 || di >= side || dj >= side) return nullptr;
  const size_t k = static_cast<size_t>((level * side + dj) * side + di);
  if (k >= cells.size()) return nullptr;
  return &cells[k];
}

std::vector<StructurePlanner::Origin>& StructurePlanner::cell(int level, int64_t i, int64_t j) {
  if (std::vector<Origin>* dense = window_.find(level, i, j)) {
    uint8_t& planned = window_.planned[static_cast<size_t>(dense - window_.cells.data())];
    if (planned == 0) {
      planned = 1;  // before planning, as the memo's entry: an abandoned planner is discarded
      plan_cell(level, i, j, *dense);
    }
    return *dense;
  }
  auto [it, inserted] = origins_.try_emplace(CellKey{level, i, j});
  if (inserted) plan_cell(level, i, j, it->second);
  return it->second;
}

void StructurePlanner::plan_cell(int level, int64_t i, int64_t j, std::vector<Origin>& out) {
  // Before planning: an abandoned planner is discarded, so the empty entry does no harm.
  poll_abandon(abandon_);
  const uint64_t seed = world_.seed();
  // floor(mean) origins, plus one more with probability frac(mean).
  const double mean = origins_per_cell(level);
  const int count =
      static_cast<int>(mean) + (unit_double(hash(seed, kCountSalt, level, i, j)) < mean - std::floor(mean) ? 1 : 0);
  out.reserve(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) {
    Origin o{.level = level,
             .i = i,
             .j = j,
             .k = static_cast<uint32_t>(k),
             .priority = hash(seed, kPrioritySalt, level, i, j, k)};  // planned when first asked
    const uint64_t h = hash(seed, kOriginSalt, level, i, j, k);
    o.instance.x = i * size_ + static_cast<int64_t>(h % static_cast<uint64_t>(size_));
    o.instance.z = j * size_ + static_cast<int64_t>((h >> 32) % static_cast<uint64_t>(size_));
    o.instance.id = o.priority;
    o.instance.lod = level;
    out.push_back(o);
  }
}

void StructurePlanner::plan(Origin& o) {
  const uint64_t seed = world_.seed();
  StructureInstance& s = o.instance;
  const Coord x{s.x, 0.0}, z{s.z, 0.0};
  // Assignment: the biome at the origin picks the candidates; one hashed value walks the
  // prefix sum of their frequencies, largest structures first. What a large one leaves is
  // offered to the smaller ones; beyond the total, no structure.
  const double u = unit_double(hash(seed, kAssignSalt, o.level, o.i, o.j, o.k));
  // Beyond every biome's total, no structure: the biome (three noise fields) is not needed.
  if (u >= types_.assignment_bound(o.level)) return;
  const uint32_t biome = world_.terrain().biome(x, z);
  double prefix = 0;
  const StructureType* chosen = nullptr;
  for (uint32_t id : types_.offered_at(o.level)) {
    const StructureType& t = types_.all()[id];
    if (!allowed(t.biomes, biome)) continue;
    prefix += t.frequency;
    if (u < prefix) {
      chosen = &t;
      break;
    }
  }
  if (chosen == nullptr) return;
  o.assigned = true;
  s.type = chosen->id;
  const uint64_t r = hash(seed, kRotationSalt, o.level, o.i, o.j, o.k);
  s.rotation.yaw_quarters = chosen->yaw_quarters[r % chosen->yaw_quarters.size()];
  s.rotation.tilted = chosen->allow_tilt && ((r >> 32) & 1) != 0;
  const Box b = rotated_box(s.rotation, chosen->size_x, chosen->height, chosen->size_z);
  s.size_x = b.extent[0];
  s.size_y = b.extent[1];
  s.size_z = b.extent[2];
  o.depth = chosen->depth.min +
            unit_double(hash(seed, kDepthSalt, o.level, o.i, o.j, o.k)) * (chosen->depth.max - chosen->depth.min);
  const bool falloff_keeps =
      unit_double(hash(seed, kFalloffSalt, o.level, o.i, o.j, o.k)) < interpolate(chosen->falloff, o.depth);
  o.viable = falloff_keeps ? -1 : 0;  // the rest (terrain) only when asked: viable()
}

bool StructurePlanner::assigned(Origin& o) {
  if (!o.planned) {
    o.planned = true;
    plan(o);
  }
  return o.assigned;
}

bool StructurePlanner::viable(Origin& o) {
  if (!assigned(o)) return false;
  if (o.viable < 0) {
    StructureInstance& s = o.instance;
    s.y = world_.terrain().elevation(Coord{s.x, 0.0}, Coord{s.z, 0.0}) - o.depth;
    o.viable = checks_hold(types_.all()[s.type], s) ? 1 : 0;
  }
  return o.viable == 1;
}

bool StructurePlanner::checks_hold(const StructureType& type, const StructureInstance& s) const {
  const Terrain& terrain = world_.terrain();
  for (const StructureCheck& c : type.checks) {
    const WorldPoint p = place(s, type, c.x, c.y, c.z);
    if (!c.density.contains(terrain.density(p.x, p.y, p.z))) return false;
    const bool needs_surface = !c.materials.empty() || !c.biomes.empty() || c.fields.bounded();
    if (!needs_surface) continue;
    const TerrainPoint t = terrain.sample(p.x, p.z);
    if (!allowed(c.materials, t.material) || !allowed(c.biomes, t.biome) || !c.fields.contains(t.values)) {
      return false;
    }
  }
  return true;
}

bool StructurePlanner::higher(const Origin& a, const Origin& b) const {
  return std::tie(a.level, a.priority, a.i, a.j, a.k) > std::tie(b.level, b.priority, b.i, b.j, b.k);
}

bool StructurePlanner::overlap(const Origin& a, const Origin& b) const {
  // Footprints in x and z, each grown by its own padding, relative to a's origin.
  const double pa = types_.all()[a.instance.type].padding, pb = types_.all()[b.instance.type].padding;
  const double bx = static_cast<double>(b.instance.x - a.instance.x);
  const double bz = static_cast<double>(b.instance.z - a.instance.z);
  return bx - pb < a.instance.size_x + pa && -pa < bx + b.instance.size_x + pb && bz - pb < a.instance.size_z + pa &&
         -pa < bz + b.instance.size_z + pb;
}

bool StructurePlanner::may_overlap(const Origin& a, const Origin& b) const {
  // overlap()'s sums with b's side and padding replaced by larger ones: each sum can only grow
  // (rounding is monotonic), so whatever overlap() finds true, this does.
  const double pa = types_.all()[a.instance.type].padding, pb = types_.max_padding() + 1.0;
  const double side = largest_side(b);
  const double bx = static_cast<double>(b.instance.x - a.instance.x);
  const double bz = static_cast<double>(b.instance.z - a.instance.z);
  return bx - pb < a.instance.size_x + pa && -pa < bx + side + pb && bz - pb < a.instance.size_z + pa &&
         -pa < bz + side + pb;
}

bool StructurePlanner::decide(Origin& o) {
  if (o.kept >= 0) return o.kept == 1;
  if (!viable(o)) {
    o.kept = 0;
    return false;
  }
  // Kept unless a kept structure of higher priority (higher level, then higher hash) overlaps
  // it. Higher levels are scanned over the whole range their structures can reach from.
  const int64_t reach_pad =
      static_cast<int64_t>(std::ceil(types_.max_padding() + types_.all()[o.instance.type].padding));
  for (int level = o.level; level <= types_.max_lod(); ++level) {
    const int64_t reach = (level + 1) * size_ + reach_pad;
    const int64_t i0 = floor_div(o.instance.x - reach, size_);
    const int64_t i1 = floor_div(o.instance.x + static_cast<int64_t>(std::ceil(o.instance.size_x)) + reach_pad, size_);
    const int64_t j0 = floor_div(o.instance.z - reach, size_);
    const int64_t j1 = floor_div(o.instance.z + static_cast<int64_t>(std::ceil(o.instance.size_z)) + reach_pad, size_);
    for (int64_t j = j0; j <= j1; ++j) {
      for (int64_t i = i0; i <= i1; ++i) {
        for (Origin& other : cell(level, i, j)) {
          // What the origin's position and priority tell first; its plan (the biome) and its
          // viability (the terrain) last.
          if (&other == &o || !higher(other, o) || !may_overlap(o, other) || !assigned(other) || !overlap(o, other) ||
              !viable(other)) {
            continue;
          }
          if (decide(other)) {
            o.kept = 0;
            return false;
          }
        }
      }
    }
  }
  o.kept = 1;
  return true;
}

template <typename Fn>
bool StructurePlanner::any_touching(ChunkCoord corner, int64_t chunks, Fn&& fn) {
  const double x0 = static_cast<double>(corner.x * size_), z0 = static_cast<double>(corner.z * size_);
  const double side = static_cast<double>(chunks * size_);
  for (int level = 0; level <= types_.max_lod(); ++level) {
    // Origins are lowest corners: only cells up to level + 1 below the square can reach it.
    for (int64_t j = corner.z - level - 1; j < corner.z + chunks; ++j) {
      for (int64_t i = corner.x - level - 1; i < corner.x + chunks; ++i) {
        for (Origin& o : cell(level, i, j)) {
          const StructureInstance& s = o.instance;
          const double sx = static_cast<double>(s.x), sz = static_cast<double>(s.z);
          // With the largest side first (an unplanned origin's size is not known), then its own.
          const double most = largest_side(o);
          if (!(sx < x0 + side && sx + most > x0 && sz < z0 + side && sz + most > z0) || !assigned(o)) continue;
          const bool touches = sx < x0 + side && sx + s.size_x > x0 && sz < z0 + side && sz + s.size_z > z0;
          if (touches && fn(o)) return true;
        }
      }
    }
  }
  return false;
}

namespace {

// in_chunk's order: by (z, x, id) of the origins.
void sort_by_origin(std::vector<StructureInstance>& found) {
  std::sort(found.begin(), found.end(), [](const StructureInstance& a, const StructureInstance& b) {
    return std::tie(a.z, a.x, a.id) < std::tie(b.z, b.x, b.id);
  });
}

}  // namespace

const std::vector<StructureInstance>& StructurePlanner::in_chunk(ChunkCoord c) {
  const FloatEnvironmentGuard fp_guard;
  auto [it, inserted] = chunks_.try_emplace({c.x, c.z});
  if (!inserted) return it->second;
  it->second = in_area(c, 1);
  return it->second;
}

std::vector<StructureInstance> StructurePlanner::in_area(ChunkCoord corner, int64_t chunks) {
  const FloatEnvironmentGuard fp_guard;
  if (chunks > 1) {
    // Wide enough for the cells below the area that reach into it and for the decisions of
    // their origins, which look up to max_lod + 1 cells and the paddings further on each side.
    const int64_t margin = 2 * (types_.max_lod() + 2) +
                           static_cast<int64_t>(std::ceil(2 * types_.max_padding() / static_cast<double>(size_)));
    window_.i0 = corner.x - margin;
    window_.j0 = corner.z - margin;
    window_.side = chunks + 2 * margin;
    const auto count = static_cast<size_t>((types_.max_lod() + 1) * window_.side * window_.side);
    window_.cells.assign(count, {});
    window_.planned.assign(count, 0);
  }
  std::vector<StructureInstance> found;
  any_touching(corner, chunks, [&](Origin& o) {
    if (decide(o)) found.push_back(o.instance);
    return false;
  });
  window_ = Window{};  // its cells are not in the memo's count (cells_planned): not kept
  sort_by_origin(found);
  return found;
}

bool StructurePlanner::covers(Coord x, Coord z, double margin) {
  const FloatEnvironmentGuard fp_guard;
  if (types_.all().empty()) return false;
  auto within = [&](const StructureInstance& s) {
    const double px = static_cast<double>(x.cell - s.x) + x.frac;
    const double pz = static_cast<double>(z.cell - s.z) + z.frac;
    return px > -margin && px < s.size_x + margin && pz > -margin && pz < s.size_z + margin;
  };
  const int64_t cx0 = floor_div(Coord::from_parts(x.cell, x.frac - margin).cell, size_);
  const int64_t cx1 = floor_div(Coord::from_parts(x.cell, x.frac + margin).cell, size_);
  const int64_t cz0 = floor_div(Coord::from_parts(z.cell, z.frac - margin).cell, size_);
  const int64_t cz1 = floor_div(Coord::from_parts(z.cell, z.frac + margin).cell, size_);
  for (int64_t cz = cz0; cz <= cz1; ++cz) {
    for (int64_t cx = cx0; cx <= cx1; ++cx) {
      const auto known = chunks_.find({cx, cz});
      if (known != chunks_.end()) {
        if (std::any_of(known->second.begin(), known->second.end(), within)) return true;
        continue;
      }
      // A chunk not asked for (a neighbour, for a point near the border): decide only the
      // structures that reach the point, not every one touching the chunk (each decision asks
      // the terrain, and higher structures around).
      if (any_touching({cx, cz}, 1, [&](Origin& o) { return within(o.instance) && decide(o); })) return true;
    }
  }
  return false;
}

std::vector<StructureInstance> StructurePlanner::locate(uint32_t type, Coord x, Coord z, double radius) {
  const FloatEnvironmentGuard fp_guard;
  std::vector<std::pair<double, StructureInstance>> found;
  if (type >= types_.all().size()) return {};
  const int64_t r = static_cast<int64_t>(std::ceil(radius));
  // Origins at a level host the types of that level and below.
  for (int level = types_.all()[type].lod; level <= types_.max_lod(); ++level) {
    for (int64_t j = floor_div(z.cell - r, size_); j <= floor_div(z.cell + r + 1, size_); ++j) {
      for (int64_t i = floor_div(x.cell - r, size_); i <= floor_div(x.cell + r + 1, size_); ++i) {
        for (Origin& o : cell(level, i, j)) {
          const double dx = static_cast<double>(o.instance.x - x.cell) - x.frac;
          const double dz = static_cast<double>(o.instance.z - z.cell) - z.frac;
          const double d = std::sqrt(dx * dx + dz * dz);
          if (d > radius || !assigned(o) || o.instance.type != type) continue;
          if (decide(o)) found.emplace_back(d, o.instance);
        }
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.id) < std::tie(b.first, b.second.id);
  });
  std::vector<StructureInstance> out;
  out.reserve(found.size());
  for (auto& [d, s] : found) out.push_back(s);
  return out;
}

}  // namespace chunkforge
