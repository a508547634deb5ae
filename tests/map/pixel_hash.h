// A tile's golden hash: FNV-1a over its RGBA bytes. Pixels, not PNG bytes: those depend on the
// zlib version too. Shared by the map's tile tests.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "tile_image.h"

namespace chunkforge::map::test {

inline std::string pixel_hash(const TileImage& image) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const Rgba& p : image.pixels()) {
    for (uint8_t byte : {p.r, p.g, p.b, p.a}) h = (h ^ byte) * 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

}  // namespace chunkforge::map::test
