// File: server/map/map_service.h
//
// The live map's routes, independent of the HTTP server that carries them: the page and its
// scripts (/map/, Leaflet embedded at build time), tiles (/tiles/{layer}/{z}/{x}/{y}.png),
// small JSON endpoints (/api/status, /api/point, /api/locate, /api/chunk, /api/edits, /api/players,
// /api/moderation/), and /api/view, where the page reports its centre so that the tiles nearest
// to it render first (TilePool). chunkforge-server mounts it on its --http port; `chunkforge
// map` on a port of its own, swapping worlds as the file changes.
//
//   MapService map({.threads = 2});
//   map.set_world(world, "built-in world");
//   endpoint handler: if (!map.handle(request, reply, cancelled)) answer_404();
//
// The routes are one table, routes(), which the dispatcher matches and server/entry_points.cc
// documents with their bounds.
//
// handle() never blocks: tiles, structure searches, chunks and edit-index scans run on the
// service's TilePool (at most `threads` at once, `max_queued` waiting; more get 503 with
// Retry-After), and `reply` is called from there. Work whose `cancelled` flag rises (the browser
// moved on, the server stops) gives up: a waiting job is dropped, a render or a structure
// search abandons. Structure searches are bounded in radius (max_locate_radius, the gRPC
// Locate bound) and in number at once (max_locates, queued or running; more get 503).
// Tiles carry an ETag (world fingerprint, layer, tile, renderer version) and answer a
// matching If-None-Match with 304; encoded tiles are kept in a TileCache of `cache_bytes`.
// With an auth token every route needs it: "Authorization: Bearer <token>", or the cookie
// that /map/?token=<token> sets.
//
// Thread safety: every method from any thread. Destroy it after the endpoint that calls it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/epochs.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/world.h"
#include "tile_cache.h"
#include "tile_chunks.h"
#include "tile_pool.h"

namespace chunkforge::map {

struct MapRequest {
  std::string target;  // path and query, as sent
  std::string if_none_match, cookie, authorization;
  std::string moderator;  // the X-Chunkforge-Moderator header: a moderator's credential
  std::string peer;       // the client's address
};

struct MapReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type
};

using MapReplyFn = std::function<void(MapReply)>;

// An edited chunk for the edits overlay: its coordinates and current edit version (> 0).
struct EditedChunk {
  int64_t x = 0, z = 0;
  uint64_t version = 0;
};
// Edited chunks with x0 <= x <= x1 and z0 <= z <= z1 (chunk coordinates), at most `limit`.
using EditedChunksFn =
    std::function<std::vector<EditedChunk>(int64_t x0, int64_t z0, int64_t x1, int64_t z1, size_t limit)>;

// A live player for the players overlay: a session number and its latest position (world units).
struct PlayerMarker {
  uint64_t id = 0;
  double x = 0, z = 0;
};
using PlayersFn = std::function<std::vector<PlayerMarker>()>;

// A chunk as the server serves it now: `base` (as generated) with the chunk's committed edits
// applied (edit_version and object_states set); `base` itself when nobody edited it.
using CurrentChunkFn = std::function<v1::Chunk(ChunkCoord coord, v1::Chunk base)>;

// The moderators' view (chunkforge-server with an edit store): /api/moderation/log?q=<JSON>
// answers an EditLogRequest, /api/moderation/rollback-preview?q=<JSON> a RollbackRequest's
// preview, both in protobuf JSON (edit.proto), for the moderator whose credential (a
// moderator's player token, or the write token) the X-Chunkforge-Moderator header carries.
enum class ModerationQuery { kLog, kRollbackPreview };
struct ModerationCall {
  ModerationQuery query;
  std::string request_json, credential, peer;
};
// Told the HTTP status and the JSON body ({"error": "..."} when the status is not 200).
using ModerationReplyFn = std::function<void(int status, std::string body)>;
using ModerationFn = std::function<void(ModerationCall call, ModerationReplyFn reply,
                                        std::shared_ptr<const std::atomic<bool>> cancelled)>;

// The largest /api/locate radius unless MapOptions says otherwise: gRPC Locate's default bound
// (Limits::max_locate_radius; world_server.cc checks that they agree and passes the server's).
inline constexpr double kDefaultMaxLocateRadius = 4096;

// The map's routes: what the dispatcher matches, in order (the first that fits serves).
enum class MapRoute {
  kPageRedirect,
  kPage,
  kAsset,
  kTile,
  kStatus,
  kPoint,
  kLocate,
  kChunk,
  kEdits,
  kPlayers,
  kView,
  kModerationLog,
  kRollbackPreview,
};
struct MapRouteEntry {
  std::string_view name;   // as documented: "/tiles/{layer}/{z}/{x}/{y}.png"
  std::string_view match;  // the path, or its start when `prefix`
  bool prefix;
  MapRoute route;
};
std::span<const MapRouteEntry> routes();
// The route serving `path` (no query), or nothing.
std::optional<MapRoute> find_route(std::string_view path);

struct MapOptions {
  int threads = 2;                                     // renders at once
  size_t max_queued = 256;                             // jobs waiting (renders, searches, chunks, edit scans)
  double max_locate_radius = kDefaultMaxLocateRadius;  // /api/locate radius, world units
  int max_locates = 2;                                 // structure searches queued or running at once
  size_t cache_bytes = 64u << 20;                      // encoded tiles kept
  size_t chunk_bytes = 16u << 20;                      // generated chunks' objects kept for the objects tiles
  std::string auth_token;                              // "": open
  bool watching = false;                               // the page polls /api/status for a changed world
  bool publish_seed = true;                            // /api/status shows the seed (--publish-seed; else null)
  // The server's edit index (chunkforge-server with a store): /api/edits and the page's edits
  // overlay. Unset (no store, or `chunkforge map`): neither.
  EditedChunksFn edited_chunks;
  // The live sessions' positions (chunkforge-server --map-players): /api/players and the page's
  // players overlay. Unset (the default): neither, so positions are never exposed.
  PlayersFn players;
  // The server's edits (chunkforge-server with a store): /api/chunk shows chunks as edited.
  // Unset: as generated.
  CurrentChunkFn current_chunk;
  // Moderation (chunkforge-server with an edit store): the /api/moderation/ routes and the
  // page's moderation panel. Unset: neither.
  ModerationFn moderation;
};

// Tiles served since start, for /metrics: answered 304 (the viewer's ETag matched), from the
// cache, and rendered (every finished render, whether or not its viewer is still there).
struct MapTileStats {
  uint64_t not_modified = 0, cache_hits = 0, rendered = 0;
};

class MapService {
 public:
  explicit MapService(MapOptions options);
  ~MapService();

  // Shows `world` from now on (clearing any errors); `source` names it on the page. `epochs`:
  // its epochs when it changed after launch (the newest is `world`), drawn by the base layers
  // and the epochs overlay.
  void set_world(const World& world, std::string source, std::shared_ptr<const Epochs> epochs = nullptr);
  // The world file is broken: the page lists `errors`; the last good world stays shown.
  void set_errors(std::vector<std::string> errors);

  // False when `request.target` is none of the map's routes.
  bool handle(const MapRequest& request, MapReplyFn reply, const std::shared_ptr<const std::atomic<bool>>& cancelled);

  const TileCache& cache() const { return cache_; }
  MapTileStats tile_stats() const { return {tiles_not_modified_, tile_cache_hits_, tiles_rendered_}; }

 private:
  struct State {
    std::shared_ptr<const World> world;
    std::shared_ptr<const Epochs> epochs;
    std::string source;
    std::vector<std::string> errors;
  };
  State state() const;
  using Cancelled = std::shared_ptr<const std::atomic<bool>>;
  bool authorised(const MapRequest& request, const std::string& query) const;
  void dispatch(MapRoute route, const MapRequest& request, const std::string& path, const std::string& query,
                MapReplyFn reply, const Cancelled& cancelled);
  void serve_page(const std::string& query, const MapReplyFn& reply) const;
  void serve_tile(const MapRequest& request, const std::string& path, MapReplyFn reply, const Cancelled& cancelled);
  void serve_locate(const std::string& query, MapReplyFn reply, const Cancelled& cancelled);
  void serve_view(const std::string& query, const MapReplyFn& reply);
  void serve_moderation(MapRoute route, const MapRequest& request, const std::string& query, MapReplyFn reply,
                        const Cancelled& cancelled);
  // Runs `work` on the pool and replies with its answer: 503 when the queue is full, when the
  // client left first, or when the work gives up (GenerationAbandoned).
  void on_pool(MapReplyFn reply, const Cancelled& cancelled, std::function<MapReply()> work,
               std::optional<TilePlace> place = std::nullopt);

  const MapOptions options_;
  std::atomic<int> locates_{0};  // structure searches queued or running
  std::atomic<uint64_t> tiles_not_modified_{0}, tile_cache_hits_{0}, tiles_rendered_{0};
  mutable std::mutex mutex_;
  State state_;
  TileCache cache_;
  TileChunks chunks_;  // shared by the objects tiles' renders
  TilePool pool_;      // last: its workers stop before what their jobs use goes
};

// What the page may show beside the world (/api/status): each true when the server offers it.
struct MapFeatures {
  bool watching = false, edits = false, players = false, moderation = false, publish_seed = true;
  bool epochs = false;  // the world changed after launch: the epochs overlay is listed
};

// The JSON bodies (map_api.cc): the world and layers; the terrain at a point; the nearest
// structures of a type. Each returns {status, body}: 400 with a reason for bad parameters.
std::string status_json(const World& world, const std::string& source, const std::vector<std::string>& errors,
                        const MapFeatures& features);
std::pair<int, std::string> point_json(const World& world, const std::string& query);
// Radius at most `max_radius`; throws GenerationAbandoned once `abandon` reads true.
std::pair<int, std::string> locate_json(const World& world, const std::string& query, double max_radius,
                                        const std::atomic<bool>* abandon);
// The edited chunks under a view given in world units (x0, z0, x1, z1), as map_edits.cc says.
std::pair<int, std::string> edits_json(const World& world, const std::string& query, const EditedChunksFn& edited);
// The chunk (cx, cz) with its objects and structures, as `current` makes it (map_chunk.cc).
// Throws GenerationAbandoned once `abandon` reads true.
std::pair<int, std::string> chunk_json(const World& world, const std::string& query, const CurrentChunkFn& current,
                                       const std::atomic<bool>* abandon);
// The players' positions: {"players":[{"id":1,"x":10.5,"z":-3}]} (map_players.cc).
std::string players_json(const std::vector<PlayerMarker>& players);

// `text` as a JSON string, quotes included: quotes and backslashes escaped, control characters
// as \u00XX.
std::string json_quoted(const std::string& text);

// The value of `name` in a URL query ("a=1&b=2"), percent-decoded; "" when absent.
std::string query_value(const std::string& query, const std::string& name);

}  // namespace chunkforge::map
