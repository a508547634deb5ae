// File: server/map/map_assets.h
//
// The page's files, compiled into the binary at build time (cmake/EmbedFiles.cmake writes
// map_assets.cc): server/map/web/ (index.html, map.js, map.css) and Debian's Leaflet
// (/usr/share/javascript/leaflet: leaflet.js, leaflet.css, images/) under "leaflet/". The page
// then works with no internet and no files beside the binary.
//
//   if (const Asset* a = find_asset("leaflet/leaflet.js")) send(a->content_type, a->bytes);
//
// Immutable; thread-safe.
#pragma once

#include <string_view>

namespace chunkforge::map {

struct Asset {
  std::string_view content_type;
  std::string_view bytes;
};

// The file at `name` (relative to /map/), or null.
const Asset* find_asset(std::string_view name);

}  // namespace chunkforge::map
