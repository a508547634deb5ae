// File: server/map/tile_chunks.h
//
// Generated chunks' objects shared between the objects tiles of one map: a tile draws the
// objects of its own chunks and of the ring of chunks around it (whose discs reach into it),
// so neighbouring tiles need the same chunks; kept here, each is generated once while it stays.
// Least recently used evicted first, bounded in bytes; keyed by world fingerprint and chunk, so
// a render still under way for an old world never mixes its chunks into a new one.
//
//   TileChunks chunks(16 << 20);
//   TileImage image = render_tile(world, key, &stop, &chunks);
//
// Thread safety: every method locks; any thread.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "chunkforge/chunk.h"

namespace chunkforge::map {

using ChunkObjects = std::shared_ptr<const std::vector<ResourceObject>>;

class TileChunks {
 public:
  explicit TileChunks(size_t max_bytes) : max_bytes_(max_bytes) {}
  ChunkObjects find(const std::string& fingerprint, ChunkCoord chunk);
  void insert(const std::string& fingerprint, ChunkCoord chunk, ChunkObjects objects);
  size_t bytes() const;
  size_t entries() const;

 private:
  struct Entry {
    std::string key;
    ChunkObjects objects;
  };
  static std::string key_of(const std::string& fingerprint, ChunkCoord chunk);
  static size_t cost(const Entry& e) { return e.key.size() + e.objects->size() * sizeof(ResourceObject) + 128; }

  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace chunkforge::map
