// File: chunkforge/quality.h
//
// The measurements of docs/resources.md ("Measurements") over a window of generated chunks: spacing
// violations (across chunk borders too), blue-noise quality (rho, nearest-neighbour CV,
// Clark-Evans R), seam-band density and density fidelity. Used by `chunkforge quality`, the
// property tests and the benchmarks.
//
//   RegionPoints pts = generate_region(world, {0, 0}, 16);
//   SpacingReport s = check_spacing(world, pts);  // s.violations must be 0
//
// All functions are pure; generate_region is as thread-safe as Generator.
#pragma once

#include <cstdint>
#include <vector>

#include "chunkforge/chunk.h"

namespace chunkforge {

class World;

// An object placed in a square window of chunks, in world units relative to the window's
// lowest corner (small numbers, full precision).
struct PlacedObject {
  uint32_t layer = 0;
  double x = 0, z = 0;
  double r = 0;  // the layer's minimum spacing where the object stands
  ChunkCoord chunk;
};

struct RegionPoints {
  ChunkCoord origin;   // lowest chunk of the window
  int64_t chunks = 0;  // window side, in chunks
  double chunk_size = 0;
  std::vector<PlacedObject> objects;
  double seconds = 0;  // generation time, chunk by chunk (each chunk a fresh request)
};

// Generates the chunks of the window one request each (cold) and collects their objects.
RegionPoints generate_region(const World& world, ChunkCoord origin, int64_t chunks);

struct SpacingReport {
  uint64_t pairs_checked = 0;          // pairs within twice their conflict distance
  uint64_t violations = 0;             // pairs closer than their conflict distance
  uint64_t cross_chunk = 0;            // ... of which the two lie in different chunks
  uint64_t same_layer_violations = 0;  // blue_noise layers: closer than their spacing (below)
};

// Same layer (blue_noise only): conflict distance max(r_a, r_b), or min(r_a, r_b) from generator
// version 3 on (each point keeps its own spacing from the earlier ones, docs/resources.md).
// Different layers: footprint_a + footprint_b. `slack` absorbs the rounding of the reported
// positions.
SpacingReport check_spacing(const World& world, const RegionPoints& points, double slack = 1e-9);

struct PointStats {
  uint64_t points = 0;
  double rho = 0;          // d_min / d_hex
  double nn_cv = 0;        // coefficient of variation of nearest-neighbour distances
  double clark_evans = 0;  // mean NN distance / (0.5 sqrt(A / N))
};

// Statistics of one layer's points; nearest neighbours are taken for points at least `margin`
// inside the window (edge correction).
PointStats point_stats(const RegionPoints& points, uint32_t layer, double margin);

// Density in the band of width `band` on both sides of internal chunk borders divided by the
// density elsewhere (inner chunks only). 1 = no seam.
double seam_ratio(const RegionPoints& points, uint32_t layer, double band);

// Pearson correlation, over square bins of side `bin`, between the number of points and the
// target intensity (density^2, points per area scale as 1 / r^2).
double density_fidelity(const World& world, const RegionPoints& points, uint32_t layer, double bin);

}  // namespace chunkforge
