// WorldService::EditLog and WorldService::Rollback: moderation (docs/edits.md, "Moderation").
// Checked on the gRPC thread (credentials, filters); the store's reads and a rollback's
// replays run on the moderation lane: one job at a time on a generation thread, queued after
// every chunk in a player's view, at most kMaxModerationJobs waiting. A rollback whose client
// leaves finishes all the same (it is retry-safe, and half of one helps nobody); an audit whose
// client left is not run.
#include <google/protobuf/util/json_util.h>

#include "edits/edit_history.h"
#include "edits/rollback.h"
#include "rpc/unary_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {
namespace {

grpc::Status store_failed(const std::exception& e) {
  return {grpc::StatusCode::UNAVAILABLE, std::string("edit store: ") + e.what() + " (retry with the same request)"};
}

RollbackSpec spec_of(const v1::RollbackRequest& r, std::optional<uint32_t> author, const Caller& moderator) {
  RollbackSpec spec;
  spec.area = {{r.area().min().x(), r.area().min().z()}, {r.area().max().x(), r.area().max().z()}};
  spec.author = author;
  spec.since = r.since();
  spec.until = r.until();
  spec.request_id = r.request_id();
  spec.by = moderator.player;  // "" for the service
  spec.preview = r.preview();
  return spec;
}

// `json` as `message` (protobuf JSON, unknown fields refused), or INVALID_ARGUMENT saying why.
grpc::Status parse_json(const std::string& json, google::protobuf::Message& message) {
  const auto parsed = google::protobuf::util::JsonStringToMessage(json, &message);
  if (parsed.ok()) return grpc::Status::OK;
  return {grpc::StatusCode::INVALID_ARGUMENT,
          "q: not a " + message.GetTypeName() + " in JSON: " + std::string(parsed.message())};
}

std::string json_of(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;  // the names of edit.proto and of `chunkforge edits log`
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

}  // namespace

grpc::Status WorldService::queue_moderation(std::function<void()> job) {
  if (moderation_jobs_.fetch_add(1) >= kMaxModerationJobs) {
    --moderation_jobs_;
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "moderation calls under way: at most " + std::to_string(kMaxModerationJobs) + ", retry later"};
  }
  moderation_lane_.add([this, job = std::move(job)] {
    job();
    --moderation_jobs_;
  });
  return grpc::Status::OK;
}

grpc::Status WorldService::run_rollback(const v1::RollbackRequest& request, const Caller& moderator,
                                        v1::RollbackResponse& answer, const std::function<bool()>& stop) {
  std::optional<uint32_t> author;
  if (!request.player().empty()) {
    // A name the store never recorded has no changes: an id no change has.
    author = edits_->store().player_id(request.player()).value_or(UINT32_MAX);
  }
  // After each group's commit, this process's tail hands its new versions to the sessions
  // (other replicas' tails hear of it from the store).
  EditStore& store = edits_->store();
  const grpc::Status done = roll_back(
      store, [this](ChunkCoord c) { return source().base_chunk(c); }, spec_of(request, author, moderator), answer,
      [&store](size_t, size_t) { store.wake(); }, stop);
  // A rollback stopped between groups (CANCELLED) committed the groups before: theirs too.
  const bool committed_some = done.ok() || done.error_code() == grpc::StatusCode::CANCELLED;
  if (committed_some && !request.preview()) {
    for (const v1::ChunkVersion& v : answer.versions()) edits_->committed({v.chunk().x(), v.chunk().z()}, v.version());
  }
  return done;
}

grpc::ServerUnaryReactor* WorldService::EditLog(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                                grpc::ByteBuffer* response) {
  auto* call = new UnaryCall(*this, context, response, Metrics::kEditLog);
  auto request = std::make_shared<v1::EditLogRequest>();
  Caller moderator;
  grpc::Status status = call->open(raw, request.get());
  if (status.ok()) status = authorize_moderation(*context, moderator);
  if (status.ok()) status = check_edit_log(*request, chunk_limit());
  if (status.ok()) {
    status = queue_moderation([this, call, request] {
      if (call->cancelled()) return call->fail({grpc::StatusCode::CANCELLED, "the client left"});
      try {
        call->answer(edit_log(edits_->store(), *request));
      } catch (const std::exception& e) {
        call->fail(store_failed(e));
      }
    });
  }
  if (!status.ok()) call->fail(status);
  return call;
}

grpc::ServerUnaryReactor* WorldService::Rollback(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                                 grpc::ByteBuffer* response) {
  auto* call = new UnaryCall(*this, context, response, Metrics::kRollback);
  auto request = std::make_shared<v1::RollbackRequest>();
  Caller moderator;
  grpc::Status status = call->open(raw, request.get());
  if (status.ok()) status = authorize_moderation(*context, moderator);
  if (status.ok()) status = check_rollback(*request);
  if (status.ok()) {
    status = queue_moderation([this, call, request, moderator] {
      try {
        v1::RollbackResponse answer;
        const grpc::Status done = run_rollback(*request, moderator, answer, [call] { return call->cancelled(); });
        done.ok() ? call->answer(answer) : call->fail(done);
      } catch (const std::exception& e) {
        call->fail(store_failed(e));
      }
    });
  }
  if (!status.ok()) call->fail(status);
  return call;
}

void WorldService::moderate_json(MapModeration query, const std::string& json, const std::string& token,
                                 const std::string& peer, const JsonAnswerFn& done, const Cancelled& cancelled) {
  Caller moderator;
  Job work;  // run on the lane: the answer in JSON
  grpc::Status status = authorize_moderation(token, peer, moderator);
  if (status.ok())
    status = query == MapModeration::kLog ? map_log_job(json, work) : map_preview_job(json, moderator, cancelled, work);
  if (status.ok()) {
    status = queue_moderation([work, done, cancelled] {
      if (cancelled && cancelled->load()) return done({grpc::StatusCode::CANCELLED, "the client left"}, "");
      try {
        std::string answer;
        const grpc::Status ran = work(answer);
        done(ran, std::move(answer));
      } catch (const std::exception& e) {
        done(store_failed(e), "");
      }
    });
  }
  if (!status.ok()) done(status, "");
}

grpc::Status WorldService::map_log_job(const std::string& json, Job& work) {
  auto request = std::make_shared<v1::EditLogRequest>();
  grpc::Status status = parse_json(json, *request);
  if (status.ok() && request->limit() > kMapLogEntries) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "limit: at most " + std::to_string(kMapLogEntries) + " on the map (EditLog takes more)"};
  }
  if (status.ok()) status = check_edit_log(*request, chunk_limit());
  work = [this, request](std::string& answer) {
    answer = json_of(edit_log(edits_->store(), *request));
    return grpc::Status::OK;
  };
  return status;
}

grpc::Status WorldService::map_preview_job(const std::string& json, const Caller& moderator, const Cancelled& cancelled,
                                           Job& work) {
  auto request = std::make_shared<v1::RollbackRequest>();
  grpc::Status status = parse_json(json, *request);
  request->set_preview(true);  // the map shows what would change; it changes nothing
  if (status.ok()) status = check_rollback(*request);
  work = [this, request, moderator, cancelled](std::string& answer) {
    v1::RollbackResponse planned;
    const grpc::Status ran =
        run_rollback(*request, moderator, planned, [cancelled] { return cancelled && cancelled->load(); });
    if (ran.ok()) answer = json_of(planned);
    return ran;
  };
  return status;
}

grpc::Status WorldService::check_rollback(const v1::RollbackRequest& request) const {
  if (!request.has_area()) return {grpc::StatusCode::INVALID_ARGUMENT, "area: required"};
  return check_area(request.area(), chunk_limit());
}

}  // namespace chunkforge::server
