// Waiting in tests without a sleep as the assertion: poll a condition until it holds or a
// time limit passes.
//
//   ASSERT_TRUE(test::eventually([&] { return session.loaded().size() == 9; }));
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace chunkforge::test {

// Polls `done` every 5 ms for up to `limit`; whether it came true.
inline bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace chunkforge::test
