// The shared steps of every WorldService RPC (see rpc_call.h).
#include "rpc/rpc_call.h"

#include "log/client_log.h"
#include "rpc/byte_buffer.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

grpc::Status open_call(WorldService& service, Metrics::Method method, const grpc::CallbackServerContext& context,
                       const grpc::ByteBuffer* raw, google::protobuf::Message* request) {
  service.metrics().request(method);
  if (grpc::Status auth = service.authenticate(context); !auth.ok()) return auth;
  if (raw == nullptr || request == nullptr) return grpc::Status::OK;
  if (!request->ParseFromString(bytes_of(*raw))) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "request: not a " + request->GetTypeName() + " (" +
                                                    std::to_string(raw->Length()) + " bytes that do not parse)"};
  }
  return grpc::Status::OK;
}

void close_call(Metrics& metrics, Metrics::Method method, const grpc::Status& status,
                std::chrono::steady_clock::time_point started) {
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  metrics.call_ended(method, static_cast<int>(status.error_code()), took.count());
  if (status.ok() || status.error_code() == grpc::StatusCode::CANCELLED) return;
  metrics.error(method);
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) metrics.refused();
  log_client(LogKind::kCallFailed, spdlog::level::info, "{}: {}", Metrics::kMethodNames[method],
             status.error_message());
}

}  // namespace chunkforge::server
