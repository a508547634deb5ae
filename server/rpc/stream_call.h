// File: server/rpc/stream_call.h
//
// What the two stream reactors (StreamRegion, Session) share, written once: the state that work
// outliving the call reaches it through, the stall watch that ends a call whose client stopped
// reading, a call slot held while it runs, and the one way such a call ends (finish: counted
// and logged by close_call, exactly once).
//
//   class RegionReactor final : public StreamCall<RegionReactor, grpc::ServerWriteReactor<grpc::ByteBuffer>> {
//     ...  // sets state_->reactor = this first; take_slot(service.streams()) in open(); finish(status) on every end
//     void released() { ... }  // what else the call gives back when it finishes
//   };
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "rpc/rpc_call.h"
#include "rpc/stall_watch.h"
#include "rpc/stream_state.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

template <typename Reactor, typename GrpcReactor>
class StreamCall : public GrpcReactor {
 public:
  using State = StreamState<Reactor>;

  // The stall watch found no write stuck: looks again later; or a write stuck past the timeout:
  // ends the call. The client could see no status (it would follow the stuck write), so the
  // stream is reset, and the reason goes to the log and metrics. Called by State, mutex held.
  void look() {
    if (finished_) return;
    if (!watch_.stalled()) return State::watch_stalls(watch_, state_);
    context_->TryCancel();  // may run OnCancel on this thread, under this lock: hence recursive
    finish(watch_.stalled_status(unit_));
  }

 protected:
  // `unit` names what the stream writes ("chunk", "event"), for the stall message.
  StreamCall(WorldService& service, grpc::CallbackServerContext* context, Metrics::Method method, const char* unit)
      : service_(service),
        context_(context),
        state_(std::make_shared<State>()),
        watch_(service.limits().stall_timeout),
        method_(method),
        unit_(unit) {
    // state_->reactor is set by the reactor's own constructor: a downcast here, before the
    // derived object exists, would be undefined (UBSan's vptr check says so).
  }

  // Takes one of `slots` for the life of the call; RESOURCE_EXHAUSTED naming `what` when none is free.
  grpc::Status take_slot(CallSlots& slots, const std::string& what) {
    if (!slots.take()) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "too many " + what + ": at most " + std::to_string(slots.max()) + " at once on this server; retry later"};
    }
    slots_ = &slots;
    return grpc::Status::OK;
  }

  // Ends the call, once, with the mutex held: queued work is no longer wanted, the slot and
  // whatever the reactor holds (its released()) are given back, and the status is recorded.
  void finish(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    state_->over = true;
    if (slots_ != nullptr) slots_->give_back();
    slots_ = nullptr;
    static_cast<Reactor*>(this)->released();
    close_call(service_.metrics(), method_, status);
    this->Finish(status);
  }

  // For OnDone: late work and alarms find no reactor from now on. Returns the stall alarm, to
  // be destroyed outside the mutex (its cancellation may run its callback, which takes it).
  std::unique_ptr<grpc::Alarm> detach() {
    state_->reactor = nullptr;
    state_->over = true;
    return watch_.disarm();
  }

  WorldService& service_;
  grpc::CallbackServerContext* context_;
  std::shared_ptr<State> state_;
  StallWatch watch_;
  bool finished_ = false;

 private:
  const Metrics::Method method_;
  const char* unit_;
  CallSlots* slots_ = nullptr;  // the slot held, until finish
};

}  // namespace chunkforge::server
