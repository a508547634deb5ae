// File: server/generation/chunk_cache.h
//
// Encoded chunks (their canonical bytes) in an LRU bounded in bytes, sharded against lock
// contention, with single-flight: concurrent requests for one missing chunk share one
// generation.
//
//   ChunkCache cache(256 << 20);
//   auto r = cache.join(key, {on_ready, is_cancelled, priority});
//   if (r.hit) send(*r.hit);
//   else if (r.produce) schedule(priority, [&] { if (cache.start(key)) cache.fulfil(key, generate()); });
//   // on_ready(bytes) runs when the generation completes (bytes null if it was dropped)
//
// A waiter more urgent than every production queued for its key asks for one more at its own
// priority (a player's nearest chunk joining a look-ahead prefetch must not wait at the
// prefetch's place in the queue); start() lets only the first of them generate.
//
// The capacity bounds what the entries cost in memory, not just their payload: each entry is
// charged its bytes, its key, its index and list nodes, the shared_ptr block and the
// allocator's per-allocation overhead, and each shard its hash buckets. For small chunks the
// overhead is most of the cost (a 160-byte chunk costs about 380 bytes), so counting payload
// alone let the process grow to several times the budget.
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
#include <string_view>
#include <unordered_map>
#include <vector>

#include "generation/bytes.h"

namespace chunkforge::server {

struct CacheStats {
  uint64_t hits = 0, misses = 0, joined = 0, evictions = 0;
  uint64_t bytes = 0;          // charged bytes: payload plus overhead, what the capacity bounds
  uint64_t payload_bytes = 0;  // the encoded chunks' own bytes (part of `bytes`)
  uint64_t entries = 0;
};

class ChunkCache {
 public:
  struct Waiter {
    std::function<void(Bytes)> on_ready;  // null Bytes: the generation was dropped
    std::function<bool()> cancelled;      // true once the requester no longer wants it
    double priority = 0;                  // the queue priority it would produce at (smaller first)
  };
  struct JoinResult {
    Bytes hit;  // set on a cache hit
    // A miss the caller must have produced: nobody is producing it yet, or its productions
    // still queued are all less urgent than this waiter.
    bool produce = false;
    bool first = false;  // no generation of the key was pending: this waiter is its first
  };

  // capacity_bytes is split evenly between the shards; an entry costing more than a shard's
  // share is handed to its waiters but not stored.
  explicit ChunkCache(size_t capacity_bytes, int shards = 16);

  // A hit returns the bytes (the waiter is not kept); a miss registers the waiter.
  JoinResult join(const std::string& key, Waiter waiter);
  // Stores the bytes (evicting least recently used entries beyond the capacity) and hands them
  // to every waiter of the key. Bytes whose string holds much unused capacity are stored, and
  // handed on, as an exact copy.
  void fulfil(const std::string& key, Bytes bytes);
  // Called by a production as it begins: true if it is to generate the key now. False when the
  // key is no longer pending, another production already began, or none of its waiters still
  // wants it (all cancelled: the generation is dropped and they get null). Checked under one
  // lock, so a waiter joining meanwhile is never dropped.
  bool start(const std::string& key);
  // Drops a pending generation unconditionally (it failed): every waiter gets null.
  void abandon(const std::string& key);
  // For a production still queued (GenerationQueue's Release): null while a waiter of the key
  // wants it and none of its productions began. Otherwise the key's pending generation is
  // dropped, if still there, and what is returned hands its waiters null: the caller runs it
  // outside its own locks. Calls no waiter's on_ready itself.
  std::function<void()> release_if_unwanted(const std::string& key);

  CacheStats stats() const;

  // What an entry of this key and these bytes costs in memory, the shard's hash buckets aside.
  static size_t entry_charge(const std::string& key, const std::string& bytes);

 private:
  // One cached entry: the key is stored here only; the index's views point into it.
  struct Node {
    std::string key;
    Bytes bytes;
    size_t charge;  // entry_charge(key, *bytes)
  };
  using Lru = std::list<Node>;  // most recent first
  struct Shard {
    mutable std::mutex mutex;
    Lru lru;
    std::unordered_map<std::string_view, Lru::iterator> index;  // keys: views into lru's nodes
    struct Pending {
      std::vector<Waiter> waiters;
      double priority = 0;   // the most urgent production queued
      bool started = false;  // a production began (start() said true)
    };
    std::unordered_map<std::string, Pending> pending;
    size_t entry_bytes = 0;    // the entries' charges
    size_t payload_bytes = 0;  // their bytes' sizes
    CacheStats stats;
  };
  Shard& shard(const std::string& key);
  static size_t charged_bytes(const Shard& s);
  std::vector<Waiter> take_waiters(Shard& s, const std::string& key);
  void store(Shard& s, const std::string& key, const Bytes& bytes);
  void evict_oldest(Shard& s);

  size_t shard_capacity_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace chunkforge::server
