// chunkforge-server's edit flags (see store_flags.h).
#include "startup/store_flags.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <filesystem>
#include <iostream>

#include "edits/edit_service.h"
#include "startup/flag_files.h"
#include "world_epochs.h"

namespace chunkforge::server {

void declare_store_flags(CLI::App& app, StoreFlags& flags, AddOptional add) {
  CLI::Option* data =
      add(app, "--data", flags.data_dir, "DIR", "keep players' edits in DIR/edits.db (SQLite, created if missing)");
  CLI::Option* store = add(
      app, "--store", flags.store, "URI",
      "keep edits in sqlite:PATH or postgres://user@host/db\n(replicas of a scale-out share one PostgreSQL database)");
  data->excludes(store);
  add(app, "--write-token-file", flags.write_token_file, "FILE",
      "edits need \"authorization: Bearer <token>\" with the token in FILE\n(that token reads too)");
  add(app, "--player-key-file", flags.player_key_file, "FILE",
      "players edit with tokens (JWT, RS*/ES*) signed by the key whose public half\n(PEM) is in FILE; "
      "needs --token-issuer and --token-audience");
  add(app, "--token-issuer", flags.token_issuer, "ISS", "the issuer (iss) every player token must name");
  add(app, "--token-audience", flags.token_audience, "AUD",
      "the audience (aud) every player token must name or hold: this world");
  app.add_option("--player-edits-per-second", flags.player_edits_per_second,
                 "edits one player's token may make a second, in bursts of twice that (0: no limit)")
      ->default_val(20)
      ->check(CLI::Range(0.0, 1e6));
  app.add_flag("--open-edits", flags.open_edits, "anyone who may read may edit: for local development only");
  app.add_flag("--store-rebind", flags.rebind,
               "start even if the store holds edits of another world, keeping them over this one");
  app.add_flag("--store-optional", flags.optional,
               "if the store cannot be opened at start-up, serve the generated world\n(every Edit "
               "UNAVAILABLE; edited chunks as generated) instead of exiting");
}

std::optional<std::string> read_token_file(const std::string& flag, const std::string& path) {
  std::string error;
  std::optional<std::string> token = read_flag_file(flag, path, error);
  if (!token) {
    std::cerr << error << '\n';
    return std::nullopt;
  }
  while (!token->empty() && std::isspace(static_cast<unsigned char>(token->back()))) token->pop_back();
  if (token->empty()) {
    std::cerr << flag << ": the file holds no token\n";
    return std::nullopt;
  }
  return token;
}

namespace {

// The store location the flags name; "" for none.
std::optional<std::string> location(const StoreFlags& flags) {
  if (flags.store) return *flags.store;
  if (!flags.data_dir) return "";
  std::error_code error;
  std::filesystem::create_directories(*flags.data_dir, error);
  if (error) {
    std::cerr << "--data: cannot create " << *flags.data_dir << ": " << error.message() << '\n';
    return std::nullopt;
  }
  return "sqlite:" + (std::filesystem::path(*flags.data_dir) / "edits.db").string();
}

}  // namespace

namespace {

// The player-token flags into options.player_tokens; false after printing why.
bool apply_token_flags(const StoreFlags& flags, ServerOptions& options) {
  options.player_edits_per_second = flags.player_edits_per_second;
  if (!flags.player_key_file) {
    if (flags.token_issuer || flags.token_audience) {
      std::cerr << "--token-issuer, --token-audience: they need --player-key-file\n";
      return false;
    }
    return true;
  }
  std::string error;
  const std::optional<std::string> pem = read_flag_file("--player-key-file", *flags.player_key_file, error);
  if (!pem) {
    std::cerr << error << '\n';
    return false;
  }
  if (pem->find("-----BEGIN PUBLIC KEY-----") == std::string::npos) {
    std::cerr << "--player-key-file: " << *flags.player_key_file
              << " holds no PEM public key (\"-----BEGIN PUBLIC KEY-----\"; give the public half only)\n";
    return false;
  }
  if (!flags.token_issuer || flags.token_issuer->empty() || !flags.token_audience || flags.token_audience->empty()) {
    std::cerr << "--player-key-file: needs --token-issuer and --token-audience (what every token must carry)\n";
    return false;
  }
  if (flags.token_audience->find_first_of("\"\\") != std::string::npos) {
    std::cerr << "--token-audience: must hold no quote or backslash\n";
    return false;
  }
  options.player_tokens = std::make_shared<PlayerTokens>(TokenRules{*pem, *flags.token_issuer, *flags.token_audience});
  return true;
}

}  // namespace

std::optional<int> apply_store_flags(const StoreFlags& flags, const World& world, ServerOptions& options) {
  if (!apply_token_flags(flags, options)) return 2;
  if (flags.write_token_file) {
    const std::optional<std::string> token = read_token_file("--write-token-file", *flags.write_token_file);
    if (!token) return 2;
    options.write_token = *token;
  }
  options.open_edits = flags.open_edits;
  const std::optional<std::string> where = location(flags);
  if (!where) return 2;
  if (where->empty()) return std::nullopt;
  try {
    options.store = open_store(*where);
  } catch (const StoreError& e) {
    if (flags.optional) {  // the operator chose the generated world over no world
      spdlog::error(
          "edit store: {}; serving the generated world WITHOUT edits (--store-optional): edits are "
          "refused and edited chunks are served as generated until a restart opens the store",
          e.what());
      options.store_error = std::string("the edit store could not be opened at start-up (") + e.what() + ")";
      return std::nullopt;
    }
    std::cerr << (flags.data_dir ? "--data \"" + *flags.data_dir + "\": " : std::string()) << "edit store: " << e.what()
              << '\n';
    return flags.data_dir ? 2 : 1;
  }
  try {
    if (const std::string error = bind_store(*options.store, world, flags.rebind); !error.empty()) {
      std::cerr << error << '\n';
      return 2;
    }
    EpochsLoad epochs = load_epochs(*options.store, world);
    if (!epochs.error.empty()) {
      std::cerr << "edit store " << options.store->describe() << ": " << epochs.error << '\n';
      return 2;
    }
    options.epochs = std::move(epochs.epochs);
  } catch (const StoreError& e) {
    std::cerr << "edit store: " << e.what() << '\n';
    return 1;
  }
  return std::nullopt;  // who may edit is said by the start-up summary (start_up_summary.h)
}

}  // namespace chunkforge::server
