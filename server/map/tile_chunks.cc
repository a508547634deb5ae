// TileChunks: an LRU list plus an index, trimmed to its byte budget on every insert.
#include "tile_chunks.h"

namespace chunkforge::map {

std::string TileChunks::key_of(const std::string& fingerprint, ChunkCoord chunk) {
  return fingerprint + ":" + std::to_string(chunk.x) + "," + std::to_string(chunk.z);
}

ChunkObjects TileChunks::find(const std::string& fingerprint, ChunkCoord chunk) {
  const std::string key = key_of(fingerprint, chunk);
  std::lock_guard lock(mutex_);
  const auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, found->second);
  return found->second->objects;
}

void TileChunks::insert(const std::string& fingerprint, ChunkCoord chunk, ChunkObjects objects) {
  Entry entry{key_of(fingerprint, chunk), std::move(objects)};
  const size_t entry_cost = cost(entry);
  std::lock_guard lock(mutex_);
  if (index_.count(entry.key) != 0 || entry_cost > max_bytes_) return;  // raced: the same objects
  while (bytes_ + entry_cost > max_bytes_ && !order_.empty()) {
    bytes_ -= cost(order_.back());
    index_.erase(order_.back().key);
    order_.pop_back();
  }
  order_.push_front(std::move(entry));
  index_[order_.front().key] = order_.begin();
  bytes_ += entry_cost;
}

size_t TileChunks::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

size_t TileChunks::entries() const {
  std::lock_guard lock(mutex_);
  return index_.size();
}

}  // namespace chunkforge::map
