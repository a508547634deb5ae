// TileImage: drawing on a tile and encoding it as PNG into memory.
#include "tile_image.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace chunkforge::map {

Rgba color_of(const std::string& text) { return opaque(catalog_color(text)); }

void TileImage::disc(double cx, double cy, double radius, Rgba c) {
  const int x0 = std::max(0, static_cast<int>(std::floor(cx - radius)));
  const int x1 = std::min(kTilePixels - 1, static_cast<int>(std::ceil(cx + radius)));
  const int y0 = std::max(0, static_cast<int>(std::floor(cy - radius)));
  const int y1 = std::min(kTilePixels - 1, static_cast<int>(std::ceil(cy + radius)));
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x <= x1; ++x) {
      const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      if (dx * dx + dy * dy <= radius * radius) set(x, y, c);
    }
  }
  if (cx >= 0 && cy >= 0 && cx < kTilePixels && cy < kTilePixels) set(static_cast<int>(cx), static_cast<int>(cy), c);
}

void TileImage::rectangle(double x0, double y0, double x1, double y1, int thickness, Rgba border,
                          std::optional<Rgba> fill) {
  // Clamped before converting: a structure far off the tile has coordinates past int's range.
  auto pixel = [](double v) { return static_cast<int>(std::clamp(std::floor(v), -1e6, 1e6)); };
  const int l = pixel(x0), r = pixel(std::ceil(x1) - 1), top = pixel(y0), bottom = pixel(std::ceil(y1) - 1);
  for (int y = std::max(top, 0); y <= std::min(bottom, kTilePixels - 1); ++y) {
    for (int x = std::max(l, 0); x <= std::min(r, kTilePixels - 1); ++x) {
      const bool edge = x - l < thickness || r - x < thickness || y - top < thickness || bottom - y < thickness;
      if (edge) {
        set(x, y, border);
      } else if (fill) {
        set(x, y, *fill);
      }
    }
  }
}

namespace {

void append_to_string(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), length);
}

}  // namespace

std::string TileImage::png() const {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr || setjmp(png_jmpbuf(png))) {  // libpng reports errors by longjmp
    png_destroy_write_struct(&png, &info);
    return "";
  }
  png_set_write_fn(png, &out, append_to_string, nullptr);
  // Fast over small: a tile is rendered on demand while someone waits for it. No row filter:
  // libpng's default tries all five on every row, which took 45 % of the encoding; map tiles
  // are flat colours, which deflate packs as well unfiltered (24 first-screen tiles: 88 -> 48 ms
  // CPU, 1.36 -> 1.33 MB; docs/map.md).
  png_set_compression_level(png, 2);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  const int channels = opaque_ ? 3 : 4;
  png_set_IHDR(png, info, kTilePixels, kTilePixels, 8, opaque_ ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  std::vector<png_byte> row(static_cast<size_t>(kTilePixels) * channels);
  for (int y = 0; y < kTilePixels; ++y) {
    for (int x = 0; x < kTilePixels; ++x) {
      const Rgba p = get(x, y);
      png_byte* out_pixel = &row[static_cast<size_t>(x) * channels];
      out_pixel[0] = p.r;
      out_pixel[1] = p.g;
      out_pixel[2] = p.b;
      if (!opaque_) out_pixel[3] = p.a;
    }
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace chunkforge::map
