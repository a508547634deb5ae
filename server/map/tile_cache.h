// File: server/map/tile_cache.h
//
// Encoded tiles by ETag, least recently used evicted first, bounded in bytes (the PNG bytes
// plus the key and a fixed overhead per entry).
//
//   TileCache cache(64 << 20);
//   if (auto png = cache.find(etag)) return *png;
//   cache.insert(etag, std::make_shared<const std::string>(render()));
//
// Thread safety: every method locks; any thread.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace chunkforge::map {

class TileCache {
 public:
  explicit TileCache(size_t max_bytes) : max_bytes_(max_bytes) {}
  std::shared_ptr<const std::string> find(const std::string& etag);
  void insert(const std::string& etag, std::shared_ptr<const std::string> png);
  void clear();
  size_t bytes() const;
  size_t entries() const;

 private:
  struct Entry {
    std::string etag;
    std::shared_ptr<const std::string> png;
  };
  static size_t cost(const Entry& e) { return e.etag.size() + e.png->size() + 128; }
  void evict_to(size_t budget);  // mutex_ held

  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace chunkforge::map
