// The options every subcommand shares: --world FILE (default: the built-in world) and
// --seed N (overrides the world's seed), plus JSON output through protobuf's mapping.
#pragma once

#include <google/protobuf/message.h>

#include <optional>
#include <string>

#include "args.h"
#include "chunkforge/world.h"

namespace chunkforge::tool {

inline const std::string kWorldOptionsHelp =
    "  --world FILE   world definition JSON (default: the built-in world)\n"
    "  --seed N       override the world's seed (unsigned 64-bit)\n";

// Adds --world and --seed to a spec.
ArgSpec with_world_options(ArgSpec spec);

// Loads the world the options name. On failure prints the errors to stderr and returns
// nullopt; the caller exits with kExitBadInput.
std::optional<World> load_world(const Args& args);

// A message as one line of JSON with snake_case names and zero values printed.
std::string to_json(const google::protobuf::Message& message);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

}  // namespace chunkforge::tool
