// File: client_sdk/src/event_queue.h
//
// A polled ViewSession's events between its session thread and the game's: bounded in bytes,
// never dropping one. Past the bound the session's reader stops reading the stream (it waits
// for has_room()), so the server is held back by gRPC flow control instead of the queue
// growing: the queue passes the bound by at most what one server message carries.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "chunkforge/client/view_event.h"

namespace chunkforge::client {

class EventQueue {
 public:
  explicit EventQueue(size_t budget_bytes) : budget_(budget_bytes) {}
  // Runs (without the queue's lock) after a poll that took events, so that a reader waiting for
  // room looks again. Set before the first push.
  void on_room(std::function<void()> notify) { on_room_ = std::move(notify); }

  // Never blocks and never refuses: the bound is kept by the reader, upstream.
  void push(ViewEvent event);
  // Moves up to `max_events` of the oldest events to the end of `out`; returns how many.
  size_t poll(std::vector<ViewEvent>& out, size_t max_events);
  bool has_room() const;
  size_t bytes() const;
  size_t size() const;

 private:
  const size_t budget_;
  std::function<void()> on_room_;
  mutable std::mutex mutex_;
  std::deque<ViewEvent> events_;  // guarded by mutex_
  size_t bytes_ = 0;              // guarded by mutex_
};

// Callbacks that turn a session's events into ViewEvents pushed onto `queue`.
ViewCallbacks queueing_callbacks(EventQueue& queue);

}  // namespace chunkforge::client
