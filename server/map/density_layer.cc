// The density overlay of one resource layer (`density.<name>`): the field its scatter method
// reads (ResourceLayers::density, the resource article's density map), sampled at every
// pixel, in the layer's colour. Where objects can stand (density at least the layer's
// threshold, and the terrain passing its filters) it is drawn strong; elsewhere faint, so the
// field itself stays visible. No chunk is generated at any zoom.
#include <algorithm>
#include <optional>
#include <vector>

#include "chunkforge/coord.h"
#include "chunkforge/resource_layer.h"
#include "tile_renderer.h"
#include "tile_terrain.h"

namespace chunkforge::map {
namespace {

// The world coordinate of each pixel's lowest corner along one axis, from the tile's origin:
// whole units apart when zoomed out, 1 / 2^z of a unit apart when zoomed in (exact in a double).
std::vector<Coord> pixel_coords(int64_t origin, const TileKey& key) {
  std::vector<Coord> out(kTilePixels);
  for (int i = 0; i < kTilePixels; ++i) {
    out[i] = key.z <= 0
                 ? Coord::from_parts(origin + i * (key.span() / kTilePixels), 0.0)
                 : Coord::from_parts(origin + (i >> key.z), static_cast<double>(i & ((1 << key.z) - 1)) / (1 << key.z));
  }
  return out;
}

}  // namespace

// Alpha from where the density lies in [dmin, dmax]: 40 to 220 where objects can stand, a
// quarter of that where they cannot (below the threshold, or filtered out).
TileImage draw_density(const World& world, const TileKey& key, const std::atomic<bool>* abandon) {
  const ResourceLayer& l = world.resources().layer(static_cast<uint32_t>(key.resource));
  const std::vector<Coord> xs = pixel_coords(key.world_x0(), key), zs = pixel_coords(key.world_z0(), key);
  std::vector<double> density(static_cast<size_t>(kTilePixels) * kTilePixels);
  throw_if_abandoned(abandon);
  world.resources().density_grid(l.id, xs.data(), kTilePixels, zs.data(), kTilePixels, density.data());
  // The terrain only for a filtered layer: it costs as much as a base tile.
  const std::optional<TileTerrain> terrain =
      l.filtered() ? std::optional(sample_tile_terrain(world, key, abandon)) : std::nullopt;
  const Rgba color = color_of(world.definition().resources(static_cast<int>(l.id)).color());
  const double range = l.dmax > l.dmin ? l.dmax - l.dmin : 1.0;
  TileImage image(false);
  for (int y = 0; y < kTilePixels; ++y) {
    for (int x = 0; x < kTilePixels; ++x) {
      const size_t k = TileTerrain::index(x, y);
      const double t = std::clamp((density[k] - l.dmin) / range, 0.0, 1.0);
      const bool can_stand =
          density[k] >= l.threshold && (!terrain || l.admits(terrain->at(k), terrain->biome[k], terrain->material[k]));
      const double alpha = (40 + 180 * t) * (can_stand ? 1.0 : 0.25);
      image.set(x, y, {color.r, color.g, color.b, static_cast<uint8_t>(alpha)});
    }
  }
  return image;
}

}  // namespace chunkforge::map
