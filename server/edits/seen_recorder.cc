// SeenRecorder: notes of chunks sent, merged into the store's seen land once a second.
#include "edits/seen_recorder.h"

#include <spdlog/spdlog.h>

#include <bit>
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace chunkforge::server {

SeenRecorder::SeenRecorder(EditStore& store, uint32_t epoch, Limits limits, std::function<bool()> store_up,
                           std::string world)
    : store_(store), epoch_(epoch), limits_(limits), store_up_(std::move(store_up)), world_(std::move(world)) {}

void SeenRecorder::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (writer_.joinable()) writer_.join();
}

void SeenRecorder::start() {
  writer_ = std::thread([this] { run(); });
}

void SeenRecorder::note(ChunkCoord c, uint64_t client) {
  const auto now = TokenBucket::Clock::now();
  std::lock_guard lock(mutex_);
  if (known_.epoch_of(c)) return;
  if (!known_.region_seen(c)) {  // a map more in the store: the client's share
    if (new_regions_.size() >= limits_.max_clients) new_regions_.clear();
    auto bucket = new_regions_.try_emplace(client, limits_.new_regions_per_second, limits_.new_region_burst).first;
    if (!bucket->second.take(now)) {
      ++counts_.chunks_refused;
      return;
    }
  }
  if (known_.regions() >= limits_.max_known_regions) known_ = SeenLand();
  known_.mark(c, epoch_);
  ++counts_.chunks_noted;
  if (pending_.regions() >= limits_.max_pending_regions && !pending_.region_seen(c)) {
    ++counts_.chunks_lost;  // too many regions wait (the store is down): a new one is not held
    return;
  }
  pending_.mark(c, epoch_);
}

bool SeenRecorder::flush() {
  std::lock_guard flushing(flush_mutex_);
  SeenLand batch;
  {
    std::lock_guard lock(mutex_);
    std::swap(batch, pending_);
  }
  if (batch.regions() == 0) return true;
  try {
    std::optional<std::string> bound;
    store_.write([&](EditStore::Transaction& tx) {
      bound = tx.meta(kWorldFingerprintKey);
      if (!world_.empty() && bound != world_) return;
      batch.for_each_map(
          [&](int64_t x, int64_t z, uint32_t epoch, const SeenLand::Bits& bits) { tx.merge_seen(x, z, epoch, bits); });
    });
    std::lock_guard lock(mutex_);
    if (!world_.empty() && bound != world_) {
      counts_.chunks_stale += batch.chunks_seen();
      if (!stale_) {
        spdlog::error(
            "seen land: the store now runs the world with fingerprint {} (an upgrade), and this server "
            "serves {}: what it sends is no longer recorded; restart it with the store's newest world",
            bound.value_or("(none)"), world_);
      }
      stale_ = true;
      return true;
    }
    counts_.maps_written += batch.maps();
    if (failing_) spdlog::info("seen land: the store takes it again");
    failing_ = false;
    return true;
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    ++counts_.flush_failures;
    if (!failing_) spdlog::warn("seen land: the store did not take it ({}); kept for later", e.what());
    failing_ = true;
    batch.for_each_map([&](int64_t x, int64_t z, uint32_t epoch, const SeenLand::Bits& bits) {
      if (pending_.regions() < limits_.max_pending_regions) {
        pending_.merge(x, z, epoch, bits);
      } else {
        for (uint64_t word : bits) counts_.chunks_lost += static_cast<uint64_t>(std::popcount(word));
      }
    });
    return false;
  }
}

SeenRecorder::Counts SeenRecorder::counts() const {
  std::lock_guard lock(mutex_);
  Counts c = counts_;
  c.pending_regions = pending_.regions();
  return c;
}

void SeenRecorder::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, limits_.interval, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    if (!store_up_ || store_up_()) flush();
    lock.lock();
  }
}

}  // namespace chunkforge::server
