// Where the `chunkforge` command's world comes from: generated here from a definition
// (--world, --seed, or the built-in world), or fetched from a running server (--server ADDR).
// Both hand out the same wire messages, so every command prints the same bytes either way.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunkforge/client/client.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"
#include "region.h"
#include "world_options.h"

namespace chunkforge::tool {

// --server ADDR and how to reach it.
struct ServerOptions {
  std::optional<std::string> address;     // --server
  bool tls = false;                       // --tls (implied by --tls-ca)
  std::optional<std::string> tls_ca;      // --tls-ca FILE
  std::optional<std::string> token_file;  // --token-file FILE
};

// Where a command's world comes from: generated here (world) or a server (server.address).
struct SourceOptions {
  WorldOptions world;
  ServerOptions server;
};

// Declares --server, --tls, --tls-ca and --token-file (the last three need --server); returns
// --server. `required`: for commands that only talk to a server.
CLI::Option* add_server_options(CLI::App& app, ServerOptions& options, bool required);

// Declares the world options and the server options, --world and --seed excluding --server;
// returns --server.
CLI::Option* add_source_options(CLI::App& app, SourceOptions& options);

class Source {
 public:
  virtual ~Source() = default;
  virtual const v1::WorldInfo& info() const = 0;
  // The chunks of the rectangle in row order (z outer). On failure prints why (prefixed with
  // `command`) and returns nullopt; the command exits with kExitFailure.
  virtual std::optional<std::vector<v1::Chunk>> chunks(const Rect& rect, const RegionOptions& options) = 0;
  // The nearest kept instances of the structure type named `type` within `radius` of (x, z),
  // at most `limit`. On failure prints why and returns nullopt.
  virtual std::optional<std::vector<v1::StructureInstance>> locate(const std::string& type, int64_t x, int64_t z,
                                                                   double radius, uint32_t limit) = 0;
  virtual bool online() const = 0;
};

struct OpenedSource {
  std::unique_ptr<Source> source;  // null on failure, after printing why
  int exit_code = 0;               // the exit code when null
};

// The source the options name. `command` prefixes messages.
OpenedSource open_source(const SourceOptions& options, const std::string& command);

// A client for --server with the --tls, --tls-ca and --token-file options, or nullopt after
// printing why (bad input).
std::optional<client::Client> connect_client(const ServerOptions& options, const std::string& command);

}  // namespace chunkforge::tool
