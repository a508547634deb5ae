// MapService: routing, the token check, and tiles (ETag, cache, render on the pool).
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
    if (c == ';') as_query += '&';
    else if (c != ' ') as_query += c;
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

MapService::MapService(MapOptions options)
    : options_(std::move(options)),
      cache_(options_.cache_bytes),
      chunks_(options_.chunk_bytes),
      pool_(options_.threads, options_.max_queued) {}

MapService::~MapService() = default;

void MapService::set_world(const World& world, std::string source) {
  auto shared = std::make_shared<const World>(world);
  std::lock_guard lock(mutex_);
  if (state_.world && state_.world->fingerprint() != world.fingerprint()) cache_.clear();
  state_ = State{std::move(shared), std::move(source), {}};
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
  if (request.authorization.rfind("Bearer ", 0) == 0 && same_secret(request.authorization.substr(7), token)) return true;
  const std::string from_query = query_value(query, "token");
  if (!from_query.empty() && same_secret(from_query, token)) return true;
  const std::string from_cookie = cookie_value(request.cookie, kCookie);
  return !from_cookie.empty() && same_secret(from_cookie, token);
}

bool MapService::handle(const MapRequest& request, MapReplyFn reply, std::shared_ptr<const std::atomic<bool>> cancelled) {
  const size_t mark = request.target.find('?');
  const std::string path = request.target.substr(0, mark);
  const std::string query = mark == std::string::npos ? "" : request.target.substr(mark + 1);
  const bool tiles = path.rfind("/tiles/", 0) == 0, api = path.rfind("/api/", 0) == 0;
  if (path != "/map" && path.rfind("/map/", 0) != 0 && !tiles && !api) return false;
  if (!authorised(request, query)) {
    reply(text(401, "the map needs the server's token: open /map/?token=TOKEN once (it sets a cookie), or send "
                    "\"Authorization: Bearer TOKEN\"\n"));
    return true;
  }
  const State now = state();
  if (path == "/map") {
    reply(MapReply{301, "text/plain", "see /map/\n", {{"Location", "/map/"}}});
  } else if (path == "/map/") {
    serve_page(query, reply);
  } else if (path.rfind("/map/", 0) == 0) {
    const Asset* asset = find_asset(path.substr(5));
    if (asset == nullptr) return reply(text(404, "no such file: " + path.substr(0, 80) + "\n")), true;
    reply(MapReply{200, std::string(asset->content_type), std::string(asset->bytes), {{"Cache-Control", "no-cache"}}});
  } else if (!now.world) {
    reply(text(503, "no world loaded yet\n"));
  } else if (tiles) {
    serve_tile(request, path, std::move(reply), std::move(cancelled));
  } else if (path == "/api/status") {
    reply(json(200, status_json(*now.world, now.source, now.errors, options_.watching, bool(options_.edited_chunks),
                               bool(options_.players))));
  } else if (path == "/api/point") {
    auto [status, body] = point_json(*now.world, query);  // microseconds: answered here
    reply(json(status, std::move(body)));
  } else if (path == "/api/locate") {
    serve_locate(query, std::move(reply));
  } else if (path == "/api/chunk") {
    serve_chunk(query, std::move(reply), std::move(cancelled));
  } else if (path == "/api/edits" && options_.edited_chunks) {
    auto [status, body] = edits_json(*now.world, query, options_.edited_chunks);  // an index scan: here
    reply(json(status, std::move(body)));
  } else if (path == "/api/players" && options_.players) {
    reply(json(200, players_json(options_.players())));
  } else if (path == "/api/view") {
    serve_view(query, reply);
  } else {
    reply(text(404, "not found: the map serves /map/, /tiles/, /api/status, /api/point, /api/locate, /api/chunk and "
                    "/api/view\n"));
  }
  return true;
}

void MapService::serve_page(const std::string& query, const MapReplyFn& reply) const {
  const Asset* page = find_asset("index.html");
  MapReply out{200, std::string(page->content_type), std::string(page->bytes), {{"Cache-Control", "no-cache"}}};
  // The token once in the address: kept as a cookie for the page's own requests (tiles, API).
  const std::string token = query_value(query, "token");
  if (!token.empty()) {
    out.headers.push_back({"Set-Cookie", std::string(kCookie) + "=" + percent_encoded(token) +
                                             "; Path=/; HttpOnly; SameSite=Strict"});
  }
  reply(std::move(out));
}

void MapService::serve_tile(const MapRequest& request, const std::string& path, MapReplyFn reply,
                            std::shared_ptr<const std::atomic<bool>> cancelled) {
  const std::shared_ptr<const World> world = state().world;
  std::vector<std::string> resources;
  for (const ResourceLayer& r : world->resources().all()) resources.push_back(r.name);
  auto parsed = parse_tile_path(path, resources);
  if (auto* reason = std::get_if<std::string>(&parsed)) return reply(text(400, *reason + "\n"));
  const TileKey key = std::get<TileKey>(parsed);
  const std::string etag = tile_etag(world->fingerprint(), key);
  const std::vector<std::pair<std::string, std::string>> headers = {{"ETag", etag}, {"Cache-Control", "no-cache"}};
  if (request.if_none_match == etag) return reply(MapReply{304, "image/png", "", headers});
  if (auto png = cache_.find(etag)) return reply(MapReply{200, "image/png", *png, headers});
  auto once = std::make_shared<ReplyOnce>(std::move(reply));
  const double half = static_cast<double>(key.span()) / 2;
  const TilePlace centre{static_cast<double>(key.world_x0()) + half, static_cast<double>(key.world_z0()) + half};
  const bool queued = pool_.submit([this, world, key, etag, headers, once, cancelled] {
    if (cancelled->load()) return (*once)(text(503, "cancelled\n"));
    try {
      auto png = std::make_shared<const std::string>(render_tile(*world, key, cancelled.get(), &chunks_).png());
      cache_.insert(etag, png);
      (*once)(MapReply{200, "image/png", *png, headers});
    } catch (const GenerationAbandoned&) {
      (*once)(text(503, "cancelled\n"));
    }
  }, centre);
  if (!queued) (*once)(MapReply{503, "text/plain", "busy: too many tiles waiting\n", {{"Retry-After", "1"}}});
}

// The page's centre in world units, sent as it moves: waiting tiles nearest to it render first.
// One focus for the server: with several viewers, the one that moved last is served first.
void MapService::serve_view(const std::string& query, const MapReplyFn& reply) {
  const std::optional<double> x = finite_number(query_value(query, "x")), z = finite_number(query_value(query, "z"));
  if (!x || !z) return reply(text(400, "x and z must be finite numbers\n"));
  pool_.set_focus(TilePlace{*x, *z});
  reply(json(200, "{}"));
}

void MapService::serve_locate(const std::string& query, MapReplyFn reply) {
  const std::shared_ptr<const World> world = state().world;
  auto once = std::make_shared<ReplyOnce>(std::move(reply));
  const bool queued = pool_.submit([world, query, once] {
    auto [status, body] = locate_json(*world, query);
    (*once)(json(status, std::move(body)));
  });
  if (!queued) (*once)(MapReply{503, "text/plain", "busy: too many requests waiting\n", {{"Retry-After", "1"}}});
}

// One chunk generated (milliseconds) on the pool, given up when the browser goes.
void MapService::serve_chunk(const std::string& query, MapReplyFn reply, std::shared_ptr<const std::atomic<bool>> cancelled) {
  const std::shared_ptr<const World> world = state().world;
  auto once = std::make_shared<ReplyOnce>(std::move(reply));
  const bool queued = pool_.submit([this, world, query, once, cancelled] {
    try {
      auto [status, body] = chunk_json(*world, query, options_.current_chunk, cancelled.get());
      (*once)(json(status, std::move(body)));
    } catch (const GenerationAbandoned&) {
      (*once)(text(503, "cancelled\n"));
    }
  });
  if (!queued) (*once)(MapReply{503, "text/plain", "busy: too many requests waiting\n", {{"Retry-After", "1"}}});
}

}  // namespace chunkforge::map
