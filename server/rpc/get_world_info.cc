// WorldService::GetWorldInfo: the world's description, serialized once at start-up.
#include "rpc/byte_buffer.h"
#include "rpc/rpc_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

grpc::ServerUnaryReactor* WorldService::GetWorldInfo(grpc::CallbackServerContext* context,
                                                     const grpc::ByteBuffer* raw, grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const UnaryCall call(reactor, metrics_, Metrics::kGetWorldInfo);
  v1::GetWorldInfoRequest request;
  const grpc::Status status = open_call(*this, Metrics::kGetWorldInfo, *context, raw, &request);
  if (status.ok()) *response = buffer_of(info_bytes_);
  call.finish(status);
  return reactor;
}

void WorldService::withhold_seed() {
  v1::WorldInfo info;
  info.ParseFromString(info_bytes_);
  info.clear_seed();
  info_bytes_ = info.SerializeAsString();
}

}  // namespace chunkforge::server
