// File: server/chunk_cache.h
//
// Encoded chunks (their canonical bytes) in an LRU bounded in bytes, sharded against lock
// contention, with single-flight: concurrent requests for one missing chunk share one
// generation.
//
//   ChunkCache cache(256 << 20);
//   auto r = cache.join(key, {on_ready, is_cancelled});
//   if (r.hit) send(*r.hit);
//   else if (r.produce) schedule([&] { cache.fulfil(key, generate()); });
//   // on_ready(bytes) runs when the generation completes (bytes null if it was dropped)
//
// Thread safety: every method may be called from any thread. Waiter callbacks run on the thread
// that calls fulfil() or abandon(), outside the cache's locks.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace chunkforge::server {

using Bytes = std::shared_ptr<const std::string>;

struct CacheStats {
  uint64_t hits = 0, misses = 0, joined = 0, evictions = 0;
  uint64_t bytes = 0, entries = 0;
};

class ChunkCache {
 public:
  struct Waiter {
    std::function<void(Bytes)> on_ready;  // null Bytes: the generation was dropped
    std::function<bool()> cancelled;      // true once the requester no longer wants it
  };
  struct JoinResult {
    Bytes hit;             // set on a cache hit
    bool produce = false;  // a miss that nobody is producing yet: the caller must produce it
  };

  explicit ChunkCache(size_t capacity_bytes, int shards = 16);

  // A hit returns the bytes (the waiter is not kept); a miss registers the waiter.
  JoinResult join(const std::string& key, Waiter waiter);
  // Stores the bytes (evicting least recently used entries beyond the capacity) and hands them
  // to every waiter of the key.
  void fulfil(const std::string& key, Bytes bytes);
  // Drops a pending generation if none of its waiters still wants it (all cancelled): they
  // get null. Checked and dropped under one lock, so a waiter joining meanwhile is never
  // dropped. True if dropped.
  bool abandon_if_unwanted(const std::string& key);
  // Drops a pending generation unconditionally (it failed): every waiter gets null.
  void abandon(const std::string& key);

  CacheStats stats() const;

 private:
  struct Entry {
    Bytes bytes;
    std::list<std::string>::iterator lru;
  };
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, Entry> entries;
    std::list<std::string> lru;  // most recent first
    std::unordered_map<std::string, std::vector<Waiter>> pending;
    size_t bytes = 0;
    CacheStats stats;
  };
  Shard& shard(const std::string& key);
  std::vector<Waiter> take_waiters(Shard& s, const std::string& key);

  size_t shard_capacity_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace chunkforge::server
