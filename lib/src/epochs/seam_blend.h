// The terrain of one epoch where its land meets older land (docs/world-definition.md,
// "Epochs"): within `band` world units of a chunk first seen in an older epoch, the elevation
// moves from this epoch's own to the older land's, by a smoothstep of the distance to the
// nearest such chunk. At the older chunk's edge it is the older land's exactly, so no cliff.
//
//   H_e(p) = h_e(p)                                       d >= band
//          = h_e(p) + w (H_{e-1}(p) - h_e(p)),  w = s(1 - d / band)   0 < d < band
//          = H_{e-1}(p)                                   d == 0
//
// where d is the distance from p to the nearest chunk of an epoch below e and H_{e-1} the
// terrain of the world as it stood while epoch e - 1 was the newest (itself blended the same
// way toward its own older land). Older land's set of chunks never changes once a newer epoch
// exists, so H_e is a pure function of the epochs and the seen-land record.
#pragma once

#include <cstdint>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/seen_land.h"
#include "chunkforge/terrain.h"

namespace chunkforge::epochs {

class SeamBlend final : public ElevationBlend {
 public:
  // `older`: H_{e-1}; `seen` and `older` must outlive the blend.
  SeamBlend(const SeenLand& seen, uint32_t epoch, const Terrain& older, int64_t chunk_size, double band)
      : seen_(seen), epoch_(epoch), older_(older), chunk_size_(chunk_size), band_(band) {}

  double at(Coord x, Coord z, double own) const override;
  void lattice(Coord x0, Coord z0, int64_t step, int nx, int nz, double* values) const override;

 private:
  // The chunks of epochs below epoch_ that lie within the band of [lo, hi] (world cells).
  std::vector<ChunkCoord> older_near(int64_t x_lo, int64_t z_lo, int64_t x_hi, int64_t z_hi) const;
  // Distance from (x, z) to the nearest of `older` (0 inside one), at most band_.
  double distance(Coord x, Coord z, const std::vector<ChunkCoord>& older) const;
  double blend(Coord x, Coord z, double own, double d) const;

  const SeenLand& seen_;
  uint32_t epoch_;
  const Terrain& older_;
  int64_t chunk_size_;
  double band_;
};

}  // namespace chunkforge::epochs
