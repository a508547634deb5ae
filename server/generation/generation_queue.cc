// GenerationQueue: per-worker priority queues with routing by region and stealing (see the
// header for the order it guarantees).
#include "generation/generation_queue.h"

#include "generation/background_priority.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <iterator>
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

// The queue looks for unwanted jobs no sooner than at this size: below it, they cost nothing.
constexpr size_t kMinReleaseSize = 256;
// A worker also looks this often while the queue is at least that deep, so that work left
// unwanted while the queue did not grow (players who jumped and wait) leaves it soon.
constexpr auto kReleasePeriod = std::chrono::milliseconds(100);

GenerationQueue::GenerationQueue(int threads, size_t max_jobs, int nice, WaitObserver waited)
    : max_jobs_(std::max<size_t>(max_jobs, 2)),
      waited_(std::move(waited)),
      release_at_(kMinReleaseSize),
      jobs_(static_cast<size_t>(std::max(threads, 1))) {
  for (size_t w = 0; w < static_cast<size_t>(std::max(threads, 1)); ++w) {
    workers_.emplace_back([this, w, nice] {
      lower_this_thread_priority(nice);
      work(w);
    });
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
  push(worker_of(region), QueuedJob{Work::other, priority, std::move(job), {}}, false);
}

void GenerationQueue::submit(double priority, std::function<void()> job) {
  push(std::nullopt, QueuedJob{Work::other, priority, std::move(job), {}}, false);
}

bool GenerationQueue::offer(std::optional<uint64_t> region, QueuedJob job) {
  const std::optional<size_t> worker = region ? std::optional(worker_of(*region)) : std::nullopt;
  const bool bounded = job.kind != Work::other;
  return push(worker, std::move(job), bounded);
}

void GenerationQueue::release_unwanted() {
  std::vector<std::function<void()>> released;
  {
    std::lock_guard lock(mutex_);
    released = release_locked();
  }
  for (auto& instead : released) instead();
}

// A view may fill the queue; prefetches and Locate only its first half, so that a view always
// finds room that they cannot take.
bool GenerationQueue::has_room(Work kind) const {
  switch (kind) {
    case Work::view:
      return jobs_.size() < max_jobs_;
    case Work::prefetch:
    case Work::locate:
      return jobs_.size() < max_jobs_ / 2;
    case Work::other:
      return true;
  }
  return false;
}

std::vector<std::function<void()>> GenerationQueue::release_locked() {
  std::vector<std::function<void()>> released = jobs_.release_unwanted();
  offers_since_release_ = 0;
  last_release_ = std::chrono::steady_clock::now();
  release_at_ = std::max(kMinReleaseSize, 2 * jobs_.size());
  count_locked();
  return released;
}

void GenerationQueue::count_locked() {
  depth_ = jobs_.size();
  for (size_t k = 0; k < kWorkKinds; ++k) depth_by_kind_[k] = jobs_.size(static_cast<Work>(k));
}

bool GenerationQueue::push(std::optional<size_t> worker, QueuedJob job, bool bounded) {
  if (waited_) {  // timed from here: a job released unwanted never runs, and is not counted
    job.run = [run = std::move(job.run), queued = std::chrono::steady_clock::now(), this] {
      waited_(std::chrono::duration<double>(std::chrono::steady_clock::now() - queued).count());
      run();
    };
  }
  std::vector<std::function<void()>> released;  // called outside the lock: they may offer again
  bool queued = false;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;  // the workers are gone or going: nothing would run it
    ++offers_since_release_;
    // Before refusing, look for jobs nobody wants, but not on every refusal: a full queue of
    // wanted work must not cost a scan per call.
    if (bounded && !has_room(job.kind) && offers_since_release_ > jobs_.size() / 16) released = release_locked();
    if (!bounded || has_room(job.kind)) {
      jobs_.push(worker, std::move(job));
      queued = true;
      if (jobs_.size() >= release_at_) {
        std::vector<std::function<void()>> more = release_locked();
        released.insert(released.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
      }
      count_locked();
    }
  }
  for (auto& instead : released) instead();
  // Any worker may take it (its own, or stolen by an idle one): wake them all; the ones that
  // find nothing go back to sleep. There are only a few workers.
  if (queued) wake_.notify_all();
  return queued;
}

void GenerationQueue::work(size_t self) {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || jobs_.size() > 0; });
    if (stopping_) return;
    if (jobs_.size() >= kMinReleaseSize && std::chrono::steady_clock::now() - last_release_ >= kReleasePeriod) {
      std::vector<std::function<void()>> released = release_locked();
      lock.unlock();
      for (auto& instead : released) instead();
      released.clear();  // their captures die outside the lock
      lock.lock();
      continue;
    }
    std::function<void()> job = jobs_.take(self);
    count_locked();
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
  count_locked();
}

}  // namespace chunkforge::server
