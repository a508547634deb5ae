// File: server/entry_points.h
//
// Every way into the server, each with its bounds in one line of text: the RPCs of
// chunkforge.v1.WorldService (the method list from its descriptor, so a new RPC without written
// bounds shows up as one) and every HTTP route (the side port's /healthz and /metrics, and the
// live map's map::routes()). docs/server.md, "Entry points and their bounds", has one row per
// entry with the same text; tests/server/entry_points_test.cc holds the two together.
//
//   for (const EntryPoint& e : entry_points()) std::cout << e.name << ": " << e.bounds << "\n";
//
// The bounds are stated at the default limits (server/rpc/world_service.h Limits, HttpOptions,
// map::MapOptions); flags that change one are named in the text.
#pragma once

#include <string>
#include <vector>

namespace chunkforge::server {

struct EntryPoint {
  std::string name;    // "WorldService.GetChunk", "GET /api/locate"
  std::string bounds;  // radius, area, result size, time; "" if nobody wrote them (a bug)
};

// The RPCs in descriptor order, then the side port's routes, then the map's in table order.
std::vector<EntryPoint> entry_points();

}  // namespace chunkforge::server
