// The LOD tiles of a player's view: a quadtree over the view's square of chunks, refined
// near the player (docs/lod.md, "Levels and rings").
#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "chunkforge/coord.h"
#include "chunkforge/lod.h"
#include "chunkforge/world_extent.h"

namespace chunkforge {
namespace {

// Inclusive ranges of chunks.
struct ChunkSquare {
  int64_t x0, z0, x1, z1;
};

struct ViewFrame {
  int64_t chunk_size;
  int64_t px, pz;  // the player's chunk
  ChunkSquare view;
  int finest;
  double split_tiles;
};

ChunkSquare square_of(const LodKey& key) {
  const int64_t n = key.chunks();
  return {key.x * n, key.z * n, key.x * n + n - 1, key.z * n + n - 1};
}

bool intersects(const ChunkSquare& a, const ChunkSquare& b) {
  return a.x0 <= b.x1 && b.x0 <= a.x1 && a.z0 <= b.z1 && b.z0 <= a.z1;
}

// Per axis, how many chunks lie between the player's chunk and the square (0 inside it).
int64_t gap(int64_t p, int64_t lo, int64_t hi) { return std::max<int64_t>({0, lo - p, p - hi}); }

// Chebyshev distance in chunks from the player's chunk to the tile's nearest chunk.
int64_t chebyshev(const ViewFrame& f, const ChunkSquare& s) {
  return std::max(gap(f.px, s.x0, s.x1), gap(f.pz, s.z0, s.z1));
}

void refine(const ViewFrame& f, const LodKey& key, std::vector<LodKey>& out) {
  const ChunkSquare square = square_of(key);
  if (!intersects(square, f.view)) return;
  const bool split = key.level > f.finest &&
                     static_cast<double>(chebyshev(f, square)) < f.split_tiles * static_cast<double>(key.chunks());
  if (!split) {
    if (lod_key_error(f.chunk_size, key).empty()) out.push_back(key);
    return;
  }
  for (int64_t dz = 0; dz < 2; ++dz) {
    for (int64_t dx = 0; dx < 2; ++dx) refine(f, LodKey{key.level - 1, key.x * 2 + dx, key.z * 2 + dz}, out);
  }
}

}  // namespace

std::vector<LodKey> lod_view(int64_t chunk_size, double x, double z, int64_t radius_chunks, const LodRings& rings) {
  const uint32_t size = static_cast<uint32_t>(chunk_size);
  ViewFrame f{};
  f.chunk_size = chunk_size;
  f.px = chunk_coordinate(x, size);
  f.pz = chunk_coordinate(z, size);
  f.split_tiles = std::max(rings.split_tiles, 0.0);
  const int64_t r = std::clamp<int64_t>(radius_chunks, 0, chunk_limit(size));
  f.view = {f.px - r, f.pz - r, f.px + r, f.pz + r};
  f.finest = std::clamp(rings.finest_level < 0 ? lod_finest_level(chunk_size) : rings.finest_level,
                        lod_finest_level(chunk_size), kLodMaxLevel);
  // The roots: the finest level whose tiles are at least as wide as the radius, so that at most
  // 3 x 3 of them cover the view's square.
  int top = f.finest;
  while (top < kLodMaxLevel && (int64_t{1} << top) < r + 1) ++top;
  std::vector<LodKey> out;
  const int64_t n = int64_t{1} << top;
  for (int64_t tz = floor_div(f.view.z0, n); tz <= floor_div(f.view.z1, n); ++tz) {
    for (int64_t tx = floor_div(f.view.x0, n); tx <= floor_div(f.view.x1, n); ++tx) refine(f, LodKey{top, tx, tz}, out);
  }
  auto order = [&f](const LodKey& k) {
    const ChunkSquare s = square_of(k);
    // In a double: gaps reach 2^36 chunks across the supported world, whose squares would overflow.
    const double dx = static_cast<double>(gap(f.px, s.x0, s.x1)), dz = static_cast<double>(gap(f.pz, s.z0, s.z1));
    return std::tuple(k.level, dx * dx + dz * dz, k.z, k.x);
  };
  std::sort(out.begin(), out.end(), [&](const LodKey& a, const LodKey& b) { return order(a) < order(b); });
  return out;
}

}  // namespace chunkforge
