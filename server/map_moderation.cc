// map_moderation: the map's /api/moderation/ routes as WorldService::moderate_json calls.
#include "map_moderation.h"

#include <utility>

namespace chunkforge::server {
namespace {

int http_status(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    default:  // UNAVAILABLE (the store), CANCELLED (the client left) and the rest: try again
      return 503;
  }
}

}  // namespace

map::ModerationFn map_moderation(WorldService& service) {
  return [&service](const map::ModerationCall& call, map::ModerationReplyFn reply,
                    const std::shared_ptr<const std::atomic<bool>>& cancelled) {
    const auto query = call.query == map::ModerationQuery::kLog ? WorldService::MapModeration::kLog
                                                                : WorldService::MapModeration::kRollbackPreview;
    service.moderate_json(
        query, call.request_json, call.credential, call.peer,
        [reply = std::move(reply)](const grpc::Status& status, std::string json) {
          if (status.ok()) return reply(200, std::move(json));
          reply(http_status(status.error_code()), "{\"error\":" + map::json_quoted(status.error_message()) + "}");
        },
        cancelled);
  };
}

}  // namespace chunkforge::server
