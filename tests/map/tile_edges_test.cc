// Objects near a tile's edge: an object whose disc reaches into a tile is drawn there, also
// when it stands in a chunk outside the tile (it used to be drawn only by the tile holding its
// centre, so discs were cut off at tile edges); neighbouring tiles sharing those chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "chunkforge/chunk.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/world.h"
#include "pixel_hash.h"
#include "tile_chunks.h"
#include "tile_key.h"
#include "tile_renderer.h"

namespace chunkforge::map {
namespace {

// For every object in the ring of chunks around the tile whose disc crosses the tile's edge,
// the tile's pixel nearest the object's centre is drawn. Returns how many such objects.
int expect_crossing_discs_drawn(const TileKey& key) {
  const World& world = default_world();
  const TileImage image = render_tile(world, key);
  const int64_t cs = world.chunk_size();
  const double upp = key.units_per_pixel();
  const int64_t cx0 = floor_div(key.world_x0(), cs) - 1, cx1 = floor_div(key.world_x0() + key.span() - 1, cs) + 1;
  const int64_t cz0 = floor_div(key.world_z0(), cs) - 1, cz1 = floor_div(key.world_z0() + key.span() - 1, cs) + 1;
  int crossing = 0;
  for (int64_t cz = cz0; cz <= cz1; ++cz) {
    for (int64_t cx = cx0; cx <= cx1; ++cx) {
      for (const ResourceObject& o : Generator(world).generate({cx, cz}).objects) {
        // The centre in tile pixels, and the disc's radius (as the renderer sizes it).
        const double px = static_cast<double>(cx * cs - key.world_x0()) / upp + o.x / upp;
        const double py = static_cast<double>(cz * cs - key.world_z0()) / upp + o.z / upp;
        const double radius = std::max(world.resources().layer(o.layer).footprint / upp, 0.5);
        const bool outside = px < 0 || py < 0 || px >= kTilePixels || py >= kTilePixels;
        // The nearest pixel centre inside the tile must lie well within the disc.
        const int nx = std::clamp(static_cast<int>(std::floor(px)), 0, kTilePixels - 1);
        const int ny = std::clamp(static_cast<int>(std::floor(py)), 0, kTilePixels - 1);
        const double dx = nx + 0.5 - px, dy = ny + 0.5 - py;
        if (!outside || dx * dx + dy * dy > 0.8 * radius * radius) continue;
        ++crossing;
        EXPECT_NE(image.get(nx, ny).a, 0)
            << "object " << o.id << " of chunk " << cx << "," << cz << " is cut off at pixel " << nx << "," << ny;
      }
    }
  }
  return crossing;
}

TEST(TileEdgesTest, ObjectsFromNeighbouringChunksReachIntoTheTile) {
  int crossing = 0;
  for (const TileKey& key : {TileKey{Layer::kObjects, 2, 0, 0}, TileKey{Layer::kObjects, 2, 1, -1},
                             TileKey{Layer::kObjects, 3, 1, 3}, TileKey{Layer::kObjects, 1, -1, 0}}) {
    crossing += expect_crossing_discs_drawn(key);
  }
  EXPECT_GT(crossing, 0) << "no object crossed a tile edge: pick other tiles";
}

// Neighbouring tiles share the chunks along their edges through TileChunks: the same pixels as
// tiles that generate everything themselves, with each chunk generated once.
TEST(TileEdgesTest, SharedChunksGiveTheSamePixels) {
  const World& world = default_world();
  TileChunks chunks(64u << 20);
  for (int64_t x = 0; x < 2; ++x) {
    const TileKey key{Layer::kObjects, 0, x, 1};
    EXPECT_EQ(test::pixel_hash(render_tile(world, key, nullptr, &chunks)), test::pixel_hash(render_tile(world, key)))
        << x;
  }
  EXPECT_EQ(chunks.entries(), 6u * 6u + 4u * 6u);  // two tiles of 4 x 4 chunks and their rings
  EXPECT_NE(chunks.find(world.fingerprint(), {0, 4}), nullptr);
  EXPECT_EQ(chunks.find("another world", {0, 4}), nullptr);
}

TEST(TileEdgesTest, SharedChunksStayWithinTheirBytes) {
  const World& world = default_world();
  TileChunks chunks(30000);
  render_tile(world, TileKey{Layer::kObjects, 0, 0, 0}, nullptr, &chunks);
  EXPECT_LE(chunks.bytes(), 30000u);
  EXPECT_GT(chunks.entries(), 5u);
  EXPECT_LT(chunks.entries(), 36u);
}

}  // namespace
}  // namespace chunkforge::map
