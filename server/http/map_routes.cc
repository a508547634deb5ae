// map_handler: a side-port request as the map service's request, its reply as the port's.
#include "http/map_routes.h"

#include <utility>

namespace chunkforge::server {

HttpHandler map_handler(map::MapService& service) {
  return [&service](const HttpRequestView& request, HttpReplyFn reply,
                    const std::shared_ptr<const std::atomic<bool>>& cancelled) {
    map::MapRequest map_request{request.target,        request.if_none_match, request.cookie,
                                request.authorization, request.moderator,     request.peer};
    return service.handle(
        map_request,
        [reply = std::move(reply)](map::MapReply r) {
          reply(HttpReply{static_cast<unsigned>(r.status), std::move(r.content_type), std::move(r.body),
                          std::move(r.headers)});
        },
        cancelled);
  };
}

}  // namespace chunkforge::server
