// FinishGate (server/rpc/finish_gate.h): at most `max` calls finishing at once, the rest in
// arrival order as places are given back, every waiting call run exactly once.
#include "rpc/finish_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace chunkforge::server {
namespace {

TEST(FinishGateTest, PastItsBoundCallsWaitInArrivalOrderForTheNextDone) {
  FinishGate gate(2);
  std::vector<int> finished;
  for (int call = 0; call < 5; ++call) gate.finish([&finished, call] { finished.push_back(call); });
  EXPECT_EQ(finished, (std::vector<int>{0, 1}));
  EXPECT_EQ(gate.waiting(), 3u);
  gate.done();  // call 0's OnDone: its place goes to call 2
  EXPECT_EQ(finished, (std::vector<int>{0, 1, 2}));
  gate.done();
  gate.done();
  EXPECT_EQ(finished, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(gate.waiting(), 0u);
  gate.done();
  gate.done();  // every call done: two places free again, taken at once
  gate.finish([&finished] { finished.push_back(5); });
  gate.finish([&finished] { finished.push_back(6); });
  EXPECT_EQ(finished.size(), 7u);
  EXPECT_EQ(gate.waiting(), 0u);
}

// Threads finishing calls and completing them as gRPC does: a call's done() comes after its
// Finish ran, from any thread, never inside it. At most `max` are between the two at once,
// every call finishes once, and none is left waiting.
TEST(FinishGateTest, ConcurrentCallsEachFinishOnceAndNoneIsLeftWaiting) {
  constexpr size_t kMax = 8;
  constexpr int kThreads = 8, kCalls = 2000;
  FinishGate gate(kMax);
  std::atomic<int> finishing{0}, most{0}, finished{0};
  std::vector<std::atomic<bool>> ran(kThreads * kCalls);
  std::mutex mutex;
  std::vector<int> completed;  // finished, their OnDone to come
  auto finish = [&](int call) {
    EXPECT_FALSE(ran[call].exchange(true)) << call;
    const int now = ++finishing;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    ++finished;
    std::lock_guard lock(mutex);
    completed.push_back(call);
  };
  auto complete_some = [&] {
    std::vector<int> batch;
    {
      std::lock_guard lock(mutex);
      batch.swap(completed);
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      --finishing;
      gate.done();
    }
  };
  {
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int c = 0; c < kCalls; ++c) {
          gate.finish([&finish, call = t * kCalls + c] { finish(call); });
          if (c % 4 == 3) complete_some();  // four calls finished before their OnDone: 32 at once unbounded
        }
      });
    }
  }
  while (finished < kThreads * kCalls) complete_some();
  complete_some();
  EXPECT_EQ(finished, kThreads * kCalls);
  EXPECT_LE(most, static_cast<int>(kMax));
  EXPECT_EQ(gate.waiting(), 0u);
}

}  // namespace
}  // namespace chunkforge::server
