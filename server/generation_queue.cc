// GenerationQueue: a priority queue of jobs drained by a Boost.Asio thread pool.
#include "generation_queue.h"

#include <boost/asio/post.hpp>

namespace chunkforge::server {

GenerationQueue::GenerationQueue(int threads) : pool_(static_cast<size_t>(threads)) {}

GenerationQueue::~GenerationQueue() { stop(); }

void GenerationQueue::stop() {
  stopping_ = true;
  pool_.join();
}

void GenerationQueue::submit(double priority, std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;  // the pool is joined: nothing would run it (or count it out)
    jobs_.push(Job{priority, sequence_++, std::move(job)});
    ++depth_;  // under the lock: a pool thread cannot pop (and decrement) first
  }
  // Each posted task runs whichever job is most urgent when a thread frees up.
  boost::asio::post(pool_, [this] { run_one(); });
}

void GenerationQueue::run_one() {
  std::function<void()> job;
  {
    std::lock_guard lock(mutex_);
    if (jobs_.empty()) return;
    job = std::move(const_cast<Job&>(jobs_.top()).run);
    jobs_.pop();
    --depth_;
  }
  if (!stopping_) job();
}

}  // namespace chunkforge::server
