// File: chunkforge/structures.h
//
// Structures planned across chunk borders (docs/structures.md): a deterministic
// cloud of origins per size level (LoD), assigned to structure types by the biome at the
// origin, rotated, checked against the prescriptive terrain, and resolved against overlaps by
// priority. Any chunk finds every structure whose box touches it, including those whose origin
// lies several chunks away, with no communication between chunks.
//
//   StructurePlanner planner(world);
//   for (const StructureInstance& s : planner.in_chunk({3, -2})) draw(s);
//
// Thread safety: StructureTypes is immutable and thread-safe. StructurePlanner keeps a memo of
// the origins it decided and is not thread-safe: one per request (or per ChunkStream).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/coord.h"
#include "chunkforge/hash.h"
#include "chunkforge/terrain.h"

namespace chunkforge {

namespace v1 {
class WorldDefinition;
}

class World;

struct StructureCheck {
  double x = 0, y = 0, z = 0;  // offset from the origin in the structure's own frame
  Interval density;
  TerrainBounds fields;                     // the check's ranges over the terrain fields (slope, elevation)
  std::vector<uint32_t> materials, biomes;  // sorted ids; empty: any
};

struct StructureType {
  uint32_t id = 0;
  std::string name;
  double size_x = 1, size_z = 1, height = 1;
  double frequency = 1;
  std::vector<uint32_t> biomes;  // sorted ids; empty: any
  std::vector<StructureCheck> checks;
  std::vector<int> yaw_quarters;  // allowed yaws
  bool allow_tilt = false;
  Interval depth;
  std::vector<std::pair<double, double>> falloff;  // (depth, keep probability)
  double padding = 0;
  int lod = 0;  // smallest l with every allowed rotated extent <= (l + 1) * chunk_size
};

class StructureTypes {
 public:
  StructureTypes() = default;
  explicit StructureTypes(const v1::WorldDefinition& resolved);
  const std::vector<StructureType>& all() const { return types_; }
  int max_lod() const { return max_lod_; }
  double max_padding() const { return max_padding_; }
  // Types with LoD <= level, largest first (the order of the frequency prefix sum).
  const std::vector<uint32_t>& offered_at(int level) const { return offered_[level]; }
  // The largest value the frequency prefix sum reaches at a level, over every biome: an
  // assignment draw at or above it picks no structure, whatever the biome.
  double assignment_bound(int level) const { return assignment_bound_[level]; }

 private:
  std::vector<StructureType> types_;
  std::vector<std::vector<uint32_t>> offered_;
  std::vector<double> assignment_bound_;
  int max_lod_ = -1;
  double max_padding_ = 0;
};

// Where a point of the structure's own frame lands in the world (x, z as exact Coords).
struct WorldPoint {
  Coord x;
  double y;
  Coord z;
};
WorldPoint place(const StructureInstance& s, const StructureType& type, double x, double y, double z);

class StructurePlanner {
 public:
  explicit StructurePlanner(const World& world);

  // Kept structures whose footprint touches chunk c, ordered by (z, x, id) of their origins.
  const std::vector<StructureInstance>& in_chunk(ChunkCoord c);
  // Kept structures touching the square of `chunks` x `chunks` chunks from `corner` (its lowest
  // chunk), once each, in in_chunk's order: what in_chunk gives for each of them, merged, but
  // walking each origin cell once (a LOD tile's 256 chunks share almost all of theirs).
  std::vector<StructureInstance> in_area(ChunkCoord corner, int64_t chunks);
  // Whether (x, z) lies within `margin` of a kept structure's footprint.
  bool covers(Coord x, Coord z, double margin);
  // Kept instances of `type` whose origin lies within `radius` of (x, z), nearest first.
  std::vector<StructureInstance> locate(uint32_t type, Coord x, Coord z, double radius);

  // Origin cells in the memo (for bounding it).
  size_t cells_planned() const { return origins_.size(); }

  // From now on, throw GenerationAbandoned once `flag` reads true (null: never). After that
  // the memo may be half built: discard the planner.
  void watch_abandon(const std::atomic<bool>* flag) { abandon_ = flag; }

 private:
  struct Origin {
    int level;
    int64_t i, j;
    uint32_t k;
    uint64_t priority;     // higher wins
    bool planned = false;  // assignment asked yet (assigned()): the biome only when needed
    bool assigned = false;
    // Whether its falloff and checks keep it; -1: the falloff does, the checks are not asked
    // yet (viable()). Most origins planned around a chunk never need the terrain's answer.
    int8_t viable = 0;
    int8_t kept = -1;  // -1 undecided
    double depth = 0;  // below the terrain at the origin
    StructureInstance instance{};
  };
  using CellKey = std::tuple<int, int64_t, int64_t>;
  using ChunkKey = std::pair<int64_t, int64_t>;
  // Hashed rather than ordered: the memo is only ever looked up (a std::map's walk was 4 % of a
  // cold chunk). Node-based, so references to its values stay valid as it grows: decide() walks
  // one cell's origins while it plans others.
  struct KeyHash {
    size_t operator()(const CellKey& k) const {
      return static_cast<size_t>(
          mix64(mix64(static_cast<uint64_t>(std::get<1>(k)) + static_cast<uint64_t>(std::get<0>(k))) ^
                static_cast<uint64_t>(std::get<2>(k))));
    }
    size_t operator()(const ChunkKey& k) const {
      return static_cast<size_t>(mix64(mix64(static_cast<uint64_t>(k.first)) ^ static_cast<uint64_t>(k.second)));
    }
  };

  // A dense block of cells per level around an area being planned (in_area): an array index
  // instead of a hash lookup for the cells an area's decisions visit again and again. Cells
  // outside it go to the hashed memo as before; it is dropped when the area is done.
  struct Window {
    int64_t i0 = 0, j0 = 0, side = 0;        // cells [i0, i0 + side) x [j0, j0 + side)
    std::vector<std::vector<Origin>> cells;  // by level, then row-major from (i0, j0)
    std::vector<uint8_t> planned;            // the same index: whether cells[k] is filled
    std::vector<Origin>* find(int level, int64_t i, int64_t j);
  };

  std::vector<Origin>& cell(int level, int64_t i, int64_t j);
  // Fills `out` with cell (level, i, j)'s origins, planned.
  void plan_cell(int level, int64_t i, int64_t j, std::vector<Origin>& out);
  // Calls fn(o) for every assigned origin whose footprint touches the square of `chunks` x
  // `chunks` chunks from `corner`, planning the cells that can hold one, until fn returns true
  // (then returns true). Decides nothing itself.
  template <typename Fn>
  bool any_touching(ChunkCoord corner, int64_t chunks, Fn&& fn);
  void plan(Origin& o);
  // Whether o holds a structure, planning it the first time (it asks the terrain's biome).
  bool assigned(Origin& o);
  // The largest footprint side of a structure at o's level (every type offered there fits in
  // level + 1 chunks), a unit more: a bound that lets most origins be passed over unplanned.
  double largest_side(const Origin& o) const { return static_cast<double>((o.level + 1) * size_) + 1.0; }
  // Whether b, whatever it holds, could overlap a (a assigned): overlap() with b's side and
  // padding at their largest.
  bool may_overlap(const Origin& a, const Origin& b) const;
  bool decide(Origin& o);
  // Whether o is viable (assigned, kept by its falloff and its checks), asking the terrain the
  // first time; its instance's y is known from then on.
  bool viable(Origin& o);
  bool higher(const Origin& a, const Origin& b) const;
  bool overlap(const Origin& a, const Origin& b) const;
  bool checks_hold(const StructureType& type, const StructureInstance& s) const;

  const World& world_;
  const StructureTypes& types_;
  int64_t size_;
  std::unordered_map<CellKey, std::vector<Origin>, KeyHash> origins_;
  std::unordered_map<ChunkKey, std::vector<StructureInstance>, KeyHash> chunks_;
  Window window_;
  const std::atomic<bool>* abandon_ = nullptr;
};

}  // namespace chunkforge
