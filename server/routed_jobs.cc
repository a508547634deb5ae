// RoutedJobs: per-worker priority queues and the rule for which job a worker takes next.
#include "routed_jobs.h"

#include <tuple>
#include <utility>

namespace chunkforge::server {

RoutedJobs::RoutedJobs(size_t workers) : queues_(workers + 1) {}

void RoutedJobs::push(std::optional<size_t> worker, double priority, std::function<void()> job) {
  const size_t q = worker ? *worker : queues_.size() - 1;
  queues_.at(q).push(Job{priority, sequence_++, std::move(job)});
  ++size_;
}

// The smallest (priority, someone else's, sequence) among the queues' tops.
size_t RoutedJobs::pick(size_t self) const {
  const size_t shared = queues_.size() - 1;
  const auto rank = [&](size_t q) {
    const Job& top = queues_[q].top();
    return std::tuple(top.priority, q != self && q != shared, top.sequence);
  };
  size_t best = queues_.size();
  for (size_t q = 0; q < queues_.size(); ++q) {
    if (queues_[q].empty()) continue;
    if (best == queues_.size() || rank(q) < rank(best)) best = q;
  }
  return best;
}

std::function<void()> RoutedJobs::take(size_t self) {
  auto& from = queues_.at(pick(self));
  // top() is const only so that the heap cannot be broken; the job is popped right after.
  std::function<void()> job = std::move(const_cast<Job&>(from.top()).run);
  from.pop();
  --size_;
  return job;
}

void RoutedJobs::clear() {
  for (auto& q : queues_) q = {};
  size_ = 0;
}

}  // namespace chunkforge::server
