// The options every subcommand that generates shares: --world FILE (default: the built-in
// world) and --seed N (overrides the world's seed); JSON output through protobuf's mapping; the
// exit codes.
#pragma once

#include <google/protobuf/message.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "chunkforge/world.h"

namespace chunkforge::tool {

struct WorldOptions {
  std::optional<std::string> file;  // --world
  std::optional<uint64_t> seed;     // --seed
};

// The declared options, for rules between them (--server excludes both).
struct WorldFlags {
  CLI::Option* world;
  CLI::Option* seed;
};

// Declares --world and --seed on a subcommand, bound to `options`.
WorldFlags add_world_options(CLI::App& app, WorldOptions& options);

// Loads the world the options name. On failure prints the errors to stderr and returns
// nullopt; the caller exits with kExitBadInput.
std::optional<World> load_world(const WorldOptions& options);

// A message as one line of JSON with snake_case names and zero values printed.
std::string to_json(const google::protobuf::Message& message);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

}  // namespace chunkforge::tool
