// The map drawing of map_drawing.h.
#include "map_drawing.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "chunkforge/catalog_colors.h"
#include "world_options.h"

namespace chunkforge::tool {

// Terrain in its material colours, one grid sample per pixel block.
void draw_terrain(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame,
                  const v1::WorldInfo& info) {
  const std::vector<Rgb> materials = catalog_colors(info.materials());
  const double side = static_cast<double>(frame.chunk_size), scale = frame.scale;
  for (const v1::Chunk& chunk : chunks) {
    const double ox = frame.origin_x(chunk), oz = frame.origin_z(chunk);
    const v1::TerrainGrid& t = chunk.terrain();
    const double step = t.step();
    for (int py = static_cast<int>(oz * scale); py < static_cast<int>((oz + side) * scale); ++py) {
      for (int px = static_cast<int>(ox * scale); px < static_cast<int>((ox + side) * scale); ++px) {
        const int i = std::clamp(static_cast<int>((px / scale - ox) / step), 0, static_cast<int>(t.size()) - 1);
        const int j = std::clamp(static_cast<int>((py / scale - oz) / step), 0, static_cast<int>(t.size()) - 1);
        const int k = j * static_cast<int>(t.size()) + i;
        image.set(px, py, relief(materials[t.material(k)], t.elevation(k), info.sea_level()));
      }
    }
  }
}

// Objects as discs of their footprint; drawn after all terrain, so none is hidden by a
// neighbouring chunk's ground.
void draw_objects(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame,
                  const v1::WorldInfo& info) {
  const std::vector<Rgb> layers = catalog_colors(info.resources());
  for (const v1::Chunk& chunk : chunks) {
    const double ox = frame.origin_x(chunk), oz = frame.origin_z(chunk);
    const v1::Objects& o = chunk.objects();
    for (int k = 0; k < o.layer_size(); ++k) {
      const double radius = info.resources(static_cast<int>(o.layer(k))).footprint_radius() * frame.scale;
      image.disc((ox + o.x(k)) * frame.scale, (oz + o.z(k)) * frame.scale, std::max(radius, 0.5), layers[o.layer(k)]);
    }
  }
}

// Structure boxes as outlines in their colours, once each (every chunk they touch has them).
void draw_structures(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame,
                     const v1::WorldInfo& info) {
  const std::vector<Rgb> structure_colors = catalog_colors(info.structures());
  const double scale = frame.scale;
  std::vector<uint64_t> drawn;
  for (const v1::Chunk& chunk : chunks) {
    for (const v1::StructureInstance& st : chunk.structures()) {
      if (std::find(drawn.begin(), drawn.end(), st.id()) != drawn.end()) continue;
      drawn.push_back(st.id());
      const double x0 = static_cast<double>(st.x() - frame.rect.x0 * frame.chunk_size) * scale;
      const double z0 = static_cast<double>(st.z() - frame.rect.z0 * frame.chunk_size) * scale;
      image.outline(x0, z0, x0 + st.size_x() * scale, z0 + st.size_z() * scale, std::max(1.0, scale / 2),
                    structure_colors[st.type()]);
    }
  }
}

// The terrain step for a scale: one sample per pixel at most (a power of two dividing the
// chunk size).
int64_t terrain_step_for(double scale, int64_t chunk_size) {
  int64_t step = 1;
  while (static_cast<double>(step * 2) <= 1.0 / scale && chunk_size % (step * 2) == 0) step *= 2;
  return step;
}

std::optional<Image> map_image(const MapFrame& frame, const std::string& command) {
  const double width = static_cast<double>(frame.rect.width() * frame.chunk_size) * frame.scale;
  const double height = static_cast<double>(frame.rect.height() * frame.chunk_size) * frame.scale;
  if (width * height > static_cast<double>(kMaxPixels)) {
    std::cerr << command << ": the image would have " << static_cast<int64_t>(width * height) << " pixels; at most "
              << kMaxPixels << " (fewer chunks or a smaller --px-per-unit)\n";
    return std::nullopt;
  }
  return Image(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
}

int write_map(const Image& image, const std::string& out, const std::string& command) {
  const std::string failure = image.write_png(out);
  if (!failure.empty()) {
    std::cerr << command << ": " << failure << '\n';
    return kExitFailure;
  }
  std::cout << "wrote " << out << " (" << image.width() << " x " << image.height() << " px)\n";
  return kExitOk;
}

}  // namespace chunkforge::tool
