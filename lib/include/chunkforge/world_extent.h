// File: chunkforge/world_extent.h
//
// What the generator, the server, the SDK and the tools all know about the world's extent,
// written once: the supported world (|x|, |z| <= 2^40 world units) and the chunk under a
// position. Header-only and dependency-free (CMake target chunkforge::common), so the SDK uses
// it without the generation library.
//
//   int64_t cx = chunkforge::chunk_coordinate(player_x, world.chunk_size());
//   if (std::abs(requested) > chunkforge::chunk_limit(world.chunk_size())) refuse();
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace chunkforge {

// The supported world: |x|, |z| <= 2^40 world units (docs/determinism.md: as exact at the edge
// as at the origin).
inline constexpr int64_t kWorldUnits = int64_t{1} << 40;

// The largest |chunk coordinate| of the supported world for `chunk_size` (0 is taken as 1, so
// a world info without a chunk size cannot divide by zero).
constexpr int64_t chunk_limit(uint32_t chunk_size) { return kWorldUnits / std::max<int64_t>(chunk_size, 1); }

// The chunk coordinate of world position `v` on one axis: the chunk under it, clamped to the
// supported world. A NaN gives 0 and a huge value the world's edge, never an undefined
// conversion. The server and the SDK both call this, so they agree on every player's view.
inline int64_t chunk_coordinate(double v, uint32_t chunk_size) {
  const double size = static_cast<double>(std::max<uint32_t>(chunk_size, 1));
  const double limit = static_cast<double>(chunk_limit(chunk_size));
  const double chunk = std::floor(v / size);
  return static_cast<int64_t>(std::isnan(chunk) ? 0.0 : std::clamp(chunk, -limit, limit));
}

}  // namespace chunkforge
