// File: server/rpc/stream_state.h
//
// What a stream reactor (StreamRegion, Session) shares with the work that may outlive it: the
// generations it queued, its alarms and the output budget's callbacks call back later, from
// other threads, through a weak pointer to this state, and find the reactor gone once the call
// is done.
//
//   auto state = std::make_shared<StreamState<MyReactor>>();
//   state->reactor = this;  // cleared in OnDone, under the mutex
//   StreamState<MyReactor>::with_reactor(weak, [&](MyReactor& r) { r.delivered(...); });
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

namespace chunkforge::server {

template <typename Reactor>
struct StreamState {
  // Recursive: a reactor that resets its stream (TryCancel) under this lock may have gRPC run
  // its OnCancel on the same thread, which takes the lock again.
  std::recursive_mutex mutex;
  Reactor* reactor = nullptr;     // null once the call is done
  std::atomic<bool> over{false};  // finished: queued generations are no longer wanted (read lock-free)

  // Runs `work` on the reactor under the mutex, if the call is not done.
  template <typename Work>
  static void with_reactor(const std::weak_ptr<StreamState>& weak, Work work) {
    const std::shared_ptr<StreamState> state = weak.lock();
    if (!state) return;
    std::lock_guard lock(state->mutex);
    if (state->reactor != nullptr) work(*state->reactor);
  }
};

}  // namespace chunkforge::server
