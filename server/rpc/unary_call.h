// File: server/rpc/unary_call.h
//
// A unary call's reactor, and the one way a unary handler answers and ends its call. answer()
// charges the answer to the client's connection in the server's OutputBudget before gRPC gets
// it (its bytes shared, not copied), and the charge is released when gRPC is done with the
// call (OnDone: the answer written, or the call cancelled). A connection with no room gets
// RESOURCE_EXHAUSTED instead of the answer, and an answer its client does not read within the
// stall timeout is cancelled by the budget. Every end is recorded once, by close_call.
//
//   auto* call = new UnaryCall(*this, context, response, Metrics::kGetChunk);
//   v1::GetChunkRequest request;
//   if (grpc::Status s = call->open(raw, &request); !s.ok()) call->fail(s);
//   else ... now or later, from any thread: call->answer(bytes) or call->fail(status), once
//   return call;
//
// Handlers with state of their own (Locate, GetChunkEdits) derive from it. gRPC calls OnDone
// only after the call was ended, so the reactor stays valid until answer() or fail().
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "budget/output_budget.h"
#include "generation/chunk_cache.h"
#include "metrics/metrics.h"
#include "rpc/finish_gate.h"
#include "rpc/live_calls.h"

namespace chunkforge::server {

class WorldService;

class UnaryCall : public grpc::ServerUnaryReactor {
 public:
  UnaryCall(WorldService& service, grpc::CallbackServerContext* context, grpc::ByteBuffer* response,
            Metrics::Method method);

  // open_call for this call's method (counted, authenticated, `request` parsed from `raw`),
  // then room(): a new call on a connection without room is refused before any work.
  grpc::Status open(const grpc::ByteBuffer* raw, google::protobuf::Message* request);
  // OK, or the budget's RESOURCE_EXHAUSTED while the client's connection has no room.
  grpc::Status room() const;

  // Charges `bytes` to the connection now, for an answer built over time (GetChunkEdits reads
  // up to 512 KiB of logs over many jobs): what is being built is held too. answer() releases it
  // first. OK, or RESOURCE_EXHAUSTED (nothing charged) while the connection has no room.
  grpc::Status reserve(size_t bytes);
  // Ends the call with `message`, the response message's bytes, charged to the connection
  // (RESOURCE_EXHAUSTED instead when it has no room).
  void answer(Bytes message);
  void answer(const google::protobuf::Message& message);
  // Ends the call with an error.
  void fail(const grpc::Status& status);

  // The client cancelled, or its deadline passed; the flag itself, for work that polls it.
  bool cancelled() const { return cancelled_.load(); }
  const std::atomic<bool>* cancellation() const { return &cancelled_; }
  grpc::CallbackServerContext& context() const { return *context_; }
  WorldService& service() const { return service_; }

 protected:
  ~UnaryCall() override = default;  // OnDone deletes
  void OnCancel() override {
    cancelled_ = true;
    pass_.client_left();
  }
  void OnDone() override;

 private:
  // What the budget's stall cancel reaches the call through: null once the call is done.
  struct Live {
    std::recursive_mutex mutex;  // TryCancel may run gRPC's callbacks on the calling thread
    grpc::CallbackServerContext* context = nullptr;
  };

  void end(const grpc::Status& status);
  // Charges `bytes` to the connection as charge_, cancelled by the budget past the stall timeout.
  bool charge(size_t bytes);

  WorldService& service_;
  LiveCalls::Held held_;  // destroyed last: the call is over once everything else is given back
  grpc::CallbackServerContext* context_;
  grpc::ByteBuffer* response_;
  const Metrics::Method method_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();  // timed by close_call
  std::atomic<bool> cancelled_{false};
  std::shared_ptr<Live> live_ = std::make_shared<Live>();
  OutputBudget::Charge charge_;
  FinishGate::Pass pass_;  // the call's way through the service's FinishGate
};

}  // namespace chunkforge::server
