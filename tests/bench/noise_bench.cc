// Fractal noise throughput: samples per second, single-point (Fractal::at) and batched over a
// 64 x 64 grid (Fractal::grid), 2D Perlin and simplex at 4 and 8 octaves, plus the terrain
// grid of one default-world chunk. Items/s in the output are samples per second.
// BM_PerlinGridPath puts the scalar loop and the vector kernel side by side in one run (4-octave
// Perlin, 64 x 64 grid, frequency 0.05 and 0.004; the label names the instruction set chosen).
// BM_PerlinGridPeer: the cases scripts/bench-noise-peers runs against FastNoise2.
//
//   ./build/tests/bench/noise_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <hwy/targets.h>
#include <vector>

#include "chunkforge/noise.h"
#include "chunkforge/world.h"
#include "noise_path.h"
#include "perlin_rows.h"

namespace chunkforge {
namespace {

constexpr int kSide = 64;

Fractal make_fractal(NoiseKind kind, int octaves) {
  FractalSpec spec;
  spec.kind = kind;
  spec.octaves = octaves;
  spec.frequency = 0.004;  // the default world's elevation: a lattice cell spans 250 units
  return Fractal(spec, 1, salt("bench"));
}

void BM_FractalPoint(benchmark::State& state) {
  const Fractal f = make_fractal(static_cast<NoiseKind>(state.range(0)), static_cast<int>(state.range(1)));
  int64_t row = 0;
  for (auto _ : state) {
    double sum = 0;
    const Coord z{row++, 0.0};
    for (int i = 0; i < kSide; ++i) sum += f.at(Coord{i, 0.0}, z);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kSide);
}

void BM_FractalGrid(benchmark::State& state) {
  const Fractal f = make_fractal(static_cast<NoiseKind>(state.range(0)), static_cast<int>(state.range(1)));
  std::vector<double> out(kSide * kSide);
  int64_t chunk = 0;
  for (auto _ : state) {
    f.grid(Coord{0, 0.0}, Coord{kSide * chunk++, 0.0}, 1, kSide, kSide, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kSide * kSide);
}

void noise_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"simplex", "octaves"});
  for (int kind : {0, 1}) {
    for (int octaves : {4, 8}) b->Args({kind, octaves});
  }
}

BENCHMARK(BM_FractalPoint)->Apply(noise_args);
BENCHMARK(BM_FractalGrid)->Apply(noise_args);

// The instruction sets BM_PerlinGridPath can force (path 2, 3); 0: the dispatcher's choice.
constexpr int64_t kForcedTargets[] = {0, 0, HWY_AVX2, HWY_SSE4};

// Args: frequency in thousandths, and the path: 0 the scalar loop, 1 the vector kernel on the
// instruction set the dispatcher picks, 2 and 3 the vector kernel forced to AVX2 and SSE4.
void BM_PerlinGridPath(benchmark::State& state) {
  const int64_t target = kForcedTargets[state.range(1)];
  if (target != 0 && (hwy::SupportedTargets() & target) == 0) {
    state.SkipWithError("this CPU lacks the instruction set");
    return;
  }
  hwy::SetSupportedTargetsForTest(target);
  FractalSpec spec;
  spec.octaves = 4;
  spec.frequency = static_cast<double>(state.range(0)) / 1000.0;
  const Fractal f(spec, 1, salt("bench"));
  const bool batched = state.range(1) != 0;
  const bool was_batched = noise_path::batched_enabled();
  noise_path::force_scalar(!batched);
  std::vector<double> out(kSide * kSide);
  int64_t chunk = 0;
  for (auto _ : state) {
    f.grid(Coord{0, 0.0}, Coord{kSide * chunk++, 0.0}, 1, kSide, kSide, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  noise_path::force_scalar(!was_batched);
  state.SetItemsProcessed(state.iterations() * kSide * kSide);
  state.SetLabel(batched ? perlin_rows::target_name() : "scalar");
  hwy::SetSupportedTargetsForTest(0);
}
BENCHMARK(BM_PerlinGridPath)->ArgNames({"freq_milli", "path"})->ArgsProduct({{50, 4}, {0, 1, 2, 3}});

// The grids scripts/bench-noise-peers sets against FastNoise2 (tests/bench/peers/fastnoise2_bench.cc
// runs the same cases): 4-octave Perlin, frequency 0.05 and 0.004, 64 x 64 and 256 x 256 samples,
// each iteration a fresh tile further along x, on the instruction set the dispatcher picks.
void BM_PerlinGridPeer(benchmark::State& state) {
  FractalSpec spec;
  spec.octaves = 4;
  spec.frequency = static_cast<double>(state.range(0)) / 1000.0;
  const Fractal f(spec, 1, salt("bench"));
  const int side = static_cast<int>(state.range(1));
  std::vector<double> out(static_cast<size_t>(side) * static_cast<size_t>(side));
  int64_t tile = 0;
  for (auto _ : state) {
    f.grid(Coord{side * tile++, 0.0}, Coord{0, 0.0}, 1, side, side, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * side * side);
  state.SetLabel(noise_path::batched_enabled() ? perlin_rows::target_name() : "scalar");
}
BENCHMARK(BM_PerlinGridPeer)->ArgNames({"freq_milli", "side"})->ArgsProduct({{50, 4}, {64, 256}});

// A default-world chunk's full terrain grid (elevation with slope border, climate, biome,
// material) at step 1: items are grid points.
void BM_TerrainChunkGrid(benchmark::State& state) {
  const Terrain& t = default_world().terrain();
  int64_t cx = 0;
  for (auto _ : state) {
    TerrainGrid g = t.grid(cx++, 3, state.range(0));
    benchmark::DoNotOptimize(g.elevation().data());
  }
  const int64_t side = default_world().chunk_size() / state.range(0);
  state.SetItemsProcessed(state.iterations() * side * side);
}
BENCHMARK(BM_TerrainChunkGrid)->ArgName("step")->Arg(1)->Arg(4);

// One default-world point sample (every field, slope, biome, material), as structure checks and
// resource filters take them: items are points.
void BM_TerrainSample(benchmark::State& state) {
  const Terrain& t = default_world().terrain();
  double x = 0.25;
  for (auto _ : state) {
    TerrainPoint p = t.sample(Coord::from_double(x), Coord::from_double(-17.5));
    benchmark::DoNotOptimize(p);
    x += 3.5;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TerrainSample);

}  // namespace
}  // namespace chunkforge
