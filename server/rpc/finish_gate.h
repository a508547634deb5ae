// File: server/rpc/finish_gate.h
//
// At most `max` calls at once between their Finish and gRPC's OnDone. gRPC closes a call's
// HTTP/2 stream as soon as its status is written, and runs OnDone later, on its callback
// threads, behind the handlers of the calls that arrived meanwhile; a closed stream no longer
// counts against its connection's bound (Limits::max_calls_per_connection). So clients whose
// calls end at once (requests refused as invalid) could open new streams faster than gRPC
// finished the old calls, each held with its arena and request until OnDone: 11,000 such calls
// held at once grew a server by 300 MiB (docs/server.md, "Calls finished, not yet done"). Past
// `max`, a call's Finish waits here, in arrival order, with its stream still open: its
// connection then opens no more than its bound, and the place goes on at the next OnDone.
//
//   gate.finish([this, status] { Finish(status); });  // now, or once a place is free
//   ...
//   void OnDone() override { ...; gate.done(); delete this; }  // every call that finished
//
// A waiting call's reactor lives until its own OnDone, which comes only after its Finish.
// Thread safety: every method from any thread; the calls run without the gate's lock held.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace chunkforge::server {

class FinishGate {
 public:
  explicit FinishGate(size_t max) : max_(max) {}
  FinishGate(const FinishGate&) = delete;
  FinishGate& operator=(const FinishGate&) = delete;

  // Runs `finish_call` now if fewer than `max` calls are finishing, else once one is done.
  void finish(std::function<void()> finish_call) {
    {
      std::lock_guard lock(mutex_);
      if (finishing_ >= max_) {
        waiting_.push_back(std::move(finish_call));
        return;
      }
      ++finishing_;
    }
    finish_call();
  }

  // A finishing call is done (its OnDone): its place goes to the first waiting call, if any.
  void done() {
    std::function<void()> next;
    {
      std::lock_guard lock(mutex_);
      if (waiting_.empty()) {
        --finishing_;
        return;
      }
      next = std::move(waiting_.front());
      waiting_.pop_front();
    }
    next();
  }

  // Calls whose Finish waits for a place, for /metrics.
  size_t waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_.size();
  }
  size_t max() const { return max_; }

 private:
  const size_t max_;
  mutable std::mutex mutex_;
  size_t finishing_ = 0;
  std::deque<std::function<void()>> waiting_;
};

}  // namespace chunkforge::server
