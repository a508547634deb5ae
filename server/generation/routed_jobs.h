// File: server/generation/routed_jobs.h
//
// The jobs GenerationQueue holds, without its threads or locks: one priority queue per worker
// plus a shared one, the rule that decides which job a worker runs next, and the jobs nobody
// wants any more taken out before they are run.
//
//   RoutedJobs jobs(2);
//   jobs.push(0, 3.0, job);             // for worker 0, priority 3
//   jobs.push(std::nullopt, 0.0, job);  // for any worker
//   jobs.push(1, {Work::prefetch, 20.0, job, release});  // a job that may stop being wanted
//   std::function<void()> next = jobs.take(1);
//   for (auto& after : jobs.release_unwanted()) after();  // outside the caller's lock
//
// take(self) returns the job with the smallest priority value among the queues' tops; among
// equal priorities it prefers worker `self`'s own jobs and the shared ones over another
// worker's, then clients in turn, then submission order. So a worker keeps to its own region
// (and its memo) unless another worker's job is strictly more urgent or it has nothing of its
// own to do, and a job never waits while some worker is free.
//
// Clients in turn: a job of a client (its connection) that already has n jobs queued is its
// turn n, and among equal priorities lower turns go first. A client with one job queued goes
// before the second job of every other client at its priority: a flood from one connection
// costs the others at most one job of its own per turn, not its whole backlog.
//
// Thread safety: none; GenerationQueue calls it under its mutex.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace chunkforge::server {

// What a job is for: what GenerationQueue bounds, and counts, by kind. Urgency is the
// priority's business (a player's view before prefetches before Locate, by the priorities
// WorldService gives them).
enum class Work : uint8_t {
  view,      // a chunk someone waits for: GetChunk, StreamRegion, a Session's view
  prefetch,  // a Session's look-ahead: nobody waits for it yet
  locate,    // Locate's planning
  other,     // work whose caller cannot be refused (an edit's check): never bounded
};
inline constexpr size_t kWorkKinds = 4;

// Called under the queue's lock, so it must not call back into the queue: null while someone
// still wants the job; once nobody does, what to do instead of running it (called after the
// lock is released: e.g. tell the waiters that the job was dropped).
using Release = std::function<std::function<void()>()>;

// Jobs the generation queue holds at most by default (Limits::max_queued_jobs): about 8 s of
// work for 2 workers at 2 ms a chunk, far more than a player waits for.
inline constexpr size_t kDefaultMaxQueuedJobs = 8192;

struct QueuedJob {
  Work kind = Work::other;
  double priority = 0;  // smaller first
  std::function<void()> run;
  Release release;      // null: always wanted
  uint64_t client = 0;  // who asked (client_of: its connection); 0: nobody in particular, always turn 0
};

class RoutedJobs {
 public:
  explicit RoutedJobs(size_t workers);

  // A job for `worker` (in [0, workers)), or for any worker when nullopt; smaller priority
  // values run first.
  void push(std::optional<size_t> worker, QueuedJob job);
  void push(std::optional<size_t> worker, double priority, std::function<void()> job) {
    push(worker, QueuedJob{Work::other, priority, std::move(job), {}});
  }
  // Removes and returns the job worker `self` runs next. Requires size() > 0.
  std::function<void()> take(size_t self);
  size_t size() const { return size_; }
  size_t size(Work kind) const { return by_kind_[static_cast<size_t>(kind)]; }
  // Removes every job whose release says nobody wants it; returns what to do instead of them,
  // to be called outside the caller's lock. O(size()).
  std::vector<std::function<void()>> release_unwanted();
  // Drops every queued job.
  void clear();

 private:
  struct Job {
    QueuedJob job;
    uint32_t turn;  // the client's jobs queued before it, when it came
    uint64_t sequence;
  };
  // Heap order: std::push_heap keeps the largest on top, so the most urgent compares largest.
  static bool later(const Job& a, const Job& b) {
    return std::tie(a.job.priority, a.turn, a.sequence) > std::tie(b.job.priority, b.turn, b.sequence);
  }
  size_t pick(size_t self) const;
  void count_out(const QueuedJob& job);  // a job left the queues: its kind's and client's counts

  std::vector<std::vector<Job>> queues_;  // heaps: one per worker, then the shared one last
  std::array<size_t, kWorkKinds> by_kind_{};
  std::unordered_map<uint64_t, uint32_t> queued_by_client_;  // clients with jobs queued
  uint64_t sequence_ = 0;
  size_t size_ = 0;
};

}  // namespace chunkforge::server
