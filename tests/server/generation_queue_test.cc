// GenerationQueue on its own: the most urgent job first, ties in submission order, and stop()
// dropping what is still queued.
#include "generation_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace chunkforge::server {
namespace {

// Occupies the queue's only thread until released, so that later submissions queue up.
class Blocker {
 public:
  explicit Blocker(GenerationQueue& queue) {
    queue.submit(-1, [this] {
      started_.set_value();
      release_.get_future().wait();
    });
    started_.get_future().wait();
  }
  void release() { release_.set_value(); }

 private:
  std::promise<void> started_, release_;
};

// Records the order jobs ran in.
struct Journal {
  std::mutex mutex;
  std::vector<int> ran;
  std::function<void()> job(int id) {
    return [this, id] {
      std::lock_guard lock(mutex);
      ran.push_back(id);
    };
  }
};

TEST(GenerationQueueTest, TheSmallestPriorityRunsFirstAndTiesInSubmissionOrder) {
  GenerationQueue queue(1);
  Journal journal;
  Blocker blocker(queue);
  queue.submit(5, journal.job(50));
  queue.submit(1, journal.job(10));
  queue.submit(3, journal.job(30));
  queue.submit(1, journal.job(11));
  queue.submit(0, journal.job(0));
  queue.submit(1, journal.job(12));
  EXPECT_EQ(queue.depth(), 6u);
  blocker.release();
  std::promise<void> done;
  queue.submit(100, [&] { done.set_value(); });
  done.get_future().wait();
  EXPECT_EQ(journal.ran, (std::vector<int>{0, 10, 11, 12, 30, 50}));
  EXPECT_EQ(queue.depth(), 0u);
}

TEST(GenerationQueueTest, StopWaitsForTheRunningJobAndDropsTheQueuedOnes) {
  GenerationQueue queue(1);
  Journal journal;
  Blocker blocker(queue);
  for (int id = 0; id < 3; ++id) queue.submit(id, journal.job(id));
  std::thread stopper([&] { queue.stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // stop() is waiting by now
  blocker.release();
  stopper.join();
  EXPECT_TRUE(journal.ran.empty());

  queue.submit(0, journal.job(99));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::lock_guard lock(journal.mutex);
  EXPECT_TRUE(journal.ran.empty()) << "a job submitted after stop() must not run";
}

}  // namespace
}  // namespace chunkforge::server
