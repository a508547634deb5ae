// File: client_sdk/src/tile_cover.h
//
// Which ground a set of LOD tiles covers, for tiles a ViewSession kept across a reconnection
// (view_tiles.cc): such a stale tile is dropped once the tiles the new server sent cover every
// chunk of it that the view still needs, so that the horizon never shows a hole.
#pragma once

#include <cstdint>
#include <map>
#include <set>

#include "chunkforge/client/lod_tile.h"

namespace chunkforge::client {

// An inclusive square of chunks; empty when x1 < x0.
struct ChunkSquare {
  int64_t x0 = 0, z0 = 0, x1 = -1, z1 = -1;
  bool empty() const { return x1 < x0 || z1 < z0; }
  bool contains(const ChunkSquare& s) const { return !empty() && x0 <= s.x0 && s.x1 <= x1 && z0 <= s.z0 && s.z1 <= z1; }
  bool meets(const ChunkSquare& s) const {
    return !empty() && !s.empty() && x0 <= s.x1 && s.x0 <= x1 && z0 <= s.z1 && s.z0 <= z1;
  }
};

// The chunks of a tile.
ChunkSquare square_of(const LodKey& key);

class TileCover {
 public:
  void add(const LodKey& key);
  void remove(const LodKey& key);
  void clear();
  size_t size() const { return tiles_.size(); }

  // Whether every chunk of `key` inside `needed` and outside `excluded` lies under a tile added.
  // Costs at most a walk up the levels and a descent through the nodes holding added tiles.
  bool covers(const LodKey& key, const ChunkSquare& needed, const ChunkSquare& excluded) const;

 private:
  bool covers_below(const LodKey& node, const ChunkSquare& needed, const ChunkSquare& excluded) const;

  std::set<LodKey> tiles_;
  // Every node with an added tile strictly below it, and how many: a descent skips the rest.
  std::map<LodKey, size_t> above_;
};

}  // namespace chunkforge::client
