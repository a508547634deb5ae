// Drawing a rectangle of chunks onto an image, as `chunkforge render` draws it (and `chunkforge
// world upgrade` its preview): terrain in its material colours, objects as discs of their
// footprint, structures as outlines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"
#include "png_image.h"
#include "region.h"

namespace chunkforge::tool {

inline constexpr int64_t kMaxPixels = int64_t{1} << 26;  // 64 M pixels, about 200 MB of RGB

// Where the map starts and how many pixels a world unit spans.
struct MapFrame {
  Rect rect;
  int64_t chunk_size;
  double scale;
  // The pixel offset of a chunk's corner along one axis, in world units.
  double origin_x(const v1::Chunk& chunk) const {
    return static_cast<double>((chunk.coord().x() - rect.x0) * chunk_size);
  }
  double origin_z(const v1::Chunk& chunk) const {
    return static_cast<double>((chunk.coord().z() - rect.z0) * chunk_size);
  }
};

// Terrain in its material colours, one grid sample per pixel block.
void draw_terrain(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame, const v1::WorldInfo& info);
// Objects as discs of their footprint; call after all terrain, so none is hidden by a
// neighbouring chunk's ground.
void draw_objects(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame, const v1::WorldInfo& info);
// Structure boxes as outlines in their colours, once each (every chunk they touch has them).
void draw_structures(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame,
                     const v1::WorldInfo& info);
// A blank image for the frame's rectangle, or nullopt after printing "<command>: ..." when it
// would have more than kMaxPixels.
std::optional<Image> map_image(const MapFrame& frame, const std::string& command);
// Writes the PNG and says so; the exit code (world_options.h).
int write_map(const Image& image, const std::string& out, const std::string& command);
// The terrain step for a scale: one sample per pixel at most (a power of two dividing the
// chunk size).
int64_t terrain_step_for(double scale, int64_t chunk_size);

}  // namespace chunkforge::tool
