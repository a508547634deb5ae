// Structure planning cost per chunk as the largest structure grows (1, 2 and 4 chunks wide),
// and the whole chunk's generation time in the same run, for its share. Each chunk is a cold
// request (a fresh planner), as a server's GetChunk would be.
//
//   ./build/tests/bench/structures_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <map>

#include "chunkforge/chunk.h"
#include "chunkforge/structures.h"
#include "chunkforge/world.h"

namespace chunkforge {
namespace {

// The default world with its largest structure (the castle) resized to `width` chunks.
const World& world_with_width(int width) {
  static std::map<int, World> worlds;
  auto it = worlds.find(width);
  if (it == worlds.end()) {
    v1::WorldDefinition d = default_world().definition();
    for (v1::Structure& s : *d.mutable_structures()) {
      if (s.name() == "castle") {
        s.set_size_x(width * 64.0);
        s.set_size_z(width * 64.0 - 8);
        s.mutable_checks(0)->mutable_offset()->set_x(width * 32.0);
        s.mutable_checks(1)->mutable_offset()->set_x(width * 32.0);
      }
    }
    it = worlds.emplace(width, *World::create(d).world).first;
  }
  return it->second;
}

void BM_StructurePlanning(benchmark::State& state) {
  const World& world = world_with_width(static_cast<int>(state.range(0)));
  int64_t x = 0;
  for (auto _ : state) {
    StructurePlanner planner(world);
    benchmark::DoNotOptimize(planner.in_chunk({x++, 7}).size());
  }
  state.counters["max_lod"] = world.structures().max_lod();
}
BENCHMARK(BM_StructurePlanning)->ArgName("width")->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

void BM_WholeChunk(benchmark::State& state) {
  const World& world = world_with_width(static_cast<int>(state.range(0)));
  const Generator generator(world);
  int64_t x = 0;
  for (auto _ : state) benchmark::DoNotOptimize(generator.generate({x++, 7}).objects.size());
}
BENCHMARK(BM_WholeChunk)->ArgName("width")->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace chunkforge
