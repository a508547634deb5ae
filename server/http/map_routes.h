// File: server/http/map_routes.h
//
// The live map's routes (server/map/) as a handler of the HTTP side port: the server mounts it
// beside /healthz and /metrics, and `chunkforge map` on an endpoint of its own, without the
// gRPC server.
#pragma once

#include "http/http_endpoint.h"
#include "map_service.h"

namespace chunkforge::server {

HttpHandler map_handler(map::MapService& service);

}  // namespace chunkforge::server
