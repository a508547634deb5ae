// WorldService::Edit: a batch of edits (docs/edits.md). Checked on the gRPC thread, then the
// generated chunks it works on are fetched on the generation threads, and the EditService
// commits it in the next group; the answer goes out once the batch is durable.
#include <spdlog/spdlog.h>

#include "byte_buffer.h"
#include "rpc_call.h"
#include "world_service.h"

namespace chunkforge::server {
namespace {

// The generated chunks of `keys`, added to `bases`.
void add_bases(WorldService& service, const std::vector<ChunkKey>& keys, BaseChunks& bases) {
  for (const ChunkKey& k : keys) bases.emplace(k, service.base_chunk({k.x, k.z}));
}

}  // namespace

grpc::ServerUnaryReactor* WorldService::Edit(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                             grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  auto request = std::make_shared<v1::EditRequest>();
  grpc::Status status = open_call(*this, Metrics::kEdit, *context, raw, request.get());
  if (status.ok()) status = authorize_edit(*context);
  if (status.ok()) status = check_request(world_, *request, chunk_limit());
  if (!status.ok()) {
    finish_unary(reactor, metrics_, Metrics::kEdit, status);
    return reactor;
  }
  Metrics& metrics = metrics_;
  auto done = [reactor, response, &metrics](grpc::Status result, v1::EditResponse answer) {
    if (result.ok()) *response = buffer_of(answer.SerializeAsString());
    finish_unary(reactor, metrics, Metrics::kEdit, result);
  };
  // Edits go ahead of chunk generations: a player waits on them.
  run_on_queue(-1.0, [this, request, done] {
    BaseChunks bases;
    try {
      add_bases(*this, chunks_named(*request), bases);
      std::vector<ChunkKey> more;
      if (grpc::Status found = structure_chunks(world_, *request, bases, more); !found.ok()) return done(found, {});
      add_bases(*this, more, bases);
    } catch (const std::exception& e) {  // the server is stopping, or out of memory
      return done({grpc::StatusCode::UNAVAILABLE, std::string("edit not applied: ") + e.what()}, {});
    }
    edits_->submit(std::move(*request), std::move(bases), done);
  });
  return reactor;
}

}  // namespace chunkforge::server
