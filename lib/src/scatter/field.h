// The scatter field: every resource layer's candidate points and the lazy, exact resolution of
// which of them become objects (docs/resources.md).
//
// Definition (the whole world at once, in global arrival-time order t, ties broken by layer,
// cell and index): a candidate is *accepted* iff
//   - (layers of a spaced method, blue_noise) no accepted candidate of its own layer with an
//     earlier t lies within max(r(a), r(b)), r being the layer's minimum spacing at each one's
//     cell; and
//   - no accepted, *existing* candidate of another layer with an earlier t lies within
//     footprint(a) + footprint(b).
// A candidate *exists* (becomes an object) iff it is accepted and *viable*: its density is at
// least the layer's threshold, it passes the layer's filters, and its footprint stays out of
// every kept structure. Non-existing accepted candidates still block their own layer, so
// thresholds and filters never disturb a layer's sampling; they do not block other layers, so
// a removed point leaves no hole in another layer.
//
// Generator version 2 changes two rules (ScatterRules below): cells below their layer's
// threshold hold no candidates, and acceptance looks at the candidate's own layer only, while
// existence also requires that no existing candidate of another layer with an earlier t lies
// within the footprint sum.
//
// Evaluation is lazy: deciding a candidate first decides the earlier candidates within reach
// (explicit stack, no recursion), so a chunk's answer is exact whatever was asked before, and
// the work is the chunk's own cells plus a thin halo. No halo size is assumed. A chunk of a
// spaced layer is decided in arrival order (sweep.cc), which leaves the lazy resolution only
// the cells near its border.
//
// The parts, one file each under lib/src/scatter/: method.{h,cc} (one record per scatter
// method: cell size, halo, coarse cells, candidates), blocks.cc (blocks and cells: lookup,
// densities, candidates, memory), spare_pools.h (memo memory kept for the thread's next
// field), neighbours.cc (which cells can interact), decide.cc (distances and the resolution of
// arrival order, and existence), sweep.cc (a chunk in arrival order), objects.cc (a chunk's
// objects).
//
// Not thread-safe: one ScatterField per chunk pipeline (generator_versions.cc), which one thread
// uses at a time. Generator::generate makes one per call; a ChunkStream keeps its one across its
// chunks (forget() starts the memo afresh when the memos outgrow max_cells) and makes a new one
// after an abandoned chunk.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/structures.h"
#include "chunkforge/terrain.h"
#include "scatter/block_index.h"
#include "scatter/candidate.h"
#include "scatter/constants.h"
#include "scatter/geometry.h"
#include "scatter/method.h"

namespace chunkforge {

// Where the scatter's definition differs between generator versions (generator_versions.cc
// picks one per version; an old version's rules never change).
struct ScatterRules {
  // Version 2 on: a cell whose density is below its layer's threshold holds no candidates, so a
  // layer is sampled only where its objects can exist. Version 1 samples everywhere and removes
  // such points afterwards; as accepted points they still block their own layer, which costs
  // the whole plane's sampling and thins the objects along the threshold's edge.
  bool threshold_gates_sampling = false;
  // Version 2 on: each layer is sampled apart (acceptance looks at its own layer only), and
  // another layer's object removes an accepted point instead: an accepted, viable point exists
  // unless an existing point of another layer arrived earlier within the footprint sum.
  // Version 1 lets such a point block acceptance, which ties every layer's sampling to every
  // other layer's near each candidate.
  bool layers_sampled_apart = false;
  // Version 3 on: a candidate is blocked by an earlier accepted one of its layer within its own
  // spacing r(a), not max(r(a), r(b)). Deciding it then needs only the candidates within r(a),
  // not within the layer's largest spacing, and the later of two points keeps its own spacing
  // from the earlier. Version 2 lets a sparse point clear its wide disc of later dense ones too,
  // which ties every decision to the layer's sparsest cells around.
  bool own_spacing = false;
};

class ScatterField {
 public:
  // `structures` (may be null): objects keep their footprint out of kept structures.
  ScatterField(const ResourceLayers& layers, const Terrain& terrain, uint64_t seed, StructurePlanner* structures,
               ScatterRules rules);
  ~ScatterField();

  // The existing objects anchored in chunk `c`, in canonical order.
  std::vector<ResourceObject> objects_in_chunk(ChunkCoord c);

  // Scatter cells in the memo (blocks materialised so far), for bounding it.
  size_t cells_materialized() const { return index_.size() * kBlockCells; }

  // Forgets the whole memo, as a new field would start, but keeps the field's memory for the
  // next one (its pools go to the thread's spares, scatter/spare_pools.h): a ChunkStream starts
  // afresh every few dozen chunks, and memory freed and allocated anew each time costs a page
  // fault per page. `structures` replaces the planner given at construction.
  void forget(StructurePlanner* structures);

  // From now on, throw GenerationAbandoned once `flag` reads true (null: never). After that
  // the memo may hold half-decided cells: discard the field.
  void watch_abandon(const std::atomic<bool>* flag) { abandon_ = flag; }

 private:
  using Candidate = scatter::Candidate;
  static constexpr int kBlockSide = 4;  // cells per block side; blocks are materialised whole
  static_assert(kBlockSide * kBlockSide <= 16, "Block::accepted_mask has 16 bits");
  static constexpr int kMaxLevel = 2;  // coarsest cells: the whole 4 x 4 block
  static constexpr size_t kBlockCells = kBlockSide * kBlockSide;
  // Blocks are materialised by groups of 2 x 2: one noise grid of 8 x 8 densities costs about
  // half as much per block as four of 4 x 4 (measured: 1,087 vs 4 x 507 ns).
  static constexpr int kGroupSide = 2;

  struct Block;
  struct Cell {  // 88 bytes: the wide fields first, then the narrow ones packed
    Block* block = nullptr;
    int64_t i = 0, j = 0;  // the cell's lowest scatter-cell coordinates in the layer's grid
    double density = 0;    // layer density at the cell centre
    double r = 0;          // minimum spacing there, world units
    // Into the candidate slabs, in time order, room for `count`; only the first `made` are
    // drawn yet (candidate() draws more on demand: most are never looked at).
    Candidate* candidates = nullptr;
    uint64_t draws_hash = 0;       // CellDraws::hash() of the cell
    Cell* last_blocker = nullptr;  // same-layer cell that blocked the previous candidate
    int32_t reach = 0;             // spaced methods: ceil(r / cell side), the cells r reaches across
    uint16_t unmade = 0;           // darts (bit k: dart k) that exist but are not drawn yet
    // viable(): bit n of `viable_known` says candidate n's viability is known, bit n of
    // `viable_yes` what it is.
    uint16_t viable_known = 0, viable_yes = 0;
    uint8_t span = 1;  // scatter cells per side: 1, 2 or 4 (coarse cells in sparse blocks)
    uint8_t count = 0;
    uint8_t made = 0;
    uint8_t next = 0;      // candidates before `next` are decided
    int8_t accepted = -1;  // the accepted candidate (at most one per cell), or -1
    // ScatterRules::layers_sampled_apart: whether the accepted candidate exists; -1 not known.
    int8_t exists = -1;
    bool drawn = false;               // which darts exist (count, unmade) is known
    bool peak = false;                // noise_peaks: the cell holds its window's maximum
    bool last_blocker_tried = false;  // covers(last_blocker, this) was asked (and said no)
  };
  static_assert(scatter::kDartsPerCell <= 16, "unmade and the viability masks have 16 bits");
  static_assert(sizeof(Cell) == 88 && sizeof(Candidate) == 16, "the memo's memory per cell (docs/resources.md)");
  // Materialised in steps: densities (batched) for the whole group of blocks when first seen; per
  // cell, which darts exist when a scan first reaches the cell, and each dart's position and
  // time when first looked at. Neighbour scans prune whole blocks on their densities alone.
  struct Block {
    double r_max = 0;        // largest r among its cells
    double density_max = 0;  // largest density among its cells
    int level = 0;           // cells span 2^level scatter cells per side
    int cell_count = kBlockCells;
    uint16_t accepted_mask = 0;  // bit k: cells[k] has an accepted candidate
    Cell cells[kBlockCells];
  };
  // A layer's fixed quantities, computed once.
  struct Layer {
    const ResourceLayer* def;
    const scatter::MethodRecord* method;
    int64_t n;      // cells per chunk side
    double side;    // cell side, world units
    double unit;    // world units per sub-cell unit
    uint64_t seed;  // hash(world seed, dart salt, layer salt)
    int halo;       // method's border of cells around a block
    // The largest spacing of a cell that holds candidates: r_max, or under
    // ScatterRules::threshold_gates_sampling the spacing at the threshold (a cell below it holds
    // none, so it neither blocks nor is blocked), plus kPruneMargin for the rounding of both.
    double r_reach;
    // Spaced methods: scatter cells beyond a cell's own that r_reach can reach across: a cell
    // farther away is one that no listing of neighbours would list.
    int64_t max_reach;
  };
  struct Frame {
    uint32_t layer = 0;
    Cell* cell = nullptr;
    bool nearby_checked = false;  // blocked_by_accepted_nearby is known to be false
    size_t neighbours_begin = 0, neighbours_end = 0, cursor = 0;
    bool listed = false;
  };
  struct Neighbour {
    uint32_t layer;
    Cell* cell;
    uint64_t t = 0;  // list_neighbours: its next undecided candidate's time when listed (0: decided)
  };
  // A candidate's position relative to the lowest corner of its own chunk, world units.
  struct Position {
    int64_t cx, cz;
    double x, z;
  };

  struct RecentBlock {
    int64_t bi = 0, bj = 0;
    Block* block = nullptr;
  };
  // Densities of groups [gi0, gi1] x [gj0, gj1] of a layer, computed in one batch: a noise grid
  // costs less per sample at 32 x 32 than at 8 x 8 (a group's). A chunk's own groups only: the
  // ring around them, which its lazy resolution reaches in part, cost more in one batch than it
  // saved. Densities depend on the cell alone, so a tile is never stale.
  struct DensityTile {
    int64_t gi0 = 0, gj0 = 0, gi1 = -1, gj1 = -1;  // empty at first
    std::vector<double> density;                   // rows of stride() cells
    bool holds(int64_t gi, int64_t gj) const { return gi >= gi0 && gi <= gi1 && gj >= gj0 && gj <= gj1; }
    size_t stride() const { return static_cast<size_t>(gi1 - gi0 + 1) * kGroupSide * kBlockSide; }
  };
  // Scatter cells [i0, i1) x [j0, j1) of a layer's grid.
  struct CellRect {
    int64_t i0 = 0, j0 = 0, i1 = 0, j1 = 0;
    bool overlaps(int64_t i, int64_t j, int64_t span) const {
      return i + span > i0 && i < i1 && j + span > j0 && j < j1;
    }
    bool holds(int64_t i, int64_t j, int64_t span) const {
      return i >= i0 && i + span <= i1 && j >= j0 && j + span <= j1;
    }
  };

  // blocks.cc
  Block& block(uint32_t layer, int64_t bi, int64_t bj) {
    // A small direct-mapped cache in front of the index: neighbour scans revisit the same few
    // blocks over and over. Indexed by the low bits of the block coordinates: a 16 x 16-block
    // window around any point maps without collisions.
    RecentBlock& recent = recent_slot(layer, bi, bj);
    if (recent.block != nullptr && recent.bi == bi && recent.bj == bj) return *recent.block;
    return new_or_indexed_block(layer, bi, bj, recent);
  }
  // The block if it exists, without creating it.
  Block* find_block(uint32_t layer, int64_t bi, int64_t bj) {
    const RecentBlock& recent = recent_slot(layer, bi, bj);
    if (recent.block != nullptr && recent.bi == bi && recent.bj == bj) return recent.block;
    return index_.find(layer, bi, bj);
  }
  Block& new_or_indexed_block(uint32_t layer, int64_t bi, int64_t bj, RecentBlock& recent);
  // Makes the kGroupSide x kGroupSide blocks of group (gi, gj), densities first (one batch, or
  // the layer's density tile if it holds the group).
  void materialize_group(uint32_t layer, int64_t gi, int64_t gj);
  // Block (bi, bj)'s cells from the group's densities; (ox, oz): its first cell in the group,
  // `density` that cell's density in rows of `stride`.
  void fill_block(uint32_t layer, int64_t bi, int64_t bj, int ox, int oz, const double* density, size_t stride,
                  Block& b);
  // Cell centres of scatter cells first, first + 1, ... along one axis, into `out` (count).
  void cell_centres(uint32_t layer, int64_t first, int count, std::vector<Coord>& out) const;
  // Before a chunk's cells are asked: the densities of the groups it overlaps in one batch (the
  // layer's density tile), where the memo holds none of the chunk yet.
  void prefetch_densities(uint32_t layer, ChunkCoord chunk);
  // Which of the cell's darts exist (the method's thinning), and room for them.
  void draw_cell(uint32_t layer, Cell& c);
  // Candidate `index` of c, drawn (with the ones before it) if it is not yet.
  Candidate& candidate(uint32_t layer, Cell& c, uint32_t index) {
    if (index >= c.made) make_candidates(layer, c, index + 1);
    return c.candidates[index];
  }
  void make_candidates(uint32_t layer, Cell& c, uint32_t until);
  Block* new_block();
  // Room for `count` candidates that never move.
  Candidate* candidate_storage(size_t count);

  // sweep.cc
  // Whether a layer's chunk is decided by sweep_chunk: spaced, and acceptance by its own layer.
  bool sweeps(uint32_t layer) const;
  // Decides every candidate of the layer's cells overlapping `chunk`, in arrival order.
  void sweep_chunk(uint32_t layer, ChunkCoord chunk);
  // Rejects c's next candidates while its last blocker blocks them, then queues c in the round
  // of the first it cannot reject so (none left: c is decided and stays out).
  void wait_for_turn(uint32_t layer, Cell& c);
  // With every earlier candidate within its reach decided: whether an accepted one blocks a.
  bool blocked_by_any_accepted(uint32_t layer, Cell& c, const Candidate& a);
  // The same question for an inner cell of the chunk being swept under ScatterRules::own_spacing,
  // answered from swept_accepted_ (a flat scan of the cell's window) instead of the blocks.
  bool blocked_in_swept_chunk(Cell& c, const Candidate& a);
  // Notes c's accepted candidate (of the layer being swept) in swept_accepted_ if it lies in
  // the chunk.
  void note_swept_acceptance(Cell& c);
  // A cell waiting in sweep_chunk for its next candidate, whose arrival time is t.
  struct Waiting {
    uint64_t t;
    Cell* cell;
  };
  // Sorts one round's waiting cells into arrival order (scratch: memory to reuse).
  static void sort_round(std::vector<Waiting>& round, std::vector<Waiting>& scratch, std::vector<uint32_t>& counts);

  // Calls fn(cell) for every cell of `layer` overlapping `chunk`, once each (a coarse cell may
  // straddle the chunk's border), block by block: one block lookup per block, not per cell.
  template <typename Fn>
  void for_each_cell_in_chunk(uint32_t layer, ChunkCoord chunk, Fn&& fn) {
    const int64_t n = layer_[layer].n;
    const int64_t i0 = chunk.x * n, j0 = chunk.z * n;
    for (int64_t bj = floor_div(j0, kBlockSide); bj <= floor_div(j0 + n - 1, kBlockSide); ++bj) {
      for (int64_t bi = floor_div(i0, kBlockSide); bi <= floor_div(i0 + n - 1, kBlockSide); ++bi) {
        Block& b = block(layer, bi, bj);
        for (int k = 0; k < b.cell_count; ++k) {
          Cell& c = b.cells[k];
          if (c.i + c.span <= i0 || c.i >= i0 + n || c.j + c.span <= j0 || c.j >= j0 + n) continue;
          if (!c.drawn) draw_cell(layer, c);
          fn(c);
        }
      }
    }
  }

  // neighbours.cc
  Position position(uint32_t layer, const Cell& c, const Candidate& a) const;
  // Calls fn(cell) for the cells of `layer` with candidates and a density of at least
  // `min_density` whose square lies within cell_reach(a_r, cell.r) of p (never beyond `reach`),
  // block by block, leaving out the cells that overlap `skip` (if given); stops when fn returns
  // false (and then returns false).
  // (A template, not a function pointer, so that cell_reach inlines into the per-cell loop.)
  template <typename Reach, typename Fn>
  bool visit_cells(uint32_t layer, const Position& p, double reach, Reach cell_reach, double a_r, double min_density,
                   Fn&& fn, const CellRect* skip = nullptr);
  void list_neighbours(uint32_t layer, Cell& c, const Candidate& a);
  bool blocked_by_accepted_nearby(uint32_t layer, Cell& c, const Candidate& a);
  // Whether other's accepted candidate (of c's layer) blocks a; it is then c's last blocker.
  bool blocked_by(uint32_t layer, Cell& c, const Candidate& a, Cell& other);
  // Whether the cell that blocked c's previous candidate blocks a too: one test, where most
  // rejections end. Always inlined: out of line (GCC's choice) it cost 1.9 % of a chunk.
  [[gnu::always_inline]] bool blocked_by_last_blocker(uint32_t layer, Cell& c, const Candidate& a) {
    return c.last_blocker != nullptr && blocks(layer, c, a, layer, *c.last_blocker);
  }
  // ScatterRules::layers_sampled_apart: appends to rivals_ the cells of other layers whose
  // accepted candidate arrived before c's and lies within the footprint sum of it, deciding
  // those cells as far as that needs.
  void list_rivals(uint32_t layer, Cell& c);
  // Bits of b's cells that overlap scatter cells [i0, i1] x [j0, j1] (relative to b's lowest
  // corner; may reach beyond the block).
  static uint32_t window_mask(const Block& b, int64_t i0, int64_t i1, int64_t j0, int64_t j1);
  // Whether blocker's accepted candidate is earlier than every undecided candidate of c after
  // the next one and lies within its own r of all of c: then it blocks them all.
  bool covers(uint32_t layer, const Cell& blocker, const Cell& c) const;

  // decide.cc
  void decide_all(uint32_t layer, Cell& c) { decide_until(layer, c, c.count); }
  // Decides c's candidates before index `end` (all of them once one is accepted, for spaced
  // methods).
  void decide_until(uint32_t layer, Cell& c, uint32_t end);
  // Decides c's next candidate, after the earlier candidates within its reach. `nearby_checked`:
  // the caller found it not blocked_by_accepted_nearby.
  void decide_next(uint32_t layer, Cell& c, bool nearby_checked);
  // Orders neighbours_ from `begin` by the time of each one's next undecided candidate. Which
  // order the resolution decides them in never changes what is decided; earliest first, it
  // decides fewer: the earliest is the likeliest to be accepted and to block the candidate
  // (sparing the rest), and its own resolution is the shallowest.
  void earliest_first(size_t begin);
  // Records the decision of c's next candidate: rejected (with the rest of the cell if its
  // blocker covers it) or accepted.
  void settle(uint32_t layer, Cell& c, bool blocked, bool spaced);
  // The exact tests below are always inlined: GCC otherwise kept them out of line, a call per
  // distance test in the scatter's innermost loops (profiled: 23 % of the constant-r case).
  // Global arrival order: time, then layer, cell and index (times almost never tie).
  [[gnu::always_inline]] static bool earlier(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb,
                                             const Cell& cb, const Candidate& b) {
    if (a.t != b.t) return a.t < b.t;
    return std::tie(la, ca.i, ca.j) < std::tie(lb, cb.i, cb.j);  // equal t: equal k
  }
  // Squared world distance between two candidates; exact integer differences, so the same
  // pair gives the same bits from any request.
  [[gnu::always_inline]] double distance2(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, const Cell& cb,
                                          const Candidate& b) const;
  // Whether b (earlier than a) could block a once accepted, and whether it does.
  [[gnu::always_inline]] bool could_block(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb,
                                          Candidate& b);
  [[gnu::always_inline]] bool blocks(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb);
  // Whether a candidate would exist once accepted: threshold and filters (memoised).
  bool viable(uint32_t layer, Cell& c, const Candidate& a);
  // Whether c's accepted candidate becomes an object, by the version's rules.
  bool is_object(uint32_t layer, Cell& c);

  // ScatterRules::layers_sampled_apart: whether c's accepted candidate exists: viable, and no
  // existing accepted candidate of another layer arrived earlier within the footprint sum
  // (memoised; an explicit stack).
  bool exists(uint32_t layer, Cell& c);

  // objects.cc
  // World position of a candidate (exact rational arithmetic into a Coord).
  Coord world_x(uint32_t layer, const Cell& c, const Candidate& a) const;
  Coord world_z(uint32_t layer, const Cell& c, const Candidate& a) const;
  // Position relative to the lowest corner of chunk `chunk` along one axis, world units.
  double local(uint32_t layer, int64_t cell, uint32_t sub, int64_t chunk) const;
  // Sub-cell units from the chunk's lowest corner: exact, for canonical ordering.
  int64_t local_sub(uint32_t layer, int64_t cell, uint32_t sub, int64_t chunk) const {
    return (cell - chunk * layer_[layer].n) * scatter::kSub + sub;
  }

  static constexpr size_t kRecentBlocks = 256;  // per layer
  RecentBlock& recent_slot(uint32_t layer, int64_t bi, int64_t bj) {
    return recent_[layer * kRecentBlocks + static_cast<size_t>((bi & 15) | ((bj & 15) << 4))];
  }

  const ResourceLayers& layers_;
  const Terrain& terrain_;
  uint64_t seed_;
  StructurePlanner* structures_;
  ScatterRules rules_;
  std::vector<Layer> layer_;
  std::vector<double> pair_scale_;  // [la * n + lb]: world units per unit of the cross product
  scatter::BlockIndex<Block> index_;
  // Blocks and candidates in fixed-size pools: stable addresses, no allocation per block.
  std::vector<std::unique_ptr<Block[]>> block_pools_;
  size_t block_pool_used_ = 0;
  std::vector<std::unique_ptr<Candidate[]>> slabs_;
  size_t slab_used_ = 0;
  std::vector<RecentBlock> recent_;
  std::vector<DensityTile> tiles_;  // per layer

  std::vector<Frame> frames_;
  std::vector<Coord> scratch_xs_, scratch_zs_;
  std::vector<double> scratch_density_;
  std::vector<std::pair<double, uint64_t>> scratch_peaks_;
  std::vector<Neighbour> neighbours_;
  struct ExistenceFrame {
    uint32_t layer;
    Cell* cell;
    size_t rivals_begin, rivals_end, cursor;
  };
  std::vector<ExistenceFrame> existence_frames_;
  std::vector<Neighbour> rivals_;
  // sweep_chunk's rounds, and scratch for sorting one.
  std::array<std::vector<Waiting>, scatter::kDartsPerCell> rounds_;
  // The chunk sweep_chunk is deciding under ScatterRules::own_spacing (swept_layer_ < 0: none).
  // Every candidate of its cells earlier than the one the sweep is at is decided, and the lazy
  // resolution meanwhile decides only earlier ones, so none of its cells is ever an undecided
  // neighbour that matters there. list_neighbours' time test would leave each out; skipping
  // them, whole blocks at once, spares walking them (1 to 3 % of a chunk and of blue noise).
  int64_t swept_layer_ = -1;
  CellRect swept_;
  // The accepted candidates of the chunk being swept under ScatterRules::own_spacing, by the
  // scatter cell each lies in (rows of the chunk's cells; cell null: none): an inner cell's
  // window lies in the chunk, so its decision is one scan of that window here, ring by ring
  // outwards, without the blocks' lookups and masks. Positions are sub-cell units from the chunk's lowest corner,
  // exact integers, so distances have distance2()'s bits.
  struct SweptAccepted {
    int64_t x, z;
    uint64_t t;
    Cell* cell;
  };
  std::vector<SweptAccepted> swept_accepted_;
  std::vector<Waiting> sort_scratch_;
  std::vector<uint32_t> sort_counts_;
  const std::atomic<bool>* abandon_ = nullptr;
};

// The exact tests of the arrival-order resolution, inline: every candidate decision runs them
// many times (decide.cc and neighbours.cc both).

inline double ScatterField::distance2(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, const Cell& cb,
                                      const Candidate& b) const {
  // Positions in each layer's sub-cell units relative to a's chunk; cross-multiplying by the
  // other layer's cells per chunk puts both on one integer scale. The difference does not
  // depend on the reference chunk, so neither does the result.
  if (la == lb) {  // one grid: the plain sub-cell difference (covers() relies on this formula)
    return scatter::same_layer_distance2((ca.i - cb.i) * scatter::kSub + a.u - b.u,
                                         (ca.j - cb.j) * scatter::kSub + a.v - b.v, layer_[la].unit);
  }
  const int64_t na = layer_[la].n, nb = layer_[lb].n;
  const int64_t cx = floor_div(ca.i, na), cz = floor_div(ca.j, na);
  const int64_t dx = local_sub(la, ca.i, a.u, cx) * nb - local_sub(lb, cb.i, b.u, cx) * na;
  const int64_t dz = local_sub(la, ca.j, a.v, cz) * nb - local_sub(lb, cb.j, b.v, cz) * na;
  const double scale = pair_scale_[la * layers_.size() + lb];
  const double x = static_cast<double>(dx) * scale, z = static_cast<double>(dz) * scale;
  return x * x + z * z;
}

inline bool ScatterField::could_block(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb,
                                      Candidate& b) {
  if (la == lb) {
    const double r = rules_.own_spacing ? ca.r : std::max(ca.r, cb.r);
    return distance2(la, ca, a, lb, cb, b) < r * r;
  }
  const double reach = layer_[la].def->footprint + layer_[lb].def->footprint;
  // A candidate that is not viable never exists, so it never blocks another layer: checking
  // that first spares deciding it (and its own dependencies).
  return distance2(la, ca, a, lb, cb, b) < reach * reach && viable(lb, cb, b);
}

inline bool ScatterField::blocks(uint32_t la, const Cell& ca, const Candidate& a, uint32_t lb, Cell& cb) {
  if (cb.accepted < 0) return false;
  Candidate& b = cb.candidates[cb.accepted];
  return earlier(lb, cb, b, la, ca, a) && could_block(la, ca, a, lb, cb, b);
}

}  // namespace chunkforge
