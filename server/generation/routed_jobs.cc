// RoutedJobs: per-worker priority queues, the rule for which job a worker takes next, and the
// removal of jobs nobody wants.
#include "generation/routed_jobs.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace chunkforge::server {

RoutedJobs::RoutedJobs(size_t workers) : queues_(workers + 1) {}

void RoutedJobs::push(std::optional<size_t> worker, QueuedJob job) {
  auto& queue = queues_.at(worker ? *worker : queues_.size() - 1);
  ++by_kind_[static_cast<size_t>(job.kind)];
  const uint32_t turn = job.client != 0 ? queued_by_client_[job.client]++ : 0;
  queue.push_back(Job{std::move(job), turn, sequence_++});
  std::push_heap(queue.begin(), queue.end(), later);
  ++size_;
}

// The smallest (priority, someone else's, turn, sequence) among the queues' tops.
size_t RoutedJobs::pick(size_t self) const {
  const size_t shared = queues_.size() - 1;
  const auto rank = [&](size_t q) {
    const Job& top = queues_[q].front();
    return std::tuple(top.job.priority, q != self && q != shared, top.turn, top.sequence);
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
  std::pop_heap(from.begin(), from.end(), later);
  QueuedJob job = std::move(from.back().job);
  from.pop_back();
  count_out(job);
  --size_;
  return std::move(job.run);
}

void RoutedJobs::count_out(const QueuedJob& job) {
  --by_kind_[static_cast<size_t>(job.kind)];
  if (job.client == 0) return;
  const auto found = queued_by_client_.find(job.client);
  if (--found->second == 0) queued_by_client_.erase(found);
}

std::vector<std::function<void()>> RoutedJobs::release_unwanted() {
  std::vector<std::function<void()>> after;
  for (auto& queue : queues_) {
    const size_t before = queue.size();
    std::erase_if(queue, [&](Job& queued) {
      if (!queued.job.release) return false;
      std::function<void()> instead = queued.job.release();
      if (!instead) return false;
      after.push_back(std::move(instead));
      count_out(queued.job);
      return true;
    });
    if (queue.size() != before) std::make_heap(queue.begin(), queue.end(), later);
    size_ -= before - queue.size();
  }
  return after;
}

void RoutedJobs::clear() {
  for (auto& q : queues_) q.clear();
  by_kind_ = {};
  queued_by_client_.clear();
  size_ = 0;
}

}  // namespace chunkforge::server
