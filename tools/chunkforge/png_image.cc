// An RGB image and its PNG encoding (libpng), for `render`.
#include "png_image.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace chunkforge::tool {

void Image::disc(double cx, double cy, double radius, Rgb c) {
  const int x0 = static_cast<int>(std::floor(cx - radius)), x1 = static_cast<int>(std::ceil(cx + radius));
  const int y0 = static_cast<int>(std::floor(cy - radius)), y1 = static_cast<int>(std::ceil(cy + radius));
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x <= x1; ++x) {
      const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      if (dx * dx + dy * dy <= radius * radius) set(x, y, c);
    }
  }
  set(static_cast<int>(std::floor(cx)), static_cast<int>(std::floor(cy)), c);
}

void Image::outline(double x0, double z0, double x1, double z1, double thickness, Rgb c) {
  const int t = std::max(1, static_cast<int>(thickness));
  const int l = static_cast<int>(std::floor(x0)), r = static_cast<int>(std::ceil(x1)) - 1;
  const int top = static_cast<int>(std::floor(z0)), bottom = static_cast<int>(std::ceil(z1)) - 1;
  for (int k = 0; k < t; ++k) {
    for (int x = std::max(l, 0); x <= std::min(r, width_ - 1); ++x) {
      set(x, top + k, c);
      set(x, bottom - k, c);
    }
    for (int y = std::max(top, 0); y <= std::min(bottom, height_ - 1); ++y) {
      set(l + k, y, c);
      set(r - k, y, c);
    }
  }
}

std::string Image::write_png(const std::string& path) const {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!file) return "cannot open \"" + path + "\" for writing";
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) {
    png_destroy_write_struct(&png, &info);
    return "libpng could not start";
  }
  if (setjmp(png_jmpbuf(png))) {  // libpng reports errors by longjmp
    png_destroy_write_struct(&png, &info);
    return "libpng failed writing \"" + path + "\"";
  }
  png_init_io(png, file.get());
  png_set_IHDR(png, info, static_cast<png_uint_32>(width_), static_cast<png_uint_32>(height_), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  std::vector<png_byte> row(static_cast<size_t>(width_) * 3);
  for (int y = 0; y < height_; ++y) {
    for (int x = 0; x < width_; ++x) {
      const Rgb p = get(x, y);
      row[static_cast<size_t>(x) * 3] = p.r;
      row[static_cast<size_t>(x) * 3 + 1] = p.g;
      row[static_cast<size_t>(x) * 3 + 2] = p.b;
    }
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return "";
}

}  // namespace chunkforge::tool
