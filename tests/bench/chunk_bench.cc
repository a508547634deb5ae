// A whole default-world chunk (structures and every resource layer, objects only, no terrain
// grid), the figure that decides how many players one core serves (issue figures in
// docs/server.md, "Measuring"). Chunks are taken over a 32 x 32 area far from the origin:
//   BM_ChunkCold/order:0|1      a fresh Generator call per chunk (rows, or random order)
//   BM_ChunkStream/order:0|1    one ChunkStream for the whole area (neighbours share the memo)
// Each iteration is one chunk; the area wraps around, so later passes are as cold as the first
// for Cold, and a Stream keeps its bounded memo.
//
//   ./build/tests/bench/chunk_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/world.h"

namespace chunkforge {
namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kOrigin = 100000;  // away from the origin, as players spread out

// The area's chunks in rows (order 0) or shuffled with a fixed seed (order 1).
std::vector<ChunkCoord> area(int64_t order) {
  std::vector<ChunkCoord> chunks;
  for (int64_t z = 0; z < kSide; ++z) {
    for (int64_t x = 0; x < kSide; ++x) chunks.push_back({kOrigin + x, kOrigin + z});
  }
  if (order == 1) std::shuffle(chunks.begin(), chunks.end(), std::mt19937_64(42));
  return chunks;
}

void BM_ChunkCold(benchmark::State& state) {
  const Generator generator(default_world());
  const std::vector<ChunkCoord> chunks = area(state.range(0));
  size_t next = 0, objects = 0;
  for (auto _ : state) {
    objects += generator.generate(chunks[next]).objects.size();
    next = (next + 1) % chunks.size();
  }
  state.counters["objects_per_chunk"] = static_cast<double>(objects) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ChunkCold)->ArgName("order")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_ChunkStream(benchmark::State& state) {
  ChunkStream stream(default_world());
  const std::vector<ChunkCoord> chunks = area(state.range(0));
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(stream.generate(chunks[next]));
    next = (next + 1) % chunks.size();
  }
}
BENCHMARK(BM_ChunkStream)->ArgName("order")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace chunkforge
