// LocalLoads (local_loads.h): the session's own generation threads.
#include "local_loads.h"

#include <algorithm>

#include "chunk_change.h"
#include "chunkforge/chunk_edits.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::client {

LocalLoads::LocalLoads(std::shared_ptr<BaseGenerator> generator, ChunkOptions options, size_t threads,
                       std::function<void()> on_done)
    : generator_(std::move(generator)), options_(std::move(options)), on_done_(std::move(on_done)) {
  for (size_t k = 0; k < std::max<size_t>(threads, 1); ++k) threads_.emplace_back([this] { work(); });
}

LocalLoads::~LocalLoads() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void LocalLoads::request(ChunkCoord c, std::optional<v1::ChunkChange> edited) {
  {
    std::lock_guard lock(mutex_);
    const uint64_t ticket = next_ticket_++;
    latest_[c] = ticket;
    std::erase_if(queue_, [&](const Request& r) { return r.coord == c; });
    queue_.push_back({c, std::move(edited), ticket});
  }
  wake_.notify_one();
}

void LocalLoads::forget_if(const std::function<bool(ChunkCoord)>& gone) {
  std::lock_guard lock(mutex_);
  std::erase_if(queue_, [&](const Request& r) { return gone(r.coord); });
  std::erase_if(latest_, [&](const auto& entry) { return gone(entry.first); });
}

bool LocalLoads::pending(ChunkCoord c) const {
  std::lock_guard lock(mutex_);
  return latest_.count(c) != 0;
}

// Results of superseded or forgotten requests are dropped here: only a chunk's newest counts.
std::vector<LocalLoads::Done> LocalLoads::take() {
  std::lock_guard lock(mutex_);
  std::vector<Done> out;
  for (auto& [ticket, done] : done_) {
    const auto latest = latest_.find(done.coord);
    if (latest == latest_.end() || latest->second != ticket) continue;
    latest_.erase(latest);
    out.push_back(std::move(done));
  }
  done_.clear();
  return out;
}

void LocalLoads::request_tile(const LodKey& key) {
  {
    std::lock_guard lock(mutex_);
    const uint64_t ticket = next_ticket_++;
    latest_tiles_[key] = ticket;
    std::erase_if(tile_queue_, [&](const auto& queued) { return queued.first == key; });
    tile_queue_.emplace_back(key, ticket);
  }
  wake_.notify_one();
}

void LocalLoads::forget_tile(const LodKey& key) {
  std::lock_guard lock(mutex_);
  std::erase_if(tile_queue_, [&](const auto& queued) { return queued.first == key; });
  latest_tiles_.erase(key);
}

void LocalLoads::forget_tiles() {
  std::lock_guard lock(mutex_);
  tile_queue_.clear();
  latest_tiles_.clear();
}

size_t LocalLoads::tiles_pending() const {
  std::lock_guard lock(mutex_);
  return latest_tiles_.size();
}

std::vector<LocalLoads::TileDone> LocalLoads::take_tiles() {
  std::lock_guard lock(mutex_);
  std::vector<TileDone> out;
  for (auto& [ticket, done] : tiles_done_) {
    const auto latest = latest_tiles_.find(done.key);
    if (latest == latest_tiles_.end() || latest->second != ticket) continue;
    latest_tiles_.erase(latest);
    out.push_back(std::move(done));
  }
  tiles_done_.clear();
  return out;
}

void LocalLoads::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty() || !tile_queue_.empty(); });
    if (stopping_) return;
    if (queue_.empty()) {  // a tile, once no chunk waits
      const auto [key, ticket] = tile_queue_.front();
      tile_queue_.pop_front();
      lock.unlock();
      TileDone done = make_tile(key);
      lock.lock();
      if (stopping_) return;
      tiles_done_.emplace_back(ticket, std::move(done));
    } else {
      const Request request = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      Done done = make(request);
      lock.lock();
      if (stopping_) return;
      done_.emplace_back(request.ticket, std::move(done));
    }
    lock.unlock();
    on_done_();
    lock.lock();
  }
}

// A key the library refuses (a server's mistake: the session checks keys first) gives no tile.
LocalLoads::TileDone LocalLoads::make_tile(const LodKey& key) {
  try {
    return {key, generator_->generate_tile(key, &stopping_)};
  } catch (const std::exception&) {
    return {key, nullptr};
  }
}

// The chunk as the server would send it. An edited chunk is checked: with a layer filter, the
// copy is not the chunk the hash is of, so the whole chunk is generated once more for the check.
LocalLoads::Done LocalLoads::make(const Request& request) {
  Done done;
  done.coord = request.coord;
  std::shared_ptr<const v1::Chunk> base = generator_->generate(request.coord, options_, &stopping_);
  if (!base) return done;
  auto chunk = std::make_shared<v1::Chunk>(*base);
  if (!request.edited) {
    done.chunk = std::move(chunk);
    return done;
  }
  v1::ChunkChange change = *request.edited;
  change.set_reset(false);  // the base is the start already
  done.edited = true;
  done.version = change.version();
  const auto layers = layer_filter(options_);
  apply_change(*chunk, change, layers);
  const bool known = understood(change);
  if (change.chunk_hash() == 0) {
    done.mismatch = !known;  // nothing to check against: an edit unknown here is never half applied
  } else {
    uint64_t hash = 0;
    if (layers.empty()) {
      hash = served_hash(*chunk);
    } else {
      std::shared_ptr<const v1::Chunk> whole = generator_->generate(request.coord, {}, &stopping_);
      if (!whole) return done;
      v1::Chunk full = *whole;
      apply_change(full, change, {});
      hash = chunk_hash(full);
    }
    done.verified = hash == change.chunk_hash();
    done.mismatch = !done.verified;
  }
  if (!done.mismatch) done.chunk = std::move(chunk);
  return done;
}

}  // namespace chunkforge::client
