// File: tests/bench/in_process_server.h
//
// The benchmarks' world server: one per process, started on first use on a loopback port, with
// no store and no side port, living until the process exits (benchmarks run in any order).
#pragma once

#include <cstdlib>
#include <string>

#include "chunkforge/world.h"
#include "world_server.h"

namespace chunkforge::bench {

// The server's target ("127.0.0.1:port"); `threads` generation threads, taken from the first call.
inline std::string in_process_server(int threads) {
  static server::WorldServer* server = [threads] {
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.threads = threads;
    auto* s = new server::WorldServer(default_world(), options);
    if (!s->start()) std::abort();
    return s;
  }();
  return "127.0.0.1:" + std::to_string(server->port());
}

}  // namespace chunkforge::bench
