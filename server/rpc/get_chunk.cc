// WorldService::GetChunk: one chunk, from the cache or a generation it starts or joins; the
// cached canonical bytes are sent as they are.
#include "rpc/byte_buffer.h"
#include "rpc/rpc_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

grpc::ServerUnaryReactor* WorldService::GetChunk(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                                 grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const UnaryCall call(reactor, metrics_, Metrics::kGetChunk);
  v1::GetChunkRequest request;
  ChunkJob job;
  grpc::Status status = open_call(*this, Metrics::kGetChunk, *context, raw, &request);
  if (status.ok()) status = make_job(request.coord(), request.options(), "coord", job);
  if (!status.ok()) {
    call.finish(status);
    return reactor;
  }
  Metrics& metrics = metrics_;
  auto respond = [this, job, call, response, &metrics](Bytes bytes) {
    if (!bytes) return call.finish(dropped_status(job, "request cancelled"));
    *response = buffer_of(*bytes);
    metrics.chunk_sent();
    call.finish(grpc::Status::OK);
  };
  Fetched fetched = fetch(
      job, Work::view, 0, [context] { return context->IsCancelled(); }, respond);
  if (fetched.refused) {
    call.finish(queue_full());
  } else if (fetched.hit) {
    respond(std::move(fetched.hit));
  }
  return reactor;
}

}  // namespace chunkforge::server
