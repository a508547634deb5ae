// The map of a world that changed after launch (tests/lib/two_epochs.h: the built-in world seen
// in a disc of radius 5 chunks around the origin, then tests/lib/worlds/epoch_next.json): the
// base layers draw older land as its epoch showed it and far land as the newest world alone,
// and the epochs overlay marks older land, the seam and nothing far away.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "chunkforge/coord.h"
#include "lib/two_epochs.h"
#include "map_service.h"
#include "tile_renderer.h"

namespace chunkforge::map {
namespace {

using test::two_epochs;

// Tile (x, y) of `layer` at zoom -2: 1,024 units, 16 chunks a side, 4 units a pixel.
TileKey tile(Layer layer, int64_t x, int64_t y) { return TileKey{.layer = layer, .z = -2, .x = x, .y = y}; }

// The chunk under pixel (px, py) of such a tile.
ChunkCoord chunk_at(const TileKey& key, int px, int py) {
  return {floor_div(key.world_x0() + 4 * px, 64), floor_div(key.world_z0() + 4 * py, 64)};
}

bool same(Rgba a, Rgba b) { return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a; }

bool same_pixels(const TileImage& a, const TileImage& b) {
  return std::equal(a.pixels().begin(), a.pixels().end(), b.pixels().begin(), same);
}

TEST(EpochsMapTest, BaseLayersDrawEachChunkAsItsEpochShowsIt) {
  const Epochs& epochs = two_epochs();
  const World& newest = test::next_epoch_world();
  for (const Layer layer : {Layer::kMaterials, Layer::kBiomes, Layer::kElevation}) {
    const TileKey near = tile(layer, 0, 0);  // chunks (0..15, 0..15): a quarter of the disc, its seam
    const TileImage both = render_tile(newest, near, nullptr, nullptr, &epochs);
    const TileImage old_world = render_tile(default_world(), near, nullptr, nullptr);
    const TileImage new_world = render_tile(newest, near, nullptr, nullptr);
    int older = 0, seam_differs = 0;
    for (int y = 1; y < kTilePixels - 1; ++y) {
      for (int x = 1; x < kTilePixels - 1; ++x) {
        const ChunkCoord c = chunk_at(near, x, y);
        if (epochs.epoch_of(c) == 0) {
          // Away from the chunk's edge (the elevation's shading reads the next pixel).
          if (chunk_at(near, x + 1, y + 1) != c) continue;
          ++older;
          ASSERT_TRUE(same(both.get(x, y), old_world.get(x, y))) << x << ", " << y;
        } else {
          seam_differs += !same(both.get(x, y), new_world.get(x, y));
        }
      }
    }
    EXPECT_GT(older, 3000);
    EXPECT_GT(seam_differs, 100) << "the seam is blended";
    const TileKey far = tile(layer, 10, 10);  // chunks 160..175: far beyond every seam's reach
    EXPECT_TRUE(
        same_pixels(render_tile(newest, far, nullptr, nullptr, &epochs), render_tile(newest, far, nullptr, nullptr)));
  }
}

TEST(EpochsMapTest, TheOverlayMarksOlderLandTheSeamAndTheBorder) {
  const Epochs& epochs = two_epochs();
  const World& newest = test::next_epoch_world();
  const TileKey near = tile(Layer::kEpochs, 0, 0);
  const TileImage image = render_tile(newest, near, nullptr, nullptr, &epochs);
  int older = 0, seam = 0, clear = 0, border = 0;
  for (int y = 0; y < kTilePixels; ++y) {
    for (int x = 0; x < kTilePixels; ++x) {
      const Rgba p = image.get(x, y);
      const ChunkCoord c = chunk_at(near, x, y);
      if (p.a == 230) {
        ++border;
      } else if (epochs.epoch_of(c) == 0) {
        ASSERT_EQ(p.a, 120) << x << ", " << y;
        ++older;
      } else if (!epochs.newest_generates(c)) {
        ASSERT_EQ(p.a, 70) << x << ", " << y;
        ++seam;
      } else {
        ASSERT_EQ(p.a, 0) << x << ", " << y;
        ++clear;
      }
    }
  }
  EXPECT_GT(older, 3000);
  EXPECT_GT(seam, 10000);
  EXPECT_GT(clear, 100);  // the tile's far corner is beyond the seam's reach
  EXPECT_GT(border, 200);
  const TileImage far = render_tile(newest, tile(Layer::kEpochs, 10, 10), nullptr, nullptr, &epochs);
  EXPECT_TRUE(same_pixels(far, TileImage(false)));
  EXPECT_TRUE(same_pixels(render_tile(newest, near, nullptr, nullptr), TileImage(false)));
}

TEST(EpochsMapTest, ThePageListsTheOverlayOnlyForAWorldWithEpochs) {
  MapFeatures features;
  EXPECT_EQ(status_json(test::next_epoch_world(), "test", {}, features).find("\"epochs\""), std::string::npos);
  features.epochs = true;
  EXPECT_NE(status_json(test::next_epoch_world(), "test", {}, features).find("\"name\":\"epochs\""), std::string::npos);
}

}  // namespace
}  // namespace chunkforge::map
