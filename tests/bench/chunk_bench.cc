// A whole default-world chunk (structures and every resource layer, objects only, no terrain
// grid), the figure that decides how many players one core serves (issue figures in
// docs/server.md, "Measuring"), by generator version 2 (the built-in world), version 1
// (docs/worlds/default-v1.json) and version 3 (the built-in world run by it) side by side.
// Chunks are taken over a 32 x 32 area far from the origin:
//   BM_ChunkCold/order:0|1/version:1|2|3    a fresh Generator call per chunk (rows, or random order)
//   BM_ChunkStream/order:0|1/version:1|2|3  one ChunkStream for the whole area (shared memo)
//   BM_EpochChunkCold/order:0|1/seen:0|1    a world with two epochs (chunkforge/epochs.h): the
//       built-in world as epoch 0, run by version 3 as epoch 1, with players' land seen in
//       epoch 0 far away (seen:0, the cost of asking the seen land) or a disc of 10 chunks'
//       radius in the area's middle (seen:1: 317 of the area's 1,024 chunks seen, which are
//       epoch 0's, version 2; nearly all the rest within the seam's reach): compare with
//       BM_ChunkCold/version:3
//   BM_EpochChunkStream/order:0|1/seen:0|1  the same through one EpochStream: compare with
//       BM_ChunkStream/version:3
// Each iteration is one chunk; the area wraps around, so later passes are as cold as the first
// for Cold, and a Stream keeps its bounded memo.
//
//   ./build/tests/bench/chunk_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/epochs.h"
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

// The default world run by generator version `version`.
const World& world_at(int64_t version) {
  static std::map<int64_t, World> worlds;
  auto it = worlds.find(version);
  if (it != worlds.end()) return it->second;
  v1::WorldDefinition d = default_world().definition();
  d.set_generator_version(static_cast<uint32_t>(version));
  WorldResult r = World::create(d);
  if (!r.ok()) std::abort();
  return worlds.emplace(version, std::move(*r.world)).first->second;
}

void BM_ChunkCold(benchmark::State& state) {
  const Generator generator(world_at(state.range(1)));
  const std::vector<ChunkCoord> chunks = area(state.range(0));
  size_t next = 0, objects = 0;
  for (auto _ : state) {
    objects += generator.generate(chunks[next]).objects.size();
    next = (next + 1) % chunks.size();
  }
  state.counters["objects_per_chunk"] = static_cast<double>(objects) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ChunkCold)
    ->ArgNames({"order", "version"})
    ->ArgsProduct({{0, 1}, {2, 1, 3}})
    ->Unit(benchmark::kMicrosecond);

// The two-epoch world: land seen in epoch 0 is a disc of 10 chunks' radius about `centre`.
std::shared_ptr<const Epochs> two_epochs(int64_t seen_nearby) {
  static std::map<int64_t, std::shared_ptr<const Epochs>> made;
  auto it = made.find(seen_nearby);
  if (it != made.end()) return it->second;
  const int64_t centre = seen_nearby != 0 ? kOrigin + kSide / 2 : 0;
  SeenLand seen;
  for (int64_t z = -10; z <= 10; ++z) {
    for (int64_t x = -10; x <= 10; ++x) {
      if (x * x + z * z <= 100) seen.mark({centre + x, centre + z}, 0);
    }
  }
  EpochsResult r = Epochs::create({world_at(2), world_at(3)}, std::move(seen));
  if (!r.ok()) std::abort();
  return made.emplace(seen_nearby, r.epochs).first->second;
}

void BM_EpochChunkCold(benchmark::State& state) {
  const Epochs& epochs = *two_epochs(state.range(1));
  const std::vector<ChunkCoord> chunks = area(state.range(0));
  size_t next = 0, objects = 0;
  for (auto _ : state) {
    objects += epochs.generate(chunks[next]).data.objects.size();
    next = (next + 1) % chunks.size();
  }
  state.counters["objects_per_chunk"] = static_cast<double>(objects) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_EpochChunkCold)->ArgNames({"order", "seen"})->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);

// The area's chunks in `order`, one per iteration, through `stream` (a ChunkStream or an
// EpochStream).
template <typename Stream>
void walk(benchmark::State& state, Stream& stream, int64_t order) {
  const std::vector<ChunkCoord> chunks = area(order);
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(stream.generate(chunks[next]));
    next = (next + 1) % chunks.size();
  }
}

void BM_EpochChunkStream(benchmark::State& state) {
  EpochStream stream(two_epochs(state.range(1)));
  walk(state, stream, state.range(0));
}
BENCHMARK(BM_EpochChunkStream)
    ->ArgNames({"order", "seen"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

void BM_ChunkStream(benchmark::State& state) {
  ChunkStream stream(world_at(state.range(1)));
  walk(state, stream, state.range(0));
}
BENCHMARK(BM_ChunkStream)
    ->ArgNames({"order", "version"})
    ->ArgsProduct({{0, 1}, {2, 1, 3}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace chunkforge
