// Client's chunk and region calls with and without local generation (Client::generate_locally,
// docs/client-generation.md, "Single chunks and regions"), side by side on one in-process server
// (loopback, 2 generation threads, no edit store: every chunk pristine). Every iteration asks for
// ground nobody asked for before, so the server's cache is cold, as for a player who explores.
//
//   BM_Region/local:0|1   a radius-8 region (289 chunks) with terrain at step 1, nearest first;
//                         wall time per region (UseRealTime)
//   BM_Chunk/local:0|1    one chunk with terrain at step 1
// Counters: cpu_ms, the process's CPU per iteration (the client's and the server's together:
// they share the process); chunk_bytes, what the server sent as chunks (0 when the client
// generates: it gets one GetChunkEdits answer, empty on this world).
//
//   ./build/tests/bench/local_client_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <ctime>
#include <memory>

#include "chunkforge/client.h"
#include "chunkforge/client/local_generator.h"
#include "chunkforge/v1/chunk.pb.h"
#include "in_process_server.h"

namespace chunkforge {
namespace {

double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// A client of the shared server, generating locally when `local`.
client::Client client_of(bool local) {
  client::Client c = *client::Client::connect(bench::in_process_server(2));
  if (local) c.generate_locally(*client::make_local_generator(c));
  return c;
}

client::ChunkOptions with_terrain() {
  client::ChunkOptions options;
  options.include_terrain = true;
  options.terrain_step = 1;
  return options;
}

// Fresh ground for every iteration of every benchmark of this process.
int64_t next_centre() {
  static int64_t next = 0;
  return (next += 100);
}

void BM_Region(benchmark::State& state) {
  client::Client c = client_of(state.range(0) != 0);
  double bytes = 0, cpu = 0;
  for (auto _ : state) {
    const double cpu_start = process_cpu_ms();
    const client::Status status =
        c.stream_region({next_centre(), 0}, 8, with_terrain(), [&](const client::Chunk& chunk) {
          bytes += state.range(0) != 0 ? 0 : static_cast<double>(chunk.message().ByteSizeLong());
          return true;
        });
    cpu += process_cpu_ms() - cpu_start;
    if (!status.ok()) state.SkipWithError(status.to_string().c_str());
  }
  state.counters["chunk_bytes"] = benchmark::Counter(bytes, benchmark::Counter::kAvgIterations);
  state.counters["cpu_ms"] = benchmark::Counter(cpu, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Region)->ArgName("local")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_Chunk(benchmark::State& state) {
  client::Client c = client_of(state.range(0) != 0);
  double cpu = 0;
  for (auto _ : state) {
    const double cpu_start = process_cpu_ms();
    if (!c.chunk({next_centre(), 5}, with_terrain())) state.SkipWithError("no chunk");
    cpu += process_cpu_ms() - cpu_start;
  }
  state.counters["cpu_ms"] = benchmark::Counter(cpu, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Chunk)->ArgName("local")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chunkforge
