// File: server/edits/serial_lane.h
//
// Jobs run one at a time, in order, each posted to an executor only once the one before it has
// finished. Edits prepare their batches through one lane on the generation threads: however
// many edits arrive, they hold at most one of those threads at a time, and a player's chunk
// queued meanwhile runs between two of them (docs/edits.md, "Limits").
//
//   SerialLane lane([&](std::function<void()> job) { queue.submit(priority, std::move(job)); });
//   lane.add([] { ... });
//
// Thread safety: add() may be called from any thread. The lane must outlive its posted jobs.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <utility>

namespace chunkforge::server {

class SerialLane {
 public:
  using Post = std::function<void(std::function<void()>)>;
  explicit SerialLane(Post post) : post_(std::move(post)) {}

  void add(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
      if (running_) return;
      running_ = true;
    }
    post_([this] { run_one(); });
  }

 private:
  void run_one() {
    std::function<void()> job;
    {
      std::lock_guard lock(mutex_);
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
    {
      std::lock_guard lock(mutex_);
      if (jobs_.empty()) {
        running_ = false;
        return;
      }
    }
    post_([this] { run_one(); });
  }

  Post post_;
  std::mutex mutex_;
  std::deque<std::function<void()>> jobs_;
  bool running_ = false;
};

}  // namespace chunkforge::server
