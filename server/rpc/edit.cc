// WorldService::Edit: a batch of edits (docs/edits.md). Checked on the gRPC thread (sizes,
// ranges, compare-and-set versions the index already knows are stale, the bounds on edits under
// way), then the generated chunks it works on are fetched on the generation threads, one edit
// at a time and behind the players' views, and the EditService commits it in the next group;
// the answer goes out once the batch is durable.
#include <spdlog/spdlog.h>

#include "rpc/unary_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {
namespace {

// The generated chunks of `keys`, added to `bases`.
void add_bases(WorldService& service, const std::vector<ChunkCoord>& keys, BaseChunks& bases) {
  for (const ChunkCoord& k : keys) bases.emplace(k, service.source().base_chunk({k.x, k.z}));
}

// FAILED_PRECONDITION for an `expect` older than the version this process knows: versions only
// grow, so it is stale whatever the store says, and no chunk need be generated to say so. One
// newer than the index is left to the store (another replica may have committed it).
grpc::Status check_known_versions(const EditService& edits, const v1::EditRequest& request) {
  for (int i = 0; i < request.expect_size(); ++i) {
    const v1::ChunkVersion& e = request.expect(i);
    const uint64_t known = edits.version({e.chunk().x(), e.chunk().z()});
    if (known > e.version()) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "expect[" + std::to_string(i) + "]: chunk (" + std::to_string(e.chunk().x()) + ", " +
                  std::to_string(e.chunk().z()) + ") is at version " + std::to_string(known) + ", not " +
                  std::to_string(e.version()) + " (reload it and retry)"};
    }
  }
  return grpc::Status::OK;
}

// Names the edit's author (docs/edits.md, "Moderation"): a player's token edits as its player;
// the service (the write token) may name the player it edits for.
grpc::Status set_author(const Caller& caller, v1::EditRequest& request) {
  if (request.author().size() > kMaxPlayerNameBytes) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "author: at most " + std::to_string(kMaxPlayerNameBytes) +
                                                    " bytes (got " + std::to_string(request.author().size()) + ")"};
  }
  if (caller.role == Caller::Role::kService) return grpc::Status::OK;
  if (!request.author().empty() && request.author() != caller.player) {
    return {grpc::StatusCode::PERMISSION_DENIED, "author: a player's token edits as its own player (\"" +
                                                     caller.player + "\"), not \"" + request.author() + "\""};
  }
  request.set_author(caller.player);
  return grpc::Status::OK;
}

}  // namespace

grpc::ServerUnaryReactor* WorldService::Edit(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                             grpc::ByteBuffer* response) {
  auto* call = new UnaryCall(*this, context, response, Metrics::kEdit);
  auto request = std::make_shared<v1::EditRequest>();
  // Parsed first, as every RPC is (bytes that are not the request are INVALID_ARGUMENT on any
  // server); then admitted, before any check that costs more than the parse.
  grpc::Status status = call->open(raw, request.get());
  Caller caller;
  if (status.ok()) status = authorize_edit(*context, caller);
  if (status.ok()) status = set_author(caller, *request);
  // A player is one writer however many connections it opens.
  const bool player = caller.role == Caller::Role::kPlayer || caller.role == Caller::Role::kModerator;
  const std::string writer = player ? "player " + caller.player : context->peer();
  if (status.ok() && player && !player_rates_.take(caller.player)) {
    metrics().edits().refused(EditMetrics::kPlayerRate);
    call->fail({grpc::StatusCode::RESOURCE_EXHAUSTED, "edits of player " + caller.player + ": at most " +
                                                          fmt::format("{:g}", player_rates_.rate()) +
                                                          " a second: edit not applied, retry later"});
    return call;
  }
  const size_t bytes = raw != nullptr ? raw->Length() : 0;
  if (status.ok()) status = edits_->admission().admit(writer, bytes);
  const bool admitted = status.ok();
  if (status.ok()) status = check_request(world_, *request, chunk_limit());
  if (status.ok()) status = check_known_versions(*edits_, *request);
  if (!status.ok()) {
    if (admitted) edits_->admission().release(writer, bytes);
    metrics().edits().refused(status.error_code(), admitted);
    call->fail(status);
    return call;
  }
  EditAdmission& admission = edits_->admission();
  EditMetrics& counted = metrics().edits();
  auto done = [call, &admission, &counted, writer, bytes](const grpc::Status& result, const v1::EditResponse& answer) {
    admission.release(writer, bytes);
    if (!result.ok()) {
      counted.refused(result.error_code(), true);
      return call->fail(result);
    }
    call->answer(answer);
  };
  auto cancelled = [call] { return call->cancelled(); };
  // One edit at a time on the generation threads, after every chunk in a player's view: edits,
  // bounded by the admission above, cannot hold back what players are waiting to see.
  edit_lane_.add([this, request, done, cancelled] {
    if (cancelled()) return done({grpc::StatusCode::CANCELLED, "the client left: edit not applied"}, {});
    BaseChunks bases;
    try {
      add_bases(*this, chunks_named(*request), bases);
      std::vector<ChunkCoord> more;
      if (grpc::Status found = structure_chunks(world_, *request, bases, more); !found.ok()) return done(found, {});
      add_bases(*this, more, bases);
    } catch (const std::exception& e) {  // the server is stopping, or out of memory
      return done({grpc::StatusCode::UNAVAILABLE, std::string("edit not applied: ") + e.what()}, {});
    }
    edits_->submit(std::move(*request), std::move(bases), done, cancelled);
  });
  return call;
}

}  // namespace chunkforge::server
