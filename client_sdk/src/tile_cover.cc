// TileCover (tile_cover.h): a quadtree's covered ground, answered from the added tiles and
// their ancestors, never by visiting chunks.
#include "tile_cover.h"

namespace chunkforge::client {
namespace {

// Levels a wire key may have (lod.proto; the library's kLodMaxLevel): no ancestor lies above.
constexpr uint32_t kTopLevel = 24;

// C++20 shifts negative values arithmetically: a floor division by 2, as tile indices need.
LodKey parent_of(const LodKey& key) { return {key.level + 1, key.x >> 1, key.z >> 1}; }

}  // namespace

ChunkSquare square_of(const LodKey& key) {
  const int64_t n = key.chunks();
  return {key.x * n, key.z * n, key.x * n + n - 1, key.z * n + n - 1};
}

void TileCover::add(const LodKey& key) {
  if (!tiles_.insert(key).second) return;
  for (LodKey up = key; up.level < kTopLevel;) {
    up = parent_of(up);
    ++above_[up];
  }
}

void TileCover::remove(const LodKey& key) {
  if (tiles_.erase(key) == 0) return;
  for (LodKey up = key; up.level < kTopLevel;) {
    up = parent_of(up);
    if (const auto it = above_.find(up); it != above_.end() && --it->second == 0) above_.erase(it);
  }
}

void TileCover::clear() {
  tiles_.clear();
  above_.clear();
}

bool TileCover::covers(const LodKey& key, const ChunkSquare& needed, const ChunkSquare& excluded) const {
  for (LodKey up = key; up.level < kTopLevel;) {  // an added tile at or above covers it whole
    up = parent_of(up);
    if (tiles_.contains(up)) return true;
  }
  return covers_below(key, needed, excluded);
}

bool TileCover::covers_below(const LodKey& node, const ChunkSquare& needed, const ChunkSquare& excluded) const {
  const ChunkSquare square = square_of(node);
  if (!needed.meets(square) || excluded.contains(square)) return true;  // nothing of it is needed
  if (tiles_.contains(node)) return true;
  if (node.level == 0 || !above_.contains(node)) return false;  // needed ground no tile covers
  for (int64_t dz = 0; dz < 2; ++dz) {
    for (int64_t dx = 0; dx < 2; ++dx) {
      if (!covers_below({node.level - 1, node.x * 2 + dx, node.z * 2 + dz}, needed, excluded)) return false;
    }
  }
  return true;
}

}  // namespace chunkforge::client
