// LocalLoads (local_loads.h): the session's own generation threads.
#include "local_loads.h"

#include <algorithm>

#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::client {
namespace {

// The results whose ticket is still their key's newest, in order, each key then no longer
// pending; results of superseded or forgotten requests are dropped. `done` is emptied.
template <class Result, class Key, class KeyOf>
std::vector<Result> take_newest(std::vector<std::pair<uint64_t, Result>>& done, std::map<Key, uint64_t>& latest,
                                KeyOf key_of) {
  std::vector<Result> out;
  for (auto& [ticket, result] : done) {
    const auto newest = latest.find(key_of(result));
    if (newest == latest.end() || newest->second != ticket) continue;
    latest.erase(newest);
    out.push_back(std::move(result));
  }
  done.clear();
  return out;
}

}  // namespace

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

std::vector<LocalLoads::Done> LocalLoads::take() {
  std::lock_guard lock(mutex_);
  return take_newest(done_, latest_, [](const Done& done) { return done.coord; });
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
  return take_newest(tiles_done_, latest_tiles_, [](const TileDone& done) { return done.key; });
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

// The generator throws only for a chunk that does not exist: never one the server sent.
LocalLoads::Done LocalLoads::make(const Request& request) {
  Done done;
  try {
    static_cast<LocalChunk&>(done) =
        make_local_chunk(*generator_, request.coord, options_, request.edited ? &*request.edited : nullptr, &stopping_);
  } catch (const std::exception&) {
    done.mismatch = true;  // fetched from the server, which says what is wrong
  }
  done.coord = request.coord;
  return done;
}

}  // namespace chunkforge::client
