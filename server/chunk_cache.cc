#include "chunk_cache.h"

#include "chunkforge/hash.h"

namespace chunkforge::server {

ChunkCache::ChunkCache(size_t capacity_bytes, int shards)
    : shard_capacity_(capacity_bytes / static_cast<size_t>(shards)) {
  for (int k = 0; k < shards; ++k) shards_.push_back(std::make_unique<Shard>());
}

ChunkCache::Shard& ChunkCache::shard(const std::string& key) {
  return *shards_[hash_bytes(0, salt("server.cache.shard"), key) % shards_.size()];
}

ChunkCache::JoinResult ChunkCache::join(const std::string& key, Waiter waiter) {
  Shard& s = shard(key);
  std::lock_guard lock(s.mutex);
  auto hit = s.entries.find(key);
  if (hit != s.entries.end()) {
    s.lru.splice(s.lru.begin(), s.lru, hit->second.lru);
    ++s.stats.hits;
    return JoinResult{hit->second.bytes, false};
  }
  auto [it, first] = s.pending.try_emplace(key);
  it->second.push_back(std::move(waiter));
  ++(first ? s.stats.misses : s.stats.joined);
  return JoinResult{nullptr, first};
}

std::vector<ChunkCache::Waiter> ChunkCache::take_waiters(Shard& s, const std::string& key) {
  std::vector<Waiter> waiters;
  auto it = s.pending.find(key);
  if (it != s.pending.end()) {
    waiters = std::move(it->second);
    s.pending.erase(it);
  }
  return waiters;
}

void ChunkCache::fulfil(const std::string& key, Bytes bytes) {
  Shard& s = shard(key);
  std::vector<Waiter> waiters;
  {
    std::lock_guard lock(s.mutex);
    waiters = take_waiters(s, key);
    if (s.entries.find(key) == s.entries.end() && bytes->size() <= shard_capacity_) {
      s.lru.push_front(key);
      s.entries.emplace(key, Entry{bytes, s.lru.begin()});
      s.bytes += bytes->size();
      while (s.bytes > shard_capacity_) {
        auto victim = s.entries.find(s.lru.back());
        s.bytes -= victim->second.bytes->size();
        s.entries.erase(victim);
        s.lru.pop_back();
        ++s.stats.evictions;
      }
    }
  }
  for (Waiter& w : waiters) w.on_ready(bytes);
}

bool ChunkCache::abandon_if_unwanted(const std::string& key) {
  Shard& s = shard(key);
  std::vector<Waiter> waiters;
  {
    std::lock_guard lock(s.mutex);
    auto it = s.pending.find(key);
    if (it != s.pending.end()) {
      for (const Waiter& w : it->second) {
        if (!w.cancelled()) return false;
      }
    }
    waiters = take_waiters(s, key);
  }
  for (Waiter& w : waiters) w.on_ready(nullptr);
  return true;
}

void ChunkCache::abandon(const std::string& key) {
  Shard& s = shard(key);
  std::vector<Waiter> waiters;
  {
    std::lock_guard lock(s.mutex);
    waiters = take_waiters(s, key);
  }
  for (Waiter& w : waiters) w.on_ready(nullptr);
}

CacheStats ChunkCache::stats() const {
  CacheStats total;
  for (const auto& s : shards_) {
    std::lock_guard lock(s->mutex);
    total.hits += s->stats.hits;
    total.misses += s->stats.misses;
    total.joined += s->stats.joined;
    total.evictions += s->stats.evictions;
    total.bytes += s->bytes;
    total.entries += s->entries.size();
  }
  return total;
}

}  // namespace chunkforge::server
