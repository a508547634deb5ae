// File: server/rpc/rpc_call.h
//
// The steps every WorldService RPC shares, written once: count the call, check the token, parse
// the request bytes, and record how the call ended. Every RPC is a raw (ByteBuffer) method so
// that bytes that are not the request message get INVALID_ARGUMENT naming the message, instead
// of gRPC's bare status; the size of a request is bounded before it gets here, by the server's
// maximum receive size (Limits::max_request_bytes). A unary call opens and ends through
// UnaryCall (unary_call.h), a stream through StreamCall (stream_call.h); both call these.
//
//   grpc::Status status = open_call(service, Metrics::kGetWorldInfo, *context, raw, &request);
//   ...
//   close_call(metrics, Metrics::kGetWorldInfo, status, started);  // then gRPC's Finish
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <chrono>

#include "metrics/metrics.h"

namespace chunkforge::server {

class WorldService;

// Counts the call, authenticates it, then parses `raw` into `request` (both may be null for a
// stream that starts without a message). OK, or the status to end the call with.
grpc::Status open_call(WorldService& service, Metrics::Method method, const grpc::CallbackServerContext& context,
                       const grpc::ByteBuffer* raw, google::protobuf::Message* request);

// Records how a call that began at `started` ended, once per call: counted by its status code
// (and a unary call timed); an error is counted under its method and logged, and
// RESOURCE_EXHAUSTED also counted as refused. Cancellations are neither: they are the client's
// choice (a player who walked on, a deadline), not the server's failure.
void close_call(Metrics& metrics, Metrics::Method method, const grpc::Status& status,
                std::chrono::steady_clock::time_point started);

}  // namespace chunkforge::server
