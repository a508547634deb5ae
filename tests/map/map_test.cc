// The map's tiles without a server: strict parsing of tile paths, golden hashes of the pixels
// (tiles are deterministic), empty tiles below a layer's first zoom, and the byte-bounded cache.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "chunkforge/world.h"
#include "pixel_hash.h"
#include "tile_cache.h"
#include "tile_key.h"
#include "tile_renderer.h"

namespace chunkforge::map {
namespace {

using test::pixel_hash;

TileKey tile(const char* path) { return std::get<TileKey>(parse_tile_path(path)); }

std::string reason(const char* path) {
  auto parsed = parse_tile_path(path);
  return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "(parsed)";
}

TEST(TileKeyTest, ParsesTheXyzScheme) {
  const TileKey key = tile("/tiles/biomes/-2/3/-1.png");
  EXPECT_EQ(key.layer, Layer::kBiomes);
  EXPECT_EQ(key.span(), 1024);
  EXPECT_EQ(key.world_x0(), 3072);
  EXPECT_EQ(key.world_z0(), -1024);
  EXPECT_EQ(tile("/tiles/grid/4/0/0.png").span(), 16);
}

TEST(TileKeyTest, RejectsBadPathsWithAReason) {
  EXPECT_EQ(
      reason("/tiles/lava/0/0/0.png"),
      "unknown layer \"lava\": one of materials, biomes, elevation, structures, objects, objects.<resource>, grid, "
      "density.<resource>, epochs");
  EXPECT_EQ(reason("/tiles/materials/5/0/0.png"), "zoom must be in [-8, 4] (got 5)");
  EXPECT_EQ(reason("/tiles/materials/-9/0/0.png"), "zoom must be in [-8, 4] (got -9)");
  EXPECT_EQ(reason("/tiles/materials/x/0/0.png"), "zoom must be an integer (got \"x\")");
  EXPECT_EQ(reason("/tiles/materials/0/1e3/0.png"), "tile x and y must be integers");
  EXPECT_EQ(reason("/tiles/materials/0/0/0.jpg"), "the tile must end in .png");
  EXPECT_EQ(reason("/tiles/materials/0/0.png"), "expected /tiles/{layer}/{z}/{x}/{y}.png");
  EXPECT_EQ(reason("/tiles/materials/0/99999999999999999999/0.png"), "tile x and y must be integers");
  // 2^40 / 256 tiles of 256 units reach the limit exactly; one more is past it.
  EXPECT_EQ(reason("/tiles/materials/0/4294967295/0.png"), "(parsed)");
  EXPECT_EQ(reason("/tiles/materials/0/4294967296/0.png"), "the tile lies past the world limit of +-2^40 units");
  EXPECT_EQ(reason("/tiles/materials/0/0/-4294967297.png"), "the tile lies past the world limit of +-2^40 units");
}

// Recorded from this renderer on the built-in world (kRendererVersion 2: the objects tile also
// draws the discs reaching in from the chunks beside it; the objects as generator version 2
// places them). A change here is a change of what the map draws: bump kRendererVersion with it,
// so browsers drop stale tiles. (A change of the world changes its fingerprint, in the ETag.)
TEST(TileRendererTest, GoldenPixelHashes) {
  const World& world = default_world();
  const struct {
    const char* path;
    const char* hash;
  } golden[] = {
      {"/tiles/materials/0/0/0.png", "dffa7ae74563138a"},   {"/tiles/materials/-6/1/-1.png", "fc3c70d8bf95c3d8"},
      {"/tiles/biomes/-3/-2/1.png", "2d755fd38cb446be"},    {"/tiles/elevation/-1/0/0.png", "6cd0998f28c93ed9"},
      {"/tiles/structures/-2/0/0.png", "69a0f03ed05167e4"}, {"/tiles/objects/1/3/5.png", "77b84a92ae3a58fa"},
      {"/tiles/grid/-4/0/0.png", "b3329d08d7542325"},       {"/tiles/materials/2/-7/9.png", "3ecf5866571c8925"},
  };
  for (const auto& g : golden) {
    EXPECT_EQ(pixel_hash(render_tile(world, tile(g.path))), g.hash) << g.path;
  }
}

TEST(TileRendererTest, SameTileSameBytes) {
  const TileKey key = tile("/tiles/materials/-1/2/2.png");
  EXPECT_EQ(render_tile(default_world(), key).png(), render_tile(default_world(), key).png());
}

TEST(TileRendererTest, OverlaysAreEmptyBelowTheirFirstZoom) {
  const TileImage image = render_tile(default_world(), tile("/tiles/objects/-4/0/0.png"));
  for (const Rgba& p : image.pixels()) ASSERT_EQ(p.a, 0);
}

TEST(TileRendererTest, FarTilesRender) {
  const TileImage image = render_tile(default_world(), tile("/tiles/materials/-8/-16777216/16777215.png"));
  EXPECT_NE(pixel_hash(image), pixel_hash(TileImage(true)));
}

TEST(TileCacheTest, StaysWithinItsBytes) {
  TileCache cache(10000);
  for (int k = 0; k < 100; ++k)
    cache.insert("tile" + std::to_string(k), std::make_shared<const std::string>(1000, 'x'));
  EXPECT_LE(cache.bytes(), 10000u);
  EXPECT_GT(cache.entries(), 5u);
  EXPECT_NE(cache.find("tile99"), nullptr);  // the newest stay
  EXPECT_EQ(cache.find("tile0"), nullptr);
}

}  // namespace
}  // namespace chunkforge::map
