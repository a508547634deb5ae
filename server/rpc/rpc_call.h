// File: server/rpc/rpc_call.h
//
// The steps every WorldService RPC shares, written once: count the call, check the token, parse
// the request bytes, and record how the call ended. Every RPC is a raw (ByteBuffer) method so
// that bytes that are not the request message get INVALID_ARGUMENT naming the message, instead
// of gRPC's bare status; the size of a request is bounded before it gets here, by the server's
// maximum receive size (Limits::max_request_bytes).
//
//   const UnaryCall call(context->DefaultReactor(), metrics, Metrics::kGetWorldInfo);
//   v1::GetWorldInfoRequest request;
//   grpc::Status status = open_call(service, Metrics::kGetWorldInfo, *context, raw, &request);
//   ...
//   call.finish(status);  // the only way a unary handler ends its call: recorded, then Finish
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include "metrics.h"

namespace chunkforge::server {

class WorldService;

// Counts the call, authenticates it, then parses `raw` into `request` (both may be null for a
// stream that starts without a message). OK, or the status to end the call with.
grpc::Status open_call(WorldService& service, Metrics::Method method, const grpc::CallbackServerContext& context,
                       const grpc::ByteBuffer* raw, google::protobuf::Message* request);

// Records how a call ended, once per call: an error is counted under its method and logged, and
// RESOURCE_EXHAUSTED also counted as refused. Cancellations are neither: they are the client's
// choice (a player who walked on, a deadline), not the server's failure.
void close_call(Metrics& metrics, Metrics::Method method, const grpc::Status& status);

// A unary call's end, bound to its method. Handlers finish unary calls only through it (a test
// checks that no other server source calls Finish), so every end is recorded by close_call.
// A small value: lambdas that answer later copy it.
class UnaryCall {
 public:
  UnaryCall(grpc::ServerUnaryReactor* reactor, Metrics& metrics, Metrics::Method method)
      : reactor_(reactor), metrics_(&metrics), method_(method) {}

  // close_call, then the reactor's Finish. Once per call, as gRPC requires.
  void finish(const grpc::Status& status) const;

 private:
  grpc::ServerUnaryReactor* reactor_;
  Metrics* metrics_;
  Metrics::Method method_;
};

}  // namespace chunkforge::server
