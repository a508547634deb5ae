// The bounds of every entry point, written by reading the handlers (locate.cc, session.cc, ...,
// http_endpoint.cc, map/map_service.cc). The names come from the code (the service descriptor
// and map::routes()); only the text is written here.
#include "entry_points.h"

#include <google/protobuf/descriptor.h>

#include <map>
#include <string_view>

#include "chunkforge/v1/service.grpc.pb.h"
#include "map_service.h"

namespace chunkforge::server {
namespace {

const std::map<std::string_view, std::string_view> kRpcBounds = {
    {"GetWorldInfo",
     "one flag in (include_definition); both answers, the description and the resolved definition "
     "(--client-generation), are serialized once at start-up: no work per call"},
    {"GetChunk",
     "one chunk; x, z within +-2^40 units; at most 65536 terrain samples; generated on the queue "
     "(8192 jobs, then RESOURCE_EXHAUSTED), dropped when the caller cancels"},
    {"StreamRegion",
     "radius <= --max-radius (16): at most 1089 chunks; --max-streams (256) at once; the queue's "
     "bound; reset after 30 s unread"},
    {"Session",
     "view radius <= --max-radius (16); held <= 1089 chunks per update; one update read per 10 ms (with a LOD "
     "radius 50 ms; a client that generates: 20,000 view chunks a second); 8 edited logs read at once for it; "
     "--max-sessions (1000) at once; 8 chunks under way; 8(r+1) prefetches, none after a jump; 4096 "
     "owed unloads; LOD radius <= --max-lod-radius (1024), 4 tiles under way, 512 tile unloads held back; "
     "reset after 30 s unread"},
    {"Locate",
     "radius <= 4096 units (about 0.1 s of planning); limit <= 10000; 2 x --threads at once, then "
     "RESOURCE_EXHAUSTED; after every view and prefetch; abandoned when its client leaves"},
    {"Edit",
     "<= 256 operations on <= 64 chunks; request <= 128 KiB, id <= 128 bytes; a removed structure's box "
     "<= 1024 chunks; 16 under way per connection (per player for a player's token), 512 (16 MiB) in all; per chunk "
     "4096 added objects, "
     "256 KiB of state; the write token or a player's token (or --open-edits), a player <= "
     "--player-edits-per-second (20, bursts of 40); only with an edit store"},
    {"GetChunkEdits",
     "<= (2 --max-radius + 1)^2 chunks listed (1089) and a region of radius <= --max-radius, each within +-2^40 "
     "units; a version lookup each; the edited "
     "chunks' logs read on the queue (its bound), 8 a job, one job at a time, <= 512 KiB of changes answered (the rest "
     "named, unread), those 512 KiB charged to the output budget from the start; abandoned when its client leaves; "
     "nothing generated"},
    {"EditLog",
     "a moderator's token or the write token; limit <= 10000 entries and <= 3 MiB answered; an object only within "
     "<= 64 chunks; one moderation job at a time on the queue (8 waiting, then RESOURCE_EXHAUSTED); not run once "
     "its client left"},
    {"Rollback",
     "a moderator's token or the write token; <= 10000 chunks with matching changes (then RESOURCE_EXHAUSTED); "
     "applied 64 chunks a transaction; one moderation job at a time on the queue (8 waiting); conflicts listed "
     "<= 1000, versions <= 10000; stops before its next group of 64 chunks when its client leaves or the server "
     "stops (CANCELLED; the groups done stay; retry-safe by request id)"},
};

// The side port's own routes, answered on its I/O thread even when every general slot is taken.
const std::vector<EntryPoint> kSidePortRoutes = {
    {"GET /healthz", "no input; answered at once from the health reserve (8 connections beyond 64)"},
    {"GET /metrics", "no input; the Prometheus page, a few KiB, answered at once from the health reserve"},
};

const std::map<map::MapRoute, std::string_view> kMapBounds = {
    {map::MapRoute::kPageRedirect, "no work: a redirect to /map/"},
    {map::MapRoute::kPage, "no work: the page, compiled in"},
    {map::MapRoute::kAsset, "no work: a compiled-in file, or 404"},
    {map::MapRoute::kTile,
     "zoom in [-8, 4], x, z within +-2^40, known layers; one 256 x 256 render on the map pool "
     "(--threads up to 4, 256 waiting, then 503); abandoned when its client goes"},
    {map::MapRoute::kStatus, "no input; the world's layers and structure names"},
    {map::MapRoute::kPoint, "one terrain sample, x, z within +-2^40; microseconds on the I/O thread"},
    {map::MapRoute::kLocate,
     "radius <= gRPC Locate's bound (4096 units); 20 results; 2 searches at once, then "
     "503; on the map pool, abandoned when its client goes"},
    {map::MapRoute::kChunk,
     "one chunk, cx, cz within the world; generated on the map pool, abandoned when its "
     "client goes"},
    {map::MapRoute::kEdits, "only with an edit store; <= 4096 chunks per answer; the index scan on the map pool"},
    {map::MapRoute::kPlayers, "only with --map-players; one position per session (<= --max-sessions)"},
    {map::MapRoute::kView, "two numbers; no work (orders the waiting tiles)"},
    {map::MapRoute::kModerationLog,
     "only with an edit store and a moderator's token; EditLog's checks and lane (8 waiting), "
     "<= 1,000 entries and 3 MiB"},
    {map::MapRoute::kRollbackPreview,
     "only with an edit store and a moderator's token; Rollback's checks and lane (8 waiting), "
     "a preview: <= 10,000 chunks, nothing written, stopped before its next group of 64 chunks when its client "
     "leaves"},
};

template <typename Table, typename Key>
std::string bounds_of(const Table& table, const Key& key) {
  const auto found = table.find(key);
  return found == table.end() ? "" : std::string(found->second);
}

}  // namespace

std::vector<EntryPoint> entry_points() {
  std::vector<EntryPoint> out;
  // Through a message of the same file: that links in the file, which registers the service.
  const google::protobuf::ServiceDescriptor* service =
      v1::GetWorldInfoRequest::descriptor()->file()->FindServiceByName("WorldService");
  for (int k = 0; k < service->method_count(); ++k) {
    const std::string name(service->method(k)->name());
    out.push_back({"WorldService." + name, bounds_of(kRpcBounds, std::string_view(name))});
  }
  out.insert(out.end(), kSidePortRoutes.begin(), kSidePortRoutes.end());
  for (const map::MapRouteEntry& route : map::routes()) {
    out.push_back({"GET " + std::string(route.name), bounds_of(kMapBounds, route.route)});
  }
  return out;
}

}  // namespace chunkforge::server
