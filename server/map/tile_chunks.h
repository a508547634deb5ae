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
#include <memory>
#include <string>
#include <vector>

#include "byte_bounded_lru.h"
#include "chunkforge/chunk.h"

namespace chunkforge::map {

using ChunkObjects = std::shared_ptr<const std::vector<ResourceObject>>;

class TileChunks {
 public:
  explicit TileChunks(size_t max_bytes) : objects_(max_bytes) {}
  ChunkObjects find(const std::string& fingerprint, ChunkCoord chunk) {
    return objects_.find(key_of(fingerprint, chunk));
  }
  void insert(const std::string& fingerprint, ChunkCoord chunk, ChunkObjects objects) {
    objects_.insert(key_of(fingerprint, chunk), std::move(objects));
  }
  size_t bytes() const { return objects_.bytes(); }
  size_t entries() const { return objects_.entries(); }

 private:
  static size_t objects_bytes(const std::vector<ResourceObject>& objects) {
    return objects.size() * sizeof(ResourceObject);
  }
  static std::string key_of(const std::string& fingerprint, ChunkCoord chunk) {
    return fingerprint + ":" + std::to_string(chunk.x) + "," + std::to_string(chunk.z);
  }

  ByteBoundedLru<std::vector<ResourceObject>, &TileChunks::objects_bytes> objects_;
};

}  // namespace chunkforge::map
