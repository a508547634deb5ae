// File: server/generation_queue.h
//
// Chunk generation on a Boost.Asio thread pool, in priority order across every request: the
// job with the smallest priority value (nearest chunk) runs first, ties in submission order.
//
//   GenerationQueue queue(2);
//   queue.submit(distance, [] { ... });
//
// Thread safety: submit() and depth() from any thread. stop() (or the destructor) raises
// stopping(), which running generations poll to give up within milliseconds, waits for them,
// and drops the queued jobs.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <vector>

namespace chunkforge::server {

class GenerationQueue {
 public:
  explicit GenerationQueue(int threads);
  ~GenerationQueue();

  void submit(double priority, std::function<void()> job);
  size_t depth() const { return depth_.load(); }
  // Raised by stop(): a generation running on the queue passes it to ChunkStream::generate,
  // so that shutdown never waits for a long chunk.
  const std::atomic<bool>* stopping() const { return &stopping_; }
  // Waits for running jobs and drops the queued ones; later submissions are dropped too.
  // Idempotent.
  void stop();

 private:
  struct Job {
    double priority;
    uint64_t sequence;
    std::function<void()> run;
    bool operator<(const Job& other) const {  // std::priority_queue pops the largest
      return priority != other.priority ? priority > other.priority : sequence > other.sequence;
    }
  };
  void run_one();

  std::mutex mutex_;
  std::priority_queue<Job> jobs_;
  uint64_t sequence_ = 0;
  std::atomic<size_t> depth_{0};
  std::atomic<bool> stopping_{false};
  boost::asio::thread_pool pool_;  // last: its threads stop before the queue they read
};

}  // namespace chunkforge::server
