// One record per scatter method: everything that differs between methods (its name, its cell
// size, the border of cells it compares with, whether sparse blocks may use coarse cells,
// whether it keeps a minimum spacing within its layer, and how it fills a cell with
// candidates), so that a method lives in one place. method_record() is the one switch over
// ScatterMethod; it has no `default:`, so a forgotten method does not build (-Werror=switch,
// cmake/ChunkforgeFlags.cmake).
// Internal to lib/.
#pragma once

#include <cstdint>

#include "chunkforge/resource_layer.h"
#include "scatter/candidate.h"

namespace chunkforge::scatter {

// What candidate generation sees of a cell.
struct CellView {
  int span;        // scatter cells per side (coarse cells: 2 or 4)
  double r;        // minimum spacing at the cell, world units
  double density;  // layer density at the cell
  bool peak;       // noise_peaks: the cell holds its window's maximum
};

struct MethodRecord {
  const char* name;  // as in world.proto
  // Scatter cells per chunk side.
  int (*cells_per_chunk)(const ResourceLayer& l, int64_t chunk_size);
  // Cells around a block whose densities the method reads (noise_peaks' window), else 0.
  int (*halo)(const ResourceLayer& l, int64_t cells_per_chunk, int64_t chunk_size);
  // Poisson-disk spacing within the layer: a candidate is rejected by an earlier accepted one
  // of its layer within max(r(a), r(b)), so a cell accepts at most one.
  bool spaced;
  // Sparse blocks may use coarser cells (2 x 2 or 4 x 4 scatter cells).
  bool coarse_cells;
  // Candidate generation in two steps, so that a candidate's position and time are drawn only
  // when the resolution first looks at it. `kept`: which of the cell's kDartsPerCell darts
  // exist (bit k: dart k; the thinning draws). `place`: where dart k lies in the cell, from
  // its random bits (draws.bits(k)); its arrival time is arrival_time(k, bits) for every
  // method.
  uint32_t (*kept)(const ResourceLayer& l, const CellView& c, const CellDraws& draws);
  void (*place)(const ResourceLayer& l, const CellView& c, uint64_t bits, uint32_t& u, uint32_t& v);
};

const MethodRecord& method_record(ScatterMethod method);

}  // namespace chunkforge::scatter
