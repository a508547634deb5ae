// TileCache: an LRU list plus an index, trimmed to its byte budget on every insert.
#include "tile_cache.h"

namespace chunkforge::map {

std::shared_ptr<const std::string> TileCache::find(const std::string& etag) {
  std::lock_guard lock(mutex_);
  const auto found = index_.find(etag);
  if (found == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, found->second);
  return found->second->png;
}

void TileCache::insert(const std::string& etag, std::shared_ptr<const std::string> png) {
  std::lock_guard lock(mutex_);
  if (index_.count(etag) != 0) return;  // two renders of one tile raced: same bytes
  Entry entry{etag, std::move(png)};
  const size_t entry_cost = cost(entry);
  if (entry_cost > max_bytes_) return;
  evict_to(max_bytes_ - entry_cost);
  order_.push_front(std::move(entry));
  index_[etag] = order_.begin();
  bytes_ += entry_cost;
}

void TileCache::clear() {
  std::lock_guard lock(mutex_);
  evict_to(0);
}

size_t TileCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

size_t TileCache::entries() const {
  std::lock_guard lock(mutex_);
  return index_.size();
}

void TileCache::evict_to(size_t budget) {
  while (bytes_ > budget && !order_.empty()) {
    bytes_ -= cost(order_.back());
    index_.erase(order_.back().etag);
    order_.pop_back();
  }
}

}  // namespace chunkforge::map
