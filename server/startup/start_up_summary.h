// File: server/startup/start_up_summary.h
//
// What chunkforge-server tells its operator once it serves (docs/deploy.md, "Configuration"):
// the world it serves, where edits are kept and who may make them (a warning when anyone may),
// the map, and the limits that bound its players. A few lines, so that the log of every start
// answers "what is this replica running?" without its flags.
#pragma once

#include <string>
#include <vector>

#include "chunkforge/world.h"
#include "world_server.h"

namespace chunkforge::server {

struct StartUpLine {
  bool warning = false;  // logged as a warning: an operator must see it
  std::string text;
};

// The summary's lines for a server started with `options` on `world`, bound to `port` (gRPC)
// and `http_port` (0: none).
std::vector<StartUpLine> start_up_summary(const World& world, const ServerOptions& options, int port, int http_port);

}  // namespace chunkforge::server
