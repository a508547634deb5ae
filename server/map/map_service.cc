// MapService: the route table and dispatch, the token check, tiles (ETag, cache, render on the
// pool), and the pool's other jobs (structure searches, chunks, edit scans), each bounded.
#include "map_service.h"

#include <cmath>
#include <cstdlib>
#include <optional>

#include "chunkforge/chunk.h"
#include "chunkforge/resource_layer.h"
#include "map_assets.h"
#include "tile_key.h"
#include "tile_renderer.h"

namespace chunkforge::map {
namespace {

constexpr char kCookie[] = "chunkforge_map_token";

MapReply text(int status, std::string body) {
  MapReply reply;
  reply.status = status;
  reply.body = std::move(body);
  return reply;
}

MapReply json(int status, std::string body) {
  MapReply reply{status, "application/json", std::move(body), {{"Cache-Control", "no-store"}}};
  return reply;
}

MapReply busy(std::string body) { return MapReply{503, "text/plain", std::move(body), {{"Retry-After", "1"}}}; }

MapReply not_found() {
  return text(404,
              "not found: the map serves /map/, /tiles/, /api/status, /api/point, /api/locate, /api/chunk and "
              "/api/view\n");
}

constexpr MapRouteEntry kRoutes[] = {
    {"/map", "/map", false, MapRoute::kPageRedirect},
    {"/map/", "/map/", false, MapRoute::kPage},
    {"/map/{file}", "/map/", true, MapRoute::kAsset},
    {"/tiles/{layer}/{z}/{x}/{y}.png", "/tiles/", true, MapRoute::kTile},
    {"/api/status", "/api/status", false, MapRoute::kStatus},
    {"/api/point", "/api/point", false, MapRoute::kPoint},
    {"/api/locate", "/api/locate", false, MapRoute::kLocate},
    {"/api/chunk", "/api/chunk", false, MapRoute::kChunk},
    {"/api/edits", "/api/edits", false, MapRoute::kEdits},
    {"/api/players", "/api/players", false, MapRoute::kPlayers},
    {"/api/view", "/api/view", false, MapRoute::kView},
    {"/api/moderation/log", "/api/moderation/log", false, MapRoute::kModerationLog},
    {"/api/moderation/rollback-preview", "/api/moderation/rollback-preview", false, MapRoute::kRollbackPreview},
};

// Compares without stopping at the first difference: the time taken says nothing of the token.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char differ = a.size() == b.size() ? 0 : 1;
  for (size_t k = 0; k < a.size(); ++k) differ |= static_cast<unsigned char>(a[k] ^ b[k % (b.empty() ? 1 : b.size())]);
  return differ == 0;
}

// The value of cookie `name` in a Cookie header ("a=1; b=2"), percent-decoded.
std::string cookie_value(const std::string& header, const std::string& name) {
  std::string as_query;
  for (char c : header) {
    if (c == ';')
      as_query += '&';
    else if (c != ' ')
      as_query += c;
  }
  return query_value(as_query, name);
}

std::string percent_encoded(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A whole decimal number ("12.5", "-3e4"), or nothing.
std::optional<double> finite_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Calls the reply at most once, whoever gets there first (the job, or a 503 for a full queue).
class ReplyOnce {
 public:
  explicit ReplyOnce(MapReplyFn reply) : reply_(std::move(reply)) {}
  void operator()(MapReply reply) {
    if (!done_.exchange(true)) reply_(std::move(reply));
  }

 private:
  MapReplyFn reply_;
  std::atomic<bool> done_{false};
};

}  // namespace

std::span<const MapRouteEntry> routes() { return kRoutes; }

std::optional<MapRoute> find_route(std::string_view path) {
  for (const MapRouteEntry& entry : kRoutes) {
    if (entry.prefix ? path.substr(0, entry.match.size()) == entry.match : path == entry.match) return entry.route;
  }
  return std::nullopt;
}

MapService::MapService(MapOptions options)
    : options_(std::move(options)),
      cache_(options_.cache_bytes),
      chunks_(options_.chunk_bytes),
      pool_(options_.threads, options_.max_queued) {}

MapService::~MapService() = default;

void MapService::set_world(const World& world, std::string source, std::shared_ptr<const Epochs> epochs) {
  auto shared = std::make_shared<const World>(world);
  std::lock_guard lock(mutex_);
  if (state_.world && state_.world->fingerprint() != world.fingerprint()) cache_.clear();
  state_ = State{std::move(shared), std::move(epochs), std::move(source), {}};
}

void MapService::set_errors(std::vector<std::string> errors) {
  std::lock_guard lock(mutex_);
  state_.errors = std::move(errors);
}

MapService::State MapService::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

bool MapService::authorised(const MapRequest& request, const std::string& query) const {
  const std::string& token = options_.auth_token;
  if (token.empty()) return true;
  if (request.authorization.rfind("Bearer ", 0) == 0 && same_secret(request.authorization.substr(7), token))
    return true;
  const std::string from_query = query_value(query, "token");
  if (!from_query.empty() && same_secret(from_query, token)) return true;
  const std::string from_cookie = cookie_value(request.cookie, kCookie);
  return !from_cookie.empty() && same_secret(from_cookie, token);
}

bool MapService::handle(const MapRequest& request, MapReplyFn reply, const Cancelled& cancelled) {
  const size_t mark = request.target.find('?');
  const std::string path = request.target.substr(0, mark);
  const std::string query = mark == std::string::npos ? "" : request.target.substr(mark + 1);
  const std::optional<MapRoute> route = find_route(path);
  if (!route && path.rfind("/api/", 0) != 0) return false;
  if (!authorised(request, query)) {
    reply(text(401,
               "the map needs the server's token: open /map/?token=TOKEN once (it sets a cookie), or send "
               "\"Authorization: Bearer TOKEN\"\n"));
    return true;
  }
  if (!route) return reply(not_found()), true;
  dispatch(*route, request, path, query, std::move(reply), cancelled);
  return true;
}

void MapService::dispatch(MapRoute route, const MapRequest& request, const std::string& path, const std::string& query,
                          MapReplyFn reply, const Cancelled& cancelled) {
  if (route == MapRoute::kPageRedirect) {
    return reply(MapReply{301, "text/plain", "see /map/\n", {{"Location", "/map/"}}});
  }
  if (route == MapRoute::kPage) return serve_page(query, reply);
  if (route == MapRoute::kAsset) {
    const Asset* asset = find_asset(path.substr(5));
    if (asset == nullptr) return reply(text(404, "no such file: " + path.substr(0, 80) + "\n"));
    return reply(
        MapReply{200, std::string(asset->content_type), std::string(asset->bytes), {{"Cache-Control", "no-cache"}}});
  }
  const State now = state();
  if (!now.world) return reply(text(503, "no world loaded yet\n"));
  const std::shared_ptr<const World> world = now.world;
  switch (route) {
    case MapRoute::kTile:
      return serve_tile(request, path, std::move(reply), cancelled);
    case MapRoute::kStatus:
      return reply(json(200, status_json(*world, now.source, now.errors,
                                         {options_.watching, bool(options_.edited_chunks), bool(options_.players),
                                          bool(options_.moderation), options_.publish_seed, now.epochs != nullptr})));
    case MapRoute::kPoint: {
      auto [status, body] = point_json(*world, query);  // microseconds: answered here
      return reply(json(status, std::move(body)));
    }
    case MapRoute::kLocate:
      return serve_locate(query, std::move(reply), cancelled);
    case MapRoute::kChunk:  // one chunk generated (milliseconds), given up when the browser goes
      return on_pool(std::move(reply), cancelled, [this, world, query, cancelled] {
        auto [status, body] = chunk_json(*world, query, options_.current_chunk, cancelled.get());
        return json(status, std::move(body));
      });
    case MapRoute::kEdits:  // an index scan: off the HTTP thread
      if (!options_.edited_chunks) return reply(not_found());
      return on_pool(std::move(reply), cancelled, [this, world, query] {
        auto [status, body] = edits_json(*world, query, options_.edited_chunks);
        return json(status, std::move(body));
      });
    case MapRoute::kPlayers:
      if (!options_.players) return reply(not_found());
      return reply(json(200, players_json(options_.players())));
    case MapRoute::kView:
      return serve_view(query, reply);
    case MapRoute::kModerationLog:
    case MapRoute::kRollbackPreview:
      return serve_moderation(route, request, query, std::move(reply), cancelled);
    default:
      return reply(not_found());
  }
}

void MapService::on_pool(MapReplyFn reply, const Cancelled& cancelled, std::function<MapReply()> work,
                         std::optional<TilePlace> place) {
  auto once = std::make_shared<ReplyOnce>(std::move(reply));
  const bool queued = pool_.submit(
      [once, cancelled, work = std::move(work)] {
        if (cancelled && cancelled->load()) return (*once)(text(503, "cancelled\n"));
        try {
          (*once)(work());
        } catch (const GenerationAbandoned&) {
          (*once)(text(503, "cancelled\n"));
        }
      },
      place, cancelled);
  if (!queued) (*once)(busy("busy: too many requests waiting\n"));
}

void MapService::serve_page(const std::string& query, const MapReplyFn& reply) const {
  const Asset* page = find_asset("index.html");
  MapReply out{200, std::string(page->content_type), std::string(page->bytes), {{"Cache-Control", "no-cache"}}};
  // The token once in the address: kept as a cookie for the page's own requests (tiles, API).
  const std::string token = query_value(query, "token");
  if (!token.empty()) {
    out.headers.push_back(
        {"Set-Cookie", std::string(kCookie) + "=" + percent_encoded(token) + "; Path=/; HttpOnly; SameSite=Strict"});
  }
  reply(std::move(out));
}

void MapService::serve_tile(const MapRequest& request, const std::string& path, MapReplyFn reply,
                            const Cancelled& cancelled) {
  const State now = state();
  const std::shared_ptr<const World> world = now.world;
  const std::shared_ptr<const Epochs> epochs = now.epochs;
  std::vector<std::string> resources;
  for (const ResourceLayer& r : world->resources().all()) resources.push_back(r.name);
  auto parsed = parse_tile_path(path, resources);
  if (auto* reason = std::get_if<std::string>(&parsed)) return reply(text(400, *reason + "\n"));
  const TileKey key = std::get<TileKey>(parsed);
  // The epochs' count in the tag: a store rebound to the same world without them draws otherwise.
  const std::string etag =
      tile_etag(world->fingerprint() + (epochs ? "-e" + std::to_string(epochs->newest() + 1) : ""), key);
  const std::vector<std::pair<std::string, std::string>> headers = {{"ETag", etag}, {"Cache-Control", "no-cache"}};
  if (request.if_none_match == etag) {
    ++tiles_not_modified_;
    return reply(MapReply{304, "image/png", "", headers});
  }
  if (auto png = cache_.find(etag)) {
    ++tile_cache_hits_;
    return reply(MapReply{200, "image/png", *png, headers});
  }
  const double half = static_cast<double>(key.span()) / 2;
  const TilePlace centre{static_cast<double>(key.world_x0()) + half, static_cast<double>(key.world_z0()) + half};
  on_pool(
      std::move(reply), cancelled,
      [this, world, epochs, key, etag, headers, cancelled] {
        auto png = std::make_shared<const std::string>(
            render_tile(*world, key, cancelled.get(), &chunks_, epochs.get()).png());
        ++tiles_rendered_;
        cache_.insert(etag, png);
        return MapReply{200, "image/png", *png, headers};
      },
      centre);
}

// The page's centre in world units, sent as it moves: waiting tiles nearest to it render first.
// One focus for the server: with several viewers, the one that moved last is served first.
void MapService::serve_view(const std::string& query, const MapReplyFn& reply) {
  const std::optional<double> x = finite_number(query_value(query, "x")), z = finite_number(query_value(query, "z"));
  if (!x || !z) return reply(text(400, "x and z must be finite numbers\n"));
  pool_.set_focus(TilePlace{*x, *z});
  reply(json(200, "{}"));
}

// Audit and rollback previews run where the RPCs run them (the server's moderation lane, with
// its bound), not on the map's pool.
void MapService::serve_moderation(MapRoute route, const MapRequest& request, const std::string& query, MapReplyFn reply,
                                  const Cancelled& cancelled) {
  if (!options_.moderation) return reply(not_found());
  if (request.moderator.empty()) {
    return reply(json(401,
                      "{\"error\":\"moderation needs a moderator's token (or the write token) in the "
                      "X-Chunkforge-Moderator header\"}"));
  }
  const ModerationQuery what =
      route == MapRoute::kModerationLog ? ModerationQuery::kLog : ModerationQuery::kRollbackPreview;
  options_.moderation(
      {what, query_value(query, "q"), request.moderator, request.peer},
      [reply = std::move(reply)](int status, std::string body) { reply(json(status, std::move(body))); }, cancelled);
}

// Planning a search costs up to a tenth of a second at the largest radius, on a pool thread:
// only max_locates at once, so that searches cannot crowd out the tiles.
void MapService::serve_locate(const std::string& query, MapReplyFn reply, const Cancelled& cancelled) {
  if (locates_.fetch_add(1) >= options_.max_locates) {
    --locates_;
    return reply(busy("busy: " + std::to_string(options_.max_locates) + " structure searches under way\n"));
  }
  // Given back when the job is destroyed: after it ran, or dropped unrun.
  auto slot = std::shared_ptr<std::atomic<int>>(&locates_, [](std::atomic<int>* count) { --*count; });
  const std::shared_ptr<const World> world = state().world;
  on_pool(std::move(reply), cancelled, [this, world, query, cancelled, slot] {
    auto [status, body] = locate_json(*world, query, options_.max_locate_radius, cancelled.get());
    return json(status, std::move(body));
  });
}

}  // namespace chunkforge::map
