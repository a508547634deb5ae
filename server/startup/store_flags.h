// File: server/startup/store_flags.h
//
// chunkforge-server's edit flags (docs/edits.md): where edits are kept (--data DIR, or --store
// URI), who may make them (--write-token-file, --player-key-file, --open-edits) and what to do with a store bound
// to another world (--store-rebind). Declared on the server's CLI11 app; applied to its options
// after parsing, opening and binding the store.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "chunkforge/world.h"
#include "world_server.h"

namespace chunkforge::server {

struct StoreFlags {
  std::optional<std::string> data_dir, store, write_token_file;
  // Players' signed tokens: the game's public key (PEM), the issuer and audience they carry.
  std::optional<std::string> player_key_file, token_issuer, token_audience;
  double player_edits_per_second = 20;
  bool open_edits = false, rebind = false;
  // --store-optional: a store that cannot be opened at start-up leaves the server serving the
  // generated world (edits UNAVAILABLE) instead of stopping it.
  bool optional = false;
};

// Adds the flags to `app`, bound to `flags`. `add` declares a FILE/DIR/URI option the way the
// server declares all of its options (with its CHUNKFORGE_* variable).
using AddOptional = CLI::Option* (*)(CLI::App&, const std::string&, std::optional<std::string>&, const std::string&,
                                     const std::string&);
void declare_store_flags(CLI::App& app, StoreFlags& flags, AddOptional add);

// Opens and binds the store and reads the write token into `options`. The exit code on failure
// after printing why (2: bad flags, a token file without a token, a store bound to another
// world, a --data directory whose store cannot be opened; 1: a --store that cannot be opened),
// or nullopt. With `optional`, a store that cannot be opened is logged and the server starts
// without it (options.store_error says why).
std::optional<int> apply_store_flags(const StoreFlags& flags, const World& world, ServerOptions& options);

// A token file's token (trailing white space dropped); nullopt after printing why.
std::optional<std::string> read_token_file(const std::string& flag, const std::string& path);

}  // namespace chunkforge::server
