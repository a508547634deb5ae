// File: server/map/tile_cache.h
//
// Encoded tiles by ETag, least recently used evicted first, bounded in bytes (the PNG bytes
// plus the key and a fixed overhead per entry).
//
//   TileCache cache(64 << 20);
//   if (auto png = cache.find(etag)) return *png;
//   cache.insert(etag, std::make_shared<const std::string>(render()));
//
// Thread safety: every method locks; any thread.
#pragma once

#include <cstddef>
#include <string>

#include "byte_bounded_lru.h"

namespace chunkforge::map {

inline size_t png_bytes(const std::string& png) { return png.size(); }

using TileCache = ByteBoundedLru<std::string, &png_bytes>;

}  // namespace chunkforge::map
