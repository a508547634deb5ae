// File: tests/support/lod_expected.h
//
// The LOD tiles a Session promises a player (docs/lod.md, "Sessions"): lod_view around its
// position, not split below the finest level, less the tiles wholly inside its chunk view. The
// tests and lod_session_bench compare what they receive with it. Also the keys of a
// `lod_pristine` or `lod_unloads` event, decoded as a raw-stub client must.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "chunkforge/coord.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/service.pb.h"
#include "chunkforge/world_extent.h"

namespace chunkforge::test {

inline std::set<LodKey> expected_session_tiles(int64_t chunk_size, double x, double z, int64_t view_radius,
                                               int64_t lod_radius, int finest_level = 0) {
  const int64_t cx = chunk_coordinate(x, static_cast<uint32_t>(chunk_size));
  const int64_t cz = chunk_coordinate(z, static_cast<uint32_t>(chunk_size));
  LodRings rings;
  rings.finest_level = finest_level;
  std::set<LodKey> out;
  for (const LodKey& k : lod_view(chunk_size, x, z, lod_radius, rings)) {
    const int64_t n = k.chunks();
    const bool inside = k.x * n >= cx - view_radius && (k.x + 1) * n - 1 <= cx + view_radius &&
                        k.z * n >= cz - view_radius && (k.z + 1) * n - 1 <= cz + view_radius;
    if (!inside) out.insert(k);
  }
  return out;
}

// The keys of a `lod_pristine` (v1::PristineTiles) or `lod_unloads` (v1::TileKeys) event.
template <typename Keys>
std::vector<LodKey> tile_keys_of(const Keys& tiles) {
  std::vector<LodKey> out;
  for (int k = 0; k < tiles.levels_size() && 2 * k + 1 < tiles.offsets_size(); ++k) {
    const auto level = static_cast<int>(tiles.levels(k));
    const int64_t n = int64_t{1} << level;
    out.push_back({level, floor_div(tiles.origin().x(), n) + tiles.offsets(2 * k),
                   floor_div(tiles.origin().z(), n) + tiles.offsets(2 * k + 1)});
  }
  return out;
}
inline std::vector<LodKey> pristine_tile_keys(const v1::PristineTiles& tiles) { return tile_keys_of(tiles); }

}  // namespace chunkforge::test
