// Where the `chunkforge` command's world comes from: generated here from a definition
// (--world, --seed, or the built-in world), or fetched from a running server (--server ADDR).
// Both hand out the same wire messages, so every command prints the same bytes either way.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "chunkforge/client/client.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"
#include "region.h"

namespace chunkforge::tool {

inline const std::string kServerOptionsHelp =
    "  --server ADDR  ask a running server (host:port) instead of generating here\n"
    "  --tls          with --server: connect with TLS (the system's root certificates)\n"
    "  --tls-ca FILE  with --server: trust the PEM certificates in FILE (implies --tls)\n"
    "  --token-file FILE  with --server: send the bearer token in FILE\n";

// Adds --server, --tls, --tls-ca and --token-file to a spec (with the world options).
ArgSpec with_source_options(ArgSpec spec);

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
OpenedSource open_source(const Args& args, const std::string& command);

// A client for --server with the --tls, --tls-ca and --token-file options, or nullopt after
// printing why (bad input).
std::optional<client::Client> connect_client(const Args& args, const std::string& command);

}  // namespace chunkforge::tool
