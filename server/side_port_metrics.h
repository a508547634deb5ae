// File: server/side_port_metrics.h
//
// The HTTP side port's part of /metrics: responses by route class and status code
// (http/http_counts.h), and the live map's tiles: answered 304, served from the tile cache,
// rendered, and the cache's bytes against its limit. Here, at the top, because the http/ and
// map/ folders do not link metrics/ (`chunkforge map` uses them without the gRPC server).
#pragma once

#include <cstddef>

#include "http/http_counts.h"
#include "map_service.h"
#include "metrics/metrics_page.h"

namespace chunkforge::server {

// `map`: null when the map is off (then no tile metrics); `map_cache_limit`: --map-cache-mb in
// bytes.
void render_side_port(MetricsPage& page, const HttpCounts& counts, const map::MapService* map, size_t map_cache_limit);

}  // namespace chunkforge::server
