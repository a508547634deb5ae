// File: server/map_moderation.h
//
// The live map's moderation view (map::MapOptions::moderation) served by the WorldService:
// the same checks, the same moderation lane and the same answers as EditLog and a Rollback
// preview, in protobuf JSON, with gRPC's status as the HTTP one (INVALID_ARGUMENT 400,
// UNAUTHENTICATED 401, PERMISSION_DENIED 403, RESOURCE_EXHAUSTED 429, UNAVAILABLE 503). Here,
// at the top, because map/ knows nothing of gRPC and rpc/ nothing of the map.
//
//   options.moderation = map_moderation(service);
#pragma once

#include "map_service.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

// `service` outlives the map.
map::ModerationFn map_moderation(WorldService& service);

}  // namespace chunkforge::server
