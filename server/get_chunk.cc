// WorldService::GetChunk: one chunk, from the cache or a generation it starts or joins; the
// cached canonical bytes are sent as they are.
#include "byte_buffer.h"
#include "rpc_call.h"
#include "world_service.h"

namespace chunkforge::server {

grpc::ServerUnaryReactor* WorldService::GetChunk(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                                 grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  v1::GetChunkRequest request;
  ChunkJob job;
  grpc::Status status = open_call(*this, Metrics::kGetChunk, *context, raw, &request);
  if (status.ok()) status = make_job(request.coord(), request.options(), "coord", job);
  if (!status.ok()) {
    finish_unary(reactor, metrics_, Metrics::kGetChunk, status);
    return reactor;
  }
  Metrics& metrics = metrics_;
  auto respond = [this, job, reactor, response, &metrics](Bytes bytes) {
    if (!bytes) return finish_unary(reactor, metrics, Metrics::kGetChunk, dropped_status(job, "request cancelled"));
    *response = buffer_of(*bytes);
    metrics.chunk_sent();
    reactor->Finish(grpc::Status::OK);
  };
  Fetched fetched = fetch(job, Work::view, 0, [context] { return context->IsCancelled(); }, respond);
  if (fetched.refused) {
    finish_unary(reactor, metrics_, Metrics::kGetChunk, queue_full());
  } else if (fetched.hit) {
    respond(std::move(fetched.hit));
  }
  return reactor;
}

}  // namespace chunkforge::server
