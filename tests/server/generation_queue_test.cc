// GenerationQueue on its own: the most urgent job first, ties in submission order, routing by
// region with no worker idle while work waits, stop() prompt, dropping what is still queued, and
// its bound: refusals by kind, and unwanted work leaving the queue instead of piling up.
// The exact order between workers is routed_jobs_test.cc's.
#include "generation/generation_queue.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "generation/background_priority.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
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

TEST(GenerationQueueTest, NeighbouringChunksShareARegionAndRegionsSpreadOverWorkers) {
  GenerationQueue queue(2);
  const uint64_t region = GenerationQueue::region_of(32, -16);
  for (int64_t x = 32; x < 48; ++x) {
    for (int64_t z = -16; z < 0; ++z) EXPECT_EQ(GenerationQueue::region_of(x, z), region) << x << "," << z;
  }
  EXPECT_NE(GenerationQueue::region_of(-1, 0), GenerationQueue::region_of(0, 0));
  EXPECT_NE(GenerationQueue::region_of(0, -1), GenerationQueue::region_of(0, 0));
  std::set<size_t> workers;
  for (int64_t r = 0; r < 64; ++r) workers.insert(queue.worker_of(GenerationQueue::region_of(r * 16, 0)));
  EXPECT_EQ(workers, (std::set<size_t>{0, 1}));
}

TEST(GenerationQueueTest, AJobRoutedToABusyWorkerRunsOnAnIdleOne) {
  GenerationQueue queue(2);
  Blocker blocker(queue);         // one worker is held; which one does not matter
  std::vector<uint64_t> regions;  // one region of each worker
  for (int64_t r = 0; regions.size() < 2; ++r) {
    const uint64_t region = GenerationQueue::region_of(r * 16, 0);
    if (queue.worker_of(region) == regions.size()) regions.push_back(region);
  }
  std::promise<void> done[2][3];
  for (size_t w = 0; w < 2; ++w) {
    for (auto& d : done[w]) queue.submit(1, regions[w], [&d] { d.set_value(); });
  }
  for (auto& per_worker : done) {
    for (auto& d : per_worker) {
      EXPECT_EQ(d.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready)
          << "a job waited for the busy worker while the other was idle";
    }
  }
  blocker.release();
}

TEST(GenerationQueueTest, StopEndsARunningGenerationPromptly) {
  GenerationQueue queue(2);
  std::promise<void> started;
  std::atomic<bool> saw_stopping{false};
  queue.submit(0, [&] {  // a long generation: polls stopping() as ChunkStream does
    started.set_value();
    while (!queue.stopping()->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    saw_stopping = true;
  });
  started.get_future().wait();
  Journal journal;
  for (int id = 0; id < 50; ++id) queue.submit(id, GenerationQueue::region_of(id, 0), journal.job(id));
  auto stopped = std::async(std::launch::async, [&] { queue.stop(); });
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(5)), std::future_status::ready) << "stop() is not prompt";
  EXPECT_TRUE(saw_stopping);
  EXPECT_EQ(queue.depth(), 0u);
  queue.stop();  // idempotent
}

// A job of `kind` that counts its runs, and its drops once `unwanted` is raised.
struct Counted {
  std::atomic<int> ran{0}, dropped{0};
  QueuedJob job(Work kind, double priority, std::shared_ptr<std::atomic<bool>> unwanted = nullptr) {
    Release release;
    if (unwanted) {
      release = [this, unwanted]() -> std::function<void()> {
        if (!unwanted->load()) return nullptr;
        return [this] { ++dropped; };
      };
    }
    return QueuedJob{kind, priority, [this] { ++ran; }, std::move(release)};
  }
};

TEST(GenerationQueueTest, ViewsFillTheBoundPrefetchesAndLocateHalfOfItOtherWorkIsNeverRefused) {
  GenerationQueue queue(1, 8);
  Counted counted;
  Blocker blocker(queue);
  for (int k = 0; k < 3; ++k) {
    EXPECT_TRUE(queue.offer(GenerationQueue::region_of(k, 0), counted.job(Work::prefetch, 20)));
  }
  EXPECT_TRUE(queue.offer(std::nullopt, counted.job(Work::locate, 40)));
  EXPECT_FALSE(queue.offer(std::nullopt, counted.job(Work::locate, 40))) << "half of 8 are queued";
  EXPECT_FALSE(queue.offer(0, counted.job(Work::prefetch, 20)));
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(queue.offer(0, counted.job(Work::view, 1)));
  EXPECT_FALSE(queue.offer(0, counted.job(Work::view, 1))) << "8 are queued";
  EXPECT_EQ(queue.depth(), 8u);
  EXPECT_EQ(queue.depth(Work::view), 4u);
  EXPECT_EQ(queue.depth(Work::prefetch), 3u);
  EXPECT_EQ(queue.depth(Work::locate), 1u);
  std::promise<void> done;
  queue.submit(100, [&] { done.set_value(); });  // an edit's check: never refused
  EXPECT_EQ(queue.depth(), 9u);
  blocker.release();
  done.get_future().wait();
  EXPECT_EQ(counted.ran, 8);
  EXPECT_EQ(queue.depth(), 0u);
}

TEST(GenerationQueueTest, WorkNobodyWantsLeavesBeforeAnyoneIsRefused) {
  GenerationQueue queue(1, 8);
  Counted counted;
  Blocker blocker(queue);
  std::vector<std::shared_ptr<std::atomic<bool>>> flags;
  for (int k = 0; k < 8; ++k) {
    flags.push_back(std::make_shared<std::atomic<bool>>(false));
    ASSERT_TRUE(queue.offer(0, counted.job(Work::view, 1, flags.back())));
  }
  EXPECT_FALSE(queue.offer(0, counted.job(Work::view, 1))) << "full of wanted work";
  for (int k = 0; k < 6; ++k) flags[static_cast<size_t>(k)]->store(true);  // their players left
  EXPECT_TRUE(queue.offer(0, counted.job(Work::view, 1)));
  EXPECT_EQ(counted.dropped, 6) << "dropped when unwanted, not when popped";
  EXPECT_EQ(queue.depth(), 3u);
  std::promise<void> done;
  queue.submit(100, [&] { done.set_value(); });
  blocker.release();
  done.get_future().wait();
  EXPECT_EQ(counted.ran, 3);
}

TEST(GenerationQueueTest, ADeepQueueOfStaleJobsCountsOnlyTheWantedOnes) {
  // Players who jump leave prefetches behind that are never the most urgent: they must not
  // pile up however many are offered.
  GenerationQueue queue(1, 1 << 20);
  Counted counted;
  Blocker blocker(queue);
  auto stale = std::make_shared<std::atomic<bool>>(false);
  size_t deepest = 0;
  for (int k = 0; k < 20000; ++k) {
    if (k % 100 == 0) stale = std::make_shared<std::atomic<bool>>(false);  // a jump: a new view
    ASSERT_TRUE(queue.offer(GenerationQueue::region_of(k, 0), counted.job(Work::prefetch, 20, stale)));
    if (k % 100 == 99) stale->store(true);  // and the next jump leaves it
    deepest = std::max(deepest, queue.depth());
  }
  EXPECT_LE(deepest, 512u);
  EXPECT_LE(queue.depth(), 512u);
  queue.release_unwanted();
  EXPECT_EQ(queue.depth(), 0u);
  EXPECT_EQ(counted.dropped, 20000);
  blocker.release();
}

// The workers run `nice` levels below the thread that made the queue, so that threads answering
// calls win a core from them (background_priority.h); 0 leaves them at the same priority.
int thread_nice() {
  errno = 0;
  return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

int worker_nice(int nice) {
  GenerationQueue queue(1, 64, nice);
  std::promise<int> seen;
  queue.submit(1.0, [&seen] { seen.set_value(thread_nice()); });
  return seen.get_future().get();
}

TEST(GenerationQueueTest, WorkersRunBelowTheThreadsThatAnswerCalls) {
  const int here = thread_nice();
  EXPECT_EQ(worker_nice(0), here);
  EXPECT_EQ(worker_nice(7), std::min(19, here + 7));
  EXPECT_EQ(worker_nice(kBackgroundNice), std::min(19, here + kBackgroundNice));
}

}  // namespace
}  // namespace chunkforge::server
