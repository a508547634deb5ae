// The per-resource-layer tiles: `density.<name>` (the layer's density field, strong where its
// objects can stand) and `objects.<name>` (that layer's objects alone): parsing with the
// world's names, golden pixel hashes, and the pixels checked against the library's own
// density and terrain at the same points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "chunkforge/coord.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/world.h"
#include "pixel_hash.h"
#include "tile_key.h"
#include "tile_renderer.h"

namespace chunkforge::map {
namespace {

std::vector<std::string> resource_names(const World& world) {
  std::vector<std::string> names;
  for (const ResourceLayer& r : world.resources().all()) names.push_back(r.name);
  return names;
}

TileKey tile(const std::string& path) {
  return std::get<TileKey>(parse_tile_path(path, resource_names(default_world())));
}

std::string reason(const std::string& path) {
  auto parsed = parse_tile_path(path, resource_names(default_world()));
  return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "(parsed)";
}

uint32_t layer_id(const char* name) {
  for (const ResourceLayer& r : default_world().resources().all()) {
    if (r.name == name) return r.id;
  }
  ADD_FAILURE() << "no resource layer " << name;
  return 0;
}

TEST(ResourceLayerTilesTest, ParsesTheResourceAfterADot) {
  const TileKey density = tile("/tiles/density.iron/-3/1/2.png");
  EXPECT_EQ(density.layer, Layer::kDensity);
  EXPECT_EQ(density.resource, static_cast<int>(layer_id("iron")));
  EXPECT_EQ(tile("/tiles/objects.coal/0/0/0.png").resource, static_cast<int>(layer_id("coal")));
  EXPECT_EQ(tile("/tiles/objects/0/0/0.png").resource, -1);  // every layer's objects
  EXPECT_NE(tile_etag("f", tile("/tiles/density.iron/0/0/0.png")),
            tile_etag("f", tile("/tiles/density.coal/0/0/0.png")));
}

TEST(ResourceLayerTilesTest, BadResourceLayersGetAReason) {
  EXPECT_EQ(reason("/tiles/density/0/0/0.png"),
            "layer density needs a resource layer: density.<resource>, <resource> one of forest, iron, coal, boulders");
  EXPECT_EQ(reason("/tiles/density.lava/0/0/0.png"),
            "unknown resource layer \"lava\": one of forest, iron, coal, boulders");
  EXPECT_EQ(reason("/tiles/objects.lava/0/0/0.png"),
            "unknown resource layer \"lava\": one of forest, iron, coal, boulders");
  EXPECT_EQ(reason("/tiles/biomes.forest/0/0/0.png"), "layer biomes takes no resource layer");
  EXPECT_EQ(reason("/tiles/density./0/0/0.png"), "unknown resource layer \"\": one of forest, iron, coal, boulders");
}

// Recorded from this renderer on the built-in world (see map_test.cc's goldens).
TEST(ResourceLayerTilesTest, GoldenPixelHashes) {
  const World& world = default_world();
  const struct {
    const char* path;
    const char* hash;
  } golden[] = {
      {"/tiles/density.forest/-4/0/0.png", "1b4a474fdc2f11d7"},
      {"/tiles/density.iron/0/1/-2.png", "1cce027a4c228436"},
      {"/tiles/density.coal/-8/3/3.png", "4396c98648267530"},
      {"/tiles/density.boulders/2/-5/7.png", "217d9528fc6d1504"},
      {"/tiles/objects.iron/0/3/5.png", "fe15a7b863a72de1"},
  };
  for (const auto& g : golden) EXPECT_EQ(test::pixel_hash(render_tile(world, tile(g.path))), g.hash) << g.path;
}

// The alpha of a density pixel from the library's density and terrain at the pixel's corner:
// strong (>= 40) where objects can stand, faint (<= 55) where they cannot.
void expect_pixels_follow_the_field(const std::string& path, const char* layer) {
  const World& world = default_world();
  const ResourceLayer& l = world.resources().layer(layer_id(layer));
  const TileKey key = tile(path);
  const TileImage image = render_tile(world, key);
  int strong = 0, faint = 0;
  for (int y = 0; y < kTilePixels; y += 17) {
    for (int x = 0; x < kTilePixels; x += 13) {
      const Coord wx = Coord::from_double(static_cast<double>(key.world_x0()) + x * key.units_per_pixel());
      const Coord wz = Coord::from_double(static_cast<double>(key.world_z0()) + y * key.units_per_pixel());
      const double d = world.resources().density(l.id, wx, wz);
      // Zoomed in, the terrain is sampled once per unit, as the base layers draw it.
      const TerrainPoint p =
          world.terrain().sample(Coord::from_double(std::floor(static_cast<double>(wx.cell) + wx.frac)),
                                 Coord::from_double(std::floor(static_cast<double>(wz.cell) + wz.frac)));
      const bool stand =
          d >= l.threshold && l.terrain.contains(p.values) &&
          (l.biomes.empty() || std::binary_search(l.biomes.begin(), l.biomes.end(), p.biome)) &&
          (l.materials.empty() || std::binary_search(l.materials.begin(), l.materials.end(), p.material));
      const Rgba pixel = image.get(x, y);
      if (stand) {
        ++strong;
        EXPECT_GE(pixel.a, 40) << path << " at " << x << "," << y;
      } else {
        ++faint;
        EXPECT_LE(pixel.a, 55) << path << " at " << x << "," << y;
      }
      const double t = std::clamp((d - l.dmin) / (l.dmax - l.dmin), 0.0, 1.0);
      EXPECT_NEAR(pixel.a, (40 + 180 * t) * (stand ? 1.0 : 0.25), 1.0) << path << " at " << x << "," << y;
    }
  }
  EXPECT_GT(strong, 0) << path << ": nowhere for " << layer << " to stand";
  EXPECT_GT(faint, 0) << path << ": nothing filtered or below the threshold";
}

TEST(ResourceLayerTilesTest, DensityPixelsFollowTheLibrarysFieldAndFilters) {
  expect_pixels_follow_the_field("/tiles/density.forest/-3/0/0.png", "forest");  // biome and material filters
  expect_pixels_follow_the_field("/tiles/density.iron/-4/-1/0.png", "iron");     // an elevation filter
  expect_pixels_follow_the_field("/tiles/density.coal/1/2/3.png", "coal");       // correlated with iron, zoomed in
}

// objects.iron draws iron's objects and only those: every pixel it draws has iron's colour and
// is drawn, in the same colour, by the tile of every layer's objects.
TEST(ResourceLayerTilesTest, ObjectsOfOneLayerAreThatLayersOnly) {
  const World& world = default_world();
  const Rgba iron = color_of(world.definition().resources(static_cast<int>(layer_id("iron"))).color());
  const TileImage one = render_tile(world, tile("/tiles/objects.iron/0/1/1.png"));
  const TileImage all = render_tile(world, tile("/tiles/objects/0/1/1.png"));
  int drawn = 0, others = 0;
  for (int y = 0; y < kTilePixels; ++y) {
    for (int x = 0; x < kTilePixels; ++x) {
      if (all.get(x, y).a != 0) others += 1;
      if (one.get(x, y).a == 0) continue;
      ++drawn;
      EXPECT_TRUE(one.get(x, y).r == iron.r && one.get(x, y).g == iron.g && one.get(x, y).b == iron.b);
    }
  }
  EXPECT_GT(drawn, 0);
  EXPECT_GT(others, drawn);  // the other layers' objects are left out
}

}  // namespace
}  // namespace chunkforge::map
