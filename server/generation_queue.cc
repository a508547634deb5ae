// GenerationQueue: per-worker priority queues with routing by region and stealing (see the
// header for the order it guarantees).
#include "generation_queue.h"

#include <pthread.h>

#include <algorithm>
#include <string>

namespace chunkforge::server {
namespace {

// SplitMix64's finalizer: neighbouring regions land on unrelated workers, so that players
// spread over the world spread over the workers.
uint64_t mix(uint64_t v) {
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
  return v ^ (v >> 31);
}

// Floor division: chunk -1 is in region -1, not 0.
int64_t region_coordinate(int64_t chunk) {
  const int64_t q = chunk / GenerationQueue::kRegionChunks;
  return (chunk % GenerationQueue::kRegionChunks < 0) ? q - 1 : q;
}

}  // namespace

GenerationQueue::GenerationQueue(int threads) : jobs_(static_cast<size_t>(std::max(threads, 1))) {
  for (size_t w = 0; w < static_cast<size_t>(std::max(threads, 1)); ++w) {
    workers_.emplace_back([this, w] { work(w); });
    // Named so that perf and top tell generation apart from gRPC's threads.
    pthread_setname_np(workers_.back().native_handle(), ("cf-gen-" + std::to_string(w)).c_str());
  }
}

GenerationQueue::~GenerationQueue() { stop(); }

uint64_t GenerationQueue::region_of(int64_t chunk_x, int64_t chunk_z) {
  return mix(static_cast<uint64_t>(region_coordinate(chunk_x)) * 0x9e3779b97f4a7c15ULL ^
             mix(static_cast<uint64_t>(region_coordinate(chunk_z))));
}

size_t GenerationQueue::worker_of(uint64_t region) const { return region % workers_.size(); }

void GenerationQueue::submit(double priority, uint64_t region, std::function<void()> job) {
  push(worker_of(region), priority, std::move(job));
}

void GenerationQueue::submit(double priority, std::function<void()> job) {
  push(std::nullopt, priority, std::move(job));
}

void GenerationQueue::push(std::optional<size_t> worker, double priority, std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;  // the workers are gone or going: nothing would run it
    jobs_.push(worker, priority, std::move(job));
    depth_ = jobs_.size();
  }
  // Any worker may take it (its own, or stolen by an idle one): wake them all; the ones that
  // find nothing go back to sleep. There are only a few workers.
  wake_.notify_all();
}

void GenerationQueue::work(size_t self) {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || jobs_.size() > 0; });
    if (stopping_) return;
    std::function<void()> job = jobs_.take(self);
    depth_ = jobs_.size();
    lock.unlock();
    if (!stopping_) job();  // stop() came meanwhile: dropped like the queued ones
    job = nullptr;          // its captures die outside the lock
    lock.lock();
  }
}

void GenerationQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  std::lock_guard lock(mutex_);
  jobs_.clear();
  depth_ = 0;
}

}  // namespace chunkforge::server
