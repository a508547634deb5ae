// An RGB image that can be written as PNG (libpng). Just what `chunkforge render` needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chunkforge/catalog_colors.h"  // Rgb: the colours the live map draws in too

namespace chunkforge::tool {

class Image {
 public:
  Image(int width, int height) : width_(width), height_(height), pixels_(static_cast<size_t>(width) * height) {}
  int width() const { return width_; }
  int height() const { return height_; }
  void set(int x, int y, Rgb c) {
    if (x >= 0 && y >= 0 && x < width_ && y < height_) pixels_[static_cast<size_t>(y) * width_ + x] = c;
  }
  Rgb get(int x, int y) const { return pixels_[static_cast<size_t>(y) * width_ + x]; }
  // A filled disc; radius in pixels (at least the centre pixel is painted).
  void disc(double cx, double cy, double radius, Rgb c);
  // A rectangle's border of the given thickness (pixels), clipped to the image.
  void outline(double x0, double z0, double x1, double z1, double thickness, Rgb c);
  // Writes a PNG; returns an error message, or "" on success.
  std::string write_png(const std::string& path) const;

 private:
  int width_, height_;
  std::vector<Rgb> pixels_;
};

}  // namespace chunkforge::tool
