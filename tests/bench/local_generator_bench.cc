// The SDK's local generator (chunkforge::client_local) making a player's whole view, cold: a
// radius-8 view (17 x 17 = 289 chunks) of the default world, each chunk with its terrain grid
// at step 1, through a fresh generator each iteration (a game that just joined), on 1 and 2
// threads that take the view's chunks nearest first from one shared list, as a session's
// workers would. The aim: 2 threads within 150 ms on the 2-core reference machine.
//
//   BM_ViewCold/threads:1|2/memo_cells:N   one iteration is one whole view; wall time
//                                          (UseRealTime); N = LocalGeneratorOptions::memo_cells
// Counters: cpu_ms_per_view, the CPU time of the whole process per view (every thread's: on a
// loaded machine, where wall time shows the load, it shows the work); peak_rss_MB, the
// process's peak resident memory (VmHWM), which bounds the streams' (run one configuration
// alone, with --benchmark_filter, to read it).
//
//   BM_LodViewCold/threads:1|2   a LOD view's tiles (lod_radius 1,024) through generate_tile, on
//                                1 and 2 threads, as a session whose generator makes tiles.
//
//   ./build/tests/bench/local_generator_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "chunkforge/client/local_generator.h"
#include "chunkforge/encode.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/lod.pb.h"
#include "chunkforge/world.h"

namespace chunkforge::client {
namespace {

constexpr int64_t kRadius = 8;
constexpr int64_t kCentre = 100000;  // away from the origin, as players spread out

// The view's chunks nearest first (squared distance, then z, then x), as the server orders it.
std::vector<ChunkCoord> view() {
  std::vector<ChunkCoord> chunks;
  for (int64_t z = -kRadius; z <= kRadius; ++z) {
    for (int64_t x = -kRadius; x <= kRadius; ++x) chunks.push_back({kCentre + x, kCentre + z});
  }
  const auto rank = [](const ChunkCoord& c) {
    return std::tuple((c.x - kCentre) * (c.x - kCentre) + (c.z - kCentre) * (c.z - kCentre), c.z, c.x);
  };
  std::sort(chunks.begin(), chunks.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return chunks;
}

// What GetWorldInfo with include_definition answers for the built-in world.
v1::WorldInfo served_info() {
  v1::WorldInfo info = describe_world(default_world());
  *info.mutable_definition() = default_world().definition();
  return info;
}

// VmHWM of /proc/self/status in MB (0 if unreadable).
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

// CPU seconds of every thread of the process so far.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void BM_ViewCold(benchmark::State& state) {
  const auto threads = static_cast<size_t>(state.range(0));
  const std::vector<ChunkCoord> chunks = view();
  const v1::WorldInfo info = served_info();
  const ChunkOptions options{.include_terrain = true, .terrain_step = 1, .layers = {}};
  std::atomic<size_t> bytes{0};
  double cpu_seconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto generator =
        make_local_generator(info, {.max_streams = threads, .memo_cells = static_cast<size_t>(state.range(1))});
    if (!generator) std::abort();
    std::atomic<size_t> next{0};
    const double cpu_start = process_cpu_seconds();
    state.ResumeTiming();
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        for (size_t k = next++; k < chunks.size(); k = next++) {
          bytes += (*generator)->generate(chunks[k], options)->ByteSizeLong();
        }
      });
    }
    for (std::thread& worker : workers) worker.join();
    cpu_seconds += process_cpu_seconds() - cpu_start;
  }
  state.counters["chunks"] = static_cast<double>(chunks.size());
  state.counters["cpu_ms_per_view"] = cpu_seconds * 1e3 / static_cast<double>(state.iterations());
  state.counters["peak_rss_MB"] = peak_rss_mb();
  state.counters["MB_per_view"] = static_cast<double>(bytes.load()) / 1e6 / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ViewCold)
    ->ArgNames({"threads", "memo_cells"})
    ->Args({1, 32768})
    ->Args({2, 32768})
    ->Args({2, 131072})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A LOD view (lod_radius 1,024, no chunk view) made by generate_tile, as a session whose
// generator makes tiles does after a teleport: the view's tiles in the server's order, shared
// by the threads.
void BM_LodViewCold(benchmark::State& state) {
  const auto threads = static_cast<size_t>(state.range(0));
  const auto size = default_world().chunk_size();
  std::vector<LodKey> tiles;
  for (const chunkforge::LodKey& k :
       lod_view(size, static_cast<double>(kCentre * size) + 0.5, static_cast<double>(kCentre * size) + 0.5, 1024)) {
    tiles.push_back({static_cast<uint32_t>(k.level), k.x, k.z});
  }
  const v1::WorldInfo info = served_info();
  auto generator = make_local_generator(info, {.max_streams = threads});
  if (!generator) std::abort();
  std::atomic<size_t> bytes{0};
  double cpu_seconds = 0;
  for (auto _ : state) {
    std::atomic<size_t> next{0};
    const double cpu_start = process_cpu_seconds();
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        for (size_t k = next++; k < tiles.size(); k = next++)
          bytes += (*generator)->generate_tile(tiles[k])->ByteSizeLong();
      });
    }
    for (std::thread& worker : workers) worker.join();
    cpu_seconds += process_cpu_seconds() - cpu_start;
  }
  state.counters["tiles"] = static_cast<double>(tiles.size());
  state.counters["cpu_ms_per_view"] = cpu_seconds * 1e3 / static_cast<double>(state.iterations());
  state.counters["MB_per_view"] = static_cast<double>(bytes.load()) / 1e6 / static_cast<double>(state.iterations());
}
BENCHMARK(BM_LodViewCold)->ArgNames({"threads"})->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace chunkforge::client
