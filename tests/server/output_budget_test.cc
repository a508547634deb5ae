// OutputBudget on its own: a connection's share and the server's total, the waiters of streams
// that found no room, the stall watcher that cancels unread answers, and the defaults derived
// from a process's memory (with the cgroup limit's parsing).
#include "budget/output_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "startup/memory_limit.h"

namespace chunkforge::server {
namespace {

using namespace std::chrono_literals;

OutputLimits limits(size_t total, size_t connection, std::chrono::milliseconds stall = 30s) {
  OutputLimits l;
  l.total_bytes = total;
  l.connection_bytes = connection;
  l.stall = stall;
  return l;
}

// Polls `done` for up to 5 s: callbacks run on the budget's own thread.
template <typename Done>
bool eventually(Done done) {
  for (int k = 0; k < 500 && !done(); ++k) std::this_thread::sleep_for(10ms);
  return done();
}

TEST(OutputBudgetTest, AConnectionWithRoomTakesOneMoreAnswerOfAnySize) {
  OutputBudget budget(limits(1000, 100));
  auto big = budget.charge("a", 500, nullptr);  // larger than the share: still goes, nothing held
  ASSERT_TRUE(big.has_value());
  EXPECT_FALSE(budget.has_room("a"));
  EXPECT_FALSE(budget.charge("a", 1, nullptr).has_value());
  EXPECT_TRUE(budget.charge("b", 1, nullptr).has_value()) << "another connection is not held back";
  big.reset();
  EXPECT_TRUE(budget.has_room("a"));
  EXPECT_EQ(budget.stats().held_bytes, 0u);
  EXPECT_EQ(budget.stats().connections, 0u) << "a connection holding nothing is forgotten";
}

TEST(OutputBudgetTest, TheServersTotalHoldsEveryConnectionBack) {
  OutputBudget budget(limits(100, 80));
  auto a = budget.charge("a", 60, nullptr);
  auto b = budget.charge("b", 60, nullptr);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(budget.has_room("c")) << "120 of 100 held in all";
  const grpc::Status refused = budget.refuse("c");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("the server holds 120 bytes"), std::string::npos) << refused.error_message();
  EXPECT_EQ(budget.stats().refused, 1u);
  b.reset();
  EXPECT_TRUE(budget.has_room("c"));
}

TEST(OutputBudgetTest, TheRefusalNamesTheConnectionsOwnShare) {
  OutputBudget budget(limits(1000, 100));
  auto held = budget.charge("a", 150, nullptr);
  const grpc::Status refused = budget.refuse("a");
  EXPECT_NE(refused.error_message().find("this connection holds 150 bytes"), std::string::npos)
      << refused.error_message();
  EXPECT_NE(refused.error_message().find("at most 100"), std::string::npos) << refused.error_message();
}

TEST(OutputBudgetTest, AWaiterIsWokenOnceItsConnectionHasRoom) {
  OutputBudget budget(limits(1000, 100));
  auto held = budget.charge("a", 100, nullptr);
  std::atomic<int> woken{0}, other{0};
  budget.when_room("a", [&] { ++woken; });
  auto b = budget.charge("b", 100, nullptr);
  budget.when_room("b", [&] { ++other; });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(woken, 0);
  held.reset();
  EXPECT_TRUE(eventually([&] { return woken == 1; }));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(other, 0) << "a release on one connection wakes only its own waiters";
  EXPECT_EQ(woken, 1) << "a waiter is woken once";
}

TEST(OutputBudgetTest, WaitersHeldBackByTheTotalAreWokenWhenItFalls) {
  OutputBudget budget(limits(100, 100));
  auto a = budget.charge("a", 100, nullptr);
  std::atomic<bool> woken{false};
  budget.when_room("b", [&] { woken = true; });  // b holds nothing: the total holds it back
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(woken);
  a.reset();
  EXPECT_TRUE(eventually([&] { return woken.load(); }));
}

TEST(OutputBudgetTest, AWaiterWithRoomAlreadyIsWokenAtOnce) {
  OutputBudget budget(limits(1000, 100));
  std::atomic<bool> woken{false};
  budget.when_room("a", [&] { woken = true; });
  EXPECT_TRUE(eventually([&] { return woken.load(); }));
}

TEST(OutputBudgetTest, AnAnswerUnreadPastTheStallIsCancelledOnce) {
  OutputBudget budget(limits(1000, 100, 100ms));
  std::atomic<int> stalled{0}, written{0};
  auto unread = budget.charge("a", 10, [&] { ++stalled; });
  budget.charge("a", 10, [&] { ++written; }).reset();  // written at once
  EXPECT_TRUE(eventually([&] { return stalled >= 1; }));
  std::this_thread::sleep_for(300ms);  // a dozen more looks
  EXPECT_EQ(stalled, 1) << "an unread answer is cancelled once";
  EXPECT_EQ(written, 0) << "a written answer never";
  EXPECT_EQ(budget.stats().stalled, 1u);
}

TEST(OutputBudgetTest, DefaultsFollowTheMemoryAProcessMayUse) {
  EXPECT_EQ(OutputLimits::for_memory(uint64_t{512} << 20).total_bytes, size_t{64} << 20) << "at least 64 MiB";
  EXPECT_EQ(OutputLimits::for_memory(uint64_t{4} << 30).total_bytes, size_t{256} << 20) << "a sixteenth";
  EXPECT_EQ(OutputLimits::for_memory(uint64_t{64} << 30).total_bytes, size_t{1} << 30) << "at most 1 GiB";
  EXPECT_EQ(OutputLimits::for_memory(uint64_t{64} << 30).connection_bytes, size_t{8} << 20);
}

TEST(OutputBudgetTest, CgroupLimitsAreReadAsBytesOrNone) {
  EXPECT_EQ(parse_cgroup_limit("2147483648"), uint64_t{2} << 30);
  EXPECT_EQ(parse_cgroup_limit("max"), 0u);
  EXPECT_EQ(parse_cgroup_limit("9223372036854771712"), 0u) << "cgroup v1's unlimited";
  EXPECT_EQ(parse_cgroup_limit(""), 0u);
  EXPECT_GT(process_memory_limit().bytes, 0u);
}

}  // namespace
}  // namespace chunkforge::server
