// FinishGate (server/rpc/finish_gate.h): at most `max` calls finishing at once, the rest in
// arrival order as places are given back, every waiting call run exactly once; a call whose
// client left takes no place.
#include "rpc/finish_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace chunkforge::server {
namespace {

// The passes of `n` calls on `gate`.
std::vector<std::unique_ptr<FinishGate::Pass>> passes(FinishGate& gate, int n) {
  std::vector<std::unique_ptr<FinishGate::Pass>> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(std::make_unique<FinishGate::Pass>(gate));
  return out;
}

TEST(FinishGateTest, PastItsBoundCallsWaitInArrivalOrderForTheNextDone) {
  FinishGate gate(2);
  auto calls = passes(gate, 7);
  std::vector<int> finished;
  for (int c = 0; c < 5; ++c) calls[c]->finish([&finished, c] { finished.push_back(c); });
  EXPECT_EQ(finished, (std::vector<int>{0, 1}));
  EXPECT_EQ(gate.waiting(), 3u);
  calls[0]->done();  // its place goes to call 2
  EXPECT_EQ(finished, (std::vector<int>{0, 1, 2}));
  calls[1]->done();
  calls[2]->done();
  EXPECT_EQ(finished, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(gate.waiting(), 0u);
  calls[3]->done();
  calls[4]->done();  // every call done: two places free again, taken at once
  calls[5]->finish([&finished] { finished.push_back(5); });
  calls[6]->finish([&finished] { finished.push_back(6); });
  EXPECT_EQ(finished.size(), 7u);
  EXPECT_EQ(gate.waiting(), 0u);
}

// A call whose client left finishes at once and takes no place; one that waits when its client
// leaves stops waiting, and the others keep their order.
TEST(FinishGateTest, ACallWhoseClientLeftTakesNoPlaceAndStopsWaiting) {
  FinishGate gate(1);
  auto calls = passes(gate, 5);
  std::vector<int> finished;
  calls[0]->finish([&finished] { finished.push_back(0); });
  calls[1]->client_left();
  calls[1]->finish([&finished] { finished.push_back(1); });
  for (int c = 2; c < 5; ++c) calls[c]->finish([&finished, c] { finished.push_back(c); });
  EXPECT_EQ(finished, (std::vector<int>{0, 1}));
  calls[1]->done();  // took no place: gives none
  EXPECT_EQ(finished, (std::vector<int>{0, 1}));
  calls[3]->client_left();  // waiting: goes at once, out of turn
  EXPECT_EQ(finished, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(gate.waiting(), 2u);  // calls 2 and 4
  calls[3]->done();
  calls[0]->done();  // call 0's place: to call 2, the first still waiting
  EXPECT_EQ(finished, (std::vector<int>{0, 1, 3, 2}));
  calls[2]->client_left();  // finishing already: nothing changes, its place is given back at done
  calls[2]->done();
  EXPECT_EQ(finished, (std::vector<int>{0, 1, 3, 2, 4}));
  calls[4]->done();
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
  auto calls = passes(gate, kThreads * kCalls);
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
    for (int call : batch) {
      --finishing;
      calls[call]->done();
    }
  };
  {
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int c = 0; c < kCalls; ++c) {
          const int call = t * kCalls + c;
          calls[call]->finish([&finish, call] { finish(call); });
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
