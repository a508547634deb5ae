// WorldService::GetChunk: one chunk, from the cache or a generation it starts or joins; the
// cached canonical bytes are sent as they are, charged to the client's connection. A connection
// without room for an answer is refused before anything is generated.
#include "rpc/unary_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

grpc::ServerUnaryReactor* WorldService::GetChunk(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                                 grpc::ByteBuffer* response) {
  auto* call = new UnaryCall(*this, context, response, Metrics::kGetChunk);
  v1::GetChunkRequest request;
  ChunkJob job;
  grpc::Status status = call->open(raw, &request);
  if (status.ok()) status = make_job(request.coord(), request.options(), "coord", job);
  if (!status.ok()) {
    call->fail(status);
    return call;
  }
  auto respond = [this, job, call](Bytes bytes) {
    if (!bytes) return call->fail(dropped_status(job, "request cancelled"));
    metrics_.chunk_sent();
    call->answer(std::move(bytes));
  };
  ChunkSource::Fetched fetched = source_.fetch(
      job, Work::view, 0, [call] { return call->cancelled(); }, respond, client_of(*context));
  if (fetched.refused) {
    call->fail(queue_full());
  } else if (fetched.hit) {
    respond(std::move(fetched.hit));
  }
  return call;
}

}  // namespace chunkforge::server
