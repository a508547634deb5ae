// ChunkCache: the sharded LRU of encoded chunks, its single-flight waiters, and what each entry
// is charged against the capacity.
#include "generation/chunk_cache.h"

#include <algorithm>

#include "chunkforge/hash.h"

namespace chunkforge::server {

namespace {

// What glibc's malloc takes for a request of n bytes (64-bit): n plus an 8-byte header,
// rounded up to 16, at least 32. Measured on Debian 12 (glibc 2.36), 400,000 blocks of one
// size in a fresh process: RSS grew 32.4 bytes a block for requests of 1 to 24 bytes, 48.4
// for 25 to 40, 64.4 for 41 to 56, 80.4 for 57 to 72, 176.4 for 161, 192.4 for 176; 4,000
// blocks of 25,001 bytes grew it 25,062 bytes each.
size_t heap_block(size_t n) { return std::max<size_t>(32, (n + 8 + 15) / 16 * 16); }

// The allocation holding a string's characters: none when they fit inside the string object
// (the short-string optimisation), else capacity + 1 for the terminator.
size_t heap_chars(size_t capacity) {
  static const size_t inline_capacity = std::string().capacity();
  return capacity <= inline_capacity ? 0 : heap_block(capacity + 1);
}

}  // namespace

size_t ChunkCache::entry_charge(const std::string& key, const std::string& bytes) {
  // The blocks an entry allocates, laid out as libstdc++ does (checked below where it can be).
  struct ListNode {  // std::list's node around a Node
    void *next, *prev;
    Node value;
  };
  struct IndexNode {  // std::unordered_map's node; it keeps the hash of string-like keys
    void* next;
    std::pair<const std::string_view, Lru::iterator> value;
    size_t hash;
  };
  struct SharedString {  // the block std::make_shared<const std::string> allocates, as produce() does
    void* vtable;
    int uses, weak_uses;
    std::string value;
  };
#ifdef __GLIBCXX__
  static_assert(sizeof(ListNode) == sizeof(std::_List_node<Node>));
  static_assert(std::__cache_default<std::string_view, std::hash<std::string_view>>::value);
  static_assert(sizeof(IndexNode) == sizeof(std::__detail::_Hash_node<decltype(IndexNode::value), true>));
#endif
  // The stored key is a copy, whose capacity is its size; the bytes are shared as they are.
  return heap_block(sizeof(ListNode)) + heap_block(sizeof(IndexNode)) + heap_block(sizeof(SharedString)) +
         heap_chars(key.size()) + heap_chars(bytes.capacity());
}

ChunkCache::ChunkCache(size_t capacity_bytes, int shards)
    : shard_capacity_(capacity_bytes / static_cast<size_t>(shards)) {
  for (int k = 0; k < shards; ++k) shards_.push_back(std::make_unique<Shard>());
}

ChunkCache::Shard& ChunkCache::shard(const std::string& key) {
  return *shards_[hash_bytes(0, salt("server.cache.shard"), key) % shards_.size()];
}

size_t ChunkCache::charged_bytes(const Shard& s) {
  // A map that never grew uses a single bucket inside itself, not an allocation.
  const size_t buckets = s.index.bucket_count();
  return s.entry_bytes + (buckets > 1 ? heap_block(buckets * sizeof(void*)) : 0);
}

ChunkCache::JoinResult ChunkCache::join(const std::string& key, Waiter waiter) {
  Shard& s = shard(key);
  std::lock_guard lock(s.mutex);
  auto hit = s.index.find(key);
  if (hit != s.index.end()) {
    s.lru.splice(s.lru.begin(), s.lru, hit->second);
    ++s.stats.hits;
    return JoinResult{hit->second->bytes, false};
  }
  auto [it, first] = s.pending.try_emplace(key);
  Shard::Pending& p = it->second;
  ++(first ? s.stats.misses : s.stats.joined);
  const bool produce = first || (!p.started && waiter.priority < p.priority);
  if (produce) p.priority = waiter.priority;
  p.waiters.push_back(std::move(waiter));
  return JoinResult{nullptr, produce, first};
}

std::vector<ChunkCache::Waiter> ChunkCache::take_waiters(Shard& s, const std::string& key) {
  std::vector<Waiter> waiters;
  auto it = s.pending.find(key);
  if (it != s.pending.end()) {
    waiters = std::move(it->second.waiters);
    s.pending.erase(it);
  }
  return waiters;
}

void ChunkCache::store(Shard& s, const std::string& key, const Bytes& bytes) {
  const size_t charge = entry_charge(key, *bytes);
  if (charge > shard_capacity_ || s.index.contains(key)) return;
  s.lru.push_front(Node{key, bytes, charge});
  s.index.emplace(s.lru.front().key, s.lru.begin());
  s.entry_bytes += charge;
  s.payload_bytes += bytes->size();
  while (charged_bytes(s) > shard_capacity_ && !s.lru.empty()) evict_oldest(s);
}

void ChunkCache::evict_oldest(Shard& s) {
  const Node& victim = s.lru.back();
  s.entry_bytes -= victim.charge;
  s.payload_bytes -= victim.bytes->size();
  s.index.erase(victim.key);  // before the node, whose key the index's view points into
  s.lru.pop_back();
  ++s.stats.evictions;
}

void ChunkCache::fulfil(const std::string& key, Bytes bytes) {
  // Serialising through a growing string leaves up to half its capacity unused (protobuf's
  // StringOutputStream doubles it); a copy holds exactly the bytes, for less than generating
  // them cost.
  if (heap_chars(bytes->capacity()) > heap_block(bytes->size() + 1) + bytes->size() / 16) {
    bytes = std::make_shared<const std::string>(*bytes);
  }
  Shard& s = shard(key);
  std::vector<Waiter> waiters;
  {
    std::lock_guard lock(s.mutex);
    waiters = take_waiters(s, key);
    store(s, key, bytes);
  }
  for (Waiter& w : waiters) w.on_ready(bytes);
}

bool ChunkCache::start(const std::string& key) {
  Shard& s = shard(key);
  std::vector<Waiter> waiters;
  {
    std::lock_guard lock(s.mutex);
    auto it = s.pending.find(key);
    if (it == s.pending.end() || it->second.started) return false;
    const auto wanted = [](const Waiter& w) { return !w.cancelled(); };
    if (std::any_of(it->second.waiters.begin(), it->second.waiters.end(), wanted)) {
      it->second.started = true;
      return true;
    }
    waiters = take_waiters(s, key);
  }
  for (Waiter& w : waiters) w.on_ready(nullptr);
  return false;
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

std::function<void()> ChunkCache::release_if_unwanted(const std::string& key) {
  Shard& s = shard(key);
  std::lock_guard lock(s.mutex);
  auto it = s.pending.find(key);
  if (it == s.pending.end() || it->second.started) return [] {};  // made, or being made by another
  const auto wanted = [](const Waiter& w) { return !w.cancelled(); };
  if (std::any_of(it->second.waiters.begin(), it->second.waiters.end(), wanted)) return nullptr;
  auto waiters = std::make_shared<std::vector<Waiter>>(take_waiters(s, key));
  return [waiters] {
    for (Waiter& w : *waiters) w.on_ready(nullptr);
  };
}

CacheStats ChunkCache::stats() const {
  CacheStats total;
  for (const auto& s : shards_) {
    std::lock_guard lock(s->mutex);
    total.hits += s->stats.hits;
    total.misses += s->stats.misses;
    total.joined += s->stats.joined;
    total.evictions += s->stats.evictions;
    total.bytes += charged_bytes(*s);
    total.payload_bytes += s->payload_bytes;
    total.entries += s->lru.size();
  }
  return total;
}

}  // namespace chunkforge::server
