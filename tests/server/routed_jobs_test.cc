// RoutedJobs: which job a worker takes next (most urgent first; its own before another
// worker's at equal urgency; clients in turn; stealing when it has nothing of its own), without
// threads, so every order is exact.
#include "generation/routed_jobs.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace chunkforge::server {
namespace {

// Pushes jobs that record their id when run, and runs what a worker takes.
class Harness {
 public:
  explicit Harness(size_t workers) : jobs(workers) {}
  void push(std::optional<size_t> worker, double priority, int id, uint64_t client = 0) {
    jobs.push(worker, QueuedJob{Work::other, priority, [this, id] { ran.push_back(id); }, {}, client});
  }
  // The ids worker `self` runs, taking `n` jobs in a row.
  std::vector<int> take(size_t self, size_t n) {
    ran.clear();
    for (size_t k = 0; k < n; ++k) jobs.take(self)();
    return ran;
  }
  RoutedJobs jobs;
  std::vector<int> ran;
};

TEST(RoutedJobsTest, AWorkerTakesItsOwnJobsBeforeAnothersOfEqualPriority) {
  Harness h(2);
  h.push(1, 3, 10);  // worker 1's, submitted first
  h.push(0, 3, 0);
  h.push(1, 3, 11);
  h.push(0, 3, 1);
  EXPECT_EQ(h.take(0, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(h.take(1, 2), (std::vector<int>{10, 11}));
  EXPECT_EQ(h.jobs.size(), 0u);
}

TEST(RoutedJobsTest, ClientsTakeTurnsWithinAPriority) {
  // Client 1 floods ten jobs; client 2's two jobs, queued after, each wait for one of client
  // 1's at most, not for the whole flood.
  Harness h(1);
  for (int id = 0; id < 10; ++id) h.push(0, 0, id, 1);
  h.push(0, 0, 100, 2);
  h.push(0, 0, 101, 2);
  EXPECT_EQ(h.take(0, 5), (std::vector<int>{0, 100, 1, 101, 2}));
  // A job of client 2 queued now, with client 1's backlog of 7, is its turn 0 again.
  h.push(0, 0, 102, 2);
  EXPECT_EQ(h.take(0, 2), (std::vector<int>{102, 3}));
}

TEST(RoutedJobsTest, TurnsNeverOutrankPriorities) {
  Harness h(1);
  h.push(0, 0, 0, 1);
  h.push(0, 0, 1, 1);
  h.push(0, 1, 10, 2);  // client 2's turn 0, but a ring further out
  EXPECT_EQ(h.take(0, 3), (std::vector<int>{0, 1, 10}));
}

TEST(RoutedJobsTest, AMoreUrgentJobOfAnotherWorkerGoesFirst) {
  // Coarse to fine across players: worker 1's ring-0 chunk before worker 0's own ring-2 ones.
  Harness h(2);
  h.push(0, 2, 20);
  h.push(0, 2, 21);
  h.push(1, 0, 100);
  h.push(1, 1, 101);
  EXPECT_EQ(h.take(0, 4), (std::vector<int>{100, 101, 20, 21}));
}

TEST(RoutedJobsTest, AnIdleWorkerStealsSoNoJobWaitsForABusyOne) {
  Harness h(3);
  for (int id = 0; id < 4; ++id) h.push(1, 5, id);
  // Worker 2 has nothing of its own: it runs worker 1's jobs, oldest first.
  EXPECT_EQ(h.take(2, 4), (std::vector<int>{0, 1, 2, 3}));
}

TEST(RoutedJobsTest, SharedJobsAreEveryWorkersOwnInSubmissionOrder) {
  Harness h(2);
  h.push(std::nullopt, 1, 50);
  h.push(0, 1, 0);
  h.push(std::nullopt, 1, 51);
  h.push(1, 1, 10);
  EXPECT_EQ(h.take(0, 3), (std::vector<int>{50, 0, 51}));
  EXPECT_EQ(h.take(0, 1), (std::vector<int>{10}));  // then stolen: nothing else is left
}

TEST(RoutedJobsTest, EqualPrioritiesOfOneWorkerRunInSubmissionOrder) {
  // No starvation within a priority: a job is never overtaken by a later one of its class.
  Harness h(1);
  h.push(0, 3, 1);
  h.push(0, 1, 0);
  h.push(0, 3, 2);
  h.push(std::nullopt, 3, 3);
  h.push(0, 3, 4);
  EXPECT_EQ(h.take(0, 5), (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(RoutedJobsTest, ClearDropsEveryJobWithoutRunningIt) {
  Harness h(2);
  h.push(0, 1, 0);
  h.push(std::nullopt, 1, 1);
  h.jobs.clear();
  EXPECT_EQ(h.jobs.size(), 0u);
  EXPECT_TRUE(h.ran.empty());
}

TEST(RoutedJobsTest, JobsNobodyWantsLeaveAndTheRestKeepTheirOrder) {
  Harness h(2);
  std::vector<std::shared_ptr<bool>> unwanted;
  int dropped = 0;
  for (int id = 0; id < 6; ++id) {
    unwanted.push_back(std::make_shared<bool>(id % 2 == 1));
    const Work kind = id < 3 ? Work::view : Work::prefetch;
    Release release = [flag = unwanted.back(), &dropped]() -> std::function<void()> {
      if (!*flag) return nullptr;
      return [&dropped] { ++dropped; };
    };
    h.jobs.push(static_cast<size_t>(id % 2),
                QueuedJob{kind, static_cast<double>(6 - id), [&h, id] { h.ran.push_back(id); }, std::move(release)});
  }
  h.push(1, 10, 100);  // no release: always wanted
  EXPECT_EQ(h.jobs.size(Work::view), 3u);
  EXPECT_EQ(h.jobs.size(Work::prefetch), 3u);
  std::vector<std::function<void()>> after = h.jobs.release_unwanted();
  EXPECT_EQ(after.size(), 3u);
  EXPECT_EQ(dropped, 0) << "what replaces a job runs when the caller says, outside its lock";
  for (auto& instead : after) instead();
  EXPECT_EQ(dropped, 3);
  EXPECT_EQ(h.jobs.size(), 4u);
  EXPECT_EQ(h.jobs.size(Work::view), 2u);
  EXPECT_EQ(h.jobs.size(Work::prefetch), 1u);
  EXPECT_EQ(h.jobs.size(Work::other), 1u);
  EXPECT_TRUE(h.jobs.release_unwanted().empty()) << "each leaves once";
  EXPECT_EQ(h.take(0, 4), (std::vector<int>{4, 2, 0, 100}));
}

}  // namespace
}  // namespace chunkforge::server
