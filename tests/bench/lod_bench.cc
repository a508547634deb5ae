// LOD tiles (docs/lod.md): CPU per tile at each level, which should not grow with the level
// (the same lattice whatever the area; structures planned up to kLodStructureMaxLevel only),
// and a whole view's tiles at radius 128 to 1024 chunks, which should grow with its number of
// levels, not with its area; the encoded bytes of each, as counters.
//
//   ./build/tests/bench/lod_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <set>

#include "chunkforge/lod.h"
#include "chunkforge/world.h"

namespace chunkforge {
namespace {

// One tile per iteration, each at another position along a row of the level.
void BM_LodTile(benchmark::State& state) {
  const World& world = default_world();
  const int level = static_cast<int>(state.range(0));
  int64_t x = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string tile = lod_tile_bytes(world, {level, x++, -3});
    bytes += tile.size();
    benchmark::DoNotOptimize(tile.data());
  }
  state.counters["bytes_per_tile"] = static_cast<double>(bytes) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_LodTile)->ArgName("level")->DenseRange(0, 12, 1)->Unit(benchmark::kMillisecond);

// Every tile of a player's view (lod_view, default rings), built one after another.
void BM_LodView(benchmark::State& state) {
  const World& world = default_world();
  const std::vector<LodKey> keys = lod_view(world.chunk_size(), 5000.0, -7000.0, state.range(0));
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    for (const LodKey& key : keys) bytes += lod_tile_bytes(world, key).size();
  }
  std::set<int> levels;
  for (const LodKey& key : keys) levels.insert(key.level);
  state.counters["tiles"] = static_cast<double>(keys.size());
  state.counters["levels"] = static_cast<double>(levels.size());
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_LodView)->ArgName("radius")->Arg(128)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chunkforge
