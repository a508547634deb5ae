// File: client_sdk/src/local_cache.h
//
// A ViewSession's chunks beyond the view: least recently used out first once their encoded
// sizes pass the budget. Not thread-safe (the session's mutex guards it).
#pragma once

#include <list>
#include <map>
#include <vector>

#include "chunkforge/client/chunk.h"

namespace chunkforge::client {

class LocalCache {
 public:
  explicit LocalCache(size_t budget_bytes) : budget_(budget_bytes) {}

  void put(ChunkCoord c, Chunk chunk) {
    erase(c);
    bytes_ += chunk.encoded_bytes();
    order_.push_front(c);
    entries_.emplace(c, Entry{std::move(chunk), order_.begin()});
    while (bytes_ > budget_ && !order_.empty()) erase(order_.back());
  }

  // Removes and returns every chunk whose coordinate satisfies `wanted`.
  template <class Predicate>
  std::vector<Chunk> take_if(Predicate wanted) {
    std::vector<Chunk> out;
    for (auto it = entries_.begin(); it != entries_.end();) {
      const ChunkCoord c = (it++)->first;  // step first: erase(c) invalidates c's entry
      if (!wanted(c)) continue;
      out.push_back(entries_.at(c).chunk);
      erase(c);
    }
    return out;
  }

  // The cached chunk at `c`, or null; does not count as a use.
  const Chunk* find(ChunkCoord c) const {
    const auto it = entries_.find(c);
    return it == entries_.end() ? nullptr : &it->second.chunk;
  }

  void erase(ChunkCoord c) {
    const auto it = entries_.find(c);
    if (it == entries_.end()) return;
    bytes_ -= it->second.chunk.encoded_bytes();
    order_.erase(it->second.position);
    entries_.erase(it);
  }

  void clear() {
    entries_.clear();
    order_.clear();
    bytes_ = 0;
  }

  size_t bytes() const { return bytes_; }

 private:
  struct Entry {
    Chunk chunk;
    std::list<ChunkCoord>::iterator position;  // in order_, most recent first
  };

  size_t budget_;
  size_t bytes_ = 0;
  std::list<ChunkCoord> order_;
  std::map<ChunkCoord, Entry> entries_;
};

}  // namespace chunkforge::client
