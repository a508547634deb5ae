// TilePool: workers taking jobs off one bounded queue.
#include "tile_pool.h"

namespace chunkforge::map {

TilePool::TilePool(int threads, size_t max_queued) : max_queued_(max_queued) {
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { work(); });
}

TilePool::~TilePool() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(jobs_);
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
  dropped.clear();  // outside the lock: a job's destructor may answer its request
}

bool TilePool::submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

size_t TilePool::queued() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

void TilePool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace chunkforge::map
