// UnaryCall: a unary call's answer charged to its connection, and its one end (unary_call.h).
#include "rpc/unary_call.h"

#include "rpc/byte_buffer.h"
#include "rpc/rpc_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

UnaryCall::UnaryCall(WorldService& service, grpc::CallbackServerContext* context, grpc::ByteBuffer* response,
                     Metrics::Method method)
    : service_(service),
      held_(service.live_calls()),
      context_(context),
      response_(response),
      method_(method),
      pass_(service.finish_gate()) {
  live_->context = context;
}

grpc::Status UnaryCall::open(const grpc::ByteBuffer* raw, google::protobuf::Message* request) {
  if (grpc::Status status = open_call(service_, method_, *context_, raw, request); !status.ok()) return status;
  return room();
}

grpc::Status UnaryCall::room() const {
  OutputBudget& budget = service_.budget();
  if (budget.has_room(context_->peer())) return grpc::Status::OK;
  return budget.refuse(context_->peer());
}

grpc::Status UnaryCall::reserve(size_t bytes) {
  return charge(bytes) ? grpc::Status::OK : service_.budget().refuse(context_->peer());
}

void UnaryCall::answer(Bytes message) {
  charge_.release();  // a reservation: the answer itself is charged now
  if (!charge(message->size())) return end(service_.budget().refuse(context_->peer()));
  *response_ = buffer_of(std::move(message));
  end(grpc::Status::OK);
}

bool UnaryCall::charge(size_t bytes) {
  // The stall cancel outlives the call: it reaches the context only while the call is live.
  auto cancel = [live = std::weak_ptr<Live>(live_)] {
    const std::shared_ptr<Live> l = live.lock();
    if (!l) return;
    std::lock_guard lock(l->mutex);
    if (l->context != nullptr) l->context->TryCancel();
  };
  std::optional<OutputBudget::Charge> charge = service_.budget().charge(context_->peer(), bytes, std::move(cancel));
  if (!charge) return false;
  charge_ = std::move(*charge);
  return true;
}

void UnaryCall::answer(const google::protobuf::Message& message) {
  answer(std::make_shared<const std::string>(message.SerializeAsString()));
}

void UnaryCall::fail(const grpc::Status& status) { end(status); }

void UnaryCall::end(const grpc::Status& status) {
  close_call(service_.metrics(), method_, status, started_);
  pass_.finish([this, status] { Finish(status); });
}

void UnaryCall::OnDone() {
  {
    std::lock_guard lock(live_->mutex);
    live_->context = nullptr;
  }
  charge_.release();  // written, or the call is over: gRPC holds the answer no longer
  pass_.done();
  delete this;
}

}  // namespace chunkforge::server
