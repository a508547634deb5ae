// The base layers: terrain in material colours (the relief of chunkforge/catalog_colors.h, as
// `chunkforge render` and `lod` draw it), biomes in their colours, and elevation as a height tint
// under hill shading.
#include <algorithm>
#include <cmath>
#include <vector>

#include "chunkforge/catalog_colors.h"
#include "tile_renderer.h"
#include "tile_terrain.h"

namespace chunkforge::map {
namespace {

Rgb mix(Rgb a, Rgb b, double t) {
  auto channel = [t](uint8_t u, uint8_t v) { return static_cast<uint8_t>(std::lround(u + (v - u) * t)); };
  return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b)};
}

// A hypsometric tint: deep blue to shallow below sea level; green, ochre, brown, white above.
Rgb height_tint(double elevation, double sea_level) {
  const double h = elevation - sea_level;
  if (h < 0) return mix({70, 130, 200}, {10, 30, 90}, std::clamp(-h / 80.0, 0.0, 1.0));
  static const Rgb kStops[] = {{80, 150, 70}, {200, 190, 100}, {140, 100, 60}, {245, 245, 245}};
  const double t = std::clamp(h / 60.0, 0.0, 2.999);
  const int k = static_cast<int>(t);
  return mix(kStops[k], kStops[k + 1], t - k);
}

// Light from the north-west: the slope toward it, from the next pixel east and south (the
// previous one on the tile's last row and column), in world units.
double hill_light(const TileTerrain& t, int x, int y, double units_per_pixel) {
  const int xn = x + 1 < kTilePixels ? x + 1 : x - 1, yn = y + 1 < kTilePixels ? y + 1 : y - 1;
  const double here = t.elevation()[TileTerrain::index(x, y)];
  const double dx = (t.elevation()[TileTerrain::index(xn, y)] - here) / ((xn - x) * units_per_pixel);
  const double dz = (t.elevation()[TileTerrain::index(x, yn)] - here) / ((yn - y) * units_per_pixel);
  return std::clamp(1.0 - 0.7 * (dx + dz), 0.55, 1.35);
}

}  // namespace

// Materials and biomes colour each pixel from its own sample: drawn square by square, with no
// tile-sized copy of the terrain (visit_tile_terrain).
TileImage draw_materials(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                         const Epochs* epochs) {
  const std::vector<Rgb> colors = sample_colors(world, epochs, false);
  const double sea_level = world.definition().terrain().sea_level();
  TileImage image(true);
  visit_tile_terrain(
      world, key, abandon,
      [&](const TerrainGrid& g, int px, int py, int block) {
        for (int j = 0; j < g.size; ++j) {
          for (int i = 0; i < g.size; ++i) {
            const size_t k = g.index(i, j);
            image.fill(px + i * block, py + j * block, block,
                       opaque(relief(colors[g.material[k]], g.elevation()[k], sea_level)));
          }
        }
      },
      epochs);
  return image;
}

TileImage draw_biomes(const World& world, const TileKey& key, const std::atomic<bool>* abandon, const Epochs* epochs) {
  const std::vector<Rgb> colors = sample_colors(world, epochs, true);
  TileImage image(true);
  visit_tile_terrain(
      world, key, abandon,
      [&](const TerrainGrid& g, int px, int py, int block) {
        for (int j = 0; j < g.size; ++j) {
          for (int i = 0; i < g.size; ++i)
            image.fill(px + i * block, py + j * block, block, opaque(colors[g.biome[g.index(i, j)]]));
        }
      },
      epochs);
  return image;
}

TileImage draw_elevation(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                         const Epochs* epochs) {
  const TileTerrain t = sample_tile_terrain(world, key, abandon, epochs);
  const double sea_level = world.definition().terrain().sea_level();
  TileImage image(true);
  for (int y = 0; y < kTilePixels; ++y) {
    for (int x = 0; x < kTilePixels; ++x) {
      const double elevation = t.elevation()[TileTerrain::index(x, y)];
      const double light = elevation < sea_level ? 1.0 : hill_light(t, x, y, key.units_per_pixel());
      image.set(x, y, opaque(scaled(height_tint(elevation, sea_level), light)));
    }
  }
  return image;
}

}  // namespace chunkforge::map
