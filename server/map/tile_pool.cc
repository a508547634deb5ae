// TilePool: workers taking the job nearest the viewer's focus off one bounded queue.
#include "tile_pool.h"

#include <algorithm>
#include <iterator>

namespace chunkforge::map {
namespace {

double distance_squared(const std::optional<TilePlace>& place, const TilePlace& focus) {
  if (!place) return 0;
  const double dx = place->x - focus.x, dz = place->z - focus.z;
  return dx * dx + dz * dz;
}

}  // namespace

TilePool::TilePool(int threads, size_t max_queued) : max_queued_(max_queued) {
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { work(); });
}

TilePool::~TilePool() {
  std::vector<Waiting> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(jobs_);
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
  dropped.clear();  // outside the lock: a job's destructor may answer its request
}

bool TilePool::submit(std::function<void()> job, std::optional<TilePlace> place,
                      std::shared_ptr<const std::atomic<bool>> cancelled) {
  std::vector<Waiting> dropped;  // destroyed after the lock: a job's destructor may answer its request
  {
    std::lock_guard lock(mutex_);
    drop_abandoned(dropped);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(Waiting{std::move(job), place, next_sequence_++, std::move(cancelled)});
  }
  wake_.notify_one();
  return true;
}

void TilePool::drop_abandoned(std::vector<Waiting>& dropped) {
  auto abandoned = std::stable_partition(jobs_.begin(), jobs_.end(), [](const Waiting& w) { return !w.abandoned(); });
  std::move(abandoned, jobs_.end(), std::back_inserter(dropped));
  jobs_.erase(abandoned, jobs_.end());
}

void TilePool::set_focus(TilePlace focus) {
  std::lock_guard lock(mutex_);
  focus_ = focus;
}

size_t TilePool::queued() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

// A linear scan: the queue holds at most a few hundred jobs, each costing milliseconds to run.
size_t TilePool::next_index() const {
  size_t best = 0;
  for (size_t k = 1; k < jobs_.size(); ++k) {
    const double here = focus_ ? distance_squared(jobs_[k].place, *focus_) : 0;
    const double there = focus_ ? distance_squared(jobs_[best].place, *focus_) : 0;
    if (here < there || (here == there && jobs_[k].sequence < jobs_[best].sequence)) best = k;
  }
  return best;
}

void TilePool::work() {
  for (;;) {
    std::function<void()> job;
    std::vector<Waiting> dropped;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      drop_abandoned(dropped);
      if (jobs_.empty()) continue;
      const size_t k = next_index();
      job = std::move(jobs_[k].job);
      jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(k));
    }
    job();
  }
}

}  // namespace chunkforge::map
