// The start-up summary (see start_up_summary.h).
#include "startup/start_up_summary.h"

#include <spdlog/fmt/fmt.h>

#include "chunkforge/quote.h"
#include "store/edit_store.h"

namespace chunkforge::server {
namespace {

std::string on_off(bool on) { return on ? "on" : "off"; }

// A world upgraded after launch (docs/world-definition.md, "Epochs"): which epoch this is.
std::string epochs_note(const ServerOptions& options) {
  if (!options.epochs) return "";
  return fmt::format(", the newest epoch of {}, {} chunks seen", options.epochs->newest() + 1,
                     options.epochs->seen().chunks_seen());
}

StartUpLine world_line(const World& world, const ServerOptions& options, int port, int http_port) {
  return {
      false,
      fmt::format("chunkforge-server: world {} (seed {}, generator {}, fingerprint {}{}) on port {} (http {}){}{}",
                  quote_input(world.definition().name()), world.seed(), world.generator_version(), world.fingerprint(),
                  epochs_note(options), port, http_port, options.tls_cert_pem.empty() ? "" : ", TLS",
                  options.auth_token.empty() ? "" : ", token required")};
}

StartUpLine edits_line(const ServerOptions& options) {
  if (!options.store) {
    if (!options.store_error.empty()) return {true, "edits: none (" + options.store_error + "; --store-optional)"};
    return {false, "edits: none (no --data or --store): the generated world, every Edit refused"};
  }
  const std::string store = "edits: kept in " + options.store->describe() + "; ";
  if (options.open_edits) {
    return {true, store + "ANYONE who may read may edit (--open-edits): for local development only"};
  }
  const std::string players = options.player_tokens ? "players with signed tokens" : "";
  if (options.write_token.empty()) {
    if (!players.empty()) return {false, store + players + " may edit (no write token)"};
    return {true, store + "nobody may edit (no --write-token-file or --player-key-file)"};
  }
  return {false, store + (players.empty() ? "" : players + " and ") + "clients with the write token may edit"};
}

StartUpLine map_line(const ServerOptions& options, int http_port) {
  if (!options.map || http_port == 0) return {false, "map: off"};
  return {false, fmt::format("map: /map/ on the http port, players' positions {}, seed {}, tile cache {} MiB{}",
                             options.map_players ? "shown" : "hidden", options.publish_seed ? "shown" : "hidden",
                             options.map_cache_mb, options.auth_token.empty() ? "" : ", token required")};
}

StartUpLine limits_line(const ServerOptions& options) {
  const Limits& l = options.limits;
  return {false,
          fmt::format("limits: threads {} (generation nice +{}), cache {} MiB, output {} MiB ({} a "
                      "connection), sessions {}, region streams {}, view radius {}, LOD radius {}, "
                      "look-ahead {}, client generation {}",
                      options.threads, options.generation_nice, options.cache_mb, options.output.total_bytes >> 20,
                      options.output.connection_bytes >> 20, l.max_sessions, l.max_streams, l.max_radius,
                      l.max_lod_radius, on_off(l.look_ahead), on_off(options.client_generation))};
}

}  // namespace

std::vector<StartUpLine> start_up_summary(const World& world, const ServerOptions& options, int port, int http_port) {
  return {world_line(world, options, port, http_port), edits_line(options), map_line(options, http_port),
          limits_line(options)};
}

}  // namespace chunkforge::server
