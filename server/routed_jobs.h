// File: server/routed_jobs.h
//
// The jobs GenerationQueue holds, without its threads or locks: one priority queue per worker
// plus a shared one, and the rule that decides which job a worker runs next.
//
//   RoutedJobs jobs(2);
//   jobs.push(0, 3.0, job);             // for worker 0, priority 3
//   jobs.push(std::nullopt, 0.0, job);  // for any worker
//   std::function<void()> next = jobs.take(1);
//
// take(self) returns the job with the smallest priority value among the queues' tops; among
// equal priorities it prefers worker `self`'s own jobs and the shared ones over another
// worker's, then submission order. So a worker keeps to its own region (and its memo) unless
// another worker's job is strictly more urgent or it has nothing of its own to do, and a job
// never waits while some worker is free.
//
// Thread safety: none; GenerationQueue calls it under its mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

namespace chunkforge::server {

class RoutedJobs {
 public:
  explicit RoutedJobs(size_t workers);

  // A job for `worker` (in [0, workers)), or for any worker when nullopt; smaller priority
  // values run first.
  void push(std::optional<size_t> worker, double priority, std::function<void()> job);
  // Removes and returns the job worker `self` runs next. Requires size() > 0.
  std::function<void()> take(size_t self);
  size_t size() const { return size_; }
  // Drops every queued job.
  void clear();

 private:
  struct Job {
    double priority;
    uint64_t sequence;
    std::function<void()> run;
    bool operator<(const Job& other) const {  // std::priority_queue pops the largest
      return priority != other.priority ? priority > other.priority : sequence > other.sequence;
    }
  };
  size_t pick(size_t self) const;

  std::vector<std::priority_queue<Job>> queues_;  // one per worker, then the shared one last
  uint64_t sequence_ = 0;
  size_t size_ = 0;
};

}  // namespace chunkforge::server
