// File: server/rpc/finish_gate.h
//
// At most `max` calls at once between their Finish and gRPC's OnDone. gRPC closes a call's
// HTTP/2 stream as soon as its status is written, and runs OnDone later, on its callback
// threads, behind the handlers of the calls that arrived meanwhile; a closed stream no longer
// counts against its connection's bound (Limits::max_calls_per_connection). So clients whose
// calls end at once (requests refused as invalid) could open new streams faster than gRPC
// finished the old calls, each held with its arena and request until OnDone: 11,000 such calls
// held at once grew a server by 265 MiB (docs/server.md, "Calls finished, not yet done"). Past
// `max`, a call's Finish waits here, in arrival order, with its stream still open: its
// connection then opens no more than its bound, and the place goes on at the next OnDone. A
// call whose client has left (reset its stream) holds no stream, so holding it back would hold
// only its memory: it finishes at once, taking no place, and one that waits when its client
// leaves stops waiting (a client resetting its calls would otherwise fill the queue).
//
//   FinishGate::Pass pass_{service.finish_gate()};  // a member of the reactor
//   pass_.finish([this, status] { Finish(status); });  // now, or once a place is free
//   void OnCancel() override { ...; pass_.client_left(); }
//   void OnDone() override { ...; pass_.done(); delete this; }
//
// A waiting call's reactor lives until its own OnDone, which comes only after its Finish.
// Thread safety: every method from any thread; the calls run without the gate's lock held.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <mutex>
#include <utility>

namespace chunkforge::server {

class FinishGate {
 public:
  explicit FinishGate(size_t max) : max_(max) {}
  FinishGate(const FinishGate&) = delete;
  FinishGate& operator=(const FinishGate&) = delete;

  // One call's way through the gate; its state is the gate's, under the gate's lock.
  class Pass {
   public:
    explicit Pass(FinishGate& gate) : gate_(gate) {}
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

    // Runs `finish_call` now if a place is free or the client has left, else once a place is.
    void finish(std::function<void()> finish_call) {
      {
        std::lock_guard lock(gate_.mutex_);
        if (!left_ && gate_.finishing_ >= gate_.max_) {
          finish_call_ = std::move(finish_call);
          queued_ = gate_.queue_.insert(gate_.queue_.end(), this);
          waiting_ = true;
          return;
        }
        placed_ = !left_;
        if (placed_) ++gate_.finishing_;
      }
      finish_call();
    }

    // For OnCancel: the call takes no place from now on, and stops waiting for one.
    void client_left() {
      std::function<void()> finish_call;
      {
        std::lock_guard lock(gate_.mutex_);
        left_ = true;
        if (!waiting_) return;
        gate_.queue_.erase(queued_);
        waiting_ = false;
        finish_call = std::move(finish_call_);
      }
      finish_call();
    }

    // For OnDone: the call's place, if it took one, goes to the first waiting call.
    void done() {
      std::function<void()> next;
      {
        std::lock_guard lock(gate_.mutex_);
        if (!placed_) return;
        placed_ = false;
        if (gate_.queue_.empty()) {
          --gate_.finishing_;
          return;
        }
        Pass* first = gate_.queue_.front();
        gate_.queue_.pop_front();
        first->waiting_ = false;
        first->placed_ = true;
        next = std::move(first->finish_call_);
      }
      next();
    }

   private:
    FinishGate& gate_;
    std::function<void()> finish_call_;  // while waiting
    std::list<Pass*>::iterator queued_;  // its place in the queue, while waiting
    bool waiting_ = false, placed_ = false, left_ = false;
  };

  // Calls whose Finish waits for a place, for /metrics.
  size_t waiting() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
  }

 private:
  const size_t max_;
  mutable std::mutex mutex_;
  size_t finishing_ = 0;
  std::list<Pass*> queue_;  // in arrival order
};

}  // namespace chunkforge::server
