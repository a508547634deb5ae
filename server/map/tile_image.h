// File: server/map/tile_image.h
//
// A 256 x 256 RGBA tile, the drawing it needs (pixels, discs, rectangle outlines and fills)
// and its PNG encoding in memory (libpng): RGB for opaque base layers, RGBA for overlays.
//
//   TileImage image(/*opaque=*/true);
//   image.set(3, 4, {255, 0, 0, 255});
//   std::string png = image.png();
//
// Plain value; not shared between threads while drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkforge/catalog_colors.h"
#include "tile_key.h"

namespace chunkforge::map {

struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 0;
};

// A colour of chunkforge/catalog_colors.h (shared with `chunkforge render` and `lod`), opaque.
inline Rgba opaque(Rgb c) { return {c.r, c.g, c.b, 255}; }

// "#rrggbb" as an opaque colour; magenta when malformed (validation keeps that from happening).
Rgba color_of(const std::string& text);

class TileImage {
 public:
  explicit TileImage(bool opaque) : opaque_(opaque), pixels_(kTilePixels * kTilePixels) {}
  static constexpr int size() { return kTilePixels; }
  bool opaque() const { return opaque_; }
  void set(int x, int y, Rgba c) {
    if (x >= 0 && y >= 0 && x < kTilePixels && y < kTilePixels) pixels_[static_cast<size_t>(y) * kTilePixels + x] = c;
  }
  Rgba get(int x, int y) const { return pixels_[static_cast<size_t>(y) * kTilePixels + x]; }
  // The `size` x `size` square from (x, y), within the tile (the blocks of a zoomed-in tile).
  void fill(int x, int y, int size, Rgba c) {
    for (int row = y; row < y + size; ++row) {
      for (int col = x; col < x + size; ++col) pixels_[static_cast<size_t>(row) * kTilePixels + col] = c;
    }
  }
  // A filled disc, radius in pixels (at least the centre pixel).
  void disc(double cx, double cy, double radius, Rgba c);
  // A rectangle's border `thickness` pixels wide, and optionally its inside in `fill`.
  void rectangle(double x0, double y0, double x1, double y1, int thickness, Rgba border, std::optional<Rgba> fill);
  // The pixels as bytes (RGBA, rows top down): what golden hashes are taken of, since PNG bytes
  // also depend on the zlib version.
  const std::vector<Rgba>& pixels() const { return pixels_; }
  // The PNG file's bytes (deterministic for one libpng and zlib).
  std::string png() const;

 private:
  bool opaque_;
  std::vector<Rgba> pixels_;
};

}  // namespace chunkforge::map
