// File: tools/chunkforge/edits_moderation.h
//
// `chunkforge edits log` and `chunkforge edits rollback` (docs/edits.md, "Moderation"): the
// store's audit trail and rollbacks, run on the store itself like the other `edits` commands,
// while servers serve from it (they send a rollback's new versions to their players as they
// send any commit). The same code as the EditLog and Rollback RPCs (server/edits/).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkforge/world.h"
#include "edit_store.h"

namespace chunkforge::tool {

// The filters both commands take.
struct ModerationOptions {
  std::vector<int64_t> area;    // CX0 CZ0 CX1 CZ1, or empty
  std::vector<int64_t> chunk;   // CX CZ (log), or empty
  std::string player;           // "" everyone
  std::string since, until;     // Unix seconds or YYYY-MM-DDTHH:MM:SSZ; "" unbounded
  std::string object;           // hex id (log)
  uint32_t limit = 1000;        // log
  bool preview = false;         // rollback
  std::string request_id;       // rollback
  std::string by = "operator";  // rollback: recorded as its author
};

// Declare the two subcommands on `edits`, bound to `options`.
CLI::App* declare_log(CLI::App& edits, ModerationOptions& options);
CLI::App* declare_rollback(CLI::App& edits, ModerationOptions& options);

// The command's exit code after printing its answer (JSON lines) or what is wrong.
int log_edits(server::EditStore& store, const World& world, const ModerationOptions& options);
int rollback_edits(server::EditStore& store, const World& world, const ModerationOptions& options);

}  // namespace chunkforge::tool
