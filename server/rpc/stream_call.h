// File: server/rpc/stream_call.h
//
// What the two stream reactors (StreamRegion, Session) share, written once: the state that work
// outliving the call reaches it through, a call slot held while it runs, the one way such a
// call writes (write: one message at a time, charged to the client's connection in the
// server's OutputBudget, and waiting while the connection has no room), and the one way it
// ends (finish: counted and logged by close_call, exactly once). A write the client does not
// take within the budget's stall timeout ends the call (stalled()).
//
//   class RegionReactor final : public StreamCall<RegionReactor, grpc::ServerWriteReactor<grpc::ByteBuffer>> {
//     ...  // sets state_->reactor = this first; take_slot(service.streams()) in open(); finish(status) on every end
//     void resumed() { ... }   // the connection has room again: ask for more, write what is ready
//     void released() { ... }  // what else the call gives back when it finishes
//   };
//   OnWriteDone: written() first, then the next write(...) if !writing()
//   before asking for more work: if (!room_for_more()) return;  // resumed() comes later
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "budget/output_budget.h"
#include "rpc/byte_buffer.h"
#include "rpc/rpc_call.h"
#include "rpc/stream_state.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

template <typename Reactor, typename GrpcReactor>
class StreamCall : public GrpcReactor {
 public:
  using State = StreamState<Reactor>;

 protected:
  // `unit` names what the stream writes ("chunk", "event"), for the stall message.
  StreamCall(WorldService& service, grpc::CallbackServerContext* context, Metrics::Method method, const char* unit)
      : service_(service),
        held_(service.live_calls()),
        context_(context),
        state_(std::make_shared<State>()),
        peer_(context->peer()),
        client_(client_of(*context)),
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

  // A message is being written, or waits for its connection to have room: the next one waits.
  bool writing() const { return in_flight_ || waiting_.has_value(); }
  bool in_flight() const { return in_flight_; }

  // Writes `message`, charged to the connection; while the connection has no room it waits
  // (writing() stays true), and goes once there is. Only when !writing(). Mutex held.
  void write(Bytes message) {
    const size_t size = message->size();
    std::optional<OutputBudget::Charge> charge = service_.budget().charge(peer_, size, stall_cancel());
    if (!charge) {
      waiting_ = std::move(message);
      return wait_for_room();
    }
    charge_ = std::move(*charge);
    in_flight_ = true;
    buffer_ = buffer_of(std::move(message));
    this->StartWrite(&buffer_);
  }

  // Whether the connection has room for more of what this call would hold (generations ahead
  // of its writes); if not, the reactor's resumed() runs once it has. Mutex held.
  bool room_for_more() {
    if (service_.budget().has_room(peer_)) return true;
    wait_for_room();
    return false;
  }

  // OnWriteDone's first step: the message is the client's, its charge released.
  void written() {
    in_flight_ = false;
    charge_.release();
  }

  // Ends the call, once, with the mutex held: queued work is no longer wanted, the slot, the
  // charge and whatever the reactor holds (its released()) are given back, and the status is
  // recorded.
  void finish(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    state_->over = true;
    waiting_.reset();
    if (slots_ != nullptr) slots_->give_back();
    slots_ = nullptr;
    static_cast<Reactor*>(this)->released();
    close_call(service_.metrics(), method_, status, started_);
    pass_.finish([this, status] { this->Finish(status); });
  }

  // For OnCancel, before the mutex: a call whose status waits in the finish gate goes at once.
  void client_left() { pass_.client_left(); }
  // For OnDone, without the mutex: the call's place in the finish gate goes to the next call.
  void done_finishing() { pass_.done(); }

  // For OnDone: late work, room and stall callbacks find no reactor from now on.
  void detach() {
    state_->reactor = nullptr;
    state_->over = true;
    charge_.release();
  }

  WorldService& service_;
  LiveCalls::Held held_;  // destroyed last: the call is over once everything else is given back
  grpc::CallbackServerContext* context_;
  std::shared_ptr<State> state_;
  const std::string peer_;  // the client's connection: what its writes are charged to
  const uint64_t client_;   // the same, as the generation queue's client (client_of)
  bool finished_ = false;
  FinishGate::Pass pass_{service_.finish_gate()};  // the call's way through the service's gate

 private:
  // The budget's call when a write has waited past its stall timeout: the client stopped
  // reading. It could see no status (it would follow the stuck write), so the stream is reset,
  // and the reason goes to the log and metrics.
  std::function<void()> stall_cancel() {
    return [weak = std::weak_ptr<State>(state_)] {
      State::with_reactor(weak, [](Reactor& reactor) { reactor.stalled(); });
    };
  }
  void stalled() {
    if (finished_ || !in_flight_) return;
    context_->TryCancel();  // may run OnCancel on this thread, under this lock: hence recursive
    finish({grpc::StatusCode::RESOURCE_EXHAUSTED, std::string("the client took no ") + unit_ + " for " +
                                                      std::to_string(service_.budget().limits().stall.count()) +
                                                      " ms: a stream must be read"});
  }
  void wait_for_room() {
    if (room_awaited_) return;
    room_awaited_ = true;
    service_.budget().when_room(peer_, [weak = std::weak_ptr<State>(state_)] {
      State::with_reactor(weak, [](Reactor& reactor) { reactor.room_again(); });
    });
  }
  // The connection has room again: the waiting message goes first, then the reactor goes on.
  void room_again() {
    room_awaited_ = false;
    if (finished_) return;
    if (waiting_) {
      Bytes message = std::move(*waiting_);
      waiting_.reset();
      write(std::move(message));
    }
    static_cast<Reactor*>(this)->resumed();
  }

  const Metrics::Method method_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();  // for close_call
  const char* unit_;
  CallSlots* slots_ = nullptr;  // the slot held, until finish
  bool in_flight_ = false, room_awaited_ = false;
  std::optional<Bytes> waiting_;  // written once the connection has room
  OutputBudget::Charge charge_;   // of the message in flight
  grpc::ByteBuffer buffer_;
};

}  // namespace chunkforge::server
