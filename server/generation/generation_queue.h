// File: server/generation/generation_queue.h
//
// Chunk generation on a fixed set of worker threads, most urgent first across every request,
// with each chunk routed to a worker by its region so that neighbouring chunks meet the same
// worker's scatter memo (docs/server.md, "How generation is scheduled").
//
//   GenerationQueue queue(2);
//   queue.submit(ring, GenerationQueue::region_of(x, z), [] { ... });   // a chunk
//   queue.submit(0, [] { ... });                                        // anything else
//   if (!queue.offer(region, {Work::view, ring, job, release})) refuse();  // bounded
//
// Each worker has its own queue; jobs without a region go to a shared one that every worker
// reads as its own. A worker runs the smallest priority value it can see, and among equal
// priorities its own jobs before another worker's, then submission order: it takes (steals) a
// job routed elsewhere only when that job is strictly more urgent or it has nothing of its own
// (routed_jobs.h), so no worker idles while work waits.
//
// Bounded: offer() refuses a view job once `max_jobs` are queued, and a prefetch or a Locate
// once half of that is, so that neither can fill what views need; submit() (an edit's check,
// tests) is never refused. A job offered with a release leaves the queue once nobody wants it
// (docs/server.md, "How generation is scheduled"): the queue looks for such jobs whenever it
// has doubled since it last looked, every 100 ms while it holds 256 jobs or more, and before
// refusing one (at most once per size() / 16 offers), so depth() counts wanted work and a few
// stale jobs, not every prefetch a player walked away from.
//
// Thread safety: submit(), offer() and depth() from any thread. stop() (or the destructor) raises
// stopping(), which running generations poll to give up within milliseconds, waits for them,
// and drops the queued jobs.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "generation/routed_jobs.h"

namespace chunkforge::server {

class GenerationQueue {
 public:
  // Chunks per side of a routing region: large enough that a player's whole view (up to 33
  // chunks across) mostly lies in one or two regions, small enough to spread many players.
  static constexpr int64_t kRegionChunks = 16;

  static constexpr size_t kDefaultMaxJobs = kDefaultMaxQueuedJobs;

  // Told, on the worker, how long each job waited in the queue before it started (seconds).
  using WaitObserver = std::function<void(double seconds)>;

  // `nice`: how many levels below the caller's priority the workers run (background_priority.h).
  explicit GenerationQueue(int threads, size_t max_jobs = kDefaultMaxJobs, int nice = 0, WaitObserver waited = {});
  ~GenerationQueue();
  GenerationQueue(const GenerationQueue&) = delete;
  GenerationQueue& operator=(const GenerationQueue&) = delete;

  // The routing key of the region holding chunk (x, z).
  static uint64_t region_of(int64_t chunk_x, int64_t chunk_z);
  // The worker that owns `region` (what submit routes to), in [0, threads()).
  size_t worker_of(uint64_t region) const;

  // A job for the worker owning `region` (smaller priority first).
  void submit(double priority, uint64_t region, std::function<void()> job);
  // A job any worker may run as its own (no memo to share: Locate's planning, tests).
  void submit(double priority, std::function<void()> job);
  // A bounded job for the worker owning `region` (nullopt: any worker). False when the queue
  // is full for its kind (or stopping): nothing was queued, the caller tells its client to
  // retry later.
  bool offer(std::optional<uint64_t> region, QueuedJob job);
  // Takes out every job nobody wants now (O(depth)); the queue also does this by itself.
  void release_unwanted();

  size_t depth() const { return depth_.load(); }
  size_t depth(Work kind) const { return depth_by_kind_[static_cast<size_t>(kind)].load(); }
  size_t max_jobs() const { return max_jobs_; }
  size_t threads() const { return workers_.size(); }
  // Raised by stop(): a generation running on the queue passes it to ChunkStream::generate,
  // so that shutdown never waits for a long chunk.
  const std::atomic<bool>* stopping() const { return &stopping_; }
  // Waits for running jobs and drops the queued ones; later submissions are dropped too.
  // Idempotent.
  void stop();

 private:
  bool push(std::optional<size_t> worker, QueuedJob job, bool bounded);
  bool has_room(Work kind) const;  // under mutex_, as the two below
  std::vector<std::function<void()>> release_locked();
  void count_locked();
  void work(size_t self);

  const size_t max_jobs_;
  const WaitObserver waited_;
  size_t offers_since_release_ = 0;                     // under mutex_
  size_t release_at_ = 0;                               // under mutex_: the size at which to look for unwanted jobs
  std::chrono::steady_clock::time_point last_release_;  // under mutex_: when it last looked
  std::mutex mutex_;
  std::condition_variable wake_;
  RoutedJobs jobs_;  // under mutex_
  std::atomic<size_t> depth_{0};
  std::array<std::atomic<size_t>, kWorkKinds> depth_by_kind_{};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;  // last: they stop before the queues they read
};

}  // namespace chunkforge::server
