// The scatter field: every resource layer's candidate points and the lazy, exact resolution of
// which of them become objects (docs/resources.md).
//
// Definition (the whole world at once, in global arrival-time order t, ties broken by layer,
// cell and index): a candidate is *accepted* iff
//   - (blue_noise layers) no accepted candidate of its own layer with an earlier t lies within
//     max(r(a), r(b)), r being the layer's minimum spacing at each one's cell; and
//   - no accepted, *existing* candidate of another layer with an earlier t lies within
//     footprint(a) + footprint(b).
// A candidate *exists* (becomes an object) iff it is accepted and *viable*: its density is at
// least the layer's threshold, it passes the layer's filters, and its footprint stays out of
// every kept structure. Non-existing accepted candidates still
// block their own layer, so thresholds and filters never disturb a layer's sampling; they do
// not block other layers, so a removed point leaves no hole in another layer.
//
// Evaluation is lazy: deciding a candidate first decides the earlier candidates within reach
// (explicit stack, no recursion), so a chunk's answer is exact whatever was asked before, and
// the work is the chunk's own cells plus a thin halo. No halo size is assumed.
//
// Not thread-safe: one ScatterField per request (Generator::generate makes one per call).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/structures.h"
#include "chunkforge/terrain.h"

namespace chunkforge {

class ScatterField {
 public:
  // `structures` (may be null): objects keep their footprint out of kept structures.
  ScatterField(const ResourceLayers& layers, const Terrain& terrain, uint64_t seed,
               StructurePlanner* structures);

  // The existing objects anchored in chunk `c`, in canonical order.
  std::vector<ResourceObject> objects_in_chunk(ChunkCoord c);

  // Scatter cells in the memo (blocks materialised so far), for bounding it.
  size_t cells_materialized() const { return blocks_.size() * kBlockCells; }

  // From now on, throw GenerationAbandoned once `flag` reads true (null: never). After that
  // the memo may hold half-decided cells: discard the field.
  void watch_abandon(const std::atomic<bool>* flag) { abandon_ = flag; }

 private:
  static constexpr int kBlockSide = 4;  // cells per block side; blocks are materialised whole
  static_assert(kBlockSide * kBlockSide <= 16, "Block::accepted_mask has 16 bits");
  static constexpr int kMaxLevel = 2;  // coarsest cells: the whole 4 x 4 block
  static constexpr size_t kBlockCells = kBlockSide * kBlockSide;

  struct Candidate {
    uint64_t t;       // arrival time
    uint32_t u, v;    // position in the cell, units of 2^-24 scatter-cell side (< span * 2^24)
    uint32_t k;       // index in the cell's candidate sequence
    int8_t viable;    // density >= threshold and filters pass: -1 not evaluated yet, else 0 / 1
  };
  struct Block;
  struct Cell {
    Block* block = nullptr;
    int64_t i = 0, j = 0;  // the cell's lowest scatter-cell coordinates in the layer's grid
    int span = 1;          // scatter cells per side: 1, 2 or 4 (coarse cells in sparse blocks)
    double density = 0;    // layer density at the cell centre
    double r = 0;          // minimum spacing there, world units
    Candidate* candidates = nullptr;  // into the candidate slabs, in time order
    uint32_t count = 0;
    uint32_t next = 0;              // candidates before `next` are decided
    int32_t accepted = -1;          // the accepted candidate (at most one per cell), or -1
    bool peak = false;              // noise_peaks: the cell holds its window's maximum
    Cell* last_blocker = nullptr;   // same-layer cell that blocked the previous candidate
  };
  // Materialised in two steps: densities (cheap, batched) when first seen, candidates when
  // first needed; neighbour scans prune whole blocks on their densities alone.
  struct Block {
    double r_max = 0;  // largest r among its cells
    int level = 0;     // cells span 2^level scatter cells per side
    int cell_count = kBlockCells;
    bool has_candidates = false;
    uint16_t accepted_mask = 0;  // bit k: cells[k] has an accepted candidate
    Cell cells[kBlockCells];
  };
  struct BlockKey {
    uint32_t layer;
    int64_t bi, bj;
    friend bool operator==(const BlockKey&, const BlockKey&) = default;
  };
  struct BlockKeyHash {
    size_t operator()(const BlockKey& k) const;
  };
  struct Frame {
    uint32_t layer;
    Cell* cell;
    size_t neighbours_begin = 0, neighbours_end = 0, cursor = 0;
    bool listed = false;
  };
  struct Neighbour {
    uint32_t layer;
    Cell* cell;
  };

  Block& block(uint32_t layer, int64_t bi, int64_t bj, bool with_candidates = true);
  Block& block_densities(uint32_t layer, int64_t bi, int64_t bj);
  // The block if it exists, without creating it.
  Block* find_block(uint32_t layer, int64_t bi, int64_t bj);
  void add_candidates(uint32_t layer, Block& b);
  Cell& cell(uint32_t layer, int64_t i, int64_t j);

  void materialize(uint32_t layer, int64_t bi, int64_t bj, Block& b);
  // Copies a block's candidates into stable storage.
  Candidate* store_candidates(const std::vector<Candidate>& candidates);
  // Appends cell c's candidates to `out`, sorted; `is_peak` only for noise_peaks.
  void make_candidates(uint32_t layer, const Cell& c, bool is_peak, std::vector<Candidate>& out) const;

  void decide_all(uint32_t layer, Cell& c);
  void decide_next(uint32_t layer, Cell& c);
  // A candidate's position relative to the lowest corner of its own chunk, world units.
  struct Position {
    int64_t cx, cz;
    double x, z;
  };
  Position position(uint32_t layer, const Cell& c, const Candidate& a) const;
  // Calls fn(cell) for the cells of `layer` with candidates whose square lies within
  // cell_reach(a_r, cell.r) of p (never beyond `reach`), block by block; stops when fn
  // returns false (and then returns false).
  template <typename Fn>
  bool visit_cells(uint32_t layer, const Position& p, double reach, double (*cell_reach)(double, double),
                   double a_r, Fn&& fn);
  bool blocked_by_accepted_nearby(uint32_t layer, Cell& c, const Candidate& a);
  // Whether blocker's accepted candidate is earlier than every undecided candidate of c after
  // the next one and lies within its own r of all of c: then it blocks them all.
  bool covers(uint32_t layer, const Cell& blocker, const Cell& c) const;
  void list_neighbours(uint32_t layer, Cell& c, const Candidate& a);
  // Global arrival order: time, then layer, cell and index (times almost never tie).
  static bool earlier(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, const Cell& cb,
                      const Candidate& b) {
    if (a.t != b.t) return a.t < b.t;
    return std::tie(la, ca.i, ca.j, a.k) < std::tie(lb, cb.i, cb.j, b.k);
  }
  // Squared world distance between two candidates; exact integer differences, so the same
  // pair gives the same bits from any request.
  double distance2(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, const Cell& cb,
                   const Candidate& b) const;
  // Whether b (earlier than a) could block a once accepted, and whether it does.
  bool could_block(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb,
                   Candidate& b);
  bool blocks(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb);
  // Whether a candidate would exist once accepted: threshold and filters (memoised).
  bool viable(uint32_t layer, Cell& c, Candidate& a);

  // World position of a candidate (exact rational arithmetic into a Coord).
  Coord world_x(uint32_t layer, const Cell& c, const Candidate& a) const;
  Coord world_z(uint32_t layer, const Cell& c, const Candidate& a) const;
  // Position relative to the lowest corner of chunk `chunk` along one axis, world units.
  double local(uint32_t layer, int64_t cell, uint32_t sub, int64_t chunk) const;
  // Sub-cell units from the chunk's lowest corner: exact, for canonical ordering.
  int64_t local_sub(uint32_t layer, int64_t cell, uint32_t sub, int64_t chunk) const;

  const ResourceLayers& layers_;
  const Terrain& terrain_;
  uint64_t seed_;
  StructurePlanner* structures_;
  std::vector<double> pair_scale_;
  std::vector<double> unit_;  // per layer: world units per sub-cell unit
  std::vector<uint64_t> layer_seed_;  // per layer: hash(world seed, dart salt, layer salt)  // [la * n + lb]: world units per unit of the cross product
  std::unordered_map<BlockKey, Block*, BlockKeyHash> blocks_;
  std::deque<Block> block_store_;  // stable addresses
  std::vector<std::unique_ptr<Candidate[]>> slabs_;
  size_t slab_used_ = 0;
  struct RecentBlock {
    int64_t bi = 0, bj = 0;
    Block* block = nullptr;
  };
  static constexpr size_t kRecentBlocks = 256;  // per layer
  std::vector<RecentBlock> recent_;

  std::vector<Frame> frames_;
  std::vector<Coord> scratch_xs_, scratch_zs_;
  std::vector<double> scratch_density_;
  std::vector<Candidate> scratch_candidates_;
  std::vector<Neighbour> neighbours_;
  const std::atomic<bool>* abandon_ = nullptr;
};

}  // namespace chunkforge
