// The live map's tiles: one 256 px tile at 1 px per unit and at 64 units per pixel (cold:
// rendered and PNG-encoded from nothing), a first screen of 24 tiles, and beside them the chunk
// path over the same area as `chunkforge render` takes it (generate the chunks, then draw), and
// the first screen on the render pool as the server runs it, and its PNG encoding alone.
#include <benchmark/benchmark.h>

#include <latch>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/world.h"
#include "tile_chunks.h"
#include "tile_pool.h"
#include "tile_renderer.h"

namespace chunkforge::map {
namespace {

TileKey key(Layer layer, int z, int64_t x, int64_t y) { return TileKey{layer, z, x, y}; }

// A different tile each iteration, so nothing is warm between them.
void BM_Tile(benchmark::State& state, Layer layer, int z) {
  const World& world = default_world();
  int64_t x = 0;
  for (auto _ : state) benchmark::DoNotOptimize(render_tile(world, key(layer, z, x++, 7)).png());
}
BENCHMARK_CAPTURE(BM_Tile, materials_1px_per_unit, Layer::kMaterials, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tile, materials_64_units_per_px, Layer::kMaterials, -6)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tile, elevation_64_units_per_px, Layer::kElevation, -6)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tile, structures_8_units_per_px, Layer::kStructures, -3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tile, objects_1px_per_unit, Layer::kObjects, 0)->Unit(benchmark::kMillisecond);

// A resource layer's density tile at 64 units per pixel: `resource` 0 is the forest (biome and
// material filters: the terrain is sampled too), 1 is iron (an elevation filter).
void BM_DensityTile(benchmark::State& state, int resource) {
  const World& world = default_world();
  int64_t x = 0;
  for (auto _ : state) {
    TileKey tile = key(Layer::kDensity, -6, x++, 7);
    tile.resource = resource;
    benchmark::DoNotOptimize(render_tile(world, tile).png());
  }
}
BENCHMARK_CAPTURE(BM_DensityTile, forest_64_units_per_px, 0)->Unit(benchmark::kMillisecond);

// The page's first screen at zoom -2 (4 units per pixel, 1024 x 768 px): 6 x 4 materials tiles,
// one after another on one thread (the server renders on several).
void BM_FirstScreen24Tiles(benchmark::State& state) {
  const World& world = default_world();
  int64_t shift = 0;
  for (auto _ : state) {
    for (int64_t y = -2; y < 2; ++y) {
      for (int64_t x = -3; x < 3; ++x)
        benchmark::DoNotOptimize(render_tile(world, key(Layer::kMaterials, -2, x + shift, y)).png());
    }
    shift += 6;
  }
}
BENCHMARK(BM_FirstScreen24Tiles)->Unit(benchmark::kMillisecond);
// The PNG encoding alone of the first screen's 24 tiles (drawn once beforehand), and their bytes:
// a third of the first screen went here before the row filter was turned off (docs/map.md).
void BM_FirstScreenPngEncoding(benchmark::State& state) {
  std::vector<TileImage> images;
  for (int64_t x = 0; x < 24; ++x) images.push_back(render_tile(default_world(), key(Layer::kMaterials, -2, x, 0)));
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    for (const TileImage& image : images) bytes += image.png().size();
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_FirstScreenPngEncoding)->Unit(benchmark::kMillisecond);

// A first screen of objects tiles at 1 px per unit (6 x 4 tiles, 16 chunks each plus the ring
// around it), one thread: every tile generating its chunks itself, or sharing them with its
// neighbours through TileChunks as the server does (state.range(0) = 1).
void BM_FirstScreenObjects(benchmark::State& state) {
  const World& world = default_world();
  int64_t shift = 0;
  for (auto _ : state) {
    TileChunks chunks(64u << 20);
    for (int64_t y = -2; y < 2; ++y) {
      for (int64_t x = -3; x < 3; ++x) {
        const TileKey tile = key(Layer::kObjects, 0, x + shift, y);
        benchmark::DoNotOptimize(render_tile(world, tile, nullptr, state.range(0) ? &chunks : nullptr).png());
      }
    }
    shift += 6;
  }
}
BENCHMARK(BM_FirstScreenObjects)->ArgName("shared")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same first screen as the server renders it: on a TilePool of 2 threads (the server uses
// --threads up to 4), centre first. Wall time, which on a shared machine depends on its load.
void BM_FirstScreen24TilesOnTwoThreads(benchmark::State& state) {
  const World& world = default_world();
  int64_t shift = 0;
  for (auto _ : state) {
    TilePool pool(2, 64);
    pool.set_focus(TilePlace{static_cast<double>(shift) * 1024, 0});
    std::latch done(24);
    for (int64_t y = -2; y < 2; ++y) {
      for (int64_t x = -3; x < 3; ++x) {
        pool.submit(
            [&world, &done, key = key(Layer::kMaterials, -2, x + shift, y)] {
              benchmark::DoNotOptimize(render_tile(world, key).png());
              done.count_down();
            },
            TilePlace{(static_cast<double>(x + shift) + 0.5) * 1024, (static_cast<double>(y) + 0.5) * 1024});
      }
    }
    done.wait();
    shift += 6;
  }
}
BENCHMARK(BM_FirstScreen24TilesOnTwoThreads)->Unit(benchmark::kMillisecond)->UseRealTime();

// The chunk path for the area of one 1 px-per-unit tile (256 x 256 units: 4 x 4 chunks),
// generated as `chunkforge render` does (a ChunkStream, terrain grid at step 1) before any
// drawing. At 64 units per pixel the same area would be 256 x 256 chunks.
void BM_RenderPathChunksForOneTile(benchmark::State& state) {
  const World& world = default_world();
  int64_t shift = 0;
  for (auto _ : state) {
    ChunkStream stream(world);
    for (int64_t cz = 28; cz < 32; ++cz) {
      for (int64_t cx = 0; cx < 4; ++cx) {
        v1::Chunk chunk = encode_chunk(world, stream.generate({cx + shift, cz}));
        add_terrain(world, 1, chunk);
        benchmark::DoNotOptimize(chunk);
      }
    }
    shift += 4;
  }
}
BENCHMARK(BM_RenderPathChunksForOneTile)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chunkforge::map
