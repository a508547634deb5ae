// File: server/rpc/live_calls.h
//
// The WorldService calls under way: each reactor holds one from its construction until gRPC is
// done with it (OnDone: its status sent, or the call cancelled). A server that shuts down waits
// for none to be left, then closes the connections still open (docs/server.md, "Shutdown"):
// gRPC's own shutdown waits for every connection to close, and a client that keeps an idle one
// open would hold the server for the whole grace.
//
//   LiveCalls::Held held_;  // a member of the reactor, built with held_(service.live_calls())
//   if (live.wait_for_none(deadline)) ...nothing under way
//
// Thread safety: every method from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace chunkforge::server {

class LiveCalls {
 public:
  // One call, counted while it lives. Not copied or moved: it lives in its reactor.
  class Held {
   public:
    explicit Held(LiveCalls& calls) : calls_(calls) { calls_.add(1); }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    ~Held() { calls_.add(-1); }

   private:
    LiveCalls& calls_;
  };

  // True once no call is under way, false if some still are at `until`.
  bool wait_for_none(std::chrono::steady_clock::time_point until) {
    std::unique_lock lock(mutex_);
    return none_.wait_until(lock, until, [this] { return count_ == 0; });
  }

 private:
  void add(int delta) {
    std::lock_guard lock(mutex_);
    count_ = static_cast<size_t>(static_cast<ptrdiff_t>(count_) + delta);
    if (count_ == 0) none_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable none_;
  size_t count_ = 0;
};

}  // namespace chunkforge::server
