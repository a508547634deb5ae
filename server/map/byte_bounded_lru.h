// Shared values by string key, least recently used evicted first, bounded in bytes: an entry
// costs its payload (`payload_bytes` of the value), its key and a fixed overhead for the list
// node, the index entry and the control block. The map's tile cache and its shared chunks are
// two of these.
//
//   ByteBoundedLru<std::string, &string_bytes> cache(64 << 20);
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

template <typename Value, size_t (*payload_bytes)(const Value&)>
class ByteBoundedLru {
 public:
  using Ptr = std::shared_ptr<const Value>;

  explicit ByteBoundedLru(size_t max_bytes) : max_bytes_(max_bytes) {}

  Ptr find(const std::string& key) {
    std::lock_guard lock(mutex_);
    const auto found = index_.find(key);
    if (found == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, found->second);
    return found->second->value;
  }

  // A key already present keeps its value (two producers of one key raced: the same value); a
  // value larger than the whole budget is not kept.
  void insert(const std::string& key, Ptr value) {
    Entry entry{key, std::move(value)};
    const size_t entry_cost = cost(entry);
    std::lock_guard lock(mutex_);
    if (index_.count(key) != 0 || entry_cost > max_bytes_) return;
    evict_to(max_bytes_ - entry_cost);
    order_.push_front(std::move(entry));
    index_[key] = order_.begin();
    bytes_ += entry_cost;
  }

  void clear() {
    std::lock_guard lock(mutex_);
    evict_to(0);
  }
  size_t bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
  }
  size_t entries() const {
    std::lock_guard lock(mutex_);
    return index_.size();
  }

 private:
  struct Entry {
    std::string key;
    Ptr value;
  };
  static size_t cost(const Entry& e) { return e.key.size() + payload_bytes(*e.value) + 128; }

  void evict_to(size_t budget) {  // mutex_ held
    while (bytes_ > budget && !order_.empty()) {
      bytes_ -= cost(order_.back());
      index_.erase(order_.back().key);
      order_.pop_back();
    }
  }

  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace chunkforge::map
