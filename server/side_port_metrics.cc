// The side port's metrics: HTTP responses by route class and code, and the map's tiles.
#include "side_port_metrics.h"

namespace chunkforge::server {

void render_side_port(MetricsPage& page, const HttpCounts& counts, const map::MapService* map, size_t map_cache_limit) {
  page.header("http_responses_total", "counter",
              "Responses of the HTTP side port, by route class (healthz, metrics, tiles, api, map, other) and status "
              "code.");
  counts.for_each([&](std::string_view route, unsigned code, uint64_t n) {
    page.out << "chunkforge_http_responses_total{route=\"" << route << "\",code=\"" << code << "\"} " << n << '\n';
  });
  if (map == nullptr) return;
  const map::MapTileStats tiles = map->tile_stats();
  page.single("map_tiles_not_modified_total", "counter", "Map tiles answered 304: the viewer's copy is current.",
              tiles.not_modified);
  page.single("map_tile_cache_hits_total", "counter", "Map tiles served from the tile cache.", tiles.cache_hits);
  page.single("map_tiles_rendered_total", "counter", "Map tiles rendered (not in the cache).", tiles.rendered);
  page.single("map_tile_cache_bytes", "gauge", "Bytes of encoded tiles in the map's cache.", map->cache().bytes());
  page.single("map_tile_cache_limit_bytes", "gauge", "The most map_tile_cache_bytes may reach (--map-cache-mb).",
              map_cache_limit);
}

}  // namespace chunkforge::server
